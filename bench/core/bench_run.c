/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mca bench: running one sample. Two sides — two threads, or the calling
 * process and a forked child — open the subject, meet at a barrier, run the
 * warm-up (which also calibrates how many items fill the target duration),
 * meet again, run the measured phase, meet a last time and close.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifndef _WIN32 /* Windows: no fork(), so no cross-process samples (bench_run_sample) */
#include <signal.h>
#include <sys/wait.h>
#endif

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
  c->hist = bench_shared_alloc(sizeof(bench_hist_t));
  if (!c->hist) {
    bench_shared_free(c->lat, (n_max ? n_max : 1) * sizeof(uint64_t));
    bench_shared_free(c, sz);
    return NULL;
  }
  bench_hist_init(c->hist);
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
  bench_shared_free(c->hist, sizeof(bench_hist_t));
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

/* What a side needs to check items: the checksum of the constant part of the
 * payload (bytes 8.. of the fill pattern) and the stamp mask. */
typedef struct side_state {
  uint64_t rest, mask;
  uint64_t seq; /* continues across phases */
} side_state_t;

#define BENCH_ALWAYS_INLINE inline __attribute__((always_inline))

/* A failed check, out of the item loops' way. */
static __attribute__((noinline, cold)) int item_failed(bench_ctx_t *c, int side, uint64_t want,
                                                        uint64_t got, int order)
{
  if (order)
    bench_fail(c, BENCH_ERR, "side %d: expected item %llu, got %llu", side, (unsigned long long)want,
               (unsigned long long)got);
  else
    bench_fail(c, BENCH_ERR, "side %d: item %llu arrived corrupted (checksum)", side,
               (unsigned long long)want);
  return BENCH_ERR;
}

/* Checks one received item at p: its stamp is the expected sequence number
 * (nothing lost, duplicated or reordered) and the checksum of every byte
 * matches (nothing corrupted). With a constant size it inlines to a few
 * instructions (for 8 bytes: one load, one compare). */
static BENCH_ALWAYS_INLINE int check_item(bench_ctx_t *c, const unsigned char *p, size_t size,
                                          const side_state_t *ss, uint64_t want, int side)
{
  uint64_t sum = bench_checksum(p, size);
  uint64_t got = bench_unstamp(p, size);
  if (size >= 8 ? got != want : (got & ss->mask) != (want & ss->mask))
    return item_failed(c, side, want, got, 1);
  /* bytes 8.. hold the constant fill (none for 8 bytes: the stamp is the item) */
  uint64_t expect = size > 8 ? got + ss->rest : size == 8 ? got : (got & ss->mask);
  if (sum != expect)
    return item_failed(c, side, want, got, 0);
  return 0;
}

/* Receives and consumes one item: every byte is read (checksum), the stamp
 * and the checksum are checked, and buf ends up carrying the stamp (the echo
 * side sends buf back). In place (zero-copy subjects) nothing is copied but
 * the stamp. */
static int take(bench_ctx_t *c, void *h, unsigned char *buf, side_state_t *ss, uint64_t want,
                int side)
{
  const bench_ops_t *o = c->ops;
  size_t size = c->size;
  const unsigned char *p = buf;
  if (c->inplace) {
    const void *v = NULL;
    if (o->recv_view(c, h, &v))
      return BENCH_ERR;
    p = v;
  } else if (o->recv(c, h, buf)) {
    return BENCH_ERR;
  }
  if (!c->inplace)
    return check_item(c, p, size, ss, want, side);
  int r = check_item(c, p, size, ss, want, side);
  memcpy(buf, p, size < 8 ? size : 8);
  o->release(c, h, p);
  return r;
}

/* One round trip seen from side 0 (send, then take the echo). */
static inline int round0(bench_ctx_t *c, void *h, unsigned char *buf, side_state_t *ss)
{
  uint64_t s = ++ss->seq;
  bench_stamp(buf, c->size, s);
  if (c->ops->send(c, h, buf))
    return BENCH_ERR;
  return take(c, h, buf, ss, s, 0);
}

