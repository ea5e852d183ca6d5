//! Where inputs live: object-store URLs behind a blocking API.
//!
//! `s3://bucket/key` (and `s3a://`, as Hadoop names it), `az://container/key`,
//! `abfs[s]://container@account.dfs.core.windows.net/key` and
//! `gs://bucket/key` are read through the `object_store` crate (what delta-rs
//! and DataFusion use). Credentials and endpoints come from the environment
//! as its builders read them (`AmazonS3Builder::from_env()`: `AWS_*`, with
//! `AWS_ENDPOINT_URL` and `AWS_ALLOW_HTTP` for S3-compatible servers;
//! `MicrosoftAzureBuilder::from_env()`: `AZURE_*`;
//! `GoogleCloudStorageBuilder::from_env()`: `GOOGLE_*`), overridden by the
//! options given to [`set_options`] (the binary's `--storage-option KEY=VALUE`,
//! as delta-rs' `storage_options`).
//!
//! [`locate`] says whether a URL names one object or a prefix (listing it,
//! page by page, as `object_store` does); [`open`] streams one object: a GET
//! whose body is read chunk by chunk through a [`std::io::Read`], so a log of
//! any size is read in constant memory. Requests, and a body cut
//! mid-object, are retried a bounded number of times with backoff
//! ([`RetryConfig`]).
//!
//! Every request has a connect, a first-byte and an idle-body timeout, and
//! the run has one retry budget ([`Timeouts`], the `http` module); notices of
//! failed attempts reach stderr as they happen.
//!
//! Credentials never leave the process: [`redact`] hides them in every text
//! this crate returns, and is what every printer of a location uses.
//! Credentials given in a URL are used ([`accept`]: `s3://KEY:SECRET@bucket`,
//! a SAS query on `az://`/`abfss://`) or refused with a named error; the
//! URL callers keep and print is the one without them.
//!
//! The tokio runtime `object_store` needs is private to this crate: callers
//! (rayon threads, plain threads) block on it.
//!
//! Every call that can fail returns an [`Error`]: the URL and a typed
//! [`Reason`] (the crate's thiserror enum; [`Error::kind`] sorts out a
//! missing object and one over a cap), displayed as `<url>: <reason>`.

use std::collections::HashMap;
use std::io::{self, Read};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use futures::stream::BoxStream;
use futures::{StreamExt, TryStreamExt};
use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey};
use object_store::azure::{AzureConfigKey, MicrosoftAzureBuilder};
use object_store::gcp::{GoogleCloudStorageBuilder, GoogleConfigKey};
use object_store::path::Path as StorePath;
use object_store::{BackoffConfig, ClientOptions, ObjectStore, ObjectStoreExt, RetryConfig};

mod creds;
mod error;
mod http;
mod redact;

pub use error::Reason;
pub use http::{Timeouts, RETRY_BUDGET, RETRY_TIME_BUDGET};
pub use redact::{redact, REDACTED};

/// The URL schemes read from object stores.
pub const SCHEMES: [&str; 7] = ["s3", "s3a", "az", "azure", "abfs", "abfss", "gs"];

/// An input on an object store that could not be used: the URL as given
/// and why ([`Reason`]). Displays as `<url>: <reason>`, credentials
/// hidden.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// The URL (as the user gave it, or as found under a prefix).
    pub url: String,
    /// Why.
    pub reason: Reason,
}

/// The kinds of [`Error`] a caller may act on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// No object at the URL (HTTP 404).
    NotFound,
    /// The object is larger than the caller's cap: nothing was read.
    TooLarge {
        /// The object's size.
        size: u64,
    },
    /// Anything else: a refused request, a network failure, a bad URL.
    Other,
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", redact(&self.url), self.why())
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.reason)
    }
}

impl Error {
    /// What kind of failure, for callers that treat some apart (a missing
    /// optional object, an object over a size cap).
    pub fn kind(&self) -> ErrorKind {
        match self.reason {
            Reason::NotFound { .. } => ErrorKind::NotFound,
            Reason::TooLarge { size, .. } => ErrorKind::TooLarge { size },
            _ => ErrorKind::Other,
        }
    }

