/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Channels: the connection (docs/channels.md; the state word is described
 * in chan.h). The channel region's layout in the partition, connect, open,
 * close and tear-down, the endpoint's view of its channel, the checks of a
 * handle against its connection, and the channel cache's fill.
 *
 * A CLOSED side does not rejoin its connection: an open issued on it waits
 * for the tear-down, then for the next connection (as an open issued before
 * any connection does). A close does not wait for held packets: a pool
 * buffer comes back to the pool when released; a record with held slots is
 * not reconnected until they are released (or their holder is gone:
 * chan_buf.c).
 */
#include "runtime/chan.h"
#include "runtime/domain.h"
#include "runtime/endpoint.h"
#include "runtime/msg_pmq.h"
#include "runtime/request.h"

#include "transport/buf_pool.h"

/* The canonical (spec-form) handle of a side of a connection. */
static uint32_t canon_handle(uint32_t type, uint32_t dir, uint32_t gen, uint32_t rec)
{
  return mcx__chan_kind(type) << 30 | dir << 29 | (gen & 0x7fffu) << 12 | (rec + 1);
}

/* ---- layout */

static size_t align_up(size_t v, size_t a) { return (v + a - 1) & ~(a - 1); }
static uint32_t pow2_at_least(uint32_t v)
{
  uint32_t p = 2;
  while (p < v)
    p <<= 1;
  return p;
}

size_t mcx__chan_layout(size_t off, uint32_t max_eps, uint32_t qcap, mcx__chan_layout_t *l)
{
  size_t pool_align = MCAPI_BUF_ALIGN > 4096 ? MCAPI_BUF_ALIGN : 4096;
  l->n = max_eps; /* every live record has a connected endpoint */
  l->cap = qcap;
  /* Released buffers a channel keeps for its sender; more go to the pool. */
  l->rcap = pow2_at_least(2 * qcap);
  l->nbufs = MCAPI_MAX_BUFFERS;
  l->stride = (uint32_t)align_up(MCAPI_MAX_PKT_SIZE ? MCAPI_MAX_PKT_SIZE : 1, MCAPI_BUF_ALIGN);
  /* Colour: an odd number of alignment units apart, so consecutive buffers
   * start in different cache sets. */
  if ((l->stride / MCAPI_BUF_ALIGN) % 2 == 0)
    l->stride += MCAPI_BUF_ALIGN;
  l->off_chans = align_up(off, 4096);
  off = l->off_chans + sizeof(mcx__chan_area_t) + (size_t)l->n * sizeof(mcx__chan_t);
  /* The rings: each record's data ring (a line per slot: packet slots hold
   * their inline bytes; a scalar ring uses the first quarter, four slots to
   * a line), then each record's return ring. A record's data ring spans a
   * power of two, so a pointer into a slot gives its record and slot by
   * shifts (mcx__kept_slot_of, chan_pkt.h). */
  l->off_slots = align_up(off, 4096);
  off = l->off_slots + (size_t)l->n * l->cap * sizeof(mcx__pkt_slot_t) +
        (size_t)l->n * l->rcap * sizeof(mcx__spsc_slot_t);
  /* The pool: header line, buffer states (u64), links (u32), then buffers. */
  l->off_pool_meta = align_up(off, 4096);
  off = l->off_pool_meta + sizeof(mcx__pool_hdr_t) + (size_t)l->nbufs * (8 + 4);
  l->off_pools = align_up(off, pool_align);
  off = l->off_pools + (size_t)l->nbufs * l->stride;
  return align_up(off, 4096);
}

void mcx__chan_attach(mcx__domain_t *d)
{
  const mcx__geom_t *g = &d->g; /* the layout in process memory (mcx__take_geometry) */
  mcx__pool_locate(d->base, g->off_pkt_meta, g->n_pkt_bufs, &d->pkt_pool, &d->pkt_state);
  d->pkt_bufs = d->base + g->off_chan_pools;
  d->pkt_stride = g->pkt_stride;
  d->pkt_recip = mcx__recip_of(g->pkt_stride, (uint64_t)g->n_pkt_bufs * g->pkt_stride);
  d->pslots = d->base + g->off_chan_slots;
  d->pslot_span = (size_t)g->n_chans * g->chan_cap * sizeof(mcx__pkt_slot_t);
  d->pslot_rec_shift = (uint32_t)__builtin_ctzll((uint64_t)g->chan_cap * sizeof(mcx__pkt_slot_t));
}

void mcx__chan_init_pool(uint8_t *base, const mcx__chan_layout_t *l)
{
  mcx__pool_view_t v;
  mcx_atomic_u64 *state;
  mcx__pool_locate(base, l->off_pool_meta, l->nbufs, &v, &state);
  mcx__pool_init(&v);
  /* No slot owns a buffer yet (published with the partition). */
  mcx_store_relaxed(&((mcx__chan_area_t *)(base + l->off_chans))->owned, 0);
}

void mcx__chan_layout_store(mcx__part_hdr_t *h, const mcx__chan_layout_t *l)
{
  h->off_chans = l->off_chans;
  h->off_chan_slots = l->off_slots;
  h->off_chan_pools = l->off_pools;
  h->off_pkt_meta = l->off_pool_meta;
  h->n_pkt_bufs = l->nbufs;
  h->n_chans = l->n;
  h->chan_cap = l->cap;
  h->chan_rcap = l->rcap;
  h->pkt_stride = l->stride;
}

