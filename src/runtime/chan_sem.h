/* SPDX-License-Identifier: BSD-3-Clause */
/* A blocking channel receive that names the semaphore it locks next
 * (chan_sem.c; docs/sem.md). */
#ifndef MCX_RUNTIME_CHAN_SEM_H
#define MCX_RUNTIME_CHAN_SEM_H

#include <stddef.h>
#include <stdint.h>

#include "sync/pisem.h"

/**
 * A packet (@p type MCAPI_PKT_CHAN: *@p buf, *@p size) or scalar (of
 * @p width bytes: *@p value) receive on the receive side @p handle that
 * returns holding @p s when it returns an item. The receiver sleeps in
 * FUTEX_WAIT_REQUEUE_PI naming @p s: the sender's wake (mcx__wp_notify on
 * recv_wp) requeues it onto s, so it wakes owning s (or queued on s, its
 * holder boosted) instead of waking only to block on s. With an item
 * already there it locks s, then takes the item.
 * @param lock_r receives the lock's result: 0 / MCX_EOWNERDEAD (held) or
 *        MCX_EAGAIN (not held: nothing was received)
 * @return as the plain receive (mcx__pkt_recv, mcx__scl_recv): MCX_OK
 *         (received, @p s held), MCX_ETIMEDOUT, errors
 */
int mcx__chan_recv_then_lock(uint32_t handle, uint32_t type, uint32_t width, void **buf,
                             size_t *size, uint64_t *value, mcx__pisem_t *s, int *lock_r);

#endif
