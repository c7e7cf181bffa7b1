/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file runtime.h
 * @brief The MCAPI runtime: domain partition, node and endpoint tables,
 * messages, requests. Called by src/api; calls transport/ and sync/.
 *
 * Everything in a partition is addressed by offsets from its base, so a
 * partition can be mapped at any address (in-process: anonymous memory; the
 * process-shared transport maps the same layout from a shm object).
 */
#ifndef MCX_RUNTIME_H
#define MCX_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include "common/mcx_atomic.h"
#include "common/mcx_err.h"
#include "mca_config.h"
#include "sync/lock.h"
#include "sync/mrapi_prim.h"
#include "sync/wait.h"
#include "ports/mcx_port.h"
#include "ports/mcx_port_ksem.h"
#include "ports/mcx_port_shm.h"
#include "transport/buf_pool.h"
#include "transport/mpsc_ring.h"
#include "transport/spsc_ring.h"
#include "runtime/receipt_hook.h"

#define MCX_PART_MAGIC UINT64_C(0x3154524150584d43) /* "CMXPART1" little-endian */
#define MCX_PART_VERSION 10u /* 10: packet slots own pool buffers (chan.h PO_WORD; the channel area's owned count) */

/** Delivery receipts per domain (mcx_receipt_open). */
#define MCX_RECEIPTS 32u
#define MCX_NPRIO (MCAPI_MAX_PRIORITY + 1)

enum { MCX_LOCK_LOCKFREE = 1, MCX_LOCK_GLOBAL = 2, MCX_LOCK_KERNEL = 3 };
enum { MCX_COMPAT_SPEC_ = 1, MCX_COMPAT_MCA203_ = 2 };
enum { MCX_TRANSPORT_SHM_ = 1, MCX_TRANSPORT_PMQ_ = 2 };

/* Endpoint states (low byte of mcx__endpoint_t.state; the rest is the generation). */
enum { EP_FREE = 0, EP_ACTIVE = 1, EP_RECONFIG = 2, EP_DELETING = 3 };
/* A flag of an active endpoint's state word: it stands for an endpoint that
 * cannot be reached now (mcx_endpoint_set_reachable, e.g. a bridge's proxy
 * while its peer is down); sends to it give MCAPI_ERR_TRANSMISSION. Every
 * other state change clears it. EP_STATE() is the state without it. */
#define EP_UNREACH 0x80u
#define EP_STATE(st) ((st) & 0x7fu)

/** Partition header: written once by the creator, then read-only, except the
 * control-plane locks and counters, each on its own line. */
typedef struct mcx__part_hdr {
  /* Written once by the creator before `magic` (released last), then read-only. */
  mcx_atomic_u64 magic;
  uint32_t version;
  uint32_t hdr_size;
  uint64_t total_size;
  uint32_t domain_id;
  uint32_t locking;
  uint32_t compat;
  uint32_t transport;
  uint32_t max_nodes;
  uint32_t max_endpoints;
  uint32_t nprio;
  uint32_t qcap;    /* slots reserved per ring (power of two) */
  uint32_t max_msg; /* the largest message */
  uint32_t owner_uid;
  uint32_t creator_pid;
  uint32_t node_size, ep_size, ring_size, slot_size; /* struct sizes: layout check */
  uint64_t off_nodes, off_eps, off_rings, off_slots, off_big;
  /* The message payload pool (mcx__mpool_t): header line, states, links at
   * off_msg_meta; n_msg_bufs buffers of msg_stride bytes at off_big. */
  uint64_t off_msg_meta;
  uint32_t n_msg_bufs, msg_stride;
  uint64_t off_states, off_state_bufs; /* state channels (mcx_state_*) */
  /* Channels (chan.h): records, ring slots, packet pools; see mcx__chan_layout(). */
  uint64_t off_chans, off_chan_slots, off_chan_pools, off_pkt_meta;
  uint32_t n_chans, chan_cap, chan_rcap, pkt_stride, n_pkt_bufs, pad_;
  /* Random, drawn by the creator: part of the names of the domain's message
   * queues (pmq), so no other user can guess one and create it first. */
  uint64_t name_tag;
  /* Control plane: node/endpoint table updates. Robust: a holder's death is
   * detected by the next locker, which repairs half-done updates. */
  MCX_ALIGNED_LINE mcx__rmutex_t admin;
  mcx_atomic_u32 n_nodes;
  mcx_atomic_u32 retired; /* set (under admin) before the name is unlinked */
  /* The global locking mode's lock (a user-space reader/writer lock). */
  MCX_ALIGNED_LINE mcx__rwlock_t global;
  /* The kernel locking mode's lock (the reference design's): a SysV semaphore
   * id, set by the creator before `magic`, then read-only; -1 in other modes. */
  int32_t kernel_sem;
  /* Endpoint creations, for mcapi_endpoint_get waiters. */
  MCX_ALIGNED_LINE mcx__waitpoint_t ep_created;
  /* Delivery receipts (mcx_receipt_open, mcx_msg_send_receipted), a line
   * each: claimed and deleted under admin, written by their one sender. */
  mcx__receipt_t receipts[MCX_RECEIPTS];
} mcx__part_hdr_t;

