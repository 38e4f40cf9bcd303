#!/usr/bin/env bash
# Scale-out check: three calculator instances and three long_task instances behind nginx,
# driven by drive.py.
#
#   bash tests/scale_out/run.sh
#
# Installs Debian's nginx when missing (needs root and the Debian mirror), builds the
# calculator and long_task examples, starts three instances of each on free 127.0.0.1 ports
# (the long_task ones all with one random MCP_REQUEST_STATE_KEY, never printed) and a fourth
# long_task with another key (not behind nginx: drive.py shows it refuses the others'
# requestState), writes an nginx config
# into a temp dir and runs nginx in the foreground with it, then runs drive.py with the interop
# venv's Python (tests/interop/setup.sh), or python3 when there is no venv: drive.py only needs
# the standard library. Exits non-zero on any failure. Every process it starts is ended by PID.
# (bash reports the instance drive.py kills as `Killed`: that is part of the test.)
#
# The nginx config (printed on failure) has two locations:
#   /mcp         round-robin over the three instances: the 2026-07-28 era is stateless, any
#                instance answers any request; a connect error or a reset is retried on the
#                next instance (`proxy_next_upstream error timeout non_idempotent`).
#   /legacy/mcp  the handshake era (2025-03-26..2025-11-25): `Mcp-Session-Id` lives in the
#                one process that answered `initialize`, so requests naming it must reach that
#                process. Each calculator instance is started with MCP_INSTANCE_ID=c1/c2/c3,
#                so every session id it hands out starts with its name (`c2.3f9c...`), and an
#                nginx `map` from the id's prefix to the instance's address routes each request
#                to its session's owner; a request without a session id (`initialize`) goes
#                round robin. No retries: a misrouted request would be a 404 and fail the test.
#   /legacy-retry/mcp  the recipe for instances whose ids name no instance (no MCP_INSTANCE_ID,
#                or a proxy that cannot map): `hash $http_mcp_session_id consistent` alone does
#                NOT route a session (the `initialize` request has no session id, so nginx
#                round-robins it, and the id the server then picks hashes to an arbitrary
#                instance); adding `http_404` to `proxy_next_upstream` makes nginx try the other
#                instances until the owner answers (a 404 for an unknown session means the
#                request was not processed, so the retry is safe); the hash keeps each
#                session's probe order fixed.
#   /messages    2024-11-05 HTTP+SSE POSTs, routed by the same prefix of their `sessionId`.
#   /asking/mcp  round-robin over the three long_task instances (2026-07-28 calls that ask the
#                client: the retry carrying the answer may reach any instance, since they share
#                the requestState key).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

# shellcheck source=../support/nginx.sh
source "$root/tests/support/nginx.sh"
ensure_nginx scale-out

python="$root/tests/interop/.venv/bin/python"
[[ -x "$python" ]] || python="$(command -v python3)"

cargo build --quiet --manifest-path "$root/Cargo.toml" --example calculator --example long_task
target_dir="$(cargo metadata --format-version 1 --no-deps --manifest-path "$root/Cargo.toml" \
    | "$python" -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
calculator="$target_dir/debug/examples/calculator"
long_task="$target_dir/debug/examples/long_task"

