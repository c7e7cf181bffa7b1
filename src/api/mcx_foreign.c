/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Endpoints of other domains (docs/bridge.md). mcapi_endpoint_get() for a
 * domain other than the caller's comes here (its one hook); nothing on the
 * data path does. The domain's bridge, a node with a well-known endpoint,
 * answers with a proxy endpoint of its own that stands for the remote one.
 * Also the bridge's one extra receive: a message together with its priority.
 */
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "mcx_bridge.h"
#include "runtime/msg_fast.h"

MCX_API mcapi_node_t mcx_bridge_node(void)
{
  const char *s = getenv("MCX_BRIDGE_NODE");
  if (s && *s) {
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    if (!*end && v <= MCAPI_MAX_NODE)
      return (mcapi_node_t)v;
  }
  return MCX_BRIDGE_NODE;
}

/* Bounded waits for the answer, so a bridge that dies is noticed. */
#define FOREIGN_SLICE_MS 100u
/* The bridge answers a get that timed out remotely shortly after the
 * timeout; the caller waits that much longer before it gives up itself. */
#define FOREIGN_GRACE_MS 2000u

mcapi_endpoint_t mcx__foreign_get(mcapi_domain_t domain_id, mcapi_node_t node_id,
                                  mcapi_port_t port_id, mcapi_timeout_t timeout,
                                  mcapi_status_t *mcapi_status)
{
  mcapi_status_t st;
  mcapi_domain_t self = mcx__self.dom->domain_id;
  if (domain_id == MCAPI_DOMAIN_INVALID) {
    SET(MCAPI_ERR_DOMAIN_INVALID);
    return 0;
  }
  if (node_id == MCAPI_NODE_INVALID) {
    SET(MCAPI_ERR_NODE_INVALID);
    return 0;
  }
  if (port_id > MCAPI_MAX_PORT) {
    SET(MCAPI_ERR_PORT_INVALID);
    return 0;
  }
  /* No bridge in this domain: the domain is unknown here, as before. */
  mcapi_endpoint_t bridge = mcapi_endpoint_get(self, mcx_bridge_node(), MCX_BRIDGE_PORT, 0, &st);
  if (st != MCAPI_SUCCESS) {
    SET(MCAPI_ERR_DOMAIN_INVALID);
    return 0;
  }
  mcapi_endpoint_t me = mcapi_endpoint_create(MCAPI_PORT_ANY, &st);
  if (st != MCAPI_SUCCESS) {
    SET(st);
    return 0;
  }
  mcapi_timeout_t slice = FOREIGN_SLICE_MS;
  mcapi_endpoint_set_attribute(me, MCAPI_ENDP_ATTR_TIMEOUT, &slice, sizeof slice, &st);
  mcapi_port_t my_port = 0;
  mcx__endpoint_t *mine;
  if (mcx__ep_resolve(mcx__self.dom, me, &mine) == MCX_OK)
    my_port = mcx_load_relaxed(&mine->port); /* our own endpoint: written before its handle */
  static mcx_atomic_u64 tokens;
  mcx_bridge_req_t q;
  memset(&q, 0, sizeof q);
  q.magic = MCX_BRIDGE_REQ_MAGIC;
  q.domain = domain_id;
  q.node = node_id;
  q.port = port_id;
  q.timeout_ms = timeout;
  q.reply_node = mcx__self.node_id;
  q.reply_port = my_port;
  q.token = (uint64_t)mcx_port_now_ns() ^ (mcx_fetch_add_relaxed(&tokens, 1) << 40); /* a tag */
  mcapi_msg_send(me, bridge, &q, sizeof q, 0, &st);
  mcapi_status_t out = MCAPI_ERR_DOMAIN_INVALID;
  mcapi_endpoint_t h = 0;
  if (st == MCAPI_SUCCESS) {
    uint64_t waited = 0, limit = timeout == MCAPI_TIMEOUT_INFINITE ? UINT64_MAX
                                                                    : (uint64_t)timeout + FOREIGN_GRACE_MS;
    out = MCAPI_TIMEOUT;
    for (;;) {
      mcx_bridge_rep_t r;
      size_t n = 0;
      mcapi_msg_recv(me, &r, sizeof r, &n, &st);
      if (st == MCAPI_SUCCESS && n == sizeof r && r.magic == MCX_BRIDGE_REP_MAGIC && r.token == q.token) {
        out = (mcapi_status_t)r.status;
        if (out == MCAPI_SUCCESS) {
          h = mcapi_endpoint_get(self, r.proxy_node, r.proxy_port, 0, &out);
          if (out != MCAPI_SUCCESS) /* the proxy went away (its bridge stopped) */
            out = MCAPI_ERR_DOMAIN_INVALID;
        }
        break;
      }
      if (st == MCAPI_SUCCESS)
        continue; /* a stray message: not ours */
      waited += FOREIGN_SLICE_MS;
      if (waited >= limit)
        break;
      mcx__sweep_dead(mcx__self.dom); /* a bridge killed meanwhile loses its endpoint */
      mcapi_endpoint_t again = mcapi_endpoint_get(self, mcx_bridge_node(), MCX_BRIDGE_PORT, 0, &st);
      if (st != MCAPI_SUCCESS || again != bridge) { /* the bridge stopped */
        out = MCAPI_ERR_DOMAIN_INVALID;
        break;
      }
    }
  }
  mcapi_endpoint_delete(me, &st);
  SET(out);
  return out == MCAPI_SUCCESS ? h : 0;
}

