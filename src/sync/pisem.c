/* SPDX-License-Identifier: BSD-3-Clause */
/* PI binary semaphore, counting semaphore, event, and the waits with
 * a next-semaphore hint (docs/sem.md).
 *
 * Memory-order pairs (labels used below; docs/memory-model.md):
 *   A-P1 acquire (lock CAS 0 -> tid)          pairs with R-P1 (unlock CAS tid -> 0, release)
 *   A-P2 acquire (load of the word after the kernel made us owner: FUTEX_LOCK_PI,
 *        TRYLOCK_PI, WAIT_REQUEUE_PI)         pairs with R-P2 (release RMW on the word just
 *        before FUTEX_UNLOCK_PI) and R-P1: the hand-over inside a system call is
 *        invisible to the C model (and to TSan), so it is bracketed by these.
 *   C-A1 acquire (counting: CAS count -> count-1) pairs with C-R1 (release CAS count+1, seq_cst)
 *   E-A1 acquire (event consumed: CAS 1 -> 0) pairs with E-R1 (post: exchange 1, seq_cst)
 *   R-C1 seq_cst exchange cslot = WAITING (cs_off before it) pairs with A-C2 (poster's
 *        acquire fence after reading WAITING)
 *   R-C2 poster's release CAS WAITING -> UNIT (the unit it took before) pairs with
 *        A-C3 (waiter's acquire load of cslot)
 *   A-C4 acquire load of count after UNIT: see the call site (cross-process, TSan)
 *   R-C3 waiter's release store cslot = FREE pairs with A-C1 (next waiter's CAS FREE -> CLAIMED)
 *   Sleep/wake: announce (seq_cst RMW) then re-check (seq_cst); publish (seq_cst RMW) then
 *   read the announcement (seq_cst): one of the two sees the other (Dekker).
 */
#include "sync/pisem.h"

#include "common/mcx_err.h"
#include "ports/mcx_port.h"
#include "ports/mcx_port_pi.h"
#include "ports/mcx_port_shm.h"
#include "sync/wait_pi.h"

#define TID_MASK MCX_PORT_PI_TID_MASK

static int passed(uint64_t deadline_ns)
{
  return deadline_ns != MCX_NO_DEADLINE && mcx_port_now_ns() >= deadline_ns;
}

/* ================================================================ PI semaphore */

void mcx__pisem_init(mcx__pisem_t *s, int shared)
{
  s->shared = shared ? 1u : 0u;
  s->magic = MCX__PISEM_MAGIC;
  /* Relaxed: the caller publishes the object (thread start, shm attach). */
  mcx_store_relaxed(&s->released, 1u);
  mcx_store_relaxed(&s->word, 0u);
}

uint32_t mcx__pisem_owner(const mcx__pisem_t *s)
{
  /* Relaxed: a snapshot; nothing is read through it. */
  return mcx_load_relaxed((mcx_atomic_u32 *)&s->word) & TID_MASK;
}

/* After A-P1/A-P2: did the previous owner release it, or die holding it? */
static int took_over(mcx__pisem_t *s)
{
  /* Relaxed: written by owners only, ordered by the lock hand-over itself. */
  int died = mcx_load_relaxed(&s->released) == 0;
  mcx_store_relaxed(&s->released, 0u);
  return died ? MCX_EOWNERDEAD : MCX_OK;
}

int mcx__pisem_acquired(mcx__pisem_t *s)
{
  /* A-P2 — acquire: pairs with R-P2 / R-P1 of the previous owner. */
  uint32_t v = mcx_load_acquire(&s->word);
  int died = 0;
  while (v & MCX_PORT_PI_OWNER_DIED) {
    /* A robust-style reclaim (mcx__pi_reclaim_dead or the kernel) left the
     * bit; the owner clears it so its unlock stays on the fast path when it
     * can. Relaxed: we own the lock; only the kernel may add WAITERS. */
    died = 1;
    if (mcx_cas_relaxed(&s->word, &v, v & ~MCX_PORT_PI_OWNER_DIED))
      break;
  }
  int r = took_over(s);
  return died ? MCX_EOWNERDEAD : r;
}

