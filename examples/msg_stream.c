/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * msg_stream: one-way throughput of 24-byte MCAPI messages from one pinned
 * thread to another (sender on CPU 0, receiver on CPU 1), on the domain's
 * transport (MCX_TRANSPORT=shm|pmq) and locking mode (MCX_LOCKING).
 *
 *   example_msg_stream [runs] [messages-per-run]
 *
 * Each run is timed by the receiver from its first to its last message; the
 * output is the median rate with min and max. Blocking send and receive.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "mcapi.h"
#include "mcx.h"

enum { PORT = 1, MSG = 24, DOMAIN = 3 };

static int runs = 11;
static long per_run = 200000;
static pthread_barrier_t bar;

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

static void node_up(mcapi_node_t node)
{
  mcapi_info_t info;
  mcapi_status_t st;
  mcapi_initialize(DOMAIN, node, NULL, NULL, &info, &st);
  if (st != MCAPI_SUCCESS) {
    fprintf(stderr, "initialize failed (%u)\n", st);
    exit(1);
  }
}

static void *sender(void *arg)
{
  (void)arg;
  pin(0);
  node_up(1);
  mcapi_status_t st;
  mcapi_endpoint_t me = mcapi_endpoint_create(PORT, &st);
  mcapi_endpoint_t peer = mcapi_endpoint_get(DOMAIN, 2, PORT, MCAPI_TIMEOUT_INFINITE, &st);
  char buf[MSG] = "0123456789abcdefghijklm";
  for (int r = 0; r < runs; r++) {
    pthread_barrier_wait(&bar);
    for (long i = 0; i < per_run; i++) {
      mcapi_msg_send(me, peer, buf, sizeof buf, 0, &st);
      if (st != MCAPI_SUCCESS) {
        fprintf(stderr, "send failed (%u)\n", st);
        exit(1);
      }
    }
  }
  pthread_barrier_wait(&bar);
  mcapi_finalize(&st);
  return NULL;
}

int main(int argc, char **argv)
{
  if (argc > 1)
    runs = atoi(argv[1]);
  if (argc > 2)
    per_run = atol(argv[2]);
  if (runs < 1 || runs > 64 || per_run < 2) {
    fprintf(stderr, "usage: %s [runs 1..64] [messages-per-run]\n", argv[0]);
    return 2;
  }
  pthread_barrier_init(&bar, NULL, 2);
  pin(1);
  node_up(2);
  mcapi_status_t st;
  mcapi_endpoint_t me = mcapi_endpoint_create(PORT, &st);
  mcapi_uint_t depth = 0;
  mcapi_endpoint_get_attribute(me, MCAPI_ENDP_ATTR_NUM_RECV_BUFFERS, &depth, sizeof depth, &st);
  pthread_t t;
  pthread_create(&t, NULL, sender, NULL);
  static double rate[64];
  char buf[MSG];
  size_t n;
  for (int r = 0; r < runs; r++) {
    pthread_barrier_wait(&bar);
    mcapi_msg_recv(me, buf, sizeof buf, &n, &st);
    double t0 = now_ns();
    for (long i = 1; i < per_run; i++)
      mcapi_msg_recv(me, buf, sizeof buf, &n, &st);
    rate[r] = (double)(per_run - 1) / ((now_ns() - t0) * 1e-9);
    if (st != MCAPI_SUCCESS || n != MSG) {
      fprintf(stderr, "receive failed (%u)\n", st);
      return 1;
    }
  }
  const char *tr = mcx_transport() == MCX_TRANSPORT_PMQ ? "pmq" : "shm";
  pthread_barrier_wait(&bar);
  pthread_join(t, NULL);
  mcapi_finalize(&st);
  qsort(rate, (size_t)runs, sizeof rate[0], cmp_d);
  printf("24-byte messages one way, %s transport, queue depth %u: median %.2f M msg/s "
         "(min %.2f, max %.2f), %d runs x %ld, CPUs 0 -> 1\n",
         tr, depth, rate[runs / 2] / 1e6,
         rate[0] / 1e6, rate[runs - 1] / 1e6, runs, per_run);
  return 0;
}
