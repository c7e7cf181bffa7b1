/* SPDX-License-Identifier: BSD-3-Clause */
/* MRAPI's futex primitives: robust mutex, counting semaphore, reader/writer lock.
 *
 * Memory-order pairs (labels used below):
 *   M-A1/M-A2 acquire (lock CAS, fast and slow path)   pair with M-R1 (unlock exchange):
 *       what the previous owner wrote inside the section is visible to the next.
 *   M-A3 acquire (take-over of a dead owner's lock)     pairs with the dead owner's last
 *       release, if it ever made one; the data may be half-updated: hence EOWNERDEAD.
 *   S-A1 acquire (sem lock CAS)                         pairs with S-R1 (sem unlock CAS).
 *   W-A1/W-A2 acquire (rwl reader/writer CAS)           pair with W-R1/W-R2 (rwl unlock CAS).
 *   Sleep/wake (Dekker): a sleeper announces itself (nwait += 1, seq_cst) and then
 *   re-reads the word (seq_cst); an unlocker changes the word (seq_cst RMW) and then
 *   reads nwait (seq_cst). In the single total order one of them sees the other, so
 *   no wake-up is lost; the futex compares the word again in the kernel.
 */
#include "sync/mrapi_prim.h"

#include "common/mcx_err.h"
#include "ports/mcx_port.h"
#include "ports/mcx_port_shm.h"

/* Spin iterations before yielding/sleeping. On one core spinning only burns the
 * owner's time slice, so keep it short; across cores it covers short sections. */
#define SPIN_TRIES 64

static int deadline_passed(uint64_t deadline_ns)
{
  return deadline_ns != MCX_NO_DEADLINE && mcx_port_now_ns() >= deadline_ns;
}

/* ------------------------------------------------------------------ mutex */

void mcx__rmutex_init(mcx__rmutex_t *m, int recursive)
{
  m->depth = 0;
  m->recursive = recursive ? 1u : 0u;
  m->reserved = 0;
  /* Relaxed: the object is published afterwards by its table entry's
   * generation (release in mrapi_obj.c, D-R1). */
  mcx_store_relaxed(&m->word, 0u);
}

uint32_t mcx__rmutex_owner(mcx__rmutex_t *m)
{
  /* Relaxed: a diagnostic snapshot, nothing is read through it. */
  uint32_t v = mcx_load_relaxed(&m->word) & MCX__RMUTEX_TID_MASK;
  return v == MCX__RMUTEX_DELETED ? 0 : v;
}

/* The previous owner died: take the lock from it with one CAS. */
static int rmutex_take_over(mcx__rmutex_t *m, uint32_t seen, uint32_t tid, uint32_t *depth_out)
{
  uint32_t exp = seen;
  /* M-A3 acquire: pairs with the dead owner's last M-R1, if any. Keep the
   * WAITERS bit: others may sleep behind us. */
  if (!mcx_cas_acquire(&m->word, &exp, tid | MCX__RMUTEX_WAITERS))
    return 1; /* somebody else changed it first: retry the normal way */
  m->depth = 1;
  *depth_out = 1;
  return 0;
}

