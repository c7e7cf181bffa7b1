/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Packet channels: the slow paths of the send, the receive and the release
 * (their fast paths: chan_pkt.h), the attempts the requests make, and
 * release_test.
 *
 * Packet rings have a line per slot (pkt_ring.h): a packet of up to
 * MCX_PKT_INLINE bytes is copied into its slot, the receiver gets a pointer
 * to the slot's bytes and its release frees the slot; slots the receiver
 * holds are passed over by the sender, so holding never stops the channel.
 * A larger packet goes into a pool buffer that its slot owns (spec profile)
 * and is kept as a small one: slot RECEIVED until the release, value
 * MCX_PKT_OWNS | buffer. The per-item path (the mca-2.0.3 profile, every
 * packet; the spec profile, a large packet whose slot cannot get a buffer)
 * copies into a pool buffer whose index travels in the slot (meta = size);
 * the take frees the slot, the receiver gets a pointer into the pool
 * (zero-copy), and its release returns the buffer to the sender on the
 * channel's return ring (the receiver is its producer), or to the pool
 * when the receiver's side is no longer open. Such buffers are not bound
 * to a channel: a receiver may hold as many as the pool has. The buffers'
 * bookkeeping: chan_buf.c.
 */
#include <stdlib.h>
#include <string.h>

#include "runtime/chan_pkt.h"
#include "runtime/domain.h"

#include "transport/buf_pool.h"

/* A packet of @p size travels in its slot: it fits, and the profile is not
 * mca-2.0.3 (which counts every packet against the one pool of
 * MCAPI_MAX_BUFFERS, as the reference does). */
CHAN_FAST bool pkt_in_slot(const mcx__domain_t *d, size_t size)
{
  return size <= MCX_PKT_INLINE && d->compat != MCX_COMPAT_MCA203_;
}

/* This thread's claims (chan_pkt.h). */
MCX_TLS mcx__pkt_claim_t mcx__claims[MCX_PKT_CLAIMS];

/* This thread's claim on send side @p handle, or NULL. */
static mcx__pkt_claim_t *claim_of(uint32_t handle)
{
  for (uint32_t i = 0; i < MCX_PKT_CLAIMS; i++)
    if (mcx__claims[i].kind && mcx__claims[i].handle == handle)
      return &mcx__claims[i];
  return NULL;
}

/* A free entry of this thread's claims, or NULL. */
static mcx__pkt_claim_t *claim_free(void)
{
  for (uint32_t i = 0; i < MCX_PKT_CLAIMS; i++)
    if (!mcx__claims[i].kind)
      return &mcx__claims[i];
  return NULL;
}

/* ---- sending */

/* Reserves the data ring's next slot, retrying at once (a bounded number of
 * times) while the receiver is still reading the item it held. */
CHAN_FAST mcx__q_outcome_t reserve_retrying(const mcx__spsc_view_t *v)
{
  mcx__q_outcome_t o;
  for (int i = 0;; i++) {
    o = mcx__pkt_reserve(v);
    if (o != MCX_Q_FULL_BUT_CONSUMER_READING || i == BUT_RETRIES)
      return o;
    mcx_port_cpu_relax();
  }
}


/* pkt_fill's per-item path (every packet of the mca-2.0.3 profile; a large
 * one whose slot has no buffer): out of line, so the common paths stay small. */
static __attribute__((noinline)) int pkt_fill_item(const mcx__domain_t *d, mcx__chan_t *ch,
                                                   const mcx__spsc_view_t *v,
                                                   const mcx__spsc_view_t *rv, const void *src,
                                                   size_t size)
{
  uint32_t b, meta;
  uint64_t rb;
  /* A2 of the return ring: pairs with R1 in the release. */
  if (rv && mcx__spsc_get(rv, 0, &meta, &rb) == MCX_Q_OK && rb < d->pkt_pool.n) {
    b = (uint32_t)rb;
  } else {
    int r = mcx__chan_take_buffer(d, ch, &b); /* also drops a corrupt index; the pool, the sweep */
    if (r) {
      mcx__spsc_unreserve(v);
      return r;
    }
  }
  if (size <= MCX_SLOT_INLINE)
    mcx__copy_small(mcx__pkt_buf(d, b), src, size);
  else
    memcpy(mcx__pkt_buf(d, b), src, size);
  mcx__pkt_commit(v, (uint32_t)size, b);
  return MCX_OK;
}

/* A packet into the slot reserved in @p v (connection generation @p gen):
 * its bytes into the slot (small, spec profile), into the buffer the slot
 * owns (large, spec profile: taken from the pool the first time, kept for
 * later laps) or into a buffer for this packet only, then the commit (R1:
 * the bytes, and the owned buffer's state word, travel with it). A buffer
 * for one packet is one the receiver gave back on the return ring (@p rv,
 * the cached entry's view, tried inline first) or mcx__chan_take_buffer's.
 * On a failure the reservation is undone and that status returned. */
static inline __attribute__((always_inline)) int pkt_fill(const mcx__domain_t *d,
                                                          mcx__chan_t *ch,
                                                          const mcx__spsc_view_t *v,
                                                          const mcx__spsc_view_t *rv,
                                                          uint32_t gen, const void *src,
                                                          size_t size)
{
  uint32_t pos = v->ring->tail; /* producer-owned */
  mcx__spsc_slot_t *s = mcx__pkt_at(v, pos);
  uint64_t x = s->value; /* our own write of an earlier lap: the slot's buffer */
  if (pkt_in_slot(d, size)) {
    mcx__copy_small(mcx__pkt_bytes(s), src, size);
    /* A slot that owns a buffer keeps it. */
    mcx__pkt_commit(v, (uint32_t)size, mcx__pkt_kept(x) ? x : MCX_PKT_KEEP);
    return MCX_OK;
  }
  uint32_t b;
  if (d->compat != MCX_COMPAT_MCA203_) {
    uint64_t own = PO_WORD(mcx__pslot_line(d, s), gen);
    b = mcx__owned_buf(d, x, own);
    if (b == UINT32_MAX) {
      int r = mcx__chan_own_take(d, ch, &b);
      if (r == MCX_OK) {
        mcx_store_relaxed(&d->pkt_state[b], own); /* published with the item (R1) */
      } else if (r != MCX_ENOMEM) { /* the sweep took the receiver's side away */
        mcx__spsc_unreserve(v);
        return r;
      } else {
        b = UINT32_MAX; /* mcx__chan_own_take may have written it */
      }
    }
    if (b != UINT32_MAX) {
      /* A1 (the reserve) ordered the receiver's reads of the buffer, before
       * its release (R2-K), before this copy. */
      if (size <= MCX_SLOT_INLINE)
        mcx__copy_small(mcx__pkt_buf(d, b), src, size);
      else
        memcpy(mcx__pkt_buf(d, b), src, size);
      mcx__pkt_commit(v, (uint32_t)size, MCX_PKT_OWNS | b);
      return MCX_OK;
    }
    /* No buffer for the slot: this packet takes the per-item path. */
  }
  return pkt_fill_item(d, ch, v, rv, src, size);
}