int mcx__pisem_lock(mcx__pisem_t *s, uint64_t deadline_ns)
{
  uint32_t tid = mcx_port_tid_cached();
  uint32_t v = 0;
  /* A-P1 — acquire: pairs with R-P1 of the previous owner's unlock. */
  if (mcx_cas_acquire(&s->word, &v, tid))
    return took_over(s);
  if ((v & TID_MASK) == tid)
    return MCX_EBUSY;
  for (int round = 0;; round++) {
    int r;
    if ((v & TID_MASK) == 0) {
      /* Free but marked (OWNER_DIED, or WAITERS during a kernel hand-over):
       * let the kernel decide. */
      r = v == 0 ? MCX_EAGAIN : mcx_port_futex_trylock_pi(&s->word, (int)s->shared);
      if (r == MCX_OK)
        return mcx__pisem_acquired(s);
      if (r != MCX_EAGAIN && r != MCX_EOWNERDEAD)
        return r == MCX_EBUSY ? MCX_EBUSY : MCX_EIO;
    } else if (deadline_ns == 0) {
      if (round > 4 || !mcx__pi_reclaim_dead(&s->word))
        return MCX_EAGAIN;
    } else {
      r = mcx_port_futex_lock_pi(&s->word, deadline_ns, (int)s->shared);
      switch (r) {
      case MCX_OK:
        return mcx__pisem_acquired(s);
      case MCX_EOWNERDEAD: /* ESRCH: the tid in the word is gone */
        mcx__pi_reclaim_dead(&s->word);
        break;
      case MCX_EAGAIN: /* owner exiting or word changed: look again */
        break;
      case MCX_ETIMEDOUT:
      case MCX_EBUSY:
        return r;
      default:
        return MCX_EIO;
      }
    }
    if (deadline_ns == 0 && round > 4)
      return MCX_EAGAIN;
    /* Relaxed: a first guess for the CAS, which is the acquire (A-P1). */
    v = mcx_load_relaxed(&s->word);
    if (v == 0 && mcx_cas_acquire(&s->word, &v, tid)) /* A-P1 */
      return took_over(s);
  }
}

int mcx__pisem_unlock(mcx__pisem_t *s)
{
  uint32_t tid = mcx_port_tid_cached();
  /* Relaxed: only the owner passes the check, and it wrote the word last
   * (or the kernel did so for it, before A-P2). */
  uint32_t v = mcx_load_relaxed(&s->word);
  if ((v & TID_MASK) != tid)
    return MCX_EPERM;
  mcx_store_relaxed(&s->released, 1u); /* ordered by R-P1 / R-P2 below */
  uint32_t exp = tid;
  /* R-P1 — release: the section's writes before the word reads free; pairs
   * with A-P1 (and A-P2 of a later kernel hand-over). */
  if (mcx_cas_release(&s->word, &exp, 0u))
    return MCX_OK;
  /* Waiters queued in the kernel: it hands the lock to the top one. */
  mcx_fetch_add_release(&s->word, 0u); /* R-P2: pairs with A-P2 of the next owner */
  int r = mcx_port_futex_unlock_pi(&s->word, (int)s->shared);
  if (r != MCX_OK)
    mcx_store_relaxed(&s->released, 0u); /* not released after all */
  return r;
}

/* ============================================================ counting semaphore */

void mcx__csem_init(mcx__csem_t *c, uint32_t units, uint32_t limit, int shared)
{
  c->limit = limit;
  c->shared = shared ? 1u : 0u;
  c->magic = MCX__CSEM_MAGIC;
  /* Relaxed: published by the caller. */
  mcx_store_relaxed(&c->nwait, 0u);
  mcx_store_relaxed(&c->count, units);
}

int mcx__csem_acquire(mcx__csem_t *c, uint64_t deadline_ns)
{
  /* Relaxed: a first guess for the CAS. */
  uint32_t n = mcx_load_relaxed(&c->count);
  int timed_out = 0;
  for (;;) {
    if (n > 0) {
      /* C-A1 — acquire: pairs with C-R1 of the release that freed the unit. */
      if (mcx_cas_acquire(&c->count, &n, n - 1))
        return MCX_OK;
      continue;
    }
    if (deadline_ns == 0)
      return MCX_EAGAIN;
    if (timed_out)
      return MCX_ETIMEDOUT;
    mcx_fetch_add_seq_cst(&c->nwait, 1); /* announce (Dekker with C-R1's RMW + nwait load) */
    n = mcx_load_seq_cst(&c->count);
    int r = MCX_OK;
    if (n == 0)
      r = mcx_port_futex_wait(&c->count, 0, deadline_ns, (int)c->shared);
    mcx_fetch_sub_relaxed(&c->nwait, 1);
    if (r == MCX_ETIMEDOUT || passed(deadline_ns))
      timed_out = 1; /* one more try below, then give up */
    n = mcx_load_relaxed(&c->count);
  }
}

