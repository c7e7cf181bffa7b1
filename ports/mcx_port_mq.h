/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file mcx_port_mq.h
 * @brief POSIX message queues: what the pmq transport (src/transport/pmq.c)
 * needs from the OS. Implemented by ports/posix/mq.c.
 *
 * A queue descriptor is an int (Linux's mqd_t). Names are message-queue
 * names: one leading '/', no other '/', at most MCX_PORT_MQ_NAME_MAX - 1
 * bytes. Results follow src/common/mcx_err.h: 0 or a negative MCX_E* code.
 *
 * Deadlines are CLOCK_MONOTONIC nanoseconds (mcx_port_now_ns()); the port
 * converts them to the CLOCK_REALTIME absolute time mq_timedsend() and
 * mq_timedreceive() take, on every call, so a step of the wall clock moves a
 * wait by at most the length of that wait.
 */
#ifndef MCX_PORT_MQ_H
#define MCX_PORT_MQ_H

#include <stddef.h>
#include <stdint.h>

#define MCX_PORT_MQ_NAME_MAX 160

/** Linux's hard ceilings for a privileged process (include/linux/ipc_namespace.h). */
#define MCX_PORT_MQ_HARD_MSGMAX 65536u
#define MCX_PORT_MQ_HARD_MSGSIZEMAX (16u * 1024u * 1024u)

/** The system's message-queue limits, as this process sees them. */
typedef struct mcx_port_mq_sys {
  uint32_t msg_max;     /**< /proc/sys/fs/mqueue/msg_max (0: unknown) */
  uint32_t msgsize_max; /**< /proc/sys/fs/mqueue/msgsize_max (0: unknown) */
  uint32_t queues_max;  /**< /proc/sys/fs/mqueue/queues_max (0: unknown) */
  uint64_t rlimit;      /**< RLIMIT_MSGQUEUE soft limit in bytes, UINT64_MAX unlimited */
  int privileged;       /**< CAP_SYS_RESOURCE: msg_max, msgsize_max, queues_max do not apply */
  int listable;         /**< /dev/mqueue is an mqueue mount: queues can be listed */
} mcx_port_mq_sys_t;

/**
 * @brief Reads the limits.
 * @retval 0 read (unknown values are 0)
 * @retval MCX_ENOSYS this build has no message queues (ports/none/mq.c)
 */
int mcx_port_mq_sys(mcx_port_mq_sys_t *out);

/**
 * @brief Bytes RLIMIT_MSGQUEUE charges for a queue of @p maxmsg messages of
 * @p msgsize bytes (the kernel's formula: payload plus per-message headers).
 */
uint64_t mcx_port_mq_bytes(uint32_t maxmsg, uint32_t msgsize);

/**
 * @brief Creates queue @p name exclusively (mode 0600) and opens it
 * read/write, non-blocking.
 * @retval 0 created; *fd is the non-blocking descriptor
 * @retval MCX_EEXIST a queue of that name exists
 * @retval MCX_EINVAL @p maxmsg / @p msgsize above msg_max / msgsize_max (or the hard limits)
 * @retval MCX_ENOMEM queues_max reached (ENOSPC)
 * @retval MCX_ELIMIT RLIMIT_MSGQUEUE, the descriptor limits or kernel memory (EMFILE, ENFILE, ENOMEM)
 * @retval MCX_EPERM not allowed
 * @retval MCX_EIO any other failure
 */
int mcx_port_mq_create(const char *name, uint32_t maxmsg, uint32_t msgsize, int *fd);

/**
 * @brief Opens the existing queue @p name read/write; @p nonblock selects O_NONBLOCK.
 * @retval 0 opened
 * @retval MCX_ENOENT no such queue
 * @retval MCX_ELIMIT descriptor limits
 * @retval MCX_EPERM not allowed, or the queue is not ours: another user owns
 *         it or its mode lets others read or write it (fstat of the opened
 *         descriptor; a squatter's queue under our name is never used)
 * @retval MCX_EIO any other failure
 */
int mcx_port_mq_open(const char *name, int nonblock, int *fd);

/** @brief Closes a descriptor. */
void mcx_port_mq_close(int fd);

/** @brief Removes a name, unless another user owns the queue.
 * @retval 0, MCX_ENOENT, MCX_EPERM (another user's: left alone), MCX_EIO */
int mcx_port_mq_unlink(const char *name);

/**
 * @brief Sends one message with mq priority @p prio (higher first).
 * @p deadline_ns 0: one try (use a non-blocking descriptor); otherwise wait
 * for space until that monotonic time (a blocking descriptor).
 * @retval 0 queued
 * @retval MCX_EAGAIN full (non-blocking descriptor)
 * @retval MCX_ETIMEDOUT full until the deadline
 * @retval MCX_EMSGSIZE @p len above the queue's mq_msgsize
 * @retval MCX_EIO the descriptor is bad
 */
int mcx_port_mq_send(int fd, const void *buf, size_t len, unsigned prio, uint64_t deadline_ns);

/**
 * @brief Receives the oldest message of the highest priority into @p buf
 * (@p cap must be at least the queue's mq_msgsize). @p deadline_ns as for send.
 * @retval 0 *len and *prio set
 * @retval MCX_EAGAIN empty (non-blocking)
 * @retval MCX_ETIMEDOUT empty until the deadline
 * @retval MCX_EMSGSIZE @p cap below mq_msgsize
 * @retval MCX_EIO the descriptor is bad
 */
int mcx_port_mq_recv(int fd, void *buf, size_t cap, size_t *len, unsigned *prio,
                     uint64_t deadline_ns);

/** @brief Messages queued now (mq_getattr). @retval 0, MCX_EIO */
int mcx_port_mq_count(int fd, uint32_t *count);

/**
 * @brief Calls @p fn for every queue in /dev/mqueue whose name (without the
 * leading '/') starts with @p prefix.
 * @retval 0 listed
 * @retval MCX_ENOSYS /dev/mqueue is not mounted (nothing can be listed)
 */
int mcx_port_mq_list(const char *prefix, void (*fn)(const char *name, void *arg), void *arg);

#endif /* MCX_PORT_MQ_H */
