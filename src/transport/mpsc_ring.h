/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file mpsc_ring.h
 * @brief Bounded multi-producer single-consumer ring of one-cache-line slots,
 * the data path of MCAPI messages (one ring per endpoint and priority).
 *
 * Each slot carries its own sequence word, so the signal travels with the
 * data: a hand-off costs one cache-line transfer (DESIGN.md 2.2). A slot's
 * life is the queue-entry state machine of the NBB paper:
 *
 *   FREE      seq == pos            the slot may be claimed for position pos
 *   RESERVED  tail moved past pos   a producer won the CAS on tail, is copying
 *   ALLOCATED seq == pos + 1        the message is published (R1)
 *   RECEIVED  reading == pos + 1    the consumer is copying it out
 *   FREE      seq == pos + cap      the consumer released it (R2) for the next lap
 *
 * The NBB outcomes follow from those states: FULL (the slot for pos still
 * holds last lap's message), FULL_BUT_CONSUMER_READING (... and the consumer
 * is copying it right now: retry at once), EMPTY (nothing reserved), and
 * EMPTY_BUT_PRODUCER_INSERTING (reserved but not yet published: retry at once).
 *
 * The tail word holds [63] CLOSED, [62:48] the ring's incarnation (epoch,
 * bumped by every create and re-size), [47:0] the position, so a producer that
 * read the endpoint before a delete, re-create or re-size fails its CAS instead
 * of writing into the new incarnation with a stale mask.
 * Positions are 48-bit and compared modulo 2^48.
 *
 * Memory layout: the ring header and the slots live in the domain partition
 * and are addressed by offsets by the caller; this header only sees pointers.
 */
#ifndef MCX_TRANSPORT_MPSC_RING_H
#define MCX_TRANSPORT_MPSC_RING_H

#include <stdint.h>
#include <string.h>

#include "common/mcx_atomic.h"
#include "mca_config.h"
#include "transport/buf_pool.h"

#define MCX_RING_CLOSED (UINT64_C(1) << 63)
#define MCX_RING_GEN_SHIFT 48
#define MCX_RING_GEN_MASK UINT64_C(0x7fff)
#define MCX_RING_POS_MASK ((UINT64_C(1) << 48) - 1)

/** `size` of a slot whose reserving sender died: skipped by the consumer. */
#define MCX_SLOT_TOMBSTONE 0xffffffffu

/** Inline payload bytes of a slot; larger messages use a buffer of the
 * domain's message pool, whose index the slot carries. */
#define MCX_SLOT_INLINE 48

typedef struct mcx__msg_slot {
  mcx_atomic_u64 seq; /* written by the producer (R1) and the consumer (R2) in turn */
  uint32_t size;      /* payload size, written by the producer before R1 */
  uint32_t unused;    /* not written: keeps the payload at offset 16 */
  uint8_t data[MCX_SLOT_INLINE];
} mcx__msg_slot_t;

_Static_assert(sizeof(mcx__msg_slot_t) == MCX_CACHELINE, "a slot is one cache line");

typedef struct mcx__mpsc_ring {
  /* Written by producers only (CAS); read by the consumer when it classifies
   * an empty ring and by delete. */
  MCX_ALIGNED_LINE mcx_atomic_u64 tail;
  /* Written by the consumer only; read by producers on the full path. The
   * head is also the count of messages taken since the ring's last reset. */
  MCX_ALIGNED_LINE mcx_atomic_u64 head;
  mcx_atomic_u64 reading; /* pos+1 of the slot being copied out (a hint) */
  mcx_atomic_u32 hwm;     /* high-water mark, sampled (mcx__mpsc_sample_depth; mca domains) */
  mcx_atomic_u32 hwm_quiet; /* samples to skip before the next read of tail */
} mcx__mpsc_ring_t;

/**
 * The domain's message payload pool, in process memory (checked at attach):
 * buffers for messages larger than MCX_SLOT_INLINE, shared by every ring of
 * the domain, as the reference implementation shares one buffer pool.
 *
 * Each buffer has a state word in the partition that says who may free it:
 *   0                   free (on the pool's stack)
 *   node slot + 1       held by that node: a sender filling it, a receiver
 *                       holding it in place; freed by the dead-node sweep
 *   tag | pos (>= 2^48) queued in the slot of ring `tag` at position `pos`
 *                       (the in-flight record's value); freed by the
 *                       receiver, by the ring's close, or with a tombstone
 * The state word is written by the buffer's current holder only. A buffer
 * is freed only by whoever finds the state it expects there, so an index
 * read from a slot (shared memory is input) is never freed twice.
 */
