/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file pkt_ring.h
 * @brief The packet channel's ring: the slot-state SPSC ring (spsc_ring.h)
 * with a cache line per slot, small packets in the slot, and slots the
 * receiver holds passed over.
 *
 * A slot is MCX_PKT_INLINE payload bytes (aligned to the line) followed by
 * the slot's word, meta and value (mcx__spsc_slot_t); a view of such a ring
 * has spread 2. A packet that fits is copied into its slot (value
 * MCX_PKT_KEEP, meta its size): the consumer's take leaves that slot
 * RECEIVED and hands out a pointer to its bytes, and the consumer's release
 * frees it (mcx__pkt_free_kept). So a hand-off moves one line to the
 * consumer and back. A larger packet is copied into a buffer the slot owns
 * (value MCX_PKT_OWNS | buffer index, meta its size; the caller, chan_pkt.c,
 * gives the slot its buffer and checks it): it is kept exactly as a small
 * one, and the slot keeps its buffer for later laps. Any value with
 * MCX_PKT_OWNS set is kept (mcx__pkt_kept); a value without it is an item
 * freed at the take (a buffer index of the per-item path, chan_pkt.c).
 *
 * A receiver may hold packets as long as it likes and release them in any
 * order; its held slots must not stop the ring. So a producer that reaches
 * a slot the consumer still holds (RECEIVED, value KEEP, from an earlier
 * lap) passes it over: it writes a skip mark for its position into the
 * slot's meta (the consumer read meta at the take and never again) and goes
 * on with the next position. The consumer, at a position whose slot is not
 * ALLOCATED for it, looks at the meta: its position's skip mark means "no
 * item here", and it goes on too. The rules that keep this exact:
 *   - the consumer reads a taken slot's meta and value before its RECEIVED
 *     store (release), so a producer that sees RECEIVED overwrites nothing
 *     still to be read;
 *   - a producer overwrites a skip mark only once the consumer's head has
 *     passed the mark's position (it reads `head`, released by the consumer
 *     after it read the mark), so no mark is lost;
 *   - a slot released after it was passed over reads FREE for the first
 *     position it was passed at (the release adds one lap to the held
 *     position), while its mark names the latest; the producer takes it at
 *     a later position (any whole number of laps on) once its mark is
 *     passed;
 *   - positions are 30-bit and compared within half their range.
 * With every slot held the producer finds the ring FULL, as a sender whose
 * receiver keeps every buffer. The ring is reset (meta included) at connect.
 *
 * Who writes what: the producer writes `tail`, a slot's word RESERVED /
 * ALLOCATED, its meta (size or skip mark), value and bytes; the consumer
 * writes `head` and a slot's word RECEIVED / FREE. The producer also reads
 * back the value it wrote a lap before (the slot's buffer), never the
 * consumer's.
 */
#ifndef MCX_TRANSPORT_PKT_RING_H
#define MCX_TRANSPORT_PKT_RING_H

#include "transport/spsc_ring.h"

#define MCX_PKT_INLINE 48u
/* A kept item (the slot is held from the take to the release): bit 63 of
 * value. The low 32 bits name the buffer the slot owns; MCX_PKT_KEEP (all
 * ones) owns none. */
#define MCX_PKT_OWNS (UINT64_C(1) << 63)
#define MCX_PKT_KEEP UINT64_MAX
#define MCX_PKT_SKIP 0x80000000u /* meta of a passed-over slot: MCX_PKT_SKIP | position */
#define MCX_POS30 0x3fffffffu

typedef struct mcx__pkt_slot {
  uint8_t data[MCX_PKT_INLINE];
  mcx__spsc_slot_t s;
} mcx__pkt_slot_t;

_Static_assert(sizeof(mcx__pkt_slot_t) == 64, "a packet slot is one cache line");
_Static_assert(sizeof(mcx__pkt_slot_t) == sizeof(mcx__spsc_slot_t) << 2, "spread 2");

/** The inline bytes of packet slot @p s. */
static inline uint8_t *mcx__pkt_bytes(mcx__spsc_slot_t *s)
{
  /* Through an integer: the bytes lie before the slot's fields, in the same
   * line of the ring (which the compiler cannot see from the field's type). */
  return (uint8_t *)((uintptr_t)s - MCX_PKT_INLINE);
}

/** A kept item's value (MCX_PKT_KEEP or MCX_PKT_OWNS | buffer). */
static inline int mcx__pkt_kept(uint64_t value) { return (int64_t)value < 0; }

static inline uint32_t mcx__pkt_skip_mark(uint32_t pos) { return MCX_PKT_SKIP | (pos & MCX_POS30); }

/** The slot that serves position @p pos (a packet ring's view: spread 2). */
static inline mcx__spsc_slot_t *mcx__pkt_at(const mcx__spsc_view_t *v, uint32_t pos)
{
  return v->slots + ((size_t)(pos & v->mask) << 2);
}

/** Out of line: the producer's next slot is not free for it (held slots to
 * pass over, or full). */
mcx__q_outcome_t mcx__pkt_reserve_slow(const mcx__spsc_view_t *v);

/** Out of line: the consumer's slot holds no item for it (skip marks to pass
 * over, or empty); on MCX_Q_OK *pos is the position whose slot has one. */
mcx__q_outcome_t mcx__pkt_pass_marks(const mcx__spsc_view_t *v, uint32_t *pos);

/**
 * Producer: claims the next slot (RESERVED), passing over slots the consumer
 * holds; finish with mcx__spsc_commit() or mcx__spsc_unreserve().
 * @return MCX_Q_OK, MCX_Q_FULL or MCX_Q_FULL_BUT_CONSUMER_READING.
 */
static inline __attribute__((always_inline)) mcx__q_outcome_t mcx__pkt_reserve(const mcx__spsc_view_t *v)
{
  uint32_t pos = v->ring->tail; /* producer-owned */
  mcx__spsc_slot_t *s = mcx__pkt_at(v, pos);
  /* A1 — acquire: pairs with R2 in mcx__pkt_take and R2-K in
   * mcx__pkt_free_kept (the consumer's reads of the slot are done). */
  if (__builtin_expect(mcx_load_acquire(&s->word) != mcx__spsc_word(pos, MCX_SPSC_FREE), 0))
    return mcx__pkt_reserve_slow(v);
  /* Relaxed: a hint for a polling consumer, as in mcx__spsc_reserve. */
  mcx_store_relaxed(&s->word, mcx__spsc_word(pos, MCX_SPSC_RESERVED));
  return MCX_Q_OK;
}

/**
 * Consumer: takes the oldest item (passing skip marks); its slot in *@p at.
 * A kept item (mcx__pkt_kept: bytes in the slot or in its buffer) leaves
 * the slot RECEIVED: held until mcx__pkt_free_kept.
 */
static inline __attribute__((always_inline)) mcx__q_outcome_t mcx__pkt_take(const mcx__spsc_view_t *v, uint32_t *meta,
                                             uint64_t *value, mcx__spsc_slot_t **at)
{
  uint32_t pos = mcx_load_relaxed(&v->ring->head); /* consumer-owned */
  mcx__spsc_slot_t *s = mcx__pkt_at(v, pos);
  /* A2 — acquire: pairs with R1 in mcx__spsc_commit (the item and the bytes
   * in the slot are visible). */
  if (__builtin_expect(mcx_load_acquire(&s->word) != mcx__spsc_word(pos, MCX_SPSC_ALLOCATED), 0)) {
    mcx__q_outcome_t o = mcx__pkt_pass_marks(v, &pos);
    if (o != MCX_Q_OK)
      return o;
    s = mcx__pkt_at(v, pos);
  }
  uint32_t m = mcx_load_relaxed(&s->meta);
  uint64_t x = s->value;
  /* R-T — release: our reads of meta and value happen before a producer
   * that sees RECEIVED may write a skip mark into meta; pairs with A1. */
  mcx_store_release(&s->word, mcx__spsc_word(pos, MCX_SPSC_RECEIVED));
  if (!mcx__pkt_kept(x))
    /* R2 — release: the slot is free for the next lap; pairs with A1. */
    mcx_store_release(&s->word, mcx__spsc_word(pos + v->mask + 1, MCX_SPSC_FREE));
  /* R-S2 — release: every mark before pos + 1 has been read; pairs with
   * A-S2 in mcx__pkt_reserve_slow. */
  mcx_store_release(&v->ring->head, pos + 1);
  *meta = m;
  *value = x;
  *at = s;
  return MCX_Q_OK;
}

/** Producer: publishes the reserved slot (mcx__spsc_commit for a packet ring). */
static inline __attribute__((always_inline)) void mcx__pkt_commit(const mcx__spsc_view_t *v,
                                                                  uint32_t meta, uint64_t value)
{
  uint32_t pos = v->ring->tail;
  mcx__spsc_publish(v->ring, mcx__pkt_at(v, pos), pos, meta, value); /* R1 */
}

/**
 * Consumer: takes the oldest item when it is a small packet in its slot
 * (kept, with a size that fits), in straight-line code: as mcx__pkt_take.
 * Else MCX_Q_MISMATCH, and nothing changed (mcx__pkt_take handles the rest).
 */
static inline __attribute__((always_inline)) mcx__q_outcome_t
mcx__pkt_take_kept(const mcx__spsc_view_t *v, uint32_t *meta, mcx__spsc_slot_t **at)
{
  uint32_t pos = mcx_load_relaxed(&v->ring->head); /* consumer-owned */
  mcx__spsc_slot_t *s = mcx__pkt_at(v, pos);
  /* A2 — acquire: pairs with R1 in mcx__pkt_commit. */
  if (__builtin_expect(mcx_load_acquire(&s->word) != mcx__spsc_word(pos, MCX_SPSC_ALLOCATED), 0))
    return MCX_Q_MISMATCH;
  uint32_t m = mcx_load_relaxed(&s->meta);
  if (__builtin_expect(!mcx__pkt_kept(s->value) || m > MCX_PKT_INLINE, 0))
    return MCX_Q_MISMATCH;
  /* R-T — release: pairs with A1 (our reads of meta and value are done). */
  mcx_store_release(&s->word, mcx__spsc_word(pos, MCX_SPSC_RECEIVED));
  /* R-S2 — release: pairs with A-S2. */
  mcx_store_release(&v->ring->head, pos + 1);
  *meta = m;
  *at = s;
  return MCX_Q_OK;
}

/** Consumer: frees kept slot @p s (RECEIVED for a position) for position
 * @p next, a lap later. */
static inline void mcx__pkt_free_kept(mcx__spsc_slot_t *s, uint32_t next)
{
  /* R2-K — release: the holder's reads of the slot's bytes happen before the
   * producer refills it; pairs with A1. */
  mcx_store_release(&s->word, mcx__spsc_word(next, MCX_SPSC_FREE));
}

/** A kept slot (the consumer holds its bytes), for word @p w of slot @p s. */
static inline int mcx__pkt_is_kept(uint32_t w, const mcx__spsc_slot_t *s)
{
  return (w & 3u) == MCX_SPSC_RECEIVED && mcx__pkt_kept(s->value);
}

/** Producer: publishes the slot in hand, @p s for position @p pos (the
 * tail), with @p meta and the value it already holds (a kept value of an
 * earlier lap: the send fast path checked it). */
static inline __attribute__((always_inline)) void
mcx__pkt_publish_meta(mcx__spsc_ring_t *r, mcx__spsc_slot_t *s, uint32_t pos, uint32_t meta)
{
  mcx_store_relaxed(&s->meta, meta);
  /* R1 — release: meta and the bytes in the slot are visible before the
   * slot reads ALLOCATED; pairs with A2. */
  mcx_store_release(&s->word, mcx__spsc_word(pos, MCX_SPSC_ALLOCATED));
  r->tail = pos + 1;
}

/** Resets a packet ring (connect): as mcx__spsc_init, and every slot's
 * value MCX_PKT_KEEP (kept, no buffer). */
void mcx__pkt_init(const mcx__spsc_view_t *v);

/** Items published and not yet taken (consumer side; a snapshot). */
uint32_t mcx__pkt_count(const mcx__spsc_view_t *v);

#endif
