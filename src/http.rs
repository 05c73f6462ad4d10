//! The one HTTP client (providers and web_fetch share its connection pool) and the error
//! text that says what really broke. Neutral ground: tools and providers both use it.

use std::time::Duration;

/// The one HTTP client shared by providers and web_fetch (connection reuse, rustls).
pub fn http_client() -> reqwest::Client {
    static CLIENT: std::sync::OnceLock<reqwest::Client> = std::sync::OnceLock::new();
    CLIENT
        .get_or_init(|| {
            reqwest::Client::builder()
                .connect_timeout(Duration::from_secs(15))
                .build()
                .unwrap_or_else(|e| {
                    tracing::error!("HTTP client with settings failed ({e}); using defaults");
                    reqwest::Client::new()
                })
        })
        .clone()
}

/// reqwest's Display hides the cause ("error sending request"); the chain says what broke.
pub fn error_chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let text = s.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        source = s.source();
    }
    out
}
