/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Connectionless messages (msg.c, msg_cache.c): what the api layer calls.
 *
 * A send and a blocking receive are each an inline fast path here,
 * mcx__msg_send_fast and mcx__msg_recv_fast, and one out-of-line slow path
 * in msg.c, mcx__msg_send_slow and mcx__msg_recv_slow. The fast
 * path serves a node of a lock-free shm domain from its endpoint cache
 * (below) with one ring operation and nothing else: no wait-policy setup, no
 * transport or locking branch. When it cannot finish (a cache miss, a ring
 * full or empty, a payload or a priority it does not serve, a thread that is
 * no node) it has changed nothing, and the slow path (msg.c) does the rest:
 * it checks everything again, tries the cache's other rings and the pool,
 * waits, serves the other modes and transports, and reports why it failed.
 */
#ifndef MCX_RUNTIME_MSG_H
#define MCX_RUNTIME_MSG_H

#include "runtime/domain.h"
#include "runtime/endpoint.h"

#define MCX_FAST static inline __attribute__((always_inline))

/** The calling node's domain when it takes the fast paths (lock-free shm),
 * else NULL: a fork child's copy is cleared by an atfork hook
 * (mcx__node_init), finalize clears it too. The fast paths themselves do
 * not test it: their caches are then the empty tables (mcx__epc_none). */
MCX_FAST mcx__domain_t *mcx__fast_domain(void) { return mcx__self.fast; }

/*
 * The endpoint cache: what the fast path needs of an endpoint, resolved once
 * and kept in process memory, so a call costs one compare of the handle and
 * one of the endpoint's state word (generation and liveness together, and,
 * for the source and the receiver, ownership: see `own`) instead of decoding
 * the handle and recomputing the ring geometry from the layout. Each node
 * (thread) has its own, direct-mapped by the handle's low bits; a miss or a
 * mismatch takes the full path, which checks everything again (and
 * mcx__epc_fill refills the entry).
 *
 * Validity: the handle names one incarnation (its generation); the state
 * word, compared on every call, changes with every delete, re-create and
 * reachability change, and reads EP_RECONFIG during a re-size. The geometry
 * belongs to the ring epoch it was read with (A-E4 at fill time). A re-size
 * brings the state word back to what it was, so the epoch is checked where
 * it is used: a sender's enqueue compares the ring's tail, which carries the
 * epoch and refuses a stale one (and the full path then refills the entry);
 * a receiver is the endpoint's owner, the only node that re-sizes it, and
 * the re-size forgets the owner's entries of the endpoint
 * (mcx__epc_forget). Nothing in the entry is read from the partition
 * without the checks mcx__ring_of makes (shared memory is input).
 *
 * The ring of one priority is kept resolved (`prio`): the one last sent to,
 * or the one a receive found alone in the endpoint's used_prios. An entry
 * names it only once its bit was seen set in used_prios for the entry's
 * incarnation (the bit is cleared only by a create, which changes the state
 * word), so a send at that priority skips the bit's test; a receive whose
 * used_prios is exactly that bit reads that ring without the scan. Any other
 * priority takes a middle tier that resolves it (mcx__epc_prio) or scans
 * (the slow path's scan, msg.c) and still no full path.
 */
/* 256 entries of 128 bytes (32 KiB a node): the index is the handle's low
 * byte, one zero-extending move, and endpoints 0..254 of a domain each have
 * their own entry. */
#define MCX_EPC_N 256u
/* No priority's ring resolved. A send at this priority (out of range)
 * matches it, and then finds the entry's view an empty, closed ring in
 * process memory (epc_set_prio): its tail refuses the reservation, and the
 * full path reports the priority. So a send's one compare with `prio` also
 * refuses every priority out of range, with no test of the range first. */