/* ---- the endpoint's view of its channel (its chan word: W_* in chan.h) */

static uint32_t ep_word(uint32_t type, uint32_t flags, uint32_t rec_plus1)
{
  return type | flags << 8 | rec_plus1 << 16;
}
static uint32_t dir_flag(uint32_t dir)
{
  return dir == MCX_CHAN_SEND ? MCX_CHW_SEND : MCX_CHW_RECV;
}

uint32_t mcx__chan_ep_status(const mcx__domain_t *d, uint32_t w)
{
  if (!w)
    return 0;
  uint32_t f = W_FLAGS(w);
  uint32_t dir = (f & MCX_CHW_RECV) ? MCX_CHAN_RECV : MCX_CHAN_SEND;
  uint32_t out = dir == MCX_CHAN_SEND ? MCAPI_ENDP_STATUS_SEND_SIDE : MCAPI_ENDP_STATUS_RECV_SIDE;
  if (!W_REC(w))
    return out | ((f & MCX_CHW_OPEN_PENDING) ? MCAPI_ENDP_STATUS_OPEN_PENDING : 0);
  out |= MCAPI_ENDP_STATUS_CONNECTED;
  if (W_REC(w) > d->g.n_chans)
    return out; /* a corrupt word (shared memory is input): no record to read */
  /* Relaxed: a snapshot for an attribute read. */
  uint32_t s = mcx_load_relaxed(&mcx__chan_at(d, W_REC(w) - 1)->state);
  switch (ST_SIDE(s, dir)) {
  case S_OPENP:
    return out | MCAPI_ENDP_STATUS_OPEN_PENDING;
  case S_OPEN:
    return out | MCAPI_ENDP_STATUS_OPEN;
  case S_CLOSEP:
    return out | MCAPI_ENDP_STATUS_CLOSE_PENDING;
  default: /* closed (an open may wait for the next connection) */
    return out | ((f & MCX_CHW_OPEN_PENDING) ? MCAPI_ENDP_STATUS_OPEN_PENDING : 0);
  }
}

/* A connect, open or close happened: its waiters (requests, opens) and
 * the data calls blocked on @p ch (when one) look again. */
static void announce(mcx__domain_t *d, mcx__chan_t *ch)
{
  mcx__wp_notify(&mcx__chan_area(d)->ctl, d->shared);
  if (ch) {
    /* Blocked data calls re-check the state when woken. */
    mcx__wp_notify(&ch->recv_wp, d->shared);
    mcx__wp_notify(&ch->space_wp, d->shared);
  }
}

/* ---- connect */

/* Checks one endpoint word for connect: 0 or a matching pending open. */
static int connectable(uint32_t w, uint32_t type, uint32_t dir)
{
  if (!w)
    return MCX_OK;
  if (W_REC(w))
    return MCX_ECHAN;
  if (W_TYPE(w) != type)
    return MCX_ECHTYPE;
  if (!(W_FLAGS(w) & dir_flag(dir)))
    return MCX_ECHDIR;
  return MCX_OK;
}

