#!/usr/bin/env bash
# Installs the Debian packages named as arguments that are missing, non-interactively (through
# `sudo -n` when not root); does nothing when all are present. Used by the scripts that need system
# packages (the thumbv7em build, the QEMU runs).
#
#   bash .ci/apt-install.sh PACKAGE...
set -euo pipefail
missing=()
for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
    echo "installing: ${missing[*]}"
    SUDO=()
    if [ "$(id -u)" != 0 ]; then SUDO=(sudo -n); fi
    export DEBIAN_FRONTEND=noninteractive
    "${SUDO[@]}" apt-get update -qq
    "${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
