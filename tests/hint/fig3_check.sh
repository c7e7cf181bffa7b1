#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Runs the sensor-controller-actuator example in its original and its
# rewritten form (tests/hint/fig3_driver.c: SCHED_FIFO, pinned, switches
# counted by getrusage) and checks the behaviour the rewrite is for: the
# context switches of sensor + controller per period, rounded, fall from 4
# (controller woken, blocks on plant_lock, gets it, waits again) to 2
# (plant_lock handed over, waits again). Rounding the mean over 400 periods
# absorbs a stray switch now and then. Skips (77) without SCHED_FIFO/pinning.
orig="$1" hinted="$2"
o=$("$orig" 400) ; rc=$?
echo "original: $o"
[ $rc -eq 77 ] && exit 77
[ $rc -ne 0 ] && exit 1
h=$("$hinted" 400) ; rc=$?
echo "rewritten: $h"
[ $rc -eq 77 ] && exit 77
[ $rc -ne 0 ] && exit 1
ro=$(echo "$o" | awk '/^csw\/period/ { printf "%d", $2 + 0.5 }')
rh=$(echo "$h" | awk '/^csw\/period/ { printf "%d", $2 + 0.5 }')
echo "context switches per period: original $ro, rewritten $rh"
[ "$ro" = 4 ] && [ "$rh" = 2 ] && exit 0
echo "FAIL: expected 4 -> 2"
exit 1
