# Sourced by tests/scale_out/run.sh and tests/shared_state/run.sh: installs nginx when missing
# and starts it in front of the instances, failing loudly when it does not come up.
#
#   source tests/support/nginx.sh
#   ensure_nginx LABEL                  # sets $nginx_bin (installs Debian's nginx if needed)
#   start_nginx LABEL DIR PORT PYTHON   # DIR/nginx.conf, logs in DIR/error.log; appends its
#                                       # PID to the caller's `pids` array
#
# start_nginx returns once nginx accepts connections on 127.0.0.1:PORT; if it exits first or
# is not up within 30 s, it prints why (nginx's error log) and returns 1, which ends a script
# run with `set -e`.

ensure_nginx() {
    local label="$1"
    if ! command -v nginx >/dev/null 2>&1 && [[ ! -x /usr/sbin/nginx ]]; then
        echo "$label: installing nginx"
        apt-get update -qq
        apt-get install -y -qq nginx-light >/dev/null || apt-get install -y -qq nginx >/dev/null
    fi
    nginx_bin="$(command -v nginx || echo /usr/sbin/nginx)"
}

start_nginx() {
    local label="$1" dir="$2" port="$3" python="$4"
    "$nginx_bin" -p "$dir" -e "$dir/error.log" -c "$dir/nginx.conf" -g 'daemon off;' &
    local pid=$!
    pids+=("$pid")
    for _ in $(seq 300); do
        if "$python" -c "import socket; socket.create_connection(('127.0.0.1', $port), 0.2)" 2>/dev/null; then
            return 0
        fi
        if ! kill -0 "$pid" 2>/dev/null; then
            echo "$label: nginx exited before it listened on port $port" >&2
            [[ -f "$dir/error.log" ]] && tail -n 20 "$dir/error.log" >&2
            return 1
        fi
        sleep 0.1
    done
    echo "$label: nginx did not listen on port $port within 30 s" >&2
    [[ -f "$dir/error.log" ]] && tail -n 20 "$dir/error.log" >&2
    return 1
}
