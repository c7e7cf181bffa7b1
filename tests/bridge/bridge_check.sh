#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Two MCAPI domains on this machine, each with its own bridge process and its
# own node processes, joined over tcp:// on 127.0.0.1 or ipc:// (docs/bridge.md).
#   bridge_check.sh CASE MCA BRIDGE_NODE
# CASE: messages | priorities | restart | chankill | refused | channels | scalars | pktfrom | sclfrom | domains | tls | netns | geti | config | starve
#       | flood | wrongkey | statedir | checkfiles | killstorm | closerace
# Exit 77 (skip) with the reason when the bridge is not built.
#
# Waits poll for the event they need (a log line, a status state, a count)
# up to a generous ceiling, multiplied by MCX_TEST_TIMEOUT_SCALE (a number,
# 1.5 allowed; default 1): a slow machine makes a test slower, not failed.
# Nothing here asserts a time.
#
# What a run makes (its work directory, network namespaces, partitions) is
# named with this build's tag and the script's pid; a run killed before its
# exit trap leaves them behind, and the next run of any case removes those
# whose pid is gone, at its start.
set -u
case_=$1 mca=$2 node=$3
if [ -z "$mca" ]; then
  echo "skipped: the bridge is not built (nng not found at build time; Debian: libnng-dev)"
  exit 77
fi
scale=${MCX_TEST_TIMEOUT_SCALE:-1}
if ! awk -v s="$scale" 'BEGIN { exit !(s ~ /^[0-9]*\.?[0-9]+$/ && s > 0) }'; then
  echo "MCX_TEST_TIMEOUT_SCALE must be a positive number (like 2 or 1.5), not '$scale'"
  exit 2
fi
# secs S: S seconds times the scale; ticks S: as many 0.1 s polls
secs() { awk -v s="$1" -v k="$scale" 'BEGIN { printf "%.1f", s * k }'; }
ticks() { awk -v s="$1" -v k="$scale" 'BEGIN { n = int(s * k * 10); print (n < 1 ? 1 : n) }'; }
tag=$(printf '%s' "$mca" | cksum | awk '{ printf "%04x", $1 % 65536 }')
alive() { kill -0 "$1" 2>/dev/null; }
# Leftovers of killed runs of this build (whose pid is gone).
sweep() {
  local d p n
  for d in /tmp/mca-bridge-"$tag"-*; do
    [ -d "$d" ] || continue
    p=${d##*-}; p=${p%%.*}
    case $p in '' | *[!0-9]*) continue ;; esac
    alive "$p" || rm -rf "$d"
  done
  if [ "$(id -u)" = 0 ] && command -v ip >/dev/null; then
    # namespaces mcx{n,s}TAG{a,b}PID (netns, starve); the bench's mcxbenchPID{a,b}
    for n in $(ip netns list 2>/dev/null | awk '{ print $1 }' | grep -E "^(mcx[ns]${tag}[ab][0-9]+|mcxbench[0-9]+[ab])\$"); do
      p=$(printf '%s' "$n" | sed -E 's/^mcx[ns]'"$tag"'[ab]//; s/^mcxbench//; s/[ab]$//')
      alive "$p" || { timeout 10 ip netns del "$n" 2>/dev/null && echo "removed network namespace $n (pid $p is gone)"; }
    done
    # a veth pair made, not yet moved into its namespaces
    for n in $(ip -o link show 2>/dev/null | awk -F': ' '{ print $2 }' | sed 's/@.*//' | grep -E "^v[ns]${tag}[ab][0-9]+\$"); do
      p=${n#v?"$tag"?}
      alive "$p" || timeout 10 ip link del "$n" 2>/dev/null
    done
  fi
  "$mca" domains --clean >/dev/null 2>&1 # partitions whose every node is dead
}
sweep
work=$(mktemp -d "/tmp/mca-bridge-$tag-$case_-$$.XXXXXX")
export MCX_NAMESPACE=bridge$$
pids=()
hogs=()
cleanup() {
  for p in "${hogs[@]}"; do kill -9 "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do kill -CONT "$p" 2>/dev/null; kill -9 "$p" 2>/dev/null; done
  wait 2>/dev/null
  # MCX_BRIDGE_TEST_KEEP=DIR: the run's logs and state directories are kept there.
  if [ -n "${MCX_BRIDGE_TEST_KEEP:-}" ]; then
    mkdir -p "$MCX_BRIDGE_TEST_KEEP" && cp -r "$work"/. "$MCX_BRIDGE_TEST_KEEP"/ 2>/dev/null
  fi
  "$mca" domains --clean >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"
  for f in "$work"/*.log "$work"/s*/status; do [ -f "$f" ] && { echo "--- $f"; tail -n 30 "$f"; }; done
  exit 1
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
newkey() { head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$1"; chmod 600 "$1"; }
# conf DOMAIN LISTEN KEYFILE PEER_DOMAIN PEER_URL [MORE_JSON]
conf() {
  mkdir -p "$work/s$1"
  printf '{"domain": %s, "listen": "%s", "peers": {"%s": "%s"}, "key_file": "%s", "state_dir": "%s"%s}\n' \
    "$1" "$2" "$4" "$5" "$3" "$work/s$1" "${6:+, $6}" > "$work/b$1.json"
}
declare -A bpid
start_bridge() {
  "$mca" bridge --config "$work/b$1.json" >>"$work/b$1.log" 2>&1 &
  bpid[$1]=$!
  pids+=($!)
}
# wait_state DOMAIN PEER STATE [SECONDS]: polls the status file (ceiling 60 s, scaled)
wait_state() {
  for _ in $(seq 1 "$(ticks "${4:-60}")"); do
    grep -q "peer domain $2 .* state $3 " "$work/s$1/status" 2>/dev/null && return 0
    sleep 0.1
  done
  fail "bridge of domain $1: peer $2 not '$3' within $(secs "${4:-60}") s"
}
# wait_line FILE PATTERN [SECONDS]: polls FILE for PATTERN (ceiling 60 s, scaled)
wait_line() {
  for _ in $(seq 1 "$(ticks "${3:-60}")"); do
    grep -q "$2" "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  fail "no '$2' in $1 within $(secs "${3:-60}") s"
}
# wait_gone PID [SECONDS]: polls until the process has ended (ceiling 120 s, scaled)
wait_gone() {
  for _ in $(seq 1 "$(ticks "${2:-120}")"); do
    alive "$1" || return 0
    sleep 0.1
  done
  return 1
}

# stalled FILE: waits until the "sent N" lines of FILE stop coming (the
# sender is blocked): the count unchanged over 2 s (scaled), at most 60 s
# (scaled) in all; prints the last N. A sender that is only slow keeps
# counting; the checks after this one say whether it was held where it must.
stalled() {
  local prev=-1 cur same=0 need
  need=$(ticks 2)
  for _ in $(seq 1 "$(ticks 60)"); do
    sleep 0.1
    cur=$(grep -c '^sent ' "$1")
    if [ "$cur" = "$prev" ]; then
      same=$((same + 1))
      [ "$same" -ge "$need" ] && break
    else
      same=0 prev=$cur
    fi
  done
  sed -n 's/^sent //p' "$1" | tail -n1
}
last_sent() { stalled "$1"; }
# fresh_status DOMAIN: waits until the bridge has written its status file
# twice more (every 250 ms), so it shows what happened before this call
fresh_status() {
  local f="$work/s$1/status" t0 t n=0
  t0=$(stat -c %y "$f" 2>/dev/null)
  for _ in $(seq 1 "$(ticks 60)"); do
    sleep 0.05
    t=$(stat -c %y "$f" 2>/dev/null)
    [ "$t" != "$t0" ] && { n=$((n + 1)); t0=$t; }
    [ "$n" -ge 2 ] && return 0
  done
  fail "bridge of domain $1 did not rewrite its status file"
}
# netns_pair NET: namespace $na (NET.1) and $nb (NET.2), joined by the veth
# pair $va/$vb; $na exists already (its creation tells whether we may).
netns_pair() {
  timeout 10 ip netns add "$nb" || fail "ip netns add"
  timeout 10 ip link add "$va" type veth peer name "$vb" || fail "ip link add veth"
  timeout 10 ip link set "$va" netns "$na" && timeout 10 ip link set "$vb" netns "$nb" || fail "ip link set netns"
  ip netns exec "$na" ip addr add "$1.1/24" dev "$va" && ip netns exec "$na" ip link set "$va" up &&
    ip netns exec "$na" ip link set lo up || fail "namespace a"
  ip netns exec "$nb" ip addr add "$1.2/24" dev "$vb" && ip netns exec "$nb" ip link set "$vb" up &&
    ip netns exec "$nb" ip link set lo up || fail "namespace b"
}
url() { # url DOMAIN KIND
  if [ "$2" = tcp ]; then echo "tcp://127.0.0.1:$(free_port)"; else echo "ipc://$work/d$1.sock"; fi
}
two_bridges() { # two_bridges KIND [MORE_JSON]
  newkey "$work/key"
  u1=$(url 1 "$1") u2=$(url 2 "$1")
  conf 1 "$u1" "$work/key" 2 "$u2" "${2:-}"
  conf 2 "$u2" "$work/key" 1 "$u1" "${2:-}"
  start_bridge 1
  start_bridge 2
  wait_state 1 2 up
  wait_state 2 1 up
}

case "$case_" in
messages)
  # Both ways at once, over tcp on the loopback; every item checked.
  two_bridges tcp
  "$node" recv 2 2 10 3000 >"$work/r2.log" 2>&1 & r2=$!; pids+=($r2)
  "$node" recv 1 1 11 3000 >"$work/r1.log" 2>&1 & r1=$!; pids+=($r1)
  wait_line "$work/r2.log" ready; wait_line "$work/r1.log" ready
  "$node" send 1 3 2 2 10 3000 >"$work/s1.log" 2>&1 & s1=$!; pids+=($s1)
  "$node" send 2 4 1 1 11 3000 >"$work/s2.log" 2>&1 & s2=$!; pids+=($s2)
  for p in $s1 $s2 $r1 $r2; do wait $p || fail "a node failed"; done
  cat "$work/r1.log" "$work/r2.log"
  grep -q "recv: 3000 items, in order, no duplicate, 0 lost" "$work/r1.log" || fail "domain 1 receiver"
  grep -q "recv: 3000 items, in order, no duplicate, 0 lost" "$work/r2.log" || fail "domain 2 receiver"
  # Gets: an endpoint nobody creates times out; an unconfigured domain is invalid.
  out=$("$node" get 1 5 2 2 99 300) || fail "get"
  echo "$out"; [ "$out" = "get: MCAPI_TIMEOUT" ] || fail "get of a missing remote endpoint: $out"
  out=$("$node" get 1 5 9 2 10 300) || fail "get"
  echo "$out"; [ "$out" = "get: MCAPI_ERR_DOMAIN_INVALID" ] || fail "get in an unconfigured domain: $out"
  # The peer's bridge is gone: the proxies of its endpoints refuse sends with
  # MCAPI_ERR_TRANSMISSION (blocking, non-blocking, FAIL_ON_MEM_LIMIT), and a
  # get of an endpoint never resolved makes no proxy (it times out).
  kill -9 "${bpid[2]}"; wait "${bpid[2]}" 2>/dev/null
  wait_state 1 2 down
  wait_line "$work/b1.log" "peer domain 2 away: sends to its 1 proxy give MCAPI_ERR_TRANSMISSION"
  out=$("$node" sendst 1 6 2 2 10) || fail "sendst"
  echo "$out"
  [ "$out" = "sendst: blocking MCAPI_ERR_TRANSMISSION, non-blocking MCAPI_ERR_TRANSMISSION, fail-on-mem-limit MCAPI_ERR_TRANSMISSION" ] ||
    fail "sends while the peer is away"
  out=$("$node" get 1 5 2 2 98 300) || fail "get"
  echo "$out"; [ "$out" = "get: MCAPI_TIMEOUT" ] || fail "get of an unresolved endpoint while the peer is away: $out"
  # Back: sends go through again. A receiver that reads nothing until told:
  # its queue (64), the window (64) and the proxy's queue (64) fill, the
  # sender blocks in a send.
  start_bridge 2
  wait_state 1 2 up
  wait_line "$work/b1.log" "peer domain 2 up: sends to its 1 proxy go through again"
  m=1000
  "$node" recv 2 2 14 $m "$work/go" >"$work/r5.log" 2>&1 & r5=$!; pids+=($r5)
  wait_line "$work/r5.log" holding
  "$node" send 1 3 2 2 14 $m 1 1 >"$work/s5.log" 2>&1 & s5=$!; pids+=($s5)
  wait_line "$work/s5.log" "^sent 100\$"
  held=$(stalled "$work/s5.log")
  kill -0 $s5 2>/dev/null || fail "the sender finished although the receiver read nothing"
  echo "sender blocked after $held sends"
  [ "$held" -gt 128 ] && [ "$held" -le 193 ] || fail "$held sends completed while the receiver read nothing"
  # The peer's bridge dies: the blocked send returns MCAPI_ERR_TRANSMISSION
  # (the sender then tries that item again every 20 ms).
  kill -9 "${bpid[2]}"; wait "${bpid[2]}" 2>/dev/null
  wait_line "$work/s5.log" "^send: seq $((held + 1)): MCAPI_ERR_TRANSMISSION, sending it again\$"
  grep "MCAPI_ERR_TRANSMISSION" "$work/s5.log"
  # Restarted: the item is taken, the rest follow; everything that was in the
  # remote queue, the window and the proxy's queue arrives once, in order.
  start_bridge 2
  wait_state 1 2 up
  touch "$work/go"
  wait $s5 || fail "sender: $(tail -n3 "$work/s5.log")"
  wait $r5 || fail "receiver after the restart: $(cat "$work/r5.log")"
  tail -n1 "$work/s5.log"; cat "$work/r5.log"
  grep -q "recv: $m items, in order, no duplicate, 0 lost" "$work/r5.log" || fail "items across the restart"
  grep -q "^send: $m items sent, 0 refused, [1-9][0-9]* sends refused with MCAPI_ERR_TRANSMISSION" "$work/s5.log" ||
    fail "sender's count"
  # SIGTERM stops a bridge cleanly (exit 0, threads joined, memory freed).
  for d in 1 2; do
    kill -TERM "${bpid[$d]}"
    wait "${bpid[$d]}" || fail "bridge $d exited with $? on SIGTERM"
    grep -q "mca bridge d$d: stopped" "$work/b$d.log" || fail "bridge $d did not say it stopped"
  done
  ;;
priorities)
  # 20 items at priority 5, then 20 at 0, queued remotely before anyone reads.
  two_bridges ipc
  "$node" precv 2 2 10 20 >"$work/r2.log" 2>&1 & r2=$!; pids+=($r2)
  wait_line "$work/r2.log" ready
  "$node" prio 1 3 2 2 10 20 || fail "priority sender"
  wait $r2 || fail "priority receiver: $(cat "$work/r2.log")"
  cat "$work/r2.log"
  ;;
restart)
  two_bridges ipc
  # 1. kill -9 of the receiving side's bridge mid-stream, twice, restarted:
  #    nothing acknowledged is lost, nothing duplicated or reordered.
  # The receiver is paced and reports its progress; the kills happen at
  # progress points. Back-pressure keeps the sender at most a few hundred
  # items ahead of the receiver, so the stream is still running then.
  n=${MCX_BRIDGE_TEST_ITEMS:-100000}
  "$node" recv 2 2 10 $n pace >"$work/r2.log" 2>&1 & r2=$!; pids+=($r2)
  wait_line "$work/r2.log" ready
  "$node" send 1 3 2 2 10 $n >"$work/s1.log" 2>&1 & s1=$!; pids+=($s1)
  for round in 1 2; do
    wait_line "$work/r2.log" "^progress $((round * n / 4))\$" 120
    kill -0 $s1 2>/dev/null || fail "the stream ended before the kill"
    kill -9 "${bpid[2]}"; wait "${bpid[2]}" 2>/dev/null
    echo "killed the bridge of domain 2 mid-stream (round $round)"
    sleep 0.5
    start_bridge 2
    wait_state 1 2 up
  done
  # Then killed inside a delivery, at two steps of the receipted send
  # (MCX_BRIDGE_FAULT): after the message is named in the receipt but before
  # it is queued (1: the peer must send it again), and after it is queued
  # but before the send returns (2: the file's record is one behind; the
  # receipt must keep it from being delivered twice). Each faulty bridge is
  # the restart after the kill before it; no plain bridge runs between them,
  # which would drain the stream (the receiver's pace) for as long as its
  # reconnection takes, and could leave the second one short of its 300
  # deliveries.
  kill -9 "${bpid[2]}"; wait "${bpid[2]}" 2>/dev/null
  for step in 1 2; do
    sleep 0.3
    MCX_BRIDGE_FAULT="300:$step" start_bridge 2
    # Bounded, not timed: up to 120 s for 300 deliveries (sanitizer builds
    # on a host that slows cross-core traffic need well over 30 s).
    wait_gone "${bpid[2]}" || fail "the bridge with the fault at step $step is still running"
    wait "${bpid[2]}" 2>/dev/null
    grep -q "MCX_BRIDGE_FAULT: killed at step $step of delivery 300" "$work/b2.log" ||
      fail "the fault at step $step did not happen"
    echo "the bridge of domain 2 killed itself at step $step of a delivery"
  done
  sleep 0.3
  start_bridge 2
  wait_state 1 2 up
  grep "was delivered before the restart" "$work/b2.log" ||
    fail "the restart after step 2 did not take the delivery from the receipt"
  wait $s1 || fail "sender: $(cat "$work/s1.log")"
  wait $r2 || fail "receiver: $(cat "$work/r2.log")"
  cat "$work/s1.log" "$work/r2.log"
  grep -q "recv: $n items, in order, no duplicate, 0 lost" "$work/r2.log" || fail "restart of the receiving bridge"
  # While the peer's bridge was away, sends to it gave MCAPI_ERR_TRANSMISSION
  # (the sender made them again): at most one run of refusals per kill.
  # Five kills (two plain, one before the faulty starts, two faults): a
  # restart quicker than the sender's next send shows no refusal.
  runs=$(grep -c ': MCAPI_ERR_TRANSMISSION, sending it again$' "$work/s1.log")
  [ "$runs" -ge 2 ] && [ "$runs" -le 5 ] ||
    fail "the sender saw $runs runs of MCAPI_ERR_TRANSMISSION for 5 kills"
  # 2. kill -9 of the sending side's bridge mid-stream, restarted: its proxy
  #    (queue and all) is adopted by the restart, the window's frames come
  #    from its journal: every item arrives once, in order; the sender's
  #    sends meanwhile get MCAPI_ERR_TRANSMISSION and are made again.
  "$node" recv 2 2 12 $n pace >"$work/r3.log" 2>&1 & r3=$!; pids+=($r3)
  wait_line "$work/r3.log" ready
  "$node" send 1 3 2 2 12 $n >"$work/s3.log" 2>&1 & s3=$!; pids+=($s3)
  wait_line "$work/r3.log" "^progress $((n / 4))\$" 120
  kill -0 $s3 2>/dev/null || fail "the stream ended before the kill"
  kill -9 "${bpid[1]}"; wait "${bpid[1]}" 2>/dev/null
  echo "killed the bridge of domain 1 mid-stream"
  sleep 0.3
  start_bridge 1
  wait_state 1 2 up
  wait $s3 || fail "sender after restart: $(cat "$work/s3.log")"
  wait $r3 || fail "receiver: $(cat "$work/r3.log")"
  cat "$work/s3.log" "$work/r3.log"
  grep -q "in order, no duplicate, 0 lost" "$work/r3.log" || fail "restart of the sending bridge"
  grep -q " 0 refused" "$work/s3.log" || fail "the sender lost its proxy"
  grep -q "proxy port .* adopted" "$work/b1.log" || fail "the restarted bridge adopted no proxy"
  # 3. Back-pressure, and blocked calls return: the remote endpoint is never
  #    read, its queue fills, acknowledgements stop, the window and then the
  #    proxy's queue fill, the sender blocks; killing its bridge ends the wait.
  "$node" precv 2 2 13 100000 >"$work/r4.log" 2>&1 & r4=$!; pids+=($r4)
  wait_line "$work/r4.log" ready
  "$node" send 1 3 2 2 13 5000 >"$work/s4.log" 2>&1 & s4=$!; pids+=($s4)
  # Longer than the keep-alive's dead_after (4 s): the stalled connection
  # must stay up (both bridges still write pings).
  sleep 5
  kill -0 $s4 2>/dev/null || fail "the sender did not block behind the full remote queue: $(cat "$work/s4.log")"
  grep "state up" "$work/s1/status"
  kill -9 "${bpid[1]}"; wait "${bpid[1]}" 2>/dev/null
  # (The proxy is kept for the bridge's restart, its sends refused meanwhile.)
  wait_line "$work/s4.log" "MCAPI_ERR_TRANSMISSION, sending it again"
  cat "$work/s4.log"
  # Held back only after the remote queue (64) and the window (64) were
  # full: 64 more wait in the proxy's queue (193 once all is settled).
  blocked=$(sed -n 's/^send: seq \([0-9]*\): MCAPI_ERR_TRANSMISSION.*/\1/p' "$work/s4.log" | head -1)
  [ "${blocked:-0}" -gt 128 ] && [ "$blocked" -le 193 ] || fail "the send that blocked is number $blocked"
  kill -9 $s4
  # Every loss above was a kill: the keep-alive never took a live (paced or
  # stalled) connection for lost.
  if grep -h "keep-alive" "$work"/b*.log; then fail "the keep-alive dropped a live connection"; fi
  ;;
