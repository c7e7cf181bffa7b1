/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mca bench: the scaling and contention matrix. Where the single lock of a
 * lock-based design collapses is not the one-pair ping-pong (the lock is
 * never contended there) but many threads using one domain at once:
 *
 *   pairs  P = 1 .. ncpus and 2 x ncpus concurrent sender/receiver pairs,
 *          each pair its own endpoints, all in one domain;
 *   fanin  N = 1 .. ncpus and 2 x ncpus senders to one receiving endpoint;
 *   mixed  a message pair, a packet-channel pair and a scalar-channel pair
 *          at once;
 *
 * each under every locking mode (lockfree, global, kernel). Every thread is
 * its own node, pinned round-robin over --cpus. Senders send 24-byte items
 * (8-byte scalars) as fast as they can for a fixed time, then one end marker;
 * receivers check each sender's sequence. Reported: aggregate items/s, the
 * lock-free / lock-based ratio per P and N, and per item the context
 * switches (getrusage RUSAGE_THREAD of every thread), futex calls and semop
 * calls (mcx_thread_syscalls). L is measured around every sample; slow
 * samples are excluded like in the matrix.
 */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifndef _WIN32 /* Windows counts no context switches per thread: csw is not measured there */
#include <sys/resource.h>
#endif

#include "bench.h"
#include "bench_report.h"
#include "mcapi.h"
#include "mcx.h"

#define SCALE_MAX_ROWS 96
#define SCALE_END UINT64_MAX /* the end marker's sequence */

typedef struct scale_row {
  char kind[8];        /* pairs | fanin | mixed */
  const char *locking; /* lockfree | global | kernel */
  int n;               /* P pairs, N senders, or 3 (mixed) */
  int threads;
  int nsamples, nslow, unstable, failed;
  char note[160];
  double items_s[BENCH_MAX_REPEAT], L[BENCH_MAX_REPEAT];
  double csw[BENCH_MAX_REPEAT], futex[BENCH_MAX_REPEAT], semop[BENCH_MAX_REPEAT];
  int slow[BENCH_MAX_REPEAT];
  bench_stat3_t items; /* clean samples */
  double csw_per_item, futex_per_item, semop_per_item; /* medians over clean samples */
} scale_row_t;

struct bench_scale {
  scale_row_t rows[SCALE_MAX_ROWS];
  int nrows;
  double seconds;
  char capped[160];
};

/* ---- one sample */
typedef struct scale_run scale_run_t;
typedef struct scale_thread {
  scale_run_t *run;
  int idx;
  int role;      /* 0 sender, 1 receiver */
  int type;      /* 'm' 'p' 's' */
  mcapi_node_t node, peer_node;
  int senders;   /* receivers: how many end markers to wait for */
  int cpu;
  uint64_t items; /* receivers: items received; senders: sent */
  uint64_t csw, futex, semop;
  char err[120];
} scale_thread_t;

struct scale_run {
  uint32_t domain;
  mcx_locking_t locking;
  int nthreads;
  scale_thread_t *t;
  pthread_barrier_t ready, go;
  atomic_int stop;
  atomic_int failed;
};

static uint64_t thread_csw(void)
{
#ifdef _WIN32
  return 0;
#else
  struct rusage ru;
  if (getrusage(RUSAGE_THREAD, &ru))
    return 0;
  return (uint64_t)ru.ru_nvcsw + (uint64_t)ru.ru_nivcsw;
#endif
}

static const char *st_name(mcapi_status_t st)
{
  static _Thread_local char b[MCAPI_MAX_STATUS_MSG_LEN];
  return mcapi_display_status(st, b, sizeof b) ? b : "?";
}

#define FAIL(t, ...)                                          \
  do {                                                        \
    snprintf((t)->err, sizeof (t)->err, __VA_ARGS__);         \
    atomic_store(&(t)->run->failed, 1);                       \
  } while (0)

struct item {
  uint64_t seq;
  uint32_t sender;
  uint32_t pad[3];
}; /* 24 bytes */

