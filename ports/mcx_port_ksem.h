/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file mcx_port_ksem.h
 * @brief One process-shared kernel semaphore used as a lock: the `kernel`
 * locking mode (every queue operation between a P and a V on it, as the
 * lock-based reference design does). Implemented in ports/posix/ksem.c with
 * a System V semaphore.
 *
 * Concurrency: MT-safe and usable from any process of the same user that
 * knows the id. The lock is released by the kernel when its holder's process
 * exits (undo on exit), so a dead holder never blocks the others.
 */
#ifndef MCX_PORT_KSEM_H
#define MCX_PORT_KSEM_H

#include <stdint.h>

/**
 * @brief Creates an unnamed semaphore with value 1 (unlocked), mode 0600.
 * @param[out] id its system-wide id.
 * @retval 0 created.
 * @retval MCX_ENOMEM the system's semaphore limits are reached.
 * @retval MCX_EIO any other failure.
 */
int mcx_port_ksem_create(int32_t *id);
/** @brief P: waits in the kernel until the semaphore is free and takes it (retries EINTR). */
void mcx_port_ksem_lock(int32_t id);
/** @brief V: releases it. @pre the caller's process took it. */
void mcx_port_ksem_unlock(int32_t id);
/** @brief semop system calls the calling thread made through lock and unlock. */
uint64_t mcx_port_ksem_calls(void);
/** @brief Removes the semaphore (the last user, or a stale partition's). Ignores a gone id. */
void mcx_port_ksem_destroy(int32_t id);

#endif /* MCX_PORT_KSEM_H */
