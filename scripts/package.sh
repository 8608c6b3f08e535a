#!/usr/bin/env bash
# Builds Tempest (scripts/build.sh) and its Debian package: build/tempest_<version>_<arch>.deb,
# with the `tempest` command, libtempest, the public headers and the CMake package under /usr.
# Install it with: sudo apt-get install ./build/tempest_*.deb
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/build.sh" release --target tempest_cli tempest
cd "$root/build"
cpack -G DEB > /dev/null
ls "$root"/build/tempest_*.deb