int mcx__csem_release(mcx__csem_t *c)
{
  uint32_t n = mcx_load_relaxed(&c->count);
  do {
    if (n >= c->limit)
      return MCX_EPERM;
    /* C-R1 — release (seq_cst): pairs with C-A1; also the Dekker publish. */
  } while (!mcx_cas_seq_cst(&c->count, &n, n + 1));
  if (mcx_load_seq_cst(&c->nwait) != 0)
    mcx_port_futex_wake(&c->count, 1, (int)c->shared);
  return MCX_OK;
}

/* ======================================================================= event */

void mcx__event_init(mcx__event_t *ev, int shared)
{
  ev->shared = shared ? 1u : 0u;
  ev->magic = MCX__EVENT_MAGIC;
  /* Relaxed: published by the caller. */
  mcx_store_relaxed(&ev->wp.seq, 0u);
  mcx_store_relaxed(&ev->wp.sleepers, 0u);
  mcx_store_relaxed(&ev->wp.pi_off, 0u);
  mcx_store_relaxed(&ev->pwp.seq, 0u);
  mcx_store_relaxed(&ev->pwp.sleepers, 0u);
  mcx_store_relaxed(&ev->pwp.pi_off, 0u);
  mcx_store_relaxed(&ev->cslot, (uint32_t)CSLOT_FREE);
  mcx_store_relaxed(&ev->cs_off, 0u);
  mcx_store_relaxed(&ev->state, 0u);
}

/* Consumes the event if posted. */
static int ev_take(mcx__event_t *ev)
{
  uint32_t one = 1;
  /* E-A1 — acquire: pairs with E-R1 of the post: what the poster wrote
   * before posting is visible to the consumer. */
  return mcx_cas_acquire(&ev->state, &one, 0u);
}

/* Relaxed: a hint to go to the consuming path, where E-A1 is the acquire. */
static int ev_posted(mcx__event_t *ev)
{
  return mcx_load_relaxed(&ev->state) != 0;
}

/* The hinted counting-semaphore waiter sleeps on cslot: take a unit for it,
 * or move it onto the semaphore's futex (plain FUTEX_CMP_REQUEUE). */
static void ev_cslot_handoff(mcx__event_t *ev)
{
  /* A-C2 — acquire fence: cs_off as written before R-C1, whose WAITING the
   * caller's seq_cst load read. */
  mcx_fence_acquire();
  int64_t off = (int64_t)mcx_load_relaxed(&ev->cs_off);
  mcx__csem_t *c = (mcx__csem_t *)((char *)&ev->cslot + off);
  int shared = (int)ev->shared;
  uint32_t n = mcx_load_relaxed(&c->count);
  while (n > 0) {
    if (mcx_cas_acquire(&c->count, &n, n - 1)) { /* C-A1, on the waiter's behalf */
      uint32_t w = CSLOT_WAITING;
      /* R-C2 — release: the unit is the waiter's before it reads UNIT; pairs with A-C3. */
      if (mcx_cas_release(&ev->cslot, &w, (uint32_t)CSLOT_UNIT))
        mcx_port_futex_wake(&ev->cslot, 1, shared);
      else
        mcx__csem_release(c); /* the waiter gave up meanwhile */
      return;
    }
  }
  /* No unit: announce the waiter on the semaphore, then move it there. */
  mcx_fetch_add_seq_cst(&c->nwait, 1);
  uint32_t w = CSLOT_WAITING;
  if (!mcx_cas_seq_cst(&ev->cslot, &w, (uint32_t)CSLOT_REQUEUED)) {
    mcx_fetch_sub_relaxed(&c->nwait, 1);
    return;
  }
  mcx_port_futex_cmp_requeue(&ev->cslot, CSLOT_REQUEUED, 0, 1, &c->count, shared);
  /* A release between our look at count and the requeue may have woken
   * nobody (the waiter was not on count's queue yet): wake for it. */
  if (mcx_load_seq_cst(&c->count) > 0)
    mcx_port_futex_wake(&c->count, 1, shared);
}

/* Hands a posted event to sleepers: all plain ones, the top requeue-PI one,
 * the hinted counting-semaphore one. The caller's publish was a seq_cst RMW. */
