/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Requests: a pool of MCA_MAX_REQUESTS in process memory, allocated from a
 * lock-free bitset; each request's state changes only by compare-and-swap:
 *
 *   FREE -> VALID -> (BUSY: being progressed) -> VALID | COMPLETED
 *   VALID -> CANCELLED;  COMPLETED | CANCELLED -> FREE (reported, gen + 1)
 *
 * A request progresses when its owner node tests or waits on it (the node is
 * the receiver of its endpoints, so the single-consumer rule of the rings
 * holds). The handle carries a generation: a reported request's handle is stale.
 */
#include <stdlib.h>
#include <string.h>

#include "ports/mcx_port.h"
#include "runtime/chan_pkt.h"
#include "runtime/domain.h"
#include "runtime/endpoint.h"
#include "runtime/msg.h"
#include "runtime/request.h"

enum { RS_FREE = 0, RS_VALID = 1, RS_BUSY = 2, RS_COMPLETED = 3, RS_CANCELLED = 4 };

typedef struct mcx__req {
  /* Written by the owner thread only; on its own line so requests of
   * different threads do not share lines. */
  MCX_ALIGNED_LINE mcx_atomic_u32 state; /* gen << 8 | RS_* */
  mcx_atomic_u32 owner_key; /* relaxed: read by finalize's sweep while others allocate */
  int result;
  size_t size;
  /* Completed by its _i call: its sequence number (0: not), reclaimable
   * when the pool runs dry. Relaxed: written before R-Q2 and read after an
   * acquire of COMPLETED. */
  mcx_atomic_u32 born_done;
  uint32_t next;   /* receive queue link (index + 1, 0 = last); owner thread only */
  uint32_t queued; /* in a receive queue; owner thread only */
  mcx__req_args_t a;
} mcx__req_t;

#define NWORDS ((MCA_MAX_REQUESTS + 63) / 64)

/* Request handles: generation << 11 | (index + 1). 21 bits of generation
 * (the state word's 24 hold them), and allocation goes round the pool, so a
 * handle is recognized as stale until its slot has been reused 2^21 times,
 * i.e. after about 2^31 requests of the process. */
#define REQ_IDX_BITS 11u
#define REQ_GEN_MASK 0x1fffffu
_Static_assert(MCA_MAX_REQUESTS < (1u << REQ_IDX_BITS), "request index fits its handle bits");
static inline uint32_t req_handle(uint32_t idx, uint32_t gen) { return gen << REQ_IDX_BITS | (idx + 1); }
static inline uint32_t req_idx(uint32_t h) { return (h & ((1u << REQ_IDX_BITS) - 1)) - 1; }
static inline uint32_t req_gen(uint32_t h) { return h >> REQ_IDX_BITS; }

static mcx__req_t reqs[MCA_MAX_REQUESTS];
/* Allocation bitset: bit set = in use. Contended by all threads of the process. */
static MCX_ALIGNED_LINE mcx_atomic_u64 bitmap[NWORDS];
static _Thread_local uint32_t alloc_hint; /* the slot after this thread's last one */

static int alloc_slot(uint32_t *idx)
{
  /* Round the pool: the first free slot at or after the hint, so a slot is
   * not reused at once (stale handles stay recognizable longer). */
  for (uint32_t k = 0; k <= NWORDS; k++) {
    uint32_t w = (alloc_hint / 64 + k) % NWORDS;
    uint64_t from = k == 0 ? ~UINT64_C(0) << (alloc_hint % 64) : ~UINT64_C(0);
    uint64_t cur = mcx_load_relaxed(&bitmap[w]);
    while (~cur & from) {
      uint32_t bit = (uint32_t)__builtin_ctzll(~cur & from);
      if (w * 64 + bit >= MCA_MAX_REQUESTS)
        break;
      /* A-Q1 — acquire: the previous user's last writes to the request happen
       * before ours; pairs with R-Q1 (free_slot). */
      if (mcx_cas_acquire(&bitmap[w], &cur, cur | (UINT64_C(1) << bit))) {
        *idx = w * 64 + bit;
        alloc_hint = (*idx + 1) % MCA_MAX_REQUESTS;
        return MCX_OK;
      }
    }
  }
  return MCX_ENOMEM;
}

