/* SPDX-License-Identifier: BSD-3-Clause */
/* Connectionless messages: per-priority MPSC rings of the receiving endpoint. */
#include <stdlib.h>

#include "mcapi.h"
#include "ports/mcx_port.h"
#include "runtime/domain.h"
#include "runtime/endpoint.h"
#include "runtime/msg.h"
#include "runtime/msg_pmq.h"
#include "runtime/node.h"
#include "runtime/receipt.h"
#include "runtime/request.h"

/* ---- the message payload pool (mcx__mpool_t in mpsc_ring.h) */

void mcx__msg_init_pool(uint8_t *base, size_t off_meta, uint32_t nbufs)
{
  mcx__pool_view_t v;
  mcx_atomic_u64 *state;
  mcx__pool_locate(base, off_meta, nbufs, &v, &state);
  mcx__pool_init(&v); /* states are 0 (free) in a fresh partition */
}

void mcx__msg_attach(mcx__domain_t *d)
{
  const mcx__geom_t *g = &d->g; /* the layout in process memory (mcx__take_geometry) */
  mcx__pool_locate(d->base, g->off_msg_meta, g->n_msg_bufs, &d->mpool.pool, &d->mpool.state);
  d->mpool.bufs = d->base + g->off_big;
  d->mpool.stride = g->msg_stride;
}

void mcx__msg_reclaim_buffers_locked(mcx__domain_t *d, uint32_t slot)
{
  const mcx__mpool_t *mp = &d->mpool;
  uint32_t n = 0;
  for (uint32_t b = 0; b < mp->pool.n; b++)
    /* Relaxed: its holder is dead (or is this finalizing node). */
    if (mcx_load_relaxed(&mp->state[b]) == MCX_MBUF_HELD(slot)) {
      mcx__mpool_free(mp, b);
      n++;
    }
  if (n)
    MCX_DEBUG(1, "returned %u message buffers held by node slot %u", n, slot);
}

/* Polls for a free buffer this long between checks of the caller's deadline. */
#define MBUF_POLL_NS 200000ull

/* Takes a pool buffer for a payload larger than a slot's inline bytes and
 * fills it; the pool being empty is a full queue for the send's rules
 * (FAIL_ON_MEM_LIMIT, non-blocking, TIMEOUT). Receivers free buffers in no
 * particular endpoint's name, so a blocking send polls for one; buffers of
 * dead nodes come back through the sweep. */
static int mbuf_fill(mcx__domain_t *d, mcx__endpoint_t *src, const void *buf, size_t size,
                     int block, uint32_t timeout, uint64_t *deadline, uint32_t *b)
{
  const mcx__mpool_t *mp = &d->mpool;
  for (uint32_t i = 0; mcx__pool_get(&mp->pool, b) != MCX_OK; i++) {
    int r = mcx__send_no_room(d, src, block, timeout, deadline);
    if (r != MCX_OK)
      return r;
    if (mcx_port_now_ns() >= *deadline)
      return MCX_ETIMEDOUT;
    if (i < 64) {
      mcx_port_yield();
      continue;
    }
    mcx_port_sleep_ns(MBUF_POLL_NS);
    if (i % 64 == 0 && mcx__any_dead_node(d))
      mcx__sweep_dead(d);
  }
  /* Ours until queued: the dead-node sweep frees it by this state. Relaxed:
   * our own word (the pop's acquire ordered the previous holder's use). */
  mcx_store_relaxed(&mp->state[*b], MCX_MBUF_HELD(mcx__self.node_slot));
  memcpy(mcx__mpool_buf(mp, *b), buf, size);
  return MCX_OK;
}

/* The send's second try on the endpoint cache, for what the fast path does
 * not serve: a priority whose ring the destination's entry has not resolved
 * (resolved here, its bit set in used_prios first), a payload for a pool
 * buffer, a ring that was full a moment ago. 1 when sent; 0, having sent
 * nothing, when the full send must run (it waits, or says why). */
