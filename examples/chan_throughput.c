/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE
/*
 * chan_throughput: packet and scalar channels through the public MCAPI calls,
 * two nodes (threads) pinned to different CPUs.
 *   one-way:   scalar uint64 items/s, 24-byte packets/s (receiver releases each)
 *   ping-pong: round trip of one scalar, of one 24-byte packet
 * Each cell is repeated; medians with min-max. MCX_LOCKING selects the mode.
 *
 * Usage: example_chan_throughput [reps] [items] [rounds]
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcapi.h"
#include "mcx.h"

#define DOM 7
#define PKT 24

int mcx_port_pin_self(int cpu); /* ports/mcx_port.h */
int mcx_port_ncpus(void);

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static long n_items, n_rounds;
static int cpu_b;
static atomic_int ready;

enum { SCL_STREAM, PKT_STREAM, SCL_PP, PKT_PP };

static void die(const char *what, mcapi_status_t st)
{
  char b[64];
  fprintf(stderr, "%s: %s\n", what, mcapi_display_status(st, b, sizeof b) ? b : "?");
  exit(1);
}

static void wait_ok(mcapi_request_t *r, const char *what)
{
  mcapi_status_t st;
  size_t n;
  mcapi_wait(r, &n, MCAPI_TIMEOUT_INFINITE, &st);
  if (st != MCAPI_SUCCESS)
    die(what, st);
}

/* Each side: a send endpoint (port 1) and a receive endpoint (port 2).
 * Channel A: node 1 -> node 2; channel B: node 2 -> node 1 (ping-pong). */
struct side {
  mcapi_endpoint_t tx, rx;
  uint32_t sh, rh; /* send and receive handles */
};

static void open_side(struct side *s, int kind, int node)
{
  mcapi_status_t st;
  mcapi_request_t r1, r2, c;
  int scl = kind == SCL_STREAM || kind == SCL_PP;
  mcapi_uint_t depth = 64;
  s->tx = mcapi_endpoint_create(1, &st);
  s->rx = mcapi_endpoint_create(2, &st);
  mcapi_endpoint_set_attribute(s->rx, MCAPI_ENDP_ATTR_NUM_RECV_BUFFERS, &depth, sizeof depth, &st);
  /* Each node connects its send endpoint to the other's receive endpoint. */
  mcapi_endpoint_t peer_rx = mcapi_endpoint_get(DOM, node == 1 ? 2 : 1, 2, MCAPI_TIMEOUT_INFINITE, &st);
  if (scl) {
    mcapi_sclchan_connect_i(s->tx, peer_rx, &c, &st);
    wait_ok(&c, "connect");
    mcapi_sclchan_send_open_i(&s->sh, s->tx, &r1, &st);
    mcapi_sclchan_recv_open_i(&s->rh, s->rx, &r2, &st);
  } else {
    mcapi_pktchan_connect_i(s->tx, peer_rx, &c, &st);
    wait_ok(&c, "connect");
    mcapi_pktchan_send_open_i(&s->sh, s->tx, &r1, &st);
    mcapi_pktchan_recv_open_i(&s->rh, s->rx, &r2, &st);
  }
  wait_ok(&r1, "send open");
  wait_ok(&r2, "recv open");
}

static void init(int node)
{
  mcapi_status_t st;
  mcapi_info_t info;
  mcapi_initialize(DOM, (mcapi_node_t)node, NULL, NULL, &info, &st);
  if (st != MCAPI_SUCCESS)
    die("initialize", st);
}

static void send_one(int scl, uint32_t h, uint64_t v)
{
  mcapi_status_t st;
  if (scl) {
    mcapi_sclchan_send_uint64(h, v, &st);
  } else {
    uint8_t b[PKT];
    memcpy(b, &v, 8);
    memset(b + 8, (int)(v & 0xff), PKT - 8);
    mcapi_pktchan_send(h, b, PKT, &st);
  }
  if (st != MCAPI_SUCCESS)
    die("send", st);
}

