//! An OTLP collector for the telemetry tests: real HTTP on 127.0.0.1 (OTLP/HTTP with
//! protobuf or JSON bodies, or OTLP/gRPC over HTTP/2), what arrives decoded with the
//! official protobuf schema (opentelemetry-proto), or a collector that refuses, stalls or
//! answers garbage.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use opentelemetry_proto::tonic::metrics::v1::Metric;
use prost::Message;

/// How the collector answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Behaviour {
    Accept,
    /// 503 to everything.
    Refuse,
    /// Reads the request, never answers.
    Stall,
    /// 200 with a body that is not an OTLP response.
    Garbage,
}

/// One span as received, its attributes flattened to strings.
#[derive(Clone, Debug)]
pub struct Span {
    pub name: String,
    pub trace_id: Vec<u8>,
    pub span_id: Vec<u8>,
    pub parent_span_id: Vec<u8>,
    pub kind: i32,
    pub attrs: HashMap<String, AnyValue>,
    pub events: Vec<String>,
    pub resource: HashMap<String, AnyValue>,
    pub start_ns: u64,
    pub end_ns: u64,
}

impl Span {
    pub fn str(&self, key: &str) -> Option<String> {
        match self.attrs.get(key)?.value.as_ref()? {
            any_value::Value::StringValue(s) => Some(s.clone()),
            other => Some(format!("{other:?}")),
        }
    }

    pub fn int(&self, key: &str) -> Option<i64> {
        match self.attrs.get(key)?.value.as_ref()? {
            any_value::Value::IntValue(n) => Some(*n),
            _ => None,
        }
    }

    pub fn double(&self, key: &str) -> Option<f64> {
        match self.attrs.get(key)?.value.as_ref()? {
            any_value::Value::DoubleValue(n) => Some(*n),
            _ => None,
        }
    }
}

#[derive(Default)]
struct Seen {
    connections: usize,
    traces: Vec<ExportTraceServiceRequest>,
    metrics: Vec<ExportMetricsServiceRequest>,
    /// OTLP/HTTP JSON bodies, as JSON.
    json: Vec<serde_json::Value>,
    undecodable: Vec<String>,
}

/// The wire the collector listens with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Wire {
    Http,
    Grpc,
}

pub struct Collector {
    addr: std::net::SocketAddr,
    seen: Arc<Mutex<Seen>>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

fn flatten(kvs: &[KeyValue]) -> HashMap<String, AnyValue> {
    kvs.iter()
        .filter_map(|kv| Some((kv.key.clone(), kv.value.clone()?)))
        .collect()
}

impl Collector {
    /// An OTLP/HTTP collector (protobuf or JSON bodies).
    pub fn start(behaviour: Behaviour) -> Self {
        Self::listen(behaviour, Wire::Http)
    }

    /// An OTLP/gRPC collector: HTTP/2 with prior knowledge, as tonic speaks to `http://`.
    pub fn start_grpc(behaviour: Behaviour) -> Self {
        Self::listen(behaviour, Wire::Grpc)
    }