/* One packet into the data ring (global lock held in its modes): a slot,
 * then pkt_fill. */
CHAN_FAST int pkt_put(const mcx__domain_t *d, mcx__chan_t *ch, const mcx__spsc_view_t *v,
                      const mcx__xfer_t *a)
{
  if (reserve_retrying(v) != MCX_Q_OK) {
    /* A slot left RESERVED at the tail between calls is this node's claim
     * (the one producer): the send must not wait for it. Relaxed: our own
     * write. */
    uint32_t pos = v->ring->tail;
    if (mcx_load_relaxed(&mcx__pkt_at(v, pos)->word) == mcx__spsc_word(pos, MCX_SPSC_RESERVED))
      return MCX_EBUSY;
    return MCX_EAGAIN;
  }
  /* Relaxed: our side is open, so the generation is the handle's (A-C1 read it). */
  return pkt_fill(d, ch, v, NULL, ST_GEN(mcx_load_relaxed(&ch->state)), a->src, a->size);
}


/* One send attempt on a checked channel (mcx__chan_try_fn). */
static int send_attempt(const mcx__domain_t *d, mcx__chan_t *ch, void *arg)
{
  const mcx__xfer_t *a = arg;
  if (!mcx__chan_peer_alive(ch, MCX_CHAN_SEND))
    return MCX_ENOTOPEN;
  if (d->transport == MCX_TRANSPORT_PMQ_)
    return mcx__chan_pmq_send(d, ch, 1, a);
  mcx__spsc_view_t v = mcx__chan_data_view_at(d, ch, mcx__chan_idx(d, ch), MCAPI_PKT_CHAN);
  mcx__glock(d);
  int r = pkt_put(d, ch, &v, a);
  mcx__gunlock(d);
  if (r == MCX_OK)
    mcx__wp_notify(&ch->recv_wp, d->shared);
  return r;
}

/* The send on the cached entry of what the fast path passes over: a
 * packet larger than a slot's bytes, a slot that owns a buffer, a slot
 * past held ones (mcx__pkt_reserve). One try at the slot (no wait for a
 * reading consumer, unlike pkt_put's); false when it cannot (nothing
 * changed). */
static bool send_cached(const mcx__domain_t *d, uint32_t handle, const void *buf, size_t size)
{
  struct mcx__chc *c;
  mcx__chan_t *ch;
  if (size > MCAPI_MAX_PKT_SIZE ||
      !(c = mcx__chc_get(handle, MCAPI_PKT_CHAN, MCX_CHAN_SEND, &ch)) ||
      mcx__pkt_reserve(&c->v) != MCX_Q_OK ||
      pkt_fill(d, ch, &c->v, &c->rv, ST_GEN(c->state), buf, size) != MCX_OK)
    return false;
  mcx__notify_fast(&ch->recv_wp); /* F-W2 after R1 */
  return true;
}

static int send_slow(uint32_t handle, const void *buf, size_t size)
{
  /* mcx__self.fast: set wherever the node's cache can hit (domain.h). */
  const mcx__domain_t *d = mcx__self.fast;
  if (d && send_cached(d, handle, buf, size))
    return MCX_OK;
  if (!mcx__is_node())
    return MCX_ENODE;
  /* pmq: a claim is process memory, the queue no slot of it; the side is
   * the claim's until the commit all the same (on shm pkt_put finds the
   * claim's slot). */
  if (__builtin_expect(mcx__self.dom->transport == MCX_TRANSPORT_PMQ_, 0) && claim_of(handle))
    return MCX_EBUSY;
  mcx__xfer_t a = {.src = buf, .size = size};
  return mcx__chan_data_call(handle, MCAPI_PKT_CHAN, MCX_CHAN_SEND, size, send_attempt, &a, NULL);
}

int mcx__pkt_try_send(uint32_t handle, const void *buf, size_t size)
{
  mcx__domain_t *d = mcx__self.dom;
  mcx__chan_t *ch;
  uint32_t st;
  int r = mcx__chan_resolve_open(d, handle, MCAPI_PKT_CHAN, MCX_CHAN_SEND, &ch, &st);
  if (r)
    return r;
  if (size > MCAPI_MAX_PKT_SIZE) /* after the handle, as the spec orders the statuses */
    return MCX_EMSGSIZE;
  if (d->transport == MCX_TRANSPORT_PMQ_ && claim_of(handle))
    return MCX_EBUSY; /* the side is the claim's until the commit (shm: pkt_put says so) */
  mcx__xfer_t a = {.src = buf, .size = size};
  r = send_attempt(d, ch, &a);
  /* Out of buffers, or of slots, because the receiver died holding them
   * (or stopped taking packets): the sweep takes its side away and the retry
   * says CHAN_NOTOPEN. */
  if ((r == MCX_ENOMEM || r == MCX_EAGAIN) &&
      !mcx__node_alive(d, mcx_load_relaxed(&ch->owner[MCX_CHAN_RECV])) && mcx__sweep_dead(d))
    r = send_attempt(d, ch, &a);
  if (r == MCX_EAGAIN) {
    uint32_t timeout, fail;
    mcx__chan_ep_attrs(d, ch, MCX_CHAN_SEND, &timeout, &fail);
    if (fail)
      return MCX_ENOMEM;
  }
  return r;
}

/* ---- claim/commit sends (chan_pkt.h) */

/* The place of the packet in the slot reserved in @p v (connection
 * generation @p gen), as pkt_fill picks it, without the copy: the slot's
 * bytes, the buffer the slot owns (taken now when it owns none), or a
 * buffer for this packet, marked lent to our claim. Fills @p k but its
 * kind; on a failure the reservation is undone and that status returned. */
