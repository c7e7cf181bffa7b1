/* SPDX-License-Identifier: BSD-3-Clause */
/* mca bench: summaries, derived figures, targets, the table and the JSON file. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_report.h"
#include "cli.h"
#include "mcx_hpc.h"

static int eq(const char *a, const char *b) { return !b || (a && !strcmp(a, b)); }

bench_cell_t *bench_find(bench_results_t *r, const char *section, const char *subject,
                         const char *type, const char *locking, const char *wait,
                         const char *placement, const char *process, const char *transport,
                         size_t size)
{
  for (int i = 0; i < r->ncells; i++) {
    bench_cell_t *c = &r->cells[i];
    if (eq(c->section, section) && eq(c->subject, subject) && eq(c->type, type) &&
        eq(c->locking, locking) && eq(c->wait, wait) && eq(c->placement, placement) &&
        eq(c->process, process) && eq(c->transport, transport) && (!size || c->size == size))
      return c;
  }
  return NULL;
}

static int ok_thr(const bench_cell_t *c) { return c && c->status == BENCH_OK && c->items_s.n; }
static int ok_rtt(const bench_cell_t *c) { return c && c->status == BENCH_OK && c->rtt.n; }
/* A cell's median throughput and RTT; NaN when it has none (not measured, failed), so a ratio
 * with it is NaN too. */
static double thr_of(const bench_cell_t *c) { return ok_thr(c) ? c->items_s.med : NAN; }
static double rtt_of(const bench_cell_t *c) { return ok_rtt(c) ? c->rtt.med : NAN; }

static bench_cell_t *lm(bench_results_t *r, const char *type, const char *lock, const char *place,
                        const char *proc, size_t size)
{
  return bench_find(r, "matrix", "libmca", type, lock, "spin", place, proc, "shm", size);
}
static bench_cell_t *peer(bench_results_t *r, const char *name, const char *place, size_t size)
{
  return bench_find(r, "matrix", name, NULL, NULL, NULL, place, NULL, NULL, size);
}

static void derived_add(bench_results_t *r, const char *key, bench_derived_t x)
{
  if (r->nderived == r->cap_derived) {
    int cap = r->cap_derived ? r->cap_derived * 2 : 64;
    bench_derived_t *more = realloc(r->derived, (size_t)cap * sizeof *more);
    if (!more)
      return; /* out of memory: the figure is left out, the cells keep theirs */
    r->derived = more;
    r->cap_derived = cap;
  }
  snprintf(x.key, sizeof x.key, "%s", key);
  r->derived[r->nderived++] = x;
}

static void target(bench_results_t *r, const char *name, int have, double value, const char *op,
                   double limit, const char *unit, const char *fmt, ...)
    __attribute__((format(printf, 8, 9)));
#include <stdarg.h>
static void target(bench_results_t *r, const char *name, int have, double value, const char *op,
                   double limit, const char *unit, const char *fmt, ...)
{
  if (r->ntargets >= 64)
    return;
  bench_target_t *t = &r->targets[r->ntargets++];
  snprintf(t->name, sizeof t->name, "%s", name);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(t->detail, sizeof t->detail, fmt, ap);
  va_end(ap);
  t->value = have ? value : NAN;
  t->limit = limit;
  t->op = op;
  t->unit = unit;
  if (!have && (!strcmp(t->detail, "one sender, one receiver, two cores") || strstr(t->detail, " 0 MB/s") ||
                strstr(t->detail, "spread placement") || strstr(t->detail, "onecore") || strstr(t->detail, " 0 ns")))
    snprintf(t->detail, sizeof t->detail, "a cell it needs was not measured in this run (--only/--smoke) or failed");
  if (!have)
    t->result = "n/a";
  else if (!strcmp(op, "<="))
    t->result = value <= limit ? "PASS" : "MISS";
  else
    t->result = value >= limit ? "PASS" : "MISS";
}

static const char *const SPSC_PEERS[] = {"boost_spsc_queue", "ck_ring_spsc"};
static const char *const REAL_PEERS[] = {"boost_spsc_queue", "ck_ring_spsc", "mutex_condvar",
                                         "pipe", "unix_socketpair", "posix_mqueue"};