static void *scale_thread(void *arg)
{
  scale_thread_t *t = arg;
  scale_run_t *run = t->run;
  mcapi_status_t st;
  mcapi_info_t info;
  mcapi_param_t prm;
  int joined = 0;
  bench_pin(t->cpu);
  mcx_param_init(&prm);
  prm.locking = run->locking;
  mcapi_initialize(run->domain, t->node, NULL, &prm, &info, &st);
  if (st != MCAPI_SUCCESS) {
    FAIL(t, "mcapi_initialize(node %u): %s", (unsigned)t->node, st_name(st));
    pthread_barrier_wait(&run->ready);
    pthread_barrier_wait(&run->go);
    return NULL;
  }
  mcapi_endpoint_t me = mcapi_endpoint_create(1, &st), peer = 0;
  mcapi_pktchan_send_hndl_t ps = 0;
  mcapi_pktchan_recv_hndl_t pr = 0;
  mcapi_sclchan_send_hndl_t ss = 0;
  mcapi_sclchan_recv_hndl_t sr = 0;
  if (st != MCAPI_SUCCESS)
    FAIL(t, "endpoint_create: %s", st_name(st));
  else if (t->role == 0) {
    peer = mcapi_endpoint_get(run->domain, t->peer_node, 1, 10000, &st);
    if (st != MCAPI_SUCCESS)
      FAIL(t, "endpoint_get: %s", st_name(st));
  }
  /* channels: the sender connects, both open their side */
  if (!atomic_load(&run->failed) && t->type != 'm') {
    mcapi_request_t rq;
    size_t sz;
    if (t->role == 0) {
      if (t->type == 'p')
        mcapi_pktchan_connect_i(me, peer, &rq, &st);
      else
        mcapi_sclchan_connect_i(me, peer, &rq, &st);
      if (st == MCAPI_PENDING || st == MCAPI_SUCCESS)
        mcapi_wait(&rq, &sz, 10000, &st);
      if (st == MCAPI_SUCCESS) {
        if (t->type == 'p')
          mcapi_pktchan_send_open_i(&ps, me, &rq, &st);
        else
          mcapi_sclchan_send_open_i(&ss, me, &rq, &st);
      }
    } else {
      if (t->type == 'p')
        mcapi_pktchan_recv_open_i(&pr, me, &rq, &st);
      else
        mcapi_sclchan_recv_open_i(&sr, me, &rq, &st);
    }
    if (st == MCAPI_PENDING || st == MCAPI_SUCCESS)
      mcapi_wait(&rq, &sz, 10000, &st);
    if (st != MCAPI_SUCCESS)
      FAIL(t, "channel set-up: %s", st_name(st));
  }
  pthread_barrier_wait(&run->ready);
  pthread_barrier_wait(&run->go);
  if (atomic_load(&run->failed))
    goto out;
  joined = 1;
  uint64_t csw0 = thread_csw(), f0, s0, f1, s1;
  mcx_thread_syscalls(&f0, &s0);
  if (t->role == 0) {
    struct item it = {0, (uint32_t)t->idx, {0, 0, 0}};
    for (int last = 0; !last;) {
      last = atomic_load_explicit(&run->stop, memory_order_relaxed) != 0;
      it.seq = last ? SCALE_END : it.seq + 1;
      if (t->type == 'm')
        mcapi_msg_send(me, peer, &it, sizeof it, 0, &st);
      else if (t->type == 'p')
        mcapi_pktchan_send(ps, &it, sizeof it, &st);
      else
        mcapi_sclchan_send_uint64(ss, it.seq, &st);
      if (st != MCAPI_SUCCESS) {
        FAIL(t, "send: %s", st_name(st));
        break;
      }
      if (!last)
        t->items++;
    }
  } else {
    /* per-sender order check; senders are numbered by thread index */
    uint64_t *next = calloc((size_t)run->nthreads, sizeof *next);
    int ends = 0;
    while (ends < t->senders && !atomic_load(&run->failed)) {
      struct item it;
      size_t got = 0;
      if (t->type == 'm') {
        mcapi_msg_recv(me, &it, sizeof it, &got, &st);
      } else if (t->type == 'p') {
        void *p = NULL;
        mcapi_pktchan_recv(pr, &p, &got, &st);
        if (st == MCAPI_SUCCESS) {
          memcpy(&it, p, sizeof it);
          mcapi_status_t s2;
          mcapi_pktchan_release(p, &s2);
        }
      } else {
        it.seq = mcapi_sclchan_recv_uint64(sr, &st);
        it.sender = (uint32_t)t->idx - 1; /* its pair's sender */
        got = sizeof it;
      }
      if (st != MCAPI_SUCCESS || got != sizeof it || it.sender >= (uint32_t)run->nthreads) {
        FAIL(t, "receive: %s (size %zu)", st_name(st), got);
        break;
      }
      if (it.seq == SCALE_END) {
        ends++;
        continue;
      }
      if (it.seq != ++next[it.sender]) {
        FAIL(t, "sender %u: item %llu arrived, %llu expected", it.sender,
             (unsigned long long)it.seq, (unsigned long long)next[it.sender]);
        break;
      }
      t->items++;
    }
    free(next);
  }
  mcx_thread_syscalls(&f1, &s1);
  t->csw = thread_csw() - csw0;
  t->futex = f1 - f0;
  t->semop = s1 - s0;
out:
  (void)joined;
  if (ps)
    mcapi_pktchan_send_close_i(ps, &(mcapi_request_t){0}, &st);
  if (pr)
    mcapi_pktchan_recv_close_i(pr, &(mcapi_request_t){0}, &st);
  if (ss)
    mcapi_sclchan_send_close_i(ss, &(mcapi_request_t){0}, &st);
  if (sr)
    mcapi_sclchan_recv_close_i(sr, &(mcapi_request_t){0}, &st);
  mcapi_finalize(&st);
  return NULL;
}