static void ev_wake(mcx__event_t *ev)
{
  int shared = (int)ev->shared;
  mcx__wp_notify_after_rmw(&ev->wp, shared);
  uint32_t s = mcx_load_seq_cst(&ev->pwp.sleepers);
  if (s != 0) {
    uint32_t seq = mcx_fetch_add_release(&ev->pwp.seq, 1) + 1; /* R-W1: pairs with A-W1 */
    mcx_fence_acquire(); /* A-W2: pi_off as written before the sleeper's R-W2 */
    int64_t off = (int64_t)mcx_load_relaxed(&ev->pwp.pi_off);
    mcx__pi_requeue(&ev->pwp.seq, seq, (mcx_atomic_u32 *)((char *)&ev->pwp.seq + off), 0, shared);
  }
  if (mcx_load_seq_cst(&ev->cslot) == CSLOT_WAITING)
    ev_cslot_handoff(ev);
}

/* A waiter leaving without consuming may have been the one a post chose. */
static void ev_pass_on(mcx__event_t *ev)
{
  if (mcx_load_seq_cst(&ev->state) != 0)
    ev_wake(ev);
}

void mcx__event_post(mcx__event_t *ev)
{
  /* E-R1 — seq_cst exchange (a release): pairs with E-A1; also the publish
   * of the sleep/wake protocol. A set event has been handed out already. */
  if (mcx_exchange_seq_cst(&ev->state, 1u) == 0)
    ev_wake(ev);
}

static int ev_wait_plain(mcx__event_t *ev, uint64_t deadline_ns)
{
  for (;;) {
    if (ev_take(ev))
      return MCX_OK;
    if (deadline_ns == 0)
      return MCX_ETIMEDOUT;
    uint32_t key = mcx__wp_prepare(&ev->wp);
    if (ev_posted(ev)) {
      mcx__wp_cancel(&ev->wp);
      continue;
    }
    int r = mcx__wp_sleep(&ev->wp, key, deadline_ns, (int)ev->shared);
    if (r == MCX_ETIMEDOUT || passed(deadline_ns)) {
      if (ev_take(ev))
        return MCX_OK;
      return MCX_ETIMEDOUT;
    }
  }
}

int mcx__event_wait_then_lock(mcx__event_t *ev, mcx__pisem_t *s, uint64_t deadline_ns)
{
  if (!s)
    return ev_wait_plain(ev, deadline_ns);
  if (mcx__pisem_owner(s) == mcx_port_tid_cached())
    return MCX_EBUSY;
  int died = 0;
  for (;;) {
    int r;
    if (ev_posted(ev)) {
      /* Already posted: lock, then consume; if it went to another waiter
       * meanwhile, give the semaphore back and wait again. */
      r = mcx__pisem_lock(s, deadline_ns);
      if (r != MCX_OK && r != MCX_EOWNERDEAD) {
        ev_pass_on(ev);
        return r == MCX_EAGAIN ? MCX_ETIMEDOUT : r;
      }
      died |= r == MCX_EOWNERDEAD;
      if (ev_take(ev))
        return died ? MCX_EOWNERDEAD : MCX_OK;
      mcx__pisem_unlock(s);
      continue;
    }
    if (deadline_ns == 0)
      return MCX_ETIMEDOUT;
    uint32_t key = mcx__wp_prepare_pi(&ev->pwp, &s->word, 0);
    if (ev_posted(ev)) { /* after F-W1: either we see the post or it sees us */
      mcx__wp_cancel_pi(&ev->pwp);
      continue;
    }
    r = mcx__wp_sleep_pi(&ev->pwp, key, &s->word, deadline_ns, (int)ev->shared);
    if (r == MCX_OK) {
      /* The poster's requeue made us the owner of s (at once, or after its holder unlocked). */
      died |= mcx__pisem_acquired(s) == MCX_EOWNERDEAD;
      if (ev_take(ev))
        return died ? MCX_EOWNERDEAD : MCX_OK;
      mcx__pisem_unlock(s); /* another waiter consumed it first */
      continue;
    }
    if (r == MCX_ETIMEDOUT || passed(deadline_ns)) {
      ev_pass_on(ev);
      return MCX_ETIMEDOUT;
    }
    if (r != MCX_EAGAIN && r != MCX_EINTR)
      return MCX_EIO;
    /* EAGAIN: posted before we slept, or a signal after the requeue; EINTR:
     * a signal before it. Both: look again. */
  }
}