static bench_cell_t *best_thr(bench_results_t *r, const char *const *names, int n, const char *place,
                              size_t size)
{
  bench_cell_t *best = NULL;
  for (int i = 0; i < n; i++) {
    bench_cell_t *c = peer(r, names[i], place, size);
    if (ok_thr(c) && (!best || c->items_s.med > best->items_s.med))
      best = c;
  }
  return best;
}
void bench_derive(bench_results_t *r)
{
  static const char *const types[] = {"message", "packet", "scalar"};
  static const char *const places[] = {"onecore", "none", "spread"};
  static const char *const procs[] = {"in", "cross"};
  static const char *const transports[] = {"shm", "pmq"};
  /* seed 000 Fig. 8: lock-free / lock-based per cell */
  for (int i = 0; i < r->ncells; i++) {
    bench_cell_t *c = &r->cells[i];
    if (strcmp(c->section, "matrix") || strcmp(c->kind, "libmca") || strcmp(c->locking, "lockfree") ||
        strcmp(c->wait, "spin"))
      continue;
    static const char *const against[] = {"global", "kernel"};
    for (int k = 0; k < 2; k++) {
      bench_cell_t *g = bench_find(r, "matrix", "libmca", c->type, against[k], "spin", c->placement,
                                   c->process, c->transport, c->size);
      if (!g)
        continue;
      char key[96];
      snprintf(key, sizeof key, "%s.%s.%s.%s.%zuB", c->type, c->placement, c->process, c->transport,
               c->size);
      derived_add(r, key, (bench_derived_t){
        .kind = BENCH_DERIVED_SPEEDUP,
        .speedup = {.throughput_ratio = thr_of(c) / thr_of(g),
                    .rtt_ratio = rtt_of(g) / rtt_of(c),
                    .lockfree_items_per_s = thr_of(c),
                    .against = against[k],
                    .locked_items_per_s = thr_of(g),
                    .global_items_per_s = strcmp(against[k], "global") ? NAN : thr_of(g)}});
    }
  }
  /* seed 000 Table 2: multicore throughput / single-core throughput */
  for (int t = 0; t < 3; t++)
    for (int l = 0; l < 3; l++) {
      const char *lock = l == 2 ? "kernel" : l ? "global" : "lockfree";
      size_t size = t == 2 ? 8 : 24;
      bench_cell_t *one = lm(r, types[t], lock, "onecore", "in", size);
      bench_cell_t *none = lm(r, types[t], lock, "none", "in", size);
      bench_cell_t *spr = lm(r, types[t], lock, "spread", "in", size);
      char key[96];
      snprintf(key, sizeof key, "%s.%s.%zuB", types[t], lock, size);
      derived_add(r, key, (bench_derived_t){
        .kind = BENCH_DERIVED_PENALTY,
        .penalty = {.spread_over_onecore = thr_of(spr) / thr_of(one),
                    .none_over_onecore = thr_of(none) / thr_of(one),
                    .onecore_items_per_s = thr_of(one),
                    .spread_items_per_s = thr_of(spr)}});
    }
  /* ratios to the physical limit and to the best peer, per libmca cell */
  for (int i = 0; i < r->ncells; i++) {
    bench_cell_t *c = &r->cells[i];
    if (strcmp(c->kind, "libmca") || c->status != BENCH_OK)
      continue;
    bench_cell_t *ideal = bench_find(r, c->section, "ideal_ring", NULL, NULL, NULL, c->placement,
                                     NULL, NULL, c->size);
    bench_cell_t *bt = NULL, *br = NULL;
    for (int k = 0; k < 6; k++) {
      bench_cell_t *p = bench_find(r, c->section, REAL_PEERS[k], NULL, NULL, NULL, c->placement,
                                   NULL, NULL, c->size);
      if (ok_thr(p) && (!bt || p->items_s.med > bt->items_s.med))
        bt = p;
      if (ok_rtt(p) && (!br || p->rtt.med < br->rtt.med))
        br = p;
    }
    derived_add(r, c->id, (bench_derived_t){
      .kind = BENCH_DERIVED_RATIO,
      .ratio = {.throughput_over_ideal = thr_of(c) / thr_of(ideal),
                .rtt_over_L = c->rtt_xL.n ? c->rtt_xL.med : NAN,
                .throughput_over_best_peer = thr_of(c) / thr_of(bt),
                .rtt_over_best_peer = rtt_of(c) / rtt_of(br),
                .best_peer = bt ? bt->subject : NULL}});
  }
  (void)places;
  (void)procs;
  (void)transports;

  /* ---- the performance targets */
  bench_cell_t *c, *p;
  c = lm(r, "scalar", "lockfree", "spread", "in", 8);
  target(r, "scalar RTT <= 1.3 L", c && c->rtt_xL.n, c ? c->rtt_xL.med : 0, "<=", 1.3, "xL",
         "%s", c && c->status == BENCH_NA ? c->note : "scl.lockfree.spread, p50 / L of the same sample");
  /* Against the ideal pair of per-slot-sequence rings of the same run,
   * ping-ponging the same bytes, timed the same way. */
  {
    static const char *const kinds[3] = {"message", "packet", "scalar"};
    static const double lim[3] = {1.3, 1.3, 1.15};
    for (int t = 0; t < 3; t++) {
      char n[96];
      size_t size = t == 2 ? 8 : 24;
      c = lm(r, kinds[t], "lockfree", "spread", "in", size);
      p = peer(r, "ideal_ring", "spread", size);
      snprintf(n, sizeof n, "%zu B %s RTT <= %.3gx ideal ring", size, kinds[t], lim[t]);
      target(r, n, ok_rtt(c) && ok_rtt(p), ok_rtt(c) && ok_rtt(p) ? c->rtt.med / p->rtt.med : 0,
             "<=", lim[t], "x", "libmca %.0f ns, ideal ring %.0f ns (both batch-timed, same run)",
             ok_rtt(c) ? c->rtt.med : 0, ok_rtt(p) ? p->rtt.med : 0);
    }
  }
  c = lm(r, "message", "lockfree", "spread", "in", 24);
  target(r, "24 B message RTT <= 1.6 L", c && c->rtt_xL.n, c ? c->rtt_xL.med : 0, "<=", 1.6,
         "xL", "RTT %.0f ns, L %.0f ns (both batch-timed)", c ? c->rtt.med : 0, c ? c->L.med : 0);
  c = lm(r, "packet", "lockfree", "spread", "in", 24);
  target(r, "24 B packet RTT <= 1.6 L", c && c->rtt_xL.n, c ? c->rtt_xL.med : 0, "<=", 1.6, "xL",
         "%s", c && c->status == BENCH_NA ? c->note : "pkt.lockfree.spread");
  c = lm(r, "scalar", "lockfree", "spread", "in", 8);
  target(r, "scalar uint64 throughput >= 100 M/s", ok_thr(c), ok_thr(c) ? c->items_s.med / 1e6 : 0,
         ">=", 100, "M/s", "%s", c && c->status == BENCH_NA ? c->note : "one sender, one receiver, two cores");
  p = best_thr(r, SPSC_PEERS, 2, "spread", 8);
  target(r, "scalar throughput >= 1.0x best SPSC peer", ok_thr(c) && p,
         ok_thr(c) && p ? c->items_s.med / p->items_s.med : 0, ">=", 1.0, "x", "best SPSC peer: %s %.1f M/s",
         p ? p->subject : "none", p ? p->items_s.med / 1e6 : 0);
  c = lm(r, "message", "lockfree", "spread", "in", 24);
  p = best_thr(r, SPSC_PEERS, 2, "spread", 24);
  target(r, "24 B message throughput >= 1.0x best SPSC peer", ok_thr(c) && p,
         ok_thr(c) && p ? c->items_s.med / p->items_s.med : 0, ">=", 1.0, "x",
         "libmca %.2f M/s, %s %.2f M/s", ok_thr(c) ? c->items_s.med / 1e6 : 0, p ? p->subject : "none",
         p ? p->items_s.med / 1e6 : 0);
  for (int t = 0; t < 2; t++) {
    char n1[96], n2[96];
    c = lm(r, types[t], "lockfree", "spread", "in", 8192);
    p = peer(r, "posix_mqueue", "spread", 8192);
    snprintf(n1, sizeof n1, "8 KiB %s throughput >= 10 GB/s", types[t]);
    snprintf(n2, sizeof n2, "8 KiB %s throughput >= 10x posix_mqueue", types[t]);
    target(r, n1, ok_thr(c), ok_thr(c) ? c->mb_s.med / 1e3 : 0, ">=", 10, "GB/s", "%s",
           c && c->status == BENCH_NA ? c->note : "one sender, one receiver, two cores");
    target(r, n2, ok_thr(c) && ok_thr(p), ok_thr(c) && ok_thr(p) ? c->items_s.med / p->items_s.med : 0,
           ">=", 10, "x", "posix_mqueue %.0f MB/s", ok_thr(p) ? p->mb_s.med : 0);
  }
  for (int t = 0; t < 3; t++) {
    char n[96];
    size_t size = t == 2 ? 8 : 24;
    bench_cell_t *lf = lm(r, types[t], "lockfree", "spread", "in", size);
    bench_cell_t *gl = lm(r, types[t], "kernel", "spread", "in", size);
    snprintf(n, sizeof n, "%s lock-free / kernel-lock RTT speedup, two cores >= 25x", types[t]);
    target(r, n, ok_rtt(lf) && ok_rtt(gl), ok_rtt(lf) && ok_rtt(gl) ? gl->rtt.med / lf->rtt.med : 0,
           ">=", 25, "x", "%s", lf && lf->status == BENCH_NA ? lf->note : "spread placement, one pair (the lock is never contended); the scaling matrix shows contention");
  }
  for (int t = 0; t < 3; t++) {
    char n[96];
    size_t size = t == 2 ? 8 : 24;
    bench_cell_t *one = lm(r, types[t], "lockfree", "onecore", "in", size);
    bench_cell_t *spr = lm(r, types[t], "lockfree", "spread", "in", size);
    snprintf(n, sizeof n, "%s lock-free: no multicore penalty (two cores / one core >= 1)", types[t]);
    target(r, n, ok_thr(one) && ok_thr(spr),
           ok_thr(one) && ok_thr(spr) ? spr->items_s.med / one->items_s.med : 0, ">=", 1.0, "x",
           "%s", one && one->status == BENCH_NA ? one->note : "throughput, spread / onecore");
  }
  c = lm(r, "message", "lockfree", "onecore", "in", 24);
  p = peer(r, "sched_yield_pingpong", "onecore", 24);
  target(r, "one core: 24 B message RTT <= 1.2x sched_yield ping-pong", ok_rtt(c) && ok_rtt(p),
         ok_rtt(c) && ok_rtt(p) ? c->rtt.med / p->rtt.med : 0, "<=", 1.2, "x",
         "libmca %.0f ns, sched_yield %.0f ns", ok_rtt(c) ? c->rtt.med : 0, ok_rtt(p) ? p->rtt.med : 0);
  c = bench_find(r, "matrix", "libmca", "message", "lockfree", "block", "onecore", "in", "shm", 24);
  p = peer(r, "futex_pingpong", "onecore", 24);
  target(r, "one core: blocking receive RTT <= 1.1x futex ping-pong", ok_rtt(c) && ok_rtt(p),
         ok_rtt(c) && ok_rtt(p) ? c->rtt.med / p->rtt.med : 0, "<=", 1.1, "x",
         "mcx_set_wait_policy(0,0): libmca %.0f ns, futex %.0f ns", ok_rtt(c) ? c->rtt.med : 0,
         ok_rtt(p) ? p->rtt.med : 0);
  for (int t = 0; t < 3; t++) {
    char n[96];
    size_t size = t == 2 ? 8 : 24;
    bench_cell_t *in = lm(r, types[t], "lockfree", "spread", "in", size);
    bench_cell_t *cr = lm(r, types[t], "lockfree", "spread", "cross", size);
    snprintf(n, sizeof n, "%s cross-process RTT <= 1.15x in-process", types[t]);
    target(r, n, ok_rtt(in) && ok_rtt(cr), ok_rtt(in) && ok_rtt(cr) ? cr->rtt.med / in->rtt.med : 0,
           "<=", 1.15, "x", "%s", cr && cr->status == BENCH_NA ? cr->note : "spread placement, p50");
  }
}

