//! Credentials: those a URL carries (taken out of it, used for its store,
//! or refused with a named error), and what is missing when a store has
//! none (named with the settings that would supply them, before any
//! request; a cloud machine's metadata endpoint is still asked, with a
//! short timeout, and its failure said as such).

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey};
use object_store::azure::{AzureConfigKey, MicrosoftAzureBuilder};
use object_store::{ClientConfigKey, CredentialProvider};

use crate::redact::{redact, remember};
use crate::{err, reason, runtime, Error, Reason};

/// Credentials given in a URL, for its store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Given {
    /// `s3://KEY_ID:SECRET@bucket/…`.
    S3 { key_id: String, secret: String },
    /// `az://container/…?sv=…&sig=…`: the SAS query's pairs.
    Sas(Vec<(String, String)>),
}

fn registry() -> &'static Mutex<HashMap<String, Given>> {
    static R: OnceLock<Mutex<HashMap<String, Given>>> = OnceLock::new();
    R.get_or_init(Default::default)
}

fn decode(s: &str) -> String {
    percent_encoding::percent_decode_str(s)
        .decode_utf8_lossy()
        .into_owned()
}

pub(crate) const S3_KEYS: &str = "give the credentials as AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or --storage-option aws_access_key_id=… --storage-option aws_secret_access_key=…)";

/// The URL without its credentials, and the credentials if it had some
/// lakeaudit can use; `Err` names credentials it cannot use.
pub(crate) fn take(scheme: &str, mut u: url::Url) -> Result<(url::Url, Option<Given>), Reason> {
    let user = decode(u.username());
    let pass = u.password().map(decode).unwrap_or_default();
    let query: Vec<(String, String)> = u
        .query_pairs()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    // The signature hidden wherever it appears (not the other values, as
    // an expiry date: they are hidden where they stand as parameters).
    for (k, v) in &query {
        let k = k.to_ascii_lowercase();
        if matches!(
            k.as_str(),
            "sig"
                | "x-amz-signature"
                | "x-amz-credential"
                | "x-amz-security-token"
                | "x-goog-signature"
                | "x-goog-credential"
        ) {
            remember(v);
        }
    }
    remember(&pass);
    let presigned = query.iter().any(|(k, _)| {
        let k = k.to_ascii_lowercase();
        k.starts_with("x-amz-") || k.starts_with("x-goog-")
    });
    let is_sas = query.iter().any(|(k, _)| k == "sig");
    let mut given = None;
    match scheme {
        "s3" | "s3a" => {
            if presigned {
                return Err(Reason::Presigned);
            }
            if u.query().is_some() {
                return Err(Reason::S3Query);
            }
            match (user.is_empty(), pass.is_empty()) {
                (true, true) => {}
                (false, false) => {
                    remember(&user);
                    given = Some(Given::S3 {
                        key_id: user,
                        secret: pass,
                    });
                }
                _ => {
                    return Err(Reason::HalfUserInfo);
                }
            }
        }
        "az" | "azure" | "abfs" | "abfss" => {
            // In abfs[s]://container@account…, the user is the container.
            let container_is_user = matches!(scheme, "abfs" | "abfss");
            if !pass.is_empty() || (!user.is_empty() && !container_is_user) {
                return Err(Reason::AzureUserInfo);
            }
            if is_sas {
                given = Some(Given::Sas(query));
            } else if u.query().is_some() {
                return Err(Reason::NotSas);
            }
        }
        _ => {
            if !user.is_empty() || !pass.is_empty() || u.query().is_some() {
                return Err(Reason::UnusedCredentials {
                    scheme: scheme.to_string(),
                });
            }
        }
    }
    if given.is_some() {
        if !container_user(scheme) {
            let _ = u.set_username("");
        }
        let _ = u.set_password(None);
        u.set_query(None);
    }
    Ok((u, given))
}

fn container_user(scheme: &str) -> bool {
    matches!(scheme, "abfs" | "abfss")
}