typedef struct mcx__mpool {
  mcx__pool_view_t pool;
  mcx_atomic_u64 *state; /* state[b] */
  uint8_t *bufs;         /* buffer b at bufs + b * stride */
  uint32_t stride;       /* bytes per buffer (>= the largest message) */
} mcx__mpool_t;

/** The state of a buffer held by node slot @p node_slot. */
#define MCX_MBUF_HELD(node_slot) ((uint64_t)(node_slot) + 1)

static inline uint8_t *mcx__mpool_buf(const mcx__mpool_t *mp, uint32_t b)
{
  return mp->bufs + (size_t)b * mp->stride;
}

/** Frees buffer @p b, whose state its caller owns. The last use of its
 * contents happens before (R-P2 in mcx__pool_put). */
static inline void mcx__mpool_free(const mcx__mpool_t *mp, uint32_t b)
{
  mcx_store_relaxed(&mp->state[b], 0); /* ordered before the push by its release CAS */
  mcx__pool_put(&mp->pool, b);
}

/** The buffer index a slot carries for a message larger than MCX_SLOT_INLINE. */
static inline uint32_t mcx__slot_buf(const mcx__msg_slot_t *s)
{
  uint32_t b;
  memcpy(&b, s->data, sizeof b);
  return b;
}

/**
 * A delivery receipt (mcx_msg_send_receipted): a word that a send sets in
 * the same step as it queues its message, so a sender killed at any point
 * leaves either both the message queued and `done` at the send's value, or
 * neither, once the dead-node sweep has looked (settle_receipts, recovery.c).
 *
 * The sender, after its reservation and before R1, names the send in
 * `pend_rec` (its in-flight record, tag | pos) with `pend_value`; after R1
 * it stores `done` and clears `pend_rec`. The sweep of a dead sender that
 * left `pend_rec` set decides from the reservation's fate: a tombstone (it
 * was not published) drops the pending value, a published slot makes it
 * `done`. One sender at a time per receipt; the entry lives in the
 * partition, so every field read from it is input.
 */
typedef struct mcx__receipt {
  MCX_ALIGNED_LINE mcx_atomic_u64 key; /* 0: free; written under the admin lock */
  mcx_atomic_u64 done;                 /* the value of the last send that was queued */
  mcx_atomic_u64 pend_value;           /* the value of the send under way */
  mcx_atomic_u64 pend_rec;             /* its in-flight record (tag | pos), 0: none */
  mcx_atomic_u32 pend_owner;           /* the node slot of its sender */
  mcx_atomic_u32 gen;                  /* bumped by every open of a free entry and delete */
} mcx__receipt_t;

/** What a receipted send passes to mcx__mpsc_enqueue (NULL for the others). */
typedef struct mcx__mpsc_commit {
  mcx__receipt_t *rc;
  uint64_t value;
  uint32_t owner;
  /* Called, when set, at each step 0..4 of the receipt's protocol: the
   * crash tests stop a sender there (mcx__receipt_test_hook). */
  void (*hook)(int step);
} mcx__mpsc_commit_t;

#define MCX_RC_STEP(cm, n)                                                                         \
  do {                                                                                             \
    if ((cm)->hook)                                                                                \
      (cm)->hook(n);                                                                               \
  } while (0)

/** Where a ring's pieces are, resolved from the partition. */
typedef struct mcx__ring_view {
  mcx__mpsc_ring_t *ring;
  mcx__msg_slot_t *slots;
  const mcx__mpool_t *mp; /* the domain's message pool (payloads > MCX_SLOT_INLINE) */
  uint64_t tag;           /* (ring number + 1) << 48: a queued buffer's state is tag | pos */
  uint32_t mask;          /* capacity - 1 */
} mcx__ring_view_t;

/** Whether buffer @p b is the one queued in @p v's slot at position @p pos
 * (a valid index whose state says so). */
static inline int mcx__mbuf_queued(const mcx__ring_view_t *v, uint32_t b, uint64_t pos)
{
  return b < v->mp->pool.n && mcx_load_relaxed(&v->mp->state[b]) == (v->tag | pos);
}