/* ---- the table */
static void fmt_num(char *b, size_t n, double v)
{
  if (v >= 1e9)
    snprintf(b, n, "%.2fG", v / 1e9);
  else if (v >= 1e6)
    snprintf(b, n, "%.2fM", v / 1e6);
  else if (v >= 1e4)
    snprintf(b, n, "%.1fk", v / 1e3);
  else
    snprintf(b, n, "%.0f", v);
}

static void fmt_ns(char *b, size_t n, double v)
{
  if (v >= 1e6)
    snprintf(b, n, "%.1fm", v / 1e6);
  else if (v >= 1e4)
    snprintf(b, n, "%.1fu", v / 1e3);
  else
    snprintf(b, n, "%.0f", v);
}

static void print_cell(FILE *out, const bench_cell_t *c)
{
  if (c->status != BENCH_OK) {
    fprintf(out, "%-46s %s  %s\n", c->id, c->status == BENCH_NA ? "n/a" : "FAILED", c->note);
    return;
  }
  if (c->unstable) {
    fprintf(out, "%-46s unstable: %d of %d samples slow (L > %.1fx the run's median or probes "
                 "disagree), %d re-run; no figure\n",
            c->id, c->nslow, c->nsamples, BENCH_SLOW_FACTOR, c->reruns);
    return;
  }
  char rtt[64] = "-", xl[16] = "-", thr[64] = "-", mbs[16] = "-";
  char t50[16] = "-", t99[16] = "-", t999[16] = "-", t9999[16] = "-", tmax[16] = "-";
  if (c->rtt.n) {
    char a[16], b[16], d[16];
    fmt_ns(a, sizeof a, c->rtt.med);
    fmt_ns(b, sizeof b, c->rtt.lo);
    fmt_ns(d, sizeof d, c->rtt.hi);
    snprintf(rtt, sizeof rtt, "%.12s (%.12s-%.12s)", a, b, d);
    if (c->rtt_xL.n)
      snprintf(xl, sizeof xl, "%.2f", c->rtt_xL.med);
  }
  if (c->hist && c->hist->count) {
    fmt_ns(t50, sizeof t50, (double)bench_hist_quantile(c->hist, 50));
    fmt_ns(t99, sizeof t99, (double)bench_hist_quantile(c->hist, 99));
    fmt_ns(t999, sizeof t999, (double)bench_hist_quantile(c->hist, 99.9));
    fmt_ns(t9999, sizeof t9999, (double)bench_hist_quantile(c->hist, 99.99));
    fmt_ns(tmax, sizeof tmax, (double)c->hist->max);
  }
  if (c->items_s.n) {
    char a[16], b[16], d[16];
    fmt_num(a, sizeof a, c->items_s.med);
    fmt_num(b, sizeof b, c->items_s.lo);
    fmt_num(d, sizeof d, c->items_s.hi);
    snprintf(thr, sizeof thr, "%s (%s-%s)", a, b, d);
    snprintf(mbs, sizeof mbs, "%.0f", c->mb_s.med);
  }
  char clean[24];
  snprintf(clean, sizeof clean, "%d/%d", c->nsamples - c->nslow, c->nsamples);
  fprintf(out, "%-46s %-17s %5s %6s %6s %6s %6s %6s  %-22s %6s %4.0f %5s\n", c->id, rtt, xl, t50, t99,
          t999, t9999, tmax, thr, mbs, c->L.med, clean);
}