int mcx__rmutex_lock(mcx__rmutex_t *m, uint32_t tid, uint64_t deadline_ns, int shared,
                     uint32_t *depth_out)
{
  uint32_t v = 0;
  /* M-A1 acquire: pairs with M-R1 of the previous owner's unlock. */
  if (mcx_cas_acquire(&m->word, &v, tid)) {
    m->depth = 1;
    *depth_out = 1;
    return MCX_OK;
  }
  for (int spin = 0;; spin++) {
    uint32_t owner = v & MCX__RMUTEX_TID_MASK;
    if (owner == MCX__RMUTEX_DELETED)
      return MCX_ECLOSED;
    if (owner == tid) {
      if (!m->recursive)
        return MCX_EBUSY;
      *depth_out = ++m->depth; /* we own it: depth is ours */
      return MCX_OK;
    }
    if (owner == 0) {
      /* Free. From the slow path we take it marked contended: we cannot know
       * whether others still sleep (Drepper's mutex, variant 2). */
      uint32_t want = spin < SPIN_TRIES ? tid | (v & MCX__RMUTEX_WAITERS) : tid | MCX__RMUTEX_WAITERS;
      /* M-A2 acquire: pairs with M-R1. */
      if (mcx_cas_acquire(&m->word, &v, want)) {
        m->depth = 1;
        *depth_out = 1;
        return MCX_OK;
      }
      continue; /* v was reloaded by the failed CAS */
    }
    if (deadline_ns == 0) {
      if (!mcx_port_tid_alive(owner) && rmutex_take_over(m, v, tid, depth_out) == 0)
        return MCX_EOWNERDEAD;
      return MCX_EAGAIN;
    }
    if (spin < SPIN_TRIES) {
      mcx_port_cpu_relax();
      /* Relaxed: only a hint to retry the CAS, which is the acquire. */
      v = mcx_load_relaxed(&m->word);
      continue;
    }
    if (spin == SPIN_TRIES) {
      mcx_port_yield(); /* the owner may be on this very core */
      v = mcx_load_relaxed(&m->word);
      continue;
    }
    if (!(v & MCX__RMUTEX_WAITERS)) {
      /* Announce a sleeper so the unlock calls futex_wake. Relaxed: the word's
       * value is the announcement, and the owner's exchange reads it. */
      if (!mcx_cas_relaxed(&m->word, &v, v | MCX__RMUTEX_WAITERS))
        continue;
      v |= MCX__RMUTEX_WAITERS;
    }
    uint64_t now = mcx_port_now_ns();
    if (deadline_ns != MCX_NO_DEADLINE && now >= deadline_ns)
      return MCX_ETIMEDOUT;
    uint64_t slice = now + MCX__RMUTEX_PROBE_NS;
    if (deadline_ns < slice)
      slice = deadline_ns;
    int r = mcx_port_futex_wait(&m->word, v, slice, shared);
    if (r == MCX_ETIMEDOUT) {
      /* Slept a whole slice with the same owner: is it still there? */
      uint32_t cur = mcx_load_relaxed(&m->word);
      if ((cur & MCX__RMUTEX_TID_MASK) == owner && !mcx_port_tid_alive(owner) &&
          rmutex_take_over(m, cur, tid, depth_out) == 0)
        return MCX_EOWNERDEAD;
      if (deadline_passed(deadline_ns))
        return MCX_ETIMEDOUT;
    }
    v = mcx_load_relaxed(&m->word);
  }
}

int mcx__rmutex_unlock(mcx__rmutex_t *m, uint32_t tid, int shared)
{
  /* Relaxed: only the owner passes this check, and the owner wrote the word. */
  uint32_t v = mcx_load_relaxed(&m->word);
  if ((v & MCX__RMUTEX_TID_MASK) != tid || tid == 0)
    return MCX_EPERM;
  if (m->depth > 1) {
    m->depth--;
    return MCX_OK;
  }
  m->depth = 0;
  /* M-R1 release: the section's writes before the lock is seen free; pairs
   * with M-A1/M-A2 of the next owner. */
  uint32_t old = mcx_exchange_release(&m->word, 0u);
  if (old & MCX__RMUTEX_WAITERS)
    mcx_port_futex_wake(&m->word, 1, shared);
  return MCX_OK;
}

int mcx__rmutex_mark_deleted(mcx__rmutex_t *m, int shared)
{
  uint32_t exp = 0;
  /* Relaxed: deletion publishes nothing; lockers only compare the value. */
  if (!mcx_cas_relaxed(&m->word, &exp, MCX__RMUTEX_DELETED))
    return MCX_EBUSY;
  mcx_port_futex_wake(&m->word, 0x7fffffff, shared);
  return MCX_OK;
}

int mcx__rmutex_delete_held(mcx__rmutex_t *m, uint32_t tid, int shared)
{
  uint32_t w = mcx_load_relaxed(&m->word);
  if ((w & MCX__RMUTEX_TID_MASK) != tid)
    return MCX_EPERM;
  /* Relaxed: only the holder (the caller) can change the owner bits now;
   * waiters compare the value, deletion publishes nothing. */
  mcx_exchange_seq_cst(&m->word, MCX__RMUTEX_DELETED);
  mcx_port_futex_wake(&m->word, 0x7fffffff, shared);
  return MCX_OK;
}

/* -------------------------------------------------------------- semaphore */

void mcx__sem_init(mcx__sem_t *s, uint32_t limit)
{
  s->limit = limit;
  s->reserved = 0;
  /* Relaxed: published by the table generation (D-R1). */
  mcx_store_relaxed(&s->nwait, 0u);
  mcx_store_relaxed(&s->count, limit);
}

