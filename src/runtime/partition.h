/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file partition.h
 * @brief The layout of an MCAPI domain's shared partition: its header, the node
 * and endpoint tables, state channel records, the channel region's layout,
 * and the layout as a whole (computed by node.c). Everything in a partition
 * is addressed by offsets from its base, so a partition can be mapped at any
 * address (in-process: anonymous memory; the process-shared transport maps
 * the same layout from a shm object). Shared memory is input: a process
 * reads offsets and sizes through the checked copy in its domain view
 * (domain.h), never from the header on the data path.
 */
#ifndef MCX_RUNTIME_PARTITION_H
#define MCX_RUNTIME_PARTITION_H

#include <stddef.h>
#include <stdint.h>
#include "common/mcx_atomic.h"
#include "common/mcx_err.h"
#include "mca_config.h"
#include "sync/lock.h"
#include "sync/mrapi_prim.h"
#include "sync/wait.h"
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
/* An endpoint's keep word (adopt.c): none; kept when its owner dies (a
 * bridge's proxy); kept, its owner dead, waiting for adoption (owner_slot is
 * then MCA_MAX_NODES: nobody's). */
enum { MCX_KEEP_NONE = 0, MCX_KEEP_ON = 1, MCX_KEEP_ORPHAN = 2 };

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
  mcx_atomic_u32 keep; /* MCX_KEEP_*: kept through its owner's death for a restart to adopt (adopt.c) */
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

/* ---- channels (chan.h): the channel region's part of the partition's
 * layout (mcx__layout_t); the calls are declared in runtime/chan.h. */
typedef struct mcx__chan_layout {
  size_t off_chans, off_slots, off_pool_meta, off_pools;
  uint32_t n, cap, rcap, stride, nbufs;
} mcx__chan_layout_t;

/** Message pools hold at most this many buffers (the max_msg_buffers init parameter). */
#define MCX_MSG_BUFS_MAX (1u << 20)
/** The partition's layout (node.c): where each region starts, its total size. */
typedef struct mcx__layout {
  uint32_t max_eps, qcap, max_msg, nprio, msg_stride, msg_bufs;
  size_t off_nodes, off_eps, off_rings, off_slots, off_msg_meta, off_big, off_states,
      off_state_bufs, total;
  mcx__chan_layout_t chan; /* channels: records, ring slots, packet pools (chan_conn.c) */
} mcx__layout_t;

#endif