#define MCX_EPC_NOPRIO UINT32_MAX
typedef struct mcx__epc {
  union {
  struct {
  /* Read by every fast call. */
  uint32_t handle; /* the handle served; MCX_EPC_EMPTY: none */
  uint32_t used;   /* 1 << prio, 0 for none: used_prios when that ring is the only one in use */
  /* The endpoint's state_chan as it must read: its state word when filled
   * (gen << 8 | EP_ACTIVE) and no channel (mcx__ep_sc), so one compare
   * checks the incarnation and that it is a message endpoint. */
  uint64_t state;
  /* The same when this node owns the endpoint, else MCX_EPC_EMPTY, which no
   * state_chan has: a source's and a receiver's compare, the owner check
   * folded in. */
  uint64_t own;
  mcx__endpoint_t *ep;
  mcx_atomic_u64 *intent; /* the calling node's in-flight record (mcx__self.intent) */
  /* The priority of the ring below (MCX_EPC_NOPRIO: none; the view is
   * then an empty closed ring of no endpoint, so that `used` 0 reads an
   * empty ring and a send at that priority is refused). */
  uint32_t prio;
  uint32_t mask; /* capacity - 1 of every priority's ring at the entry's epoch */
  /* The ring epoch the geometry belongs to, << MCX_RING_GEN_SHIFT and
   * negated: a tail of that epoch plus it is the position (an add, one
   * instruction fewer than the subtraction; mcx__epc_epoch gives the epoch). */
  uint64_t ngen;
  /* That ring (its mask: `mask`, 0 when none is resolved; its pool: the
   * domain's), read by the ring operations in place: the fast paths keep
   * the entry's address, not its fields, in registers. */
  mcx__ring_view_t v;
  /* Every priority's ring, for the middle tier and the pool path. */
  uint8_t *ring0;  /* priority 0's ring; priority p's at + p * sizeof(mcx__mpsc_ring_t) */
  uint8_t *slots0; /* priority 0's slots; p's at + p * slot_step */
  size_t slot_step;
  uint64_t tag0; /* (ring number of priority 0 + 1) << 48 */
  };
  uint8_t size_[128]; /* 128 bytes with 32- and 64-bit pointers alike */
  };
} mcx__epc_t;
_Static_assert(sizeof(mcx__epc_t) == 128, "an entry is found by a shift");


/** The ring epoch of entry @p c's geometry. */
MCX_FAST uint32_t mcx__epc_epoch(const mcx__epc_t *c)
{
  return (uint32_t)((0 - c->ngen) >> MCX_RING_GEN_SHIFT);
}

/** The view of an entry with no ring resolved (mcx__epc_t.prio), and of
 * the empty tables' entries (domain.c): one slot, never published (a
 * receive finds it empty), and a tail that reads CLOSED (a send at
 * MCX_EPC_NOPRIO, which matches such an entry, is refused before it writes
 * anything). Only ever read. */
extern mcx__mpsc_ring_t mcx__epc_idle_ring;
extern mcx__msg_slot_t mcx__epc_idle_slot;

/** Empties a cache entry (its endpoint pointer stays a valid address; its
 * ring the idle one, which a receive reads before the endpoint). */
MCX_FAST void mcx__epc_clear(mcx__epc_t *c)
{
  c->handle = MCX_EPC_EMPTY;
  c->state = MCX_EPC_EMPTY;
  c->own = MCX_EPC_EMPTY;
  c->v.ring = &mcx__epc_idle_ring;
  c->v.slots = &mcx__epc_idle_slot;
  c->v.mask = 0;
}

/** Fills the entry of handle @p h (a live endpoint of @p d) and returns it;
 * NULL when @p h is not one (the full path reports why). Out of line. */
mcx__epc_t *mcx__epc_fill(mcx__domain_t *d, uint32_t h);

/** Resolves in the entry of destination handle @p to the ring of priority
 * @p prio, setting the priority's bit in the endpoint's used_prios first:
 * 1, or 0 when the entry no longer serves a live @p to or @p prio is above
 * MCAPI_MAX_PRIORITY (the full path then, which reports it). Out of line:
 * the fast send's middle tier. */
int mcx__epc_prio(uint32_t to, uint32_t prio);

/** Empties the calling node's entries of endpoint @p e (its owner re-sized
 * its rings: see the cache's validity above). */
void mcx__epc_forget(const mcx__endpoint_t *e);

/** The full path's first step (msg.c): the entry of @p h filled for the
 * fast path's next call, where the node takes the fast path (a test inline,
 * so the other modes pay no call). */
MCX_FAST void mcx__epc_refill(uint32_t h)
{
  mcx__domain_t *d = mcx__self.fast;
  if (d)
    (void)mcx__epc_fill(d, h);
}

/** The entry that would serve handle @p h (compare its `handle`). */
MCX_FAST mcx__epc_t *mcx__epc_at(uint32_t h) { return &mcx__self.epc[h & (MCX_EPC_N - 1)]; }

/** The cache entry of endpoint handle @p h; NULL on a miss, which takes the
 * full path (it refills the entry: no call here, so the fast path needs no
 * frame). */
