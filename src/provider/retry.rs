//! When and how long to wait before another attempt.

use std::time::Duration;

use reqwest::header::HeaderMap;

use crate::provider::ProviderError;

/// Attempts in all (two retries) when nothing listens at the URL.
pub const UNREACHABLE_ATTEMPTS: u32 = 3;

#[derive(Clone, Debug, PartialEq)]
pub struct RetryPolicy {
    /// Attempts in all, the first included.
    pub max_attempts: u32,
    pub base_delay: Duration,
    /// No single wait is longer, whatever the server asks for.
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 8,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(32),
        }
    }
}

impl RetryPolicy {
    /// The wait before attempt `attempt + 1`, after `attempt` (1-based) failed with `err`.
    /// The server's retry-after wins; otherwise base × 2^(attempt-1) plus up to 25% jitter.
    pub fn delay(&self, attempt: u32, err: &ProviderError) -> Duration {
        if let Some(after) = err.retry_after() {
            return after.min(self.max_delay);
        }
        let exp = self
            .base_delay
            .saturating_mul(2u32.saturating_pow(attempt.saturating_sub(1)));
        let capped = exp.min(self.max_delay);
        let jitter = capped.mul_f64(fastrand::f64() * 0.25);
        (capped + jitter).min(self.max_delay)
    }

    /// Whether another attempt is allowed after `attempt` failed with `err`. An unreachable
    /// server (connection refused, unknown host) gets [`UNREACHABLE_ATTEMPTS`] at most: a
    /// wrong base URL fails in about a second and a half instead of a minute of backoff.
    pub fn should_retry(&self, attempt: u32, err: &ProviderError) -> bool {
        attempt < self.attempts_for(err) && err.is_retryable()
    }

    /// Attempts in all, the first included, that an error of this kind gets.
    pub fn attempts_for(&self, err: &ProviderError) -> u32 {
        if err.is_unreachable() {
            self.max_attempts.min(UNREACHABLE_ATTEMPTS)
        } else {
            self.max_attempts
        }
    }
}

/// `retry-after-ms` (milliseconds) beats `retry-after` (seconds, or an HTTP date).
pub fn parse_retry_after(headers: &HeaderMap) -> Option<Duration> {
    let get = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if let Some(ms) = get("retry-after-ms").and_then(|v| v.parse::<f64>().ok())
        && ms.is_finite()
        && ms >= 0.0
    {
        return Some(Duration::from_secs_f64(ms / 1000.0));
    }
    let value = get("retry-after")?;
    if let Ok(secs) = value.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs));
    }
    let when = jiff::fmt::rfc2822::parse(value).ok()?;
    let now = jiff::Timestamp::now();
    let secs = when.timestamp().as_second() - now.as_second();
    Some(Duration::from_secs(secs.max(0) as u64))
}

/// `x-should-retry: true|false`, if present.
pub fn parse_should_retry(headers: &HeaderMap) -> Option<bool> {
    match headers.get("x-should-retry")?.to_str().ok()?.trim() {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn http(status: u16, retry_after: Option<Duration>) -> ProviderError {
        ProviderError::Http {
            status,
            error_type: None,
            message: String::new(),
            retry_after,
            should_retry: None,
            body: String::new(),
        }
    }

    #[test]
    fn backoff_grows_and_is_capped() {
        let p = RetryPolicy::default();
        let e = http(529, None);
        let d1 = p.delay(1, &e);
        let d3 = p.delay(3, &e);
        assert!(d1 >= Duration::from_millis(500) && d1 <= Duration::from_millis(625));
        assert!(d3 >= Duration::from_millis(2000) && d3 <= Duration::from_millis(2500));
        assert_eq!(p.delay(20, &e), Duration::from_secs(32));
    }

    #[test]
    fn server_wait_wins() {
        let p = RetryPolicy::default();
        let e = http(429, Some(Duration::from_millis(1234)));
        assert_eq!(p.delay(1, &e), Duration::from_millis(1234));
        assert_eq!(
            p.delay(1, &http(429, Some(Duration::from_secs(600)))),
            p.max_delay
        );
    }

    #[test]
    fn headers_parse() {
        let mut h = HeaderMap::new();
        h.insert("retry-after", "3".parse().expect("header"));
        assert_eq!(parse_retry_after(&h), Some(Duration::from_secs(3)));
        h.insert("retry-after-ms", "250".parse().expect("header"));
        assert_eq!(parse_retry_after(&h), Some(Duration::from_millis(250)));
        h.insert("x-should-retry", "false".parse().expect("header"));
        assert_eq!(parse_should_retry(&h), Some(false));
        let mut bad = HeaderMap::new();
        bad.insert("retry-after", "soon".parse().expect("header"));
        assert_eq!(parse_retry_after(&bad), None);
    }

    #[test]
    fn which_errors_retry() {
        let p = RetryPolicy::default();
        for s in [429, 500, 502, 503, 504, 529] {
            assert!(p.should_retry(1, &http(s, None)), "{s}");
        }
        for s in [400, 401, 403, 404, 413] {
            assert!(!p.should_retry(1, &http(s, None)), "{s}");
        }
        assert!(!p.should_retry(8, &http(529, None)));
    }

    #[test]
    fn a_refused_connection_is_retried_twice_other_connection_errors_longer() {
        use crate::provider::connect_error::ConnectFailure;
        let p = RetryPolicy::default();
        let refused = ProviderError::Connect(ConnectFailure {
            url: "http://127.0.0.1:9/v1/messages".into(),
            cause: "tcp connect error: Connection refused (os error 111)".into(),
            refused: true,
            unreachable: true,
        });
        let retries = (1..20).take_while(|a| p.should_retry(*a, &refused)).count();
        assert_eq!(retries, 2);
        let reset = ProviderError::Connect("connection reset by peer".into());
        let retries = (1..20).take_while(|a| p.should_retry(*a, &reset)).count();
        assert_eq!(retries as u32, p.max_attempts - 1);
    }
}
