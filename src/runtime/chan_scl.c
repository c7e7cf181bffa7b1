/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Scalar channels: the slow paths of the send and the receive (their fast
 * paths: chan_scl.h). Scalars travel in the slots of the data ring
 * (spsc_ring.h, the scalar protocol: the value and a word of position and
 * width; no pool, no return ring).
 */
#include "runtime/chan_scl.h"
#include "runtime/domain.h"

/* A scalar send's polls of the consumer's count, lock-free, while the only
 * free slots are in the line the consumer reads (mcx__spsc_put1_lines);
 * none under a lock, which the consumer would need to move. */
#define SCL_LINE_POLLS 64u

/* One send attempt on a checked channel (mcx__chan_try_fn). */
static int send_attempt(const mcx__domain_t *d, mcx__chan_t *ch, void *arg)
{
  const mcx__xfer_t *a = arg;
  if (!mcx__chan_peer_alive(ch, MCX_CHAN_SEND))
    return MCX_ENOTOPEN;
  if (d->transport == MCX_TRANSPORT_PMQ_)
    return mcx__chan_pmq_send(d, ch, 0, a);
  mcx__spsc_view_t v = mcx__chan_data_view_at(d, ch, mcx__chan_idx(d, ch), MCAPI_SCL_CHAN);
  mcx__glock(d);
  mcx__q_outcome_t o = mcx__spsc_put1_lines(&v, a->width, a->value,
                                            d->locking == MCX_LOCK_LOCKFREE ? SCL_LINE_POLLS : 0);
  mcx__gunlock(d);
  if (o != MCX_Q_OK)
    return MCX_EAGAIN;
  mcx__wp_notify(&ch->recv_wp, d->shared);
  return MCX_OK;
}

int mcx__scl_recv_attempt(const mcx__domain_t *d, mcx__chan_t *ch, void *arg)
{
  mcx__xfer_t *a = arg;
  if (d->transport == MCX_TRANSPORT_PMQ_)
    return mcx__chan_pmq_recv(d, ch, 0, a);
  uint32_t width = 0;
  bool closed;
  mcx__q_outcome_t o =
      mcx__chan_get_or_closed(d, ch, 1, a->width, &width, &a->value, NULL, &closed);
  if (o == MCX_Q_OK) {
    mcx__wp_notify(&ch->space_wp, d->shared);
    return MCX_OK;
  }
  if (o == MCX_Q_MISMATCH) {
    if (mcx__ref()) { /* the reference consumes it (and reports the size error) */
      uint64_t discard;
      mcx__chan_get_once(d, ch, 1, 0, &width, &discard, NULL);
      mcx__wp_notify(&ch->space_wp, d->shared);
    }
    return MCX_EWIDTH; /* spec: left in place, a receive of the right width gets it */
  }
  return closed ? MCX_ENOTOPEN : MCX_EAGAIN;
}

/* The producer at the limit it last read (once a ring's capacity of sends,
 * the fast path's only miss on an entry that matches): the send that first
 * reads the consumer's count, on the cached entry. False: no entry, or no
 * room there. */
static bool send_refilled(uint32_t handle, uint32_t width, uint64_t value)
{
  mcx__chan_t *ch;
  struct mcx__chc *c = mcx__chc_get(handle, MCAPI_SCL_CHAN, MCX_CHAN_SEND, &ch);
  if (!c || mcx__spsc_put1_refill(&c->v, width, value, 1) != MCX_Q_OK)
    return false;
  mcx__notify_fast(&ch->recv_wp); /* F-W2 after R1 */
  return true;
}

static int send_slow(uint32_t handle, uint32_t width, uint64_t value)
{
  /* Off the fast paths (no node, another mode or transport) there is no
   * entry to refill from: straight to the checks. */
  if (mcx__self.fast && send_refilled(handle, width, value))
    return MCX_OK;
  if (!mcx__is_node())
    return MCX_ENODE;
  mcx__xfer_t a; /* a scalar's fields only: the others are a packet's */
  a.width = width;
  a.value = value;
  return mcx__chan_data_call(handle, MCAPI_SCL_CHAN, MCX_CHAN_SEND, 0, send_attempt, &a, NULL);
}

/* The fast path's receive on the cached entry, again. */
static bool recv_cached(uint32_t handle, uint32_t width, uint64_t *value)
{
  mcx__chan_t *ch;
  struct mcx__chc *c = mcx__chc_get(handle, MCAPI_SCL_CHAN, MCX_CHAN_RECV, &ch);
  uint32_t got;
  /* a width mismatch leaves the item in place: the checked path reports it */
  if (!c || mcx__spsc_get1(&c->v, width, &got, value) != MCX_Q_OK)
    return false;
  mcx__notify_fast(&ch->space_wp); /* F-W2 after R2-T */
  return true;
}

static int recv_slow(uint32_t handle, uint32_t width, uint64_t *value)
{
  mcx__backoff_t b;
  b.begun = 0;
  /* On the fast paths, an empty ring: the wait's spin polls the slot the
   * next scalar changes, then the cached receive again; the checked path
   * below goes on with the same wait (yield, then sleep). */
  if (mcx__self.fast && mcx__chan_poll_next(handle, MCAPI_SCL_CHAN, &b) &&
      recv_cached(handle, width, value)) {
    mcx__backoff_end(&b);
    return MCX_OK;
  }
  if (!mcx__is_node())
    return MCX_ENODE;
  mcx__xfer_t a; /* as in the send */
  a.width = width;
  int r = mcx__chan_data_call(handle, MCAPI_SCL_CHAN, MCX_CHAN_RECV, 0, mcx__scl_recv_attempt,
                              &a, &b);
  if (r == MCX_OK)
    *value = a.value;
  return r;
}

void mcx__scl_send_slow(uint32_t handle, uint32_t width, uint64_t value, uint32_t *status,
                        const mcx__status_map_t *map)
{
  mcx__status_store(status, map, send_slow(handle, width, value));
}

uint64_t mcx__scl_recv_slow(uint32_t handle, uint32_t width, uint32_t *status,
                            const mcx__status_map_t *map)
{
  uint64_t v = 0;
  int r = recv_slow(handle, width, &v);
  mcx__status_store(status, map, r);
  return r == MCX_OK ? v : 0;
}
