/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Channels: receives that name the semaphore they lock next (docs/sem.md;
 * the message receive's counterpart is msg_sem.c).
 */
#include "runtime/chan.h"
#include "runtime/chan_sem.h"
#include "runtime/domain.h"

#include "ports/mcx_port.h"
#include "sync/wait_pi.h"

int mcx__chan_recv_then_lock(uint32_t handle, uint32_t type, uint32_t width, void **buf,
                             size_t *size, uint64_t *value, mcx__pisem_t *s, int *lock_r)
{
  mcx__domain_t *d = mcx__self.dom;
  mcx__chan_t *ch;
  uint32_t st;
  *lock_r = MCX_EAGAIN;
  int r = mcx__chan_resolve_open(d, handle, type, MCX_CHAN_RECV, &ch, &st);
  if (r)
    return r;
  mcx__xfer_t a = {.width = width};
  mcx__chan_try_fn fn = type == MCAPI_PKT_CHAN ? mcx__pkt_recv_attempt : mcx__scl_recv_attempt;
  uint32_t timeout, fail;
  mcx__chan_ep_attrs(d, ch, MCX_CHAN_RECV, &timeout, &fail);
  uint64_t deadline = timeout == 0 ? 0 : mcx_port_deadline_ms(timeout);
  /* s must be found at recv_wp + offset by every sender: see msg_sem.c. */
  int in_part = (uint8_t *)s >= d->base && (uint8_t *)(s + 1) <= d->base + d->size;
  uint32_t local_pid = in_part ? 0 : mcx_port_pid() | (s->shared ? MCX__WP_PI_SHARED : 0);
  int pi_shared = in_part ? d->shared : (int)s->shared; /* the flag of the requeue-PI pair */
  mcx__spsc_view_t v = mcx__chan_data_view_at(d, ch, mcx__chan_idx(d, ch), type);
  mcx__backoff_t b;
  mcx__backoff_begin(&b);
  int died = 0, locked = 0;
  for (;;) {
    mcx__glock(d);
    uint32_t n = type == MCAPI_PKT_CHAN ? mcx__pkt_count(&v) : mcx__scl_count(&v);
    mcx__gunlock(d);
    if (d->transport == MCX_TRANSPORT_PMQ_)
      n = mcx__chan_pmq_count(d, ch);
    if (n > 0 || locked) {
      if (!locked) {
        int lr = mcx__pisem_lock(s, deadline);
        if (lr != MCX_OK && lr != MCX_EOWNERDEAD)
          return lr == MCX_EAGAIN ? MCX_ETIMEDOUT : lr;
        died |= lr == MCX_EOWNERDEAD;
      }
      locked = 0;
      r = fn(d, ch, &a);
      if (r == MCX_OK) {
        *lock_r = died ? MCX_EOWNERDEAD : MCX_OK;
        if (type == MCAPI_PKT_CHAN) {
          *buf = a.out;
          *size = a.size;
        } else {
          *value = a.value;
        }
        return MCX_OK;
      }
      mcx__pisem_unlock(s);
      if (r != MCX_EAGAIN)
        return r; /* e.g. a scalar of another width: not consumed */
      continue;
    }
    if (timeout == 0)
      return MCX_ETIMEDOUT;
    if (!mcx__backoff_step(&b))
      continue;
    uint32_t key = mcx__wp_prepare_pi(&ch->recv_wp, &s->word, local_pid);
    mcx__glock(d);
    n = type == MCAPI_PKT_CHAN ? mcx__pkt_count(&v) : mcx__scl_count(&v);
    mcx__gunlock(d);
    if (d->transport == MCX_TRANSPORT_PMQ_)
      n = mcx__chan_pmq_count(d, ch);
    if (n > 0 || (r = mcx__chan_resolve_open(d, handle, type, MCX_CHAN_RECV, &ch, &st)) != MCX_OK) {
      mcx__wp_cancel_pi(&ch->recv_wp); /* after F-W1: we see the item or its sender sees us */
      if (r)
        return r;
      continue;
    }
    uint64_t slice = mcx_port_now_ns() + 50000000ull;
    int w = mcx__wp_sleep_pi(&ch->recv_wp, key, &s->word, slice < deadline ? slice : deadline,
                             pi_shared);
    if (w == MCX_OK) { /* a sender's requeue made us the owner of s */
      died |= mcx__pisem_acquired(s) == MCX_EOWNERDEAD;
      locked = 1;
      continue;
    }
    if (deadline != MCX_NO_DEADLINE && mcx_port_now_ns() >= deadline)
      return MCX_ETIMEDOUT;
    if (w != MCX_ETIMEDOUT && w != MCX_EAGAIN && w != MCX_EINTR)
      return MCX_EIO;
    if (mcx__any_dead_node(d))
      mcx__sweep_dead(d);
  }
}
