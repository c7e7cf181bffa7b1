/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Crash recovery: the dead-node sweep. It sits above the partition mapping
 * and the admin lock (domain.c) and touches every object of a domain
 * (endpoints, rings, channels, state channels, both buffer pools), so it has
 * a file of its own, on top of the ones it calls. docs/processes.md says
 * what each step recovers.
 */
#include "ports/mcx_port.h"
#include "runtime/runtime.h"
#include "transport/mpsc_ring.h"

/* Publishes a tombstone for a dead sender's reservation, if it is one. */
static void resolve_orphan(mcx__domain_t *d, uint32_t dead_slot)
{
  mcx__node_t *nodes = mcx__nodes(d);
  /* Acquire: pairs with the release clear after R1 (msg.c) and the release
   * CAS on tail that follows the record, so a record we see is current. */
  uint64_t rec = mcx_load_acquire(&nodes[dead_slot].inflight);
  if (!rec)
    return;
  uint32_t ring_no = (uint32_t)(rec >> 48) - 1;
  uint64_t pos = rec & MCX_RING_POS_MASK;
  if (ring_no >= d->g.max_endpoints * d->g.nprio)
    return;
  /* A live node with the same record is the one that won the CAS. */
  for (uint32_t i = 0; i < MCA_MAX_NODES; i++)
    if (i != dead_slot && mcx_load_acquire(&nodes[i].inflight) == rec && mcx__node_alive(d, i))
      return;
  uint32_t idx = ring_no / d->g.nprio, prio = ring_no % d->g.nprio;
  mcx__endpoint_t *e = &mcx__eps(d)[idx];
  mcx__ring_view_t v = mcx__ring_of(d, idx, prio, mcx_load_relaxed(&e->depth));
  if (mcx__mpsc_tombstone(&v, pos))
    MCX_DEBUG(1, "domain %u: published a tombstone for a dead sender's slot", d->domain_id);
  mcx_store_relaxed(&nodes[dead_slot].inflight, 0);
}

void mcx__resolve_orphans_locked(mcx__domain_t *d)
{
  mcx__node_t *nodes = mcx__nodes(d);
  for (uint32_t i = 0; i < MCA_MAX_NODES; i++)
    if (mcx_load_acquire(&nodes[i].state) == NODE_ACTIVE &&
        !mcx_port_tid_alive(mcx_load_relaxed(&nodes[i].tid)))
      resolve_orphan(d, i);
}

uint32_t mcx__sweep_dead_locked(mcx__domain_t *d)
{
  mcx__part_hdr_t *h = d->hdr;
  mcx__node_t *nodes = mcx__nodes(d);
  mcx__endpoint_t *eps = mcx__eps(d);
  uint32_t dead[MCA_MAX_NODES], ndead = 0;
  for (uint32_t i = 0; i < MCA_MAX_NODES; i++)
    if (mcx_load_acquire(&nodes[i].state) == NODE_ACTIVE &&
        !mcx_port_tid_alive(mcx_load_relaxed(&nodes[i].tid)))
      dead[ndead++] = i;
  /* 1. Orphaned reservations first: deleting an endpoint waits for them. */
  for (uint32_t k = 0; k < ndead; k++)
    resolve_orphan(d, dead[k]);
  /* 2. Updates a dead admin-lock holder left half done. */
  for (uint32_t i = 0; i < d->g.max_endpoints; i++) {
    uint32_t st = mcx_load_relaxed(&eps[i].state);
    if ((st & 0xff) == EP_DELETING)
      mcx__ep_delete_locked(d, i);
    else if ((st & 0xff) == EP_RECONFIG)
      mcx__ep_reopen_locked(d, i);
  }
  /* 3. The dead nodes' endpoints, state channels and table slots. */
  for (uint32_t k = 0; k < ndead; k++) {
    mcx__state_delete_of_node_locked(d, dead[k]);
    for (uint32_t i = 0; i < d->g.max_endpoints; i++) {
      uint32_t st = mcx_load_relaxed(&eps[i].state);
      if ((st & 0xff) != EP_FREE && mcx_load_relaxed(&eps[i].owner_slot) == dead[k]) {
        mcx__chan_ep_gone(d, i); /* its side of a channel goes away first */
        mcx__ep_delete_locked(d, i);
      }
    }
    if (d->transport != MCX_TRANSPORT_PMQ_) {
      mcx__chan_reclaim_buffers_locked(d, dead[k]);
      mcx__msg_reclaim_buffers_locked(d, dead[k]);
    }
    MCX_DEBUG(1, "domain %u: reclaimed node %u of dead process %u", d->domain_id,
              mcx_load_relaxed(&nodes[dead[k]].node_id), mcx_load_relaxed(&nodes[dead[k]].pid));
    mcx_store_release(&nodes[dead[k]].state, NODE_FREE);
    mcx_fetch_sub_relaxed(&h->n_nodes, 1);
  }
  return ndead;
}

int mcx__any_dead_node(const mcx__domain_t *d)
{
  const mcx__node_t *nodes = mcx__nodes(d);
  for (uint32_t i = 0; i < MCA_MAX_NODES; i++)
    if (mcx_load_acquire(&nodes[i].state) == NODE_ACTIVE &&
        !mcx_port_tid_alive(mcx_load_relaxed(&nodes[i].tid)))
      return 1;
  return 0;
}

uint32_t mcx__sweep_dead_try(mcx__domain_t *d)
{
  uint32_t depth;
  int r = mcx__rmutex_lock(&d->hdr->admin, mcx__my_tid(), 0, d->shared, &depth);
  if (r != MCX_OK && r != MCX_EOWNERDEAD)
    return 0; /* held: its holder or a later call sweeps */
  uint32_t n = mcx__sweep_dead_locked(d);
  mcx__admin_unlock(d);
  return n;
}

uint32_t mcx__sweep_dead(mcx__domain_t *d)
{
  if (mcx__admin_lock_bounded(d) != MCX_OK)
    return 0;
  uint32_t n = mcx__sweep_dead_locked(d);
  mcx__admin_unlock(d);
  return n;
}

