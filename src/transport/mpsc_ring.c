/* SPDX-License-Identifier: BSD-3-Clause */
/* Control-path operations of the MPSC ring (see mpsc_ring.h). */
#include "transport/mpsc_ring.h"

#include "ports/mcx_port.h"

void mcx__mpsc_init(const mcx__ring_view_t *v, uint32_t epoch)
{
  for (uint32_t i = 0; i <= v->mask; i++)
    mcx_store_relaxed(&v->slots[i].seq, i); /* published by R0 below */
  mcx_store_relaxed(&v->ring->head, 0);
  mcx_store_relaxed(&v->ring->reading, 0);
  mcx_store_relaxed(&v->ring->hwm, 0);
  mcx_store_relaxed(&v->ring->hwm_quiet, 0);
  /* R0 — release: the reset slots are visible to a producer that reads this
   * tail; pairs with A0 in mcx__mpsc_enqueue. */
  mcx_store_release(&v->ring->tail, (uint64_t)(epoch & MCX_RING_GEN_MASK) << MCX_RING_GEN_SHIFT);
}

uint32_t mcx__mpsc_close(const mcx__ring_view_t *v, int (*stuck)(void *, uint64_t), void *ctx)
{
  /* Acq_rel: after this no producer's CAS can succeed; we must also see the
   * reservations that won before us (their positions are below t). */
  uint64_t t = mcx_fetch_or_acq_rel(&v->ring->tail, MCX_RING_CLOSED);
  uint64_t end = t & MCX_RING_POS_MASK;
  uint64_t h = mcx_load_relaxed(&v->ring->head);
  int64_t queued = mcx__pos_diff(end, h);
  if (queued < 0 || (uint64_t)queued > (uint64_t)v->mask + 1)
    return 0; /* corrupt positions: no slot between them can be trusted */
  uint32_t dropped = 0;
  for (uint64_t p = h; p != end; p = (p + 1) & MCX_RING_POS_MASK) {
    mcx__msg_slot_t *s = &v->slots[p & v->mask];
    /* A3 — acquire: waits for R1 of the producer that reserved p, so no
     * write into the ring is still under way when close returns. */
    for (uint32_t spins = 1; mcx_load_acquire(&s->seq) != ((p + 1) & MCX_RING_POS_MASK); spins++) {
      mcx_port_yield();
      if (stuck && spins % 1024 == 0 && !stuck(ctx, p))
        return dropped; /* no one holds the reservation: corrupt */
    }
    if (s->size == MCX_SLOT_TOMBSTONE)
      continue;
    dropped++;
    /* A dropped message's pool buffer, if the slot's state says it is this
     * slot's (a receiver that died between freeing it and releasing the
     * slot left one that is not). */
    if (s->size > MCX_SLOT_INLINE && mcx__mbuf_queued(v, mcx__slot_buf(s), p))
      mcx__mpool_free(v->mp, mcx__slot_buf(s));
  }
  return dropped;
}

uint32_t mcx__mpsc_count(const mcx__ring_view_t *v)
{
  uint64_t h = mcx_load_relaxed(&v->ring->head);
  uint32_t n = 0;
  for (uint32_t i = 0; i <= v->mask; i++) {
    uint64_t p = (h + i) & MCX_RING_POS_MASK;
    /* Acquire, as A2: a counted message is one a receive would find. */
    const mcx__msg_slot_t *s = &v->slots[p & v->mask];
    if (mcx_load_acquire(&s->seq) != ((p + 1) & MCX_RING_POS_MASK))
      break;
    n += s->size != MCX_SLOT_TOMBSTONE;
  }
  return n;
}

int mcx__mpsc_tombstone(const mcx__ring_view_t *v, uint64_t pos)
{
  /* Acquire: pairs with R3 (the reservation) so positions below tail are real. */
  uint64_t t = mcx_load_acquire(&v->ring->tail) & MCX_RING_POS_MASK;
  if (mcx__pos_diff(t, pos) <= 0)
    return 0; /* the CAS never happened */
  mcx__msg_slot_t *s = &v->slots[pos & v->mask];
  if (mcx_load_acquire(&s->seq) != pos)
    return 0; /* published (or consumed) after all */
  /* The dead sender's pool buffer, if it got as far as queuing it here (a
   * buffer it still held is freed by the dead-node sweep, by its state). */
  if (s->size > MCX_SLOT_INLINE && s->size != MCX_SLOT_TOMBSTONE &&
      mcx__mbuf_queued(v, mcx__slot_buf(s), pos))
    mcx__mpool_free(v->mp, mcx__slot_buf(s));
  s->size = MCX_SLOT_TOMBSTONE;
  /* Release, as R1: the marker before the slot reads as ALLOCATED (A2, A3). */
  mcx_store_release(&s->seq, (pos + 1) & MCX_RING_POS_MASK);
  return 1;
}

int mcx__mpsc_stuck(const mcx__ring_view_t *v)
{
  uint64_t h = mcx_load_relaxed(&v->ring->head);
  uint64_t t = mcx_load_acquire(&v->ring->tail) & MCX_RING_POS_MASK;
  if (t == h)
    return 0;
  return mcx_load_acquire(&v->slots[h & v->mask].seq) != ((h + 1) & MCX_RING_POS_MASK);
}