/* Side 1 of a round trip: take the item, send it back. */
static inline int round1(bench_ctx_t *c, void *h, unsigned char *buf, side_state_t *ss)
{
  uint64_t s = ++ss->seq;
  if (take(c, h, buf, ss, s, 1))
    return BENCH_ERR;
  return c->ops->send(c, h, buf) ? BENCH_ERR : 0;
}

/*
 * Stream loops. Each side reads the subject's operations and the size once
 * (scalars: the constant 8, so the stamp is one store and the check one load
 * and compare) and keeps the sequence number in a register. With the
 * subject's batch operations (c->stream_k > 1) the sender stamps k items and
 * hands them over in one call, and the receiver takes k items in one call and
 * then checks each of them; otherwise one call per item. Either way every
 * item is stamped, moved as its own item and checked.
 */
static BENCH_ALWAYS_INLINE int stream_send(bench_ctx_t *c, void *h, unsigned char *buf, uint64_t n,
                                           side_state_t *ss, size_t size)
{
  const bench_ops_t *o = c->ops;
  uint64_t seq = ss->seq, k = c->stream_k;
  int r = 0;
  if (k > 1) {
    int (*send_batch)(struct bench_ctx *, void *, const void *, unsigned) = o->send_batch;
    for (uint64_t i = 0; i < n && !r; i += k) {
      unsigned kk = (unsigned)(n - i < k ? n - i : k);
      for (unsigned j = 0; j < kk; j++)
        bench_stamp(buf + (size_t)j * size, size, ++seq);
      r = send_batch(c, h, buf, kk) ? BENCH_ERR : 0;
    }
  } else {
    int (*send)(struct bench_ctx *, void *, const void *) = o->send;
    for (uint64_t i = 0; i < n && !r; i++) {
      bench_stamp(buf, size, ++seq);
      r = send(c, h, buf) ? BENCH_ERR : 0;
    }
  }
  ss->seq = seq;
  return r;
}

static BENCH_ALWAYS_INLINE int stream_recv(bench_ctx_t *c, void *h, unsigned char *buf, uint64_t n,
                                           side_state_t *ss, size_t size)
{
  const bench_ops_t *o = c->ops;
  const side_state_t chk = *ss;
  uint64_t seq = ss->seq, k = c->stream_k;
  int r = 0;
  if (k > 1) {
    int (*recv_batch)(struct bench_ctx *, void *, void *, unsigned) = o->recv_batch;
    for (uint64_t i = 0; i < n && !r; i += k) {
      unsigned kk = (unsigned)(n - i < k ? n - i : k);
      r = recv_batch(c, h, buf, kk) ? BENCH_ERR : 0;
      for (unsigned j = 0; j < kk && !r; j++)
        r = check_item(c, buf + (size_t)j * size, size, &chk, ++seq, 1);
    }
  } else {
    int (*recv)(struct bench_ctx *, void *, void *) = o->recv;
    for (uint64_t i = 0; i < n && !r; i++) {
      ++seq;
      r = recv(c, h, buf) ? BENCH_ERR : check_item(c, buf, size, &chk, seq, 1);
    }
  }
  ss->seq = seq;
  return r;
}

/* In place (recv_view / release): item by item through take(). */
static int stream_take(bench_ctx_t *c, void *h, unsigned char *buf, uint64_t n, side_state_t *ss)
{
  for (uint64_t i = 0; i < n; i++) {
    uint64_t s = ++ss->seq;
    if (take(c, h, buf, ss, s, 1))
      return BENCH_ERR;
  }
  return 0;
}

/*
 * Runs the phase on this side. Ping-pong, measured (record): two passes of
 * c->n round trips each, interleaved. The batch pass times c->batch round
 * trips between two clock reads (the figure ratios to L use: L is timed the
 * same way); the per-round pass times each round trip on its own into
 * c->hist (the distribution and its tail). Side 1 echoes both passes.
 */
