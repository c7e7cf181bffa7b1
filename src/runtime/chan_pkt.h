/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file chan_pkt.h
 * @brief Packet channels: the send, the receive and the release, each a
 * fast path inlined into its api call and one slow path (chan_pkt.c),
 * which the api calls when the fast path misses; the attempts the requests
 * make (request.c).
 *
 * The fast paths serve a node of a lock-free shm domain. The send and the
 * receive need a spec-profile channel whose handle is in the node's
 * channel cache (chan.h), and move a packet of up to MCX_PKT_INLINE bytes
 * through the bytes of its slot (pkt_ring.h): a compare of the handle, one
 * of the channel's state word, then the copy, the publish and the notify
 * (a send) or the take (a receive). The release frees such a slot and
 * notifies. On any miss (no entry, a changed
 * state word, a larger packet, a slot that is not plain free or plain
 * kept, a buffer of the pool; a thread off the fast paths always misses)
 * the fast path has changed nothing and says so; the slow path does
 * everything else and says why a call fails.
 *
 * A slow path's result (its @retval list below: MCX_OK or an MCX_E* code)
 * reaches its caller as the caller's own status: a failure stores the
 * status @p map gives it at *@p status (the api's mapping as a table,
 * mcx__status_store in mcx_err.h); MCX_OK leaves the success the caller
 * stored before its fast path. So the api's call of it is its last step.
 *
 * Context: any thread (one that is not a node gets MCX_ENODE from the slow
 * path); a node on the channel side it opened (one sender and one receiver
 * per channel); a release by the node that received the packet. Blocking:
 * a send waits for a slot (and, for a large packet, a buffer), a receive
 * for a packet, each up to its endpoint's TIMEOUT; a release never waits.
 */
#ifndef MCX_RUNTIME_CHAN_PKT_H
#define MCX_RUNTIME_CHAN_PKT_H

#include "runtime/chan.h"
#include "runtime/domain.h"
#include "transport/mpsc_ring.h" /* mcx__copy_small */

/**
 * @brief The fast path of a packet send: a packet of up to MCX_PKT_INLINE
 * bytes from @p buf into the bytes of the next slot of the send side
 * @p handle, or nothing changed.
 * @retval true sent
 * @retval false missed: the caller calls mcx__pkt_send_slow
 */
CHAN_FAST bool mcx__pkt_send_fast(uint32_t handle, const void *buf, size_t size)
{
  struct mcx__chc *c;
  mcx__chan_t *ch;
  /* Only a spec-profile channel has an entry: a packet travels in its
   * slot's bytes when it fits. */
  if (__builtin_expect(size > MCX_PKT_INLINE ||
                           !(c = mcx__chc_get(handle, MCAPI_PKT_CHAN, MCX_CHAN_SEND, &ch)),
                       0))
    return false;
  /* A small packet into the next slot, free for it (mcx__pkt_reserve's
   * test, A1: pairs with R2 in mcx__pkt_take and R2-K in
   * mcx__pkt_free_kept), in straight-line code. It is not marked RESERVED
   * first: that is only a polling consumer's hint, and the copy is short.
   * A slot that owns a buffer (its value is not MCX_PKT_KEEP) is the slow
   * path's. */
  mcx__spsc_view_t *v = &c->v;
  uint32_t pos = v->ring->tail; /* producer-owned */
  mcx__spsc_slot_t *s = mcx__pkt_at(v, pos);
  if (__builtin_expect(mcx_load_acquire(&s->word) != mcx__spsc_word(pos, MCX_SPSC_FREE) ||
                           s->value != MCX_PKT_KEEP,
                       0))
    return false;
  mcx__copy_small(mcx__pkt_bytes(s), buf, size);
  /* R1, on the slot in hand; its value is MCX_PKT_KEEP already (our own write). */
  mcx__pkt_publish_meta(v->ring, s, pos, (uint32_t)size);
  mcx__notify_fast(&ch->recv_wp); /* F-W2 after R1 */
  return true;
}