/// Remembers the credentials a URL gave for `store` (one set per store in
/// a run: other credentials for the same store are refused).
pub(crate) fn register(store: &str, g: Given) -> Result<(), Reason> {
    let mut r = registry().lock().map_err(|_| Reason::RegistryUnusable)?;
    match r.get(store) {
        Some(old) if *old != g => Err(Reason::OtherCredentials),
        Some(_) => Ok(()),
        None => {
            r.insert(store.to_string(), g);
            Ok(())
        }
    }
}

/// The credentials a URL gave for `store`, if any.
pub(crate) fn given(store: &str) -> Option<Given> {
    registry().lock().ok()?.get(store).cloned()
}

fn truthy(v: Option<String>) -> bool {
    v.is_some_and(|v| {
        matches!(
            v.to_ascii_lowercase().as_str(),
            "1" | "true" | "on" | "yes" | "y"
        )
    })
}

fn set(v: Option<String>) -> Option<String> {
    v.filter(|v| !v.trim().is_empty())
}

/// An endpoint with user info, or plain HTTP not allowed: named with the
/// setting that fixes it (`allow`: `AWS_ALLOW_HTTP=true` / `--storage-option
/// aws_allow_http=true`).
fn check_endpoint(
    ep: &str,
    allow_http: bool,
    allow: &'static str,
    keys: &'static str,
) -> Result<(), Reason> {
    if let Ok(u) = url::Url::parse(ep) {
        if let Some(p) = u.password() {
            remember(&decode(p));
        }
        if !u.username().is_empty() || u.password().is_some() {
            return Err(Reason::EndpointUserInfo {
                endpoint: redact(ep).into_owned(),
                keys,
            });
        }
    }
    if ep
        .get(..7)
        .is_some_and(|p| p.eq_ignore_ascii_case("http://"))
        && !allow_http
    {
        return Err(Reason::PlainHttp {
            endpoint: redact(ep).into_owned(),
            allow,
        });
    }
    Ok(())
}

/// What an s3:// run without credentials is told.
pub(crate) const S3_MISSING: &str = "no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or --storage-option aws_access_key_id=… --storage-option aws_secret_access_key=…), AWS_WEB_IDENTITY_TOKEN_FILE with AWS_ROLE_ARN, or AWS_SKIP_SIGNATURE=true for a public bucket; an S3-compatible server also needs AWS_ENDPOINT_URL (--storage-option aws_endpoint=…)";

/// The default metadata endpoint of an EC2 instance (object_store's).
const AWS_METADATA: &str = "http://169.254.169.254";

/// The S3 settings checked before any request: an endpoint refused as
/// given is named with the setting that fixes it; with no credentials,
/// `Ok(Some(endpoint))`: the instance metadata endpoint will be asked
/// (unless `AWS_EC2_METADATA_DISABLED=true`, an error naming what is
/// missing).
pub(crate) fn check_s3(b: &AmazonS3Builder) -> Result<Option<String>, Reason> {
    let get = |k: AmazonS3ConfigKey| set(b.get_config_value(&k));
    if let Some(ep) = get(AmazonS3ConfigKey::Endpoint) {
        check_endpoint(
            &ep,
            truthy(get(AmazonS3ConfigKey::Client(ClientConfigKey::AllowHttp))),
            "AWS_ALLOW_HTTP=true or --storage-option aws_allow_http=true",
            S3_KEYS,
        )?;
    }
    match (
        get(AmazonS3ConfigKey::AccessKeyId).is_some(),
        get(AmazonS3ConfigKey::SecretAccessKey).is_some(),
    ) {
        (true, true) => return Ok(None),
        (true, false) => return Err(Reason::KeyWithoutSecret),
        (false, true) => return Err(Reason::SecretWithoutKey),
        (false, false) => {}
    }
    let other = (get(AmazonS3ConfigKey::WebIdentityTokenFile).is_some()
        && get(AmazonS3ConfigKey::RoleArn).is_some())
        || get(AmazonS3ConfigKey::ContainerCredentialsRelativeUri).is_some()
        || get(AmazonS3ConfigKey::ContainerCredentialsFullUri).is_some()
        || truthy(get(AmazonS3ConfigKey::SkipSignature));
    if other {
        return Ok(None);
    }
    if truthy(std::env::var("AWS_EC2_METADATA_DISABLED").ok()) {
        return Err(Reason::MetadataDisabled);
    }
    Ok(Some(
        get(AmazonS3ConfigKey::MetadataEndpoint).unwrap_or_else(|| AWS_METADATA.to_string()),
    ))
}

