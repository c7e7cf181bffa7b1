/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file wait_pi.h
 * @brief Sleeping on a wait point with a next-semaphore hint.
 *
 * A requeue-PI sleeper blocks in FUTEX_WAIT_REQUEUE_PI on the wait point's
 * seq word, naming the PI futex of the semaphore it will lock next. It
 * announces itself with 1 + MCX__WP_PI_ONE in @c sleepers and the futex's
 * offset in @c pi_off, so a notifier (mcx__wp_notify*, wait.h) that sees the
 * PI part calls mcx__wp_wake_pi(), which does FUTEX_CMP_REQUEUE_PI instead of
 * FUTEX_WAKE: the kernel takes the semaphore for the sleeper when it is free
 * (and wakes it), or queues the sleeper on it and boosts its owner.
 *
 * Rule: every requeue-PI sleeper of one wait point names the same PI futex at
 * a time (the kernel refuses a mix), and a wait point used by requeue-PI
 * sleepers must not have plain sleepers of higher priority than them.
 */
#ifndef MCX_SYNC_WAIT_PI_H
#define MCX_SYNC_WAIT_PI_H

#include "ports/mcx_port_pi.h"
#include "sync/wait.h"

/**
 * Announces a requeue-PI sleeper naming @p pi; then re-check, then sleep or
 * cancel. @p local_pid: 0 when @p pi lies in the same mapping as @p wp (every
 * process can requeue onto it), else the caller's pid, with MCX__WP_PI_SHARED
 * when the semaphore is process-shared (only notifiers of this process can
 * requeue, with the semaphore's own futex flag, which the sleeper must use
 * too; others only bump seq, and the sleeper sleeps in slices).
 */
static inline uint32_t mcx__wp_prepare_pi(mcx__waitpoint_t *wp, mcx_atomic_u32 *pi,
                                          uint32_t local_pid)
{
  uint32_t key = mcx_load_acquire(&wp->seq); /* A-W1: pairs with R-W1 in the notifier */
  /* Relaxed: published by R-W2 just below. */
  mcx_store_relaxed(&wp->pi_off, (uint64_t)((char *)pi - (char *)&wp->seq));
  mcx_store_relaxed(&wp->pi_pid, local_pid);
  /* R-W2 — seq_cst RMW (a release): pi_off before the announcement; pairs
   * with A-W2 in mcx__wp_wake_pi. Also F-W1's increment (Dekker). */
  mcx_fetch_add_seq_cst(&wp->sleepers, 1 + MCX__WP_PI_ONE);
  mcx_fence_seq_cst(); /* F-W1 */
  mcx_port_heavy_barrier(); /* H-W1: pairs with a light F-W2 (wait.h) */
  return key;
}

static inline void mcx__wp_cancel_pi(mcx__waitpoint_t *wp)
{
  mcx_fetch_sub_relaxed(&wp->sleepers, 1 + MCX__WP_PI_ONE);
}

/**
 * Sleeps until a notifier requeues us (then returns 0 owning @p pi), the
 * seq word moved (MCX_EAGAIN), the deadline (MCX_ETIMEDOUT) or a signal.
 * See mcx_port_futex_wait_requeue_pi() for every outcome.
 */
static inline int mcx__wp_sleep_pi(mcx__waitpoint_t *wp, uint32_t key, mcx_atomic_u32 *pi,
                                   uint64_t deadline_ns, int shared)
{
  int r = mcx_port_futex_wait_requeue_pi(&wp->seq, key, pi, deadline_ns, shared);
  mcx_fetch_sub_relaxed(&wp->sleepers, 1 + MCX__WP_PI_ONE);
  return r;
}

/**
 * FUTEX_CMP_REQUEUE_PI of the sleepers of @p uaddr (expected value @p val)
 * onto @p pi, retrying when @p pi's owner is dead (the word is reclaimed, see
 * mcx__pi_reclaim_dead) or @p uaddr moved on. @return waiters moved, or < 0.
 */
int mcx__pi_requeue(mcx_atomic_u32 *uaddr, uint32_t val, mcx_atomic_u32 *pi, int nr_requeue,
                    int shared);

/**
 * The PI futex @p pi names a thread that no longer runs: replace the dead tid
 * with OWNER_DIED (tid 0), as the kernel does for robust futexes, so the next
 * FUTEX_LOCK_PI / requeue takes it. @return 1 if the word was (or is now) free of a dead owner.
 */
int mcx__pi_reclaim_dead(mcx_atomic_u32 *pi);

#endif /* MCX_SYNC_WAIT_PI_H */
