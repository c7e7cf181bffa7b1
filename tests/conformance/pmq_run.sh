#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# pmq_run.sh <depth> <program> [args...]: runs a conformance program on the
# POSIX message-queue transport (the caller sets MCX_TRANSPORT=pmq), or skips
# it (exit 77, the reason on stdout) where fs.mqueue.msg_max gives queues of
# fewer than <depth> messages (libmca sizes them within msg_max, rounded down
# to a power of two: docs/pmq.md).
need=$1
shift
max=$(cat /proc/sys/fs/mqueue/msg_max 2>/dev/null) || {
  echo "SKIP: no /proc/sys/fs/mqueue: this system has no POSIX message queues"
  exit 77
}
depth=1
while [ $((depth * 2)) -le "$max" ] && [ $((depth * 2)) -le 64 ]; do
  depth=$((depth * 2))
done
if [ "$depth" -lt "$need" ]; then
  echo "SKIP: needs queues of $need messages; fs.mqueue.msg_max is $max (queues of $depth): sysctl -w fs.mqueue.msg_max=$need lifts it"
  exit 77
fi
exec "$@"
