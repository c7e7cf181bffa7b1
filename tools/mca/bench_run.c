/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mca bench: running one sample. Two sides — two threads, or the calling
 * process and a forked child — open the subject, meet at a barrier, run the
 * warm-up (which also calibrates how many items fill the target duration),
 * meet again, run the measured phase, meet a last time and close.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "mcx_hpc.h"

bench_ctx_t *bench_ctx_alloc(size_t extra, uint64_t n_max)
{
  size_t sz = sizeof(bench_ctx_t) + extra;
  bench_ctx_t *c = bench_shared_alloc(sz);
  if (!c)
    return NULL;
  c->lat = bench_shared_alloc((n_max ? n_max : 1) * sizeof(uint64_t));
  if (!c->lat) {
    bench_shared_free(c, sz);
    return NULL;
  }
  c->map_size = sz;
  c->n_max = n_max;
  c->cpu[0] = c->cpu[1] = -1;
  return c;
}

void bench_ctx_free(bench_ctx_t *c)
{
  if (!c)
    return;
  bench_shared_free(c->lat, (c->n_max ? c->n_max : 1) * sizeof(uint64_t));
  bench_shared_free(c, c->map_size);
}

/* Two-party barrier over shared memory; nonzero when the other side failed. */
static int barrier(bench_ctx_t *c)
{
  unsigned gen = atomic_load(&c->barrier_gen);
  if (atomic_fetch_add(&c->barrier_count, 1) == 1) {
    atomic_store(&c->barrier_count, 0);
    atomic_fetch_add(&c->barrier_gen, 1);
  } else {
    unsigned i = 0;
    while (atomic_load(&c->barrier_gen) == gen) {
      if (atomic_load(&c->failed))
        return 1;
      bench_relax(&i);
    }
  }
  return atomic_load(&c->failed) != 0;
}

static uint64_t seq_mask(size_t size) { return size >= 8 ? ~0ull : (1ull << (8 * size)) - 1; }

/* Runs n items on this side; seq continues across phases. */
static int phase(bench_ctx_t *c, int side, void *h, unsigned char *buf, uint64_t n, int record,
                 uint64_t *seq)
{
  const bench_ops_t *o = c->ops;
  size_t size = c->size;
  uint64_t mask = seq_mask(size);
  if (c->mode == BENCH_PINGPONG) {
    for (uint64_t i = 0; i < n; i++) {
      uint64_t s = ++*seq;
      if (side == 0) {
        bench_stamp(buf, size, s);
        uint64_t t0 = bench_now_ns();
        if (o->send(c, h, buf) || o->recv(c, h, buf))
          return BENCH_ERR;
        uint64_t t1 = bench_now_ns();
        if (record) {
          uint64_t tc = bench_timer_cost_ns(), dt = t1 - t0;
          c->lat[i] = dt > tc ? dt - tc : 0;
        }
      } else {
        if (o->recv(c, h, buf))
          return BENCH_ERR;
        if (o->send(c, h, buf))
          return BENCH_ERR;
      }
      if ((bench_unstamp(buf, size) & mask) != (s & mask)) {
        bench_fail(c, BENCH_ERR, "side %d: item %llu carries id %llu", side, (unsigned long long)s,
                   (unsigned long long)bench_unstamp(buf, size));
        return BENCH_ERR;
      }
    }
    return 0;
  }
  if (side == 0) {
    if (record)
      c->t_start = bench_now_ns();
    for (uint64_t i = 0; i < n; i++) {
      bench_stamp(buf, size, ++*seq);
      if (o->send(c, h, buf))
        return BENCH_ERR;
    }
  } else {
    for (uint64_t i = 0; i < n; i++) {
      uint64_t s = ++*seq;
      if (o->recv(c, h, buf))
        return BENCH_ERR;
      if ((bench_unstamp(buf, size) & mask) != (s & mask)) {
        bench_fail(c, BENCH_ERR, "receiver: expected id %llu, got %llu", (unsigned long long)s,
                   (unsigned long long)bench_unstamp(buf, size));
        return BENCH_ERR;
      }
    }
    if (record)
      c->t_end = bench_now_ns();
  }
  return 0;
}

