/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file recovery.h
 * @brief Crash recovery (recovery.c): above the objects it repairs, below node.c.
 */
#ifndef MCX_RUNTIME_RECOVERY_H
#define MCX_RUNTIME_RECOVERY_H

#include "runtime/domain.h"

/* ---- crash recovery (recovery.c): above the objects it repairs, below node.c */
/** The dead-node sweep (mcx__sweep_dead_locked's work; admin lock held). */
uint32_t mcx__recovery_sweep_locked(mcx__domain_t *d);
/** Tombstones for dead senders' orphaned reservations (admin lock held). */
void mcx__recovery_resolve_orphans_locked(mcx__domain_t *d);

#endif
