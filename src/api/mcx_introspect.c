/* SPDX-License-Identifier: BSD-3-Clause */
/* Partitions seen from outside (mcx_introspect.h): a snapshot of a
 * partition the caller has not joined, read through a view of its own that
 * is checked as an attach checks it (mcx__part_check, mcx__take_geometry),
 * with the geometry in process memory bounding every table walked. */
#include <stdio.h>
#include <string.h>

#include "api/api.h"
#include "mcx_introspect.h"
#include "ports/mcx_port_shm.h"
#include "runtime/chan.h"
#include "runtime/msg.h"

_Static_assert(MCX_NPRIO <= MCX_PART_MAX_PRIOS, "an endpoint record counts every priority");

MCX_API int mcx_part_prefix(const char *name_space, char *out, size_t size)
{
  if (!out)
    return -1;
  if (!name_space) {
    int n = snprintf(out, size, "mcx-%u-", mcx_port_uid());
    return n > 0 && (size_t)n < size ? 0 : -1;
  }
  size_t len = strlen(name_space);
  if (len < 1 || len > 35 || strspn(name_space, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                "0123456789-_") != len)
    return -1;
  int n = snprintf(out, size, "mcx-%u-%s-d", mcx_port_uid(), name_space);
  return n > 0 && (size_t)n < size ? 0 : -1;
}

/* "/mcx-<uid>-...": a name this user's partitions have. */
static int own_name(const char *name)
{
  char prefix[64];
  return name && name[0] == '/' && strlen(name) < MCX_PART_NAME_MAX &&
         mcx_part_prefix(NULL, prefix, sizeof prefix) == 0 &&
         !strncmp(name + 1, prefix, strlen(prefix));
}

MCX_API int mcx_part_remove(const char *name)
{
  if (!own_name(name))
    return -1;
  return mcx_port_shm_unlink(name) == MCX_OK ? 0 : -2;
}

/* Why @p name, which this user may not open, is not ours to read. */
static mcx_part_state_t not_ours(const char *name, int r, mcx_part_info_t *info)
{
  uint32_t uid;
  unsigned mode;
  size_t osize;
  if (r == MCX_EPERM && mcx_port_shm_stat(name, &uid, &mode, &osize) == MCX_OK &&
      uid != mcx_port_uid()) {
    /* Another user made an object under our name: never joined, never
     * removed; libmca uses a private name for the domain instead. */
    char rec[96], where[256] = "";
    if (mcx_port_name_record(name + 1, NULL, rec, sizeof rec, where, sizeof where) == MCX_OK)
      snprintf(info->why, sizeof info->why,
               "belongs to another user (uid %u, mode %03o), not ours: never joined or removed; "
               "the domain uses the private name %s (recorded in %s)",
               uid, mode, rec, where);
    else
      snprintf(info->why, sizeof info->why,
               "belongs to another user (uid %u, mode %03o), not ours: never joined or removed; "
               "the domain will use a private name",
               uid, mode);
  } else {
    snprintf(info->why, sizeof info->why, "%s", r == MCX_EPERM ? "too open" : "cannot open");
  }
  return MCX_PART_UNREADABLE;
}

/* Endpoint slot @p i (in use) into *e; relaxed reads: statistics. */
static void read_endpoint(const mcx__domain_t *d, uint32_t i, mcx_part_endpoint_t *e)
{
  mcx__endpoint_t *ep = &mcx__eps(d)[i];
  memset(e, 0, sizeof *e);
  e->node = mcx_load_relaxed(&ep->node_id);
  e->port = mcx_load_relaxed(&ep->port);
  e->depth = mcx_load_relaxed(&ep->depth);
  /* The owner's counters. The high-water mark is sampled by the receiver,
   * so at least what is queued now; the rings count what they received and
   * sampled since their last reset (zero on pmq). */
  e->sent = mcx_load_relaxed(&ep->n_sent);
  e->received = mcx_load_relaxed(&ep->n_received);
  e->dropped = mcx_load_relaxed(&ep->n_dropped);
  e->high_water = mcx_load_relaxed(&ep->hwm);
  for (uint32_t q = 0; q < d->g.nprio; q++) {
    mcx__ring_view_t v = mcx__ring_of(d, i, q, e->depth);
    uint32_t n = mcx__mpsc_count(&v);
    e->queued_per_priority[q] = n;
    e->queued += n;
    e->received += mcx_load_relaxed(&v.ring->head);
    uint32_t w = mcx_load_relaxed(&v.ring->hwm);
    if (w > e->high_water)
      e->high_water = w;
  }
  if (e->high_water < e->queued)
    e->high_water = e->queued;
  e->waiting_receivers = mcx_load_relaxed(&ep->recv_wp.sleepers);
  e->waiting_senders = mcx_load_relaxed(&ep->space_wp.sleepers);
  e->channel_status = mcx__chan_ep_status(d, mcx_load_relaxed(&ep->chan));
}