typedef enum mcx__ring_outcome {
  MCX_RING_OK = 0,
  MCX_RING_FULL,
  MCX_RING_FULL_BUT_CONSUMER_READING,
  MCX_RING_EMPTY,
  MCX_RING_EMPTY_BUT_PRODUCER_INSERTING,
  MCX_RING_CLOSED_OR_STALE, /* deleted, or the generation moved on */
  MCX_RING_TRUNCATED,       /* dequeued, but the payload did not fit */
  MCX_RING_CORRUPT,         /* a slot with an impossible size: released, nothing copied */
} mcx__ring_outcome_t;

/** Copies @p n <= MCX_SLOT_INLINE bytes with fixed-size moves (two that may
 * overlap), inline: no library call and no size loop for small payloads. */
static inline __attribute__((always_inline)) void mcx__copy_small(void *dst, const void *src,
                                                                   size_t n)
{
  unsigned char *d = dst;
  const unsigned char *s = src;
  /* 16 to 32 bytes first, with one compare (n - 16 wraps for n < 16): the
   * first 16 and the last 16. */
  if (n - 16 <= 16) {
    memcpy(d, s, 16);
    memcpy(d + n - 16, s + n - 16, 16);
  } else if (n > 32) {
    /* 33 to 48 (n <= 48): the first 32 and the last 16. */
    memcpy(d, s, 16);
    memcpy(d + 16, s + 16, 16);
    memcpy(d + n - 16, s + n - 16, 16);
  } else if (n >= 8) {
    memcpy(d, s, 8);
    memcpy(d + n - 8, s + n - 8, 8);
  } else if (n >= 4) {
    memcpy(d, s, 4);
    memcpy(d + n - 4, s + n - 4, 4);
  } else if (n) {
    d[0] = s[0];
    d[n / 2] = s[n / 2];
    d[n - 1] = s[n - 1];
  }
}
_Static_assert(MCX_SLOT_INLINE <= 48, "mcx__copy_small covers up to 48 bytes");

static inline int64_t mcx__pos_diff(uint64_t a, uint64_t b)
{
  return (int64_t)((a - b) << 16) >> 16;
}

/** Resets a ring for incarnation @p epoch (no concurrent users). */
void mcx__mpsc_init(const mcx__ring_view_t *v, uint32_t epoch);

/**
 * Closes the ring: producers fail from now on. Waits (yielding) until every
 * reserved slot is published, so nothing writes into the ring afterwards;
 * while a slot stays unpublished it calls @p stuck(ctx, pos) now and then:
 * the callback publishes tombstones for slots of senders that died, and
 * returns nonzero while a live sender still holds the reservation of @p pos.
 * When it returns 0 no one will publish the slot (the positions were
 * corrupted by a process of the domain: shared memory is input), and close
 * stops waiting. Positions further apart than the ring's capacity are
 * corrupt too: nothing is drained then.
 * @return the number of messages that were queued (now dropped).
 */
uint32_t mcx__mpsc_close(const mcx__ring_view_t *v, int (*stuck)(void *, uint64_t), void *ctx);

/**
 * Publishes a tombstone at @p pos if that position is reserved but not
 * published (its sender died between the CAS and R1). The caller has made
 * sure the reserving sender is dead. @return 1 if a tombstone was written.
 */
int mcx__mpsc_tombstone(const mcx__ring_view_t *v, uint64_t pos);

/** Whether position head is reserved but unpublished (a sender is, or was, inside). */
int mcx__mpsc_stuck(const mcx__ring_view_t *v);

/** Published messages (a snapshot; consumer side or diagnostics). */
uint32_t mcx__mpsc_count(const mcx__ring_view_t *v);

/**
 * Tries to enqueue @p size bytes. Multi-producer safe.
 * @param data the payload when @p size <= MCX_SLOT_INLINE
 * @param big for a larger payload, the pool buffer the caller filled and
 *        holds (state MCX_MBUF_HELD); on MCX_RING_OK it is queued (its
 *        state becomes tag | pos) and no longer the caller's
 * @param intent the sending node's in-flight record (see mcx__node_t), or NULL
 * @param tag (ring number + 1) << 48, identifying this ring in @p intent
 * @param cm a receipt to set in the same step as R1 (see mcx__receipt_t), or
 *        NULL (a constant NULL compiles the steps away)
 */