int mcx__chan_connect(uint32_t send_ep, uint32_t recv_ep, uint32_t type)
{
  mcx__domain_t *d = mcx__self.dom;
  mcx__endpoint_t *e[2];
  int r = MCX_OK;
  if (mcx__admin_lock_bounded(d) != MCX_OK)
    return MCX_EIO;
  if ((r = mcx__ep_resolve(d, send_ep, &e[MCX_CHAN_SEND])) ||
      (r = mcx__ep_resolve(d, recv_ep, &e[MCX_CHAN_RECV])))
    goto out;
  if (send_ep == recv_ep) {
    r = MCX_EINVAL;
    goto out;
  }
  uint32_t w[2];
  for (uint32_t dir = 0; dir < 2; dir++) {
    w[dir] = mcx_load_relaxed(&e[dir]->chan); /* written under admin only */
    if ((r = connectable(w[dir], type, dir)))
      goto out;
  }
  mcx__chan_t *ch = NULL;
  uint32_t idx, st = 0;
  for (idx = 0; idx < d->g.n_chans; idx++) {
    st = mcx_load_relaxed(&mcx__chan_at(d, idx)->state); /* LIVE is set under admin only */
    if (!(st & (ST_LIVE | ST_RETIRED)) && !mcx__chan_holds_kept(d, mcx__chan_at(d, idx))) {
      ch = mcx__chan_at(d, idx);
      break;
    }
  }
  if (!ch) {
    r = MCX_ENOMEM;
    goto out;
  }
  uint32_t gen = ST_GEN(st) ? ST_GEN(st) : 1;
  uint32_t depth = mcx_load_relaxed(&e[MCX_CHAN_RECV]->depth); /* NUM_RECV_BUFFERS */
  if (depth < 2 || depth > d->g.chan_cap || (depth & (depth - 1)))
    depth = d->g.chan_cap; /* a corrupt attribute: the layout's depth */
  uint32_t nbuf = depth < PMQ_CHAN_BUFS ? depth : PMQ_CHAN_BUFS;
  uint32_t cap = depth;
  mcx_store_relaxed(&ch->type, type); /* the configuration is published by R-C1 */
  mcx_store_relaxed(&ch->mask, cap - 1);
  mcx_store_relaxed(&ch->nbuf, nbuf);
  for (uint32_t dir = 0; dir < 2; dir++) {
    mcx_store_relaxed(&ch->ep[dir], dir == MCX_CHAN_SEND ? send_ep : recv_ep);
    mcx_store_relaxed(&ch->owner[dir], mcx_load_relaxed(&e[dir]->owner_slot));
  }
  mcx_store_relaxed(&ch->held, 0);
  for (uint32_t b = 0; b < PMQ_CHAN_BUFS; b++)
    mcx_store_relaxed(&ch->buf[b], B_FREE);
  mcx__spsc_view_t dv = mcx__chan_data_view(d, ch), rv = mcx__chan_ret_view(d, ch);
  if (type == MCAPI_SCL_CHAN)
    mcx__scl_init(&dv); /* its own word encoding (spsc_ring.h) */
  else
    mcx__pkt_init(&dv); /* no slot owns a buffer (tear-down returned them) */
  mcx__spsc_init(&rv);
  if (d->transport == MCX_TRANSPORT_PMQ_) {
    /* The endpoints carry no message while connected: their empty queues are
     * given up first (made again by a message use after the tear-down), so a
     * connection costs one queue of the user's RLIMIT_MSGQUEUE, not three. */
    for (uint32_t dir = 0; dir < 2; dir++)
      mcx__msg_pmq_park(d, e[dir], mcx__ep_idx(d, e[dir]));
    /* The connection's queue is made here, once, exclusively (O_EXCL), before
     * anything is published: no side ever takes an existing object for it. */
    mcx__pmq_chan_t c = mcx__chan_pmq(d, ch, gen << 16);
    if ((r = mcx__pmq_chan_create(d->pmq, &c)) != MCX_OK)
      goto out;
  }
  st = gen << 16 | ST_LIVE;
  for (uint32_t dir = 0; dir < 2; dir++)
    if (w[dir]) /* an open was issued before the connection: it is pending now */
      st = ST_WITH(st, dir, S_OPENP);
  /* R-C1 — release: configuration and reset rings before the record reads as
   * LIVE with this generation; pairs with A-C1 (every handle check) and A-C2
   * (open progress through the endpoint word). */
  mcx_store_release(&ch->state, st);
  for (uint32_t dir = 0; dir < 2; dir++) {
    mcx_store_relaxed(&e[dir]->ref_closed, 0);
    /* R-C2 — release: the record before the endpoint names it; pairs with A-C2. */
    mcx_store_release(&e[dir]->chan, ep_word(type, dir_flag(dir), idx + 1));
  }
out:
  mcx__admin_unlock(d);
  if (!r)
    announce(d, NULL);
  return r;
}

/* ---- tear-down (admin lock held; both sides IDLE or GONE) */

static void teardown_locked(mcx__domain_t *d, mcx__chan_t *ch, uint32_t st)
{
  uint32_t idx = mcx__chan_idx(d, ch);
  if (d->transport != MCX_TRANSPORT_PMQ_ && mcx_load_relaxed(&ch->type) == MCAPI_PKT_CHAN)
    mcx__chan_return_buffers_locked(d, ch, ST_SIDE(st, MCX_CHAN_RECV) == S_GONE);
  for (uint32_t dir = 0; dir < 2; dir++) {
    mcx__endpoint_t *e;
    uint32_t eh = mcx_load_relaxed(&ch->ep[dir]);
    uint32_t w;
    if (mcx__ep_resolve(d, eh, &e) == MCX_OK && W_REC(w = mcx_load_relaxed(&e->chan)) == idx + 1) {
      /* mca-2.0.3: a closed channel's handle keeps saying "not open". */
      mcx_store_relaxed(&e->ref_closed, w & 0xffffu & ~(MCX_CHW_OPEN_PENDING << 8));
      /* R-C2: a message endpoint again, or one whose open waits for the next connection. */
      mcx_store_release(&e->chan, (W_FLAGS(w) & MCX_CHW_OPEN_PENDING) ? w & 0xffffu : 0);
    }
  }
  if (d->transport == MCX_TRANSPORT_PMQ_) {
    mcx__pmq_chan_t c = mcx__chan_pmq(d, ch, st);
    /* Unlinks the connection's queue; the receiver's local copies it still
     * holds stay until released. A-B2: pairs with R-B2 (release). */
    mcx__pmq_chan_destroy(d->pmq, &c, mcx_load_acquire(&ch->held) != 0);
  }
  uint32_t gen = (ST_GEN(st) + 1) & 0x7fffu;
  uint32_t retired = !gen && d->compat != MCX_COMPAT_MCA203_ ? ST_RETIRED : 0;
  if (retired)
    MCX_DEBUG(1, "domain %u: channel record %u retired (its generations are used up)",
              d->domain_id, mcx__chan_idx(d, ch));
  /* R-C3 — release: the record is free, with a new generation (old handles go
   * stale); pairs with A-C1. */
  mcx_store_release(&ch->state, retired | (gen ? gen : 1) << 16);
}

