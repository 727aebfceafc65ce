#!/usr/bin/env bash
# Sets up a fresh machine for russet, idempotently: the Debian packages
# (Linux), the virtual environment .venv and the Python dependencies.
# The build itself is `make build` (the Makefile calls this first).
set -euo pipefail
cd "$(dirname "$0")/.."
# never autoload the (possibly half-built) russet while setting up
export TORCH_DEVICE_BACKEND_AUTOLOAD=0

TORCH_PIN="${RUSSET_TORCH_PIN:-torch==2.13.0}"
DEB_PACKAGES=(libvulkan-dev mesa-vulkan-drivers libshaderc-dev spirv-tools ccache pkg-config g++ make)

if command -v apt-get >/dev/null 2>&1; then
    missing=()
    for p in "${DEB_PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    if ((${#missing[@]})); then
        echo "setup: installing Debian packages: ${missing[*]}"
        SUDO=""
        [ "$(id -u)" = 0 ] || SUDO="sudo"
        $SUDO apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
elif [ "$(uname)" = "Darwin" ]; then
    for f in molten-vk vulkan-loader shaderc; do
        brew list "$f" >/dev/null 2>&1 || { echo "setup: run 'brew install molten-vk vulkan-loader shaderc' first" >&2; exit 1; }
    done
fi

if [ ! -x .venv/bin/python ]; then
    echo "setup: creating .venv"
    python3 -m venv .venv
fi
PY=.venv/bin/python
if ! $PY -c 'import torch, sys; v = tuple(int(x) for x in torch.__version__.split("+")[0].split(".")[:2]); sys.exit(v < (2, 11))' 2>/dev/null; then
    echo "setup: installing $TORCH_PIN"
    $PY -m pip install -q "$TORCH_PIN"
fi
if ! $PY -c 'import numpy, pytest, expecttest' 2>/dev/null; then
    echo "setup: installing numpy, pytest, expecttest"
    $PY -m pip install -q numpy pytest expecttest
fi
if ! $PY -c 'import importlib.metadata as m; m.distribution("russet")' 2>/dev/null; then
    echo "setup: installing russet (editable) into .venv"
    $PY -m pip install -q --no-build-isolation --no-deps -e .
fi
