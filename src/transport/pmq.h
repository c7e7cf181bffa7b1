/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file pmq.h
 * @brief The pmq transport: one POSIX message queue per receiving endpoint
 * (PMQ-MCAPI). The runtime's message calls branch here once, at their top,
 * when the domain's transport is MCX_TRANSPORT_PMQ_; argument and handle
 * checks stay in msg.c / endpoint.c. See docs/pmq.md.
 *
 * Queue names: <partition name>-p<creator pid>-e<endpoint slot>-g<ring epoch>-<tag>, i.e.
 * /mcx-<uid>-<namespace>-d<domain>-p<pid>-e<slot>-g<epoch>-<tag> (MCX_NAMESPACE keeps
 * unrelated runs apart, as it does for partitions). <tag> is the partition's
 * random name_tag (16 hex digits): another user cannot guess a name and
 * create it first. Every queue is created exclusively by exactly one party
 * (an endpoint's by its owner, a channel's by connect) and every queue opened
 * is checked to be ours (owner uid, mode 0600) before it is used; a name held
 * by another user's object is an error, never removed.
 * The ring epoch is the endpoint's incarnation (bumped by every create and
 * every NUM_RECV_BUFFERS change), so a re-sized or re-created endpoint gets a
 * new queue and a descriptor cached for the old one can never reach it.
 *
 * Descriptors are per process: struct mcx__pmq (hung on the domain view) holds
 * one cache entry per endpoint slot, opened lazily, reference-counted, closed
 * when the endpoint goes away or the view is detached.
 */
#ifndef MCX_TRANSPORT_PMQ_H
#define MCX_TRANSPORT_PMQ_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/runtime.h"

/** Longest wait in one blocking system call; blocked calls re-check the endpoint between. */
#define MCX_PMQ_TICK_MS 10u

/**
 * @brief The largest message a new pmq domain can carry: @p requested capped
 * by msgsize_max (or, for a privileged process that asked for a size
 * explicitly, by the kernel's hard limit). Logs the cap at debug level 1.
 */
uint32_t mcx__pmq_payload_limit(uint32_t requested, int explicit_size);

/**
 * @brief Sets up the process's pmq state of a new domain view and removes
 * queues of this domain left by dead processes.
 * @retval 0, MCX_ENOMEM
 */
int mcx__pmq_domain_open(mcx__domain_t *d);
/**
 * @brief The process's last node of the domain left: closes every cached
 * descriptor, unlinks what this process left (and, with @p last_in_domain,
 * what dead processes left); frees the state.
 */
void mcx__pmq_domain_close(mcx__domain_t *d, int last_in_domain);
/** @brief In a fork child: drops the parent's descriptors and state without touching queues. */
void mcx__pmq_domain_forget(mcx__domain_t *d);

/**
 * @brief Creates the queue of endpoint slot @p idx, incarnation @p epoch
 * (admin lock held, before the endpoint is published). *depth receives the
 * queue's mq_maxmsg (NUM_RECV_BUFFERS).
 * @retval 0 created
 * @retval MCX_ENOMEM queues_max reached (MCAPI_ERR_ENDP_LIMIT)
 * @retval MCX_ELIMIT RLIMIT_MSGQUEUE, msg_max or descriptor limits (MCAPI_ERR_MEM_LIMIT)
 * @retval MCX_EIO the OS refused otherwise
 */
int mcx__pmq_ep_create(mcx__domain_t *d, uint32_t idx, uint32_t epoch, uint32_t *depth);
/** @brief Unlinks the queue of a deleted endpoint (state DELETING, admin lock held); returns the messages dropped. */
uint32_t mcx__pmq_ep_delete(mcx__domain_t *d, mcx__endpoint_t *e, uint32_t idx);
/**
 * @brief NUM_RECV_BUFFERS: re-creates the empty queue with mq_maxmsg @p depth
 * (admin lock held).
 * @retval 0, MCX_EBUSY (messages queued or being sent), MCX_ELIMIT (with a message)
 */
int mcx__pmq_ep_resize(mcx__domain_t *d, mcx__endpoint_t *e, uint32_t idx, uint32_t depth);