static void free_slot(uint32_t idx, uint32_t gen);

/*
 * An _i call that completed at once reports SUCCESS and leaves a completed
 * request, which test or wait report (and free). Programs often skip that
 * when the call said SUCCESS; when the pool runs dry, such requests of the
 * calling node are reclaimed (their handles go stale), except its newest
 * RECLAIM_SPARE, so skipping it leaks nothing.
 */
static mcx_atomic_u32 born_seq = 1; /* numbers requests completed by their _i call */
#define RECLAIM_SPARE 64u /* the newest ones of a node are never reclaimed */

static uint32_t next_born(void)
{
  uint32_t v = mcx_fetch_add_relaxed(&born_seq, 1) + 1; /* a counter: no ordering */
  return v ? v : 1;
}

static uint32_t reclaim_born_done(void)
{
  uint32_t n = 0, now = mcx_load_relaxed(&born_seq);
  for (uint32_t i = 0; i < MCA_MAX_REQUESTS; i++) {
    mcx__req_t *r = &reqs[i];
    uint32_t st = mcx_load_acquire(&r->state); /* pairs with R-Q2 */
    if ((st & 0xff) != RS_COMPLETED || mcx_load_relaxed(&r->owner_key) != mcx__self.key)
      continue; /* only the calling node's own requests */
    uint32_t b = mcx_load_relaxed(&r->born_done);
    if (!b || now - b < RECLAIM_SPARE)
      continue; /* tested later by its program, or too recent to give up */
    /* Claim it as a report would (test_one's CAS): only one side wins. */
    if (mcx_cas_acq_rel(&r->state, &st, (st & ~0xffu) | RS_BUSY)) {
      free_slot(i, st >> 8);
      n++;
    }
  }
  return n;
}

static void free_slot(uint32_t idx, uint32_t gen)
{
  mcx__req_t *r = &reqs[idx];
  uint32_t next = (gen + 1) & REQ_GEN_MASK;
  mcx_store_relaxed(&r->state, (next ? next : 1) << 8 | RS_FREE); /* ordered by R-Q1 */
  /* R-Q1 — release: pairs with A-Q1 in alloc_slot. */
  mcx_fetch_and_release(&bitmap[idx / 64], ~(UINT64_C(1) << (idx % 64)));
}

/* ---- receive queues: pending receive requests of one endpoint (messages)
 * or channel (packets), in the order they were posted. They are matched to
 * arriving items in that order, and before a later receive takes anything.
 * Only the owner of an endpoint receives on it. A node is a thread by default,
 * and then each table belongs to one thread and takes no lock; a node of
 * process scope has one table for all its threads, under its lock (`shared`).
 * The table is in process memory, allocated with the node (mcx__recv_qs_new):
 * thread-local storage keeps only a pointer to it (mcx__self.rq), so the
 * library's initial-exec block stays small enough for a dlopen() after
 * start-up. */
#define MCX_RECV_QUEUES 64

typedef struct recv_q {
  uint32_t kind, handle; /* REQ_MSG_RECV / REQ_PKT_RECV and the endpoint / channel */
  uint32_t head, tail;   /* request index + 1; 0 = empty */
} recv_q_t;

struct mcx__recv_qs {
  mcx__mutex_t lock; /* process scope: every access to q[] and the requests' links */
  int shared;
  recv_q_t q[MCX_RECV_QUEUES];
};

struct mcx__recv_qs *mcx__recv_qs_new(int shared)
{
  struct mcx__recv_qs *t = calloc(1, sizeof *t);
  if (t)
    t->shared = shared;
  return t;
}

void mcx__recv_qs_free(struct mcx__recv_qs *t) { free(t); }