/* The mapped partition @p d (header and layout checked) into the caller's records. */
static void read_partition(mcx__domain_t *d, mcx_part_info_t *info, mcx_part_node_t *nodes,
                           size_t max_nodes, mcx_part_endpoint_t *endpoints, size_t max_endpoints)
{
  const mcx__part_hdr_t *h = d->hdr;
  mcx__chan_attach(d);
  mcx__msg_attach(d);
  info->size = d->size;
  /* Written once by the creator before the magic word the caller acquired. */
  info->domain = h->domain_id;
  info->locking = h->locking == MCX_LOCK_GLOBAL   ? MCX_LOCKING_GLOBAL
                  : h->locking == MCX_LOCK_KERNEL ? MCX_LOCKING_KERNEL
                                                  : MCX_LOCKING_LOCKFREE;
  info->locking_name = mcx__locking_name(h->locking);
  info->compat = h->compat == MCX_COMPAT_MCA203_ ? MCX_COMPAT_MCA203 : MCX_COMPAT_SPEC;
  info->priorities = d->g.nprio;
  info->max_endpoints = d->g.max_endpoints;
  info->msg_buffers = d->mpool.pool.n;
  for (uint32_t b = 0; b < d->mpool.pool.n; b++) /* relaxed: a statistic */
    info->msg_buffers_in_use += mcx_load_relaxed(&d->mpool.state[b]) != 0;
  mcx__node_t *ns = mcx__nodes(d);
  uint32_t dead[MCA_MAX_NODES], ndead = 0; /* the node ids whose thread died without finalizing */
  for (uint32_t i = 0; i < MCA_MAX_NODES; i++) {
    /* acquire: pairs with the release that publishes a node slot (join) */
    if (mcx_load_acquire(&ns[i].state) != NODE_ACTIVE)
      continue;
    mcx_part_node_t n = {mcx_load_relaxed(&ns[i].node_id), mcx_load_relaxed(&ns[i].pid),
                         mcx_load_relaxed(&ns[i].tid), 0};
    n.alive = mcx_port_tid_alive(n.tid);
    info->nodes_alive += (uint32_t)n.alive;
    if (!n.alive)
      dead[ndead++] = n.node;
    if (info->nodes++ < max_nodes)
      nodes[info->nodes - 1] = n;
  }
  mcx__endpoint_t *eps = mcx__eps(d);
  for (uint32_t i = 0; i < d->g.max_endpoints; i++) {
    /* acquire: pairs with the release that publishes an endpoint (create) */
    if ((mcx_load_acquire(&eps[i].state) & 0xff) == EP_FREE)
      continue;
    mcx_part_endpoint_t e;
    read_endpoint(d, i, &e);
    /* Only its node's thread receives on an endpoint: when that thread died
     * asleep, its count of sleepers stays, but nothing waits any more. */
    for (uint32_t k = 0; k < ndead; k++)
      if (dead[k] == e.node)
        e.waiting_receivers = 0;
    info->queued += e.queued;
    if (info->endpoints++ < max_endpoints)
      endpoints[info->endpoints - 1] = e;
  }
}

MCX_API int mcx_part_inspect(const char *name, mcx_part_info_t *info, mcx_part_node_t *nodes,
                             size_t max_nodes, mcx_part_endpoint_t *endpoints, size_t max_endpoints)
{
  if (!name || name[0] != '/' || strlen(name) >= MCX_PART_NAME_MAX || !info ||
      (!nodes && max_nodes) || (!endpoints && max_endpoints))
    return -1;
  memset(info, 0, sizeof *info);
  mcx_port_shm_t shm;
  int r = mcx_port_shm_open(name, sizeof(mcx__part_hdr_t), &shm);
  if (r == MCX_EAGAIN) {
    info->state = MCX_PART_UNSIZED;
    return 0;
  }
  if (r) {
    info->state = not_ours(name, r, info);
    return 0;
  }
  size_t size = shm.size;
  uint8_t *base = mcx_port_shm_map(&shm, size);
  mcx_port_shm_close(&shm);
  if (!base) {
    info->state = MCX_PART_UNREADABLE;
    snprintf(info->why, sizeof info->why, "cannot map");
    return 0;
  }
  mcx__domain_t d = {.base = base, .size = size, .hdr = (mcx__part_hdr_t *)base};
  /* acquire: pairs with the creator's release of magic after the header is written */
  if (size >= sizeof(mcx__part_hdr_t) && mcx_load_acquire(&d.hdr->magic) == 0)
    info->state = MCX_PART_CREATING;
  else if (mcx__part_check(name, base, size) || mcx__take_geometry(&d) != MCX_OK)
    info->state = MCX_PART_INVALID; /* a bad header, or sizes that do not give its layout */
  else
    read_partition(&d, info, nodes, max_nodes, endpoints, max_endpoints);
  if (info->state == MCX_PART_INVALID)
    snprintf(info->why, sizeof info->why, "invalid header");
  mcx_port_shm_unmap(base, size);
  return 0;
}
