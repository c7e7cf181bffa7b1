/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file chan_scl.h
 * @brief Scalar channels: the send and the receive, each a fast path
 * inlined into its api call and one slow path (chan_scl.c), which the api
 * calls when the fast path misses.
 *
 * The fast path serves a node of a lock-free shm domain on a spec-profile
 * channel whose handle is in the node's channel cache (chan.h): a compare
 * of the handle, one of the channel's state word, the ring step on the
 * caller's own lines (spsc_ring.h, the scalar protocol), the notify. On any
 * miss (no entry, a changed state word, the producer at the limit it last
 * read, an empty ring or a scalar of another width; a thread off the fast
 * paths always misses) it has changed nothing and says so; the slow path
 * does everything else and says why a call fails.
 *
 * A slow path's result (its @retval list below: MCX_OK or an MCX_E* code)
 * reaches its caller as the caller's own status: a failure stores the
 * status @p map gives it at *@p status (the api's mapping as a table,
 * mcx__status_store in mcx_err.h); MCX_OK leaves the success the caller
 * stored before its fast path. So the api's call of it is its last step.
 *
 * Context: any thread (one that is not a node gets MCX_ENODE from the slow
 * path); a node on the channel side it opened (one sender and one receiver
 * per channel). Blocking: a send waits for room, a receive for a scalar,
 * each up to its endpoint's TIMEOUT.
 */
#ifndef MCX_RUNTIME_CHAN_SCL_H
#define MCX_RUNTIME_CHAN_SCL_H

#include "runtime/chan.h"
#include "runtime/domain.h"

/**
 * @brief The fast path of a scalar send: sends @p value of @p width bytes
 * (1, 2, 4 or 8) on the send side @p handle, or changes nothing.
 * @retval true sent
 * @retval false missed: the caller calls mcx__scl_send_slow
 */
CHAN_FAST bool mcx__scl_send_fast(uint32_t handle, uint32_t width, uint64_t value)
{
  mcx__chan_t *ch;
  struct mcx__chc *c = mcx__chc_get(handle, MCAPI_SCL_CHAN, MCX_CHAN_SEND, &ch);
  if (__builtin_expect(!c || mcx__spsc_put1(&c->v, width, value) != MCX_Q_OK, 0))
    return false;
  mcx__notify_fast(&ch->recv_wp); /* F-W2 after R1 */
  return true;
}

/**
 * @brief The slow path of a scalar send: everything the fast path passes
 * over (the node check, the producer's refill from the consumer's count,
 * the handle's checks, waiting for room up to the endpoint's TIMEOUT, the
 * other locking modes, transports and profiles).
 * @retval MCX_OK sent
 * @retval MCX_ENODE the calling thread is not a node
 * @retval MCX_EBADCH not a scalar channel handle of this node (stale, forged, another kind)
 * @retval MCX_ECHDIR the receive side's handle
 * @retval MCX_ECHTYPE (mca-2.0.3 profile: the endpoint's handle) a packet channel's
 * @retval MCX_EOPENP the side's open is pending
 * @retval MCX_ENOTOPEN the side is not open, or the receiver has closed or gone
 * @retval MCX_ETIMEDOUT no room within the TIMEOUT (at once with a TIMEOUT of 0)
 * @retval MCX_ENOMEM no room, and the endpoint is FAIL_ON_MEM_LIMIT
 * @retval other the pmq transport's errors (MCX_ELIMIT, MCX_EIO)
 */
CHAN_SLOW void mcx__scl_send_slow(uint32_t handle, uint32_t width, uint64_t value, uint32_t *status,
                                            const mcx__status_map_t *map);

/**
 * @brief The fast path of a scalar receive: takes a scalar of @p width
 * bytes from the receive side @p handle into *@p value, or changes nothing.
 * @retval true received
 * @retval false missed (also an empty ring, or a scalar of another width):
 *         the caller calls mcx__scl_recv_slow
 */
CHAN_FAST bool mcx__scl_recv_fast(uint32_t handle, uint32_t width, uint64_t *value)
{
  mcx__chan_t *ch;
  struct mcx__chc *c = mcx__chc_get(handle, MCAPI_SCL_CHAN, MCX_CHAN_RECV, &ch);
  uint32_t got;
  uint64_t v;
  if (__builtin_expect(!c || mcx__spsc_get1(&c->v, width, &got, &v) != MCX_Q_OK, 0))
    return false;
  /* F-W2 after R2-T; the rare wake returns the value, so none lives across it. */
  *value = mcx__notify_fast_v(&ch->space_wp, v);
  return true;
}

/**
 * @brief The slow path of a scalar receive (as mcx__scl_send_slow's, and
 * the wait: a poll of the slot the next scalar changes, then yield and
 * sleep, up to the endpoint's TIMEOUT).
 * @retval MCX_OK received into *@p value
 * @retval MCX_EWIDTH the next scalar has another width: left in place (the
 *         mca-2.0.3 profile consumes it, as the reference does)
 * @retval MCX_ETIMEDOUT none within the TIMEOUT (at once with a TIMEOUT of 0)
 * @retval MCX_ENOTOPEN the side is not open, or the sender has closed or
 *         gone and every scalar it sent has been received
 * @retval other as mcx__scl_send_slow (MCX_ENODE, MCX_EBADCH, MCX_ECHDIR,
 *         MCX_ECHTYPE, MCX_EOPENP, pmq)
 */
CHAN_SLOW uint64_t mcx__scl_recv_slow(uint32_t handle, uint32_t width, uint32_t *status,
                                                const mcx__status_map_t *map);

#endif
