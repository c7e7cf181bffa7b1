/* SPDX-License-Identifier: BSD-3-Clause */
/* Priority inheritance and requeue (Windows): the kernel has neither.
 *
 * PI futexes are absent: mcx_port_pi_supported() says 0, so mcx_pisem_init()
 * reports MCX_SEM_NOT_SUPPORTED and no PI word is ever waited on; the PI calls
 * below answer MCX_ENOSYS should one be reached all the same.
 * The plain requeue (the counting-semaphore hint of an event) is done as a
 * wake: the waiter wakes on its slot, sees it requeued and goes for the
 * semaphore itself, one context switch more than with a kernel requeue. */
#include "win32.h"

#include "common/mcx_err.h"
#include "ports/mcx_port.h"
#include "ports/mcx_port_pi.h"

int mcx_port_pi_supported(void) { return 0; }

uint32_t mcx_port_tid_cached(void)
{
  /* No fork() here: a thread keeps its id for life. GetCurrentThreadId reads
   * the thread's TEB, no system call. */
  return (uint32_t)GetCurrentThreadId();
}

int mcx_port_futex_lock_pi(mcx_atomic_u32 *w, uint64_t deadline_ns, int shared)
{
  (void)w;
  (void)deadline_ns;
  (void)shared;
  return MCX_ENOSYS;
}

int mcx_port_futex_trylock_pi(mcx_atomic_u32 *w, int shared)
{
  (void)w;
  (void)shared;
  return MCX_ENOSYS;
}

int mcx_port_futex_unlock_pi(mcx_atomic_u32 *w, int shared)
{
  (void)w;
  (void)shared;
  return MCX_ENOSYS;
}

int mcx_port_futex_wait_requeue_pi(mcx_atomic_u32 *uaddr, uint32_t val, mcx_atomic_u32 *pi,
                                   uint64_t deadline_ns, int shared)
{
  (void)uaddr;
  (void)val;
  (void)pi;
  (void)deadline_ns;
  (void)shared;
  return MCX_ENOSYS;
}

int mcx_port_futex_cmp_requeue_pi(mcx_atomic_u32 *uaddr, uint32_t val, mcx_atomic_u32 *pi,
                                  int nr_requeue, int shared)
{
  (void)uaddr;
  (void)val;
  (void)pi;
  (void)nr_requeue;
  (void)shared;
  return MCX_ENOSYS;
}

int mcx_port_futex_cmp_requeue(mcx_atomic_u32 *uaddr, uint32_t val, int nr_wake, int nr_requeue,
                               mcx_atomic_u32 *to, int shared)
{
  (void)to;
  /* Relaxed: the caller's seq_cst RMW on *uaddr published what matters. */
  if (mcx_load_relaxed(uaddr) != val)
    return MCX_EAGAIN;
  int n = nr_wake + nr_requeue;
  if (n <= 0)
    return 0;
  return mcx_port_futex_wake(uaddr, n, shared);
}
