/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file mcx_sem.h
 * @brief Semaphores with priority inheritance and the next-semaphore hint
 * (prefix mcx_pisem_, mcx_csem_, mcx_event_; docs/sem.md).
 *
 * - mcx_pisem_t: an owned binary semaphore (mutex) with priority inheritance,
 *   on a Linux PI futex. Uncontended lock and unlock are one compare-and-swap
 *   each; a holder that dies is detected (MCX_SEM_OWNER_DIED).
 * - mcx_csem_t: a counting semaphore without owner (no inheritance).
 * - mcx_event_t: an auto-reset event: mcx_event_post() sets it, one wait
 *   consumes it.
 * - The blocking calls *_then_lock / *_then_acquire take the semaphore the
 *   caller will lock right after the event (or message) arrives (EMERALDS'
 *   "next semaphore" hint): when the event arrives, the semaphore is taken for
 *   the waiter if free, else the waiter is queued on it (and its holder boosted)
 *   instead of waking only to block again. One context switch less per
 *   acquire/release pair. Passing MCX_NO_SEM behaves like a plain wait.
 *
 * Objects live in caller memory, initialized with the *_init calls. For use
 * across processes put them in shared memory and pass MCX_SEM_SHARED; an
 * event and the semaphore named as its hint must then lie in one mapping
 * (they are linked by their distance in bytes, which is the same in every
 * process). All calls are MT-safe and may block only where documented; none
 * may be called from a signal handler.
 */
#ifndef MCX_SEM_H
#define MCX_SEM_H

#include <stddef.h>
#include <stdint.h>

#include "mcapi.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Outcome of every call of this header. */
typedef enum mcx_sem_status {
  /** done; for a lock: the caller holds the semaphore */
  MCX_SEM_OK = 0,
  /** locked, but the previous holder died holding it: its data may be inconsistent */
  MCX_SEM_OWNER_DIED,
  /** the timeout passed; nothing was acquired or consumed */
  MCX_SEM_TIMEOUT,
  /** try-lock: held by another / no unit free */
  MCX_SEM_BUSY,
  /** the caller already holds this semaphore */
  MCX_SEM_DEADLOCK,
  /** unlock by a thread that does not hold it (or a unit count at its limit) */
  MCX_SEM_NOT_OWNER,
  /** NULL or uninitialized object, bad flags, hint in another kind of memory */
  MCX_SEM_INVALID,
  /** a *_then_lock receive failed or got no hint: the semaphore was not taken */
  MCX_SEM_NOT_LOCKED,
  /** an operating-system call failed unexpectedly */
  MCX_SEM_ERROR,
  /** this platform lacks what the call needs (PI semaphores off Linux: docs/porting.md) */
  MCX_SEM_NOT_SUPPORTED,
} mcx_sem_status_t;

/** Timeouts are in ms; this one waits forever (0 does not wait). */
#define MCX_SEM_INFINITE UINT32_MAX
/** Flag for the *_init calls: the object is in memory shared between processes. */
#define MCX_SEM_SHARED 1u

#if defined(__GNUC__)
#define MCX_SEM_ALIGN__ __attribute__((aligned(64)))
#else
#define MCX_SEM_ALIGN__
#endif

/** A binary semaphore with priority inheritance (one cache line). */
typedef struct mcx_pisem {
  uint32_t opaque_[16];
} MCX_SEM_ALIGN__ mcx_pisem_t;

/** A counting semaphore without priority inheritance (one cache line). */
typedef struct mcx_csem {
  uint32_t opaque_[16];
} MCX_SEM_ALIGN__ mcx_csem_t;

/** An auto-reset event (two cache lines). */
typedef struct mcx_event {
  uint32_t opaque_[32];
} MCX_SEM_ALIGN__ mcx_event_t;

/** The hint "no next semaphore": the call behaves like a plain wait. */
#define MCX_NO_SEM ((mcx_pisem_t *)0)

/* ------------------------------------------------------------ mcx_pisem */

/**
 * @brief Initializes @p s unlocked.
 * @param s the semaphore
 * @param flags 0 or MCX_SEM_SHARED.
 * @retval MCX_SEM_OK
 * @retval MCX_SEM_INVALID
 * @retval MCX_SEM_NOT_SUPPORTED the OS has no priority-inheritance futex (Windows)
 */
mcx_sem_status_t mcx_pisem_init(mcx_pisem_t *s, unsigned flags);
/**
 * @brief Destroys an unlocked @p s.
 * @retval MCX_SEM_OK
 * @retval MCX_SEM_BUSY held
 * @retval MCX_SEM_INVALID
 */
mcx_sem_status_t mcx_pisem_destroy(mcx_pisem_t *s);
/**
 * @brief Locks @p s, waiting up to @p timeout_ms; while the caller waits, the
 * holder runs at least at the caller's priority.
 * @retval MCX_SEM_OK locked
 * @retval MCX_SEM_OWNER_DIED locked; the previous holder died holding it
 * @retval MCX_SEM_TIMEOUT not locked (also: @p timeout_ms 0 and held)
 * @retval MCX_SEM_DEADLOCK the caller holds it already (not recursive)
 * @retval MCX_SEM_INVALID
 * @retval MCX_SEM_ERROR
 */