/* Node states. */
enum { NODE_FREE = 0, NODE_ACTIVE = 1 };

typedef struct mcx__node {
  MCX_ALIGNED_LINE mcx_atomic_u32 state; /* NODE_*; written under admin */
  mcx_atomic_u32 node_id;
  mcx_atomic_u32 pid;
  mcx_atomic_u32 tid;
  mcx_atomic_u32 type;
  /* Written by the node itself on every send: the ring position it is about
   * to reserve ((ring + 1) << 48 | pos), 0 when none. Read only by recovery,
   * which tells a dead sender's orphaned reservation from a live one's. */
  mcx_atomic_u64 inflight;
  /* The node's endpoints by creation index (endpoint slot + 1, 0 = none):
   * at most MCAPI_MAX_ENDPOINTS per node, as in the reference, whose
   * handles name (node, index). Written under admin (R-E3), read by every
   * handle decode of the mca-2.0.3 profile (A-E3). */
  mcx_atomic_u32 ep_slot[MCAPI_MAX_ENDPOINTS];
} mcx__node_t;

typedef struct mcx__endpoint {
  /* Line 0 — identity and attributes: written by the owner under the admin
   * lock (create, delete, set_attribute), read by every sender. */
  MCX_ALIGNED_LINE union {
    struct {
      mcx_atomic_u32 state; /* gen << 8 | EP_* */
      mcx_atomic_u32 chan;  /* channel connection (chan.h); 0 = message endpoint */
    };
    /* Both words in one: the message fast paths compare them with one load
     * against mcx__ep_sc() of the state they cached (msg.h). */
    mcx_atomic_u64 state_chan;
  };
  mcx_atomic_u32 node_id;
  mcx_atomic_u32 port;
  mcx_atomic_u32 owner_slot;
  mcx_atomic_u32 ring_epoch; /* incarnation of the rings (mpsc_ring.h) */
  mcx_atomic_u32 depth;      /* NUM_RECV_BUFFERS: slots used per ring */
  mcx_atomic_u32 timeout_ms;
  mcx_atomic_u32 fail_on_mem_limit;
  mcx_atomic_u32 priority;
  mcx_atomic_u32 get_count;
  mcx_atomic_u32 ref_index; /* its index among its node's endpoints (ep_slot) */
  mcx_atomic_u32 ref_closed; /* mca-2.0.3: type | side of its last channel, once closed */
  /* Line 1 — written by senders the first time they use a priority. */
  MCX_ALIGNED_LINE mcx_atomic_u32 used_prios;
  mcx_atomic_u32 pmq_senders; /* pmq: senders between their state check and mq_send (pmq.c) */
  /* Line 2 — the receiver sleeps here; senders notify. */
  MCX_ALIGNED_LINE mcx__waitpoint_t recv_wp;
  /* Line 3 — senders waiting for space sleep here; the receiver notifies. */
  MCX_ALIGNED_LINE mcx__waitpoint_t space_wp;
  /* Line 4 — traffic counters, written only by the owner (the node that
   * sends from and receives on this endpoint) with plain stores, read by
   * `mca domains`: no locked instruction, and the line stays in the owner's
   * cache. Reset at create. */
  MCX_ALIGNED_LINE mcx_atomic_u64 n_sent; /* messages sent from this endpoint */
  /* Messages received on it: on shm, those taken before the rings' last
   * reset (a resize), the rings' heads count the rest; on pmq, all. */
  mcx_atomic_u64 n_received;
  mcx_atomic_u64 n_dropped; /* sends from it refused for want of space (MEM_LIMIT, TIMEOUT) */
  mcx_atomic_u32 hwm;       /* high-water mark before the rings' last reset (see the rings') */
} mcx__endpoint_t;

/** An endpoint's state_chan when its state word is @p st and it is connected
 * to no channel (in either byte order). */
static inline uint64_t mcx__ep_sc(uint32_t st)
{
  union {
    uint64_t w;
    uint32_t h[2];
  } u = {.h = {st, 0}};
  return u.w;
}

/** Adds @p n to an owner-written counter. Relaxed, no locked
 * read-modify-write: only the owner writes it; readers (mca domains) need no
 * ordering (mcx_owner_add_u64). */
static inline void mcx__ctr_add(mcx_atomic_u64 *c, uint64_t n) { mcx_owner_add_u64(c, n); }

