#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Builds OpenMCAPI's functional tests (its test/func front end and back end,
# with its support_suite and mgmt_svc) against an installed libmca's MCAPI
# 1.0 layer, with libmca's shim for their OS layer
# (tests/mcapi1/openmcapi_os_shim.c, tests/mcapi1/openmcapi_shim/openmcapi.h),
# runs them as OpenMCAPI does (back end node 1, front end node 0, each
# process one node: MCX_NODE_SCOPE=process) and prints a table per test
# group (fts_mcapi_*.c). Downloads nothing: the OpenMCAPI sources are the
# user's. docs/compat.md, "OpenMCAPI's functional tests", says what to
# expect.
#
#   scripts/openmcapi-check.sh [--prefix DIR] [--work DIR] [--timeout S] [--skip IDS] OPENMCAPI_TEST_DIR
#
# OPENMCAPI_TEST_DIR  an OpenMCAPI checkout's test/ folder (func/, support_suite/, mgmt_svc.c)
# --prefix DIR        where libmca is installed (include/, lib/); default: pkg-config's mca
# --work DIR          build and log directory (default: a new one under /tmp, kept)
# --timeout S         seconds the front end may run in all (default 3600)
# --skip IDS          comma-separated test ids left out of the front end's table
#                     (default: $default_skip, below; --skip none runs all)
#
# Exit status: 0 when every test that ran passed, 1 when one failed or the
# front end did not finish, 2 on a usage or build error.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
# Tests that stop the rest of the run on libmca, left out unless --skip says
# otherwise (docs/compat.md, "OpenMCAPI's functional tests", has the why):
# 2.9.3 2.10.3 2.18.3 count on OpenMCAPI's shared pool of 128 buffers being
#   exhausted so that a 512-byte message to the back end's management
#   service fails; on libmca it is delivered, the service's receive of 24
#   bytes fails with MCAPI_ERR_MSG_TRUNCATED and its thread ends, so every
#   later test that uses it waits for ever;
# 2.11.2 receives a message into a 1-byte buffer and then again, blocking,
#   into a large one: OpenMCAPI keeps a truncated message queued, libmca
#   delivers it truncated (as MCAPI 1.0's reference implementation), so the
#   second receive waits for ever.
default_skip=2.9.3,2.10.3,2.11.2,2.18.3
shim="$here/tests/mcapi1"
prefix="" work="" limit=3600 skip=$default_skip
while [ $# -gt 1 ]; do
  case "$1" in
  --prefix) prefix="$2"; shift 2 ;;
  --work) work="$2"; shift 2 ;;
  --timeout) limit="$2"; shift 2 ;;
  --skip) skip="$2"; shift 2 ;;
  *) echo "openmcapi-check: unknown option $1" >&2; exit 2 ;;
  esac
