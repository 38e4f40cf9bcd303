#!/usr/bin/env bash
# Installs Debian's redis-server when it is missing (needs root and the Debian mirror); the
# tests start their own servers on free ports (never the system service), and stop them by PID.
#
#   bash tests/shared_state/install-redis.sh
set -euo pipefail
if command -v redis-server >/dev/null 2>&1 || [[ -x /usr/bin/redis-server ]]; then
    exit 0
fi
echo "shared-state: installing redis-server"
apt-get update -qq
# The package's own service is not used: with no init system it may fail to start, which
# must not fail the install.
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-server >/dev/null \
    || command -v redis-server >/dev/null
