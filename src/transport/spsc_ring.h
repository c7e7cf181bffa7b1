/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file spsc_ring.h
 * @brief Single-producer single-consumer ring whose slots carry their own
 * state word: the data path of packet and scalar channels.
 *
 * Each 16-byte slot holds a 32-bit state word, a 32-bit meta (packet size or
 * skip mark) and a 64-bit value (scalar, buffer index). Scalars keep their
 * width in the word instead (their own encoding, below). The state word is
 * `pos << 2 | state` for the position pos the slot serves in this lap, with
 * the queue-entry states of the NBB paper:
 *
 *   FREE      (pos, FREE)          the producer may fill it for position pos
 *   RESERVED  (pos, RESERVED)      the producer is writing it (a packet copy)
 *   ALLOCATED (pos, ALLOCATED)     published (R1); the consumer may take it
 *   RECEIVED  (pos, RECEIVED)      the consumer is reading it
 *   FREE      (pos + cap, FREE)    released (R2) for the next lap
 *
 * The four NBB outcomes are read off the one slot each side looks at, so a
 * hand-off costs one cache-line transfer (the signal travels with the data):
 *   producer at pos sees (pos - cap, ALLOCATED) -> FULL,
 *                        (pos - cap, RECEIVED)  -> FULL_BUT_CONSUMER_READING;
 *   consumer at pos sees (pos, FREE)            -> EMPTY,
 *                        (pos, RESERVED)        -> EMPTY_BUT_PRODUCER_INSERTING.
 * Positions are 30-bit in the word and compared for equality only, so they
 * wrap freely (cap is far below 2^30).
 *
 * Who writes what: the producer writes `tail` (its own line) and a slot's
 * word RESERVED / ALLOCATED, meta and value (a scalar producer also `limit`,
 * on its line); the consumer writes `head` (its own line) and the word
 * RECEIVED / FREE. One producer thread and one
 * consumer thread at a time; re-initialisation needs both quiet.
 *
 * The ring header and the slots live in the domain partition, addressed by
 * offsets by the caller; this header only sees pointers.
 */
#ifndef MCX_TRANSPORT_SPSC_RING_H
#define MCX_TRANSPORT_SPSC_RING_H

#include <stddef.h>
#include <stdint.h>

#include "common/mcx_atomic.h"
#include "transport/chan_outcome.h"

enum { MCX_SPSC_FREE = 0, MCX_SPSC_RESERVED = 1, MCX_SPSC_ALLOCATED = 2, MCX_SPSC_RECEIVED = 3 };

typedef struct mcx__spsc_slot {
  mcx_atomic_u32 word; /* pos << 2 | state: producer and consumer in turn */
  mcx_atomic_u32 meta; /* written by the producer before R1 (packet rings: size or skip mark; scalars: unused) */
  uint64_t value;      /* written by the producer before R1 */
} mcx__spsc_slot_t;

_Static_assert(sizeof(mcx__spsc_slot_t) == 16, "four slots per cache line");

typedef struct mcx__spsc_ring {
  /* Producer line: written by the producer only, read by nobody else. */
  MCX_ALIGNED_LINE uint32_t tail;
  /* Scalars: the position the producer may not fill before it reads the
   * consumer's `head` again (that `head`, as last read, + capacity; 0 at
   * connect, so the first send reads it). */
  uint32_t limit;
  /* Consumer line: written by the consumer only; `head` is read by a
   * scalar producer when it reaches its `limit`. */
  MCX_ALIGNED_LINE mcx_atomic_u32 head;
} mcx__spsc_ring_t;

typedef struct mcx__spsc_view {
  mcx__spsc_ring_t *ring;
  mcx__spsc_slot_t *slots; /* slot 0's state word, meta and value */
  uint32_t mask;           /* capacity - 1, capacity a power of two */
  /* Slot k is at slots + (k << spread): 0 for 16-byte slots (four to a line),
   * 2 for packet slots (mcx__spsc_pslot_t: one line each, the inline bytes
   * before the word). */
  uint32_t spread;
} mcx__spsc_view_t;

