#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# /dev/mqueue for the pmq tests.
#   setup: mounts the mqueue file system on /dev/mqueue when it is not mounted
#          and we are root (queues of dead processes can only be found there);
#          otherwise says why the listing checks will be skipped.
#   check [TAG]: fails when a queue of this user made by libmca (mcx-<uid>-*)
#          is left; with TAG only those of the test namespaces TAG_* (one
#          build tree: other trees' runs on the same machine are not ours).
set -u
dir=/dev/mqueue
mounted() { grep -qs " $dir mqueue " /proc/mounts; }
case "${1:-}" in
setup)
  if mounted; then
    echo "pmq: $dir is mounted"
  elif [ "$(id -u)" = 0 ]; then
    mkdir -p "$dir" && mount -t mqueue none "$dir" && echo "pmq: mounted mqueue on $dir"
  else
    echo "pmq: $dir is not mounted and we are not root: leftover checks are skipped"
  fi
  exit 0 ;;
check)
  if ! mounted; then
    echo "pmq: $dir is not mounted: cannot check for leftover queues (skipped)"
    exit 0
  fi
  left=$(ls "$dir" | grep "^mcx-$(id -u)-${2:+$2_}" || true)
  if [ -n "$left" ]; then
    echo "pmq: queues left in $dir:"
    echo "$left"
    exit 1
  fi
  echo "pmq: no queues left in $dir"
  exit 0 ;;
*)
  echo "usage: $0 setup|check" >&2
  exit 2 ;;
esac
