/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Peer baseline: ZeroMQ (Debian libzmq3-dev), one PAIR socket at each side,
 * over inproc:// (threads of one process) and ipc:// (a Unix socket). zmq_send
 * copies the item into a message, zmq_recv copies it out. Skipped with a note
 * when libzmq is absent at build time.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/core/bench.h"

#ifdef MCA_HAVE_ZMQ
#include <errno.h>
#include <zmq.h>

struct zq {
  void *ctx;
  void *s[2];
  char ep[128];
  int ipc;
};
struct zside {
  struct zq *q;
  int side;
};

static int zq_prepare(bench_ctx_t *c, int ipc)
{
  static atomic_uint counter;
  struct zq *q = calloc(1, sizeof *q);
  q->ipc = ipc;
  unsigned n = atomic_fetch_add(&counter, 1);
  if (ipc)
    snprintf(q->ep, sizeof q->ep, "ipc:///tmp/mca-bench-zmq-%d-%u", (int)getpid(), n);
  else
    snprintf(q->ep, sizeof q->ep, "inproc://mca-bench-%u", n);
  q->ctx = zmq_ctx_new();
  int linger = 0;
  for (int i = 0; i < 2; i++) {
    q->s[i] = q->ctx ? zmq_socket(q->ctx, ZMQ_PAIR) : NULL;
    if (q->s[i])
      zmq_setsockopt(q->s[i], ZMQ_LINGER, &linger, sizeof linger);
  }
  if (!q->s[0] || !q->s[1] || zmq_bind(q->s[0], q->ep) || zmq_connect(q->s[1], q->ep)) {
    bench_fail(c, BENCH_ERR, "zmq set-up on %s: %s", q->ep, zmq_strerror(zmq_errno()));
    for (int i = 0; i < 2; i++)
      if (q->s[i])
        zmq_close(q->s[i]);
    if (q->ctx)
      zmq_ctx_term(q->ctx);
    free(q);
    return BENCH_ERR;
  }
  c->priv = q;
  return 0;
}
static int zq_prepare_inproc(bench_ctx_t *c) { return zq_prepare(c, 0); }
static int zq_prepare_ipc(bench_ctx_t *c) { return zq_prepare(c, 1); }
static void zq_destroy(bench_ctx_t *c)
{
  struct zq *q = c->priv;
  zmq_close(q->s[0]);
  zmq_close(q->s[1]);
  zmq_ctx_term(q->ctx);
  if (q->ipc)
    unlink(q->ep + strlen("ipc://"));
  free(q);
}
static int zq_open(bench_ctx_t *c, int side, void **h)
{
  struct zside *s = malloc(sizeof *s);
  s->q = c->priv;
  s->side = side;
  *h = s;
  return 0;
}
static void zq_close(bench_ctx_t *c, int side, void *h) { free(h); }
static int zq_send(bench_ctx_t *c, void *h, const void *buf)
{
  struct zside *s = h;
  for (;;) {
    int r = zmq_send(s->q->s[s->side], buf, c->size, 0);
    if (r == (int)c->size)
      return 0;
    if (r < 0 && zmq_errno() == EINTR)
      continue;
    bench_fail(c, BENCH_ERR, "zmq_send: %s", zmq_strerror(zmq_errno()));
    return BENCH_ERR;
  }
}
static int zq_recv(bench_ctx_t *c, void *h, void *buf)
{
  struct zside *s = h;
  for (;;) {
    int r = zmq_recv(s->q->s[s->side], buf, c->size, 0);
    if (r == (int)c->size)
      return 0;
    if (r < 0 && zmq_errno() == EINTR)
      continue;
    bench_fail(c, BENCH_ERR, "zmq_recv: %d bytes, %s", r, zmq_strerror(zmq_errno()));
    return BENCH_ERR;
  }
}
BENCH_BATCH_FROM_ITEM(zq)
const bench_ops_t bench_peer_zmq_inproc = {"zmq_inproc", zq_prepare_inproc, zq_open, zq_send, zq_recv,
                                           zq_close, zq_destroy, 0, 0, 0, NULL, NULL, NULL,
                                           zq_send_batch, zq_recv_batch};
const bench_ops_t bench_peer_zmq_ipc = {"zmq_ipc", zq_prepare_ipc, zq_open, zq_send, zq_recv,
                                        zq_close, zq_destroy, 0, 0, 0, NULL, NULL, NULL,
                                        zq_send_batch, zq_recv_batch};
#else
#define ZMQ_MISSING "ZeroMQ was not found at build time (install libzmq3-dev: scripts/deps.sh)"
const bench_ops_t bench_peer_zmq_inproc = {.name = "zmq_inproc", .unavailable = ZMQ_MISSING};
const bench_ops_t bench_peer_zmq_ipc = {.name = "zmq_ipc", .unavailable = ZMQ_MISSING};
#endif