static inline uint32_t mcx__spsc_word(uint32_t pos, uint32_t state) { return pos << 2 | state; }

/** The slot that serves position @p pos. */
static inline mcx__spsc_slot_t *mcx__spsc_at(const mcx__spsc_view_t *v, uint32_t pos)
{
  return v->slots + ((size_t)(pos & v->mask) << v->spread);
}

/** Resets the ring (no concurrent users; published by the caller's release). */
void mcx__spsc_init(const mcx__spsc_view_t *v);

/** Items published and not yet taken (consumer side; a snapshot). */
uint32_t mcx__spsc_count(const mcx__spsc_view_t *v);

/**
 * Producer: claims the next slot (state RESERVED) so the caller can prepare
 * the item; finish with mcx__spsc_commit() or mcx__spsc_unreserve().
 * @return MCX_Q_OK, MCX_Q_FULL or MCX_Q_FULL_BUT_CONSUMER_READING.
 */
static inline mcx__q_outcome_t mcx__spsc_reserve(const mcx__spsc_view_t *v)
{
  uint32_t pos = v->ring->tail; /* producer-owned */
  mcx__spsc_slot_t *s = mcx__spsc_at(v, pos);
  /* A1 — acquire: the consumer's reads of last lap's item happen before our
   * writes to the slot; pairs with R2 in mcx__spsc_get / mcx__spsc_take and
   * with R2-K in mcx__spsc_free_kept. */
  uint32_t w = mcx_load_acquire(&s->word);
  if (w != mcx__spsc_word(pos, MCX_SPSC_FREE))
    return w == mcx__spsc_word(pos - v->mask - 1, MCX_SPSC_RECEIVED) ? MCX_Q_FULL_BUT_CONSUMER_READING
                                                                      : MCX_Q_FULL;
  /* Relaxed: only a hint for a polling consumer (EMPTY_BUT_PRODUCER_INSERTING);
   * the item is published by R1. */
  mcx_store_relaxed(&s->word, mcx__spsc_word(pos, MCX_SPSC_RESERVED));
  return MCX_Q_OK;
}

/** Producer: publishes slot @p s, reserved for position @p pos (the tail). */
static inline __attribute__((always_inline)) void
mcx__spsc_publish(mcx__spsc_ring_t *r, mcx__spsc_slot_t *s, uint32_t pos, uint32_t meta,
                  uint64_t value)
{
  mcx_store_relaxed(&s->meta, meta);
  s->value = value;
  /* R1 — release: meta, value (and whatever the item refers to: a packet
   * buffer, or a packet ring's bytes in the slot) are visible before the
   * slot reads ALLOCATED; pairs with A2. */
  mcx_store_release(&s->word, mcx__spsc_word(pos, MCX_SPSC_ALLOCATED));
  r->tail = pos + 1;
}

/** Producer: publishes the reserved slot. */
static inline void mcx__spsc_commit(const mcx__spsc_view_t *v, uint32_t meta, uint64_t value)
{
  uint32_t pos = v->ring->tail;
  mcx__spsc_publish(v->ring, mcx__spsc_at(v, pos), pos, meta, value);
}

/** Producer: gives a reserved slot back unused. */
static inline void mcx__spsc_unreserve(const mcx__spsc_view_t *v)
{
  uint32_t pos = v->ring->tail;
  /* Relaxed: nothing was written that a consumer could read. */
  mcx_store_relaxed(&mcx__spsc_at(v, pos)->word, mcx__spsc_word(pos, MCX_SPSC_FREE));
}

/** Producer: reserve + commit. */
static inline mcx__q_outcome_t mcx__spsc_put(const mcx__spsc_view_t *v, uint32_t meta,
                                             uint64_t value)
{
  mcx__q_outcome_t o = mcx__spsc_reserve(v);
  if (o == MCX_Q_OK)
    mcx__spsc_commit(v, meta, value);
  return o;
}

