/* SPDX-License-Identifier: BSD-3-Clause */
/* Endpoints: table slots in the partition, each with one MPSC ring per priority.
 * This file creates, looks up and resolves them: what the other objects call.
 * Delete, attributes and re-size, which need messages and channels, are
 * endpoint_ctl.c's, above them (docs/design.md, layers). */
#include "mcapi.h"
#include "ports/mcx_port.h"
#include "runtime/endpoint.h"
#include "transport/pmq.h"

#define TIMEOUT_INFINITE 0xffffffffu

void mcx__ep_init_rings(const mcx__domain_t *d, uint32_t idx, uint32_t depth, uint32_t epoch)
{
  mcx__endpoint_t *e = &mcx__eps(d)[idx];
  for (uint32_t p = 0; p < d->g.nprio; p++) {
    mcx__ring_view_t v = mcx__ring_of(d, idx, p, depth);
    /* The ring's counts go to the endpoint's before the reset (a resize;
     * create zeroes them after). Owner under the admin lock: plain stores. */
    mcx__ctr_add(&e->n_received, mcx_load_relaxed(&v.ring->head));
    if (mcx_load_relaxed(&v.ring->hwm) > mcx_load_relaxed(&e->hwm))
      mcx_store_relaxed(&e->hwm, mcx_load_relaxed(&v.ring->hwm));
    mcx__mpsc_init(&v, epoch);
  }
}

int mcx__ep_create(uint32_t port, uint32_t *handle)
{
  mcx__domain_t *d = mcx__self.dom;
  mcx__part_hdr_t *h = d->hdr;
  mcx__endpoint_t *eps = mcx__eps(d);
  int r = mcx__admin_lock_bounded(d);
  if (r)
    return MCX_EIO;
  int slot = -1;
  uint32_t any_port = 0;
  for (uint32_t i = 0; i < d->g.max_endpoints; i++) {
    uint32_t st = mcx_load_relaxed(&eps[i].state); /* under admin: no race with writers */
    if ((st & 0xff) == EP_FREE) {
      /* A slot at the last generation its handles can carry is retired in
       * the spec profile: a stale handle never names a new endpoint. */
      if (slot < 0 && (d->compat == MCX_COMPAT_MCA203_ || (st >> 8) != MCX_EP_GEN_MASK))
        slot = (int)i;
      continue;
    }
    if (mcx_load_relaxed(&eps[i].node_id) != mcx__self.node_id)
      continue;
    uint32_t p = mcx_load_relaxed(&eps[i].port);
    if (port != MCAPI_PORT_ANY && p == port)
      r = MCX_EEXIST;
  }
  if (!r && slot < 0)
    r = MCX_ENOMEM;
  /* At most MCAPI_MAX_ENDPOINTS per node (the reference's limit): the
   * lowest free index among the node's endpoints. */
  mcx__node_t *me = &mcx__nodes(d)[mcx__self.node_slot];
  uint32_t k = 0;
  while (!r && k < MCAPI_MAX_ENDPOINTS && mcx_load_relaxed(&me->ep_slot[k]) != 0)
    k++;
  if (!r && k == MCAPI_MAX_ENDPOINTS)
    r = MCX_ENOMEM;
  if (!r && port == MCAPI_PORT_ANY) {
    /* The lowest port this node does not use. */
    for (any_port = 0; any_port < MCAPI_MAX_PORT; any_port++) {
      int used = 0;
      for (uint32_t i = 0; i < d->g.max_endpoints && !used; i++)
        used = (mcx_load_relaxed(&eps[i].state) & 0xff) != EP_FREE &&
               mcx_load_relaxed(&eps[i].node_id) == mcx__self.node_id &&
               mcx_load_relaxed(&eps[i].port) == any_port;
      if (!used)
        break;
    }
    if (any_port == MCAPI_MAX_PORT)
      r = MCX_ENOENT; /* no free port */
    port = any_port;
  }
  if (!r) {
    mcx__endpoint_t *e = &eps[slot];
    uint32_t st = mcx_load_relaxed(&e->state);
    uint32_t gen = ((st >> 8) + 1) & MCX_EP_GEN_MASK;
    if (gen == 0)
      gen = 1;
    uint32_t epoch = (mcx_load_relaxed(&e->ring_epoch) + 1) & MCX_RING_GEN_MASK;
    uint32_t depth = d->g.qcap;
    /* pmq: the endpoint's queue first; nothing is published if that fails.
     * mca-2.0.3: only the limits' check, the queue made by its first use, so
     * a node may create all its endpoints whatever RLIMIT_MSGQUEUE holds. */
    if (d->transport == MCX_TRANSPORT_PMQ_ &&
        (r = mcx__pmq_ep_create(d->pmq, (uint32_t)slot, epoch, d->compat == MCX_COMPAT_MCA203_,
                                &depth)) != MCX_OK)
      goto out;
    mcx__ep_init_rings(d, (uint32_t)slot, depth, epoch);
    mcx_store_relaxed(&e->node_id, mcx__self.node_id);
    mcx_store_relaxed(&e->port, port);
    mcx_store_relaxed(&e->owner_slot, mcx__self.node_slot);
    mcx_store_relaxed(&e->depth, depth);
    mcx_store_relaxed(&e->ring_epoch, epoch);
    mcx_store_relaxed(&e->timeout_ms, TIMEOUT_INFINITE);
    mcx_store_relaxed(&e->fail_on_mem_limit, d->compat == MCX_COMPAT_MCA203_);
    d->ep_local[slot] = (mcx__ep_local_t){TIMEOUT_INFINITE, d->compat == MCX_COMPAT_MCA203_};
    mcx_store_relaxed(&e->priority, MCAPI_MAX_PRIORITY);
    mcx_store_relaxed(&e->get_count, 0);
    mcx_store_relaxed(&e->chan, 0);
    mcx_store_relaxed(&e->used_prios, 0);
    mcx_store_relaxed(&e->n_sent, 0); /* the counters: ordered by R-E1 like the rest */
    mcx_store_relaxed(&e->n_received, 0);
    mcx_store_relaxed(&e->n_dropped, 0);
    mcx_store_relaxed(&e->hwm, 0);
    mcx_store_relaxed(&e->ref_index, k);
    mcx_store_relaxed(&e->ref_closed, 0);
    mcx_store_relaxed(&e->keep, MCX_KEEP_NONE);
    /* R-E1 — release: fields and reset rings before the endpoint reads as
     * active; pairs with A-E1 (mcx__ep_resolve) and A-E2 (lookup). */
    mcx_store_release(&e->state, gen << 8 | EP_ACTIVE);
    /* R-E3 — release: the endpoint before the node's index names it; pairs
     * with A-E3 (mcx__ep_resolve_ref). */
    mcx_store_release(&me->ep_slot[k], (uint32_t)slot + 1);
    *handle = mcx__ep_handle(d, (uint32_t)slot, gen);
  }
out:
  mcx__admin_unlock(d);
  if (!r)
    mcx__wp_broadcast(&h->ep_created, d->shared);
  return r;
}

