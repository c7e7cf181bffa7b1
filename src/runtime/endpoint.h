/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file endpoint.h
 * @brief Endpoints (endpoint.c, endpoint_ctl.c): handles and their checks, the
 * table, create, lookup, get and release; delete, attributes, re-size.
 */
#ifndef MCX_RUNTIME_ENDPOINT_H
#define MCX_RUNTIME_ENDPOINT_H

#include "runtime/domain.h"

/* ---- handles: (generation << 16) | (index + 1); 0 is never valid */
static inline uint32_t mcx__handle(uint32_t idx, uint32_t gen)
{
  return ((gen & 0x7fffu) << 16) | (idx + 1);
}
static inline uint32_t mcx__handle_idx(uint32_t h) { return (h & 0xffffu) - 1; }
static inline uint32_t mcx__handle_gen(uint32_t h) { return (h >> 16) & 0x7fffu; }

/* ---- endpoint and channel handles
 *
 * spec profile: kind << 30 | (dir << 29) | generation << 12 | (index + 1),
 * kind 1 endpoint, 2 packet channel, 3 scalar channel: a handle of one kind
 * given where another is expected is refused, a stale one (deleted, the slot
 * reused: generation moved on) too. 17 bits of endpoint generation, 15 of
 * channel generation, 12 bits of index (at most 4094 endpoints per domain).
 *
 * mca-2.0.3 profile: the reference's encoding, domain index << 16 | node
 * index << 8 | endpoint index (the node's table slot, the endpoint's index
 * among its node's endpoints); channel handles are the local endpoint's.
 * No generation: as in the reference, a handle names whatever endpoint now
 * has that index. */
enum { MCX_HK_EP = 1u, MCX_HK_PKT = 2u, MCX_HK_SCL = 3u };
#define MCX_H_IDX_MASK 0xfffu
#define MCX_H_MAX_INDEX 4094u
#define MCX_EP_GEN_MASK 0x1ffffu

static inline uint32_t mcx__h_kind(uint32_t h) { return h >> 30; }
static inline uint32_t mcx__h_idx(uint32_t h) { return (h & MCX_H_IDX_MASK) - 1; }

/** The handle of endpoint @p idx (generation @p gen) as its domain's profile encodes it. */
static inline uint32_t mcx__ep_handle(const mcx__domain_t *d, uint32_t idx, uint32_t gen)
{
  if (d->compat == MCX_COMPAT_MCA203_) {
    const mcx__endpoint_t *e = &mcx__eps(d)[idx];
    return mcx_load_relaxed(&e->owner_slot) << 8 | mcx_load_relaxed(&e->ref_index);
  }
  return MCX_HK_EP << 30 | (gen & MCX_EP_GEN_MASK) << 12 | (idx + 1);
}

/** Index of an endpoint in the domain's table. */
static inline uint32_t mcx__ep_idx(const mcx__domain_t *d, const mcx__endpoint_t *e)
{
  return (uint32_t)(e - mcx__eps(d));
}

_Static_assert(MCX_EP_LOCAL_MAX == MCX_H_MAX_INDEX, "one local record per endpoint index");

/** The TIMEOUT attribute of @p e, one of the caller's own endpoints (ms). */
static inline uint32_t mcx__ep_timeout(const mcx__domain_t *d, const mcx__endpoint_t *e)
{
  return d->ep_local[mcx__ep_idx(d, e)].timeout_ms;
}

/** Whether sends from @p e (the caller's own) fail at once on a full queue. */
static inline uint32_t mcx__ep_fail(const mcx__domain_t *d, const mcx__endpoint_t *e)
{
  return d->ep_local[mcx__ep_idx(d, e)].fail;
}

/**
 * A message send from @p src that found no room (a full queue, an empty
 * payload pool): MCX_OK to wait for it, or why the send ends now. The spec
 * makes a blocking send wait, unless the sender asked to fail
 * (FAIL_ON_MEM_LIMIT, also the mca-2.0.3 profile); a non-blocking attempt
 * says EAGAIN; a TIMEOUT of 0 ends at once. Sets *@p deadline (from the
 * endpoint's TIMEOUT) at the first wait.
 */
static inline int mcx__send_no_room(const mcx__domain_t *d, const mcx__endpoint_t *src, int block,
                                    uint32_t timeout, uint64_t *deadline)
{
  if (mcx__ep_fail(d, src))
    return MCX_ENOMEM;
  if (!block)
    return MCX_EAGAIN;
  if (timeout == 0)
    return MCX_ETIMEDOUT;
  if (!*deadline)
    *deadline = mcx_port_deadline_ms(timeout);
  return MCX_OK;
}