/* ---- state channels (state.c): latest-value exchange, NBW protocol */
#define MCX_STATE_CHANNELS 16
#define MCX_STATE_MAX_SIZE 4096
#define MCX_STATE_MAX_BUFFERS 8
#define MCX_STATE_STRIDE_WORDS (1 + MCX_STATE_MAX_SIZE / 8)

typedef struct mcx__state {
  /* Line 0: identity, written under the admin lock by the writer's node. */
  MCX_ALIGNED_LINE mcx_atomic_u32 state; /* gen << 8 | EP_FREE / EP_ACTIVE */
  mcx_atomic_u32 node_id;
  mcx_atomic_u32 port;
  mcx_atomic_u32 owner_slot;
  mcx_atomic_u32 max_size;
  mcx_atomic_u32 nbuf;
  /* Line 1: the concurrency-control field, written by the writer only. */
  MCX_ALIGNED_LINE mcx_atomic_u64 ccf;
  /* Line 2: readers waiting for a newer version sleep here. */
  MCX_ALIGNED_LINE mcx__waitpoint_t wp;
} mcx__state_t;

/** A partition's geometry, computed once at attach from the header's three
 * sizes (checked) and kept in process memory: the data path never re-reads
 * an offset or a size from the shared header, which another process could
 * have changed since it was checked. */
typedef struct mcx__geom {
  size_t off_nodes, off_eps, off_rings, off_slots, off_big, off_states, off_state_bufs, off_chans;
  size_t off_chan_slots, off_chan_pools, off_pkt_meta, off_msg_meta;
  uint32_t max_endpoints, nprio, qcap, max_msg, msg_stride, n_msg_bufs, n_chans, chan_cap, chan_rcap;
  uint32_t n_pkt_bufs, pkt_stride;
} mcx__geom_t;

/** The TIMEOUT and FAIL_ON_MEM_LIMIT attributes of one of this process's
 * own endpoints, as its owner set them (see mcx__domain_t.ep_local). */
typedef struct mcx__ep_local {
  uint32_t timeout_ms, fail;
} mcx__ep_local_t;
#define MCX_EP_LOCAL_MAX 4094u /* = MCX_H_MAX_INDEX */

/** A process's view of one domain partition. */
typedef struct mcx__domain {
  uint32_t domain_id;
  uint32_t refs; /* nodes of this process in the domain; under the process lock */
  uint8_t *base;
  size_t size;
  mcx__part_hdr_t *hdr;
  mcx__geom_t g; /* the layout, in process memory (see mcx__geom_t) */
  /* By endpoint index: the attributes an owner's blocking calls use, kept
   * in process memory and never read back from the partition (shared memory
   * is input: another process could make a timeout infinite there). Written
   * and read by the owner's thread only; the partition keeps a copy for
   * other processes' get_attribute and for mca domains. */
  mcx__ep_local_t ep_local[MCX_EP_LOCAL_MAX];
  int fastpath;  /* lock-free shm: the api layer's one-attempt paths apply (msg.h) */
  int shared; /* futexes in a mapping shared between processes */
  uint32_t locking;
  uint32_t compat;
  char name[96]; /* the shm object's name (MCX_PORT_SHM_NAME_MAX) */
  uint32_t transport;     /* MCX_TRANSPORT_*_: the one branch of the message calls */
  struct mcx__pmq *pmq;   /* pmq: this process's queue descriptors (transport/pmq.c) */
  /* The message payload pool, located once at attach (msg.c). */
  mcx__mpool_t mpool;
  /* The packet buffer pool, located once at attach (chan_conn.c). */
  mcx__pool_view_t pkt_pool;
  mcx_atomic_u64 *pkt_state; /* per buffer: its holder (chan.h, PB_WORD) */
  uint8_t *pkt_bufs;
  uint32_t pkt_stride;
  /* Buffer index of a byte offset into the pool without a division
   * (mcx__recip_index; set at attach, chan_conn.c). */
  mcx__recip_t pkt_recip;
  /* The channels' data rings (chan_conn.c): where they start, their span, and
   * log2 of one record's span (a power of two), so a pointer into a packet
   * slot gives its record and slot by shifts. */
  uint8_t *pslots;
  size_t pslot_span;
  uint32_t pslot_rec_shift;
} mcx__domain_t;

/** Fills d->g from the checked header of the mapping at d->base (d->size
 * bytes); MCX_EIO when the sizes do not give a layout of exactly that size
 * (node.c). */
int mcx__take_geometry(mcx__domain_t *d);

