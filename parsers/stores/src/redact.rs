//! Secrets never leave the process: [`redact`] is applied to every text
//! that names a location or carries a server's words before it is printed
//! or stored (errors, warnings, retry notices, records, reports, table
//! state).
//!
//! What it hides:
//! - user info in any URL (`s3://AKIA…:SECRET@bucket/…`,
//!   `http://user:secret@host`), except the container of an
//!   `abfs[s]://container@account…` URL (no password: that is not a
//!   credential);
//! - the values of SAS query parameters (`sig`, `se`, `sp`, `sv`, `st`,
//!   `spr`, `srt`, `ss`, `sr`, `skoid`, …) and of signature parameters
//!   (`X-Amz-Signature`, `X-Amz-Credential`, `X-Amz-Security-Token`,
//!   `X-Goog-Signature`, …);
//! - every secret value the process was given (the environment's
//!   `AWS_SECRET_ACCESS_KEY`, `AZURE_STORAGE_ACCOUNT_KEY`, SAS tokens, the
//!   storage options' secrets, the credentials of URLs), wherever it
//!   appears, even in a server's error body.

use std::borrow::Cow;
use std::sync::{Mutex, OnceLock};

/// What a hidden value is replaced with.
pub const REDACTED: &str = "REDACTED";

/// SAS query parameters (Azure service, account and user-delegation SAS):
/// their values are hidden after `?`, `&` or `;` (`&amp;` in XML).
const SAS_KEYS: [&str; 27] = [
    "sig", "se", "st", "sp", "sv", "spr", "srt", "ss", "sr", "si", "sip", "skoid", "sktid", "skt",
    "ske", "sks", "skv", "saoid", "suoid", "scid", "sdd", "ses", "rscc", "rscd", "rsce", "rscl",
    "rsct",
];

/// Parameters whose values are hidden after any boundary (in prose, JSON,
/// an `Authorization` header's `Signature=`), case-insensitive.
const SIGNATURE_KEYS: [&str; 5] = [
    "sig",
    "signature",
    "credential",
    "x-amz-security-token",
    "x-goog-credential",
];

/// Shortest secret value hidden wherever it appears (shorter ones, as a
/// test's `test`, would hide ordinary words).
const MIN_SECRET: usize = 8;

fn secrets() -> &'static Mutex<Vec<String>> {
    static SECRETS: OnceLock<Mutex<Vec<String>>> = OnceLock::new();
    SECRETS.get_or_init(|| {
        let mut v: Vec<String> = std::env::vars()
            .filter(|(k, _)| {
                let k = k.to_ascii_lowercase();
                (k.starts_with("aws_") || k.starts_with("azure") || k.starts_with("google_"))
                    && is_secret_key(&k)
            })
            .map(|(_, v)| v)
            .collect();
        v.retain(|s| s.len() >= MIN_SECRET);
        Mutex::new(v)
    })
}

/// Whether a config key (an environment variable or a storage option,
/// lower case) holds a secret: keys, secrets, tokens, SAS, passwords
/// (not `aws_access_key_id`, not a token's file name).
pub(crate) fn is_secret_key(k: &str) -> bool {
    let k = k.to_ascii_lowercase();
    (k.contains("secret")
        || (k.contains("token") && !k.ends_with("_file") && !k.ends_with("_url"))
        || k.contains("sas")
        || k.ends_with("_key")
        || k == "key"
        || k.contains("password"))
        && !k.ends_with("_id")
}

/// Remembers a secret value (a storage option's, a URL's credentials) so
/// that [`redact`] hides it wherever it appears.
pub(crate) fn remember(secret: &str) {
    if secret.len() < MIN_SECRET {
        return;
    }
    if let Ok(mut s) = secrets().lock() {
        if !s.iter().any(|x| x == secret) {
            s.push(secret.to_string());
            // Longest first: a secret containing another is hidden whole.
            s.sort_by_key(|x| std::cmp::Reverse(x.len()));
        }
    }
}

/// `text` with every credential hidden (see the module's documentation):
/// the one function every printer of a location or a server's words uses.
pub fn redact(text: &str) -> Cow<'_, str> {
    let mut out = Cow::Borrowed(text);
    if let Ok(s) = secrets().lock() {
        for secret in s.iter() {
            if out.contains(secret.as_str()) {
                out = Cow::Owned(out.replace(secret.as_str(), REDACTED));
            }
        }
    }
    if let Some(t) = user_info(&out) {
        out = Cow::Owned(t);
    }
    if let Some(t) = parameters(&out) {
        out = Cow::Owned(t);
    }
    out
}

/// Characters that end a URL's authority or a parameter's value in text.
fn ends_token(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            '"' | '\'' | '<' | '>' | '`' | '(' | ')' | '[' | ']' | '{' | '}' | ','
        )
}

