/* SPDX-License-Identifier: BSD-3-Clause */
/* Futex waits and wakes (Linux). */
#include <errno.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/mcx_err.h"
#include "ports/mcx_port.h"

/* Futex calls of the calling thread (benchmarks: system calls per item). */
static _Thread_local uint64_t futex_calls;
uint64_t mcx_port_futex_calls(void) { return futex_calls; }

int mcx_port_futex_wait(mcx_atomic_u32 *addr, uint32_t expected, uint64_t deadline_ns, int shared)
{
  int op = FUTEX_WAIT_BITSET | (shared ? 0 : FUTEX_PRIVATE_FLAG);
  struct timespec ts;
  struct timespec *tsp = NULL;
  if (deadline_ns != MCX_NO_DEADLINE) {
    /* FUTEX_WAIT_BITSET takes an absolute CLOCK_MONOTONIC deadline. */
    ts.tv_sec = (time_t)(deadline_ns / 1000000000u);
    ts.tv_nsec = (long)(deadline_ns % 1000000000u);
    tsp = &ts;
  }
  futex_calls++;
  long r = syscall(SYS_futex, (uint32_t *)addr, op, expected, tsp, NULL, FUTEX_BITSET_MATCH_ANY);
  if (r == 0)
    return MCX_OK;
  switch (errno) {
  case EAGAIN:
    return MCX_OK; /* the value changed before we slept */
  case ETIMEDOUT:
    return MCX_ETIMEDOUT;
  case EINTR:
    return MCX_EINTR;
  default:
    return MCX_EIO;
  }
}

int mcx_port_futex_wake(mcx_atomic_u32 *addr, int n, int shared)
{
  int op = FUTEX_WAKE | (shared ? 0 : FUTEX_PRIVATE_FLAG);
  futex_calls++;
  long r = syscall(SYS_futex, (uint32_t *)addr, op, n, NULL, NULL, 0);
  return r < 0 ? 0 : (int)r;
}
