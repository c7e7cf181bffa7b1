/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file nbb_ring.h
 * @brief The non-blocking buffer (NBB) of Kim et al. as the paper lays it
 * out: one update counter written by the producer, one ack counter written by
 * the consumer, each on its own cache line, each incremented once before and
 * once after its operation (odd = operation under way). Each side keeps a
 * private copy of the other's counter and re-reads the shared one only when
 * its copy says FULL / EMPTY.
 *
 * Outcomes, from the counters (u = update, a = ack; items in = u / 2,
 * items out = a / 2):
 *   producer: u/2 - a/2 == cap and a even -> FULL,
 *             u/2 - a/2 == cap and a odd  -> FULL_BUT_CONSUMER_READING;
 *   consumer: u/2 == a/2 and u even       -> EMPTY,
 *             u/2 == a/2 and u odd        -> EMPTY_BUT_PRODUCER_INSERTING.
 * A hand-off moves two lines: the slot and the update counter to the consumer,
 * then the ack counter back to the producer when it next runs out of space.
 *
 * Same interface as spsc_ring.h. Not part of the library: the measured
 * alternative that examples/ring_layouts.c compiles beside it.
 */
#ifndef MCX_EXAMPLE_NBB_RING_H
#define MCX_EXAMPLE_NBB_RING_H

#include <stdint.h>

#include "common/mcx_atomic.h"
#include "transport/chan_outcome.h"

typedef struct mcx__nbb_slot {
  uint32_t meta;
  uint32_t pad;
  uint64_t value;
} mcx__nbb_slot_t;

_Static_assert(sizeof(mcx__nbb_slot_t) == 16, "four slots per cache line");

typedef struct mcx__nbb_ring {
  /* Producer line: update written by the producer, read by the consumer;
   * ack_seen is the producer's private copy of ack. */
  MCX_ALIGNED_LINE mcx_atomic_u32 update;
  uint32_t ack_seen;
  /* Consumer line: ack written by the consumer, read by the producer;
   * update_seen is the consumer's private copy of update. */
  MCX_ALIGNED_LINE mcx_atomic_u32 ack;
  uint32_t update_seen;
} mcx__nbb_ring_t;

typedef struct mcx__nbb_view {
  mcx__nbb_ring_t *ring;
  mcx__nbb_slot_t *slots;
  uint32_t mask;
} mcx__nbb_view_t;

void mcx__nbb_init(const mcx__nbb_view_t *v);
uint32_t mcx__nbb_count(const mcx__nbb_view_t *v);

static inline mcx__q_outcome_t mcx__nbb_reserve(const mcx__nbb_view_t *v)
{
  mcx__nbb_ring_t *r = v->ring;
  uint32_t u = mcx_load_relaxed(&r->update); /* producer-owned */
  if ((u >> 1) - (r->ack_seen >> 1) > v->mask) {
    /* N-A1 — acquire: the consumer's reads of the slots it acknowledged happen
     * before we overwrite them; pairs with N-R2 in mcx__nbb_get. */
    r->ack_seen = mcx_load_acquire(&r->ack);
    if ((u >> 1) - (r->ack_seen >> 1) > v->mask)
      return (r->ack_seen & 1) ? MCX_Q_FULL_BUT_CONSUMER_READING : MCX_Q_FULL;
  }
  /* Relaxed: odd = inserting, a hint for the consumer; the item is published by N-R1. */
  mcx_store_relaxed(&r->update, u + 1);
  return MCX_Q_OK;
}

static inline void mcx__nbb_commit(const mcx__nbb_view_t *v, uint32_t meta, uint64_t value)
{
  mcx__nbb_ring_t *r = v->ring;
  uint32_t u = mcx_load_relaxed(&r->update); /* odd: ours */
  mcx__nbb_slot_t *s = &v->slots[(u >> 1) & v->mask];
  s->meta = meta;
  s->value = value;
  /* N-R1 — release: the item before the count that covers it; pairs with N-A2. */
  mcx_store_release(&r->update, u + 1);
}

static inline void mcx__nbb_unreserve(const mcx__nbb_view_t *v)
{
  /* Relaxed: back to even, nothing new is covered. */
  mcx_store_relaxed(&v->ring->update, mcx_load_relaxed(&v->ring->update) - 1);
}

static inline mcx__q_outcome_t mcx__nbb_put(const mcx__nbb_view_t *v, uint32_t meta,
                                            uint64_t value)
{
  mcx__q_outcome_t o = mcx__nbb_reserve(v);
  if (o == MCX_Q_OK)
    mcx__nbb_commit(v, meta, value);
  return o;
}

static inline mcx__q_outcome_t mcx__nbb_get(const mcx__nbb_view_t *v, uint32_t expect_meta,
                                            uint32_t *meta, uint64_t *value)
{
  mcx__nbb_ring_t *r = v->ring;
  uint32_t a = mcx_load_relaxed(&r->ack); /* consumer-owned, even here */
  if ((r->update_seen >> 1) == (a >> 1)) {
    /* N-A2 — acquire: the items covered by update are visible; pairs with N-R1. */
    r->update_seen = mcx_load_acquire(&r->update);
    if ((r->update_seen >> 1) == (a >> 1))
      return (r->update_seen & 1) ? MCX_Q_EMPTY_BUT_PRODUCER_INSERTING : MCX_Q_EMPTY;
  }
  mcx__nbb_slot_t *s = &v->slots[(a >> 1) & v->mask];
  uint32_t m = s->meta;
  if (expect_meta && m != expect_meta) {
    *meta = m;
    return MCX_Q_MISMATCH;
  }
  /* Relaxed: odd = reading, a hint for a producer that finds the ring full. */
  mcx_store_relaxed(&r->ack, a + 1);
  *meta = m;
  *value = s->value;
  /* N-R2 — release: our reads of the slot before the producer reuses it;
   * pairs with N-A1. */
  mcx_store_release(&r->ack, a + 2);
  return MCX_Q_OK;
}

#endif
