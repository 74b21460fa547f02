#!/usr/bin/env bash
# Installs the system packages the project needs and Python cannot bring:
# Debian's chromium, which kaleido drives to render figures to PNG and PDF;
# fonts-wqy-zenhei, the font the PDF report (and Chromium's figures) draw Chinese,
# Japanese and Korean text with (DejaVu Sans, embedded for the rest, has none);
# fonts-symbola, the PDF report's font for emoji and the symbols neither has;
# gcc (with libc6-dev, and python3-dev where the Python has no headers), which the
# package's build uses to compile the engine's hot modules with mypyc (setup.py; without
# it they install as plain Python, slower).
# Idempotent: installs only what is missing.
set -euo pipefail
CJK_FONT=/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc
EMOJI_FONT=/usr/share/fonts/truetype/ancient-scripts/Symbola_hint.ttf
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
[ -f "$CJK_FONT" ] || missing+=(fonts-wqy-zenhei)
[ -f "$EMOJI_FONT" ] || missing+=(fonts-symbola)
command -v gcc >/dev/null 2>&1 || missing+=(gcc)
[ -f /usr/include/stdio.h ] || missing+=(libc6-dev)
# the headers of the Python the build runs under (a Debian python3 needs python3-dev)
python3 -c 'import os, sys, sysconfig; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' \
  || missing+=(python3-dev)
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
command -v chromium
test -f "$CJK_FONT"
test -f "$EMOJI_FONT"
command -v gcc
