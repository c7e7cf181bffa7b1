/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file wait.h
 * @brief How libmca waits: spin briefly, then yield, then sleep on a futex.
 *
 * Never spin without bound: with both threads on one core a pure spin costs a
 * scheduler slice per hand-off, while spin-then-yield costs a few µs. A
 * notifier makes a wake-up system call only when a waiter announced itself in
 * @c sleepers, so the fast path has no system call.
 */
#ifndef MCX_SYNC_WAIT_H
#define MCX_SYNC_WAIT_H

#include <stdint.h>

#include "common/mcx_atomic.h"
#include "common/mcx_err.h"
#include "ports/mcx_port.h"

/** Process-wide policy (mcx_set_wait_policy()); read relaxed, it is a tuning knob. */
extern mcx_atomic_u32 mcx__wait_spins;
extern mcx_atomic_u32 mcx__wait_yields;

/* Thread-local, initial-exec: no __tls_get_addr call on the fast path. */
#define MCX_TLS _Thread_local __attribute__((tls_model("initial-exec")))

/* The calling thread's adaptive spin budget (0: not yet set) and wait count. */
extern MCX_TLS uint32_t mcx__tl_spin_budget;
extern MCX_TLS uint32_t mcx__tl_waits;

typedef struct mcx__backoff {
  uint32_t spins;
  uint32_t yields;
  uint32_t limit;  /* spins allowed this time */
  uint32_t budget; /* the thread's budget before this wait (differs on a probe) */
  uint32_t begun;  /* 1 once mcx__backoff_begin ran (a wait a caller may continue) */
} mcx__backoff_t;

/**
 * Starts a wait. The spin budget adapts per thread: a wait that succeeded
 * while spinning doubles it (up to mcx__wait_spins), one that needed a yield
 * or a sleep halves it — so when the peer shares our core (spinning cannot
 * help: it is not running) the budget falls to a few pauses and the hand-off
 * costs about a sched_yield, while a peer on another core keeps it full.
 * Every 64th wait probes with the full budget, so it can grow back; a probe
 * that fails leaves the budget as it was.
 */
static inline void mcx__backoff_begin(mcx__backoff_t *b)
{
  uint32_t max = mcx_load_relaxed(&mcx__wait_spins);
  uint32_t budget = mcx__tl_spin_budget;
  if (budget == 0 || budget > max)
    budget = max;
  b->spins = 0;
  b->yields = 0;
  b->budget = budget;
  b->begun = 1;
  b->limit = (++mcx__tl_waits & 63) == 0 ? max : budget;
}

/** Ends a wait that got what it waited for: adapts the budget (see above). */
static inline void mcx__backoff_end(const mcx__backoff_t *b)
{
  if (b->spins == 0 && b->yields == 0)
    return; /* did not wait */
  uint32_t max = mcx_load_relaxed(&mcx__wait_spins);
  uint32_t budget;
  if (b->yields == 0 && b->spins < b->limit)
    budget = b->budget * 2 > max ? max : (b->budget * 2 > 8 ? b->budget * 2 : 8);
  else if (b->limit != b->budget)
    budget = b->budget; /* a failed probe says nothing new */
  else
    budget = b->budget / 2 > 2 ? b->budget / 2 : 2;
  mcx__tl_spin_budget = budget;
}

/** One step of backing off; returns 1 when the caller should sleep instead. */
static inline int mcx__backoff_step(mcx__backoff_t *b)
{
  if (b->spins < b->limit) {
    b->spins++;
    mcx_port_cpu_relax();
    return 0;
  }
  if (b->yields < mcx_load_relaxed(&mcx__wait_yields)) {
    b->yields++;
    mcx_port_yield();
    return 0;
  }
  return 1;
}

/**
 * An event count to sleep on. Written by notifiers (seq) and waiters
 * (sleepers); both only on the slow path, so it may share a line.
 */
typedef struct mcx__waitpoint {
  mcx_atomic_u32 seq;
  mcx_atomic_u32 sleepers;
  /* Next-semaphore hint (sync/wait_pi.h): where the PI futex named by a
   * requeue-PI sleeper lives, as a byte offset from &seq, and the sleeper's
   * pid when that offset is valid only in its own process (the semaphore is
   * not in the mapping that holds this wait point), else 0. Written by that
   * sleeper before it announces itself; read by notifiers that see
   * MCX__WP_PI_ONE. */
  mcx_atomic_u64 pi_off;
  mcx_atomic_u32 pi_pid;
} mcx__waitpoint_t;

/* ---- sleepers that named a semaphore (sync/wait_pi.h) ------------------ */
/** In pi_pid: the semaphore of a process-local hint is itself process-shared. */
#define MCX__WP_PI_SHARED 0x80000000u
/** A requeue-PI sleeper adds 1 + MCX__WP_PI_ONE to sleepers. */
#define MCX__WP_PI_ONE 0x10000u
/** Slow path of a wake with a requeue-PI sleeper (bumps seq; sync/wait_pi.c). */
void mcx__wp_wake_pi(mcx__waitpoint_t *wp, uint32_t sleepers, int shared);
/* ------------------------------------------------------------------------ */

/**
 * Announces a sleeper. The caller must re-check its condition after this and
 * then call mcx__wp_sleep() or mcx__wp_cancel().
 * @return the key for mcx__wp_sleep().
 */
