/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Endpoints kept through their owner's death (adopt.h): the keep mark, the
 * sweep's orphaning, the adoption by a restarted owner, and the held
 * receive whose take a kill undoes. Above the endpoint controls (it uses
 * their reachability flag), below the recovery sweep that calls it.
 *
 * A kept endpoint's messages stay in its rings; the only message the dead
 * owner may have had out of them is the one it held (mcx__msg_take_held),
 * whose slot still reads published at the position before the head: the
 * sweep moves the head back onto it, and its pool buffer (if any) from the
 * dead node's hold back to queued, before the dead node's buffers are
 * reclaimed. Everything read from the partition is checked: the ring view
 * (mcx__ring_of), buffer indices, sizes, owners, positions.
 */
#include <string.h>

#include "common/mcx_err.h"
#include "runtime/adopt.h"
#include "runtime/endpoint.h"
#include "runtime/msg.h"
#include "transport/mpsc_ring.h"

static int adoptable(const mcx__domain_t *d)
{
  return d->transport == MCX_TRANSPORT_SHM_ && d->compat != MCX_COMPAT_MCA203_;
}

/* The caller's active message endpoint @p h. */
static int mine(mcx__domain_t *d, uint32_t h, mcx__endpoint_t **e)
{
  if (!d || !mcx__is_node())
    return MCX_ENODE;
  if (!adoptable(d))
    return MCX_ENOSYS;
  int r = mcx__ep_resolve(d, h, e);
  if (r)
    return r;
  if (!mcx__ep_is_mine(*e))
    return MCX_EPERM;
  return mcx_load_relaxed(&(*e)->chan) ? MCX_ECHAN : MCX_OK;
}

int mcx__ep_keep(uint32_t h)
{
  mcx__domain_t *d = mcx__self.dom;
  mcx__endpoint_t *e;
  int r = mine(d, h, &e);
  if (r)
    return r;
  /* Read by the sweep under the admin lock, after this node died: no order needed. */
  mcx_store_relaxed(&e->keep, MCX_KEEP_ON);
  return MCX_OK;
}

int mcx__msg_take_held(uint32_t h, void *buf, size_t cap, size_t *size, uint32_t *prio, uint64_t *pos)
{
  mcx__domain_t *d = mcx__self.dom;
  mcx__endpoint_t *e;
  int r = mine(d, h, &e);
  if (r)
    return r;
  uint32_t idx = mcx__ep_idx(d, e), depth = mcx_load_relaxed(&e->depth); /* the owner's */
  /* A hint, as in mcx__msg_enqueue_once. */
  uint32_t used = MCX_USED_PRIOS(mcx_load_relaxed(&e->used_prios));
  mcx__ring_outcome_t res = MCX_RING_EMPTY;
  const void *data = NULL;
  size_t n = 0;
  mcx__msg_slot_t *slot;
  uint64_t give_back = 0;
  uint32_t big, p = 0, mask = 0;
  mcx__glock(d);
  struct mcx__ring_at at = {d, idx, depth};
  if (d->locking == MCX_LOCK_LOCKFREE)
    used = mcx__msg_scan_from(used, &e->used_prios, mcx__ring_at, &at);
  while (used) {
    p = (uint32_t)__builtin_ctz(used);
    used &= used - 1;
    if (p >= d->g.nprio)
      break;
    mcx__ring_view_t v = mcx__ring_of(d, idx, p, depth);
    mask = v.mask;
    /* A2/R2 inside (mpsc_ring.h): the slot stays ours until given back. */
    res = mcx__mpsc_take(&v, &data, &n, &slot, &give_back, MCX_MBUF_HELD(mcx__self.node_slot), &big);
    if (res != MCX_RING_EMPTY)
      break;
  }
  if (res == MCX_RING_OK)
    memcpy(buf, data, n < cap ? n : cap);
  mcx__gunlock(d);
  if (res == MCX_RING_CORRUPT)
    mcx__wp_notify(&e->space_wp, d->shared); /* the slot was given back */
  if (res != MCX_RING_OK)
    return MCX_EAGAIN;
  *size = n;
  *prio = p;
  *pos = (give_back - mask - 1) & MCX_RING_POS_MASK;
  return MCX_OK;
}