static int send_cached(mcx__domain_t *d, uint32_t from, uint32_t to, const void *buf, size_t size,
                       uint32_t prio)
{
  mcx__epc_t *s = mcx__epc_at(from), *t = mcx__epc_at(to);
  /* Not a payload the domain refuses, nor one it need not queue: the full
   * send says why. */
  if (size > d->g.max_msg || !mcx__msg_send_checks(s, t, from, to))
    return 0;
  if (prio != t->prio && !mcx__epc_prio(to, prio))
    return 0;
  if (size <= MCX_SLOT_INLINE) /* and so within mcx__self.msg_lim */
    return mcx__epc_send_small(s, t, buf, size);
  /* A pool buffer, then the slot, then the copy: once the slot is
   * reserved nothing fails, so nothing of the call is kept across the
   * copy but what the publish needs. The receiver reads the slot as being
   * filled meanwhile, as in the small send. */
  const mcx__mpool_t *mp = &d->mpool;
  uint32_t b;
  if (mcx__pool_get(&mp->pool, &b) != MCX_OK)
    return 0; /* the full send waits for a buffer, or says why */
  mcx_store_relaxed(&mp->state[b], MCX_MBUF_HELD(mcx__self.node_slot)); /* as mbuf_fill */
  mcx__msg_slot_t *slot;
  uint64_t pos;
  /* The ring's tail refuses an epoch other than the entry's (a re-size). */
  if (!mcx__mpsc_reserve_once(&t->v, t->ngen, s->intent, &slot, &pos)) {
    mcx__mpool_free(mp, b); /* not queued: still ours */
    return 0;
  }
  memcpy(mcx__mpool_buf(mp, b), buf, size);
  mcx__mpsc_publish_big(&t->v, slot, pos, (uint32_t)size, b, s->intent);
  mcx__ctr_add(&s->ep->n_sent, 1);
  mcx__msg_notify(&t->ep->recv_wp); /* F-W2 after R1 */
  return 1;
}

/* mcx__msg_scan_from's view of ring p of a cached endpoint. */
struct epc_at {
  const mcx__domain_t *d;
  const mcx__epc_t *c;
};
static mcx__ring_view_t epc_ring_at(const void *ctx, uint32_t p)
{
  const struct epc_at *a = ctx;
  return mcx__epc_ring(a->d, a->c, p);
}

/* One scan of every ring of cached endpoint @p h in use, highest priority
 * first, with every check again; messages that are not small ones that fit
 * (a pool buffer, a truncation, a tombstone) too. MCX_OK, MCX_ETRUNC,
 * MCX_ECORRUPT (taken either way), or MCX_EAGAIN (nothing taken: empty, or
 * the full receive must look). */
static inline __attribute__((always_inline)) int recv_scan(uint32_t h, void *buf, size_t cap,
                                                          size_t *size)
{
  mcx__domain_t *d = mcx__self.fast;
  if (!d || mcx__recv_queued != 0) /* receive requests come first */
    return MCX_EAGAIN;
  mcx__epc_t *c = mcx__epc_get(h);
  if (!c)
    return MCX_EAGAIN;
  mcx__endpoint_t *ep = c->ep;
  /* As mcx__epc_gate: our own endpoint, relaxed. */
  if (mcx_load_relaxed(&ep->state_chan) != c->own)
    return MCX_EAGAIN;
  /* A hint, see mcx__msg_enqueue_once. */
  uint32_t used = MCX_USED_PRIOS(mcx_load_relaxed(&ep->used_prios));
  if (used && (used & (used - 1)) == 0 && used != c->used)
    (void)mcx__epc_prio(h, (uint32_t)__builtin_ctz(used)); /* alone in use: the next call's */
  struct epc_at at = {d, c};
  used = mcx__msg_scan_from(used, &ep->used_prios, epc_ring_at, &at);
  while (used) {
    uint32_t p = (uint32_t)__builtin_ctz(used);
    used &= used - 1;
    mcx__ring_view_t v = mcx__epc_ring(d, c, p);
    mcx__ring_outcome_t o = mcx__mpsc_dequeue_small(&v, buf, cap, size, NULL, NULL);
    if (o == MCX_RING_EMPTY)
      continue;
    if (o == MCX_RING_NOT_SMALL) {
      o = mcx__mpsc_dequeue(&v, buf, cap, size, 0);
      if (o == MCX_RING_EMPTY) /* only tombstones: the full path looks again */
        return MCX_EAGAIN;
    }
    mcx__msg_notify(&ep->space_wp); /* F-W2 after R2 */
    return o == MCX_RING_OK ? MCX_OK : o == MCX_RING_TRUNCATED ? MCX_ETRUNC : MCX_ECORRUPT;
  }
  return MCX_EAGAIN;
}


/* Retries of the *_BUT_* outcomes before treating them as FULL / EMPTY: the
 * other side is inside a short copy, so an immediate retry usually wins. */
#define BUT_RETRIES 256

/* How long a blocked call sleeps before checking that its peer still lives. */
#define LIVENESS_SLICE_NS 50000000ull

static int resolve_send(mcx__domain_t *d, uint32_t from, uint32_t to, mcx__endpoint_t **src,
                        mcx__endpoint_t **dst)
{
  int r = mcx__ep_resolve(d, from, src);
  if (r)
    return r;
  if (!mcx__ep_is_mine(*src))
    return MCX_EPERM;
  r = mcx__ep_resolve(d, to, dst);
  if (r)
    return r;
  if (mcx_load_relaxed(&(*src)->chan) || mcx_load_relaxed(&(*dst)->chan))
    return MCX_ECHAN;
  if (mcx_load_relaxed(&(*dst)->state) & EP_UNREACH)
    return MCX_EUNREACH; /* relaxed: a flag; the enqueue checks the ring itself */
  return MCX_OK;
}

