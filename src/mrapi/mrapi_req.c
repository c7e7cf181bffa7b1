/* SPDX-License-Identifier: BSD-3-Clause */
/* MRAPI requests and the software DMA engine (contract in mrapi_req.h).
 *
 * Memory-order pairs:
 *   Q-R1 release (the issuer publishes the request's arguments with the
 *        QUEUED state) pairs with Q-A1 acquire (the engine's CAS QUEUED ->
 *        RUNNING).
 *   Q-R2 release (the engine or the issuer stores DONE after the copy and the
 *        result) pairs with Q-A2 acquire (a tester's load of the state): the
 *        copied bytes and the result are visible to whoever sees DONE.
 *   Q-R3 release (the reporter stores FREE with a new generation) pairs with
 *        Q-A3 acquire (the allocating CAS FREE -> ISSUED).
 *   The queue itself is under a process-private mutex (M-A1/M-R1).
 */
#include "mrapi/mrapi_req.h"

#include <string.h>

#include "common/mcx_atomic.h"
#include "common/mcx_err.h"
#include "mrapi/mrapi_domain.h"
#include "mrapi_impl_spec.h"
#include "ports/mcx_port.h"
#include "ports/mcx_port_mrapi.h"
#include "ports/mcx_port_shm.h"
#include "sync/mrapi_prim.h"

enum { R_FREE = 0, R_ISSUED = 1, R_QUEUED = 2, R_RUNNING = 3, R_DONE = 4, R_CANCELLED = 5 };
#define NREQ MRAPI_MAX_REQUESTS
/* Polling rounds (pause instructions, about 4 us) before a yield or a sleep. */
#define SPIN_ROUNDS 2000
#define ST(w) ((w) & 0xfu)
#define GEN(w) ((w) >> 4)

typedef struct req {
  mcx_atomic_u32 state; /* gen << 4 | R_*; see the pairs above */
  int32_t result;       /* written before DONE (Q-R2) */
  size_t bytes;
  mcx__mr_xfer_t x;        /* written while ISSUED, before QUEUED (Q-R1) */
  mcx__mr_ident_t ident;   /* the issuing node, for the engine */
} req_t;

static struct {
  mcx_atomic_u32 owner; /* the process the table belongs to; bit 31 while a fork()ed child resets it */
  req_t r[NREQ];
  mcx_atomic_u32 hint;  /* where the next allocation starts looking; relaxed: a hint */
  mcx_atomic_u32 done;  /* bumped at every completion; wait_any sleeps on it */
  mcx_atomic_u32 inflight; /* queued or running on the engine */
  /* engine */
  mcx_atomic_u32 pid;   /* the process whose engine runs (0: none); restarted after fork */
  mcx__rmutex_t qlock;  /* process-private; guards q, qhead, qtail */
  uint32_t q[NREQ];
  uint32_t qhead, qtail;
  mcx_atomic_u32 qseq;  /* bumped at every enqueue; the engine sleeps on it */
} R;

/* A fork()ed child inherits the parent's requests but not its engine: the
 * first call in the child empties the table (the copies belong to the parent). */
static void proc_check(void)
{
  uint32_t mypid = mcx_port_pid();
  /* Acquire: pairs with the release below (the reset table is visible). */
  uint32_t seen = mcx_load_acquire(&R.owner);
  if (seen == mypid)
    return;
  /* A reset marked by another process (fork() came while the parent was
   * resetting) is not ours to wait for: take it over. */
  int ours_resetting = (seen & 0x80000000u) && (seen & 0x7fffffffu) == mypid;
  if (!ours_resetting && mcx_cas_acq_rel(&R.owner, &seen, mypid | 0x80000000u)) {
    for (uint32_t i = 0; i < NREQ; i++)
      mcx_store_relaxed(&R.r[i].state, 0u); /* published by the release below */
    mcx_store_relaxed(&R.pid, 0u);           /* no engine runs here yet */
    mcx_store_release(&R.owner, mypid);      /* pairs with the acquire above */
  } else {
    while ((seen = mcx_load_acquire(&R.owner)) != mypid) { /* pairs with the release above */
      if (!((seen & 0x80000000u) && (seen & 0x7fffffffu) == mypid)) {
        proc_check(); /* the word changed hands meanwhile: start over */
        return;
      }
      mcx_port_yield();
    }
  }
}

