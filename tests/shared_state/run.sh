#!/usr/bin/env bash
# Shared state across instances: three long_task instances sharing one real redis-server,
# behind a real nginx, driven by drive.py.
#
#   bash tests/shared_state/run.sh
#
# Installs Debian's redis-server and nginx when missing (install-redis.sh; nginx as
# tests/scale_out/run.sh does), builds the long_task example (with the root package's default
# features, `redis` among them), starts redis-server on a free 127.0.0.1 port (with the
# append-only file synced on every write, as README recommends: what was acknowledged survives
# a restart) and three long_task instances
# with `--redis`, one random MCP_REQUEST_STATE_KEY (never printed) and a short task lease
# (MCP_TASK_LEASE_MS) and names (MCP_INSTANCE_ID=s1, s2, s3), waits until each logs that it
# listens on Redis, puts nginx in front (tests/support/nginx.sh: /mcp round-robins over the
# three; /legacy/mcp routes a legacy session to the instance its id names, falling back to one
# fixed backup when that one is down), and runs drive.py with the interop venv's Python or
# python3 (it needs only the standard library). drive.py kills an instance and restarts Redis
# as part of the test; every process is ended by PID. Exits non-zero on any failure.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

bash "$here/install-redis.sh"
# shellcheck source=../support/nginx.sh
source "$root/tests/support/nginx.sh"
ensure_nginx shared-state
redis_bin="$(command -v redis-server || echo /usr/bin/redis-server)"

python="$root/tests/interop/.venv/bin/python"
[[ -x "$python" ]] || python="$(command -v python3)"

cargo build --quiet --manifest-path "$root/Cargo.toml" --example long_task
target_dir="$(cargo metadata --format-version 1 --no-deps --manifest-path "$root/Cargo.toml" \
    | "$python" -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
long_task="$target_dir/debug/examples/long_task"