chankill)
  # kill -9 of a bridge while a packet and a scalar channel through it are
  # open mid-stream (the receivers paced: the channels and the window are
  # full, the senders block), then its restart; first the senders' bridge
  # (domain 1), then the receivers' (domain 2). Per channel: the blocked
  # send returns MCAPI_ERR_CHAN_NOTOPEN, the receiver gets items 1..k in
  # order, intact, then MCAPI_ERR_CHAN_NOTOPEN (never a hang: the programs'
  # TIMEOUT is 60 s); the items the receivers' bridge had acknowledged before
  # the kill all arrive; both close, connect a new channel after the restart,
  # and all 2000 items of it arrive in order.
  two_bridges ipc
  m=2000
  for victim in 1 2; do
    fresh_status 1 # what was acknowledged before this round
    acked0=$(sed -n 's/^peer domain 2 .* acked \([0-9]*\) .*/\1/p' "$work/s1/status")
    pp=$((20 + 2 * victim)) ps=$((21 + 2 * victim))
    "$node" chrecv 2 $((10 + victim)) $pp $m pkt >"$work/cr$victim-p.log" 2>&1 & rp=$!; pids+=($rp)
    "$node" chrecv 2 $((20 + victim)) $ps $m scl >"$work/cr$victim-s.log" 2>&1 & rs=$!; pids+=($rs)
    wait_line "$work/cr$victim-p.log" "^ready 1"; wait_line "$work/cr$victim-s.log" "^ready 1"
    "$node" chsend 1 $((10 + victim)) 2 $((10 + victim)) $pp $m pkt >"$work/cs$victim-p.log" 2>&1 & sp=$!; pids+=($sp)
    "$node" chsend 1 $((20 + victim)) 2 $((20 + victim)) $ps $m scl >"$work/cs$victim-s.log" 2>&1 & ss=$!; pids+=($ss)
    wait_line "$work/cr$victim-p.log" "^progress 2000$" 60
    wait_line "$work/cr$victim-s.log" "^progress 2000$" 60
    acked=$(sed -n 's/^peer domain 2 .* acked \([0-9]*\) .*/\1/p' "$work/s1/status")
    kill -0 $sp 2>/dev/null && kill -0 $ss 2>/dev/null || fail "a channel ended before the kill"
    kill -9 "${bpid[$victim]}"; wait "${bpid[$victim]}" 2>/dev/null
    echo "killed the bridge of domain $victim with a packet and a scalar channel open"
    sleep 0.5
    start_bridge $victim
    wait_state 1 2 up
    for p in $sp $ss $rp $rs; do wait $p || fail "a channel program failed (round $victim)"; done
    cat "$work/cs$victim-p.log" "$work/cs$victim-s.log" "$work/cr$victim-p.log" "$work/cr$victim-s.log" | grep -v "^progress\|^sent"
    k=0
    for c in p s; do
      kind=$([ $c = p ] && echo pkt || echo scl)
      grep -q "^chsend $kind phase 1: [0-9]* sent, then MCAPI_ERR_CHAN_NOTOPEN$" "$work/cs$victim-$c.log" ||
        fail "round $victim: the $kind sender's channel did not end with MCAPI_ERR_CHAN_NOTOPEN"
      got=$(sed -n "s/^chrecv $kind phase 1: items 1..\([0-9]*\) in order, intact, then MCAPI_ERR_CHAN_NOTOPEN$/\1/p" \
        "$work/cr$victim-$c.log")
      [ -n "$got" ] || fail "round $victim: the $kind receiver's channel did not end with MCAPI_ERR_CHAN_NOTOPEN"
      k=$((k + got))
      grep -q "^chrecv $kind phase 2: items 1..$m in order, intact, then MCAPI_ERR_CHAN_NOTOPEN$" "$work/cr$victim-$c.log" ||
        fail "round $victim: the new $kind channel did not carry all $m items"
      grep -q "^chsend $kind: $m sent on the new channel, closed$" "$work/cs$victim-$c.log" ||
        fail "round $victim: the $kind sender did not finish its new channel"
    done
    # Acknowledged (delivered into the receivers' channels) before the kill:
    # the frames since the round began, less the two opens.
    echo "round $victim: acknowledged before the kill at least $((acked - acked0 - 2)) items, received $k"
    [ "$k" -ge $((acked - acked0 - 2)) ] || fail "round $victim: acknowledged items were lost"
  done
  grep -h "restarted:" "$work"/b*.log
  ;;
refused)
  newkey "$work/key"; newkey "$work/other"
  u1=$(url 1 ipc) u2=$(url 2 ipc)
  # Domain 1 has the wrong key: domain 2 refuses it, domain 1 reports it.
  conf 2 "$u2" "$work/key" 1 "$u1"
  conf 1 "$u1" "$work/other" 2 "$u2"
  start_bridge 2; start_bridge 1
  wait_line "$work/b2.log" "refused domain 1: wrong key"
  wait_state 1 2 refused
  out=$("$node" get 1 5 2 2 10 300) || fail "get"
  echo "$out"; [ "$out" = "get: MCAPI_TIMEOUT" ] || fail "get through a refused peer: $out"
  kill "${bpid[1]}"; wait "${bpid[1]}"
  # Domain 0, right key but not one of domain 2's peers: refused.
  conf 0 "$(url 0 ipc)" "$work/key" 2 "$u2"
  start_bridge 0
  wait_line "$work/b2.log" "refused a connection from domain 0: not a configured peer"
  kill "${bpid[0]}"; wait "${bpid[0]}"
  # The right key: up.
  conf 1 "$u1" "$work/key" 2 "$u2"
  start_bridge 1
  wait_state 1 2 up
  wait_state 2 1 up
  # A hello of wire version 1 (no keep-alive): refused, and the log says why.
  python3 - "${u2#ipc://}" <<'PY' || fail "could not send a version 1 hello"
