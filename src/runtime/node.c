/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Nodes: the top of the runtime. The partition's layout (where endpoints,
 * rings, pools, state and channel records lie) and a node's init and
 * finalize, which set up and tear down every object of the runtime and call
 * crash recovery (recovery.c). Nothing in the runtime calls up into this
 * file: the mapping (domain.c) reaches the layout, and the layers below
 * recovery reach the sweep, through the upcalls registered here
 * (mcx__upcalls_t). docs/design.md shows the layers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ports/mcx_port.h"
#include "runtime/chan.h"
#include "runtime/domain.h"
#include "runtime/endpoint.h"
#include "runtime/msg.h"
#include "runtime/node.h"
#include "runtime/recovery.h"
#include "runtime/request.h"
#include "runtime/state.h"
#include "transport/pmq.h"

static mcx_atomic_u32 next_node_key = 1;

static size_t align_up(size_t v, size_t a) { return (v + a - 1) & ~(a - 1); }

static int compute_layout(const mcx__init_opts_t *o, mcx__layout_t *l)
{
  l->max_eps = o->max_endpoints ? o->max_endpoints : MCX_DOMAIN_ENDPOINTS;
  l->qcap = o->qcap ? o->qcap : MCAPI_MAX_QUEUE_ELEMENTS;
  l->max_msg = o->max_msg ? o->max_msg : MCAPI_MAX_MSG_SIZE;
  if (l->max_msg > (1u << 24))
    return MCX_EINVAL; /* refused on every transport, before pmq's cap */
  /* pmq: messages are also bounded by the kernel's limits (transport/pmq.c). */
  if (o->transport == MCX_TRANSPORT_PMQ_)
    l->max_msg = mcx__pmq_payload_limit(l->max_msg, o->max_msg != 0, &mcx__debug_level);
  l->nprio = MCX_NPRIO;
  l->msg_bufs = o->msg_bufs ? o->msg_bufs : MCAPI_MAX_BUFFERS;
  if (l->msg_bufs > MCX_MSG_BUFS_MAX)
    return MCX_EINVAL;
  if (l->max_eps == 0 || l->max_eps > MCX_H_MAX_INDEX || l->qcap < 2 || (l->qcap & (l->qcap - 1)) ||
      l->qcap > 65536 || l->max_msg > (1u << 24))
    return MCX_EINVAL;
  size_t off = align_up(sizeof(mcx__part_hdr_t), 4096);
  l->off_nodes = off;
  off = align_up(off + MCA_MAX_NODES * sizeof(mcx__node_t), 4096);
  l->off_eps = off;
  off = align_up(off + (size_t)l->max_eps * sizeof(mcx__endpoint_t), 4096);
  l->off_rings = off;
  size_t nrings = (size_t)l->max_eps * l->nprio;
  off = align_up(off + nrings * sizeof(mcx__mpsc_ring_t), 4096);
  l->off_slots = off;
  off = align_up(off + nrings * l->qcap * sizeof(mcx__msg_slot_t), 4096);
  /* The message payload pool (mcx__mpool_t), for messages larger than a
   * slot's inline bytes: header line, states (u64), links (u32), then the
   * buffers, an odd number of cache lines apart, so consecutive buffers
   * start in different cache sets (a power-of-two stride maps them all to
   * the same few sets). */
  if (l->max_msg <= MCX_SLOT_INLINE)
    l->msg_bufs = 0; /* every message fits in its slot */
  l->off_msg_meta = off;
  off = align_up(off + sizeof(mcx__pool_hdr_t) + (size_t)l->msg_bufs * (8 + 4), 4096);
  l->off_big = off;
  l->msg_stride = (uint32_t)align_up(l->max_msg > MCX_SLOT_INLINE ? l->max_msg : 1, MCX_CACHELINE);
  if ((l->msg_stride / MCX_CACHELINE) % 2 == 0)
    l->msg_stride += MCX_CACHELINE;
  off = align_up(off + (size_t)l->msg_bufs * l->msg_stride, 4096);
  l->off_states = off;
  off = align_up(off + MCX_STATE_CHANNELS * sizeof(mcx__state_t), 4096);
  l->off_state_bufs = off;
  off = align_up(off + (size_t)MCX_STATE_CHANNELS * MCX_STATE_MAX_BUFFERS *
                           MCX_STATE_STRIDE_WORDS * 8,
                 4096);
  off = mcx__chan_layout(off, l->max_eps, l->qcap, &l->chan);
  l->total = off;
  return MCX_OK;
}

