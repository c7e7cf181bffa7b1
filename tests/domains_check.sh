#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# `mca domains` shows a crashed run's partition with its dead node and queued
# message; `mca domains --clean` removes it.
set -euo pipefail
mca="$1"; leaver="$2"
export MCX_NAMESPACE="domains_check_$$"
obj="/dev/shm/mcx-$(id -u)-${MCX_NAMESPACE}-d40"
rm -f "$obj"
"$leaver" --leave-stale 40
test -e "$obj" || { echo "no partition left behind"; exit 1; }
out=$("$mca" domains --namespace "$MCX_NAMESPACE")
echo "$out"
grep -q "${MCX_NAMESPACE}-d40: domain 40" <<<"$out"
grep -q "0 node(s) alive, 1 dead" <<<"$out"
grep -q "DEAD" <<<"$out"
grep -q "port 5: 1 queued" <<<"$out"
"$mca" domains --clean --namespace "$MCX_NAMESPACE" | grep "removed" >/dev/null
test ! -e "$obj" || { echo "--clean left $obj"; exit 1; }
echo "mca domains: ok"