static uint32_t scale_domain_next;

/* Runs one sample of a row; fills items/s and the per-item counters. */
static int scale_sample(scale_row_t *row, mcx_locking_t lk, double seconds, int k)
{
  scale_run_t run;
  memset(&run, 0, sizeof run);
  run.domain = scale_domain_next++;
  run.locking = lk;
  int n = row->n;
  if (!strcmp(row->kind, "pairs"))
    run.nthreads = 2 * n;
  else if (!strcmp(row->kind, "fanin"))
    run.nthreads = n + 1;
  else
    run.nthreads = 6;
  run.t = calloc((size_t)run.nthreads, sizeof *run.t);
  for (int i = 0; i < run.nthreads; i++) {
    scale_thread_t *t = &run.t[i];
    t->run = &run;
    t->idx = i;
    t->node = (mcapi_node_t)(100 + i);
    t->cpu = bench_cpu(i);
    t->type = 'm';
    if (!strcmp(row->kind, "fanin")) {
      /* thread 0 receives from every other */
      t->role = i == 0;
      t->peer_node = 100;
      t->senders = n;
    } else {
      t->role = i % 2;
      t->peer_node = (mcapi_node_t)(100 + (i | 1));
      t->senders = 1;
      if (!strcmp(row->kind, "mixed"))
        t->type = "mmppss"[i];
    }
  }
  pthread_barrier_init(&run.ready, NULL, (unsigned)run.nthreads + 1);
  pthread_barrier_init(&run.go, NULL, (unsigned)run.nthreads + 1);
  pthread_t *th = calloc((size_t)run.nthreads, sizeof *th);
  for (int i = 0; i < run.nthreads; i++)
    pthread_create(&th[i], NULL, scale_thread, &run.t[i]);
  pthread_barrier_wait(&run.ready);
  row->L[k] = bench_measure_L(1000);
  uint64_t t0 = bench_now_ns();
  pthread_barrier_wait(&run.go);
  usleep((useconds_t)(seconds * 1e6));
  atomic_store(&run.stop, 1);
  for (int i = 0; i < run.nthreads; i++)
    pthread_join(th[i], NULL);
  uint64_t t1 = bench_now_ns();
  double L2 = bench_measure_L(1000);
  int rc = 0;
  uint64_t items = 0, csw = 0, fx = 0, sm = 0;
  for (int i = 0; i < run.nthreads; i++) {
    scale_thread_t *t = &run.t[i];
    if (t->err[0] && !rc) {
      snprintf(row->note, sizeof row->note, "thread %d: %s", i, t->err);
      rc = -1;
    }
    if (t->role == 1)
      items += t->items;
    csw += t->csw;
    fx += t->futex;
    sm += t->semop;
  }
  double lo = row->L[k] < L2 ? row->L[k] : L2, hi = row->L[k] < L2 ? L2 : row->L[k];
  row->slow[k] = lo > 0 && hi / lo > BENCH_SLOW_FACTOR; /* probes disagree; the median test comes later */
  row->L[k] = hi;
  row->items_s[k] = items ? (double)items * 1e9 / (double)(t1 - t0) : 0;
#ifdef _WIN32
  row->csw[k] = NAN; /* not measured (thread_csw) */
  (void)csw;
#else
  row->csw[k] = items ? (double)csw / (double)items : NAN;
#endif
  row->futex[k] = items ? (double)fx / (double)items : NAN;
  row->semop[k] = items ? (double)sm / (double)items : NAN;
  pthread_barrier_destroy(&run.ready);
  pthread_barrier_destroy(&run.go);
  free(th);
  free(run.t);
  return rc;
}