/* Writes the layout into a fresh partition's header and formats its pools
 * (the creator, before the header is published: domain.c). */
static void format_partition(mcx__part_hdr_t *h, const mcx__layout_t *l)
{
  h->max_endpoints = l->max_eps;
  h->nprio = l->nprio;
  h->qcap = l->qcap;
  h->max_msg = l->max_msg;
  h->off_nodes = l->off_nodes;
  h->off_eps = l->off_eps;
  h->off_rings = l->off_rings;
  h->off_slots = l->off_slots;
  h->off_big = l->off_big;
  h->off_msg_meta = l->off_msg_meta;
  h->n_msg_bufs = l->msg_bufs;
  h->msg_stride = l->msg_stride;
  h->off_states = l->off_states;
  h->off_state_bufs = l->off_state_bufs;
  mcx__chan_layout_store(h, &l->chan);
  mcx__chan_init_pool((uint8_t *)h, &l->chan);
  mcx__msg_init_pool((uint8_t *)h, l->off_msg_meta, l->msg_bufs);
}

/* Whether a mapped header's offsets differ from the layout its sizes give
 * (the header's other fields are checked first: domain.c). */
static int layout_differs(const mcx__part_hdr_t *h)
{
  mcx__layout_t l;
  mcx__init_opts_t o = {.max_endpoints = h->max_endpoints, .qcap = h->qcap, .max_msg = h->max_msg,
                        .msg_bufs = h->n_msg_bufs};
  return compute_layout(&o, &l) || l.total != h->total_size || l.off_nodes != h->off_nodes ||
         l.off_eps != h->off_eps || l.off_rings != h->off_rings || l.off_slots != h->off_slots ||
         l.off_big != h->off_big || l.off_msg_meta != h->off_msg_meta ||
         l.msg_bufs != h->n_msg_bufs || l.msg_stride != h->msg_stride ||
         l.off_states != h->off_states || l.off_state_bufs != h->off_state_bufs ||
         l.chan.off_chans != h->off_chans || l.chan.off_slots != h->off_chan_slots ||
         l.chan.off_pools != h->off_chan_pools || l.chan.n != h->n_chans ||
         l.chan.cap != h->chan_cap || l.chan.rcap != h->chan_rcap ||
         l.chan.stride != h->pkt_stride || l.chan.off_pool_meta != h->off_pkt_meta ||
         l.chan.nbufs != h->n_pkt_bufs;
}

/* The geometry in process memory: the header's three sizes are read once,
 * and every offset is computed here from them, not read from the partition;
 * a layout that does not fill the mapping exactly is refused. */
int mcx__take_geometry(mcx__domain_t *d)
{
  const mcx__part_hdr_t *h = d->hdr;
  uint32_t nbufs = h->n_msg_bufs;
  mcx__init_opts_t o = {.max_endpoints = h->max_endpoints, .qcap = h->qcap, .max_msg = h->max_msg,
                        .msg_bufs = nbufs};
  mcx__layout_t l;
  if (!o.max_endpoints || !o.qcap || compute_layout(&o, &l) || l.total != d->size ||
      l.max_msg != o.max_msg || l.msg_bufs != nbufs) {
    mcx_port_log("refusing shared partition: its sizes changed after they were checked");
    return MCX_EIO;
  }
  mcx__geom_t *g = &d->g;
  g->off_nodes = l.off_nodes;
  g->off_eps = l.off_eps;
  g->off_rings = l.off_rings;
  g->off_slots = l.off_slots;
  g->off_big = l.off_big;
  g->off_msg_meta = l.off_msg_meta;
  g->n_msg_bufs = l.msg_bufs;
  g->off_states = l.off_states;
  g->off_state_bufs = l.off_state_bufs;
  g->off_chans = l.chan.off_chans;
  g->max_endpoints = l.max_eps;
  g->nprio = l.nprio;
  g->qcap = l.qcap;
  g->max_msg = l.max_msg;
  g->msg_stride = l.msg_stride;
  g->n_chans = l.chan.n;
  g->off_chan_slots = l.chan.off_slots;
  g->chan_cap = l.chan.cap;
  g->chan_rcap = l.chan.rcap;
  g->off_chan_pools = l.chan.off_pools;
  g->off_pkt_meta = l.chan.off_pool_meta;
  g->n_pkt_bufs = l.chan.nbufs;
  g->pkt_stride = l.chan.stride;
  return MCX_OK;
}

