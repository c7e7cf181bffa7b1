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

/** Requests in use in this process (for leak checks). */
unsigned mcx_requests_in_use(void);

#ifdef __cplusplus
}
#endif

#endif /* MCX_H */