static uint64_t recv_one(int scl, uint32_t h)
{
  mcapi_status_t st;
  uint64_t v;
  if (scl) {
    v = mcapi_sclchan_recv_uint64(h, &st);
  } else {
    void *p;
    size_t n;
    mcapi_pktchan_recv(h, &p, &n, &st);
    if (st != MCAPI_SUCCESS)
      die("recv", st);
    memcpy(&v, p, 8);
    mcapi_pktchan_release(p, &st);
  }
  if (st != MCAPI_SUCCESS)
    die("recv", st);
  return v;
}

static void *node2(void *arg)
{
  int kind = *(int *)arg;
  int scl = kind == SCL_STREAM || kind == SCL_PP;
  mcx_port_pin_self(cpu_b);
  init(2);
  struct side s;
  mcapi_status_t st;
  mcapi_endpoint_create(9, &st); /* marks node 2 ready for gets of port 2 */
  open_side(&s, kind, 2);
  atomic_store(&ready, 1);
  long bad = 0;
  if (kind == SCL_STREAM || kind == PKT_STREAM) {
    for (long i = 0; i < n_items; i++)
      bad += recv_one(scl, s.rh) != (uint64_t)i;
  } else {
    for (long i = 0; i < n_rounds; i++)
      send_one(scl, s.sh, recv_one(scl, s.rh) + 1);
  }
  if (bad)
    fprintf(stderr, "%ld items out of order\n", bad);
  while (atomic_load(&ready) != 2)
    ;
  mcapi_finalize(&st);
  return NULL;
}

static double cell(int kind)
{
  int scl = kind == SCL_STREAM || kind == SCL_PP;
  atomic_store(&ready, 0);
  pthread_t t;
  pthread_create(&t, NULL, node2, &kind);
  mcx_port_pin_self(0);
  init(1);
  struct side s;
  open_side(&s, kind, 1);
  while (atomic_load(&ready) != 1)
    ;
  double t0 = now(), r;
  if (kind == SCL_STREAM || kind == PKT_STREAM) {
    for (long i = 0; i < n_items; i++)
      send_one(scl, s.sh, (uint64_t)i);
    /* The last item is consumed when node 2 leaves its loop. */
    atomic_store(&ready, 2);
    pthread_join(t, NULL);
    r = n_items / (now() - t0);
  } else {
    for (long i = 0; i < n_rounds; i++)
      if (recv_one(scl, (send_one(scl, s.sh, (uint64_t)i), s.rh)) != (uint64_t)i + 1)
        fprintf(stderr, "bad reply\n");
    r = (now() - t0) * 1e9 / n_rounds;
    atomic_store(&ready, 2);
    pthread_join(t, NULL);
  }
  mcapi_status_t st;
  mcapi_finalize(&st);
  return r;
}

static int cmp(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
  int reps = argc > 1 ? atoi(argv[1]) : 5;
  n_items = argc > 2 ? atol(argv[2]) : 5000000;
  n_rounds = argc > 3 ? atol(argv[3]) : 300000;
  if (reps < 1 || reps > 32)
    reps = 5;
  cpu_b = mcx_port_ncpus() > 1 ? 1 : 0;
  const char *lk = getenv("MCX_LOCKING");
  printf("chan_throughput: CPUs 0 and %d, %s locking, %d reps, %ld items one-way, %ld round trips\n",
         cpu_b, lk && *lk ? lk : "lockfree", reps, n_items, n_rounds);
  static const char *names[] = {"scalar uint64 one-way", "packet 24 B one-way",
                                "scalar uint64 ping-pong RTT", "packet 24 B ping-pong RTT"};
  for (int k = 0; k < 4; k++) {
    double v[32];
    for (int i = 0; i < reps; i++)
      v[i] = cell(k);
    qsort(v, (size_t)reps, sizeof v[0], cmp);
    if (k < 2)
      printf("  %-28s %8.2f M items/s (min %.2f max %.2f)\n", names[k], v[reps / 2] / 1e6,
             v[0] / 1e6, v[reps - 1] / 1e6);
    else
      printf("  %-28s %8.0f ns (min %.0f max %.0f)\n", names[k], v[reps / 2], v[0], v[reps - 1]);
  }
  return 0;
}