static int phase(bench_ctx_t *c, int side, void *h, unsigned char *buf, uint64_t n, int record,
                 side_state_t *ss)
{
  size_t size = c->size;
  if (c->mode == BENCH_PINGPONG) {
    if (side == 1) {
      uint64_t total = record ? 2 * n : n;
      for (uint64_t i = 0; i < total; i++)
        if (round1(c, h, buf, ss))
          return BENCH_ERR;
      return 0;
    }
    if (!record) {
      for (uint64_t i = 0; i < n; i++)
        if (round0(c, h, buf, ss))
          return BENCH_ERR;
      return 0;
    }
    /* the two passes alternate, a batch and then as many single round trips,
     * so both see the same state of the machine */
    uint64_t tc = bench_timer_cost_ns(), k = c->batch ? c->batch : 1;
    for (uint64_t b = 0; b < n / k; b++) {
      uint64_t t0 = bench_now_ns();
      for (uint64_t j = 0; j < k; j++)
        if (round0(c, h, buf, ss))
          return BENCH_ERR;
      uint64_t dt = bench_now_ns() - t0;
      c->lat[b] = dt > tc ? dt - tc : 0;
      for (uint64_t j = 0; j < k; j++) {
        t0 = bench_now_ns();
        if (round0(c, h, buf, ss))
          return BENCH_ERR;
        dt = bench_now_ns() - t0;
        bench_hist_record(c->hist, dt > tc ? dt - tc : 0);
      }
    }
    return 0;
  }
  int r;
  if (side == 0) {
    if (record)
      c->t_start = bench_now_ns();
    r = size == 8 ? stream_send(c, h, buf, n, ss, 8) : stream_send(c, h, buf, n, ss, size);
  } else {
    if (c->inplace)
      r = stream_take(c, h, buf, n, ss);
    else
      r = size == 8 ? stream_recv(c, h, buf, n, ss, 8) : stream_recv(c, h, buf, n, ss, size);
    if (record && !r)
      c->t_end = bench_now_ns();
  }
  return r;
}

