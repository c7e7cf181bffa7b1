/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file receipt.h
 * @brief Delivery receipts (receipt.c).
 */
#ifndef MCX_RUNTIME_RECEIPT_H
#define MCX_RUNTIME_RECEIPT_H

#include "runtime/domain.h"

/* ---- delivery receipts (receipt.c; the setting is in mcx__mpsc_enqueue, the
 * settling of a dead sender's send in recovery.c) */
/** The receipt of @p handle, NULL when it names none (stale or forged). */
mcx__receipt_t *mcx__receipt_get(mcx__domain_t *d, uint32_t handle);
/** Finds or makes the receipt of @p key (after the dead-node sweep): its handle and value. */
int mcx__receipt_open(uint64_t key, uint32_t *handle, uint64_t *value);
int mcx__receipt_set(uint32_t handle, uint64_t value);
int mcx__receipt_delete(uint64_t key);

#endif