/* A view's pools: the channels' packet pool and the message pool. */
static void attach_pools(mcx__domain_t *d)
{
  mcx__chan_attach(d);
  mcx__msg_attach(d);
}

/* What the bottom of the runtime (domain.c) calls of the layers above it. */
static const mcx__upcalls_t upcalls = {
    .layout = compute_layout,
    .format = format_partition,
    .layout_differs = layout_differs,
    .geometry = mcx__take_geometry,
    .attach = attach_pools,
    .sweep_dead_locked = mcx__recovery_sweep_locked,
    .resolve_orphans_locked = mcx__recovery_resolve_orphans_locked,
    .recv_queue_wait = mcx__recv_queue_wait,
};

int mcx__part_check(const char *name, const void *base, size_t size)
{
  if (size < sizeof(mcx__part_hdr_t))
    return MCX_EIO;
  mcx__upcalls_register(&upcalls);
  int r = mcx__part_header_check(name, base, size);
  return r == MCX_EAGAIN ? MCX_EIO : r;
}

/* In a fork child, on the thread that forked: its node is its parent's, so
 * the fast paths must miss there (their caches become the empty tables)
 * and mcx__is_node() must fail (the hook runs before fork() returns in the
 * child). */
static void fork_child_hook(void)
{
  mcx__self_no_fast();
  mcx__self.forked = 1;
}

/* After fork(), the child holds copies of its parent's node identities,
 * domain views and requests; none of them is the child's. */
static void forget_parent_state(void)
{
  if (mcx__domains_forget_parent())
    mcx__req_forget_all();
}