int mcx__event_wait_then_acquire(mcx__event_t *ev, mcx__csem_t *c, uint64_t deadline_ns)
{
  if (!c)
    return ev_wait_plain(ev, deadline_ns);
  int shared = (int)ev->shared;
  for (;;) {
    if (ev_posted(ev)) {
      int r = mcx__csem_acquire(c, deadline_ns);
      if (r != MCX_OK) {
        ev_pass_on(ev);
        return MCX_ETIMEDOUT;
      }
      if (ev_take(ev))
        return MCX_OK;
      mcx__csem_release(c);
      continue;
    }
    if (deadline_ns == 0)
      return MCX_ETIMEDOUT;
    uint32_t st = CSLOT_FREE;
    /* A-C1 — acquire: pairs with R-C3 of the previous slot holder. */
    if (!mcx_cas_acquire(&ev->cslot, &st, (uint32_t)CSLOT_CLAIMED)) {
      /* Another hinted waiter has the slot: wait plainly, then acquire. */
      uint32_t key = mcx__wp_prepare(&ev->wp);
      if (ev_posted(ev)) {
        mcx__wp_cancel(&ev->wp);
        continue;
      }
      if (mcx__wp_sleep(&ev->wp, key, deadline_ns, shared) == MCX_ETIMEDOUT ||
          passed(deadline_ns)) {
        if (ev_posted(ev))
          continue; /* the posted path tries once more within the (past) deadline */
        return MCX_ETIMEDOUT;
      }
      continue;
    }
    /* Relaxed: published by R-C1. */
    mcx_store_relaxed(&ev->cs_off, (uint64_t)((char *)&c->count - (char *)&ev->cslot));
    /* R-C1 — seq_cst exchange (a release): cs_off before WAITING; pairs
     * with A-C2. Also our announcement (Dekker with E-R1). */
    mcx_exchange_seq_cst(&ev->cslot, (uint32_t)CSLOT_WAITING);
    int r = MCX_OK;
    if (mcx_load_seq_cst(&ev->state) != 0) {
      uint32_t w = CSLOT_WAITING;
      /* Relaxed: cancelling our own announcement publishes nothing. */
      if (mcx_cas_relaxed(&ev->cslot, &w, (uint32_t)CSLOT_FREE))
        continue; /* take the posted path */
      /* A poster handled us already: read its verdict below. */
    } else {
      r = mcx_port_futex_wait(&ev->cslot, CSLOT_WAITING, deadline_ns, shared);
    }
    for (;;) {
      /* A-C3 — acquire: pairs with R-C2 (a unit handed to us). */
      uint32_t v = mcx_load_acquire(&ev->cslot);
      if (v == CSLOT_WAITING) {
        if (r == MCX_ETIMEDOUT || passed(deadline_ns)) {
          uint32_t w = CSLOT_WAITING;
          if (mcx_cas_relaxed(&ev->cslot, &w, (uint32_t)CSLOT_FREE)) {
            ev_pass_on(ev);
            return MCX_ETIMEDOUT;
          }
          continue; /* a poster got there first */
        }
        r = mcx_port_futex_wait(&ev->cslot, CSLOT_WAITING, deadline_ns, shared);
        continue;
      }
      if (v == CSLOT_UNIT) {
        /* A-C4 — acquire load of the count: redundant in C11 (C-R1 -> the
         * poster's C-A1 -> R-C2 -> A-C3 is a chain), but a poster in another
         * process breaks the chain for a per-process race detector (TSan);
         * this gives it the edge to the unit's previous holder directly. */
        (void)mcx_load_acquire(&c->count);
        mcx_store_release(&ev->cslot, (uint32_t)CSLOT_FREE); /* R-C3: pairs with A-C1 */
        if (ev_take(ev))
          return MCX_OK;
        mcx__csem_release(c); /* another consumer took the event first */
        break;
      }
      /* CSLOT_REQUEUED: we slept on the semaphore's queue; the poster
       * announced us there, we withdraw that now. The event is (normally)
       * still posted: the posted path acquires, usually with one CAS. */
      mcx_fetch_sub_relaxed(&c->nwait, 1);
      mcx_store_release(&ev->cslot, (uint32_t)CSLOT_FREE); /* R-C3 */
      /* The release that woke us meant a unit for *a* sleeper of the count;
       * if the event went to another consumer (or our deadline passed) we
       * will not take it: pass the wake-up on, else a sleeper of the count
       * could sleep on beside a free unit. Spurious wakes are harmless. */
      if (!ev_posted(ev) && mcx_load_seq_cst(&c->count) > 0 && mcx_load_seq_cst(&c->nwait) > 0)
        mcx_port_futex_wake(&c->count, 1, shared);
      break;
    }
  }
}