MCX_API size_t mcx_msg_try_recv_prio(mcapi_endpoint_t endpoint, void *buffer, size_t size,
                                     mcapi_priority_t *priority, mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return 0;
  REQUIRE_NODE(0);
  if (!buffer || !priority) {
    SET(MCAPI_ERR_PARAMETER);
    return 0;
  }
  mcx__domain_t *d = mcx__self.dom;
  if (d->transport != MCX_TRANSPORT_SHM_) {
    SET(MCAPI_ERR_PARAMETER);
    return 0;
  }
  int r = mcx__msg_check_recv(endpoint);
  if (r == MCX_EPERM) {
    SET(MCAPI_ERR_ENDP_REMOTE);
    return 0;
  }
  if (r) {
    SET(MCAPI_ERR_ENDP_INVALID);
    return 0;
  }
  mcx__endpoint_t *ep;
  if (mcx__ep_resolve(d, endpoint, &ep) != MCX_OK) {
    SET(MCAPI_ERR_ENDP_INVALID);
    return 0;
  }
  /* mcx__msg_dequeue_once, one priority at a time so the caller learns it. */
  uint32_t idx = mcx__ep_idx(d, ep), depth = mcx_load_relaxed(&ep->depth);
  uint32_t used = mcx_load_relaxed(&ep->used_prios); /* a hint, see mcx__msg_enqueue_once */
  mcx__ring_outcome_t o = MCX_RING_EMPTY;
  size_t got = 0;
  mcx__glock(d);
  while (used) {
    uint32_t p = (uint32_t)__builtin_ctz(used);
    used &= used - 1;
    mcx__ring_view_t v = mcx__ring_of(d, idx, p, depth);
    for (int i = 0; i < 64; i++) {
      o = mcx__mpsc_dequeue(&v, buffer, size, &got, 1);
      if (o != MCX_RING_EMPTY_BUT_PRODUCER_INSERTING)
        break;
      mcx_port_cpu_relax();
    }
    if (o == MCX_RING_OK || o == MCX_RING_TRUNCATED || o == MCX_RING_CORRUPT) {
      *priority = p;
      break;
    }
  }
  mcx__gunlock(d);
  if (o == MCX_RING_OK || o == MCX_RING_TRUNCATED || o == MCX_RING_CORRUPT)
    mcx__wp_notify(&ep->space_wp, d->shared); /* F-W2 after R2, as mcx__msg_dequeue_once */
  SET(o == MCX_RING_OK          ? MCAPI_SUCCESS
      : o == MCX_RING_TRUNCATED ? MCAPI_ERR_MSG_TRUNCATED
      : o == MCX_RING_CORRUPT   ? MCAPI_ERR_TRANSMISSION
                                : MCAPI_ERR_MEM_LIMIT);
  return o == MCX_RING_OK || o == MCX_RING_TRUNCATED ? got : 0;
}
