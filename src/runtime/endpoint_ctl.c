/* SPDX-License-Identifier: BSD-3-Clause */
/* Endpoints that exist: delete, attributes, reachability and re-size (the
 * table, create and resolve are endpoint.c's). They ask the messages and
 * channels below (queued messages, a channel's side, the pmq queue, the
 * fast path's cache), so this file sits above them in the objects layer
 * (docs/design.md, layers). */
#include <string.h>

#include "mcapi.h"
#include "ports/mcx_port.h"
#include "runtime/chan.h"
#include "runtime/domain.h"
#include "runtime/endpoint.h"
#include "runtime/msg.h"
#include "runtime/msg_pmq.h"

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
  uint32_t i = mcx__ep_idx(d, e);
  if (!mcx__ep_still(d, handle, e))
    r = MCX_ESTALE;
  else if (mcx_load_relaxed(&e->chan) && /* under admin: connect and open change it there */
           !mcx__chan_ep_side_quiet(d, i))
    r = MCX_ECHAN; /* its side is open, or its open waits for a connection */
  else {
    /* A connected endpoint whose side is not open (never opened, or closed)
     * is deleted, in both profiles: only an open side refuses (the close the
     * spec asks for first cannot be called on a side never opened), as the
     * reference and OpenMCAPI do. It leaves its channel as at finalize. */
    mcx__chan_ep_gone(d, i);
    mcx__ep_delete_locked(d, i);
  }
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

#define ATTR_SIZE(type)              \
  do {                               \
    if (size != sizeof(type))        \
      return MCX_EMSGSIZE;           \
  } while (0)

/* NUM_RECV_BUFFERS: the endpoint's depth; in the mca-2.0.3 profile, as the
 * reference reports it, its free receive buffers: its queue has
 * MCAPI_MAX_QUEUE_ELEMENTS + 1 of them, less what is queued. */
static mcapi_uint_t recv_buffers(uint32_t handle, mcx__endpoint_t *e)
{
  if (!mcx__ref())
    return mcx_load_relaxed(&e->depth);
  uint32_t queued = 0;
  if (mcx_load_relaxed(&e->chan) == 0 && mcx__msg_available(handle, &queued) != MCX_OK)
    queued = 0;
  return MCAPI_MAX_QUEUE_ELEMENTS + 1 > queued ? MCAPI_MAX_QUEUE_ELEMENTS + 1 - queued : 0;
}

/* Whether a send from @p e fails when the destination is full (rather than
 * blocks): its owner's setting, as it set it. */
static int fails_on_limit(mcx__domain_t *d, mcx__endpoint_t *e)
{
  return (mcx__ep_is_mine(e) ? mcx__ep_fail(d, e) : mcx_load_relaxed(&e->fail_on_mem_limit)) != 0;
}

/* Gives the attribute's value @p expr as a @p type, when the caller's
 * buffer has that type's size. */
#define ATTR_OUT(type, expr)                                                                       \
  do {                                                                                             \
    ATTR_SIZE(type);                                                                               \
    type v_ = (expr);                                                                              \
    memcpy(out, &v_, sizeof v_);                                                                   \
    return MCX_OK;                                                                                 \
  } while (0)

int mcx__ep_get_attr(uint32_t handle, uint32_t num, void *out, size_t size)
{
  mcx__domain_t *d = mcx__self.dom;
  mcx__endpoint_t *e;
  int r = mcx__ep_resolve(d, handle, &e);
  if (r)
    return r;
  switch (num) {
  case MCAPI_ENDP_ATTR_TYPE:
    ATTR_OUT(mcapi_uint_t, mcx_load_relaxed(&e->chan) & 0xff);
  case MCAPI_ENDP_ATTR_GET_COUNT:
    ATTR_OUT(mcapi_uint_t, mcx_load_relaxed(&e->get_count));
  case MCAPI_ENDP_ATTR_MAX_PAYLOAD_SIZE:
    ATTR_OUT(size_t, d->g.max_msg);
  case MCAPI_ENDP_ATTR_NUM_PRIORITIES:
    ATTR_OUT(mcapi_uint_t, d->g.nprio);
  case MCAPI_ENDP_ATTR_PRIORITY:
    ATTR_OUT(mcapi_priority_t, mcx_load_relaxed(&e->priority));
  case MCAPI_ENDP_ATTR_NUM_RECV_BUFFERS:
    ATTR_OUT(mcapi_uint_t, recv_buffers(handle, e));
  case MCAPI_ENDP_ATTR_STATUS:
    ATTR_OUT(mcapi_uint_t,
             MCAPI_ENDP_STATUS_CREATED | mcx__chan_ep_status(d, mcx_load_relaxed(&e->chan)));
  case MCAPI_ENDP_ATTR_TIMEOUT:
    ATTR_OUT(mcapi_timeout_t,
             mcx__ep_is_mine(e) ? mcx__ep_timeout(d, e) : mcx_load_relaxed(&e->timeout_ms));
  case MCAPI_ENDP_ATTR_BLOCK_ON_MEM_LIMIT:
  case MCAPI_ENDP_ATTR_FAIL_ON_MEM_LIMIT:
    ATTR_OUT(mcapi_boolean_t, (num == MCAPI_ENDP_ATTR_FAIL_ON_MEM_LIMIT) == fails_on_limit(d, e));
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
    mcx__ep_init_rings(d, idx, depth, epoch);
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