void mcx__chan_ep_gone(mcx__domain_t *d, uint32_t ep_idx)
{
  mcx__endpoint_t *e = &mcx__eps(d)[ep_idx];
  uint32_t w = mcx_load_relaxed(&e->chan);
  if (!W_REC(w))
    return; /* message endpoint or an open still waiting for a connection */
  if (W_REC(w) > d->g.n_chans) { /* corrupt (shared memory is input) */
    MCX_DEBUG(1, "endpoint %u: corrupt channel word %#x cleared", ep_idx, w);
    mcx_store_release(&e->chan, 0);
    return;
  }
  mcx__chan_t *ch = mcx__chan_at(d, W_REC(w) - 1);
  uint32_t dir = (W_FLAGS(w) & MCX_CHW_RECV) ? MCX_CHAN_RECV : MCX_CHAN_SEND;
  uint32_t st = mcx_load_acquire(&ch->state);
  for (;;) {
    if (QUIET(ST_SIDE(st, !dir))) {
      teardown_locked(d, ch, st);
      break;
    }
    /* Acq_rel: the peer sees GONE with everything we did before. */
    if (mcx_cas_acq_rel(&ch->state, &st, ST_WITH(st, dir, S_GONE)))
      break;
  }
  if (W_REC(w)) {
    MCX_DEBUG(1, "endpoint %u left its channel at finalize", ep_idx);
  }
  announce(d, ch);
}

bool mcx__chan_ep_side_quiet(const mcx__domain_t *d, uint32_t ep_idx)
{
  const mcx__endpoint_t *e = &mcx__eps(d)[ep_idx];
  uint32_t w = mcx_load_relaxed(&e->chan); /* admin lock held: connect and open change it there */
  if (!W_REC(w) || W_REC(w) > d->g.n_chans)
    return false; /* not connected (an open waiting for a connection), or corrupt */
  const mcx__chan_t *ch = mcx__chan_at(d, W_REC(w) - 1);
  uint32_t dir = (W_FLAGS(w) & MCX_CHW_RECV) ? MCX_CHAN_RECV : MCX_CHAN_SEND;
  uint32_t st = mcx_load_acquire(&ch->state); /* A-C1 */
  return (st & ST_LIVE) && QUIET(ST_SIDE(st, dir));
}

/* ---- open */

int mcx__chan_open_start(uint32_t eh, uint32_t type, uint32_t dir)
{
  mcx__domain_t *d = mcx__self.dom;
  mcx__endpoint_t *e;
  int r = mcx__ep_resolve(d, eh, &e);
  if (r)
    return r;
  if (!mcx__ep_is_mine(e))
    return MCX_EPERM;
  if (mcx__admin_lock_bounded(d) != MCX_OK)
    return MCX_EIO;
  mcx__chan_t *ch = NULL;
  uint32_t w = mcx_load_relaxed(&e->chan); /* under admin */
  if (!mcx__ep_still(d, eh, e)) {
    r = MCX_ESTALE;
  } else if (!w) {
    /* Not connected yet: the open waits for the connection. */
    mcx_store_release(&e->chan, ep_word(type, MCX_CHW_OPEN_PENDING | dir_flag(dir), 0));
  } else if (W_TYPE(w) != type) {
    r = MCX_ECHTYPE;
  } else if (!(W_FLAGS(w) & dir_flag(dir))) {
    r = MCX_ECHDIR;
  } else if (!W_REC(w)) {
    r = MCX_EOPENP;
  } else if (W_REC(w) > d->g.n_chans) {
    r = MCX_EIO; /* a corrupt word (shared memory is input) */
  } else {
    ch = mcx__chan_at(d, W_REC(w) - 1);
    uint32_t st = mcx_load_acquire(&ch->state); /* A-C1 */
    for (;;) {
      uint32_t own = ST_SIDE(st, dir);
      if (own == S_OPENP) {
        r = MCX_EOPENP;
      } else if (own == S_OPEN) {
        r = MCX_EISOPEN;
      } else if (own == S_CLOSEP) {
        r = MCX_ECLOSEP;
      } else if (own == S_CLOSED) {
        if (W_FLAGS(w) & MCX_CHW_OPEN_PENDING)
          r = MCX_EOPENP;
        else /* wait for the tear-down and the next connection */
          mcx_store_release(&e->chan, w | MCX_CHW_OPEN_PENDING << 8);
      } else if (!mcx_cas_acq_rel(&ch->state, &st, ST_WITH(st, dir, S_OPENP))) {
        continue; /* the peer changed its side; st reloaded */
      }
      break;
    }
  }
  mcx__admin_unlock(d);
  if (!r)
    announce(d, ch);
  return r;
}

/* An open whose peer went away before opening: the side goes back to IDLE
 * and, the peer being GONE, the connection is torn down, so the endpoint is
 * free for a new connection (not left connected and open-pending). */
static void abandon_open(mcx__domain_t *d, mcx__chan_t *ch, uint32_t dir, uint32_t gen)
{
  if (mcx__admin_lock_bounded(d) != MCX_OK)
    return; /* the next finalize or sweep frees it */
  uint32_t st = mcx_load_acquire(&ch->state); /* A-C1 */
  while ((st & ST_LIVE) && ST_GEN(st) == gen && ST_SIDE(st, dir) == S_OPENP) {
    uint32_t idle = ST_WITH(st, dir, S_IDLE);
    if (QUIET(ST_SIDE(st, !dir))) {
      teardown_locked(d, ch, idle);
      break;
    }
    /* Acq_rel: as every side change. */
    if (mcx_cas_acq_rel(&ch->state, &st, idle))
      break;
  }
  mcx__admin_unlock(d);
  announce(d, ch);
}

