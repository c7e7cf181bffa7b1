/* SPDX-License-Identifier: BSD-3-Clause */
/* Control-path operations of the SPSC channel ring (see spsc_ring.h). */
#include "transport/spsc_ring.h"

void mcx__spsc_init(const mcx__spsc_view_t *v)
{
  for (uint32_t i = 0; i <= v->mask; i++) {
    mcx__spsc_slot_t *s = mcx__spsc_at(v, i);
    mcx_store_relaxed(&s->word, mcx__spsc_word(i, MCX_SPSC_FREE)); /* published by the caller */
    mcx_store_relaxed(&s->meta, 0); /* no skip mark (pkt_ring.h) */
  }
  v->ring->tail = 0;
  mcx_store_relaxed(&v->ring->head, 0); /* published by the caller */
  v->ring->limit = 0;
}

uint32_t mcx__spsc_count(const mcx__spsc_view_t *v)
{
  uint32_t h = mcx_load_relaxed(&v->ring->head), n = 0;
  for (uint32_t i = 0; i <= v->mask; i++) {
    /* Acquire, as A2: a counted item is one a get would find. */
    if (mcx_load_acquire(&mcx__spsc_at(v, h + i)->word) !=
        mcx__spsc_word(h + i, MCX_SPSC_ALLOCATED))
      break;
    n++;
  }
  return n;
}

void mcx__scl_init(const mcx__spsc_view_t *v)
{
  uint32_t cap = v->mask + 1;
  for (uint32_t i = 0; i <= v->mask; i++) {
    mcx__spsc_slot_t *s = mcx__spsc_at(v, i);
    /* A lap behind: no position the consumer reaches reads it as its own. */
    mcx_store_relaxed(&s->word, (i - cap) << 2); /* published by the caller */
    mcx_store_relaxed(&s->meta, 0);
  }
  v->ring->tail = 0;
  mcx_store_relaxed(&v->ring->head, 0); /* published by the caller */
  v->ring->limit = 0;
}

uint32_t mcx__scl_count(const mcx__spsc_view_t *v)
{
  uint32_t h = mcx_load_relaxed(&v->ring->head), n = 0;
  for (uint32_t i = 0; i <= v->mask; i++) {
    /* Acquire, as A2: a counted item is one a get would find. */
    uint32_t w = mcx_load_acquire(&mcx__spsc_at(v, h + i)->word);
    if ((w ^ (h + i) << 2) >> 2)
      break;
    n++;
  }
  return n;
}
