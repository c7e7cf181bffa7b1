/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file chan.h
 * @brief Packet and scalar channels (docs/channels.md): the calls the rest
 * of the runtime makes, and what the channel files share (the connection
 * record and its state word, handles, addressing, the channel cache).
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
 * Connect, open and tear-down also change the endpoints' `chan` words; those
 * run under the partition's admin lock, so an open never races a tear-down.
 * Data calls take no lock (in the lock-based modes they take the domain's
 * lock around the ring operations, as the messages do) and check the state
 * word with one acquire load that hits a line written only by the control
 * path.
 *
 * The files, lowest layer first (each uses only those before it):
 *   chan_buf.c   pool buffers of packets: owned by a slot or by one packet
 *   chan_pmq.c   the data calls' steps over the pmq transport
 *   chan_conn.c  the connection: layout, connect, open, close, tear-down,
 *                handle checks, the channel cache's fill, available
 *   chan_wait.c  a blocking data call: its attempts until done or TIMEOUT
 *   chan_scl.c   scalars: the slow paths of send and receive
 *   chan_pkt.c   packets: the slow paths of send, receive and release, the
 *                requests' attempts
 *   chan_sem.c   receives that name the semaphore they lock next
 * and the operations' inline fast paths: chan_scl.h, chan_pkt.h.
 */
#ifndef MCX_RUNTIME_CHAN_H
#define MCX_RUNTIME_CHAN_H

#include <stdbool.h>

#include "mcapi.h"
#include "runtime/domain.h"
#include "runtime/endpoint.h"
#include "runtime/request.h"
#include "transport/pkt_ring.h"
#include "transport/pmq.h"
#include "transport/spsc_ring.h"

/* ---- the interface of the rest of the runtime ---------------------------
 * An endpoint's `chan` word is type | MCX_CHW_* << 8 | (record + 1) << 16,
 * changed only under the admin lock; the record's state word (both sides'
 * states) is changed by CAS. */
enum { MCX_CHAN_SEND = 0, MCX_CHAN_RECV = 1 };
enum { MCX_CHW_SEND = 0x1, MCX_CHW_RECV = 0x2, MCX_CHW_OPEN_PENDING = 0x4 };

/* The partition's layout (node.c; mcx__chan_layout_t is in partition.h, a
 * part of mcx__layout_t). chan_conn.c. */
/** Reserves the channel region from @p off on; returns the new end. */
size_t mcx__chan_layout(size_t off, uint32_t max_eps, uint32_t qcap, mcx__chan_layout_t *l);
/** Writes the layout into a new partition's header. */
void mcx__chan_layout_store(mcx__part_hdr_t *h, const mcx__chan_layout_t *l);
/** Locates the packet pool of a checked partition. */
void mcx__chan_attach(mcx__domain_t *d);
/** Fills a new partition's packet pool (creator, before the header is published). */
void mcx__chan_init_pool(uint8_t *base, const mcx__chan_layout_t *l);

/** Returns the pool buffers held by node slot @p slot (dead; admin lock held). chan_buf.c. */
void mcx__chan_reclaim_buffers_locked(mcx__domain_t *d, uint32_t slot);
/** Forgets the calling thread's claims of packet sends (finalize: the
 * buffers lent to them are the node's, reclaimed by its slot). chan_pkt.c. */
void mcx__pkt_claims_forget(void);
/** MCAPI_ENDP_STATUS_* flags of an endpoint's chan word. chan_conn.c. */
uint32_t mcx__chan_ep_status(const mcx__domain_t *d, uint32_t chan_word);
/** Finalize: the endpoint leaves its channel (admin lock held). chan_conn.c. */
void mcx__chan_ep_gone(mcx__domain_t *d, uint32_t ep_idx);
/** Whether the endpoint is connected with its side not open: never opened
 * (no open pending either), closed, or gone (admin lock held). chan_conn.c. */
bool mcx__chan_ep_side_quiet(const mcx__domain_t *d, uint32_t ep_idx);

/* Connect, open and close (chan_conn.c); the api starts them, requests
 * progress them (request.c). */
