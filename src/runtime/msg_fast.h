/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The message fast path: one attempt at a send or a receive, inlined into the
 * api layer, taken only where it is the whole story (a lock-free shm domain,
 * no receive request queued before a blocking receive). It does the same
 * checks as the full path and the same ring operation, and nothing else: no
 * wait-policy setup, no status mapping, no transport or locking branch. When
 * it cannot finish (ring full or empty, a bad handle, a channel endpoint) it
 * has changed nothing, and the caller takes the full path (msg.c), which
 * checks again and reports why.
 */
#ifndef MCX_RUNTIME_MSG_FAST_H
#define MCX_RUNTIME_MSG_FAST_H

#include "runtime/runtime.h"

#define MCX_FAST static inline __attribute__((always_inline))

/** The calling node's domain when it takes the fast paths (lock-free shm),
 * else NULL. One load: a fork child's copy is cleared by an atfork hook
 * (mcx__node_init), finalize clears it too. */
MCX_FAST mcx__domain_t *mcx__fast_domain(void) { return mcx__self.fast; }

/*
 * The endpoint cache: what the fast path needs of an endpoint, resolved once
 * and kept in process memory, so a call costs one compare of the handle, one
 * of the endpoint's state word (generation and liveness together) and one of
 * its ring epoch, instead of decoding the handle and recomputing the ring
 * geometry from the layout. Each node (thread) has its own, direct-mapped by
 * the handle's low bits; a miss or a mismatch takes the full path, which
 * checks everything again (and mcx__epc_fill refills the entry).
 *
 * Validity: the handle names one incarnation (its generation); the state
 * word, compared on every call, changes with every delete, re-create and
 * re-configuration; the geometry belongs to the ring epoch it was read with
 * (A-E4), compared on every call, and a ring whose epoch moved on refuses the
 * enqueue itself (its tail carries the epoch). Nothing in the entry is read
 * from the partition without the checks mcx__ring_of makes (shared memory is
 * input).
 */
#define MCX_EPC_N 64u
typedef struct mcx__epc {
  uint32_t handle; /* the handle served; MCX_EPC_EMPTY: none */
  uint32_t state;  /* the endpoint's state word when filled: gen << 8 | EP_ACTIVE */
  uint32_t epoch;  /* the ring epoch the geometry belongs to */
  uint32_t mask;   /* ring capacity - 1 at that epoch */
  mcx__endpoint_t *ep;
  uint8_t *ring0;  /* priority 0's ring; priority p's at + p * sizeof(mcx__mpsc_ring_t) */
  uint8_t *slots0; /* priority 0's slots; p's at + p * slot_step */
  size_t slot_step;
  uint64_t tag0;       /* (ring number of priority 0 + 1) << 48, for the in-flight record */
  uint32_t mine;       /* owned by this node (its sends and receives may use it) */
} mcx__epc_t;

/** Empties a cache entry (its endpoint pointer stays a valid address). */
MCX_FAST void mcx__epc_clear(mcx__epc_t *c)
{
  c->handle = MCX_EPC_EMPTY;
  c->state = MCX_EPC_EMPTY;
}

/** Fills the entry of handle @p h (a live endpoint of @p d) and returns it;
 * NULL when @p h is not one (the full path reports why). Out of line. */
mcx__epc_t *mcx__epc_fill(mcx__domain_t *d, uint32_t h);

/** The full path's first step (msg.c): the entry of @p h filled for the
 * fast path's next call, where the node takes the fast path (a test inline,
 * so the other modes pay no call). */
MCX_FAST void mcx__epc_refill(uint32_t h)
{
  mcx__domain_t *d = mcx__self.fast;
  if (d)
    (void)mcx__epc_fill(d, h);
}

/** The cache entry of endpoint handle @p h; NULL on a miss, which takes the
 * full path (it refills the entry: no call here, so the fast path needs no
 * frame). */
MCX_FAST mcx__epc_t *mcx__epc_get(uint32_t h)
{
  mcx__epc_t *c = &mcx__self.epc[h & (MCX_EPC_N - 1)];
  if (__builtin_expect(c->handle == h, 1))
    return c;
  return NULL;
}

/** The ring view of priority @p prio of a cached endpoint of @p d. */
MCX_FAST mcx__ring_view_t mcx__epc_ring(const mcx__domain_t *d, const mcx__epc_t *c,
                                        uint32_t prio)
{
  mcx__ring_view_t v;
  v.ring = (mcx__mpsc_ring_t *)(c->ring0 + (size_t)prio * sizeof(mcx__mpsc_ring_t));
  v.slots = (mcx__msg_slot_t *)(c->slots0 + prio * c->slot_step);
  v.mp = &d->mpool;
  v.tag = c->tag0 + ((uint64_t)prio << 48);
  v.mask = c->mask;
  return v;
}

