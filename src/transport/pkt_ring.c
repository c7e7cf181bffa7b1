/* SPDX-License-Identifier: BSD-3-Clause */
/* The packet ring's rare paths: passing over held slots and skip marks (see
 * pkt_ring.h). */
#include "transport/pkt_ring.h"

/* Position @p a is after position @p b (30-bit positions, within half their
 * range of each other). */
static int after30(uint32_t a, uint32_t b)
{
  uint32_t d = (a - b) & MCX_POS30;
  return d != 0 && d < (MCX_POS30 >> 1);
}

mcx__q_outcome_t mcx__pkt_reserve_slow(const mcx__spsc_view_t *v)
{
  mcx__spsc_ring_t *r = v->ring;
  uint32_t pos0 = r->tail; /* producer-owned */
  uint32_t head = 0;
  int head_read = 0;
  /* Look ahead, writing nothing, for the first slot this side may take,
   * over slots the consumer holds: within one lap. Only when there is one
   * are the held slots before it marked and passed over, so a send that
   * finds every slot held changes nothing (and needs no receive to undo). */
  for (uint32_t j = 0; j <= v->mask; j++) {
    uint32_t pos = pos0 + j;
    mcx__spsc_slot_t *s = mcx__spsc_at(v, pos);
    uint32_t w = mcx_load_acquire(&s->word); /* A1 */
    if (w != mcx__spsc_word(pos, MCX_SPSC_FREE)) {
      uint32_t wpos = w >> 2;
      /* Only this side writes meta: our own last size or skip mark. */
      uint32_t m = mcx_load_relaxed(&s->meta);
      int marked = (m & MCX_PKT_SKIP) != 0;
      /* A slot of an earlier lap (a corrupt word is none: full). */
      int older = after30(pos, wpos) && ((pos - wpos) & v->mask) == 0;
      int kept = (w & 3u) == MCX_SPSC_RECEIVED && mcx__pkt_kept(s->value) && older;
      int freed = (w & 3u) == MCX_SPSC_FREE && marked && older;
      if (!kept && !freed)
        return (w & 3u) == MCX_SPSC_RECEIVED ? MCX_Q_FULL_BUT_CONSUMER_READING : MCX_Q_FULL;
      if (marked) {
        /* A-S2 — acquire: pairs with R-S2 in mcx__pkt_take / pass_marks:
         * the consumer has read every mark before its head. A mark it has
         * not passed yet must stay: full until it does. */
        if (!head_read) {
          head = mcx_load_acquire(&r->head);
          head_read = 1;
        }
        if (!after30(head, m & MCX_POS30))
          return MCX_Q_FULL;
      }
      if (kept)
        continue; /* held: passed over if a slot further on is free */
      /* freed: released after it was passed over, its mark read: ours */
    }
    for (uint32_t k = 0; k < j; k++)
      /* R-S1 — release: the mark is seen with the item after it; pairs
       * with A-S1 in mcx__pkt_pass_marks. The held slot's word and bytes
       * stay the consumer's. */
      mcx_store_release(&mcx__spsc_at(v, pos0 + k)->meta, mcx__pkt_skip_mark(pos0 + k));
    r->tail = pos;
    /* Relaxed: a hint for a polling consumer, as in mcx__spsc_reserve. */
    mcx_store_relaxed(&s->word, mcx__spsc_word(pos, MCX_SPSC_RESERVED));
    return MCX_Q_OK;
  }
  return MCX_Q_FULL;
}

mcx__q_outcome_t mcx__pkt_pass_marks(const mcx__spsc_view_t *v, uint32_t *at)
{
  mcx__spsc_ring_t *r = v->ring;
  uint32_t pos = *at;
  for (uint32_t n = 0; n <= v->mask + 1; n++) {
    mcx__spsc_slot_t *s = mcx__spsc_at(v, pos);
    uint32_t w = mcx_load_acquire(&s->word); /* A2 */
    if (w == mcx__spsc_word(pos, MCX_SPSC_ALLOCATED)) {
      *at = pos;
      return MCX_Q_OK;
    }
    /* A-S1 — acquire: pairs with R-S1 in mcx__pkt_reserve_slow. */
    if (mcx_load_acquire(&s->meta) != mcx__pkt_skip_mark(pos))
      return w == mcx__spsc_word(pos, MCX_SPSC_RESERVED) ? MCX_Q_EMPTY_BUT_PRODUCER_INSERTING
                                                          : MCX_Q_EMPTY;
    pos++;
    /* R-S2 — release: pairs with A-S2 (the mark is read). */
    mcx_store_release(&r->head, pos);
  }
  return MCX_Q_EMPTY;
}

uint32_t mcx__pkt_count(const mcx__spsc_view_t *v)
{
  uint32_t pos = mcx_load_relaxed(&v->ring->head), n = 0;
  for (uint32_t i = 0; i <= v->mask; i++, pos++) {
    mcx__spsc_slot_t *s = mcx__spsc_at(v, pos);
    /* Acquire, as A2 / A-S1: a counted item is one a take would find. */
    if (mcx_load_acquire(&s->word) == mcx__spsc_word(pos, MCX_SPSC_ALLOCATED))
      n++;
    else if (mcx_load_acquire(&s->meta) != mcx__pkt_skip_mark(pos))
      break;
  }
  return n;
}

void mcx__pkt_init(const mcx__spsc_view_t *v)
{
  mcx__spsc_init(v);
  for (uint32_t i = 0; i <= v->mask; i++)
    mcx__spsc_at(v, i)->value = MCX_PKT_KEEP; /* published by the caller, as the words */
}
