#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# `mca domains` shows a crashed run's partition with its dead node, queued
# message and message counters; `mca domains --clean` removes it. With
# libmca.so (LIBMCA, not in sanitizer builds): a receiver killed while asleep
# in mcapi_msg_recv is shown dead and no longer waiting.
# usage: domains_check.sh MCA LEAVER [LIBMCA]
set -euo pipefail
mca="$1"; leaver="$2"; libmca="${3:-}"
export MCX_NAMESPACE="domains_check_$$"
# MCX_TEST_TIMEOUT_SCALE (> 0, fractional allowed), default 1: the factor on every ceiling.
ceiling=$(awk -v s="${MCX_TEST_TIMEOUT_SCALE:-1}" 'BEGIN { s += 0; if (s <= 0) s = 1; print int(30 * s + 0.5) }')
# What a killed earlier run left (its pid is gone), then ours at exit.
for f in /dev/shm/mcx-*-domains_check_* /dev/mqueue/mcx-*-domains_check_*; do
  [ -e "$f" ] || continue
  p=${f##*-domains_check_}; p=${p%%-*}
  kill -0 "$p" 2>/dev/null || rm -f "$f"
done
release="${TMPDIR:-/tmp}/domains_check_$$.release"
trap 'rm -f /dev/shm/mcx-*-"$MCX_NAMESPACE"-* /dev/mqueue/mcx-*-"$MCX_NAMESPACE"-* "$release" "$release.mapped"' EXIT
obj="/dev/shm/mcx-$(id -u)-${MCX_NAMESPACE}-d40"
rm -f "$obj"
cap=$("$leaver" --leave-stale 40)
test -e "$obj" || { echo "no partition left behind"; exit 1; }
out=$("$mca" domains --namespace "$MCX_NAMESPACE")
echo "$out"
grep -q "${MCX_NAMESPACE}-d40: domain 40" <<<"$out"
grep -q "0 node(s) alive, 1 dead" <<<"$out"
grep -q "DEAD" <<<"$out"
grep -q "port 5: 1 queued" <<<"$out"
# the same as JSON: the envelope, the dead node, the queued message, the channel state
"$mca" domains --namespace "$MCX_NAMESPACE" --json - | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["schema"] == "mca-domains/1" and d["command"].startswith("mca domains") and d["machine"]["cpus"] >= 1, d
p = [x for x in d["partitions"] if x["name"].endswith("-d40")][0]
assert p["domain"] == 40 and p["nodes_alive"] == 0 and p["nodes_dead"] == 1, p
assert p["nodes"][0]["alive"] is False and p["nodes"][0]["pid"] > 0, p
e = p["endpoints"][0]
assert e["port"] == 5 and e["queued"] == 1 and e["channel"] == "message endpoint" and e["waiting_receivers"] == 0, e
assert e["sent"] == 1 and e["received"] == 0 and e["dropped"] == 0 and e["high_water"] == 1, e
# port 6: sends until the first refusal of a full queue (its capacity, cap), then
# 40 received, 40 sent, 40 received
c = [x for x in p["endpoints"] if x["port"] == 6][0]
cap = int(sys.argv[1])
assert c["sent"] == cap + 40 and c["received"] == 80 and c["dropped"] == 1 and c["queued"] == cap - 40, (c, cap)
# the depth is sampled at the 64th receive: cap + 40 - 64 left, with the one being taken
assert c["high_water"] == cap - 23, (c, cap)
# port 7: one 300-byte message queued, so one message pool buffer in use
g = [x for x in p["endpoints"] if x["port"] == 7][0]
assert g["queued"] == 1, g
assert p["msg_buffers"] >= 1 and p["msg_buffers_in_use"] == 1, p
' "$cap"
grep -q "port 6: .*messages sent $((cap + 40)), received 80, dropped 1" <<<"$out"
grep -q "messages queued, 1 of [0-9]* message buffers in use" <<<"$out"
# --watch refreshes; --count bounds it
w=$("$mca" domains --namespace "$MCX_NAMESPACE" --watch 0.1 --count 2)
[ "$(grep -c 'mca domains --watch' <<<"$w")" -eq 2 ] || { echo "--watch --count 2 did not refresh twice"; exit 1; }
# bad options: exit 2, one line
for bad in "--watch 0" "--count 3" "--json /nonexistent/dir/x.json" "--frob"; do
  set +e; msg=$("$mca" domains $bad 2>&1); rc=$?; set -e
  [ "$rc" -eq 2 ] || { echo "mca domains $bad: exit $rc, expected 2"; exit 1; }
done
out=$("$mca" domains --clean --namespace "$MCX_NAMESPACE")
echo "$out"
grep -q "removed partition /mcx-$(id -u)-${MCX_NAMESPACE}-d40: every node dead" <<<"$out"
grep -q " $((2 + cap - 40)) queued message(s) dropped" <<<"$out"
test ! -e "$obj" || { echo "--clean left $obj"; exit 1; }
"$mca" domains --clean --namespace "$MCX_NAMESPACE" | grep -q "nothing to remove"
# A partition whose header this release cannot read (another release's
# layout version) is left alone while a live process maps it, removed after.
other="/dev/shm/mcx-$(id -u)-${MCX_NAMESPACE}-d41"
# The holder maps it until released (the release file), bounded by the ceiling.
python3 - "$other" "$release" "$ceiling" <<'PY' &
import mmap, os, sys, time
fd = os.open(sys.argv[1], os.O_CREAT | os.O_RDWR, 0o600)
os.ftruncate(fd, 8192)
m = mmap.mmap(fd, 8192)
m[0:8] = b"\x01\x02\x03\x04\x05\x06\x07\x08"
open(sys.argv[2] + ".mapped", "w").close()  # the header is written: --clean may look now
end = time.monotonic() + float(sys.argv[3])
while not os.path.exists(sys.argv[2]) and time.monotonic() < end:
    time.sleep(0.05)
PY
holder=$!
# event: the holder maps the partition and has written its header (a header
# of zeros would be a partition being created, which --clean leaves alone)
end=$(( $(date +%s) + ceiling ))
until [ -e "$release.mapped" ] || [ "$(date +%s)" -ge "$end" ]; do sleep 0.05; done
out=$("$mca" domains --clean --namespace "$MCX_NAMESPACE")
echo "$out"
grep -q "left partition /mcx-$(id -u)-${MCX_NAMESPACE}-d41: .*but process $holder maps it" <<<"$out"
test -e "$other" || { echo "--clean removed a partition a live process maps"; exit 1; }
touch "$release"
wait "$holder"
out=$("$mca" domains --clean --namespace "$MCX_NAMESPACE")
grep -q "removed partition /mcx-$(id -u)-${MCX_NAMESPACE}-d41" <<<"$out" || { echo "$out"; exit 1; }
test ! -e "$other" || { echo "--clean left $other after its user exited"; exit 1; }
# A receiver asleep in mcapi_msg_recv (python3 with libmca.so through ctypes;
# preloaded: its thread-local storage is initial-exec), then killed.
if [ -n "$libmca" ]; then
  waiting() { # waiting DOMAIN: "alive/dead waiting_receivers" of its endpoint port 9
    "$mca" domains --namespace "$MCX_NAMESPACE" --json - | python3 -c '
import json, sys
p = [x for x in json.load(sys.stdin)["partitions"] if x.get("domain") == int(sys.argv[1])]
e = [x for x in (p[0]["endpoints"] if p else []) if x["port"] == 9]
print("%s %s" % ("alive" if p and p[0]["nodes_alive"] else "dead", e[0]["waiting_receivers"] if e else "-"))' "$1"
  }
  LD_PRELOAD="$libmca" python3 - "$libmca" <<'PY' &
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
st = ctypes.c_uint32(0)
info = ctypes.create_string_buffer(4096)
lib.mcapi_initialize(ctypes.c_uint32(42), ctypes.c_uint32(3), None, None, info, ctypes.byref(st))
assert st.value == 1, "mcapi_initialize: status %d" % st.value
lib.mcapi_endpoint_create.restype = ctypes.c_uint32
ep = lib.mcapi_endpoint_create(ctypes.c_uint32(9), ctypes.byref(st))
assert st.value == 1, "mcapi_endpoint_create: status %d" % st.value
buf, n = ctypes.create_string_buffer(64), ctypes.c_size_t(0)
lib.mcapi_msg_recv(ctypes.c_uint32(ep), buf, ctypes.c_size_t(64), ctypes.byref(n), ctypes.byref(st))
PY
  receiver=$!
  # event: the receiver sleeps on its endpoint (after its spins and yields)
  end=$(( $(date +%s) + ceiling ))
  until [ "$(waiting 42)" = "alive 1" ] || [ "$(date +%s)" -ge "$end" ]; do sleep 0.05; done
  [ "$(waiting 42)" = "alive 1" ] || { echo "the receiver was never shown waiting: $(waiting 42)"; kill -9 "$receiver"; exit 1; }
  kill -9 "$receiver"
  wait "$receiver" 2>/dev/null || true
  [ "$(waiting 42)" = "dead 0" ] || { echo "a killed receiver is still shown waiting: $(waiting 42)"; exit 1; }
  "$mca" domains --namespace "$MCX_NAMESPACE" | grep -q "waiting: 0 receiver(s)" ||
    { echo "the listing shows the dead receiver waiting"; exit 1; }
  "$mca" domains --clean --namespace "$MCX_NAMESPACE" >/dev/null
fi
echo "mca domains: ok"
