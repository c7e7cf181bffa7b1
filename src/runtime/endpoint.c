/* SPDX-License-Identifier: BSD-3-Clause */
/* Endpoints: table slots in the partition, each with one MPSC ring per priority. */
#include <string.h>

#include "mcapi.h"
#include "ports/mcx_port.h"
#include "runtime/msg_fast.h"
#include "runtime/runtime.h"
#include "transport/pmq.h"

#define TIMEOUT_INFINITE 0xffffffffu

static void init_rings(const mcx__domain_t *d, uint32_t idx, uint32_t depth, uint32_t epoch)
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

struct close_ctx {
  mcx__domain_t *d;
  uint64_t tag; /* (ring number + 1) << 48, as in the senders' in-flight records */
};

/* Called by mcx__mpsc_close while the slot at @p pos stays unpublished, admin
 * lock held: a dead sender's slot gets its tombstone; returns whether a live
 * node still holds the reservation (its in-flight record names the slot).
 * None does when the ring's positions were corrupted. */
static int close_stuck(void *ctx, uint64_t pos)
{
  struct close_ctx *c = ctx;
  mcx__resolve_orphans_locked(c->d);
  const mcx__node_t *nodes = mcx__nodes(c->d);
  for (uint32_t i = 0; i < MCA_MAX_NODES; i++)
    /* Acquire: pairs with R3 of the sender (the record before its reservation). */
    if (mcx_load_acquire(&nodes[i].inflight) == (c->tag | pos) && mcx__node_alive(c->d, i))
      return 1;
  MCX_DEBUG(1, "domain %u: no sender holds slot %llu of a closing ring (corrupt positions)",
            c->d->domain_id, (unsigned long long)pos);
  return 0;
}