/** The calling thread's node (thread-local). */
typedef struct mcx__self {
  mcx__domain_t *dom;
  uint32_t node_slot;
  uint32_t node_id;
  uint32_t key; /* process-unique node key, owner of requests */
  /* The message fast path's view (msg.h): the domain when it takes the
   * fast path (lock-free shm; cleared in a fork child by an atfork hook),
   * this node's endpoint cache (process memory, this thread's only) and its
   * in-flight record in the partition. */
  mcx__domain_t *fast;
  uint32_t forked; /* set in a fork child by the same hook: not a node there */
  struct mcx__epc *epc;
  /* The table the message receive's fast path looks in: `epc`, or the empty
   * one while this thread has receive requests queued (recv_queued), which
   * a blocking receive lets go first (its slow path: mcx__recv_first), so
   * the fast path tests no count. mcx__self_recv_queued keeps the two
   * together. */
  struct mcx__epc *epc_rx;
  /* The same for channel handles (runtime/chan.h): four tables, a kind and
   * an end each (mcx__chc_entry), one pointer each so an entry costs no table offset;
   * chc[0] is where they start (the allocation). mcx__self_set_chc sets them. */
  struct mcx__chc *chc[4];
  mcx_atomic_u64 *intent;
  /* The largest payload the message fast path copies into a slot,
   * min(MCX_SLOT_INLINE, the domain's max_msg), set by every fill of the
   * endpoint cache (0 before the first: every send takes the other paths). */
  size_t msg_lim;
  uint32_t recv_queued; /* mcx__recv_queued; written by mcx__self_recv_queued */
} mcx__self_t;

/* An empty entry of those caches: no handle has this value, and a forged one
 * that does finds a state word no endpoint or channel has, so it takes the
 * full path. */
#define MCX_EPC_EMPTY 0xffffffffu

/*
 * The caches of a thread that does not take the fast paths (no node, a
 * lock-based mode, the pmq transport, a fork child's copy of its parent's
 * node): read-only tables where no handle hits, so the fast paths need no
 * other test. Their entries are empty (MCX_EPC_EMPTY) and point at a
 * zero-filled record, whose state word (0) no entry holds: a forged handle
 * equal to MCX_EPC_EMPTY reads it and takes the full path. Nothing writes
 * them (a mismatch on the fast paths writes nothing; refills run only where
 * mcx__self.fast is set, and so the tables are the node's own).
 */
extern struct mcx__epc *const mcx__epc_none;
extern struct mcx__chc *const mcx__chc_none;
/** Takes the calling thread off the fast paths: mcx__self.fast cleared, the
 * caches the empty tables above (the node's own stay allocated: a fork
 * child, which calls this, must not free). */
void mcx__self_no_fast(void);
/** Sets the calling thread's count of queued receive requests to @p n, and
 * the receive fast path's table with it (mcx__self_t.epc_rx). */
void mcx__self_recv_queued(uint32_t n);
/** Points the calling thread's endpoint cache at @p epc (its own, or
 * mcx__epc_none), the receive fast path's table with it. */
void mcx__self_set_epc(struct mcx__epc *epc);
/** Points the calling thread's channel-cache tables into @p base (4 x
 * MCX_CHC_WAYS entries: the node's own, or mcx__chc_none). */
void mcx__self_set_chc(struct mcx__chc *base);

extern MCX_TLS mcx__self_t mcx__self;

/*
 * The fast paths' notify (F-W2 after their publish). They run only where
 * this process's notifiers may skip the fence (mcx__node_init sets
 * mcx__self.fast only then: the kernel registered it for the asymmetric
 * barrier, decided at load), so F-W2 is a compiler barrier with no test;
 * ports without that barrier fence. The rare wake is out of line and cold,
 * and finds the domain's `shared` itself.
 */
#ifdef _WIN32
#define MCX_FAST_NOTIFIER_LIGHT 0
#else
#define MCX_FAST_NOTIFIER_LIGHT 1
#endif
/* The wake reads the sleepers count again (the test below only says it was
 * not zero): a count that dropped meanwhile is one whose sleepers left, and
 * a sleeper that came after F-W2 sees the publish in its own re-check. */
void mcx__wake_fast(mcx__waitpoint_t *wp) __attribute__((noinline, cold));
uint64_t mcx__wake_fast_v(mcx__waitpoint_t *wp, uint64_t v) __attribute__((noinline, cold));
static inline bool mcx__sleepers_after_publish_fast(mcx__waitpoint_t *wp)
{
  /* F-W2 — pairs with F-W1 and H-W1 (sync/wait.h); light as described above. */
  if (MCX_FAST_NOTIFIER_LIGHT)
    mcx_fence_compiler();
  else
    mcx_fence_seq_cst();
  return mcx_nonzero_relaxed_u32(&wp->sleepers);
}
static inline void mcx__notify_fast(mcx__waitpoint_t *wp)
{
  if (__builtin_expect(mcx__sleepers_after_publish_fast(wp), 0))
    mcx__wake_fast(wp);
}
/** mcx__notify_fast, then @p v (its wake a tail call that returns it). */
static inline uint64_t mcx__notify_fast_v(mcx__waitpoint_t *wp, uint64_t v)
{
  if (__builtin_expect(mcx__sleepers_after_publish_fast(wp), 0))
    return mcx__wake_fast_v(wp, v);
  return v;
}