/* Marks slow samples; returns the number of clean ones. */
static int classify_row(scale_row_t *row, double Lmed)
{
  int clean = 0;
  row->nslow = 0;
  for (int s = 0; s < row->nsamples; s++) {
    if (Lmed > 0 && row->L[s] > BENCH_SLOW_FACTOR * Lmed)
      row->slow[s] = 1;
    row->nslow += row->slow[s];
    clean += !row->slow[s];
  }
  return clean;
}

static void summarize_row(scale_row_t *row, double Lmed, int min_clean)
{
  double a[BENCH_MAX_REPEAT], c1[BENCH_MAX_REPEAT], c2[BENCH_MAX_REPEAT], c3[BENCH_MAX_REPEAT];
  int k = 0;
  classify_row(row, Lmed);
  for (int s = 0; s < row->nsamples; s++) {
    if (row->slow[s])
      continue;
    a[k] = row->items_s[s];
    c1[k] = row->csw[s];
    c2[k] = row->futex[s];
    c3[k] = row->semop[s];
    k++;
  }
  row->unstable = !row->failed && k < min_clean;
  row->items.n = 0;
  if (row->failed || row->unstable || !k)
    return;
  row->items.med = bench_median(a, k);
  row->items.lo = a[0];
  row->items.hi = a[k - 1];
  row->items.n = k;
  row->csw_per_item = bench_median(c1, k);
  row->futex_per_item = bench_median(c2, k);
  row->semop_per_item = bench_median(c3, k);
}

static void add_row(struct bench_scale *sc, const char *kind, const char *lock, int n)
{
  if (sc->nrows >= SCALE_MAX_ROWS)
    return;
  scale_row_t *r = &sc->rows[sc->nrows++];
  memset(r, 0, sizeof *r);
  snprintf(r->kind, sizeof r->kind, "%s", kind);
  r->locking = lock;
  r->n = n;
}

static mcx_locking_t lock_of(const char *s)
{
  return !strcmp(s, "global") ? MCX_LOCKING_GLOBAL : !strcmp(s, "kernel") ? MCX_LOCKING_KERNEL
                                                                          : MCX_LOCKING_LOCKFREE;
}

