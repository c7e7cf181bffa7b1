/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file bench_hist.h
 * @brief A log-linear latency histogram in the manner of HdrHistogram: every
 * power-of-two range of values is split into BENCH_HIST_SUB equal steps, so a
 * recorded value is kept with a relative error below 1 / BENCH_HIST_SUB
 * (values below BENCH_HIST_SUB exactly) over the whole range 0 .. 2^40 ns
 * (about 18 minutes; larger values count in the top bucket and in `max`).
 * Recording is a few instructions and never allocates, so a benchmark can
 * record every round trip; quantiles are read once at the end.
 *
 * Concurrency: one writer; merge and read when the writers are done.
 */
#ifndef MCA_BENCH_HIST_H
#define MCA_BENCH_HIST_H

#include <stdint.h>

#define BENCH_HIST_SUB_BITS 7
#define BENCH_HIST_SUB (1u << BENCH_HIST_SUB_BITS) /* steps per power of two */
#define BENCH_HIST_MAX_BITS 40                     /* values up to 2^40 - 1 are resolved */
#define BENCH_HIST_BUCKETS ((BENCH_HIST_MAX_BITS - BENCH_HIST_SUB_BITS + 1) * BENCH_HIST_SUB)

typedef struct bench_hist {
  uint64_t count;
  uint64_t min, max; /* exact; min is UINT64_MAX while empty */
  double sum;        /* for the mean */
  uint64_t c[BENCH_HIST_BUCKETS];
} bench_hist_t;

/** @brief Empties @p h. */
void bench_hist_init(bench_hist_t *h);
/** @brief The bucket that holds @p v (values beyond the range: the last bucket). */
unsigned bench_hist_index(uint64_t v);
/** @brief The smallest and largest value bucket @p i holds. */
uint64_t bench_hist_lowest(unsigned i);
uint64_t bench_hist_highest(unsigned i);
/** @brief Records one value. */
static inline void bench_hist_record(bench_hist_t *h, uint64_t v)
{
  h->c[bench_hist_index(v)]++;
  h->count++;
  h->sum += (double)v;
  if (v < h->min)
    h->min = v;
  if (v > h->max)
    h->max = v;
}
/** @brief Adds every count of @p src to @p dst. */
void bench_hist_merge(bench_hist_t *dst, const bench_hist_t *src);
/**
 * @brief The value at percentile @p q (0..100): the highest value of the
 * bucket that holds the r-th smallest recording, r = q% x count rounded
 * (at least 1), clamped to
 * [min, max] (so q = 0 gives min and q = 100 gives max exactly).
 * @retval 0 when empty.
 */
uint64_t bench_hist_quantile(const bench_hist_t *h, double q);
double bench_hist_mean(const bench_hist_t *h);
#endif