void bench_print_table(FILE *out, const bench_results_t *r)
{
  const char *sections[] = {"matrix", "sweep"};
  for (int s = 0; s < 2; s++) {
    int any = 0;
    for (int i = 0; i < r->ncells; i++)
      if (!strcmp(r->cells[i].section, sections[s]))
        any = 1;
    if (!any)
      continue;
    fprintf(out, "\n== %s: RTT = ns per round trip timed in batches (like L), median over clean "
                 "samples (min-max); xL = RTT/L of the same sample; p50..max: every round trip "
                 "of the per-round pass, clean samples; clean = samples not slow / run\n",
            s ? "size sweep, one thread per core" : "matrix");
    fprintf(out, "%-46s %-17s %5s %6s %6s %6s %6s %6s  %-22s %6s %4s %5s\n", "cell", "RTT (min-max)",
            "xL", "p50", "p99", "p99.9", "p99.99", "max", "items/s (min-max)", "MB/s", "L", "clean");
    for (int i = 0; i < r->ncells; i++)
      if (!strcmp(r->cells[i].section, sections[s]))
        print_cell(out, &r->cells[i]);
  }
  fprintf(out, "\n== lock-free / lock-based: throughput ratio, RTT ratio; one pair, "
               "uncontended (the scaling matrix below has the contention)\n");
  for (int i = 0; i < r->nderived; i++) {
    const bench_derived_t *d = &r->derived[i];
    const bench_speedup_t *x = &d->speedup;
    if (d->kind == BENCH_DERIVED_SPEEDUP && !(isnan(x->throughput_ratio) && isnan(x->rtt_ratio)))
      fprintf(out, "  %-36s vs %-6s throughput %7.2fx   RTT %6.2fx\n", d->key, x->against, x->throughput_ratio,
              x->rtt_ratio);
  }
  fprintf(out, "\n== multicore penalty: throughput spread/onecore, none/onecore\n");
  for (int i = 0; i < r->nderived; i++) {
    const bench_derived_t *d = &r->derived[i];
    const bench_penalty_t *x = &d->penalty;
    if (d->kind == BENCH_DERIVED_PENALTY)
      fprintf(out, "  %-36s %6.2f   %6.2f%s\n", d->key, x->spread_over_onecore, x->none_over_onecore,
              isnan(x->spread_over_onecore) && isnan(x->none_over_onecore) ? "   (n/a)" : "");
  }
  fprintf(out, "\n== libmca vs physical limit and best peer: thr/ideal_ring, RTT/L, thr/best peer, RTT/best peer\n");
  for (int i = 0; i < r->nderived; i++) {
    const bench_derived_t *d = &r->derived[i];
    const bench_ratio_t *x = &d->ratio;
    if (d->kind == BENCH_DERIVED_RATIO)
      fprintf(out, "  %-44s %6.2f %6.2f %6.2f %6.2f  (%s)\n", d->key, x->throughput_over_ideal, x->rtt_over_L,
              x->throughput_over_best_peer, x->rtt_over_best_peer, x->best_peer ? x->best_peer : "-");
  }
  fprintf(out, "\n== targets (checked by the benchmark, never by tests)\n");
  for (int i = 0; i < r->ntargets; i++) {
    const bench_target_t *t = &r->targets[i];
    if (isnan(t->value))
      fprintf(out, "%-4s %-62s  %s\n", t->result, t->name, t->detail);
    else
      fprintf(out, "%-4s %-62s %8.2f %s %-6g %-4s %s\n", t->result, t->name, t->value, t->op,
              t->limit, t->unit, t->detail);
  }
  if (r->nL) {
    int slow = 0, cells_slow = 0, unstable = 0, reruns = 0;
    double lo = r->Ls[0], hi = r->Ls[0];
    for (int i = 0; i < r->nL; i++) {
      slow += r->L_median > 0 && r->Ls[i] > BENCH_SLOW_FACTOR * r->L_median;
      lo = r->Ls[i] < lo ? r->Ls[i] : lo;
      hi = r->Ls[i] > hi ? r->Ls[i] : hi;
    }
    for (int i = 0; i < r->ncells; i++) {
      cells_slow += r->cells[i].nslow;
      unstable += r->cells[i].unstable;
      reruns += r->cells[i].reruns;
    }
    fprintf(out, "\nL (cache-line round trip, batch-timed): median %.0f ns, min %.0f, max %.0f over %d probes; "
                 "%d probes above %.1fx the median\n",
            r->L_median, lo, hi, r->nL, slow, BENCH_SLOW_FACTOR);
    fprintf(out, "sample hygiene: %d samples slow (excluded from every figure and target), %d extra "
                 "samples run, %d cells unstable (fewer than %d clean samples)\n",
            cells_slow, reruns, unstable, r->min_clean);
  }
  fprintf(out, "wall time %.1f s\n", r->wall_s);
}