int mcx__sem_lock(mcx__sem_t *s, uint64_t deadline_ns, int shared)
{
  /* Relaxed: a first guess for the CAS below. */
  uint32_t c = mcx_load_relaxed(&s->count);
  for (int spin = 0;; spin++) {
    if (c == MCX__SEM_DELETED)
      return MCX_ECLOSED;
    if (c > 0) {
      /* S-A1 acquire: pairs with S-R1 of the unlock that freed this unit. */
      if (mcx_cas_acquire(&s->count, &c, c - 1))
        return MCX_OK;
      continue;
    }
    if (deadline_ns == 0)
      return MCX_EAGAIN;
    if (spin < SPIN_TRIES) {
      mcx_port_cpu_relax();
      c = mcx_load_relaxed(&s->count);
      continue;
    }
    if (spin == SPIN_TRIES) {
      mcx_port_yield();
      c = mcx_load_relaxed(&s->count);
      continue;
    }
    if (deadline_passed(deadline_ns))
      return MCX_ETIMEDOUT;
    /* Dekker with the unlock: announce, then re-read (both seq_cst). */
    mcx_fetch_add_seq_cst(&s->nwait, 1u);
    c = mcx_load_seq_cst(&s->count);
    int r = MCX_OK;
    if (c == 0)
      r = mcx_port_futex_wait(&s->count, 0u, deadline_ns, shared);
    mcx_fetch_sub_relaxed(&s->nwait, 1u); /* relaxed: a stale count only costs a spare wake */
    if (r == MCX_ETIMEDOUT) {
      c = mcx_load_relaxed(&s->count);
      if (c == 0)
        return MCX_ETIMEDOUT;
      continue;
    }
    c = mcx_load_relaxed(&s->count);
  }
}

int mcx__sem_unlock(mcx__sem_t *s, int shared)
{
  uint32_t c = mcx_load_relaxed(&s->count);
  for (;;) {
    if (c == MCX__SEM_DELETED)
      return MCX_ECLOSED;
    if (c >= s->limit)
      return MCX_EPERM;
    /* S-R1 release (seq_cst for the Dekker check of nwait below): pairs with S-A1. */
    if (mcx_cas_seq_cst(&s->count, &c, c + 1))
      break;
  }
  if (mcx_load_seq_cst(&s->nwait) > 0)
    mcx_port_futex_wake(&s->count, 1, shared);
  return MCX_OK;
}

int mcx__sem_mark_deleted(mcx__sem_t *s, int shared)
{
  uint32_t exp = s->limit;
  if (!mcx_cas_relaxed(&s->count, &exp, MCX__SEM_DELETED))
    return MCX_EBUSY;
  mcx_port_futex_wake(&s->count, 0x7fffffff, shared);
  return MCX_OK;
}

void mcx__sem_delete_force(mcx__sem_t *s, int shared)
{
  /* seq_cst like the unlock CAS (S-R1): a sleeper's nwait announcement and
   * this store are ordered, so the wake below reaches it. */
  mcx_exchange_seq_cst(&s->count, MCX__SEM_DELETED);
  mcx_port_futex_wake(&s->count, 0x7fffffff, shared);
}

/* ------------------------------------------------------------ rwlock */

void mcx__rwl_init(mcx__rwl_t *l, uint32_t reader_limit)
{
  if (reader_limit == 0 || reader_limit > MCX__RWL_READERS_MASK)
    reader_limit = MCX__RWL_READERS_MASK;
  l->limit = reader_limit;
  mcx_store_relaxed(&l->writer, 0u);
  mcx_store_relaxed(&l->nwait, 0u);
  mcx_store_relaxed(&l->state, 0u); /* published by the table generation (D-R1) */
}

/* Can the caller take it now? Returns the new state or 0 if not. */
static uint32_t rwl_next(uint32_t s, int writer, int registered, uint32_t limit)
{
  if (writer) {
    if ((s & (MCX__RWL_READERS_MASK | MCX__RWL_WRITER)) != 0)
      return 0;
    return (registered ? s - MCX__RWL_WWAIT_UNIT : s) | MCX__RWL_WRITER;
  }
  /* Readers yield to waiting writers, so a stream of readers cannot starve them. */
  if (s & (MCX__RWL_WRITER | MCX__RWL_WWAIT_MASK))
    return 0;
  if ((s & MCX__RWL_READERS_MASK) >= limit)
    return 0;
  return s + 1;
}

