/* SPDX-License-Identifier: BSD-3-Clause */
/* Wake path of requeue-PI sleepers (see wait_pi.h). */
#include "sync/wait_pi.h"

#include "ports/mcx_port.h"
#include "ports/mcx_port_shm.h"

int mcx__pi_reclaim_dead(mcx_atomic_u32 *pi)
{
  /* Relaxed: only the value is compared; the next owner's A-P2 (pisem.c)
   * orders what it reads. */
  uint32_t v = mcx_load_relaxed(pi);
  uint32_t tid = v & MCX_PORT_PI_TID_MASK;
  if (tid == 0)
    return 1;
  if (mcx_port_tid_alive(tid))
    return 0;
  /* Relaxed CAS: nothing is published; a dead thread's writes cannot race. */
  return mcx_cas_relaxed(pi, &v, MCX_PORT_PI_OWNER_DIED) || (v & MCX_PORT_PI_TID_MASK) != tid;
}

int mcx__pi_requeue(mcx_atomic_u32 *uaddr, uint32_t val, mcx_atomic_u32 *pi, int nr_requeue,
                    int shared)
{
  int r = MCX_EIO;
  for (int tries = 0; tries < 64; tries++) {
    r = mcx_port_futex_cmp_requeue_pi(uaddr, val, pi, nr_requeue, shared);
    if (r >= 0)
      return r;
    if (r == MCX_EAGAIN) {
      /* Another notifier bumped the word after us; it requeues too, but a
       * retry with the current value is harmless and keeps this self-contained. */
      val = mcx_load_acquire(uaddr); /* A-W1': pairs with that notifier's R-W1 */
      continue;
    }
    if (r == MCX_EOWNERDEAD) {
      mcx__pi_reclaim_dead(pi);
      continue;
    }
    break;
  }
  return r;
}

void mcx__wp_wake_pi(mcx__waitpoint_t *wp, uint32_t sleepers, int shared)
{
  uint32_t seq = mcx_fetch_add_release(&wp->seq, 1) + 1; /* R-W1: pairs with A-W1 */
  /* A-W2 — acquire fence: pi_off as written before the sleeper's R-W2, which
   * the caller's load of sleepers read. */
  mcx_fence_acquire();
  int64_t off = (int64_t)mcx_load_relaxed(&wp->pi_off);
  uint32_t pid = mcx_load_relaxed(&wp->pi_pid);
  int pi_shared = shared;
  if (pid) {
    /* The semaphore is not in the wait point's mapping: only its process can
     * reach it (other senders leave the sleeper to its slice), and the futex
     * operation takes the semaphore's own sharedness, as the sleeper did. */
    if ((pid & ~MCX__WP_PI_SHARED) != mcx_port_pid())
      return;
    pi_shared = (pid & MCX__WP_PI_SHARED) != 0;
  }
  mcx_atomic_u32 *pi = (mcx_atomic_u32 *)((char *)&wp->seq + off);
  mcx__pi_requeue(&wp->seq, seq, pi, 0x7fffffff, pi_shared);
  uint32_t pis = sleepers / MCX__WP_PI_ONE, all = sleepers % MCX__WP_PI_ONE;
  if (all > pis)
    mcx_port_futex_wake(&wp->seq, 0x7fffffff, shared); /* the plain sleepers, if any */
}
