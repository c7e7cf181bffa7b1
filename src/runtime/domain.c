/* Domains (partitions) and nodes. */
#include <stdio.h>
#include <string.h>

#include "ports/mcx_port.h"
#include "runtime/runtime.h"
#include "transport/pmq.h"

_Thread_local mcx__self_t mcx__self;
mcx_atomic_u32 mcx__debug_level;

/* The process's domain views. Control plane only: guarded by proc_lock. */
static mcx__domain_t domains[MCA_MAX_DOMAINS];
static mcx__mutex_t proc_lock;
static mcx_atomic_u32 next_node_key = 1;

static size_t align_up(size_t v, size_t a) { return (v + a - 1) & ~(a - 1); }

static uint32_t env_choice(const char *name, const char *const *names, const uint32_t *values,
                           int n, uint32_t dflt)
{
  const char *s = mcx_port_getenv(name);
  if (!s || !*s)
    return dflt;
  for (int i = 0; i < n; i++)
    if (!strcmp(s, names[i]))
      return values[i];
  mcx_port_log("%s=%s is not understood; using the default", name, s);
  return dflt;
}

static uint32_t resolve_locking(uint32_t requested)
{
  static const char *const names[] = {"lockfree", "global"};
  static const uint32_t values[] = {MCX_LOCK_LOCKFREE, MCX_LOCK_GLOBAL};
  return requested ? requested : env_choice("MCX_LOCKING", names, values, 2, MCX_LOCK_LOCKFREE);
}

static uint32_t resolve_compat(uint32_t requested)
{
  static const char *const names[] = {"spec", "mca-2.0.3"};
  static const uint32_t values[] = {MCX_COMPAT_SPEC_, MCX_COMPAT_MCA203_};
  return requested ? requested : env_choice("MCX_COMPAT", names, values, 2, MCX_COMPAT_SPEC_);
}

static uint32_t resolve_transport(uint32_t requested)
{
  static const char *const names[] = {"shm", "pmq"};
  static const uint32_t values[] = {MCX_TRANSPORT_SHM_, MCX_TRANSPORT_PMQ_};
  return requested ? requested : env_choice("MCX_TRANSPORT", names, values, 2, MCX_TRANSPORT_SHM_);
}

/* Lays out a new partition for @p o and maps it (in-process: anonymous). */
static int create_partition(mcx__domain_t *d, uint32_t domain_id, const mcx__init_opts_t *o)
{
  uint32_t max_eps = o->max_endpoints ? o->max_endpoints : MCAPI_MAX_ENDPOINTS;
  uint32_t qcap = o->qcap ? o->qcap : MCAPI_MAX_QUEUE_ELEMENTS;
  uint32_t max_msg = o->max_msg ? o->max_msg : MCAPI_MAX_MSG_SIZE;
  /* pmq: messages are also bounded by the kernel's limits (transport/pmq.c). */
  uint32_t transport = resolve_transport(o->transport);
  if (transport == MCX_TRANSPORT_PMQ_)
    max_msg = mcx__pmq_payload_limit(max_msg, o->max_msg != 0);
  if (max_eps == 0 || max_eps > 0xfffe || qcap < 2 || (qcap & (qcap - 1)) || qcap > 65536 ||
      max_msg > (1u << 24))
    return MCX_EINVAL;
  uint32_t nprio = MCX_NPRIO;
  size_t off = align_up(sizeof(mcx__part_hdr_t), 4096);
  size_t off_nodes = off;
  off = align_up(off + MCA_MAX_NODES * sizeof(mcx__node_t), 4096);
  size_t off_eps = off;
  off = align_up(off + (size_t)max_eps * sizeof(mcx__endpoint_t), 4096);
  size_t off_rings = off;
  size_t nrings = (size_t)max_eps * nprio;
  off = align_up(off + nrings * sizeof(mcx__mpsc_ring_t), 4096);
  size_t off_slots = off;
  off = align_up(off + nrings * qcap * sizeof(mcx__msg_slot_t), 4096);
  size_t off_big = off;
  off = align_up(off + nrings * qcap * (size_t)max_msg, 4096);

  uint8_t *base = mcx_port_map_anon(off);
  if (!base)
    return MCX_ENOMEM;
  mcx__part_hdr_t *h = (mcx__part_hdr_t *)base;
  h->magic = MCX_PART_MAGIC;
  h->version = MCX_PART_VERSION;
  h->hdr_size = sizeof *h;
  h->total_size = off;
  h->domain_id = domain_id;
  h->locking = resolve_locking(o->locking);
  h->compat = resolve_compat(o->compat);
  h->transport = transport;
  h->max_nodes = MCA_MAX_NODES;
  h->max_endpoints = max_eps;
  h->nprio = nprio;
  h->qcap = qcap;
  h->max_msg = max_msg;
  h->off_nodes = off_nodes;
  h->off_eps = off_eps;
  h->off_rings = off_rings;
  h->off_slots = off_slots;
  h->off_big = off_big;
  d->domain_id = domain_id;
  d->base = base;
  d->size = off;
  d->hdr = h;
  d->shared = 0;
  d->locking = h->locking;
  d->compat = h->compat;
  d->transport = h->transport;
  if (d->transport == MCX_TRANSPORT_PMQ_) {
    int r = mcx__pmq_domain_open(d);
    if (r) {
      mcx_port_unmap(base, off);
      memset(d, 0, sizeof *d);
      return r;
    }
  }
  return MCX_OK;
}

