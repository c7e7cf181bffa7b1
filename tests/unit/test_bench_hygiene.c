/* SPDX-License-Identifier: BSD-3-Clause */
/* mca bench's sample hygiene (bench/core/bench_hygiene.c): samples taken in the
 * host's slow mode (large L, or L probes that disagree) are excluded from
 * every figure; a cell without enough clean samples has none. */
#include <math.h>
#include <stdlib.h>

#include "mcx_test.h"
#include "bench/core/bench_report.h"


/* One sample: L before/after, a batch RTT, a throughput, and a histogram of
 * `n` round trips of value `rtt`. */
static void sample(bench_cell_t *c, double Lb, double La, double rtt, double items_s, int n)
{
  bench_sample_t *s = &c->s[c->nsamples++];
  memset(s, 0, sizeof *s);
  s->L_before = Lb;
  s->L_after = La;
  s->L = Lb > La ? Lb : La;
  s->mode_flip = fmin(Lb, La) > 0 && fmax(Lb, La) / fmin(Lb, La) > BENCH_SLOW_FACTOR;
  s->has_rtt = s->has_stream = 1;
  s->rtt_batch = rtt;
  s->rtt_p50 = rtt;
  s->items_s = items_s;
  s->hist = malloc(sizeof *s->hist);
  bench_hist_init(s->hist);
  for (int i = 0; i < n; i++)
    bench_hist_record(s->hist, (uint64_t)rtt);
}

static void drop(bench_cell_t *c)
{
  for (int i = 0; i < c->nsamples; i++)
    free(c->s[i].hist);
  free(c->hist);
  free(c);
}

TEST(slow_samples_are_marked_and_excluded)
{
  bench_cell_t *c = calloc(1, sizeof *c);
  sample(c, 50, 52, 150, 20e6, 10);  /* clean */
  sample(c, 51, 50, 160, 21e6, 10);  /* clean */
  sample(c, 180, 190, 600, 5e6, 10); /* slow throughout: L 3.7x the median */
  sample(c, 50, 120, 400, 8e6, 10);  /* probes disagree */
  sample(c, 49, 50, 170, 19e6, 10);  /* clean */
  CHECK_EQ_U(bench_classify(c, 50), 3);
  CHECK(!c->s[0].slow && !c->s[1].slow && !c->s[4].slow);
  CHECK(c->s[2].slow && c->s[3].slow);
  CHECK_EQ_U(c->nslow, 2);
  CHECK_EQ_U(c->flips, 1);
  bench_summarize(c);
  CHECK_EQ_U(c->rtt.n, 3);
  CHECK(c->rtt.med == 160 && c->rtt.lo == 150 && c->rtt.hi == 170);
  CHECK(c->items_s.lo == 19e6 && c->items_s.hi == 21e6);
  /* RTT over the sample's own L */
  CHECK(fabs(c->rtt_xL.med - 160.0 / 51) < 1e-9);
  /* the distribution holds the clean samples' round trips only */
  CHECK(c->hist != NULL);
  CHECK_EQ_U(c->hist->count, 30);
  CHECK_EQ_U(c->hist->max, 170);
  drop(c);
}

TEST(an_unstable_cell_has_no_figure)
{
  bench_cell_t *c = calloc(1, sizeof *c);
  sample(c, 50, 50, 150, 20e6, 4);
  sample(c, 200, 210, 600, 5e6, 4);
  sample(c, 220, 200, 610, 5e6, 4);
  int clean = bench_classify(c, 50);
  CHECK_EQ_U(clean, 1);
  c->unstable = clean < 2; /* what mca bench does with --repeat 3 */
  bench_summarize(c);
  CHECK_EQ_U(c->rtt.n, 0);
  CHECK_EQ_U(c->items_s.n, 0);
  CHECK_EQ_U(c->L.n, 0);
  CHECK(c->hist == NULL);
  drop(c);
}

TEST(without_L_nothing_is_slow)
{
  /* one CPU: L is not measured (0) and no sample can be judged */
  bench_cell_t *c = calloc(1, sizeof *c);
  sample(c, 0, 0, 3000, 1e6, 2);
  sample(c, 0, 0, 9000, 1e6, 2);
  CHECK_EQ_U(bench_classify(c, 0), 2);
  bench_summarize(c);
  CHECK_EQ_U(c->rtt.n, 2);
  CHECK_EQ_U(c->rtt_xL.n, 0); /* no ratio to an L that was not measured */
  drop(c);
}

int main(void)
{
  RUN(slow_samples_are_marked_and_excluded);
  RUN(an_unstable_cell_has_no_figure);
  RUN(without_L_nothing_is_slow);
  return mcx_test_report();
}
