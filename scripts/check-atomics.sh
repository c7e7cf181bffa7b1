#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Rejects synchronization that bypasses src/common/mcx_atomic.h: bare compiler
# atomics (__atomic_*, __sync_*), volatile, and OS headers outside ports/.
set -euo pipefail
cd "$(dirname "$0")/.."
bad=0
if grep -rnE '__atomic_|__sync_' src --include='*.[ch]' | grep -v 'src/common/mcx_atomic.h'; then
  echo "check-atomics: bare compiler atomics above (use src/common/mcx_atomic.h)"; bad=1
fi
if grep -rnwE 'volatile' src --include='*.[ch]' | grep -vE '__asm__ __volatile__|^\S+:\s*(//|/?\*)'; then
  echo "check-atomics: volatile above (not a synchronization tool)"; bad=1
fi
if grep -rnE '#include <(sys/|linux/|unistd\.h|pthread\.h|fcntl\.h|semaphore\.h|mqueue\.h|sched\.h|signal\.h)' src; then
  echo "check-atomics: OS headers under src/ (they belong in ports/)"; bad=1
fi
exit $bad
