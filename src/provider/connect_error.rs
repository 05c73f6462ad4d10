//! A connection that could not be made, said with the URL it was made to: a wrong
//! `--base-url` must be recognisable from the first retry note, not after a minute.

use std::fmt;

/// Why no response head arrived from `url`. `unreachable` marks the failures that another
/// attempt a second later will not fix (nothing listens on the port, the host name does not
/// resolve): they are retried only briefly (see [`super::retry::RetryPolicy`]).
#[derive(Clone, Debug, PartialEq)]
pub struct ConnectFailure {
    /// The endpoint the request went to (never carries a key: keys travel in headers).
    pub url: String,
    /// The root cause, without reqwest's "error sending request for url (…)" wrapper.
    pub cause: String,
    /// Nothing listens there (the io error's kind said so).
    pub refused: bool,
    pub unreachable: bool,
}

impl ConnectFailure {
    /// From reqwest's error for a request to `url`; `redact` hides a key a server echoed.
    pub fn from_reqwest(url: &str, e: &reqwest::Error, redact: impl Fn(&str) -> String) -> Self {
        let mut causes = Vec::new();
        let mut refused = false;
        let mut source = std::error::Error::source(e);
        while let Some(s) = source {
            if let Some(io) = s.downcast_ref::<std::io::Error>() {
                refused |= io.kind() == std::io::ErrorKind::ConnectionRefused;
            }
            let text = s.to_string();
            // hyper's "client error (Connect)" says nothing the next cause does not.
            if !text.starts_with("client error (")
                && !causes.iter().any(|c: &String| c.contains(&text))
            {
                causes.push(text);
            }
            source = s.source();
        }
        // reqwest's own text ("error sending request for url (…)") only when nothing below.
        let cause = if causes.is_empty() {
            let text = e.to_string();
            text.split(" for url (").next().unwrap_or(&text).to_string()
        } else {
            causes.join(": ")
        };
        let lower = cause.to_ascii_lowercase();
        refused |= lower.contains("connection refused");
        let dns = lower.contains("dns error") || lower.contains("failed to lookup address");
        ConnectFailure {
            url: redact(url),
            cause: redact(&cause),
            refused,
            unreachable: refused || dns,
        }
    }
}

/// "connection refused by URL" (one line, short enough for a retry note), else
/// "cannot connect to URL: cause".
impl fmt::Display for ConnectFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.refused {
            write!(f, "connection refused by {}", self.url)
        } else {
            write!(f, "cannot connect to {}: {}", self.url, self.cause)
        }
    }
}

/// Tests and scripted providers: a failure with only a cause ("refused").
impl From<&str> for ConnectFailure {
    fn from(cause: &str) -> Self {
        ConnectFailure {
            url: "(no url)".into(),
            cause: cause.to_string(),
            refused: false,
            unreachable: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_refused_connection_names_the_url_and_is_unreachable() {
        let port = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
            l.local_addr().expect("addr").port()
        };
        let url = format!("http://127.0.0.1:{port}/v1/messages");
        let err = reqwest::Client::new()
            .post(&url)
            .send()
            .await
            .expect_err("nothing listens");
        let f = ConnectFailure::from_reqwest(&url, &err, str::to_string);
        assert!(f.unreachable, "{f:?}");
        assert_eq!(f.to_string(), format!("connection refused by {url}"));
    }

    #[test]
    fn other_causes_are_shown_after_the_url() {
        let f = ConnectFailure {
            url: "https://h/v1".into(),
            cause: "operation timed out".into(),
            refused: false,
            unreachable: false,
        };
        assert_eq!(
            f.to_string(),
            "cannot connect to https://h/v1: operation timed out"
        );
    }
}