/* One attempt; retries *_BUT_CONSUMER_READING immediately, a bounded number of times. */
static mcx__ring_outcome_t send_once(mcx__domain_t *d, mcx__endpoint_t *dst, const void *buf,
                                     size_t size, uint32_t big, uint32_t prio,
                                     const mcx__mpsc_commit_t *cm)
{
  mcx__ring_outcome_t o;
  for (int i = 0;; i++) {
    o = mcx__msg_enqueue_once(d, dst, buf, size, big, prio, 1, cm);
    if (o != MCX_RING_FULL_BUT_CONSUMER_READING || i == BUT_RETRIES)
      return o;
    mcx_port_cpu_relax();
  }
}

/* After CLOSED_OR_STALE: 0 to retry (re-sized), or why the send must fail. */
static int why_closed(mcx__domain_t *d, uint32_t to)
{
  mcx__endpoint_t *dst;
  int r = mcx__ep_resolve(d, to, &dst);
  if (r)
    return MCX_ECLOSED; /* deleted while we sent */
  return MCX_OK;
}

/* Yields a send waits for a re-size before it calls the ring corrupt. */
#define STALE_RETRIES 100000u

/* A send; @p block = 0 makes one attempt (the request path). */
static int send_attempts(mcx__domain_t *d, mcx__endpoint_t *src, mcx__endpoint_t *dst, uint32_t from,
                      uint32_t to, const void *buf, size_t size, uint32_t prio, int block,
                      const mcx__mpsc_commit_t *cm);
static int send_loop(mcx__domain_t *d, mcx__endpoint_t *src, mcx__endpoint_t *dst, uint32_t from,
                     uint32_t to, const void *buf, size_t size, uint32_t big, uint32_t prio,
                     int block, uint32_t timeout, uint64_t deadline, const mcx__mpsc_commit_t *cm);

/* A send; @p cm: a receipt to set with it (mcx__msg_send_receipted), or NULL. */
static int send_impl(uint32_t from, uint32_t to, const void *buf, size_t size, uint32_t prio,
                     int block, const mcx__mpsc_commit_t *cm)
{
  mcx__domain_t *d = mcx__self.dom;
  mcx__endpoint_t *src, *dst;
  int r = resolve_send(d, from, to, &src, &dst);
  if (r)
    return r;
  if (size > d->g.max_msg)
    return MCX_EMSGSIZE;
  r = send_attempts(d, src, dst, from, to, buf, size, prio, block, cm);
  /* The sender's counters (its own line; see mcx__endpoint_t). */
  if (r == MCX_OK)
    mcx__ctr_add(&src->n_sent, 1);
  else if (r == MCX_ENOMEM || r == MCX_ETIMEDOUT)
    mcx__ctr_add(&src->n_dropped, 1);
  return r;
}

static int send_attempts(mcx__domain_t *d, mcx__endpoint_t *src, mcx__endpoint_t *dst, uint32_t from,
                      uint32_t to, const void *buf, size_t size, uint32_t prio, int block,
                      const mcx__mpsc_commit_t *cm)
{
  if (d->transport == MCX_TRANSPORT_PMQ_)
    return mcx__msg_pmq_send(d, src, dst, to, buf, size, prio, block);
  uint32_t timeout = mcx__ep_timeout(d, src);
  uint64_t deadline = 0;
  uint32_t big = 0;
  if (size > MCX_SLOT_INLINE) {
    int r = mbuf_fill(d, src, buf, size, block, timeout, &deadline, &big);
    if (r != MCX_OK)
      return r;
  }
  int r = send_loop(d, src, dst, from, to, buf, size, big, prio, block, timeout, deadline, cm);
  if (r != MCX_OK && size > MCX_SLOT_INLINE)
    mcx__mpool_free(&d->mpool, big); /* not queued: still ours */
  return r;
}

