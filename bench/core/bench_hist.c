/* SPDX-License-Identifier: BSD-3-Clause */
/* mca bench: the log-linear latency histogram (see bench_hist.h). */
#include "bench_hist.h"

#include <string.h>

void bench_hist_init(bench_hist_t *h)
{
  memset(h, 0, sizeof *h);
  h->min = UINT64_MAX;
}

unsigned bench_hist_index(uint64_t v)
{
  if (v < BENCH_HIST_SUB)
    return (unsigned)v; /* bucket 0: exact */
  if (v >> BENCH_HIST_MAX_BITS)
    return BENCH_HIST_BUCKETS - 1;
  unsigned msb = 63u - (unsigned)__builtin_clzll(v); /* >= SUB_BITS */
  unsigned shift = msb - BENCH_HIST_SUB_BITS;         /* step of this range is 2^shift */
  unsigned sub = (unsigned)(v >> shift) - BENCH_HIST_SUB; /* 0 .. SUB-1 */
  return (shift + 1) * BENCH_HIST_SUB + sub;
}

uint64_t bench_hist_lowest(unsigned i)
{
  if (i < BENCH_HIST_SUB)
    return i;
  unsigned shift = i / BENCH_HIST_SUB - 1, sub = i % BENCH_HIST_SUB;
  return (uint64_t)(BENCH_HIST_SUB + sub) << shift;
}

uint64_t bench_hist_highest(unsigned i)
{
  if (i < BENCH_HIST_SUB)
    return i;
  unsigned shift = i / BENCH_HIST_SUB - 1;
  return bench_hist_lowest(i) + ((uint64_t)1 << shift) - 1;
}

void bench_hist_merge(bench_hist_t *dst, const bench_hist_t *src)
{
  if (!src->count)
    return;
  for (unsigned i = 0; i < BENCH_HIST_BUCKETS; i++)
    dst->c[i] += src->c[i];
  dst->count += src->count;
  dst->sum += src->sum;
  if (src->min < dst->min)
    dst->min = src->min;
  if (src->max > dst->max)
    dst->max = src->max;
}

uint64_t bench_hist_quantile(const bench_hist_t *h, double q)
{
  if (!h->count)
    return 0;
  if (q <= 0)
    return h->min;
  if (q >= 100)
    return h->max;
  /* rounded, not ceil: q / 100 x count is rarely exact in floating point */
  uint64_t rank = (uint64_t)(q / 100.0 * (double)h->count + 0.5);
  if (rank < 1)
    rank = 1;
  uint64_t seen = 0;
  for (unsigned i = 0; i < BENCH_HIST_BUCKETS; i++) {
    seen += h->c[i];
    if (seen >= rank) {
      uint64_t v = bench_hist_highest(i);
      if (v > h->max)
        v = h->max;
      if (v < h->min)
        v = h->min;
      return v;
    }
  }
  return h->max;
}

double bench_hist_mean(const bench_hist_t *h) { return h->count ? h->sum / (double)h->count : 0; }