static uint32_t handle_of(uint32_t idx, uint32_t w) { return (idx + 1) | ((GEN(w) & 0xffffu) << 16); }

/* The request a handle names, with its current state word, or NULL. */
static req_t *lookup(uint32_t h, uint32_t *w_out)
{
  uint32_t idx = (h & 0xffffu) - 1;
  if ((h & 0xffffu) == 0 || idx >= NREQ)
    return NULL;
  req_t *q = &R.r[idx];
  uint32_t w = mcx_load_acquire(&q->state); /* Q-A2 */
  if (ST(w) == R_FREE || (GEN(w) & 0xffffu) != (h >> 16))
    return NULL;
  *w_out = w;
  return q;
}

static void complete(req_t *q, uint32_t w, int result, size_t bytes)
{
  q->result = result;
  q->bytes = bytes;
  mcx_store_release(&q->state, (w & ~0xfu) | R_DONE); /* Q-R2: pairs with Q-A2 */
  mcx_fetch_add_seq_cst(&R.done, 1u);
  mcx_port_futex_wake(&q->state, 0x7fffffff, 0);
  mcx_port_futex_wake(&R.done, 0x7fffffff, 0);
}

static void engine_main(void *arg)
{
  uint32_t mypid = (uint32_t)(uintptr_t)arg;
  uint32_t depth;
  mcx_port_pin_self(-1); /* not the affinity of whichever thread started it */
  for (;;) {
    if (mcx_load_relaxed(&R.pid) != mypid)
      return; /* a fork()ed child restarted the engine; this is a stale copy (cannot happen: threads do not fork) */
    uint32_t seen = mcx_load_seq_cst(&R.qseq);
    mcx__rmutex_lock(&R.qlock, mcx_port_tid(), MCX_NO_DEADLINE, 0, &depth);
    int have = R.qhead != R.qtail;
    uint32_t idx = have ? R.q[R.qhead++ % NREQ] : 0;
    mcx__rmutex_unlock(&R.qlock, mcx_port_tid(), 0);
    if (!have) {
      /* Poll a little before sleeping: requests tend to come in bursts, and
       * a futex wake-up across cores costs tens of microseconds. */
      for (int i = 0; i < SPIN_ROUNDS && mcx_load_relaxed(&R.qseq) == seen; i++)
        mcx_port_cpu_relax();
      if (mcx_load_relaxed(&R.qseq) == seen)
        mcx_port_futex_wait(&R.qseq, seen, MCX_NO_DEADLINE, 0);
      continue;
    }
    req_t *q = &R.r[idx];
    uint32_t w = mcx_load_relaxed(&q->state);
    /* Q-A1 acquire: pairs with Q-R1 (the arguments). A cancelled request fails the CAS. */
    if (ST(w) != R_QUEUED || !mcx_cas_acquire(&q->state, &w, (w & ~0xfu) | R_RUNNING)) {
      mcx_fetch_sub_relaxed(&R.inflight, 1u);
      continue;
    }
    mcx__mr_ident_set(&q->ident);
    size_t bytes = 0;
    const mcx__mr_xfer_t *x = &q->x;
    int r = mcx__mr_rmem_transfer(x->rmem, x->write, x->rmem_off, x->local, x->local_off, x->bpa, x->nstrides,
                                  x->rstride, x->lstride, &bytes);
    mcx__mr_ident_set(NULL);
    complete(q, (w & ~0xfu) | R_RUNNING, r, bytes);
    mcx_fetch_sub_relaxed(&R.inflight, 1u); /* a count for diagnostics; the state word orders the request */
  }
}

