#!/usr/bin/env bash
# Runs the official MCP conformance suite (npm `@modelcontextprotocol/conformance`, pinned in
# package.json + package-lock.json) against examples/conformance.rs served over Streamable HTTP,
# with baseline.yml listing the scenarios expected to fail. Exits non-zero on any unexpected
# result. Needs Node >= 20 and the npm registry (first run only). Run it from anywhere:
# `bash tests/conformance/run.sh` (extra arguments go to the suite, e.g. `--scenario ping`).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$here"

# The interop setup's Node 24, when present; else the machine's.
if [[ -x "$root/tests/interop/node_modules/.bin/node" ]]; then
    export PATH="$root/tests/interop/node_modules/.bin:$PATH"
fi

want="$(cat package.json package-lock.json | sha256sum | cut -d' ' -f1)"
if [[ ! -f node_modules/.conformance-stamp || "$(cat node_modules/.conformance-stamp)" != "$want" ]]; then
    echo "conformance: installing the suite from package-lock.json"
    npm ci --no-audit --no-fund --loglevel=error
    echo "$want" > node_modules/.conformance-stamp
fi

cargo build --quiet --manifest-path "$root/Cargo.toml" --example conformance
target_dir="$(cargo metadata --format-version 1 --no-deps --manifest-path "$root/Cargo.toml" \
    | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).target_directory))')"
log="$(mktemp)"
MCP_LOG=info "$target_dir/debug/examples/conformance" --http 127.0.0.1:0 2> "$log" &
server=$!
trap 'kill "$server" 2>/dev/null || true; rm -f "$log"' EXIT

# The server logs where it listens: `... serving MCP over HTTP at http://127.0.0.1:PORT/mcp`.
url=""
for _ in $(seq 100); do
    url="$(grep -o 'http://[^ ]*/mcp' "$log" | head -n1 || true)"
    [[ -n "$url" ]] && break
    sleep 0.1
done
[[ -n "$url" ]] || { echo "conformance: the server did not start"; cat "$log"; exit 1; }

echo "conformance: testing $url"
node_modules/.bin/conformance server --url "$url" --expected-failures baseline.yml "$@"