/**
 * @brief The slow path of a packet send: everything the fast path passes
 * over (the node check, a packet larger than a slot's bytes, a slot that
 * owns a buffer or is held, the handle's checks, waiting for room up to
 * the endpoint's TIMEOUT, the other locking modes, transports and
 * profiles). @pre @p buf is not NULL unless @p size is 0 (the api checks it).
 * @retval MCX_OK sent (the bytes are copied: @p buf is the caller's again)
 * @retval MCX_ENODE the calling thread is not a node
 * @retval MCX_EBADCH not a packet channel handle of this node (stale, forged, another kind)
 * @retval MCX_ECHDIR the receive side's handle
 * @retval MCX_ECHTYPE (mca-2.0.3 profile: the endpoint's handle) a scalar channel's
 * @retval MCX_EOPENP the side's open is pending
 * @retval MCX_ENOTOPEN the side is not open, or the receiver has closed or gone
 * @retval MCX_EMSGSIZE @p size is above MCAPI_MAX_PKT_SIZE (after the handle's checks)
 * @retval MCX_ETIMEDOUT no room within the TIMEOUT (at once with a TIMEOUT of 0)
 * @retval MCX_ENOMEM no room, and the endpoint is FAIL_ON_MEM_LIMIT; or no
 *         pool buffer (the receiver holds them all)
 * @retval MCX_EBUSY this thread holds a claim on the side (mcx__pkt_claim_slow)
 * @retval other the pmq transport's errors (MCX_ELIMIT, MCX_EIO)
 */
CHAN_SLOW void mcx__pkt_send_slow(uint32_t handle, const void *buf, size_t size,
                                  uint32_t *status, const mcx__status_map_t *map);

/* ---- claim/commit sends: the sender builds the packet where it travels.
 *
 * A claim reserves the send side's next slot (RESERVED: the receiver waits
 * at it as at any send under way) and lends the caller the place its
 * packet goes: the slot's bytes (up to MCX_PKT_INLINE, spec profile), the
 * pool buffer the slot owns (larger, spec profile), or a pool buffer for
 * this packet only (the per-item path), marked held by the sender's claim
 * (PB_CLAIM) so the dead-node sweep and finalize return it. The commit
 * publishes the slot (R1) as a send would; the abandon gives the slot and
 * a buffer taken for the claim back. Over pmq a claim lends a buffer of
 * process memory and the commit sends it (a copy).
 *
 * The thread's claims are process memory (one node is one thread): at most
 * MCX_PKT_CLAIMS at a time, one per send side. The fast paths use the first
 * entry only, on the cached entry of a lock-free shm node. The claim's
 * fast path lends the slot's bytes (up to MCX_PKT_INLINE, a slot that owns
 * no buffer); the slow path first lends the buffer the slot owns already
 * (larger, claim_owned_cached in chan_pkt.c), also without a lock. The
 * commit's fast path publishes either: a claim whose slot keeps the value
 * it holds (fast_min). */
#define MCX_PKT_CLAIMS 4u
enum { CL_SLOT = 1, CL_OWNED, CL_ITEM, CL_PMQ };
typedef struct mcx__pkt_claim {
  uint32_t kind;   /* 0: free; CL_* */
  uint32_t handle; /* the send side's handle */
  uint32_t pos;    /* shm: the position reserved (the ring's tail) */
  uint32_t cap;    /* bytes claimed */
  uint32_t b;      /* CL_OWNED, CL_ITEM: the pool buffer */
  uint32_t fresh;  /* CL_OWNED: taken from the pool for this claim */
  /* The least size the commit's fast path publishes: 0 (the slot's bytes),
   * MCX_PKT_INLINE + 1 (the buffer the slot owns already: a shorter packet
   * goes into the slot's bytes), UINT32_MAX (a claim only the slow path
   * publishes: a buffer taken for it, a buffer of its own, pmq). */
  uint32_t fast_min;
  mcx__spsc_slot_t *slot; /* shm: the slot reserved */
  void *ptr;              /* what the caller fills */
} mcx__pkt_claim_t;
extern MCX_TLS mcx__pkt_claim_t mcx__claims[MCX_PKT_CLAIMS];

/**
 * @brief The fast path of a claim: @p size (at most MCX_PKT_INLINE) bytes
 * in the next slot of the send side @p handle, reserved; *@p out the
 * slot's bytes. Or nothing changed.
 * @retval true claimed (mcx__claims[0])
 * @retval false missed: the caller calls mcx__pkt_claim_slow
 */