/* Starts this process's engine if it does not run (first use, or after fork). */
static int engine_ensure(void)
{
  uint32_t mypid = mcx_port_pid();
  if (mcx_load_acquire(&R.pid) == mypid) /* pairs with the release below */
    return MCX_OK;
  static mcx__rmutex_t start_lock; /* zero = unlocked, process-private */
  uint32_t depth;
  mcx__rmutex_lock(&start_lock, mcx_port_tid(), MCX_NO_DEADLINE, 0, &depth);
  int r = MCX_OK;
  if (mcx_load_relaxed(&R.pid) != mypid) {
    mcx__rmutex_init(&R.qlock, 0);
    R.qhead = R.qtail = 0;
    mcx_store_relaxed(&R.inflight, 0u);
    mcx_store_release(&R.pid, mypid); /* before the thread reads it */
    r = mcx_port_thread_start(engine_main, (void *)(uintptr_t)mypid);
    if (r != MCX_OK)
      mcx_store_relaxed(&R.pid, 0u);
  }
  mcx__rmutex_unlock(&start_lock, mcx_port_tid(), 0);
  return r;
}

static req_t *alloc_req(uint32_t *idx_out, uint32_t *w_out)
{
  uint32_t start = mcx_load_relaxed(&R.hint);
  for (uint32_t k = 0; k < NREQ; k++) {
    uint32_t i = (start + k) % NREQ;
    req_t *q = &R.r[i];
    uint32_t w = mcx_load_relaxed(&q->state);
    /* Q-A3 acquire: pairs with Q-R3 (the previous use is over). */
    if (ST(w) == R_FREE && mcx_cas_acquire(&q->state, &w, (w & ~0xfu) | R_ISSUED)) {
      mcx_store_relaxed(&R.hint, (i + 1) % NREQ);
      *idx_out = i;
      *w_out = (w & ~0xfu) | R_ISSUED;
      return q;
    }
  }
  return NULL;
}

int mcx__mr_req_issue(const mcx__mr_xfer_t *x, int engine, uint32_t *req_out)
{
  proc_check();
  int r = mcx__mr_rmem_check(x->rmem, x->rmem_off, x->bpa, x->nstrides, x->rstride, x->lstride);
  if (r != MCX_OK)
    return r;
  if (engine && engine_ensure() != MCX_OK)
    engine = 0; /* no thread to be had: copy now */
  uint32_t idx, w;
  req_t *q = alloc_req(&idx, &w);
  if (!q)
    return MCX_ENOMEM;
  q->x = *x;
  *req_out = handle_of(idx, w);
  if (!engine) {
    size_t bytes = 0;
    r = mcx__mr_rmem_transfer(x->rmem, x->write, x->rmem_off, x->local, x->local_off, x->bpa, x->nstrides,
                              x->rstride, x->lstride, &bytes);
    complete(q, w, r, bytes);
    return MCX_OK;
  }
  mcx__mr_ident_get(&q->ident);
  mcx_fetch_add_relaxed(&R.inflight, 1u);
  mcx_store_release(&q->state, (w & ~0xfu) | R_QUEUED); /* Q-R1: pairs with Q-A1 */
  uint32_t depth;
  mcx__rmutex_lock(&R.qlock, mcx_port_tid(), MCX_NO_DEADLINE, 0, &depth);
  R.q[R.qtail++ % NREQ] = idx; /* at most NREQ requests exist: the ring cannot overflow */
  mcx__rmutex_unlock(&R.qlock, mcx_port_tid(), 0);
  mcx_fetch_add_seq_cst(&R.qseq, 1u); /* seq_cst: ordered with the engine's load before sleeping */
  mcx_port_futex_wake(&R.qseq, 1, 0);
  return MCX_OK;
}