    /// The reason as text, credentials hidden (for callers that name the
    /// URL themselves).
    pub fn why(&self) -> String {
        redact(&self.reason.to_string()).into_owned()
    }
}

fn err(url: &str, reason: Reason) -> Error {
    Error {
        url: redact(url).into_owned(),
        reason,
    }
}

/// An object-store failure on `url`, its kind kept.
fn store_err(url: &str, e: &object_store::Error) -> Error {
    let message = reason(e);
    Error {
        url: redact(url).into_owned(),
        reason: match e {
            object_store::Error::NotFound { .. } => Reason::NotFound { message },
            _ => Reason::Store { message },
        },
    }
}

/// Whether `s` is an object-store URL (one of [`SCHEMES`]).
pub fn is_remote(s: &str) -> bool {
    s.split_once("://")
        .is_some_and(|(scheme, _)| SCHEMES.contains(&scheme.to_ascii_lowercase().as_str()))
}

/// The local path a `file://` URL names, if `s` is one.
pub fn file_url_path(s: &str) -> Option<std::path::PathBuf> {
    if !s
        .get(..7)
        .is_some_and(|p| p.eq_ignore_ascii_case("file://"))
    {
        return None;
    }
    url::Url::parse(s).ok()?.to_file_path().ok()
}

static OPTIONS: OnceLock<Vec<(String, String)>> = OnceLock::new();

/// Sets the storage options every store is built with (`KEY=VALUE` pairs as
/// `object_store`'s config keys name them: `aws_endpoint`,
/// `aws_allow_http`, `azure_storage_account_name`, `google_service_account`,
/// ...; case-insensitive). Call once, before the first URL is read; an
/// option applies to the stores whose keys it names. A key no store knows
/// is an error (nothing is set then).
pub fn set_options(options: Vec<(String, String)>) -> Result<(), Reason> {
    for (k, _) in &options {
        let k = k.to_ascii_lowercase();
        if k.parse::<AmazonS3ConfigKey>().is_err()
            && k.parse::<AzureConfigKey>().is_err()
            && k.parse::<GoogleConfigKey>().is_err()
        {
            return Err(Reason::UnknownOption { key: k });
        }
    }
    for (k, v) in &options {
        if redact::is_secret_key(k) {
            redact::remember(v);
        }
    }
    OPTIONS.set(options).map_err(|_| Reason::OptionsAlreadySet)
}

static TIMEOUTS: OnceLock<Timeouts> = OnceLock::new();

/// `--quiet`: the retry notices on standard error are not printed (an
/// error still is: it is returned, not noticed).
static QUIET: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Silences the retry notices (the binary's `--quiet`).
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, std::sync::atomic::Ordering::Relaxed);
}

fn quiet() -> bool {
    QUIET.load(std::sync::atomic::Ordering::Relaxed)
}

/// Sets the timeouts of every request (the binary's `--store-timeout`);
/// call once, before the first URL is read. Default: [`Timeouts::DEFAULT`].
pub fn set_timeouts(t: Timeouts) -> Result<(), Reason> {
    TIMEOUTS.set(t).map_err(|_| Reason::TimeoutsAlreadySet)
}

fn timeouts() -> Timeouts {
    TIMEOUTS.get().copied().unwrap_or(Timeouts::DEFAULT)
}

fn options() -> &'static [(String, String)] {
    OPTIONS.get().map(Vec::as_slice).unwrap_or(&[])
}

fn runtime() -> Result<&'static tokio::runtime::Runtime, Reason> {
    static RT: OnceLock<Result<tokio::runtime::Runtime, Reason>> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("lakeaudit-stores")
            .enable_all()
            .build()
            .map_err(|e| Reason::Runtime {
                message: e.to_string(),
            })
    })
    .as_ref()
    .map_err(Clone::clone)
}

/// Bounded retries with exponential backoff, for requests and for a body
/// cut mid-object (object_store resumes it from where it stopped, if the
/// object's ETag did not change).
fn retry() -> RetryConfig {
    RetryConfig {
        backoff: BackoffConfig {
            init_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(2),
            base: 2.0,
        },
        max_retries: http::MAX_RETRIES,
        retry_timeout: http::RETRY_WINDOW,
    }
}