CHAN_FAST bool mcx__pkt_claim_fast(uint32_t handle, size_t size, void **out)
{
  struct mcx__chc *c;
  mcx__chan_t *ch;
  mcx__pkt_claim_t *k = &mcx__claims[0];
  /* Only a spec-profile channel has an entry. */
  if (__builtin_expect(size > MCX_PKT_INLINE || k->kind ||
                           !(c = mcx__chc_get(handle, MCAPI_PKT_CHAN, MCX_CHAN_SEND, &ch)),
                       0))
    return false;
  /* A second claim on the side finds its slot RESERVED here: the slow
   * path says why. */
  mcx__spsc_view_t *v = &c->v;
  uint32_t pos = v->ring->tail; /* producer-owned */
  mcx__spsc_slot_t *s = mcx__pkt_at(v, pos);
  /* A1 (mcx__pkt_reserve's test): pairs with R2 in mcx__pkt_take and R2-K
   * in mcx__pkt_free_kept; the holder's reads of the bytes are done. A
   * slot that owns a buffer keeps it: the slow path's. */
  if (__builtin_expect(mcx_load_acquire(&s->word) != mcx__spsc_word(pos, MCX_SPSC_FREE) ||
                           s->value != MCX_PKT_KEEP,
                       0))
    return false;
  /* Relaxed: a hint for a polling consumer, as in mcx__pkt_reserve. */
  mcx_store_relaxed(&s->word, mcx__spsc_word(pos, MCX_SPSC_RESERVED));
  k->kind = CL_SLOT;
  k->fast_min = 0;
  k->handle = handle;
  k->pos = pos;
  k->cap = (uint32_t)size;
  k->slot = s;
  *out = k->ptr = mcx__pkt_bytes(s);
  return true;
}

/**
 * @brief The slow path of a claim: everything the fast path passes over
 * (the node check, the handle's checks, a larger packet, a slot that owns
 * a buffer, the wait for room up to the endpoint's TIMEOUT, the other
 * locking modes, transports and profiles).
 * @retval MCX_OK claimed: *@p out is at least @p size bytes the caller fills
 * @retval MCX_EBUSY this thread holds a claim on @p handle already
 * @retval MCX_ENOMEM this thread holds MCX_PKT_CLAIMS claims; or as mcx__pkt_send_slow
 * @retval other as mcx__pkt_send_slow (MCX_ENODE, MCX_EBADCH, MCX_ECHDIR,
 *         MCX_ECHTYPE, MCX_EOPENP, MCX_ENOTOPEN, MCX_EMSGSIZE, MCX_ETIMEDOUT)
 */
CHAN_SLOW void *mcx__pkt_claim_slow(uint32_t handle, size_t size, uint32_t *status,
                                    const mcx__status_map_t *map);

/**
 * @brief The fast path of a commit: the claim in mcx__claims[0] on
 * @p handle at @p buf whose slot keeps the value it holds (fast_min: the
 * slot's bytes, or the buffer the slot owns already), published with
 * @p size bytes (R1, then the notify). Or nothing changed.
 * @retval true sent
 * @retval false missed: the caller calls mcx__pkt_commit_slow
 */
CHAN_FAST bool mcx__pkt_commit_fast(uint32_t handle, void *buf, size_t size)
{
  struct mcx__chc *c;
  mcx__chan_t *ch;
  mcx__pkt_claim_t *k = &mcx__claims[0];
  /* A claim of the slow path's (fast_min UINT32_MAX), a short packet in
   * the slot's own buffer, no claim: the slow path's. An unchanged state
   * word: the claim's connection, our side open (the slot at the tail is
   * the claim's: only this thread produces). */
  if (__builtin_expect(!k->kind || k->handle != handle || k->ptr != buf || size > k->cap ||
                           size < k->fast_min ||
                           !(c = mcx__chc_get(handle, MCAPI_PKT_CHAN, MCX_CHAN_SEND, &ch)),
                       0))
    return false;
  k->kind = 0;
  /* R1, on the slot the claim reserved (the tail: ours); its value is the
   * one the claim found (MCX_PKT_KEEP, or the buffer the slot owns). */
  mcx__pkt_publish_meta(c->v.ring, k->slot, k->pos, (uint32_t)size);
  mcx__notify_fast(&ch->recv_wp); /* F-W2 after R1 */
  return true;
}