static inline __attribute__((always_inline)) mcx__ring_outcome_t mcx__mpsc_enqueue(const mcx__ring_view_t *v, uint32_t epoch,
                                                    const void *data, uint32_t size,
                                                    uint32_t big, mcx_atomic_u64 *intent, uint64_t tag,
                                                    const mcx__mpsc_commit_t *cm)
{
  mcx__mpsc_ring_t *r = v->ring;
  /* A0 — acquire: a tail written by mcx__mpsc_init (R0) comes with the slots'
   * reset sequence words. Free on x86; the CAS below validates the value. */
  uint64_t t = mcx_load_acquire(&r->tail);
  uint64_t pos;
  mcx__msg_slot_t *s;
  for (;;) {
    if ((t & MCX_RING_CLOSED) || ((t >> MCX_RING_GEN_SHIFT) & MCX_RING_GEN_MASK) != epoch)
      return MCX_RING_CLOSED_OR_STALE;
    pos = t & MCX_RING_POS_MASK;
    s = &v->slots[pos & v->mask];
    /* A1 — acquire: the consumer's reads of last lap's payload happen before
     * our writes below; pairs with R2 in mcx__mpsc_dequeue. */
    uint64_t seq = mcx_load_acquire(&s->seq);
    int64_t d = mcx__pos_diff(seq, pos);
    if (d == 0) {
      uint64_t next = (t & ~MCX_RING_POS_MASK) | ((pos + 1) & MCX_RING_POS_MASK);
      /* Our own line; relaxed: the CAS below (release) orders it before the
       * reservation becomes visible, for crash recovery (domain.c). */
      if (intent)
        mcx_store_relaxed(intent, tag | pos);
      /* Winning the CAS makes the slot ours (no other producer can claim pos);
       * what we publish is ordered by R1, what we overwrite by A1. R3 —
       * release: the intent record before the reservation; pairs with the
       * acquire loads of recovery. Acquire for the failure path, which
       * re-reads tail as A0 does. Both free on x86. */
      if (mcx_cas_acq_rel(&r->tail, &t, next))
        break;
    } else if (d < 0) {
      /* The slot still holds the message of position pos - cap. */
      uint64_t rd = mcx_load_relaxed(&r->reading); /* hint only: chooses retry vs back-off */
      uint64_t prev = (pos - v->mask) & MCX_RING_POS_MASK; /* (pos - cap) + 1 */
      return rd == prev ? MCX_RING_FULL_BUT_CONSUMER_READING : MCX_RING_FULL;
    } else {
      t = mcx_load_acquire(&r->tail); /* another producer took pos; A0 again */
    }
  }
  s->size = size;
  if (size == 0)
    ; /* a NULL buffer is legal for an empty message */
  else if (size <= MCX_SLOT_INLINE)
    mcx__copy_small(s->data, data, size);
  else {
    memcpy(s->data, &big, sizeof big);
    /* The buffer is the ring's from now on; relaxed: R1 publishes it with
     * the slot. A sender that dies before R1 leaves its reservation to the
     * tombstone, which frees the buffer by this state (mcx__mpsc_tombstone). */
    mcx_store_relaxed(&v->mp->state[big], tag | pos);
  }
  if (cm) {
    MCX_RC_STEP(cm, 0);
    mcx_store_relaxed(&cm->rc->pend_value, cm->value);
    mcx_store_relaxed(&cm->rc->pend_owner, cm->owner);
    /* R-RC1 — release: value and owner before the pending record; pairs
     * with A-RC1 in settle_receipts (recovery.c). Before R1, so a published
     * slot always has its receipt named. */
    mcx_store_release(&cm->rc->pend_rec, tag | pos);
    MCX_RC_STEP(cm, 1);
  }
  /* R1 — release: payload and size are visible before the slot reads as
   * ALLOCATED; pairs with A2 in mcx__mpsc_dequeue. A plain store: the
   * caller's mcx__wp_notify() orders it before its read of the sleepers
   * (F-W2, light where the sleeper's heavy barrier stands in for it). */
  mcx_store_release(&s->seq, (pos + 1) & MCX_RING_POS_MASK);
  if (cm)
    MCX_RC_STEP(cm, 2);
  if (intent)
    mcx_store_release(intent, 0); /* after R1: recovery never sees "none" too early */
  if (cm) {
    MCX_RC_STEP(cm, 3);
    mcx_store_relaxed(&cm->rc->done, cm->value);
    MCX_RC_STEP(cm, 4);
    /* R-RC2 — release: `done` before the record is cleared; pairs with A-RC1. */
    mcx_store_release(&cm->rc->pend_rec, 0);
  }
  return MCX_RING_OK;
}

