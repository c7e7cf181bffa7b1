/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mca bench: libmca as a subject. ctx->cfg picks the exchange type (message,
 * packet, scalar), locking mode, transport and wait policy. Side 0 is node 1,
 * side 1 node 2 of the sample's own domain. Only the standard MCAPI API is
 * used, so packet/scalar/pmq/cross-process cells start working as soon as the
 * library provides them; until then the first call that is not available
 * makes the cell "n/a" with the reason.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "mcapi.h"
#include "mcx.h"

#define PORT_MSG 1
#define PORT_TX 10
#define PORT_RX 11
#define ENDP_TIMEOUT_MS 10000u

struct mside {
  int type;
  int claim; /* packets: claim/commit instead of mcapi_pktchan_send */
  int build; /* packets: the item is written whole (bench_build) where it is sent from */
  unsigned char *own; /* build without claim: the sender's own buffer */
  size_t size;
  mcapi_endpoint_t me, peer; /* messages */
  mcapi_endpoint_t tx, rx, peer_rx;
  mcapi_pktchan_send_hndl_t ps;
  mcapi_pktchan_recv_hndl_t pr;
  mcapi_sclchan_send_hndl_t ss;
  mcapi_sclchan_recv_hndl_t sr;
  int opened_send, opened_recv;
};

static const char *sname(mcapi_status_t st)
{
  static _Thread_local char b[MCAPI_MAX_STATUS_MSG_LEN];
  return mcapi_display_status(st, b, sizeof b) ? b : "?";
}

static int init_node(bench_ctx_t *c, mcapi_node_t node, mcapi_status_t *st)
{
  mcapi_param_t p;
  mcapi_info_t info;
  mcx_param_init(&p);
  p.locking = c->cfg.locking;
  if (c->cfg.transport == 1)
    p.transport = MCX_TRANSPORT_PMQ;
  if (c->size > MCAPI_MAX_MSG_SIZE) {
    /* Messages above the reference's default limit: this cell's domain is
     * made for them (a few endpoints, so the partition stays small). */
    p.max_msg_size = (mca_uint32_t)c->size;
    p.max_endpoints = 16;
  }
  mcapi_initialize(c->domain, node, NULL, &p, &info, st);
  if (*st != MCAPI_SUCCESS) {
    bench_fail(c, c->cfg.transport ? BENCH_NA : BENCH_ERR, "mcapi_initialize(node %u): %s",
               (unsigned)node, sname(*st));
    return c->cfg.transport ? BENCH_NA : BENCH_ERR;
  }
  return 0;
}

static mcapi_endpoint_t make_ep(mcapi_port_t port, mcapi_status_t *st)
{
  mcapi_endpoint_t e = mcapi_endpoint_create(port, st);
  if (*st == MCAPI_SUCCESS) {
    mcapi_timeout_t t = ENDP_TIMEOUT_MS;
    mcapi_status_t s2;
    mcapi_endpoint_set_attribute(e, MCAPI_ENDP_ATTR_TIMEOUT, &t, sizeof t, &s2);
  }
  return e;
}

static int get_ep(bench_ctx_t *c, mcapi_node_t node, mcapi_port_t port, mcapi_endpoint_t *e)
{
  mcapi_status_t st;
  /* Cross-process: a peer that never shows up means processes do not share the domain. */
  mcapi_timeout_t t = c->cross_process ? 2000 : 10000;
  *e = mcapi_endpoint_get(c->domain, node, port, t, &st);
  if (st == MCAPI_SUCCESS)
    return 0;
  if (c->cross_process && st == MCAPI_TIMEOUT) {
    bench_fail(c, BENCH_NA, "cross-process: node %u's endpoint not visible from another process "
               "within 2 s (cross-process domains unavailable)", (unsigned)node);
    return BENCH_NA;
  }
  bench_fail(c, BENCH_ERR, "mcapi_endpoint_get(node %u, port %u): %s", (unsigned)node,
             (unsigned)port, sname(st));
  return BENCH_ERR;
}

/* pmq endpoints and connections are message queues, drawn from one per-user
 * budget (RLIMIT_MSGQUEUE) that every program of the same user shares: when
 * others have used it up, the cell cannot run here, which is not a failure of
 * libmca. 1: the cell was made n/a. */
static int pmq_budget(bench_ctx_t *c, const char *what, mcapi_status_t st)
{
  if (c->cfg.transport != 1 || st != MCAPI_ERR_MEM_LIMIT)
    return 0;
  bench_fail(c, BENCH_NA, "pmq: %s: MCAPI_ERR_MEM_LIMIT (the user's message-queue budget, "
             "RLIMIT_MSGQUEUE, is used up by other queues on this machine)", what);
  return 1;
}