/// A parsed object-store URL: the store it lives on and the key.
struct Target {
    /// `scheme://authority` without credentials, the key of the store
    /// cache and of the credentials given in URLs.
    store_key: String,
    scheme: String,
    path: StorePath,
    /// The URL as given, without its credentials: what is printed and
    /// what the objects under it are named from.
    clean: String,
}

/// The URL parsed, its credentials (user info, a SAS query) taken out and
/// remembered for its store ([`creds`]); refused when they cannot be used.
fn target(s: &str) -> Result<Target, Error> {
    let u = url::Url::parse(s).map_err(|e| err(s, Reason::BadUrl(e)))?;
    let scheme = u.scheme().to_ascii_lowercase();
    let (u, found) = creds::take(&scheme, u).map_err(|reason| err(s, reason))?;
    let authority = u.authority().to_string();
    if authority.is_empty() {
        return Err(err(s, Reason::NoBucket));
    }
    let clean = if found.is_some() {
        u.to_string()
    } else {
        s.to_string()
    };
    let path = StorePath::from_url_path(u.path()).map_err(|e| {
        err(
            &clean,
            Reason::BadPath {
                message: e.to_string(),
            },
        )
    })?;
    let store_key = format!("{scheme}://{authority}");
    if let Some(c) = found {
        creds::register(&store_key, c).map_err(|reason| err(&clean, reason))?;
    }
    Ok(Target {
        store_key,
        scheme,
        path,
        clean,
    })
}

/// The URL as it may be printed and kept: without the credentials it
/// carries, which are remembered for its store and used for its requests
/// (`s3://KEY:SECRET@bucket/…`: that access key; `az://c/p?sv=…&sig=…`:
/// that SAS). Credentials that cannot be used (a presigned S3 URL, a
/// password in an `az://` URL, …) are an error naming them (hidden).
/// Idempotent: a URL without credentials is returned as is.
pub fn accept(url: &str) -> Result<String, Error> {
    target(url).map(|t| t.clean)
}

/// The client settings (connect timeout, no whole-request timeout: a big
/// object's body may take longer than any fixed bound; a stalled one is cut
/// by the idle-body timeout of [`http::Timed`]) with the client keys of the environment (`prefix`:
/// `AWS_ALLOW_HTTP`, ...) and of the storage options applied on top.
/// `with_client_options` replaces the builder's client settings, so the
/// environment's client keys are merged here first.
fn client_options<K: std::str::FromStr>(
    prefix: &str,
    client_key: impl Fn(K) -> Option<object_store::ClientConfigKey>,
) -> ClientOptions {
    let mut c = ClientOptions::new()
        .with_connect_timeout(timeouts().connect)
        .with_timeout_disabled();
    let env = std::env::vars().filter(|(k, _)| k.starts_with(prefix));
    for (k, v) in env.chain(options().iter().cloned()) {
        if let Some(key) = k
            .to_ascii_lowercase()
            .parse::<K>()
            .ok()
            .and_then(&client_key)
        {
            c = c.with_config(key, v);
        }
    }
    c
}

/// A builder from the environment, the URL, the client settings, the
/// storage options (those its config keys name) and the timed connector.
macro_rules! configured {
    ($builder:ty, $key:ident, $prefix:literal, $url:expr, $timed:expr) => {{
        let client = client_options::<$key>($prefix, |k| match k {
            $key::Client(c) => Some(c),
            _ => None,
        });
        let mut b = <$builder>::from_env()
            .with_url($url)
            .with_client_options(client)
            .with_retry(retry())
            .with_http_connector($timed);
        for (k, v) in options() {
            if let Ok(key) = k.to_ascii_lowercase().parse::<$key>() {
                b = b.with_config(key, v);
            }
        }
        b
    }};
}