/** Whether the calling thread is a node (and not a fork child's copy of one). */
static inline int mcx__is_node(void)
{
  return mcx__self.dom && !mcx__self.forked;
}
extern mcx_atomic_u32 mcx__debug_level;

/** Whether the calling node's domain runs the mca-2.0.3 profile. @pre a node. */
static inline int mcx__ref(void) { return mcx__self.dom->compat == MCX_COMPAT_MCA203_; }
/** The profile of the caller's domain, or the environment's when not a node. */
uint32_t mcx__compat_of_caller(void);

static inline mcx__node_t *mcx__nodes(const mcx__domain_t *d)
{
  return (mcx__node_t *)(d->base + d->g.off_nodes);
}
static inline mcx__endpoint_t *mcx__eps(const mcx__domain_t *d)
{
  return (mcx__endpoint_t *)(d->base + d->g.off_eps);
}

/** The ring of endpoint @p idx, priority @p prio, with @p depth slots in use. */
static inline mcx__ring_view_t mcx__ring_of(const mcx__domain_t *d, uint32_t idx, uint32_t prio,
                                            uint32_t depth)
{
  const mcx__geom_t *h = &d->g;
  size_t ring_no = (size_t)idx * h->nprio + prio;
  mcx__ring_view_t v;
  v.ring = (mcx__mpsc_ring_t *)(d->base + h->off_rings + ring_no * sizeof(mcx__mpsc_ring_t));
  v.slots = (mcx__msg_slot_t *)(d->base + h->off_slots + ring_no * h->qcap * sizeof(mcx__msg_slot_t));
  v.mp = &d->mpool;
  v.tag = ((uint64_t)ring_no + 1) << 48;
  /* depth comes from the shared endpoint record: a value that is not a power
   * of two within the layout's capacity (corrupt) counts as the capacity, so
   * the ring is never indexed past its end and every side agrees. */
  v.mask = (depth & (depth - 1)) == 0 && depth - 1 < h->qcap ? depth - 1 : h->qcap - 1;
  return v;
}

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


/* ---- domain (domain.c): the bottom of the runtime. The partition's
 * mapping, the admin lock, this thread's node (mcx__self), liveness,
 * waiting and notifying. It calls no other file of the runtime: what it
 * needs of the layers above (the partition's layout, crash recovery) it
 * reaches through mcx__upcalls_t, registered by node init (node.c). */
typedef struct mcx__init_opts {
  uint32_t locking, compat, transport; /* 0 = from environment / default */
  uint32_t max_endpoints, qcap, max_msg, msg_bufs;
  uint32_t shm_mode; /* 0 = 0600 */
} mcx__init_opts_t;

struct mcx__layout;
/**
 * What the bottom of the runtime calls of the layers above it: one table,
 * given by the top (node.c) before any domain is mapped. Control plane, the
 * dead-node sweep, and the blocking receives' wait for the receive requests
 * queued before them: no fast path goes through it.
 */
typedef struct mcx__upcalls {
  /* The partition's layout (node.c): computed from the options (0 or
   * MCX_EINVAL), written into a fresh partition's header with its pools
   * formatted (before the header is published), compared with a mapped
   * header's offsets (0: they match), taken into a view's geometry
   * (mcx__take_geometry: 0 or MCX_EIO), and the view's pools located
   * (mcx__chan_attach, mcx__msg_attach). */
  int (*layout)(const mcx__init_opts_t *o, struct mcx__layout *l);
  void (*format)(mcx__part_hdr_t *h, const struct mcx__layout *l);
  int (*layout_differs)(const mcx__part_hdr_t *h);
  int (*geometry)(mcx__domain_t *d);
  void (*attach)(mcx__domain_t *d);
  /* Crash recovery (recovery.c), admin lock held: the dead-node sweep
   * (mcx__sweep_dead_locked) and the orphaned reservations of dead senders
   * (mcx__resolve_orphans_locked). */
  uint32_t (*sweep_dead_locked)(mcx__domain_t *d);
  void (*resolve_orphans_locked)(mcx__domain_t *d);
  /* The request layer's wait until the receive requests of (kind, handle)
   * the calling thread queued are served (mcx__recv_queue_wait). */
  int (*recv_queue_wait)(uint32_t kind, uint32_t handle);
} mcx__upcalls_t;
/** Registers the table (idempotent; the same table every time). */
void mcx__upcalls_register(const mcx__upcalls_t *u);

/* The process's domain views (domain.c), for node init and finalize. */
/** The process lock over its domain views; held around attach and detach. */
void mcx__domains_lock(void);
void mcx__domains_unlock(void);
/** After fork(), in the child: drops the parent's domain views (its
 * mappings, queues and lock). Returns 1 in the child's first call (the
 * caller drops the rest of the parent's state), 0 otherwise. */
