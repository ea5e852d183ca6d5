//! Every request a store sends goes through [`Timed`]: object_store's
//! reqwest client wrapped with
//!
//! - a first-byte timeout (no response headers within [`Timeouts::response`]:
//!   the attempt fails, as a timeout object_store retries);
//! - an idle-body timeout (a body that sends nothing for
//!   [`Timeouts::idle`] mid-stream: the attempt fails, and object_store
//!   resumes the body from where it stopped, as after a cut connection);
//! - the connect timeout is object_store's own (`ClientOptions`);
//! - a retry budget for the whole run ([`RETRY_BUDGET`] failed attempts,
//!   [`RETRY_TIME_BUDGET`] of time spent in them):
//!   each failed attempt (a connect error, a timeout, a cut body, HTTP 5xx,
//!   429 or 408) is announced on stderr as it happens and spends one
//!   retry; once the budget is spent, failures are no longer retried, and a
//!   store whose last [`DOWN_AFTER`] attempts failed is not asked again
//!   (its remaining requests fail at once, naming why). A dead server with
//!   1,500 objects still to read thus costs the budget's attempts, not
//!   1,500 × (retries + backoff).
//!
//! The cloud metadata endpoints (credentials of an instance or a managed
//! identity) get a short response timeout ([`METADATA_TIMEOUT`]).

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use object_store::client::{
    HttpClient, HttpConnector, HttpError, HttpErrorKind, HttpRequest, HttpResponse,
    HttpResponseBody, HttpService, ReqwestConnector,
};
use object_store::ClientOptions;

use crate::redact::redact;

/// Failed attempts retried in one run, over every store and request.
pub const RETRY_BUDGET: usize = 20;

/// Time that failed attempts may take in one run, over every store and
/// request, before failures are no longer retried: a server that answers
/// nothing costs this, not [`RETRY_BUDGET`] × the first-byte timeout.
pub const RETRY_TIME_BUDGET: Duration = Duration::from_secs(120);

/// Consecutive failed attempts after which a store is not asked again,
/// once the run's retry budget is spent.
pub const DOWN_AFTER: usize = 3;

/// The response timeout of requests to a cloud metadata endpoint.
pub const METADATA_TIMEOUT: Duration = Duration::from_secs(2);

/// object_store's retries per request (`RetryConfig::max_retries`), for the
/// notices' "attempt N of M".
pub(crate) const MAX_RETRIES: usize = 3;

/// How long after its first attempt a request (or a body being read) is
/// still retried (`RetryConfig::retry_timeout`). Long, so that a body cut
/// after minutes of reading a large log is still resumed: the attempts are
/// bounded by [`MAX_RETRIES`], the timeouts and the run's budget.
pub(crate) const RETRY_WINDOW: Duration = Duration::from_secs(600);

/// The timeouts of every request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// Establishing the connection.
    pub connect: Duration,
    /// From the request sent to the response's headers.
    pub response: Duration,
    /// Between two pieces of a response body.
    pub idle: Duration,
}

impl Timeouts {
    /// The defaults: 5 s to connect, 30 s to the first byte, 30 s of
    /// silence mid-body.
    pub const DEFAULT: Timeouts = Timeouts {
        connect: Duration::from_secs(5),
        response: Duration::from_secs(30),
        idle: Duration::from_secs(30),
    };

    /// `--store-timeout T`: `T` to the first byte and of silence mid-body,
    /// and at most `T` (at most the default 5 s) to connect.
    pub fn from_one(t: Duration) -> Timeouts {
        Timeouts {
            connect: t.min(Self::DEFAULT.connect),
            response: t,
            idle: t,
        }
    }
}

/// The run's retry budget and each store's run of failures.
#[derive(Debug, Default)]
struct Budget {
    spent: AtomicUsize,
    /// Milliseconds that failed attempts took.
    waited_ms: AtomicUsize,
}

fn budget() -> &'static Budget {
    static B: std::sync::OnceLock<Budget> = std::sync::OnceLock::new();
    B.get_or_init(Budget::default)
}

impl Budget {
    /// Counts `took`, the time of a failed attempt.
    fn waited(&self, took: Duration) {
        let ms = usize::try_from(took.as_millis()).unwrap_or(usize::MAX);
        let _ = self
            .waited_ms
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                Some(n.saturating_add(ms))
            });
    }

    fn time_left(&self) -> bool {
        (self.waited_ms.load(Ordering::SeqCst) as u128) < RETRY_TIME_BUDGET.as_millis()
    }

    /// Spends one retry; `false` when none was left (in count or in time).
    fn spend(&self) -> bool {
        if !self.time_left() {
            self.spent.store(RETRY_BUDGET, Ordering::SeqCst);
            return false;
        }
        self.spent
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n < RETRY_BUDGET).then_some(n + 1)
            })
            .is_ok()
    }

    fn left(&self) -> usize {
        RETRY_BUDGET.saturating_sub(self.spent.load(Ordering::SeqCst))
    }
}