static int chan_na(bench_ctx_t *c, const char *what, mcapi_status_t st)
{
  if (pmq_budget(c, what, st))
    return BENCH_NA;
  if (st == MCAPI_ERR_GENERAL) {
    bench_fail(c, BENCH_NA, "%s: MCAPI_ERR_GENERAL (channels not available in this build)", what);
    return BENCH_NA;
  }
  bench_fail(c, BENCH_ERR, "%s: %s", what, sname(st));
  return BENCH_ERR;
}

static int wait_req(bench_ctx_t *c, mcapi_request_t *r, const char *what)
{
  mcapi_status_t st;
  size_t sz;
  mcapi_wait(r, &sz, 10000, &st);
  if (st != MCAPI_SUCCESS)
    return chan_na(c, what, st);
  return 0;
}

static int ep_failed(bench_ctx_t *c, mcapi_status_t st)
{
  if (pmq_budget(c, "mcapi_endpoint_create", st))
    return BENCH_NA;
  bench_fail(c, BENCH_ERR, "mcapi_endpoint_create: %s", sname(st));
  return BENCH_ERR;
}

static int lm_prepare(bench_ctx_t *c)
{
  if (c->cfg.blocking_wait)
    mcx_set_wait_policy(0, 0);
  return 0;
}

static void lm_destroy(bench_ctx_t *c)
{
  if (c->cfg.blocking_wait)
    mcx_set_wait_policy(128, 200); /* the documented defaults */
}

static int lm_open(bench_ctx_t *c, int side, void **hp)
{
  struct mside *m = calloc(1, sizeof *m);
  *hp = m;
  m->type = c->cfg.type;
  m->claim = c->cfg.claim;
  m->build = c->cfg.build;
  m->size = c->size;
  if (m->type == 'p' && c->size > MCAPI_MAX_PKT_SIZE) {
    free(m);
    *hp = NULL;
    bench_fail(c, BENCH_NA, "packets above this build's MCAPI_MAX_PKT_SIZE (%d B)",
               MCAPI_MAX_PKT_SIZE);
    return BENCH_NA;
  }
  if (m->build && !m->claim &&
      !(m->own = bench_aligned_alloc(64, (c->size + 63) & ~(size_t)63))) {
    free(m);
    *hp = NULL;
    bench_fail(c, BENCH_ERR, "no memory for the sender's buffer");
    return BENCH_ERR;
  }
  mcapi_status_t st;
  mcapi_node_t me = (mcapi_node_t)side + 1, other = (mcapi_node_t)(2 - side);
  int r = init_node(c, me, &st);
  if (r) {
    if (m->own)
      bench_aligned_free(m->own);
    free(m);
    *hp = NULL;
    return r;
  }
  if (m->type == 'm') {
    m->me = make_ep(PORT_MSG, &st);
    if (st != MCAPI_SUCCESS) {
      return ep_failed(c, st);
    }
    return get_ep(c, other, PORT_MSG, &m->peer);
  }
  m->tx = make_ep(PORT_TX, &st);
  if (st == MCAPI_SUCCESS)
    m->rx = make_ep(PORT_RX, &st);
  if (st != MCAPI_SUCCESS) {
    return ep_failed(c, st);
  }
  if ((r = get_ep(c, other, PORT_RX, &m->peer_rx)))
    return r;
  mcapi_request_t rc, rs, rr;
  const char *what = m->type == 'p' ? "mcapi_pktchan_connect_i" : "mcapi_sclchan_connect_i";
  if (m->type == 'p')
    mcapi_pktchan_connect_i(m->tx, m->peer_rx, &rc, &st);
  else
    mcapi_sclchan_connect_i(m->tx, m->peer_rx, &rc, &st);
  if (st != MCAPI_PENDING && st != MCAPI_SUCCESS)
    return chan_na(c, what, st);
  if ((r = wait_req(c, &rc, what)))
    return r;
  if (m->type == 'p') {
    mcapi_pktchan_send_open_i(&m->ps, m->tx, &rs, &st);
    if (st != MCAPI_PENDING && st != MCAPI_SUCCESS)
      return chan_na(c, "mcapi_pktchan_send_open_i", st);
    mcapi_pktchan_recv_open_i(&m->pr, m->rx, &rr, &st);
    if (st != MCAPI_PENDING && st != MCAPI_SUCCESS)
      return chan_na(c, "mcapi_pktchan_recv_open_i", st);
  } else {
    mcapi_sclchan_send_open_i(&m->ss, m->tx, &rs, &st);
    if (st != MCAPI_PENDING && st != MCAPI_SUCCESS)
      return chan_na(c, "mcapi_sclchan_send_open_i", st);
    mcapi_sclchan_recv_open_i(&m->sr, m->rx, &rr, &st);
    if (st != MCAPI_PENDING && st != MCAPI_SUCCESS)
      return chan_na(c, "mcapi_sclchan_recv_open_i", st);
  }
  if ((r = wait_req(c, &rs, "send_open_i")) || (r = wait_req(c, &rr, "recv_open_i")))
    return r;
  m->opened_send = m->opened_recv = 1;
  return 0;
}

