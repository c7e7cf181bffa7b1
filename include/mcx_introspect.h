/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file mcx_introspect.h
 * @brief Looking at domain partitions from outside (what `mca domains`
 * shows): this user's partition names, one partition's nodes and endpoints
 * with their queues and counters, and removing what dead processes left.
 *
 * A partition is read without joining its domain: the caller need not be a
 * node, takes no lock of the partition and changes nothing in it. What it
 * gets is a snapshot of live state (each word read once, not all at one
 * instant). The partition is input: its header and layout are checked as
 * at attach, and a partition that fails is reported, never followed.
 *
 * Platforms with POSIX shared memory (the partitions' names are those of
 * /dev/shm on Linux). Any thread; the calls keep no state between them.
 */
#ifndef MCX_INTROSPECT_H
#define MCX_INTROSPECT_H

#include <stddef.h>
#include <stdint.h>

#include "mcapi.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Longest partition name with its leading '/' and the terminating NUL. */
#define MCX_PART_NAME_MAX 256
/** Priorities an endpoint record counts queued messages of one by one. */
#define MCX_PART_MAX_PRIOS 32

/** How far a partition could be read. */
typedef enum mcx_part_state {
  MCX_PART_OK = 0,         /**< read: every field of mcx_part_info_t is filled in */
  MCX_PART_CREATING = 1,   /**< its creator is writing its header now */
  MCX_PART_UNSIZED = 2,    /**< created but never sized: its creator is about to, or died first */
  MCX_PART_INVALID = 3,    /**< a header or layout this release cannot use (why says so) */
  MCX_PART_UNREADABLE = 4, /**< it cannot be opened or mapped, or is another user's (why says which) */
} mcx_part_state_t;

/** A node of a partition. */
typedef struct mcx_part_node {
  uint32_t node; /**< its node id */
  uint32_t pid;  /**< its process */
  uint32_t tid;  /**< its thread */
  int alive;     /**< 1: the thread runs; 0: it died without finalizing */
} mcx_part_node_t;

/** An endpoint of a partition: its queue, its counters, its channel. */
typedef struct mcx_part_endpoint {
  uint32_t node, port;
  uint32_t depth;  /**< queue depth per priority (NUM_RECV_BUFFERS) */
  uint32_t queued; /**< messages queued, every priority */
  /** Messages queued per priority, 0 first; the partition's priorities of them. */
  uint32_t queued_per_priority[MCX_PART_MAX_PRIOS];
  /** Most messages queued at once: sampled by the receiver (every 64
   * receives while a backlog is seen, every 1024 while none is), and at
   * least what is queued now. */
  uint32_t high_water;
  uint64_t sent;     /**< messages sent from it */
  uint64_t received; /**< messages received on it */
  uint64_t dropped;  /**< sends to it refused for want of space */
  /** MCAPI_ENDP_STATUS_* flags of its channel side; 0: a message endpoint. */
  uint32_t channel_status;
  /** Threads asleep waiting to receive on it; 0 when its node is dead (the
   * count its thread left when it died asleep is not shown). */
  uint32_t waiting_receivers;
  uint32_t waiting_senders;   /**< threads asleep waiting for space in its queue */
} mcx_part_endpoint_t;

/** A partition: what it is, and totals over all its nodes and endpoints. */
typedef struct mcx_part_info {
  mcx_part_state_t state;
  /** MCX_PART_INVALID and MCX_PART_UNREADABLE: why, as a sentence part; "" otherwise. */
  char why[512];
  /* The rest is filled in for MCX_PART_OK only (zero otherwise). */
  uint64_t size;              /**< bytes reserved */
  uint32_t domain;            /**< its domain id */
  mcx_locking_t locking;      /**< MCX_LOCKING_LOCKFREE, _GLOBAL or MCX_LOCKING_KERNEL (mcx.h) */
  const char *locking_name;   /**< "lock-free", "global" or "kernel" (static storage) */
  mcx_compat_t compat;        /**< MCX_COMPAT_SPEC or MCX_COMPAT_MCA203 */
  uint32_t priorities;        /**< message priorities per endpoint */
  uint32_t max_endpoints;     /**< endpoints it has room for */
  uint32_t nodes;             /**< nodes joined, alive or dead (the list holds the first ones) */
  uint32_t nodes_alive;       /**< of them, whose thread runs */
  uint32_t endpoints;         /**< endpoints in use (the list holds the first ones) */
  uint32_t queued;            /**< messages queued over every endpoint in use */
  uint32_t msg_buffers;       /**< buffers of its message payload pool */
  uint32_t msg_buffers_in_use; /**< of them, those not free */
} mcx_part_info_t;

/**
 * @brief The name prefix of this user's partitions (of one namespace), as
 * names in the shared-memory directory have it (no leading '/'): a name
 * there that starts with it is a partition of this user, and '/' followed
 * by that name is what mcx_part_inspect() and mcx_part_remove() take.
 * @param name_space NULL: every namespace ("mcx-<uid>-"); otherwise the
 *        partitions of MCX_NAMESPACE=name_space ("mcx-<uid>-<ns>-d"),
 *        "default" for the programs that set none
 * @param out receives the prefix
 * @param size bytes at @p out
 * @retval 0 written
 * @retval -1 @p out is NULL, @p size too small, or @p name_space is not 1 to
 *         35 of A-Z a-z 0-9 - _ (the characters a namespace keeps)
 */
int mcx_part_prefix(const char *name_space, char *out, size_t size);

/**
 * @brief Reads partition @p name: its state, and when it is readable
 * (MCX_PART_OK) its totals, the first @p max_nodes nodes and the first
 * @p max_endpoints endpoints in use, in table order.
 * @param name the shared-memory name ("/" + a name mcx_part_prefix() matches)
 * @param info receives the state and totals
 * @param nodes receives info->nodes records at most (may be NULL when @p max_nodes is 0)
 * @param max_nodes records @p nodes has room for
 * @param endpoints receives info->endpoints records at most (may be NULL when @p max_endpoints is 0)
 * @param max_endpoints records @p endpoints has room for
 * @retval 0 @p info is filled in (its state says how far the partition was read)
 * @retval -1 @p name or @p info is NULL, @p name does not start with '/' or
 *         is MCX_PART_NAME_MAX long or longer, or a list is NULL with room
 *         for records
 * @pre nothing; the partition may be created, used or removed meanwhile.
 */
int mcx_part_inspect(const char *name, mcx_part_info_t *info, mcx_part_node_t *nodes,
                     size_t max_nodes, mcx_part_endpoint_t *endpoints, size_t max_endpoints);

/**
 * @brief Removes partition @p name from the shared-memory directory. Who
 * has it mapped keeps its mapping; no process can join it any more. The
 * message queues of its endpoints (pmq transport) are not removed.
 * @param name the shared-memory name ("/" + a name mcx_part_prefix() matches)
 * @retval 0 removed
 * @retval -1 @p name is NULL or not a partition name of this user
 * @retval -2 not removed: it is gone already, or another user's object
 */
int mcx_part_remove(const char *name);

#ifdef __cplusplus
}
#endif

#endif /* MCX_INTROSPECT_H */
