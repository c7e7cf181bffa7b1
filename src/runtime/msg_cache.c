/* SPDX-License-Identifier: BSD-3-Clause */
/* The endpoint cache of the message fast path (msg.h): filling an entry,
 * resolving a priority's ring in it, forgetting an endpoint's entries. */
#include "mcapi.h"
#include "runtime/domain.h"
#include "runtime/endpoint.h"
#include "runtime/msg.h"

/* Resolves priority @p p's ring in entry @p c (the bit seen set), or none
 * (MCX_EPC_NOPRIO). */
static void epc_set_prio(mcx__epc_t *c, uint32_t p)
{
  c->prio = p;
  if (p == MCX_EPC_NOPRIO) {
    c->used = 0;
    c->v.ring = &mcx__epc_idle_ring;
    c->v.slots = &mcx__epc_idle_slot;
    c->v.mask = 0; /* its one slot, whatever the head */
    c->v.tag = 0;
    return;
  }
  c->used = 1u << p;
  c->v.ring = (mcx__mpsc_ring_t *)(c->ring0 + (size_t)p * sizeof(mcx__mpsc_ring_t));
  c->v.slots = (mcx__msg_slot_t *)(c->slots0 + p * c->slot_step);
  c->v.mask = c->mask;
  c->v.tag = c->tag0 + ((uint64_t)p << 48);
}

int mcx__epc_prio(uint32_t to, uint32_t prio)
{
  mcx__epc_t *t = mcx__epc_get(to);
  if (!t || prio > MCAPI_MAX_PRIORITY) /* out of range: the full path reports it */
    return 0;
  mcx__endpoint_t *dst = t->ep;
  /* A-E1 — acquire: pairs with R-E1: the bit goes to the entry's incarnation
   * (used_prios is cleared only by a create, which changes the word). */
  if (mcx_load_acquire(&dst->state_chan) != t->state)
    return 0;
  uint32_t bit = 1u << prio;
  /* Relaxed: see mcx__msg_enqueue_once. */
  if (!(mcx_load_relaxed(&dst->used_prios) & bit))
    mcx_fetch_or_relaxed(&dst->used_prios, bit);
  epc_set_prio(t, prio);
  return 1;
}

void mcx__epc_forget(const mcx__endpoint_t *e)
{
  for (uint32_t i = 0; mcx__self.epc != mcx__epc_none && i < MCX_EPC_N; i++)
    if (mcx__self.epc[i].ep == e)
      mcx__epc_clear(&mcx__self.epc[i]);
}

mcx__epc_t *mcx__epc_fill(mcx__domain_t *d, uint32_t h)
{
  mcx__endpoint_t *e;
  if (mcx__self.epc == mcx__epc_none || mcx__ep_resolve(d, h, &e) != MCX_OK)
    return NULL;
  /* A-E1 — acquire: pairs with R-E1; the entry is valid while the word stays. */
  uint32_t st = mcx_load_acquire(&e->state);
  if ((st & 0xff) != EP_ACTIVE)
    return NULL;
  /* A-E4 — acquire: pairs with R-E4 (resize): the depth read next is this
   * epoch's, or a later one's, which the ring's tail refuses (msg.h). */
  uint32_t epoch = mcx_load_acquire(&e->ring_epoch);
  uint32_t depth = mcx_load_relaxed(&e->depth);
  uint32_t idx = mcx__ep_idx(d, e);
  mcx__ring_view_t v = mcx__ring_of(d, idx, 0, depth); /* checks depth: shared memory is input */
  mcx__epc_t *c = &mcx__self.epc[h & (MCX_EPC_N - 1)];
  c->state = mcx__ep_sc(st);
  c->own = mcx__ep_is_mine(e) ? mcx__ep_sc(st) : MCX_EPC_EMPTY;
  mcx__self.msg_lim = d->g.max_msg < MCX_SLOT_INLINE ? d->g.max_msg : MCX_SLOT_INLINE;
  c->ngen = 0 - ((uint64_t)(epoch & MCX_RING_GEN_MASK) << MCX_RING_GEN_SHIFT);
  c->v = v; /* its pool; its ring is the resolved priority's (epc_set_prio) */
  c->mask = v.mask;
  c->ep = e;
  c->intent = mcx__self.intent;
  c->ring0 = (uint8_t *)v.ring;
  c->slots0 = (uint8_t *)v.slots;
  c->slot_step = (size_t)d->g.qcap * sizeof(mcx__msg_slot_t);
  c->tag0 = v.tag;
  epc_set_prio(c, MCX_EPC_NOPRIO);
  c->handle = h;
  return c;
}
