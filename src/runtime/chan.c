/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Packet and scalar channels (docs/channels.md).
 *
 * A connection is a record in the partition's channel region. Its state word
 * holds both sides' states and the record's generation and is changed only by
 * compare-and-swap:
 *
 *   bits 0-3 send side, 4-7 receive side: IDLE, OPENP, OPEN, CLOSEP, CLOSED, GONE
 *   bit 8 LIVE (connected), bits 9-10 side has been OPEN, bits 16-30
 *   generation (also in the handles)
 *
 *   side:  IDLE --open--> OPENP --(peer has opened)--> OPEN --close--> CLOSEP
 *          CLOSEP --(receiver holds no buffer)--> CLOSED;  any --finalize--> GONE
 *   record: FREE --connect--> LIVE --(both sides IDLE|CLOSED|GONE after a close
 *           or finalize)--> FREE, generation + 1 (handles go stale)
 *
 * A CLOSED side does not rejoin its connection: an open issued on it waits
 * for the tear-down, then for the next connection (as an open issued before
 * any connection does).
 *
 * Connect, open and tear-down also change the endpoints' `chan` words; those
 * run under the partition's admin lock, so an open never races a tear-down.
 * Data calls take no lock (in the global locking mode they take the domain's
 * rwlock around the ring operations, as msg.c does) and check the state word
 * with one acquire load that hits a line written only by the control path.
 *
 * Data path: the slot-state SPSC ring (spsc_ring.h); examples/ring_layouts.c
 * measured it against the two-counter NBB layout (nbb_ring.h). Scalars travel
 * in the slot (meta = width). Packet rings have a line per slot
 * (pkt_ring.h): a packet of up to 48 bytes is copied into its slot, the
 * receiver gets a pointer to the slot's bytes and its release frees the
 * slot; slots the receiver holds are passed over by the sender, so holding
 * never stops the channel. A larger packet goes into a buffer of the
 * domain's pool (buf_pool.h) that its slot owns (spec profile): the slot
 * takes one from the pool the first time a large packet passes through it
 * and keeps it while the connection lasts, so the packet is kept as a small
 * one (slot RECEIVED until the release, value MCX_PKT_OWNS | buffer) and no
 * pool word or return ring moves per packet. The buffer's state word says
 * which record, slot and generation own it (PO_WORD); sender, receiver and
 * release check it before they use the index. Owned buffers go back to the
 * pool at tear-down (or, for a slot still held then, at its release) and
 * by the sweep; at most half the pool is owned (OWN_BUDGET), the rest
 * serves the per-item path.
 *
 * The per-item path (the mca-2.0.3 profile, every packet; the spec profile,
 * a large packet whose slot cannot get a buffer): the sender copies into a
 * pool buffer whose index travels in the slot (meta = size); the take frees
 * the slot; the receiver gets a pointer into the pool (zero-copy) and
 * mcapi_pktchan_release() returns the buffer to the sender on the channel's
 * return ring (the receiver is its producer), or to the pool when the
 * receiver's side is no longer open. Such buffers are not bound to a
 * channel: a receiver may hold as many as the pool has. A close does not
 * wait for held packets: a pool buffer comes back to the pool when
 * released; a record with held slots is not reconnected until they are
 * released (or their holder is gone).
 */
#include <string.h>

#include "mcapi.h"
#include "ports/mcx_port.h"
#include "runtime/runtime.h"
#include "sync/pisem.h"
#include "runtime/msg_sem.h"
#include "sync/wait_pi.h"
#include "transport/buf_pool.h"
#include "transport/pkt_ring.h"
#include "transport/pmq.h"

/* Retries of the *_BUT_* outcomes before treating them as FULL / EMPTY. */
#define BUT_RETRIES 256

enum { S_IDLE = 0, S_OPENP = 1, S_OPEN = 2, S_CLOSEP = 3, S_GONE = 4, S_CLOSED = 5 };
#define ST_LIVE 0x100u
#define ST_WAS_OPEN(dir) (0x200u << (dir)) /* the side has been OPEN on this connection */
#define ST_GEN(s) (((s) >> 16) & 0x7fffu)
/* A free record whose generation reached the last one its handles can carry
 * (15 bits): never used again, so a stale handle never names a new
 * connection (spec profile; the mca-2.0.3 profile's handles carry none). */
#define ST_RETIRED 0x80000000u
#define ST_SIDE(s, dir) (((s) >> ((dir) * 4)) & 0xfu)
#define ST_WITH(s, dir, v) (((s) & ~(0xfu << ((dir) * 4))) | ((uint32_t)(v) << ((dir) * 4)))
#define QUIET(v) ((v) == S_IDLE || (v) == S_CLOSED || (v) == S_GONE)

enum { B_FREE = 0, B_HELD = 1 };
/* A held pool buffer's state word: holder node slot << 48 | generation << 32
 * | (record + 1) << 1 | 1 (written by the holder only; 0 = not held). */
#define PB_WORD(slot, gen, rec) ((uint64_t)(slot) << 48 | (uint64_t)(gen) << 32 | ((uint64_t)(rec) + 1) << 1 | 1)
#define PB_SLOT(w) ((uint32_t)((w) >> 48))
#define PB_GEN(w) ((uint32_t)((w) >> 32) & 0x7fffu)
#define PB_REC(w) (((uint32_t)(w) >> 1) - 1)
/* A buffer owned by a slot of a packet ring: generation << 48 | line << 2
 * | 2, line = record * chan_cap + slot, the slot's line in the rings' span
 * (pslot_line; bit 0 clear: no node holds it). Written by the sender when
 * the slot takes it (published with the item by R1), cleared before it
 * goes back to the pool. */
#define PO_WORD(line, gen) ((uint64_t)(gen) << 48 | (uint64_t)(line) << 2 | 2u)
#define PO_IS(w) (((w) & 3u) == 2u)
#define PO_GEN(w) ((uint32_t)((w) >> 48) & 0x7fffu)
#define PO_LINE(w) ((uint32_t)(w) >> 2)
/* Slots own at most this share of the pool; the rest serves the per-item
 * path (a receiver that holds many packets, the mca-2.0.3 profile). */
#define OWN_BUDGET(n) ((n) / 2)
/* pmq: packets are copied out of the queue into a process-local pool of this many per channel. */
#define PMQ_CHAN_BUFS 64

/* Handles (runtime.h): kind << 30 | direction << 29 | generation << 12 |
 * (record + 1); in the mca-2.0.3 profile the local endpoint's handle. */
#define H_DIR(h) (((h) >> 29) & 1u)
#define H_GEN(h) (((h) >> 12) & 0x7fffu)

static uint32_t kind_of(uint32_t type) { return type == MCAPI_PKT_CHAN ? MCX_HK_PKT : MCX_HK_SCL; }

/* The canonical (spec-form) handle of a side of a connection. */
static uint32_t canon_handle(uint32_t type, uint32_t dir, uint32_t gen, uint32_t rec)
{
  return kind_of(type) << 30 | dir << 29 | (gen & 0x7fffu) << 12 | (rec + 1);
}

typedef struct mcx__chan_area {
  /* Opens, closes and connects announce themselves here (control plane). */
  MCX_ALIGNED_LINE mcx__waitpoint_t ctl;
  /* Pool buffers owned by slots (PO_WORD), at most OWN_BUDGET: counted up
   * before a slot takes one, down when one goes back. Touched once per
   * slot and connection, never per packet. */
  MCX_ALIGNED_LINE mcx_atomic_u32 owned;
} mcx__chan_area_t;

typedef struct mcx__chan {
  /* Line 0 — control: the state word (CAS: open, close, finalize, tear-down)
   * and the configuration written by connect before R-C1. Read by every data
   * call; written only on the control path, so it stays shared. */
  MCX_ALIGNED_LINE mcx_atomic_u32 state;
  mcx_atomic_u32 type;
  mcx_atomic_u32 ep[2];    /* endpoint handles: [MCX_CHAN_SEND], [MCX_CHAN_RECV] */
  mcx_atomic_u32 owner[2]; /* node slot of each side's endpoint */
  mcx_atomic_u32 mask;     /* data ring capacity - 1 */
  mcx_atomic_u32 nbuf;     /* pmq: buffers of the receiver's local pool */
  /* Line 2 — pmq: written by the receiver (local buffers it holds); read by
   * the sender before it queues a packet. */
  MCX_ALIGNED_LINE mcx_atomic_u32 held;
  /* Line 3 — the receiver sleeps here; the sender notifies. */
  MCX_ALIGNED_LINE mcx__waitpoint_t recv_wp;
  /* Line 4 — the sender sleeps here (ring full / no buffer); the receiver notifies. */
  MCX_ALIGNED_LINE mcx__waitpoint_t space_wp;
  /* Data ring: sender produces, receiver consumes (each index on its own line). */
  mcx__spsc_ring_t data;
  /* Return ring: receiver produces (release), sender consumes. */
  mcx__spsc_ring_t ret;
  /* pmq: local buffer states, written by the receiver only (HELD at
   * receive, FREE at release); read by release_test. */
  MCX_ALIGNED_LINE mcx_atomic_u32 buf[PMQ_CHAN_BUFS];
} mcx__chan_t;

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
   * shifts (kept_slot_of). */
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

/* The buffer index of byte offset @p off (< the pool's span) when it is the
 * start of a buffer, else UINT32_MAX. */