int mcx__msg_give_held(uint32_t h, uint32_t prio, uint64_t pos)
{
  mcx__domain_t *d = mcx__self.dom;
  mcx__endpoint_t *e;
  int r = mine(d, h, &e);
  if (r)
    return r;
  if (prio >= d->g.nprio)
    return MCX_EINVAL;
  mcx__ring_view_t v = mcx__ring_of(d, mcx__ep_idx(d, e), prio, mcx_load_relaxed(&e->depth));
  mcx__msg_slot_t *s = &v.slots[pos & v.mask];
  pos &= MCX_RING_POS_MASK;
  mcx__glock(d);
  /* Ours alone while held (A2 of the take saw it published at pos). */
  int held = mcx_load_relaxed(&s->seq) == ((pos + 1) & MCX_RING_POS_MASK);
  if (held) {
    if (s->size > MCX_SLOT_INLINE) {
      uint32_t b = mcx__slot_buf(s);
      if (b < v.mp->pool.n && mcx_load_relaxed(&v.mp->state[b]) == MCX_MBUF_HELD(mcx__self.node_slot))
        mcx__mpool_free(v.mp, b);
    }
    mcx__mpsc_give_back(s, (pos + v.mask + 1) & MCX_RING_POS_MASK); /* R2, pairs with A1 */
  }
  mcx__gunlock(d);
  if (!held)
    return MCX_EINVAL;
  mcx__wp_notify(&e->space_wp, d->shared); /* F-W2 after R2 */
  return MCX_OK;
}

/* Whether the slot of position @p pos of ring @p v is held (taken, not
 * given back): it still reads published at that position. */
static mcx__msg_slot_t *held_at(const mcx__ring_view_t *v, uint64_t pos)
{
  mcx__msg_slot_t *s = &v->slots[pos & v->mask];
  /* Acquire: pairs with R1 of its sender (the payload is there). */
  return mcx_load_acquire(&s->seq) == ((pos + 1) & MCX_RING_POS_MASK) ? s : NULL;
}

int mcx__ep_orphan_locked(mcx__domain_t *d, uint32_t idx, uint32_t dead_slot)
{
  mcx__endpoint_t *e = &mcx__eps(d)[idx];
  uint32_t st = mcx_load_relaxed(&e->state);
  uint32_t keep = mcx_load_relaxed(&e->keep);
  /* ORPHAN too: an adopter killed inside mcx__ep_adopt (its owner_slot
   * already set) leaves it to be orphaned again. */
  if (!adoptable(d) || (keep != MCX_KEEP_ON && keep != MCX_KEEP_ORPHAN) || mcx_load_relaxed(&e->chan) ||
      EP_STATE(st) != EP_ACTIVE)
    return 0;
  uint32_t depth = mcx_load_relaxed(&e->depth);
  for (uint32_t p = 0; p < d->g.nprio; p++) {
    /* The held slots are the run just before the head (taken in order,
     * given back together): the head moves back over them, so they are
     * the next messages again, in their order. */
    mcx__ring_view_t v = mcx__ring_of(d, idx, p, depth);
    uint64_t h = mcx_load_relaxed(&v.ring->head) & MCX_RING_POS_MASK; /* the consumer is dead */
    uint64_t back = h, at = h;
    int bad = 0;
    for (uint32_t k = 0; k <= v.mask && at != 0; k++) { /* nothing was taken before position 0 */
      uint64_t pos = (at - 1) & MCX_RING_POS_MASK;
      mcx__msg_slot_t *s = held_at(&v, pos);
      if (!s)
        break;
      at = pos;
      uint32_t n = s->size, b = mcx__slot_buf(s);
      /* Shared memory is input: a buffer the dead owner did not hold. That
       * one and the held ones before it stay taken (given back, dropped):
       * the head cannot move back past a slot given back. */
      bad |= n > MCX_SLOT_INLINE && (n > v.mp->stride || b >= v.mp->pool.n ||
                                     mcx_load_relaxed(&v.mp->state[b]) != MCX_MBUF_HELD(dead_slot));
      if (bad) {
        mcx__mpsc_give_back(s, (pos + v.mask + 1) & MCX_RING_POS_MASK); /* R2, pairs with A1 */
        continue;
      }
      if (n > MCX_SLOT_INLINE)
        mcx_store_relaxed(&v.mp->state[b], v.tag | pos); /* queued again, before the reclaim of the dead node's */
      back = pos;
    }
    mcx_store_relaxed(&v.ring->head, back); /* the held messages are the next ones again */
  }
  /* Nobody's: no node slot names it (a new node in the dead one's slot must
   * not take it for its own), and sends are refused until it is adopted. */
  uint32_t k = mcx_load_relaxed(&e->ref_index);
  if (dead_slot < MCA_MAX_NODES && k < MCAPI_MAX_ENDPOINTS &&
      mcx_load_relaxed(&mcx__nodes(d)[dead_slot].ep_slot[k]) == idx + 1)
    mcx_store_release(&mcx__nodes(d)[dead_slot].ep_slot[k], 0);
  mcx_store_relaxed(&e->owner_slot, MCA_MAX_NODES);
  mcx_store_relaxed(&e->keep, MCX_KEEP_ORPHAN);
  /* R-E1 as in mcx__ep_set_reachable: the word gains the flag (senders: A-E1). */
  mcx_store_release(&e->state, st | EP_UNREACH);
  mcx__wp_broadcast(&e->space_wp, d->shared);
  mcx__wp_broadcast(&e->recv_wp, d->shared);
  return 1;
}

