#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Installs libmca into a scratch prefix and builds a consumer with
# find_package(mca) and with pkg-config; both must link and run.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=$(mktemp -d)
work=$(mktemp -d)
trap 'rm -rf "$prefix" "$work"' EXIT
cmake --install build/default --prefix "$prefix" >/dev/null
cat > "$work/main.c" <<'C'
#include <mcapi.h>
#include <stdio.h>
int main(void) {
  mcapi_status_t st; mcapi_info_t info; size_t n; char buf[8];
  mcapi_initialize(1, 1, NULL, NULL, &info, &st);
  if (st != MCAPI_SUCCESS) return 1;
  mcapi_endpoint_t e = mcapi_endpoint_create(1, &st);
  mcapi_msg_send(e, e, "ping", 5, 0, &st);
  mcapi_msg_recv(e, buf, sizeof buf, &n, &st);
  mcapi_finalize(&st);
  puts(buf);
  return st == MCAPI_SUCCESS && n == 5 ? 0 : 1;
}
C
cat > "$work/CMakeLists.txt" <<'C'
cmake_minimum_required(VERSION 3.25)
project(consumer C)
find_package(mca REQUIRED)
add_executable(consumer main.c)
target_link_libraries(consumer PRIVATE mca::mca_static)
C
cmake -S "$work" -B "$work/build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/build" >/dev/null
"$work/build/consumer"
# libmca.a holds plain objects: a user's static link is a plain link, not a
# link-time optimization of the library (CMakeLists.txt, MCX_LTO).
if objdump -h "$prefix/lib/libmca.a" | grep -q '\.gnu\.lto_'; then
  echo "check-install: the installed libmca.a carries LTO bytecode" >&2
  exit 1
fi
t0=$(date +%s%N)
cc "$work/main.c" -o "$work/static" -static-libgcc \
  $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags mca) "$prefix/lib/libmca.a" \
  $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --libs-only-other --libs-only-l --static mca | sed 's/-lmca\b//')
echo "check-install: a static link of a small program took $((($(date +%s%N) - t0) / 1000000)) ms"
"$work/static" >/dev/null
PKG_CONFIG_PATH="$prefix/lib/pkgconfig" cc "$work/main.c" -o "$work/pc" \
  $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs --static mca)
LD_LIBRARY_PATH="$prefix/lib" "$work/pc"
# mca hint: the installed tool finds its parser in libexec/mca (needs libclang's binding)
if [ -f /usr/lib/python3/dist-packages/clang/cindex.py ]; then
  test -x "$prefix/libexec/mca/hint.py" && test ! -e "$prefix/bin/mca-hint.py"
  printf '#include <mcx_sem.h>\nmcx_event_t e; mcx_pisem_t s;\nvoid f(void) {\n  mcx_event_wait(&e, MCX_SEM_INFINITE);\n  mcx_pisem_lock(&s, MCX_SEM_INFINITE);\n}\n' > "$work/h.c"
  (cd "$work" && "$prefix/bin/mca" hint h.c -- -I"$prefix/include") | grep "h.c:4: .*hint: mcx_event_wait_then_lock" >/dev/null
fi
echo "install check: ok"