fn build(t: &Target, url: &str) -> Result<Arc<dyn ObjectStore>, Error> {
    let given = creds::given(&t.store_key);
    let timed = |metadata: Vec<String>| http::Timed {
        store: t.store_key.clone(),
        timeouts: timeouts(),
        metadata,
    };
    let failed = |e: object_store::Error| {
        err(
            url,
            Reason::Store {
                message: reason(&e),
            },
        )
    };
    match t.scheme.as_str() {
        "s3" | "s3a" => {
            let mut b = configured!(
                AmazonS3Builder,
                AmazonS3ConfigKey,
                "AWS_",
                &t.store_key,
                timed(vec![])
            );
            if let Some(creds::Given::S3 { key_id, secret }) = &given {
                b = b.with_access_key_id(key_id).with_secret_access_key(secret);
            }
            let metadata = creds::check_s3(&b).map_err(|r| err(url, r))?;
            if let Some(ep) = &metadata {
                b = b.with_http_connector(timed(vec![creds::authority(ep)]));
            }
            let s = Arc::new(b.build().map_err(failed)?);
            if let Some(ep) = metadata {
                creds::fetch(url, &ep, creds::S3_MISSING, s.credentials().as_ref())?;
            }
            Ok(s as Arc<dyn ObjectStore>)
        }
        "az" | "azure" | "abfs" | "abfss" => {
            let mut b = configured!(
                MicrosoftAzureBuilder,
                AzureConfigKey,
                "AZURE_",
                &t.store_key,
                timed(vec![])
            );
            let sas = matches!(given, Some(creds::Given::Sas(_)));
            if let Some(creds::Given::Sas(pairs)) = given {
                b = b.with_credentials(Arc::new(object_store::StaticCredentialProvider::new(
                    object_store::azure::AzureCredential::SASToken(pairs),
                )));
            }
            let account_in_url = matches!(t.scheme.as_str(), "abfs" | "abfss")
                && t.store_key
                    .rsplit('@')
                    .next()
                    .is_some_and(|h| h.contains('.'));
            let metadata = creds::check_azure(&b, sas, account_in_url).map_err(|r| err(url, r))?;
            if let Some(ep) = &metadata {
                b = b.with_http_connector(timed(vec![creds::authority(ep)]));
            }
            let s = Arc::new(b.build().map_err(failed)?);
            if let Some(ep) = metadata {
                creds::fetch(url, &ep, creds::AZURE_MISSING, s.credentials().as_ref())?;
            }
            Ok(s as Arc<dyn ObjectStore>)
        }
        "gs" => {
            let metadata = vec![
                "169.254.169.254".to_string(),
                "metadata.google.internal".to_string(),
            ];
            configured!(
                GoogleCloudStorageBuilder,
                GoogleConfigKey,
                "GOOGLE_",
                &t.store_key,
                timed(metadata)
            )
            .build()
            .map(|s| Arc::new(s) as Arc<dyn ObjectStore>)
            .map_err(failed)
        }
        other => Err(err(
            url,
            Reason::UnsupportedScheme {
                scheme: other.to_string(),
            },
        )),
    }
}

/// The store for a URL, built once per `scheme://authority`.
/// A store that could not be built is remembered too (its reason said
/// for each URL on it), so its checks and a metadata lookup run once.
fn store(t: &Target, url: &str) -> Result<Arc<dyn ObjectStore>, Error> {
    type Built = Result<Arc<dyn ObjectStore>, Reason>;
    static STORES: OnceLock<Mutex<HashMap<String, Built>>> = OnceLock::new();
    let stores = STORES.get_or_init(Default::default);
    // Credentials a URL gave later make another store.
    let key = format!("{}#{}", t.store_key, creds::given(&t.store_key).is_some());
    let known = stores.lock().ok().and_then(|m| m.get(&key).cloned());
    let built = match known {
        Some(b) => b,
        None => {
            let b = build(t, url).map_err(|e| e.reason);
            if let Ok(mut m) = stores.lock() {
                m.insert(key, b.clone());
            }
            b
        }
    };
    built.map_err(|r| err(url, r))
}

/// Why an object-store call failed, in a few words, with the server's own
/// message where there is one.
fn reason(e: &object_store::Error) -> String {
    let text = match e {
        object_store::Error::NotFound { source, .. } => {
            format!("not found ({})", innermost(source.as_ref()))
        }
        object_store::Error::PermissionDenied { source, .. } => {
            format!("access denied ({})", innermost(source.as_ref()))
        }
        object_store::Error::Unauthenticated { source, .. } => {
            format!("not authenticated ({})", innermost(source.as_ref()))
        }
        other => {
            // The root cause (`Connection refused`, a DNS failure) is often
            // below the client's own words (`error sending request`).
            let text = other.to_string();
            let root = innermost(other);
            if text.contains(&root) {
                text
            } else {
                format!("{text} ({root})")
            }
        }
    };
    redact(&condense(&text)).into_owned()
}