static int send_loop(mcx__domain_t *d, mcx__endpoint_t *src, mcx__endpoint_t *dst, uint32_t from,
                     uint32_t to, const void *buf, size_t size, uint32_t big, uint32_t prio,
                     int block, uint32_t timeout, uint64_t deadline, const mcx__mpsc_commit_t *cm)
{
  int r;
  uint32_t stale = 0;
  mcx__backoff_t b;
  mcx__backoff_begin(&b);
  for (;;) {
    mcx__ring_outcome_t o = send_once(d, dst, buf, size, big, prio, cm);
    if (o == MCX_RING_OK)
      return MCX_OK;
    if (o == MCX_RING_CLOSED_OR_STALE) {
      if ((r = why_closed(d, to)) != MCX_OK)
        return r;
      /* A re-size is under way, and ends within microseconds. A ring whose
       * epoch never matches its live endpoint's was corrupted (shared memory
       * is input): a status, not a loop for ever. */
      if (++stale > STALE_RETRIES)
        return MCX_ECORRUPT;
      mcx_port_yield();
      continue;
    }
    /* The destination became unreachable while we waited (its owner woke us). */
    if (mcx_load_relaxed(&dst->state) & EP_UNREACH)
      return MCX_EUNREACH;
    /* FULL */
    if ((r = mcx__send_no_room(d, src, block, timeout, &deadline)) != MCX_OK)
      return r;
    if (!mcx__backoff_step(&b))
      continue;
    uint32_t key = mcx__wp_prepare(&dst->space_wp);
    o = send_once(d, dst, buf, size, big, prio, cm);
    if (o != MCX_RING_FULL && o != MCX_RING_FULL_BUT_CONSUMER_READING) {
      mcx__wp_cancel(&dst->space_wp);
      if (o == MCX_RING_OK)
        return MCX_OK;
      continue;
    }
    /* Sleep in slices: a receiver that died never makes space. */
    uint64_t slice = mcx_port_now_ns() + LIVENESS_SLICE_NS;
    mcx__wp_sleep(&dst->space_wp, key, slice < deadline ? slice : deadline, d->shared);
    if (mcx_port_now_ns() >= deadline)
      return MCX_ETIMEDOUT;
    if (!mcx__node_alive(d, mcx_load_relaxed(&dst->owner_slot)))
      mcx__sweep_dead(d); /* deletes its endpoints: the next attempt sees why */
  }
}

/* The send of a thread that is no node of its own (one of a process-scope
 * node, or none). Out of line and cold, as recv_not_own. */
static __attribute__((noinline, cold)) int send_not_own(uint32_t from, uint32_t to,
                                                        const void *buf, size_t size,
                                                        uint32_t prio)
{
  if (!mcx__node_adopt())
    return MCX_ENODE;
  if (prio > MCAPI_MAX_PRIORITY)
    return MCX_EPRIO;
  return send_impl(from, to, buf, size, prio, 1, NULL);
}

/* The send with every check, after the cache: the node, the priority's
 * range, then send_impl. Its calls are tail calls, so a caller that has no
 * cache keeps no registers for it. */
static inline __attribute__((always_inline)) int send_checked(uint32_t from, uint32_t to,
                                                              const void *buf, size_t size,
                                                              uint32_t prio)
{
  if (__builtin_expect(!mcx__is_own_node(), 0))
    return send_not_own(from, to, buf, size, prio);
  if (prio > MCAPI_MAX_PRIORITY)
    return MCX_EPRIO;
  return send_impl(from, to, buf, size, prio, 1, NULL);
}

/* The slow path of a node that takes the fast path: the cache's other
 * cases (send_cached), then the entries refilled for the fast path's next
 * call and the full send. Out of line: its frame is not the other modes'. */
static __attribute__((noinline)) int send_slow_cached(uint32_t from, uint32_t to,
                                                      const void *buf, size_t size, uint32_t prio)
{
  /* Not NULL; read again here, so the call passes the arguments as they came. */
  mcx__domain_t *d = mcx__self.fast;
  /* A priority out of range finds no ring in the cache (mcx__epc_prio). */
  if (send_cached(d, from, to, buf, size, prio))
    return MCX_OK;
  (void)mcx__epc_fill(d, to);
  (void)mcx__epc_fill(d, from);
  return send_checked(from, to, buf, size, prio);
}

int mcx__msg_send_slow(uint32_t from, uint32_t to, const void *buf, size_t size, uint32_t prio)
{
  /* Only a node that takes the fast path has a cache (mcx__self.fast); the
   * others go straight to the full send. */
  if (mcx__self.fast)
    return send_slow_cached(from, to, buf, size, prio);
  return send_checked(from, to, buf, size, prio);
}

int mcx__msg_try_send(uint32_t from, uint32_t to, const void *buf, size_t size, uint32_t prio)
{
  return send_impl(from, to, buf, size, prio, 0, NULL);
}

int mcx__msg_send_receipted(uint32_t from, uint32_t to, const void *buf, size_t size, uint32_t prio,
                            uint32_t receipt, uint64_t value)
{
  mcx__domain_t *d = mcx__self.dom;
  mcx__receipt_t *rc = mcx__receipt_get(d, receipt);
  if (!rc)
    return MCX_EBADRCPT;
  mcx__mpsc_commit_t cm = {.rc = rc, .value = value, .owner = mcx__self.node_slot,
                           .hook = mcx__receipt_test_hook};
  int r = send_impl(from, to, buf, size, prio, 1, &cm); /* the enqueue sets it with R1 */
  /* POSIX queues have no slot to name: the receipt follows the send, and a
   * kill in between can deliver the message again (docs/bridge.md). */
  if (r == MCX_OK && d->transport == MCX_TRANSPORT_PMQ_)
    mcx_store_relaxed(&rc->done, value);
  return r;
}