int mcx__chan_connect(uint32_t send_ep, uint32_t recv_ep, uint32_t type);
int mcx__chan_open_start(uint32_t ep, uint32_t type, uint32_t dir);
/** 0 open (handle set), MCX_EAGAIN pending, or why it failed. */
int mcx__chan_open_progress(uint32_t ep, uint32_t type, uint32_t dir, uint32_t *handle);
/** A cancelled open's request (request.c): the endpoint as before the open. */
void mcx__chan_open_withdraw(uint32_t ep, uint32_t dir);
/** Starts a close; *canon receives the side's canonical handle for close_progress. */
int mcx__chan_close_start(uint32_t handle, uint32_t type, uint32_t dir, uint32_t *canon);
int mcx__chan_close_progress(uint32_t canon);
/** After a completed close (@p canon from close_start): the endpoint leaves
 * the connection at once, a message endpoint again, while the peer's side
 * stays until its own close (MCAPI 1.0, mcapi1.c). A no-op when the
 * connection is already torn down. */
void mcx__chan_leave(uint32_t canon);
/** The side of its channel that endpoint @p eh (the caller's) is, as a
 * canonical handle in *canon, its direction in *dir: MCX_OK; MCX_EOPENP when
 * its open waits for a connection (*dir set), MCX_EBADCH when it is no side
 * of a channel of @p type. For MCAPI 1.0 programs that take the endpoint's
 * handle for the side's (mcapi1.c). chan_conn.c. */
int mcx__chan_side_of_ep(uint32_t eh, uint32_t type, uint32_t *canon, uint32_t *dir);
/** Items waiting on the receive side @p handle (chan_conn.c). */
int mcx__chan_available(uint32_t handle, uint32_t type, uint32_t *count);
/** Where a pending channel request is announced (request.c). chan_conn.c. */
mcx__waitpoint_t *mcx__chan_waitpoint(const mcx__req_args_t *a);

/* ---- the connection record ---------------------------------------------- */

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

/* pmq: a local buffer's state (mcx__chan_t.buf). */
enum { B_FREE = 0, B_HELD = 1 };
/* A held pool buffer's state word: holder node slot << 48 | generation << 32
 * | (record + 1) << 1 | 1 (written by the holder only; 0 = not held). */
#define PB_WORD(slot, gen, rec)                                                            \
  ((uint64_t)(slot) << 48 | (uint64_t)(gen) << 32 | ((uint64_t)(rec) + 1) << 1 | 1)
#define PB_SLOT(w) ((uint32_t)((w) >> 48))
#define PB_GEN(w) ((uint32_t)((w) >> 32) & 0x7fffu)
#define PB_REC(w) (((uint32_t)(w) >> 1) - 1)
/* A held pool buffer lent to a sender's claim (chan_pkt.h), not a
 * received packet: no release takes it; the dead-node sweep and finalize
 * return it by PB_SLOT as any other. */
#define PB_CLAIM (UINT64_C(1) << 47)
#define PB_HELD_RECV(w, slot) (((w) & 1) && !((w) & PB_CLAIM) && PB_SLOT(w) == (slot))
/* A buffer owned by a slot of a packet ring: generation << 48 | line << 2
 * | 2, line = record * chan_cap + slot, the slot's line in the rings' span
 * (mcx__pslot_line; bit 0 clear: no node holds it). Written by the sender
 * when the slot takes it (published with the item by R1), cleared before it
 * goes back to the pool. */
#define PO_WORD(line, gen) ((uint64_t)(gen) << 48 | (uint64_t)(line) << 2 | 2u)
#define PO_IS(w) (((w) & 3u) == 2u)
#define PO_GEN(w) ((uint32_t)((w) >> 48) & 0x7fffu)
#define PO_LINE(w) ((uint32_t)(w) >> 2)
/* Slots own at most this share of the pool; the rest serves the per-item
 * path (a receiver that holds many packets, the mca-2.0.3 profile). */
#define OWN_BUDGET(n) ((n) / 2)
/* pmq: the most packets a connection's queue holds (nbuf); the receiver's
 * local pool grows past it, up to the domain's buffer count. */
#define PMQ_CHAN_BUFS 64

/* Handles (endpoint.h): kind << 30 | direction << 29 | generation << 12 |
 * (record + 1); in the mca-2.0.3 profile the local endpoint's handle. */
#define H_DIR(h) (((h) >> 29) & 1u)
#define H_GEN(h) (((h) >> 12) & 0x7fffu)

