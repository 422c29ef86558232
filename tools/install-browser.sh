#!/usr/bin/env bash
# Chromium and its driver for the browser tests, from Debian's packages (no browser downloads).
set -euo pipefail
if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then exit 0; fi
if [ "$(id -u)" -ne 0 ]; then echo "browser tests need chromium and chromium-driver (run as root to install)"; exit 0; fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq chromium chromium-driver >/dev/null
