/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file buf_pool.h
 * @brief The domain's packet buffer pool: a lock-free stack of buffer indices
 * in the partition (Treiber stack, ABA-tagged head), shared by every channel
 * of the domain, as the reference implementation has one pool per domain.
 *
 * A packet channel's slots own buffers of this pool while their connection
 * lasts (runtime/chan_buf.c), taken once per slot; on the per-item path a channel keeps
 * the buffers its receiver releases on its own return ring (single
 * producer, single consumer: no locked instruction) and reuses them first.
 * The pool is touched when a slot takes its buffer, when that ring is empty
 * (a burst, the start of a connection) and when buffers outlive their
 * connection (released after a close, left queued or owned at tear-down,
 * held by a node that died).
 *
 * The pool lives in shared memory that another process may have corrupted:
 * every index read from it is checked against the geometry copied into
 * process memory (the view), so a bad link ends the pop (ENOMEM) instead of
 * addressing memory outside the pool.
 */
#ifndef MCX_TRANSPORT_BUF_POOL_H
#define MCX_TRANSPORT_BUF_POOL_H

#include <stdint.h>

#include "common/mcx_atomic.h"
#include "common/mcx_err.h"

/** Pool header: the head word (tag << 32 | index + 1; 0 = empty). */
typedef struct mcx__pool_hdr {
  MCX_ALIGNED_LINE mcx_atomic_u64 head; /* CAS by every sender and releaser */
} mcx__pool_hdr_t;

/** Where the pool's pieces are, in process memory (checked at attach). */
typedef struct mcx__pool_view {
  mcx__pool_hdr_t *hdr;
  mcx_atomic_u32 *next; /* next[b]: index + 1 of the buffer below b on the stack */
  uint32_t n;           /* buffers */
} mcx__pool_view_t;

/** Locates a pool laid out at @p off_meta of a partition at @p base: the
 * header line, @p nbufs u64 state words (returned in @p *state: who holds
 * each buffer, as its user defines), then @p nbufs u32 links. */
static inline void mcx__pool_locate(uint8_t *base, uint64_t off_meta, uint32_t nbufs,
                                    mcx__pool_view_t *v, mcx_atomic_u64 **state)
{
  v->hdr = (mcx__pool_hdr_t *)(base + off_meta);
  *state = (mcx_atomic_u64 *)(base + off_meta + sizeof(mcx__pool_hdr_t));
  v->next = (mcx_atomic_u32 *)(base + off_meta + sizeof(mcx__pool_hdr_t) + (size_t)nbufs * 8);
  v->n = nbufs;
}

/** Pushes buffer @p b (caller owns it; its last use happens before). */
static inline void mcx__pool_put(const mcx__pool_view_t *v, uint32_t b)
{
  uint64_t old = mcx_load_relaxed(&v->hdr->head);
  for (;;) {
    mcx_store_relaxed(&v->next[b], (uint32_t)old); /* published by the CAS below */
    uint64_t nw = ((old >> 32) + 1) << 32 | (b + 1);
    /* R-P2 — release: the link and our last writes to the buffer happen
     * before another thread pops it; pairs with A-P2 in mcx__pool_get. */
    if (mcx_cas_release(&v->hdr->head, &old, nw))
      return;
  }
}

/** Pops a buffer into @p b. @return MCX_OK or MCX_ENOMEM (empty or corrupt). */
static inline int mcx__pool_get(const mcx__pool_view_t *v, uint32_t *b)
{
  /* A-P2 — acquire: pairs with R-P2 (the pusher's link and buffer writes). */
  uint64_t old = mcx_load_acquire(&v->hdr->head);
  for (;;) {
    uint32_t top = (uint32_t)old;
    if (top == 0 || top > v->n)
      return MCX_ENOMEM; /* empty, or a corrupt head: no buffer */
    /* The link may be stale if another popper won meanwhile: the tag in the
     * head makes our CAS fail then. Checked, as it comes from shared memory. */
    uint32_t nx = mcx_load_relaxed(&v->next[top - 1]);
    if (nx > v->n)
      nx = 0;
    uint64_t nw = ((old >> 32) + 1) << 32 | nx;
    if (mcx_cas_acquire(&v->hdr->head, &old, nw)) {
      *b = top - 1;
      return MCX_OK;
    }
  }
}

/** Fills a fresh pool: buffer 0 on top. Creator only, before publication. */
static inline void mcx__pool_init(const mcx__pool_view_t *v)
{
  for (uint32_t b = 0; b < v->n; b++)
    mcx_store_relaxed(&v->next[b], b + 1 < v->n ? b + 2 : 0);
  mcx_store_relaxed(&v->hdr->head, v->n ? 1 : 0); /* published with the partition (R-P1) */
}

/**
 * Buffer index of a byte offset into a pool of fixed-stride buffers without
 * a division: q = (off * m) >> shift with m = ceil(2^shift / stride), where
 * 2^shift > span * stride. With e = m * stride - 2^shift (< stride) and
 * off = q * stride + r, off * m / 2^shift = q + (r + off * e / 2^shift) /
 * stride, and off * e < span * stride < 2^shift: the quotient is exact for
 * every off < span. m == 0: the span cannot be served so (or the product
 * could overflow), divide.
 */
typedef struct mcx__recip {
  uint64_t m;
  uint32_t shift;
} mcx__recip_t;

static inline mcx__recip_t mcx__recip_of(uint32_t stride, uint64_t span)
{
  mcx__recip_t r = {0, 0};
  if (stride < 2 || span == 0 || span >= (UINT64_C(1) << 32))
    return r;
  uint64_t lim = span * stride; /* < 2^64 */
  uint32_t shift = 64u - (uint32_t)__builtin_clzll(lim); /* lim < 2^shift */
  if (shift > 63)
    return r;
  uint64_t m = ((UINT64_C(1) << shift) + stride - 1) / stride;
  if (m > UINT64_MAX / span) /* off * m must not overflow for off < span */
    return r;
  r.m = m;
  r.shift = shift;
  return r;
}

/** The index of the buffer that starts at byte offset @p off (< the span
 * given to mcx__recip_of), or UINT32_MAX when @p off is not a buffer's start. */
static inline uint32_t mcx__recip_index(uint64_t off, mcx__recip_t r, uint32_t stride)
{
  uint32_t b = r.m ? (uint32_t)((off * r.m) >> r.shift) : (uint32_t)(off / stride);
  return (uint64_t)b * stride == off ? b : UINT32_MAX;
}

#endif
