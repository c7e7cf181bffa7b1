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
#include <string.h>

#include "ports/mcx_port.h"
#include "runtime/runtime.h"

enum { RS_FREE = 0, RS_VALID = 1, RS_BUSY = 2, RS_COMPLETED = 3, RS_CANCELLED = 4 };

typedef struct mcx__req {
  /* Written by the owner thread only; on its own line so requests of
   * different threads do not share lines. */
  MCX_ALIGNED_LINE mcx_atomic_u32 state; /* gen << 8 | RS_* */
  mcx_atomic_u32 owner_key; /* relaxed: read by finalize's sweep while others allocate */
  int result;
  size_t size;
  mcx__req_args_t a;
} mcx__req_t;

#define NWORDS ((MCA_MAX_REQUESTS + 63) / 64)

static mcx__req_t reqs[MCA_MAX_REQUESTS];
/* Allocation bitset: bit set = in use. Contended by all threads of the process. */
static MCX_ALIGNED_LINE mcx_atomic_u64 bitmap[NWORDS];
static _Thread_local uint32_t alloc_hint;

static int alloc_slot(uint32_t *idx)
{
  for (uint32_t k = 0; k < NWORDS; k++) {
    uint32_t w = (alloc_hint + k) % NWORDS;
    uint64_t cur = mcx_load_relaxed(&bitmap[w]);
    while (~cur) {
      uint32_t bit = (uint32_t)__builtin_ctzll(~cur);
      if (w * 64 + bit >= MCA_MAX_REQUESTS)
        break;
      /* A-Q1 — acquire: the previous user's last writes to the request happen
       * before ours; pairs with R-Q1 (free_slot). */
      if (mcx_cas_acquire(&bitmap[w], &cur, cur | (UINT64_C(1) << bit))) {
        alloc_hint = w;
        *idx = w * 64 + bit;
        return MCX_OK;
      }
    }
  }
  return MCX_ENOMEM;
}

static void free_slot(uint32_t idx, uint32_t gen)
{
  mcx__req_t *r = &reqs[idx];
  uint32_t next = (gen + 1) & 0x7fffu;
  mcx_store_relaxed(&r->state, (next ? next : 1) << 8 | RS_FREE); /* ordered by R-Q1 */
  /* R-Q1 — release: pairs with A-Q1 in alloc_slot. */
  mcx_fetch_and_release(&bitmap[idx / 64], ~(UINT64_C(1) << (idx % 64)));
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
  if (alloc_slot(&idx))
    return MCX_ENOMEM;
  mcx__req_t *r = &reqs[idx];
  uint32_t gen = mcx_load_relaxed(&r->state) >> 8; /* ours since A-Q1 */
  if (gen == 0)
    gen = 1;
  mcx_store_relaxed(&r->owner_key, mcx__self.key);
  r->a = *a;
  r->result = result;
  r->size = size;
  mcx_store_release(&r->state, gen << 8 | (completed ? RS_COMPLETED : RS_VALID));
  *handle = mcx__handle(idx, gen);
  return MCX_OK;
}

static int lookup(uint32_t handle, mcx__req_t **out, uint32_t *st)
{
  uint32_t idx = mcx__handle_idx(handle), gen = mcx__handle_gen(handle);
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

/* Tries the operation once. 1 = done (r->result set), 0 = still pending. */
static int progress(mcx__req_t *r)
{
  int res;
  size_t size = 0;
  switch (r->a.kind) {
  case REQ_MSG_SEND:
    res = mcx__msg_try_send(r->a.ep, r->a.ep2, r->a.cbuf, r->a.size, r->a.prio);
    size = r->a.size;
    break;
  case REQ_MSG_RECV:
    res = mcx__msg_try_recv(r->a.ep, r->a.buf, r->a.size, &size);
    break;
  case REQ_EP_GET: {
    uint32_t h;
    res = mcx__ep_get(r->a.node_id, r->a.port, 0, &h);
    if (res == MCX_ETIMEDOUT)
      res = MCX_EAGAIN;
    else if (res == MCX_OK)
      *r->a.out_handle = h;
    break;
  }
  /* channels (chan.c) */
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
  case REQ_PKT_RECV:
    res = mcx__pkt_try_recv(r->a.ep, (void **)r->a.buf, &size);
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
    int done = progress(r);
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
    free_slot(mcx__handle_idx(handle), gen);
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
      mcx__wp_sleep(wp, key, deadline, mcx__self.dom->shared);
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
      if (mcx_cas_acq_rel(&r->state, &st, gen << 8 | RS_CANCELLED))
        return MCX_OK;
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
    if ((st & 0xff) != RS_FREE && mcx_load_relaxed(&reqs[i].owner_key) == key)
      free_slot(i, st >> 8);
  }
}