/* The lock of a process-scope node's table; a thread's own takes none. */
static void rq_lock(struct mcx__recv_qs *t)
{
  if (t && t->shared)
    mcx__mutex_lock(&t->lock, 0);
}
static void rq_unlock(struct mcx__recv_qs *t)
{
  if (t && t->shared)
    mcx__mutex_unlock(&t->lock, 0);
}

/* The calling thread's count of queued receives (mcx__recv_queued), which
 * the blocking receives test. A process-scope node's threads keep theirs at
 * 1 for good (mcx__node_adopt): every blocking receive looks at the shared
 * table, and its count is not theirs to change. */
static void queued_add(int n)
{
  struct mcx__recv_qs *t = mcx__self.rq;
  if (t && !t->shared)
    mcx__self_recv_queued(mcx__recv_queued + (uint32_t)n);
}

static recv_q_t *recv_q_find(uint32_t kind, uint32_t handle, int make)
{
  struct mcx__recv_qs *t = mcx__self.rq;
  if (!t)
    return NULL; /* not a node (a fork child's copy): no queue */
  recv_q_t *free_q = NULL;
  for (uint32_t i = 0; i < MCX_RECV_QUEUES; i++) {
    recv_q_t *q = &t->q[i];
    if (q->head && q->kind == kind && q->handle == handle)
      return q;
    if (!q->head && !free_q)
      free_q = q;
  }
  if (!make || !free_q)
    return NULL;
  free_q->kind = kind;
  free_q->handle = handle;
  return free_q;
}

static int is_recv(uint32_t kind) { return kind == REQ_MSG_RECV || kind == REQ_PKT_RECV; }

static void recv_q_pop(recv_q_t *q)
{
  mcx__req_t *r = &reqs[q->head - 1];
  q->head = r->next;
  if (!q->head)
    q->tail = 0;
  r->next = 0;
  r->queued = 0;
  queued_add(-1);
}

/* Takes request @p idx out of its queue (cancel, finalize). */
static void recv_q_remove(uint32_t idx)
{
  mcx__req_t *r = &reqs[idx];
  recv_q_t *q = recv_q_find(r->a.kind, r->a.ep, 0);
  if (!q)
    return;
  uint32_t prev = 0;
  for (uint32_t cur = q->head; cur; prev = cur, cur = reqs[cur - 1].next) {
    if (cur - 1 != idx)
      continue;
    if (prev)
      reqs[prev - 1].next = r->next;
    else
      q->head = r->next;
    if (q->tail == cur)
      q->tail = prev;
    r->next = 0;
    r->queued = 0;
    queued_add(-1);
    return;
  }
}

static int attempt_recv(mcx__req_t *r, size_t *size)
{
  if (r->a.kind == REQ_MSG_RECV)
    return mcx__msg_try_recv(r->a.ep, r->a.buf, r->a.size, size);
  return mcx__pkt_try_recv(r->a.ep, (void **)r->a.buf, size);
}

/*
 * Serves queue @p q from its head until an attempt finds nothing. Requests
 * other than @p self move VALID -> BUSY -> COMPLETED | VALID here; @p self is
 * already BUSY (its caller completes it). @return 1 when @p self completed.
 */
static int recv_q_drain(recv_q_t *q, mcx__req_t *self)
{
  while (q->head) {
    mcx__req_t *r = &reqs[q->head - 1];
    if (r != self) {
      uint32_t st = mcx_load_acquire(&r->state); /* pairs with R-Q2 of another thread's test */
      if ((st & 0xff) == RS_BUSY)
        return 0; /* a test of another thread of the node has it: it drains after us */
      /* A-Q2 — acquire, as a test's: pairs with R-Q2. Only a process-scope
       * node's threads compete for it (a test, a cancel). */
      if ((st & 0xff) != RS_VALID || !mcx_cas_acquire(&r->state, &st, (st & ~0xffu) | RS_BUSY)) {
        if ((st & 0xff) == RS_BUSY)
          return 0;
        recv_q_pop(q); /* cancelled: leaves the queue */
        continue;
      }
    }
    size_t size = 0;
    int res = attempt_recv(r, &size);
    if (res == MCX_EAGAIN) {
      if (r != self)
        mcx_store_release(&r->state, (mcx_load_relaxed(&r->state) & ~0xffu) | RS_VALID);
      return 0;
    }
    r->result = res;
    r->size = size;
    recv_q_pop(q);
    if (r == self)
      return 1;
    /* R-Q3 — release: the outcome before COMPLETED; pairs with the acquire
     * in lookup() of a later test. */
    mcx_store_release(&r->state, (mcx_load_relaxed(&r->state) & ~0xffu) | RS_COMPLETED);
  }
  return 0;
}

