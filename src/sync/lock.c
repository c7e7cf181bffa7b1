/* SPDX-License-Identifier: BSD-3-Clause */
/* Futex mutex and reader/writer lock (see lock.h). */
#include "sync/lock.h"

#include "common/mcx_err.h"
#include "ports/mcx_port.h"
#include "ports/mcx_port_shm.h"

#define SPIN_TRIES 100

void mcx__mutex_lock(mcx__mutex_t *m, int shared)
{
  uint32_t c = 0;
  /* A1 — acquire: the critical section starts after the lock is ours; pairs with R1. */
  if (mcx_cas_acquire(&m->word, &c, 1))
    return;
  for (int i = 0; i < SPIN_TRIES; i++) {
    mcx_port_cpu_relax();
    c = 0;
    if (mcx_load_relaxed(&m->word) == 0 && mcx_cas_acquire(&m->word, &c, 1)) /* A1 */
      return;
  }
  /* Mark contended (2) and sleep until we take it as 2 (A1 again, via the exchange). */
  if (c != 2)
    c = mcx_exchange_acquire(&m->word, 2);
  while (c != 0) {
    mcx_port_futex_wait(&m->word, 2, MCX_NO_DEADLINE, shared);
    c = mcx_exchange_acquire(&m->word, 2);
  }
}

int mcx__mutex_trylock(mcx__mutex_t *m)
{
  uint32_t c = 0;
  return mcx_cas_acquire(&m->word, &c, 1) ? 0 : -1; /* A1 */
}

void mcx__mutex_unlock(mcx__mutex_t *m, int shared)
{
  /* R1 — release: the critical section's writes are visible to the next owner (A1). */
  if (mcx_exchange_release(&m->word, 0) == 2)
    mcx_port_futex_wake(&m->word, 1, shared);
}

#define RW_WRITER 0x80000000u
#define RW_WWAIT 0x40000000u
#define RW_READERS 0x3fffffffu

static void rw_sleep(mcx__rwlock_t *l, uint32_t seen_seq, int shared)
{
  mcx_fetch_add_seq_cst(&l->sleepers, 1);
  /* Re-checked by the caller's loop after waking; the futex compares seq so a
   * release between our check and the sleep is not lost. */
  mcx_port_futex_wait(&l->seq, seen_seq, MCX_NO_DEADLINE, shared);
  mcx_fetch_sub_relaxed(&l->sleepers, 1);
}

static void rw_wake(mcx__rwlock_t *l, int shared)
{
  mcx_fetch_add_seq_cst(&l->seq, 1);
  /* seq_cst pairs with the sleepers increment in rw_sleep: either the sleeper
   * sees the new seq (and does not sleep) or we see it counted. */
  if (mcx_load_seq_cst(&l->sleepers))
    mcx_port_futex_wake(&l->seq, 0x7fffffff, shared);
}

void mcx__rwlock_rdlock(mcx__rwlock_t *l, int shared)
{
  for (int spin = 0;; spin++) {
    uint32_t s = mcx_load_relaxed(&l->state);
    if (!(s & (RW_WRITER | RW_WWAIT))) {
      /* A2 — acquire: pairs with R3 (writer unlock). */
      if (mcx_cas_acquire(&l->state, &s, s + 1))
        return;
      continue;
    }
    if (spin < SPIN_TRIES) {
      mcx_port_cpu_relax();
      continue;
    }
    uint32_t q = mcx_load_seq_cst(&l->seq);
    s = mcx_load_seq_cst(&l->state);
    if (s & (RW_WRITER | RW_WWAIT))
      rw_sleep(l, q, shared);
  }
}

void mcx__rwlock_rdunlock(mcx__rwlock_t *l, int shared)
{
  /* R2 — release: the reader's accesses happen before a later writer's (A3). */
  uint32_t s = mcx_fetch_sub_release(&l->state, 1);
  if ((s & RW_READERS) == 1 && (s & RW_WWAIT))
    rw_wake(l, shared);
}

/* How long a writer-waiter sleeps before checking the holder's liveness. */
#define RW_PROBE_NS 10000000ull

/*
 * Writers first claim `owner` (CAS 0 -> tid): the claim is the writers'
 * mutual exclusion and names the holder in the same atomic step, so a
 * writer killed at any instruction leaves its tid there and a waiter can
 * take over. (Claiming with the state word and storing the tid after it
 * left a window where a killed writer held the lock with owner 0, and every
 * waiter slept for ever.) The claimer then waits for readers to drain and
 * sets RW_WRITER.
 */
static void rw_become_writer(mcx__rwlock_t *l, int shared)
{
  for (int spin = 0;; spin++) {
    uint32_t s = mcx_load_relaxed(&l->state);
    if (!(s & RW_READERS)) {
      /* A3 — acquire: pairs with R2 (last reader) and R3 (previous writer). */
      if (mcx_cas_acquire(&l->state, &s, (s | RW_WRITER) & ~RW_WWAIT))
        return;
      continue;
    }
    if (!(s & RW_WWAIT)) {
      mcx_cas_relaxed(&l->state, &s, s | RW_WWAIT); /* a hint; re-read above */
      continue;
    }
    if (spin < SPIN_TRIES) {
      mcx_port_cpu_relax();
      continue;
    }
    uint32_t q = mcx_load_seq_cst(&l->seq);
    if (mcx_load_seq_cst(&l->state) & RW_READERS)
      rw_sleep(l, q, shared); /* the last reader wakes us (rdunlock) */
  }
}

void mcx__rwlock_wrlock(mcx__rwlock_t *l, int shared, uint32_t tid)
{
  for (int spin = 0;; spin++) {
    uint32_t o = 0;
    /* A4 — acquire: pairs with R4 (the previous writer's release of owner). */
    if (mcx_cas_acquire(&l->owner, &o, tid)) {
      rw_become_writer(l, shared);
      return;
    }
    if (spin < SPIN_TRIES) {
      mcx_port_cpu_relax();
      continue;
    }
    /* seq before owner, both seq_cst: an unlock between them changes seq
     * (R4 then the seq_cst increment in rw_wake), so the wait returns. */
    uint32_t q = mcx_load_seq_cst(&l->seq);
    o = mcx_load_seq_cst(&l->owner);
    if (!o)
      continue;
    mcx_fetch_add_seq_cst(&l->sleepers, 1);
    int r = mcx_port_futex_wait(&l->seq, q, mcx_port_now_ns() + RW_PROBE_NS, shared);
    mcx_fetch_sub_relaxed(&l->sleepers, 1);
    if (r != MCX_ETIMEDOUT || mcx_port_tid_alive(o))
      continue;
    /* The writer died holding the lock (or claiming it): take it over; it
     * stays held. A4 again: what the dead writer wrote is visible (as far as
     * it got). */
    if (mcx_cas_acquire(&l->owner, &o, tid)) {
      mcx_port_log("the global lock's holder (thread %u) died; lock recovered", o);
      /* It may have died before setting RW_WRITER (or after clearing it). */
      if (!(mcx_load_acquire(&l->state) & RW_WRITER))
        rw_become_writer(l, shared);
      return;
    }
  }
}

void mcx__rwlock_wrunlock(mcx__rwlock_t *l, int shared)
{
  /* R3 — release: the writer's critical section before any later reader (A2). */
  mcx_fetch_and_release(&l->state, ~RW_WRITER);
  /* R4 — release: and before the next writer's claim (A4). */
  mcx_store_release(&l->owner, 0);
  rw_wake(l, shared);
}