void bench_scale_run(bench_results_t *r, int level, int repeat, int progress)
{
  struct bench_scale *sc = calloc(1, sizeof *sc);
  r->scale = sc;
  sc->seconds = level == 0 ? 0.005 : level == 1 ? 0.05 : 0.2;
  scale_domain_next = 0x20000000u + (((uint32_t)getpid() & 0xfff) << 16);
  int ncpu = bench_ncpus();
  /* every thread is a node: at most MCA_MAX_NODES of them in one domain */
  int maxn = MCA_MAX_NODES < MCAPI_MAX_ENDPOINTS ? MCA_MAX_NODES : MCAPI_MAX_ENDPOINTS;
  int ns[66], nn = 0;
  for (int i = 1; i <= ncpu && nn < 64; i++)
    ns[nn++] = i;
  ns[nn++] = 2 * ncpu;
  if (level == 0) /* smoke: one of each */
    nn = 1, ns[0] = ncpu > 1 ? 2 : 1;
  static const char *const locks[] = {"lockfree", "global", "kernel"};
  for (int i = 0; i < nn; i++) {
    int p = ns[i];
    if (2 * p > maxn) {
      snprintf(sc->capped, sizeof sc->capped,
               "P and N above %d skipped: every thread is a node and a domain holds %d", maxn / 2, maxn);
      continue;
    }
    for (int l = 0; l < 3; l++)
      add_row(sc, "pairs", locks[l], p);
  }
  for (int i = 0; i < nn; i++) {
    int p = ns[i];
    if (p + 1 > maxn)
      continue;
    for (int l = 0; l < 3; l++)
      add_row(sc, "fanin", locks[l], p);
  }
  int chan = r->have_pkt && r->have_scl;
  for (int l = 0; l < 3 && chan; l++)
    add_row(sc, "mixed", locks[l], 3);
  /* interleaved: repeat k of every row, then k + 1 */
  int reps = repeat < BENCH_MAX_REPEAT ? repeat : BENCH_MAX_REPEAT;
  for (int k = 0; k < reps; k++)
    for (int i = 0; i < sc->nrows; i++) {
      scale_row_t *row = &sc->rows[i];
      if (row->failed)
        continue;
      if (progress)
        fprintf(stderr, "\r\033[K[scale %d/%d] %s.%s.%d", k * sc->nrows + i + 1, reps * sc->nrows,
                row->kind, row->locking, row->n);
      row->threads = !strcmp(row->kind, "pairs") ? 2 * row->n : !strcmp(row->kind, "fanin") ? row->n + 1 : 6;
      if (scale_sample(row, lock_of(row->locking), sc->seconds, row->nsamples))
        row->failed = 1;
      else
        row->nsamples++;
    }
  /* hygiene: like the matrix, against the run's median L (matrix probes
   * included); rows short of clean samples get at most `reps` more */
  double Lmed = r->L_median;
  int min_clean = (reps + 1) / 2;
  for (int i = 0; i < sc->nrows; i++) {
    scale_row_t *row = &sc->rows[i];
    for (int extra = 0; !row->failed && extra < reps && row->nsamples < BENCH_MAX_REPEAT &&
                        classify_row(row, Lmed) < min_clean;
         extra++) {
      bench_wait_fast_mode(Lmed, level == 0 ? 300 : 2000);
      if (scale_sample(row, lock_of(row->locking), sc->seconds, row->nsamples))
        row->failed = 1;
      else
        row->nsamples++;
    }
    summarize_row(row, Lmed, min_clean);
  }
}

static const scale_row_t *find_row(const struct bench_scale *sc, const char *kind, const char *lock,
                                   int n)
{
  for (int i = 0; i < sc->nrows; i++)
    if (!strcmp(sc->rows[i].kind, kind) && !strcmp(sc->rows[i].locking, lock) && sc->rows[i].n == n)
      return &sc->rows[i];
  return NULL;
}

/* lock-free items/s over the locked mode's, same kind and n (NAN when either has no figure) */
static double ratio_vs(const struct bench_scale *sc, const scale_row_t *row, const char *lock)
{
  const scale_row_t *lf = find_row(sc, row->kind, "lockfree", row->n);
  const scale_row_t *lk = find_row(sc, row->kind, lock, row->n);
  if (!lf || !lk || !lf->items.n || !lk->items.n || lk->items.med <= 0)
    return NAN;
  return lf->items.med / lk->items.med;
}

void bench_scale_print(FILE *out, const bench_results_t *r)
{
  const struct bench_scale *sc = r->scale;
  if (!sc || !sc->nrows)
    return;
  fprintf(out, "\n== scaling and contention (one domain; every thread a node, pinned round-robin over "
               "%d CPUs; %.0f ms per sample; 24 B messages unless mixed; per item: context switches, "
               "futex and semop calls of all threads)\n",
          bench_ncpus(), sc->seconds * 1e3);
  fprintf(out, "%-7s %-9s %4s %7s  %-26s %8s %8s %8s  %9s %9s %5s\n", "kind", "locking", "P/N",
          "threads", "items/s (min-max)", "csw", "futex", "semop", "lf/global", "lf/kernel", "clean");
  for (int i = 0; i < sc->nrows; i++) {
    const scale_row_t *row = &sc->rows[i];
    char clean[16];
    snprintf(clean, sizeof clean, "%d/%d", row->nsamples - row->nslow, row->nsamples);
    if (row->failed) {
      fprintf(out, "%-7s %-9s %4d %7d  FAILED: %s\n", row->kind, row->locking, row->n, row->threads,
              row->note);
      continue;
    }
    if (row->unstable) {
      fprintf(out, "%-7s %-9s %4d %7d  unstable: %d of %d samples slow; no figure\n", row->kind,
              row->locking, row->n, row->threads, row->nslow, row->nsamples);
      continue;
    }
    char thr[64];
    snprintf(thr, sizeof thr, "%.3gM (%.3g-%.3g)", row->items.med / 1e6, row->items.lo / 1e6,
             row->items.hi / 1e6);
    char rg[16] = "", rk[16] = "";
    if (!strcmp(row->locking, "lockfree")) {
      double g = ratio_vs(sc, row, "global"), k = ratio_vs(sc, row, "kernel");
      if (!isnan(g))
        snprintf(rg, sizeof rg, "%.2fx", g);
      if (!isnan(k))
        snprintf(rk, sizeof rk, "%.2fx", k);
    }
    fprintf(out, "%-7s %-9s %4d %7d  %-26s %8.4f %8.4f %8.3f  %9s %9s %5s\n", row->kind, row->locking,
            row->n, row->threads, thr, row->csw_per_item, row->futex_per_item, row->semop_per_item, rg,
            rk, clean);
  }
  if (sc->capped[0])
    fprintf(out, "note: %s\n", sc->capped);
  if (!r->have_pkt || !r->have_scl)
    fprintf(out, "note: mixed traffic needs packet and scalar channels (n/a in this build)\n");
}