/// The innermost cause of an error chain, in its own words.
pub(crate) fn innermost(e: &(dyn std::error::Error + 'static)) -> String {
    let mut cur = e;
    while let Some(next) = cur.source() {
        cur = next;
    }
    cur.to_string()
}

/// One line, and not a whole XML error document: the server's error code
/// and message (S3 and Azure both send `<Code>` and `<Message>`) with the
/// HTTP status, when the text carries them; else the text, cut at 400
/// characters.
fn condense(text: &str) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let tag = |t: &str| {
        let open = format!("<{t}>");
        let start = one_line.find(&open)? + open.len();
        let len = one_line.get(start..)?.find('<')?;
        one_line.get(start..start + len).map(str::to_string)
    };
    if let Some(code) = tag("Code") {
        let status = one_line
            .split_once("status code: ")
            .and_then(|(_, r)| r.split(':').next())
            .map(|s| format!(" (HTTP {s})"))
            .unwrap_or_default();
        let message = tag("Message")
            .map(|m| format!(": {}", m.split(" RequestId:").next().unwrap_or(&m)))
            .unwrap_or_default();
        return format!("{code}{message}{status}");
    }
    if one_line.chars().count() > 400 {
        let cut: String = one_line.chars().take(400).collect();
        format!("{cut}…")
    } else {
        one_line
    }
}

/// One object found under a prefix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    /// Its key relative to the prefix, `/`-separated (`a/b/app-1.zstd`).
    pub rel: String,
    /// Its full URL (the prefix URL joined with `rel`).
    pub url: String,
    /// Its size in bytes.
    pub size: u64,
}

/// What a URL names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// One object (of this size).
    Object { size: u64 },
    /// A prefix: the objects under it, sorted by `rel`.
    Prefix(Vec<Listed>),
}

/// Whether `url` names one object or a prefix, and the objects under the
/// prefix (every page of the listing). A prefix with nothing under it is an
/// error, as is a missing bucket or a refused request.
pub fn locate(url: &str) -> Result<Found, Error> {
    let t = target(url)?;
    let url = t.clean.as_str();
    let s = store(&t, url)?;
    let rt = runtime().map_err(|r| err(url, r))?;
    if !t.path.as_ref().is_empty() && !url.ends_with('/') {
        match rt.block_on(s.head(&t.path)) {
            Ok(meta) => return Ok(Found::Object { size: meta.size }),
            Err(object_store::Error::NotFound { .. }) => {}
            Err(e) => return Err(store_err(url, &e)),
        }
    }
    let out = list_in(&t, &s, rt, url)?;
    if out.is_empty() {
        return Err(err(url, Reason::NothingUnder));
    }
    Ok(Found::Prefix(out))
}

/// The objects under the prefix `url` (every page of the listing), sorted
/// by `rel`; none is an empty list, a missing bucket or a refused request
/// an error. A prefix is whole path segments: `s3://b/t` lists
/// `s3://b/t/...`, never `s3://b/t2/...`.
pub fn list(url: &str) -> Result<Vec<Listed>, Error> {
    let t = target(url)?;
    let url = t.clean.as_str();
    let s = store(&t, url)?;
    let rt = runtime().map_err(|r| err(url, r))?;
    list_in(&t, &s, rt, url)
}

