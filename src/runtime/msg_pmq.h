/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file msg_pmq.h
 * @brief Messages over the pmq transport (msg_pmq.c).
 */
#ifndef MCX_RUNTIME_MSG_PMQ_H
#define MCX_RUNTIME_MSG_PMQ_H

#include "runtime/endpoint.h"

/* ---- messages over the pmq transport (msg_pmq.c): the endpoint's side of transport/pmq.c */
/** A send with the endpoint's TIMEOUT (@p block 0: one try); statuses as mcx__msg_send_slow's. */
int mcx__msg_pmq_send(mcx__domain_t *d, mcx__endpoint_t *src, mcx__endpoint_t *dst, uint32_t to,
                      const void *buf, size_t size, uint32_t prio, int block);
/** A receive on the caller's endpoint @p h (@p block 0: one try); MCX_ETRUNC with the full size. */
int mcx__msg_pmq_recv(mcx__domain_t *d, mcx__endpoint_t *ep, uint32_t h, void *buf, size_t cap,
                      size_t *size, int block);
/** Messages queued to endpoint @p ep. */
int mcx__msg_pmq_available(mcx__domain_t *d, mcx__endpoint_t *ep, uint32_t *count);
/** Unlinks the queue of a deleted endpoint (state DELETING, admin lock held); the messages dropped. */
uint32_t mcx__msg_pmq_delete(mcx__domain_t *d, mcx__endpoint_t *e, uint32_t idx);
/** NUM_RECV_BUFFERS: re-creates the empty queue with @p depth messages (admin lock held).
 * @retval 0, MCX_EBUSY (messages queued or being sent), MCX_ELIMIT (with a message) */
int mcx__msg_pmq_resize(mcx__domain_t *d, mcx__endpoint_t *e, uint32_t idx, uint32_t depth);

#endif