/// A connector for one store: `store` is how notices name it
/// (`s3://bucket`, never with credentials), `metadata` the authorities
/// (`host:port`) of the metadata endpoints its credentials may come from.
#[derive(Debug, Clone)]
pub(crate) struct Timed {
    pub store: String,
    pub timeouts: Timeouts,
    pub metadata: Vec<String>,
}

impl HttpConnector for Timed {
    fn connect(&self, options: &ClientOptions) -> object_store::Result<HttpClient> {
        let inner = ReqwestConnector::default().connect(options)?;
        Ok(HttpClient::new(TimedService {
            inner,
            store: self.store.clone(),
            timeouts: self.timeouts,
            metadata: self.metadata.clone(),
            state: Arc::default(),
        }))
    }
}

#[derive(Debug, Default)]
struct StoreState {
    /// Failed attempts in a row (any request).
    failed_in_a_row: usize,
    /// Failed attempts per request (method and URL), and when its first
    /// attempt started, for the notices.
    attempts: HashMap<String, (usize, Instant)>,
    /// The last failure, said when the store is no longer asked.
    last: Option<String>,
}

#[derive(Debug)]
struct TimedService {
    inner: HttpClient,
    store: String,
    timeouts: Timeouts,
    metadata: Vec<String>,
    state: Arc<Mutex<StoreState>>,
}

/// A failed attempt's error, with the words a user reads.
#[derive(Debug)]
struct Failure(String);

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Failure {}

impl TimedService {
    /// Notes a failed attempt of `what` and says so on stderr; `true` if it
    /// may be retried (the run's budget had a retry left).
    fn failed(&self, key: &str, what: &str, why: &str, started: Instant) -> bool {
        failed(
            &self.state,
            &self.store,
            key,
            what,
            why,
            (started, started.elapsed()),
        )
    }

    fn succeeded(&self, what: &str) {
        if let Ok(mut s) = self.state.lock() {
            s.failed_in_a_row = 0;
            s.attempts.remove(what);
        }
    }
}

/// See [`TimedService::failed`]; shared with [`IdleBody`].
/// `key` tells the attempts of one request apart (its method and URL),
/// `what` names it in the notice (its method and path).
/// `started`: when this attempt started (the first one's start is kept);
/// `took`: the time it wasted (counted in the run's time budget).
fn failed(
    state: &Mutex<StoreState>,
    store: &str,
    key: &str,
    what: &str,
    why: &str,
    (started, took): (Instant, Duration),
) -> bool {
    let (attempt, first) = state
        .lock()
        .map(|mut s| {
            s.failed_in_a_row += 1;
            s.last = Some(why.to_string());
            let n = s.attempts.entry(key.to_string()).or_insert((0, started));
            n.0 += 1;
            *n
        })
        .unwrap_or((1, started));
    budget().waited(took);
    let in_window = first.elapsed() <= RETRY_WINDOW;
    let retry = attempt <= MAX_RETRIES && in_window && budget().spend();
    let next = if retry {
        format!(
            "retrying (attempt {} of {}; {} retries left for this run)",
            attempt + 1,
            MAX_RETRIES + 1,
            budget().left()
        )
    } else if attempt > MAX_RETRIES || !in_window {
        format!("giving up after {attempt} attempts")
    } else {
        format!(
            "not retried: the run's retries are spent ({RETRY_BUDGET} attempts or {} of failed attempts)",
            secs(RETRY_TIME_BUDGET)
        )
    };
    if !crate::quiet() {
        eprintln!(
            "lakeaudit: warning: {}: {what}: {why}; {next}",
            redact(store),
            why = redact(why)
        );
    }
    retry
}

/// What a notice calls a request: its method and path (never its query,
/// which may hold a SAS).
fn describe(req: &HttpRequest) -> String {
    format!("{} {}", req.method(), req.uri().path())
}

fn timed_out(what: &str, t: Duration) -> String {
    format!("no {what} within {}", secs(t))
}

pub(crate) fn secs(t: Duration) -> String {
    let s = t.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0} s")
    } else {
        format!("{s} s")
    }
}