static int send_failed(bench_ctx_t *c, mcapi_status_t st)
{
  if (pmq_budget(c, "send", st))
    return BENCH_NA;
  bench_fail(c, BENCH_ERR, "send: %s", sname(st));
  return BENCH_ERR;
}

static int recv_failed(bench_ctx_t *c, mcapi_status_t st, size_t got, size_t size)
{
  if (pmq_budget(c, "receive", st))
    return BENCH_NA;
  bench_fail(c, BENCH_ERR, "receive: %s (size %zu of %zu)", sname(st), got, size);
  return BENCH_ERR;
}

static int lm_send(bench_ctx_t *c, void *h, const void *buf)
{
  struct mside *m = h;
  mcapi_status_t st;
  switch (m->type) {
  case 'm':
    mcapi_msg_send(m->me, m->peer, buf, m->size, 1, &st);
    break;
  case 'p':
    if (m->claim) {
      /* The item is written where it travels: into the claim, then
       * published. Built whole there (build), or the harness's ready item
       * copied in, as the send copies it. */
      void *p = mcx_pktchan_send_alloc(m->ps, m->size, &st);
      if (st == MCAPI_SUCCESS) {
        if (m->build)
          bench_build(p, buf, m->size);
        else
          memcpy(p, buf, m->size);
        mcx_pktchan_send_commit(m->ps, p, m->size, &st);
      }
    } else if (m->build) {
      /* The same item built whole in the sender's own buffer, then sent
       * (copied) from there: the producer a claim spares a copy. */
      bench_build(m->own, buf, m->size);
      mcapi_pktchan_send(m->ps, m->own, m->size, &st);
    } else {
      mcapi_pktchan_send(m->ps, buf, m->size, &st);
    }
    break;
  default: {
    uint64_t v;
    memcpy(&v, buf, 8);
    mcapi_sclchan_send_uint64(m->ss, v, &st);
  }
  }
  return st == MCAPI_SUCCESS ? 0 : send_failed(c, st);
}

static int lm_recv(bench_ctx_t *c, void *h, void *buf)
{
  struct mside *m = h;
  mcapi_status_t st;
  size_t got = m->size;
  switch (m->type) {
  case 'm':
    mcapi_msg_recv(m->me, buf, m->size, &got, &st);
    break;
  case 'p': {
    void *p = NULL;
    mcapi_pktchan_recv(m->pr, &p, &got, &st);
    if (st == MCAPI_SUCCESS) {
      /* copy-out receive: the whole packet into the caller's buffer, then release */
      memcpy(buf, p, got < m->size ? got : m->size);
      mcapi_status_t s2;
      mcapi_pktchan_release(p, &s2);
    }
    break;
  }
  default: {
    uint64_t v = mcapi_sclchan_recv_uint64(m->sr, &st);
    memcpy(buf, &v, 8);
  }
  }
  return st == MCAPI_SUCCESS && got == m->size ? 0 : recv_failed(c, st, got, m->size);
}

/* Stream batches: per item the same call as lm_send / lm_recv (a scalar: one
 * mcapi_sclchan_send_uint64 / mcapi_sclchan_recv_uint64), without the
 * harness's call in between. */
static int lm_send_batch(bench_ctx_t *c, void *h, const void *items, unsigned k)
{
  struct mside *m = h;
  const unsigned char *p = items;
  size_t sz = c->size;
  if (m->type == 's') {
    for (unsigned i = 0; i < k; i++, p += sz) {
      uint64_t v;
      mcapi_status_t st;
      memcpy(&v, p, 8);
      mcapi_sclchan_send_uint64(m->ss, v, &st);
      if (st != MCAPI_SUCCESS)
        return send_failed(c, st);
    }
    return 0;
  }
  for (unsigned i = 0; i < k; i++, p += sz) {
    int r = lm_send(c, h, p);
    if (r)
      return r;
  }
  return 0;
}

static int lm_recv_batch(bench_ctx_t *c, void *h, void *items, unsigned k)
{
  struct mside *m = h;
  unsigned char *p = items;
  size_t sz = c->size;
  if (m->type == 's') {
    for (unsigned i = 0; i < k; i++, p += sz) {
      mcapi_status_t st;
      uint64_t v = mcapi_sclchan_recv_uint64(m->sr, &st);
      if (st != MCAPI_SUCCESS)
        return recv_failed(c, st, m->size, m->size);
      memcpy(p, &v, 8);
    }
    return 0;
  }
  for (unsigned i = 0; i < k; i++, p += sz) {
    int r = lm_recv(c, h, p);
    if (r)
      return r;
  }
  return 0;
}

