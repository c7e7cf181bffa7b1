/* SPDX-License-Identifier: BSD-3-Clause */
/* Control-path operations of the SPSC channel ring (see spsc_ring.h). */
#include "transport/spsc_ring.h"

#include "ports/mcx_port.h"

/* Empties the ring: every slot's word (@p scl: a lap behind, for the
 * scalars' encoding; else FREE for its position), no meta (no skip mark,
 * pkt_ring.h), both positions 0. Published by the caller. */
static void ring_init(const mcx__spsc_view_t *v, int scl)
{
  uint32_t cap = v->mask + 1;
  for (uint32_t i = 0; i <= v->mask; i++) {
    mcx__spsc_slot_t *s = mcx__spsc_at(v, i);
    mcx_store_relaxed(&s->word, scl ? (i - cap) << 2 : mcx__spsc_word(i, MCX_SPSC_FREE));
    mcx_store_relaxed(&s->meta, 0);
  }
  v->ring->tail = 0;
  mcx_store_relaxed(&v->ring->head, 0);
  v->ring->limit = 0;
}

/* The items a get would find from the consumer's position on (@p scl: any
 * scalar word of its position). */
static uint32_t ring_count(const mcx__spsc_view_t *v, int scl)
{
  uint32_t h = mcx_load_relaxed(&v->ring->head), n = 0;
  for (uint32_t i = 0; i <= v->mask; i++, n++) {
    /* Acquire, as A2: a counted item is one a get would find. */
    uint32_t w = mcx_load_acquire(&mcx__spsc_at(v, h + i)->word);
    if (scl ? ((w ^ (h + i) << 2) >> 2) != 0 : w != mcx__spsc_word(h + i, MCX_SPSC_ALLOCATED))
      break;
  }
  return n;
}

void mcx__spsc_init(const mcx__spsc_view_t *v) { ring_init(v, 0); }
uint32_t mcx__spsc_count(const mcx__spsc_view_t *v) { return ring_count(v, 0); }
void mcx__scl_init(const mcx__spsc_view_t *v) { ring_init(v, 1); }
uint32_t mcx__scl_count(const mcx__spsc_view_t *v) { return ring_count(v, 1); }

/* The consumer's count @p h as the producer may use it: the start of the
 * line it is reading when @p line (MCX_SCL_LINE slots to a line, or the
 * whole ring when it is smaller), else itself. */
static uint32_t scl_free_from(const mcx__spsc_view_t *v, uint32_t h, int line)
{
  if (!line)
    return h;
  uint32_t per = v->mask < MCX_SCL_LINE - 1 ? v->mask + 1 : MCX_SCL_LINE;
  return h & ~(per - 1);
}

mcx__q_outcome_t mcx__spsc_put1_refill(const mcx__spsc_view_t *v, uint32_t width, uint64_t value,
                                       int line)
{
  mcx__spsc_ring_t *r = v->ring;
  uint32_t pos = r->tail; /* producer-owned */
  /* A1-T — acquire: pairs with R2-T in mcx__spsc_get1: the consumer's reads
   * of the slots it has taken happen before our writes to them. A count from
   * shared memory that is ahead of us (corrupt) reads as full. */
  uint32_t h = mcx_load_acquire(&r->head);
  if (pos - h > v->mask)
    return MCX_Q_FULL;
  uint32_t from = scl_free_from(v, h, line);
  if (pos - from > v->mask)
    return MCX_Q_LINE; /* a slot is free, in the line the consumer reads */
  r->limit = from + v->mask + 1; /* > pos: one compare per send until then */
  return mcx__spsc_put1(v, width, value);
}

mcx__q_outcome_t mcx__spsc_put1_lines(const mcx__spsc_view_t *v, uint32_t width, uint64_t value,
                                      uint32_t polls)
{
  mcx__q_outcome_t o = mcx__spsc_put1_any(v, width, value, 1);
  for (uint32_t i = 0; o == MCX_Q_LINE && i < polls; i++) {
    mcx_port_cpu_relax();
    o = mcx__spsc_put1_any(v, width, value, 1);
  }
  return o == MCX_Q_LINE ? mcx__spsc_put1_any(v, width, value, 0) : o;
}
