/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mca demo: two threads, each an MCAPI node, exchange messages. The sender
 * queues a batch at three priorities before the receiver looks; the receiver
 * prints the order it got them in (higher priority first, FIFO within a
 * priority). Then the two play ping-pong with 24-byte messages and the demo
 * prints round-trip times, in both locking modes.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "mca_tool.h"
#include "mcapi.h"
#include "mcx.h"

enum { NODE_A = 1, NODE_B = 2, PORT = 5, BATCH = 9, PINGS = 20000 };

struct demo {
  mcapi_domain_t domain;
  mcx_locking_t locking;
  int cpu_a, cpu_b;
  pthread_barrier_t batch_sent;
};

static void die(const char *what, mcapi_status_t st)
{
  char buf[MCAPI_MAX_STATUS_MSG_LEN];
  fprintf(stderr, "mca demo: %s: %s\n", what,
          mcapi_display_status(st, buf, sizeof buf) ? buf : "unknown status");
  exit(1);
}

static void node_up(const struct demo *d, mcapi_node_t node)
{
  mcapi_param_t p;
  mcapi_info_t info;
  mcapi_status_t st;
  mcx_param_init(&p);
  p.locking = d->locking;
  mcapi_initialize(d->domain, node, NULL, &p, &info, &st);
  if (st != MCAPI_SUCCESS)
    die("mcapi_initialize", st);
}

static void *node_b(void *arg)
{
  struct demo *d = arg;
  mcapi_status_t st;
  bench_pin(d->cpu_b);
  node_up(d, NODE_B);
  mcapi_endpoint_t me = mcapi_endpoint_create(PORT, &st);
  mcapi_endpoint_t peer = mcapi_endpoint_get(d->domain, NODE_A, PORT, MCAPI_TIMEOUT_INFINITE, &st);
  /* Batch: queued at three priorities before we look. */
  pthread_barrier_wait(&d->batch_sent);
  printf("  node %d received:", NODE_B);
  for (int i = 0; i < BATCH; i++) {
    char text[32];
    size_t n;
    mcapi_msg_recv(me, text, sizeof text, &n, &st);
    if (st != MCAPI_SUCCESS)
      die("mcapi_msg_recv", st);
    printf(" %.*s", (int)n, text);
  }
  printf("\n");
  fflush(stdout);
  pthread_barrier_wait(&d->batch_sent); /* batch drained: ping-pong may start */
  /* Ping-pong: echo every message back. */
  char buf[24];
  for (int i = 0; i < PINGS; i++) {
    size_t n;
    mcapi_msg_recv(me, buf, sizeof buf, &n, &st);
    mcapi_msg_send(me, peer, buf, n, 0, &st);
  }
  pthread_barrier_wait(&d->batch_sent); /* A is done with our endpoint */
  mcapi_finalize(&st);
  return NULL;
}

static void run(struct demo *d)
{
  mcapi_status_t st;
  pthread_t t;
  pthread_barrier_init(&d->batch_sent, NULL, 2);
  pthread_create(&t, NULL, node_b, d);
  bench_pin(d->cpu_a);
  node_up(d, NODE_A);
  mcapi_endpoint_t me = mcapi_endpoint_create(PORT, &st);
  mcapi_endpoint_t peer = mcapi_endpoint_get(d->domain, NODE_B, PORT, MCAPI_TIMEOUT_INFINITE, &st);
  printf("%s locking, node %d on cpu %d, node %d on cpu %d\n",
         d->locking == MCX_LOCKING_GLOBAL ? "global" : "lock-free", NODE_A, d->cpu_a, NODE_B,
         d->cpu_b);
  printf("  node %d sent:    ", NODE_A);
  for (int i = 0; i < BATCH; i++) {
    mcapi_priority_t prio = (mcapi_priority_t)(2 - i % 3);
    char text[32];
    int n = snprintf(text, sizeof text, "p%u#%d", prio, i);
    mcapi_msg_send(me, peer, text, (size_t)n, prio, &st);
    if (st != MCAPI_SUCCESS)
      die("mcapi_msg_send", st);
    printf(" %s", text);
  }
  printf("\n");
  fflush(stdout);
  pthread_barrier_wait(&d->batch_sent);
  pthread_barrier_wait(&d->batch_sent);
  static uint64_t rtt[PINGS];
  char buf[24] = "24-byte ping-pong body.";
  for (int i = 0; i < PINGS; i++) {
    size_t n;
    uint64_t t0 = bench_now_ns();
    mcapi_msg_send(me, peer, buf, sizeof buf, 0, &st);
    mcapi_msg_recv(me, buf, sizeof buf, &n, &st);
    rtt[i] = bench_now_ns() - t0;
    if (st != MCAPI_SUCCESS || n != sizeof buf)
      die("ping-pong", st);
  }
  pthread_barrier_wait(&d->batch_sent);
  pthread_join(t, NULL);
  mcapi_finalize(&st);
  pthread_barrier_destroy(&d->batch_sent);
  qsort(rtt, PINGS, sizeof rtt[0], bench_cmp_u64);
  printf("  %d ping-pongs of 24-byte messages: round trip min %llu ns, median %llu ns, "
         "p99 %llu ns\n",
         PINGS, (unsigned long long)rtt[0], (unsigned long long)rtt[PINGS / 2],
         (unsigned long long)rtt[PINGS * 99 / 100]);
}

int mca_cmd_demo(int argc, char **argv)
{
  if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
    printf("usage: mca demo\n\nTwo threads exchange MCAPI messages (priorities, then a "
           "ping-pong),\nonce with lock-free queues and once under the global lock.\n");
    return 0;
  }
  if (argc > 1) {
    fprintf(stderr, "mca demo: unknown option '%s' (the demo takes none; mca help demo)\n", argv[1]);
    return 2;
  }
  /* The first two CPUs the process may run on (one: both nodes on it). */
  struct demo d = {.cpu_a = bench_cpu(0), .cpu_b = bench_cpu(bench_ncpus() > 1 ? 1 : 0)};
  d.domain = 1;
  d.locking = MCX_LOCKING_LOCKFREE;
  run(&d);
  d.domain = 2;
  d.locking = MCX_LOCKING_GLOBAL;
  run(&d);
  return 0;
}
