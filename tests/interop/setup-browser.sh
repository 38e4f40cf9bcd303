#!/usr/bin/env bash
# Installs the browser the MCP Apps test (tests/interop/browser, run by tests/interop.rs) drives:
# Debian's `chromium`, when it is missing. playwright-core (from package-lock.json) drives that
# binary; no browser is downloaded from anywhere else. Needs root and the Debian mirror the
# first time; quick when chromium is already there. Called by setup.sh.
set -euo pipefail

if command -v chromium >/dev/null 2>&1 || [[ -x /usr/bin/chromium ]]; then
    echo "interop setup: chromium is installed ($(chromium --version 2>/dev/null || echo /usr/bin/chromium))"
    exit 0
fi
if [[ "$(id -u)" != 0 ]]; then
    echo "interop setup: chromium is missing and installing it needs root: apt-get install chromium" >&2
    exit 1
fi
echo "interop setup: installing Debian's chromium"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium >/dev/null
echo "interop setup: chromium installed ($(chromium --version))"
