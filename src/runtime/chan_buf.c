/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Packet channels' pool buffers (shm transport): the domain's pool
 * (buf_pool.h) lends buffers two ways.
 *
 * Owned by a slot (spec profile, a packet larger than a slot's inline
 * bytes): the slot takes one from the pool the first time a large packet
 * passes through it and keeps it while the connection lasts, so no pool
 * word or return ring moves per packet. The buffer's state word says which
 * record, slot and generation own it (PO_WORD); sender, receiver and
 * release check it before they use the index. Owned buffers go back to the
 * pool at tear-down (or, for a slot still held then, at its release) and by
 * the sweep; at most half the pool is owned (OWN_BUDGET), the rest serves
 * the per-item path.
 *
 * Per item (the mca-2.0.3 profile, every packet; the spec profile, a large
 * packet whose slot cannot get a buffer): the sender takes one for the
 * packet (one the receiver released to the channel's return ring, else one
 * of the pool), the receiver holds it (PB_WORD) until its release gives it
 * back to the channel or the pool.
 *
 * Here: taking a buffer for a send, and what the tear-down and the dead-node
 * sweep return. The data path's use of them is chan_pkt.c's.
 */
#include "runtime/chan.h"
#include "runtime/domain.h"

#include "transport/buf_pool.h"

int mcx__chan_take_buffer(const mcx__domain_t *d, mcx__chan_t *ch, uint32_t *b)
{
  mcx__spsc_view_t rv = mcx__chan_ret_view(d, ch);
  uint32_t meta;
  uint64_t v;
  for (int i = 0;; i++) {
    /* A2 of the return ring: the receiver's last reads of the buffer (before
     * its release, R1 of the return ring) happen before we overwrite it. */
    mcx__q_outcome_t o = mcx__spsc_get(&rv, 0, &meta, &v);
    if (o == MCX_Q_OK) {
      if (v >= d->pkt_pool.n)
        continue; /* corrupt index from shared memory: skip it */
      *b = (uint32_t)v;
      return MCX_OK;
    }
    if (o != MCX_Q_EMPTY_BUT_PRODUCER_INSERTING || i == BUT_RETRIES)
      break;
    mcx_port_cpu_relax();
  }
  /* Out of buffers when the pool is empty too: every buffer is held by a
   * receiver or queued (MEM_LIMIT, as the reference reports it). */
  int r = mcx__pool_get(&d->pkt_pool, b);
  if (r == MCX_OK)
    return r;
  /* Unless a receiver died holding them: they come back to the pool by the
   * sweep, which also takes a dead peer's side away (then NOTOPEN). Only a
   * try of the control-plane lock: we may hold the global lock (taken after
   * it elsewhere). */
  if (mcx__any_dead_node(d) && mcx__sweep_dead_try((mcx__domain_t *)(uintptr_t)d)) {
    if (!mcx__chan_peer_alive(ch, MCX_CHAN_SEND))
      return MCX_ENOTOPEN;
    r = mcx__pool_get(&d->pkt_pool, b);
  }
  return r;
}

/* A buffer for a slot of @p ch to own, within OWN_BUDGET: one the receiver
 * released to the channel (a packet it detached, chan_pkt.c), else one of
 * the pool (mcx__chan_take_buffer); an error when the budget or the buffers
 * are used up (the caller takes the per-item path). */
int mcx__chan_own_take(const mcx__domain_t *d, mcx__chan_t *ch, uint32_t *b)
{
  mcx_atomic_u32 *n = &mcx__chan_area(d)->owned;
  /* Relaxed: a count, not an order (the buffer's is the pool's A-P2). Read
   * first, so a spent budget costs no locked instruction per packet. */
  if (mcx_load_relaxed(n) >= OWN_BUDGET(d->pkt_pool.n))
    return MCX_ENOMEM;
  int r = MCX_ENOMEM;
  if (mcx_fetch_add_relaxed(n, 1) >= OWN_BUDGET(d->pkt_pool.n) ||
      (r = mcx__chan_take_buffer(d, ch, b))) {
    mcx_fetch_sub_relaxed(n, 1);
    return r;
  }
  return MCX_OK;
}

void mcx__chan_own_return(const mcx__domain_t *d, uint32_t b)
{
  mcx_store_relaxed(&d->pkt_state[b], 0); /* published by R-P2 */
  mcx__pool_put(&d->pkt_pool, b);         /* R-P2: our last use before its reuse */
  mcx_fetch_sub_relaxed(&mcx__chan_area(d)->owned, 1);
}

/* Tear-down and sweep (admin lock held; no data call runs on the ring):
 * every buffer owned by a slot of record @p ch goes back to the pool,
 * except one whose slot a receiver still holds (its release returns it).
 * By the buffers' state words, so a buffer taken by a sender that died
 * before it published the item comes back too. Returns how many. */
static uint32_t return_owned(const mcx__domain_t *d, mcx__chan_t *ch)
{
  uint32_t rec = mcx__chan_idx(d, ch), n = 0, cap = d->g.chan_cap;
  mcx__spsc_view_t v = mcx__chan_data_view_at(d, ch, rec, MCAPI_PKT_CHAN);
  for (uint32_t b = 0; b < d->pkt_pool.n; b++) {
    uint64_t w = mcx_load_relaxed(&d->pkt_state[b]);
    if (!PO_IS(w) || PO_LINE(w) / cap != rec)
      continue;
    if ((PO_LINE(w) & (cap - 1)) <= v.mask) {
      mcx__spsc_slot_t *s = mcx__spsc_at(&v, PO_LINE(w) & (cap - 1));
      /* A-O1 — acquire: pairs with R2-K (a release that did not take the
       * admin lock): the holder's reads of the buffer happen before the
       * pool hands it out again. */
      uint32_t sw = mcx_load_acquire(&s->word);
      if ((sw & 3u) == MCX_SPSC_RECEIVED && s->value == (MCX_PKT_OWNS | b))
        continue; /* held: its release returns it (chan_pkt.c, release_owning) */
    }
    mcx__chan_own_return(d, b);
    n++;
  }
  return n;
}