/* ---- JSON */
static void jnum(FILE *f, double v)
{
  if (isnan(v) || isinf(v))
    fputs("null", f);
  else
    fprintf(f, "%.6g", v);
}
static void jstat(FILE *f, const char *name, bench_stat3_t s)
{
  fprintf(f, "\"%s\": ", name);
  if (!s.n) {
    fputs("null", f);
    return;
  }
  fputs("{\"median\": ", f);
  jnum(f, s.med);
  fputs(", \"min\": ", f);
  jnum(f, s.lo);
  fputs(", \"max\": ", f);
  jnum(f, s.hi);
  fprintf(f, ", \"n\": %d}", s.n);
}

/* The derived figures' JSON (docs/benchmarks.md, "derived"): per kind, the
 * name of its list and its members in order, each a field of bench_derived_t
 * of the same name. */
typedef enum {
  DJ_NUMBER, /* double (NaN, inf: null) */
  DJ_KEY,    /* char[] */
  DJ_NAME    /* const char * (NULL: null) */
} derived_member_type_t;
typedef struct derived_member {
  const char *name;
  derived_member_type_t type;
  size_t offset;
} derived_member_t;
#define MEMBER(kind, field, type) {#field, type, offsetof(bench_derived_t, kind.field)}
#define NUM(kind, field) MEMBER(kind, field, DJ_NUMBER)
#define KEY(name) {name, DJ_KEY, offsetof(bench_derived_t, key)}
static const derived_member_t speedup_members[] = {
  KEY("key"), NUM(speedup, throughput_ratio), NUM(speedup, rtt_ratio),
  NUM(speedup, lockfree_items_per_s), MEMBER(speedup, against, DJ_NAME),
  NUM(speedup, locked_items_per_s), NUM(speedup, global_items_per_s)};