tmp="$(mktemp -d)"
pids=()
cleanup() {
    local status=$?
    for pid in "${pids[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${pids[@]}"; do
        wait "$pid" 2>/dev/null || true
    done
    if [[ $status -ne 0 ]]; then
        echo "scale-out: FAILED; nginx config and logs follow" >&2
        for f in "$tmp"/nginx.conf "$tmp"/error.log "$tmp"/server-*.log; do
            [[ -f "$f" ]] && { echo "--- $f" >&2; tail -n 40 "$f" >&2; }
        done
    fi
    rm -rf "$tmp"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Calculator instances 1..3; each instance logs `... serving MCP over HTTP at
# http://127.0.0.1:PORT/mcp`, and at debug level one `tools/call ... tool=NAME` line per call,
# which drive.py counts to tell which instance served a request.
servers=()
addrs=()
for i in 1 2 3; do
    MCP_INSTANCE_ID="c$i" MCP_LOG=debug "$calculator" --http 127.0.0.1:0 2> "$tmp/server-$i.log" &
    pid=$!
    pids+=("$pid")
    servers+=("$pid")
done
# long_task instances 4..6 share one requestState key; instance 7 has a key of its own. The
# keys reach the processes through the environment only.
shared_key="$("$python" -c 'import secrets; print(secrets.token_hex(32))')"
other_key="$("$python" -c 'import secrets; print(secrets.token_hex(32))')"
for i in 4 5 6 7; do
    key="$shared_key"
    [[ $i -eq 7 ]] && key="$other_key"
    MCP_LOG=debug MCP_REQUEST_STATE_KEY="$key" "$long_task" --http 127.0.0.1:0 2> "$tmp/server-$i.log" &
    pid=$!
    pids+=("$pid")
    servers+=("$pid")
done
unset shared_key other_key key
for i in 1 2 3 4 5 6 7; do
    url=""
    for _ in $(seq 100); do
        url="$(grep -o 'http://[^ ]*/mcp' "$tmp/server-$i.log" | head -n1 || true)"
        [[ -n "$url" ]] && break
        sleep 0.1
    done
    [[ -n "$url" ]] || { echo "scale-out: instance $i did not start" >&2; exit 1; }
    addr="${url#http://}"
    addrs+=("${addr%/mcp}")
done

port="$("$python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
mkdir -p "$tmp/temp"
user_line=""
[[ $EUID -eq 0 ]] && user_line="user root;"
cat > "$tmp/nginx.conf" <<CONF
$user_line
worker_processes 1;
pid $tmp/nginx.pid;
error_log $tmp/error.log warn;
events { worker_connections 256; }
http {
    access_log $tmp/access.log;
    client_body_temp_path $tmp/temp/body;
    proxy_temp_path $tmp/temp/proxy;
    fastcgi_temp_path $tmp/temp/fastcgi;
    uwsgi_temp_path $tmp/temp/uwsgi;
    scgi_temp_path $tmp/temp/scgi;

    # 2026-07-28 era: stateless, any instance answers any request.
    upstream mcp_modern {
        server ${addrs[0]};
        server ${addrs[1]};
        server ${addrs[2]};
    }
    # Legacy era: a session lives in one instance, named by its id's prefix (see run.sh's
    # header); a request without a session id (initialize) may go to any instance.
    map \$http_mcp_session_id \$mcp_legacy_owner {
        default    mcp_modern;
        ~^c1\\.    ${addrs[0]};
        ~^c2\\.    ${addrs[1]};
        ~^c3\\.    ${addrs[2]};
    }
    # The same for the 2024-11-05 HTTP+SSE transport, whose POSTs carry the id in the query.
    map \$arg_sessionId \$mcp_sse_owner {
        default    mcp_modern;
        ~^c1\\.    ${addrs[0]};
        ~^c2\\.    ${addrs[1]};
        ~^c3\\.    ${addrs[2]};
    }
    # Without instance names: the session-id hash and a retry on 404 (see run.sh's header).
    upstream mcp_legacy_retry {
        hash \$http_mcp_session_id consistent;
        server ${addrs[0]};
        server ${addrs[1]};
        server ${addrs[2]};
    }
    # 2026-07-28 calls that ask the client: instances sharing the requestState key.
    upstream mcp_asking {
        server ${addrs[3]};
        server ${addrs[4]};
        server ${addrs[5]};
    }
    # Only to show what hashing the session id alone does (drive.py reports it).
    upstream mcp_legacy_hash_only {
        hash \$http_mcp_session_id consistent;
        server ${addrs[0]};
        server ${addrs[1]};
        server ${addrs[2]};
    }

    server {
        listen 127.0.0.1:$port;
        proxy_http_version 1.1;
        proxy_buffering off;             # SSE streams pass through as they are written
        proxy_read_timeout 1h;           # long tool calls and GET streams
        proxy_set_header Host \$host;    # a loopback-bound server accepts only loopback hosts

        location = /mcp {
            proxy_pass http://mcp_modern/mcp;
            proxy_next_upstream error timeout non_idempotent;
            proxy_next_upstream_tries 3;
        }
        location = /legacy/mcp {
            proxy_pass http://\$mcp_legacy_owner/mcp;
        }
        location = /legacy-retry/mcp {
            proxy_pass http://mcp_legacy_retry/mcp;
            proxy_next_upstream error timeout http_404 non_idempotent;
            proxy_next_upstream_tries 3;   # >= the number of instances
        }
        location = /sse {
            proxy_pass http://mcp_modern/sse;  # any instance may open a session
        }
        location = /messages {
            proxy_pass http://\$mcp_sse_owner/messages\$is_args\$args;
        }
        location = /asking/mcp {
            proxy_pass http://mcp_asking/mcp;
            proxy_next_upstream error timeout non_idempotent;
            proxy_next_upstream_tries 3;
        }
        location = /legacy-hash-only/mcp {
            proxy_pass http://mcp_legacy_hash_only/mcp;
            proxy_next_upstream error timeout non_idempotent;
            proxy_next_upstream_tries 3;
        }
    }
}
CONF

start_nginx scale-out "$tmp" "$port" "$python"

"$python" "$here/drive.py" --base "http://127.0.0.1:$port" \
    --instance "${servers[0]}:${addrs[0]}:$tmp/server-1.log" \
    --instance "${servers[1]}:${addrs[1]}:$tmp/server-2.log" \
    --instance "${servers[2]}:${addrs[2]}:$tmp/server-3.log" \
    --asking "${servers[3]}:${addrs[3]}:$tmp/server-4.log" \
    --asking "${servers[4]}:${addrs[4]}:$tmp/server-5.log" \
    --asking "${servers[5]}:${addrs[5]}:$tmp/server-6.log" \
    --stranger "${servers[6]}:${addrs[6]}:$tmp/server-7.log"
# What nginx met at the dead instance and retried elsewhere (refused connects, resets).
echo "nginx: $(grep 'upstream' "$tmp/error.log" | grep -vc 'temporarily disabled' || true) upstream error(s), each retried on another instance:"
grep 'upstream' "$tmp/error.log" | grep -v 'temporarily disabled' | sed 's/^.*\] [0-9#]*: //; s/, client:.*, upstream:/, upstream:/' || true