int mcx__chan_open_progress(uint32_t eh, uint32_t type, uint32_t dir, uint32_t *handle)
{
  mcx__domain_t *d = mcx__self.dom;
  mcx__endpoint_t *e;
  if (mcx__ep_resolve(d, eh, &e))
    return MCX_ECLOSED;
again:;
  /* A-C2 — acquire: pairs with R-C2 (connect): the record is initialized. */
  uint32_t w = mcx_load_acquire(&e->chan);
  if (!W_REC(w))
    return W_FLAGS(w) & MCX_CHW_OPEN_PENDING ? MCX_EAGAIN : MCX_ENOTOPEN;
  if (W_REC(w) > d->g.n_chans)
    return MCX_EIO; /* a corrupt word (shared memory is input) */
  mcx__chan_t *ch = mcx__chan_at(d, W_REC(w) - 1);
  uint32_t st = mcx_load_acquire(&ch->state); /* A-C1 */
  for (;;) {
    uint32_t own = ST_SIDE(st, dir), peer = ST_SIDE(st, !dir);
    if ((st & ST_LIVE) && own == S_CLOSED && (W_FLAGS(w) & MCX_CHW_OPEN_PENDING))
      return MCX_EAGAIN; /* waits for the next connection */
    /* Opened already, by a data call of a 1.0 program on the endpoint's
     * handle (mcapi1.c: mcx1_side) or by this request's other progress: a
     * side has one open at a time, so the open is this one. */
    if ((st & ST_LIVE) && own == S_OPEN && mcx_load_acquire(&e->chan) == w) /* A-C2 */
      break;
    if (!(st & ST_LIVE) || own != S_OPENP) {
      /* A tear-down between our two reads rewrites the endpoint's word (R-C2)
       * before it frees the record (R-C3): a word that moved on means this
       * state belongs to the old connection, so look again. Each retry needs
       * another tear-down or connect. */
      if (mcx_load_acquire(&e->chan) != w) /* A-C2 */
        goto again;
      return MCX_ENOTOPEN; /* closed or finalized meanwhile */
    }
    /* Opens are synchronizing: wait until the other side has opened too (it
     * may have opened, sent and closed already: its packets are queued). The
     * reference completes an open once the endpoint is connected: programs
     * open both sides one after the other from one thread. */
    if (peer == S_GONE) {
      if (!(st & ST_WAS_OPEN(!dir)))
        abandon_open(d, ch, dir, ST_GEN(st)); /* it never opened: nothing to drain */
      return MCX_ECLOSED;
    }
    if (peer != S_OPENP && peer != S_OPEN && !(st & ST_WAS_OPEN(!dir)) &&
        d->compat != MCX_COMPAT_MCA203_) {
      /* A peer whose node died before it opened never will: the sweep takes
       * its side away (GONE), and the next pass says so. */
      if (!mcx__node_alive(d, mcx_load_relaxed(&ch->owner[!dir])) && mcx__sweep_dead(d)) {
        st = mcx_load_acquire(&ch->state); /* A-C1 */
        continue;
      }
      /* The side's handle is known with its channel: written now, the value
       * the completion writes, for programs that use it before the open
       * completes (MCAPI 1.0 code written for OpenMCAPI); its data calls
       * say CHAN_OPENPENDING meanwhile. */
      *handle = canon_handle(type, dir, ST_GEN(st), mcx__chan_idx(d, ch));
      return MCX_EAGAIN;
    }
    /* Acq_rel: the OPEN side's later data calls follow the peer's open. */
    if (mcx_cas_acq_rel(&ch->state, &st, ST_WITH(st, dir, S_OPEN) | ST_WAS_OPEN(dir)))
      break;
  }
  /* mca-2.0.3: the channel handle is the endpoint's own. */
  *handle = d->compat == MCX_COMPAT_MCA203_
                ? eh
                : canon_handle(type, dir, ST_GEN(st), mcx__chan_idx(d, ch));
  announce(d, ch);
  return MCX_OK;
}

/* A cancelled open (request.c) leaves no trace: an endpoint not connected
 * is a message endpoint again, one whose open waited for the next
 * connection waits no more, and an open-pending side is IDLE again
 * (connected, not open: it may open, or be deleted, as before the open). */
void mcx__chan_open_withdraw(uint32_t eh, uint32_t dir)
{
  mcx__domain_t *d = mcx__self.dom;
  mcx__endpoint_t *e;
  if (mcx__ep_resolve(d, eh, &e) || mcx__admin_lock_bounded(d) != MCX_OK)
    return; /* deleted meanwhile, or no admin lock: as before */
  mcx__chan_t *ch = NULL;
  uint32_t w = mcx_load_relaxed(&e->chan); /* under admin */
  bool mine = W_FLAGS(w) & dir_flag(dir); /* else nothing of the open is left */
  if (mine && (W_FLAGS(w) & MCX_CHW_OPEN_PENDING)) {
    /* R-C2: a message endpoint again, or no longer waiting for the next connection */
    mcx_store_release(&e->chan, W_REC(w) ? w & ~(MCX_CHW_OPEN_PENDING << 8) : 0);
  } else if (mine && W_REC(w) && W_REC(w) <= d->g.n_chans) {
    ch = mcx__chan_at(d, W_REC(w) - 1);
    uint32_t st = mcx_load_acquire(&ch->state); /* A-C1 */
    /* Acq_rel: as every side change. */
    while ((st & ST_LIVE) && ST_SIDE(st, dir) == S_OPENP &&
           !mcx_cas_acq_rel(&ch->state, &st, ST_WITH(st, dir, S_IDLE)))
      ;
  }
  mcx__admin_unlock(d);
  announce(d, ch);
}

