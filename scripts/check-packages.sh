#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Installs the packages of scripts/package.sh with apt (as root, on this
# machine), checks what an adopting team would do first, and removes them:
#  - mca --version, the man page, mca stress on an installed topology,
#  - a program built with pkg-config and one with find_package(mca),
#  - dpkg's file lists: helpers in libexec/mca, nothing of model_opcount in bin/.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "check-packages: needs root (apt install)"; exit 1; }
debs=(build/package/*.deb)
[ -e "${debs[0]}" ] || { echo "check-packages: no packages; run scripts/package.sh"; exit 1; }
# An install interrupted earlier (a run killed mid-way) leaves dpkg refusing
# every install until it is finished.
DEBIAN_FRONTEND=noninteractive dpkg --configure -a >/dev/null 2>&1 || true
work=$(mktemp -d)
cleanup() {
  DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq mca-tools libmca-dev 'libmca[0-9]*' >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
for d in "${debs[@]}"; do dpkg-deb --info "$d" | grep -E "^ (Package|Version|Depends):" | tr '\n' ' '; echo; done
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${debs[@]/#/./}" >/dev/null
mca --version
dpkg -L mca-tools | grep '^/usr/libexec/mca/report.py$' >/dev/null
dpkg -L mca-tools | grep '^/usr/libexec/mca/hint.py$' >/dev/null
dpkg -L mca-tools | grep '^/usr/libexec/mca/model_opcount$' >/dev/null
! dpkg -L mca-tools | grep '^/usr/bin/model_opcount' >/dev/null
dpkg -L mca-tools | grep '^/usr/share/mca/topologies/ring.json$' >/dev/null
[ -x /usr/libexec/mca/report.py ]
mca stress --help | grep '/usr/share/mca/topologies' >/dev/null
MCX_NAMESPACE="pkg$$" mca stress --count 500 /usr/share/mca/topologies/ring.json
if command -v help2man >/dev/null; then # the build made man pages: they are packaged
  dpkg -L mca-tools | grep '/usr/share/man/man1/mca.1' >/dev/null && dpkg -L mca-tools | grep '/usr/share/man/man1/mca-stress.1' >/dev/null
fi
cat > "$work/main.c" <<'C'
#include <mcapi.h>
#include <mcx.h>
#include <stdio.h>
int main(void) {
  mcapi_status_t st; mcapi_info_t info; size_t n; char buf[8];
  mcapi_initialize(1, 1, NULL, NULL, &info, &st);
  if (st != MCAPI_SUCCESS) return 1;
  mcapi_endpoint_t e = mcapi_endpoint_create(1, &st);
  mcapi_msg_send(e, e, "ping", 5, 0, &st);
  mcapi_msg_recv(e, buf, sizeof buf, &n, &st);
  mcapi_finalize(&st);
  printf("%s, libmca %s\n", buf, mcx_version());
  return st == MCAPI_SUCCESS && n == 5 ? 0 : 1;
}
C
# shellcheck disable=SC2046
gcc -std=c11 "$work/main.c" -o "$work/pc" $(pkg-config --cflags --libs mca)
MCX_NAMESPACE="pkg$$" "$work/pc"
cat > "$work/CMakeLists.txt" <<'C'
cmake_minimum_required(VERSION 3.25)
project(consumer C)
find_package(mca 0.1 REQUIRED)
add_executable(consumer main.c)
target_link_libraries(consumer PRIVATE mca::mca)
C
cmake -S "$work" -B "$work/build" -G Ninja >/dev/null
cmake --build "$work/build" >/dev/null
MCX_NAMESPACE="pkg$$" "$work/build/consumer"
echo "packages: ok"