static inline __attribute__((always_inline)) uint32_t pkt_index(const mcx__domain_t *d, size_t off)
{
  return mcx__recip_index(off, d->pkt_recip, d->pkt_stride);
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

/* ---- addressing (all by offsets from the caller's mapping) */

static mcx__chan_area_t *area_of(const mcx__domain_t *d)
{
  return (mcx__chan_area_t *)(d->base + d->g.off_chans);
}
static mcx__chan_t *chan_at(const mcx__domain_t *d, uint32_t idx)
{
  return (mcx__chan_t *)(d->base + d->g.off_chans + sizeof(mcx__chan_area_t)) + idx;
}
static uint32_t chan_idx(const mcx__domain_t *d, const mcx__chan_t *ch)
{
  return (uint32_t)(ch - chan_at(d, 0));
}
/* Record @p i's data ring for channels of @p type: packet slots (a line
 * each, spread 2) or scalar slots (16 bytes, spread 0) in the same span. The
 * ring mask comes from the shared record: bounded by the layout's capacity
 * here, so a corrupt value never indexes outside the channel. */
static inline __attribute__((always_inline)) mcx__spsc_view_t
data_view_at(const mcx__domain_t *d, mcx__chan_t *ch, size_t i, uint32_t type)
{
  const mcx__geom_t *g = &d->g;
  mcx__pkt_slot_t *p = (mcx__pkt_slot_t *)(d->base + g->off_chan_slots) + i * g->chan_cap;
  mcx__spsc_view_t v = {&ch->data, type == MCAPI_PKT_CHAN ? &p->s : (mcx__spsc_slot_t *)p,
                        mcx_load_relaxed(&ch->mask) & (g->chan_cap - 1),
                        type == MCAPI_PKT_CHAN ? 2u : 0u};
  return v;
}
/* The data ring of @p ch, of the type its record says (a corrupt type picks
 * the other layout of the same span: still inside the record). */
static mcx__spsc_view_t data_view(const mcx__domain_t *d, mcx__chan_t *ch)
{
  return data_view_at(d, ch, chan_idx(d, ch), mcx_load_relaxed(&ch->type));
}
static inline __attribute__((always_inline)) mcx__spsc_view_t
ret_view_at(const mcx__domain_t *d, mcx__chan_t *ch, size_t i)
{
  const mcx__geom_t *g = &d->g;
  mcx__spsc_view_t v = {&ch->ret,
                        (mcx__spsc_slot_t *)(d->base + g->off_chan_slots +
                                             (size_t)g->n_chans * g->chan_cap *
                                                 sizeof(mcx__pkt_slot_t)) +
                            i * g->chan_rcap,
                        g->chan_rcap - 1, 0};
  return v;
}
static mcx__spsc_view_t ret_view(const mcx__domain_t *d, mcx__chan_t *ch)
{
  return ret_view_at(d, ch, chan_idx(d, ch));
}
static uint8_t *pool_buf(const mcx__domain_t *d, uint32_t b)
{
  return d->pkt_bufs + (size_t)b * d->pkt_stride;
}

/* ---- buffers owned by slots (PO_WORD) */

/* The line of packet slot @p s in the rings' span: record * chan_cap + its
 * number in the record's ring. */
static inline __attribute__((always_inline)) uint32_t pslot_line(const mcx__domain_t *d,
                                                                 const mcx__spsc_slot_t *s)
{
  return (uint32_t)(((uintptr_t)s - (uintptr_t)d->pslots) / sizeof(mcx__pkt_slot_t));
}
/* The number, in its record's ring, of packet slot @p s. */
static inline __attribute__((always_inline)) uint32_t pslot_no(const mcx__domain_t *d,
                                                               const mcx__spsc_slot_t *s)
{
  return pslot_line(d, s) & (d->g.chan_cap - 1);
}

/* The buffer a slot's value @p x names when that slot owns it (its state
 * word is @p own, the slot's PO_WORD), else UINT32_MAX. Shared memory is
 * input: the index is range-checked and the state word must match. */
static inline __attribute__((always_inline)) uint32_t owned_buf(const mcx__domain_t *d, uint64_t x,
                                                                uint64_t own)
{
  uint32_t b = (uint32_t)x;
  /* Relaxed: the sender wrote it before R1 of an item we have seen (A2), or
   * it is our own (the sender's) write. */
  if (!mcx__pkt_kept(x) || b >= d->pkt_pool.n || mcx_load_relaxed(&d->pkt_state[b]) != own)
    return UINT32_MAX;
  return b;
}

static int take_buffer(const mcx__domain_t *d, mcx__chan_t *ch, uint32_t *b);

/* A buffer for a slot of @p ch to own, within OWN_BUDGET: one the receiver
 * released to the channel (a packet it detached, take_packet), else one of
 * the pool (take_buffer); an error when the budget or the buffers are used
 * up (the caller takes the per-item path). */
static int own_take(const mcx__domain_t *d, mcx__chan_t *ch, uint32_t *b)
{
  mcx_atomic_u32 *n = &area_of(d)->owned;
  /* Relaxed: a count, not an order (the buffer's is the pool's A-P2). Read
   * first, so a spent budget costs no locked instruction per packet. */
  if (mcx_load_relaxed(n) >= OWN_BUDGET(d->pkt_pool.n))
    return MCX_ENOMEM;
  int r = MCX_ENOMEM;
  if (mcx_fetch_add_relaxed(n, 1) >= OWN_BUDGET(d->pkt_pool.n) || (r = take_buffer(d, ch, b))) {
    mcx_fetch_sub_relaxed(n, 1);
    return r;
  }
  return MCX_OK;
}

/* Owned buffer @p b back to the pool (its slot is not held; no one uses it). */
static void own_return(const mcx__domain_t *d, uint32_t b)
{
  mcx_store_relaxed(&d->pkt_state[b], 0); /* published by R-P2 */
  mcx__pool_put(&d->pkt_pool, b);         /* R-P2: our last use before its reuse */
  mcx_fetch_sub_relaxed(&area_of(d)->owned, 1);
}

/* Tear-down and sweep (admin lock held; no data call runs on the ring):
 * every buffer owned by a slot of record @p ch goes back to the pool,
 * except one whose slot a receiver still holds (its release returns it).
 * By the buffers' state words, so a buffer taken by a sender that died
 * before it published the item comes back too. Returns how many. */
static uint32_t return_owned(const mcx__domain_t *d, mcx__chan_t *ch)
{
  uint32_t rec = chan_idx(d, ch), n = 0, cap = d->g.chan_cap;
  mcx__spsc_view_t v = data_view_at(d, ch, rec, MCAPI_PKT_CHAN);
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
        continue; /* held: release_owning returns it */
    }
    own_return(d, b);
    n++;
  }
  return n;
}

/* Frees every kept slot of record @p ch, whose holder is gone (admin lock
 * held; no data call runs on the ring); returns how many. */