/// What an az:// run without credentials is told.
pub(crate) const AZURE_MISSING: &str = "no Azure credentials: set AZURE_STORAGE_ACCOUNT_KEY, AZURE_STORAGE_SAS_TOKEN (or give a SAS as the URL's query), AZURE_CLIENT_ID with AZURE_CLIENT_SECRET and AZURE_TENANT_ID, or AZURE_FEDERATED_TOKEN_FILE (each also as --storage-option azure_storage_account_key=…, …); for Azurite, AZURE_STORAGE_USE_EMULATOR=true with AZURITE_BLOB_STORAGE_URL";

/// The default managed-identity endpoint of an Azure VM (object_store's).
const AZURE_METADATA: &str = "http://169.254.169.254/metadata/identity/oauth2/token";

/// The Azure settings checked before any request, as [`check_s3`]:
/// `sas`, whether the URL gave a SAS; `account_in_url`, whether the URL
/// names the account (`abfss://c@account.dfs.core.windows.net`).
pub(crate) fn check_azure(
    b: &MicrosoftAzureBuilder,
    sas: bool,
    account_in_url: bool,
) -> Result<Option<String>, Reason> {
    let get = |k: AzureConfigKey| set(b.get_config_value(&k));
    if truthy(get(AzureConfigKey::UseEmulator)) {
        if sas {
            return Err(Reason::SasWithEmulator);
        }
        return Ok(None);
    }
    if let Some(ep) = get(AzureConfigKey::Endpoint) {
        check_endpoint(
            &ep,
            truthy(get(AzureConfigKey::Client(ClientConfigKey::AllowHttp))),
            "AZURE_ALLOW_HTTP=true or --storage-option azure_allow_http=true",
            "give the key as AZURE_STORAGE_ACCOUNT_KEY (or --storage-option azure_storage_account_key=…)",
        )?;
    }
    if get(AzureConfigKey::AccountName).is_none() && !account_in_url {
        return Err(Reason::NoAzureAccount);
    }
    let client =
        get(AzureConfigKey::ClientId).is_some() && get(AzureConfigKey::AuthorityId).is_some();
    let have = sas
        || get(AzureConfigKey::AccessKey).is_some()
        || get(AzureConfigKey::SasKey).is_some()
        || get(AzureConfigKey::Token).is_some()
        || (client
            && (get(AzureConfigKey::ClientSecret).is_some()
                || get(AzureConfigKey::FederatedTokenFile).is_some()))
        || truthy(get(AzureConfigKey::UseAzureCli))
        || truthy(get(AzureConfigKey::SkipSignature));
    if have {
        return Ok(None);
    }
    Ok(Some(
        get(AzureConfigKey::MsiEndpoint).unwrap_or_else(|| AZURE_METADATA.to_string()),
    ))
}

/// `host[:port]` of an endpoint URL, as a request's authority shows it.
pub(crate) fn authority(ep: &str) -> String {
    url::Url::parse(ep)
        .map(|u| u.authority().to_string())
        .unwrap_or_default()
}

/// How long the metadata endpoint may take in all (its attempts and
/// their retries).
const METADATA_BUDGET: Duration = Duration::from_secs(10);

/// Asks the metadata endpoint `ep` for credentials once, when the store
/// is built: its failure is `missing`, then what the endpoint said.
pub(crate) fn fetch<C>(
    url: &str,
    ep: &str,
    missing: &'static str,
    p: &dyn CredentialProvider<Credential = C>,
) -> Result<(), Error> {
    let rt = runtime().map_err(|r| err(url, r))?;
    let endpoint = redact(ep).into_owned();
    let asked =
        rt.block_on(async { tokio::time::timeout(METADATA_BUDGET, p.get_credential()).await });
    match asked {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(e)) => Err(err(
            url,
            Reason::MetadataFailed {
                missing,
                endpoint,
                message: reason(&e),
            },
        )),
        Err(_) => Err(err(
            url,
            Reason::MetadataTimedOut {
                missing,
                endpoint,
                budget: METADATA_BUDGET,
            },
        )),
    }
}