    fn listen(behaviour: Behaviour, wire: Wire) -> Self {
        let seen = Arc::new(Mutex::new(Seen::default()));
        let shared = seen.clone();
        let (addr_tx, addr_rx) = std::sync::mpsc::channel();
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("collector runtime");
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                    .await
                    .expect("bind");
                addr_tx
                    .send(listener.local_addr().expect("addr"))
                    .expect("addr");
                let accept = async {
                    loop {
                        let Ok((sock, _)) = listener.accept().await else {
                            continue;
                        };
                        shared.lock().unwrap().connections += 1;
                        let shared = shared.clone();
                        tokio::spawn(async move {
                            let io = hyper_util::rt::TokioIo::new(sock);
                            match wire {
                                Wire::Http => {
                                    let svc = hyper::service::service_fn(move |req| {
                                        handle(req, shared.clone(), behaviour)
                                    });
                                    let _ = hyper::server::conn::http1::Builder::new()
                                        .serve_connection(io, svc)
                                        .await;
                                }
                                Wire::Grpc => {
                                    let svc = hyper::service::service_fn(move |req| {
                                        handle_grpc(req, shared.clone(), behaviour)
                                    });
                                    let _ = hyper::server::conn::http2::Builder::new(
                                        hyper_util::rt::TokioExecutor::new(),
                                    )
                                    .serve_connection(io, svc)
                                    .await;
                                }
                            }
                        });
                    }
                };
                tokio::select! {
                    _ = accept => {}
                    _ = stop_rx => {}
                }
            });
        });
        Collector {
            addr: addr_rx.recv().expect("collector address"),
            seen,
            stop: Some(stop_tx),
        }
    }

    /// For `OTEL_EXPORTER_OTLP_ENDPOINT` (the exporter appends `/v1/traces`, `/v1/metrics`).
    pub fn endpoint(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn connections(&self) -> usize {
        self.seen.lock().unwrap().connections
    }

    /// Bodies that did not decode as OTLP (each one fails the tests that look).
    pub fn undecodable(&self) -> Vec<String> {
        self.seen.lock().unwrap().undecodable.clone()
    }

    pub fn spans(&self) -> Vec<Span> {
        let seen = self.seen.lock().unwrap();
        let mut out = Vec::new();
        for req in &seen.traces {
            for rs in &req.resource_spans {
                let resource = rs
                    .resource
                    .as_ref()
                    .map(|r| flatten(&r.attributes))
                    .unwrap_or_default();
                for ss in &rs.scope_spans {
                    for s in &ss.spans {
                        out.push(Span {
                            name: s.name.clone(),
                            trace_id: s.trace_id.clone(),
                            span_id: s.span_id.clone(),
                            parent_span_id: s.parent_span_id.clone(),
                            kind: s.kind,
                            attrs: flatten(&s.attributes),
                            events: s.events.iter().map(|e| e.name.clone()).collect(),
                            resource: resource.clone(),
                            start_ns: s.start_time_unix_nano,
                            end_ns: s.end_time_unix_nano,
                        });
                    }
                }
            }
        }
        out
    }

    /// The OTLP/JSON bodies received (`http/json`).
    pub fn json(&self) -> Vec<serde_json::Value> {
        self.seen.lock().unwrap().json.clone()
    }

    pub fn metrics(&self) -> Vec<Metric> {
        let seen = self.seen.lock().unwrap();
        seen.metrics
            .iter()
            .flat_map(|r| &r.resource_metrics)
            .flat_map(|rm| &rm.scope_metrics)
            .flat_map(|sm| sm.metrics.clone())
            .collect()
    }
}

impl Drop for Collector {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// A loopback address where nothing listens (a collector that is down).
pub fn dead_endpoint() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    drop(listener);
    format!("http://{addr}")
}

async fn handle(
    req: hyper::Request<hyper::body::Incoming>,
    seen: Arc<Mutex<Seen>>,
    behaviour: Behaviour,
) -> Result<hyper::Response<Full<Bytes>>, std::convert::Infallible> {
    let path = req.uri().path().to_string();
    let json = req
        .headers()
        .get("content-type")
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    let body = req
        .into_body()
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    match behaviour {
        Behaviour::Stall => std::future::pending::<()>().await,
        Behaviour::Refuse => {
            return Ok(hyper::Response::builder()
                .status(503)
                .body(Full::new(Bytes::from_static(b"down for maintenance")))
                .unwrap());
        }
        Behaviour::Garbage => {
            return Ok(hyper::Response::builder()
                .status(200)
                .header("content-type", "application/x-protobuf")
                .body(Full::new(Bytes::from_static(
                    b"\xff\xfe not protobuf \x00\x01",
                )))
                .unwrap());
        }
        Behaviour::Accept => {}
    }
    {
        let mut s = seen.lock().unwrap();
        if json {
            match serde_json::from_slice(&body) {
                Ok(v) => s.json.push(v),
                Err(e) => s.undecodable.push(format!("{path}: {e}")),
            }
            return Ok(hyper::Response::builder()
                .status(200)
                .header("content-type", "application/json")
                .body(Full::new(Bytes::from_static(b"{}")))
                .unwrap());
        }
        match path.as_str() {
            "/v1/traces" => match ExportTraceServiceRequest::decode(body) {
                Ok(r) => s.traces.push(r),
                Err(e) => s.undecodable.push(format!("{path}: {e}")),
            },
            "/v1/metrics" => match ExportMetricsServiceRequest::decode(body) {
                Ok(r) => s.metrics.push(r),
                Err(e) => s.undecodable.push(format!("{path}: {e}")),
            },
            other => s.undecodable.push(format!("unexpected path {other}")),
        }
    }
    Ok(hyper::Response::builder()
        .status(200)
        .header("content-type", "application/x-protobuf")
        .body(Full::new(Bytes::new()))
        .unwrap())
}

