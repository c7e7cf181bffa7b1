#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Rough rates of bridged channels (docs/bridge.md: measured costs), not a
# test: two bridges over ipc:// on this machine, three rounds each of
#   N scalars (widths 8, 4, 2, 1; every 7th first received with a wrong width),
#   N such scalars from a remote sender (sclsendo / sclrecvc),
#   P packets of 216 bytes from a remote sender (pktsendo / pktrecvc),
#   P packets of 216 bytes to a remote receiver (pktsend / pktrecv).
# Each time runs from the start of the second program to the receiver's
# exit (it includes that program's start, its get and its connect).
#   bridge_measure.sh MCA BRIDGE_NODE      (N=200000 P=100000 by default)
#
# With "netns" (root): the bridges in two network namespaces joined by a veth
# pair over tcp, keep-alive at its default; M messages of 216 bytes from
# domain 1 to domain 2 (both ways at once with BOTH=1), ROUNDS times quiet
# and ROUNDS times with HOGS CPU hogs (default 8: four times this 2-core
# machine), in the loaded rounds bridge 2 also stopped (SIGSTOP) for STOP
# seconds (default 2.5; 0: not) a quarter into the stream. Prints per round
# the messages/s (sender's start to receiver's end) and the false losses
# (keep-alive losses, connections down, refused hellos in the bridges' logs).
#   bridge_measure.sh MCA BRIDGE_NODE netns  (M=100000 ROUNDS=3 HOGS=8 STOP=2.5)
set -u
mca=$1 node=$2
rate() { awk -v n="$1" -v a="$2" -v b="$3" 'BEGIN { printf "%.2f s => %d/s", b - a, n / (b - a) }'; }
if [ "${3:-}" = netns ]; then
  [ "$(id -u)" = 0 ] || { echo "bridge_measure.sh netns: needs root (ip netns)"; exit 2; }
  M=${M:-100000} ROUNDS=${ROUNDS:-3} HOGS=${HOGS:-8} STOP=${STOP:-2.5} BOTH=${BOTH:-0}
  work=$(mktemp -d /tmp/b2-measure.XXXXXX)
  na=mcxm$$a nb=mcxm$$b
  export MCX_NAMESPACE=b2meas$$
  hogs=() bp=()
  fin() {
    for p in "${hogs[@]}" "${bp[@]}"; do kill -CONT "$p" 2>/dev/null; kill -9 "$p" 2>/dev/null; done
    wait 2>/dev/null
    ip netns del $na 2>/dev/null; ip netns del $nb 2>/dev/null
    $mca domains --clean >/dev/null 2>&1
    rm -rf "$work"
  }
  trap fin EXIT
  ip netns add $na && ip netns add $nb && ip link add vm$$a type veth peer name vm$$b &&
    ip link set vm$$a netns $na && ip link set vm$$b netns $nb &&
    ip netns exec $na ip addr add 10.79.0.1/24 dev vm$$a && ip netns exec $na ip link set vm$$a up &&
    ip netns exec $na ip link set lo up && ip netns exec $nb ip addr add 10.79.0.2/24 dev vm$$b &&
    ip netns exec $nb ip link set vm$$b up && ip netns exec $nb ip link set lo up || { echo "netns setup failed"; exit 1; }
  head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > $work/key; chmod 600 $work/key
  u1=tcp://10.79.0.1:7321 u2=tcp://10.79.0.2:7322
  for d in 1 2; do
    mkdir -p $work/s$d; o=$((3 - d)); uu=$([ $d = 1 ] && echo $u1 || echo $u2); uo=$([ $d = 1 ] && echo $u2 || echo $u1)
    printf '{"domain": %s, "listen": "%s", "peers": {"%s": "%s"}, "key_file": "%s", "state_dir": "%s/s%s"}\n' \
      $d $uu $o $uo $work/key $work $d > $work/b$d.json
  done
  ip netns exec $na $mca bridge --config $work/b1.json >> $work/b1.log 2>&1 & bp+=($!)
  ip netns exec $nb $mca bridge --config $work/b2.json >> $work/b2.log 2>&1 & bp+=($!)
  for _ in $(seq 600); do grep -q "state up" $work/s1/status 2>/dev/null && grep -q "state up" $work/s2/status 2>/dev/null && break; sleep 0.1; done
  losses() { cat $work/b1.log $work/b2.log | grep -c "keep-alive\|: down (\|no valid hello\|no hello"; }
  port=10
  for load in quiet loaded; do
    if [ $load = loaded ]; then
      for _ in $(seq $HOGS); do sh -c 'while :; do :; done' & hogs+=($!); done
    fi
    for r in $(seq $ROUNDS); do
      port=$((port + 1)); l0=$(losses)
      ip netns exec $nb $node recv 2 2 $port $M > $work/r.log 2>&1 & rp=$!
      [ $BOTH = 1 ] && { ip netns exec $na $node recv 1 1 $((port + 50)) $M > $work/r1.log 2>&1 & rp1=$!; }
      while ! grep -q ready $work/r.log; do sleep 0.05; done
      t0=$(date +%s.%N)
      ip netns exec $na $node send 1 3 2 2 $port $M > $work/s.log 2>&1 & sp=$!
      [ $BOTH = 1 ] && { ip netns exec $nb $node send 2 4 1 1 $((port + 50)) $M > $work/s1.log 2>&1 & sp1=$!; }
      stopped=
      if [ $load = loaded ] && [ "$STOP" != 0 ]; then
        while ! grep -q "^progress $((M / 4))\$" $work/r.log && kill -0 $rp 2>/dev/null; do sleep 0.05; done
        kill -STOP ${bp[1]}; sleep $STOP; kill -CONT ${bp[1]}; stopped=", bridge 2 stopped ${STOP} s"
      fi
      wait $rp; t1=$(date +%s.%N); wait $sp
      [ $BOTH = 1 ] && { wait $rp1; wait $sp1; }
      echo "$load round $r ($([ $load = loaded ] && echo "$HOGS CPU hogs" || echo "no load")$stopped): $(tail -n1 $work/r.log | cut -c1-50) in $(rate $M $t0 $t1) messages; false losses: $(($(losses) - l0)); refused sends: $(grep -c 'sending it again' $work/s.log)"
    done
  done
  echo "--- loss lines in the bridges' logs:"; grep -h "keep-alive\|: down (\|no valid hello\|no hello\|not scheduled" $work/b1.log $work/b2.log
  exit 0
