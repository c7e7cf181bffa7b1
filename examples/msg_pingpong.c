/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * msg_pingpong: round-trip time of a 24-byte MCAPI message between two
 * threads pinned to different CPUs, in the lock-free and the global-lock mode,
 * next to the raw cache-line round trip L measured by the same two threads in
 * the same run (before and after each mode).
 *
 *   example_msg_pingpong [batches] [round-trips-per-batch]
 *
 * Each batch is timed as a whole (no clock call per round trip); the output is
 * the median batch mean with min and max, and the ratio to L.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sched.h>

#include "mcapi.h"
#include "mcx.h"

enum { PORT = 1, MSG = 24 };

static int batches = 31, per_batch = 20000;
static pthread_barrier_t bar;
static _Alignas(64) atomic_uint line;
static int mode_is_global;
static mcapi_domain_t domain = 1;

static double now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void pin(int cpu)
{
  cpu_set_t s;
  CPU_ZERO(&s);
  CPU_SET(cpu, &s);
  pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}

static int cmp_d(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static void summarize(const char *what, double *v, int n, double l)
{
  qsort(v, (size_t)n, sizeof v[0], cmp_d);
  printf("%-28s median %7.1f ns  (min %7.1f, max %7.1f)", what, v[n / 2], v[0], v[n - 1]);
  if (l > 0)
    printf("  = %.2f L", v[n / 2] / l);
  printf("\n");
}

/* The physical limit: one cache line bounced between the two threads. */
static double cacheline_rtt(int side)
{
  static double res[64];
  for (int b = 0; b < batches; b++) {
    pthread_barrier_wait(&bar);
    double t0 = now_ns();
    for (unsigned i = 0; i < (unsigned)per_batch; i++) {
      unsigned mine = 2 * i + (unsigned)side;
      while (atomic_load_explicit(&line, memory_order_acquire) != mine)
        ;
      atomic_store_explicit(&line, mine + 1, memory_order_release);
    }
    if (side == 0)
      res[b] = (now_ns() - t0) / per_batch;
    pthread_barrier_wait(&bar);
    atomic_store(&line, 0);
    pthread_barrier_wait(&bar);
  }
  if (side)
    return 0;
  qsort(res, (size_t)batches, sizeof res[0], cmp_d);
  return res[batches / 2];
}

static void node_up(mcapi_node_t node)
{
  mcapi_param_t p;
  mcapi_info_t info;
  mcapi_status_t st;
  mcx_param_init(&p);
  p.locking = mode_is_global ? MCX_LOCKING_GLOBAL : MCX_LOCKING_LOCKFREE;
  mcapi_initialize(domain, node, NULL, &p, &info, &st);
  if (st != MCAPI_SUCCESS) {
    fprintf(stderr, "initialize failed (%u)\n", st);
    exit(1);
  }
}

static void *echo(void *arg)
{
  pin(1);
  cacheline_rtt(1);
  node_up(2);
  mcapi_status_t st;
  mcapi_endpoint_t me = mcapi_endpoint_create(PORT, &st);
  mcapi_endpoint_t peer = mcapi_endpoint_get(domain, 1, PORT, MCAPI_TIMEOUT_INFINITE, &st);
  char buf[MSG];
  size_t n;
  for (long i = 0; i < (long)batches * per_batch + 1000; i++) {
    mcapi_msg_recv(me, buf, sizeof buf, &n, &st);
    mcapi_msg_send(me, peer, buf, n, 0, &st);
  }
  pthread_barrier_wait(&bar);
  mcapi_finalize(&st);
  cacheline_rtt(1);
  return NULL;
}

static void run_mode(int global)
{
  mode_is_global = global;
  domain = (mcapi_domain_t)(global ? 2 : 1);
  pthread_t t;
  pthread_create(&t, NULL, echo, NULL);
  double l_before = cacheline_rtt(0);
  node_up(1);
  mcapi_status_t st;
  mcapi_endpoint_t me = mcapi_endpoint_create(PORT, &st);
  mcapi_endpoint_t peer = mcapi_endpoint_get(domain, 2, PORT, MCAPI_TIMEOUT_INFINITE, &st);
  char buf[MSG] = "0123456789abcdefghijklm";
  size_t n;
  for (int i = 0; i < 1000; i++) { /* warm-up */
    mcapi_msg_send(me, peer, buf, sizeof buf, 0, &st);
    mcapi_msg_recv(me, buf, sizeof buf, &n, &st);
  }
  static double res[64];
  for (int b = 0; b < batches; b++) {
    double t0 = now_ns();
    for (int i = 0; i < per_batch; i++) {
      mcapi_msg_send(me, peer, buf, sizeof buf, 0, &st);
      mcapi_msg_recv(me, buf, sizeof buf, &n, &st);
    }
    res[b] = (now_ns() - t0) / per_batch;
    if (st != MCAPI_SUCCESS || n != MSG) {
      fprintf(stderr, "exchange failed (%u)\n", st);
      exit(1);
    }
  }
  pthread_barrier_wait(&bar);
  mcapi_finalize(&st);
  double l_after = cacheline_rtt(0);
  pthread_join(t, NULL);
  double l = (l_before + l_after) / 2;
  printf("cache-line round trip L      before %.1f ns, after %.1f ns%s\n", l_before, l_after,
         (l_after > 1.5 * l_before || l_before > 1.5 * l_after) ? "  (host mode flip: "
                                                                   "compare with care)"
                                                                 : "");
  summarize(global ? "24-byte message RTT, global" : "24-byte message RTT, lock-free", res,
            batches, l);
}

int main(int argc, char **argv)
{
  if (argc > 1)
    batches = atoi(argv[1]);
  if (argc > 2)
    per_batch = atoi(argv[2]);
  if (batches < 1 || batches > 64 || per_batch < 1) {
    fprintf(stderr, "usage: %s [batches 1..64] [round-trips-per-batch]\n", argv[0]);
    return 2;
  }
  pthread_barrier_init(&bar, NULL, 2);
  pin(0);
  printf("%d batches x %d round trips, threads pinned to CPUs 0 and 1, %s transport\n", batches,
         per_batch, getenv("MCX_TRANSPORT") ? getenv("MCX_TRANSPORT") : "shm");
  run_mode(0);
  run_mode(1);
  return 0;
}