static int resolve_recv(mcx__domain_t *d, uint32_t h, mcx__endpoint_t **ep)
{
  int r = mcx__ep_resolve(d, h, ep);
  if (r)
    return r;
  if (!mcx__ep_is_mine(*ep))
    return MCX_EPERM;
  if (mcx_load_relaxed(&(*ep)->chan))
    return MCX_ECHAN;
  return MCX_OK;
}

int mcx__msg_check_recv(uint32_t h)
{
  mcx__endpoint_t *ep;
  return resolve_recv(mcx__self.dom, h, &ep);
}

/* One scan, highest priority first (msg.h). */
static mcx__ring_outcome_t recv_once(mcx__domain_t *d, mcx__endpoint_t *ep, uint32_t h,
                                     void *buf, size_t cap, size_t *size, int classify)
{
  (void)h;
  return mcx__msg_dequeue_once(d, ep, buf, cap, size, classify, 1);
}

/* Whether a ring of the endpoint has a reserved slot nobody published yet. */
static int ring_stuck(mcx__domain_t *d, mcx__endpoint_t *ep, uint32_t h)
{
  uint32_t used = MCX_USED_PRIOS(mcx_load_relaxed(&ep->used_prios));
  uint32_t depth = mcx_load_relaxed(&ep->depth);
  while (used) {
    uint32_t p = (uint32_t)__builtin_ctz(used);
    used &= used - 1;
    mcx__ring_view_t v = mcx__ring_of(d, mcx__ep_idx(d, ep), p, depth);
    if (mcx__mpsc_stuck(&v))
      return 1;
  }
  return 0;
}

/* pmq: the receiver's count (the shm rings count in mcx__msg_dequeue_once). */
static int pmq_recv_counted(mcx__domain_t *d, mcx__endpoint_t *ep, uint32_t h, void *buf, size_t cap,
                            size_t *size, int block)
{
  int r = mcx__msg_pmq_recv(d, ep, h, buf, cap, size, block);
  if (r == MCX_OK || r == MCX_ETRUNC)
    mcx__ctr_add(&ep->n_received, 1);
  return r;
}

int mcx__msg_try_recv(uint32_t h, void *buf, size_t cap, size_t *size)
{
  mcx__domain_t *d = mcx__self.dom;
  mcx__endpoint_t *ep;
  int r = resolve_recv(d, h, &ep);
  if (r)
    return r;
  if (d->transport == MCX_TRANSPORT_PMQ_)
    return pmq_recv_counted(d, ep, h, buf, cap, size, 0);
  for (int i = 0;; i++) {
    mcx__ring_outcome_t o = recv_once(d, ep, h, buf, cap, size, 1);
    if (o == MCX_RING_OK)
      return MCX_OK;
    if (o == MCX_RING_TRUNCATED)
      return MCX_ETRUNC;
    if (o == MCX_RING_CORRUPT)
      return MCX_ECORRUPT;
    if (o == MCX_RING_EMPTY || i == BUT_RETRIES)
      return MCX_EAGAIN;
    mcx_port_cpu_relax();
  }
}

/* One attempt of a blocking receive: a copy out (recv) or a slot lent (in place). */
typedef mcx__ring_outcome_t (*take_fn)(mcx__domain_t *d, mcx__endpoint_t *ep, void *ctx,
                                       int classify);

/* Blocks until @p take finds a message (MCX_OK / MCX_ETRUNC), the endpoint's
 * TIMEOUT passes, or the endpoint goes away. Spin, yield, then sleep on the
 * endpoint's receive waitpoint in liveness slices. */
static int recv_wait(mcx__domain_t *d, mcx__endpoint_t *ep, uint32_t h, take_fn take, void *ctx,
                     const mcx__backoff_t *spun)
{
  uint32_t timeout = mcx__ep_timeout(d, ep);
  uint64_t deadline = 0;
  mcx__backoff_t b;
  if (spun && spun->begun)
    b = *spun; /* its spins are spent: straight on to yielding */
  else
    mcx__backoff_begin(&b);
  int inserting = 0;
  for (;;) {
    /* Poll the slots only (one line per ring); classify just before backing
     * off, since that reads the producers' tail line. */
    int classify = b.spins + 1 >= b.limit;
    mcx__ring_outcome_t o = take(d, ep, ctx, classify);
    if (o == MCX_RING_CORRUPT)
      return MCX_ECORRUPT;
    if (o == MCX_RING_OK || o == MCX_RING_TRUNCATED) {
      mcx__backoff_end(&b);
      return o == MCX_RING_OK ? MCX_OK : MCX_ETRUNC;
    }
    if (o == MCX_RING_EMPTY_BUT_PRODUCER_INSERTING && inserting++ < BUT_RETRIES) {
      mcx_port_cpu_relax();
      continue;
    }
    if (timeout == 0)
      return MCX_ETIMEDOUT;
    if (!deadline)
      deadline = mcx_port_deadline_ms(timeout);
    if (!mcx__backoff_step(&b))
      continue;
    uint32_t key = mcx__wp_prepare(&ep->recv_wp);
    o = take(d, ep, ctx, 0);
    if (o == MCX_RING_CORRUPT) {
      mcx__wp_cancel(&ep->recv_wp);
      return MCX_ECORRUPT;
    }
    if (o == MCX_RING_OK || o == MCX_RING_TRUNCATED) {
      mcx__wp_cancel(&ep->recv_wp);
      mcx__backoff_end(&b);
      return o == MCX_RING_OK ? MCX_OK : MCX_ETRUNC;
    }
    if (mcx__ep_resolve(d, h, &ep) != MCX_OK) {
      mcx__wp_cancel(&ep->recv_wp);
      return MCX_ECLOSED;
    }
    /* Sleep in slices: a sender that died between reserving a slot and
     * publishing it would block the ring; the sweep publishes a tombstone. */
    uint64_t slice = mcx_port_now_ns() + LIVENESS_SLICE_NS;
    mcx__wp_sleep(&ep->recv_wp, key, slice < deadline ? slice : deadline, d->shared);
    if (mcx_port_now_ns() >= deadline)
      return MCX_ETIMEDOUT;
    if (ring_stuck(d, ep, h))
      mcx__sweep_dead(d);
  }
}

