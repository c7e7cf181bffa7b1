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

/** Whether the calling node's domain takes the fast paths (lock-free shm). */
MCX_FAST mcx__domain_t *mcx__fast_domain(void)
{
  mcx__domain_t *d = mcx__self.dom;
  return d && d->fastpath && mcx__self.fork_gen == mcx_port_fork_generation() ? d : NULL;
}

/** One enqueue into @p dst's ring of priority @p prio; @p glock: take the
 * domain's lock around it (the full path in global/kernel mode). */
MCX_FAST mcx__ring_outcome_t mcx__msg_enqueue_once(mcx__domain_t *d, mcx__endpoint_t *dst,
                                                   uint32_t from, const void *buf, size_t size,
                                                   uint32_t prio, int glock)
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
  o = mcx__mpsc_enqueue(&v, epoch, buf, (uint32_t)size, from, intent, tag);
  if (glock)
    mcx__gunlock(d);
  if (o == MCX_RING_OK)
    mcx__wp_notify(&dst->recv_wp, d->shared); /* F-W2 after R1 */
  return o;
}

/** A send in one attempt: MCX_OK, or MCX_EAGAIN when the full path must run. */
MCX_FAST int mcx__msg_send_fast(mcx__domain_t *d, uint32_t from, uint32_t to, const void *buf,
                                size_t size, uint32_t prio)
{
  mcx__endpoint_t *src, *dst;
  if (__builtin_expect(mcx__ep_resolve(d, from, &src) | mcx__ep_resolve(d, to, &dst), 0))
    return MCX_EAGAIN;
  if (__builtin_expect(!mcx__ep_is_mine(src) || size > d->g.max_msg ||
                           (mcx_load_relaxed(&src->chan) | mcx_load_relaxed(&dst->chan)),
                       0))
    return MCX_EAGAIN;
  if (mcx__msg_enqueue_once(d, dst, from, buf, size, prio, 0) != MCX_RING_OK)
    return MCX_EAGAIN;
  mcx__ctr_add(&src->n_sent, 1);
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

/** A receive in one attempt: MCX_OK, MCX_ETRUNC, or MCX_EAGAIN (full path). */
MCX_FAST int mcx__msg_recv_fast(mcx__domain_t *d, uint32_t h, void *buf, size_t cap, size_t *size)
{
  mcx__endpoint_t *ep;
  if (__builtin_expect(mcx__recv_queued != 0, 0)) /* receive requests come first */
    return MCX_EAGAIN;
  if (__builtin_expect(mcx__ep_resolve(d, h, &ep) != MCX_OK || !mcx__ep_is_mine(ep) ||
                           mcx_load_relaxed(&ep->chan),
                       0))
    return MCX_EAGAIN;
  mcx__ring_outcome_t o = mcx__msg_dequeue_once(d, ep, buf, cap, size, 0, 0);
  return o == MCX_RING_OK          ? MCX_OK
         : o == MCX_RING_TRUNCATED ? MCX_ETRUNC
         : o == MCX_RING_CORRUPT   ? MCX_ECORRUPT
                                   : MCX_EAGAIN;
}

#endif