import socket, struct, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(5)
s.connect(sys.argv[1])
body = bytes([1]) + struct.pack("<III", 0x4258434d, 1, 1) + bytes(56)
s.sendall(struct.pack("<I", len(body)) + body)
try:
    s.recv(1)  # the bridge closes the connection
except OSError:
    pass
PY
  wait_line "$work/b2.log" "refused a connection: a bridge of wire version 1, this one speaks 3 (update both)"
  grep -h "refused" "$work"/b*.log | sort | uniq -c
  ;;
channels)
  # A packet channel from a node of domain 1 to an endpoint of domain 2:
  # connect, open, packets (each checked, in order), close.
  two_bridges ipc
  "$node" pktrecv 2 2 20 5000 >"$work/r2.log" 2>&1 & r2=$!; pids+=($r2)
  wait_line "$work/r2.log" ready
  "$node" pktsend 1 3 2 2 20 5000 >"$work/s1.log" 2>&1 || fail "packet sender: $(cat "$work/s1.log")"
  wait $r2 || fail "packet receiver: $(cat "$work/r2.log")"
  cat "$work/s1.log" "$work/r2.log"
  grep -q "pktrecv: 5000 packets in order, then MCAPI_ERR_CHAN_NOTOPEN" "$work/r2.log" || fail "packet receiver"
  grep -q "pktsend: 5000 packets sent, close: MCAPI_SUCCESS" "$work/s1.log" || fail "packet sender's close"
  # A receiver slower than the sender: the remote channel fills, the bridge
  # holds the packet (no acknowledgement), the local channel fills, the
  # sender waits; all arrive in order. The same proxy serves a second channel.
  "$node" pktrecv 2 2 20 3000 pace >"$work/r3.log" 2>&1 & r3=$!; pids+=($r3)
  wait_line "$work/r3.log" ready
  "$node" pktsend 1 3 2 2 20 3000 >"$work/s3.log" 2>&1 || fail "packet sender: $(cat "$work/s3.log")"
  wait $r3 || fail "slow packet receiver: $(cat "$work/r3.log")"
  cat "$work/r3.log"
  grep -q "pktrecv: 3000 packets in order, then MCAPI_ERR_CHAN_NOTOPEN" "$work/r3.log" || fail "slow packet receiver"
  # The receiver closes after 500 packets while the sender still sends: the
  # sender's send fails with MCAPI_ERR_CHAN_NOTOPEN, as with a local receiver.
  "$node" pktrecv 2 2 21 500 stop >"$work/r4.log" 2>&1 & r4=$!; pids+=($r4)
  wait_line "$work/r4.log" ready
  "$node" pktsend 1 3 2 2 21 1000000 >"$work/s4.log" 2>&1; rc=$?
  wait $r4 || fail "receiver that closes: $(cat "$work/r4.log")"
  cat "$work/r4.log" "$work/s4.log"
  grep -q "pktrecv: 500 packets in order, closed: MCAPI_SUCCESS" "$work/r4.log" || fail "receiver that closes"
  [ $rc = 3 ] && grep -q "then MCAPI_ERR_CHAN_NOTOPEN" "$work/s4.log" || fail "the sender was not stopped (rc $rc)"
  sent=$(sed -n 's/^pktsend: \([0-9]*\) packets sent.*/\1/p' "$work/s4.log")
  [ "$sent" -ge 500 ] || fail "sender stopped after $sent packets"
  ;;
scalars)
  # Scalar channels, both ways at once: widths 8, 4, 2, 1 in turn, every
  # value checked in order, every 7th first received with a wrong width
  # (MCAPI_ERR_SCL_SIZE, the scalar stays), the sender's close reaches the
  # receiver (MCAPI_ERR_CHAN_NOTOPEN after the last scalar).
  two_bridges ipc
  n=${MCX_BRIDGE_TEST_ITEMS:-20000}; [ "$n" -gt 20000 ] && n=20000
  "$node" sclrecv 2 2 40 $n >"$work/r2.log" 2>&1 & r2=$!; pids+=($r2)
  "$node" sclrecv 1 1 41 $n >"$work/r1.log" 2>&1 & r1=$!; pids+=($r1)
  wait_line "$work/r2.log" ready; wait_line "$work/r1.log" ready
  "$node" sclsend 1 3 2 2 40 $n >"$work/s1.log" 2>&1 & s1=$!; pids+=($s1)
  "$node" sclsend 2 4 1 1 41 $n >"$work/s2.log" 2>&1 & s2=$!; pids+=($s2)
  for p in $s1 $s2 $r1 $r2; do wait $p || fail "a scalar node failed"; done
  tail -n1 "$work/s1.log" "$work/s2.log"; cat "$work/r1.log" "$work/r2.log"
  for f in r1 r2; do
    grep -q "sclrecv: $n scalars in order with their widths, $((n / 7)) wrong-width receives refused, then MCAPI_ERR_CHAN_NOTOPEN" \
      "$work/$f.log" || fail "scalar receiver $f"
  done
  for f in s1 s2; do
    grep -q "sclsend: $n scalars sent, close: MCAPI_SUCCESS" "$work/$f.log" || fail "scalar sender $f"
  done
  # Back-pressure: the receiver opens its side and then reads nothing. The
  # sender must stop (blocked in a send) with a bounded number of scalars
  # sent: the proxy's channel, the window and the remote channel hold them,
  # nothing is dropped and the bridges do not buffer more. Then the receiver
  # reads and gets every scalar in order.
  m=5000
  "$node" sclrecv 2 2 42 $m "$work/go" >"$work/r3.log" 2>&1 & r3=$!; pids+=($r3)
  wait_line "$work/r3.log" ready
  "$node" sclsend 1 3 2 2 42 $m 1 >"$work/s3.log" 2>&1 & s3=$!; pids+=($s3)
  wait_line "$work/r3.log" holding
  wait_line "$work/s3.log" "^sent 100\$"
  held=$(stalled "$work/s3.log")
  kill -0 $s3 2>/dev/null || fail "the sender finished although the receiver read nothing"
  echo "sender blocked after $held scalars, the receiver holding"
  # 64 in the remote channel, 64 in the window, 64 in the proxy's channel.
  [ "$held" -gt 128 ] && [ "$held" -le 193 ] || fail "$held scalars taken while the receiver read nothing"
  grep -q "dropped 0 " "$work/s2/status" || fail "the receiving bridge dropped scalars"
  touch "$work/go"
  wait $s3 || fail "scalar sender after the hold: $(tail -n3 "$work/s3.log")"
  wait $r3 || fail "scalar receiver after the hold: $(cat "$work/r3.log")"
  cat "$work/r3.log"
  grep -q "sclrecv: $m scalars in order with their widths, $((m / 7)) wrong-width receives refused, then MCAPI_ERR_CHAN_NOTOPEN" \
    "$work/r3.log" || fail "scalar receiver after the hold"
  # The receiver closes after 500 scalars while the sender still sends: the
  # sender's send fails with MCAPI_ERR_CHAN_NOTOPEN, as with a local receiver.
  "$node" sclrecv 2 2 43 500 stop >"$work/r4.log" 2>&1 & r4=$!; pids+=($r4)
  wait_line "$work/r4.log" ready
  "$node" sclsend 1 3 2 2 43 1000000 >"$work/s4.log" 2>&1; rc=$?
  wait $r4 || fail "scalar receiver that closes: $(cat "$work/r4.log")"
  cat "$work/r4.log"; tail -n1 "$work/s4.log"
  grep -q "sclrecv: 500 scalars in order with their widths, closed: MCAPI_SUCCESS" "$work/r4.log" ||
    fail "scalar receiver that closes"
  [ $rc = 3 ] && grep -q "then MCAPI_ERR_CHAN_NOTOPEN" "$work/s4.log" || fail "the scalar sender was not stopped (rc $rc)"
  ;;
pktfrom)
  # Packet channels whose sender is the remote endpoint: a program of one
  # domain connects the proxy of an endpoint of the other domain (the send
  # side) to an endpoint of its own (the receive side); the owner of the
  # sending endpoint opened its send side before anyone connected it. Both
  # ways at once, every packet checked in order, the sender's close reaches
  # the receiver.
  two_bridges ipc
  n=2000
  "$node" pktsendo 1 3 30 $n >"$work/s1.log" 2>&1 & s1=$!; pids+=($s1)
  "$node" pktsendo 2 4 31 $n >"$work/s2.log" 2>&1 & s2=$!; pids+=($s2)
  wait_line "$work/s1.log" ready; wait_line "$work/s2.log" ready
  "$node" pktrecvc 2 2 20 1 3 30 $n >"$work/r2.log" 2>&1 & r2=$!; pids+=($r2)
  "$node" pktrecvc 1 1 21 2 4 31 $n >"$work/r1.log" 2>&1 & r1=$!; pids+=($r1)
  for p in $s1 $s2 $r1 $r2; do wait $p || fail "a packet node failed"; done
  cat "$work/s1.log" "$work/s2.log" "$work/r1.log" "$work/r2.log"
  for f in r1 r2; do
    grep -q "pktrecvc: $n packets in order, then MCAPI_ERR_CHAN_NOTOPEN" "$work/$f.log" || fail "receiver $f"
  done
  for f in s1 s2; do
    grep -q "pktsendo: $n packets sent, close: MCAPI_SUCCESS" "$work/$f.log" || fail "sender $f"
  done
  # A receiver slower than the sender: back-pressure through the receiver's
  # channel, the window and the sender's channel; all arrive in order. The
  # same proxy serves a second channel.
  "$node" pktsendo 1 3 30 $n >"$work/s3.log" 2>&1 & s3=$!; pids+=($s3)
  wait_line "$work/s3.log" ready
  "$node" pktrecvc 2 2 20 1 3 30 $n pace >"$work/r3.log" 2>&1 & r3=$!; pids+=($r3)
  wait $s3 || fail "sender to a slow receiver: $(cat "$work/s3.log")"
  wait $r3 || fail "slow receiver: $(cat "$work/r3.log")"
  cat "$work/r3.log"
  grep -q "pktrecvc: $n packets in order, then MCAPI_ERR_CHAN_NOTOPEN" "$work/r3.log" || fail "slow receiver"
  # The remote endpoint cannot be connected as a sender (it is opening as a
  # receiver): the remote bridge says so, and the receiver's channel closes
  # (its first receive gets MCAPI_ERR_CHAN_NOTOPEN) instead of waiting.
  "$node" pktrecv 1 3 32 1 >"$work/x1.log" 2>&1 & x1=$!; pids+=($x1)
  wait_line "$work/x1.log" ready
  "$node" pktrecvc 2 2 22 1 3 32 0 >"$work/r4.log" 2>&1 & r4=$!; pids+=($r4)
  wait $r4 || fail "receiver of a failed connect: $(cat "$work/r4.log")"
  cat "$work/r4.log"
  grep -q "pktrecvc: 0 packets in order, then MCAPI_ERR_CHAN_NOTOPEN" "$work/r4.log" || fail "failed connect"
  grep "packet channel from node 3 port 32" "$work/b1.log" || fail "the failed connect was not logged"
  kill $x1; wait $x1 2>/dev/null # its node 3 is free again for the next sender
  # The receiver closes while the remote sender still sends: the sender's
  # send fails with MCAPI_ERR_CHAN_NOTOPEN (as when a local receiver closes)
  # instead of sending into nothing.
  "$node" pktsendo 1 3 33 1000000 >"$work/s5.log" 2>&1 & s5=$!; pids+=($s5)
  wait_line "$work/s5.log" ready
  "$node" pktrecvc 2 2 23 1 3 33 500 stop >"$work/r5.log" 2>&1 || fail "receiver that closes: $(cat "$work/r5.log")"
  wait $s5; rc=$?
  cat "$work/r5.log" "$work/s5.log"
  grep -q "pktrecvc: 500 packets in order, closed: MCAPI_SUCCESS" "$work/r5.log" || fail "receiver that closes"
  [ $rc = 3 ] && grep -q "then MCAPI_ERR_CHAN_NOTOPEN" "$work/s5.log" || fail "the sender was not stopped (rc $rc)"
  sent=$(sed -n 's/^pktsendo: \([0-9]*\) packets sent.*/\1/p' "$work/s5.log")
  [ "$sent" -ge 500 ] || fail "sender stopped after $sent packets"
  ;;
