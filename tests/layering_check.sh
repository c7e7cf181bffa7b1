#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The library's layers, checked on its object files: every global symbol a
# file uses (nm: undefined in it) and another file of the library defines
# must be defined in a file of the same layer or of one below. The objects
# of a domain have a level each, so their calls form no circle. The MCAPI
# runtime (src/runtime/) and the MRAPI runtime (src/mrapi/) stand side by
# side on the layers below them: neither uses the other. A use that goes up,
# or across from one runtime to the other, fails the test with the file, the
# symbol and both layers.
#
#   layering_check.sh NM OBJECT_LIST
#
# NM is the nm program; OBJECT_LIST a file naming the library's object files
# one a line (tests/layering.cmake writes it from $<TARGET_OBJECTS:mca_objects>).
# docs/design.md explains the layers; the table below is the one to
# change when a file is added or moves.
set -euo pipefail
nm_prog="$1"
list="$2"

# The layers, lowest first. A file in no layer fails the test: a new file
# gets its place here.
layer_of() {
  case "$1" in
    ports/*) echo "0 ports" ;;
    src/hpc/*) echo "1 hpc" ;;
    src/sync/*) echo "2 sync" ;;
    src/transport/*) echo "3 transport" ;;
    # the MRAPI runtime: its partition, nodes, object tables, requests,
    # resources; beside the MCAPI runtime's layers (side_of)
    src/mrapi/*) echo "4 mrapi" ;;
    # the partition mapping, the admin lock, self, liveness, waiting, notify
    src/runtime/domain.c) echo "4 domain" ;;
    # the objects of a domain, one level a file: each uses only those below it
    src/runtime/endpoint.c) echo "5 objects.endpoint" ;;           # the table, create, resolve
    src/runtime/state.c) echo "6 objects.state" ;;                 # state channels
    src/runtime/msg_pmq.c) echo "7 objects.msg_pmq" ;;             # messages over pmq
    src/runtime/receipt.c) echo "8 objects.receipt" ;;             # delivery receipts
    src/runtime/msg_cache.c) echo "9 objects.msg_cache" ;;         # the message fast path's endpoint cache
    src/runtime/msg.c) echo "9 objects.msg" ;;                     # messages
    src/runtime/msg_sem.c) echo "10 objects.msg_sem" ;;            # receive with a semaphore
    # packet and scalar channels (runtime/chan.h), a sub-level a file
    src/runtime/chan_buf.c) echo "11.1 objects.chan_buf" ;;        # pool buffers of packets
    src/runtime/chan_pmq.c) echo "11.2 objects.chan_pmq" ;;        # data steps over pmq
    src/runtime/chan_conn.c) echo "11.3 objects.chan_conn" ;;      # connect, open, close, checks
    src/runtime/chan_wait.c) echo "11.4 objects.chan_wait" ;;      # a blocking data call's wait
    src/runtime/chan_scl.c) echo "11.5 objects.chan_scl" ;;        # scalars
    src/runtime/chan_pkt.c) echo "11.6 objects.chan_pkt" ;;        # packets
    src/runtime/chan_sem.c) echo "11.7 objects.chan_sem" ;;        # receive with a semaphore
    src/runtime/request.c) echo "12 objects.request" ;;            # requests over all of them
    src/runtime/endpoint_ctl.c) echo "13 objects.endpoint_ctl" ;;  # delete, attributes, re-size
    src/runtime/adopt.c) echo "13.5 objects.adopt" ;;            # endpoints kept through a death, adopted
    # crash recovery: the dead-node sweep over all of them
    src/runtime/recovery.c) echo "14 recovery" ;;
    # node init and finalize, the partition's layout
    src/runtime/node.c) echo "15 node" ;;
    src/api/*) echo "16 api" ;;
    *) echo "" ;;
  esac
}

# The runtime a file belongs to: a file of one runtime uses nothing of the
# other; the layers below both and the api above both have none ("-").
side_of() {
  case "$1" in
    src/runtime/*) echo "mcapi" ;;
    src/mrapi/*) echo "mrapi" ;;
    *) echo "-" ;;
  esac
}

# The source file of an object: the path under <target>.dir/, without the
# object's suffix (CMake names them <source>.o or <source>.obj).
source_of() {
  local p="${1//\\//}"
  p="${p##*/mca_objects.dir/}"
  while [ "${p#./}" != "$p" ]; do p="${p#./}"; done
  p="${p%.o}"
  p="${p%.obj}"
  echo "$p"
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: >"$tmp/syms"
: >"$tmp/layers"
nobj=0 bad=0
while IFS= read -r obj || [ -n "$obj" ]; do
  [ -n "$obj" ] || continue
  src=$(source_of "$obj")
  lay=$(layer_of "$src")
  if [ -z "$lay" ]; then
    echo "layering: $src is in no layer; give it one in tests/layering_check.sh (layer_of)"
    bad=1
    continue
  fi
  echo "$src $lay $(side_of "$src")" >>"$tmp/layers"
  # POSIX format: "name type [value size]"; U, w, v: undefined (used here).
  "$nm_prog" -P -g "$obj" | awk -v f="$src" 'NF >= 2 { print f, $1, $2 }' >>"$tmp/syms"
  nobj=$((nobj + 1))
done <"$list"
if [ "$nobj" -lt 10 ]; then
  echo "layering: only $nobj object files in $list; expected the library's"
  exit 1
fi

awk '
  FNR == NR { layer[$1] = $2; lname[$1] = $3; side[$1] = $4; next }
  $3 == "U" || $3 == "w" || $3 == "v" { n++; user[n] = $1; sym[n] = $2; next }
  { if (!($2 in def)) def[$2] = $1; ndef++ }
  END {
    if (ndef < 100) { print "layering: only " ndef " defined symbols: nm read nothing useful"; exit 1 }
    bad = 0
    for (i = 1; i <= n; i++) {
      s = sym[i]; u = user[i]
      if (!(s in def) || def[s] == u) continue
      d = def[s]
      if (layer[d] > layer[u]) {
        printf "layering: %s (layer %s) uses %s of %s (layer %s, higher): a call up\n", \
               u, lname[u], s, d, lname[d]
        bad = 1
      } else if (side[u] != "-" && side[d] != "-" && side[u] != side[d]) {
        printf "layering: %s (%s runtime) uses %s of %s (%s runtime): a call across\n", \
               u, side[u], s, d, side[d]
        bad = 1
      }
    }
    exit bad
  }' "$tmp/layers" "$tmp/syms" || bad=1

if [ "$bad" -ne 0 ]; then
  echo "layering: the layers, lowest first: ports < hpc < sync < transport <" \
    "{ MCAPI runtime: domain < objects (endpoint < state < msg_pmq < receipt < msg_cache, msg <" \
    "msg_sem < chan_buf < chan_pmq < chan_conn < chan_wait < chan_scl < chan_pkt < chan_sem <" \
    "request < endpoint_ctl) < recovery < node | MRAPI runtime: mrapi } < api;" \
    "neither runtime uses the other."
  echo "layering: a lower layer reaches a higher one through a registered table" \
    "(mcx__upcalls_t in src/runtime/runtime.h), not by name; see docs/design.md."
  exit 1
fi
echo "layering: $nobj object files, no call goes up"