/* An endpoint's chan word (MCX_CHW_*). */
#define W_TYPE(w) ((w) & 0xffu)
#define W_FLAGS(w) (((w) >> 8) & 0xffu)
#define W_REC(w) ((w) >> 16) /* record + 1; 0 = not connected */

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
  /* pmq: unused since the receiver's buffer states live beside its local
   * pool (transport/pmq.c); reset by connect, kept so the layout stays. */
  MCX_ALIGNED_LINE mcx_atomic_u32 buf[PMQ_CHAN_BUFS];
} mcx__chan_t;

/* Always inlined: the fast paths' steps, and the ring steps each typed
 * caller specializes with constants. */
#define CHAN_FAST static inline __attribute__((always_inline))
/* A data call's one slow path (chan_pkt.c, chan_scl.c): out of line under
 * LTO too, so the fast path inlined into the api keeps no registers for it
 * and its call is the api's last step (a jump). */
#define CHAN_SLOW __attribute__((noinline))

static inline uint32_t mcx__chan_kind(uint32_t type)
{
  return type == MCAPI_PKT_CHAN ? MCX_HK_PKT : MCX_HK_SCL;
}

/* ---- addressing (all by offsets from the caller's mapping) */

static inline mcx__chan_area_t *mcx__chan_area(const mcx__domain_t *d)
{
  return (mcx__chan_area_t *)(d->base + d->g.off_chans);
}
static inline mcx__chan_t *mcx__chan_at(const mcx__domain_t *d, uint32_t idx)
{
  return (mcx__chan_t *)(d->base + d->g.off_chans + sizeof(mcx__chan_area_t)) + idx;
}
static inline uint32_t mcx__chan_idx(const mcx__domain_t *d, const mcx__chan_t *ch)
{
  return (uint32_t)(ch - mcx__chan_at(d, 0));
}
/* Record @p i's data ring for channels of @p type: packet slots (a line
 * each, spread 2) or scalar slots (16 bytes, spread 0) in the same span. The
 * ring mask comes from the shared record: bounded by the layout's capacity
 * here, so a corrupt value never indexes outside the channel. */
CHAN_FAST mcx__spsc_view_t mcx__chan_data_view_at(const mcx__domain_t *d, mcx__chan_t *ch,
                                                  size_t i, uint32_t type)
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
static inline mcx__spsc_view_t mcx__chan_data_view(const mcx__domain_t *d, mcx__chan_t *ch)
{
  return mcx__chan_data_view_at(d, ch, mcx__chan_idx(d, ch), mcx_load_relaxed(&ch->type));
}
CHAN_FAST mcx__spsc_view_t mcx__chan_ret_view_at(const mcx__domain_t *d, mcx__chan_t *ch, size_t i)
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
static inline mcx__spsc_view_t mcx__chan_ret_view(const mcx__domain_t *d, mcx__chan_t *ch)
{
  return mcx__chan_ret_view_at(d, ch, mcx__chan_idx(d, ch));
}
static inline uint8_t *mcx__pkt_buf(const mcx__domain_t *d, uint32_t b)
{
  return d->pkt_bufs + (size_t)b * d->pkt_stride;
}
/* The line of packet slot @p s in the rings' span: record * chan_cap + its
 * number in the record's ring. */
CHAN_FAST uint32_t mcx__pslot_line(const mcx__domain_t *d, const mcx__spsc_slot_t *s)
{
  return (uint32_t)(((uintptr_t)s - (uintptr_t)d->pslots) / sizeof(mcx__pkt_slot_t));
}
/* The number, in its record's ring, of packet slot @p s. */
CHAN_FAST uint32_t mcx__pslot_no(const mcx__domain_t *d, const mcx__spsc_slot_t *s)
{
  return mcx__pslot_line(d, s) & (d->g.chan_cap - 1);
}

/* The buffer a slot's value @p x names when that slot owns it (its state
 * word is @p own, the slot's PO_WORD), else UINT32_MAX. Shared memory is
 * input: the index is range-checked and the state word must match. */
CHAN_FAST uint32_t mcx__owned_buf(const mcx__domain_t *d, uint64_t x, uint64_t own)
{
  uint32_t b = (uint32_t)x;
  /* Relaxed: the sender wrote it before R1 of an item we have seen (A2), or
   * it is our own (the sender's) write. */
  if (!mcx__pkt_kept(x) || b >= d->pkt_pool.n || mcx_load_relaxed(&d->pkt_state[b]) != own)
    return UINT32_MAX;
  return b;
}