fn list_in(
    t: &Target,
    s: &Arc<dyn ObjectStore>,
    rt: &tokio::runtime::Runtime,
    url: &str,
) -> Result<Vec<Listed>, Error> {
    let prefix = (!t.path.as_ref().is_empty()).then_some(&t.path);
    let listed: Vec<object_store::ObjectMeta> = rt
        .block_on(s.list(prefix).try_collect())
        .map_err(|e| store_err(url, &e))?;
    let base = url.trim_end_matches('/');
    let strip = t.path.as_ref().len();
    let mut out: Vec<Listed> = listed
        .into_iter()
        .filter_map(|m| {
            let key = m.location.as_ref();
            let rel = key.get(strip..)?.trim_start_matches('/').to_string();
            (!rel.is_empty()).then(|| Listed {
                url: format!("{base}/{rel}"),
                rel,
                size: m.size,
            })
        })
        .collect();
    out.sort_by(|a, b| a.rel.cmp(&b.rel));
    Ok(out)
}

/// The size of the object at `url` (a HEAD request); a missing object is
/// an error of kind [`ErrorKind::NotFound`].
pub fn size(url: &str) -> Result<u64, Error> {
    let t = target(url)?;
    let url = t.clean.as_str();
    let s = store(&t, url)?;
    let rt = runtime().map_err(|r| err(url, r))?;
    rt.block_on(s.head(&t.path))
        .map(|m| m.size)
        .map_err(|e| store_err(url, &e))
}

/// The whole object at `url`, if it is at most `cap` bytes: one GET whose
/// declared size is checked before anything is allocated (an object over
/// the cap is [`ErrorKind::TooLarge`], its body never read), and whose body
/// is read no further than the cap (an object replaced by a larger one
/// while read is refused too).
pub fn read_capped(url: &str, cap: u64) -> Result<Vec<u8>, Error> {
    let t = target(url)?;
    let url = t.clean.as_str();
    let s = store(&t, url)?;
    let rt = runtime().map_err(|r| err(url, r))?;
    let too_large = |size: u64| Error {
        url: url.to_string(),
        reason: Reason::TooLarge { size, cap },
    };
    rt.block_on(async {
        let got = s.get(&t.path).await.map_err(|e| store_err(url, &e))?;
        let size = got.meta.size;
        if size > cap {
            return Err(too_large(size));
        }
        let mut out = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
        let mut stream = got.into_stream();
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(|e| store_err(url, &e))?;
            if (out.len() + chunk.len()) as u64 > cap {
                return Err(too_large((out.len() + chunk.len()) as u64));
            }
            out.extend_from_slice(&chunk);
        }
        Ok(out)
    })
}

/// The bytes `range` of the object at `url` (a ranged GET). A range that
/// runs past the end of the object is an error, as is a reply of another
/// length than asked for.
pub fn read_range(url: &str, range: std::ops::Range<u64>) -> Result<Vec<u8>, Error> {
    if range.is_empty() {
        return Ok(Vec::new());
    }
    let t = target(url)?;
    let url = t.clean.as_str();
    let s = store(&t, url)?;
    let rt = runtime().map_err(|r| err(url, r))?;
    let want = range.end - range.start;
    let got = rt
        .block_on(s.get_range(&t.path, range.clone()))
        .map_err(|e| store_err(url, &e))?;
    if got.len() as u64 != want {
        return Err(err(
            url,
            Reason::ShortRange {
                start: range.start,
                end: range.end,
                got: got.len(),
            },
        ));
    }
    Ok(got.to_vec())
}

/// Streams one object: a GET whose body is read as it arrives.
pub fn open(url: &str) -> Result<ObjectReader, Error> {
    let t = target(url)?;
    let url = t.clean.as_str();
    let s = store(&t, url)?;
    let rt = runtime().map_err(|r| err(url, r))?;
    let got = rt
        .block_on(s.get(&t.path))
        .map_err(|e| store_err(url, &e))?;
    Ok(ObjectReader {
        rt,
        stream: got.into_stream(),
        chunk: Default::default(),
    })
}

/// An object's bytes as a [`Read`]: one body chunk held at a time.
pub struct ObjectReader {
    rt: &'static tokio::runtime::Runtime,
    stream: BoxStream<'static, object_store::Result<bytes::Bytes>>,
    chunk: bytes::Bytes,
}