int mcx__recv_queue_drain(uint32_t kind, uint32_t handle)
{
  struct mcx__recv_qs *t = mcx__self.rq;
  rq_lock(t);
  recv_q_t *q = recv_q_find(kind, handle, 0);
  int empty = 1;
  if (q) {
    recv_q_drain(q, NULL);
    empty = q->head == 0;
  }
  rq_unlock(t);
  return empty;
}

static int drain_try(void *ctx)
{
  const mcx__req_args_t *a = ctx;
  return mcx__recv_queue_drain(a->kind, a->ep) ? MCX_OK : MCX_EAGAIN;
}

int mcx__recv_queue_wait(uint32_t kind, uint32_t handle)
{
  /* A fork child's copy of a node has no queue of its own (its count is
   * the parent's until its initialize): the receive reports NODE_NOTINIT. */
  if (!mcx__is_node())
    return MCX_OK;
  if (mcx__recv_queue_drain(kind, handle))
    return MCX_OK;
  mcx__domain_t *d = mcx__self.dom;
  mcx__req_args_t a = {.kind = kind, .ep = handle};
  mcx__waitpoint_t *wp = NULL;
  mcx__endpoint_t *ep;
  if (kind == REQ_MSG_RECV)
    wp = mcx__ep_resolve(d, handle, &ep) ? NULL : &ep->recv_wp;
  else
    wp = mcx__chan_waitpoint(&a);
  if (!wp)
    return MCX_OK; /* the receive itself reports the bad handle */
  return mcx__wait_until(d, wp, UINT32_MAX, drain_try, &a); /* ~0: no deadline */
}

uint32_t mcx__req_in_use(void)
{
  uint32_t n = 0;
  for (uint32_t w = 0; w < NWORDS; w++)
    n += (uint32_t)__builtin_popcountll(mcx_load_relaxed(&bitmap[w])); /* a snapshot */
  return n;
}

int mcx__req_start(const mcx__req_args_t *a, int completed, int result, size_t size,
                   uint32_t *handle)
{
  uint32_t idx;
  if (alloc_slot(&idx) && (!reclaim_born_done() || alloc_slot(&idx)))
    return MCX_ENOMEM;
  mcx__req_t *r = &reqs[idx];
  uint32_t gen = mcx_load_relaxed(&r->state) >> 8; /* ours since A-Q1 */
  if (gen == 0)
    gen = 1;
  mcx_store_relaxed(&r->owner_key, mcx__self.key);
  r->a = *a;
  r->result = result;
  r->size = size;
  mcx_store_relaxed(&r->born_done, completed ? next_born() : 0u);
  r->next = 0;
  r->queued = 0;
  mcx_store_release(&r->state, gen << 8 | (completed ? RS_COMPLETED : RS_VALID));
  *handle = req_handle(idx, gen);
  return MCX_OK;
}

static int progress_locked(mcx__req_t *r);

