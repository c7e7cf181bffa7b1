/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Messages over the pmq transport (transport/pmq.c), the runtime's side: the
 * endpoint's state checks around each attempt, the re-size handshake with
 * senders, the wait points, and the loops that repeat single attempts of the
 * transport until the endpoint's TIMEOUT. The transport knows queues (slot,
 * creator pid, incarnation); this file names them from endpoints. msg.c and
 * endpoint_ctl.c branch here when the domain's transport is MCX_TRANSPORT_PMQ_.
 */
#include "ports/mcx_port.h"
#include "runtime/domain.h"
#include "runtime/endpoint.h"
#include "runtime/msg_pmq.h"
#include "transport/pmq.h"

/* The queue of endpoint @p e (slot @p idx) in incarnation @p epoch: created
 * by its owner node's process. The pid is stable while the endpoint is
 * active (a node deletes its endpoints before its table entry is freed). */
static mcx__pmq_ep_t pmq_ep(const mcx__domain_t *d, const mcx__endpoint_t *e, uint32_t idx,
                            uint32_t epoch)
{
  mcx__pmq_ep_t q = {idx, mcx_load_relaxed(&mcx__nodes(d)[mcx_load_relaxed(&e->owner_slot)].pid),
                     epoch, mcx_load_relaxed(&e->depth)};
  return q;
}

uint32_t mcx__msg_pmq_delete(mcx__domain_t *d, mcx__endpoint_t *e, uint32_t idx)
{
  mcx__pmq_ep_t q = pmq_ep(d, e, idx, mcx_load_relaxed(&e->ring_epoch));
  return mcx__pmq_ep_delete(d->pmq, &q);
}

static int requeue(mcx__domain_t *d, mcx__endpoint_t *e, uint32_t idx, uint32_t depth, int make)
{
  uint32_t st = mcx_load_relaxed(&e->state);
  /* P1 — seq_cst store, then a seq_cst load of pmq_senders; pairs with P2 in
   * send_attempt (Dekker): either a sender sees RECONFIG and backs off, or we
   * see it counted and wait until it has finished its mq_send. */
  mcx_store_seq_cst(&e->state, (st & ~0xffu) | EP_RECONFIG);
  uint64_t until = mcx_port_now_ns() + 2ull * MCX_PMQ_TICK_MS * 1000000u;
  while (mcx_load_seq_cst(&e->pmq_senders) != 0 && mcx_port_now_ns() < until)
    mcx_port_yield();
  uint32_t epoch = mcx_load_relaxed(&e->ring_epoch);
  int r;
  if (mcx_load_seq_cst(&e->pmq_senders) != 0) {
    r = MCX_EBUSY; /* a sender is blocked on a full queue */
  } else {
    uint32_t next = (epoch + 1) & MCX_RING_GEN_MASK;
    mcx__pmq_ep_t q = pmq_ep(d, e, idx, epoch);
    if ((r = mcx__pmq_ep_requeue(d->pmq, &q, next, depth, make)) == MCX_OK) {
      mcx_store_relaxed(&e->depth, depth);
      mcx_store_release(&e->ring_epoch, next); /* R-E4 */
    }
  }
  mcx_store_release(&e->state, (st & ~0xffu) | EP_ACTIVE); /* R-E1 */
  mcx__wp_broadcast(&e->space_wp, d->shared);
  return r;
}

int mcx__msg_pmq_resize(mcx__domain_t *d, mcx__endpoint_t *e, uint32_t idx, uint32_t depth)
{
  return requeue(d, e, idx, depth, 1);
}

void mcx__msg_pmq_park(mcx__domain_t *d, mcx__endpoint_t *e, uint32_t idx)
{
  /* Under the admin lock, as a re-size: the same handshake with senders, the
   * next incarnation, its queue made by its first use. Messages queued (or a
   * sender inside): the queue stays. */
  (void)requeue(d, e, idx, mcx_load_relaxed(&e->depth), 0);
}

/*
 * One send: @p dl 0 tries once, otherwise waits for space until @p dl.
 * MCX_EBUSY: the endpoint is being re-sized, try again.
 */