MCX_FAST mcx__epc_t *mcx__epc_get(uint32_t h)
{
  mcx__epc_t *c = mcx__epc_at(h);
  if (__builtin_expect(c->handle == h, 1))
    return c;
  return NULL;
}

/** The ring view of priority @p prio of a cached endpoint of @p d. */
MCX_FAST mcx__ring_view_t mcx__epc_ring(const mcx__domain_t *d, const mcx__epc_t *c,
                                        uint32_t prio)
{
  mcx__ring_view_t v;
  v.ring = (mcx__mpsc_ring_t *)(c->ring0 + (size_t)prio * sizeof(mcx__mpsc_ring_t));
  v.slots = (mcx__msg_slot_t *)(c->slots0 + prio * c->slot_step);
  v.mp = &d->mpool;
  v.tag = c->tag0 + ((uint64_t)prio << 48);
  v.mask = c->mask;
  return v;
}

/** mcx__wp_notify() for the fast paths: mcx__notify_fast (domain.h), F-W2
 * a compiler barrier with no test (the fast paths run only in a process
 * registered for the asymmetric barrier), its rare wake out of line and
 * cold, finding the domain's `shared` itself. */
MCX_FAST void mcx__msg_notify(mcx__waitpoint_t *wp) { mcx__notify_fast(wp); }

/** One enqueue into @p dst's ring of priority @p prio; @p glock: take the
 * domain's lock around it (the full path in global/kernel mode). A payload
 * larger than MCX_SLOT_INLINE is in pool buffer @p big, which the caller
 * filled and holds (mcx__mpsc_enqueue). @p cm: a receipt to set with R1
 * (mcx__msg_send_receipted), or NULL. */
MCX_FAST mcx__ring_outcome_t mcx__msg_enqueue_once(mcx__domain_t *d, mcx__endpoint_t *dst,
                                                   const void *buf, size_t size,
                                                   uint32_t big, uint32_t prio, int glock,
                                                   const mcx__mpsc_commit_t *cm)
{
  /* A-E4 — acquire: pairs with R-E4 (resize): the depth read next matches
   * this epoch; a stale pair is caught by the epoch check in the ring. */
  uint32_t epoch = mcx_load_acquire(&dst->ring_epoch);
  uint32_t depth = mcx_load_relaxed(&dst->depth);
  uint32_t idx = mcx__ep_idx(d, dst);
  mcx__ring_view_t v = mcx__ring_of(d, idx, prio, depth);
  uint32_t bit = 1u << prio;
  /* Relaxed: the mask only tells the receiver which rings to scan; the wake-up
   * protocol (F-W1/F-W2) orders it before the publish for a sleeping receiver. */
  if (__builtin_expect(!(mcx_load_relaxed(&dst->used_prios) & bit), 0))
    mcx_fetch_or_relaxed(&dst->used_prios, bit);
  mcx_atomic_u64 *intent = &mcx__nodes(d)[mcx__self.node_slot].inflight;
  uint64_t tag = ((uint64_t)idx * d->g.nprio + prio + 1) << 48;
  mcx__ring_outcome_t o;
  if (glock)
    mcx__glock(d);
  o = mcx__mpsc_enqueue(&v, epoch, buf, (uint32_t)size, big, intent, tag, cm);
  if (glock)
    mcx__gunlock(d);
  if (o == MCX_RING_OK)
    mcx__wp_notify(&dst->recv_wp, d->shared); /* F-W2 after R1 */
  return o;
}

/** The checks every fast send makes, on the entries @p s of @p from and
 * @p t of @p to: both hit, both endpoints are the incarnations they were
 * filled for, the source is this node's, neither is a channel's. */
MCX_FAST int mcx__msg_send_checks(const mcx__epc_t *s, const mcx__epc_t *t, uint32_t from,
                                  uint32_t to)
{
  /* Both entries may share a line of the cache: then one of them misses. */
  if (__builtin_expect(s->handle != from || t->handle != to, 0))
    return 0;
  mcx__endpoint_t *src = s->ep, *dst = t->ep;
  /* A-E1 — acquire: pairs with R-E1 (create, re-open): the destination is
   * the incarnation the entry was filled for, and no channel's. The source
   * is ours (relaxed); `own` holds its state_chan only if it is ours. */
  return __builtin_expect(mcx_load_acquire(&dst->state_chan) == t->state, 1) &&
         __builtin_expect(mcx_load_relaxed(&src->state_chan) == s->own, 1);
}

