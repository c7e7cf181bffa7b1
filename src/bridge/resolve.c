/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Endpoints by address (docs/bridge.md), node thread only: the local
 * programs' requests for a remote endpoint (answered with its proxy), the
 * peers' resolves of local endpoints (answered when the endpoint exists or
 * the time is up), and the cache of the local endpoints data frames go to.
 */
#include <stdint.h>
#include <stdlib.h>

#include "bridge_internal.h"

/* The local endpoint (node, port), 0 when there is none. */
static mcapi_endpoint_t local_get(bridge_t *b, uint32_t node, uint32_t port)
{
  mcapi_status_t st;
  mcapi_endpoint_t h = mcapi_endpoint_get(b->cfg.domain, node, port, 0, &st);
  return st == MCAPI_SUCCESS ? h : 0;
}

mcapi_endpoint_t mcx__br_dest_ep(bridge_t *b, uint32_t node, uint32_t port, int fresh)
{
  for (unsigned i = 0; i < b->ndests; i++)
    if (b->dests[i].node == node && b->dests[i].port == port) {
      if (fresh)
        b->dests[i].ep = local_get(b, node, port);
      return b->dests[i].ep;
    }
  mcapi_endpoint_t ep = local_get(b, node, port);
  if (ep && b->ndests < MAX_PROXIES)
    b->dests[b->ndests++] = (dest_t){node, port, ep};
  return ep;
}

static void reply_local(bridge_t *b, uint32_t node, uint32_t port, uint64_t token, mcapi_status_t status,
                        uint32_t proxy_port)
{
  mcapi_endpoint_t to = local_get(b, node, port);
  if (!to)
    return; /* the caller gave up */
  mcx_bridge_rep_t r = {.magic = MCX_BRIDGE_REP_MAGIC, .status = (uint32_t)status,
                        .proxy_node = b->cfg.node, .proxy_port = proxy_port, .token = token};
  mcapi_status_t st;
  mcapi_msg_send(b->req_ep, to, &r, sizeof r, 0, &st);
}

static void send_resolve(bridge_t *b, resolve_t *r)
{
  uint8_t m[RESOLVE_LEN];
  uint64_t now = nng_clock();
  uint32_t left = r->deadline == UINT64_MAX ? UINT32_MAX
                  : r->deadline > now       ? (uint32_t)(r->deadline - now)
                                            : 0;
  mcx__wire_resolve(m, r->id, r->node, r->port, left);
  if (b->peers[r->peer].up)
    mcx__br_send_small(&b->peers[r->peer], F_RESOLVE, m, sizeof m);
}

void mcx__br_resend_resolves(bridge_t *b, int pi)
{
  for (resolve_t *r = b->local_res; r; r = r->next)
    if (r->peer == pi)
      send_resolve(b, r);
}

int mcx__br_poll_requests(bridge_t *b)
{
  int busy = 0;
  for (int i = 0; i < 16; i++) {
    mcx_bridge_req_t q;
    mcapi_priority_t prio;
    mcapi_status_t st;
    size_t n = mcx_msg_try_recv_prio(b->req_ep, &q, sizeof q, &prio, &st);
    if (st == MCAPI_ERR_MEM_LIMIT)
      break;
    busy = 1;
    if (st != MCAPI_SUCCESS || n != sizeof q || q.magic != MCX_BRIDGE_REQ_MAGIC)
      continue; /* not a request: dropped */
    int pi = mcx__br_find_peer(b, q.domain);
    if (pi < 0) {
      reply_local(b, q.reply_node, q.reply_port, q.token, MCAPI_ERR_DOMAIN_INVALID, 0);
      continue;
    }
    /* Known already and the peer away: its proxy at once (sends are held
     * until the peer is back). With the peer up, asked again: the remote
     * endpoint may have been deleted since. */
    const proxy_t *x = b->peers[pi].up ? NULL : mcx__br_proxy_find(b, pi, q.node, q.port);
    if (x) {
      reply_local(b, q.reply_node, q.reply_port, q.token, MCAPI_SUCCESS, x->local_port);
      continue;
    }
    resolve_t *r = calloc(1, sizeof *r);
    if (!r) {
      reply_local(b, q.reply_node, q.reply_port, q.token, MCAPI_ERR_MEM_LIMIT, 0);
      continue;
    }
    r->id = ++b->next_res_id, r->peer = pi, r->node = q.node, r->port = q.port;
    r->deadline = q.timeout_ms == MCAPI_TIMEOUT_INFINITE ? UINT64_MAX : nng_clock() + q.timeout_ms;
    r->reply_node = q.reply_node, r->reply_port = q.reply_port, r->token = q.token;
    r->next = b->local_res;
    b->local_res = r;
    send_resolve(b, r);
  }
  return busy;
}

void mcx__br_tick_resolves(bridge_t *b)
{
  uint64_t now = nng_clock();
  for (resolve_t **pp = &b->remote_res; *pp;) {
    resolve_t *r = *pp;
    int found = local_get(b, r->node, r->port) != 0;
    if (found || now >= r->deadline) {
      uint8_t m[RESOLVED_LEN];
      mcx__wire_resolved(m, r->id, found ? 0 : 1);
      if (b->peers[r->peer].up)
        mcx__br_send_small(&b->peers[r->peer], F_RESOLVED, m, sizeof m);
      *pp = r->next;
      free(r);
      continue;
    }
    pp = &r->next;
  }
  /* Local ones whose answer did not come in time (the peer is down). */
  for (resolve_t **pp = &b->local_res; *pp;) {
    resolve_t *r = *pp;
    if (r->deadline != UINT64_MAX && now >= r->deadline + 500) {
      reply_local(b, r->reply_node, r->reply_port, r->token, MCAPI_TIMEOUT, 0);
      *pp = r->next;
      free(r);
      continue;
    }
    pp = &r->next;
  }
}

void mcx__br_on_resolved(bridge_t *b, int pi, const uint8_t *m, uint32_t n)
{
  uint64_t id;
  uint32_t status;
  if (mcx__wire_resolved_get(m, n, &id, &status))
    return;
  for (resolve_t **pp = &b->local_res; *pp; pp = &(*pp)->next) {
    resolve_t *r = *pp;
    if (r->id != id || r->peer != pi)
      continue;
    proxy_t *x = status == 0 ? mcx__br_proxy_for(b, pi, r->node, r->port) : NULL;
    reply_local(b, r->reply_node, r->reply_port, r->token,
                status != 0 ? MCAPI_TIMEOUT : x ? MCAPI_SUCCESS : MCAPI_ERR_ENDP_LIMIT, x ? x->local_port : 0);
    *pp = r->next;
    free(r);
    return;
  }
}

void mcx__br_on_resolve(bridge_t *b, int pi, const uint8_t *m, uint32_t n)
{
  uint64_t id;
  uint32_t node, port, t;
  if (mcx__wire_resolve_get(m, n, &id, &node, &port, &t))
    return;
  resolve_t *r = calloc(1, sizeof *r);
  if (!r)
    return;
  r->id = id, r->peer = pi, r->node = node, r->port = port;
  r->deadline = t == UINT32_MAX ? UINT64_MAX : nng_clock() + t;
  r->next = b->remote_res;
  b->remote_res = r;
}
