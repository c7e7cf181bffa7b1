/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mca bench: the state-message row. A writer thread (pinned to the first CPU of --cpus) writes
 * 24-byte values as fast as it can into a state channel (mcx_state_*); a
 * reader thread (the second) reads the newest value as fast as it can. Reported
 * per locking mode, median over the repeats with min-max: writes/s, reads/s,
 * ns per read, and retries per read (reads the writer lapped; the reader
 * retries them once each). Compared with the FIFO message cells of the same
 * run (msg.<locking>.spread.in.shm.24B): the state channel needs no
 * hand-off per item, which seed 000 predicted would favour it.
 */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "bench_report.h"
#include "mcapi.h"
#include "mcx.h"

struct st_run {
  mcapi_domain_t dom;
  mcx_locking_t lk;
  uint64_t ns;
  atomic_int phase; /* 0 setup, 1 go, 2 stop */
  atomic_int ready;
  uint64_t writes, reads, laps, read_ns;
  int failed;
};

static int up(struct st_run *s, mcapi_node_t node)
{
  mcapi_param_t p;
  mcapi_info_t info;
  mcapi_status_t st;
  mcx_param_init(&p);
  p.locking = s->lk;
  mcapi_initialize(s->dom, node, NULL, &p, &info, &st);
  return st == MCAPI_SUCCESS ? 0 : -1;
}

static void *st_writer(void *arg)
{
  struct st_run *s = arg;
  mcapi_status_t st;
  bench_pin(bench_cpu(0));
  if (up(s, 1)) {
    s->failed = 1;
    atomic_fetch_add(&s->ready, 1);
    return NULL;
  }
  mcx_state_t h = mcx_state_create(1, 24, 4, &st);
  atomic_fetch_add(&s->ready, 1);
  while (atomic_load(&s->phase) == 0)
    ;
  uint8_t v[24] = {0};
  uint64_t n = 0;
  while (atomic_load_explicit(&s->phase, memory_order_relaxed) == 1) {
    memcpy(v, &n, sizeof n);
    mcx_state_write(h, v, sizeof v, &st);
    n++;
  }
  s->writes = n;
  while (atomic_load(&s->phase) != 3) /* the reader leaves first */
    usleep(100);
  mcapi_finalize(&st);
  return NULL;
}

static void *st_reader(void *arg)
{
  struct st_run *s = arg;
  mcapi_status_t st;
  bench_pin(bench_cpu(bench_ncpus() > 1 ? 1 : 0));
  if (up(s, 2)) {
    s->failed = 1;
    atomic_fetch_add(&s->ready, 1);
    return NULL;
  }
  mcx_state_t h = mcx_state_open(s->dom, 1, 1, 5000, &st);
  if (st != MCAPI_SUCCESS)
    s->failed = 1;
  atomic_fetch_add(&s->ready, 1);
  while (atomic_load(&s->phase) == 0)
    ;
  uint8_t v[24];
  uint64_t reads = 0, laps = 0, last = 0;
  uint64_t t0 = bench_now_ns();
  while (atomic_load_explicit(&s->phase, memory_order_relaxed) == 1) {
    mca_uint64_t ver;
    mcx_state_read(h, v, sizeof v, &ver, &st);
    if (st == MCAPI_ERR_TRANSMISSION) {
      laps++;
      continue;
    }
    if (st != MCAPI_SUCCESS || ver < last) {
      s->failed = 1;
      break;
    }
    last = ver;
    reads++;
  }
  s->read_ns = bench_now_ns() - t0;
  s->reads = reads;
  s->laps = laps;
  mcapi_finalize(&st);
  return NULL;
}

static bench_stat3_t stat3(double *v, int n)
{
  bench_stat3_t s = {NAN, NAN, NAN, 0};
  if (!n)
    return s;
  for (int i = 1; i < n; i++) /* insertion sort: n is the repeat count */
    for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
      double t = v[j];
      v[j] = v[j - 1];
      v[j - 1] = t;
    }
  s.med = v[n / 2];
  s.lo = v[0];
  s.hi = v[n - 1];
  s.n = n;
  return s;
}

void bench_state_run(bench_results_t *r, int repeat, double ms)
{
  const mcx_locking_t modes[2] = {MCX_LOCKING_LOCKFREE, MCX_LOCKING_GLOBAL};
  mcx_state_set_read_retries(1);
  for (int m = 0; m < 2; m++) {
    bench_state_t *row = &r->state[r->nstate++];
    memset(row, 0, sizeof *row);
    row->locking = m ? "global" : "lockfree";
    double w[32], rd[32], ns[32], lap[32];
    int n = 0;
    for (int k = 0; k < repeat && k < 32; k++) {
      struct st_run s = {.dom = 0x20000000u + (((uint32_t)getpid() & 0xfff) << 8) + (uint32_t)(m * 32 + k),
                         .lk = modes[m]};
      pthread_t tw, tr;
      pthread_create(&tw, NULL, st_writer, &s);
      while (atomic_load(&s.ready) < 1)
        usleep(100);
      pthread_create(&tr, NULL, st_reader, &s);
      while (atomic_load(&s.ready) < 2)
        usleep(100);
      atomic_store(&s.phase, 1);
      usleep((useconds_t)(ms * 1000));
      atomic_store(&s.phase, 2);
      pthread_join(tr, NULL);
      atomic_store(&s.phase, 3);
      pthread_join(tw, NULL);
      if (s.failed || !s.reads) {
        snprintf(row->note, sizeof row->note, "a sample failed (reader saw an error or no value)");
        row->failed = 1;
        continue;
      }
      double secs = ms / 1000.0;
      w[n] = (double)s.writes / secs;
      rd[n] = (double)s.reads / secs;
      ns[n] = (double)s.read_ns / (double)(s.reads + s.laps);
      lap[n] = (double)s.laps / (double)s.reads;
      n++;
    }
    row->writes_per_s = stat3(w, n);
    row->reads_per_s = stat3(rd, n);
    row->ns_per_read = stat3(ns, n);
    row->retries_per_read = stat3(lap, n);
    bench_cell_t *msg = bench_find(r, "matrix", "libmca", "message", row->locking, "spin", "spread",
                                   "in", "shm", 24);
    if (msg && msg->status == BENCH_OK && msg->items_s.n) {
      row->msg_items_per_s = msg->items_s.med;
      row->msg_rtt_ns = msg->rtt_p50.med;
    } else {
      row->msg_items_per_s = NAN;
      row->msg_rtt_ns = NAN;
    }
  }
  mcx_state_set_read_retries(64);
}
