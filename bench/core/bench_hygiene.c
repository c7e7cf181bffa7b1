/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mca bench: sample hygiene and summaries. A sample is `slow` when its two L
 * probes disagree by more than BENCH_SLOW_FACTOR or its L exceeds that
 * multiple of the run's median L (the host's slow mode scales every
 * cross-core figure); slow samples are kept in the JSON but excluded from
 * every median, min-max, distribution and target. A cell with fewer clean
 * samples than the run asks for is `unstable` and has no figure at all.
 */
#include <stdlib.h>
#include <string.h>

#include "bench_report.h"

static bench_stat3_t stat3(double *v, int n)
{
  bench_stat3_t s = {0, 0, 0, n};
  if (n <= 0)
    return s;
  s.med = bench_median(v, n); /* sorts */
  s.lo = v[0];
  s.hi = v[n - 1];
  return s;
}

int bench_classify(bench_cell_t *c, double L_median)
{
  int clean = 0;
  c->nslow = 0;
  c->flips = 0;
  for (int i = 0; i < c->nsamples; i++) {
    bench_sample_t *s = &c->s[i];
    s->slow = s->mode_flip || (L_median > 0 && s->L > BENCH_SLOW_FACTOR * L_median);
    c->flips += s->mode_flip;
    c->nslow += s->slow;
    clean += !s->slow;
  }
  return clean;
}

void bench_summarize(bench_cell_t *c)
{
  double a[BENCH_MAX_REPEAT];
  /* Every figure comes from the clean samples; an unstable cell has none. */
#define STAT(dst, cond, expr)                                          \
  do {                                                                 \
    int k_ = 0;                                                        \
    for (int i = 0; i < c->nsamples && !c->unstable; i++) {            \
      const bench_sample_t *s = &c->s[i];                              \
      if (!s->slow && (cond))                                          \
        a[k_++] = (expr);                                              \
    }                                                                  \
    c->dst = stat3(a, k_);                                             \
  } while (0)
  STAT(rtt, s->has_rtt, s->rtt_batch);
  STAT(rtt_xL, s->has_rtt && s->L > 0, s->rtt_batch / s->L);
  STAT(rtt_p50, s->has_rtt, s->rtt_p50);
  STAT(rtt_p99, s->has_rtt, s->rtt_p99);
  STAT(rtt_p999, s->has_rtt, s->rtt_p999);
  STAT(rtt_min, s->has_rtt, s->rtt_min);
  STAT(rtt_p50_xL, s->has_rtt && s->L > 0, s->rtt_p50 / s->L);
  STAT(items_s, s->has_stream, s->items_s);
  STAT(mb_s, s->has_stream, s->mb_s);
  STAT(L, 1, s->L);
#undef STAT
  free(c->hist);
  c->hist = NULL;
  for (int i = 0; i < c->nsamples && !c->unstable; i++) {
    const bench_sample_t *s = &c->s[i];
    if (s->slow || !s->hist)
      continue;
    if (!c->hist) {
      c->hist = malloc(sizeof *c->hist);
      if (!c->hist)
        return;
      bench_hist_init(c->hist);
    }
    bench_hist_merge(c->hist, s->hist);
  }
}