/* ---- handle checks */

#define MCX_CHAN_ANY 2u /* resolve_side: the side the endpoint is on */
/* resolve_side's checks of the record @p ch that the handle names, side
 * @p hdir, connection generation @p gen. */
CHAN_FAST int side_checks(mcx__chan_t *ch, uint32_t hdir, uint32_t gen, uint32_t type,
                          uint32_t dir, mcx__chan_t **out, uint32_t *st, uint32_t *side)
{
  /* A-C1 — acquire: the configuration and rings of this generation are
   * visible; pairs with R-C1 (connect) and R-C3 (tear-down). */
  uint32_t s = mcx_load_acquire(&ch->state);
  if (!(s & ST_LIVE) || ST_GEN(s) != gen)
    return MCX_EBADCH;
  if (mcx_load_relaxed(&ch->owner[hdir]) != mcx__self.node_slot)
    return MCX_EBADCH; /* another node's handle */
  if (dir != MCX_CHAN_ANY && hdir != dir)
    return MCX_ECHDIR;
  if (mcx_load_relaxed(&ch->type) != type)
    return MCX_ECHTYPE;
  *out = ch;
  *st = s;
  if (side)
    *side = hdir;
  return MCX_OK;
}

/* resolve_side in the mca-2.0.3 profile, whose channel handle is the local
 * endpoint's. Out of line: the spec profile's checks then call nothing. */
static __attribute__((noinline)) int ref_resolve_side(const mcx__domain_t *d, uint32_t handle,
                                                      uint32_t type, uint32_t dir,
                                                      mcx__chan_t **out, uint32_t *st,
                                                      uint32_t *side)
{
  mcx__endpoint_t *e;
  if (mcx__ep_resolve(d, handle, &e) || !mcx__ep_is_mine(e))
    return MCX_EBADCH;
  /* A-C2 — acquire: pairs with R-C2 (connect): the record is initialized. */
  uint32_t w = mcx_load_acquire(&e->chan);
  if (!W_REC(w) || W_REC(w) > d->g.n_chans) {
    /* Never connected: not a channel. Connected once, both sides closed
     * since: the reference keeps the handle, which says "not open". */
    uint32_t c = mcx_load_relaxed(&e->ref_closed);
    return c && W_TYPE(c) == type ? MCX_ENOTOPEN : MCX_EBADCH;
  }
  if (W_TYPE(w) != type)
    return MCX_ECHTYPE;
  mcx__chan_t *ch = mcx__chan_at(d, W_REC(w) - 1);
  uint32_t hdir = (W_FLAGS(w) & MCX_CHW_RECV) ? MCX_CHAN_RECV : MCX_CHAN_SEND;
  uint32_t gen = ST_GEN(mcx_load_acquire(&ch->state)); /* A-C1 */
  return side_checks(ch, hdir, gen, type, dir, out, st, side);
}

/* Resolves a handle: the record, its state (A-C1), or why not. @p dir is
 * the side the call is for; MCX_CHAN_ANY (a close in the mca-2.0.3 profile)
 * takes the side the endpoint is on, returned in *side. */
static int resolve_side(const mcx__domain_t *d, uint32_t handle, uint32_t type, uint32_t dir,
                        mcx__chan_t **out, uint32_t *st, uint32_t *side)
{
  if (d->compat == MCX_COMPAT_MCA203_)
    return ref_resolve_side(d, handle, type, dir, out, st, side);
  uint32_t idx = mcx__h_idx(handle);
  if (mcx__h_kind(handle) != mcx__chan_kind(type) || idx >= d->g.n_chans)
    return MCX_EBADCH; /* not a handle of this channel type */
  uint32_t gen = H_GEN(handle);
  if (gen == 0 || (handle >> 12 & 0x1ffffu) > 0x7fffu)
    return MCX_EBADCH;
  return side_checks(mcx__chan_at(d, idx), H_DIR(handle), gen, type, dir, out, st, side);
}

static int resolve(const mcx__domain_t *d, uint32_t handle, uint32_t type, uint32_t dir,
                   mcx__chan_t **out, uint32_t *st)
{
  return resolve_side(d, handle, type, dir, out, st, NULL);
}

int mcx__chan_resolve_open(const mcx__domain_t *d, uint32_t handle, uint32_t type, uint32_t dir,
                           mcx__chan_t **out, uint32_t *st)
{
  int r = resolve(d, handle, type, dir, out, st);
  if (r)
    return r;
  switch (ST_SIDE(*st, dir)) {
  case S_OPEN:
    return MCX_OK;
  case S_OPENP:
    return MCX_EOPENP;
  default:
    return MCX_ENOTOPEN;
  }
}

/* ---- close */

int mcx__chan_close_start(uint32_t handle, uint32_t type, uint32_t dir, uint32_t *canon)
{
  mcx__domain_t *d = mcx__self.dom;
  mcx__chan_t *ch;
  uint32_t st;
  /* mca-2.0.3 closes whichever side the handle's endpoint is on. */
  int r = resolve_side(d, handle, type, d->compat == MCX_COMPAT_MCA203_ ? MCX_CHAN_ANY : dir, &ch,
                       &st, &dir);
  if (r)
    return r;
  uint32_t gen = ST_GEN(st);
  for (;;) {
    uint32_t own = ST_SIDE(st, dir);
    if (own == S_CLOSEP)
      return MCX_ECLOSEP;
    if (own != S_OPEN && own != S_OPENP)
      return MCX_ENOTOPEN;
    /* Acq_rel: the peer sees the close after our last data call. */
    if (mcx_cas_acq_rel(&ch->state, &st, ST_WITH(st, dir, S_CLOSEP)))
      break;
    if (!(st & ST_LIVE) || ST_GEN(st) != gen)
      return MCX_EBADCH;
  }
  *canon = canon_handle(type, dir, gen, mcx__chan_idx(d, ch));
  announce(d, ch);
  return MCX_OK;
}

