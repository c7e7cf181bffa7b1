/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file mcx_port_pi.h
 * @brief Priority-inheritance futexes and requeue operations (Linux:
 * FUTEX_LOCK_PI2 / FUTEX_TRYLOCK_PI / FUTEX_UNLOCK_PI, FUTEX_WAIT_REQUEUE_PI /
 * FUTEX_CMP_REQUEUE_PI, FUTEX_CMP_REQUEUE). Used by src/sync/pisem.c and the
 * wake path of src/sync/wait.h. Results follow src/common/mcx_err.h.
 *
 * A PI futex word holds the owner's kernel thread id; the kernel sets
 * MCX_PORT_PI_WAITERS when it queues somebody and MCX_PORT_PI_OWNER_DIED when
 * a robust-list owner died. The layout is the kernel ABI, repeated here so
 * that src/ needs no OS header.
 */
#ifndef MCX_PORT_PI_H
#define MCX_PORT_PI_H

#include <stdint.h>

#include "common/mcx_atomic.h"

#define MCX_PORT_PI_WAITERS 0x80000000u
#define MCX_PORT_PI_OWNER_DIED 0x40000000u
#define MCX_PORT_PI_TID_MASK 0x3fffffffu

/** Whether this port has PI futexes (0: mcx_pisem_init reports MCX_SEM_NOT_SUPPORTED). */
int mcx_port_pi_supported(void);

/** Kernel thread id of the caller, cached per thread (reset in a fork()ed child). */
uint32_t mcx_port_tid_cached(void);

/**
 * @brief Blocks in the kernel until the PI futex @p w is ours (the owner is
 * boosted meanwhile), or @p deadline_ns (CLOCK_MONOTONIC) passes.
 * @retval 0 the word now holds our tid
 * @retval MCX_EOWNERDEAD the tid in the word names no live thread (ESRCH):
 *         nothing was acquired; the caller may reclaim the word
 * @retval MCX_EAGAIN the owner is exiting or the word changed: retry
 * @retval MCX_EBUSY we own it already (EDEADLK)
 * @retval MCX_ETIMEDOUT
 * @retval MCX_EIO any other failure
 */
int mcx_port_futex_lock_pi(mcx_atomic_u32 *w, uint64_t deadline_ns, int shared);
/**
 * @brief FUTEX_TRYLOCK_PI.
 * @retval 0
 * @retval MCX_EAGAIN held
 * @retval MCX_EOWNERDEAD
 * @retval MCX_EBUSY
 * @retval MCX_EIO
 */
int mcx_port_futex_trylock_pi(mcx_atomic_u32 *w, int shared);
/**
 * @brief FUTEX_UNLOCK_PI: hands the word to the top waiter or sets it to 0.
 * @retval 0
 * @retval MCX_EPERM
 * @retval MCX_EIO
 */
int mcx_port_futex_unlock_pi(mcx_atomic_u32 *w, int shared);

/**
 * @brief FUTEX_WAIT_REQUEUE_PI: sleeps on @p uaddr while it holds @p val; a
 * FUTEX_CMP_REQUEUE_PI on @p uaddr either takes the PI futex @p pi for us and
 * wakes us, or moves us onto @p pi's queue (boosting its owner).
 * @retval 0 woken owning @p pi
 * @retval MCX_EAGAIN @p uaddr did not hold @p val, or a signal arrived after
 *         the requeue (we do not own @p pi): re-check and retry
 * @retval MCX_ETIMEDOUT the deadline passed (before or after the requeue); @p pi not owned
 * @retval MCX_EINTR a signal before the requeue (the kernel usually restarts instead)
 * @retval MCX_EIO another failure (e.g. @p uaddr == @p pi)
 */
int mcx_port_futex_wait_requeue_pi(mcx_atomic_u32 *uaddr, uint32_t val, mcx_atomic_u32 *pi,
                                   uint64_t deadline_ns, int shared);
/**
 * @brief FUTEX_CMP_REQUEUE_PI with nr_wake 1: if *uaddr == @p val, the top
 * waiter gets @p pi when it is free (and is woken), else it and up to
 * @p nr_requeue more are queued on @p pi.
 * @return >= 0 waiters woken or requeued
 * @retval MCX_EAGAIN *uaddr != @p val
 * @retval MCX_EOWNERDEAD the tid in @p pi names no live thread (ESRCH)
 * @retval MCX_EIO another failure (EINVAL: a waiter named another PI futex)
 */
int mcx_port_futex_cmp_requeue_pi(mcx_atomic_u32 *uaddr, uint32_t val, mcx_atomic_u32 *pi,
                                  int nr_requeue, int shared);
/**
 * @brief FUTEX_CMP_REQUEUE: if *uaddr == @p val wakes @p nr_wake waiters of @p uaddr and moves up
 * to @p nr_requeue more onto @p to.
 * @return >= 0 waiters woken or moved
 * @retval MCX_EAGAIN *uaddr != @p val
 * @retval MCX_EIO
 */
int mcx_port_futex_cmp_requeue(mcx_atomic_u32 *uaddr, uint32_t val, int nr_wake, int nr_requeue,
                               mcx_atomic_u32 *to, int shared);

#endif /* MCX_PORT_PI_H */
