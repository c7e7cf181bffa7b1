/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Channels: the wait of a blocking data call (docs/design.md, Waiting).
 * A blocking send or receive checks its handle, then makes attempts (the
 * typed ones of chan_scl.c and chan_pkt.c) until one moves its item or
 * says why it cannot: between them it spins, yields, then sleeps on the
 * side's wait point in slices, up to the endpoint's TIMEOUT, and sweeps
 * dead nodes so a peer that died is reported instead of waited for. A
 * receive whose cached receive found the ring empty first polls the slot
 * the next item changes (mcx__chan_poll_next); that wait goes on here.
 */
#include "runtime/chan.h"
#include "runtime/domain.h"
#include "runtime/endpoint.h"

void mcx__chan_ep_attrs(const mcx__domain_t *d, const mcx__chan_t *ch, uint32_t dir,
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

/* Attempts of @p fn on @p ch until one does not say MCX_EAGAIN, waiting on
 * @p wp between them (see mcx__chan_data_call). */
static int block_on(const mcx__domain_t *d, mcx__chan_t *ch, uint32_t dir, mcx__waitpoint_t *wp,
                    mcx__chan_try_fn fn, void *arg, const mcx__backoff_t *wait)
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
  mcx__chan_ep_attrs(d, ch, dir, &timeout, &fail);
  if (dir == MCX_CHAN_SEND && fail)
    return MCX_ENOMEM;
  if (timeout == 0)
    return MCX_ETIMEDOUT;
  uint64_t deadline = mcx_port_deadline_ms(timeout);
  mcx__backoff_t b;
  if (wait && wait->begun)
    b = *wait; /* its spins are spent (mcx__chan_poll_next): on to yielding */
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

int mcx__chan_data_call(uint32_t handle, uint32_t type, uint32_t dir, size_t size,
                        mcx__chan_try_fn fn, mcx__xfer_t *a, const mcx__backoff_t *wait)
{
  mcx__chc_refill(handle, type, dir);
  mcx__domain_t *d = mcx__self.dom;
  mcx__chan_t *ch;
  uint32_t st;
  int r = mcx__chan_resolve_open(d, handle, type, dir, &ch, &st);
  if (r)
    return r;
  /* A packet's size after the handle, as the spec orders the statuses. */
  if (size > MCAPI_MAX_PKT_SIZE)
    return MCX_EMSGSIZE;
  return block_on(d, ch, dir, dir == MCX_CHAN_SEND ? &ch->space_wp : &ch->recv_wp, fn, a, wait);
}

bool mcx__chan_poll_next(uint32_t handle, uint32_t type, mcx__backoff_t *b)
{
  b->begun = 0;
  const mcx__domain_t *d = mcx__self.fast;
  mcx__chan_t *ch;
  struct mcx__chc *c = mcx__chc_get(handle, type, MCX_CHAN_RECV, &ch);
  if (!d || !c)
    return false; /* not begun: the slow path waits as it would */
  /* The slot of the next item: the head is ours (the one consumer). */
  const mcx__spsc_view_t *v = &c->v;
  uint32_t pos = mcx_load_relaxed(&v->ring->head);
  const mcx_atomic_u32 *w = &(v->slots + ((size_t)(pos & v->mask) << v->spread))->word;
  uint32_t was = mcx_load_relaxed(w);
  /* Poll only on the plain empty case, where that word changes with the
   * next item: free for this position (a packet slot), or still naming a
   * lap before it (a scalar slot). Anything else (a held packet slot the
   * producer passes over, a mismatch) is the slow path's. */
  if (type == MCAPI_PKT_CHAN ? was != mcx__spsc_word(pos, MCX_SPSC_FREE) : !((was ^ pos << 2) >> 2))
    return false;
  mcx__backoff_begin(b);
  while (b->spins < b->limit) {
    b->spins++;
    mcx_port_cpu_relax();
    /* Relaxed: a change only sends the caller to the cached receive, which
     * reads the word again (A2). */
    if (mcx_load_relaxed(w) != was)
      return true;
    if (b->spins == 1) { /* no wait with a TIMEOUT of 0: the slow path reports it */
      uint32_t timeout, fail;
      mcx__chan_ep_attrs(d, ch, MCX_CHAN_RECV, &timeout, &fail);
      if (timeout == 0)
        return false;
    }
  }
  return false;
}