int mcx__chan_close_progress(uint32_t handle)
{
  mcx__domain_t *d = mcx__self.dom;
  uint32_t dir = H_DIR(handle); /* a canonical handle from close_start */
  uint32_t gen = H_GEN(handle);
  if (mcx__h_idx(handle) >= d->g.n_chans)
    return MCX_EBADCH;
  mcx__chan_t *ch = mcx__chan_at(d, mcx__h_idx(handle));
  /* A receiver's close does not wait for the buffers it holds: they go back
   * to the pool when released (spec: pending packets are discarded). pmq:
   * the buffers are the receiver's local copies; the record is not
   * reconnected and the copies stay valid until released
   * (mcx__chan_holds_kept, mcx__pmq_chan_destroy). */
  uint32_t st = mcx_load_acquire(&ch->state); /* A-C1 */
  for (;;) {
    if (!(st & ST_LIVE) || ST_GEN(st) != gen || ST_SIDE(st, dir) != S_CLOSEP)
      return MCX_EBADCH;
    if (QUIET(ST_SIDE(st, !dir))) {
      /* Both sides done: tear the connection down. Under admin, so no open
       * slips in between the check and the endpoints' reset. */
      if (mcx__admin_lock_bounded(d) != MCX_OK)
        return MCX_EIO;
      st = mcx_load_acquire(&ch->state);
      int done = (st & ST_LIVE) && ST_GEN(st) == gen && ST_SIDE(st, dir) == S_CLOSEP &&
                 QUIET(ST_SIDE(st, !dir));
      if (done)
        teardown_locked(d, ch, st);
      mcx__admin_unlock(d);
      if (done)
        break;
      continue;
    }
    /* A peer whose node died stays OPEN until a sweep: sweep now, so the
     * connection is torn down by this close instead of at some later
     * node's initialize. */
    if (!mcx__node_alive(d, mcx_load_relaxed(&ch->owner[!dir])) && mcx__sweep_dead(d)) {
      st = mcx_load_acquire(&ch->state); /* A-C1 */
      continue;
    }
    if (mcx_cas_acq_rel(&ch->state, &st, ST_WITH(st, dir, S_CLOSED)))
      break;
  }
  announce(d, ch);
  return MCX_OK;
}

/* ---- leaving a closed side (MCAPI 1.0's close, mcapi1.c) */

void mcx__chan_leave(uint32_t handle)
{
  mcx__domain_t *d = mcx__self.dom;
  uint32_t dir = H_DIR(handle); /* a canonical handle from close_start */
  if (mcx__h_idx(handle) >= d->g.n_chans || mcx__admin_lock_bounded(d) != MCX_OK)
    return; /* the side stays closed, its endpoint connected: the 2.x rule */
  mcx__chan_t *ch = mcx__chan_at(d, mcx__h_idx(handle));
  uint32_t st = mcx_load_acquire(&ch->state); /* A-C1 */
  mcx__endpoint_t *e;
  uint32_t w;
  /* Still this connection with our side closed (a tear-down, under admin
   * too, has already freed the endpoint otherwise), and the endpoint's word
   * still names the record and this side. */
  if ((st & ST_LIVE) && ST_GEN(st) == H_GEN(handle) && ST_SIDE(st, dir) == S_CLOSED &&
      mcx__ep_resolve(d, mcx_load_relaxed(&ch->ep[dir]), &e) == MCX_OK &&
      W_REC(w = mcx_load_relaxed(&e->chan)) == mcx__h_idx(handle) + 1 &&
      (W_FLAGS(w) & dir_flag(dir))) {
    /* As at a tear-down: mca-2.0.3's closed handle keeps saying "not open",
     * and R-C2 — release: a message endpoint again (pairs with A-C2). The
     * record stays LIVE, our side CLOSED, until the peer closes: its tear-down
     * finds no endpoint of ours naming the record and leaves this one be. */
    mcx_store_relaxed(&e->ref_closed, w & 0xffffu & ~(MCX_CHW_OPEN_PENDING << 8));
    mcx_store_release(&e->chan, 0);
  }
  mcx__admin_unlock(d);
  announce(d, ch);
}

int mcx__chan_side_of_ep(uint32_t eh, uint32_t type, uint32_t *canon, uint32_t *dir)
{
  mcx__domain_t *d = mcx__self.dom;
  mcx__endpoint_t *e;
  if (mcx__ep_resolve(d, eh, &e) || !mcx__ep_is_mine(e))
    return MCX_EBADCH;
  for (;;) {
    /* A-C2 — acquire: pairs with R-C2 (connect): the record is initialized. */
    uint32_t w = mcx_load_acquire(&e->chan);
    if (!w || W_TYPE(w) != type)
      return MCX_EBADCH; /* no side of a channel of this type */
    *dir = (W_FLAGS(w) & MCX_CHW_RECV) ? MCX_CHAN_RECV : MCX_CHAN_SEND;
    if (!W_REC(w))
      return (W_FLAGS(w) & MCX_CHW_OPEN_PENDING) ? MCX_EOPENP : MCX_EBADCH;
    if (W_REC(w) > d->g.n_chans)
      return MCX_EIO; /* a corrupt word (shared memory is input) */
    uint32_t st = mcx_load_acquire(&mcx__chan_at(d, W_REC(w) - 1)->state); /* A-C1 */
    /* A tear-down rewrites the word (R-C2) before it frees the record (R-C3):
     * an unchanged word means this generation is the word's connection's. */
    if (mcx_load_acquire(&e->chan) == w) { /* A-C2 */
      *canon = canon_handle(type, *dir, ST_GEN(st), W_REC(w) - 1);
      return MCX_OK;
    }
  }
}

