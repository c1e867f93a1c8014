#!/usr/bin/env bash
# Checks that URLs written by published imgproxy URL builders from PyPI work against
# `webimage serve`, signed and unsigned: the `imgproxy` package (klen/imgproxy) and
# `pyimgproxy`. It starts the proxy binary (one instance with a key and salt, one without)
# against a local origin on 127.0.0.1 serving a positional test image, builds URLs with a
# handful of options through each builder, and checks every response's status, size and
# where the image's pixels landed.
#
# Not part of `make test`: it needs pip and the network to install the builders.
# Run it from the repository root:
#
#     Tests/imgproxy-builder/check.sh
#
# It creates a virtualenv (in $IMGPROXY_BUILDER_VENV, default a temporary directory),
# installs the builders into it, builds the `webimage` binary with `swift build` (run
# `make build` once first so libvips is installed) and runs check.py. Exit status 0 when
# every check passes.
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"

venv="${IMGPROXY_BUILDER_VENV:-$(mktemp -d -t imgproxy-builder-XXXXXX)}"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check imgproxy pyimgproxy

if [ -f .build-pkgconfig/vips.pc ]; then
    export PKG_CONFIG_PATH="$root/.build-pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
fi
log="$(mktemp -t imgproxy-builder-build-XXXXXX)"
if ! swift build --product webimage >"$log" 2>&1; then
    cat "$log"
    exit 1
fi
rm -f "$log"
binary="$(swift build --show-bin-path)/webimage"

exec "$venv/bin/python" "$root/Tests/imgproxy-builder/check.py" "$binary"