int mcx__domains_forget_parent(void);
/** Finds or maps the process's view of @p domain_id (domains lock held). */
int mcx__domain_attach(uint32_t domain_id, const mcx__init_opts_t *o, mcx__domain_t **out);
/** Drops a reference to a view; the last in the domain removes the partition. */
void mcx__domain_detach(mcx__domain_t *d, int last_in_domain);
/** Validates a mapped header (magic, version, sizes, layout); MCX_EAGAIN
 * while its creator still writes it; logs why not. */
int mcx__part_header_check(const char *name, const mcx__part_hdr_t *h, size_t size);
/** Whether every MCX_* setting of the environment is one this build knows
 * (each other one is logged). */
int mcx__env_settings_ok(void);

/* ---- node (node.c): the top of the runtime, above crash recovery. The
 * partition's layout, a node's init and finalize. */
int mcx__node_init(uint32_t domain_id, uint32_t node_id, uint32_t node_type,
                   const mcx__init_opts_t *opts);
int mcx__node_finalize(void);

/* ---- domain (domain.c), continued */
/**
 * Calls @p try_fn until it returns 0, waiting on @p wp (spin, yield, futex)
 * up to @p timeout_ms between attempts. @return 0 or MCX_ETIMEDOUT.
 */
int mcx__wait_until(mcx__domain_t *d, mcx__waitpoint_t *wp, uint32_t timeout_ms,
                    int (*try_fn)(void *), void *ctx);
/** Validates a mapped partition (magic, version, sizes, offsets); logs why not (node.c). */
int mcx__part_check(const char *name, const void *base, size_t size);
/** This thread's kernel tid (cached; refreshed after fork). */
uint32_t mcx__my_tid(void);
/** The partition's control-plane lock (robust; repairs after a dead holder). */
void mcx__admin_lock(mcx__domain_t *d);
/**
 * The same with a bounded wait: a holder that lives but never lets go (a
 * forged owner word) is given up on, with a log line naming it.
 * @retval 0 locked (repaired after a dead holder)
 * @retval MCX_ETIMEDOUT held by the same live thread for too long
 * @retval MCX_EIO the lock word is corrupt
 */
int mcx__admin_lock_bounded(mcx__domain_t *d);
void mcx__admin_unlock(mcx__domain_t *d);
/**
 * Reclaims every node whose process died: their orphaned ring reservations
 * are published as tombstones, their endpoints deleted, their slots freed.
 * Caller holds the admin lock. Returns the number of nodes reclaimed.
 * The sweep is recovery.c's (mcx__recovery_sweep_locked); these entries are
 * domain.c's, through the upcalls, so the layers below recovery call down.
 */
uint32_t mcx__sweep_dead_locked(mcx__domain_t *d);
/** Whether some node of the domain belongs to a thread that no longer runs. */
int mcx__any_dead_node(const mcx__domain_t *d);
/** Takes the admin lock and sweeps. */
uint32_t mcx__sweep_dead(mcx__domain_t *d);
/** Sweeps only if the admin lock is free now (callers that may hold the global lock). */
uint32_t mcx__sweep_dead_try(mcx__domain_t *d);
/** Publishes tombstones for dead senders' orphaned reservations (admin lock held). */
void mcx__resolve_orphans_locked(mcx__domain_t *d);

/* ---- crash recovery (recovery.c): above the objects it repairs, below node.c */
/** The dead-node sweep (mcx__sweep_dead_locked's work; admin lock held). */
uint32_t mcx__recovery_sweep_locked(mcx__domain_t *d);
/** Tombstones for dead senders' orphaned reservations (admin lock held). */
void mcx__recovery_resolve_orphans_locked(mcx__domain_t *d);

/* ---- delivery receipts (receipt.c; the setting is in mcx__mpsc_enqueue, the
 * settling of a dead sender's send in recovery.c) */
/** The receipt of @p handle, NULL when it names none (stale or forged). */
mcx__receipt_t *mcx__receipt_get(mcx__domain_t *d, uint32_t handle);
/** Finds or makes the receipt of @p key (after the dead-node sweep): its handle and value. */
int mcx__receipt_open(uint64_t key, uint32_t *handle, uint64_t *value);
int mcx__receipt_set(uint32_t handle, uint64_t value);
int mcx__receipt_delete(uint64_t key);
/** Re-opens the rings of an endpoint left in EP_RECONFIG (admin lock held). */
void mcx__ep_reopen_locked(mcx__domain_t *d, uint32_t idx);
/** Whether the node in table slot @p slot belongs to a live process. */
int mcx__node_alive(const mcx__domain_t *d, uint32_t slot);
/** Deletes endpoint @p idx (admin lock held); used by delete and the sweep. */
void mcx__ep_delete_locked(mcx__domain_t *d, uint32_t idx);
/* ---- messages over the pmq transport (msg_pmq.c): the endpoint's side of transport/pmq.c */
/** A send with the endpoint's TIMEOUT (@p block 0: one try); statuses as mcx__msg_send's. */
int mcx__msg_pmq_send(mcx__domain_t *d, mcx__endpoint_t *src, mcx__endpoint_t *dst, uint32_t to,
                      const void *buf, size_t size, uint32_t prio, int block);
