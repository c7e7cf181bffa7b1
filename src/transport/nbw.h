/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file nbw.h
 * @brief Kopetz's non-blocking write (NBW) protocol: one writer, any number
 * of readers, latest value only, no FIFO. The writer never waits.
 *
 * A concurrency-control field `ccf` counts half-writes: write number w
 * (1, 2, ...) stores ccf = 2w-1 before it touches buffer w % N and ccf = 2w
 * after. A reader reads ccf, copies the newest complete buffer, re-reads ccf,
 * and keeps the copy unless the writer has since started to overwrite that
 * very buffer (which takes N more writes): with N buffers a reader is
 * disturbed only when the writer laps it by N-1 whole writes.
 *
 * Buffers are arrays of 64-bit words copied with relaxed atomic loads and
 * stores, so a reader that overlaps a write is a well-defined (and detected)
 * race, not undefined behaviour; the fences order the copy against the ccf.
 */
#ifndef MCX_TRANSPORT_NBW_H
#define MCX_TRANSPORT_NBW_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/mcx_atomic.h"

typedef struct mcx__nbw_view {
  mcx_atomic_u64 *ccf;  /* written by the writer only, on its own line */
  mcx_atomic_u64 *bufs; /* nbuf buffers of stride words: [size][payload words...] */
  uint32_t nbuf;
  uint32_t stride; /* words per buffer */
} mcx__nbw_view_t;

/* Copies @p n bytes into atomic words (relaxed; ordered by the caller's fences). */
static inline void mcx__nbw_put(mcx_atomic_u64 *dst, const uint8_t *src, size_t n)
{
  size_t w = 0;
  for (; n >= 8; n -= 8, src += 8, w++) {
    uint64_t v;
    memcpy(&v, src, 8);
    mcx_store_relaxed(&dst[w], v);
  }
  if (n) {
    uint64_t v = 0;
    memcpy(&v, src, n);
    mcx_store_relaxed(&dst[w], v);
  }
}

static inline void mcx__nbw_get(uint8_t *dst, mcx_atomic_u64 *src, size_t n)
{
  size_t w = 0;
  for (; n >= 8; n -= 8, dst += 8, w++) {
    uint64_t v = mcx_load_relaxed(&src[w]);
    memcpy(dst, &v, 8);
  }
  if (n) {
    uint64_t v = mcx_load_relaxed(&src[w]);
    memcpy(dst, &v, n);
  }
}

/** Writes a new value (writer only). @return its version (the write number). */
static inline uint64_t mcx__nbw_write(const mcx__nbw_view_t *v, const void *data, size_t size)
{
  uint64_t c = mcx_load_relaxed(v->ccf); /* only we write it */
  uint64_t w = c / 2 + 1;
  mcx_atomic_u64 *b = v->bufs + (size_t)(w % v->nbuf) * v->stride;
  mcx_store_relaxed(v->ccf, 2 * w - 1);
  /* N1 — release fence: the odd ccf is visible before any byte of the buffer
   * changes; pairs with N3 (a reader that sees our bytes sees the odd ccf). */
  mcx_fence_release();
  mcx_store_relaxed(&b[0], (uint64_t)size);
  mcx__nbw_put(b + 1, data, size);
  /* N2 — release (as a seq_cst exchange, which also serves the readers'
   * wake-up protocol): the buffer before the even ccf; pairs with N4. */
  mcx_exchange_seq_cst(v->ccf, 2 * w);
  return w;
}

/**
 * Reads the newest value into @p out (capacity @p cap; a larger value is
 * truncated). @return 1 with *version and *size set (version 0: nothing
 * written yet), 0 when the writer lapped this read (retry).
 */
static inline int mcx__nbw_try_read(const mcx__nbw_view_t *v, void *out, size_t cap,
                                    size_t *size, uint64_t *version)
{
  /* N4 — acquire: the buffer of the last complete write is visible; pairs with N2. */
  uint64_t c1 = mcx_load_acquire(v->ccf);
  uint64_t w = c1 / 2; /* newest complete write (an odd ccf: one is under way) */
  if (w == 0) {
    *size = 0;
    *version = 0;
    return 1;
  }
  mcx_atomic_u64 *b = v->bufs + (size_t)(w % v->nbuf) * v->stride;
  uint64_t n = mcx_load_relaxed(&b[0]);
  size_t stored = (size_t)n <= (size_t)(v->stride - 1) * 8 ? (size_t)n : 0;
  size_t k = stored < cap ? stored : cap;
  mcx__nbw_get(out, b + 1, k);
  /* N3 — acquire fence: our copy happens before the re-read below; pairs
   * with N1 (if we copied any of a newer write's bytes, we see its odd ccf). */
  mcx_fence_acquire();
  uint64_t c2 = mcx_load_relaxed(v->ccf);
  /* Buffer w is rewritten by write w + nbuf, which starts at ccf 2(w+nbuf)-1. */
  if (c2 >= 2 * (w + v->nbuf) - 1)
    return 0;
  *size = stored;
  *version = w;
  return 1;
}

/** Version of the newest complete write (0: none). */
static inline uint64_t mcx__nbw_version(const mcx__nbw_view_t *v)
{
  return mcx_load_acquire(v->ccf) / 2; /* N4 */
}

#endif