/** Queues a payload of at most mcx__self.msg_lim bytes on entry @p t's
 * resolved ring, from entry @p s, in one attempt: 1, or 0 having queued
 * nothing when the ring is full, another sender took the slot, or the
 * ring's epoch is not the entry's (a re-size since the fill: the slow path
 * refills the entry). The caller made mcx__msg_send_checks. */
MCX_FAST int mcx__epc_send_small(const mcx__epc_t *s, const mcx__epc_t *t, const void *buf,
                                 size_t size)
{
  mcx__msg_slot_t *slot;
  uint64_t pos;
  if (__builtin_expect(!mcx__mpsc_reserve_once(&t->v, t->ngen, s->intent, &slot, &pos), 0))
    return 0;
  mcx__mpsc_publish_small(slot, pos, buf, size, s->intent);
  mcx__ctr_add(&s->ep->n_sent, 1);
  mcx__msg_notify(&t->ep->recv_wp); /* F-W2 after R1 */
  return 1;
}

/** The send's slow path (msg.c): every check, the cache's other rings and
 * the pool, the wait for room, the other modes and transports. MCX_OK, or
 * why nothing was sent (MCX_ENODE, MCX_EPRIO first, then the endpoints').
 * Out of line under LTO too: the fast path keeps no registers for it. */
__attribute__((noinline)) int mcx__msg_send_slow(uint32_t from, uint32_t to, const void *buf, size_t size, uint32_t prio);

/**
 * The fast path of a blocking send of @p size bytes at @p buf from endpoint
 * *@p from to endpoint *@p to at priority *@p prio (the api checked the
 * buffer): 1 when it sent, 0 when it did nothing and the caller must call
 * mcx__msg_send_slow(*@p from, *@p to, @p buf, @p size, *@p prio).
 *
 * It sends when both entries hit and are the incarnations they were filled
 * for, the source is ours, neither is a channel's, the payload fits a slot,
 * and the destination's entry has this priority's ring resolved. An entry
 * with no ring resolved matches only MCX_EPC_NOPRIO, out of range, and its
 * ring then refuses the reservation: one compare refuses every priority
 * out of range too, which the slow path reports.
 *
 * The handles and the priority are passed by address because, once the
 * checks passed, the entries hold the same values: a miss after them
 * stores those back, so the arguments need not live in registers across
 * the ring operation (157 instructions a 24 B hand-off instead of 146).
 */
MCX_FAST int mcx__msg_send_fast(uint32_t *from, uint32_t *to, const void *buf, size_t size,
                                uint32_t *prio)
{
  /* The size first, on its own: a payload for a pool buffer (and every
   * send of a thread without the fast path, msg_lim 0) leaves at once. */
  if (__builtin_expect(size > mcx__self.msg_lim, 0))
    return 0;
  mcx__epc_t *s = mcx__epc_at(*from), *t = mcx__epc_at(*to);
  if (__builtin_expect(mcx__msg_send_checks(s, t, *from, *to) && *prio == t->prio, 1)) {
    if (__builtin_expect(mcx__epc_send_small(s, t, buf, size), 1))
      return 1;
    *from = s->handle;
    *to = t->handle;
    *prio = t->prio;
  }
  return 0;
}

/** The priorities a used_prios word names: bits above the last priority are
 * dropped (the word is in the partition: shared memory is input, and the
 * ring of such a bit would be another endpoint's). */
#define MCX_USED_PRIOS(w) ((w) & ((1u << MCX_NPRIO) - 1))

/** Where a scan of the rings in @p used (priorities as bits, highest
 * first) must start so that it takes the highest priority a sender queued
 * first: @p used from the first ring that reads published (@p view(@p ctx,
 * p) gives ring p), after one more look at the higher rings. A message seen
 * there (A2) makes what its sender did before visible: a higher priority's
 * message queued before it, whose ring the first look may have read too
 * early, and its bit in @p used_word. 0 when none reads published: the
 * caller reports an empty endpoint (and does not scan, which could take a
 * message of a lower priority published since, after a higher one). */