static int claim_place(const mcx__domain_t *d, mcx__chan_t *ch, const mcx__spsc_view_t *v,
                       uint32_t gen, size_t size, mcx__pkt_claim_t *k, uint32_t *kind)
{
  uint32_t pos = v->ring->tail; /* producer-owned */
  mcx__spsc_slot_t *s = mcx__pkt_at(v, pos);
  uint64_t x = s->value; /* our own write of an earlier lap: the slot's buffer */
  k->pos = pos;
  k->slot = s;
  k->fresh = 0;
  k->cap = (uint32_t)size;
  k->fast_min = UINT32_MAX;
  if (pkt_in_slot(d, size)) {
    *kind = CL_SLOT;
    k->ptr = mcx__pkt_bytes(s);
    if (mcx__pkt_kept(x))
      k->fast_min = 0; /* the slot's value stays: the commit's fast path may publish it */
    return MCX_OK;
  }
  uint32_t b;
  if (d->compat != MCX_COMPAT_MCA203_) {
    uint64_t own = PO_WORD(mcx__pslot_line(d, s), gen);
    b = mcx__owned_buf(d, x, own);
    if (b == UINT32_MAX) {
      int r = mcx__chan_own_take(d, ch, &b);
      if (r == MCX_OK) {
        /* Published with the item (R1); a sender that dies first leaves it
         * to the tear-down, which returns owned buffers by this word. */
        mcx_store_relaxed(&d->pkt_state[b], own);
        k->fresh = 1;
      } else if (r != MCX_ENOMEM) { /* the sweep took the receiver's side away */
        mcx__spsc_unreserve(v);
        return r;
      } else {
        b = UINT32_MAX;
      }
    }
    if (b != UINT32_MAX) {
      *kind = CL_OWNED;
      k->b = b;
      k->ptr = mcx__pkt_buf(d, b);
      if (!k->fresh) /* the slot's value names it already */
        k->fast_min = MCX_PKT_INLINE + 1;
      return MCX_OK;
    }
  }
  int r = mcx__chan_take_buffer(d, ch, &b); /* A2 of the return ring, or the pool's A-P2 */
  if (r) {
    mcx__spsc_unreserve(v);
    return r;
  }
  /* Ours (holder-owned word) until the commit clears it before R1; the
   * dead-node sweep and finalize return it by its slot. */
  mcx_store_relaxed(&d->pkt_state[b],
                    PB_WORD(mcx__self.node_slot, gen, mcx__chan_idx(d, ch)) | PB_CLAIM);
  *kind = CL_ITEM;
  k->b = b;
  k->ptr = mcx__pkt_buf(d, b);
  return MCX_OK;
}

/* What a claim attempt fills (mcx__chan_try_fn's arg: the xfer first). */
typedef struct {
  mcx__xfer_t a;
  mcx__pkt_claim_t *k;
  uint32_t kind;
} claim_arg_t;

/* One claim attempt on a checked channel (mcx__chan_try_fn). */
static int claim_attempt(const mcx__domain_t *d, mcx__chan_t *ch, void *arg)
{
  claim_arg_t *c = arg;
  if (!mcx__chan_peer_alive(ch, MCX_CHAN_SEND))
    return MCX_ENOTOPEN;
  if (d->transport == MCX_TRANSPORT_PMQ_) {
    /* No slot to lend: process memory, sent (copied) by the commit. */
    void *p = malloc(c->a.size ? c->a.size : 1);
    if (!p)
      return MCX_ENOMEM;
    c->k->ptr = p;
    c->k->cap = (uint32_t)c->a.size;
    c->k->fast_min = UINT32_MAX;
    c->kind = CL_PMQ;
    return MCX_OK;
  }
  mcx__spsc_view_t v = mcx__chan_data_view_at(d, ch, mcx__chan_idx(d, ch), MCAPI_PKT_CHAN);
  mcx__glock(d);
  /* Relaxed: our side is open, so the generation is the handle's (A-C1 read it). */
  int r = reserve_retrying(&v) == MCX_Q_OK
              ? claim_place(d, ch, &v, ST_GEN(mcx_load_relaxed(&ch->state)), c->a.size, c->k,
                            &c->kind)
              : MCX_EAGAIN;
  mcx__gunlock(d);
  return r;
}

/* The claim on the cached entry of the buffer the next slot owns already
 * (a packet larger than the slot's bytes, spec profile, lock-free shm),
 * into mcx__claims[0] as the fast path's; NULL when it cannot (nothing
 * changed). The first thing the slow path tries, as the send's
 * send_cached: no lock, no loop over the claims (a claim on the side
 * already holds its slot RESERVED: the word's test fails). */
static void *claim_owned_cached(const mcx__domain_t *d, uint32_t handle, size_t size)
{
  struct mcx__chc *c;
  mcx__chan_t *ch;
  mcx__pkt_claim_t *k = &mcx__claims[0];
  if (size <= MCX_PKT_INLINE || size > MCAPI_MAX_PKT_SIZE || k->kind ||
      !(c = mcx__chc_get(handle, MCAPI_PKT_CHAN, MCX_CHAN_SEND, &ch)))
    return NULL;
  mcx__spsc_view_t *v = &c->v;
  uint32_t pos = v->ring->tail; /* producer-owned */
  mcx__spsc_slot_t *s = mcx__pkt_at(v, pos);
  /* A1 (mcx__pkt_reserve's test): pairs with R2 in mcx__pkt_take, R2-K in
   * mcx__pkt_free_kept and R2-D in detach (the state word it rewrote, read
   * by mcx__owned_buf below); the holder's reads of the buffer are done. */
  if (mcx_load_acquire(&s->word) != mcx__spsc_word(pos, MCX_SPSC_FREE))
    return NULL;
  /* Our own write of an earlier lap; its state word names this slot and
   * connection while the slot owns it. */
  uint32_t b = mcx__owned_buf(d, s->value, PO_WORD(mcx__pslot_line(d, s), ST_GEN(c->state)));
  if (b == UINT32_MAX)
    return NULL;
  /* Relaxed: a hint for a polling consumer, as in mcx__pkt_reserve. */
  mcx_store_relaxed(&s->word, mcx__spsc_word(pos, MCX_SPSC_RESERVED));
  k->kind = CL_OWNED;
  k->fresh = 0;
  k->b = b;
  k->fast_min = MCX_PKT_INLINE + 1; /* the slot's value names it already */
  k->handle = handle;
  k->pos = pos;
  k->cap = (uint32_t)size;
  k->slot = s;
  return k->ptr = mcx__pkt_buf(d, b);
}