static int send_attempt(mcx__domain_t *d, mcx__endpoint_t *dst, uint32_t to, const void *buf,
                        size_t size, uint32_t prio, uint64_t dl)
{
  int r;
  /* P2 — seq_cst RMW, then a seq_cst load of state; pairs with P1 (resize). */
  mcx_fetch_add_seq_cst(&dst->pmq_senders, 1);
  uint32_t st = mcx_load_seq_cst(&dst->state);
  if (!mcx__ep_gen_ok(d, to, st) || (EP_STATE(st) != EP_ACTIVE && EP_STATE(st) != EP_RECONFIG)) {
    r = MCX_ECLOSED; /* deleted while we were sending */
  } else if (st & EP_UNREACH) {
    r = MCX_EUNREACH;
  } else if (EP_STATE(st) == EP_RECONFIG) {
    r = MCX_EBUSY;
  } else {
    /* The state load (seq_cst, so acquire) pairs with R-E1: the epoch of
     * this active incarnation is visible. */
    mcx__pmq_ep_t q = pmq_ep(d, dst, mcx__ep_idx(d, dst), mcx_load_relaxed(&dst->ring_epoch));
    int made = 0;
    r = mcx__pmq_ep_send(d->pmq, &q, buf, size, prio, dl, &made);
    /* We made the queue (its first use). A delete stores DELETING (seq_cst)
     * before it unlinks; our create came before this seq_cst load: either we
     * see DELETING or the delete's unlink comes after our create. So a queue
     * made for an endpoint deleted meanwhile is unlinked here or there. */
    uint32_t now = made ? mcx_load_seq_cst(&dst->state) : st;
    if (!mcx__ep_gen_ok(d, to, now) || (EP_STATE(now) != EP_ACTIVE && EP_STATE(now) != EP_RECONFIG)) {
      mcx__pmq_ep_delete(d->pmq, &q);
      r = MCX_ECLOSED;
    }
  }
  mcx_fetch_sub_release(&dst->pmq_senders, 1); /* after our mq_send; read by P1 */
  /* A request sleeping in mcapi_wait for this endpoint: the kernel's queue
   * lock orders our mq_send before this load and its re-check after its
   * announcement (F-W1), so one of the two sees the other. */
  if (r == MCX_OK)
    mcx__wp_notify_after_rmw(&dst->recv_wp, d->shared);
  return r;
}

int mcx__msg_pmq_send(mcx__domain_t *d, mcx__endpoint_t *src, mcx__endpoint_t *dst, uint32_t to,
                      const void *buf, size_t size, uint32_t prio, int block)
{
  uint32_t timeout = block ? mcx__ep_timeout(d, src) : 0;
  uint64_t deadline = 0, dl = 0;
  mcx__backoff_t b;
  mcx__backoff_begin(&b);
  for (;;) {
    int r = send_attempt(d, dst, to, buf, size, prio, dl);
    if (r == MCX_EBUSY) {
      mcx_port_yield(); /* a re-size is under way */
      continue;
    }
    if (r == MCX_OK)
      mcx__backoff_end(&b); /* adapts the thread's spin budget */
    if (r != MCX_EAGAIN && r != MCX_ETIMEDOUT)
      return r;
    /* Full. */
    uint64_t started = deadline;
    if ((r = mcx__send_no_room(d, src, block, timeout, &deadline)) != MCX_OK)
      return r;
    if (started && mcx_port_now_ns() >= deadline)
      return MCX_ETIMEDOUT;
    /* A receiver that died never drains: reclaim it (its endpoint is deleted,
     * its queue unlinked), as the ring path does. */
    if (dl && !mcx__node_alive(d, mcx_load_relaxed(&dst->owner_slot)))
      mcx__sweep_dead(d);
    if (!dl && !mcx__backoff_step(&b))
      continue; /* poll first (the wait policy's spins and yields): a kernel wake-up costs more */
    dl = mcx__pmq_tick_deadline(deadline); /* the next attempt re-checks the endpoint first */
  }
}

static int recv_attempt(mcx__domain_t *d, mcx__endpoint_t *ep, void *buf, size_t cap, size_t *size,
                        uint64_t dl)
{
  /* The epoch: only we (the owner) re-size. */
  mcx__pmq_ep_t q = pmq_ep(d, ep, mcx__ep_idx(d, ep), mcx_load_relaxed(&ep->ring_epoch));
  int r = mcx__pmq_ep_recv(d->pmq, &q, buf, cap, size, dl);
  if (r == MCX_OK || r == MCX_ETRUNC) /* taken */
    mcx__wp_notify(&ep->space_wp, d->shared); /* a send request sleeping in mcapi_wait */
  return r;
}

int mcx__msg_pmq_recv(mcx__domain_t *d, mcx__endpoint_t *ep, uint32_t h, void *buf, size_t cap,
                      size_t *size, int block)
{
  uint32_t timeout = block ? mcx__ep_timeout(d, ep) : 0;
  uint64_t deadline = 0, dl = 0;
  mcx__backoff_t b;
  mcx__backoff_begin(&b);
  for (;;) {
    int r = recv_attempt(d, ep, buf, cap, size, dl);
    if (r == MCX_OK || r == MCX_ETRUNC)
      mcx__backoff_end(&b); /* adapts the thread's spin budget */
    if (r != MCX_EAGAIN && r != MCX_ETIMEDOUT)
      return r;
    if (!block)
      return MCX_EAGAIN;
    if (timeout == 0)
      return MCX_ETIMEDOUT;
    if (!deadline)
      deadline = mcx_port_deadline_ms(timeout);
    else if (mcx_port_now_ns() >= deadline)
      return MCX_ETIMEDOUT;
    if (mcx__ep_resolve(d, h, &ep) != MCX_OK)
      return MCX_ECLOSED;
    if (!dl && !mcx__backoff_step(&b))
      continue; /* poll first, as the ring path spins and yields before it sleeps */
    dl = mcx__pmq_tick_deadline(deadline);
  }
}

int mcx__msg_pmq_available(mcx__domain_t *d, mcx__endpoint_t *ep, uint32_t *count)
{
  mcx__pmq_ep_t q = pmq_ep(d, ep, mcx__ep_idx(d, ep), mcx_load_relaxed(&ep->ring_epoch));
  return mcx__pmq_ep_count(d->pmq, &q, count);
}