static inline uint32_t mcx__wp_prepare(mcx__waitpoint_t *wp)
{
  uint32_t key = mcx_load_acquire(&wp->seq); /* A-W1: pairs with R-W1 in mcx__wp_notify */
  mcx_fetch_add_seq_cst(&wp->sleepers, 1);
  /* F-W1 — full fence: our sleepers increment is ordered before the caller's
   * re-check of its condition; pairs with F-W2 in mcx__wp_notify (Dekker). */
  mcx_fence_seq_cst();
  /* H-W1 — the heavy side of the asymmetric barrier: every notifier that
   * skipped its fence (F-W2 light) executes one now, so either its publish is
   * visible to our re-check or its read of sleepers, after this point, sees
   * us. Pairs with F-W2. A no-op (ENOSYS) where no notifier skips it. */
  mcx_port_heavy_barrier();
  return key;
}

static inline void mcx__wp_cancel(mcx__waitpoint_t *wp) { mcx_fetch_sub_relaxed(&wp->sleepers, 1); }

/** Sleeps until notified or @p deadline_ns; returns 0, MCX_ETIMEDOUT or MCX_EINTR. */
static inline int mcx__wp_sleep(mcx__waitpoint_t *wp, uint32_t key, uint64_t deadline_ns, int shared)
{
  int r = mcx_port_futex_wait(&wp->seq, key, deadline_ns, shared);
  mcx_fetch_sub_relaxed(&wp->sleepers, 1);
  return r;
}

/** The wake of mcx__wp_notify() once it has seen @p sleepers != 0 (R-W1 and
 * the futex, or the requeue-PI path). Out of line and cold, so a notify
 * without sleepers costs its caller no registers and no stack frame. */
void mcx__wp_wake(mcx__waitpoint_t *wp, uint32_t sleepers, int shared)
    __attribute__((noinline, cold));

/** The notifier's half of the Dekker pair: the sleepers count, read after
 * the caller's publish (F-W2). */
static inline uint32_t mcx__wp_sleepers_after_publish(mcx__waitpoint_t *wp)
{
  /* F-W2 — the caller's publish is ordered before reading sleepers; pairs
   * with F-W1 and H-W1. A full fence, or only a compiler barrier where the
   * sleeper's heavy barrier (H-W1) stands in for it (asymmetric Dekker: no
   * locked instruction on the notifier's side). */
  if (__builtin_expect(mcx_load_relaxed(&mcx_port_asym_light), 1))
    mcx_fence_compiler();
  else
    mcx_fence_seq_cst();
  return mcx_load_relaxed(&wp->sleepers);
}

/**
 * Wakes every sleeper if there is one. Call after publishing the condition.
 * Cost without sleepers: one fence and one load of a line that stays shared.
 */
static inline void mcx__wp_notify(mcx__waitpoint_t *wp, int shared)
{
  uint32_t s = mcx__wp_sleepers_after_publish(wp);
  if (__builtin_expect(s != 0, 0))
    mcx__wp_wake(wp, s, shared);
}

/** mcx__wp_wake(), then @p v: the wake of mcx__wp_notify_v(). */
uint64_t mcx__wp_wake_v(mcx__waitpoint_t *wp, uint32_t sleepers, int shared, uint64_t v)
    __attribute__((noinline, cold));

/** mcx__wp_notify() that returns @p v, for a receive whose last step is the
 * notify: the rare wake is a tail call that hands the value back, so the
 * caller keeps nothing across a call (no stack frame). Same pairs (F-W2). */
static inline uint64_t mcx__wp_notify_v(mcx__waitpoint_t *wp, int shared, uint64_t v)
{
  uint32_t s = mcx__wp_sleepers_after_publish(wp); /* F-W2 */
  if (__builtin_expect(s != 0, 0))
    return mcx__wp_wake_v(wp, s, shared, v);
  return v;
}

/**
 * As mcx__wp_notify(), for a caller whose publish was a seq_cst
 * read-modify-write (on x86 one locked instruction, cheaper than a store
 * followed by a fence): that RMW and this seq_cst load are in the single
 * total order with F-W1, so either the sleeper's re-check sees the publish or
 * we see the sleeper. Pairs with F-W1.
 */
static inline void mcx__wp_notify_after_rmw(mcx__waitpoint_t *wp, int shared)
{
  uint32_t s = mcx_load_seq_cst(&wp->sleepers);
  if (s != 0) {
    if (s >= MCX__WP_PI_ONE) { /* a hinted sleeper: requeue instead of wake */
      mcx__wp_wake_pi(wp, s, shared);
      return;
    }
    mcx_fetch_add_release(&wp->seq, 1); /* R-W1: pairs with A-W1 */
    mcx_port_futex_wake(&wp->seq, 0x7fffffff, shared);
  }
}

/** Wakes every sleeper unconditionally (deletion, shutdown). */
static inline void mcx__wp_broadcast(mcx__waitpoint_t *wp, int shared)
{
  uint32_t s = mcx_load_seq_cst(&wp->sleepers);
  if (s >= MCX__WP_PI_ONE) { /* FUTEX_WAKE refuses requeue-PI sleepers */
    mcx__wp_wake_pi(wp, s, shared);
    return;
  }
  mcx_fetch_add_seq_cst(&wp->seq, 1); /* R-W1 */
  mcx_port_futex_wake(&wp->seq, 0x7fffffff, shared);
}

#endif