mcx_sem_status_t mcx_pisem_lock(mcx_pisem_t *s, uint32_t timeout_ms);
/**
 * @brief Locks @p s if free.
 * @retval MCX_SEM_OK
 * @retval MCX_SEM_OWNER_DIED
 * @retval MCX_SEM_BUSY
 * @retval MCX_SEM_DEADLOCK
 * @retval MCX_SEM_INVALID
 */
mcx_sem_status_t mcx_pisem_trylock(mcx_pisem_t *s);
/**
 * @brief Unlocks @p s; the highest-priority waiter gets it.
 * @retval MCX_SEM_OK
 * @retval MCX_SEM_NOT_OWNER the caller does not hold it
 * @retval MCX_SEM_INVALID
 */
mcx_sem_status_t mcx_pisem_unlock(mcx_pisem_t *s);
/** @brief Kernel thread id of the holder, 0 when free (a snapshot). */
uint32_t mcx_pisem_owner(const mcx_pisem_t *s);

/* ------------------------------------------------------------- mcx_csem */

/**
 * @brief Initializes @p s with @p units free out of at most @p limit.
 * @retval MCX_SEM_OK
 * @retval MCX_SEM_INVALID
 */
mcx_sem_status_t mcx_csem_init(mcx_csem_t *s, uint32_t units, uint32_t limit, unsigned flags);
/**
 * @brief Takes one unit.
 * @retval MCX_SEM_OK
 * @retval MCX_SEM_TIMEOUT
 * @retval MCX_SEM_INVALID
 */
mcx_sem_status_t mcx_csem_acquire(mcx_csem_t *s, uint32_t timeout_ms);
/**
 * @brief Takes one unit if one is free.
 * @retval MCX_SEM_OK
 * @retval MCX_SEM_BUSY
 * @retval MCX_SEM_INVALID
 */
mcx_sem_status_t mcx_csem_tryacquire(mcx_csem_t *s);
/**
 * @brief Returns one unit.
 * @retval MCX_SEM_OK
 * @retval MCX_SEM_NOT_OWNER all units free already
 * @retval MCX_SEM_INVALID
 */
mcx_sem_status_t mcx_csem_release(mcx_csem_t *s);
/** @brief Free units (a snapshot). */
uint32_t mcx_csem_value(const mcx_csem_t *s);

/* ------------------------------------------------------------ mcx_event */

/**
 * @brief Initializes @p ev not posted.
 * @retval MCX_SEM_OK
 * @retval MCX_SEM_INVALID
 */
mcx_sem_status_t mcx_event_init(mcx_event_t *ev, unsigned flags);
/**
 * @brief Posts @p ev (sets it; posting a set event changes nothing) and hands
 * it to a waiter, if any: a waiter that named a semaphore gets it taken for
 * it or is queued on it. Never blocks. Any thread (or process, if shared).
 * @retval MCX_SEM_OK
 * @retval MCX_SEM_INVALID
 * @retval MCX_SEM_ERROR
 */
mcx_sem_status_t mcx_event_post(mcx_event_t *ev);
/**
 * @brief Waits up to @p timeout_ms for @p ev and consumes it.
 * @retval MCX_SEM_OK
 * @retval MCX_SEM_TIMEOUT
 * @retval MCX_SEM_INVALID
 */
mcx_sem_status_t mcx_event_wait(mcx_event_t *ev, uint32_t timeout_ms);
/**
 * @brief Waits for @p ev, then holds @p sem: the kernel takes @p sem for the
 * caller when the event arrives (FUTEX_WAIT_REQUEUE_PI), or queues it on
 * @p sem, boosting the holder, instead of waking it first.
 * @param ev the event
 * @param sem the next semaphore, or MCX_NO_SEM (= mcx_event_wait())
 * @param timeout_ms bounds the whole call (event and semaphore)
 * @pre every concurrent waiter of @p ev that names a semaphore names this one
 * @post on MCX_SEM_OK / MCX_SEM_OWNER_DIED the event was consumed and the
 *       caller holds @p sem; on any other result neither happened
 * @retval MCX_SEM_OK
 * @retval MCX_SEM_OWNER_DIED
 * @retval MCX_SEM_TIMEOUT
 * @retval MCX_SEM_DEADLOCK the caller holds @p sem already
 * @retval MCX_SEM_INVALID @p sem in another kind of memory than @p ev (shared vs private)
 * @retval MCX_SEM_ERROR
 */
