/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file state.h
 * @brief State channels (state.c): latest-value exchange, the NBW protocol.
 */
#ifndef MCX_RUNTIME_STATE_H
#define MCX_RUNTIME_STATE_H

#include "runtime/domain.h"

/* ---- state channels (state.c) */
int mcx__state_create(uint32_t port, uint32_t max_size, uint32_t nbuf, uint32_t *handle);
int mcx__state_open(uint32_t node_id, uint32_t port, uint32_t timeout_ms, uint32_t *handle);
int mcx__state_close(uint32_t handle);
int mcx__state_write(uint32_t handle, const void *buf, size_t size);
/** 0 (or MCX_ETRUNC), MCX_EAGAIN when lapped @p retries times, or handle errors. */
int mcx__state_read(uint32_t handle, void *buf, size_t cap, size_t *size, uint64_t *version,
                    uint32_t retries);
int mcx__state_wait_newer(uint32_t handle, uint64_t known, uint32_t timeout_ms, uint64_t *version);
/** Deletes the state channels owned by table slot @p node_slot (admin lock held). */
void mcx__state_delete_of_node_locked(mcx__domain_t *d, uint32_t node_slot);

#endif