tmp="$(mktemp -d)"
pids=()
cleanup() {
    local status=$?
    [[ -f "$tmp/redis.pid" ]] && pids+=("$(cat "$tmp/redis.pid")")
    for pid in "${pids[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${pids[@]}"; do
        wait "$pid" 2>/dev/null || true
    done
    if [[ $status -ne 0 ]]; then
        echo "shared-state: FAILED; logs follow" >&2
        for f in "$tmp"/error.log "$tmp"/redis*.log "$tmp"/server-*.log; do
            # The instances log every request at debug level: what went wrong is above it.
            [[ -f "$f" ]] && { echo "--- $f" >&2; grep -v ' DEBUG ' "$f" | tail -n 60 >&2; }
        done
    fi
    rm -rf "$tmp"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() {
    "$python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Waits until FILE has a line matching PATTERN (what a process prints once ready).
wait_for_line() {
    local file="$1" pattern="$2" what="$3"
    for _ in $(seq 300); do
        grep -q "$pattern" "$file" 2>/dev/null && return 0
        sleep 0.1
    done
    echo "shared-state: $what never said '$pattern'" >&2
    return 1
}

redis_port="$(free_port)"
# The command drive.py runs again to restart Redis (same port, same options).
redis_cmd=("$redis_bin" --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly yes --appendfsync always --dir "$tmp")
printf '%s\n' "${redis_cmd[@]}" > "$tmp/redis.cmd"
"${redis_cmd[@]}" > "$tmp/redis.log" 2>&1 &
echo $! > "$tmp/redis.pid"
wait_for_line "$tmp/redis.log" "Ready to accept connections" "redis-server"

key="$("$python" -c 'import secrets; print(secrets.token_hex(32))')"
servers=()
addrs=()
for i in 1 2 3; do
    MCP_LOG=debug MCP_INSTANCE_ID="s$i" MCP_REQUEST_STATE_KEY="$key" MCP_TASK_LEASE_MS=1500 \
        "$long_task" --http 127.0.0.1:0 --redis "redis://127.0.0.1:$redis_port/" \
        2> "$tmp/server-$i.log" &
    pid=$!
    pids+=("$pid")
    servers+=("$pid")
done
unset key
for i in 1 2 3; do
    wait_for_line "$tmp/server-$i.log" 'http://[^ ]*/mcp' "instance $i"
    wait_for_line "$tmp/server-$i.log" "listening on Redis" "instance $i"
    url="$(grep -o 'http://[^ ]*/mcp' "$tmp/server-$i.log" | head -n1)"
    addr="${url#http://}"
    addrs+=("${addr%/mcp}")
done

port="$(free_port)"
mkdir -p "$tmp/temp"
user_line=""
[[ $EUID -eq 0 ]] && user_line="user root;"
cat > "$tmp/nginx.conf" <<CONF
$user_line
worker_processes 1;
pid $tmp/nginx.pid;
error_log $tmp/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    client_body_temp_path $tmp/temp/body;
    proxy_temp_path $tmp/temp/proxy;
    fastcgi_temp_path $tmp/temp/fastcgi;
    uwsgi_temp_path $tmp/temp/uwsgi;
    scgi_temp_path $tmp/temp/scgi;

    # Tasks, requestStates and announcements live in Redis: any instance answers any request.
    # max_conns: nginx's connections all come from one address, and each instance admits 256
    # per address (HttpConfig::max_connections_per_address); 200 leaves room for the closing
    # ones and the test's own direct requests, and nginx skips an instance at its cap.
    upstream mcp {
        server ${addrs[0]} max_conns=200;
        server ${addrs[1]} max_conns=200;
        server ${addrs[2]} max_conns=200;
        # Enough idle connections kept for every client connection of the load run: without,
        # nginx closes and opens upstream connections for most requests.
        keepalive 256;
        keepalive_requests 1000000;
    }
    # Legacy sessions (2025-03-26..2025-11-25): each instance names its session ids (s1.,
    # s2., s3.: MCP_INSTANCE_ID), and the map sends a request naming a session to the instance
    # that opened it; initialize (no session id) goes round robin. The session lives in Redis
    # too, so when its instance is down (connection refused or reset), nginx passes the request
    # to that instance's backup, one fixed instance per owner (never several, which would each
    # take the session over), and the backup serves the session from Redis.
    map \$http_mcp_session_id \$mcp_session_owner {
        default    mcp;
        ~^s1\\.    mcp_s1;
        ~^s2\\.    mcp_s2;
        ~^s3\\.    mcp_s3;
    }
    upstream mcp_s1 {
        server ${addrs[0]};
        server ${addrs[1]} backup;
    }
    upstream mcp_s2 {
        server ${addrs[1]};
        server ${addrs[2]} backup;
    }
    upstream mcp_s3 {
        server ${addrs[2]};
        server ${addrs[0]} backup;
    }
    server {
        listen 127.0.0.1:$port;
        proxy_http_version 1.1;
        proxy_buffering off;
        proxy_read_timeout 1h;
        proxy_set_header Host \$host;
        proxy_set_header Connection "";
        location = /mcp {
            proxy_pass http://mcp/mcp;
            proxy_next_upstream error timeout non_idempotent;
            proxy_next_upstream_tries 3;
        }
        location = /legacy/mcp {
            proxy_pass http://\$mcp_session_owner/mcp;
            # Not non_idempotent: a POST the dead instance may have begun is not sent again
            # (it would run twice); one refused at connect was never sent, and goes on.
            proxy_next_upstream error timeout;
            proxy_next_upstream_tries 2;
        }
    }
}
CONF
start_nginx shared-state "$tmp" "$port" "$python"

"$python" "$here/drive.py" --base "http://127.0.0.1:$port" \
    --instance "${servers[0]}:${addrs[0]}:$tmp/server-1.log" \
    --instance "${servers[1]}:${addrs[1]}:$tmp/server-2.log" \
    --instance "${servers[2]}:${addrs[2]}:$tmp/server-3.log" \
    --redis "$tmp/redis.pid:$tmp/redis.cmd:$tmp/redis-restarted.log" \
    ${SHARED_STATE_LOAD:+--load "$SHARED_STATE_LOAD"}
