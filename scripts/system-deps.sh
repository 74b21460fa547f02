#!/usr/bin/env bash
# Installs the system packages the project needs and Python cannot bring:
# Debian's chromium, which kaleido drives to render figures to PNG and PDF.
# Idempotent: does nothing when chromium is already there.
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq chromium >/dev/null
command -v chromium
