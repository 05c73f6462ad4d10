//! The mock model server: a real HTTP/1.1 server on 127.0.0.1 with a queue of scripted
//! replies. See the API summary in `support/mod.rs`.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

// Re-exported so paths from the first version (`support::server::Reply`) keep working.
pub use super::reply::{Body, Ending, Gate, Reply, SseEvent};

/// One request as the server saw it.
#[derive(Clone, Debug)]
pub struct Recorded {
    pub method: String,
    /// The full path as sent, prefix included (`/anthropic/v1/messages`).
    pub path: String,
    /// Header names lowercased, in arrival order.
    pub headers: Vec<(String, String)>,
    /// The raw body as text.
    pub body_text: String,
    /// The body parsed as JSON, or Null if it is not JSON.
    pub body: Value,
    /// The validator's complaint, if the request was rejected (and no reply consumed).
    pub rejected: Option<String>,
    /// When the whole body had arrived (before the server parsed it).
    pub received: std::time::Instant,
    /// The token counts reported, with accounting on.
    pub accounted: Option<super::anthropic_cache::Accounted>,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Checks a request for one route. `Err(reply)` rejects it with that reply (no scripted
/// reply is consumed).
pub type Validator = fn(&Recorded) -> Result<(), Reply>;

/// Requests whose path ends with `suffix` are checked by `validate` before a reply is served.
#[derive(Clone)]
pub struct Route {
    pub suffix: &'static str,
    pub validate: Validator,
}

/// The routes every server starts with. OpenAI support adds its route here.
pub fn default_routes() -> Vec<Route> {
    vec![
        Route {
            suffix: "/v1/messages",
            validate: super::anthropic_validate::validate,
        },
        super::openai::route(),
    ]
}

/// Computes a reply for a request when no scripted reply is queued.
pub type Responder = Arc<dyn Fn(&Recorded) -> Reply + Send + Sync>;

#[derive(Default)]
struct Shared {
    accounting: Option<super::anthropic_cache::Accounting>,
    responder: Option<Responder>,
    /// Bumped on every recorded request, for `wait_for_requests`.
    arrived: Option<Arc<tokio::sync::watch::Sender<usize>>>,
    queue: VecDeque<Reply>,
    requests: Vec<Recorded>,
    routes: Vec<Route>,
    /// When each reply was completely written, in completion order.
    replied: Vec<std::time::Instant>,
    /// Forget request bodies once validated (long soaks would keep gigabytes).
    drop_bodies: bool,
    /// The test sends requests the validators refuse on purpose (`expect_rejections`).
    expect_rejections: bool,
}

/// The server. It runs on its own thread with its own runtime, so it works from plain
/// `#[test]`s (spawning the binary) and from async tests alike; dropping it stops it.
pub struct MockServer {
    addr: SocketAddr,
    shared: Arc<Mutex<Shared>>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl MockServer {
    pub fn start() -> Self {
        let shared = Arc::new(Mutex::new(Shared {
            arrived: Some(Arc::new(tokio::sync::watch::Sender::new(0))),
            routes: default_routes(),
            ..Shared::default()
        }));
        let (addr_tx, addr_rx) = std::sync::mpsc::channel();
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let state = shared.clone();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("mock server runtime");
            rt.block_on(async move {
                let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
                addr_tx
                    .send(listener.local_addr().expect("addr"))
                    .expect("addr");
                let accept = async {
                    loop {
                        let Ok((sock, _)) = listener.accept().await else {
                            continue;
                        };
                        tokio::spawn(serve(sock, state.clone()));
                    }
                };
                tokio::select! {
                    _ = accept => {}
                    _ = stop_rx => {}
                }
            });
            // Dropping the runtime here cancels every connection task (stalled ones too).
        });
        let addr = addr_rx.recv().expect("mock server address");
        MockServer {
            addr,
            shared,
            stop: Some(stop_tx),
            thread: Some(thread),
        }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// A base URL with a path prefix: `http://127.0.0.1:PORT/anthropic`.
    pub fn anthropic_base(&self) -> String {
        format!("{}/anthropic", self.url())
    }

    pub fn enqueue(&self, reply: Reply) -> &Self {
        self.lock().queue.push_back(reply);
        self
    }

    /// Prompt caching like the API: prefixes written at breakpoints are read back.
    pub fn enable_prompt_cache(&self) {
        let mut s = self.lock();
        s.accounting
            .get_or_insert_with(super::anthropic_cache::Accounting::new)
            .caching = true;
    }

    /// Requests over `tokens` are answered prompt_too_long.
    pub fn set_context_window(&self, tokens: u64) {
        self.lock()
            .accounting
            .get_or_insert_with(super::anthropic_cache::Accounting::new)
            .window = Some(tokens);
    }

    /// `f` answers requests when the queue is empty.
    pub fn respond_with(&self, f: impl Fn(&Recorded) -> Reply + Send + Sync + 'static) {
        self.lock().responder = Some(Arc::new(f));
    }

    pub fn add_route(&self, route: Route) {
        self.lock().routes.insert(0, route);
    }

    /// Every request so far, rejected ones included, in arrival order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.lock().requests.clone()
    }

    /// Requests that were not rejected by a validator.
    pub fn accepted(&self) -> Vec<Recorded> {
        self.requests()
            .into_iter()
            .filter(|r| r.rejected.is_none())
            .collect()
    }

    /// Blocks until at least `n` requests arrived (rejected ones count), or panics after
    /// `timeout`. Usable from sync tests; from async ones prefer `wait_for_requests_async`.
    pub fn wait_for_requests(&self, n: usize, timeout: Duration) -> Vec<Recorded> {
        let tx = self.lock().arrived.clone().expect("arrived");
        let mut rx = tx.subscribe();
        let deadline = std::time::Instant::now() + timeout;
        while *rx.borrow_and_update() < n {
            assert!(
                std::time::Instant::now() < deadline,
                "mock server: {n} request(s) did not arrive within {timeout:?}"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        self.requests()
    }

    pub async fn wait_for_requests_async(&self, n: usize) -> Vec<Recorded> {
        let tx = self.lock().arrived.clone().expect("arrived");
        let mut rx = tx.subscribe();
        let _ = rx.wait_for(|count| *count >= n).await;
        self.requests()
    }

    /// Says the test sends at least one request a validator refuses, on purpose. Without it a
    /// refused request fails the test when the server is dropped (a client bug the test did
    /// not look for must not pass quietly); with it, a test where nothing was refused fails
    /// instead (its premise no longer holds).
    pub fn expect_rejections(&self) -> &Self {
        self.lock().expect_rejections = true;
        self
    }

    /// Keep only the head of each request: bodies are validated, then dropped.
    pub fn drop_bodies(&self) {
        self.lock().drop_bodies = true;
    }

    /// When each reply was completely written (the last byte sent), in completion order.
    pub fn reply_ends(&self) -> Vec<std::time::Instant> {
        self.lock().replied.clone()
    }

    /// Replies still queued.
    pub fn pending(&self) -> usize {
        self.lock().queue.len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Shared> {
        self.shared.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Drop for MockServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        // A test already failing has said why; a second panic here would abort the run.
        if std::thread::panicking() {
            return;
        }
        if let Some(complaint) = self.unchecked_rejections() {
            panic!("{complaint}");
        }
    }
}

impl MockServer {
    /// What is wrong with the rejections seen, given what the test declared.
    fn unchecked_rejections(&self) -> Option<String> {
        let s = self.lock();
        let rejected: Vec<String> = s
            .requests
            .iter()
            .enumerate()
            .filter_map(|(i, r)| {
                let why = r.rejected.as_ref()?;
                Some(format!("  request #{i} {} {}: {why}", r.method, r.path))
            })
            .collect();
        match (s.expect_rejections, rejected.is_empty()) {
            (false, false) => Some(format!(
                "mock server: {} request(s) rejected, and the test did not say it expects a \
                 rejection (server.expect_rejections()):\n{}",
                rejected.len(),
                rejected.join("\n")
            )),
            (true, true) => Some(format!(
                "mock server: the test said it expects a rejection (expect_rejections()), but \
                 all {} request(s) were accepted",
                s.requests.len()
            )),
            _ => None,
        }
    }
}

/// One connection, one request (every response says `connection: close`).
async fn serve(mut sock: TcpStream, shared: Arc<Mutex<Shared>>) {
    let Some(req) = read_request(&mut sock).await else {
        return;
    };
    let reply = {
        let mut s = shared.lock().unwrap_or_else(|p| p.into_inner());
        let route = s
            .routes
            .iter()
            .find(|r| req.path.split('?').next().unwrap_or("").ends_with(r.suffix))
            .cloned();
        let verdict = match route {
            Some(r) => (r.validate)(&req),
            None => Err(Reply::error(
                404,
                "not_found_error",
                &format!("mock server: no route for {}", req.path),
            )),
        };
        let mut rec = req;
        let is_messages = rec
            .path
            .split('?')
            .next()
            .unwrap_or("")
            .ends_with("/v1/messages");
        let accounted = match (&verdict, s.accounting.as_mut()) {
            (Ok(()), Some(acc)) if is_messages => Some(acc.account(&rec.body)),
            _ => None,
        };
        let reply = match (verdict, accounted) {
            (Ok(()), Some(Err(too_long))) => too_long,
            (Ok(()), accounted) => {
                let reply = match s.queue.pop_front() {
                    Some(r) => r,
                    None => match &s.responder {
                        Some(f) => f(&rec),
                        None => {
                            let n = s.requests.len();
                            Reply::error(
                                400,
                                "invalid_request_error",
                                &format!("mock server: no reply scripted for request #{n}"),
                            )
                        }
                    },
                };
                match accounted {
                    Some(Ok(a)) => {
                        rec.accounted = Some(a);
                        super::anthropic_cache::with_usage(reply, a)
                    }
                    _ => reply,
                }
            }
            (Err(reply), _) => {
                rec.rejected = Some(match &reply.body {
                    Body::Status { body, .. } => body.clone(),
                    _ => "rejected".into(),
                });
                reply
            }
        };
        if s.drop_bodies {
            rec.body = Value::Null;
            rec.body_text = String::new();
        }
        s.requests.push(rec);
        if let Some(tx) = &s.arrived {
            tx.send_replace(s.requests.len());
        }
        reply
    };
    if write_reply(&mut sock, reply).await.is_ok() {
        let now = std::time::Instant::now();
        shared
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .replied
            .push(now);
    }
}

async fn read_request(sock: &mut TcpStream) -> Option<Recorded> {
    let mut buf = Vec::new();
    let mut tmp = [0u8; 8192];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        let n = sock.read(&mut tmp).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&tmp[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let mut lines = head.split("\r\n");
    let mut first = lines.next()?.split(' ');
    let method = first.next()?.to_string();
    let path = first.next()?.to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let len = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse::<usize>().ok())
        .unwrap_or(0);
    // Read straight into a buffer of the announced size: an 8 KB loop into a growing Vec
    // made a 1 MB request wait on the mock (the soak's "client time" counted it).
    let mut body = Vec::with_capacity(len.min(256 << 20).max(buf.len() - head_end - 4));
    body.extend_from_slice(&buf[head_end + 4..]);
    while body.len() < len {
        let n = sock.read_buf(&mut body).await.ok()?;
        if n == 0 {
            break;
        }
    }
    let received = std::time::Instant::now();
    let body_text = String::from_utf8_lossy(&body).to_string();
    Some(Recorded {
        received,
        method,
        path,
        headers,
        body: serde_json::from_str(&body_text).unwrap_or(Value::Null),
        body_text,
        rejected: None,
        accounted: None,
    })
}

async fn write_reply(sock: &mut TcpStream, reply: Reply) -> std::io::Result<()> {
    if !reply.head_delay.is_zero() {
        tokio::time::sleep(reply.head_delay).await;
    }
    if let Some(g) = &reply.head_gate {
        g.wait().await;
    }
    match reply.body {
        Body::Hang => {
            std::future::pending::<()>().await;
            Ok(())
        }
        Body::Status {
            status,
            headers,
            body,
        } => {
            let mut head = format!("HTTP/1.1 {status} {}\r\n", reason(status));
            for (k, v) in &headers {
                head.push_str(&format!("{k}: {v}\r\n"));
            }
            head.push_str(&format!(
                "content-length: {}\r\nconnection: close\r\n\r\n",
                body.len()
            ));
            sock.write_all(head.as_bytes()).await?;
            sock.write_all(body.as_bytes()).await?;
            sock.flush().await
        }
        Body::Sse {
            events,
            chunk,
            ending,
        } => {
            sock.write_all(
                b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n\
                  transfer-encoding: chunked\r\nconnection: close\r\n\r\n",
            )
            .await?;
            sock.flush().await?;
            for event in events {
                if !event.delay.is_zero() {
                    tokio::time::sleep(event.delay).await;
                }
                if let Some(g) = &event.gate {
                    g.wait().await;
                }
                let size = chunk.unwrap_or(event.bytes.len()).max(1);
                for piece in event.bytes.chunks(size) {
                    let mut frame = format!("{:x}\r\n", piece.len()).into_bytes();
                    frame.extend_from_slice(piece);
                    frame.extend_from_slice(b"\r\n");
                    sock.write_all(&frame).await?;
                    sock.flush().await?;
                }
            }
            match ending {
                Ending::Complete => {
                    sock.write_all(b"0\r\n\r\n").await?;
                    sock.flush().await?;
                    let _ = sock.shutdown().await;
                }
                // Closing without the terminating chunk: the client's body read fails.
                Ending::Drop => {}
                Ending::Stall => std::future::pending::<()>().await,
            }
            Ok(())
        }
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        413 => "Payload Too Large",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        529 => "Overloaded",
        _ => "Status",
    }
}