impl Read for ObjectReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        while self.chunk.is_empty() {
            match self.rt.block_on(self.stream.next()) {
                None => return Ok(0),
                Some(Ok(b)) => self.chunk = b,
                // The reason alone: the reader names the URL.
                Some(Err(e)) => return Err(io::Error::other(reason(&e))),
            }
        }
        let n = buf.len().min(self.chunk.len());
        let head = self.chunk.split_to(n);
        buf[..n].copy_from_slice(&head);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::{condense, file_url_path, is_remote, target};

    #[test]
    fn remote_urls_and_file_urls() {
        for u in [
            "s3://b/k",
            "S3A://b/k",
            "az://c/p",
            "abfss://c@acct.dfs.core.windows.net/p",
            "gs://b",
        ] {
            assert!(is_remote(u), "{u}");
        }
        for p in [
            "/var/log",
            "logs/s3://x",
            "file:///tmp/x",
            "hdfs://nn/x",
            "-",
        ] {
            assert!(!is_remote(p), "{p}");
        }
        assert_eq!(
            file_url_path("file:///tmp/spark%20events"),
            Some("/tmp/spark events".into())
        );
        assert_eq!(file_url_path("/tmp/x"), None);
    }

    #[test]
    fn a_url_names_its_store_and_key() {
        let t = target("abfss://logs@acct.dfs.core.windows.net/a/b%20c").expect("parses");
        assert_eq!(t.store_key, "abfss://logs@acct.dfs.core.windows.net");
        assert_eq!(t.path.as_ref(), "a/b c");
        let t = target("s3a://bucket").expect("parses");
        assert_eq!(
            (t.store_key.as_str(), t.path.as_ref()),
            ("s3a://bucket", "")
        );
        let e = target("s3:///key").err().expect("no bucket");
        assert_eq!(
            e.to_string(),
            "s3:///key: the URL names no bucket or container"
        );
    }

    #[test]
    fn credentials_in_urls_are_taken_out_or_refused() {
        use super::{accept, creds};
        assert_eq!(
            accept("s3://AKIAUNITTEST01:unit%2Fsecret%2Bx@unit-bucket/a/b").unwrap(),
            "s3://unit-bucket/a/b"
        );
        assert_eq!(
            creds::given("s3://unit-bucket"),
            Some(creds::Given::S3 {
                key_id: "AKIAUNITTEST01".into(),
                secret: "unit/secret+x".into()
            })
        );
        // Other credentials for the same bucket in the same run: refused.
        let e = accept("s3://AKIAUNITTEST02:other-secret@unit-bucket/c").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("s3://unit-bucket/c: other credentials"),
            "{e}"
        );
        assert_eq!(
            accept("abfss://logs@acct.dfs.core.windows.net/p?sv=2022-11-02&sp=rl&sig=unitsig0123456789")
                .unwrap(),
            "abfss://logs@acct.dfs.core.windows.net/p"
        );
        assert!(matches!(
            creds::given("abfss://logs@acct.dfs.core.windows.net"),
            Some(creds::Given::Sas(p)) if p.iter().any(|(k, v)| k == "sig" && v == "unitsig0123456789")
        ));
        for (bad, why) in [
            ("s3://b/k?X-Amz-Signature=abcdef0123456789", "presigned"),
            ("s3://AKIAONLYKEY@b/k", "not both"),
            ("az://user:pw@c/p", "user info"),
            ("az://c/p?comp=list", "not a SAS"),
            ("gs://u:p@b/k", "not used"),
        ] {
            let e = accept(bad).unwrap_err().to_string();
            assert!(e.contains(why), "{bad}: {e}");
            assert!(
                !e.contains("abcdef0123456789") && !e.contains(":pw@"),
                "{e}"
            );
        }
        assert_eq!(accept("s3://b/k").unwrap(), "s3://b/k");
    }

    #[test]
    fn server_errors_are_condensed() {
        let xml = "Error performing GET http://h/b?list-type=2 in 5ms - Server returned non-2xx status code: 404 Not Found: <?xml version=\"1.0\"?>\n<Error><Code>NoSuchBucket</Code><Message>The specified bucket does not exist</Message><RequestId>X</RequestId></Error>";
        assert_eq!(
            condense(xml),
            "NoSuchBucket: The specified bucket does not exist (HTTP 404 Not Found)"
        );
        assert_eq!(condense("a\n  b"), "a b");
        assert_eq!(condense(&"x".repeat(500)).chars().count(), 401);
    }
}
