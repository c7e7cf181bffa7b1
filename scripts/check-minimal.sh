#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The build an embedded team starts from: the library alone (no tools, tests,
# examples, performance counters or message queues), with a C compiler only,
# installed the Debian multiarch way (libdir lib/<triple>). Checks that
#  - it configures and builds without a C++ compiler,
#  - pkg-config gives -I<prefix>/include and links a program that runs,
#  - the pmq transport is refused (MCA_WITH_PMQ=OFF) and shm works,
#  - no path of the source or build tree is in the installed shared library,
#    headers, pkg-config or CMake files (reproducible builds).
set -euo pipefail
cd "$(dirname "$0")/.."
top=$(mktemp -d /tmp/mca-minimal.XXXXXX)
trap 'rm -rf "$top"' EXIT
src="$top/src-tree-$RANDOM" bld="$top/build-tree-$RANDOM" prefix="$top/prefix"
mkdir -p "$src"
tar --exclude=./build --exclude=./.git --exclude=./out -cf - . | tar -xf - -C "$src"
triple=$(gcc -dumpmachine | sed 's/-pc-/-/')
CXX=/nonexistent/c++ cmake -S "$src" -B "$bld" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DMCA_BUILD_TOOLS=OFF -DMCA_BUILD_EXAMPLES=OFF -DMCA_WITH_HPC=OFF -DMCA_WITH_PMQ=OFF \
  -DCMAKE_INSTALL_LIBDIR="lib/$triple" >"$top/configure.log" || { cat "$top/configure.log"; exit 1; }
if grep -q "CMAKE_CXX_COMPILER:" "$bld/CMakeCache.txt" && grep -q "^CMAKE_CXX_COMPILER:.*=/" "$bld/CMakeCache.txt"; then
  echo "minimal: the library-only build looked for a C++ compiler"; exit 1
fi
cmake --build "$bld" -j2 >"$top/build.log" || { cat "$top/build.log"; exit 1; }
cmake --install "$bld" --prefix "$prefix" >/dev/null
pcdir="$prefix/lib/$triple/pkgconfig"
cflags=$(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags mca | tr -d " ")
[ "$(realpath -m "${cflags#-I}")" = "$(realpath "$prefix/include")" ] ||
  { echo "minimal: pkg-config --cflags gives '$cflags', want -I$prefix/include"; exit 1; }
cat > "$top/main.c" <<'C'
#include <mcapi.h>
#include <mcx.h>
#include <stdio.h>
#include <string.h>
int main(void) {
  mcapi_status_t st; mcapi_info_t info; size_t n; char buf[8];
  mcapi_param_t p; mcx_param_init(&p); p.transport = MCX_TRANSPORT_PMQ;
  mcapi_initialize(2, 1, NULL, &p, &info, &st);
  if (st == MCAPI_SUCCESS) { puts("pmq accepted in a build without it"); return 1; }
  mcapi_initialize(1, 1, NULL, NULL, &info, &st);
  if (st != MCAPI_SUCCESS) return 1;
  mcapi_endpoint_t e = mcapi_endpoint_create(1, &st);
  mcapi_msg_send(e, e, "ping", 5, 0, &st);
  mcapi_msg_recv(e, buf, sizeof buf, &n, &st);
  mcapi_finalize(&st);
  printf("%s from libmca %s\n", buf, mcx_version());
  return st == MCAPI_SUCCESS && n == 5 && !strcmp(buf, "ping") ? 0 : 1;
}
C
# shellcheck disable=SC2046
gcc -std=c11 "$top/main.c" -o "$top/consumer" $(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs mca)
ns="minimal$$"
MCX_NAMESPACE="$ns" LD_LIBRARY_PATH="$prefix/lib/$triple" "$top/consumer"
rm -f /dev/shm/mcx-*-"$ns"-d*  # the refused pmq domain leaves its partition
leaks=$(find "$prefix" -type f ! -name '*.a' -print0 | xargs -0 grep -l -a -e "$src" -e "$bld" || true)
if [ -n "$leaks" ]; then echo "minimal: build paths in installed files: $leaks"; exit 1; fi
echo "minimal library-only build: ok ($(find "$prefix" -type f | wc -l) files installed, libdir lib/$triple)"
