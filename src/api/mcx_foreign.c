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
#include "runtime/msg.h"

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

/* ---- mcapi_endpoint_get_i() of another domain: a request completed by a
 * poll (REQ_POLL). The _i call makes the request; its first attempt sends
 * the query to the bridge; each test or wait takes the node's answers,
 * hands each to the pending get whose token it carries, and completes the
 * caller's when its answer is there. No thread: nothing moves between
 * tests, the bridge keeps the query meanwhile. */

/* A query asks the bridge for this long, and is asked again when the answer
 * is MCAPI_TIMEOUT (get_i has no timeout: it waits until the endpoint
 * exists). So a cancelled get leaves a query in the bridges for at most
 * that long, and the answer then finds no pending get (dropped). */
#define FOREIGN_ASK_MS 10000u

typedef struct fget {
  struct fget *next; /* the node's pending gets */
  mcapi_domain_t domain;
  mcapi_node_t node;
  mcapi_port_t port;
  mcapi_endpoint_t *out;
  mcapi_endpoint_t bridge;
  uint64_t token; /* of the query in flight; 0: not sent (yet, or again) */
  uint64_t asked_ns, checked_ns;
  int answered, first;
  mcapi_status_t status, failed; /* the answer's; an error kept for the next poll */
  uint32_t proxy_node, proxy_port;
} fget_t;

/* The calling node's reply endpoint, shared by its pending gets (made with
 * the first, deleted with the last; answers are told apart by token). */
static MCX_TLS struct {
  uint32_t key; /* the node it belongs to (mcx__self.key) */
  mcapi_endpoint_t ep;
  mcapi_port_t port;
  fget_t *pending;
} fq;

static mcx_atomic_u64 fget_tokens;

static void fq_unlink(fget_t *g, int delete_ep)
{
  for (fget_t **pp = &fq.pending; *pp; pp = &(*pp)->next)
    if (*pp == g) {
      *pp = g->next;
      break;
    }
  if (!fq.pending && fq.ep) {
    mcapi_status_t st;
    if (delete_ep)
      mcapi_endpoint_delete(fq.ep, &st);
    fq.ep = 0; /* else its node is finalizing: its endpoints go with it */
  }
  free(g);
}

/* Hands every answer on the reply endpoint to the pending get it is for. */
static void fq_take_answers(void)
{
  for (;;) {
    mcx_bridge_rep_t r;
    size_t n = 0;
    int e = mcx__msg_try_recv(fq.ep, &r, sizeof r, &n);
    if (e != MCX_OK && e != MCX_ETRUNC)
      return;
    if (e != MCX_OK || n != sizeof r || r.magic != MCX_BRIDGE_REP_MAGIC)
      continue;
    for (fget_t *g = fq.pending; g; g = g->next)
      if (g->token && g->token == r.token) {
        g->answered = 1;
        g->status = (mcapi_status_t)r.status;
        g->proxy_node = r.proxy_node;
        g->proxy_port = r.proxy_port;
        break;
      } /* none: the answer of a cancelled get, or of a query asked again */
  }
}

static void fget_ask(fget_t *g, uint64_t now)
{
  mcx_bridge_req_t q;
  memset(&q, 0, sizeof q);
  q.magic = MCX_BRIDGE_REQ_MAGIC;
  q.domain = g->domain;
  q.node = g->node;
  q.port = g->port;
  q.timeout_ms = FOREIGN_ASK_MS;
  q.reply_node = mcx__self.node_id;
  q.reply_port = fq.port;
  q.token = (uint64_t)mcx_port_now_ns() ^ (mcx_fetch_add_relaxed(&fget_tokens, 1) << 40); /* a tag */
  if (!q.token)
    q.token = 1;
  int e = mcx__msg_try_send(fq.ep, g->bridge, &q, sizeof q, 0);
  if (e == MCX_OK) {
    g->token = q.token;
    g->asked_ns = now;
  } else if (e != MCX_EAGAIN) { /* the bridge's endpoint is gone */
    g->failed = MCAPI_ERR_DOMAIN_INVALID;
  } /* its queue is full: asked at the next poll */
}

/* Completes @p g with @p status; SUCCESS gives the proxy's handle. */
static int fget_finish(fget_t *g, mcapi_status_t status)
{
  if (status == MCAPI_SUCCESS) {
    mcapi_endpoint_t h = mcapi_endpoint_get(mcx__self.dom->domain_id, g->proxy_node, g->proxy_port, 0, &status);
    if (status == MCAPI_SUCCESS)
      *g->out = h;
    else /* the proxy went away (its bridge stopped) */
      status = MCAPI_ERR_DOMAIN_INVALID;
  }
  fq_unlink(g, 1);
  return status == MCAPI_SUCCESS ? MCX_OK : MCX_REQ_STATUS(status);
}