/**
 * The message fast path's enqueue: mcx__mpsc_enqueue() for a payload of at
 * most MCX_SLOT_INLINE bytes with an in-flight record and no receipt, in one
 * attempt and straight-line code (no retry loop whose values the compiler
 * would keep on the stack), in two halves, so that what the second needs is
 * read after the first and not kept in registers across it. The same
 * protocol and pairs as mcx__mpsc_enqueue: A0, A1, R3 here, R1 in
 * mcx__mpsc_publish_small().
 *
 * This half reserves the slot of the tail's position: 1, with the slot in
 * @p *slot_out (RESERVED: the caller must publish it) and the position in
 * @p *pos_out. Any other case, a lost CAS included, returns 0 having
 * reserved nothing, and
 * the caller takes the full path, which retries and tells the cases apart.
 * @p ngen is the ring's epoch << MCX_RING_GEN_SHIFT, negated.
 */
static inline __attribute__((always_inline)) int
mcx__mpsc_reserve_once(const mcx__ring_view_t *v, uint64_t ngen, mcx_atomic_u64 *intent,
                       mcx__msg_slot_t **slot_out, uint64_t *pos_out)
{
  uint64_t t = mcx_load_acquire(&v->ring->tail); /* A0 */
  /* t + ngen (t - gen) is the position when the tail carries that epoch and
   * no CLOSED bit; another epoch or CLOSED (above it) leaves a value of 2^48
   * or more, and a position about to wrap (the full path handles the wrap)
   * is the mask itself: one test. */
  uint64_t pos = t + ngen;
  if (__builtin_expect(pos >= MCX_RING_POS_MASK, 0))
    return 0;
  mcx__msg_slot_t *s = &v->slots[pos & v->mask];
  /* A1 — acquire: pairs with R2 in mcx__mpsc_dequeue (last lap's reads). The
   * slot is free for pos exactly when its word is pos. */
  if (__builtin_expect(!mcx_eq_acquire_u64(&s->seq, pos), 0))
    return 0;
  mcx_store_relaxed(intent, v->tag | pos); /* ordered before the reservation by R3 */
  /* R3 — release: pairs with recovery's acquire loads, as in mcx__mpsc_enqueue.
   * The ring is read again (after A1): nothing of the view is kept across. */
  if (__builtin_expect(!mcx_cas_acq_rel(&v->ring->tail, &t, t + 1), 0))
    return 0; /* another producer took pos: the full path retries */
  *slot_out = s;
  *pos_out = pos;
  return 1;
}

/** The second half of the fast path's enqueue: fills slot @p s, reserved at
 * position @p pos by mcx__mpsc_reserve_once(), with @p size <=
 * MCX_SLOT_INLINE bytes, publishes it (R1) and clears @p intent. */
static inline __attribute__((always_inline)) void
mcx__mpsc_publish_small(mcx__msg_slot_t *s, uint64_t pos, const void *data, size_t size,
                        mcx_atomic_u64 *intent)
{
  s->size = (uint32_t)size;
  mcx__copy_small(s->data, data, size);
  /* R1 — release: pairs with A2 in mcx__mpsc_dequeue (see mcx__mpsc_enqueue). */
  mcx_store_release(&s->seq, pos + 1);
  mcx_store_release(intent, 0); /* after R1: recovery never sees "none" too early */
}

/** The second half for a payload in pool buffer @p big (held by the caller,
 * state MCX_MBUF_HELD, filled after the reservation): slot @p s, reserved
 * at @p pos by mcx__mpsc_reserve_once() on @p v, names the buffer, which
 * becomes the ring's (its state tag | pos, as in mcx__mpsc_enqueue), and is
 * published (R1); @p intent is cleared. A sender that dies between the two
 * halves leaves the reservation to the tombstone and the buffer, still
 * held, to the dead-node sweep. */
static inline __attribute__((always_inline)) void
mcx__mpsc_publish_big(const mcx__ring_view_t *v, mcx__msg_slot_t *s, uint64_t pos,
                      uint32_t size, uint32_t big, mcx_atomic_u64 *intent)
{
  s->size = size;
  memcpy(s->data, &big, sizeof big);
  /* Relaxed: R1 publishes it with the slot (see mcx__mpsc_enqueue). */
  mcx_store_relaxed(&v->mp->state[big], v->tag | pos);
  /* R1 — release: pairs with A2 in mcx__mpsc_dequeue (see mcx__mpsc_enqueue). */
  mcx_store_release(&s->seq, pos + 1);
  mcx_store_release(intent, 0); /* after R1: recovery never sees "none" too early */
}

