/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file pisem.h
 * @brief the PI binary semaphore, the counting semaphore, the event
 * and the "wait, then lock" calls with a next-semaphore hint (docs/sem.md).
 * Internal layout of the opaque types of include/mcx_sem.h. Results are 0 or
 * a negative MCX_E*; deadlines absolute CLOCK_MONOTONIC ns (MCX_NO_DEADLINE
 * forever, 0 = do not wait).
 */
#ifndef MCX_SYNC_PISEM_H
#define MCX_SYNC_PISEM_H

#include <stdint.h>

#include "common/mcx_atomic.h"
#include "sync/wait.h"

#define MCX__PISEM_MAGIC 0x50495331u /* "PIS1" */
#define MCX__CSEM_MAGIC 0x43534d31u  /* "CSM1" */
#define MCX__EVENT_MAGIC 0x45564e31u /* "EVN1" */

/** Binary semaphore with priority inheritance: one line, written by lockers. */
typedef struct mcx__pisem {
  mcx_atomic_u32 word; /* PI futex: owner tid | WAITERS | OWNER_DIED; lockers' CAS, the kernel */
  mcx_atomic_u32
      released;    /* 1: the last owner unlocked (0 while held); written by the owner only */
  uint32_t shared; /* set at init */
  uint32_t magic;  /* set at init */
} mcx__pisem_t;

/** Counting semaphore: the count is the futex word. */
typedef struct mcx__csem {
  mcx_atomic_u32 count; /* free units; lockers and unlockers */
  mcx_atomic_u32 nwait; /* sleepers announced (and waiters requeued onto count by posters) */
  uint32_t limit, shared, magic;
} mcx__csem_t;

/* States of the event's hinted counting-semaphore waiter slot (cslot). */
enum { CSLOT_FREE = 0, CSLOT_CLAIMED = 1, CSLOT_WAITING = 2, CSLOT_UNIT = 3, CSLOT_REQUEUED = 4 };

/** Auto-reset event. Line 0: the state (posters and consumers); line 1: sleepers. */
typedef struct mcx__event {
  MCX_ALIGNED_LINE mcx_atomic_u32 state; /* 1 = posted; posters set, consumers clear (CAS) */
  uint32_t shared, magic;
  /* Line 1 — written by waiters (announcements) and by posters (seq bumps,
   * cslot hand-off), only on the slow path. */
  MCX_ALIGNED_LINE mcx__waitpoint_t wp; /* plain sleepers (no hint) */
  mcx__waitpoint_t pwp;                 /* requeue-PI sleepers (hint: a mcx__pisem_t) */
  mcx_atomic_u32 cslot;                 /* the one hinted counting-semaphore waiter's state word */
  mcx_atomic_u64 cs_off;                /* its semaphore: offset from &cslot */
} mcx__event_t;

void mcx__pisem_init(mcx__pisem_t *s, int shared);
/**
 * @retval 0
 * @retval MCX_EOWNERDEAD locked, the previous owner died
 * @retval MCX_EAGAIN held (deadline 0)
 * @retval MCX_ETIMEDOUT
 * @retval MCX_EBUSY we hold it
 * @retval MCX_EIO
 */
int mcx__pisem_lock(mcx__pisem_t *s, uint64_t deadline_ns);
/**
 * @retval 0
 * @retval MCX_EPERM not held by the caller
 * @retval MCX_EIO
 */
int mcx__pisem_unlock(mcx__pisem_t *s);
/** Owner tid, 0 when free. */
uint32_t mcx__pisem_owner(const mcx__pisem_t *s);
/**
 * Bookkeeping once the kernel made us the owner.
 * @retval 0
 * @retval MCX_EOWNERDEAD
 */
int mcx__pisem_acquired(mcx__pisem_t *s);

void mcx__csem_init(mcx__csem_t *s, uint32_t units, uint32_t limit, int shared);
/**
 * @retval 0
 * @retval MCX_EAGAIN (deadline 0)
 * @retval MCX_ETIMEDOUT
 */
int mcx__csem_acquire(mcx__csem_t *s, uint64_t deadline_ns);
/**
 * @retval 0
 * @retval MCX_EPERM at its limit already
 */
int mcx__csem_release(mcx__csem_t *s);

void mcx__event_init(mcx__event_t *ev, int shared);
void mcx__event_post(mcx__event_t *ev);
/**
 * Waits for @p ev; with @p s, returns holding it (requeue-PI).
 * @retval 0
 * @retval MCX_EOWNERDEAD (held; previous owner died)
 * @retval MCX_ETIMEDOUT
 * @retval MCX_EBUSY the caller holds @p s
 * @retval MCX_EIO
 */
int mcx__event_wait_then_lock(mcx__event_t *ev, mcx__pisem_t *s, uint64_t deadline_ns);
/**
 * Waits for @p ev, then holds one unit of @p c.
 * @retval 0
 * @retval MCX_ETIMEDOUT
 */
int mcx__event_wait_then_acquire(mcx__event_t *ev, mcx__csem_t *c, uint64_t deadline_ns);

#endif /* MCX_SYNC_PISEM_H */
