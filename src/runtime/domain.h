/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file domain.h
 * @brief A process's view of a domain and the bottom of the runtime (domain.c):
 * the view's checked geometry, the calling thread's node (mcx__self) and
 * its fast-path caches, notifying a sleeper, the partition's mapping, the
 * admin lock, liveness and the dead-node sweep's entries, waiting, and the
 * lock-based modes' lock.
 */
#ifndef MCX_RUNTIME_DOMAIN_H
#define MCX_RUNTIME_DOMAIN_H

#include "ports/mcx_port.h"
#include "ports/mcx_port_ksem.h"
#include "ports/mcx_port_shm.h"
#include "runtime/partition.h"

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
  /* Kept mapped after a process-scope node's finalize, found by no attach
   * (mcx__domain_detach_deferred). */
  uint32_t retired_view;
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
  /* Set in a fork child by the same hook (1): not a node there. A thread that
   * uses its process's node (process scope, mcx__node_adopt) has
   * MCX_SELF_ADOPTED here, so mcx__is_node() asks out of line whether that
   * node still is. */
  uint32_t forked;
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
  /* Below here: none of the fast paths reads them (their offsets are free
   * to change). */
  uint32_t proc_gen; /* the process node's generation it was adopted in */
  /* The node's state that is too large for thread-local storage (the
   * library's initial-exec block must fit what a dlopen() after start-up
   * finds): the receive queues (request.c; a process-scope node's one table
   * is shared by its threads) and the table of messages held in place
   * (msg.c; each thread's own). Allocated at node init or adoption. */
  struct mcx__recv_qs *rq;
  struct mcx__held_tab *held;
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

#define MCX_SELF_ADOPTED 2u
/** The generation of the process's node of process scope: odd while it
 * lives (written by node.c under the domains lock, see its `proc`). */
extern mcx_atomic_u32 mcx__proc_gen;
/** The calling thread takes its process's node (node.c): a process-scope
 * node's thread, or any thread of a process whose node has process scope
 * while the thread has none of its own. 1 when it is (now) a node. */
int mcx__node_adopt(void) __attribute__((noinline, cold));

/** Whether the calling thread is a node of its own (thread scope, not a fork
 * child's copy): the test alone, for paths that send the other threads out
 * of line themselves. */
static inline int mcx__is_own_node(void) { return mcx__self.dom && !mcx__self.forked; }

/** Whether the calling thread is a node (and not a fork child's copy of one).
 * A thread of a process-scope node, and a thread that is no node, ask
 * mcx__node_adopt (out of line: a thread's own node takes the one test). */
static inline int mcx__is_node(void)
{
  if (__builtin_expect(mcx__self.dom && !mcx__self.forked, 1))
    return 1;
  return mcx__node_adopt();
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

/* ---- domain (domain.c): the bottom of the runtime. The partition's
 * mapping, the admin lock, this thread's node (mcx__self), liveness,
 * waiting and notifying. It calls no other file of the runtime: what it
 * needs of the layers above (the partition's layout, crash recovery) it
 * reaches through mcx__upcalls_t, registered by node init (node.c). */
typedef struct mcx__init_opts {
  uint32_t locking, compat, transport; /* 0 = from environment / default */
  uint32_t max_endpoints, qcap, max_msg, msg_bufs;
  uint32_t shm_mode; /* 0 = 0600 */
  uint32_t scope; /* MCX_NODE_SCOPE_*_; 0 = from environment / thread */
} mcx__init_opts_t;
#define MCX_NODE_SCOPE_THREAD_ 1u
#define MCX_NODE_SCOPE_PROCESS_ 2u
/** The node scope @p requested, or MCX_NODE_SCOPE's (domain.c). */
uint32_t mcx__resolve_scope(uint32_t requested);
/** Whether the environment asks for a locking mode (MCX_LOCKING set). */
int mcx__locking_from_env(void);

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
  /* The calling thread takes its process's node, when it has one of
   * process scope (node.c: mcx__node_adopt). */
  int (*adopt)(void);
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
/** A process-scope node's finalize: as mcx__domain_detach, but a view that
 * only it held stays mapped (other threads may still be leaving calls that
 * read it) and is no longer found by attach; mcx__domains_drop_retired()
 * unmaps it at the process's next process-scope init. */
void mcx__domain_detach_deferred(mcx__domain_t *d, int last_in_domain);
void mcx__domains_drop_retired(void);
/** Validates a mapped header (magic, version, sizes, layout); MCX_EAGAIN
 * while its creator still writes it; logs why not. */
int mcx__part_header_check(const char *name, const mcx__part_hdr_t *h, size_t size);
/** Whether every MCX_* setting of the environment is one this build knows
 * (each other one is logged). */
int mcx__env_settings_ok(void);

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

/** Whether the node in table slot @p slot belongs to a live process. */
int mcx__node_alive(const mcx__domain_t *d, uint32_t slot);
/** Node attribute type of (domain, node); MCX_ENOENT when no such node. */
int mcx__node_type(uint32_t domain_id, uint32_t node_id, uint32_t *type);
/** Pending receive requests queued by the calling thread (request.c): a
 * field of mcx__self, so the fast receives reach it with the thread-local
 * base they load for their cache. */
#define mcx__recv_queued (mcx__self.recv_queued)
/** mcx__recv_queue_wait for the blocking receives' slow paths (msg.c,
 * chan), which sit below the request layer: through the upcalls (domain.c). */
int mcx__recv_first(uint32_t kind, uint32_t handle);
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