struct copy_out {
  void *buf;
  size_t cap, *size;
};

static mcx__ring_outcome_t take_copy(mcx__domain_t *d, mcx__endpoint_t *ep, void *ctx, int classify)
{
  struct copy_out *c = ctx;
  return mcx__msg_dequeue_once(d, ep, c->buf, c->cap, c->size, classify, 1);
}

/* How often the receive's spin (recv_spin) reads used_prios besides the
 * slot. used_prios only ends the spin early (a message at another
 * priority), while every read of it puts another line on the round trip's
 * critical path. A power of two. */
#define MSG_SPIN_PRIO_EVERY 8u

/* The spin phase of the receive's wait, on the endpoint cache. It polls the
 * one slot the entry's ring fills next (and, every MSG_SPIN_PRIO_EVERY-th
 * poll, the endpoint's used_prios) with no other work between polls, so a
 * message that arrives while it spins is taken within a pause, one at
 * another priority within eight. MCX_OK, MCX_ETRUNC, MCX_ECORRUPT, or
 * MCX_EAGAIN with the wait @p b for the full receive to continue (begun
 * only where it spun). */
static int recv_spin(mcx__domain_t *d, uint32_t h, void *buf, size_t cap, size_t *size,
                     mcx__backoff_t *b)
{
  mcx__epc_t *c = mcx__epc_get(h);
  /* An entry that serves this endpoint (one of d's) still; no wait when its
   * TIMEOUT is 0: the full receive reports that. */
  if (!c || mcx__epc_gate(c) == MCX_RING_CLOSED_OR_STALE || mcx__ep_timeout(d, c->ep) == 0)
    return MCX_EAGAIN;
  mcx__backoff_begin(b);
  const mcx__endpoint_t *ep = c->ep;
  for (;;) {
    /* The slot of the next message on the entry's ring (its idle ring when
     * none is resolved: then only used_prios ends the poll). The head is
     * ours (the one consumer): it stays put while we spin. */
    const mcx__ring_view_t *v = &c->v;
    uint64_t want = mcx_load_relaxed(&v->ring->head) + 1;
    const mcx_atomic_u64 *seq = &v->slots[(want - 1) & v->mask].seq;
    uint32_t used = c->used;
    /* The count is kept in a register while it spins. Relaxed: either
     * change only sends us to the takes below, which read both again (A2
     * for the slot). */
    uint32_t spins = b->spins, limit = b->limit;
    while (spins < limit) {
      spins++;
      mcx_port_cpu_relax();
      if (mcx_load_relaxed(seq) == want)
        break;
      if (spins % MSG_SPIN_PRIO_EVERY == 0 && mcx_load_relaxed(&ep->used_prios) != used)
        break;
    }
    b->spins = spins;
    int r = mcx__epc_recv_small(c, buf, cap, size) ? MCX_OK : recv_scan(h, buf, cap, size);
    if (r != MCX_EAGAIN) {
      if (r == MCX_OK)
        mcx__backoff_end(b);
      return r;
    }
    if (b->spins >= b->limit || c->handle != h || mcx__epc_gate(c) == MCX_RING_CLOSED_OR_STALE)
      return MCX_EAGAIN;
  }
}

/* The full receive: every check, the other modes and transports, and the
 * wait, continuing @p spun (its spin phase spent when begun). */
static int recv_full(uint32_t h, void *buf, size_t cap, size_t *size, const mcx__backoff_t *spun)
{
  mcx__epc_refill(h); /* for the fast path's next call */
  mcx__domain_t *d = mcx__self.dom;
  mcx__endpoint_t *ep;
  int r = resolve_recv(d, h, &ep);
  if (r)
    return r;
  if (d->transport == MCX_TRANSPORT_PMQ_)
    return pmq_recv_counted(d, ep, h, buf, cap, size, 1);
  struct copy_out c = {buf, cap, size};
  return recv_wait(d, ep, h, take_copy, &c, spun);
}