/** A receive on the caller's endpoint @p h (@p block 0: one try); MCX_ETRUNC with the full size. */
int mcx__msg_pmq_recv(mcx__domain_t *d, mcx__endpoint_t *ep, uint32_t h, void *buf, size_t cap,
                      size_t *size, int block);
/** Messages queued to endpoint @p ep. */
int mcx__msg_pmq_available(mcx__domain_t *d, mcx__endpoint_t *ep, uint32_t *count);
/** Unlinks the queue of a deleted endpoint (state DELETING, admin lock held); the messages dropped. */
uint32_t mcx__msg_pmq_delete(mcx__domain_t *d, mcx__endpoint_t *e, uint32_t idx);
/** NUM_RECV_BUFFERS: re-creates the empty queue with @p depth messages (admin lock held).
 * @retval 0, MCX_EBUSY (messages queued or being sent), MCX_ELIMIT (with a message) */
int mcx__msg_pmq_resize(mcx__domain_t *d, mcx__endpoint_t *e, uint32_t idx, uint32_t depth);
/** Node attribute type of (domain, node); MCX_ENOENT when no such node. */
int mcx__node_type(uint32_t domain_id, uint32_t node_id, uint32_t *type);
/** Prints the caller's domain, nodes and endpoints (node.c). */
void mcx__display_state(void);

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

/* ---- state channels (state.c) */
int mcx__state_create(uint32_t port, uint32_t max_size, uint32_t nbuf, uint32_t *handle);
int mcx__state_open(uint32_t node_id, uint32_t port, uint32_t timeout_ms, uint32_t *handle);
int mcx__state_close(uint32_t handle);
int mcx__state_write(uint32_t handle, const void *buf, size_t size);
/** 0 (or MCX_ETRUNC), MCX_EAGAIN when lapped @p retries times, or handle errors. */
int mcx__state_read(uint32_t handle, void *buf, size_t cap, size_t *size, uint64_t *version,
                    uint32_t retries);
int mcx__state_wait_newer(uint32_t handle, uint64_t known, uint32_t timeout_ms, uint64_t *version);
/** Deletes the state channels owned by table slot @p node_slot (admin lock held). */
void mcx__state_delete_of_node_locked(mcx__domain_t *d, uint32_t node_slot);

/* ---- messages (msg.c): runtime/msg.h */

/* ---- requests (request.c) */
enum mcx__req_kind {
  REQ_MSG_SEND = 1, REQ_MSG_RECV, REQ_EP_GET, REQ_DONE,
  /* channels (chan.h) */
  REQ_CHAN_CONNECT, REQ_CHAN_OPEN, REQ_CHAN_CLOSE, REQ_PKT_SEND, REQ_PKT_RECV,
  /* completed by a poll of its own (a->poller, context a->buf) */
  REQ_POLL,
};

/*
 * A request whose operation is another process's answer (mcx_foreign.c):
 * poll makes one attempt from the owner's test or wait (MCX_EAGAIN while
 * pending, else the result; the context is then the poller's own to free);
 * drop frees the context of a request that will never complete: cancelled
 * (cancelled = 1, on the owner's thread) or abandoned when its node
 * finalizes (0).
 */
typedef struct mcx__req_poller {
  int (*poll)(void *ctx);
  void (*drop)(void *ctx, int cancelled);
} mcx__req_poller_t;

typedef struct mcx__req_args {
  uint32_t kind;
  uint32_t ep, ep2, prio, node_id, port;
  const void *cbuf;
  void *buf;
  size_t size;
  uint32_t *out_handle;
  uint32_t chan; /* channels: type | direction << 8 (chan.h) */
  const mcx__req_poller_t *poller; /* REQ_POLL */
} mcx__req_args_t;

/**
 * Starts a request: tries the operation once; completes at once or stays
 * pending. @p result_now receives the completion result when it completed.
 * @return 0 with *handle set, or MCX_ENOMEM when the pool is exhausted.
 */
int mcx__req_start(const mcx__req_args_t *a, int completed, int result, size_t size,
                   uint32_t *handle);
/**
 * Starts a request and makes its first attempt (a receive joins the back of
 * its endpoint's or channel's receive queue first).
 * @return 1 completed (*result, *size set; not yet reported), 0 pending, or
 * MCX_ENOMEM when the pool is exhausted (nothing was done).
 */
