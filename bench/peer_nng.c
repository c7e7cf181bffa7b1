/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Peer baseline: nng (Debian libnng-dev), a pair1 socket at each side, over
 * inproc:// and ipc://. nng_send copies the item into a message, nng_recv
 * copies it out. Skipped with a note when nng is absent at build time.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/core/bench.h"

#ifdef MCA_HAVE_NNG
#include <nng/nng.h>
#include <nng/protocol/pair1/pair.h>

struct nq {
  nng_socket s[2];
  char url[128];
  int ipc;
};
struct nside {
  struct nq *q;
  int side;
};

static int nq_prepare(bench_ctx_t *c, int ipc)
{
  static atomic_uint counter;
  struct nq *q = calloc(1, sizeof *q);
  q->ipc = ipc;
  unsigned n = atomic_fetch_add(&counter, 1);
  if (ipc)
    snprintf(q->url, sizeof q->url, "ipc:///tmp/mca-bench-nng-%d-%u", (int)getpid(), n);
  else
    snprintf(q->url, sizeof q->url, "inproc://mca-bench-%u", n);
  int r = nng_pair1_open(&q->s[0]);
  if (!r)
    r = nng_pair1_open(&q->s[1]);
  if (!r)
    r = nng_listen(q->s[0], q->url, NULL, 0);
  if (!r)
    r = nng_dial(q->s[1], q->url, NULL, 0);
  if (r) {
    bench_fail(c, BENCH_ERR, "nng set-up on %s: %s", q->url, nng_strerror(r));
    nng_close(q->s[0]);
    nng_close(q->s[1]);
    free(q);
    return BENCH_ERR;
  }
  c->priv = q;
  return 0;
}
static int nq_prepare_inproc(bench_ctx_t *c) { return nq_prepare(c, 0); }
static int nq_prepare_ipc(bench_ctx_t *c) { return nq_prepare(c, 1); }
static void nq_destroy(bench_ctx_t *c)
{
  struct nq *q = c->priv;
  nng_close(q->s[0]);
  nng_close(q->s[1]);
  if (q->ipc)
    unlink(q->url + strlen("ipc://"));
  free(q);
}
static int nq_open(bench_ctx_t *c, int side, void **h)
{
  struct nside *s = malloc(sizeof *s);
  s->q = c->priv;
  s->side = side;
  *h = s;
  return 0;
}
static void nq_close(bench_ctx_t *c, int side, void *h) { free(h); }
static int nq_send(bench_ctx_t *c, void *h, const void *buf)
{
  struct nside *s = h;
  int r = nng_send(s->q->s[s->side], (void *)buf, c->size, 0);
  if (r) {
    bench_fail(c, BENCH_ERR, "nng_send: %s", nng_strerror(r));
    return BENCH_ERR;
  }
  return 0;
}
static int nq_recv(bench_ctx_t *c, void *h, void *buf)
{
  struct nside *s = h;
  size_t sz = c->size;
  int r = nng_recv(s->q->s[s->side], buf, &sz, 0);
  if (r || sz != c->size) {
    bench_fail(c, BENCH_ERR, "nng_recv: %s (%zu bytes)", r ? nng_strerror(r) : "short", sz);
    return BENCH_ERR;
  }
  return 0;
}
BENCH_BATCH_FROM_ITEM(nq)
const bench_ops_t bench_peer_nng_inproc = {"nng_inproc", nq_prepare_inproc, nq_open, nq_send, nq_recv,
                                           nq_close, nq_destroy, 0, 0, 0, NULL, NULL, NULL,
                                           nq_send_batch, nq_recv_batch};
const bench_ops_t bench_peer_nng_ipc = {"nng_ipc", nq_prepare_ipc, nq_open, nq_send, nq_recv,
                                        nq_close, nq_destroy, 0, 0, 0, NULL, NULL, NULL,
                                        nq_send_batch, nq_recv_batch};
#else
#define NNG_MISSING "nng was not found at build time (install libnng-dev: scripts/deps.sh)"
const bench_ops_t bench_peer_nng_inproc = {.name = "nng_inproc", .unavailable = NNG_MISSING};
const bench_ops_t bench_peer_nng_ipc = {.name = "nng_ipc", .unavailable = NNG_MISSING};
#endif