sclfrom)
  # Scalar channels whose sender is the remote endpoint: a program of one
  # domain connects the proxy of an endpoint of the other domain (the send
  # side) to an endpoint of its own; the owner of the sending endpoint opened
  # its send side before anyone connected it. Both ways at once, widths 8, 4,
  # 2, 1 in turn, every value checked in order with its width, every 7th
  # first received with a wrong width, the sender's close reaches the receiver.
  two_bridges ipc
  n=5000
  "$node" sclsendo 1 3 30 $n >"$work/s1.log" 2>&1 & s1=$!; pids+=($s1)
  "$node" sclsendo 2 4 31 $n >"$work/s2.log" 2>&1 & s2=$!; pids+=($s2)
  wait_line "$work/s1.log" ready; wait_line "$work/s2.log" ready
  "$node" sclrecvc 2 2 20 1 3 30 $n >"$work/r2.log" 2>&1 & r2=$!; pids+=($r2)
  "$node" sclrecvc 1 1 21 2 4 31 $n >"$work/r1.log" 2>&1 & r1=$!; pids+=($r1)
  for p in $s1 $s2 $r1 $r2; do wait $p || fail "a scalar node failed"; done
  tail -qn1 "$work/s1.log" "$work/s2.log"; cat "$work/r1.log" "$work/r2.log"
  for f in r1 r2; do
    grep -q "sclrecvc: $n scalars in order with their widths, $((n / 7)) wrong-width receives refused, then MCAPI_ERR_CHAN_NOTOPEN" \
      "$work/$f.log" || fail "scalar receiver $f"
  done
  for f in s1 s2; do
    grep -q "sclsendo: $n scalars sent, close: MCAPI_SUCCESS" "$work/$f.log" || fail "scalar sender $f"
  done
  grep -q "scalar channel from node 3 port 30 to domain 2" "$work/b1.log" || fail "bridge 1 did not log the channel"
  # Back-pressure: the receiver opens its side and reads nothing. The remote
  # sender stops with a bounded number sent (64 in the receiver's channel,
  # 64 in the window, 64 in the sender's channel), nothing is dropped; then
  # the receiver reads and gets every scalar in order. The same proxy again.
  "$node" sclsendo 1 3 30 $n 1 >"$work/s3.log" 2>&1 & s3=$!; pids+=($s3)
  wait_line "$work/s3.log" ready
  "$node" sclrecvc 2 2 20 1 3 30 $n "$work/go" >"$work/r3.log" 2>&1 & r3=$!; pids+=($r3)
  wait_line "$work/r3.log" holding
  wait_line "$work/s3.log" "^sent 100\$"
  held=$(stalled "$work/s3.log")
  kill -0 $s3 2>/dev/null || fail "the sender finished although the receiver read nothing"
  echo "remote sender blocked after $held scalars, the receiver holding"
  [ "$held" -gt 128 ] && [ "$held" -le 193 ] || fail "$held scalars taken while the receiver read nothing"
  grep -q "dropped 0 " "$work/s2/status" || fail "the receiving bridge dropped scalars"
  touch "$work/go"
  wait $s3 || fail "scalar sender after the hold: $(tail -n3 "$work/s3.log")"
  wait $r3 || fail "scalar receiver after the hold: $(cat "$work/r3.log")"
  cat "$work/r3.log"
  grep -q "sclrecvc: $n scalars in order with their widths, $((n / 7)) wrong-width receives refused, then MCAPI_ERR_CHAN_NOTOPEN" \
    "$work/r3.log" || fail "scalar receiver after the hold"
  # The remote endpoint cannot be connected as a sender (it is opening as a
  # receiver): the remote bridge says so, and the receiver's channel closes
  # (its first receive gets MCAPI_ERR_CHAN_NOTOPEN) instead of waiting.
  "$node" sclrecv 1 3 32 1 >"$work/x1.log" 2>&1 & x1=$!; pids+=($x1)
  wait_line "$work/x1.log" ready
  "$node" sclrecvc 2 2 22 1 3 32 0 >"$work/r4.log" 2>&1 || fail "receiver of a failed connect: $(cat "$work/r4.log")"
  cat "$work/r4.log"
  grep -q "sclrecvc: 0 scalars in order with their widths, 0 wrong-width receives refused, then MCAPI_ERR_CHAN_NOTOPEN" \
    "$work/r4.log" || fail "failed connect"
  grep "scalar channel from node 3 port 32 to domain 2: MCAPI_ERR_CHAN_DIRECTION" "$work/b1.log" ||
    fail "the failed connect was not logged"
  kill $x1; wait $x1 2>/dev/null # its node 3 is free again for the next sender
  # The receiver closes after 500 scalars while the remote sender still
  # sends: the sender's send fails with MCAPI_ERR_CHAN_NOTOPEN.
  "$node" sclsendo 1 3 33 1000000 >"$work/s5.log" 2>&1 & s5=$!; pids+=($s5)
  wait_line "$work/s5.log" ready
  "$node" sclrecvc 2 2 23 1 3 33 500 stop >"$work/r5.log" 2>&1 || fail "receiver that closes: $(cat "$work/r5.log")"
  wait $s5; rc=$?
  cat "$work/r5.log"; tail -n1 "$work/s5.log"
  grep -q "sclrecvc: 500 scalars in order with their widths, closed: MCAPI_SUCCESS" "$work/r5.log" ||
    fail "receiver that closes"
  [ $rc = 3 ] && grep -q "then MCAPI_ERR_CHAN_NOTOPEN" "$work/s5.log" || fail "the sender was not stopped (rc $rc)"
  sent=$(sed -n 's/^sclsendo: \([0-9]*\) scalars sent.*/\1/p' "$work/s5.log")
  [ "$sent" -ge 500 ] || fail "sender stopped after $sent scalars"
  ;;
domains)
  # mca domains lists each bridge's peers from its status file (found
  # through the delivery records the bridge keeps open), as text and JSON.
  two_bridges ipc
  "$node" recv 2 2 10 300 >"$work/r2.log" 2>&1 & r2=$!; pids+=($r2)
  wait_line "$work/r2.log" ready
  "$node" send 1 3 2 2 10 300 >"$work/s1.log" 2>&1 || fail "sender"
  wait $r2 || fail "receiver: $(cat "$work/r2.log")"
  wait_line "$work/s1/status" "peer domain 2 .* sent 300 acked 300 delivered 0 dropped 0 "
  wait_line "$work/s2/status" "peer domain 1 .* sent 0 acked 0 delivered 300 dropped 0 "
  "$mca" domains --namespace "$MCX_NAMESPACE" >"$work/domains.txt" 2>&1 || fail "mca domains: $(cat "$work/domains.txt")"
  cat "$work/domains.txt"
  want1="  bridge node 16000 peer domain 2 url ipc://$work/d2.sock state up sent 300 acked 300 delivered 0 dropped 0 why \"connected\""
  want2="  bridge node 16000 peer domain 1 url ipc://$work/d1.sock state up sent 0 acked 0 delivered 300 dropped 0 why \"connected\""
  grep -qxF "$want1" "$work/domains.txt" || fail "no line: $want1"
  grep -qxF "$want2" "$work/domains.txt" || fail "no line: $want2"
  grep -qxF "  bridge node 16000 (pid ${bpid[1]}): 1 peer(s), status $work/s1/status" "$work/domains.txt" ||
    fail "bridge 1's status line"
  # The lines that were there before are unchanged (one per node and endpoint, the summary).
  grep -q "^  node 16000: pid ${bpid[1]} tid [0-9]* alive\$" "$work/domains.txt" || fail "node line"
  grep -q "^  [0-9]* of [0-9]* endpoints in use, [0-9]* messages queued, [0-9]* of [0-9]* message buffers in use$" "$work/domains.txt" || fail "summary line"
  "$mca" domains --namespace "$MCX_NAMESPACE" --json "$work/domains.json" || fail "mca domains --json"
  python3 - "$work/domains.json" "$work" <<'PY' || fail "JSON: $(cat "$work/domains.json")"
import json, sys
doc = json.load(open(sys.argv[1])); work = sys.argv[2]
by_domain = {p["domain"]: p for p in doc["partitions"] if p["state"] == "ok"}
for d, other, sent, deliv in ((1, 2, 300, 0), (2, 1, 0, 300)):
    bridges = by_domain[d]["bridges"]
    assert len(bridges) == 1 and bridges[0]["node"] == 16000, bridges
    assert bridges[0]["status_file"] == "%s/s%d/status" % (work, d), bridges[0]
    peers = bridges[0]["peers"]
    assert peers == [{"domain": other, "url": "ipc://%s/d%d.sock" % (work, other), "state": "up", "sent": sent,
                      "acked": sent, "delivered": deliv, "dropped": 0, "why": "connected"}], peers
    assert "nodes" in by_domain[d] and "endpoints" in by_domain[d]
print("json: both bridges and their peers as expected")
PY
  # The peer's bridge is gone: its node is no longer a live bridge, and the
  # other bridge's peer line says down.
  kill -9 "${bpid[2]}"; wait "${bpid[2]}" 2>/dev/null
  wait_state 1 2 down
  "$mca" domains --namespace "$MCX_NAMESPACE" >"$work/domains2.txt" 2>&1 || fail "mca domains after the kill"
  grep "bridge node" "$work/domains2.txt"
  grep -q "^  bridge node 16000 peer domain 2 url ipc://$work/d2.sock state down sent 300 acked 300 " \
    "$work/domains2.txt" || fail "peer down not shown"
  [ "$(grep -c '^  bridge node 16000 (pid' "$work/domains2.txt")" = 1 ] || fail "the dead bridge is listed"
  ;;
tls)
  # nng's TLS under the handshake: certificates of one CA connect, a
  # certificate of another CA does not (the key alone is not enough).
  command -v openssl >/dev/null || { echo "skipped: openssl (to make test certificates) is not installed"; exit 77; }
  cert() { # cert NAME CA
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$work/$1.key" \
      -out "$work/$1.csr" -subj /CN=127.0.0.1 2>/dev/null &&
    printf 'subjectAltName=DNS:127.0.0.1,IP:127.0.0.1,DNS:localhost\n' > "$work/ext" &&
    openssl x509 -req -in "$work/$1.csr" -CA "$work/$2.pem" -CAkey "$work/$2.key" -CAcreateserial \
      -out "$work/$1.crt" -days 2 -extfile "$work/ext" 2>/dev/null &&
    cat "$work/$1.crt" "$work/$1.key" > "$work/$1.pem" && chmod 600 "$work/$1.pem" || fail "openssl: $1"
  }
  for ca in ca rogue; do
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$work/$ca.key" \
      -out "$work/$ca.pem" -days 2 -subj "/CN=$ca" 2>/dev/null || fail "openssl: $ca"
  done
  cert b1 ca; cert b2 ca; cert bad rogue
  newkey "$work/key"
  u1="tls+tcp://127.0.0.1:$(free_port)" u2="tls+tcp://127.0.0.1:$(free_port)"
  tconf() { # tconf DOMAIN LISTEN PEER PEER_URL PEM
    mkdir -p "$work/s$1"
    printf '{"domain": %s, "listen": "%s", "peers": {"%s": "%s"}, "key_file": "%s", "state_dir": "%s", "tls": {"cert_key": "%s", "ca": "%s"}}\n' \
      "$1" "$2" "$3" "$4" "$work/key" "$work/s$1" "$5" "$work/ca.pem" > "$work/b$1.json"
  }
  tconf 1 "$u1" 2 "$u2" "$work/bad.pem"
  tconf 2 "$u2" 1 "$u1" "$work/b2.pem"
  start_bridge 2; start_bridge 1
  wait_line "$work/b2.log" "TLS: "
  sleep "$(secs 3)"
  grep -q "peer domain 2 .* state up " "$work/s1/status" && fail "a certificate of another CA was let in"
  grep "peer domain 2" "$work/s1/status"
  kill "${bpid[1]}"; wait "${bpid[1]}"
  tconf 1 "$u1" 2 "$u2" "$work/b1.pem"
  start_bridge 1
  wait_state 1 2 up
  "$node" recv 2 2 10 2000 >"$work/r2.log" 2>&1 & r2=$!; pids+=($r2)
  wait_line "$work/r2.log" ready
  "$node" send 1 3 2 2 10 2000 || fail "sender over TLS"
  wait $r2 || fail "receiver over TLS: $(cat "$work/r2.log")"
  cat "$work/r2.log"
  grep -q "recv: 2000 items, in order, no duplicate, 0 lost" "$work/r2.log" || fail "messages over TLS"
  grep -h "TLS" "$work"/b*.log | sort -u
  ;;