type GrpcBody = http_body_util::StreamBody<
    futures::stream::Iter<
        std::vec::IntoIter<Result<hyper::body::Frame<Bytes>, std::convert::Infallible>>,
    >,
>;

/// A gRPC answer: the message frames, then the status in the trailers.
fn grpc_reply(frames: Vec<Bytes>, status: u32, message: &str) -> hyper::Response<GrpcBody> {
    let mut trailers = hyper::HeaderMap::new();
    trailers.insert("grpc-status", status.to_string().parse().unwrap());
    if !message.is_empty() {
        trailers.insert("grpc-message", message.parse().unwrap());
    }
    let mut out: Vec<Result<hyper::body::Frame<Bytes>, std::convert::Infallible>> = frames
        .into_iter()
        .map(|f| Ok(hyper::body::Frame::data(f)))
        .collect();
    out.push(Ok(hyper::body::Frame::trailers(trailers)));
    hyper::Response::builder()
        .status(200)
        .header("content-type", "application/grpc")
        .body(http_body_util::StreamBody::new(futures::stream::iter(out)))
        .unwrap()
}

/// One length-prefixed gRPC message (uncompressed).
fn grpc_frame(message: &[u8]) -> Bytes {
    let mut out = Vec::with_capacity(5 + message.len());
    out.push(0);
    out.extend_from_slice(&(message.len() as u32).to_be_bytes());
    out.extend_from_slice(message);
    Bytes::from(out)
}

async fn handle_grpc(
    req: hyper::Request<hyper::body::Incoming>,
    seen: Arc<Mutex<Seen>>,
    behaviour: Behaviour,
) -> Result<hyper::Response<GrpcBody>, std::convert::Infallible> {
    let path = req.uri().path().to_string();
    let body = req
        .into_body()
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    match behaviour {
        Behaviour::Stall => std::future::pending::<()>().await,
        // UNAVAILABLE, which OTLP/gRPC clients retry.
        Behaviour::Refuse => return Ok(grpc_reply(Vec::new(), 14, "down for maintenance")),
        Behaviour::Garbage => {
            return Ok(grpc_reply(
                vec![Bytes::from_static(b"\xff\xfe not a grpc frame")],
                0,
                "",
            ));
        }
        Behaviour::Accept => {}
    }
    let message = match body.get(..5) {
        Some([0, len @ ..])
            if body.len() == 5 + u32::from_be_bytes([len[0], len[1], len[2], len[3]]) as usize =>
        {
            body.slice(5..)
        }
        _ => {
            seen.lock().unwrap().undecodable.push(format!(
                "{path}: not one uncompressed gRPC message ({} bytes)",
                body.len()
            ));
            return Ok(grpc_reply(Vec::new(), 3, "bad frame"));
        }
    };
    {
        let mut s = seen.lock().unwrap();
        match path.as_str() {
            "/opentelemetry.proto.collector.trace.v1.TraceService/Export" => {
                match ExportTraceServiceRequest::decode(message) {
                    Ok(r) => s.traces.push(r),
                    Err(e) => s.undecodable.push(format!("{path}: {e}")),
                }
            }
            "/opentelemetry.proto.collector.metrics.v1.MetricsService/Export" => {
                match ExportMetricsServiceRequest::decode(message) {
                    Ok(r) => s.metrics.push(r),
                    Err(e) => s.undecodable.push(format!("{path}: {e}")),
                }
            }
            other => s
                .undecodable
                .push(format!("unexpected gRPC method {other}")),
        }
    }
    // An empty Export*ServiceResponse: no partial success.
    Ok(grpc_reply(vec![grpc_frame(&[])], 0, ""))
}