int mcx__req_begin(const mcx__req_args_t *a, uint32_t *handle, int *result, size_t *size)
{
  uint32_t idx;
  if (alloc_slot(&idx) && (!reclaim_born_done() || alloc_slot(&idx)))
    return MCX_ENOMEM;
  mcx__req_t *r = &reqs[idx];
  uint32_t gen = mcx_load_relaxed(&r->state) >> 8; /* ours since A-Q1 */
  if (gen == 0)
    gen = 1;
  mcx_store_relaxed(&r->owner_key, mcx__self.key);
  r->a = *a;
  r->result = 0;
  r->size = 0;
  mcx_store_relaxed(&r->born_done, 0);
  r->next = 0;
  r->queued = 0;
  struct mcx__recv_qs *t = is_recv(a->kind) ? mcx__self.rq : NULL;
  rq_lock(t);
  if (is_recv(a->kind)) {
    recv_q_t *q = recv_q_find(a->kind, a->ep, 1);
    if (q) { /* posted last: matched after every earlier request */
      if (q->tail)
        reqs[q->tail - 1].next = idx + 1;
      else
        q->head = idx + 1;
      q->tail = idx + 1;
      r->queued = 1;
      queued_add(1);
    }
  }
  /* The first attempt, as a test would make it (the request is BUSY). */
  mcx_store_relaxed(&r->state, gen << 8 | RS_BUSY);
  int done = progress_locked(r);
  rq_unlock(t);
  mcx_store_relaxed(&r->born_done, done ? next_born() : 0u);
  /* The outcome is read before the request is published: once it is, a
   * report (or a reclaim) may free the slot. */
  *result = r->result;
  *size = r->size;
  /* R-Q2 — release: the outcome fields before the new state (pairs with the
   * acquire in lookup()). */
  mcx_store_release(&r->state, gen << 8 | (done ? RS_COMPLETED : RS_VALID));
  *handle = req_handle(idx, gen);
  return done;
}

void mcx__req_discard(uint32_t handle)
{
  uint32_t idx = req_idx(handle);
  if (idx < MCA_MAX_REQUESTS)
    free_slot(idx, req_gen(handle));
}

static int lookup(uint32_t handle, mcx__req_t **out, uint32_t *st)
{
  uint32_t idx = req_idx(handle), gen = req_gen(handle);
  if (handle == 0 || idx >= MCA_MAX_REQUESTS || gen == 0)
    return MCX_EINVAL;
  mcx__req_t *r = &reqs[idx];
  uint32_t s = mcx_load_acquire(&r->state); /* pairs with the release in req_start */
  if ((s >> 8) != gen || (s & 0xff) == RS_FREE || mcx_load_relaxed(&r->owner_key) != mcx__self.key)
    return MCX_EINVAL;
  *out = r;
  *st = s;
  return MCX_OK;
}

/* Tries the operation once. 1 = done (r->result set), 0 = still pending.
 * A receive's with its node's queue table locked (rq_lock). */
static int progress_locked(mcx__req_t *r)
{
  int res;
  size_t size = 0;
  switch (r->a.kind) {
  case REQ_MSG_SEND:
    res = mcx__msg_try_send(r->a.ep, r->a.ep2, r->a.cbuf, r->a.size, r->a.prio);
    size = r->a.size;
    break;
  case REQ_MSG_RECV:
  case REQ_PKT_RECV: {
    recv_q_t *q = r->queued ? recv_q_find(r->a.kind, r->a.ep, 0) : NULL;
    if (!q) {
      /* Not queued (the queue table was full when it started): on its own. */
      res = attempt_recv(r, &size);
      break;
    }
    return recv_q_drain(q, r);
  }
  case REQ_EP_GET: {
    uint32_t h;
    res = mcx__ep_get(r->a.node_id, r->a.port, 0, &h);
    if (res == MCX_ETIMEDOUT)
      res = MCX_EAGAIN;
    else if (res == MCX_OK)
      *r->a.out_handle = h;
    break;
  }
  /* channels (chan_conn.c, chan_pkt.c) */
  case REQ_CHAN_OPEN: {
    uint32_t h = 0;
    res = mcx__chan_open_progress(r->a.ep, r->a.chan & 0xff, r->a.chan >> 8, &h);
    if (res == MCX_OK)
      *r->a.out_handle = h;
    break;
  }
  case REQ_CHAN_CLOSE:
    res = mcx__chan_close_progress(r->a.ep);
    break;
  case REQ_PKT_SEND:
    res = mcx__pkt_try_send(r->a.ep, r->a.cbuf, r->a.size);
    size = r->a.size;
    break;
  case REQ_POLL:
    res = r->a.poller->poll(r->a.buf);
    break;
  default:
    res = MCX_OK;
    break;
  }
  if (res == MCX_EAGAIN)
    return 0;
  r->result = res;
  r->size = size;
  return 1;
}