/** One enqueue into @p dst's ring of priority @p prio; @p glock: take the
 * domain's lock around it (the full path in global/kernel mode). A payload
 * larger than MCX_SLOT_INLINE is in pool buffer @p big, which the caller
 * filled and holds (mcx__mpsc_enqueue). @p cm: a receipt to set with R1
 * (mcx__msg_send_receipted), or NULL. */
MCX_FAST mcx__ring_outcome_t mcx__msg_enqueue_once(mcx__domain_t *d, mcx__endpoint_t *dst,
                                                   uint32_t from, const void *buf, size_t size,
                                                   uint32_t big, uint32_t prio, int glock,
                                                   const mcx__mpsc_commit_t *cm)
{
  /* A-E4 — acquire: pairs with R-E4 (resize): the depth read next matches
   * this epoch; a stale pair is caught by the epoch check in the ring. */
  uint32_t epoch = mcx_load_acquire(&dst->ring_epoch);
  uint32_t depth = mcx_load_relaxed(&dst->depth);
  uint32_t idx = mcx__ep_idx(d, dst);
  mcx__ring_view_t v = mcx__ring_of(d, idx, prio, depth);
  uint32_t bit = 1u << prio;
  /* Relaxed: the mask only tells the receiver which rings to scan; the wake-up
   * protocol (F-W1/F-W2) orders it before the publish for a sleeping receiver. */
  if (__builtin_expect(!(mcx_load_relaxed(&dst->used_prios) & bit), 0))
    mcx_fetch_or_relaxed(&dst->used_prios, bit);
  mcx_atomic_u64 *intent = &mcx__nodes(d)[mcx__self.node_slot].inflight;
  uint64_t tag = ((uint64_t)idx * d->g.nprio + prio + 1) << 48;
  mcx__ring_outcome_t o;
  if (glock)
    mcx__glock(d);
  o = mcx__mpsc_enqueue(&v, epoch, buf, (uint32_t)size, big, from, intent, tag, cm);
  if (glock)
    mcx__gunlock(d);
  if (o == MCX_RING_OK)
    mcx__wp_notify(&dst->recv_wp, d->shared); /* F-W2 after R1 */
  return o;
}

/** The fast send of a payload larger than a slot's inline bytes, out of
 * line (msg.c): a pool buffer, filled, queued with the cached view; MCX_EAGAIN
 * (nothing sent) when the pool is empty or the ring full. */
int mcx__msg_send_big_fast(mcx__domain_t *d, const mcx__epc_t *t, mcx__endpoint_t *src,
                           mcx__endpoint_t *dst, uint32_t from, const void *buf, size_t size,
                           uint32_t prio);

/** A send in one attempt: MCX_OK, or MCX_EAGAIN when the full path must run
 * (it checks everything again and reports why). @p big (a constant): the
 * payload is larger than a slot's inline bytes, which the caller checked;
 * its instance calls the pool path, the other inlines the slot copy. */
MCX_FAST int mcx__msg_send_fast(mcx__domain_t *d, uint32_t from, uint32_t to, const void *buf,
                                size_t size, uint32_t prio, int big)
{
  mcx__epc_t *s = mcx__epc_get(from);
  if (__builtin_expect(!s, 0))
    return MCX_EAGAIN;
  mcx__epc_t *t = mcx__epc_get(to);
  /* Both entries may share a line of the cache: the second fill evicts the first. */
  if (__builtin_expect(!t || s->handle != from, 0))
    return MCX_EAGAIN;
  mcx__endpoint_t *src = s->ep, *dst = t->ep;
  /* A-E1 — acquire: pairs with R-E1 (create, re-open): the destination is
   * the incarnation the entry was filled for. The source is ours (relaxed). */
  if (__builtin_expect(mcx_load_acquire(&dst->state) != t->state, 0) ||
      __builtin_expect(mcx_load_relaxed(&src->state) != s->state, 0) ||
      __builtin_expect(!s->mine, 0) || __builtin_expect(size > d->g.max_msg, 0) ||
      __builtin_expect((mcx_load_relaxed(&src->chan) | mcx_load_relaxed(&dst->chan)) != 0, 0))
    return MCX_EAGAIN;
  /* A-E4 — acquire: pairs with R-E4 (resize); the entry's geometry is the
   * epoch's, and the ring's tail refuses a stale epoch. */
  if (__builtin_expect(mcx_load_acquire(&dst->ring_epoch) != t->epoch, 0)) {
    mcx__epc_clear(t); /* refilled on the next call */
    return MCX_EAGAIN;
  }
  mcx__ring_view_t v = mcx__epc_ring(d, t, prio);
  uint32_t bit = 1u << prio;
  /* Relaxed: see mcx__msg_enqueue_once. */
  if (__builtin_expect(!(mcx_load_relaxed(&dst->used_prios) & bit), 0))
    mcx_fetch_or_relaxed(&dst->used_prios, bit);
  if (big)
    return mcx__msg_send_big_fast(d, t, src, dst, from, buf, size, prio);
  mcx_atomic_u64 *intent = mcx__self.intent;
  if (!intent) /* set with mcx__self.fast (mcx__node_init): lets the ring skip its tests */
    __builtin_unreachable();
  if (mcx__mpsc_enqueue_small_once(&v, t->epoch, buf, (uint32_t)size, from, intent,
                                   t->tag0 + ((uint64_t)prio << 48)) != MCX_RING_OK)
    return MCX_EAGAIN;
  mcx__ctr_add(&src->n_sent, 1);
  mcx__wp_notify(&dst->recv_wp, d->shared); /* F-W2 after R1 */
  return MCX_OK;
}