static void run_side(bench_ctx_t *c, int side)
{
  bench_pin(c->cpu[side]);
  /* the stream's batch of stream_k items back to back (one item otherwise) */
  size_t bsz = (c->size * (c->mode == BENCH_STREAM ? c->stream_k : 1) + 63) & ~(size_t)63;
  unsigned char *buf = bench_aligned_alloc(64, bsz ? bsz : 64);
  memset(buf, BENCH_FILL, bsz ? bsz : 64);
  side_state_t ss = {c->size > 8 ? bench_checksum(buf + 8, c->size - 8) : 0, seq_mask(c->size), 0};
  void *h = NULL;
  int r = c->ops->open(c, side, &h);
  if (r) {
    bench_fail(c, r, "side %d could not open", side);
    if (h) /* what it did open (a node, endpoints, queues) is released */
      c->ops->close(c, side, h);
    bench_aligned_free(buf);
    return;
  }
  uint64_t t0 = bench_now_ns();
  if (barrier(c))
    goto out;
  if (phase(c, side, h, buf, c->warm, 0, &ss)) {
    bench_fail(c, BENCH_ERR, "warm-up failed on side %d", side);
    goto out;
  }
  if (barrier(c))
    goto out;
  if (side == 0) {
    c->warm_ns = bench_now_ns() - t0;
    double per = c->warm ? (double)c->warm_ns / (double)c->warm : 1e3;
    uint64_t n = per > 0 ? (uint64_t)((double)c->target_ns / per) : c->n_max;
    if (c->mode == BENCH_PINGPONG) {
      n /= 2; /* two passes fill the target duration */
      /* a batch lasts about 4 us: the clock reads cost under 1% of it */
      uint64_t k = per > 0 ? (uint64_t)(4000.0 / per) : 1;
      c->batch = k < 1 ? 1 : k > 64 ? 64 : k;
    }
    if (n < c->n_min)
      n = c->n_min;
    if (n > c->n_max)
      n = c->n_max;
    if (c->mode == BENCH_PINGPONG)
      n -= n % c->batch;
    c->n = n;
  }
  if (barrier(c))
    goto out;
  /* --hpc: this side's counters (its own thread) around the measured phase. */
  mcx_hpc_group_t *g = NULL;
  mcx_hpc_sample_t s0, s1, dl;
  if (c->hpc && mcx_hpc_group_open_default(&g, 0) == 0 && mcx_hpc_group_enable(g) == 0)
    mcx_hpc_group_read(g, &s0);
  if (phase(c, side, h, buf, c->n, 1, &ss)) {
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
  bench_aligned_free(buf);
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
  c->stream_k = c->mode == BENCH_STREAM ? bench_stream_calls(c->ops, c->size, c->inplace) : 1;
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
#ifdef _WIN32
    bench_fail(c, BENCH_NA, "not supported on this platform (the second process of a sample is a fork()ed "
                            "child; Windows has no fork())");
#else
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
#endif
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

/* ---- L: one cache line bounced between the first two CPUs of the list */
#define L_BATCH 32
struct lprobe {
  _Alignas(64) atomic_uint_fast64_t line;
  _Alignas(64) unsigned rounds;
  int cpu;
};

static void *lprobe_b(void *arg)
{
  struct lprobe *p = arg;
  bench_pin(p->cpu);
  for (uint64_t i = 0; i < p->rounds; i++) {
    unsigned k = 0;
    /* acquire: pairs with side A's release of 2i+1 */
    while (atomic_load_explicit(&p->line, memory_order_acquire) != 2 * i + 1)
      bench_relax(&k);
    /* release: pairs with side A's acquire of 2i+2 */
    atomic_store_explicit(&p->line, 2 * i + 2, memory_order_release);
  }
  return NULL;
}

double bench_measure_L(unsigned rounds)
{
  if (bench_ncpus() < 2)
    return 0;
  unsigned nb = rounds / L_BATCH;
  if (nb < 3)
    nb = 3;
  struct lprobe *p = bench_aligned_alloc(64, sizeof *p);
  memset(p, 0, sizeof *p);
  unsigned warm = nb / 4 + 1; /* the first batches are warm-up */
  p->rounds = (nb + warm) * L_BATCH;
  p->cpu = bench_cpu(1);
  double *per = malloc(nb * sizeof(double));
  pthread_t t;
#ifndef _WIN32
  cpu_set_t old;
  pthread_getaffinity_np(pthread_self(), sizeof old, &old);
#endif
  pthread_create(&t, NULL, lprobe_b, p);
  bench_pin(bench_cpu(0));
  uint64_t tc = bench_timer_cost_ns(), i = 0;
  for (unsigned b = 0; b < nb + warm; b++) {
    uint64_t t0 = bench_now_ns();
    for (unsigned j = 0; j < L_BATCH; j++, i++) {
      atomic_store_explicit(&p->line, 2 * i + 1, memory_order_release);
      unsigned k = 0;
      while (atomic_load_explicit(&p->line, memory_order_acquire) != 2 * i + 2)
        bench_relax(&k);
    }
    uint64_t dt = bench_now_ns() - t0;
    if (b >= warm)
      per[b - warm] = (double)(dt > tc ? dt - tc : 0) / L_BATCH;
  }
  pthread_join(t, NULL);
#ifdef _WIN32
  bench_pin(-1); /* back to every CPU of the process */
#else
  pthread_setaffinity_np(pthread_self(), sizeof old, &old);
#endif
  double med = bench_median(per, (int)nb);
  free(per);
  bench_aligned_free(p);
  return med;
}

void bench_wait_fast_mode(double L_median, unsigned max_ms)
{
  if (L_median <= 0)
    return;
  for (unsigned waited = 0; waited < max_ms; waited += 50) {
    if (bench_measure_L(200) <= 1.5 * L_median)
      return;
    usleep(50000);
  }
}
