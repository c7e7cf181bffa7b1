/* SPDX-License-Identifier: BSD-3-Clause */
/* Control-path operations of the NBB ring (see nbb_ring.h). */
#include "nbb_ring.h"

void mcx__nbb_init(const mcx__nbb_view_t *v)
{
  mcx_store_relaxed(&v->ring->update, 0); /* published by the caller */
  mcx_store_relaxed(&v->ring->ack, 0);
  v->ring->ack_seen = 0;
  v->ring->update_seen = 0;
}

uint32_t mcx__nbb_count(const mcx__nbb_view_t *v)
{
  /* Acquire, as N-A2: counted items are ones a get would find. */
  uint32_t u = mcx_load_acquire(&v->ring->update);
  return (u >> 1) - (mcx_load_relaxed(&v->ring->ack) >> 1);
}
