/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file lock.h
 * @brief Futex-based locks that work in process memory and in a shared
 * partition: a mutex for control-plane updates (node and endpoint tables) and
 * the reader/writer lock of the `global` locking mode.
 *
 * Both are zero-initialized to "unlocked" and hold no pointers, so they live
 * in a partition mapped at any address.
 */
#ifndef MCX_SYNC_LOCK_H
#define MCX_SYNC_LOCK_H

#include <stdint.h>

#include "common/mcx_atomic.h"

/** 0 unlocked, 1 locked, 2 locked with waiters (Drepper's "futexes are tricky" mutex 3). */
typedef struct mcx__mutex {
  mcx_atomic_u32 word;
} mcx__mutex_t;

void mcx__mutex_lock(mcx__mutex_t *m, int shared);
int mcx__mutex_trylock(mcx__mutex_t *m);
void mcx__mutex_unlock(mcx__mutex_t *m, int shared);

/**
 * Writer-preferring reader/writer lock. state: bit 31 writer holds, bit 30
 * writers waiting, low bits reader count. Sleepers wait on @c seq.
 */
typedef struct mcx__rwlock {
  mcx_atomic_u32 state;
  mcx_atomic_u32 seq;      /* futex word, bumped on every release that may wake someone */
  mcx_atomic_u32 sleepers; /* threads asleep (or about to be) on seq */
  mcx_atomic_u32 owner;    /* the writer's kernel tid, 0 when none */
} mcx__rwlock_t;

void mcx__rwlock_rdlock(mcx__rwlock_t *l, int shared);
void mcx__rwlock_rdunlock(mcx__rwlock_t *l, int shared);
/**
 * Takes the lock exclusively for thread @p tid. Robust: a waiter that has
 * slept a while checks whether the writer's thread still exists and takes the
 * lock over if not (the data it protected may need repair by the caller's
 * own recovery, e.g. ring tombstones).
 */
void mcx__rwlock_wrlock(mcx__rwlock_t *l, int shared, uint32_t tid);
void mcx__rwlock_wrunlock(mcx__rwlock_t *l, int shared);

#endif