static const derived_member_t penalty_members[] = {
  KEY("key"), NUM(penalty, spread_over_onecore), NUM(penalty, none_over_onecore),
  NUM(penalty, onecore_items_per_s), NUM(penalty, spread_items_per_s)};
static const derived_member_t ratio_members[] = {
  KEY("cell"), NUM(ratio, throughput_over_ideal), NUM(ratio, rtt_over_L),
  NUM(ratio, throughput_over_best_peer), NUM(ratio, rtt_over_best_peer),
  MEMBER(ratio, best_peer, DJ_NAME)};
#undef KEY
#undef NUM
#undef MEMBER
#define LIST(name, members) {name, members, sizeof members / sizeof *members}
static const struct derived_list {
  const char *name;
  const derived_member_t *members;
  size_t n;
} derived_lists[BENCH_DERIVED_KINDS] = {
  [BENCH_DERIVED_SPEEDUP] = LIST("speedup", speedup_members),
  [BENCH_DERIVED_PENALTY] = LIST("penalty", penalty_members),
  [BENCH_DERIVED_RATIO] = LIST("ratios", ratio_members),
};
#undef LIST

/* {"speedup": [...], "penalty": [...], "ratios": [...]}: every figure of each kind in its list. */
static void derived_json(FILE *f, const bench_results_t *r)
{
  fputc('{', f);
  for (int k = 0; k < BENCH_DERIVED_KINDS; k++) {
    const struct derived_list *l = &derived_lists[k];
    fprintf(f, "%s\"%s\": [", k ? ",\n" : "", l->name);
    int first = 1;
    for (int i = 0; i < r->nderived; i++) {
      const bench_derived_t *d = &r->derived[i];
      if (d->kind != (bench_derived_kind_t)k)
        continue;
      fprintf(f, "%s\n  {", first ? "" : ",");
      first = 0;
      for (size_t m = 0; m < l->n; m++) {
        const char *field = (const char *)d + l->members[m].offset;
        fprintf(f, "%s\"%s\": ", m ? ", " : "", l->members[m].name);
        const char *name = l->members[m].type == DJ_NAME ? *(const char *const *)field : field;
        if (l->members[m].type == DJ_NUMBER)
          jnum(f, *(const double *)field);
        else if (name)
          mca_json_str(f, name);
        else
          fputs("null", f);
      }
      fputc('}', f);
    }
    fputc(']', f);
  }
  fputc('}', f);
}

