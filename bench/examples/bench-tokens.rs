//! What checking an access token costs per request: a token remembered from an earlier
//! request, against a full verification (signature and claims) by RS256, ES256 and EdDSA, with
//! the test keys of `tests/fixtures/oauth/`. The key set is served from a loopback socket and
//! fetched once, before timing starts.
//!
//! ```sh
//! cargo run --release -p mcp-bench --example bench-tokens
//! ```
//!
//! `BENCH_ITERATIONS` sets the verifications per case (default 20 000; full ones are a tenth
//! of that). Each figure is the thread's CPU time per verification, the best of five rounds:
//! other work on the machine only ever makes a figure worse.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use jsonwebtoken::{Algorithm, EncodingKey, Header};
use mcp_runtime::auth::JwtVerifier;
use serde_json::json;

const JWKS: &str = include_str!("../../tests/fixtures/oauth/jwks-1.json");
const RESOURCE: &str = "http://127.0.0.1/mcp";

/// Serve the key set to whoever asks, on a loopback port; its address.
fn serve_keys() -> std::net::SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    let addr = listener.local_addr().expect("its address");
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(stream);
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|read| read > 2) {
                line.clear();
            }
            let _ = write!(
                reader.get_mut(),
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
                 Connection: close\r\n\r\n{JWKS}",
                JWKS.len()
            );
        }
    });
    addr
}

fn token(issuer: &str, alg: Algorithm, kid: &str, key: &EncodingKey) -> String {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("after 1970")
        .as_secs();
    let claims = json!({
        "iss": issuer, "aud": RESOURCE, "sub": "bench-user", "iat": now, "exp": now + 3600,
        "scope": "notes:read notes:write", "email": "bench@example.com",
        "client_id": "bench-client", "jti": "0123456789abcdef",
    });
    let mut header = Header::new(alg);
    header.kid = Some(kid.to_owned());
    jsonwebtoken::encode(&header, &claims, key).expect("a signed token")
}

/// The CPU time of this thread so far, in ns (`/proc/thread-self/schedstat`, as the
/// benchmark driver reads it): other work on the machine delays a verification but does not
/// add to it. `None` where there is no such file.
fn thread_cpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// The best per-verification time of five rounds of `iterations`, in ns: CPU time where it
/// can be read, else wall time.
async fn measure(verifier: &JwtVerifier, token: &str, iterations: u32) -> f64 {
    verifier
        .verify_token(token, Some(RESOURCE))
        .await
        .expect("the token verifies");
    let mut best = u128::MAX;
    for _ in 0..5 {
        let (cpu, wall) = (thread_cpu_ns(), Instant::now());
        for _ in 0..iterations {
            let principal = verifier
                .verify_token(std::hint::black_box(token), Some(RESOURCE))
                .await
                .expect("the token verifies");
            std::hint::black_box(principal);
        }
        let spent = match (cpu, thread_cpu_ns()) {
            (Some(before), Some(after)) => u128::from(after - before),
            _ => wall.elapsed().as_nanos(),
        };
        best = best.min(spent);
    }
    best as f64 / f64::from(iterations)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    let iterations: u32 = std::env::var("BENCH_ITERATIONS")
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(20_000);
    let addr = serve_keys();
    let issuer = format!("http://{addr}/tenant");
    let jwks = format!("http://{addr}/jwks");
    let rsa = EncodingKey::from_rsa_pem(include_bytes!("../../tests/fixtures/oauth/rsa-1.pem"))
        .expect("the RSA key");
    let ec = EncodingKey::from_ec_pem(include_bytes!("../../tests/fixtures/oauth/ec-p256.pem"))
        .expect("the EC key");
    let ed = EncodingKey::from_ed_pem(include_bytes!("../../tests/fixtures/oauth/ed25519.pem"))
        .expect("the Ed25519 key");
    let rs256 = token(&issuer, Algorithm::RS256, "rsa-1", &rsa);
    let es256 = token(&issuer, Algorithm::ES256, "ec-p256", &ec);
    let eddsa = token(&issuer, Algorithm::EdDSA, "ed25519", &ed);

    let cached = JwtVerifier::new(&issuer, &jwks);
    let uncached = JwtVerifier::new(&issuer, &jwks).cache_tokens(0);
    let cases = [
        (
            "cached (RS256 token remembered)",
            &cached,
            &rs256,
            iterations,
        ),
        (
            "full RS256 (2048-bit)",
            &uncached,
            &rs256,
            (iterations / 10).max(1),
        ),
        (
            "full ES256 (P-256)",
            &uncached,
            &es256,
            (iterations / 10).max(1),
        ),
        (
            "full EdDSA (Ed25519)",
            &uncached,
            &eddsa,
            (iterations / 10).max(1),
        ),
    ];
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "| verification | CPU ns/request | requests/s (one core) |"
    )?;
    writeln!(out, "|---|---:|---:|")?;
    for (name, verifier, token, iterations) in cases {
        let ns = measure(verifier, token, iterations).await;
        writeln!(out, "| {name} | {ns:.0} | {:.0} |", 1e9 / ns)?;
    }
    writeln!(
        out,
        "\ntoken sizes: RS256 {} B, ES256 {} B, EdDSA {} B; key set fetches: {} + {}",
        rs256.len(),
        es256.len(),
        eddsa.len(),
        cached.stats().key_fetches,
        uncached.stats().key_fetches
    )?;
    Ok(())
}