/* The receive's wait: the receive requests queued before it first, the
 * spin on the endpoint cache, then the full receive. Out of line: the scan
 * before it, which finds most messages the fast path leaves, needs no
 * frame. */
static __attribute__((noinline)) int recv_waiting(mcx__domain_t *d, uint32_t h, void *buf,
                                                  size_t cap, size_t *size)
{
  if (mcx__recv_queued != 0) /* the receive requests queued before it go first */
    (void)mcx__recv_first(REQ_MSG_RECV, h); /* a bad handle: reported below */
  mcx__backoff_t b = {.begun = 0};
  if (d && mcx__recv_queued == 0) { /* else the receive waits behind them: the full receive */
    int r = recv_spin(d, h, buf, cap, size, &b);
    if (r != MCX_EAGAIN)
      return r;
  }
  return recv_full(h, buf, cap, size, &b);
}

/* The receive of a thread that is no node of its own: one of a process-scope
 * node (no fast path: its caches are one thread's), or none. Out of line, so
 * a thread's own node's receive is compiled as if it were not there. */
static __attribute__((noinline, cold)) int recv_not_own(uint32_t h, void *buf, size_t cap,
                                                       size_t *size)
{
  if (!mcx__node_adopt())
    return MCX_ENODE;
  return recv_waiting(NULL, h, buf, cap, size);
}

/* The slow path of a node that takes the fast path: every ring in use on
 * the cache, highest priority first, then the wait. Out of line, as
 * send_slow_cached. */
static __attribute__((noinline)) int recv_slow_cached(uint32_t h, void *buf, size_t cap,
                                                      size_t *size)
{
  int r = recv_scan(h, buf, cap, size);
  if (r != MCX_EAGAIN)
    return r;
  /* A node of its own: mcx__self.fast is set only there (node.c; a fork
   * child, an adopting thread and finalize clear it). */
  return recv_waiting(mcx__self.fast, h, buf, cap, size);
}

int mcx__msg_recv_slow(uint32_t h, void *buf, size_t cap, size_t *size)
{
  /* Only a thread that is its own node of a lock-free shm domain has a
   * cache (mcx__self.fast); the others go straight to the wait. */
  if (mcx__self.fast)
    return recv_slow_cached(h, buf, cap, size);
  if (!mcx__is_own_node())
    return recv_not_own(h, buf, cap, size);
  return recv_waiting(NULL, h, buf, cap, size);
}

int mcx__msg_available(uint32_t h, uint32_t *count)
{
  mcx__domain_t *d = mcx__self.dom;
  mcx__endpoint_t *ep;
  int r = resolve_recv(d, h, &ep);
  if (r)
    return r;
  if (d->transport == MCX_TRANSPORT_PMQ_)
    return mcx__msg_pmq_available(d, ep, count);
  uint32_t idx = mcx__ep_idx(d, ep), depth = mcx_load_relaxed(&ep->depth), n = 0;
  mcx__glock(d);
  for (uint32_t p = 0; p < d->g.nprio; p++) {
    mcx__ring_view_t v = mcx__ring_of(d, idx, p, depth);
    n += mcx__mpsc_count(&v);
  }
  mcx__gunlock(d);
  *count = n;
  return MCX_OK;
}

/* ---- receive in place (mcx_msg_recv_inplace / mcx_msg_release)
 *
 * The receiving thread's held messages: the slot stays the receiver's
 * until released (mcx__mpsc_take / give_back). Thread-local: only the
 * endpoint's owner receives on it. An entry is checked again at release
 * (the endpoint still the same incarnation, its rings not reset): after a
 * delete or finalize the release writes nothing. */
#define INPLACE_MAX 16

typedef struct held {
  const void *data;
  mcx__msg_slot_t *slot;
  uint64_t give_back;
  uint32_t big; /* the pool buffer held (state MCX_MBUF_HELD), or UINT32_MAX */
  mcx__domain_t *d;
  mcx__endpoint_t *e;
  uint32_t ep, epoch;
} held_t;

/* The calling thread's table, in process memory (mcx__self.held, made at
 * node init or adoption by mcx__held_new): thread-local storage keeps the
 * pointer only. */
struct mcx__held_tab {
  uint32_t n;
  held_t e[INPLACE_MAX];
};

struct mcx__held_tab *mcx__held_new(void) { return calloc(1, sizeof(struct mcx__held_tab)); }
void mcx__held_free(struct mcx__held_tab *t) { free(t); }

/* An empty table for a thread without one (never written: its n stays 0). */
static struct mcx__held_tab held_none;