int mcx__node_init(uint32_t domain_id, uint32_t node_id, uint32_t node_type,
                   const mcx__init_opts_t *opts)
{
  mcx__upcalls_register(&upcalls); /* before any domain is mapped */
  forget_parent_state();
  if (mcx__is_node())
    return MCX_EEXIST;
  const char *dbg = mcx_port_getenv("MCX_DEBUG");
  if (dbg && *dbg && !mcx_load_relaxed(&mcx__debug_level))
    mcx_store_relaxed(&mcx__debug_level, (uint32_t)(*dbg - '0') & 7u); /* a knob */
  if (!mcx__env_settings_ok())
    return MCX_EINVAL;
  mcx__init_opts_t none = {0};
  if (!opts)
    opts = &none;
  if (opts->locking > MCX_LOCK_KERNEL || opts->compat > MCX_COMPAT_MCA203_ ||
      opts->transport > MCX_TRANSPORT_PMQ_)
    return MCX_EINVAL;
  mcx__domains_lock();
  mcx__domain_t *d;
  int r;
  for (int attempt = 0;; attempt++) {
    r = mcx__domain_attach(domain_id, opts, &d);
    if (r) {
      mcx__domains_unlock();
      return r;
    }
    d->refs++;
    if ((r = mcx__admin_lock_bounded(d)) != MCX_OK) {
      mcx_port_log("mcapi_initialize: domain %u: its control lock stayed held", domain_id);
      mcx__domain_detach(d, 0);
      mcx__domains_unlock();
      return MCX_EIO;
    }
    if (!mcx_load_relaxed(&d->hdr->retired) || attempt > 50)
      break;
    /* The last node finalized (or a stale partition was retired) between our
     * open and our lock: map the new one. */
    mcx__admin_unlock(d);
    mcx__domain_detach(d, 0);
  }
  mcx__part_hdr_t *h = d->hdr;
  if ((opts->locking && opts->locking != d->locking) ||
      (opts->compat && opts->compat != d->compat) ||
      (opts->transport && opts->transport != d->transport)) {
    r = MCX_EINVAL; /* the domain exists with another mode */
    mcx_port_log("mcapi_initialize: domain %u runs with locking %s, profile %s, transport %s; "
                 "node %u asked for another",
                 domain_id, mcx__locking_name(d->locking),
                 d->compat == MCX_COMPAT_MCA203_ ? "mca-2.0.3" : "spec",
                 d->transport == MCX_TRANSPORT_PMQ_ ? "pmq" : "shm", node_id);
  } else {
    mcx__recovery_sweep_locked(d);
    r = MCX_OK;
  }
  mcx__node_t *nodes = mcx__nodes(d);
  int slot = -1;
  for (uint32_t i = 0; i < MCA_MAX_NODES && !r; i++) {
    if (mcx_load_relaxed(&nodes[i].state) == NODE_ACTIVE) {
      if (mcx_load_relaxed(&nodes[i].node_id) == node_id) {
        r = MCX_EBUSY; /* the id is taken: by a live node, the sweep above removed dead ones */
        mcx_port_log("mcapi_initialize: node %u of domain %u is held by process %u (thread %u)",
                     node_id, domain_id, (unsigned)mcx_load_relaxed(&nodes[i].pid),
                     (unsigned)mcx_load_relaxed(&nodes[i].tid));
      }
    } else if (slot < 0) {
      slot = (int)i;
    }
  }
  if (!r && slot < 0) {
    r = MCX_ENOMEM;
    mcx_port_log("mcapi_initialize: domain %u has its %u nodes already", domain_id,
                 (unsigned)MCA_MAX_NODES);
  }
  if (!r) {
    mcx__node_t *n = &nodes[slot];
    mcx_store_relaxed(&n->node_id, node_id);
    mcx_store_relaxed(&n->pid, mcx_port_pid());
    mcx_store_relaxed(&n->tid, mcx__my_tid());
    mcx_store_relaxed(&n->type, node_type);
    mcx_store_relaxed(&n->inflight, 0);
    for (uint32_t k = 0; k < MCAPI_MAX_ENDPOINTS; k++)
      mcx_store_relaxed(&n->ep_slot[k], 0); /* published with the node's endpoints (R-E3) */
    /* Release: the fields above before the node reads as active (readers
     * take the admin lock or re-check state with acquire). */
    mcx_store_release(&n->state, NODE_ACTIVE);
    mcx_fetch_add_relaxed(&h->n_nodes, 1);
  }
  int last = 0;
  if (r && mcx_load_relaxed(&h->n_nodes) == 0) {
    /* We created (or found empty) a partition nobody uses: remove it. */
    mcx_store_relaxed(&h->retired, 1);
    last = 1;
  }
  mcx__admin_unlock(d);
  if (r) {
    mcx__domain_detach(d, last);
    mcx__domains_unlock();
    return r;
  }
  mcx__domains_unlock();
  mcx__self.dom = d;
  mcx__self.forked = 0;
  mcx__self.node_slot = (uint32_t)slot;
  mcx__self.node_id = node_id;
  mcx__self.key = mcx_fetch_add_relaxed(&next_node_key, 1); /* unique; no ordering */
  mcx__self.intent = &mcx__nodes(d)[slot].inflight;
  mcx_port_on_fork_child(fork_child_hook);
  /* The fast paths notify without a fence (mcx__notify_fast): only where
   * this process is registered for the asymmetric barrier. */
  int light = !MCX_FAST_NOTIFIER_LIGHT || mcx_load_relaxed(&mcx_port_asym_light);
  mcx__self_no_fast();
  if (d->fastpath && light) {
    /* The fast paths' caches (msg.h, chan.h); without them, the full
     * path. mcx__self.fast is set with them, and only with them. */
    mcx__epc_t *epc = calloc(MCX_EPC_N, sizeof(mcx__epc_t));
    struct mcx__chc *chc = malloc(mcx__chc_size());
    if (epc && chc) {
      for (uint32_t i = 0; i < MCX_EPC_N; i++) {
        epc[i].ep = mcx__eps(d); /* any valid address: the state never matches */
        mcx__epc_clear(&epc[i]);
      }
      mcx__chc_init(d, chc);
      mcx__self_set_epc(epc);
      mcx__self_set_chc(chc);
      mcx__self.fast = d;
    } else {
      free(epc);
      free(chc);
    }
  }
  MCX_DEBUG(1, "node %u initialized in domain %u (%s locking, partition %s)", node_id, domain_id,
            mcx__locking_name(d->locking), d->name);
  return MCX_OK;
}