static void jnum_(FILE *f, double v)
{
  if (isnan(v) || isinf(v))
    fputs("null", f);
  else
    fprintf(f, "%.6g", v);
}

void bench_scale_json(FILE *f, const bench_results_t *r)
{
  const struct bench_scale *sc = r->scale;
  if (!sc) {
    fputs("null", f);
    return;
  }
  fprintf(f, "{\"seconds_per_sample\": %.3f, \"cpus\": %d, \"rows\": [", sc->seconds, bench_ncpus());
  for (int i = 0; i < sc->nrows; i++) {
    const scale_row_t *row = &sc->rows[i];
    fprintf(f, "%s\n  {\"kind\": \"%s\", \"locking\": \"%s\", \"n\": %d, \"threads\": %d, \"status\": \"%s\", "
               "\"note\": \"",
            i ? "," : "", row->kind, row->locking, row->n, row->threads,
            row->failed ? "error" : row->unstable ? "unstable" : "ok");
    for (const char *p = row->note; *p; p++)
      if (*p == '"' || *p == '\\')
        fprintf(f, "\\%c", *p);
      else if ((unsigned char)*p >= 0x20)
        fputc(*p, f);
    fprintf(f, "\", \"samples\": %d, \"slow\": %d, \"items_per_s\": ", row->nsamples, row->nslow);
    if (row->items.n) {
      fputs("{\"median\": ", f);
      jnum_(f, row->items.med);
      fputs(", \"min\": ", f);
      jnum_(f, row->items.lo);
      fputs(", \"max\": ", f);
      jnum_(f, row->items.hi);
      fprintf(f, ", \"n\": %d}", row->items.n);
    } else {
      fputs("null", f);
    }
    int have = row->items.n > 0;
    fputs(", \"csw_per_item\": ", f);
    jnum_(f, have ? row->csw_per_item : NAN);
    fputs(", \"futex_per_item\": ", f);
    jnum_(f, have ? row->futex_per_item : NAN);
    fputs(", \"semop_per_item\": ", f);
    jnum_(f, have ? row->semop_per_item : NAN);
    int lf = !strcmp(row->locking, "lockfree");
    fputs(", \"lockfree_over_global\": ", f);
    jnum_(f, lf ? ratio_vs(sc, row, "global") : NAN);
    fputs(", \"lockfree_over_kernel\": ", f);
    jnum_(f, lf ? ratio_vs(sc, row, "kernel") : NAN);
    fputs(", \"samples_items_per_s\": [", f);
    for (int s = 0; s < row->nsamples; s++) {
      fputs(s ? ", " : "", f);
      jnum_(f, row->items_s[s]);
    }
    fputs("], \"samples_L_ns\": [", f);
    for (int s = 0; s < row->nsamples; s++) {
      fputs(s ? ", " : "", f);
      jnum_(f, row->L[s]);
    }
    fputs("]}", f);
  }
  fputs("]", f);
  if (sc->capped[0])
    fprintf(f, ", \"note\": \"%s\"", sc->capped);
  fputs("}", f);
}

void bench_scale_free(bench_results_t *r)
{
  free(r->scale);
  r->scale = NULL;
}
