/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Crash recovery: the dead-node sweep. It sits above the partition mapping
 * and the admin lock (domain.c) and touches every object of a domain
 * (endpoints, rings, channels, state channels, both buffer pools), so it has
 * a file of its own, on top of the ones it calls; only node init and
 * finalize (node.c) are above it. The layers below reach it through
 * domain.c's entries (mcx__sweep_dead, mcx__sweep_dead_try,
 * mcx__sweep_dead_locked, mcx__resolve_orphans_locked), which call up
 * through the table node.c registers (mcx__upcalls_t). docs/processes.md
 * says what each step recovers.
 */
#include "ports/mcx_port.h"
#include "runtime/adopt.h"
#include "runtime/chan.h"
#include "runtime/domain.h"
#include "runtime/endpoint.h"
#include "runtime/msg.h"
#include "runtime/recovery.h"
#include "runtime/state.h"
#include "transport/mpsc_ring.h"

/* Settles the receipts whose send under way was @p dead_slot's: the dead
 * sender's record was @p rec, whose reservation got a tombstone if
 * @p tombstoned. A pending record names a reservation that was won (it is
 * stored after the CAS), so a reservation that was not given a tombstone
 * was published: its value is the receipt's. */
static void settle_receipts(mcx__domain_t *d, uint32_t dead_slot, uint64_t rec, int tombstoned)
{
  for (uint32_t i = 0; i < MCX_RECEIPTS; i++) {
    mcx__receipt_t *r = &d->hdr->receipts[i];
    /* A-RC1 — acquire: pairs with R-RC1 (a pending record comes with its
     * value and owner) and R-RC2 (a cleared one with `done`) in
     * mcx__mpsc_enqueue. */
    uint64_t pr = mcx_load_acquire(&r->pend_rec);
    if (!pr || mcx_load_relaxed(&r->pend_owner) != dead_slot || !mcx_load_relaxed(&r->key))
      continue;
    if (!(pr == rec && tombstoned))
      mcx_store_relaxed(&r->done, mcx_load_relaxed(&r->pend_value));
    mcx_store_release(&r->pend_rec, 0); /* pairs with A-RC1 of a later sweep */
    MCX_DEBUG(1, "domain %u: receipt %u of a dead sender settled (%s)", d->domain_id, i,
              pr == rec && tombstoned ? "not queued" : "queued");
  }
}

/* Whether a receipt names @p rec as the dead node's send under way: then the
 * dead node won the reservation, whatever a live node's record says. */
static int receipt_names(mcx__domain_t *d, uint32_t dead_slot, uint64_t rec)
{
  for (uint32_t i = 0; i < MCX_RECEIPTS; i++) {
    mcx__receipt_t *r = &d->hdr->receipts[i];
    if (mcx_load_acquire(&r->pend_rec) == rec && mcx_load_relaxed(&r->pend_owner) == dead_slot)
      return 1; /* acquire: A-RC1 */
  }
  return 0;
}

/* Publishes a tombstone for a dead sender's reservation, if it is one, and
 * settles the receipt of its send under way. */
static void resolve_orphan(mcx__domain_t *d, uint32_t dead_slot)
{
  mcx__node_t *nodes = mcx__nodes(d);
  /* Acquire: pairs with the release clear after R1 (msg.c) and the release
   * CAS on tail that follows the record, so a record we see is current. */
  uint64_t rec = mcx_load_acquire(&nodes[dead_slot].inflight);
  int tombstoned = 0;
  if (rec) {
    uint32_t ring_no = (uint32_t)(rec >> 48) - 1;
    uint64_t pos = rec & MCX_RING_POS_MASK;
    if (ring_no < d->g.max_endpoints * d->g.nprio) {
      /* A live node with the same record is the one that won the CAS,
       * unless the dead one's receipt names the reservation as its own. */
      int live_twin = 0;
      for (uint32_t i = 0; i < MCA_MAX_NODES && !live_twin; i++)
        live_twin = i != dead_slot && mcx_load_acquire(&nodes[i].inflight) == rec && mcx__node_alive(d, i);
      if (live_twin && !receipt_names(d, dead_slot, rec))
        return;
      uint32_t idx = ring_no / d->g.nprio, prio = ring_no % d->g.nprio;
      mcx__endpoint_t *e = &mcx__eps(d)[idx];
      mcx__ring_view_t v = mcx__ring_of(d, idx, prio, mcx_load_relaxed(&e->depth));
      tombstoned = mcx__mpsc_tombstone(&v, pos);
      if (tombstoned)
        MCX_DEBUG(1, "domain %u: published a tombstone for a dead sender's slot", d->domain_id);
    }
    mcx_store_relaxed(&nodes[dead_slot].inflight, 0);
  }
  settle_receipts(d, dead_slot, rec, tombstoned);
}

void mcx__recovery_resolve_orphans_locked(mcx__domain_t *d)
{
  mcx__node_t *nodes = mcx__nodes(d);
  for (uint32_t i = 0; i < MCA_MAX_NODES; i++)
    if (mcx_load_acquire(&nodes[i].state) == NODE_ACTIVE &&
        !mcx_port_tid_alive(mcx_load_relaxed(&nodes[i].tid)))
      resolve_orphan(d, i);
}

uint32_t mcx__recovery_sweep_locked(mcx__domain_t *d)
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
        if (mcx__ep_orphan_locked(d, i, dead[k]))
          continue; /* kept for its node's restart to adopt (adopt.c), queue and all */
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