static int held_valid(const held_t *hd)
{
  mcx__endpoint_t *e;
  return hd->d && hd->d == mcx__self.dom && mcx__ep_resolve(hd->d, hd->ep, &e) == MCX_OK &&
         e == hd->e && mcx_load_relaxed(&e->ring_epoch) == hd->epoch;
}

int mcx__msg_inplace_held(uint32_t h)
{
  struct mcx__held_tab *tab = mcx__self.held ? mcx__self.held : &held_none;
  int n = 0;
  for (uint32_t i = 0; i < tab->n; i++)
    n += tab->e[i].ep == h && held_valid(&tab->e[i]);
  return n;
}

struct lend {
  held_t *hd;
  size_t *size;
};

/* One scan, highest priority first, as mcx__msg_dequeue_once. */
static mcx__ring_outcome_t take_lent(mcx__domain_t *d, mcx__endpoint_t *ep, void *ctx, int classify)
{
  (void)classify;
  struct lend *l = ctx;
  uint32_t idx = mcx__ep_idx(d, ep);
  uint32_t depth = mcx_load_relaxed(&ep->depth); /* the owner is the only one who re-sizes */
  /* A hint, see mcx__msg_enqueue_once. */
  uint32_t used = MCX_USED_PRIOS(mcx_load_relaxed(&ep->used_prios));
  mcx__ring_outcome_t res = MCX_RING_EMPTY;
  mcx__glock(d);
  struct mcx__ring_at at = {d, idx, depth};
  if (d->locking == MCX_LOCK_LOCKFREE) /* else in order under the lock: see mcx__msg_dequeue_once */
    used = mcx__msg_scan_from(used, &ep->used_prios, mcx__ring_at, &at);
  while (used) {
    uint32_t p = (uint32_t)__builtin_ctz(used);
    used &= used - 1;
    mcx__ring_view_t v = mcx__ring_of(d, idx, p, depth);
    res = mcx__mpsc_take(&v, &l->hd->data, l->size, &l->hd->slot, &l->hd->give_back,
                         MCX_MBUF_HELD(mcx__self.node_slot), &l->hd->big);
    if (res != MCX_RING_EMPTY)
      break;
  }
  mcx__gunlock(d);
  if (res == MCX_RING_CORRUPT)
    mcx__wp_notify(&ep->space_wp, d->shared); /* the slot was given back */
  return res;
}

int mcx__msg_recv_inplace(uint32_t h, const void **data, size_t *size)
{
  mcx__domain_t *d = mcx__self.dom;
  mcx__endpoint_t *ep;
  int r = resolve_recv(d, h, &ep);
  if (r)
    return r;
  if (d->transport == MCX_TRANSPORT_PMQ_)
    return MCX_ENOSYS; /* a message queue has no slot to lend */
  struct mcx__held_tab *tab = mcx__self.held;
  if (!tab)
    return MCX_ENOMEM; /* its table could not be had at init */
  /* Entries of deleted endpoints or reset rings are forgotten here. */
  uint32_t k = 0;
  for (uint32_t i = 0; i < tab->n; i++)
    if (held_valid(&tab->e[i]))
      tab->e[k++] = tab->e[i];
  tab->n = k;
  if (tab->n == INPLACE_MAX)
    return MCX_ENOMEM;
  held_t *hd = &tab->e[tab->n];
  struct lend l = {hd, size};
  if ((r = recv_wait(d, ep, h, take_lent, &l, NULL)) != MCX_OK)
    return r;
  hd->d = d;
  hd->e = ep;
  hd->ep = h;
  hd->epoch = mcx_load_relaxed(&ep->ring_epoch);
  tab->n++;
  *data = hd->data;
  return MCX_OK;
}

int mcx__msg_release_inplace(const void *data)
{
  struct mcx__held_tab *tab = mcx__self.held ? mcx__self.held : &held_none;
  uint32_t i = 0;
  while (i < tab->n && tab->e[i].data != data)
    i++;
  if (i == tab->n)
    return MCX_EINVAL; /* not a buffer this thread holds */
  held_t hd = tab->e[i];
  tab->e[i] = tab->e[--tab->n];
  /* The pool buffer first, whatever became of the endpoint: it is ours
   * while its state says so (a finalize or a sweep may have freed it). */
  if (hd.big != UINT32_MAX && hd.d == mcx__self.dom && hd.big < hd.d->mpool.pool.n &&
      mcx_load_relaxed(&hd.d->mpool.state[hd.big]) == MCX_MBUF_HELD(mcx__self.node_slot))
    mcx__mpool_free(&hd.d->mpool, hd.big);
  if (!held_valid(&hd))
    return MCX_OK; /* its endpoint was deleted or re-sized: nothing to give back */
  mcx__glock(hd.d);
  mcx__mpsc_give_back(hd.slot, hd.give_back);
  mcx__gunlock(hd.d);
  mcx__wp_notify(&hd.e->space_wp, hd.d->shared); /* F-W2 after R2 */
  return MCX_OK;
}