/**
 * @brief The slow path of a commit: the claim on @p handle at @p buf
 * published with @p size bytes, in every mode, transport and profile; the
 * claim ends, unless the status says it stays.
 * @retval MCX_OK sent
 * @retval MCX_ENODE the calling thread is not a node
 * @retval MCX_EBADBUF this thread holds no claim on @p handle at @p buf
 *         (never claimed, committed or abandoned already, another pointer)
 * @retval MCX_EMSGSIZE @p size is above the claim's (the claim stays)
 * @retval MCX_ENOTOPEN, MCX_EBADCH the side is not open or the handle went
 *         stale (closed, the peer gone): the claim ends, nothing is sent
 * @retval MCX_ETIMEDOUT, MCX_ENOMEM pmq: no room in the queue within the
 *         TIMEOUT (the claim stays)
 */
CHAN_SLOW void mcx__pkt_commit_slow(uint32_t handle, void *buf, size_t size, uint32_t *status,
                                    const mcx__status_map_t *map);

/**
 * @brief Abandons the claim on @p handle at @p buf: the slot and any buffer
 * taken for it are given back, nothing is sent (also after the side
 * closed or the peer left).
 * @retval MCX_OK abandoned
 * @retval MCX_ENODE the calling thread is not a node
 * @retval MCX_EBADBUF this thread holds no claim on @p handle at @p buf
 */
int mcx__pkt_abandon(uint32_t handle, void *buf);

/** Ends this thread's claim on @p handle, if any, as mcx__pkt_abandon (a close of the side). */
void mcx__pkt_claim_drop(uint32_t handle);

/**
 * @brief The fast path of a packet receive: a packet in the bytes of the
 * next slot of the receive side @p handle: *@p buf points at them
 * (zero-copy), held until its release; *@p size is its length. Or nothing
 * changed.
 * @pre The receive requests this thread queued were served first (the
 *      caller takes the slow path while mcx__recv_queued is not 0).
 * @retval true received
 * @retval false missed: the caller calls mcx__pkt_recv_slow
 */
CHAN_FAST bool mcx__pkt_recv_fast(uint32_t handle, void **buf, size_t *size)
{
  mcx__chan_t *ch;
  struct mcx__chc *c = mcx__chc_get(handle, MCAPI_PKT_CHAN, MCX_CHAN_RECV, &ch);
  uint32_t meta;
  mcx__spsc_slot_t *at;
  /* A packet in its slot's bytes only (mcx__pkt_take_kept); anything else
   * (a larger one, skip marks, an empty ring) is the slow path's. */
  if (__builtin_expect(!c || mcx__pkt_take_kept(&c->v, &meta, &at) != MCX_Q_OK, 0))
    return false;
  *buf = mcx__pkt_bytes(at);
  *size = meta;
  return true;
}

/**
 * @brief The slow path of a packet receive (as mcx__pkt_send_slow's, and
 * a packet in a buffer, skip marks, the wait: a poll of the slot the next
 * packet changes, then yield and sleep, up to the endpoint's TIMEOUT): the
 * packet's bytes at *@p buf (zero-copy: in its slot, a buffer its slot
 * owns, or a pool buffer), held until its release; *@p size its length.
 * The receive requests this thread queued on @p handle are served first
 * (through the upcalls: the request layer is above the channels).
 * @retval MCX_OK received
 * @retval MCX_ECORRUPT an item no sender could have written: taken off the
 *         ring and dropped (the next receive gets the next packet)
 * @retval MCX_ENOMEM (pmq) every buffer of the local pool is held
 * @retval MCX_ETIMEDOUT none within the TIMEOUT (at once with a TIMEOUT of 0)
 * @retval MCX_ENOTOPEN the side is not open, or the sender has closed or
 *         gone and every packet it sent has been received
 * @retval other as mcx__pkt_send_slow (MCX_ENODE, MCX_EBADCH, MCX_ECHDIR,
 *         MCX_ECHTYPE, MCX_EOPENP, pmq)
 */
CHAN_SLOW void mcx__pkt_recv_slow(uint32_t handle, void **buf, size_t *size, uint32_t *status,
                                  const mcx__status_map_t *map);