/// The text with the user info of every `scheme://user:pass@host` hidden;
/// `None` when there is none.
fn user_info(text: &str) -> Option<String> {
    if !text.contains("://") {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut changed = false;
    while let Some(i) = rest.find("://") {
        let (before, after) = rest.split_at(i + 3);
        out.push_str(before);
        let scheme: String = before[..i]
            .chars()
            .rev()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        let end = after
            .find(|c: char| matches!(c, '/' | '?' | '#') || ends_token(c))
            .unwrap_or(after.len());
        let authority = &after[..end];
        match authority.rfind('@') {
            Some(at) => {
                let info = &authority[..at];
                let container = matches!(scheme.to_ascii_lowercase().as_str(), "abfs" | "abfss")
                    && !info.contains(':');
                if container || info == REDACTED {
                    out.push_str(authority);
                } else {
                    out.push_str(REDACTED);
                    out.push_str(&authority[at..]);
                    changed = true;
                }
            }
            None => out.push_str(authority),
        }
        rest = &after[end..];
    }
    out.push_str(rest);
    changed.then_some(out)
}

/// The text with the values of SAS and signature parameters hidden;
/// `None` when there is none.
fn parameters(text: &str) -> Option<String> {
    if !text.contains('=') {
        return None;
    }
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut changed = false;
    let mut i = 0;
    while let Some(off) = text[i..].find('=') {
        let eq = i + off;
        // The key: the word before `=`.
        let start = text[..eq]
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
            .map_or(0, |p| p + 1);
        let key = text[start..eq].to_ascii_lowercase();
        let sep = start.checked_sub(1).map(|p| bytes[p]);
        let after_query = matches!(sep, Some(b'?' | b'&' | b';'));
        let hide = !key.is_empty()
            && ((after_query && SAS_KEYS.contains(&key.as_str()))
                || key.starts_with("x-amz-")
                || key.starts_with("x-goog-")
                || (SIGNATURE_KEYS.contains(&key.as_str())
                    && !sep.is_some_and(|b| b.is_ascii_alphanumeric())));
        let vstart = eq + 1;
        let vend = text[vstart..]
            .find(|c: char| c == '&' || c == ';' || c == '#' || ends_token(c))
            .map_or(text.len(), |p| vstart + p);
        if hide && vend > vstart && &text[vstart..vend] != REDACTED {
            out.push_str(&text[copied..vstart]);
            out.push_str(REDACTED);
            copied = vend;
            changed = true;
        }
        i = vend.max(vstart);
        if i >= text.len() {
            break;
        }
    }
    out.push_str(&text[copied..]);
    changed.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_info_is_hidden_but_not_an_abfss_container() {
        assert_eq!(
            redact("s3://AKIAEXAMPLE:wJalrXUtnFEMI@bucket/logs/a"),
            "s3://REDACTED@bucket/logs/a"
        );
        assert_eq!(
            redact("endpoint http://user:hunter2@127.0.0.1:9000/x refused"),
            "endpoint http://REDACTED@127.0.0.1:9000/x refused"
        );
        assert_eq!(
            redact("abfss://logs@acct.dfs.core.windows.net/p"),
            "abfss://logs@acct.dfs.core.windows.net/p"
        );
        assert_eq!(
            redact("abfss://logs:pw@acct.dfs.core.windows.net/p"),
            "abfss://REDACTED@acct.dfs.core.windows.net/p"
        );
        assert_eq!(redact("no url here: a@b"), "no url here: a@b");
    }

    #[test]
    fn sas_and_signature_parameters_are_hidden() {
        assert_eq!(
            redact("az://c/p?sv=2022-11-02&ss=b&sp=rl&se=2030-01-01&sig=abc%2Bdef%3D"),
            "az://c/p?sv=REDACTED&ss=REDACTED&sp=REDACTED&se=REDACTED&sig=REDACTED"
        );
        assert_eq!(
            redact("GET /b/k?X-Amz-Credential=AKIA%2F2024&X-Amz-Signature=ff00 failed"),
            "GET /b/k?X-Amz-Credential=REDACTED&X-Amz-Signature=REDACTED failed"
        );
        assert_eq!(
            redact("<Message>bad url /c/k?sp=r&amp;sig=SECRETSIG</Message>"),
            "<Message>bad url /c/k?sp=REDACTED&amp;sig=REDACTED</Message>"
        );
        // Words that only look like keys are left alone.
        assert_eq!(
            redact("a list=3 items, design=x"),
            "a list=3 items, design=x"
        );
        assert!(matches!(redact("plain text"), Cow::Borrowed(_)));
    }

    #[test]
    fn remembered_secrets_are_hidden_anywhere() {
        remember("s3cr3t-value-planted");
        assert_eq!(
            redact("<Error>key s3cr3t-value-planted rejected</Error>"),
            "<Error>key REDACTED rejected</Error>"
        );
        remember("short");
        assert_eq!(redact("a short word"), "a short word");
    }

    #[test]
    fn secret_keys() {
        for k in [
            "aws_secret_access_key",
            "AWS_SESSION_TOKEN",
            "azure_storage_account_key",
            "azure_storage_sas_key",
            "azure_client_secret",
            "google_service_account_key",
        ] {
            assert!(is_secret_key(k), "{k}");
        }
        for k in [
            "aws_access_key_id",
            "aws_web_identity_token_file",
            "aws_endpoint",
            "azure_storage_account_name",
            "azure_client_id",
        ] {
            assert!(!is_secret_key(k), "{k}");
        }
    }
}