int bench_write_json(const char *path, const bench_results_t *r)
{
  FILE *f = mca_output_open("bench", path);
  if (!f)
    return -1;
  const bench_machine_t *m = &r->machine;
  fprintf(f, "{\n\"schema\": \"mca-bench/1\",\n\"date\": ");
  mca_json_str(f, m->date);
  fprintf(f, ",\n\"command\": ");
  mca_json_str(f, r->argv_line);
  fprintf(f, ",\n");
  bench_machine_json(f, m, m->cpus);
  fprintf(f, ",\n");
  fprintf(f, "\"config\": {\"timer_cost_ns\": %llu, \"mode\": \"%s\", \"repeat\": %d, \"wall_s\": %.2f, "
             "\"cpus\": [",
          (unsigned long long)bench_timer_cost_ns(),
          r->smoke ? "smoke" : r->quick ? "quick" : "full", r->repeat, r->wall_s);
  for (int i = 0; i < bench_ncpus(); i++)
    fprintf(f, "%s%d", i ? ", " : "", bench_cpus[i]);
  fprintf(f, "], \"slow_factor\": %.2f, \"L_median_ns\": ", BENCH_SLOW_FACTOR);
  jnum(f, r->L_median);
  fprintf(f, ", \"min_clean\": %d, \"hist_sub_bits\": %d},\n", r->min_clean, BENCH_HIST_SUB_BITS);
  fprintf(f, "\"available\": {\"packet\": %s, \"scalar\": %s, \"cross_process\": %s, \"pmq\": %s, \"notes\": {\"channels\": ",
          r->have_pkt ? "true" : "false", r->have_scl ? "true" : "false",
          r->have_xproc ? "true" : "false", r->have_pmq ? "true" : "false");
  mca_json_str(f, r->probe_chan);
  fprintf(f, ", \"cross_process\": ");
  mca_json_str(f, r->probe_xproc);
  fprintf(f, ", \"pmq\": ");
  mca_json_str(f, r->probe_pmq);
  fprintf(f, "}},\n\"L_ns\": [");
  for (int i = 0; i < r->nL; i++) {
    if (i)
      fputs(", ", f);
    jnum(f, r->Ls[i]);
  }
  fprintf(f, "],\n\"quantile_levels\": [");
  for (int i = 0; i < BENCH_NQ; i++)
    fprintf(f, "%s%g", i ? ", " : "", bench_quantiles[i]);
  fprintf(f, "],\n\"cells\": [\n");
  for (int i = 0; i < r->ncells; i++) {
    const bench_cell_t *c = &r->cells[i];
    fprintf(f, "%s{\"id\": ", i ? ",\n" : "");
    mca_json_str(f, c->id);
    fprintf(f, ", \"section\": \"%s\", \"subject\": \"%s\", \"kind\": \"%s\", \"type\": \"%s\", "
               "\"locking\": \"%s\", \"wait\": \"%s\", \"placement\": \"%s\", \"process\": \"%s\", "
               "\"transport\": \"%s\", \"size\": %zu, \"status\": \"%s\", \"note\": ",
            c->section, c->subject, c->kind, c->type, c->locking, c->wait, c->placement, c->process,
            c->transport, c->size,
            c->status == BENCH_OK ? (c->unstable ? "unstable" : "ok") : c->status == BENCH_NA ? "n/a" : "error");
    mca_json_str(f, c->note);
    fprintf(f, ", \"consume\": \"%s\"", c->consume ? c->consume : "");
    /* how the stream drove the subject: items per call (bench_stream_calls) */
    if (c->ops && !c->ops->pingpong_only)
      fprintf(f, ", \"stream_items_per_call\": %u", bench_stream_calls(c->ops, c->size, c->inplace));
    else
      fputs(", \"stream_items_per_call\": null", f);
    fputs(",\n  \"summary\": {", f);
    jstat(f, "rtt_ns", c->rtt);
    fputs(", ", f);
    jstat(f, "rtt_over_L", c->rtt_xL);
    fputs(", ", f);
    jstat(f, "rtt_p50_ns", c->rtt_p50);
    fputs(", ", f);
    jstat(f, "rtt_p99_ns", c->rtt_p99);
    fputs(", ", f);
    jstat(f, "rtt_p999_ns", c->rtt_p999);
    fputs(", ", f);
    jstat(f, "rtt_min_ns", c->rtt_min);
    fputs(", ", f);
    jstat(f, "rtt_p50_over_L", c->rtt_p50_xL);
    fputs(", ", f);
    jstat(f, "items_per_s", c->items_s);
    fputs(", ", f);
    jstat(f, "mb_per_s", c->mb_s);
    fputs(", ", f);
    jstat(f, "L_ns", c->L);
    fprintf(f, ", \"mode_flips\": %d, \"samples\": %d, \"slow\": %d, \"reruns\": %d, \"tail_ns\": ",
            c->flips, c->nsamples, c->nslow, c->reruns);
    if (c->hist && c->hist->count)
      fprintf(f, "{\"n\": %llu, \"p50\": %llu, \"p99\": %llu, \"p999\": %llu, \"p9999\": %llu, \"max\": %llu, "
                 "\"mean\": %.1f}",
              (unsigned long long)c->hist->count, (unsigned long long)bench_hist_quantile(c->hist, 50),
              (unsigned long long)bench_hist_quantile(c->hist, 99),
              (unsigned long long)bench_hist_quantile(c->hist, 99.9),
              (unsigned long long)bench_hist_quantile(c->hist, 99.99), (unsigned long long)c->hist->max,
              bench_hist_mean(c->hist));
    else
      fputs("null", f);
    fputs("},\n", f);
    if (c->hist && c->hist->count) {
      /* the whole distribution: [lowest value of the bucket, count] for every bucket in use */
      fputs("  \"hist\": [", f);
      int first = 1;
      for (unsigned b = 0; b < BENCH_HIST_BUCKETS; b++)
        if (c->hist->c[b]) {
          fprintf(f, "%s[%llu, %llu]", first ? "" : ", ", (unsigned long long)bench_hist_lowest(b),
                  (unsigned long long)c->hist->c[b]);
          first = 0;
        }
      fputs("],\n", f);
    }
    if (c->hpc[0][0][0] || c->hpc[1][0][0]) {
      fputs("  \"hpc_per_item\": {\"pingpong\": [", f);
      mca_json_str(f, c->hpc[0][0]);
      fputs(", ", f);
      mca_json_str(f, c->hpc[0][1]);
      fputs("], \"stream\": [", f);
      mca_json_str(f, c->hpc[1][0]);
      fputs(", ", f);
      mca_json_str(f, c->hpc[1][1]);
      fputs("]},\n", f);
    }
    fputs("  \"samples\": [", f);
    for (int k = 0; k < c->nsamples; k++) {
      const bench_sample_t *s = &c->s[k];
      fprintf(f, "%s\n    {\"L_before_ns\": ", k ? "," : "");
      jnum(f, s->L_before);
      fputs(", \"L_after_ns\": ", f);
      jnum(f, s->L_after);
      fputs(", \"L_ns\": ", f);
      jnum(f, s->L);
      fprintf(f, ", \"mode_flip\": %s, \"slow\": %s, \"rtt\": ", s->mode_flip ? "true" : "false",
              s->slow ? "true" : "false");
      if (s->has_rtt) {
        fprintf(f, "{\"batch\": %llu, \"batches\": %llu, \"batch_ns\": %.1f, \"batch_min_ns\": %.1f, "
                   "\"n\": %llu, \"min\": %.0f, \"p50\": %.0f, \"p99\": %.0f, \"p999\": %.0f, "
                   "\"p9999\": %.0f, \"max\": %.0f, \"mean\": %.1f, \"quantiles\": [",
                (unsigned long long)s->batch, (unsigned long long)s->nbatch, s->rtt_batch,
                s->rtt_batch_min, (unsigned long long)s->rtt_n, s->rtt_min, s->rtt_p50, s->rtt_p99,
                s->rtt_p999, s->rtt_p9999, s->rtt_max, s->rtt_mean);
        for (int q = 0; q < BENCH_NQ; q++)
          fprintf(f, "%s%.0f", q ? ", " : "", s->q[q]);
        fputs("]}", f);
      } else {
        fputs("null", f);
      }
      fputs(", \"stream\": ", f);
      if (s->has_stream)
        fprintf(f, "{\"n\": %llu, \"elapsed_ns\": %.0f, \"items_per_s\": %.6g, \"mb_per_s\": %.6g}",
                (unsigned long long)s->st_n, s->st_elapsed_ns, s->items_s, s->mb_s);
      else
        fputs("null", f);
      fputc('}', f);
    }
    fputs("]}", f);
  }
  fprintf(f, "\n],\n\"derived\": ");
  derived_json(f, r);
  fprintf(f, ",\n\"targets\": [");
  for (int i = 0; i < r->ntargets; i++) {
    const bench_target_t *t = &r->targets[i];
    fprintf(f, "%s\n  {\"name\": ", i ? "," : "");
    mca_json_str(f, t->name);
    fputs(", \"value\": ", f);
    jnum(f, t->value);
    fprintf(f, ", \"op\": \"%s\", \"limit\": ", t->op);
    jnum(f, t->limit);
    fprintf(f, ", \"unit\": \"%s\", \"result\": \"%s\", \"detail\": ", t->unit, t->result);
    mca_json_str(f, t->detail);
    fputc('}', f);
  }
  fprintf(f, "\n],\n\"state\": ");
  bench_state_json(f, r);
  fprintf(f, ",\n\"scale\": ");
  bench_scale_json(f, r);
  /* reserved for the instruction-count mode (--instr): null until a run fills it */
  fprintf(f, ",\n\"instr\": null");
  fprintf(f, "\n}\n");
  return mca_output_close(f);
}