mcx_sem_status_t mcx_event_wait_then_lock(mcx_event_t *ev, mcx_pisem_t *sem, uint32_t timeout_ms);
/**
 * @brief As mcx_event_wait_then_lock() for a counting semaphore: when the
 * event arrives a free unit is taken for the caller, else the caller is moved
 * onto @p sem's queue (FUTEX_CMP_REQUEUE) and woken only by a release. One
 * hinted waiter per event at a time gets this; others wait, then acquire.
 * @param ev the event
 * @param timeout_ms bounds the whole call (event and unit)
 * @param sem the counting semaphore, or NULL (= mcx_event_wait())
 * @post on MCX_SEM_OK the event was consumed and the caller holds one unit;
 *       on any other result neither happened
 * @retval MCX_SEM_OK
 * @retval MCX_SEM_TIMEOUT
 * @retval MCX_SEM_INVALID
 * @retval MCX_SEM_ERROR
 */
mcx_sem_status_t mcx_event_wait_then_acquire(mcx_event_t *ev, mcx_csem_t *sem, uint32_t timeout_ms);

/* ------------------------------------------------ MCAPI receives + hint */

/**
 * @brief mcapi_msg_recv() that holds @p sem when it returns a message: a
 * receiver that has to sleep names @p sem in its endpoint, and the sender's
 * wake-up takes @p sem for it or queues it on @p sem (FUTEX_CMP_REQUEUE_PI)
 * instead of waking it. The endpoint's TIMEOUT attribute bounds the call.
 * Calling context: the endpoint's owner node.
 * @param receive_endpoint as mcapi_msg_recv()
 * @param buffer as mcapi_msg_recv()
 * @param buffer_size as mcapi_msg_recv()
 * @param received_size as mcapi_msg_recv()
 * @param sem the next semaphore, or MCX_NO_SEM (= mcapi_msg_recv())
 * @param mcapi_status as mcapi_msg_recv(): MCAPI_SUCCESS or
 *        MCAPI_ERR_MSG_TRUNCATED (a message was received), MCAPI_TIMEOUT,
 *        MCAPI_ERR_* (nothing received)
 * @return the semaphore's outcome: MCX_SEM_OK / MCX_SEM_OWNER_DIED (held;
 *         only with a received message), MCX_SEM_NOT_LOCKED (nothing
 *         received, or @p sem is MCX_NO_SEM), MCX_SEM_DEADLOCK (caller holds
 *         @p sem; nothing received), MCX_SEM_INVALID
 * Across processes: when @p sem lies outside the domain's partition, only
 * senders of the caller's process requeue; a sender of another process only
 * wakes the wait point's word, and the receiver notices within 50 ms
 * (docs/sem.md).
 */
mcx_sem_status_t mcx_msg_recv_then_lock(mcapi_endpoint_t receive_endpoint, void *buffer,
                                        size_t buffer_size, size_t *received_size, mcx_pisem_t *sem,
                                        mcapi_status_t *mcapi_status);
/**
 * @brief mcapi_pktchan_recv() that holds @p sem when it returns a packet, by
 * the same requeue scheme as mcx_msg_recv_then_lock(): the receiver sleeps on
 * the channel naming @p sem; the sender's wake-up takes @p sem for it or
 * queues it there. The receive endpoint's TIMEOUT attribute bounds the call.
 * Calling context: the channel's receiving node. Results as
 * mcx_msg_recv_then_lock() (statuses as mcapi_pktchan_recv()).
 */
mcx_sem_status_t mcx_pktchan_recv_then_lock(mcapi_pktchan_recv_hndl_t receive_handle, void **buffer,
                                            size_t *received_size, mcx_pisem_t *sem,
                                            mcapi_status_t *mcapi_status);
/**
 * @brief mcapi_sclchan_recv_uint64() (and the 32-, 16-, 8-bit forms) holding
 * @p sem on return, as mcx_pktchan_recv_then_lock(). A scalar of another width
 * gives MCAPI_ERR_SCL_SIZE, is not consumed, and @p sem is not held.
 */
mcx_sem_status_t mcx_sclchan_recv_uint64_then_lock(mcapi_sclchan_recv_hndl_t receive_handle,
                                                   uint64_t *value, mcx_pisem_t *sem,
                                                   mcapi_status_t *mcapi_status);
mcx_sem_status_t mcx_sclchan_recv_uint32_then_lock(mcapi_sclchan_recv_hndl_t receive_handle,
                                                   uint32_t *value, mcx_pisem_t *sem,
                                                   mcapi_status_t *mcapi_status);
mcx_sem_status_t mcx_sclchan_recv_uint16_then_lock(mcapi_sclchan_recv_hndl_t receive_handle,
                                                   uint16_t *value, mcx_pisem_t *sem,
                                                   mcapi_status_t *mcapi_status);
mcx_sem_status_t mcx_sclchan_recv_uint8_then_lock(mcapi_sclchan_recv_hndl_t receive_handle,
                                                  uint8_t *value, mcx_pisem_t *sem,
                                                  mcapi_status_t *mcapi_status);

#ifdef __cplusplus
}
#endif

#endif /* MCX_SEM_H */