/* Finds or creates the process's view of @p domain_id; under proc_lock. */
static int attach_domain(uint32_t domain_id, const mcx__init_opts_t *o, mcx__domain_t **out)
{
  mcx__domain_t *free_slot = NULL;
  for (int i = 0; i < MCA_MAX_DOMAINS; i++) {
    if (domains[i].refs && domains[i].domain_id == domain_id) {
      uint32_t want_lock = o->locking, want_compat = o->compat, want_tr = o->transport;
      if ((want_lock && want_lock != domains[i].locking) ||
          (want_compat && want_compat != domains[i].compat) ||
          (want_tr && want_tr != domains[i].transport))
        return MCX_EINVAL; /* the domain exists with another mode */
      *out = &domains[i];
      return MCX_OK;
    }
    if (!domains[i].refs && !free_slot)
      free_slot = &domains[i];
  }
  if (!free_slot)
    return MCX_ENOMEM;
  int r = create_partition(free_slot, domain_id, o);
  if (r)
    return r;
  *out = free_slot;
  return MCX_OK;
}

static void detach_domain(mcx__domain_t *d)
{
  if (--d->refs == 0) {
    if (d->pmq)
      mcx__pmq_domain_close(d);
    mcx_port_unmap(d->base, d->size);
    memset(d, 0, sizeof *d);
  }
}

int mcx__node_init(uint32_t domain_id, uint32_t node_id, uint32_t node_type,
                   const mcx__init_opts_t *opts)
{
  if (mcx__self.dom)
    return MCX_EEXIST;
  mcx__init_opts_t none = {0};
  if (!opts)
    opts = &none;
  if (opts->locking > MCX_LOCK_GLOBAL || opts->compat > MCX_COMPAT_MCA203_ ||
      opts->transport > MCX_TRANSPORT_PMQ_)
    return MCX_EINVAL;
  mcx__mutex_lock(&proc_lock, 0);
  mcx__domain_t *d;
  int r = attach_domain(domain_id, opts, &d);
  if (r) {
    mcx__mutex_unlock(&proc_lock, 0);
    return r;
  }
  d->refs++;
  mcx__part_hdr_t *h = d->hdr;
  mcx__mutex_lock(&h->admin, d->shared);
  mcx__node_t *nodes = mcx__nodes(d);
  int slot = -1;
  r = MCX_OK;
  for (uint32_t i = 0; i < h->max_nodes; i++) {
    if (mcx_load_relaxed(&nodes[i].state) == 1) {
      if (mcx_load_relaxed(&nodes[i].node_id) == node_id)
        r = MCX_EBUSY; /* the id is taken */
    } else if (slot < 0) {
      slot = (int)i;
    }
  }
  if (!r && slot < 0)
    r = MCX_ENOMEM;
  if (!r) {
    mcx__node_t *n = &nodes[slot];
    mcx_store_relaxed(&n->node_id, node_id);
    mcx_store_relaxed(&n->pid, mcx_port_pid());
    mcx_store_relaxed(&n->tid, mcx_port_tid());
    mcx_store_relaxed(&n->type, node_type);
    /* Release: the fields above before the node reads as active (readers
     * take the admin lock or re-check state with acquire). */
    mcx_store_release(&n->state, 1);
    mcx_fetch_add_relaxed(&h->n_nodes, 1);
  }
  mcx__mutex_unlock(&h->admin, d->shared);
  if (r) {
    detach_domain(d);
    mcx__mutex_unlock(&proc_lock, 0);
    return r;
  }
  mcx__mutex_unlock(&proc_lock, 0);
  mcx__self.dom = d;
  mcx__self.node_slot = (uint32_t)slot;
  mcx__self.node_id = node_id;
  mcx__self.key = mcx_fetch_add_relaxed(&next_node_key, 1); /* unique; no ordering */
  MCX_DEBUG(1, "node %u initialized in domain %u (%s locking)", node_id, domain_id,
            d->locking == MCX_LOCK_GLOBAL ? "global" : "lock-free");
  return MCX_OK;
}