/**
 * Consumer: takes the oldest item. With @p expect_meta != 0 an item whose
 * meta differs is left in place and MCX_Q_MISMATCH returned (its meta in
 * *meta).
 */
static inline mcx__q_outcome_t mcx__spsc_get(const mcx__spsc_view_t *v, uint32_t expect_meta,
                                             uint32_t *meta, uint64_t *value)
{
  uint32_t pos = mcx_load_relaxed(&v->ring->head); /* consumer-owned */
  mcx__spsc_slot_t *s = mcx__spsc_at(v, pos);
  /* A2 — acquire: the producer's writes of the item are visible once the slot
   * reads ALLOCATED; pairs with R1 in mcx__spsc_commit. */
  uint32_t w = mcx_load_acquire(&s->word);
  if (w != mcx__spsc_word(pos, MCX_SPSC_ALLOCATED))
    return w == mcx__spsc_word(pos, MCX_SPSC_RESERVED) ? MCX_Q_EMPTY_BUT_PRODUCER_INSERTING
                                                        : MCX_Q_EMPTY;
  uint32_t m = mcx_load_relaxed(&s->meta);
  if (expect_meta && m != expect_meta) {
    *meta = m;
    return MCX_Q_MISMATCH;
  }
  /* Relaxed: RECEIVED is a hint for a producer that finds the ring full. */
  mcx_store_relaxed(&s->word, mcx__spsc_word(pos, MCX_SPSC_RECEIVED));
  *meta = m;
  *value = s->value;
  /* R2 — release: our reads of the slot happen before the producer reuses it;
   * pairs with A1 in mcx__spsc_reserve. */
  mcx_store_release(&s->word, mcx__spsc_word(pos + v->mask + 1, MCX_SPSC_FREE));
  mcx_store_relaxed(&v->ring->head, pos + 1);
  return MCX_Q_OK;
}

/*
 * Scalars take a leaner protocol on the same ring (a channel's ring carries
 * one type for its connection's life, and every path of that type uses the
 * same functions). A scalar is written in one go, so:
 *   - the producer publishes with a single store: the slot's word is
 *     pos << 2 | the scalar's width code (log2 of its bytes, mcx__scl_wcode),
 *     no RESERVED state and no meta; it tells "full" by the consumer's count
 *     of items taken, which it reads only when its last copy of it says full;
 *   - the consumer compares the word with what it expects at its position
 *     for the width it asks for: one compare finds the item and checks its
 *     width. A word of its position with another code is a width mismatch;
 *     anything else (a word of an earlier lap) is an empty slot;
 *   - the consumer never writes a slot: it stores its position (`head`, on
 *     its own line) after each item.
 * The ring starts with every slot's word one lap behind (mcx__scl_init), so
 * no code of any width matches a slot not yet written. A slot's line only
 * travels from producer to consumer, once per item when the consumer keeps
 * up, once per four when it lags; the consumer's line travels only when the
 * ring is full. The producer refills by whole lines the consumer has left
 * (mcx__spsc_put1_refill), and the full path takes a free slot in the
 * consumer's line after a short wait, so nothing is held back from a
 * blocked sender.
 */

/** The width code of a scalar of @p width bytes (1, 2, 4 or 8): 0 to 3. */
static inline uint32_t mcx__scl_wcode(uint32_t width)
{
  return width == 8 ? 3u : width == 4 ? 2u : width == 2 ? 1u : 0u;
}

/** Resets a scalar ring (connect): every slot's word a lap behind. */
void mcx__scl_init(const mcx__spsc_view_t *v);
/** The scalars queued (the consumer's view, as mcx__spsc_count). */
uint32_t mcx__scl_count(const mcx__spsc_view_t *v);

/** Producer (scalars): publishes @p value of @p width bytes with one store,
 * or LIMIT when the producer has reached the position it may not fill
 * before it reads the consumer's count again (mcx__spsc_put1_refill, out of
 * line, so this step keeps to the producer's own line and needs no frame). */
