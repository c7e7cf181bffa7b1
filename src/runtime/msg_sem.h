/* SPDX-License-Identifier: BSD-3-Clause */
/* a blocking message receive that names the semaphore it locks next. */
#ifndef MCX_RUNTIME_MSG_SEM_H
#define MCX_RUNTIME_MSG_SEM_H

#include <stddef.h>
#include <stdint.h>

#include "sync/pisem.h"

/**
 * mcx__msg_recv_fast/_slow() that returns holding @p s when it returns a message. A
 * receiver that must sleep does so in FUTEX_WAIT_REQUEUE_PI on its endpoint's
 * recv_wp, naming @p s; the sender's notify (wait.h) requeues it onto @p s.
 * @param lock_r receives the lock's outcome: 0 / MCX_EOWNERDEAD (held) or
 *        MCX_EAGAIN (not held: nothing was received)
 * @return as mcx__msg_recv_slow(): 0 or MCX_ETRUNC (received, @p s held),
 *         MCX_ETIMEDOUT, errors; MCX_EBUSY when the caller holds @p s already
 */
/** Packet (type MCAPI_PKT_CHAN) or scalar receive naming @p s; see chan.c. */
int mcx__chan_recv_then_lock(uint32_t handle, uint32_t type, uint32_t width, void **buf,
                             size_t *size, uint64_t *value, mcx__pisem_t *s, int *lock_r);
int mcx__msg_recv_then_lock(uint32_t ep, void *buf, size_t cap, size_t *size, mcx__pisem_t *s,
                            int *lock_r);

#endif