static int claim_slow(uint32_t handle, size_t size, void **out)
{
  const mcx__domain_t *fd = mcx__self.fast; /* set wherever the node's cache can hit */
  if (fd && (*out = claim_owned_cached(fd, handle, size)))
    return MCX_OK;
  if (!mcx__is_node())
    return MCX_ENODE;
  mcx__pkt_claim_t *k;
  if (claim_of(handle))
    return MCX_EBUSY;
  if (!(k = claim_free()))
    return MCX_ENOMEM;
  claim_arg_t c = {.a = {.size = size}, .k = k, .kind = 0};
  const mcx__domain_t *d = mcx__self.fast; /* set wherever the node's cache can hit */
  struct mcx__chc *e;
  mcx__chan_t *ch;
  int r = MCX_EAGAIN;
  /* The cached entry first (lock-free shm): one try at the slot. */
  if (d && size <= MCAPI_MAX_PKT_SIZE &&
      (e = mcx__chc_get(handle, MCAPI_PKT_CHAN, MCX_CHAN_SEND, &ch)) &&
      mcx__pkt_reserve(&e->v) == MCX_Q_OK)
    r = claim_place(d, ch, &e->v, ST_GEN(e->state), size, k, &c.kind);
  if (r != MCX_OK)
    r = mcx__chan_data_call(handle, MCAPI_PKT_CHAN, MCX_CHAN_SEND, size, claim_attempt, &c.a,
                            NULL);
  if (r != MCX_OK)
    return r;
  k->handle = handle;
  k->kind = c.kind;
  *out = k->ptr;
  return MCX_OK;
}

/* A buffer lent to claim @p b back to the pool, when it still is (its
 * word names our claim). */
static void item_return(mcx__domain_t *d, uint32_t b)
{
  uint64_t w = b < d->pkt_pool.n ? mcx_load_relaxed(&d->pkt_state[b]) : 0; /* holder-owned */
  if ((w & PB_CLAIM) && PB_SLOT(w) == mcx__self.node_slot) {
    mcx_store_relaxed(&d->pkt_state[b], 0); /* published by R-P2 */
    mcx__pool_put(&d->pkt_pool, b);         /* R-P2: our writes before its reuse */
  }
}

/* Whether claim @p k still holds its slot of @p v: the tail at the claim's
 * position, the slot RESERVED for it (the producer's own words). */
static bool claim_holds(const mcx__spsc_view_t *v, const mcx__pkt_claim_t *k)
{
  return v->ring->tail == k->pos &&
         mcx_load_relaxed(&k->slot->word) == mcx__spsc_word(k->pos, MCX_SPSC_RESERVED);
}

/* Ends claim @p k unsent. With @p ch (our side of its connection is open)
 * the slot is given back and a buffer taken for the claim with it; without
 * (the connection is gone: its tear-down reset the ring and returned the
 * buffers slots own) only a buffer still lent to the claim. */
static void claim_end(mcx__domain_t *d, mcx__pkt_claim_t *k, mcx__chan_t *ch)
{
  if (k->kind == CL_PMQ) {
    free(k->ptr);
  } else if (ch) {
    mcx__spsc_view_t v = mcx__chan_data_view_at(d, ch, mcx__chan_idx(d, ch), MCAPI_PKT_CHAN);
    mcx__glock(d);
    if (claim_holds(&v, k)) {
      if (k->kind == CL_OWNED && k->fresh)
        mcx__chan_own_return(d, k->b); /* the slot's value never named it */
      else if (k->kind == CL_ITEM)
        item_return(d, k->b);
      mcx__spsc_unreserve(&v);
    }
    mcx__gunlock(d);
  } else if (k->kind == CL_ITEM) {
    item_return(d, k->b);
  }
  k->kind = 0;
}

/* Publishes claim @p k (its slot reserved in @p v, the tail) with @p size
 * bytes at @p buf, by its kind (global lock held in its modes). */
static void claim_publish(const mcx__domain_t *d, const mcx__spsc_view_t *v,
                          const mcx__pkt_claim_t *k, const void *buf, size_t size)
{
  if (k->kind == CL_SLOT) {
    uint64_t x = k->slot->value; /* a slot that owns a buffer keeps it */
    mcx__pkt_commit(v, (uint32_t)size, mcx__pkt_kept(x) ? x : MCX_PKT_KEEP); /* R1 */
  } else if (k->kind == CL_OWNED) {
    /* A packet the slot's bytes hold travels there (the receive reads a
     * short kept packet from the slot); the slot keeps its buffer. */
    if (size <= MCX_PKT_INLINE)
      mcx__copy_small(mcx__pkt_bytes(k->slot), buf, size);
    mcx__pkt_commit(v, (uint32_t)size, MCX_PKT_OWNS | k->b); /* R1 */
  } else {
    /* Not ours before it is the item's: published by R1, the receiver's
     * take marks it its own. */
    mcx_store_relaxed(&d->pkt_state[k->b], 0);
    mcx__pkt_commit(v, (uint32_t)size, k->b); /* R1 */
  }
}

static int commit_slow(uint32_t handle, void *buf, size_t size)
{
  const mcx__domain_t *fd = mcx__self.fast; /* set wherever the node's cache can hit */
  mcx__pkt_claim_t *k = claim_of(handle);
  struct mcx__chc *e;
  mcx__chan_t *ch;
  /* The cached entry (lock-free shm): an unchanged state word is the
   * claim's connection, both sides open; the slot at the tail is the
   * claim's (only this thread produces). */
  if (fd && k && k->ptr == buf && size <= k->cap &&
      (e = mcx__chc_get(handle, MCAPI_PKT_CHAN, MCX_CHAN_SEND, &ch)) && e->v.ring->tail == k->pos) {
    claim_publish(fd, &e->v, k, buf, size); /* R1 */
    k->kind = 0;
    mcx__notify_fast(&ch->recv_wp); /* F-W2 after R1 */
    return MCX_OK;
  }
  if (!mcx__is_node())
    return MCX_ENODE;
  mcx__domain_t *d = mcx__self.dom;
  uint32_t st;
  int r = mcx__chan_resolve_open(d, handle, MCAPI_PKT_CHAN, MCX_CHAN_SEND, &ch, &st);
  if (r) {
    if (k && k->ptr == buf)
      claim_end(d, k, NULL); /* closed or gone: nothing is sent */
    return r;
  }
  if (!k || k->ptr != buf)
    return MCX_EBADBUF;
  if (size > k->cap)
    return MCX_EMSGSIZE; /* the claim stays */
  if (k->kind == CL_PMQ) {
    mcx__xfer_t a = {.src = buf, .size = size};
    r = mcx__chan_data_call(handle, MCAPI_PKT_CHAN, MCX_CHAN_SEND, size, send_attempt, &a, NULL);
    if (r == MCX_ETIMEDOUT || r == MCX_ENOMEM)
      return r; /* no room yet: the claim stays */
    claim_end(d, k, NULL);
    return r;
  }
  if (!mcx__chan_peer_alive(ch, MCX_CHAN_SEND)) {
    claim_end(d, k, ch); /* the receiver closed or is gone, as a send says */
    return MCX_ENOTOPEN;
  }
  mcx__spsc_view_t v = mcx__chan_data_view_at(d, ch, mcx__chan_idx(d, ch), MCAPI_PKT_CHAN);
  mcx__glock(d);
  if (__builtin_expect(!claim_holds(&v, k), 0)) {
    /* Shared memory is input: the slot is no longer the claim's. */
    mcx__gunlock(d);
    claim_end(d, k, NULL);
    return MCX_ENOTOPEN;
  }
  claim_publish(d, &v, k, buf, size); /* R1 */
  mcx__gunlock(d);
  k->kind = 0;
  mcx__wp_notify(&ch->recv_wp, d->shared);
  return MCX_OK;
}

