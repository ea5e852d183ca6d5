//! The crate's one error type: why an object-store URL could not be used.

use std::time::Duration;

/// Why an input on an object store could not be used, or a setting not
/// taken: the reason of an [`Error`](crate::Error) (which adds the URL),
/// and the error of [`set_options`](crate::set_options) and
/// [`set_timeouts`](crate::set_timeouts). `Display` is the text the binary
/// prints (before [`redact`](crate::redact), which every printer applies).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Reason {
    /// A `--storage-option` key no store knows.
    #[error("unknown storage option `{key}` (object_store's keys: aws_endpoint, aws_region, aws_allow_http, azure_storage_account_name, google_service_account, ...)")]
    UnknownOption {
        /// The key, lower-cased.
        key: String,
    },
    /// [`set_options`](crate::set_options) called twice.
    #[error("storage options were already set")]
    OptionsAlreadySet,
    /// [`set_timeouts`](crate::set_timeouts) called twice.
    #[error("store timeouts were already set")]
    TimeoutsAlreadySet,
    /// The tokio runtime could not start (the OS error's text: the
    /// runtime's failure is remembered and said for every URL).
    #[error("cannot start the I/O runtime: {message}")]
    Runtime {
        /// What the OS said.
        message: String,
    },
    /// Not a URL.
    #[error("not a valid URL: {0}")]
    BadUrl(#[source] url::ParseError),
    /// A URL without a bucket or container.
    #[error("the URL names no bucket or container")]
    NoBucket,
    /// A URL whose path is no object path (object_store's message).
    #[error("not a valid object path: {message}")]
    BadPath {
        /// What object_store said.
        message: String,
    },
    /// A scheme no store reads.
    #[error("unsupported URL scheme `{scheme}://`")]
    UnsupportedScheme {
        /// The scheme, lower-cased.
        scheme: String,
    },
    /// No object at the URL (HTTP 404): the store's message, condensed.
    #[error("{message}")]
    NotFound {
        /// `not found (…)`, with the server's own words.
        message: String,
    },
    /// Any other failure of a store call: its message, condensed to one
    /// line (the server's code and message, the root cause).
    #[error("{message}")]
    Store {
        /// What the store (or the server behind it) said.
        message: String,
    },
    /// A prefix with nothing under it, and no object of that name.
    #[error("no such object, and no objects under this prefix")]
    NothingUnder,
    /// An object larger than the caller's cap: nothing was read.
    #[error("{size} bytes is more than the {cap}-byte cap for this kind of object")]
    TooLarge {
        /// The object's size (or what was read of it, past the cap).
        size: u64,
        /// The cap.
        cap: u64,
    },
    /// A ranged GET that returned another length than asked for.
    #[error("asked for bytes {start}..{end}, got {got} bytes (the object changed?)")]
    ShortRange {
        /// First byte asked for.
        start: u64,
        /// End of the range asked for (exclusive).
        end: u64,
        /// Bytes received.
        got: usize,
    },
    /// A presigned S3 URL.
    #[error("a presigned URL (X-Amz-Signature=…) allows one request on one object, and lakeaudit lists and reads: {}", crate::creds::S3_KEYS)]
    Presigned,
    /// An `s3://` URL with a query.
    #[error("an s3:// URL takes no query (?…): lakeaudit would not use it")]
    S3Query,
    /// An `s3://` URL's user info with a key id or a secret alone.
    #[error("the URL's user info holds an access key id or a secret, not both (s3://KEY_ID:SECRET@bucket/…): give both, or {}", crate::creds::S3_KEYS)]
    HalfUserInfo,
    /// User info (a password) in an Azure URL.
    #[error("user info (a password) in an Azure URL is not used: give the account key as AZURE_STORAGE_ACCOUNT_KEY (or --storage-option azure_storage_account_key=…), or a SAS as the URL's query (?sv=…&sig=…)")]
    AzureUserInfo,
    /// An Azure URL's query that is not a SAS.
    #[error("the URL's query is not a SAS (no sig=): lakeaudit would not use it")]
    NotSas,
    /// Credentials or a query in a URL of a scheme that takes none.
    #[error("credentials or a query in a {scheme}:// URL are not used: give them as GOOGLE_SERVICE_ACCOUNT (or --storage-option google_service_account=…)")]
    UnusedCredentials {
        /// The scheme.
        scheme: String,
    },
    /// The registry of credentials given in URLs is poisoned.
    #[error("the credentials registry is unusable")]
    RegistryUnusable,
    /// Other credentials for a store already given credentials in the run.
    #[error("other credentials were given for this store in another URL: a run reads one store with one set")]
    OtherCredentials,
    /// An endpoint URL with user info.
    #[error("the endpoint {endpoint} carries user info (credentials), which store requests do not use: give the endpoint without it, and {keys}")]
    EndpointUserInfo {
        /// The endpoint, its credentials hidden.
        endpoint: String,
        /// How to give the credentials instead.
        keys: &'static str,
    },
    /// A plain-HTTP endpoint not allowed.
    #[error("the endpoint {endpoint} is plain HTTP, which is refused unless allowed: set {allow}")]
    PlainHttp {
        /// The endpoint, its credentials hidden.
        endpoint: String,
        /// The setting that allows it.
        allow: &'static str,
    },
    /// An AWS access key id without its secret.
    #[error("AWS_ACCESS_KEY_ID (aws_access_key_id) is set but not AWS_SECRET_ACCESS_KEY (aws_secret_access_key): set both")]
    KeyWithoutSecret,
    /// An AWS secret without its access key id.
    #[error("AWS_SECRET_ACCESS_KEY (aws_secret_access_key) is set but not AWS_ACCESS_KEY_ID (aws_access_key_id): set both")]
    SecretWithoutKey,
    /// No AWS credentials, and the instance metadata endpoint disabled.
    #[error(
        "{}; the instance metadata endpoint was not asked (AWS_EC2_METADATA_DISABLED is set)",
        crate::creds::S3_MISSING
    )]
    MetadataDisabled,
    /// A SAS in the URL with the Azure emulator.
    #[error("a SAS in the URL is not used with AZURE_STORAGE_USE_EMULATOR=true (the emulator's account key signs every request): give Azurite's endpoint as AZURE_STORAGE_ENDPOINT with AZURE_STORAGE_ACCOUNT_NAME and AZURE_ALLOW_HTTP=true instead")]
    SasWithEmulator,
    /// No Azure storage account named anywhere.
    #[error("no Azure storage account: set AZURE_STORAGE_ACCOUNT_NAME (or --storage-option azure_storage_account_name=…), use an abfss://container@ACCOUNT.dfs.core.windows.net/ URL, or for Azurite set AZURE_STORAGE_USE_EMULATOR=true with AZURITE_BLOB_STORAGE_URL")]
    NoAzureAccount,
    /// No credentials, and the metadata endpoint gave none.
    #[error(
        "{missing}; the metadata endpoint {endpoint} (instance credentials) gave none: {message}"
    )]
    MetadataFailed {
        /// What is missing and the settings that would supply it.
        missing: &'static str,
        /// The endpoint asked, its credentials hidden.
        endpoint: String,
        /// What it answered (condensed).
        message: String,
    },
    /// No credentials, and the metadata endpoint did not answer in time.
    #[error("{missing}; the metadata endpoint {endpoint} (instance credentials) gave none within {}", crate::http::secs(*budget))]
    MetadataTimedOut {
        /// What is missing and the settings that would supply it.
        missing: &'static str,
        /// The endpoint asked, its credentials hidden.
        endpoint: String,
        /// How long it was given.
        budget: Duration,
    },
}