#[async_trait::async_trait]
impl HttpService for TimedService {
    async fn call(&self, req: HttpRequest) -> Result<HttpResponse, HttpError> {
        let what = describe(&req);
        let key = format!("{what}?{}", req.uri().query().unwrap_or_default());
        // A store that failed its last attempts, once the budget is spent,
        // is not asked again.
        let down = self.state.lock().ok().and_then(|s| {
            (budget().left() == 0 && s.failed_in_a_row >= DOWN_AFTER)
                .then(|| s.last.clone().unwrap_or_default())
        });
        if let Some(last) = down {
            return Err(HttpError::new(
                HttpErrorKind::Unknown,
                Failure(format!(
                    "not sent: this store failed its last {DOWN_AFTER} attempts ({}) and the run's retries are spent",
                    redact(&last)
                )),
            ));
        }
        let authority = req.uri().authority().map(|a| a.as_str().to_string());
        let to_metadata = authority.is_some_and(|a| self.metadata.contains(&a));
        let wait = if to_metadata {
            METADATA_TIMEOUT.min(self.timeouts.response)
        } else {
            self.timeouts.response
        };
        let started = Instant::now();
        let fail = |kind: HttpErrorKind, why: String| {
            let retry = self.failed(&key, &what, &why, started);
            HttpError::new(
                if retry { kind } else { HttpErrorKind::Unknown },
                Failure(why),
            )
        };
        match tokio::time::timeout(wait, self.inner.execute(req)).await {
            Err(_) => Err(fail(
                HttpErrorKind::Timeout,
                timed_out("response (first byte)", wait),
            )),
            Ok(Err(e)) => {
                let kind = e.kind();
                let why = crate::innermost(&e);
                match kind {
                    HttpErrorKind::Connect
                    | HttpErrorKind::Request
                    | HttpErrorKind::Timeout
                    | HttpErrorKind::Interrupted => Err(fail(kind, why)),
                    _ => Err(e),
                }
            }
            Ok(Ok(resp)) => {
                let status = resp.status();
                if status.is_server_error()
                    || status == http::StatusCode::TOO_MANY_REQUESTS
                    || status == http::StatusCode::REQUEST_TIMEOUT
                {
                    let why = format!("HTTP {status}");
                    if !self.failed(&key, &what, &why, started) {
                        return Err(HttpError::new(
                            HttpErrorKind::Unknown,
                            Failure(format!("{why} (not retried)")),
                        ));
                    }
                    return Ok(resp);
                }
                self.succeeded(&key);
                let (parts, body) = resp.into_parts();
                let body = IdleBody {
                    inner: body,
                    idle: self.timeouts.idle,
                    timer: None,
                    state: Arc::clone(&self.state),
                    store: self.store.clone(),
                    key: format!("{key} (body)"),
                    what,
                    started,
                };
                Ok(HttpResponse::from_parts(parts, HttpResponseBody::new(body)))
            }
        }
    }
}

/// A response body that fails when nothing arrives for `idle`.
struct IdleBody {
    inner: HttpResponseBody,
    idle: Duration,
    timer: Option<Pin<Box<tokio::time::Sleep>>>,
    state: Arc<Mutex<StoreState>>,
    store: String,
    key: String,
    what: String,
    started: Instant,
}

impl Body for IdleBody {
    type Data = Bytes;
    type Error = HttpError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        let this = &mut *self;
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(r) => {
                this.timer = None;
                if let Some(Err(e)) = &r {
                    let why = crate::innermost(e);
                    let what = format!("{} (body)", this.what);
                    if !failed(
                        &this.state,
                        &this.store,
                        &this.key,
                        &what,
                        &why,
                        (this.started, Duration::ZERO),
                    ) {
                        return Poll::Ready(Some(Err(HttpError::new(
                            HttpErrorKind::Unknown,
                            Failure(why),
                        ))));
                    }
                }
                Poll::Ready(r)
            }
            Poll::Pending => {
                let idle = this.idle;
                let timer = this
                    .timer
                    .get_or_insert_with(|| Box::pin(tokio::time::sleep(idle)));
                match timer.as_mut().poll(cx) {
                    Poll::Pending => Poll::Pending,
                    Poll::Ready(()) => {
                        this.timer = None;
                        let why = format!("the body stalled: {}", timed_out("data", this.idle));
                        let what = format!("{} (body)", this.what);
                        let retry = failed(
                            &this.state,
                            &this.store,
                            &this.key,
                            &what,
                            &why,
                            (this.started, this.idle),
                        );
                        let kind = if retry {
                            HttpErrorKind::Timeout
                        } else {
                            HttpErrorKind::Unknown
                        };
                        Poll::Ready(Some(Err(HttpError::new(kind, Failure(why)))))
                    }
                }
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
