/**
 * @file mcx.h
 * @brief libmca extensions (prefix mcx_): run-time configuration, waiting
 * policy, statistics. Nothing here is needed by standard MCAPI programs.
 */
#ifndef MCX_H
#define MCX_H

#include "mcapi.h"
#include "mcx_hpc.h" /* hardware performance counters, prefix mcx_hpc_ */

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

/** The calling node's domain locking mode (MCX_LOCKING_LOCKFREE or _GLOBAL), 0 if not a node. */
mcx_locking_t mcx_locking(void);

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

#ifdef __cplusplus
}
#endif

#endif /* MCX_H */
