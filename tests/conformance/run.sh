#!/usr/bin/env bash
# Runs the official MCP conformance suite (npm `@modelcontextprotocol/conformance`) against
# examples/conformance.rs served over Streamable HTTP, three times:
#
# * stable: the pinned release in package.json + package-lock.json, its default scenario set
#   (the legacy, session-based wire), known failures in baseline.yml;
# * prerelease: the newest prerelease, pinned in prerelease/package.json +
#   prerelease/package-lock.json, run with the 2026-07-28 requirement set
#   (`--requirements 2026-07-28`: the stateless wire), known failures in
#   prerelease/baseline.yml;
# * prerelease-2025-11-25: the same prerelease with the 2025-11-25 requirement set (the session
#   wire, plus session-lifecycle and SSE polling for visibility), known failures in
#   prerelease/baseline-2025-11-25.yml.
#
# Exits non-zero on any unexpected result of any run (a failure not in the baseline, or a
# baselined one that passes). Needs Node >= 20 and the npm registry (first run only). Run it
# from anywhere:
#
#   bash tests/conformance/run.sh                       # all three runs
#   bash tests/conformance/run.sh stable [ARGS..]       # one of them; ARGS go to the suite,
#   bash tests/conformance/run.sh prerelease [ARGS..]   #   e.g. `--scenario tools-list`
#   bash tests/conformance/run.sh prerelease-2025-11-25 [ARGS..]
#   bash tests/conformance/run.sh --scenario ping       # all, ARGS to each
#
# With ARGS the prerelease runs `--spec-version <revision> ARGS` (the suite does not combine
# `--requirements` with `--scenario`). tests/conformance/RESULTS.md has the per-scenario table.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

runs=(stable prerelease prerelease-2025-11-25)
case "${1:-}" in
    stable | prerelease | prerelease-2025-11-25)
        runs=("$1")
        shift
        ;;
esac

# The interop setup's Node 24, when present; else the machine's.
if [[ -x "$root/tests/interop/node_modules/.bin/node" ]]; then
    export PATH="$root/tests/interop/node_modules/.bin:$PATH"
fi

# Install a pinned copy of the suite into $1 (skipped when its lock file is unchanged).
install() {
    local dir="$1" want
    want="$(cat "$dir/package.json" "$dir/package-lock.json" | sha256sum | cut -d' ' -f1)"
    if [[ ! -f "$dir/node_modules/.conformance-stamp" \
        || "$(cat "$dir/node_modules/.conformance-stamp")" != "$want" ]]; then
        echo "conformance: installing the suite from ${dir#"$root"/}/package-lock.json"
        (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
        echo "$want" > "$dir/node_modules/.conformance-stamp"
    fi
}

for run in "${runs[@]}"; do
    case "$run" in
        stable) install "$here" ;;
        prerelease*) install "$here/prerelease" ;;
    esac
done

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

failed=()
for run in "${runs[@]}"; do
    case "$run" in
        stable)
            dir="$here"
            baseline=baseline.yml
            selection=()
            ;;
        prerelease | prerelease-2025-11-25)
            dir="$here/prerelease"
            revision=2026-07-28
            baseline=baseline.yml
            if [[ "$run" == prerelease-2025-11-25 ]]; then
                revision=2025-11-25
                baseline=baseline-2025-11-25.yml
            fi
            if [[ $# -eq 0 ]]; then
                selection=(--requirements "$revision")
            else
                selection=(--spec-version "$revision")
            fi
            ;;
    esac
    version="$(node -p 'require(process.argv[1]).version' \
        "$dir/node_modules/@modelcontextprotocol/conformance/package.json")"
    echo "== conformance $run ($version ${selection[*]:-default scenarios}): testing $url"
    if ! (cd "$dir" && node_modules/.bin/conformance server --url "$url" \
        --expected-failures "$baseline" "${selection[@]}" "$@"); then
        failed+=("$run")
    fi
done

if [[ ${#failed[@]} -gt 0 ]]; then
    echo "conformance: unexpected results in: ${failed[*]}"
    exit 1
fi