int mcx__ep_resolve_ref(const mcx__domain_t *d, uint32_t h, mcx__endpoint_t **ep)
{
  uint32_t node = (h >> 8) & 0xffu, k = h & 0xffu;
  if ((h >> 16) != 0 || node >= MCA_MAX_NODES || k >= MCAPI_MAX_ENDPOINTS)
    return MCX_EINVAL;
  /* A-E3 — acquire: pairs with R-E3 (create): the endpoint is initialized. */
  uint32_t s1 = mcx_load_acquire(&mcx__nodes(d)[node].ep_slot[k]);
  if (s1 == 0 || s1 > d->g.max_endpoints)
    return s1 == 0 ? MCX_ESTALE : MCX_EINVAL; /* checked: shared memory is input */
  mcx__endpoint_t *e = &mcx__eps(d)[s1 - 1];
  uint32_t st = mcx_load_acquire(&e->state); /* A-E1 */
  if ((EP_STATE(st) != EP_ACTIVE && EP_STATE(st) != EP_RECONFIG) ||
      mcx_load_relaxed(&e->owner_slot) != node || mcx_load_relaxed(&e->ref_index) != k)
    return MCX_ESTALE;
  *ep = e;
  return MCX_OK;
}

int mcx__ep_lookup(uint32_t node_id, uint32_t port, uint32_t *handle)
{
  mcx__domain_t *d = mcx__self.dom;
  mcx__endpoint_t *eps = mcx__eps(d);
  for (uint32_t i = 0; i < d->g.max_endpoints; i++) {
    /* A-E2 — acquire: pairs with R-E1; then the fields, then a re-check
     * (seqlock style) so a concurrent delete/re-create is not mistaken. */
    uint32_t st = mcx_load_acquire(&eps[i].state);
    if (EP_STATE(st) != EP_ACTIVE && EP_STATE(st) != EP_RECONFIG)
      continue;
    uint32_t n = mcx_load_relaxed(&eps[i].node_id), p = mcx_load_relaxed(&eps[i].port);
    mcx_fence_acquire(); /* orders the field loads before the re-check */
    if (mcx_load_relaxed(&eps[i].state) != st)
      continue;
    if (n == node_id && p == port) {
      *handle = mcx__ep_handle(d, i, st >> 8);
      return MCX_OK;
    }
  }
  return MCX_ENOENT;
}

static void count_get(uint32_t handle)
{
  mcx__endpoint_t *ep;
  if (mcx__ep_resolve(mcx__self.dom, handle, &ep) == MCX_OK)
    mcx_fetch_add_relaxed(&ep->get_count, 1); /* a statistic */
}

struct get_ctx {
  uint32_t node_id, port, *handle;
};

static int try_get(void *arg)
{
  struct get_ctx *g = arg;
  return mcx__ep_lookup(g->node_id, g->port, g->handle);
}

int mcx__ep_get(uint32_t node_id, uint32_t port, uint32_t timeout_ms, uint32_t *handle)
{
  mcx__domain_t *d = mcx__self.dom;
  struct get_ctx g = {node_id, port, handle};
  int r = mcx__wait_until(d, &d->hdr->ep_created, timeout_ms, try_get, &g);
  if (r == MCX_OK)
    count_get(*handle);
  return r;
}

int mcx__ep_release(uint32_t handle)
{
  mcx__endpoint_t *e;
  int r = mcx__ep_resolve(mcx__self.dom, handle, &e);
  if (r)
    return r;
  if (mcx__ep_is_mine(e))
    return MCX_EPERM;
  uint32_t c = mcx_load_relaxed(&e->get_count);
  do {
    if (c == 0)
      return MCX_ENOENT;
  } while (!mcx_cas_relaxed(&e->get_count, &c, c - 1)); /* a counter; no ordering */
  return MCX_OK;
}