done
[ $# -eq 1 ] || { sed -n '12,19p' "$0" >&2; exit 2; }
[ "$skip" = none ] && skip=""

src=$(cd "$1" && pwd)
for f in func/frontend.c func/backend.c func/fts_defs.h mgmt_svc.c support_suite/create_svc.c \
  support_suite/destroy_svc.c support_suite/reg_svcs.c support_suite/mcapid_support.h \
  support_suite/linux/mcapid.h; do
  [ -f "$src/$f" ] || {
    echo "openmcapi-check: $src/$f is missing (not an OpenMCAPI test/ folder?)" >&2
    exit 2
  }
done
if [ -n "$prefix" ]; then
  cflags="-I$prefix/include"
  libdir="$prefix/lib"
  # Debian's multiarch libdir (lib/x86_64-linux-gnu) when lib/ has none.
  [ -f "$libdir/libmca.so" ] || [ -f "$libdir/libmca.a" ] ||
    libdir=$(dirname "$(ls "$prefix"/lib*/*/libmca.* 2>/dev/null | head -1)")
  libs="-L$libdir -Wl,-rpath,$libdir -lmca"
else
  cflags=$(pkg-config --cflags mca)
  libs="$(pkg-config --libs mca) -Wl,-rpath,$(pkg-config --variable=libdir mca)"
fi
work=${work:-$(mktemp -d /tmp/openmcapi-check.XXXXXX)}
mkdir -p "$work"
cc=${CC:-cc}
# Their sources include <mcapi.h> for the 1.0 API and <openmcapi.h> for
# the OS layer: MCX_API_1_0 selects libmca's 1.0 names, the shim's
# openmcapi.h is included first in every file. Their code predates -Wall
# cleanliness on 64-bit hosts (pointer-int casts): warnings are not errors.
common=(-std=gnu11 -O2 -g -w -D_GNU_SOURCE -DMCX_API_1_0 -include openmcapi.h
  -I"$shim/openmcapi_shim" -I"$src/func" -I"$src" -I"$src/support_suite"
  -I"$src/support_suite/linux" $cflags)
support=("$src/mgmt_svc.c" "$src/support_suite/create_svc.c" "$src/support_suite/destroy_svc.c"
  "$src/support_suite/reg_svcs.c")
echo "openmcapi-check: building in $work"
# The suite counts on TEST_BUF_COUNT buffers at a receiver ("MUST match the
# number of buffers used in the transport"): libmca's are
# MCAPI_MAX_QUEUE_ELEMENTS per receiving endpoint and priority, a build
# setting (cmake -DMCAPI_MAX_QUEUE_ELEMENTS=128).
want=$(sed -n 's/^#define[ \t]*TEST_BUF_COUNT[ \t]*\([0-9]*\).*/\1/p' "$src/func/fts_defs.h")
have=$(echo '#include <mca_config.h>
MCAPI_MAX_QUEUE_ELEMENTS' | "$cc" -E -P $cflags - 2>/dev/null | tail -1 | tr -d ' ')
if [ -n "$want" ] && [ "$want" != "$have" ]; then
  echo "openmcapi-check: the suite's TEST_BUF_COUNT is $want, this libmca's MCAPI_MAX_QUEUE_ELEMENTS" \
    "$have: build it with -DMCAPI_MAX_QUEUE_ELEMENTS=$want for the tests that fill a receiver"
fi
# The front end's table without the skipped tests (a copy; their file is
# not changed).
cp "$src/func/frontend.c" "$work/frontend.c"
for t in ${skip//,/ }; do
  sed -i "/\"${t//./\\.}\", *MCAPI_FTS_Tx_/d" "$work/frontend.c"
done
# shellcheck disable=SC2086
if ! "$cc" "${common[@]}" -o "$work/func_frontend" "$work/frontend.c" "$src"/func/fts_mcapi_*.c \
  "${support[@]}" "$shim/openmcapi_os_shim.c" $libs -lpthread -lrt >"$work/build.log" 2>&1 ||
  ! "$cc" "${common[@]}" -DOMCAPI_SHIM_IDLE_MAIN -o "$work/func_backend" "$src/func/backend.c" \
    "${support[@]}" "$shim/openmcapi_os_shim.c" $libs -lpthread -lrt >>"$work/build.log" 2>&1; then
  cat "$work/build.log" >&2
  echo "openmcapi-check: the build failed (log: $work/build.log)" >&2
  exit 2
fi

export MCX_NODE_SCOPE=process
export MCX_NAMESPACE=${MCX_NAMESPACE:-omcapi$$}
stdbuf -oL "$work/func_backend" >"$work/backend.log" 2>&1 &
backend=$!
frontend=""
trap 'kill $frontend "$backend" 2>/dev/null; wait 2>/dev/null || true' EXIT
rc=0
timeout "$limit" stdbuf -oL "$work/func_frontend" >"$work/frontend.log" 2>&1 &
frontend=$!
wait "$frontend" || rc=$?
frontend=""

# The table: a test passed when the front end printed no complaint between
# the previous test's "complete" line and its own. A test group is the file
# that defines its functions.
awk -v srcdir="$src/func" -v rc="$rc" -v skip="$skip" '
  function group_file(g,   cmd, f) {
    if (g in gfile) return gfile[g]
    cmd = "grep -l \"^MCAPI_THREAD_ENTRY(MCAPI_FTS_Tx_" g "_\" " srcdir "/fts_mcapi_*.c" \
      " 2>/dev/null | head -1"
    f = ""; cmd | getline f; close(cmd)
    sub(/.*\//, "", f); sub(/\.c$/, "", f)
    gfile[g] = f == "" ? "?" : f
    return gfile[g]
  }
  /status: expected|assertion failed|timeout at|error creating|error deleting|tried to|mcapi_initialize\(\) failed/ {
    why = why (why == "" ? "" : "; ") $0; next
  }
  /^MCAPI Functional Test .* complete/ {
    t = $4; split(t, p, "."); g = p[1] "_" p[2]
    if (!(g in seen)) { seen[g] = 1; order[++ng] = g }
    run[g]++
    if (why != "") { failed[g] = failed[g] " " t; reason[g] = reason[g] "\n    " t ": " why; nfail++ }
    why = ""; last = t; next
  }
  /MCAPI Functional Tests Complete/ { done = 1 }
  END {
    if (skip != "") printf "skipped: %s\n", skip
    printf "%-40s %5s %5s %5s  %s\n", "group", "run", "pass", "fail", "failed tests"
    for (i = 1; i <= ng; i++) {
      g = order[i]; n = split(failed[g], x, " ")
      printf "%-40s %5d %5d %5d %s\n", group_file(g) " (2." substr(g, 3) ")", run[g], run[g] - n, n, failed[g]
    }
    for (i = 1; i <= ng; i++) if (reason[order[i]] != "") printf "%s:%s\n", group_file(order[i]), reason[order[i]]
    if (!done) {
      printf "the front end did not finish (exit %d) after test %s%s\n", rc, last == "" ? "(none)" : last,
        why == "" ? "" : "; then: " why
      exit 1
    }
    exit nfail ? 1 : 0
  }' "$work/frontend.log" || rc=1
echo "openmcapi-check: logs in $work (frontend.log, backend.log)"
exit $rc