int mcx__ep_resolve_ref(const mcx__domain_t *d, uint32_t h, mcx__endpoint_t **ep);

/** Sets or clears EP_UNREACH on the caller's endpoint @p handle, waking
 * blocked senders (mcx_endpoint_set_reachable). */
int mcx__ep_set_reachable(uint32_t handle, int reachable);

/** Resolves a handle to an active endpoint; 0, MCX_ESTALE (deleted) or MCX_EINVAL (forged). */
static inline int mcx__ep_resolve(const mcx__domain_t *d, uint32_t h, mcx__endpoint_t **ep)
{
  if (__builtin_expect(d->compat == MCX_COMPAT_MCA203_, 0))
    return mcx__ep_resolve_ref(d, h, ep);
  uint32_t idx = mcx__h_idx(h), gen = (h >> 12) & MCX_EP_GEN_MASK;
  if (mcx__h_kind(h) != MCX_HK_EP || idx >= d->g.max_endpoints || gen == 0)
    return MCX_EINVAL;
  mcx__endpoint_t *e = &mcx__eps(d)[idx];
  /* A-E1 — acquire: the endpoint's fields (and reset rings) are visible once
   * its state reads active; pairs with R-E1 in mcx__ep_create. */
  uint32_t st = mcx_load_acquire(&e->state);
  if ((st >> 8) != gen) {
    /* An older generation of this slot was deleted; a newer one is made up. */
    int32_t ahead = (int32_t)((((st >> 8) - gen) & MCX_EP_GEN_MASK) << 15);
    return ahead > 0 ? MCX_ESTALE : MCX_EINVAL;
  }
  if (EP_STATE(st) == EP_ACTIVE || EP_STATE(st) == EP_RECONFIG) {
    *ep = e;
    return MCX_OK;
  }
  return MCX_ESTALE;
}

/** Whether endpoint state word @p st is the incarnation handle @p h names
 * (always true in the mca-2.0.3 profile: its handles carry no generation). */
static inline int mcx__ep_gen_ok(const mcx__domain_t *d, uint32_t h, uint32_t st)
{
  return d->compat == MCX_COMPAT_MCA203_ || (st >> 8) == ((h >> 12) & MCX_EP_GEN_MASK);
}

/** Whether handle @p h still names endpoint @p e (admin lock held: deletes and re-creates are excluded). */
static inline int mcx__ep_still(const mcx__domain_t *d, uint32_t h, const mcx__endpoint_t *e)
{
  mcx__endpoint_t *now;
  return mcx__ep_resolve(d, h, &now) == MCX_OK && now == e;
}

static inline int mcx__ep_is_mine(const mcx__endpoint_t *ep)
{
  return mcx_load_relaxed(&ep->owner_slot) == mcx__self.node_slot &&
         mcx_load_relaxed(&ep->node_id) == mcx__self.node_id;
}


/* ---- endpoints (endpoint.c): the table, create, lookup, get and release */
int mcx__ep_create(uint32_t port, uint32_t *handle);
/** Looks up (node, port) once; 0 or MCX_ENOENT. */
int mcx__ep_lookup(uint32_t node_id, uint32_t port, uint32_t *handle);
int mcx__ep_get(uint32_t node_id, uint32_t port, uint32_t timeout_ms, uint32_t *handle);
int mcx__ep_release(uint32_t handle);
/** Resets the rings of endpoint @p idx to @p depth slots each, at ring epoch
 * @p epoch, adding what they received to the endpoint's count (create and
 * re-size; admin lock held). */
void mcx__ep_init_rings(const mcx__domain_t *d, uint32_t idx, uint32_t depth, uint32_t epoch);

/* ---- endpoints (endpoint_ctl.c): delete and attributes, above the
 * messages and channels they ask (also mcx__ep_delete_locked,
 * mcx__ep_reopen_locked and mcx__ep_set_reachable) */
int mcx__ep_delete(uint32_t handle);
int mcx__ep_delete_all_of_node(void);
int mcx__ep_get_attr(uint32_t handle, uint32_t num, void *out, size_t size);
int mcx__ep_set_attr(uint32_t handle, uint32_t num, const void *in, size_t size);

/** Re-opens the rings of an endpoint left in EP_RECONFIG (admin lock held). */
void mcx__ep_reopen_locked(mcx__domain_t *d, uint32_t idx);
/** Deletes endpoint @p idx (admin lock held); used by delete and the sweep. */
void mcx__ep_delete_locked(mcx__domain_t *d, uint32_t idx);

#endif
