#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Builds the Debian packages libmca<N>, libmca-dev and mca-tools (cpack) into
# build/package/, installed layout /usr with the multiarch library directory.
# Usage: scripts/package.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bld=build/package
cmake -S . -B "$bld" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr \
  -DMCA_BUILD_TESTS=OFF >/dev/null
cmake --build "$bld" -j2
rm -f "$bld"/*.deb
(cd "$bld" && cpack -G DEB >/dev/null)
ls -1 "$bld"/*.deb
