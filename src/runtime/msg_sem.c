/* SPDX-License-Identifier: BSD-3-Clause */
/* Message receive with a next-semaphore hint (docs/sem.md).
 *
 * The receiver's wait is mcx__msg_recv_slow()'s (spin, yield, then sleep on the
 * endpoint's recv_wp), except that it sleeps in FUTEX_WAIT_REQUEUE_PI naming
 * the semaphore. Senders are unchanged: their mcx__wp_notify_after_rmw() sees
 * the PI part of the announcement and requeues instead of waking. */
#include "runtime/domain.h"
#include "runtime/endpoint.h"
#include "runtime/msg.h"
#include "runtime/msg_sem.h"

#include "ports/mcx_port.h"
#include "ports/mcx_port_pi.h"
#include "sync/wait_pi.h"

/* A message is queued: lock, then take it (only the owner receives, so it
 * stays there unless a pending receive request of ours takes it). */
static int lock_and_take(uint32_t h, void *buf, size_t cap, size_t *size, mcx__pisem_t *s,
                         uint64_t deadline, int *died, int *lock_r, int locked)
{
  if (!locked) {
    int lr = mcx__pisem_lock(s, deadline);
    if (lr != MCX_OK && lr != MCX_EOWNERDEAD)
      return lr == MCX_EAGAIN ? MCX_ETIMEDOUT : lr;
    *died |= lr == MCX_EOWNERDEAD;
  }
  int r = mcx__msg_try_recv(h, buf, cap, size);
  if (r == MCX_OK || r == MCX_ETRUNC) {
    *lock_r = *died ? MCX_EOWNERDEAD : MCX_OK;
    return r;
  }
  mcx__pisem_unlock(s);
  return r == MCX_EAGAIN ? 1 : r; /* 1: look again */
}

int mcx__msg_recv_then_lock(uint32_t h, void *buf, size_t cap, size_t *size, mcx__pisem_t *s,
                            int *lock_r)
{
  *lock_r = MCX_EAGAIN;
  if (!s)
    return mcx__msg_recv_fast(&h, buf, cap, size) ? MCX_OK : mcx__msg_recv_slow(h, buf, cap, size);
  mcx__domain_t *d = mcx__self.dom;
  mcx__endpoint_t *ep;
  int r = mcx__msg_check_recv(h);
  if (r)
    return r;
  if ((r = mcx__ep_resolve(d, h, &ep)) != MCX_OK)
    return r;
  if (mcx__pisem_owner(s) == mcx_port_tid_cached())
    return MCX_EBUSY;
  uint32_t timeout = mcx_load_relaxed(&ep->timeout_ms);
  /* Senders find s at recv_wp + offset. That holds in every process when s
   * lies in the partition; otherwise only for senders of this process, so
   * the wait point records our pid and we sleep in slices (a sender of
   * another process only bumps the word). */
  int in_part = (uint8_t *)s >= d->base && (uint8_t *)(s + 1) <= d->base + d->size;
  uint32_t local_pid = in_part ? 0 : mcx_port_pid() | (s->shared ? MCX__WP_PI_SHARED : 0);
  int pi_shared = in_part ? d->shared : (int)s->shared; /* the flag of the requeue-PI pair */
  uint64_t deadline = timeout == 0 ? 0 : mcx_port_deadline_ms(timeout);
  mcx__backoff_t b;
  mcx__backoff_begin(&b);
  int died = 0;
  for (;;) {
    uint32_t n = 0;
    if ((r = mcx__msg_available(h, &n)) != MCX_OK)
      return r;
    if (n > 0) {
      r = lock_and_take(h, buf, cap, size, s, deadline, &died, lock_r, 0);
      if (r != 1)
        return r;
      continue;
    }
    if (timeout == 0)
      return MCX_ETIMEDOUT;
    if (!mcx__backoff_step(&b))
      continue;
    uint32_t key = mcx__wp_prepare_pi(&ep->recv_wp, &s->word, local_pid);
    mcx__msg_available(h, &n);
    if (n > 0) { /* after F-W1: either we see the message or its sender sees us */
      mcx__wp_cancel_pi(&ep->recv_wp);
      continue;
    }
    if (mcx__ep_resolve(d, h, &ep) != MCX_OK) {
      mcx__wp_cancel_pi(&ep->recv_wp);
      return MCX_ECLOSED;
    }
    uint64_t slice = mcx_port_now_ns() + 50000000ull; /* see local_pid; and dead senders */
    int w = mcx__wp_sleep_pi(&ep->recv_wp, key, &s->word, slice < deadline ? slice : deadline,
                             pi_shared);
    if (w == MCX_ETIMEDOUT && mcx_port_now_ns() < deadline)
      w = MCX_EAGAIN; /* only the slice ended: look again */
    if (w == MCX_OK) {
      /* A sender's requeue made us the owner of s. */
      died |= mcx__pisem_acquired(s) == MCX_EOWNERDEAD;
      r = lock_and_take(h, buf, cap, size, s, deadline, &died, lock_r, 1);
      if (r != 1)
        return r;
      continue;
    }
    if (w == MCX_ETIMEDOUT || (deadline != MCX_NO_DEADLINE && mcx_port_now_ns() >= deadline))
      return MCX_ETIMEDOUT;
    if (w != MCX_EAGAIN && w != MCX_EINTR)
      return MCX_EIO;
  }
}