typedef mcx__ring_view_t (*mcx__view_at_fn)(const void *ctx, uint32_t p);
MCX_FAST uint32_t mcx__msg_scan_from(uint32_t used, const mcx_atomic_u32 *used_word,
                                     mcx__view_at_fn view, const void *ctx)
{
  for (uint32_t u = used; u; u &= u - 1) {
    uint32_t p = (uint32_t)__builtin_ctz(u);
    mcx__ring_view_t v = view(ctx, p);
    if (!mcx__mpsc_ready(&v))
      continue;
    uint32_t now = MCX_USED_PRIOS(mcx_load_relaxed(used_word)) | used;
    for (uint32_t hi = now & ((1u << p) - 1); hi; hi &= hi - 1) {
      uint32_t q = (uint32_t)__builtin_ctz(hi);
      mcx__ring_view_t w = view(ctx, q);
      if (mcx__mpsc_ready(&w)) {
        p = q;
        break;
      }
    }
    return now & ~((1u << p) - 1);
  }
  return 0;
}

/* mcx__msg_scan_from's view of ring p of an endpoint by the layout. */
struct mcx__ring_at {
  mcx__domain_t *d;
  uint32_t idx, depth;
};
static inline mcx__ring_view_t mcx__ring_at(const void *ctx, uint32_t p)
{
  const struct mcx__ring_at *a = ctx;
  return mcx__ring_of(a->d, a->idx, p, a->depth);
}

/** One scan of @p ep's rings, highest priority first: OK / TRUNCATED when a
 * message was taken, else EMPTY or (@p classify) EMPTY_BUT_PRODUCER_INSERTING. */
MCX_FAST mcx__ring_outcome_t mcx__msg_dequeue_once(mcx__domain_t *d, mcx__endpoint_t *ep,
                                                   void *buf, size_t cap, size_t *size,
                                                   int classify, int glock)
{
  uint32_t idx = mcx__ep_idx(d, ep);
  uint32_t depth = mcx_load_relaxed(&ep->depth); /* the owner is the only one who re-sizes */
  /* A hint, see mcx__msg_enqueue_once. */
  uint32_t used = MCX_USED_PRIOS(mcx_load_relaxed(&ep->used_prios));
  mcx__ring_outcome_t res = MCX_RING_EMPTY;
  if (glock)
    mcx__glock(d);
  struct mcx__ring_at at = {d, idx, depth};
  /* Under the domain's lock (global and kernel modes) the senders queue
   * under it too: the rings stand still, and the plain scan is in order. */
  uint32_t from = glock && d->locking != MCX_LOCK_LOCKFREE
                      ? used
                      : mcx__msg_scan_from(used, &ep->used_prios, mcx__ring_at, &at);
  /* None published: empty, or a producer between its reservation and R1. */
  for (uint32_t u = from ? 0 : classify ? used : 0; u; u &= u - 1) {
    mcx__ring_view_t v = mcx__ring_of(d, idx, (uint32_t)__builtin_ctz(u), depth);
    if (mcx__mpsc_inserting(&v))
      res = MCX_RING_EMPTY_BUT_PRODUCER_INSERTING;
  }
  for (used = from; used;) {
    uint32_t p = (uint32_t)__builtin_ctz(used);
    used &= used - 1;
    mcx__ring_view_t v = mcx__ring_of(d, idx, p, depth);
    mcx__ring_outcome_t o = mcx__mpsc_dequeue(&v, buf, cap, size, classify);
    if (o == MCX_RING_OK || o == MCX_RING_TRUNCATED || o == MCX_RING_CORRUPT) {
      res = o;
      break;
    }
    if (o == MCX_RING_EMPTY_BUT_PRODUCER_INSERTING)
      res = o;
  }
  if (glock)
    mcx__gunlock(d);
  if (res == MCX_RING_OK || res == MCX_RING_TRUNCATED || res == MCX_RING_CORRUPT)
    mcx__wp_notify(&ep->space_wp, d->shared); /* F-W2 after R2 */
  return res;
}

/** The checks of a cached receive on its endpoint (entry @p ctx), made
 * after its ring showed a message (A2) and before it is taken:
 * MCX_RING_OK; MCX_RING_CLOSED_OR_STALE when the endpoint is not the one
 * the entry was filled for, ours and no channel's (the slow path says
 * why); MCX_RING_NOT_SMALL when another ring than the entry's is in use
 * (the slow path scans them). After A2, because used_prios is a hint (see
 * mcx__msg_enqueue_once) that a sender sets before it queues at a new
 * priority: a higher priority queued before the message seen is then in
 * the word, and the scan takes it first. */