/* Frees every kept slot of record @p ch, whose holder is gone (admin lock
 * held; no data call runs on the ring); returns how many. */
static uint32_t free_kept_all(const mcx__domain_t *d, mcx__chan_t *ch)
{
  uint32_t n = 0;
  mcx__spsc_view_t v = mcx__chan_data_view_at(d, ch, mcx__chan_idx(d, ch), MCAPI_PKT_CHAN);
  for (uint32_t k = 0; k <= v.mask; k++) {
    mcx__spsc_slot_t *s = mcx__spsc_at(&v, k);
    uint32_t w = mcx_load_relaxed(&s->word); /* its holder is gone */
    if (mcx__pkt_is_kept(w, s)) {
      mcx__pkt_free_kept(s, (w >> 2) + v.mask + 1);
      n++;
    }
  }
  return n;
}

/* Record @p ch (not live) still has slots whose bytes a receiver holds: a
 * connect passes it over until they are released (or their holder is gone:
 * mcx__chan_reclaim_buffers_locked frees them). */
bool mcx__chan_holds_kept(const mcx__domain_t *d, mcx__chan_t *ch)
{
  if (mcx_load_relaxed(&ch->type) != MCAPI_PKT_CHAN)
    return false;
  if (d->transport == MCX_TRANSPORT_PMQ_)
    /* The receiver's local copies outlive the connection until released
     * (chan_pmq.c): the record's buffer words are theirs until then, unless
     * the receiver is gone. A-B2: pairs with R-B2 (release). */
    return mcx_load_acquire(&ch->held) != 0 &&
           mcx__node_alive(d, mcx_load_relaxed(&ch->owner[MCX_CHAN_RECV]));
  mcx__spsc_view_t v = mcx__chan_data_view_at(d, ch, mcx__chan_idx(d, ch), MCAPI_PKT_CHAN);
  for (uint32_t i = 0; i <= v.mask; i++) {
    mcx__spsc_slot_t *s = mcx__spsc_at(&v, i);
    if (mcx__pkt_is_kept(mcx_load_relaxed(&s->word), s))
      return true;
  }
  return false;
}

/* Packets still queued and buffers the receiver released to the channel go
 * back to the domain's pool (both sides are quiet: no data call runs on the
 * rings). Indices come from shared memory: checked. */
static void return_queued(mcx__domain_t *d, mcx__chan_t *ch)
{
  mcx__spsc_view_t v[2] = {mcx__chan_data_view_at(d, ch, mcx__chan_idx(d, ch), MCAPI_PKT_CHAN),
                           mcx__chan_ret_view(d, ch)};
  for (int k = 0; k < 2; k++) {
    uint32_t meta;
    uint64_t b;
    mcx__spsc_slot_t *at;
    for (uint32_t n = 0; n <= v[k].mask; n++) {
      mcx__q_outcome_t o = k == 0 ? mcx__pkt_take(&v[k], &meta, &b, &at)
                                  : mcx__spsc_get(&v[k], 0, &meta, &b);
      if (o != MCX_Q_OK)
        break;
      if (k == 0 && mcx__pkt_kept(b)) /* never handed out: not held (return_owned: its buffer) */
        mcx__pkt_free_kept(at, (mcx_load_relaxed(&at->word) >> 2) + v[k].mask + 1);
      else if (b < d->pkt_pool.n)
        mcx__pool_put(&d->pkt_pool, (uint32_t)b);
    }
  }
}

void mcx__chan_return_buffers_locked(mcx__domain_t *d, mcx__chan_t *ch, bool recv_gone)
{
  return_queued(d, ch);
  /* Slots whose bytes the receiver holds stay its own (a connect passes
   * the record over) until released, unless it is gone (finalized or
   * dead): then they are free now. */
  if (recv_gone)
    free_kept_all(d, ch);
  return_owned(d, ch);
}

void mcx__chan_reclaim_buffers_locked(mcx__domain_t *d, uint32_t slot)
{
  uint32_t n = 0;
  /* Slots whose bytes it held, on connections already torn down (its
   * sides went away first): free, so a connect may take the record again. */
  for (uint32_t i = 0; i < d->g.n_chans && d->transport != MCX_TRANSPORT_PMQ_; i++) {
    mcx__chan_t *ch = mcx__chan_at(d, i);
    if ((mcx_load_relaxed(&ch->state) & ST_LIVE) || mcx_load_relaxed(&ch->type) != MCAPI_PKT_CHAN ||
        mcx_load_relaxed(&ch->owner[MCX_CHAN_RECV]) != slot)
      continue;
    n += free_kept_all(d, ch);
    n += return_owned(d, ch);
  }
  for (uint32_t b = 0; b < d->pkt_pool.n; b++) {
    uint64_t w = mcx_load_relaxed(&d->pkt_state[b]); /* its holder is dead */
    if ((w & 1) && PB_SLOT(w) == slot) {
      mcx_store_relaxed(&d->pkt_state[b], 0);
      mcx__pool_put(&d->pkt_pool, b);
      n++;
    }
  }
  if (n)
    MCX_DEBUG(1, "returned %u packet buffers held by dead node slot %u", n, slot);
}