/* ---- the channel cache's fill (the cache: chan.h) */

/* The checks of mcx__chan_resolve_open() and of the peer's side
 * (mcx__chan_peer_alive) on one read of the state word, for a spec-profile
 * channel of a lock-free shm domain: its record and state word, or NULL. */
static mcx__chan_t *cacheable_side(const mcx__domain_t *d, uint32_t handle, uint32_t type,
                              uint32_t dir, uint32_t *st)
{
  uint32_t idx = mcx__h_idx(handle);
  if (!d || !d->fastpath || d->compat != MCX_COMPAT_SPEC_ ||
      mcx__h_kind(handle) != mcx__chan_kind(type) || H_DIR(handle) != dir ||
      idx >= d->g.n_chans || ((handle >> 12) & 0x1ffffu) - 1 >= 0x7fffu)
    return NULL;
  mcx__chan_t *ch = mcx__chan_at(d, idx);
  /* A-C1 — acquire: the configuration and rings of this generation are
   * visible; pairs with R-C1 (connect) and R-C3 (tear-down). */
  uint32_t s = mcx_load_acquire(&ch->state);
  uint32_t peer = ST_SIDE(s, !dir);
  if (!(s & ST_LIVE) || ST_GEN(s) != H_GEN(handle) || ST_SIDE(s, dir) != S_OPEN ||
      (peer != S_OPEN && peer != S_OPENP) ||
      mcx_load_relaxed(&ch->owner[dir]) != mcx__self.node_slot ||
      mcx_load_relaxed(&ch->type) != type)
    return NULL;
  *st = s;
  return ch;
}

void mcx__chc_init(mcx__domain_t *d, struct mcx__chc *c)
{
  for (uint32_t i = 0; i < MCX_CHC_N; i++) {
    c[i].handle = c[i].state = MCX_EPC_EMPTY;
    c[i].ch = mcx__chan_at(d, 0); /* any valid address: the state never matches */
  }
}

size_t mcx__chc_size(void) { return MCX_CHC_N * sizeof(struct mcx__chc); }

void mcx__chc_refill(uint32_t handle, uint32_t type, uint32_t dir)
{
  const mcx__domain_t *d = mcx__self.fast;
  /* Only a handle of the call's kind and end enters its table (mcx__chc_entry);
   * a thread off the fast paths has the empty tables, never written. */
  if (!d || (handle >> 29) != (mcx__chan_kind(type) << 1 | dir) ||
      mcx__self.chc[0] == mcx__chc_none)
    return;
  uint32_t st;
  mcx__chan_t *ch = cacheable_side(d, handle, type, dir, &st);
  if (!ch)
    return;
  struct mcx__chc *c = mcx__chc_entry(handle, type, dir);
  c->state = st;
  c->ch = ch;
  c->v = mcx__chan_data_view_at(d, ch, mcx__h_idx(handle), type);
  c->rv = mcx__chan_ret_view_at(d, ch, mcx__h_idx(handle));
  c->handle = handle;
}

/* ---- queries */

int mcx__chan_available(uint32_t handle, uint32_t type, uint32_t *count)
{
  mcx__domain_t *d = mcx__self.dom;
  mcx__chan_t *ch;
  uint32_t st;
  int r = mcx__chan_resolve_open(d, handle, type, MCX_CHAN_RECV, &ch, &st);
  if (r)
    return r;
  if (d->transport == MCX_TRANSPORT_PMQ_) {
    mcx__pmq_chan_t c = mcx__chan_pmq(d, ch, st);
    return mcx__pmq_chan_count(d->pmq, &c, count);
  }
  mcx__spsc_view_t v = mcx__chan_data_view_at(d, ch, mcx__chan_idx(d, ch), type);
  mcx__glock(d);
  *count = type == MCAPI_PKT_CHAN ? mcx__pkt_count(&v) : mcx__scl_count(&v);
  mcx__gunlock(d);
  return MCX_OK;
}

mcx__waitpoint_t *mcx__chan_waitpoint(const mcx__req_args_t *a)
{
  mcx__domain_t *d = mcx__self.dom;
  if (a->kind == REQ_PKT_SEND || a->kind == REQ_PKT_RECV) {
    mcx__chan_t *ch;
    uint32_t st, dir = a->kind == REQ_PKT_SEND ? MCX_CHAN_SEND : MCX_CHAN_RECV;
    if (resolve(d, a->ep, MCAPI_PKT_CHAN, dir, &ch, &st))
      return NULL;
    return dir == MCX_CHAN_SEND ? &ch->space_wp : &ch->recv_wp;
  }
  return &mcx__chan_area(d)->ctl; /* connect, open, close */
}