/* A consumer samples its queue's depth at every 64th take; while the last
 * depth it read was 1 (no backlog), it reads the producers' tail line only
 * at every MCX_HWM_QUIET-th sample, so once in 1024 takes. That read takes
 * the line from the sender, whose next CAS then waits for it back: in a
 * ping-pong, both sides pay a line transfer on the critical path. */
#define MCX_HWM_QUIET 16u

/** The queue's depth for the high-water mark, seen by the consumer at head
 * @p h (the message just taken counts), at every 64th take: read from the
 * producers' tail at every sample while the last read saw a backlog, at
 * every MCX_HWM_QUIET-th while it saw none. The first sample after a
 * reset reads it. Relaxed: a statistic; consumer-owned words, bounded
 * where used (positions and counts from another process are input). */
static inline void mcx__mpsc_sample_depth(const mcx__ring_view_t *v, uint64_t h)
{
  mcx__mpsc_ring_t *r = v->ring;
  uint32_t quiet = mcx_load_relaxed(&r->hwm_quiet);
  if (quiet != 0) {
    mcx_store_relaxed(&r->hwm_quiet, (quiet < MCX_HWM_QUIET ? quiet : MCX_HWM_QUIET) - 1);
    return;
  }
  int64_t depth = mcx__pos_diff(mcx_load_relaxed(&r->tail) & MCX_RING_POS_MASK, h) + 1;
  if (depth > (int64_t)v->mask + 1)
    depth = (int64_t)v->mask + 1;
  if (depth > (int64_t)mcx_load_relaxed(&r->hwm))
    mcx_store_relaxed(&r->hwm, (uint32_t)depth);
  mcx_store_relaxed(&r->hwm_quiet, depth > 1 ? 0 : MCX_HWM_QUIET - 1);
}

/**
 * Takes the oldest message without copying it (mcx_msg_recv_inplace): on
 * MCX_RING_OK, @p *data points at its payload in the slot, or in its pool
 * buffer @p *big (UINT32_MAX: none), which is then the caller's: its state
 * becomes @p holder (MCX_MBUF_HELD) before the head moves, so a receiver
 * that dies holding it leaves it to the dead-node sweep. @p *size is its
 * size, and the slot stays the receiver's until
 * mcx__mpsc_give_back(@p slot, @p *give_back). The head moves on, so later
 * messages can be taken meanwhile; a producer that laps round to the held
 * slot finds the ring full. Single consumer. EMPTY or CORRUPT otherwise.
 */
static inline mcx__ring_outcome_t mcx__mpsc_take(const mcx__ring_view_t *v, const void **data,
                                                 size_t *size, mcx__msg_slot_t **slot,
                                                 uint64_t *give_back, uint64_t holder,
                                                 uint32_t *big)
{
  mcx__mpsc_ring_t *r = v->ring;
  uint64_t h = mcx_load_relaxed(&r->head); /* consumer-owned */
  mcx__msg_slot_t *s;
  uint64_t want;
  for (;;) {
    s = &v->slots[h & v->mask];
    /* A2 — acquire: pairs with R1 in mcx__mpsc_enqueue, as in dequeue. */
    if (mcx_load_acquire(&s->seq) != (want = (h + 1) & MCX_RING_POS_MASK))
      return MCX_RING_EMPTY;
    if (s->size != MCX_SLOT_TOMBSTONE)
      break;
    mcx_store_release(&s->seq, (h + v->mask + 1) & MCX_RING_POS_MASK); /* R2, pairs with A1 */
    h = want;
    mcx_store_relaxed(&r->head, h);
  }
  uint32_t n = s->size;
  if (n > MCX_SLOT_INLINE && (n > v->mp->stride || !mcx__mbuf_queued(v, mcx__slot_buf(s), h))) {
    /* Shared memory is input: a size or buffer no sender could have written. */
    mcx_store_release(&s->seq, (h + v->mask + 1) & MCX_RING_POS_MASK); /* R2, pairs with A1 */
    mcx_store_relaxed(&r->head, want);
    return MCX_RING_CORRUPT;
  }
  *big = UINT32_MAX;
  *data = s->data;
  if (n > MCX_SLOT_INLINE) {
    *big = mcx__slot_buf(s);
    *data = mcx__mpool_buf(v->mp, *big);
    mcx_store_relaxed(&v->mp->state[*big], holder); /* ours now; the owner's word */
  }
  *size = n;
  *slot = s;
  *give_back = (h + v->mask + 1) & MCX_RING_POS_MASK;
  mcx_store_relaxed(&r->head, want); /* the slot itself stays ours until given back */
  if ((want & 63) == 0)
    mcx__mpsc_sample_depth(v, want);
  return MCX_RING_OK;
}

