/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file mcx.h
 * @brief libmca extensions (prefix mcx_): run-time configuration, waiting
 * policy, statistics. Nothing here is needed by standard MCAPI programs.
 */
#ifndef MCX_H
#define MCX_H

#include "mcapi.h"
#include "mcx_hpc.h" /* hardware performance counters, prefix mcx_hpc_ */
#include "mcx_sem.h" /* PI semaphores, events, next-semaphore hint, prefix mcx_pisem_ / mcx_event_ */
#include "mcx_version.h" /* MCX_VERSION_*, mcx_version() */

#ifdef __cplusplus
extern "C" {
#endif

/** Sets @p p to the defaults (everything from the environment / built-in). */
void mcx_param_init(mcapi_param_t *p);

/**
 * @brief How blocking calls wait before sleeping on a futex: up to @p spins
 * pause instructions, then up to @p yields sched_yield() calls. Process-wide,
 * any thread, any time. Defaults: 128 spins, 200 yields. (0, 0) sleeps at
 * once (the "no spin budget" configuration of the benchmarks).
 */
void mcx_set_wait_policy(unsigned spins, unsigned yields);

/**
 * The third locking mode (init parameter `locking`, or MCX_LOCKING=kernel): the
 * lock-based reference design's lock, one process-shared System V semaphore
 * taken (semop) around every queue operation, beside MCX_LOCKING_GLOBAL's
 * user-space reader/writer lock. Same rings, same API, same tests.
 */
#define MCX_LOCKING_KERNEL ((mcx_locking_t)3)

/** The calling node's domain locking mode (MCX_LOCKING_LOCKFREE, _GLOBAL or _KERNEL), 0 if not a node. */
mcx_locking_t mcx_locking(void);

/**
 * @brief System calls the calling thread made inside libmca so far: futex
 * waits and wakes (@p futex_calls) and, in the kernel locking mode, semop
 * calls on the domain's semaphore (@p semop_calls). Monotonic per thread;
 * read before and after a piece of work for its calls per item. Either
 * pointer may be NULL. Any thread, node or not.
 */
void mcx_thread_syscalls(mca_uint64_t *futex_calls, mca_uint64_t *semop_calls);

/** The calling node's compatibility profile (MCX_COMPAT_SPEC or _MCA203), 0 if not a node. */
mcx_compat_t mcx_compat(void);

/** The calling node's domain transport (MCX_TRANSPORT_SHM or _PMQ), 0 if not a node. */
mcx_transport_t mcx_transport(void);

/** The POSIX message-queue limits the pmq transport works within (docs/pmq.md). */
typedef struct mcx_pmq_limits {
  unsigned msg_max;          /**< /proc/sys/fs/mqueue/msg_max: messages per queue (0: unknown) */
  unsigned msgsize_max;      /**< /proc/sys/fs/mqueue/msgsize_max: bytes per message (0: unknown) */
  unsigned queues_max;       /**< /proc/sys/fs/mqueue/queues_max: queues in the system (0: unknown) */
  unsigned long long rlimit; /**< RLIMIT_MSGQUEUE: queue bytes per user; ~0ULL unlimited */
  int privileged;            /**< CAP_SYS_RESOURCE: the three /proc limits do not apply */
  int listable;              /**< /dev/mqueue is mounted: queues of dead processes are cleaned */
  unsigned max_payload;      /**< largest message of the caller's pmq domain (0: not a pmq node) */
  unsigned max_packet;       /**< largest packet there (0: not a pmq node) */
  unsigned default_depth;    /**< NUM_RECV_BUFFERS of a new endpoint there (0: not a pmq node) */
  unsigned long long queue_bytes; /**< RLIMIT_MSGQUEUE bytes one default endpoint queue takes */
  char last_error[192];      /**< the last limit a pmq call of this thread ran into; "" if none */
} mcx_pmq_limits_t;

/**
 * @brief Reports the message-queue limits, the calling node's pmq sizing and
 * the last limit this thread ran into. Any thread, node or not.
 * @retval 0 filled in
 * @retval -1 @p out is NULL
 */
int mcx_pmq_limits(mcx_pmq_limits_t *out);

/** Requests in use in this process (for leak checks). */
unsigned mcx_requests_in_use(void);

/* ------------------------------------------------------------------------
 * State channels: latest-value exchange without FIFO (Kopetz's non-blocking
 * write). One writer (the creating node), any number of readers, in threads
 * or processes of the domain. The writer never waits; a reader always gets an
 * uncorrupted value, or MCAPI_ERR_TRANSMISSION after a bounded number of
 * retries when the writer keeps lapping it. Both locking modes: under
 * MCX_LOCKING=global reads and writes take the domain's global lock.
 * ---------------------------------------------------------------------- */

typedef mca_uint32_t mcx_state_t;

/** Largest state payload, buffers per channel, channels per domain. */
#define MCX_STATE_MAX_PAYLOAD 4096
#define MCX_STATE_MAX_NBUF 8
#define MCX_STATE_MAX_CHANNELS 16

/**
 * @brief Creates a state channel written by the calling node, found by others
 * as (domain, this node, @p port).
 * @param port the port the channel is found by
 * @param mcapi_status receives the outcome (below)
 * @param max_size largest value in bytes (1..MCX_STATE_MAX_PAYLOAD)
 * @param nbuf buffers written in turn (2..MCX_STATE_MAX_NBUF); a reader is
 *        disturbed only when the writer completes nbuf-1 writes during its read
 * @retval MCAPI_SUCCESS returns the handle.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 * @retval MCAPI_ERR_PARAMETER @p max_size or @p nbuf out of range.
 * @retval MCAPI_ERR_ENDP_EXISTS the node already has a state channel on @p port.
 * @retval MCAPI_ERR_ENDP_LIMIT all MCX_STATE_MAX_CHANNELS channels are in use.
 */
mcx_state_t mcx_state_create(mcapi_port_t port, size_t max_size, unsigned nbuf,
                             mcapi_status_t *mcapi_status);

/**
 * @brief Finds the state channel (domain, node, port), waiting up to @p timeout ms.
 * @retval MCAPI_SUCCESS returns the handle.
 * @retval MCAPI_TIMEOUT it was not created in time.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 * @retval MCAPI_ERR_DOMAIN_INVALID @p domain is not the caller's domain.
 */
mcx_state_t mcx_state_open(mcapi_domain_t domain, mcapi_node_t node, mcapi_port_t port,
                           mcapi_timeout_t timeout, mcapi_status_t *mcapi_status);

/**
 * @brief Closes a handle. The writer's close deletes the channel (readers'
 * handles go stale); a reader's close only checks the handle.
 * @retval MCAPI_SUCCESS done.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 * @retval MCAPI_ERR_ENDP_INVALID stale or forged handle.
 */
void mcx_state_close(mcx_state_t state, mcapi_status_t *mcapi_status);

/**
 * @brief Publishes a new value (writer only). Never waits for readers.
 * @retval MCAPI_SUCCESS done; the version is one more than before.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 * @retval MCAPI_ERR_ENDP_INVALID stale or forged handle.
 * @retval MCAPI_ERR_ENDP_REMOTE the caller is not the channel's writer.
 * @retval MCAPI_ERR_PARAMETER @p buffer is NULL with a non-zero size.
 * @retval MCAPI_ERR_MSG_SIZE @p size is above the channel's max_size.
 */
void mcx_state_write(mcx_state_t state, const void *buffer, size_t size,
                     mcapi_status_t *mcapi_status);

/**
 * @brief Reads the newest value. MT-safe; any node.
 * @param state the channel
 * @param buffer receives the value (truncated to @p size)
 * @param size capacity of @p buffer in bytes
 * @param mcapi_status receives the outcome (below)
 * @param version receives the value's version (1 for the first write; 0 and
 *        size 0 when nothing was written yet); may be NULL.
 * @return the value's size.
 * @retval MCAPI_SUCCESS @p buffer holds an uncorrupted value.
 * @retval MCAPI_ERR_MSG_TRUNCATED the value is larger than @p size: its first
 *         @p size bytes are stored, the full size is returned.
 * @retval MCAPI_ERR_TRANSMISSION the writer lapped every attempt (see
 *         mcx_state_set_read_retries); @p buffer content is undefined.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 * @retval MCAPI_ERR_ENDP_INVALID stale or forged handle.
 * @retval MCAPI_ERR_PARAMETER @p buffer is NULL.
 */
size_t mcx_state_read(mcx_state_t state, void *buffer, size_t size, mca_uint64_t *version,
                      mcapi_status_t *mcapi_status);

/**
 * @brief Waits (spin, yield, futex) up to @p timeout ms until a version newer
 * than @p version exists. @return the newest version.
 * @retval MCAPI_SUCCESS a newer version exists.
 * @retval MCAPI_TIMEOUT none in time (returns @p version).
 * @retval MCAPI_ERR_ENDP_DELETED the writer closed the channel (or died) while we waited.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 * @retval MCAPI_ERR_ENDP_INVALID stale or forged handle.
 */
mca_uint64_t mcx_state_wait_newer(mcx_state_t state, mca_uint64_t version,
                                  mcapi_timeout_t timeout, mcapi_status_t *mcapi_status);

/** @brief Attempts a read makes before MCAPI_ERR_TRANSMISSION (process-wide; default 64). */
void mcx_state_set_read_retries(unsigned retries);

/**
 * @brief Receives a message in place: like mcapi_msg_recv() (blocking, the
 * endpoint's TIMEOUT, highest priority first, after pending receive
 * requests), but instead of copying it, @p buffer is set to the message in
 * the queue's slot. The slot stays the caller's until mcx_msg_release():
 * large messages are copied once (by the sender) instead of twice. A
 * thread holds at most 16 messages at a time; they must be released by the
 * receiving thread. Deleting the endpoint ends them (the memory is reused;
 * a later release does nothing); a resize (NUM_RECV_BUFFERS) is refused
 * while any is held.
 * @param receive_endpoint the caller's endpoint
 * @param buffer receives the address of the message (read-only)
 * @param received_size receives its size
 * @param mcapi_status receives the outcome (below)
 * @retval MCAPI_SUCCESS a message is held.
 * @retval MCAPI_TIMEOUT none arrived within the endpoint's TIMEOUT.
 * @retval MCAPI_ERR_MEM_LIMIT the thread already holds 16.
 * @retval MCAPI_ERR_GENERAL the POSIX message-queue transport (it has no slot to lend).
 * @retval MCAPI_ERR_TRANSMISSION a corrupt slot (shared memory is input); it is dropped.
 * @retval MCAPI_ERR_PARAMETER @p buffer or @p received_size is NULL.
 * @retval MCAPI_ERR_ENDP_INVALID stale, forged or another node's endpoint.
 * @retval MCAPI_ERR_ENDP_DELETED the endpoint was deleted while we waited.
 * @retval MCAPI_ERR_CHAN_CONNECTED the endpoint is part of a channel.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 */
void mcx_msg_recv_inplace(mcapi_endpoint_t receive_endpoint, const void **buffer,
                          size_t *received_size, mcapi_status_t *mcapi_status);

/**
 * @brief Gives a message received with mcx_msg_recv_inplace() back to its
 * queue (the sender may reuse the slot).
 * @param buffer an address mcx_msg_recv_inplace() gave this thread
 * @param mcapi_status receives the outcome (below)
 * @retval MCAPI_SUCCESS released (or its endpoint was deleted since).
 * @retval MCAPI_ERR_PARAMETER not a message this thread holds.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 */
void mcx_msg_release(const void *buffer, mcapi_status_t *mcapi_status);

/* ------------------------------------------------------------------------
 * Claim/commit packet sends: the sender builds its packet where it travels
 * (the queue's slot, or the pool buffer the slot owns), then publishes it;
 * no copy on shared memory. The receive side is unchanged (mcapi_pktchan_recv
 * hands the packet out in place, mcapi_pktchan_release gives it back).
 * A claim is the calling thread's (the node's): one per send side, at most
 * four at a time. While a side has a claim, mcapi_pktchan_send() and
 * mcapi_pktchan_send_i() on it give MCAPI_ERR_MEM_LIMIT, and the receiver
 * waits at the claimed slot as at a send under way (packets sent before it
 * are received). A claim ends with mcx_pktchan_send_commit(),
 * mcx_pktchan_send_abandon(), the side's close (abandoned) or the node's
 * finalize; a process killed while it holds one leaves nothing behind once
 * the dead-node sweep has run (its side goes away; the slot and any buffer
 * lent to it are reclaimed). Every locking mode; over the POSIX
 * message-queue transport the claim is process memory and the commit sends
 * (copies) it.
 * ---------------------------------------------------------------------- */

/**
 * @brief Claims room for a packet of up to @p size bytes on the send side
 * @p send_handle: blocks for a free slot (and, for a large packet, a buffer)
 * up to the endpoint's TIMEOUT, as mcapi_pktchan_send().
 * @param send_handle the caller's open send side
 * @param size the largest packet the caller will commit (0..MCAPI_MAX_PKT_SIZE)
 * @param mcapi_status receives the outcome (below)
 * @return where the caller writes the packet: at least @p size bytes
 *         (aligned to 8), valid until the claim ends; NULL on failure
 * @retval MCAPI_SUCCESS claimed.
 * @retval MCAPI_TIMEOUT no room within the TIMEOUT (at once with a TIMEOUT of 0).
 * @retval MCAPI_ERR_MEM_LIMIT the thread holds a claim on this side already,
 *         or four claims; or no room and the endpoint is FAIL_ON_MEM_LIMIT,
 *         or no pool buffer (the receiver holds them all).
 * @retval MCAPI_ERR_PKT_SIZE @p size is above MCAPI_MAX_PKT_SIZE.
 * @retval MCAPI_ERR_CHAN_INVALID not a packet channel send handle of this node.
 * @retval MCAPI_ERR_CHAN_DIRECTION a receive side's handle.
 * @retval MCAPI_ERR_CHAN_TYPE a scalar channel's handle.
 * @retval MCAPI_ERR_CHAN_OPENPENDING the side's open is pending.
 * @retval MCAPI_ERR_CHAN_NOTOPEN the side is not open, or the receiver has closed or gone.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 * @pre none. @post on success the caller owns the returned bytes (and the
 *      slot) until mcx_pktchan_send_commit() or mcx_pktchan_send_abandon().
 * Concurrency: the side's one sending node (thread); in the lock-free mode
 * no lock, system call or allocation once the side has been used (a claim
 * of up to 48 bytes is inlined); the lock-based modes take the domain's lock.
 * Context: a node's thread; not from a signal handler.
 */
void *mcx_pktchan_send_alloc(mcapi_pktchan_send_hndl_t send_handle, size_t size,
                             mcapi_status_t *mcapi_status);

/**
 * @brief Publishes the claimed packet: its first @p size bytes are received
 * as one packet, in order after every packet sent before the claim. Never
 * waits on shared memory (the slot is the claim's); over POSIX message
 * queues it sends the bytes as mcapi_pktchan_send().
 * @param send_handle the side of the claim
 * @param buffer the pointer mcx_pktchan_send_alloc() returned
 * @param size the packet's length (at most the size claimed)
 * @param mcapi_status receives the outcome (below)
 * @retval MCAPI_SUCCESS sent; the claim has ended.
 * @retval MCAPI_ERR_BUF_INVALID the thread holds no claim on @p send_handle
 *         at @p buffer (never claimed, committed or abandoned already, another
 *         pointer).
 * @retval MCAPI_ERR_PKT_SIZE @p size is above the size claimed (the claim stays).
 * @retval MCAPI_ERR_CHAN_NOTOPEN the side is not open any more, or the
 *         receiver has closed or gone: the claim has ended, nothing is sent.
 * @retval MCAPI_ERR_CHAN_INVALID the handle is stale (the connection ended)
 *         or not a send side's: as above when the thread had a claim there.
 * @retval MCAPI_TIMEOUT, MCAPI_ERR_MEM_LIMIT POSIX message queues only: no
 *         room in the queue within the TIMEOUT (the claim stays).
 * @retval MCAPI_ERR_PARAMETER @p buffer is NULL.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 * @pre a claim of this thread on @p send_handle at @p buffer.
 * @post on MCAPI_SUCCESS the bytes belong to the receiver: the caller must
 *       not touch @p buffer again.
 * Concurrency and context: as mcx_pktchan_send_alloc(); no lock, system call
 * or allocation in the lock-free mode.
 */
void mcx_pktchan_send_commit(mcapi_pktchan_send_hndl_t send_handle, void *buffer, size_t size,
                             mcapi_status_t *mcapi_status);

/**
 * @brief Ends a claim unsent: the slot and any buffer taken for it go back.
 * @param send_handle the side of the claim
 * @param buffer the pointer mcx_pktchan_send_alloc() returned
 * @param mcapi_status receives the outcome (below)
 * @retval MCAPI_SUCCESS abandoned (also when the side closed or the peer left meanwhile).
 * @retval MCAPI_ERR_BUF_INVALID the thread holds no claim on @p send_handle at @p buffer.
 * @retval MCAPI_ERR_PARAMETER @p buffer is NULL.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 * @pre a claim of this thread on @p send_handle at @p buffer.
 * @post the caller must not touch @p buffer again; nothing was sent.
 * Concurrency and context: as mcx_pktchan_send_alloc(); never waits.
 */
void mcx_pktchan_send_abandon(mcapi_pktchan_send_hndl_t send_handle, void *buffer,
                              mcapi_status_t *mcapi_status);

/**
 * @brief Marks the caller's endpoint as (un)reachable: while it is not,
 * every message send to it gives MCAPI_ERR_TRANSMISSION (blocking, non-blocking and
 * request sends; senders blocked on its full queue are woken and get it too),
 * and receives from it work as before. For endpoints that stand for another
 * one, e.g. the proxies of `mca bridge`, whose link to the real endpoint is
 * down. Messages already queued stay queued. Free on the data path: the flag
 * is part of the endpoint's state word, which every send checks anyway.
 * Any other change of the endpoint (delete, re-size) clears it.
 * @param endpoint the caller's endpoint
 * @param reachable MCAPI_FALSE to refuse sends, MCAPI_TRUE to accept them again
 * @param mcapi_status receives the outcome (below)
 * @retval MCAPI_SUCCESS done (also when it already was so).
 * @retval MCAPI_ERR_ENDP_INVALID stale or forged endpoint handle, or one being re-sized.
 * @retval MCAPI_ERR_ENDP_NOTOWNER another node's endpoint.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 */
void mcx_endpoint_set_reachable(mcapi_endpoint_t endpoint, mcapi_boolean_t reachable,
                                mcapi_status_t *mcapi_status);

/**
 * @brief A delivery receipt: a 64-bit value in the domain's partition, named
 * by a key, that mcx_msg_send_receipted() sets in the same step as it queues
 * its message. For forwarders that must know, after being killed and
 * started again, exactly which of their messages were queued: `mca bridge`
 * keeps in one the sequence number of the last item it delivered.
 */
typedef mca_uint32_t mcx_receipt_t;

/**
 * @brief Finds the receipt of @p key in the caller's domain, or makes one
 * (value 0). A previous user that died in a receipted send is settled
 * first (the dead-node sweep): the value then says whether that send's
 * message was queued. Receipts live as long as the partition; a domain has
 * 32.
 * @param key any non-zero value, chosen by the application
 * @param value receives the receipt's value
 * @param mcapi_status receives the outcome (below)
 * @return the receipt's handle (valid in every process of the domain until
 *         mcx_receipt_delete()), 0 on failure
 * @retval MCAPI_SUCCESS found or made.
 * @retval MCAPI_ERR_MEM_LIMIT the domain's 32 receipts are all in use.
 * @retval MCAPI_ERR_PARAMETER @p key is 0 or @p value is NULL.
 * @retval MCAPI_ERR_GENERAL the domain's admin lock could not be taken.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 */
mcx_receipt_t mcx_receipt_open(mca_uint64_t key, mca_uint64_t *value, mcapi_status_t *mcapi_status);

/**
 * @brief mcapi_msg_send() that also sets @p receipt to @p value when the
 * message is queued, in the same step: if the calling process is killed
 * during the call, then (once the dead-node sweep has run, which
 * mcx_receipt_open() makes sure of) either the message is queued and the
 * receipt reads @p value, or neither. One thread at a time may send with a
 * receipt. Blocking, with the endpoint's TIMEOUT and FAIL_ON_MEM_LIMIT as
 * mcapi_msg_send(). On the POSIX message-queue transport the receipt is set
 * right after the send (a kill in between leaves it behind the queue).
 * @retval MCAPI_SUCCESS queued, and the receipt set.
 * @retval MCAPI_ERR_PARAMETER @p receipt is not a receipt of the domain (or
 *         as mcapi_msg_send()); anything else as mcapi_msg_send(), with the
 *         receipt unchanged.
 */
void mcx_msg_send_receipted(mcapi_endpoint_t send_endpoint, mcapi_endpoint_t receive_endpoint,
                            const void *buffer, size_t buffer_size, mcapi_priority_t priority,
                            mcx_receipt_t receipt, mca_uint64_t value, mcapi_status_t *mcapi_status);

/**
 * @brief Sets @p receipt to @p value without a send (e.g. for an item that
 * is dropped on purpose). The receipt's one sending thread only.
 * @retval MCAPI_SUCCESS set.
 * @retval MCAPI_ERR_PARAMETER not a receipt of the domain.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 */
void mcx_receipt_set(mcx_receipt_t receipt, mca_uint64_t value, mcapi_status_t *mcapi_status);

/**
 * @brief Deletes the receipt of @p key; its handles become invalid.
 * @retval MCAPI_SUCCESS deleted.
 * @retval MCAPI_ERR_PARAMETER no receipt has that key (or it is 0).
 * @retval MCAPI_ERR_GENERAL the domain's admin lock could not be taken.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 */
void mcx_receipt_delete(mca_uint64_t key, mcapi_status_t *mcapi_status);

#ifdef __cplusplus
}
#endif

#endif /* MCX_H */