int mcx__rwl_lock(mcx__rwl_t *l, int writer, uint32_t tid, uint64_t deadline_ns, int shared)
{
  int registered = 0; /* a writer counted in the WWAIT bits */
  uint32_t s = mcx_load_relaxed(&l->state);
  if (writer && (s & MCX__RWL_WRITER) && mcx_load_relaxed(&l->writer) == tid)
    return MCX_EBUSY; /* would deadlock on itself */
  for (int spin = 0;; spin++) {
    if (s & MCX__RWL_DELETED)
      return MCX_ECLOSED;
    uint32_t n = rwl_next(s, writer, registered, l->limit);
    if (n) {
      /* W-A1 (reader) / W-A2 (writer) acquire: pair with W-R1/W-R2 of unlocks. */
      if (mcx_cas_acquire(&l->state, &s, n)) {
        if (writer)
          mcx_store_relaxed(&l->writer, tid); /* read only by this writer's unlock check */
        return MCX_OK;
      }
      continue;
    }
    int expired = deadline_ns == 0 || (spin > SPIN_TRIES && deadline_passed(deadline_ns));
    if (expired) {
      if (registered) {
        /* Give up our place; readers held back by it must look again. */
        mcx_fetch_add_seq_cst(&l->state, 0u - MCX__RWL_WWAIT_UNIT); /* i.e. minus one waiting writer */
        mcx_port_futex_wake(&l->state, 0x7fffffff, shared);
      }
      return deadline_ns == 0 ? MCX_EAGAIN : MCX_ETIMEDOUT;
    }
    if (spin < SPIN_TRIES) {
      mcx_port_cpu_relax();
      s = mcx_load_relaxed(&l->state);
      continue;
    }
    if (writer && !registered) {
      if (!mcx_cas_relaxed(&l->state, &s, s + MCX__RWL_WWAIT_UNIT))
        continue;
      registered = 1;
      s += MCX__RWL_WWAIT_UNIT;
    }
    mcx_fetch_add_seq_cst(&l->nwait, 1u);
    uint32_t cur = mcx_load_seq_cst(&l->state);
    if (cur == s)
      mcx_port_futex_wait(&l->state, s, deadline_ns, shared);
    mcx_fetch_sub_relaxed(&l->nwait, 1u);
    s = mcx_load_relaxed(&l->state);
  }
}

int mcx__rwl_unlock(mcx__rwl_t *l, int writer, uint32_t tid, int shared)
{
  uint32_t s = mcx_load_relaxed(&l->state);
  for (;;) {
    if (s & MCX__RWL_DELETED)
      return MCX_ECLOSED;
    uint32_t n;
    if (writer) {
      if (!(s & MCX__RWL_WRITER) || mcx_load_relaxed(&l->writer) != tid)
        return MCX_EPERM;
      mcx_store_relaxed(&l->writer, 0u); /* we still hold it: nobody else writes it */
      n = s & ~MCX__RWL_WRITER;
    } else {
      if ((s & MCX__RWL_READERS_MASK) == 0 || (s & MCX__RWL_WRITER))
        return MCX_EPERM;
      n = s - 1;
    }
    /* W-R1 (reader) / W-R2 (writer) release, seq_cst for the Dekker check of
     * nwait: pairs with W-A1/W-A2. */
    if (mcx_cas_seq_cst(&l->state, &s, n))
      break;
    if (writer)
      mcx_store_relaxed(&l->writer, tid); /* CAS failed (a writer registered): still ours */
  }
  if (mcx_load_seq_cst(&l->nwait) > 0)
    mcx_port_futex_wake(&l->state, 0x7fffffff, shared);
  return MCX_OK;
}

int mcx__rwl_mark_deleted(mcx__rwl_t *l, int shared)
{
  uint32_t s = mcx_load_relaxed(&l->state);
  do {
    if (s & (MCX__RWL_READERS_MASK | MCX__RWL_WRITER))
      return MCX_EBUSY;
  } while (!mcx_cas_relaxed(&l->state, &s, s | MCX__RWL_DELETED));
  mcx_port_futex_wake(&l->state, 0x7fffffff, shared);
  return MCX_OK;
}

void mcx__rwl_delete_force(mcx__rwl_t *l, int shared)
{
  /* seq_cst as the unlock CAS (W-R1/W-R2), for the same sleeper protocol. */
  mcx_fetch_or_seq_cst(&l->state, MCX__RWL_DELETED);
  mcx_port_futex_wake(&l->state, 0x7fffffff, shared);
}
