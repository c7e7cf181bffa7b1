/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file pmq.h
 * @brief The pmq transport: one POSIX message queue per receiving endpoint
 * (PMQ-MCAPI). This layer knows queues, not endpoints: a queue is named by
 * its slot, its creator's pid and its incarnation, which the runtime passes
 * in (runtime/msg_pmq.c holds the endpoint state checks, the re-size
 * handshake and the blocking loops around the single attempts below;
 * runtime/chan_conn.c keeps the channels' state machine). It includes nothing of the
 * runtime. See docs/pmq.md.
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
 * Descriptors are per process: struct mcx__pmq (hung on the runtime's domain view) holds
 * one cache entry per endpoint slot, opened lazily, reference-counted, closed
 * when the endpoint goes away or the view is detached.
 */
#ifndef MCX_TRANSPORT_PMQ_H
#define MCX_TRANSPORT_PMQ_H

#include <stddef.h>
#include <stdint.h>

#include "common/mcx_atomic.h"

/** Longest wait in one blocking system call; blocked calls re-check the endpoint between. */
#define MCX_PMQ_TICK_MS 10u

/** This process's queues of one domain (opaque). */
typedef struct mcx__pmq mcx__pmq_t;

/** What the transport needs of a domain, copied at open. */
typedef struct mcx__pmq_cfg {
  const char *name;     /* the partition's name ("/..."): the queues' prefix */
  uint32_t domain_id;   /* for messages */
  uint64_t tag;         /* the partition's random name_tag */
  uint32_t n_eps;       /* endpoint slots */
  uint32_t n_chans;     /* channel records */
  uint32_t max_msg;     /* mq_msgsize of an endpoint's queue (0: 1) */
  uint32_t qcap;        /* wanted default depth */
  int consume_wrong_width; /* a scalar receive of another width drops it (mca-2.0.3) */
  const mcx_atomic_u32 *debug; /* the diagnostics level (messages at level 1 and above) */
} mcx__pmq_cfg_t;

/**
 * @brief The largest message a new pmq domain can carry: @p requested capped
 * by msgsize_max (or, for a privileged process that asked for a size
 * explicitly, by the kernel's hard limit). Logs the cap when *debug >= 1.
 */
uint32_t mcx__pmq_payload_limit(uint32_t requested, int explicit_size, const mcx_atomic_u32 *debug);

/**
 * @brief Sets up the process's pmq state of a new domain view and removes
 * queues of this domain left by dead processes.
 * @retval 0, MCX_ENOMEM, MCX_ENOSYS (built without message queues)
 */
int mcx__pmq_open(const mcx__pmq_cfg_t *cfg, mcx__pmq_t **out);
/**
 * @brief The process's last node of the domain left: closes every cached
 * descriptor, unlinks what this process left (and, with @p last_in_domain,
 * what dead processes left); frees the state. NULL: nothing.
 */
void mcx__pmq_close(mcx__pmq_t *p, int last_in_domain);
/** @brief In a fork child: drops the parent's descriptors and state without touching queues. */
void mcx__pmq_forget(mcx__pmq_t *p);

/* ---- endpoints: one queue per receiving endpoint slot and incarnation */
typedef struct mcx__pmq_ep {
  uint32_t idx;   /* endpoint slot */
  uint32_t pid;   /* the process that created the queue (the owner node's) */
  uint32_t epoch; /* the endpoint's incarnation (ring epoch) */
  uint32_t depth; /* its NUM_RECV_BUFFERS: mq_maxmsg of the queue when a use makes it */
} mcx__pmq_ep_t;

/**
 * @brief A new endpoint in slot @p idx, incarnation @p epoch: checks that a
 * queue of the default size fits the limits and drops descriptors of earlier
 * incarnations. Without @p defer the queue is made here (a full
 * RLIMIT_MSGQUEUE fails the create); with it (the mca-2.0.3 profile, where
 * creating an endpoint never fails for memory, as on shm) the queue is made
 * by the first send, receive or re-size that needs it (by any process of the
 * user, exclusively), so an endpoint never used for messages costs no queue.
 * A queue unlinked later (a channel connection parks it) is made again the
 * same way. *depth receives the default mq_maxmsg (NUM_RECV_BUFFERS).
 * @retval 0 fits
 * @retval MCX_ELIMIT RLIMIT_MSGQUEUE or msg_max (MCAPI_ERR_MEM_LIMIT)
 */
int mcx__pmq_ep_create(mcx__pmq_t *p, uint32_t idx, uint32_t epoch, int defer, uint32_t *depth);
/** @brief Unlinks queue @p q and drops its descriptors; returns the messages dropped. */
uint32_t mcx__pmq_ep_delete(mcx__pmq_t *p, const mcx__pmq_ep_t *q);
/**
 * @brief Replaces the empty (or parked) queue @p q by incarnation @p next,
 * mq_maxmsg @p depth (no sender may be using it): made now with @p make,
 * otherwise parked, i.e. made by its first use (an endpoint connected to a
 * channel cannot carry messages, so its queue's bytes of RLIMIT_MSGQUEUE
 * are given back meanwhile).
 * @retval 0, MCX_EBUSY (messages queued), MCX_ELIMIT (with a message), MCX_ENOMEM, MCX_EIO
 */
int mcx__pmq_ep_requeue(mcx__pmq_t *p, const mcx__pmq_ep_t *q, uint32_t next, uint32_t depth,
                        int make);
/**
 * @brief One send to queue @p q, MCAPI priority @p prio. @p dl 0: one try,
 * otherwise a wait for space until that monotonic time. *made: this call
 * made the queue (its first use); the caller re-checks that the endpoint
 * still exists and unlinks the queue if not (mcx__pmq_ep_delete).
 * @retval 0, MCX_EAGAIN (full), MCX_ETIMEDOUT, MCX_ECLOSED (unlinked), MCX_ELIMIT,
 * MCX_ENOMEM (queues_max), MCX_EIO
 */
int mcx__pmq_ep_send(mcx__pmq_t *p, const mcx__pmq_ep_t *q, const void *buf, size_t size,
                     uint32_t prio, uint64_t dl, int *made);
/**
 * @brief One receive from queue @p q (@p dl as for mcx__pmq_ep_send).
 * @retval 0, MCX_ETRUNC (taken; full size in *size), MCX_EAGAIN, MCX_ETIMEDOUT, MCX_ECLOSED, MCX_EIO
 */
int mcx__pmq_ep_recv(mcx__pmq_t *p, const mcx__pmq_ep_t *q, void *buf, size_t cap, size_t *size,
                     uint64_t dl);
/** @brief Messages in queue @p q (mq_getattr); 0 when it was never made. */
int mcx__pmq_ep_count(mcx__pmq_t *p, const mcx__pmq_ep_t *q, uint32_t *count);
/** @brief A deadline one tick (MCX_PMQ_TICK_MS) from now, or @p deadline if earlier. */
uint64_t mcx__pmq_tick_deadline(uint64_t deadline);

/* ---- channels: one queue per connection, made by connect (exclusively,
 * before the connection is published), unlinked at tear-down; the runtime's
 * channel files keep its state machine and wait points (chan_conn.c,
 * chan_pmq.c). */
typedef struct mcx__pmq_chan {
  uint32_t idx;   /* channel record */
  uint32_t gen;   /* its generation: the queue's incarnation */
  uint32_t pid;   /* the receiving side's process, which makes the queue */
  uint32_t type;  /* MCAPI_PKT_CHAN or MCAPI_SCL_CHAN */
  uint32_t depth; /* wanted mq_maxmsg (capped like an endpoint's) */
} mcx__pmq_chan_t;

/** @retval 0, MCX_ENOMEM (queues_max), MCX_ELIMIT (a limit; the message names it),
 * MCX_EIO (the name is held by another user's queue; left alone, the message says so) */
int mcx__pmq_chan_create(mcx__pmq_t *p, const mcx__pmq_chan_t *c);
/** Unlinks the queue, drops this process's descriptors, pool and push-back;
 * with @p keep_pool the packet pool stays (buffers the receiver still holds,
 * released later) until the record's next connection or the close. */
void mcx__pmq_chan_destroy(mcx__pmq_t *p, const mcx__pmq_chan_t *c, int keep_pool);
/** One try. @retval 0, MCX_EAGAIN (full), MCX_EMSGSIZE, MCX_ECLOSED */
int mcx__pmq_chan_put(mcx__pmq_t *p, const mcx__pmq_chan_t *c, const void *buf, size_t len);
/** A scalar as a 9-byte message {width, value}. */
int mcx__pmq_scl_put(mcx__pmq_t *p, const mcx__pmq_chan_t *c, uint32_t width, uint64_t value);
/** One try. @retval 0, MCX_EAGAIN (empty), MCX_EWIDTH (kept for a receive of that width) */
int mcx__pmq_scl_get(mcx__pmq_t *p, const mcx__pmq_chan_t *c, uint32_t width, uint64_t *value);
/** One try into a free buffer of the receiving side's process-local pool,
 * which grows by chunks while fewer than @p limit buffers are held.
 * @retval 0, MCX_EAGAIN (empty), MCX_ENOMEM (@p limit buffers held), MCX_ECLOSED */
int mcx__pmq_pkt_get(mcx__pmq_t *p, const mcx__pmq_chan_t *c, uint32_t limit, void **out,
                     size_t *len);
/** Releases the held buffer at @p ptr (handed out by mcx__pmq_pkt_get), or with
 * @p test_only tells whether it is free (1) or held (0); *idx: its channel record.
 * @retval MCX_EBADBUF not such a buffer, or (releasing) not held */
int mcx__pmq_pkt_release(mcx__pmq_t *p, const void *ptr, uint32_t *idx, int test_only);
/** Largest packet a channel queue carries (bytes of a local pool buffer in use). */
size_t mcx__pmq_pkt_size(const mcx__pmq_t *p);
/** Items queued (plus a scalar in the push-back). */
int mcx__pmq_chan_count(mcx__pmq_t *p, const mcx__pmq_chan_t *c, uint32_t *count);

struct mcx_pmq_limits;
/** @brief Fills the mcx_pmq_limits() report for the calling thread; @p p: its
 * domain's queues (NULL: not a node of a pmq domain). */
void mcx__pmq_limits(const mcx__pmq_t *p, struct mcx_pmq_limits *out);

#endif /* MCX_TRANSPORT_PMQ_H */