netns)
  # Two network namespaces joined by a veth pair: the bridges talk tcp over
  # it; the link goes down for a second mid-stream and comes back.
  [ "$(id -u)" = 0 ] || { echo "skipped: network namespaces need root"; exit 77; }
  command -v ip >/dev/null || { echo "skipped: the ip command (iproute2) is not installed"; exit 77; }
  # Named for this build and run (sweep() removes those of killed runs).
  na=mcxn${tag}a$$ nb=mcxn${tag}b$$ va=vn${tag}a$$ vb=vn${tag}b$$
  netns_cleanup() { timeout 10 ip netns del "$na" 2>/dev/null; timeout 10 ip netns del "$nb" 2>/dev/null; cleanup; }
  trap netns_cleanup EXIT
  timeout 10 ip netns add "$na" 2>/dev/null || { echo "skipped: cannot create a network namespace here"; exit 77; }
  netns_pair 10.77.0
  newkey "$work/key"
  u1="tcp://10.77.0.1:7301" u2="tcp://10.77.0.2:7302"
  conf 1 "$u1" "$work/key" 2 "$u2"
  conf 2 "$u2" "$work/key" 1 "$u1"
  ip netns exec "$na" "$mca" bridge --config "$work/b1.json" >>"$work/b1.log" 2>&1 & pids+=($!)
  ip netns exec "$nb" "$mca" bridge --config "$work/b2.json" >>"$work/b2.log" 2>&1 & pids+=($!)
  wait_state 1 2 up
  wait_state 2 1 up
  # The receivers are paced (about 20000 items a second). The domain 2
  # receiver holds at each step's point (a quarter, half, three quarters of
  # the stream) until this script has taken the link down and releases it
  # (the file r2go.K): meanwhile the stream stands still and back-pressure
  # keeps its sender blocked, so each step finds the sender running however
  # slowly this script sees the line. Released while the link is down, the
  # receiver takes what reached domain 2 before the cut, as a running
  # stream would.
  n=${MCX_BRIDGE_TEST_ITEMS:-160000}
  ip netns exec "$nb" "$node" recv 2 2 10 $n pace "hold=$((n / 4)),$((n / 2)),$((3 * n / 4)):$work/r2go" \
    >"$work/r2.log" 2>&1 & r2=$!; pids+=($r2)
  ip netns exec "$na" "$node" recv 1 1 11 $n pace >"$work/r1.log" 2>&1 & r1=$!; pids+=($r1)
  wait_line "$work/r2.log" ready; wait_line "$work/r1.log" ready
  ip netns exec "$na" "$node" send 1 3 2 2 10 $n >"$work/s1.log" 2>&1 & s1=$!; pids+=($s1)
  ip netns exec "$nb" "$node" send 2 4 1 1 11 $n >"$work/s2.log" 2>&1 & s2=$!; pids+=($s2)
  wait_line "$work/r2.log" "^held $((n / 4))\$" 120
  kill -0 $s1 2>/dev/null || fail "the stream ended before the link went down"
  # A cut shorter than the keep-alive's 2 s (4 x 500 ms): the stream pauses.
  timeout 10 ip netns exec "$na" ip link set "$va" down
  echo "link down"
  touch "$work/r2go.$((n / 4))"
  sleep 0.5 # the cut's length (the stimulus, not a wait)
  timeout 10 ip netns exec "$na" ip link set "$va" up
  echo "link up"
  # Again at half-way, and this time host a drops its end of the connection
  # while the link is down (ss -K, as when an interface goes away): bridge 1
  # sees the connection lost, sends to its proxy give MCAPI_ERR_TRANSMISSION
  # until it has dialled again; bridge 2 learns it when the new connection
  # replaces the old one (or a reset reaches it).
  wait_line "$work/r2.log" "^held $((n / 2))\$" 120
  kill -0 $s1 2>/dev/null || fail "the stream ended before the link went down again"
  timeout 10 ip netns exec "$na" ip link set "$va" down
  killed=$(timeout 10 ip netns exec "$na" ss -K -tn dst 10.77.0.2 2>&1 | grep -c ESTAB)
  echo "link down, $killed connection(s) of host a dropped"
  touch "$work/r2go.$((n / 2))"
  sleep 1 # the cut's length (the stimulus, not a wait)
  timeout 10 ip netns exec "$na" ip link set "$va" up
  echo "link up"
  # The cut below tests a live connection: bridge 1 must have dialled again
  # first (its dial backs off while the link is down).
  wait_state 1 2 up
  wait_state 2 1 up
  # At three quarters, a cut with no reset at all (the link goes down and
  # nothing is dropped): only the keep-alive notices it. Bridge 1 must mark
  # its proxy and the domain 1 sender get MCAPI_ERR_TRANSMISSION (the times
  # are printed, not checked: dead_after is 4 s, the wait's ceiling 60 s,
  # scaled); its status says the peer is down; then the link comes back and
  # everything whose send succeeded arrives once, in order.
  wait_line "$work/r2.log" "^held $((3 * n / 4))\$" 120
  kill -0 $s1 2>/dev/null || fail "the stream ended before the link was cut"
  away0=$(grep -c "peer domain 2 away" "$work/b1.log")
  tx0=$(grep -c "MCAPI_ERR_TRANSMISSION, sending it again" "$work/s1.log")
  t0=$(date +%s%N)
  timeout 10 ip netns exec "$na" ip link set "$va" down
  echo "link cut (no reset)"
  touch "$work/r2go.$((3 * n / 4))"
  marked= refused=
  for _ in $(seq 1 "$(ticks 60)"); do
    [ -z "$marked" ] && [ "$(grep -c "peer domain 2 away" "$work/b1.log")" -gt "$away0" ] &&
      marked=$((($(date +%s%N) - t0) / 1000000))
    [ -z "$refused" ] && [ "$(grep -c "MCAPI_ERR_TRANSMISSION, sending it again" "$work/s1.log")" -gt "$tx0" ] &&
      refused=$((($(date +%s%N) - t0) / 1000000))
    [ -n "$marked" ] && [ -n "$refused" ] && break
    sleep 0.1
  done
  [ -n "$marked" ] || fail "bridge 1 did not mark its proxy within $(secs 60) s of a cut link (keep-alive)"
  [ -n "$refused" ] || fail "the domain 1 sender got no MCAPI_ERR_TRANSMISSION within $(secs 60) s of a cut link"
  echo "keep-alive: bridge 1 marked its proxy ${marked} ms after the cut, the sender was refused after ${refused} ms"
  wait_state 1 2 down
  grep "peer domain 2 .* state down " "$work/s1/status"
  grep -q "peer domain 2: down (nothing received for 4000 ms: keep-alive)" "$work/b1.log" ||
    fail "bridge 1 does not say the keep-alive found the connection lost"
  wait_line "$work/b2.log" "peer domain 1: down (nothing received for 4000 ms: keep-alive)"
  timeout 10 ip netns exec "$na" ip link set "$va" up
  echo "link up"
  wait_state 1 2 up
  for p in $s1 $s2 $r1 $r2; do wait $p || fail "a node failed"; done
  cat "$work/r1.log" "$work/r2.log"
  grep -h "down\|away\|up:\|: up" "$work/b1.log" "$work/b2.log" | grep -v "listening"
  tail -qn1 "$work/s1.log" "$work/s2.log"
  grep -q "recv: $n items, in order, no duplicate, 0 lost" "$work/r1.log" || fail "domain 1 receiver"
  grep -q "recv: $n items, in order, no duplicate, 0 lost" "$work/r2.log" || fail "domain 2 receiver"
  if [ "$killed" -ge 1 ]; then
    grep -q "peer domain 2 away: sends to its 1 proxy give MCAPI_ERR_TRANSMISSION" "$work/b1.log" ||
      fail "bridge 1 did not mark its proxy when the connection was dropped"
    grep -q "^send: seq [0-9]*: MCAPI_ERR_TRANSMISSION, sending it again\$" "$work/s1.log" ||
      fail "the domain 1 sender saw no MCAPI_ERR_TRANSMISSION while the connection was down"
  else
    echo "(ss -K dropped nothing here: the kernel lacks socket destroy; the dropped-connection checks did not run)"
  fi
  # Channels across a dropped connection: a packet channel to a receiver in
  # domain 2, then a scalar channel whose sender (in domain 1) is remote to
  # its receiver. Both receivers read nothing at first: the packets fill the
  # receiver's channel, the window (one per connection and direction) and the
  # proxy's channel; the scalars, behind them in the same stream, fill their
  # sender's channel; the senders block. Then the connection is dropped as
  # above. After the redial what was in flight is written again (and skipped
  # where delivered): every packet and scalar arrives once, in order.
  m=3000
  ip netns exec "$nb" "$node" pktrecv 2 2 20 $m "$work/go" >"$work/r3.log" 2>&1 & r3=$!; pids+=($r3)
  wait_line "$work/r3.log" ready
  ip netns exec "$na" "$node" pktsend 1 3 2 2 20 $m 1 >"$work/s3.log" 2>&1 & s3=$!; pids+=($s3)
  wait_line "$work/r3.log" holding
  wait_line "$work/s3.log" "^sent 1\$"
  echo "packet sender blocked after $(last_sent "$work/s3.log")"
  ip netns exec "$na" "$node" sclsendo 1 4 30 $m 1 >"$work/s4.log" 2>&1 & s4=$!; pids+=($s4)
  wait_line "$work/s4.log" ready
  ip netns exec "$nb" "$node" sclrecvc 2 5 21 1 4 30 $m "$work/go" >"$work/r4.log" 2>&1 & r4=$!; pids+=($r4)
  wait_line "$work/r4.log" holding
  wait_line "$work/s4.log" "^sent 1\$"
  echo "scalar sender blocked after $(last_sent "$work/s4.log")"
  kill -0 $s3 2>/dev/null && kill -0 $s4 2>/dev/null || fail "a channel sender finished although nothing was read"
  timeout 10 ip netns exec "$na" ip link set "$va" down
  killed=$(timeout 10 ip netns exec "$na" ss -K -tn dst 10.77.0.2 2>&1 | grep -c ESTAB)
  echo "link down, $killed connection(s) of host a dropped"
  sleep 1
  timeout 10 ip netns exec "$na" ip link set "$va" up
  echo "link up"
  wait_state 1 2 up
  touch "$work/go"
  for p in $s3 $s4 $r3 $r4; do wait $p || fail "a channel node failed"; done
  cat "$work/r3.log" "$work/r4.log"; tail -qn1 "$work/s3.log" "$work/s4.log"
  grep -q "pktrecv: $m packets in order, then MCAPI_ERR_CHAN_NOTOPEN" "$work/r3.log" || fail "packets across the drop"
  grep -q "sclrecvc: $m scalars in order with their widths, $((m / 7)) wrong-width receives refused, then MCAPI_ERR_CHAN_NOTOPEN" \
    "$work/r4.log" || fail "scalars across the drop"
  grep -q "pktsend: $m packets sent, close: MCAPI_SUCCESS" "$work/s3.log" || fail "packet sender"
  grep -q "sclsendo: $m scalars sent, close: MCAPI_SUCCESS" "$work/s4.log" || fail "scalar sender"
  if [ "$killed" -ge 1 ]; then
    # the first and the keep-alive's cut of the message stream, and this one
    [ "$(grep -c 'peer domain 2: down' "$work/b1.log")" = 3 ] || fail "bridge 1 did not see the second drop"
  fi
  ;;
geti)
  # mcapi_endpoint_get_i() of endpoints in another domain: several at once,
  # some made only later, a wait with timeout, a cancel, an unconfigured
  # domain, messages to the handles got; then the local bridge killed while
  # a get_i waits. bridge_node checks each status itself. Once in the spec
  # profile, once in mca-2.0.3 (pending calls and tests report MCAPI_SUCCESS,
  # a failed get_i also leaves a completed request).
  run_geti() { # run_geti LABEL [LATE_MS]
    two_bridges ipc
    "$node" getipeer 2 2 "$work/go$1" 20 ${2:-0} >"$work/p$1.log" 2>&1 & pp=$!; pids+=($pp)
    wait_line "$work/p$1.log" ready
    "$node" geti 1 3 2 2 "$work/go$1" 20 >"$work/g$1.log" 2>&1 & gp=$!; pids+=($gp)
    wait $pp || fail "getipeer ($1): $(cat "$work/p$1.log")"
    wait_line "$work/g$1.log" "^pending 99\$"
    kill -9 "${bpid[1]}"; wait "${bpid[1]}" 2>/dev/null
    wait $gp; rc=$?
    cat "$work/g$1.log" "$work/p$1.log"
    [ $rc = 0 ] || fail "geti ($1)"
    grep -q "^geti: 0 failure(s)\$" "$work/g$1.log" || fail "geti ($1): no summary"
    kill -TERM "${bpid[2]}"; wait "${bpid[2]}" 2>/dev/null
    "$mca" domains --clean >/dev/null 2>&1
    rm -rf "$work/s1" "$work/s2" "$work"/d*.sock
  }
  # Port 45 appears 11 s after the others: longer than a query (10 s), so
  # its get is asked again after the bridge's MCAPI_TIMEOUT (and the
  # cancelled get's late answer comes meanwhile and is dropped).
  run_geti spec 11000
  export MCX_NAMESPACE=bridge$$c MCX_COMPAT=mca-2.0.3
  run_geti mca203
  ;;