static inline mcx__q_outcome_t mcx__spsc_put1(const mcx__spsc_view_t *v, uint32_t width,
                                              uint64_t value)
{
  mcx__spsc_ring_t *r = v->ring;
  uint32_t pos = r->tail; /* producer-owned */
  mcx__spsc_slot_t *s = &v->slots[pos & v->mask];
  if (__builtin_expect(pos == r->limit, 0))
    return MCX_Q_LIMIT;
  s->value = value;
  /* R1 — release: the value before the slot reads its position and width;
   * pairs with A2. */
  mcx_store_release(&s->word, pos << 2 | mcx__scl_wcode(width));
  r->tail = pos + 1;
  return MCX_Q_OK;
}

/** Scalar slots to a cache line (the unit the producer refills by). */
#define MCX_SCL_LINE 4u

/** Producer (scalars), after mcx__spsc_put1 gave LIMIT: reads the consumer's
 * count, moves the limit and publishes, or FULL. With @p line the producer
 * takes only whole lines the consumer has finished: the limit stops at the
 * start of the line the consumer is reading, and LINE says that slots are
 * free there and nowhere else (a stream then moves each line once per
 * lap: written by the producer, read by the consumer, instead of going back
 * and forth while both work in it). Without, every free slot counts. */
mcx__q_outcome_t mcx__spsc_put1_refill(const mcx__spsc_view_t *v, uint32_t width, uint64_t value,
                                       int line);

/** Producer (scalars): both steps, OK, FULL, or (@p line) LINE. */
static inline mcx__q_outcome_t mcx__spsc_put1_any(const mcx__spsc_view_t *v, uint32_t width,
                                                  uint64_t value, int line)
{
  mcx__q_outcome_t o = mcx__spsc_put1(v, width, value);
  return __builtin_expect(o == MCX_Q_LIMIT, 0) ? mcx__spsc_put1_refill(v, width, value, line) : o;
}

/** Producer (scalars): whole lines first (mcx__spsc_put1_refill); while the
 * only free slots are in the line the consumer reads, polls its count up to
 * @p polls times for it to finish that line, then takes one of them: OK
 * whenever a slot is free, else FULL. */
mcx__q_outcome_t mcx__spsc_put1_lines(const mcx__spsc_view_t *v, uint32_t width, uint64_t value,
                                      uint32_t polls);

/** Consumer (scalars): takes the oldest item if it has @p expect_width bytes
 * (0: any), its width in @p *width; MISMATCH (not consumed) when it has
 * another, EMPTY when there is none. */
static inline mcx__q_outcome_t mcx__spsc_get1(const mcx__spsc_view_t *v, uint32_t expect_width,
                                              uint32_t *width, uint64_t *value)
{
  mcx__spsc_ring_t *r = v->ring;
  uint32_t pos = mcx_load_relaxed(&r->head); /* consumer-owned */
  mcx__spsc_slot_t *s = &v->slots[pos & v->mask];
  /* A2 — acquire: pairs with R1 in mcx__spsc_put1. */
  uint32_t w = mcx_load_acquire(&s->word);
  if (__builtin_expect(!expect_width || w != (pos << 2 | mcx__scl_wcode(expect_width)), 0)) {
    if ((w ^ pos << 2) >> 2) /* not this position's: nothing published yet */
      return MCX_Q_EMPTY;
    *width = 1u << (w & 3);
    if (expect_width)
      return MCX_Q_MISMATCH;
  } else {
    *width = expect_width;
  }
  *value = s->value;
  /* The next line: when the ring holds more (a stream the consumer lags
   * behind), its transfer overlaps this item's work instead of stalling the
   * take after it. A hint: no fault past the ring's end, no order. */
  __builtin_prefetch((const void *)((uintptr_t)s + MCX_CACHELINE));
  /* R2-T — release: our reads of the slot happen before the producer reuses
   * it; pairs with A1-T. On our own line: a plain store. */
  mcx_store_release(&r->head, pos + 1);
  return MCX_Q_OK;
}

#endif