static int fget_poll(void *ctx)
{
  fget_t *g = ctx;
  uint64_t now = mcx_port_now_ns();
  if (g->first) { /* the _i call's own attempt: only the query */
    g->first = 0;
    fget_ask(g, now);
    return MCX_EAGAIN;
  }
  if (g->failed)
    return fget_finish(g, g->failed);
  fq_take_answers();
  if (g->answered) {
    g->answered = 0;
    if (g->status != MCAPI_TIMEOUT)
      return fget_finish(g, g->status);
    g->token = 0; /* not there yet: asked again */
  }
  /* No answer long after the query's time (the bridge lost it, or its
   * answer found the reply queue full): asked again. */
  if (!g->token || now - g->asked_ns > (uint64_t)(FOREIGN_ASK_MS + FOREIGN_GRACE_MS) * 1000000u)
    fget_ask(g, now);
  if (g->failed)
    return fget_finish(g, g->failed);
  if (now - g->checked_ns >= (uint64_t)FOREIGN_SLICE_MS * 1000000u) {
    g->checked_ns = now;
    mcapi_status_t st;
    mcx__sweep_dead(mcx__self.dom); /* a bridge killed meanwhile loses its endpoint */
    mcapi_endpoint_t again = mcapi_endpoint_get(mcx__self.dom->domain_id, mcx_bridge_node(), MCX_BRIDGE_PORT, 0, &st);
    if (st != MCAPI_SUCCESS || again != g->bridge) /* the bridge stopped */
      return fget_finish(g, MCAPI_ERR_DOMAIN_INVALID);
  }
  return MCX_EAGAIN;
}

static void fget_drop(void *ctx, int cancelled)
{
  fq_unlink(ctx, cancelled);
}

static const mcx__req_poller_t fget_poller = {fget_poll, fget_drop};

void mcx__foreign_get_i(mcapi_domain_t domain_id, mcapi_node_t node_id, mcapi_port_t port_id,
                        mcapi_endpoint_t *endpoint, mcapi_request_t *request, mcapi_status_t *mcapi_status)
{
  mcapi_status_t st;
  mcapi_domain_t self = mcx__self.dom->domain_id;
  mcapi_status_t bad = !endpoint                          ? MCAPI_ERR_PARAMETER
                       : domain_id == MCAPI_DOMAIN_INVALID ? MCAPI_ERR_DOMAIN_INVALID
                       : node_id == MCAPI_NODE_INVALID     ? MCAPI_ERR_NODE_INVALID
                       : port_id > MCAPI_MAX_PORT          ? MCAPI_ERR_PORT_INVALID
                                                           : MCAPI_SUCCESS;
  if (bad != MCAPI_SUCCESS) {
    mcx__nb_fail(bad, 0, request, mcapi_status);
    return;
  }
  /* No bridge in this domain: the domain is unknown here, as for the blocking get. */
  mcapi_endpoint_t bridge = mcapi_endpoint_get(self, mcx_bridge_node(), MCX_BRIDGE_PORT, 0, &st);
  if (st != MCAPI_SUCCESS) {
    mcx__nb_fail(MCAPI_ERR_DOMAIN_INVALID, 0, request, mcapi_status);
    return;
  }
  if (fq.key != mcx__self.key) { /* another node on this thread than the last */
    fq.key = mcx__self.key;
    fq.ep = 0;
    fq.pending = NULL;
  }
  fget_t *g = calloc(1, sizeof *g);
  if (!g) {
    mcx__nb_fail(MCAPI_ERR_MEM_LIMIT, 0, request, mcapi_status);
    return;
  }
  if (!fq.ep) {
    mcapi_endpoint_t me = mcapi_endpoint_create(MCAPI_PORT_ANY, &st);
    mcx__endpoint_t *mine;
    if (st == MCAPI_SUCCESS && mcx__ep_resolve(mcx__self.dom, me, &mine) != MCX_OK) {
      mcapi_endpoint_delete(me, &st);
      st = MCAPI_ERR_ENDP_INVALID;
    }
    if (st != MCAPI_SUCCESS) {
      free(g);
      mcx__nb_fail(st, 0, request, mcapi_status);
      return;
    }
    fq.ep = me;
    fq.port = mcx_load_relaxed(&mine->port); /* our own endpoint: written before its handle */
  }
  g->domain = domain_id;
  g->node = node_id;
  g->port = port_id;
  g->out = endpoint;
  g->bridge = bridge;
  g->first = 1;
  g->checked_ns = mcx_port_now_ns();
  g->next = fq.pending;
  fq.pending = g;
  mcx__req_args_t a = {.kind = REQ_POLL, .poller = &fget_poller, .buf = g};
  mcx__nb_start(&a, CTX_ENDPOINT, 0, request, mcapi_status);
  if (*mcapi_status == MCAPI_ERR_REQUEST_LIMIT) /* no request: nothing was asked */
    fq_unlink(g, 1);
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
  uint32_t used = MCX_USED_PRIOS(mcx_load_relaxed(&ep->used_prios)); /* a hint, see mcx__msg_enqueue_once */
  mcx__ring_outcome_t o = MCX_RING_EMPTY;
  size_t got = 0;
  mcx__glock(d);
  struct mcx__ring_at at = {d, idx, depth};
  if (d->locking == MCX_LOCK_LOCKFREE) /* else in order under the lock: see mcx__msg_dequeue_once */
    used = mcx__msg_scan_from(used, &ep->used_prios, mcx__ring_at, &at);
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