config)
  # Bad configurations are refused with a message naming the problem.
  newkey "$work/key"; mkdir -p "$work/s"
  check() { # check EXPECTED_RC PATTERN JSON
    echo "$3" > "$work/c.json"
    out=$("$mca" bridge --check "$work/c.json" 2>&1); rc=$?
    echo "$out"
    [ $rc -eq "$1" ] || fail "rc $rc for $3"
    echo "$out" | grep -q "$2" || fail "no '$2' for $3"
  }
  good='"listen": "ipc:///tmp/x.sock", "key_file": "'$work/key'", "state_dir": "'$work/s'"'
  check 0 "domain 1, listen ipc:///tmp/x.sock, 1 peer" '{"domain": 1, '"$good"', "peers": {"2": "tcp://10.0.0.2:7302"}}'
  check 1 "expected .,. or .}." '{"domain": 1, '"$good"', "peers": {"2": "tcp://h:1"}'
  check 1 'unknown key "colour"' '{"domain": 1, "colour": 3, '"$good"', "peers": {}}'
  check 1 "other than the local one" '{"domain": 1, '"$good"', "peers": {"1": "tcp://h:1"}}'
  check 1 "tcp://host:port or ipc:///path" '{"domain": 1, '"$good"', "peers": {"2": "http://h:1"}}'
  check 1 '"domain" must be a whole number' '{"domain": -1, '"$good"', "peers": {}}'
  # The keep-alive interval: 20..60000 ms or "off"; the default is 500.
  check 0 "1 peer(s), keep-alive 500 ms" '{"domain": 1, '"$good"', "peers": {"2": "tcp://h:1"}}'
  check 0 "keep-alive 20 ms" '{"domain": 1, '"$good"', "peers": {}, "keepalive_ms": 20}'
  check 0 "keep-alive 60000 ms" '{"domain": 1, '"$good"', "peers": {}, "keepalive_ms": 60000}'
  check 0 "keep-alive off" '{"domain": 1, '"$good"', "peers": {}, "keepalive_ms": "off"}'
  for bad in 19 60001 0 1.5 '"on"' '"500"'; do
    check 1 'line 1: "keepalive_ms" must be a whole number from 20 to 60000, or "off"' \
      '{"domain": 1, '"$good"', "peers": {}, "keepalive_ms": '"$bad"'}'
  done
  chmod 644 "$work/key"
  check 1 "readable or writable by others" '{"domain": 1, '"$good"', "peers": {}}'
  printf 'short' > "$work/key"; chmod 600 "$work/key"
  check 1 "16 to 64 bytes" '{"domain": 1, '"$good"', "peers": {}}'
  # The benchmark runs end to end (its numbers are not checked).
  "$mca" bridge --bench --count 200 --rtts 100 > "$work/bench.log" 2>&1 || fail "bench: $(cat "$work/bench.log")"
  cat "$work/bench.log"
  grep -q "MCAPI message through two bridges" "$work/bench.log" && grep -q "raw nng push/pull" "$work/bench.log" ||
    fail "bench output"
  # Between two network namespaces over tcp (root only): the sides run in
  # their namespaces, the namespaces are gone afterwards.
  if [ "$(id -u)" != 0 ]; then
    out=$("$mca" bridge --bench --transport tcp --netns --count 200 --rtts 100 2>&1); rc=$?
    echo "$out"
    [ $rc != 0 ] && echo "$out" | grep -q "needs root" || fail "bench --netns without root: rc $rc"
    echo "(not root: the netns bench itself did not run)"
  elif ! command -v ip >/dev/null; then
    echo "(the ip command (iproute2) is not installed: the netns bench did not run)"
  else
    "$mca" bridge --bench --transport tcp --netns --count 200 --rtts 100 --timeout 120 > "$work/bench.log" 2>&1 ||
      fail "bench --netns: $(cat "$work/bench.log")"
    cat "$work/bench.log"
    ns=$(sed -n 's/^side a, namespace \([^:]*\):.*/\1/p' "$work/bench.log")
    [ -n "$ns" ] || fail "bench --netns: no namespace named"
    grep -q "between two network namespaces over a veth pair" "$work/bench.log" &&
      grep -q "raw / bridge (per round)" "$work/bench.log" || fail "bench --netns output"
    grep -q "network namespaces ${ns}, ${ns%a}b: removed" "$work/bench.log" || fail "bench --netns: no removal"
    ! ip netns list | grep -q "^${ns%a}[ab] " || fail "bench --netns left its namespaces"
  fi
  ;;
starve)
  # The bridges starved of CPU: 8 CPU hogs on this machine (stress-ng --cpu 8
  # when installed, else 8 shell loops) and one bridge stopped outright
  # (SIGSTOP) for 2.5 s mid-stream, as a descheduled process is, with the
  # keep-alive at its default (500 ms, lost after 8 silent intervals). Over
  # tcp between two network namespaces (on the loopback when namespaces
  # cannot be made). No bridge may take the other for lost, and every item
  # arrives once, in order, both ways. Then, still under load, the same
  # bridge stopped for ten times the loss threshold (keep-alive 100 ms:
  # 800 ms; stopped 8 s): that is a real loss, and the other side must say
  # so; once it runs again the two connect again.
  [ "$(id -u)" = 0 ] || { echo "skipped: the starvation test stops processes in network namespaces, which needs root"; exit 77; }
  na=mcxs${tag}a$$ nb=mcxs${tag}b$$ va=vs${tag}a$$ vb=vs${tag}b$$
  ina=() inb=() # the command prefixes that run in namespace a, b (none on the loopback)
  starve_cleanup() {
    for p in "${hogs[@]}"; do kill -9 "$p" 2>/dev/null; done
    [ -n "${na:-}" ] && { timeout 10 ip netns del "$na" 2>/dev/null; timeout 10 ip netns del "$nb" 2>/dev/null; }
    cleanup
  }
  trap starve_cleanup EXIT
  if command -v ip >/dev/null && timeout 10 ip netns add "$na" 2>/dev/null; then
    netns_pair 10.78.0
    ina=(ip netns exec "$na") inb=(ip netns exec "$nb") # ip execs the command: $! is its pid
    u1="tcp://10.78.0.1:7311" u2="tcp://10.78.0.2:7312"
    echo "two network namespaces $na, $nb over a veth pair"
  else
    na=
    u1="tcp://127.0.0.1:$(free_port)" u2="tcp://127.0.0.1:$(free_port)"
    echo "(network namespaces cannot be made here: tcp on the loopback)"
  fi
  if command -v stress-ng >/dev/null; then
    stress-ng --cpu 8 --quiet >/dev/null 2>&1 & hogs+=($!); disown $!
    echo "load: stress-ng --cpu 8"
  else
    for _ in 1 2 3 4 5 6 7 8; do sh -c 'while :; do :; done' & hogs+=($!); disown $!; done
    echo "load: 8 shell loops (stress-ng is not installed)"
  fi
  newkey "$work/key"
  conf 1 "$u1" "$work/key" 2 "$u2"
  conf 2 "$u2" "$work/key" 1 "$u1"
  "${ina[@]}" "$mca" bridge --config "$work/b1.json" >>"$work/b1.log" 2>&1 & bpid[1]=$!; pids+=($!)
  "${inb[@]}" "$mca" bridge --config "$work/b2.json" >>"$work/b2.log" 2>&1 & bpid[2]=$!; pids+=($!)
  wait_state 1 2 up
  wait_state 2 1 up
  n=${MCX_BRIDGE_TEST_ITEMS:-20000}; [ "$n" -gt 20000 ] && n=20000
  "${inb[@]}" "$node" recv 2 2 10 $n >"$work/r2.log" 2>&1 & r2=$!; pids+=($r2)
  "${ina[@]}" "$node" recv 1 1 11 $n >"$work/r1.log" 2>&1 & r1=$!; pids+=($r1)
  wait_line "$work/r2.log" ready; wait_line "$work/r1.log" ready
  "${ina[@]}" "$node" send 1 3 2 2 10 $n >"$work/s1.log" 2>&1 & s1=$!; pids+=($s1)
  "${inb[@]}" "$node" send 2 4 1 1 11 $n >"$work/s2.log" 2>&1 & s2=$!; pids+=($s2)
  wait_line "$work/r2.log" "^progress $((n / 4))\$" 300
  kill -STOP "${bpid[2]}"
  echo "bridge 2 stopped (SIGSTOP) at a quarter of the stream"
  sleep 2.5
  kill -CONT "${bpid[2]}"
  echo "bridge 2 continued after 2.5 s"
  for p in $s1 $s2 $r1 $r2; do
    wait_gone $p 600 || fail "the stream did not end within $(secs 600) s"
    wait $p || fail "a node failed"
  done
  cat "$work/r1.log" "$work/r2.log" | grep -v "^progress\|^ready"
  tail -qn1 "$work/s1.log" "$work/s2.log"
  grep -h "not scheduled" "$work"/b*.log
  grep -q "recv: $n items, in order, no duplicate, 0 lost" "$work/r1.log" || fail "domain 1 receiver"
  grep -q "recv: $n items, in order, no duplicate, 0 lost" "$work/r2.log" || fail "domain 2 receiver"
  if grep -h "keep-alive\|: down (\|no valid hello\|no hello" "$work"/b*.log; then
    fail "a starved or stopped bridge was taken for lost (above)"
  fi
  grep -q "MCAPI_ERR_TRANSMISSION, sending it again" "$work/s1.log" "$work/s2.log" &&
    fail "a sender was refused while no bridge was lost"
  echo "no false loss: both streams complete, in order, no keep-alive loss logged"
  # A real loss: stopped for 10 x the loss threshold.
  for d in 1 2; do kill -TERM "${bpid[$d]}"; wait "${bpid[$d]}"; done
  conf 1 "$u1" "$work/key" 2 "$u2" '"keepalive_ms": 100'
  conf 2 "$u2" "$work/key" 1 "$u1" '"keepalive_ms": 100'
  "${ina[@]}" "$mca" bridge --config "$work/b1.json" >>"$work/b1.log" 2>&1 & bpid[1]=$!; pids+=($!)
  "${inb[@]}" "$mca" bridge --config "$work/b2.json" >>"$work/b2.log" 2>&1 & bpid[2]=$!; pids+=($!)
  wait_state 1 2 up
  wait_state 2 1 up
  kill -STOP "${bpid[2]}"
  echo "bridge 2 stopped for 8 s (keep-alive 100 ms: lost after 800 ms)"
  sleep 8
  grep -q "peer domain 2: down (nothing received for 800 ms: keep-alive)" "$work/b1.log" ||
    fail "bridge 1 did not take a peer stopped for 8 s for lost"
  wait_state 1 2 down
  kill -CONT "${bpid[2]}"
  wait_state 1 2 up
  wait_state 2 1 up
  grep -h "keep-alive\|: down (" "$work"/b*.log
  echo "a stop of 10 x the threshold is a loss; the bridges connected again after it"
  ;;
flood)
  # An outsider without the key floods the listener of bridge 2 while a
  # stream runs from domain 1 to domain 2 (tcp on the loopback, the
  # attackers from other loopback addresses, and in the last phase from the
  # peer's own). The receiver holds at a quarter, half and three quarters of
  # the stream; at each, one attack starts (a slowloris of 80 connections
  # sending a byte of a hello a second; a connect flood, 1000 a second from
  # 60 addresses, 200 held open and silent; both, and 8 slowloris
  # connections from 127.0.0.1 itself), the link is cut (bridge 1 stopped
  # until bridge 2's keep-alive drops it), and the stream must come back
  # while the attack goes on: bridge 2 up again, the receiver 2000 items
  # further, the attacker still running. Every item arrives once, in order.
  # Afterwards bridge 2 holds as many descriptors as before the attack
  # (none leaked). Waits are for events, with ceilings; nothing is timed.
  attack=$(dirname "$0")/bridge_attack.py
  newkey "$work/key"
  u1=$(url 1 tcp) u2=$(url 2 tcp)
  conf 1 "$u1" "$work/key" 2 "$u2" '"keepalive_ms": 200'
  conf 2 "$u2" "$work/key" 1 "$u1" '"keepalive_ms": 200'
  start_bridge 1; start_bridge 2
  wait_state 1 2 up; wait_state 2 1 up
  port=${u2##*:}
  fds() { ls "/proc/$1/fd" 2>/dev/null | wc -l; }
  n=${MCX_BRIDGE_TEST_ITEMS:-40000}; [ "$n" -gt 40000 ] && n=40000; n=$((n / 4000 * 4000))
  "$node" recv 2 2 10 $n pace "hold=$((n / 4)),$((n / 2)),$((3 * n / 4)):$work/r2go" >"$work/r2.log" 2>&1 & r2=$!; pids+=($r2)
  wait_line "$work/r2.log" ready
  "$node" send 1 3 2 2 10 $n >"$work/s1.log" 2>&1 & s1=$!; pids+=($s1)
  wait_line "$work/r2.log" "^held $((n / 4))\$" 120
  base=$(fds "${bpid[2]}")
  echo "bridge 2 holds $base descriptors before the attack"
  phase=0
  for k in $((n / 4)) $((n / 2)) $((3 * n / 4)); do
    phase=$((phase + 1))
    wait_line "$work/r2.log" "^held $k\$" 120
    stopf="$work/stop$phase"
    apids=() alogs=()
    # run_attack NAME ARGS...: in the background, its output in $work/NAME.log
    run_attack() {
      local log="$work/$1.log"; shift
      python3 "$attack" "$@" "$stopf" >"$log" 2>&1 & apids+=($!); alogs+=("$log")
    }
    case $phase in
    1) run_attack a1 slowloris 127.0.0.1 "$port" 80 1 127.0.0.2-127.0.0.11 ;;
    2) run_attack a2 flood 127.0.0.1 "$port" 200 1000 127.0.0.20-127.0.0.79 ;;
    3) run_attack a3 slowloris 127.0.0.1 "$port" 80 1 127.0.0.2-127.0.0.11
       run_attack a3b slowloris 127.0.0.1 "$port" 8 1 127.0.0.1
       run_attack a3c flood 127.0.0.1 "$port" 200 1000 127.0.0.20-127.0.0.79 ;;
    esac
    pids+=("${apids[@]}")
    for f in "${alogs[@]}"; do wait_line "$f" "^ready"; done
    grep -h "^ready" "${alogs[@]}"
    # The link cut under the attack: bridge 1 stopped until bridge 2 drops it.
    kill -STOP "${bpid[1]}"
    wait_state 2 1 down
    kill -CONT "${bpid[1]}"
    echo "phase $phase: the link dropped under the attack"
    touch "$work/r2go.$k"
    wait_state 2 1 up
    wait_line "$work/r2.log" "^progress $((k + 2000))\$" 120
    for p in "${apids[@]}"; do alive "$p" || fail "phase $phase: an attacker ended before the stream came back"; done
    echo "phase $phase: up again and 2000 items further while the attack went on"
    touch "$stopf"
    for p in "${apids[@]}"; do wait "$p" || fail "phase $phase: an attacker failed"; done
    grep -hv "^ready" "${alogs[@]}"
  done
  for p in $s1 $r2; do wait $p || fail "a node failed"; done
  tail -n1 "$work/r2.log"
  grep -q "recv: $n items, in order, no duplicate, 0 lost" "$work/r2.log" || fail "the stream across the attacks"
  grep -q "pre-auth: a connection replaced by a newer one" "$work/b2.log" || fail "the attacks never filled the pre-auth pool"
  grep -h "pre-auth:" "$work/b2.log" | tail -n 3
  # No descriptor leaked: back to what it held before (it may take a moment
  # to see the attackers' closes).
  now=0
  for _ in $(seq 1 "$(ticks 60)"); do
    now=$(fds "${bpid[2]}")
    [ "$now" -le "$base" ] && break
    sleep 0.1
  done
  [ "$now" -le "$base" ] || { ls -l "/proc/${bpid[2]}/fd"; fail "bridge 2 holds $now descriptors after the attacks, $base before"; }
  echo "bridge 2 holds $now descriptors after the attacks ($base before)"
  alive "${bpid[2]}" || fail "bridge 2 died"
  ;;
