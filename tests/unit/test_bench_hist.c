/* SPDX-License-Identifier: BSD-3-Clause */
/* The benchmark's log-linear latency histogram (bench/core/bench_hist.c):
 * bucket bounds, error bound, quantiles against a sorted reference, merge. */
#include <stdlib.h>

#include "mcx_test.h"
#include "bench/core/bench_hist.h"

static int cmp(const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

TEST(small_values_are_exact)
{
  for (uint64_t v = 0; v < BENCH_HIST_SUB; v++) {
    unsigned i = bench_hist_index(v);
    CHECK_EQ_U(bench_hist_lowest(i), v);
    CHECK_EQ_U(bench_hist_highest(i), v);
  }
}

TEST(buckets_tile_the_range_without_gaps)
{
  /* consecutive buckets: highest(i) + 1 == lowest(i + 1); each value maps into its bucket */
  for (unsigned i = 0; i + 1 < BENCH_HIST_BUCKETS; i++)
    CHECK_EQ_U(bench_hist_highest(i) + 1, bench_hist_lowest(i + 1));
  uint64_t probes[] = {127, 128, 129, 255, 256, 1000, 4095, 4096, 123456789, (1ull << 40) - 1};
  for (unsigned k = 0; k < sizeof probes / sizeof probes[0]; k++) {
    unsigned i = bench_hist_index(probes[k]);
    CHECK(bench_hist_lowest(i) <= probes[k] && probes[k] <= bench_hist_highest(i));
  }
  CHECK_EQ_U(bench_hist_index(1ull << 40), BENCH_HIST_BUCKETS - 1);
  CHECK_EQ_U(bench_hist_index(UINT64_MAX), BENCH_HIST_BUCKETS - 1);
}

TEST(relative_error_is_below_one_step)
{
  for (uint64_t v = BENCH_HIST_SUB; v < (1ull << 40); v = v * 3 / 2 + 7) {
    unsigned i = bench_hist_index(v);
    double width = (double)(bench_hist_highest(i) - bench_hist_lowest(i) + 1);
    CHECK(width / (double)bench_hist_lowest(i) <= 1.0 / BENCH_HIST_SUB);
  }
}

TEST(quantiles_match_a_sorted_reference)
{
  enum { N = 20000 };
  static uint64_t v[N];
  bench_hist_t *h = malloc(sizeof *h);
  bench_hist_init(h);
  srand(7);
  for (int i = 0; i < N; i++) {
    /* a latency-like shape: a body near 150 and a long tail up to ~1e7 */
    uint64_t x = 100 + (uint64_t)(rand() % 100);
    if (i % 100 == 0)
      x = 1000 + (uint64_t)rand() % 10000000;
    v[i] = x;
    bench_hist_record(h, x);
  }
  qsort(v, N, sizeof v[0], cmp);
  CHECK_EQ_U(h->count, N);
  CHECK_EQ_U(bench_hist_quantile(h, 0), v[0]);
  CHECK_EQ_U(bench_hist_quantile(h, 100), v[N - 1]);
  const double qs[] = {1, 50, 90, 99, 99.9, 99.99};
  for (unsigned k = 0; k < sizeof qs / sizeof qs[0]; k++) {
    uint64_t rank = (uint64_t)(qs[k] / 100.0 * N + 0.5);
    uint64_t exact = v[rank - 1];
    uint64_t got = bench_hist_quantile(h, qs[k]);
    /* never below the exact value, above it by less than one step */
    CHECK(got >= exact);
    CHECK((double)(got - exact) <= (double)exact / BENCH_HIST_SUB + 1);
  }
  free(h);
}

TEST(merge_adds_counts_and_extremes)
{
  bench_hist_t *a = malloc(sizeof *a), *b = malloc(sizeof *b);
  bench_hist_init(a);
  bench_hist_init(b);
  CHECK_EQ_U(bench_hist_quantile(a, 50), 0); /* empty */
  for (int i = 0; i < 100; i++)
    bench_hist_record(a, 10);
  for (int i = 0; i < 300; i++)
    bench_hist_record(b, 5000);
  bench_hist_record(b, 3);
  bench_hist_merge(a, b);
  CHECK_EQ_U(a->count, 401);
  CHECK_EQ_U(a->min, 3);
  CHECK_EQ_U(a->max, 5000);
  CHECK_EQ_U(bench_hist_quantile(a, 10), 10);
  uint64_t med = bench_hist_quantile(a, 50);
  CHECK(med >= 5000 - 5000 / BENCH_HIST_SUB && med <= 5000);
  CHECK(bench_hist_mean(a) > 3700 && bench_hist_mean(a) < 3800);
  free(a);
  free(b);
}

int main(void)
{
  RUN(small_values_are_exact);
  RUN(buckets_tile_the_range_without_gaps);
  RUN(relative_error_is_below_one_step);
  RUN(quantiles_match_a_sorted_reference);
  RUN(merge_adds_counts_and_extremes);
  return mcx_test_report();
}