int mcx__node_finalize(void)
{
  if (!mcx__is_node())
    return MCX_ENOENT;
  mcx__domain_t *d = mcx__self.dom;
  if (mcx__ep_delete_all_of_node() != MCX_OK)
    return MCX_EIO; /* the control-plane lock could not be had: the node stays */
  mcx__req_release_node(mcx__self.key);
  mcx__pkt_claims_forget(); /* their buffers are the node's: reclaimed below */
  mcx__admin_lock(d);
  mcx__state_delete_of_node_locked(d, mcx__self.node_slot);
  if (d->transport != MCX_TRANSPORT_PMQ_) {
    mcx__chan_reclaim_buffers_locked(d, mcx__self.node_slot); /* packets never released */
    mcx__msg_reclaim_buffers_locked(d, mcx__self.node_slot); /* messages held in place */
  }
  mcx__admin_unlock(d);
  mcx__part_hdr_t *h = d->hdr;
  mcx__domains_lock();
  mcx__admin_lock(d);
  mcx__recovery_sweep_locked(d); /* dead nodes must not keep the partition alive */
  mcx_store_release(&mcx__nodes(d)[mcx__self.node_slot].state, NODE_FREE);
  int last = mcx_fetch_sub_relaxed(&h->n_nodes, 1) == 1;
  if (last)
    mcx_store_relaxed(&h->retired, 1); /* joiners that already mapped it re-open */
  mcx__admin_unlock(d);
  mcx__domain_detach(d, last);
  mcx__domains_unlock();
  MCX_DEBUG(1, "node %u finalized%s", mcx__self.node_id, last ? " (last: partition removed)" : "");
  if (mcx__self.epc != mcx__epc_none)
    free(mcx__self.epc);
  if (mcx__self.chc[0] != mcx__chc_none)
    free(mcx__self.chc[0]);
  memset(&mcx__self, 0, sizeof mcx__self);
  mcx__self_no_fast(); /* a thread starts, and ends, off the fast paths */
  return MCX_OK;
}

void mcx__display_state(void)
{
  mcx__domain_t *d = mcx__self.dom;
  if (!d) {
    printf("libmca: this thread is not an MCAPI node\n");
    return;
  }
  const mcx__part_hdr_t *h = d->hdr;
  printf("domain %u: %s locking, %s, %u node(s), partition %zu bytes (%u endpoints x %u "
         "priorities x %u slots, messages up to %u bytes)\n",
         h->domain_id, mcx__locking_name(d->locking),
         d->compat == MCX_COMPAT_MCA203_ ? "mca-2.0.3 compatibility" : "spec behaviour",
         mcx_load_relaxed(&h->n_nodes), d->size, d->g.max_endpoints, d->g.nprio, d->g.qcap, d->g.max_msg);
  mcx__node_t *nodes = mcx__nodes(d);
  for (uint32_t i = 0; i < MCA_MAX_NODES; i++)
    if (mcx_load_acquire(&nodes[i].state) == 1)
      printf("  node %u: pid %u tid %u%s\n", mcx_load_relaxed(&nodes[i].node_id),
             mcx_load_relaxed(&nodes[i].pid), mcx_load_relaxed(&nodes[i].tid),
             i == mcx__self.node_slot ? " (this thread)" : "");
  mcx__endpoint_t *eps = mcx__eps(d);
  for (uint32_t i = 0; i < d->g.max_endpoints; i++) {
    uint32_t st = mcx_load_acquire(&eps[i].state);
    if (EP_STATE(st) != EP_ACTIVE)
      continue;
    uint32_t depth = mcx_load_relaxed(&eps[i].depth), queued = 0;
    for (uint32_t p = 0; p < d->g.nprio; p++) {
      mcx__ring_view_t v = mcx__ring_of(d, i, p, depth);
      queued += mcx__mpsc_count(&v);
    }
    printf("  endpoint %#x: node %u port %u, %u queued (depth %u per priority), %u get(s)\n",
           mcx__ep_handle(d, i, st >> 8), mcx_load_relaxed(&eps[i].node_id),
           mcx_load_relaxed(&eps[i].port), queued, depth, mcx_load_relaxed(&eps[i].get_count));
  }
  printf("  requests in use in this process: %u of %u\n", mcx__req_in_use(), MCA_MAX_REQUESTS);
}