fi
work=$(mktemp -d /tmp/b2-measure.XXXXXX)
export MCX_NAMESPACE=b2meas$$
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > $work/key; chmod 600 $work/key
for d in 1 2; do mkdir -p $work/s$d; o=$((3-d))
printf '{"domain": %s, "listen": "ipc://%s/d%s.sock", "peers": {"%s": "ipc://%s/d%s.sock"}, "key_file": "%s", "state_dir": "%s/s%s"}\n' $d $work $d $o $work $o $work/key $work $d > $work/b$d.json
$mca bridge --config $work/b$d.json >> $work/b$d.log 2>&1 & eval b$d=$!
done
for _ in $(seq 100); do grep -q "state up" $work/s1/status 2>/dev/null && grep -q "state up" $work/s2/status 2>/dev/null && break; sleep 0.1; done
N=${N:-200000}
for r in 1 2 3; do
$node sclrecv 2 2 40 $N > $work/r.log 2>&1 & rp=$!
sleep 0.3
t0=$(date +%s.%N); $node sclsend 1 3 2 2 40 $N 100000000 > $work/s.log 2>&1; wait $rp; t1=$(date +%s.%N)
echo "scalars round $r: $(tail -n1 $work/r.log | cut -c1-60) ... in $(rate $N $t0 $t1) scalars"
$node sclsendo 1 3 30 $N 100000000 > $work/ss.log 2>&1 & sp=$!
sleep 0.3
t0=$(date +%s.%N); $node sclrecvc 2 2 20 1 3 30 $N > $work/sr.log 2>&1; wait $sp; t1=$(date +%s.%N)
echo "sclfrom round $r: $(tail -n1 $work/sr.log | cut -c1-61) ... in $(rate $N $t0 $t1) scalars"
done
P=${P:-100000}
for r in 1 2 3; do
$node pktsendo 1 3 30 $P > $work/ps.log 2>&1 & sp=$!
sleep 0.3
t0=$(date +%s.%N); $node pktrecvc 2 2 20 1 3 30 $P > $work/pr.log 2>&1; wait $sp; t1=$(date +%s.%N)
echo "pktfrom round $r: $(tail -n1 $work/pr.log) in $(rate $P $t0 $t1) packets"
$node pktrecv 2 2 20 $P > $work/fr.log 2>&1 & fp=$!
sleep 0.3
t0=$(date +%s.%N); $node pktsend 1 3 2 2 20 $P > $work/fs.log 2>&1; wait $fp; t1=$(date +%s.%N)
echo "pktto   round $r: $(tail -n1 $work/fr.log) in $(rate $P $t0 $t1) packets"
done
kill $b1 $b2; wait
$mca domains --clean >/dev/null 2>&1
rm -rf $work