/* The peer side is (still) able to take part: open or opening. */
static inline bool mcx__chan_peer_alive(const mcx__chan_t *ch, uint32_t dir)
{
  uint32_t p = ST_SIDE(mcx_load_acquire(&ch->state), !dir); /* A-C1 */
  /* mca-2.0.3 opens each side on its own: a peer connected but not yet
   * open will open (its packets and scalars wait for it, as there). */
  return p == S_OPEN || p == S_OPENP || (p == S_IDLE && mcx__ref());
}

/* ---- pmq transport (transport/pmq.c): the connection's data travels in
 * one POSIX message queue, made exclusively by connect and unlinked at
 * tear-down; the state machine and the wait points stay as they are.
 * Packets are copied out of the queue into a process-local pool: no
 * zero-copy over a message queue. */
/* The pid of node slot @p slot; 0 for a slot out of range (shared memory is input). */
static inline uint32_t mcx__chan_pid_of_slot(const mcx__domain_t *d, uint32_t slot)
{
  return slot < MCA_MAX_NODES ? mcx_load_relaxed(&mcx__nodes(d)[slot].pid) : 0;
}
/* The queue of @p ch, state word @p st, as transport/pmq.c names it. */
static inline mcx__pmq_chan_t mcx__chan_pmq(const mcx__domain_t *d, const mcx__chan_t *ch,
                                            uint32_t st)
{
  uint32_t type = mcx_load_relaxed(&ch->type);
  mcx__pmq_chan_t c = {
      .idx = (uint32_t)(ch - mcx__chan_at(d, 0)),
      .gen = ST_GEN(st),
      .pid = mcx__chan_pid_of_slot(d, mcx_load_relaxed(&ch->owner[MCX_CHAN_RECV])),
      .type = type,
      .depth = type == MCAPI_PKT_CHAN ? mcx_load_relaxed(&ch->nbuf)
                                      : mcx_load_relaxed(&ch->mask) + 1,
  };
  return c;
}

/* ---- the data calls' shared steps */

/* What a data call moves: a scalar (width, value) or a packet (src and size
 * to send; out and size received). */
typedef struct mcx__xfer {
  uint32_t width;
  uint64_t value;
  const void *src;
  void *out;
  size_t size;
} mcx__xfer_t;

/* One attempt of a data call on a checked channel: MCX_OK, MCX_EAGAIN
 * (nothing moved: wait and try again), or why it cannot. @p arg is the
 * call's mcx__xfer_t. */
typedef int (*mcx__chan_try_fn)(const mcx__domain_t *d, mcx__chan_t *ch, void *arg);