/* test without the node check; 1 done, 0 pending, <0 bad handle */
static int test_one(uint32_t handle, int *result, size_t *size)
{
  mcx__req_t *r;
  uint32_t st;
  int e = lookup(handle, &r, &st);
  if (e)
    return e;
  uint32_t gen = st >> 8;
  if ((st & 0xff) == RS_VALID) {
    uint32_t expect = st;
    /* A-Q2 — acquire: we now own the request's fields; pairs with R-Q2. */
    if (!mcx_cas_acquire(&r->state, &expect, gen << 8 | RS_BUSY))
      return 0; /* being progressed or cancelled right now */
    struct mcx__recv_qs *t = is_recv(r->a.kind) ? mcx__self.rq : NULL;
    rq_lock(t);
    int done = progress_locked(r);
    rq_unlock(t);
    /* R-Q2 — release: the outcome fields before the new state. */
    mcx_store_release(&r->state, gen << 8 | (done ? RS_COMPLETED : RS_VALID));
    if (!done)
      return 0;
    st = gen << 8 | RS_COMPLETED;
  }
  if ((st & 0xff) == RS_COMPLETED || (st & 0xff) == RS_CANCELLED) {
    uint32_t expect = st;
    /* Claim the report: only one caller sees the outcome. */
    if (!mcx_cas_acq_rel(&r->state, &expect, gen << 8 | RS_BUSY))
      return MCX_EINVAL;
    *result = (st & 0xff) == RS_CANCELLED ? MCX_ECANCELED : r->result;
    *size = r->size;
    free_slot(req_idx(handle), gen);
    return 1;
  }
  return 0; /* BUSY */
}

int mcx__req_test(uint32_t handle, int *result, size_t *size)
{
  return test_one(handle, result, size);
}

/* Where a pending request's event will be announced, for sleeping. */
static mcx__waitpoint_t *waitpoint_of(uint32_t handle)
{
  mcx__req_t *r;
  uint32_t st;
  mcx__domain_t *d = mcx__self.dom;
  if (lookup(handle, &r, &st) || !d)
    return NULL;
  mcx__endpoint_t *ep;
  switch (r->a.kind) {
  case REQ_MSG_RECV:
    return mcx__ep_resolve(d, r->a.ep, &ep) ? NULL : &ep->recv_wp;
  case REQ_MSG_SEND:
    return mcx__ep_resolve(d, r->a.ep2, &ep) ? NULL : &ep->space_wp;
  case REQ_EP_GET:
    return &d->hdr->ep_created;
  case REQ_CHAN_CONNECT:
  case REQ_CHAN_OPEN:
  case REQ_CHAN_CLOSE:
  case REQ_PKT_SEND:
  case REQ_PKT_RECV:
    return mcx__chan_waitpoint(&r->a);
  default:
    return NULL;
  }
}

int mcx__req_wait_any(size_t n, const uint32_t *handles, uint32_t timeout_ms, size_t *index,
                      int *result, size_t *size)
{
  uint64_t deadline = mcx_port_deadline_ms(timeout_ms);
  mcx__backoff_t b;
  mcx__backoff_begin(&b);
  uint64_t nap_ns = 20000;
  for (;;) {
    for (size_t i = 0; i < n; i++) {
      int t = test_one(handles[i], result, size);
      if (t != 0) {
        *index = i;
        return t < 0 ? t : 1;
      }
    }
    if (timeout_ms == 0 || mcx_port_now_ns() >= deadline)
      return MCX_ETIMEDOUT;
    if (!mcx__backoff_step(&b))
      continue;
    mcx__waitpoint_t *wp = n == 1 ? waitpoint_of(handles[0]) : NULL;
    if (wp) {
      uint32_t key = mcx__wp_prepare(wp);
      int t = test_one(handles[0], result, size);
      if (t != 0) {
        mcx__wp_cancel(wp);
        *index = 0;
        return t < 0 ? t : 1;
      }
      /* In slices: progress re-checks the peers' liveness (a channel open
       * whose peer died completes with an error), nobody announces that. */
      uint64_t slice = mcx_port_now_ns() + 50000000ull;
      mcx__wp_sleep(wp, key, slice < deadline ? slice : deadline, mcx__self.dom->shared);
    } else {
      /* Several events: poll with growing naps (20 µs .. 1 ms). */
      uint64_t now = mcx_port_now_ns();
      uint64_t left = deadline == MCX_NO_DEADLINE ? nap_ns : deadline - now;
      mcx_port_sleep_ns(left < nap_ns ? left : nap_ns);
      if (nap_ns < 1000000)
        nap_ns *= 2;
    }
  }
}