int mcx__node_finalize(void)
{
  mcx__domain_t *d = mcx__self.dom;
  if (!d)
    return MCX_ENOENT;
  mcx__ep_delete_all_of_node();
  mcx__req_release_node(mcx__self.key);
  mcx__part_hdr_t *h = d->hdr;
  mcx__mutex_lock(&h->admin, d->shared);
  mcx_store_release(&mcx__nodes(d)[mcx__self.node_slot].state, 0);
  mcx_fetch_sub_relaxed(&h->n_nodes, 1);
  mcx__mutex_unlock(&h->admin, d->shared);
  mcx__mutex_lock(&proc_lock, 0);
  detach_domain(d);
  mcx__mutex_unlock(&proc_lock, 0);
  MCX_DEBUG(1, "node %u finalized", mcx__self.node_id);
  memset(&mcx__self, 0, sizeof mcx__self);
  return MCX_OK;
}

int mcx__node_type(uint32_t domain_id, uint32_t node_id, uint32_t *type)
{
  mcx__domain_t *d = mcx__self.dom;
  if (!d || d->domain_id != domain_id)
    return MCX_EINVAL;
  mcx__node_t *nodes = mcx__nodes(d);
  int r = MCX_ENOENT;
  mcx__mutex_lock(&d->hdr->admin, d->shared);
  for (uint32_t i = 0; i < d->hdr->max_nodes; i++) {
    if (mcx_load_relaxed(&nodes[i].state) == 1 && mcx_load_relaxed(&nodes[i].node_id) == node_id) {
      *type = mcx_load_relaxed(&nodes[i].type);
      r = MCX_OK;
      break;
    }
  }
  mcx__mutex_unlock(&d->hdr->admin, d->shared);
  return r;
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
         h->domain_id, d->locking == MCX_LOCK_GLOBAL ? "global" : "lock-free",
         d->compat == MCX_COMPAT_MCA203_ ? "mca-2.0.3 compatibility" : "spec behaviour",
         mcx_load_relaxed(&h->n_nodes), d->size, h->max_endpoints, h->nprio, h->qcap, h->max_msg);
  mcx__node_t *nodes = mcx__nodes(d);
  for (uint32_t i = 0; i < h->max_nodes; i++)
    if (mcx_load_acquire(&nodes[i].state) == 1)
      printf("  node %u: pid %u tid %u%s\n", mcx_load_relaxed(&nodes[i].node_id),
             mcx_load_relaxed(&nodes[i].pid), mcx_load_relaxed(&nodes[i].tid),
             i == mcx__self.node_slot ? " (this thread)" : "");
  mcx__endpoint_t *eps = mcx__eps(d);
  for (uint32_t i = 0; i < h->max_endpoints; i++) {
    uint32_t st = mcx_load_acquire(&eps[i].state);
    if ((st & 0xff) != EP_ACTIVE)
      continue;
    uint32_t depth = mcx_load_relaxed(&eps[i].depth), queued = 0;
    for (uint32_t p = 0; p < h->nprio; p++) {
      mcx__ring_view_t v = mcx__ring_of(d, i, p, depth);
      queued += mcx__mpsc_count(&v);
    }
    printf("  endpoint %#x: node %u port %u, %u queued (depth %u per priority), %u get(s)\n",
           mcx__handle(i, st >> 8), mcx_load_relaxed(&eps[i].node_id),
           mcx_load_relaxed(&eps[i].port), queued, depth, mcx_load_relaxed(&eps[i].get_count));
  }
  printf("  requests in use in this process: %u of %u\n", mcx__req_in_use(), MCA_MAX_REQUESTS);
}