/* Reports a finished request and frees it. */
static int report(req_t *q, uint32_t w, size_t *bytes, int *result)
{
  uint32_t st = ST(w);
  if (bytes)
    *bytes = st == R_DONE ? q->bytes : 0;
  if (result)
    *result = st == R_DONE ? q->result : MCX_ECANCELED;
  uint32_t nw = ((GEN(w) + 1) << 4) | R_FREE;
  /* Q-R3 release: pairs with Q-A3. Only one reporter wins. */
  if (!mcx_cas_release(&q->state, &w, nw))
    return MCX_EINVAL;
  return st == R_DONE ? MCX_OK : MCX_ECANCELED;
}

int mcx__mr_req_wait(uint32_t h, uint32_t timeout_ms, size_t *bytes, int *result)
{
  proc_check();
  uint64_t dl = timeout_ms == 0 ? 0 : mcx_port_deadline_ms(timeout_ms);
  for (int round = 0;; round++) {
    uint32_t w;
    req_t *q = lookup(h, &w);
    if (!q)
      return MCX_EINVAL;
    if (ST(w) == R_DONE || ST(w) == R_CANCELLED)
      return report(q, w, bytes, result);
    if (dl == 0)
      return MCX_EAGAIN;
    if (dl != MCX_NO_DEADLINE && mcx_port_now_ns() >= dl)
      return MCX_ETIMEDOUT;
    /* Spin briefly, yield once, then sleep (the engine wakes the state word). */
    if (round < SPIN_ROUNDS)
      mcx_port_cpu_relax();
    else if (round == SPIN_ROUNDS)
      mcx_port_yield();
    else
      mcx_port_futex_wait(&q->state, w, dl, 0);
  }
}

int mcx__mr_req_wait_any(const uint32_t *reqs, size_t n, uint32_t timeout_ms, size_t *bytes, int *result)
{
  proc_check();
  uint64_t dl = timeout_ms == 0 ? 0 : mcx_port_deadline_ms(timeout_ms);
  for (;;) {
    uint32_t seen = mcx_load_seq_cst(&R.done);
    int live = 0;
    for (size_t i = 0; i < n; i++) {
      uint32_t w;
      req_t *q = lookup(reqs[i], &w);
      if (!q)
        continue;
      live = 1;
      if (ST(w) == R_DONE || ST(w) == R_CANCELLED) {
        int r = report(q, w, bytes, result);
        if (r == MCX_OK || r == MCX_ECANCELED)
          return (int)i;
      }
    }
    if (!live)
      return MCX_EINVAL;
    if (dl == 0)
      return MCX_EAGAIN;
    if (dl != MCX_NO_DEADLINE && mcx_port_now_ns() >= dl)
      return MCX_ETIMEDOUT;
    mcx_port_futex_wait(&R.done, seen, dl, 0);
  }
}

int mcx__mr_req_cancel(uint32_t h)
{
  proc_check();
  uint32_t w;
  req_t *q = lookup(h, &w);
  if (!q)
    return MCX_EINVAL;
  if (ST(w) == R_QUEUED && mcx_cas_relaxed(&q->state, &w, (w & ~0xfu) | R_CANCELLED)) {
    /* Relaxed: a cancelled request publishes nothing; the engine's CAS fails. */
    mcx_fetch_add_seq_cst(&R.done, 1u);
    mcx_port_futex_wake(&q->state, 0x7fffffff, 0);
    mcx_port_futex_wake(&R.done, 0x7fffffff, 0);
  }
  return MCX_OK; /* running or done: it completes normally */
}

void mcx__mr_req_drain(uint32_t rmem)
{
  proc_check();
  for (;;) {
    int busy = 0;
    for (uint32_t i = 0; i < NREQ && !busy; i++) {
      uint32_t w = mcx_load_acquire(&R.r[i].state); /* Q-A2 */
      busy = (ST(w) == R_QUEUED || ST(w) == R_RUNNING) && (rmem == 0 || R.r[i].x.rmem == rmem);
    }
    if (!busy)
      return;
    mcx_port_sleep_ns(100000);
  }
}