void bench_state_print(FILE *out, const bench_results_t *r)
{
  if (!r->nstate)
    return;
  fprintf(out, "\n== state messages (mcx_state_*: newest value, no FIFO; writer CPU 0, reader CPU 1, "
               "24-byte values)\n");
  fprintf(out, "%-9s %-24s %-24s %-18s %-16s %s\n", "locking", "writes/s", "reads/s", "ns/read",
          "retries/read", "vs FIFO messages (same run)");
  for (int i = 0; i < r->nstate; i++) {
    const bench_state_t *s = &r->state[i];
    if (!s->reads_per_s.n) {
      fprintf(out, "%-9s n/a  %s\n", s->locking, s->note);
      continue;
    }
    char w[64], rd[64], ns[64], cmp[96] = "n/a (no message cell in this run)";
    fmt_num(w, sizeof w, s->writes_per_s.med);
    fmt_num(rd, sizeof rd, s->reads_per_s.med);
    snprintf(ns, sizeof ns, "%.1f (%.1f-%.1f)", s->ns_per_read.med, s->ns_per_read.lo,
             s->ns_per_read.hi);
    if (!isnan(s->msg_items_per_s))
      snprintf(cmp, sizeof cmp, "writes %.2fx, reads %.2fx the 24 B message stream", 
               s->writes_per_s.med / s->msg_items_per_s, s->reads_per_s.med / s->msg_items_per_s);
    fprintf(out, "%-9s %-24s %-24s %-18s %-16.2g %s%s\n", s->locking, w, rd, ns,
            s->retries_per_read.med, cmp, s->failed ? "  (a sample failed)" : "");
  }
}

void bench_state_json(FILE *f, const bench_results_t *r)
{
  fputc('[', f);
  for (int i = 0; i < r->nstate; i++) {
    const bench_state_t *s = &r->state[i];
    fprintf(f, "%s\n  {\"locking\": ", i ? "," : "");
    mca_json_str(f, s->locking);
    fputs(", ", f);
    jstat(f, "writes_per_s", s->writes_per_s);
    fputs(", ", f);
    jstat(f, "reads_per_s", s->reads_per_s);
    fputs(", ", f);
    jstat(f, "ns_per_read", s->ns_per_read);
    fputs(", ", f);
    jstat(f, "retries_per_read", s->retries_per_read);
    fputs(", \"message_items_per_s\": ", f);
    jnum(f, s->msg_items_per_s);
    fputs(", \"message_rtt_p50_ns\": ", f);
    jnum(f, s->msg_rtt_ns);
    fprintf(f, ", \"failed\": %s}", s->failed ? "true" : "false");
  }
  fputs("\n]", f);
}

void bench_hpc_print(FILE *out, const bench_results_t *r)
{
  fprintf(out, "\n== counters per item exchanged (--hpc; each side counts its own thread over the "
               "measured phase of the last sample)\n");
  mcx_hpc_group_t *g = NULL;
  if (mcx_hpc_group_open_default(&g, 0) == 0) {
    const char *name;
    mcx_hpc_status_t st;
    fprintf(out, "events that do not open here (n/a below):");
    for (unsigned k = 0; mcx_hpc_group_skipped(g, k, &name, &st) == 0; k++)
      fprintf(out, " %s(%s)", name, mcx_hpc_status_name(st));
    fprintf(out, "\n");
    mcx_hpc_group_close(g);
  }
  for (int i = 0; i < r->ncells; i++) {
    const bench_cell_t *c = &r->cells[i];
    if (c->status != BENCH_OK)
      continue;
    static const char *const mode[2] = {"ping-pong", "stream"};
    for (int m = 0; m < 2; m++)
      if (c->hpc[m][0][0])
        fprintf(out, "%-44s %-9s sender:   %s\n%-44s %-9s receiver: %s\n", c->id, mode[m],
                c->hpc[m][0], "", "", c->hpc[m][1]);
  }
}