MCX_FAST mcx__ring_outcome_t mcx__epc_gate(const void *ctx)
{
  const mcx__epc_t *c = ctx;
  const mcx__endpoint_t *ep = c->ep;
  /* Our own endpoint (`own`: the owner check) and no channel's: relaxed,
   * its owner re-sizes it (and forgets this entry then). */
  if (__builtin_expect(mcx_load_relaxed(&ep->state_chan) != c->own, 0))
    return MCX_RING_CLOSED_OR_STALE;
  /* The entry's ring is the only one in use. */
  if (__builtin_expect(mcx_load_relaxed(&ep->used_prios) != c->used, 0))
    return MCX_RING_NOT_SMALL;
  return MCX_RING_OK;
}

/** Takes a small message that fits from entry @p c's resolved ring, in one
 * attempt, while that ring is the only one in use (mcx__epc_gate): 1, or 0
 * having taken nothing (empty, another ring in use, a message that is not
 * a small one that fits, an endpoint that changed). */
MCX_FAST int mcx__epc_recv_small(const mcx__epc_t *c, void *buf, size_t cap, size_t *size)
{
  if (__builtin_expect(mcx__mpsc_dequeue_small(&c->v, buf, cap, size, mcx__epc_gate, c) !=
                           MCX_RING_OK, 0))
    return 0;
  mcx__msg_notify(&c->ep->space_wp); /* F-W2 after R2 */
  return 1;
}

/** The receive's slow path (msg.c): every check, the scan of every ring in
 * use (pool buffers, truncations, tombstones), the wait (a spin on the
 * cached ring, then yields and sleeps), the other modes and transports.
 * MCX_OK, MCX_ETRUNC (taken, truncated), or why nothing was taken. Out
 * of line as mcx__msg_send_slow. */
__attribute__((noinline)) int mcx__msg_recv_slow(uint32_t h, void *buf, size_t cap, size_t *size);

/**
 * The fast path of a blocking receive on endpoint *@p h into @p buf of
 * @p cap bytes, its size in @p *size (the api checked the pointers): 1
 * when it took a message, 0 when it did nothing and the caller must call
 * mcx__msg_recv_slow(*@p h, @p buf, @p cap, @p size).
 *
 * It takes one when the entry hits, its ring is the only one in use and
 * holds a small message that fits. The table is the empty one while receive
 * requests are queued (mcx__self_t.epc_rx): they go first, in the slow
 * path. The handle by address as in mcx__msg_send_fast.
 */
MCX_FAST int mcx__msg_recv_fast(uint32_t *h, void *buf, size_t cap, size_t *size)
{
  mcx__epc_t *c = &mcx__self.epc_rx[*h & (MCX_EPC_N - 1)];
  if (__builtin_expect(c->handle == *h, 1)) {
    if (__builtin_expect(mcx__epc_recv_small(c, buf, cap, size), 1))
      return 1;
    *h = c->handle;
  }
  return 0;
}

/* ---- the other message calls (msg.c) */
/** One attempt at sending (waiting only for *_BUT_* outcomes): MCX_OK,
 * MCX_EAGAIN (full), MCX_ECLOSED, or argument errors. */
int mcx__msg_try_send(uint32_t from, uint32_t to, const void *buf, size_t size, uint32_t prio);
/** A blocking send that sets receipt @p receipt to @p value in the step that queues it. */
int mcx__msg_send_receipted(uint32_t from, uint32_t to, const void *buf, size_t size, uint32_t prio,
                            uint32_t receipt, uint64_t value);
/** One attempt at receiving: MCX_OK, MCX_ETRUNC, MCX_EAGAIN (empty), or errors. */
int mcx__msg_try_recv(uint32_t ep, void *buf, size_t cap, size_t *size);
int mcx__msg_available(uint32_t ep, uint32_t *count);
int mcx__msg_recv_inplace(uint32_t ep, const void **data, size_t *size);
int mcx__msg_release_inplace(const void *data);
int mcx__msg_inplace_held(uint32_t ep); /* this thread's held messages of @p ep */
/** Checks a receive without doing it. */
int mcx__msg_check_recv(uint32_t ep);

/* ---- the message payload pool (msg.c) */
/** Locates the message payload pool of a checked partition (msg.c). */
void mcx__msg_attach(mcx__domain_t *d);
/** Fills a new partition's message pool (creator, before the header is published). */
void mcx__msg_init_pool(uint8_t *base, size_t off_meta, uint32_t nbufs);
/** Frees the message pool buffers held by node slot @p slot (dead, or
 * finalizing; admin lock held): payloads it was sending or held in place. */
void mcx__msg_reclaim_buffers_locked(mcx__domain_t *d, uint32_t slot);

#endif