/* One receive from the data ring, retrying EMPTY_BUT_PRODUCER_INSERTING. */
CHAN_FAST mcx__q_outcome_t mcx__chan_get_once(const mcx__domain_t *d, mcx__chan_t *ch, int scl,
                                              uint32_t expect, uint32_t *meta, uint64_t *value,
                                              mcx__spsc_slot_t **at)
{
  mcx__spsc_view_t v = mcx__chan_data_view_at(d, ch, mcx__chan_idx(d, ch),
                                              scl ? MCAPI_SCL_CHAN : MCAPI_PKT_CHAN);
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

/* A get that found the ring empty: wait (EMPTY, *closed false) while the
 * sender is open; once it has closed or gone, look once more (its last
 * item, published before its close, is visible after A-C1 saw the close)
 * and then report that nothing more will come (*closed). */
CHAN_FAST mcx__q_outcome_t mcx__chan_get_or_closed(const mcx__domain_t *d, mcx__chan_t *ch,
                                                   int scl, uint32_t expect, uint32_t *meta,
                                                   uint64_t *value, mcx__spsc_slot_t **at,
                                                   bool *closed)
{
  mcx__q_outcome_t o = mcx__chan_get_once(d, ch, scl, expect, meta, value, at);
  *closed = false;
  if (o == MCX_Q_EMPTY || o == MCX_Q_EMPTY_BUT_PRODUCER_INSERTING) {
    if (mcx__chan_peer_alive(ch, MCX_CHAN_RECV))
      return o;
    o = mcx__chan_get_once(d, ch, scl, expect, meta, value, at);
    *closed = o != MCX_Q_OK && o != MCX_Q_MISMATCH;
  }
  return o;
}

/* ---- the channel cache --------------------------------------------------
 * As the endpoint cache of the message path (msg.h), a node's own
 * record of the channel handles it used, so a data call costs a compare of
 * the handle and one of the channel's state word. That word holds the
 * generation, liveness and both sides' states, and every change to the
 * channel's configuration (type, owners, mask) comes with a new generation,
 * so an equal word means the entry still describes the channel (A-C1 is the
 * load that compares). A miss or a mismatch takes the slow path, which
 * refills the entry (mcx__chc_refill) or says why not.
 *
 * Where the thread does not take the fast paths (no node, another mode or
 * transport, a fork child's copy) its tables are the empty ones, where no
 * handle hits (mcx__chc_none, domain.h).
 */
#define MCX_CHC_WAYS 32u              /* entries per table */
#define MCX_CHC_N (4u * MCX_CHC_WAYS) /* a table per kind and end */
struct mcx__chc {
  uint32_t handle; /* MCX_EPC_EMPTY: none */
  uint32_t state;  /* the channel's state word when filled (MCX_EPC_EMPTY when empty) */
  mcx__chan_t *ch;
  mcx__spsc_view_t v;  /* the data ring */
  mcx__spsc_view_t rv; /* the return ring (a packet sender's buffers) */
};

/** The channel cache's size in bytes, and its initialization (chan_conn.c). */
size_t mcx__chc_size(void);
void mcx__chc_init(mcx__domain_t *d, struct mcx__chc *c);
/** Fills (or refills) the entry of @p handle for the fast path's next call,
 * where the node takes the fast path and the handle names an open side of
 * a live spec-profile channel of @p type and @p dir (chan_conn.c). */
void mcx__chc_refill(uint32_t handle, uint32_t type, uint32_t dir);

/* The entry a handle maps to: the table of the call's kind and end (so the
 * two ends of one channel, the same index, do not evict each other), and
 * the handle's index bits. A table holds only handles whose kind and
 * direction bits are its own (mcx__chc_refill checks them before it fills),
 * so a call that finds its handle there needs no check of those bits. */
CHAN_FAST struct mcx__chc *mcx__chc_entry(uint32_t handle, uint32_t type, uint32_t dir)
{
  uint32_t t = (type == MCAPI_PKT_CHAN ? 0u : 2u) | dir;
  return &mcx__self.chc[t][handle & (MCX_CHC_WAYS - 1)];
}

/* The entry of @p handle, checked against its channel's state word, and
 * in *@p ch its record (a value of the caller's: a notify after the ring
 * step reads no entry field again); NULL when the slow path must run. */
CHAN_FAST struct mcx__chc *mcx__chc_get(uint32_t handle, uint32_t type, uint32_t dir,
                                        mcx__chan_t **ch)
{
  /* A handle of the other end or kind is not in this table (mcx__chc_entry). */
  struct mcx__chc *c = mcx__chc_entry(handle, type, dir);
  /* A miss takes the slow path, which fills the entry: no call here, so
   * the fast path needs no frame. */
  if (__builtin_expect(c->handle != handle, 0))
    return NULL;
  *ch = c->ch;
  /* A-C1 — acquire: pairs with R-C1 (connect) and R-C3 (tear-down). A
   * mismatch writes nothing (the table may be the read-only empty one,
   * mcx__chc_none): the slow path refills the entry or reports why. */
  if (__builtin_expect(mcx_load_acquire(&(*ch)->state) != c->state, 0))
    return NULL;
  return c;
}

/* ---- between the channel files (not called from outside them) */

/* chan_buf.c: pool buffers. */
/** A buffer for sending: one the receiver released to @p ch, else one of
 * the pool; MCX_ENOMEM when every buffer is held or queued, MCX_ENOTOPEN
 * when the sweep took a dead receiver's side away. */
int mcx__chan_take_buffer(const mcx__domain_t *d, mcx__chan_t *ch, uint32_t *b);
/** A buffer for a slot of @p ch to own, within OWN_BUDGET (0, or as
 * mcx__chan_take_buffer; MCX_ENOMEM also when the budget is spent). */
int mcx__chan_own_take(const mcx__domain_t *d, mcx__chan_t *ch, uint32_t *b);
/** Owned buffer @p b back to the pool (its slot is not held; no one uses it). */
void mcx__chan_own_return(const mcx__domain_t *d, uint32_t b);
/** Tear-down (admin lock held; no data call runs on the rings): packets
 * still queued and buffers the receiver released to the channel back to the
 * pool; with @p recv_gone (the receiver finalized or died) the slots whose
 * bytes it held freed; the buffers slots own, whose slots are not held,
 * back to the pool. */
void mcx__chan_return_buffers_locked(mcx__domain_t *d, mcx__chan_t *ch, bool recv_gone);
/** Whether record @p ch (not live) still has slots whose bytes a receiver
 * holds: a connect passes it over. */
bool mcx__chan_holds_kept(const mcx__domain_t *d, mcx__chan_t *ch);

/* chan_pmq.c: the data calls' steps over the pmq transport. */
/** A scalar (@p pkt 0) or a packet to the connection's queue: one try. */
int mcx__chan_pmq_send(const mcx__domain_t *d, mcx__chan_t *ch, int pkt, const mcx__xfer_t *a);
/** A scalar or a packet from the queue: one try (then ENOTOPEN once the
 * sender has closed and the queue is empty). */
int mcx__chan_pmq_recv(const mcx__domain_t *d, mcx__chan_t *ch, int pkt, mcx__xfer_t *a);
/** Items waiting (0 when the queue cannot be read: the next receive says why). */
uint32_t mcx__chan_pmq_count(mcx__domain_t *d, mcx__chan_t *ch);
/** The release of a packet received over pmq; 0 or MCX_EBADBUF. */
int mcx__chan_pmq_release(mcx__domain_t *d, void *buf);
/** 1 released, 0 still held, or MCX_EBADBUF. */
int mcx__chan_pmq_release_test(mcx__domain_t *d, void *buf);

/* chan_conn.c: handle checks. */
/** A data call's checks: @p handle names this node's open side @p dir of a
 * live channel of @p type; its record and state word (A-C1), or why not. */
int mcx__chan_resolve_open(const mcx__domain_t *d, uint32_t handle, uint32_t type, uint32_t dir,
                           mcx__chan_t **out, uint32_t *st);

/* chan_scl.c, chan_pkt.c: one receive attempt on a checked channel
 * (mcx__chan_try_fn; @p arg an mcx__xfer_t with the scalar's width), for
 * the semaphore receive (chan_sem.c). */
int mcx__scl_recv_attempt(const mcx__domain_t *d, mcx__chan_t *ch, void *arg);
int mcx__pkt_recv_attempt(const mcx__domain_t *d, mcx__chan_t *ch, void *arg);

/* chan_wait.c: waiting. */
/** The TIMEOUT and FAIL_ON_MEM_LIMIT attributes of side @p dir's endpoint
 * (the caller's own from process memory); 0 and 1 when it is gone. */
void mcx__chan_ep_attrs(const mcx__domain_t *d, const mcx__chan_t *ch, uint32_t dir,
                        uint32_t *timeout, uint32_t *fail);
/**
 * A blocking data call: the channel cache filled for the fast path's next
 * call (mcx__chc_refill), the handle checked (and, for a packet send, the
 * size), then attempts of @p fn until one does not say MCX_EAGAIN, waiting
 * on the side's wait point (spin, yield, sleep in slices) up to the
 * endpoint's TIMEOUT.
 * @param wait a wait the caller began (mcx__backoff_begin) and whose spin
 *        budget it used up polling (mcx__chan_poll_next): it goes on from
 *        there (no second spin phase); NULL or not begun: a wait of its own.
 * @retval MCX_OK done
 * @retval MCX_ETIMEDOUT nothing within the TIMEOUT (at once with a TIMEOUT of 0)
 * @retval MCX_ENOMEM (send) no room and the endpoint is FAIL_ON_MEM_LIMIT
 * @retval other the handle's check or the attempt's error
 */
int mcx__chan_data_call(uint32_t handle, uint32_t type, uint32_t dir, size_t size,
                        mcx__chan_try_fn fn, mcx__xfer_t *a, const mcx__backoff_t *wait);
/**
 * A blocking receive whose cached receive found the ring empty: begins the
 * wait @p b and polls the one slot word the next item changes, with no other
 * work between polls, for the wait's spin budget.
 * @retval true the word changed: the cached receive again
 * @retval false the budget ran out, or the endpoint's TIMEOUT is 0 (@p b
 *         begun: the wait goes on with it, mcx__chan_data_call), or no
 *         poll: no cache entry, a slot not in the plain empty state (@p b
 *         not begun)
 */
bool mcx__chan_poll_next(uint32_t handle, uint32_t type, mcx__backoff_t *b);

#endif