static void run_side(bench_ctx_t *c, int side)
{
  bench_pin(c->cpu[side]);
  size_t bsz = (c->size + 63) & ~(size_t)63;
  unsigned char *buf = aligned_alloc(64, bsz ? bsz : 64);
  memset(buf, 0xa5, bsz ? bsz : 64);
  void *h = NULL;
  uint64_t seq = 0;
  int r = c->ops->open(c, side, &h);
  if (r) {
    bench_fail(c, r, "side %d could not open", side);
    free(buf);
    return;
  }
  uint64_t t0 = bench_now_ns();
  if (barrier(c))
    goto out;
  if (phase(c, side, h, buf, c->warm, 0, &seq)) {
    bench_fail(c, BENCH_ERR, "warm-up failed on side %d", side);
    goto out;
  }
  if (barrier(c))
    goto out;
  if (side == 0) {
    c->warm_ns = bench_now_ns() - t0;
    double per = c->warm ? (double)c->warm_ns / (double)c->warm : 1e3;
    uint64_t n = per > 0 ? (uint64_t)((double)c->target_ns / per) : c->n_max;
    if (n < c->n_min)
      n = c->n_min;
    if (n > c->n_max)
      n = c->n_max;
    c->n = n;
  }
  if (barrier(c))
    goto out;
  /* --hpc: this side's counters (its own thread) around the measured phase. */
  mcx_hpc_group_t *g = NULL;
  mcx_hpc_sample_t s0, s1, dl;
  if (c->hpc && mcx_hpc_group_open_default(&g, 0) == 0 && mcx_hpc_group_enable(g) == 0)
    mcx_hpc_group_read(g, &s0);
  if (phase(c, side, h, buf, c->n, 1, &seq)) {
    bench_fail(c, BENCH_ERR, "measured phase failed on side %d", side);
    mcx_hpc_group_close(g);
    goto out;
  }
  if (g) {
    mcx_hpc_group_read(g, &s1);
    mcx_hpc_sample_delta(&s0, &s1, &dl);
    mcx_hpc_format_per_item(g, &dl, c->n, c->hpc_line[side], sizeof c->hpc_line[side]);
    mcx_hpc_group_close(g);
  } else if (c->hpc) {
    snprintf(c->hpc_line[side], sizeof c->hpc_line[side], "no counter opens here");
  }
  barrier(c);
out:
  c->ops->close(c, side, h);
  free(buf);
}

static void *side1_thread(void *arg)
{
  run_side(arg, 1);
  return NULL;
}
static void *side0_thread(void *arg)
{
  run_side(arg, 0);
  return NULL;
}

int bench_run_sample(bench_ctx_t *c)
{
  c->status = BENCH_OK;
  c->note[0] = 0;
  atomic_store(&c->failed, 0);
  atomic_store(&c->barrier_count, 0);
  c->n = 0;
  if (c->ops->prepare) {
    int r = c->ops->prepare(c);
    if (r) {
      if (!c->note[0])
        snprintf(c->note, sizeof c->note, "%s: not available", c->ops->name);
      c->status = r;
      return r;
    }
  }
  if (c->cross_process) {
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
      bench_fail(c, BENCH_ERR, "fork failed");
    } else if (pid == 0) {
      run_side(c, 1);
      _exit(0);
    } else {
      pthread_t t0;
      pthread_create(&t0, NULL, side0_thread, c);
      pthread_join(t0, NULL);
      uint64_t deadline = bench_now_ns() + 30ull * 1000000000u;
      int st;
      while (waitpid(pid, &st, WNOHANG) == 0) {
        if (bench_now_ns() > deadline) {
          kill(pid, SIGKILL);
          waitpid(pid, &st, 0);
          bench_fail(c, BENCH_ERR, "child side did not finish in 30 s");
          break;
        }
        usleep(1000);
      }
    }
  } else {
    pthread_t t0, t1;
    pthread_create(&t1, NULL, side1_thread, c);
    pthread_create(&t0, NULL, side0_thread, c);
    pthread_join(t0, NULL);
    pthread_join(t1, NULL);
  }
  if (c->ops->destroy)
    c->ops->destroy(c);
  if (atomic_load(&c->failed) && c->status == BENCH_OK)
    c->status = BENCH_ERR;
  return c->status;
}

/* ---- L: one cache line bounced between CPU 0 and CPU 1 */
struct lprobe {
  _Alignas(64) atomic_uint_fast64_t line;
  _Alignas(64) unsigned rounds;
  uint64_t *rtt;
};

static void *lprobe_b(void *arg)
{
  struct lprobe *p = arg;
  bench_pin(1);
  for (uint64_t i = 0; i < p->rounds; i++) {
    unsigned k = 0;
    while (atomic_load_explicit(&p->line, memory_order_acquire) != 2 * i + 1)
      bench_relax(&k);
    atomic_store_explicit(&p->line, 2 * i + 2, memory_order_release);
  }
  return NULL;
}

double bench_measure_L(unsigned rounds)
{
  if (bench_ncpus() < 2)
    return 0;
  struct lprobe *p = aligned_alloc(64, sizeof *p);
  memset(p, 0, sizeof *p);
  p->rounds = rounds + rounds / 4;
  p->rtt = malloc(p->rounds * sizeof(uint64_t));
  pthread_t t;
  cpu_set_t old;
  pthread_getaffinity_np(pthread_self(), sizeof old, &old);
  pthread_create(&t, NULL, lprobe_b, p);
  bench_pin(0);
  for (uint64_t i = 0; i < p->rounds; i++) {
    uint64_t t0 = bench_now_ns();
    atomic_store_explicit(&p->line, 2 * i + 1, memory_order_release);
    unsigned k = 0;
    while (atomic_load_explicit(&p->line, memory_order_acquire) != 2 * i + 2)
      bench_relax(&k);
    uint64_t dt = bench_now_ns() - t0, tc = bench_timer_cost_ns();
    p->rtt[i] = dt > tc ? dt - tc : 0;
  }
  pthread_join(t, NULL);
  pthread_setaffinity_np(pthread_self(), sizeof old, &old);
  /* the first quarter is warm-up */
  uint64_t *v = p->rtt + rounds / 4;
  qsort(v, rounds, sizeof *v, bench_cmp_u64);
  double med = (double)v[rounds / 2];
  free(p->rtt);
  free(p);
  return med;
}