/* A pointer handed out by a packet receive of this node from the bytes of
 * a slot (kept: RECEIVED, a kept value): its record, its slot, the position
 * a lap later that frees it, and its value (MCX_PKT_KEEP, or MCX_PKT_OWNS |
 * the buffer the slot owns); false when @p p is not one. With @p value NULL
 * (a constant) only a slot that owns no buffer is one. Everything read from
 * the partition is checked; touches nothing. */
CHAN_FAST bool mcx__kept_slot_of(const mcx__domain_t *d, const void *p, mcx__chan_t **out,
                                 mcx__spsc_slot_t **slot, uint32_t *next, uint64_t *value)
{
  uintptr_t off = (uintptr_t)p - (uintptr_t)d->pslots; /* NULL is below the rings */
  if (off >= d->pslot_span || (off & (sizeof(mcx__pkt_slot_t) - 1)))
    return false;
  mcx__chan_t *ch = mcx__chan_at(d, (uint32_t)(off >> d->pslot_rec_shift));
  if (mcx_load_relaxed(&ch->owner[MCX_CHAN_RECV]) != mcx__self.node_slot ||
      mcx_load_relaxed(&ch->type) != MCAPI_PKT_CHAN)
    return false; /* not a packet ring this node receives from */
  uint32_t mask = mcx_load_relaxed(&ch->mask) & (d->g.chan_cap - 1);
  mcx__spsc_slot_t *s = &((mcx__pkt_slot_t *)(uintptr_t)p)->s;
  /* Relaxed: a kept slot's word is the holder's until it frees it. */
  uint32_t w = mcx_load_relaxed(&s->word);
  uint64_t x = s->value; /* the producer does not write a held slot */
  if ((w & 3u) != MCX_SPSC_RECEIVED || (value ? !mcx__pkt_kept(x) : x != MCX_PKT_KEEP) ||
      ((w >> 2) & mask) != ((uint32_t)(off / sizeof(mcx__pkt_slot_t)) & (d->g.chan_cap - 1)))
    return false; /* not held (released already, or never handed out) */
  *out = ch;
  *slot = s;
  *next = (w >> 2) + mask + 1;
  if (value)
    *value = x;
  return true;
}

/**
 * @brief The fast path of a packet release: @p buf, a packet this node
 * received in the bytes of a slot that owns no buffer, frees that slot. Or
 * nothing changed.
 * @retval true released
 * @retval false missed: the caller calls mcx__pkt_release_slow
 */
CHAN_FAST bool mcx__pkt_release_fast(void *buf)
{
  /* A pointer, not a handle: the fast path's test is mcx__self.fast. */
  mcx__domain_t *d = mcx__self.fast;
  mcx__chan_t *ch;
  mcx__spsc_slot_t *at;
  uint32_t next;
  if (__builtin_expect(!d || !mcx__kept_slot_of(d, buf, &ch, &at, &next, NULL), 0))
    return false;
  mcx__pkt_free_kept(at, next); /* R2-K */
  mcx__notify_fast(&ch->space_wp); /* F-W2 after R2-K */
  return true;
}

/**
 * @brief The slow path of a packet release: @p buf, a packet this node
 * received, back to its slot, channel or the pool, in every mode,
 * transport and profile.
 * @retval MCX_OK released
 * @retval MCX_ENODE the calling thread is not a node
 * @retval MCX_EBADBUF not a packet this node holds (released already, never
 *         handed out, another node's)
 * @retval MCX_EIO the admin lock could not be taken (a slot's buffer after
 *         its connection was torn down: still held, a later release may succeed)
 */
CHAN_SLOW void mcx__pkt_release_slow(void *buf, uint32_t *status, const mcx__status_map_t *map);

/** Whether @p buf, a packet this node received, was released: 1 released,
 * 0 still held, or MCX_EBADBUF (not one). */
int mcx__pkt_release_test(void *buf);

/* The attempts of the packet requests (request.c): the checks, then one
 * try; a send gives MCX_EAGAIN for no room (MCX_ENOMEM when the endpoint
 * is FAIL_ON_MEM_LIMIT), a receive for no packet. Otherwise as
 * mcx__pkt_send_slow and mcx__pkt_recv_slow. */
int mcx__pkt_try_send(uint32_t handle, const void *buf, size_t size);
int mcx__pkt_try_recv(uint32_t handle, void **buf, size_t *size);

#endif