int mcx__pkt_abandon(uint32_t handle, void *buf)
{
  if (!mcx__is_node())
    return MCX_ENODE;
  mcx__pkt_claim_t *k = claim_of(handle);
  if (!k || k->ptr != buf)
    return MCX_EBADBUF;
  mcx__domain_t *d = mcx__self.dom;
  mcx__chan_t *ch;
  uint32_t st;
  int r = mcx__chan_resolve_open(d, handle, MCAPI_PKT_CHAN, MCX_CHAN_SEND, &ch, &st);
  claim_end(d, k, r == MCX_OK ? ch : NULL);
  return MCX_OK;
}

void mcx__pkt_claim_drop(uint32_t handle)
{
  mcx__pkt_claim_t *k;
  if (mcx__is_node() && (k = claim_of(handle)))
    mcx__pkt_abandon(handle, k->ptr);
}

void mcx__pkt_claims_forget(void)
{
  for (uint32_t i = 0; i < MCX_PKT_CLAIMS; i++) {
    if (mcx__claims[i].kind == CL_PMQ)
      free(mcx__claims[i].ptr);
    mcx__claims[i].kind = 0;
  }
}

/* ---- receiving */

/* The slot before kept slot @p at (in ring order) is held by this
 * receiver: it holds packets one after the other. Relaxed: a hint only
 * (no data is read on its strength). */
CHAN_FAST int prev_held(const mcx__domain_t *d, mcx__chan_t *ch, const mcx__spsc_slot_t *at)
{
  /* spread 2: four slot structs to a line */
  const mcx__spsc_slot_t *prev = at - 4;
  if (!mcx__pslot_no(d, at)) /* the first slot: the one before is the ring's last */
    prev = at + (size_t)(mcx_load_relaxed(&ch->mask) & (d->g.chan_cap - 1)) * 4;
  return (mcx_load_relaxed(&prev->word) & 3u) == MCX_SPSC_RECEIVED;
}

/* Large packet in buffer @p b, owned by kept slot @p at, just taken by a
 * receiver that holds the slot before too: the buffer leaves the slot and
 * becomes this node's, held as a per-item one (its release returns it to
 * the channel or the pool); the slot is free at once. So holding large
 * packets never holds every slot (a held slot is followed by a free one):
 * the receiver may hold as many as the pool has, and the sender goes on,
 * as on the per-item path. The sender finds the slot's value naming a
 * buffer it no longer owns (mcx__owned_buf) and takes another. */
static __attribute__((noinline)) void detach(const mcx__domain_t *d, mcx__chan_t *ch, uint32_t st,
                                             mcx__spsc_slot_t *at, uint32_t b)
{
  uint32_t w = mcx_load_relaxed(&at->word); /* consumer-owned now */
  mcx_store_relaxed(&d->pkt_state[b],
                    PB_WORD(mcx__self.node_slot, ST_GEN(st), mcx__chan_idx(d, ch)));
  mcx_fetch_sub_relaxed(&mcx__chan_area(d)->owned, 1);
  mcx__glock(d); /* as every release: the lock-based modes' ring code runs under it */
  /* R2-D — release: the state word above before the sender reuses the
   * slot (it then reads the buffer as no longer the slot's); pairs with A1. */
  mcx__pkt_free_kept(at, (w >> 2) + (mcx_load_relaxed(&ch->mask) & (d->g.chan_cap - 1)) + 1);
  mcx__gunlock(d);
  mcx__wp_notify(&ch->space_wp, d->shared);
}

/* A packet taken off the data ring (slot @p at; value @p b: a buffer for
 * this packet, or kept (mcx__pkt_kept): bytes in the slot or in the buffer
 * the slot owns; @p meta bytes): checked, marked held by this node (a kept
 * slot is marked by its RECEIVED word), handed out. */
static inline __attribute__((always_inline)) int take_packet(const mcx__domain_t *d,
                                                             mcx__chan_t *ch, uint32_t st,
                                                             mcx__spsc_slot_t *at, uint64_t b,
                                                             uint32_t meta, void **out,
                                                             size_t *size)
{
  if (mcx__pkt_kept(b)) {
    uint32_t ob = UINT32_MAX;
    if (meta > MCX_PKT_INLINE && meta <= d->pkt_stride)
      ob = mcx__owned_buf(d, b, PO_WORD(mcx__pslot_line(d, at), ST_GEN(st)));
    if (__builtin_expect(meta > MCX_PKT_INLINE && ob == UINT32_MAX, 0)) {
      /* Shared memory is input: a size, or a buffer not owned by this slot,
       * that no sender could have written. The slot is freed (it was left
       * RECEIVED for a holder there is not); its value is the sender's. */
      MCX_DEBUG(1, "packet channel %u: corrupt slot (size %u, value %#llx) dropped",
                mcx__chan_idx(d, ch), meta, (unsigned long long)b);
      uint32_t w = mcx_load_relaxed(&at->word); /* consumer-owned now */
      mcx__glock(d); /* as every release: the lock-based modes' ring code runs under it */
      mcx__pkt_free_kept(at, (w >> 2) + (mcx_load_relaxed(&ch->mask) & (d->g.chan_cap - 1)) + 1);
      mcx__gunlock(d);
      mcx__wp_notify(&ch->space_wp, d->shared); /* a slot is free: as a release */
      return MCX_ECORRUPT;
    }
    if (ob != UINT32_MAX && __builtin_expect(prev_held(d, ch, at), 0))
      detach(d, ch, st, at, ob);
    *out = ob == UINT32_MAX ? mcx__pkt_bytes(at) : mcx__pkt_buf(d, ob);
    *size = meta;
    return MCX_OK;
  }
  if (__builtin_expect(b >= d->pkt_pool.n || meta > d->pkt_stride, 0)) {
    /* Shared memory is input: an index or size no sender could have written. */
    MCX_DEBUG(1, "packet channel %u: corrupt slot (buffer %llu, size %u) dropped",
              mcx__chan_idx(d, ch), (unsigned long long)b, meta);
    return MCX_ECORRUPT;
  }
  /* Holder-owned word: relaxed is enough for our own later release. */
  mcx_store_relaxed(&d->pkt_state[b],
                    PB_WORD(mcx__self.node_slot, ST_GEN(st), mcx__chan_idx(d, ch)));
  *out = mcx__pkt_buf(d, (uint32_t)b);
  *size = meta;
  return MCX_OK;
}