/** One scan of @p ep's rings, highest priority first: OK / TRUNCATED when a
 * message was taken, else EMPTY or (@p classify) EMPTY_BUT_PRODUCER_INSERTING. */
MCX_FAST mcx__ring_outcome_t mcx__msg_dequeue_once(mcx__domain_t *d, mcx__endpoint_t *ep,
                                                   void *buf, size_t cap, size_t *size,
                                                   int classify, int glock)
{
  uint32_t idx = mcx__ep_idx(d, ep);
  uint32_t depth = mcx_load_relaxed(&ep->depth); /* the owner is the only one who re-sizes */
  uint32_t used = mcx_load_relaxed(&ep->used_prios); /* a hint, see mcx__msg_enqueue_once */
  mcx__ring_outcome_t res = MCX_RING_EMPTY;
  if (glock)
    mcx__glock(d);
  while (used) {
    uint32_t p = (uint32_t)__builtin_ctz(used);
    used &= used - 1;
    mcx__ring_view_t v = mcx__ring_of(d, idx, p, depth);
    mcx__ring_outcome_t o = mcx__mpsc_dequeue(&v, buf, cap, size, classify);
    if (o == MCX_RING_OK || o == MCX_RING_TRUNCATED || o == MCX_RING_CORRUPT) {
      res = o;
      break;
    }
    if (o == MCX_RING_EMPTY_BUT_PRODUCER_INSERTING)
      res = o;
  }
  if (glock)
    mcx__gunlock(d);
  if (res == MCX_RING_OK || res == MCX_RING_TRUNCATED || res == MCX_RING_CORRUPT)
    mcx__wp_notify(&ep->space_wp, d->shared); /* F-W2 after R2 */
  return res;
}

/** The fast receive of the message at the head of priority @p p's ring of
 * cached endpoint @p c when it is not a small one that fits (a pool buffer,
 * a truncation, a tombstone), out of line (msg.c): MCX_OK, MCX_ETRUNC,
 * MCX_ECORRUPT, or MCX_EAGAIN. */
int mcx__msg_recv_ring(mcx__domain_t *d, const mcx__epc_t *c, uint32_t p, void *buf, size_t cap,
                       size_t *size);

/** A receive in one attempt: MCX_OK, MCX_ETRUNC, or MCX_EAGAIN (full path). */
MCX_FAST int mcx__msg_recv_fast(mcx__domain_t *d, uint32_t h, void *buf, size_t cap, size_t *size)
{
  if (__builtin_expect(mcx__recv_queued != 0, 0)) /* receive requests come first */
    return MCX_EAGAIN;
  mcx__epc_t *c = mcx__epc_get(h);
  if (__builtin_expect(!c, 0))
    return MCX_EAGAIN;
  mcx__endpoint_t *ep = c->ep;
  /* Our own endpoint: relaxed (its owner re-sizes it, with the epoch). */
  if (__builtin_expect(mcx_load_relaxed(&ep->state) != c->state, 0) ||
      __builtin_expect(!c->mine, 0) || __builtin_expect(mcx_load_relaxed(&ep->chan) != 0, 0) ||
      __builtin_expect(mcx_load_relaxed(&ep->ring_epoch) != c->epoch, 0)) {
    mcx__epc_clear(c);
    return MCX_EAGAIN;
  }
  uint32_t used = mcx_load_relaxed(&ep->used_prios); /* a hint, see mcx__msg_enqueue_once */
  while (used) {
    uint32_t p = (uint32_t)__builtin_ctz(used);
    used &= used - 1;
    mcx__ring_view_t v = mcx__epc_ring(d, c, p);
    mcx__ring_outcome_t o = mcx__mpsc_dequeue_small(&v, buf, cap, size);
    if (o == MCX_RING_EMPTY)
      continue;
    if (__builtin_expect(o == MCX_RING_NOT_SMALL, 0)) /* out of line */
      return mcx__msg_recv_ring(d, c, p, buf, cap, size);
    mcx__wp_notify(&ep->space_wp, d->shared); /* F-W2 after R2 */
    return MCX_OK;
  }
  return MCX_EAGAIN;
}

#endif