/** Whether the oldest position of ring @p v reads published (a message or
 * a tombstone): A2 — acquire, pairs with R1, so what its sender did before
 * is visible after a 1. Single consumer. */
static inline int mcx__mpsc_ready(const mcx__ring_view_t *v)
{
  uint64_t h = mcx_load_relaxed(&v->ring->head); /* consumer-owned */
  return mcx_load_acquire(&v->slots[h & v->mask].seq) == ((h + 1) & MCX_RING_POS_MASK);
}

/** Whether a producer of ring @p v holds a reservation it has not published
 * yet (the classification of mcx__mpsc_dequeue's empty outcomes). Relaxed:
 * a hint that decides between retrying and backing off. */
static inline int mcx__mpsc_inserting(const mcx__ring_view_t *v)
{
  return (mcx_load_relaxed(&v->ring->tail) & MCX_RING_POS_MASK) !=
         mcx_load_relaxed(&v->ring->head);
}

/** mcx__mpsc_dequeue_small()'s outcome when the oldest message is there
 * but is not a small one that fits (or is a tombstone): the caller runs
 * mcx__mpsc_dequeue(), which handles it. */
#define MCX_RING_NOT_SMALL MCX_RING_EMPTY_BUT_PRODUCER_INSERTING

/**
 * The message fast path's dequeue: mcx__mpsc_dequeue() with classify 0 for
 * the common message, one of at most MCX_SLOT_INLINE bytes that fits @p cap
 * bytes, in straight-line code. MCX_RING_OK (taken), MCX_RING_EMPTY, or
 * MCX_RING_NOT_SMALL (or the gate's outcome) having changed nothing. The
 * same pairs: A2, R2.
 */
static inline __attribute__((always_inline)) mcx__ring_outcome_t
mcx__mpsc_dequeue_small(const mcx__ring_view_t *v, void *buf, size_t cap, size_t *out_size,
                        mcx__ring_outcome_t (*gate)(const void *), const void *gate_ctx)
{
  uint64_t h = mcx_load_relaxed(&v->ring->head); /* consumer-owned */
  mcx__msg_slot_t *s = &v->slots[h & v->mask];
  /* Not reduced modulo 2^48: at the positions' wrap (h + 1 == 2^48, once in
   * 2^48 messages) no sequence word equals it, the ring reads as EMPTY here,
   * and the caller's full path (mcx__mpsc_dequeue) takes the message. */
  uint64_t want = h + 1;
  /* A2 — acquire: pairs with R1 in mcx__mpsc_enqueue / _publish_small. */
  if (!mcx_eq_acquire_u64(&s->seq, want))
    return MCX_RING_EMPTY;
  /* With @p gate: taken only if @p gate(@p gate_ctx) says MCX_RING_OK, asked
   * after A2 (so it sees what the message's sender did before it), else
   * its outcome, nothing taken. */
  if (gate) {
    mcx__ring_outcome_t g = gate(gate_ctx);
    if (__builtin_expect(g != MCX_RING_OK, 0))
      return g;
  }
  size_t size = s->size; /* a tombstone's is above MCX_SLOT_INLINE */
  /* Against the capacity, then against MCX_SLOT_INLINE only outside 16 to
   * 32 bytes, the copy's first class (mcx__copy_small), whose one compare
   * then serves both. Not one test against min(cap, MCX_SLOT_INLINE): the
   * compiler's merged form takes a register more, which the copy lacks. */
  MCX_OPAQUE(size);
  if (__builtin_expect(size > cap, 0))
    return MCX_RING_NOT_SMALL;
  if (size - 16 > 16 && __builtin_expect(size > MCX_SLOT_INLINE, 0))
    return MCX_RING_NOT_SMALL;
  *out_size = size; /* before the copy: one register fewer across it */
  /* No `reading` hint: a copy of at most MCX_SLOT_INLINE bytes is over
   * before a producer that finds the ring full could use it (it waits as
   * for FULL, spinning first). */
  mcx__copy_small(buf, s->data, size);
  /* R2 — release: our reads of the payload before a producer reuses the
   * slot; pairs with A1 in mcx__mpsc_enqueue / _reserve_once. */
  mcx_store_release(&s->seq, (want + v->mask) & MCX_RING_POS_MASK);
  /* The ring's address read again (not kept in a register across the
   * gate and the copy, which need them). */
  mcx_store_relaxed(&v->ring->head, want); /* consumer-owned; others read it as a hint */
  if (__builtin_expect((want & 63) == 0, 0))
    mcx__mpsc_sample_depth(v, want);
  return MCX_RING_OK;
}