int mcx__pkt_recv_attempt(const mcx__domain_t *d, mcx__chan_t *ch, void *arg)
{
  mcx__xfer_t *a = arg;
  if (d->transport == MCX_TRANSPORT_PMQ_)
    return mcx__chan_pmq_recv(d, ch, 1, a);
  uint32_t meta = 0;
  uint64_t b = 0;
  mcx__spsc_slot_t *at = NULL;
  bool closed;
  mcx__q_outcome_t o = mcx__chan_get_or_closed(d, ch, 0, 0, &meta, &b, &at, &closed);
  if (o == MCX_Q_OK)
    return take_packet(d, ch, mcx_load_relaxed(&ch->state), at, b, meta, &a->out, &a->size);
  return closed ? MCX_ENOTOPEN : MCX_EAGAIN;
}

/* What a receive on the cached entry did. */
typedef enum { TAKE_NOTHING, TAKE_DONE, TAKE_DROPPED } take_t;

/* The receive on the cached entry of what the fast path passes over: a
 * packet in a buffer, skip marks; a corrupt item is taken and dropped. */
static take_t take_cached(const mcx__domain_t *d, uint32_t handle, void **buf, size_t *size)
{
  mcx__chan_t *ch;
  struct mcx__chc *c = mcx__chc_get(handle, MCAPI_PKT_CHAN, MCX_CHAN_RECV, &ch);
  uint32_t meta;
  uint64_t b;
  mcx__spsc_slot_t *at;
  if (!c || mcx__pkt_take(&c->v, &meta, &b, &at) != MCX_Q_OK)
    return TAKE_NOTHING;
  return take_packet(d, ch, c->state, at, b, meta, buf, size) == MCX_OK ? TAKE_DONE
                                                                           : TAKE_DROPPED;
}

static int recv_slow(uint32_t handle, void **buf, size_t *size)
{
  mcx__backoff_t b;
  b.begun = 0;
  const mcx__domain_t *d = mcx__self.fast; /* as in the send */
  if (d) {
    take_t t = take_cached(d, handle, buf, size);
    /* Nothing there: the wait's spin polls the slot the next packet
     * changes, then the cached receive again; the checked path below goes
     * on with the same wait (yield, then sleep). */
    if (t == TAKE_NOTHING && mcx__chan_poll_next(handle, MCAPI_PKT_CHAN, &b) &&
        (t = take_cached(d, handle, buf, size)) == TAKE_DONE)
      mcx__backoff_end(&b);
    if (t != TAKE_NOTHING)
      return t == TAKE_DONE ? MCX_OK : MCX_ECORRUPT;
  }
  if (!mcx__is_node())
    return MCX_ENODE;
  mcx__xfer_t a = {0};
  int r = mcx__chan_data_call(handle, MCAPI_PKT_CHAN, MCX_CHAN_RECV, 0, mcx__pkt_recv_attempt,
                              &a, &b);
  if (r == MCX_OK) {
    *buf = a.out;
    *size = a.size;
  }
  return r;
}

int mcx__pkt_try_recv(uint32_t handle, void **buf, size_t *size)
{
  mcx__domain_t *d = mcx__self.dom;
  mcx__chan_t *ch;
  uint32_t st;
  int r = mcx__chan_resolve_open(d, handle, MCAPI_PKT_CHAN, MCX_CHAN_RECV, &ch, &st);
  if (r)
    return r;
  mcx__xfer_t a = {0};
  r = mcx__pkt_recv_attempt(d, ch, &a);
  if (r == MCX_OK) {
    *buf = a.out;
    *size = a.size;
  }
  return r;
}

/* ---- releasing */

/* The buffer index of byte offset @p off (< the pool's span) when it is the
 * start of a buffer, else UINT32_MAX. */
CHAN_FAST uint32_t pkt_index(const mcx__domain_t *d, size_t off)
{
  return mcx__recip_index(off, d->pkt_recip, d->pkt_stride);
}

/* shm: the pool index of the buffer that starts at @p p, or UINT32_MAX. */
CHAN_FAST uint32_t pool_index_of(const mcx__domain_t *d, const void *p)
{
  uintptr_t u = (uintptr_t)p, base = (uintptr_t)d->pkt_bufs; /* NULL is below the pool */
  if (u - base >= (uintptr_t)d->pkt_pool.n * d->pkt_stride)
    return UINT32_MAX;
  return pkt_index(d, (size_t)(u - base)); /* UINT32_MAX: not a buffer's start */
}

/* shm: whether @p p is a pool buffer a packet receive of this node handed
 * out and it holds: its pool index and state word. Touches nothing. */
static bool pool_buffer_of(const mcx__domain_t *d, const void *p, uint32_t *b, uint64_t *w)
{
  *b = pool_index_of(d, p);
  if (*b == UINT32_MAX)
    return false;
  *w = mcx_load_relaxed(&d->pkt_state[*b]); /* holder-owned word */
  /* not held, held by another node, or lent to our own claim */
  return PB_HELD_RECV(*w, mcx__self.node_slot);
}

/* The channel a held buffer (state word @p w) came from while our receive
 * side of that connection is still open (we are then the only producer of
 * its return ring), else NULL; @p rec its record, when there is one. */
