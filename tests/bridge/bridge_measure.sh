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
set -u
mca=$1 node=$2
rate() { awk -v n="$1" -v a="$2" -v b="$3" 'BEGIN { printf "%.2f s => %d/s", b - a, n / (b - a) }'; }
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
