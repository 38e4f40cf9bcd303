#!/usr/bin/env bash
# Installs Debian's redis-server when it is missing, and openssl (the TLS test of
# tests/redis_store.rs makes its certificates with it); needs root and the Debian mirror. The
# tests start their own servers on free ports (never the system service), and stop them by PID.
#
#   bash tests/shared_state/install-redis.sh
set -euo pipefail
missing=()
if ! command -v redis-server >/dev/null 2>&1 && [[ ! -x /usr/bin/redis-server ]]; then
    missing+=(redis-server)
fi
if ! command -v openssl >/dev/null 2>&1; then
    missing+=(openssl)
fi
if [[ ${#missing[@]} -eq 0 ]]; then
    exit 0
fi
echo "shared-state: installing ${missing[*]}"
apt-get update -qq
# The package's own service is not used: with no init system it may fail to start, which
# must not fail the install.
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
    || { command -v redis-server >/dev/null && command -v openssl >/dev/null; }