wrongkey)
  # Handshakes that claim domain 1 without its key (a wrong proof; a hello
  # and no proof) are refused and change nothing in bridge 2's status:
  # neither while the real domain 1 is connected nor while it is away.
  attack=$(dirname "$0")/bridge_attack.py
  two_bridges tcp
  port=${u2##*:}
  for round in up down; do
    if [ $round = down ]; then
      kill "${bpid[1]}"; wait "${bpid[1]}"
      wait_state 2 1 down
    fi
    fresh_status 2
    before=$(grep "^peer domain 1 " "$work/s2/status")
    python3 "$attack" wrongkey 127.0.0.1 "$port" 1 10 >"$work/w$round.log" 2>&1 || fail "the attacker failed: $(cat "$work/w$round.log")"
    cat "$work/w$round.log"
    grep -q "^wrongkey: 10 refused, 0 answered\$" "$work/w$round.log" || fail "a wrong key was answered ($round)"
    fresh_status 2
    after=$(grep "^peer domain 1 " "$work/s2/status")
    echo "$after"
    [ "$before" = "$after" ] || fail "wrong keys changed the status ($round): '$before' -> '$after'"
  done
  # The log: at most 20 lines of refusals per 10 s, the rest counted.
  [ "$(grep -c "refused domain 1: wrong key" "$work/b2.log")" -ge 10 ] || fail "the refusals are not logged"
  grep -q "refused domain 1: no key proof\|domain 1 sent no key proof" "$work/b2.log" || fail "the hello without a proof is not logged"
  grep -q "peer domain 1 .* state down .*why \"connection lost" "$work/s2/status" || fail "the status lost why the peer is down"
  ;;
killstorm)
  # kill -9 of the sending bridge at two chosen moments of a take from its
  # proxy, then of the bridges at random moments of a stream, 100 times in all,
  # either side at random, each restarted at once: the sending side's
  # restart adopts its proxy (queue and all) and sends its journal's frames
  # again, the receiving side's skips what its record has. The receiver
  # counts: every item whose send succeeded arrives once, in order (a send
  # refused while a bridge is away, MCAPI_ERR_TRANSMISSION, is made again);
  # the sender never loses its proxy. A kill lands only once the stream has
  # moved on since the last restart (the sender made 250 more items: more
  # than the proxy's queue, the window and the remote queue hold, so both
  # bridges are forwarding); then after 0..39 ms.
  # MCX_BRIDGE_TEST_KEEPALIVE=MS: the bridges' keep-alive interval (more
  # pings, more of their moments hit by a kill; default: the bridges' own).
  two_bridges tcp "${MCX_BRIDGE_TEST_KEEPALIVE:+\"keepalive_ms\": $MCX_BRIDGE_TEST_KEEPALIVE}"
  kills=${MCX_BRIDGE_TEST_KILLS:-100}
  # Its own count (not MCX_BRIDGE_TEST_ITEMS): it must outlast the kills.
  n=${MCX_BRIDGE_KILLSTORM_ITEMS:-300000}
  "$node" recv 2 2 14 "$n" pace >"$work/r.log" 2>&1 & r=$!; pids+=($r)
  wait_line "$work/r.log" ready
  "$node" send 1 3 2 2 14 "$n" 1 250 >"$work/s.log" 2>&1 & s=$!; pids+=($s)
  # First the two moments of a take that a random kill seldom hits
  # (MCX_BRIDGE_TAKE_FAULT=K:S, a fault injection for tests): the sending
  # bridge killed with a message taken from its proxy's queue and held, not
  # yet journaled (0: the sweep puts it back, the restart takes it again),
  # then with its pass's frames journaled and the messages not yet given
  # back (1: the sweep puts them back, the restart discards them from the
  # queue: the journal sends them). Each faulty bridge is the restart after
  # the kill before it.
  wait_line "$work/s.log" "^sent 1000\$"
  kill -9 "${bpid[1]}"; wait "${bpid[1]}" 2>/dev/null
  for step in 0 1; do
    MCX_BRIDGE_TAKE_FAULT="300:$step" start_bridge 1
    wait_gone "${bpid[1]}" || fail "the bridge with the fault at step $step of a take is still running"
    wait "${bpid[1]}" 2>/dev/null
    grep -q "MCX_BRIDGE_TAKE_FAULT: killed at step $step of take 300" "$work/b1.log" ||
      fail "the fault at step $step of a take did not happen"
    echo "the bridge of domain 1 killed itself at step $step of a take"
  done
  start_bridge 1
  wait_line "$work/b1.log" "message(s) the journal has discarded from its queue"
  # moving_on WHAT: waits until the sender has made 250 more items (the
  # stream runs), or fails naming WHAT (what happened last)
  moving_on() {
    local prev moved=0
    prev=$(grep -c '^sent ' "$work/s.log")
    for _ in $(seq 1 "$(ticks 120)"); do
      [ "$(grep -c '^sent ' "$work/s.log")" -gt "$prev" ] && { moved=1; break; }
      alive "$s" && alive "$r" || break
      sleep 0.1
    done
    alive "$r" || fail "the receiver stopped after $1: $(tail -n 1 "$work/r.log")"
    alive "$s" || fail "the stream ended after $1: $(tail -n 3 "$work/s.log")"
    [ "$moved" = 1 ] || fail "the stream did not move on within $(secs 120) s after $1"
  }
  # A clean stop (SIGTERM, SIGINT) loses nothing either: the stopping
  # bridge leaves its proxies, queues and all, to its restart, as a kill -9
  # does (before, they were deleted with its node: the sender's next send
  # got MCAPI_ERR_ENDP_DELETED and what the queue held was lost). Each side
  # stopped three times mid-stream, each stop exits 0, each restart adopts.
  stops=0
  for sig in TERM TERM INT INT TERM TERM; do
    side=$((stops % 2 + 1))
    moving_on "$stops clean stops"
    kill -"$sig" "${bpid[$side]}"
    wait "${bpid[$side]}"; rc=$?
    [ "$rc" = 0 ] || fail "bridge $side exited with $rc on SIG$sig"
    echo "--- $(date -u +%T.%N) stopped by the test (SIG$sig), restarted" >>"$work/b$side.log"
    start_bridge "$side"
    stops=$((stops + 1))
  done
  [ "$(grep -c 'mca bridge d1: stopped' "$work/b1.log")" -ge 3 ] || fail "bridge 1 did not say it stopped"
  grep 'left for the restart to adopt' "$work/b1.log"
  [ "$(grep -c 'left for the restart to adopt' "$work/b1.log")" -ge 3 ] ||
    fail "bridge 1 did not leave its proxy at each clean stop"
  # The sender is faster than the paced receiver: the proxy's queue held
  # messages at a stop (what was lost before).
  grep -q 'left for the restart to adopt, [1-9][0-9]* message(s) queued' "$work/b1.log" ||
    fail "no clean stop left messages queued in the proxy (the case is not shown)"
  k=0 k1=0 k2=0
  while [ "$k" -lt "$kills" ]; do
    moving_on "$k kills"
    sleep "$(awk -v r="$RANDOM" 'BEGIN { printf "%.3f", (r % 40) / 1000 }')"
    side=$((RANDOM % 2 + 1))
    # The kills' log: when, which side, how far the stream was (to place a stall).
    echo "$(date -u +%T.%N) kill $((k + 1)) side $side sent $(sed -n 's/^sent //p' "$work/s.log" | tail -n1)" \
      "received $(sed -n 's/^progress //p' "$work/r.log" | tail -n1)" >>"$work/kills.log"
    kill -9 "${bpid[$side]}"; wait "${bpid[$side]}" 2>/dev/null
    echo "--- $(date -u +%T.%N) killed by the test (kill $((k + 1))), restarted" >>"$work/b$side.log"
    start_bridge "$side"
    k=$((k + 1))
    if [ "$side" = 1 ]; then k1=$((k1 + 1)); else k2=$((k2 + 1)); fi
  done
  echo "$k kills -9 mid-stream: $k1 of the sending side's bridge, $k2 of the receiving side's"
  wait $s || fail "sender: $(tail -n 5 "$work/s.log")"
  wait $r || fail "receiver: $(tail -n 5 "$work/r.log")"
  tail -n 1 "$work/s.log"; tail -n 1 "$work/r.log"
  grep -q "^recv: $n items, in order, no duplicate, 0 lost\$" "$work/r.log" || fail "the receiver's count"
  grep -q "^send: $n items sent, 0 refused" "$work/s.log" || fail "the sender lost its proxy"
  echo "sends refused while a bridge was away and made again: $(grep -c 'MCAPI_ERR_TRANSMISSION, sending it again' "$work/s.log") runs"
  echo "adoptions: $(grep -c 'proxy port .* adopted' "$work/b1.log"); journal frames sent again: $(grep -c 'not known to be acknowledged' "$work/b1.log") times"
  [ "$k1" -ge 10 ] && [ "$k2" -ge 10 ] || fail "one side was killed too seldom ($k1, $k2)"
  ;;
closerace)
  # A close of a peer's connection by another thread (a new connection
  # replacing it, its reader or keeper finding it lost) can land between
  # the moment a read or write picks the stream and the moment it starts;
  # Debian's nng never ends an operation started on a closed stream. Here
  # the close is made to land there (MCX_BRIDGE_IO_FAULT), on each side,
  # for a read (the link thread's: before, it waited forever and the
  # stream stopped for good: the receiver's 60 s timeout ended the test)
  # and for a write (the node thread's: before, it waited for its timeout,
  # 5 s with the keep-alive off, and logged "Timed out"): each must be
  # refused at once, the connection made again, and the stream go on: every
  # item once, in order. The keep-alive is off, so nothing else ends them.
  newkey "$work/key"
  u1=$(url 1 tcp) u2=$(url 2 tcp)
  conf 1 "$u1" "$work/key" 2 "$u2" '"keepalive_ms": "off"'
  conf 2 "$u2" "$work/key" 1 "$u1" '"keepalive_ms": "off"'
  MCX_BRIDGE_IO_FAULT=read:40,write:400 start_bridge 1
  MCX_BRIDGE_IO_FAULT=read:400,write:40 start_bridge 2
  wait_state 1 2 up; wait_state 2 1 up
  m=${MCX_BRIDGE_TEST_ITEMS:-40000}
  "$node" recv 2 2 10 "$m" pace >"$work/r2.log" 2>&1 & r2=$!; pids+=($r2)
  wait_line "$work/r2.log" ready
  "$node" send 1 3 2 2 10 "$m" >"$work/s1.log" 2>&1 & s1=$!; pids+=($s1)
  for d in 1 2; do
    for op in read write; do
      wait_line "$work/b$d.log" "MCX_BRIDGE_IO_FAULT: the connection closed before $op"
    done
  done
  for p in $s1 $r2; do wait "$p" || fail "a node failed: $(tail -n 2 "$work/s1.log" "$work/r2.log")"; done
  tail -n 1 "$work/s1.log" "$work/r2.log"
  grep -q "^recv: $m items, in order, no duplicate, 0 lost\$" "$work/r2.log" || fail "the receiver's count"
  grep -q "^send: $m items sent, 0 refused" "$work/s1.log" || fail "the sender's count"
  for d in 1 2; do
    grep "MCX_BRIDGE_IO_FAULT\|failed\|down" "$work/b$d.log"
    # the read refused: its reader reports the connection down at once
    grep -A3 "closed before read" "$work/b$d.log" | grep -q "down (Object closed)" ||
      fail "bridge $d: the refused read did not end its reader"
    grep -q "a write of [0-9]* bytes failed (Object closed)" "$work/b$d.log" ||
      fail "bridge $d: the write after the close was not refused (waited for its timeout?)"
  done
  ;;