/* Zero-copy packet receive: the caller reads the packet where it lies. */
static int lm_recv_view(bench_ctx_t *c, void *h, const void **out)
{
  struct mside *m = h;
  mcapi_status_t st;
  size_t got = 0;
  void *p = NULL;
  if (m->type == 'm') {
    const void *q = NULL;
    mcx_msg_recv_inplace(m->me, &q, &got, &st);
    p = (void *)(uintptr_t)q;
  } else if (m->type == 'p') {
    mcapi_pktchan_recv(m->pr, &p, &got, &st);
  } else {
    bench_fail(c, BENCH_ERR, "in-place receive exists for messages and packets only");
    return BENCH_ERR;
  }
  if (st != MCAPI_SUCCESS || got != m->size) {
    if (pmq_budget(c, "receive", st))
      return BENCH_NA;
    bench_fail(c, BENCH_ERR, "receive: %s (size %zu of %zu)", sname(st), got, m->size);
    return BENCH_ERR;
  }
  *out = p;
  return 0;
}

static void lm_release(bench_ctx_t *c, void *h, const void *p)
{
  struct mside *m = h;
  mcapi_status_t st;
  if (m->type == 'm')
    mcx_msg_release(p, &st);
  else
    mcapi_pktchan_release((void *)p, &st);
}

static void lm_close(bench_ctx_t *c, int side, void *h)
{
  struct mside *m = h;
  if (!m)
    return;
  mcapi_status_t st;
  mcapi_request_t r1, r2;
  size_t sz;
  if (m->opened_send) {
    if (m->type == 'p')
      mcapi_pktchan_send_close_i(m->ps, &r1, &st);
    else
      mcapi_sclchan_send_close_i(m->ss, &r1, &st);
    if (st == MCAPI_PENDING || st == MCAPI_SUCCESS) /* SUCCESS: completed at once, the request reports it */
      mcapi_wait(&r1, &sz, 5000, &st);
  }
  if (m->opened_recv) {
    if (m->type == 'p')
      mcapi_pktchan_recv_close_i(m->pr, &r2, &st);
    else
      mcapi_sclchan_recv_close_i(m->sr, &r2, &st);
    if (st == MCAPI_PENDING || st == MCAPI_SUCCESS) /* SUCCESS: completed at once, the request reports it */
      mcapi_wait(&r2, &sz, 5000, &st);
  }
  mcapi_finalize(&st);
  if (m->own)
    bench_aligned_free(m->own);
  free(m);
}

const bench_ops_t bench_libmca_ops = {
    .name = "libmca",
    .prepare = lm_prepare,
    .open = lm_open,
    .send = lm_send,
    .recv = lm_recv,
    .close = lm_close,
    .destroy = lm_destroy,
    .recv_view = lm_recv_view,
    .release = lm_release,
    .send_batch = lm_send_batch,
    .recv_batch = lm_recv_batch,
};

/* ---- probes: what this build provides */
static void *probe_chan_thread(void *arg)
{
  int *out = arg;
  mcapi_param_t p;
  mcapi_info_t info;
  mcapi_status_t st;
  mcx_param_init(&p);
  mcapi_initialize(0x30000000u + ((uint32_t)getpid() & 0xfffffff), 1, NULL, &p, &info, &st);
  if (st != MCAPI_SUCCESS) {
    *out = -1;
    return NULL;
  }
  /* Handle 0 is never valid: a real implementation says ENDP_INVALID, the
   * placeholder says GENERAL. */
  mcapi_request_t r;
  mcapi_pktchan_connect_i(0, 0, &r, &st);
  int pkt = st != MCAPI_ERR_GENERAL;
  mcapi_sclchan_connect_i(0, 0, &r, &st);
  int scl = st != MCAPI_ERR_GENERAL;
  mcapi_finalize(&st);
  *out = (pkt ? 1 : 0) | (scl ? 2 : 0);
  return NULL;
}

#include <pthread.h>
int bench_probe_channels(char *why, size_t n)
{
  int out = 0;
  pthread_t t;
  pthread_create(&t, NULL, probe_chan_thread, &out);
  pthread_join(t, NULL);
  if (out < 0)
    snprintf(why, n, "probe node could not be initialized");
  else if (out != 3)
    snprintf(why, n, "%s%s return MCAPI_ERR_GENERAL (channels not in this build)",
             out & 1 ? "" : "mcapi_pktchan_*", out == 0 ? " and mcapi_sclchan_*" : (out & 2 ? "" : "mcapi_sclchan_*"));
  return out < 0 ? 0 : out;
}