static uint32_t free_kept_all(const mcx__domain_t *d, mcx__chan_t *ch)
{
  uint32_t n = 0;
  mcx__spsc_view_t v = data_view_at(d, ch, chan_idx(d, ch), MCAPI_PKT_CHAN);
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
static int holds_kept(const mcx__domain_t *d, mcx__chan_t *ch)
{
  if (d->transport == MCX_TRANSPORT_PMQ_ || mcx_load_relaxed(&ch->type) != MCAPI_PKT_CHAN)
    return 0;
  mcx__spsc_view_t v = data_view_at(d, ch, chan_idx(d, ch), MCAPI_PKT_CHAN);
  for (uint32_t i = 0; i <= v.mask; i++) {
    mcx__spsc_slot_t *s = mcx__spsc_at(&v, i);
    if (mcx__pkt_is_kept(mcx_load_relaxed(&s->word), s))
      return 1;
  }
  return 0;
}

void mcx__chan_reclaim_buffers_locked(mcx__domain_t *d, uint32_t slot)
{
  uint32_t n = 0;
  /* Slots whose bytes it held, on connections already torn down (its
   * sides went away first): free, so a connect may take the record again. */
  for (uint32_t i = 0; i < d->g.n_chans && d->transport != MCX_TRANSPORT_PMQ_; i++) {
    mcx__chan_t *ch = chan_at(d, i);
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


static uint32_t ep_word(uint32_t type, uint32_t flags, uint32_t rec_plus1)
{
  return type | flags << 8 | rec_plus1 << 16;
}
#define W_TYPE(w) ((w) & 0xffu)
#define W_FLAGS(w) (((w) >> 8) & 0xffu)
#define W_REC(w) ((w) >> 16) /* record + 1; 0 = not connected */

static uint32_t dir_flag(uint32_t dir) { return dir == MCX_CHAN_SEND ? MCX_CHW_SEND : MCX_CHW_RECV; }

/* ---- pmq transport (transport/pmq.c): the connection's data travels in one
 * POSIX message queue, made exclusively by connect and unlinked at
 * tear-down; the state machine and the wait points stay as they are. Packets are copied out of the queue
 * into a process-local pool: no zero-copy over a message queue. */
/* The pid of node slot @p slot; 0 for a slot out of range (shared memory is input). */
static uint32_t pid_of_slot(const mcx__domain_t *d, uint32_t slot)
{
  return slot < MCA_MAX_NODES ? mcx_load_relaxed(&mcx__nodes(d)[slot].pid) : 0;
}

static mcx__pmq_chan_t pmq_chan(const mcx__domain_t *d, const mcx__chan_t *ch, uint32_t st)
{
  uint32_t type = mcx_load_relaxed(&ch->type);
  mcx__pmq_chan_t c = {
      .idx = (uint32_t)(ch - chan_at(d, 0)),
      .gen = ST_GEN(st),
      .pid = pid_of_slot(d, mcx_load_relaxed(&ch->owner[MCX_CHAN_RECV])),
      .type = type,
      .depth = type == MCAPI_PKT_CHAN ? mcx_load_relaxed(&ch->nbuf) : mcx_load_relaxed(&ch->mask) + 1,
  };
  return c;
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
  uint32_t s = mcx_load_relaxed(&chan_at(d, W_REC(w) - 1)->state);
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

static void announce(mcx__domain_t *d, mcx__chan_t *ch)
{
  mcx__wp_notify(&area_of(d)->ctl, d->shared);
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
    st = mcx_load_relaxed(&chan_at(d, idx)->state); /* LIVE is set under admin only */
    if (!(st & (ST_LIVE | ST_RETIRED)) && !holds_kept(d, chan_at(d, idx))) {
      ch = chan_at(d, idx);
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
  mcx__spsc_view_t dv = data_view(d, ch), rv = ret_view(d, ch);
  if (type == MCAPI_SCL_CHAN)
    mcx__scl_init(&dv); /* its own word encoding (spsc_ring.h) */
  else
    mcx__pkt_init(&dv); /* no slot owns a buffer (tear-down returned them) */
  mcx__spsc_init(&rv);
  if (d->transport == MCX_TRANSPORT_PMQ_) {
    /* The connection's queue is made here, once, exclusively (O_EXCL), before
     * anything is published: no side ever takes an existing object for it. */
    mcx__pmq_chan_t c = pmq_chan(d, ch, gen << 16);
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

/* Tear-down: packets still queued and buffers the receiver released to the
 * channel go back to the domain's pool (both sides are quiet: no data call
 * runs on the rings). Indices come from shared memory: checked. */
static void return_buffers(mcx__domain_t *d, mcx__chan_t *ch)
{
  mcx__spsc_view_t v[2] = {data_view_at(d, ch, chan_idx(d, ch), MCAPI_PKT_CHAN), ret_view(d, ch)};
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

static void teardown_locked(mcx__domain_t *d, mcx__chan_t *ch, uint32_t st)
{
  uint32_t idx = chan_idx(d, ch);
  if (d->transport != MCX_TRANSPORT_PMQ_ && mcx_load_relaxed(&ch->type) == MCAPI_PKT_CHAN) {
    return_buffers(d, ch);
    /* Slots whose bytes the receiver holds stay its own (a connect passes
     * the record over) until released, unless it is gone (finalized or
     * dead): then they are free now. */
    if (ST_SIDE(st, MCX_CHAN_RECV) == S_GONE)
      free_kept_all(d, ch);
    return_owned(d, ch);
  }
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
    mcx__pmq_chan_t c = pmq_chan(d, ch, st);
    mcx__pmq_chan_destroy(d->pmq, &c); /* unlinks the connection's queue */
  }
  uint32_t gen = (ST_GEN(st) + 1) & 0x7fffu;
  uint32_t retired = !gen && d->compat != MCX_COMPAT_MCA203_ ? ST_RETIRED : 0;
  if (retired)
    MCX_DEBUG(1, "domain %u: channel record %u retired (its generations are used up)",
              d->domain_id, chan_idx(d, ch));
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
  mcx__chan_t *ch = chan_at(d, W_REC(w) - 1);
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
    ch = chan_at(d, W_REC(w) - 1);
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
  mcx__chan_t *ch = chan_at(d, W_REC(w) - 1);
  uint32_t st = mcx_load_acquire(&ch->state); /* A-C1 */
  for (;;) {
    uint32_t own = ST_SIDE(st, dir), peer = ST_SIDE(st, !dir);
    if ((st & ST_LIVE) && own == S_CLOSED && (W_FLAGS(w) & MCX_CHW_OPEN_PENDING))
      return MCX_EAGAIN; /* waits for the next connection */
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
      return MCX_EAGAIN;
    }
    /* Acq_rel: the OPEN side's later data calls follow the peer's open. */
    if (mcx_cas_acq_rel(&ch->state, &st, ST_WITH(st, dir, S_OPEN) | ST_WAS_OPEN(dir)))
      break;
  }
  /* mca-2.0.3: the channel handle is the endpoint's own. */
  *handle = d->compat == MCX_COMPAT_MCA203_ ? eh : canon_handle(type, dir, ST_GEN(st), chan_idx(d, ch));
  announce(d, ch);
  return MCX_OK;
}

/* ---- handle checks */

/* Resolves a handle: the record, its state (A-C1), or why not. @p dir is
 * the side the call is for; MCX_CHAN_ANY (a close in the mca-2.0.3 profile)
 * takes the side the endpoint is on, returned in *side. */
#define MCX_CHAN_ANY 2u
static int resolve_side(const mcx__domain_t *d, uint32_t handle, uint32_t type, uint32_t dir,
                        mcx__chan_t **out, uint32_t *st, uint32_t *side)
{
  mcx__chan_t *ch;
  uint32_t hdir, gen;
  if (d->compat == MCX_COMPAT_MCA203_) {
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
    ch = chan_at(d, W_REC(w) - 1);
    hdir = (W_FLAGS(w) & MCX_CHW_RECV) ? MCX_CHAN_RECV : MCX_CHAN_SEND;
    uint32_t s0 = mcx_load_acquire(&ch->state); /* A-C1 */
    gen = ST_GEN(s0);
  } else {
    uint32_t idx = mcx__h_idx(handle);
    if (mcx__h_kind(handle) != kind_of(type) || idx >= d->g.n_chans)
      return MCX_EBADCH; /* not a handle of this channel type */
    hdir = H_DIR(handle);
    gen = H_GEN(handle);
    if (gen == 0 || (handle >> 12 & 0x1ffffu) > 0x7fffu)
      return MCX_EBADCH;
    ch = chan_at(d, idx);
  }
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

static int resolve(const mcx__domain_t *d, uint32_t handle, uint32_t type, uint32_t dir,
                   mcx__chan_t **out, uint32_t *st)
{
  return resolve_side(d, handle, type, dir, out, st, NULL);
}

/* A data call's checks: this side open. */
static int resolve_open(const mcx__domain_t *d, uint32_t handle, uint32_t type, uint32_t dir,
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

int mcx__chan_check(uint32_t handle, uint32_t type, uint32_t dir)
{
  mcx__chan_t *ch;
  uint32_t st;
  return resolve_open(mcx__self.dom, handle, type, dir, &ch, &st);
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
  *canon = canon_handle(type, dir, gen, chan_idx(d, ch));
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
  mcx__chan_t *ch = chan_at(d, mcx__h_idx(handle));
  /* A receiver's close does not wait for the buffers it holds: they go back
   * to the pool when released (spec: pending packets are discarded). pmq:
   * the buffers are the receiver's local copies, bound to this connection:
   * its close waits for them (docs/pmq.md). */
  if (dir == MCX_CHAN_RECV && d->transport == MCX_TRANSPORT_PMQ_ &&
      mcx_load_acquire(&ch->held) != 0) /* A-B2: pairs with R-B2 */
    return MCX_EAGAIN;
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

/* ---- waiting helpers */

/* The sending or receiving endpoint of a channel, for its attributes. */
static void ep_attrs(const mcx__domain_t *d, const mcx__chan_t *ch, uint32_t dir,
                     uint32_t *timeout, uint32_t *fail)
{
  mcx__endpoint_t *e;
  if (mcx__ep_resolve(d, mcx_load_relaxed(&ch->ep[dir]), &e) == MCX_OK) {
    /* attributes, read per call: the caller's own side from process memory */
    *timeout = mcx__ep_is_mine(e) ? mcx__ep_timeout(d, e) : mcx_load_relaxed(&e->timeout_ms);
    *fail = mcx__ep_is_mine(e) ? mcx__ep_fail(d, e) : mcx_load_relaxed(&e->fail_on_mem_limit);
  } else {
    *timeout = 0;
    *fail = 1;
  }
}

/* The peer side is (still) able to take part: open or opening. */
static int peer_alive(const mcx__chan_t *ch, uint32_t dir)
{
  uint32_t p = ST_SIDE(mcx_load_acquire(&ch->state), !dir); /* A-C1 */
  /* mca-2.0.3 opens each side on its own: a peer connected but not yet
   * open will open (its packets and scalars wait for it, as there). */
  return p == S_OPEN || p == S_OPENP || (p == S_IDLE && mcx__ref());
}

/* Blocks on @p wp until @p try_once stops returning MCX_EAGAIN. */
typedef int (*try_fn)(const mcx__domain_t *, mcx__chan_t *, void *);

static int block_on(const mcx__domain_t *d, mcx__chan_t *ch, uint32_t dir, mcx__waitpoint_t *wp,
                    try_fn fn, void *arg, const mcx__backoff_t *spun)
{
  int r = fn(d, ch, arg);
  /* Out of buffers: a receiver that died holding them never gives them
   * back. The sweep takes its side away (and, on shm, returns its buffers):
   * the next try says CHAN_NOTOPEN instead of MEM_LIMIT for ever. */
  if (r == MCX_ENOMEM && dir == MCX_CHAN_SEND &&
      !mcx__node_alive(d, mcx_load_relaxed(&ch->owner[MCX_CHAN_RECV])) &&
      mcx__sweep_dead((mcx__domain_t *)(uintptr_t)d))
    r = fn(d, ch, arg);
  if (r != MCX_EAGAIN)
    return r;
  uint32_t timeout, fail;
  ep_attrs(d, ch, dir, &timeout, &fail);
  if (dir == MCX_CHAN_SEND && fail)
    return MCX_ENOMEM;
  if (timeout == 0)
    return MCX_ETIMEDOUT;
  uint64_t deadline = mcx_port_deadline_ms(timeout);
  mcx__backoff_t b;
  if (spun && spun->begun)
    b = *spun; /* its spins are spent (chan_recv_spin): on to yielding */
  else
    mcx__backoff_begin(&b);
  for (;;) {
    if (!mcx__backoff_step(&b)) {
      if ((r = fn(d, ch, arg)) != MCX_EAGAIN) {
        mcx__backoff_end(&b);
        return r;
      }
      continue;
    }
    uint32_t key = mcx__wp_prepare(wp);
    if ((r = fn(d, ch, arg)) != MCX_EAGAIN) {
      mcx__wp_cancel(wp);
      mcx__backoff_end(&b);
      return r;
    }
    /* Sleep in slices: a peer process that died never answers; the sweep
     * takes its side of the channel away, and fn() then says so. */
    uint64_t slice = mcx_port_now_ns() + 50000000ull;
    mcx__wp_sleep(wp, key, slice < deadline ? slice : deadline, d->shared);
    if (mcx_port_now_ns() >= deadline)
      return (r = fn(d, ch, arg)) == MCX_EAGAIN ? MCX_ETIMEDOUT : r;
    if (mcx__any_dead_node(d))
      mcx__sweep_dead((mcx__domain_t *)(uintptr_t)d);
  }
}

/* ---- the fast path (lock-free shm domain, spec-profile handles)
 *
 * One attempt with the checks of resolve_open() and peer_alive() done on one
 * read of the state word, and the ring operation; when it cannot finish it
 * has changed nothing and the full path (block_on) runs, checks again and
 * says why. */
#define CHAN_FAST static inline __attribute__((always_inline))

/* A packet of @p size travels in its slot: it fits, and the profile is not
 * mca-2.0.3 (which counts every packet against the one pool of
 * MCAPI_MAX_BUFFERS, as the reference does). */
CHAN_FAST int pkt_in_slot(const mcx__domain_t *d, size_t size)
{
  return size <= MCX_PKT_INLINE && d->compat != MCX_COMPAT_MCA203_;
}


CHAN_FAST mcx__chan_t *fast_side(const mcx__domain_t *d, uint32_t handle, uint32_t type,
                                 uint32_t dir, uint32_t *st)
{
  uint32_t idx = mcx__h_idx(handle);
  if (__builtin_expect(!d || !d->fastpath || d->compat != MCX_COMPAT_SPEC_ ||
                           mcx__h_kind(handle) != kind_of(type) || H_DIR(handle) != dir ||
                           idx >= d->g.n_chans || ((handle >> 12) & 0x1ffffu) - 1 >= 0x7fffu,
                       0))
    return NULL;
  mcx__chan_t *ch = chan_at(d, idx);
  /* A-C1 — acquire: the configuration and rings of this generation are
   * visible; pairs with R-C1 (connect) and R-C3 (tear-down). */
  uint32_t s = mcx_load_acquire(&ch->state);
  uint32_t peer = ST_SIDE(s, !dir);
  if (__builtin_expect(!(s & ST_LIVE) || ST_GEN(s) != H_GEN(handle) ||
                           ST_SIDE(s, dir) != S_OPEN || (peer != S_OPEN && peer != S_OPENP) ||
                           mcx_load_relaxed(&ch->owner[dir]) != mcx__self.node_slot ||
                           mcx_load_relaxed(&ch->type) != type,
                       0))
    return NULL;
  *st = s;
  return ch;
}

/* The channel cache (struct mcx__chc, runtime.h): a miss or a mismatch
 * runs fast_side()'s checks and refills the entry, or takes the full path. */
void mcx__chc_init(mcx__domain_t *d, struct mcx__chc *c)
{
  for (uint32_t i = 0; i < MCX_CHC_N; i++) {
    c[i].handle = c[i].state = MCX_EPC_EMPTY;
    c[i].ch = chan_at(d, 0); /* any valid address: the state never matches */
  }
}

size_t mcx__chc_size(void) { return MCX_CHC_N * sizeof(struct mcx__chc); }

/* The entry a handle maps to: the table of the call's kind and end (so the
 * two ends of one channel, the same index, do not evict each other), and
 * the handle's index bits. A table holds only handles whose kind and
 * direction bits are its own (chc_refill checks them before it fills), so
 * a call that finds its handle there needs no check of those bits. */
CHAN_FAST struct mcx__chc *chc_entry(uint32_t handle, uint32_t type, uint32_t dir)
{
  uint32_t t = (type == MCAPI_PKT_CHAN ? 0u : 2u) | dir;
  return &mcx__self.chc[t][handle & (MCX_CHC_WAYS - 1)];
}

static __attribute__((noinline)) struct mcx__chc *chc_fill(const mcx__domain_t *d, uint32_t handle,
                                                          uint32_t type, uint32_t dir)
{
  uint32_t st;
  mcx__chan_t *ch = fast_side(d, handle, type, dir, &st);
  if (!ch || mcx__self.chc[0] == mcx__chc_none)
    return NULL;
  struct mcx__chc *c = chc_entry(handle, type, dir);
  c->state = st;
  c->ch = ch;
  c->v = data_view_at(d, ch, mcx__h_idx(handle), type);
  c->rv = ret_view_at(d, ch, mcx__h_idx(handle));
  c->handle = handle;
  return c;
}

/* The entry of @p handle, checked against its channel's state word; NULL
 * when the full path must run. */
CHAN_FAST struct mcx__chc *chc_get(uint32_t handle, uint32_t type, uint32_t dir)
{
  /* A handle of the other end or kind is not in this table (chc_entry). */
  struct mcx__chc *c = chc_entry(handle, type, dir);
  /* A miss takes the full path, which fills the entry (chc_refill): no call
   * here, so the fast path needs no frame. */
  if (__builtin_expect(c->handle != handle, 0))
    return NULL;
  /* A-C1 — acquire: pairs with R-C1 (connect) and R-C3 (tear-down). A
   * mismatch writes nothing (the table may be the read-only empty one,
   * mcx__chc_none): the full path refills the entry or reports why. */
  if (__builtin_expect(mcx_load_acquire(&c->ch->state) != c->state, 0))
    return NULL;
  return c;
}

/* The full path's first step: the entry of @p handle filled (or refilled)
 * for the fast path's next call, where the node takes the fast path. */
static void chc_refill(uint32_t handle, uint32_t type, uint32_t dir)
{
  const mcx__domain_t *d = mcx__self.fast;
  /* Only a handle of the call's kind and end enters its table (chc_entry). */
  if (d && (handle >> 29) == (kind_of(type) << 1 | dir))
    (void)chc_fill(d, handle, type, dir);
}

/* The scalar send on the channel cache: the step on the producer's own
 * line, or (@p refill, a constant in each caller) the one that first reads
 * the consumer's count. */
CHAN_FAST int scl_send_cached(uint32_t handle, uint32_t width, uint64_t value, int refill)
{
  struct mcx__chc *c = chc_get(handle, MCAPI_SCL_CHAN, MCX_CHAN_SEND);
  if (__builtin_expect(!c, 0))
    return MCX_EAGAIN;
  mcx__q_outcome_t o = refill ? mcx__spsc_put1_refill(&c->v, width, value, 1)
                              : mcx__spsc_put1(&c->v, width, value);
  if (__builtin_expect(o != MCX_Q_OK, 0))
    return o == MCX_Q_LIMIT ? MCX_SCL_LIMIT : MCX_EAGAIN;
  mcx__notify_fast(&c->ch->recv_wp);
  return MCX_OK;
}

int mcx__scl_send_fast(uint32_t handle, uint32_t width, uint64_t value)
{
  return scl_send_cached(handle, width, value, 0);
}

int mcx__scl_send_refill(uint32_t handle, uint32_t width, uint64_t value)
{
  return scl_send_cached(handle, width, value, 1);
}

CHAN_FAST mcx__waitpoint_t *scl_recv_cached(uint32_t handle, uint32_t width, uint64_t *value)
{
  struct mcx__chc *c = chc_get(handle, MCAPI_SCL_CHAN, MCX_CHAN_RECV);
  uint32_t meta;
  /* a width mismatch leaves the item in place: the full path reports it */
  if (__builtin_expect(!c || mcx__spsc_get1(&c->v, width, &meta, value) != MCX_Q_OK, 0))
    return NULL;
  return &c->ch->space_wp; /* the caller notifies (F-W2 after R2-T) */
}

mcx__waitpoint_t *mcx__scl_recv_fast(uint32_t handle, uint32_t width, uint64_t *value)
{
  return scl_recv_cached(handle, width, value);
}

/* The spin of mcx__scl_recv_spin and mcx__pkt_recv_spin: begins the wait
 * @p b and polls the one slot word the next item changes: MCX_OK when it
 * changed (try the fast receive again), else MCX_EAGAIN. */
static int chan_recv_spin(uint32_t handle, uint32_t type, mcx__backoff_t *b)
{
  b->begun = 0;
  const mcx__domain_t *d = mcx__self.fast;
  struct mcx__chc *c = chc_get(handle, type, MCX_CHAN_RECV);
  if (!d || !c)
    return MCX_EAGAIN; /* not begun: the full path waits as it would */
  /* The slot of the next item: the head is ours (the one consumer). */
  const mcx__spsc_view_t *v = &c->v;
  uint32_t pos = mcx_load_relaxed(&v->ring->head);
  const mcx_atomic_u32 *w = &(v->slots + ((size_t)(pos & v->mask) << v->spread))->word;
  uint32_t was = mcx_load_relaxed(w);
  /* Spin only on the plain empty case, where that word changes with the
   * next item: free for this position (a packet slot), or still naming a
   * lap before it (a scalar slot). Anything else (a held packet slot the
   * producer passes over, a mismatch) is the full path's. */
  if (type == MCAPI_PKT_CHAN ? was != mcx__spsc_word(pos, MCX_SPSC_FREE) : !((was ^ pos << 2) >> 2))
    return MCX_EAGAIN;
  mcx__backoff_begin(b);
  while (b->spins < b->limit) {
    b->spins++;
    mcx_port_cpu_relax();
    /* Relaxed: a change only sends the caller to the fast receive, which
     * reads the word again (A2). */
    if (mcx_load_relaxed(w) != was)
      return MCX_OK;
    if (b->spins == 1) { /* no wait with a TIMEOUT of 0: the full path reports it */
      uint32_t timeout, fail;
      ep_attrs(d, c->ch, MCX_CHAN_RECV, &timeout, &fail);
      if (timeout == 0)
        return MCX_EAGAIN;
    }
  }
  return MCX_EAGAIN;
}

mcx__waitpoint_t *mcx__scl_recv_spin(uint32_t handle, uint32_t width, uint64_t *value,
                                     mcx__backoff_t *b)
{
  if (chan_recv_spin(handle, MCAPI_SCL_CHAN, b) != MCX_OK)
    return NULL;
  mcx__waitpoint_t *wp = scl_recv_cached(handle, width, value);
  if (wp)
    mcx__backoff_end(b);
  return wp;
}

/* ---- the data calls: one core for scalars and packets, parameterised by
 * the kind @p pkt (a constant in each typed entry below, so each compiles to
 * its own straight code; the fast paths, mcx__*_fast, are separate) */

/* What a data call moves: a scalar (width, value) or a packet (src and size
 * to send; out and size received). */
struct xfer {
  uint32_t width;
  uint64_t value;
  const void *src;
  void *out;
  size_t size;
};

/* pmq (see pmq_chan above): a scalar or a packet to the connection's queue. */
static int pmq_send_once(const mcx__domain_t *d, mcx__chan_t *ch, int pkt, const struct xfer *a)
{
  /* The receiver holding every buffer of its pool: only its releases help
   * (MEM_LIMIT), as on shm. A-B2: pairs with R-B2 in release. */
  if (pkt && mcx_load_acquire(&ch->held) >= mcx_load_relaxed(&ch->nbuf))
    return MCX_ENOMEM;
  mcx__pmq_chan_t c = pmq_chan(d, ch, mcx_load_acquire(&ch->state)); /* A-C1 */
  int r = pkt ? mcx__pmq_chan_put(d->pmq, &c, a->src, a->size)
              : mcx__pmq_scl_put(d->pmq, &c, a->width, a->value);
  if (r == MCX_OK)
    mcx__wp_notify(&ch->recv_wp, d->shared);
  return r;
}

/* Items waiting (0 when the queue cannot be read: the next receive says why). */
static uint32_t pmq_count(mcx__domain_t *d, mcx__chan_t *ch)
{
  mcx__pmq_chan_t c = pmq_chan(d, ch, mcx_load_acquire(&ch->state)); /* A-C1 */
  uint32_t n = 0;
  return mcx__pmq_chan_count(d->pmq, &c, &n) == MCX_OK ? n : 0;
}

/* pmq: one try of a scalar or a packet (into a free buffer of the local
 * pool) from the queue. */
static int pmq_get(const mcx__domain_t *d, const mcx__pmq_chan_t *c, int pkt, uint32_t nbuf,
                   uint32_t b, struct xfer *a)
{
  return pkt ? mcx__pmq_pkt_get(d->pmq, c, nbuf, b, &a->out, &a->size)
             : mcx__pmq_scl_get(d->pmq, c, a->width, &a->value);
}

/* A scalar or a packet from the queue; once the sender has closed or gone,
 * one more look, then ENOTOPEN (as get_or_closed). */
static int pmq_recv_once(const mcx__domain_t *d, mcx__chan_t *ch, int pkt, struct xfer *a)
{
  mcx__pmq_chan_t c = pmq_chan(d, ch, mcx_load_acquire(&ch->state)); /* A-C1 */
  uint32_t nbuf = mcx_load_relaxed(&ch->nbuf), b = 0;
  if (pkt) { /* a free buffer of the local pool (receiver-owned words) */
    while (b < nbuf && mcx_load_relaxed(&ch->buf[b]) == B_HELD)
      b++;
    if (b == nbuf)
      return MCX_ENOMEM;
  }
  int r = pmq_get(d, &c, pkt, nbuf, b, a);
  if (r == MCX_EAGAIN) {
    if (peer_alive(ch, MCX_CHAN_RECV))
      return MCX_EAGAIN;
    /* Its last item, sent before its close, is in the queue by now. */
    r = pmq_get(d, &c, pkt, nbuf, b, a);
    if (r == MCX_EAGAIN)
      return MCX_ENOTOPEN;
  }
  if (r != MCX_OK)
    return r;
  if (pkt) {
    mcx_store_relaxed(&ch->buf[b], B_HELD);
    mcx_store_relaxed(&ch->held, mcx_load_relaxed(&ch->held) + 1);
  }
  mcx__wp_notify(&ch->space_wp, d->shared); /* room in the queue */
  return MCX_OK;
}

/* Reserves the data ring's next slot, retrying at once (a bounded number of
 * times) while the receiver is still reading the item it held. */
static mcx__q_outcome_t reserve_retrying(const mcx__spsc_view_t *v)
{
  mcx__q_outcome_t o;
  for (int i = 0;; i++) {
    o = mcx__pkt_reserve(v);
    if (o != MCX_Q_FULL_BUT_CONSUMER_READING || i == BUT_RETRIES)
      return o;
    mcx_port_cpu_relax();
  }
}

/* Takes a buffer for sending: one the receiver released to this channel,
 * else one from the domain's pool. */
static int take_buffer(const mcx__domain_t *d, mcx__chan_t *ch, uint32_t *b)
{
  mcx__spsc_view_t rv = ret_view(d, ch);
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
    if (!peer_alive(ch, MCX_CHAN_SEND))
      return MCX_ENOTOPEN;
    r = mcx__pool_get(&d->pkt_pool, b);
  }
  return r;
}

/* pkt_fill's per-item path (every packet of the mca-2.0.3 profile; a large
 * one whose slot has no buffer): out of line, so the fast paths stay small. */
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
    int r = take_buffer(d, ch, &b); /* also drops a corrupt index; the pool, the sweep */
    if (r) {
      mcx__spsc_unreserve(v);
      return r;
    }
  }
  if (size <= MCX_SLOT_INLINE)
    mcx__copy_small(pool_buf(d, b), src, size);
  else
    memcpy(pool_buf(d, b), src, size);
  mcx__pkt_commit(v, (uint32_t)size, b);
  return MCX_OK;
}

/* A packet into the slot reserved in @p v (connection generation @p gen):
 * its bytes into the slot (small, spec profile), into the buffer the slot
 * owns (large, spec profile: taken from the pool the first time, kept for
 * later laps) or into a buffer for this packet only, then the commit (R1:
 * the bytes, and the owned buffer's state word, travel with it). A buffer
 * for one packet is one the receiver gave back on the return ring (@p rv,
 * the fast path's cached view, tried inline first) or take_buffer's. On a
 * failure the reservation is undone and take_buffer's status returned. */
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
    uint64_t own = PO_WORD(pslot_line(d, s), gen);
    b = owned_buf(d, x, own);
    if (b == UINT32_MAX) {
      int r = own_take(d, ch, &b);
      if (r == MCX_OK) {
        mcx_store_relaxed(&d->pkt_state[b], own); /* published with the item (R1) */
      } else if (r != MCX_ENOMEM) { /* the sweep took the receiver's side away */
        mcx__spsc_unreserve(v);
        return r;
      } else {
        b = UINT32_MAX; /* take_buffer may have written it */
      }
    }
    if (b != UINT32_MAX) {
      /* A1 (the reserve) ordered the receiver's reads of the buffer, before
       * its release (R2-K), before this copy. */
      if (size <= MCX_SLOT_INLINE)
        mcx__copy_small(pool_buf(d, b), src, size);
      else
        memcpy(pool_buf(d, b), src, size);
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
                      const struct xfer *a)
{
  if (reserve_retrying(v) != MCX_Q_OK)
    return MCX_EAGAIN;
  /* Relaxed: our side is open, so the generation is the handle's (A-C1 read it). */
  return pkt_fill(d, ch, v, NULL, ST_GEN(mcx_load_relaxed(&ch->state)), a->src, a->size);
}

/* A scalar send's polls of the consumer's count, lock-free, while the only
 * free slots are in the line the consumer reads (mcx__spsc_put1_lines);
 * none under a lock, which the consumer would need to move. */
#define SCL_LINE_POLLS 64u

/* One send attempt of a scalar or a packet. */
CHAN_FAST int send_once(const mcx__domain_t *d, mcx__chan_t *ch, int pkt, struct xfer *a)
{
  if (!peer_alive(ch, MCX_CHAN_SEND))
    return MCX_ENOTOPEN;
  if (d->transport == MCX_TRANSPORT_PMQ_)
    return pmq_send_once(d, ch, pkt, a);
  mcx__spsc_view_t v = data_view_at(d, ch, chan_idx(d, ch), pkt ? MCAPI_PKT_CHAN : MCAPI_SCL_CHAN);
  int r;
  mcx__glock(d);
  if (pkt)
    r = pkt_put(d, ch, &v, a);
  else
    r = mcx__spsc_put1_lines(&v, a->width, a->value,
                             d->locking == MCX_LOCK_LOCKFREE ? SCL_LINE_POLLS : 0) == MCX_Q_OK
            ? MCX_OK
            : MCX_EAGAIN;
  mcx__gunlock(d);
  if (r == MCX_OK)
    mcx__wp_notify(&ch->recv_wp, d->shared);
  return r;
}

/* One receive from the data ring, retrying EMPTY_BUT_PRODUCER_INSERTING. */
static inline __attribute__((always_inline)) mcx__q_outcome_t get_once(const mcx__domain_t *d, mcx__chan_t *ch, int scl, uint32_t expect,
                                 uint32_t *meta, uint64_t *value, mcx__spsc_slot_t **at)
{
  mcx__spsc_view_t v = data_view_at(d, ch, chan_idx(d, ch), scl ? MCAPI_SCL_CHAN : MCAPI_PKT_CHAN);
  mcx__q_outcome_t o;
  /* Scalars take their own protocol (spsc_ring.h), on every path alike. */
  mcx__glock(d);
  for (int i = 0;; i++) {
    o = scl ? mcx__spsc_get1(&v, expect, meta, value) : mcx__pkt_take(&v, meta, value, at);
    if (o != MCX_Q_EMPTY_BUT_PRODUCER_INSERTING || i == BUT_RETRIES)
      break;
    mcx_port_cpu_relax();
  }
  mcx__gunlock(d);
  return o;
}

/* A get that found the ring empty: wait (EAGAIN) while the sender is open;
 * once it has closed or gone, look once more (its last item, published
 * before its close, is visible after A-C1 saw the close) and then report
 * that nothing more will come. */
static inline __attribute__((always_inline)) mcx__q_outcome_t get_or_closed(const mcx__domain_t *d, mcx__chan_t *ch, int scl, uint32_t expect,
                                      uint32_t *meta, uint64_t *value, mcx__spsc_slot_t **at, int *closed)
{
  mcx__q_outcome_t o = get_once(d, ch, scl, expect, meta, value, at);
  *closed = 0;
  if (o == MCX_Q_EMPTY || o == MCX_Q_EMPTY_BUT_PRODUCER_INSERTING) {
    if (peer_alive(ch, MCX_CHAN_RECV))
      return o;
    o = get_once(d, ch, scl, expect, meta, value, at);
    *closed = o != MCX_Q_OK && o != MCX_Q_MISMATCH;
  }
  return o;
}

/* The slot before kept slot @p at (in ring order) is held by this
 * receiver: it holds packets one after the other. Relaxed: a hint only
 * (no data is read on its strength). */
CHAN_FAST int prev_held(const mcx__domain_t *d, mcx__chan_t *ch, const mcx__spsc_slot_t *at)
{
  /* spread 2: four slot structs to a line */
  const mcx__spsc_slot_t *prev =
      pslot_no(d, at) ? at - 4 : at + (size_t)(mcx_load_relaxed(&ch->mask) & (d->g.chan_cap - 1)) * 4;
  return (mcx_load_relaxed(&prev->word) & 3u) == MCX_SPSC_RECEIVED;
}

/* Large packet in buffer @p b, owned by kept slot @p at, just taken by a
 * receiver that holds the slot before too: the buffer leaves the slot and
 * becomes this node's, held as a per-item one (its release returns it to
 * the channel or the pool); the slot is free at once. So holding large
 * packets never holds every slot (a held slot is followed by a free one):
 * the receiver may hold as many as the pool has, and the sender goes on,
 * as on the per-item path. The sender finds the slot's value naming a
 * buffer it no longer owns (owned_buf) and takes another. */
static __attribute__((noinline)) void detach(const mcx__domain_t *d, mcx__chan_t *ch, uint32_t st,
                                             mcx__spsc_slot_t *at, uint32_t b)
{
  uint32_t w = mcx_load_relaxed(&at->word); /* consumer-owned now */
  mcx_store_relaxed(&d->pkt_state[b], PB_WORD(mcx__self.node_slot, ST_GEN(st), chan_idx(d, ch)));
  mcx_fetch_sub_relaxed(&area_of(d)->owned, 1);
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
      ob = owned_buf(d, b, PO_WORD(pslot_line(d, at), ST_GEN(st)));
    if (__builtin_expect(meta > MCX_PKT_INLINE && ob == UINT32_MAX, 0)) {
      /* Shared memory is input: a size, or a buffer not owned by this slot,
       * that no sender could have written. The slot is freed (it was left
       * RECEIVED for a holder there is not); its value is the sender's. */
      MCX_DEBUG(1, "packet channel %u: corrupt slot (size %u, value %#llx) dropped",
                chan_idx(d, ch), meta, (unsigned long long)b);
      uint32_t w = mcx_load_relaxed(&at->word); /* consumer-owned now */
      mcx__glock(d); /* as every release: the lock-based modes' ring code runs under it */
      mcx__pkt_free_kept(at, (w >> 2) + (mcx_load_relaxed(&ch->mask) & (d->g.chan_cap - 1)) + 1);
      mcx__gunlock(d);
      mcx__wp_notify(&ch->space_wp, d->shared); /* a slot is free: as a release */
      return MCX_ECORRUPT;
    }
    if (ob != UINT32_MAX && __builtin_expect(prev_held(d, ch, at), 0))
      detach(d, ch, st, at, ob);
    *out = ob == UINT32_MAX ? mcx__pkt_bytes(at) : pool_buf(d, ob);
    *size = meta;
    return MCX_OK;
  }
  if (__builtin_expect(b >= d->pkt_pool.n || meta > d->pkt_stride, 0)) {
    /* Shared memory is input: an index or size no sender could have written. */
    MCX_DEBUG(1, "packet channel %u: corrupt slot (buffer %llu, size %u) dropped",
              chan_idx(d, ch), (unsigned long long)b, meta);
    return MCX_ECORRUPT;
  }
  /* Holder-owned word: relaxed is enough for our own later release. */
  mcx_store_relaxed(&d->pkt_state[b], PB_WORD(mcx__self.node_slot, ST_GEN(st), chan_idx(d, ch)));
  *out = pool_buf(d, (uint32_t)b);
  *size = meta;
  return MCX_OK;
}

/* One receive attempt of a scalar (of a->width) or a packet. */
CHAN_FAST int recv_once(const mcx__domain_t *d, mcx__chan_t *ch, int pkt, struct xfer *a)
{
  if (d->transport == MCX_TRANSPORT_PMQ_)
    return pmq_recv_once(d, ch, pkt, a);
  uint32_t meta = 0;
  uint64_t b = 0;
  mcx__spsc_slot_t *at = NULL;
  int closed;
  mcx__q_outcome_t o = get_or_closed(d, ch, !pkt, pkt ? 0 : a->width, &meta,
                                     pkt ? &b : &a->value, &at, &closed);
  if (o == MCX_Q_OK) {
    if (pkt)
      return take_packet(d, ch, mcx_load_relaxed(&ch->state), at, b, meta, &a->out, &a->size);
    mcx__wp_notify(&ch->space_wp, d->shared);
    return MCX_OK;
  }
  if (!pkt && o == MCX_Q_MISMATCH) {
    if (mcx__ref()) { /* the reference consumes it (and reports the size error) */
      uint64_t discard;
      get_once(d, ch, 1, 0, &meta, &discard, &at);
      mcx__wp_notify(&ch->space_wp, d->shared);
    }
    return MCX_EWIDTH; /* spec: left in place, a receive of the right width gets it */
  }
  return closed ? MCX_ENOTOPEN : MCX_EAGAIN;
}

/* The typed attempts, as block_on and the requests call them. */
static int scl_send_once(const mcx__domain_t *d, mcx__chan_t *ch, void *arg)
{
  return send_once(d, ch, 0, arg);
}
static int pkt_send_once(const mcx__domain_t *d, mcx__chan_t *ch, void *arg)
{
  return send_once(d, ch, 1, arg);
}
static int scl_recv_once(const mcx__domain_t *d, mcx__chan_t *ch, void *arg)
{
  return recv_once(d, ch, 0, arg);
}
static int pkt_recv_once(const mcx__domain_t *d, mcx__chan_t *ch, void *arg)
{
  return recv_once(d, ch, 1, arg);
}

/* The open side of @p type and @p dir that @p handle names, and for a packet
 * send its size checked (after the handle, as the spec orders the statuses). */
CHAN_FAST int data_side(uint32_t handle, uint32_t type, uint32_t dir, size_t size,
                        mcx__domain_t **d, mcx__chan_t **ch)
{
  uint32_t st;
  *d = mcx__self.dom;
  int r = resolve_open(*d, handle, type, dir, ch, &st);
  if (r)
    return r;
  return size > MCAPI_MAX_PKT_SIZE ? MCX_EMSGSIZE : MCX_OK;
}

/* A blocking data call (the full path): the channel cache filled for the
 * fast path's next call, then attempts of @p fn until done or the TIMEOUT. */
CHAN_FAST int data_full(uint32_t handle, uint32_t type, uint32_t dir, size_t size, try_fn fn,
                        struct xfer *a, const mcx__backoff_t *spun)
{
  chc_refill(handle, type, dir);
  mcx__domain_t *d;
  mcx__chan_t *ch;
  int r = data_side(handle, type, dir, size, &d, &ch);
  if (r)
    return r;
  return block_on(d, ch, dir, dir == MCX_CHAN_SEND ? &ch->space_wp : &ch->recv_wp, fn, a,
                  spun);
}

/* ---- scalars */

int mcx__scl_send(uint32_t handle, uint32_t width, uint64_t value)
{
  struct xfer a; /* a scalar's fields only: the others are a packet's */
  a.width = width;
  a.value = value;
  return data_full(handle, MCAPI_SCL_CHAN, MCX_CHAN_SEND, 0, scl_send_once, &a, NULL);
}

int mcx__scl_recv(uint32_t handle, uint32_t width, uint64_t *value)
{
  return mcx__scl_recv_spun(handle, width, value, NULL);
}

int mcx__scl_recv_spun(uint32_t handle, uint32_t width, uint64_t *value,
                       const mcx__backoff_t *spun)
{
  struct xfer a; /* as in mcx__scl_send */
  a.width = width;
  int r = data_full(handle, MCAPI_SCL_CHAN, MCX_CHAN_RECV, 0, scl_recv_once, &a, spun);
  if (r == MCX_OK)
    *value = a.value;
  return r;
}

/* ---- packets */

int mcx__pkt_try_send(uint32_t handle, const void *buf, size_t size)
{
  mcx__domain_t *d;
  mcx__chan_t *ch;
  int r = data_side(handle, MCAPI_PKT_CHAN, MCX_CHAN_SEND, size, &d, &ch);
  if (r)
    return r;
  struct xfer a = {.src = buf, .size = size};
  r = pkt_send_once(d, ch, &a);
  /* Out of buffers, or of slots, because the receiver died holding them
   * (or stopped taking packets): the sweep takes its side away and the retry
   * says CHAN_NOTOPEN. */
  if ((r == MCX_ENOMEM || r == MCX_EAGAIN) &&
      !mcx__node_alive(d, mcx_load_relaxed(&ch->owner[MCX_CHAN_RECV])) && mcx__sweep_dead(d))
    r = pkt_send_once(d, ch, &a);
  if (r == MCX_EAGAIN) {
    uint32_t timeout, fail;
    ep_attrs(d, ch, MCX_CHAN_SEND, &timeout, &fail);
    if (fail)
      return MCX_ENOMEM;
  }
  return r;
}

int mcx__pkt_send(uint32_t handle, const void *buf, size_t size)
{
  struct xfer a = {.src = buf, .size = size};
  return data_full(handle, MCAPI_PKT_CHAN, MCX_CHAN_SEND, size, pkt_send_once, &a, NULL);
}

int mcx__pkt_send_other(mcx__domain_t *d, uint32_t handle, const void *buf, size_t size)
{
  struct mcx__chc *c;
  /* d: mcx__self.fast, set wherever the node's cache can hit (runtime.h).
   * One try at the slot (no wait for a reading consumer, unlike pkt_put's):
   * anything else is the full path's. */
  if (!d || size > MCAPI_MAX_PKT_SIZE || !(c = chc_get(handle, MCAPI_PKT_CHAN, MCX_CHAN_SEND)) ||
      mcx__pkt_reserve(&c->v) != MCX_Q_OK ||
      pkt_fill(d, c->ch, &c->v, &c->rv, ST_GEN(c->state), buf, size) != MCX_OK)
    return MCX_EAGAIN;
  mcx__notify_fast(&c->ch->recv_wp);
  return MCX_OK;
}

int mcx__pkt_send_fast(uint32_t handle, const void *buf, size_t size)
{
  struct mcx__chc *c;
  /* Only a spec-profile channel has an entry (fast_side): pkt_in_slot is
   * the size test alone. */
  if (__builtin_expect(size > MCX_PKT_INLINE ||
                           !(c = chc_get(handle, MCAPI_PKT_CHAN, MCX_CHAN_SEND)),
                       0))
    return MCX_EAGAIN; /* the caller tries mcx__pkt_send_other */
  /* A small packet into the next slot, free for it (mcx__pkt_reserve's
   * test, A1), in straight-line code. It is not marked RESERVED first: that
   * is only a polling consumer's hint, and the copy is short. */
  mcx__spsc_view_t *v = &c->v;
  uint32_t pos = v->ring->tail; /* producer-owned */
  mcx__spsc_slot_t *s = mcx__pkt_at(v, pos);
  if (__builtin_expect(mcx_load_acquire(&s->word) != mcx__spsc_word(pos, MCX_SPSC_FREE) ||
                           s->value != MCX_PKT_KEEP, 0))
    return MCX_EAGAIN; /* the caller tries mcx__pkt_send_other (a slot that owns a buffer too) */
  mcx__copy_small(mcx__pkt_bytes(s), buf, size);
  /* R1, on the slot in hand; its value is MCX_PKT_KEEP already (our own write). */
  mcx__pkt_publish_meta(v->ring, s, pos, (uint32_t)size);
  mcx__notify_fast(&c->ch->recv_wp);
  return MCX_OK;
}

int mcx__pkt_recv_other(mcx__domain_t *d, uint32_t handle, void **buf, size_t *size)
{
  struct mcx__chc *c = chc_get(handle, MCAPI_PKT_CHAN, MCX_CHAN_RECV);
  uint32_t meta;
  uint64_t b;
  mcx__spsc_slot_t *at;
  if (!d || !c || mcx__pkt_take(&c->v, &meta, &b, &at) != MCX_Q_OK) /* d: as in send_other */
    return MCX_EAGAIN;
  return take_packet(d, c->ch, c->state, at, b, meta, buf, size);
}

CHAN_FAST int pkt_recv_kept(uint32_t handle, void **buf, size_t *size)
{
  struct mcx__chc *c = chc_get(handle, MCAPI_PKT_CHAN, MCX_CHAN_RECV);
  if (__builtin_expect(!c, 0))
    return MCX_EAGAIN;
  uint32_t meta;
  mcx__spsc_slot_t *at;
  if (__builtin_expect(mcx__pkt_take_kept(&c->v, &meta, &at) != MCX_Q_OK, 0))
    return MCX_EAGAIN; /* the caller tries mcx__pkt_recv_other */
  *buf = mcx__pkt_bytes(at);
  *size = meta;
  return MCX_OK;
}

int mcx__pkt_recv_fast(uint32_t handle, void **buf, size_t *size)
{
  return pkt_recv_kept(handle, buf, size);
}

int mcx__pkt_recv_spin(uint32_t handle, void **buf, size_t *size, mcx__backoff_t *b)
{
  if (chan_recv_spin(handle, MCAPI_PKT_CHAN, b) != MCX_OK)
    return MCX_EAGAIN;
  int r = pkt_recv_kept(handle, buf, size);
  if (r != MCX_OK)
    r = mcx__pkt_recv_other(mcx__self.fast, handle, buf, size);
  if (r == MCX_OK)
    mcx__backoff_end(b);
  return r;
}

int mcx__pkt_try_recv(uint32_t handle, void **buf, size_t *size)
{
  mcx__domain_t *d;
  mcx__chan_t *ch;
  int r = data_side(handle, MCAPI_PKT_CHAN, MCX_CHAN_RECV, 0, &d, &ch);
  if (r)
    return r;
  struct xfer a = {0};
  r = pkt_recv_once(d, ch, &a);
  if (r == MCX_OK) {
    *buf = a.out;
    *size = a.size;
  }
  return r;
}

int mcx__pkt_recv(uint32_t handle, void **buf, size_t *size)
{
  return mcx__pkt_recv_spun(handle, buf, size, NULL);
}

int mcx__pkt_recv_spun(uint32_t handle, void **buf, size_t *size, const mcx__backoff_t *spun)
{
  struct xfer a = {0};
  int r = data_full(handle, MCAPI_PKT_CHAN, MCX_CHAN_RECV, 0, pkt_recv_once, &a, spun);
  if (r == MCX_OK) {
    *buf = a.out;
    *size = a.size;
  }
  return r;
}

/* pmq: a pointer into this process's local pool, its record and index. */
static int pmq_buffer_of(const mcx__domain_t *d, const void *p, mcx__chan_t **out, uint32_t *b)
{
  uint32_t rec, idx;
  if (mcx__pmq_pkt_locate(d->pmq, p, &rec, &idx) != MCX_OK)
    return MCX_EBADBUF;
  mcx__chan_t *ch = chan_at(d, rec);
  uint32_t st = mcx_load_acquire(&ch->state); /* A-C1 */
  if (!(st & ST_LIVE) || mcx_load_relaxed(&ch->type) != MCAPI_PKT_CHAN ||
      idx >= mcx_load_relaxed(&ch->nbuf) ||
      mcx_load_relaxed(&ch->owner[MCX_CHAN_RECV]) != mcx__self.node_slot)
    return MCX_EBADBUF;
  *out = ch;
  *b = idx;
  return MCX_OK;
}

/* shm: the pool index of the buffer that starts at @p p, or UINT32_MAX. */
CHAN_FAST uint32_t pool_index_of(const mcx__domain_t *d, const void *p)
{
  uintptr_t u = (uintptr_t)p, base = (uintptr_t)d->pkt_bufs; /* NULL is below the pool */
  if (u - base >= (uintptr_t)d->pkt_pool.n * d->pkt_stride)
    return UINT32_MAX;
  return pkt_index(d, (size_t)(u - base)); /* UINT32_MAX: not a buffer's start */
}

/* shm: a pointer handed out by a packet receive of this node: its pool
 * index and state word. Touches nothing. */
CHAN_FAST int pool_buffer_of(const mcx__domain_t *d, const void *p, uint32_t *b, uint64_t *w)
{
  *b = pool_index_of(d, p);
  if (*b == UINT32_MAX)
    return MCX_EBADBUF;
  *w = mcx_load_relaxed(&d->pkt_state[*b]); /* holder-owned word */
  if (!(*w & 1) || PB_SLOT(*w) != mcx__self.node_slot)
    return MCX_EBADBUF; /* not held, or held by another node */
  return MCX_OK;
}

/* The channel a held buffer (state word @p w) came from while our receive
 * side of that connection is still open (we are then the only producer of
 * its return ring), else NULL; @p rec its record, when there is one. */
CHAN_FAST mcx__chan_t *held_chan_open(const mcx__domain_t *d, uint64_t w, uint32_t *rec)
{
  *rec = PB_REC(w);
  if (*rec >= d->g.n_chans)
    return NULL;
  mcx__chan_t *ch = chan_at(d, *rec);
  uint32_t st = mcx_load_acquire(&ch->state); /* A-C1 */
  if (!(st & ST_LIVE) || ST_GEN(st) != PB_GEN(w) || ST_SIDE(st, MCX_CHAN_RECV) != S_OPEN ||
      mcx_load_relaxed(&ch->owner[MCX_CHAN_RECV]) != mcx__self.node_slot)
    return NULL;
  return ch;
}

/* shm: a pointer handed out by a packet receive of this node from the bytes
 * of a slot (kept: RECEIVED, a kept value): its slot, the position a lap
 * later that frees it, and its value (MCX_PKT_KEEP, or MCX_PKT_OWNS | the
 * buffer the slot owns); MCX_EBADBUF when @p p is not one. With @p value
 * NULL (a constant) only a slot that owns no buffer is one. Everything
 * read from the partition is checked; touches nothing. */
CHAN_FAST int kept_slot_of(const mcx__domain_t *d, const void *p, mcx__chan_t **out,
                           mcx__spsc_slot_t **slot, uint32_t *next, uint64_t *value)
{
  uintptr_t off = (uintptr_t)p - (uintptr_t)d->pslots; /* NULL is below the rings */
  if (off >= d->pslot_span || (off & (sizeof(mcx__pkt_slot_t) - 1)))
    return MCX_EBADBUF;
  mcx__chan_t *ch = chan_at(d, (uint32_t)(off >> d->pslot_rec_shift));
  if (mcx_load_relaxed(&ch->owner[MCX_CHAN_RECV]) != mcx__self.node_slot ||
      mcx_load_relaxed(&ch->type) != MCAPI_PKT_CHAN)
    return MCX_EBADBUF; /* not a packet ring this node receives from */
  uint32_t mask = mcx_load_relaxed(&ch->mask) & (d->g.chan_cap - 1);
  mcx__spsc_slot_t *s = &((mcx__pkt_slot_t *)(uintptr_t)p)->s;
  /* Relaxed: a kept slot's word is the holder's until it frees it. */
  uint32_t w = mcx_load_relaxed(&s->word);
  uint64_t x = s->value; /* the producer does not write a held slot */
  if ((w & 3u) != MCX_SPSC_RECEIVED || (value ? !mcx__pkt_kept(x) : x != MCX_PKT_KEEP) ||
      ((w >> 2) & mask) != ((uint32_t)(off / sizeof(mcx__pkt_slot_t)) & (d->g.chan_cap - 1)))
    return MCX_EBADBUF; /* not held (released already, or never handed out) */
  *out = ch;
  *slot = s;
  *next = (w >> 2) + mask + 1;
  if (value)
    *value = x;
  return MCX_OK;
}

/* shm: pool buffer @p b, whose state word @p w says a slot owns it
 * (PO_WORD), as handed out by a packet receive of this node: the slot (held,
 * naming b), and the position a lap later that frees it; MCX_EBADBUF when
 * it is not one. Everything read from the partition is checked; touches
 * nothing. */
CHAN_FAST int owned_slot_of(const mcx__domain_t *d, uint32_t b, uint64_t w, mcx__chan_t **out,
                            mcx__spsc_slot_t **slot, uint32_t *next)
{
  /* The record by a shift, as kept_slot_of (chan_cap is a power of two). */
  uint32_t line = PO_LINE(w), k = line & (d->g.chan_cap - 1);
  uint32_t rec = (uint32_t)(((uint64_t)line * sizeof(mcx__pkt_slot_t)) >> d->pslot_rec_shift);
  if (w != PO_WORD(line, PO_GEN(w)) || rec >= d->g.n_chans)
    return MCX_EBADBUF;
  mcx__chan_t *ch = chan_at(d, rec);
  if (mcx_load_relaxed(&ch->owner[MCX_CHAN_RECV]) != mcx__self.node_slot ||
      mcx_load_relaxed(&ch->type) != MCAPI_PKT_CHAN)
    return MCX_EBADBUF; /* not a packet ring this node receives from */
  uint32_t mask = mcx_load_relaxed(&ch->mask) & (d->g.chan_cap - 1);
  mcx__spsc_slot_t *s = &((mcx__pkt_slot_t *)(uintptr_t)d->pslots + (size_t)rec * d->g.chan_cap + k)->s;
  /* Relaxed: a kept slot's word is the holder's until it frees it. */
  uint32_t sw = mcx_load_relaxed(&s->word);
  if ((sw & 3u) != MCX_SPSC_RECEIVED || s->value != (MCX_PKT_OWNS | b) || ((sw >> 2) & mask) != k)
    return MCX_EBADBUF; /* not held (released already, or never handed out) */
  *out = ch;
  *slot = s;
  *next = (sw >> 2) + mask + 1;
  return MCX_OK;
}

/* Our receive side of connection generation @p gen of @p ch is open: the
 * connection cannot be torn down before we close it (A-C1). */
CHAN_FAST int recv_open_gen(const mcx__chan_t *ch, uint32_t gen)
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
  int owns = PO_IS(w) && PO_LINE(w) == pslot_line(d, at);
  int locked = 0;
  if (owns && !recv_open_gen(ch, PO_GEN(w))) {
    if (mcx__admin_lock_bounded(d) != MCX_OK)
      return MCX_EIO; /* still held: a later release may succeed */
    locked = 1;
    uint32_t st = mcx_load_acquire(&ch->state); /* A-C1 */
    if (!(st & ST_LIVE) || ST_GEN(st) != PO_GEN(w))
      own_return(d, b); /* torn down while held: ours to return (R-P2) */
  }
  mcx__glock(d); /* as every release: the lock-based modes' ring code runs under it */
  mcx__pkt_free_kept(at, next); /* R2-K */
  mcx__gunlock(d);
  if (locked)
    mcx__admin_unlock(d);
  mcx__wp_notify(&ch->space_wp, d->shared);
  return MCX_OK;
}

static int pmq_release(mcx__domain_t *d, void *buf)
{
  mcx__chan_t *ch;
  uint32_t b;
  int r = pmq_buffer_of(d, buf, &ch, &b);
  if (r)
    return r;
  uint32_t expect = B_HELD;
  /* Only a held buffer can be released, once. */
  if (!mcx_cas_relaxed(&ch->buf[b], &expect, B_FREE)) /* receiver-owned word */
    return MCX_EBADBUF;
  if (mcx__ref())
    memset(buf, 0, mcx__pmq_pkt_size(d->pmq)); /* the reference hands back zeroed buffers */
  /* R-B2 — release: held drops after the user's last use of the buffer; pairs
   * with A-B2 (pmq_send_once). */
  mcx_store_release(&ch->held, mcx_load_relaxed(&ch->held) - 1);
  mcx__wp_notify(&ch->space_wp, d->shared);
  return MCX_OK;
}

int mcx__pkt_release_fast(mcx__domain_t *d, void *buf)
{
  uint32_t b, rec;
  uint64_t w;
  mcx__chan_t *ch;
  mcx__spsc_slot_t *at;
  /* A slot that owns a buffer is not one here: the full path's release_owning. */
  if (__builtin_expect(kept_slot_of(d, buf, &ch, &at, &b, NULL) == MCX_OK, 1)) {
    mcx__pkt_free_kept(at, b); /* R2-K */
    mcx__notify_fast(&ch->space_wp);
    return MCX_OK;
  }
  /* The reference profile's release (zeroed buffers, one pool) is the full path's. */
  if (__builtin_expect(d->compat == MCX_COMPAT_MCA203_ || (b = pool_index_of(d, buf)) == UINT32_MAX, 0))
    return MCX_EAGAIN;
  w = mcx_load_relaxed(&d->pkt_state[b]);
  if (PO_IS(w)) {
    /* A buffer its slot owns: the slot freed (R2-K), the buffer stays the
     * slot's while our side is open; else release_owning decides. */
    uint32_t next;
    if (__builtin_expect(owned_slot_of(d, b, w, &ch, &at, &next) || !recv_open_gen(ch, PO_GEN(w)), 0))
      return MCX_EAGAIN;
    mcx__pkt_free_kept(at, next); /* R2-K */
    mcx__notify_fast(&ch->space_wp);
    return MCX_OK;
  }
  if (__builtin_expect(!(w & 1) || PB_SLOT(w) != mcx__self.node_slot ||
                           !(ch = held_chan_open(d, w, &rec)),
                       0))
    return MCX_EAGAIN;
  /* Not ours before it is the channel's, as in mcx__pkt_release: a node that
   * dies in between leaves it to neither the sweep nor the ring twice. */
  mcx_store_relaxed(&d->pkt_state[b], 0); /* holder-owned; a second release fails above */
  mcx__spsc_view_t rv = ret_view_at(d, ch, rec);
  /* R1 of the return ring: our reads of the buffer before the sender reuses
   * it; pairs with A2 in take_buffer. */
  if (__builtin_expect(mcx__spsc_put(&rv, 0, b) != MCX_Q_OK, 0)) {
    mcx_store_relaxed(&d->pkt_state[b], w); /* still ours: the full path releases it */
    return MCX_EAGAIN;
  }
  mcx__notify_fast(&ch->space_wp);
  return MCX_OK;
}

int mcx__pkt_release(void *buf)
{
  mcx__domain_t *d = mcx__self.dom;
  if (d->transport == MCX_TRANSPORT_PMQ_)
    return pmq_release(d, buf);
  uint32_t b;
  uint64_t w;
  mcx__chan_t *kc;
  mcx__spsc_slot_t *at;
  if (kept_slot_of(d, buf, &kc, &at, &b, &w) == MCX_OK) {
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
    if (owned_slot_of(d, b, w, &kc, &at, &next))
      return MCX_EBADBUF; /* not held (released already, or never handed out) */
    return release_owning(d, kc, at, next);
  }
  int r = pool_buffer_of(d, buf, &b, &w);
  if (r)
    return r;
  mcx_store_relaxed(&d->pkt_state[b], 0); /* holder-owned; a second release fails above */
  if (mcx__ref())
    memset(buf, 0, d->pkt_stride); /* the reference hands back zeroed buffers */
  /* Back to its channel while our side of that connection is open, else to
   * the domain's pool. */
  uint32_t rec;
  mcx__chan_t *open = held_chan_open(d, w, &rec);
  mcx__chan_t *ch = rec < d->g.n_chans ? chan_at(d, rec) : NULL; /* to notify */
  /* mca-2.0.3 counts buffers exactly as one pool (programs use up all
   * MCAPI_MAX_BUFFERS across their channels): straight back to the pool. */
  if (open && !mcx__ref()) {
    mcx__spsc_view_t rv = ret_view_at(d, ch, rec);
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

int mcx__pkt_release_test(void *buf)
{
  mcx__domain_t *d = mcx__self.dom;
  uint32_t b;
  if (d->transport == MCX_TRANSPORT_PMQ_) {
    mcx__chan_t *ch;
    int r = pmq_buffer_of(d, buf, &ch, &b);
    if (r)
      return r;
    return mcx_load_relaxed(&ch->buf[b]) != B_HELD; /* receiver-owned word */
  }
  mcx__chan_t *kc;
  mcx__spsc_slot_t *at;
  uint64_t x;
  if (kept_slot_of(d, buf, &kc, &at, &b, &x) == MCX_OK)
    return 0; /* still held */
  if ((uintptr_t)buf - (uintptr_t)d->pslots < d->pslot_span)
    return ((uintptr_t)buf - (uintptr_t)d->pslots) % sizeof(mcx__pkt_slot_t)
               ? MCX_EBADBUF
               : 1; /* a slot's bytes, no longer held */
  if ((b = pool_index_of(d, buf)) == UINT32_MAX)
    return MCX_EBADBUF;
  uint64_t w = mcx_load_relaxed(&d->pkt_state[b]);
  if (PO_IS(w)) /* a slot's buffer: held while its slot is */
    return owned_slot_of(d, b, w, &kc, &at, &b) != MCX_OK;
  return !((w & 1) && PB_SLOT(w) == mcx__self.node_slot); /* released: no longer ours */
}

int mcx__chan_available(uint32_t handle, uint32_t type, uint32_t *count)
{
  mcx__domain_t *d = mcx__self.dom;
  mcx__chan_t *ch;
  uint32_t st;
  int r = resolve_open(d, handle, type, MCX_CHAN_RECV, &ch, &st);
  if (r)
    return r;
  if (d->transport == MCX_TRANSPORT_PMQ_) {
    mcx__pmq_chan_t c = pmq_chan(d, ch, st);
    return mcx__pmq_chan_count(d->pmq, &c, count);
  }
  mcx__spsc_view_t v = data_view_at(d, ch, chan_idx(d, ch), type);
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
  return &area_of(d)->ctl; /* connect, open, close */
}

/* ---- receives that name the semaphore they lock next (docs/sem.md) */

/*
 * As mcx__pkt_recv / mcx__scl_recv, but the receiver sleeps in
 * FUTEX_WAIT_REQUEUE_PI naming @p s: the sender's wake (mcx__wp_notify on
 * recv_wp) requeues it onto s, so it wakes owning s (or queued on s, its
 * holder boosted) instead of waking only to block on s. With an item already
 * there it locks s, then takes the item. @p lock_r receives the lock's result
 * (0, MCX_EOWNERDEAD) or MCX_EAGAIN when s was not taken.
 */
int mcx__chan_recv_then_lock(uint32_t handle, uint32_t type, uint32_t width, void **buf,
                             size_t *size, uint64_t *value, mcx__pisem_t *s, int *lock_r)
{
  mcx__domain_t *d = mcx__self.dom;
  mcx__chan_t *ch;
  uint32_t st;
  *lock_r = MCX_EAGAIN;
  int r = resolve_open(d, handle, type, MCX_CHAN_RECV, &ch, &st);
  if (r)
    return r;
  struct xfer a = {.width = width};
  try_fn fn = type == MCAPI_PKT_CHAN ? pkt_recv_once : scl_recv_once;
  uint32_t timeout, fail;
  ep_attrs(d, ch, MCX_CHAN_RECV, &timeout, &fail);
  uint64_t deadline = timeout == 0 ? 0 : mcx_port_deadline_ms(timeout);
  /* s must be found at recv_wp + offset by every sender: see msg_sem.c. */
  int in_part = (uint8_t *)s >= d->base && (uint8_t *)(s + 1) <= d->base + d->size;
  uint32_t local_pid = in_part ? 0 : mcx_port_pid() | (s->shared ? MCX__WP_PI_SHARED : 0);
  int pi_shared = in_part ? d->shared : (int)s->shared; /* the flag of the requeue-PI pair */
  mcx__spsc_view_t v = data_view_at(d, ch, chan_idx(d, ch), type);
  mcx__backoff_t b;
  mcx__backoff_begin(&b);
  int died = 0, locked = 0;
  for (;;) {
    mcx__glock(d);
    uint32_t n = type == MCAPI_PKT_CHAN ? mcx__pkt_count(&v) : mcx__scl_count(&v);
    mcx__gunlock(d);
    if (d->transport == MCX_TRANSPORT_PMQ_)
      n = pmq_count(d, ch);
    if (n > 0 || locked) {
      if (!locked) {
        int lr = mcx__pisem_lock(s, deadline);
        if (lr != MCX_OK && lr != MCX_EOWNERDEAD)
          return lr == MCX_EAGAIN ? MCX_ETIMEDOUT : lr;
        died |= lr == MCX_EOWNERDEAD;
      }
      locked = 0;
      r = fn(d, ch, &a);
      if (r == MCX_OK) {
        *lock_r = died ? MCX_EOWNERDEAD : MCX_OK;
        if (type == MCAPI_PKT_CHAN) {
          *buf = a.out;
          *size = a.size;
        } else {
          *value = a.value;
        }
        return MCX_OK;
      }
      mcx__pisem_unlock(s);
      if (r != MCX_EAGAIN)
        return r; /* e.g. a scalar of another width: not consumed */
      continue;
    }
    if (timeout == 0)
      return MCX_ETIMEDOUT;
    if (!mcx__backoff_step(&b))
      continue;
    uint32_t key = mcx__wp_prepare_pi(&ch->recv_wp, &s->word, local_pid);
    mcx__glock(d);
    n = type == MCAPI_PKT_CHAN ? mcx__pkt_count(&v) : mcx__scl_count(&v);
    mcx__gunlock(d);
    if (d->transport == MCX_TRANSPORT_PMQ_)
      n = pmq_count(d, ch);
    if (n > 0 || (r = resolve_open(d, handle, type, MCX_CHAN_RECV, &ch, &st)) != MCX_OK) {
      mcx__wp_cancel_pi(&ch->recv_wp); /* after F-W1: we see the item or its sender sees us */
      if (r)
        return r;
      continue;
    }
    uint64_t slice = mcx_port_now_ns() + 50000000ull;
    int w = mcx__wp_sleep_pi(&ch->recv_wp, key, &s->word, slice < deadline ? slice : deadline,
                             pi_shared);
    if (w == MCX_OK) { /* a sender's requeue made us the owner of s */
      died |= mcx__pisem_acquired(s) == MCX_EOWNERDEAD;
      locked = 1;
      continue;
    }
    if (deadline != MCX_NO_DEADLINE && mcx_port_now_ns() >= deadline)
      return MCX_ETIMEDOUT;
    if (w != MCX_ETIMEDOUT && w != MCX_EAGAIN && w != MCX_EINTR)
      return MCX_EIO;
    if (mcx__any_dead_node(d))
      mcx__sweep_dead(d);
  }
}