statedir)
  # The state directory and its files: what another user could have made or
  # changed is refused, links are not followed, a truncated record is an
  # error at the start and no fault while running.
  newkey "$work/key"
  u1=$(url 1 ipc) u2=$(url 2 ipc)
  conf 1 "$u1" "$work/key" 2 "$u2"
  conf 2 "$u2" "$work/key" 1 "$u1"
  chmod 755 "$work/s1" "$work/s2"
  rec="$work/s2/delivered-d2-from-d1"
  # refused B2JSON PATTERN: by --check, and by a start (which must end at once)
  refused() {
    out=$(timeout 20 "$mca" bridge --check "$1" 2>&1); rc=$?
    echo "$out"
    [ $rc = 124 ] && fail "--check hung on $2"
    [ $rc = 1 ] && echo "$out" | grep -q "$2" || fail "--check: rc $rc, no '$2'"
    timeout 60 "$mca" bridge --config "$1" >"$work/x.log" 2>&1; rc=$?
    [ $rc = 1 ] && grep -q "$2" "$work/x.log" || { cat "$work/x.log"; fail "a start: rc $rc, no '$2'"; }
  }
  chmod 775 "$work/s2"
  refused "$work/b2.json" "state_dir $work/s2 is writable by its group or others (mode 0775)"
  chmod 757 "$work/s2"
  refused "$work/b2.json" "is writable by its group or others (mode 0757)"
  chmod 755 "$work/s2"
  ln -s "$work/s2" "$work/s2link"
  sed "s|\"state_dir\": \"$work/s2\"|\"state_dir\": \"$work/s2link\"|" "$work/b2.json" >"$work/b2l.json"
  refused "$work/b2l.json" "state_dir $work/s2link is a symbolic link"
  # Its ancestors (as OpenSSH's StrictModes): one writable by group or others
  # and not sticky, or another user's, could have the state directory
  # replaced: refused, naming it; a sticky one (as /tmp) is fine. Through a
  # symbolic link, the directories it is in now are the ones checked.
  mkdir -p "$work/anc/mid/s2"; chmod 755 "$work/anc" "$work/anc/mid" "$work/anc/mid/s2"
  sed "s|\"state_dir\": \"$work/s2\"|\"state_dir\": \"$work/anc/mid/s2\"|" "$work/b2.json" >"$work/b2a.json"
  out=$(timeout 20 "$mca" bridge --check "$work/b2a.json" 2>&1) || fail "--check of good ancestors: $out"
  chmod 775 "$work/anc/mid"
  refused "$work/b2a.json" "its parent directory $work/anc/mid is writable by its group or others and not sticky (mode 0775)"
  chmod 755 "$work/anc/mid"; chmod 757 "$work/anc"
  refused "$work/b2a.json" "its parent directory $work/anc is writable by its group or others and not sticky (mode 0757)"
  chmod 1777 "$work/anc"
  out=$(timeout 20 "$mca" bridge --check "$work/b2a.json" 2>&1) || fail "--check with a sticky ancestor: $out"
  chmod 755 "$work/anc"
  ln -s "$work/anc/mid" "$work/midlink"
  sed "s|\"state_dir\": \"$work/s2\"|\"state_dir\": \"$work/midlink/s2\"|" "$work/b2.json" >"$work/b2m.json"
  chmod 777 "$work/anc/mid"
  refused "$work/b2m.json" "its parent directory $work/midlink is writable by its group or others and not sticky (mode 0777)"
  chmod 755 "$work/anc/mid"
  if [ "$(id -u)" = 0 ]; then
    chown 65534 "$work/anc"
    refused "$work/b2a.json" "its parent directory $work/anc is owned by uid 65534, neither root nor this bridge's user"
    chown 0 "$work/anc"
  fi
  # Links where the status file and its temporary go: neither is followed.
  printf precious >"$work/victim"; printf precious >"$work/victim2"; chmod 600 "$work/victim" "$work/victim2"
  ln -s "$work/victim" "$work/s2/status.tmp"
  ln -s "$work/victim2" "$work/s2/status"
  start_bridge 2; start_bridge 1
  wait_state 1 2 up; wait_state 2 1 up
  [ "$(cat "$work/victim")" = precious ] && [ "$(cat "$work/victim2")" = precious ] ||
    fail "a link in the state directory was followed"
  [ -f "$work/s2/status" ] && [ ! -L "$work/s2/status" ] || fail "status is not a file of its own"
  [ "$(stat -c %s "$rec")" = 16 ] || fail "the record is not 16 bytes"
  # The record truncated under the running bridge: no fault, the stream goes
  # on, the record is whole again after the next delivery.
  m=20000
  "$node" recv 2 2 10 $m pace >"$work/r2.log" 2>&1 & r2=$!; pids+=($r2)
  wait_line "$work/r2.log" ready
  "$node" send 1 3 2 2 10 $m >"$work/s1.log" 2>&1 & s1=$!; pids+=($s1)
  wait_line "$work/r2.log" "^progress 2000\$"
  truncate -s 0 "$rec"
  echo "record truncated mid-stream"
  wait_line "$work/r2.log" "^progress 4000\$"
  alive "${bpid[2]}" || fail "bridge 2 died after its record was truncated (SIGBUS?)"
  for p in $s1 $r2; do wait $p || fail "a node failed"; done
  grep -q "recv: $m items, in order, no duplicate, 0 lost" "$work/r2.log" || fail "the stream across the truncation"
  [ "$(stat -c %s "$rec")" = 16 ] || fail "the record was not written whole again"
  kill "${bpid[1]}" "${bpid[2]}"; wait "${bpid[1]}" "${bpid[2]}"
  # Records that are not the bridge's own, whole file: refused at the start.
  cp "$rec" "$work/rec.good"
  truncate -s 8 "$rec"
  refused "$work/b2.json" "delivered-d2-from-d1 has 8 bytes, not 16: truncated"
  cp "$work/rec.good" "$rec"; chmod 666 "$rec"
  refused "$work/b2.json" "delivered-d2-from-d1 is writable by its group or others (mode 0666)"
  rm -f "$rec"; mkfifo -m 600 "$rec"
  refused "$work/b2.json" "delivered-d2-from-d1 is a FIFO, not a regular file"
  rm -f "$rec"; ln -s "$work/rec.good" "$rec"
  refused "$work/b2.json" "delivered-d2-from-d1 is a symbolic link"
  rm -f "$rec"; cp "$work/rec.good" "$rec"; chmod 600 "$rec"
  if [ "$(id -u)" = 0 ]; then
    chown 65534 "$rec"
    refused "$work/b2.json" "delivered-d2-from-d1 is owned by uid 65534, not by this bridge's user (uid 0)"
    chown 0 "$rec"
    # Made by another user, mode 0600 (setpriv as uid 65534, in /tmp, which
    # it may write; then moved in by root: the owner stays).
    other=/tmp/mca-bridge-$tag-other-$$
    rm -f "$other"
    setpriv --reuid=65534 --regid=65534 --clear-groups sh -c "umask 077; head -c 16 /dev/zero > '$other'" 2>/dev/null &&
      mv "$other" "$work/s2/delivered-d2-from-d3" && echo "(a record made by uid 65534 with setpriv)"
    if [ -f "$work/s2/delivered-d2-from-d3" ]; then
      conf 2 "$u2" "$work/key" 3 "ipc://$work/d3.sock"
      refused "$work/b2.json" "delivered-d2-from-d3 is owned by uid 65534"
      rm -f "$work/s2/delivered-d2-from-d3"
      conf 2 "$u2" "$work/key" 1 "$u1"
    fi
  else
    echo "(not root: a record of another owner cannot be made here; that check did not run)"
  fi
  start_bridge 2; start_bridge 1
  wait_state 2 1 up
  echo "the checked record restored: up again"
  ;;
checkfiles)
  # mca bridge --check refuses what is not a regular file (without waiting
  # on it), and a NUL or invalid UTF-8 in a string of the configuration,
  # naming the key.
  newkey "$work/key"; mkdir -p "$work/s"; chmod 755 "$work/s"
  mkfifo -m 600 "$work/fifo"; mkdir -m 700 "$work/dir"
  # ck EXPECTED_RC PATTERN: --check of $work/c.json (written by the caller)
  ck() {
    out=$(timeout 20 "$mca" bridge --check "$work/c.json" 2>&1); rc=$?
    echo "$out"
    [ $rc = 124 ] && fail "--check hung (on '$2')"
    [ $rc -eq "$1" ] || fail "rc $rc for '$2': $(cat "$work/c.json")"
    echo "$out" | grep -q -- "$2" || fail "no '$2'"
  }
  # cj KEY_FILE [MORE_JSON]: a configuration, else good
  cj() {
    printf '{"domain": 1, "listen": "tcp://127.0.0.1:7301", "peers": {"2": "tcp://127.0.0.1:7302"}, "key_file": "%s", "state_dir": "%s"%s}\n' \
      "$1" "$work/s" "${2:+, $2}" >"$work/c.json"
  }
  cj "$work/key"; ck 0 "domain 1, listen tcp://127.0.0.1:7301, 1 peer"
  cj "$work/fifo"; ck 1 "key file $work/fifo is a FIFO, not a regular file"
  cj "$work/dir"; ck 1 "key file $work/dir is a directory, not a regular file"
  cj /dev/null; ck 1 "key file /dev/null is a character device, not a regular file"
  cj "$work/nokey"; ck 1 "key file $work/nokey: no such file"
  cp "$work/key" "$work/kéy"; cj "$work/kéy"; ck 0 "1 peer"
  # The configuration itself a FIFO.
  out=$(timeout 20 "$mca" bridge --check "$work/fifo" 2>&1); rc=$?
  echo "$out"
  [ $rc = 1 ] && echo "$out" | grep -q "is a FIFO, not a regular file" || fail "--check of a FIFO: rc $rc"
  # NUL and invalid UTF-8, named by key.
  cj "$work/key\\u0000.bak"; ck 1 'the string of "key_file" has a NUL character (\\u0000)'
  printf '{"domain": 1, "listen": "tcp://127.0.0.1:7301\0", "peers": {}, "key_file": "%s", "state_dir": "%s"}\n' \
    "$work/key" "$work/s" >"$work/c.json"
  ck 1 'line 1: the string of "listen" has a NUL byte'
  printf '{"domain": 1, "listen": "tcp://127.0.0.1:7301", "peers": {},\n "key_file": "%s",\n "state_dir": "%s\xff"}\n' \
    "$work/key" "$work/s" >"$work/c.json"
  ck 1 'line 3: the string of "state_dir" has invalid UTF-8'
  printf '{"domain": 1, "listen": "tcp://127.0.0.1:7301", "peers": {"2": "tcp://h\xc0\xaf:1"}, "key_file": "%s", "state_dir": "%s"}\n' \
    "$work/key" "$work/s" >"$work/c.json"
  ck 1 'the string of "peers.2" has invalid UTF-8'
  printf '{"domain": 1, "listen": "tcp://127.0.0.1:7301", "peers": {"2\xed\xa0\x80": "tcp://h:1"}, "key_file": "%s", "state_dir": "%s"}\n' \
    "$work/key" "$work/s" >"$work/c.json"
  ck 1 'a key of "peers" has invalid UTF-8'
  cj "$work/key" '"tls": {"cert_key": "'"$work"'/c.pem", "ca": "'"$work"'/ca\ud800.pem"}'
  ck 1 'the string of "tls.ca" has invalid UTF-8 (a lone surrogate escape)'
  # TLS files: regular, private where they hold a key, parsed.
  cj "$work/key" '"tls": {"cert_key": "'"$work"'/fifo", "ca": "'"$work"'/fifo"}'
  ck 1 "TLS cert_key $work/fifo is a FIFO, not a regular file"
  cj "$work/key" '"tls": {"cert_key": "'"$work"'/dir", "ca": "'"$work"'/dir"}'
  ck 1 "TLS cert_key $work/dir is a directory"
  if command -v openssl >/dev/null; then
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$work/ca.key" \
      -out "$work/ca.pem" -days 2 -subj "/CN=ca" 2>/dev/null || fail "openssl"
    cat "$work/ca.pem" "$work/ca.key" >"$work/c.pem"; chmod 600 "$work/c.pem"; chmod 644 "$work/ca.pem"
    cj "$work/key" '"tls": {"cert_key": "'"$work"'/c.pem", "ca": "'"$work"'/ca.pem"}'
    ck 0 "1 peer"
    cj "$work/key" '"tls": {"cert_key": "'"$work"'/c.pem", "ca": "'"$work"'/fifo"}'
    ck 1 "TLS ca $work/fifo is a FIFO, not a regular file"
    cj "$work/key" '"tls": {"cert_key": "'"$work"'/c.pem", "ca": "'"$work"'/none.pem"}'
    ck 1 "TLS ca $work/none.pem: no such file"
    chmod 644 "$work/c.pem"
    cj "$work/key" '"tls": {"cert_key": "'"$work"'/c.pem", "ca": "'"$work"'/ca.pem"}'
    ck 1 "TLS cert_key $work/c.pem is readable or writable by others (chmod 600 it)"
    chmod 600 "$work/c.pem"; chmod 666 "$work/ca.pem"
    ck 1 "TLS ca $work/ca.pem is writable by others (chmod go-w it)"
    chmod 644 "$work/ca.pem"
    printf 'not a certificate\n' >"$work/bad.pem"; chmod 600 "$work/bad.pem"
    cj "$work/key" '"tls": {"cert_key": "'"$work"'/bad.pem", "ca": "'"$work"'/ca.pem"}'
    ck 1 "TLS cert_key $work/bad.pem: no PEM certificate with its private key"
    cj "$work/key" '"tls": {"cert_key": "'"$work"'/c.pem", "ca": "'"$work"'/bad.pem"}'
    ck 1 "TLS ca $work/bad.pem: no PEM CA certificate"
  else
    echo "(openssl is not installed: the checks of good and bad certificates did not run)"
  fi
  ;;
*)
  echo "unknown case $case_"; exit 2 ;;
esac
# Sanitizer builds: a report in any process's output fails the test.
if grep -l "AddressSanitizer\|LeakSanitizer\|ThreadSanitizer\|runtime error:" "$work"/*.log 2>/dev/null; then
  fail "sanitizer report above"
fi
echo "bridge_$case_: ok"
exit 0
