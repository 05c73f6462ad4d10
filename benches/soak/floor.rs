//! The physical floor of a turn's client time: moving the request's bytes through loopback
//! TCP at all. The soak's client time ends when the mock has the whole body, so it includes
//! a connect and the kernel copying every byte of it twice (into the socket, out to the
//! mock); a 1 MB body costs that much in any client. Measured in the same run, with the
//! same shape of reader as the mock (one buffer of the announced size), so "client time −
//! floor" is tooloop's own work per turn.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::Instant;

/// Mean ms of `reps` transfers of `bytes` bytes: connect, write them all, the reader has
/// them all. Sizes are measured interleaved so a change in machine load hits them alike.
pub fn transfer_ms(sizes: &[usize], reps: usize) -> Vec<f64> {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    let max = sizes.iter().copied().max().unwrap_or(0);
    let (done_tx, done_rx) = std::sync::mpsc::channel::<Instant>();
    let reader = std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(mut conn) = conn else { break };
            let mut len = [0u8; 8];
            if conn.read_exact(&mut len).is_err() {
                break;
            }
            let len = u64::from_le_bytes(len) as usize;
            if len == 0 {
                break;
            }
            let mut body = Vec::with_capacity(len);
            let mut chunk = vec![0u8; 64 * 1024];
            while body.len() < len {
                match conn.read(&mut chunk) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => body.extend_from_slice(&chunk[..n]),
                }
            }
            let _ = done_tx.send(Instant::now());
        }
    });
    let payload = vec![b'x'; max];
    let mut total = vec![0.0; sizes.len()];
    for _ in 0..reps {
        for (i, &n) in sizes.iter().enumerate() {
            let start = Instant::now();
            let mut s = TcpStream::connect(addr).expect("connect");
            s.write_all(&(n as u64).to_le_bytes()).expect("len");
            s.write_all(&payload[..n]).expect("write");
            let got = done_rx.recv().expect("reader");
            total[i] += got.duration_since(start).as_secs_f64() * 1000.0;
        }
    }
    if let Ok(mut s) = TcpStream::connect(addr) {
        let _ = s.write_all(&0u64.to_le_bytes());
    }
    let _ = reader.join();
    total.iter().map(|t| t / reps as f64).collect()
}