/**
 * @brief Sends (checks done by the caller). @p block 0: one try.
 * @retval 0, MCX_EAGAIN (full, try only), MCX_ENOMEM (full, FAIL_ON_MEM_LIMIT),
 * MCX_ETIMEDOUT, MCX_ECLOSED (the receiver was deleted), MCX_ELIMIT, MCX_EIO
 */
int mcx__pmq_send(mcx__domain_t *d, mcx__endpoint_t *src, mcx__endpoint_t *dst, uint32_t to,
                  const void *buf, size_t size, uint32_t prio, int block);
/**
 * @brief Receives on the caller's endpoint @p h. @p block 0: one try.
 * @retval 0, MCX_ETRUNC (full size in *size), MCX_EAGAIN, MCX_ETIMEDOUT, MCX_ECLOSED, MCX_EIO
 */
int mcx__pmq_recv(mcx__domain_t *d, mcx__endpoint_t *ep, uint32_t h, void *buf, size_t cap,
                  size_t *size, int block);
/** @brief Messages queued to endpoint @p h (mq_getattr). */
int mcx__pmq_available(mcx__domain_t *d, mcx__endpoint_t *ep, uint32_t h, uint32_t *count);

/* ---- channels: one queue per connection, made by connect (exclusively,
 * before the connection is published), unlinked at tear-down; chan.c keeps
 * its state machine and wait points. */
typedef struct mcx__pmq_chan {
  uint32_t idx;   /* channel record */
  uint32_t gen;   /* its generation: the queue's incarnation */
  uint32_t pid;   /* the receiving side's process, which makes the queue */
  uint32_t type;  /* MCAPI_PKT_CHAN or MCAPI_SCL_CHAN */
  uint32_t depth; /* wanted mq_maxmsg (capped like an endpoint's) */
} mcx__pmq_chan_t;

/** @retval 0, MCX_ENOMEM (queues_max), MCX_ELIMIT (a limit; the message names it),
 * MCX_EIO (the name is held by another user's queue; left alone, the message says so) */
int mcx__pmq_chan_create(mcx__domain_t *d, const mcx__pmq_chan_t *c);
/** Unlinks the queue, drops this process's descriptors, pool and push-back. */
void mcx__pmq_chan_destroy(mcx__domain_t *d, const mcx__pmq_chan_t *c);
/** One try. @retval 0, MCX_EAGAIN (full), MCX_EMSGSIZE, MCX_ECLOSED */
int mcx__pmq_chan_put(mcx__domain_t *d, const mcx__pmq_chan_t *c, const void *buf, size_t len);
/** A scalar as a 9-byte message {width, value}. */
int mcx__pmq_scl_put(mcx__domain_t *d, const mcx__pmq_chan_t *c, uint32_t width, uint64_t value);
/** One try. @retval 0, MCX_EAGAIN (empty), MCX_EWIDTH (kept for a receive of that width) */
int mcx__pmq_scl_get(mcx__domain_t *d, const mcx__pmq_chan_t *c, uint32_t width, uint64_t *value);
/** One try into buffer @p b of the process-local pool (of @p nbuf buffers). */
int mcx__pmq_pkt_get(mcx__domain_t *d, const mcx__pmq_chan_t *c, uint32_t nbuf, uint32_t b,
                     void **out, size_t *len);
/** Which channel record and buffer a pointer handed out by mcx__pmq_pkt_get is. */
int mcx__pmq_pkt_locate(const mcx__domain_t *d, const void *p, uint32_t *idx, uint32_t *b);
/** Largest packet a channel queue carries (bytes of a local pool buffer in use). */
size_t mcx__pmq_pkt_size(const mcx__domain_t *d);
/** Items queued (plus a scalar in the push-back). */
int mcx__pmq_chan_count(mcx__domain_t *d, const mcx__pmq_chan_t *c, uint32_t *count);

struct mcx_pmq_limits;
/** @brief Fills the mcx_pmq_limits() report for the calling thread. */
void mcx__pmq_limits(struct mcx_pmq_limits *out);

#endif /* MCX_TRANSPORT_PMQ_H */