int mcx__req_begin(const mcx__req_args_t *a, uint32_t *handle, int *result, size_t *size);
/** Frees a completed request that will never be reported (its start failed). */
void mcx__req_discard(uint32_t handle);
/** Pending receive requests queued by the calling thread (request.c): a
 * field of mcx__self, so the fast receives reach it with the thread-local
 * base they load for their cache. */
#define mcx__recv_queued (mcx__self.recv_queued)
/**
 * Serves the receive queue of (@p kind, @p handle) in order.
 * @return 1 when it is empty (a new receive may take the next item), else 0.
 */
int mcx__recv_queue_drain(uint32_t kind, uint32_t handle);
/** Waits until the receive queue of (@p kind, @p handle) is empty (a blocking
 * receive comes after every receive request posted before it). */
int mcx__recv_queue_wait(uint32_t kind, uint32_t handle);
/** mcx__recv_queue_wait for the blocking receives' slow paths (msg.c,
 * chan), which sit below the request layer: through the upcalls (domain.c). */
int mcx__recv_first(uint32_t kind, uint32_t handle);
/** Progress + report. @return 1 completed (result, size set), 0 pending, <0 bad handle. */
int mcx__req_test(uint32_t handle, int *result, size_t *size);
int mcx__req_wait(uint32_t handle, uint32_t timeout_ms, int *result, size_t *size);
int mcx__req_wait_any(size_t n, const uint32_t *handles, uint32_t timeout_ms, size_t *index,
                      int *result, size_t *size);
int mcx__req_cancel(uint32_t handle);
/** Forgets every request (a fork child's copy of its parent's). */
void mcx__req_forget_all(void);
/** Frees every request of the calling node (finalize). */
void mcx__req_release_node(uint32_t key);
/** Requests in use (tests, display_state). */
uint32_t mcx__req_in_use(void);

/* ---- channels (chan.h): the channel region's part of the partition's
 * layout (mcx__layout_t); the calls are declared in runtime/chan.h. */
typedef struct mcx__chan_layout {
  size_t off_chans, off_slots, off_pool_meta, off_pools;
  uint32_t n, cap, rcap, stride, nbufs;
} mcx__chan_layout_t;

/** Message pools hold at most this many buffers (the max_msg_buffers init parameter). */
#define MCX_MSG_BUFS_MAX (1u << 20)
/** Locates the message payload pool of a checked partition (msg.c). */
void mcx__msg_attach(mcx__domain_t *d);
/** Fills a new partition's message pool (creator, before the header is published). */
void mcx__msg_init_pool(uint8_t *base, size_t off_meta, uint32_t nbufs);
/** Frees the message pool buffers held by node slot @p slot (dead, or
 * finalizing; admin lock held): payloads it was sending or held in place. */
void mcx__msg_reclaim_buffers_locked(mcx__domain_t *d, uint32_t slot);
/** The partition's layout (node.c): where each region starts, its total size. */
typedef struct mcx__layout {
  uint32_t max_eps, qcap, max_msg, nprio, msg_stride, msg_bufs;
  size_t off_nodes, off_eps, off_rings, off_slots, off_msg_meta, off_big, off_states,
      off_state_bufs, total;
  mcx__chan_layout_t chan; /* channels: records, ring slots, packet pools (chan_conn.c) */
} mcx__layout_t;

/* ---- lock-based modes: one lock taken exclusively around every queue
 * operation. global: the partition's reader/writer lock (a writer has an
 * owner, so a holder's death is recovered; readers have none, so none are
 * used). kernel: one SysV semaphore, a system call for each P and V (the
 * kernel releases a dead holder's). */
static inline const char *mcx__locking_name(uint32_t locking)
{
  return locking == MCX_LOCK_GLOBAL ? "global" : locking == MCX_LOCK_KERNEL ? "kernel" : "lock-free";
}
static inline void mcx__glock(const mcx__domain_t *d)
{
  if (d->locking == MCX_LOCK_LOCKFREE)
    return;
  if (d->locking == MCX_LOCK_GLOBAL)
    mcx__rwlock_wrlock(&d->hdr->global, d->shared, mcx__my_tid());
  else
    mcx_port_ksem_lock(d->hdr->kernel_sem);
}
static inline void mcx__gunlock(const mcx__domain_t *d)
{
  if (d->locking == MCX_LOCK_LOCKFREE)
    return;
  if (d->locking == MCX_LOCK_GLOBAL)
    mcx__rwlock_wrunlock(&d->hdr->global, d->shared);
  else
    mcx_port_ksem_unlock(d->hdr->kernel_sem);
}

#define MCX_DEBUG(level, ...)                                 \
  do {                                                        \
    if (mcx_load_relaxed(&mcx__debug_level) >= (level))       \
      mcx_port_log(__VA_ARGS__);                              \
  } while (0)

#endif