int mcx__ep_leave(uint32_t h)
{
  mcx__domain_t *d = mcx__self.dom;
  mcx__endpoint_t *e;
  int r = mine(d, h, &e);
  if (r)
    return r;
  if (mcx_load_relaxed(&e->keep) != MCX_KEEP_ON) /* set by this node (mcx__ep_keep, mcx__ep_adopt) */
    return MCX_EINVAL;
  if (mcx__admin_lock_bounded(d))
    return MCX_EIO;
  /* What the sweep does for a dead owner, done by the owner itself: its
   * held slots (none after a journal flush) are the run before the head. */
  r = mcx__ep_orphan_locked(d, mcx__ep_idx(d, e), mcx__self.node_slot) ? MCX_OK : MCX_EINVAL;
  mcx__admin_unlock(d);
  return r;
}

int mcx__ep_adopt(uint32_t port, const uint64_t *drop_upto, uint32_t ndrop, uint32_t *handle, uint32_t *dropped)
{
  *dropped = 0;
  mcx__domain_t *d = mcx__self.dom;
  if (!d || !mcx__is_node())
    return MCX_ENODE;
  if (!adoptable(d))
    return MCX_ENOSYS;
  mcx__endpoint_t *eps = mcx__eps(d);
  if (mcx__admin_lock_bounded(d))
    return MCX_EIO;
  int r = MCX_ENOENT;
  for (uint32_t i = 0; i < d->g.max_endpoints; i++) {
    mcx__endpoint_t *e = &eps[i];
    uint32_t st = mcx_load_relaxed(&e->state); /* under admin: no race with writers */
    if (EP_STATE(st) != EP_ACTIVE || mcx_load_relaxed(&e->keep) != MCX_KEEP_ORPHAN ||
        mcx_load_relaxed(&e->owner_slot) != MCA_MAX_NODES || mcx_load_relaxed(&e->node_id) != mcx__self.node_id ||
        mcx_load_relaxed(&e->port) != port || mcx_load_relaxed(&e->chan))
      continue;
    mcx__node_t *me = &mcx__nodes(d)[mcx__self.node_slot];
    uint32_t k = 0;
    while (k < MCAPI_MAX_ENDPOINTS && mcx_load_relaxed(&me->ep_slot[k]) != 0)
      k++;
    if (k == MCAPI_MAX_ENDPOINTS) {
      r = MCX_ENOMEM;
      break;
    }
    uint32_t depth = mcx_load_relaxed(&e->depth);
    for (uint32_t p = 0; p < ndrop && p < d->g.nprio; p++) {
      if (drop_upto[p] == UINT64_MAX)
        continue;
      /* The dead owner's held messages, put back by the sweep, that it had
       * recorded elsewhere (positions up to drop_upto[p]): discarded, taken
       * and given back, from the head on. */
      mcx__ring_view_t v = mcx__ring_of(d, i, p, depth);
      uint64_t last = drop_upto[p] & MCX_RING_POS_MASK;
      for (uint32_t c = 0; c <= v.mask; c++) {
        uint64_t h = mcx_load_relaxed(&v.ring->head) & MCX_RING_POS_MASK;
        mcx__msg_slot_t *s = &v.slots[h & v.mask];
        /* h <= last, in positions that wrap at 2^48; acquire: pairs with R1 (published at h). */
        if (((last - h) & MCX_RING_POS_MASK) >= (MCX_RING_POS_MASK >> 1) ||
            mcx_load_acquire(&s->seq) != ((h + 1) & MCX_RING_POS_MASK))
          break;
        uint32_t n = s->size, b = mcx__slot_buf(s);
        if (n > MCX_SLOT_INLINE && n <= v.mp->stride && mcx__mbuf_queued(&v, b, h))
          mcx__mpool_free(v.mp, b);
        mcx__mpsc_give_back(s, (h + v.mask + 1) & MCX_RING_POS_MASK); /* R2, pairs with A1 */
        mcx_store_relaxed(&v.ring->head, (h + 1) & MCX_RING_POS_MASK);
        (*dropped)++;
      }
    }
    /* The owner first: killed from here on, the sweep finds it this node's
     * and orphans it again (it accepts ORPHAN). */
    mcx_store_relaxed(&e->owner_slot, mcx__self.node_slot);
    mcx_store_relaxed(&e->ref_index, k);
    d->ep_local[i] = (mcx__ep_local_t){mcx_load_relaxed(&e->timeout_ms), mcx_load_relaxed(&e->fail_on_mem_limit)};
    mcx_store_relaxed(&e->keep, MCX_KEEP_ON);
    /* R-E3 — release: the endpoint before the node's index names it (A-E3). */
    mcx_store_release(&me->ep_slot[k], i + 1);
    *handle = mcx__ep_handle(d, i, st >> 8);
    mcx__wp_broadcast(&e->space_wp, d->shared); /* senders waiting on a full queue look again */
    r = MCX_OK;
    break;
  }
  mcx__admin_unlock(d);
  return r;
}