CHAN_FAST mcx__chan_t *held_chan_open(const mcx__domain_t *d, uint64_t w, uint32_t *rec)
{
  *rec = PB_REC(w);
  if (*rec >= d->g.n_chans)
    return NULL;
  mcx__chan_t *ch = mcx__chan_at(d, *rec);
  uint32_t st = mcx_load_acquire(&ch->state); /* A-C1 */
  if (!(st & ST_LIVE) || ST_GEN(st) != PB_GEN(w) || ST_SIDE(st, MCX_CHAN_RECV) != S_OPEN ||
      mcx_load_relaxed(&ch->owner[MCX_CHAN_RECV]) != mcx__self.node_slot)
    return NULL;
  return ch;
}


/* shm: pool buffer @p b, whose state word @p w says a slot owns it
 * (PO_WORD), as handed out by a packet receive of this node: the slot (held,
 * naming b), and the position a lap later that frees it; false when it is
 * not one. Everything read from the partition is checked; touches
 * nothing. */
CHAN_FAST bool owned_slot_of(const mcx__domain_t *d, uint32_t b, uint64_t w, mcx__chan_t **out,
                            mcx__spsc_slot_t **slot, uint32_t *next)
{
  /* The record by a shift, as mcx__kept_slot_of (chan_cap is a power of two). */
  uint32_t line = PO_LINE(w), k = line & (d->g.chan_cap - 1);
  uint32_t rec = (uint32_t)(((uint64_t)line * sizeof(mcx__pkt_slot_t)) >> d->pslot_rec_shift);
  if (w != PO_WORD(line, PO_GEN(w)) || rec >= d->g.n_chans)
    return false;
  mcx__chan_t *ch = mcx__chan_at(d, rec);
  if (mcx_load_relaxed(&ch->owner[MCX_CHAN_RECV]) != mcx__self.node_slot ||
      mcx_load_relaxed(&ch->type) != MCAPI_PKT_CHAN)
    return false; /* not a packet ring this node receives from */
  uint32_t mask = mcx_load_relaxed(&ch->mask) & (d->g.chan_cap - 1);
  mcx__spsc_slot_t *s =
      &((mcx__pkt_slot_t *)(uintptr_t)d->pslots + (size_t)rec * d->g.chan_cap + k)->s;
  /* Relaxed: a kept slot's word is the holder's until it frees it. */
  uint32_t sw = mcx_load_relaxed(&s->word);
  if ((sw & 3u) != MCX_SPSC_RECEIVED || s->value != (MCX_PKT_OWNS | b) || ((sw >> 2) & mask) != k)
    return false; /* not held (released already, or never handed out) */
  *out = ch;
  *slot = s;
  *next = (sw >> 2) + mask + 1;
  return true;
}

/* Our receive side of connection generation @p gen of @p ch is open: the
 * connection cannot be torn down before we close it (A-C1). */
CHAN_FAST bool recv_open_gen(const mcx__chan_t *ch, uint32_t gen)
{
  uint32_t st = mcx_load_acquire(&ch->state); /* A-C1 */
  return (st & ST_LIVE) && ST_GEN(st) == gen && ST_SIDE(st, MCX_CHAN_RECV) == S_OPEN;
}

/* Frees kept slot @p at of @p ch (for position @p next) whose value names a
 * buffer the slot owns. While our receive side is open the slot keeps the
 * buffer. After our close the tear-down returns it when the slot is free
 * by then; a tear-down that ran while we held the slot left it to us: it
 * goes back to the pool here. The two are told apart under the admin lock
 * (the tear-down's), so the buffer is returned exactly once. */
static int release_owning(mcx__domain_t *d, mcx__chan_t *ch, mcx__spsc_slot_t *at, uint32_t next)
{
  uint64_t x = at->value; /* held: the producer does not write it */
  uint32_t b = (uint32_t)x;
  uint64_t w = b < d->pkt_pool.n ? mcx_load_relaxed(&d->pkt_state[b]) : 0;
  int owns = PO_IS(w) && PO_LINE(w) == mcx__pslot_line(d, at);
  int locked = 0;
  if (owns && !recv_open_gen(ch, PO_GEN(w))) {
    if (mcx__admin_lock_bounded(d) != MCX_OK)
      return MCX_EIO; /* still held: a later release may succeed */
    locked = 1;
    uint32_t st = mcx_load_acquire(&ch->state); /* A-C1 */
    if (!(st & ST_LIVE) || ST_GEN(st) != PO_GEN(w))
      mcx__chan_own_return(d, b); /* torn down while held: ours to return (R-P2) */
  }
  mcx__glock(d); /* as every release: the lock-based modes' ring code runs under it */
  mcx__pkt_free_kept(at, next); /* R2-K */
  mcx__gunlock(d);
  if (locked)
    mcx__admin_unlock(d);
  mcx__wp_notify(&ch->space_wp, d->shared);
  return MCX_OK;
}

/* The release of what the fast path passes over, without a lock, while
 * our receive side of the packet's connection is open (shm, spec profile):
 * a slot that owns a buffer, a pool buffer held for one packet. False when
 * it cannot (nothing changed): the checked release says why. */
static bool release_unlocked(mcx__domain_t *d, void *buf)
{
  uint32_t b, rec;
  uint64_t w;
  mcx__chan_t *ch;
  mcx__spsc_slot_t *at;
  /* The reference profile's release (zeroed buffers, one pool) is the checked one's. */
  if (d->compat == MCX_COMPAT_MCA203_ || (b = pool_index_of(d, buf)) == UINT32_MAX)
    return false;
  w = mcx_load_relaxed(&d->pkt_state[b]);
  if (PO_IS(w)) {
    /* A buffer its slot owns: the slot freed (R2-K), the buffer stays the
     * slot's while our side is open; else release_owning decides. */
    uint32_t next;
    if (!owned_slot_of(d, b, w, &ch, &at, &next) || !recv_open_gen(ch, PO_GEN(w)))
      return false;
    mcx__pkt_free_kept(at, next); /* R2-K */
    mcx__notify_fast(&ch->space_wp); /* F-W2 after R2-K */
    return true;
  }
  if (!PB_HELD_RECV(w, mcx__self.node_slot) || !(ch = held_chan_open(d, w, &rec)))
    return false;
  /* Not ours before it is the channel's, as in release_checked: a node that
   * dies in between leaves it to neither the sweep nor the ring twice. */
  mcx_store_relaxed(&d->pkt_state[b], 0); /* holder-owned; a second release fails above */
  mcx__spsc_view_t rv = mcx__chan_ret_view_at(d, ch, rec);
  /* R1 of the return ring: our reads of the buffer before the sender reuses
   * it; pairs with A2 in mcx__chan_take_buffer. */
  if (mcx__spsc_put(&rv, 0, b) != MCX_Q_OK) {
    mcx_store_relaxed(&d->pkt_state[b], w); /* still ours: the checked release releases it */
    return false;
  }
  mcx__notify_fast(&ch->space_wp); /* F-W2 after R1 */
  return true;
}

