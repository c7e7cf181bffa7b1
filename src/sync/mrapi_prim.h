/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file mrapi_prim.h
 * @brief MRAPI's blocking primitives as plain structs: a robust recursive
 * mutex, a counting semaphore and a reader/writer lock, futex-based, valid in
 * process-private memory (shared = 0) or in memory shared between processes
 * (shared = 1). They know nothing about handles, ids or partitions: that is
 * the job of mrapi_domain.c and mrapi_obj.c.
 *
 * Waiting: spin briefly, yield once, then sleep on the futex word. Results are
 * 0 or a negative MCX_E*; deadlines are absolute CLOCK_MONOTONIC ns,
 * MCX_NO_DEADLINE waits forever and 0 means "do not wait".
 *
 * Robustness (mutex only): the lock word holds the owner's kernel tid. A
 * waiter whose sleep slice (MCX__RMUTEX_PROBE_NS) expires, or a try that
 * fails, asks the port whether that tid still runs; if not, it takes the
 * lock over with one CAS from the dead owner's value and reports
 * MCX_EOWNERDEAD (the lock is then held by the caller).
 */
#ifndef MCX_MRAPI_PRIM_H
#define MCX_MRAPI_PRIM_H

#include <stdint.h>

#include "common/mcx_atomic.h"

/* ---- mutex word: bit 31 = somebody may sleep on it, bits 0..29 = owner tid */
#define MCX__RMUTEX_WAITERS 0x80000000u
#define MCX__RMUTEX_TID_MASK 0x3fffffffu
/** Owner value of a deleted mutex: no tid is that large (pid_max <= 2^22). */
#define MCX__RMUTEX_DELETED 0x3fffffffu
/** How long a waiter sleeps before checking whether the owner still lives. */
#define MCX__RMUTEX_PROBE_NS 10000000ull

typedef struct mcx__rmutex {
  mcx_atomic_u32 word; /* written by every locker (CAS) and the owner (unlock) */
  uint32_t depth;      /* nesting depth; written only by the owner, under the lock */
  uint32_t recursive;  /* set at init, read-only after */
  uint32_t reserved;
} mcx__rmutex_t;

void mcx__rmutex_init(mcx__rmutex_t *m, int recursive);
/**
 * @brief Locks @p m for thread @p tid.
 * @param depth_out receives the nesting depth after locking (1 = first lock)
 * @retval 0 locked
 * @retval MCX_EOWNERDEAD locked, but the previous owner died holding it
 * @retval MCX_EBUSY the caller holds it already and it is not recursive
 * @retval MCX_EAGAIN held by another and @p deadline_ns is 0
 * @retval MCX_ETIMEDOUT still held by another at the deadline
 * @retval MCX_ECLOSED the mutex was deleted
 */
int mcx__rmutex_lock(mcx__rmutex_t *m, uint32_t tid, uint64_t deadline_ns, int shared,
                     uint32_t *depth_out);
/**
 * @brief Unlocks one level. @retval 0 @retval MCX_EPERM not held by @p tid.
 */
int mcx__rmutex_unlock(mcx__rmutex_t *m, uint32_t tid, int shared);
/** @brief Marks an unlocked mutex deleted and wakes its waiters. @retval 0 @retval MCX_EBUSY locked */
int mcx__rmutex_mark_deleted(mcx__rmutex_t *m, int shared);
/** @brief Deletes a mutex held by @p tid (the mca-2.0.3 rule); waiters see it
 *  deleted. @retval 0 @retval MCX_EPERM @p tid does not hold it */
int mcx__rmutex_delete_held(mcx__rmutex_t *m, uint32_t tid, int shared);
/** @brief Owner tid, 0 when free (a snapshot). */
uint32_t mcx__rmutex_owner(mcx__rmutex_t *m);

/* ---- counting semaphore */
#define MCX__SEM_DELETED 0xffffffffu
typedef struct mcx__sem {
  mcx_atomic_u32 count; /* free units; written by lockers and unlockers */
  mcx_atomic_u32 nwait; /* sleepers announced; a poster calls futex_wake only if > 0 */
  uint32_t limit;       /* set at init */
  uint32_t reserved;
} mcx__sem_t;

void mcx__sem_init(mcx__sem_t *s, uint32_t limit);
/** @retval 0 @retval MCX_EAGAIN (deadline 0) @retval MCX_ETIMEDOUT @retval MCX_ECLOSED deleted */
int mcx__sem_lock(mcx__sem_t *s, uint64_t deadline_ns, int shared);
/** @retval 0 @retval MCX_EPERM all units free already (nothing to unlock) @retval MCX_ECLOSED */
int mcx__sem_unlock(mcx__sem_t *s, int shared);
/** @retval 0 @retval MCX_EBUSY some unit is taken */
int mcx__sem_mark_deleted(mcx__sem_t *s, int shared);
/** @brief Deletes whatever units are taken (the mca-2.0.3 rule); waiters and
 *  later unlocks see it deleted. */
void mcx__sem_delete_force(mcx__sem_t *s, int shared);

/* ---- reader/writer lock: state = readers | waiting writers << 20 | WRITER | DELETED */
#define MCX__RWL_READERS_MASK 0x000fffffu
#define MCX__RWL_WWAIT_UNIT 0x00100000u
#define MCX__RWL_WWAIT_MASK 0x1ff00000u
#define MCX__RWL_WRITER 0x20000000u
#define MCX__RWL_DELETED 0x40000000u
typedef struct mcx__rwl {
  mcx_atomic_u32 state;  /* every locker and unlocker */
  mcx_atomic_u32 nwait;  /* sleepers announced */
  mcx_atomic_u32 writer; /* tid of the writer holding it; written by that writer */
  uint32_t limit;        /* most readers at once, set at init */
} mcx__rwl_t;

void mcx__rwl_init(mcx__rwl_t *l, uint32_t reader_limit);
/** @retval 0 @retval MCX_EAGAIN @retval MCX_ETIMEDOUT @retval MCX_ECLOSED @retval MCX_EBUSY writer re-locking */
int mcx__rwl_lock(mcx__rwl_t *l, int writer, uint32_t tid, uint64_t deadline_ns, int shared);
/** @retval 0 @retval MCX_EPERM not locked in that mode (by the caller, for a writer) */
int mcx__rwl_unlock(mcx__rwl_t *l, int writer, uint32_t tid, int shared);
/** @retval 0 @retval MCX_EBUSY locked */
int mcx__rwl_mark_deleted(mcx__rwl_t *l, int shared);
/** @brief Deletes it held or not (the mca-2.0.3 rule). */
void mcx__rwl_delete_force(mcx__rwl_t *l, int shared);

#endif /* MCX_MRAPI_PRIM_H */