int mcx__req_wait(uint32_t handle, uint32_t timeout_ms, int *result, size_t *size)
{
  size_t idx;
  return mcx__req_wait_any(1, &handle, timeout_ms, &idx, result, size);
}

int mcx__req_cancel(uint32_t handle)
{
  mcx__req_t *r;
  uint32_t st;
  int e = lookup(handle, &r, &st);
  if (e)
    return e;
  for (;;) {
    uint32_t gen = st >> 8;
    switch (st & 0xff) {
    case RS_VALID:
      /* Acq_rel: a later test sees the cancellation and the fields with it. */
      if (mcx_cas_acq_rel(&r->state, &st, gen << 8 | RS_CANCELLED)) {
        if (is_recv(r->a.kind)) {
          rq_lock(mcx__self.rq);
          recv_q_remove(req_idx(handle));
          rq_unlock(mcx__self.rq);
        }
        if (r->a.kind == REQ_POLL) /* never polled again: its context goes */
          r->a.poller->drop(r->a.buf, 1);
        /* Never progressed again: the open it started is withdrawn (the
         * mca-2.0.3 profile keeps it pending, as it always did). */
        if (r->a.kind == REQ_CHAN_OPEN && mcx__self.dom && mcx__self.dom->compat != MCX_COMPAT_MCA203_)
          mcx__chan_open_withdraw(r->a.ep, r->a.chan >> 8);
        return MCX_OK;
      }
      break; /* st reloaded */
    case RS_BUSY:
      mcx_port_cpu_relax();
      st = mcx_load_acquire(&r->state);
      if ((st >> 8) != gen)
        return MCX_EINVAL;
      break;
    case RS_CANCELLED:
      return MCX_ECANCELED;
    default: /* COMPLETED: too late to cancel */
      return MCX_EBUSY;
    }
  }
}

void mcx__req_forget_all(void)
{
  /* The parent's tables (copies in the child's heap) are not the child's. */
  mcx__self.rq = NULL;
  mcx__self_recv_queued(0);
  /* A fork child runs this on its only thread before it makes any request. */
  for (uint32_t w = 0; w < NWORDS; w++)
    mcx_store_relaxed(&bitmap[w], 0);
}

void mcx__req_release_node(uint32_t key)
{
  for (uint32_t i = 0; i < MCA_MAX_REQUESTS; i++) {
    if (!(mcx_load_acquire(&bitmap[i / 64]) & (UINT64_C(1) << (i % 64))))
      continue;
    uint32_t st = mcx_load_acquire(&reqs[i].state);
    if ((st & 0xff) != RS_FREE && mcx_load_relaxed(&reqs[i].owner_key) == key) {
      if ((st & 0xff) == RS_VALID && reqs[i].a.kind == REQ_POLL) /* pending: never polled again */
        reqs[i].a.poller->drop(reqs[i].a.buf, 0);
      free_slot(i, st >> 8);
    }
  }
  if (key == mcx__self.key && mcx__self.rq) { /* the finalizing node's queues */
    memset(mcx__self.rq->q, 0, sizeof mcx__self.rq->q);
    mcx__self_recv_queued(0);
  }
}