static uint32_t close_rings(mcx__domain_t *d, uint32_t idx, uint32_t depth)
{
  uint32_t dropped = 0;
  for (uint32_t p = 0; p < d->g.nprio; p++) {
    mcx__ring_view_t v = mcx__ring_of(d, idx, p, depth);
    struct close_ctx c = {d, ((uint64_t)idx * d->g.nprio + p + 1) << 48};
    dropped += mcx__mpsc_close(&v, close_stuck, &c);
  }
  return dropped;
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
    /* pmq: the endpoint's queue first; nothing is published if that fails. */
    if (d->transport == MCX_TRANSPORT_PMQ_ &&
        (r = mcx__pmq_ep_create(d->pmq, (uint32_t)slot, epoch, &depth)) != MCX_OK)
      goto out;
    init_rings(d, (uint32_t)slot, depth, epoch);
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

void mcx__ep_delete_locked(mcx__domain_t *d, uint32_t idx)
{
  mcx__endpoint_t *e = &mcx__eps(d)[idx];
  uint32_t st = mcx_load_relaxed(&e->state);
  /* Senders that resolved the handle before this still hold the old epoch:
   * closing the rings makes their CAS fail; the state tells them why. */
  mcx_store_seq_cst(&e->state, (st & ~0xffu) | EP_DELETING);
  uint32_t dropped = close_rings(d, idx, mcx_load_relaxed(&e->depth));
  if (d->transport == MCX_TRANSPORT_PMQ_)
    dropped += mcx__msg_pmq_delete(d, e, idx); /* unlinks the queue */
  if (dropped)
    MCX_DEBUG(1, "endpoint %#x deleted with %u message(s) queued", mcx__ep_handle(d, idx, st >> 8),
              dropped);
  /* Its index among its node's endpoints is free again. */
  uint32_t owner = mcx_load_relaxed(&e->owner_slot), k = mcx_load_relaxed(&e->ref_index);
  if (owner < MCA_MAX_NODES && k < MCAPI_MAX_ENDPOINTS &&
      mcx_load_relaxed(&mcx__nodes(d)[owner].ep_slot[k]) == idx + 1)
    mcx_store_release(&mcx__nodes(d)[owner].ep_slot[k], 0);
  /* R-E3 — release: the ring is quiet before the slot reads as free (A-E1). */
  mcx_store_release(&e->state, (st & ~0xffu) | EP_FREE);
  mcx__wp_broadcast(&e->recv_wp, d->shared);
  mcx__wp_broadcast(&e->space_wp, d->shared);
}

/* Resolves @p handle to one of the caller's endpoints; MCX_EPERM for another node's. */
static int resolve_mine(const mcx__domain_t *d, uint32_t handle, mcx__endpoint_t **e)
{
  int r = mcx__ep_resolve(d, handle, e);
  if (r)
    return r;
  return mcx__ep_is_mine(*e) ? MCX_OK : MCX_EPERM;
}

int mcx__ep_delete(uint32_t handle)
{
  mcx__domain_t *d = mcx__self.dom;
  mcx__endpoint_t *e;
  int r = resolve_mine(d, handle, &e);
  if (r)
    return r;
  if (mcx__admin_lock_bounded(d) != MCX_OK)
    return MCX_EIO;
  mcx__glock(d);
  if (!mcx__ep_still(d, handle, e))
    r = MCX_ESTALE;
  else if (mcx_load_relaxed(&e->chan)) /* under admin: connect and open change it there */
    r = MCX_ECHAN;
  else
    mcx__ep_delete_locked(d, mcx__ep_idx(d, e));
  mcx__gunlock(d);
  mcx__admin_unlock(d);
  return r;
}

int mcx__ep_delete_all_of_node(void)
{
  mcx__domain_t *d = mcx__self.dom;
  mcx__endpoint_t *eps = mcx__eps(d);
  if (mcx__admin_lock_bounded(d) != MCX_OK)
    return MCX_EIO;
  mcx__glock(d);
  for (uint32_t i = 0; i < d->g.max_endpoints; i++) {
    uint32_t st = mcx_load_relaxed(&eps[i].state);
    if ((st & 0xff) != EP_FREE && mcx__ep_is_mine(&eps[i])) {
      mcx__chan_ep_gone(d, i); /* leaves its channel, if any */
      mcx__ep_delete_locked(d, i);
    }
  }
  mcx__gunlock(d);
  mcx__admin_unlock(d);
  return MCX_OK;
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

#define ATTR_SIZE(type)              \
  do {                               \
    if (size != sizeof(type))        \
      return MCX_EMSGSIZE;           \
  } while (0)

int mcx__ep_get_attr(uint32_t handle, uint32_t num, void *out, size_t size)
{
  mcx__domain_t *d = mcx__self.dom;
  mcx__endpoint_t *e;
  int r = mcx__ep_resolve(d, handle, &e);
  if (r)
    return r;
  switch (num) {
  case MCAPI_ENDP_ATTR_TYPE: {
    ATTR_SIZE(mcapi_uint_t);
    mcapi_uint_t v = mcx_load_relaxed(&e->chan) & 0xff;
    memcpy(out, &v, sizeof v);
    return MCX_OK;
  }
  case MCAPI_ENDP_ATTR_GET_COUNT: {
    ATTR_SIZE(mcapi_uint_t);
    mcapi_uint_t v = mcx_load_relaxed(&e->get_count);
    memcpy(out, &v, sizeof v);
    return MCX_OK;
  }
  case MCAPI_ENDP_ATTR_MAX_PAYLOAD_SIZE: {
    ATTR_SIZE(size_t);
    size_t v = d->g.max_msg;
    memcpy(out, &v, sizeof v);
    return MCX_OK;
  }
  case MCAPI_ENDP_ATTR_NUM_PRIORITIES: {
    ATTR_SIZE(mcapi_uint_t);
    mcapi_uint_t v = d->g.nprio;
    memcpy(out, &v, sizeof v);
    return MCX_OK;
  }
  case MCAPI_ENDP_ATTR_PRIORITY: {
    ATTR_SIZE(mcapi_priority_t);
    mcapi_priority_t v = mcx_load_relaxed(&e->priority);
    memcpy(out, &v, sizeof v);
    return MCX_OK;
  }
  case MCAPI_ENDP_ATTR_NUM_RECV_BUFFERS: {
    ATTR_SIZE(mcapi_uint_t);
    mcapi_uint_t v = mcx_load_relaxed(&e->depth);
    if (mcx__ref()) {
      /* The reference reports free receive buffers: its queue has
       * MCAPI_MAX_QUEUE_ELEMENTS + 1 of them, less what is queued. */
      uint32_t queued = 0;
      if (mcx_load_relaxed(&e->chan) == 0 && mcx__msg_available(handle, &queued) != MCX_OK)
        queued = 0;
      v = MCAPI_MAX_QUEUE_ELEMENTS + 1 > queued ? MCAPI_MAX_QUEUE_ELEMENTS + 1 - queued : 0;
    }
    memcpy(out, &v, sizeof v);
    return MCX_OK;
  }
  case MCAPI_ENDP_ATTR_STATUS: {
    ATTR_SIZE(mcapi_uint_t);
    mcapi_uint_t v = MCAPI_ENDP_STATUS_CREATED | mcx__chan_ep_status(d, mcx_load_relaxed(&e->chan));
    memcpy(out, &v, sizeof v);
    return MCX_OK;
  }
  case MCAPI_ENDP_ATTR_TIMEOUT: {
    ATTR_SIZE(mcapi_timeout_t);
    mcapi_timeout_t v = mcx__ep_is_mine(e) ? mcx__ep_timeout(d, e) : mcx_load_relaxed(&e->timeout_ms);
    memcpy(out, &v, sizeof v);
    return MCX_OK;
  }
  case MCAPI_ENDP_ATTR_BLOCK_ON_MEM_LIMIT:
  case MCAPI_ENDP_ATTR_FAIL_ON_MEM_LIMIT: {
    ATTR_SIZE(mcapi_boolean_t);
    mcapi_boolean_t fail =
        (mcx__ep_is_mine(e) ? mcx__ep_fail(d, e) : mcx_load_relaxed(&e->fail_on_mem_limit)) != 0;
    mcapi_boolean_t v = num == MCAPI_ENDP_ATTR_FAIL_ON_MEM_LIMIT ? fail : !fail;
    memcpy(out, &v, sizeof v);
    return MCX_OK;
  }
  case MCAPI_ENDP_ATTR_GET_SOURCE:
  case MCAPI_ENDP_ATTR_BUFFER_TYPE:
  case MCAPI_ENDP_ATTR_MEMORY_TYPE:
  case MCAPI_ENDP_ATTR_NUM_SEND_BUFFERS:
    return MCX_ENOSYS;
  default:
    return MCX_ENOENT;
  }
}

/* Re-sizes the rings of an empty endpoint; caller holds the admin lock. */
static int resize_locked(mcx__domain_t *d, mcx__endpoint_t *e, uint32_t idx, uint32_t depth)
{
  if (d->transport == MCX_TRANSPORT_PMQ_)
    return mcx__msg_pmq_resize(d, e, idx, depth); /* re-creates the queue */
  uint32_t st = mcx_load_relaxed(&e->state);
  mcx_store_seq_cst(&e->state, (st & ~0xffu) | EP_RECONFIG);
  uint32_t old = mcx_load_relaxed(&e->depth);
  uint32_t queued = close_rings(d, idx, old);
  uint32_t epoch = mcx_load_relaxed(&e->ring_epoch);
  int r = MCX_OK;
  if (queued) {
    /* Messages arrived: keep them; re-open the rings as they were. */
    for (uint32_t p = 0; p < d->g.nprio; p++) {
      mcx__ring_view_t v = mcx__ring_of(d, idx, p, old);
      mcx_fetch_and_acq_rel(&v.ring->tail, ~MCX_RING_CLOSED);
    }
    r = MCX_EBUSY;
  } else {
    epoch = (epoch + 1) & MCX_RING_GEN_MASK;
    /* The state word will read as before: the owner's fast receive, which
     * trusts its entry's geometry while the word stays, must refill. The
     * owner is the caller (resolve_mine), its cache this thread's. */
    mcx__epc_forget(e);
    init_rings(d, idx, depth, epoch);
    mcx_store_relaxed(&e->depth, depth);
    /* R-E4 — release: the new depth before the new epoch; a sender that reads
     * the epoch with acquire (A-E4, msg.c) then reads the matching depth. */
    mcx_store_release(&e->ring_epoch, epoch);
  }
  mcx_store_release(&e->state, (st & ~0xffu) | EP_ACTIVE); /* R-E1 */
  mcx__wp_broadcast(&e->space_wp, d->shared);
  return r;
}

void mcx__ep_reopen_locked(mcx__domain_t *d, uint32_t idx)
{
  mcx__endpoint_t *e = &mcx__eps(d)[idx];
  uint32_t st = mcx_load_relaxed(&e->state);
  uint32_t depth = mcx_load_relaxed(&e->depth);
  for (uint32_t p = 0; p < d->g.nprio; p++) {
    mcx__ring_view_t v = mcx__ring_of(d, idx, p, depth);
    mcx_fetch_and_acq_rel(&v.ring->tail, ~MCX_RING_CLOSED);
  }
  mcx_store_release(&e->state, (st & ~0xffu) | EP_ACTIVE); /* R-E1 */
  mcx__wp_broadcast(&e->space_wp, d->shared);
}

int mcx__ep_set_reachable(uint32_t handle, int reachable)
{
  mcx__domain_t *d = mcx__self.dom;
  mcx__endpoint_t *e;
  int r = resolve_mine(d, handle, &e);
  if (r)
    return r;
  uint32_t st = mcx_load_relaxed(&e->state);
  for (;;) {
    if (EP_STATE(st) != EP_ACTIVE || !mcx__ep_gen_ok(d, handle, st))
      return EP_STATE(st) == EP_RECONFIG ? MCX_EBUSY : MCX_ESTALE;
    uint32_t want = reachable ? st & ~EP_UNREACH : st | EP_UNREACH;
    if (want == st)
      return MCX_OK;
    /* R-E1 as in create: the word only gains or loses the flag; senders
     * read it with acquire (A-E1). A CAS, so a delete in between wins. */
    if (mcx_cas_acq_rel(&e->state, &st, want))
      break;
  }
  /* Blocked senders re-check the flag when woken (msg.c, pmq.c ticks). */
  mcx__wp_broadcast(&e->space_wp, d->shared);
  return MCX_OK;
}

int mcx__ep_set_attr(uint32_t handle, uint32_t num, const void *in, size_t size)
{
  mcx__domain_t *d = mcx__self.dom;
  mcx__endpoint_t *e;
  int r = resolve_mine(d, handle, &e);
  if (r)
    return r;
  switch (num) {
  case MCAPI_ENDP_ATTR_TYPE:
  case MCAPI_ENDP_ATTR_GET_COUNT:
  case MCAPI_ENDP_ATTR_MAX_PAYLOAD_SIZE:
  case MCAPI_ENDP_ATTR_NUM_PRIORITIES:
  case MCAPI_ENDP_ATTR_STATUS:
    return MCX_EROFS;
  case MCAPI_ENDP_ATTR_PRIORITY: {
    ATTR_SIZE(mcapi_priority_t);
    mcapi_priority_t v;
    memcpy(&v, in, sizeof v);
    if (v > MCAPI_MAX_PRIORITY)
      return MCX_EINVAL;
    mcx_store_relaxed(&e->priority, v); /* an attribute; no ordering with data */
    return MCX_OK;
  }
  case MCAPI_ENDP_ATTR_TIMEOUT: {
    ATTR_SIZE(mcapi_timeout_t);
    mcapi_timeout_t v;
    memcpy(&v, in, sizeof v);
    mcx_store_relaxed(&e->timeout_ms, v); /* the copy for other processes */
    d->ep_local[mcx__ep_idx(d, e)].timeout_ms = v; /* read at the start of each blocking call */
    return MCX_OK;
  }
  case MCAPI_ENDP_ATTR_BLOCK_ON_MEM_LIMIT:
  case MCAPI_ENDP_ATTR_FAIL_ON_MEM_LIMIT: {
    ATTR_SIZE(mcapi_boolean_t);
    mcapi_boolean_t v;
    memcpy(&v, in, sizeof v);
    if (v > 1)
      return MCX_EINVAL;
    uint32_t fail = num == MCAPI_ENDP_ATTR_FAIL_ON_MEM_LIMIT ? v : !v;
    mcx_store_relaxed(&e->fail_on_mem_limit, fail); /* the copy for other processes */
    d->ep_local[mcx__ep_idx(d, e)].fail = fail; /* read when a send finds the queue full */
    return MCX_OK;
  }
  case MCAPI_ENDP_ATTR_NUM_RECV_BUFFERS: {
    ATTR_SIZE(mcapi_uint_t);
    mcapi_uint_t v;
    memcpy(&v, in, sizeof v);
    if (v < 2 || v > d->g.qcap || (v & (v - 1)))
      return MCX_EINVAL;
    if (mcx_load_relaxed(&e->chan))
      return MCX_ECHAN;
    if (mcx__msg_inplace_held(handle))
      return MCX_EBUSY; /* messages received in place are not released: not empty */
    if (mcx__admin_lock_bounded(d) != MCX_OK)
      return MCX_EIO;
    mcx__glock(d);
    if (!mcx__ep_still(d, handle, e))
      r = MCX_ESTALE;
    else
      r = resize_locked(d, e, mcx__ep_idx(d, e), v);
    mcx__gunlock(d);
    mcx__admin_unlock(d);
    return r;
  }
  case MCAPI_ENDP_ATTR_GET_SOURCE:
  case MCAPI_ENDP_ATTR_BUFFER_TYPE:
  case MCAPI_ENDP_ATTR_MEMORY_TYPE:
  case MCAPI_ENDP_ATTR_NUM_SEND_BUFFERS:
    return MCX_ENOSYS;
  default:
    return MCX_ENOENT;
  }
}