/** Ends a mcx__mpsc_take(): R2 — release: our reads of the payload happen
 * before a producer reuses the slot; pairs with A1 in mcx__mpsc_enqueue. */
static inline void mcx__mpsc_give_back(mcx__msg_slot_t *slot, uint64_t give_back)
{
  mcx_store_release(&slot->seq, give_back);
}

/**
 * Tries to dequeue into @p buf (capacity @p cap_bytes). Single consumer.
 * @param classify when 0, an empty ring returns MCX_RING_EMPTY without
 *        reading the producers' tail line (keeps polling to one line); when
 *        1, tells EMPTY from EMPTY_BUT_PRODUCER_INSERTING.
 * @param out_size receives the message's full size.
 * A message larger than @p cap_bytes is consumed, truncated, and reported as
 * MCX_RING_TRUNCATED.
 */
static inline __attribute__((always_inline)) mcx__ring_outcome_t mcx__mpsc_dequeue(const mcx__ring_view_t *v, void *buf,
                                                    size_t cap_bytes, size_t *out_size,
                                                    int classify)
{
  mcx__mpsc_ring_t *r = v->ring;
  /* Relaxed: head is written only by this (the single) consumer. */
  uint64_t h = mcx_load_relaxed(&r->head);
  mcx__msg_slot_t *s;
  uint64_t want;
  for (;;) {
    s = &v->slots[h & v->mask];
    /* A2 — acquire: the producer's payload writes are visible once the slot
     * reads as ALLOCATED; pairs with R1 in mcx__mpsc_enqueue. */
    uint64_t seq = mcx_load_acquire(&s->seq);
    want = (h + 1) & MCX_RING_POS_MASK;
    if (seq != want) {
      if (!classify)
        return MCX_RING_EMPTY;
      /* Relaxed: a hint that decides between retrying and backing off. */
      uint64_t t = mcx_load_relaxed(&r->tail) & MCX_RING_POS_MASK;
      return t != h ? MCX_RING_EMPTY_BUT_PRODUCER_INSERTING : MCX_RING_EMPTY;
    }
    if (s->size != MCX_SLOT_TOMBSTONE)
      break;
    /* A dead sender's slot: release it (R2, pairs with A1) and look at the next one. */
    mcx_store_release(&s->seq, (h + v->mask + 1) & MCX_RING_POS_MASK);
    h = want;
    mcx_store_relaxed(&r->head, h);
  }
  mcx_store_relaxed(&r->reading, want); /* RECEIVED; a hint for producers */
  uint32_t size = s->size;
  size_t n = size <= cap_bytes ? size : cap_bytes;
  if (size <= MCX_SLOT_INLINE)
    mcx__copy_small(buf, s->data, n);
  else {
    uint32_t b = mcx__slot_buf(s);
    if (__builtin_expect(size > v->mp->stride || !mcx__mbuf_queued(v, b, h), 0)) {
      /* Shared memory is input: a size or buffer no sender could have
       * written. The slot is released and the message reported lost, never
       * read past its buffer; a buffer that is not this slot's is not freed. */
      mcx_store_release(&s->seq, (h + v->mask + 1) & MCX_RING_POS_MASK); /* R2, pairs with A1 */
      mcx_store_relaxed(&r->head, want);
      *out_size = 0;
      return MCX_RING_CORRUPT;
    }
    memcpy(buf, mcx__mpool_buf(v->mp, b), n);
    /* Freed before the slot: a receiver that dies in between leaves a slot
     * whose buffer is no longer in its queued state, which close skips. */
    mcx__mpool_free(v->mp, b);
  }
  /* R2 — release: our reads of the payload happen before a producer reuses
   * the slot; pairs with A1 in mcx__mpsc_enqueue. The sender wake-up's
   * ordering is the caller's mcx__wp_notify() (F-W2), as for R1. */
  mcx_store_release(&s->seq, (h + v->mask + 1) & MCX_RING_POS_MASK);
  mcx_store_relaxed(&r->head, want); /* consumer-owned; others read it as a hint */
  *out_size = size;
  if (__builtin_expect((want & 63) == 0, 0))
    mcx__mpsc_sample_depth(v, want);
  return n == size ? MCX_RING_OK : MCX_RING_TRUNCATED;
}

#endif