/* The release with every check, in every mode, transport and profile. */
static int release_checked(mcx__domain_t *d, void *buf)
{
  if (d->transport == MCX_TRANSPORT_PMQ_)
    return mcx__chan_pmq_release(d, buf);
  uint32_t b;
  uint64_t w;
  mcx__chan_t *kc;
  mcx__spsc_slot_t *at;
  if (mcx__kept_slot_of(d, buf, &kc, &at, &b, &w)) {
    if (w != MCX_PKT_KEEP) /* the slot owns a buffer */
      return release_owning(d, kc, at, b);
    mcx__glock(d);
    mcx__pkt_free_kept(at, b); /* R2-K */
    mcx__gunlock(d);
    mcx__wp_notify(&kc->space_wp, d->shared);
    return MCX_OK;
  }
  if ((b = pool_index_of(d, buf)) != UINT32_MAX && PO_IS(w = mcx_load_relaxed(&d->pkt_state[b]))) {
    uint32_t next;
    if (!owned_slot_of(d, b, w, &kc, &at, &next))
      return MCX_EBADBUF; /* not held (released already, or never handed out) */
    return release_owning(d, kc, at, next);
  }
  if (!pool_buffer_of(d, buf, &b, &w))
    return MCX_EBADBUF;
  mcx_store_relaxed(&d->pkt_state[b], 0); /* holder-owned; a second release fails above */
  if (mcx__ref())
    memset(buf, 0, d->pkt_stride); /* the reference hands back zeroed buffers */
  /* Back to its channel while our side of that connection is open, else to
   * the domain's pool. */
  uint32_t rec;
  mcx__chan_t *open = held_chan_open(d, w, &rec);
  mcx__chan_t *ch = rec < d->g.n_chans ? mcx__chan_at(d, rec) : NULL; /* to notify */
  /* mca-2.0.3 counts buffers exactly as one pool (programs use up all
   * MCAPI_MAX_BUFFERS across their channels): straight back to the pool. */
  if (open && !mcx__ref()) {
    mcx__spsc_view_t rv = mcx__chan_ret_view_at(d, ch, rec);
    mcx__glock(d);
    /* R1 of the return ring: our reads of the buffer before the sender reuses it. */
    mcx__q_outcome_t o = mcx__spsc_put(&rv, 0, b);
    mcx__gunlock(d);
    if (o == MCX_Q_OK) {
      mcx__wp_notify(&ch->space_wp, d->shared);
      return MCX_OK;
    }
  }
  mcx__pool_put(&d->pkt_pool, b); /* R-P2: our reads of the buffer before its reuse */
  if (ch)
    mcx__wp_notify(&ch->space_wp, d->shared);
  return MCX_OK;
}

static int release_slow(void *buf)
{
  mcx__domain_t *d = mcx__self.fast; /* as in the send */
  if (d && release_unlocked(d, buf))
    return MCX_OK;
  if (!mcx__is_node())
    return MCX_ENODE;
  return release_checked(mcx__self.dom, buf);
}

int mcx__pkt_release_test(void *buf)
{
  mcx__domain_t *d = mcx__self.dom;
  if (d->transport == MCX_TRANSPORT_PMQ_)
    return mcx__chan_pmq_release_test(d, buf);
  mcx__chan_t *kc;
  mcx__spsc_slot_t *at;
  uint32_t b;
  uint64_t x;
  if (mcx__kept_slot_of(d, buf, &kc, &at, &b, &x))
    return 0; /* still held */
  if ((uintptr_t)buf - (uintptr_t)d->pslots < d->pslot_span)
    return ((uintptr_t)buf - (uintptr_t)d->pslots) % sizeof(mcx__pkt_slot_t)
               ? MCX_EBADBUF
               : 1; /* a slot's bytes, no longer held */
  if ((b = pool_index_of(d, buf)) == UINT32_MAX)
    return MCX_EBADBUF;
  uint64_t w = mcx_load_relaxed(&d->pkt_state[b]);
  if (PO_IS(w)) /* a slot's buffer: held while its slot is */
    return !owned_slot_of(d, b, w, &kc, &at, &b);
  if ((w & 1) && (w & PB_CLAIM) && PB_SLOT(w) == mcx__self.node_slot)
    return MCX_EBADBUF; /* lent to our claim: not a packet we received */
  return !PB_HELD_RECV(w, mcx__self.node_slot); /* released: no longer ours */
}

/* The slow paths' entries (chan_pkt.h): the result as the caller's status. */
void mcx__pkt_send_slow(uint32_t handle, const void *buf, size_t size, uint32_t *status,
                        const mcx__status_map_t *map)
{
  mcx__status_store(status, map, send_slow(handle, buf, size));
}

void *mcx__pkt_claim_slow(uint32_t handle, size_t size, uint32_t *status,
                          const mcx__status_map_t *map)
{
  void *p = NULL;
  int r = claim_slow(handle, size, &p);
  mcx__status_store(status, map, r);
  return r == MCX_OK ? p : NULL;
}

void mcx__pkt_commit_slow(uint32_t handle, void *buf, size_t size, uint32_t *status,
                          const mcx__status_map_t *map)
{
  mcx__status_store(status, map, commit_slow(handle, buf, size));
}

void mcx__pkt_recv_slow(uint32_t handle, void **buf, size_t *size, uint32_t *status,
                        const mcx__status_map_t *map)
{
  /* The receive requests this thread queued come first (the fast path
   * leaves them to here): a bad handle is reported by the receive. */
  if (mcx__recv_queued != 0)
    (void)mcx__recv_first(REQ_PKT_RECV, handle);
  mcx__status_store(status, map, recv_slow(handle, buf, size));
}

void mcx__pkt_release_slow(void *buf, uint32_t *status, const mcx__status_map_t *map)
{
  mcx__status_store(status, map, release_slow(buf));
}
