/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file mcx_port_mrapi.h
 * @brief What MRAPI's remote memory and resources need from the OS: copies
 * into and out of another process, a background thread, a per-thread
 * notification signal, and reading small text files (/sys).
 */
#ifndef MCX_PORT_MRAPI_H
#define MCX_PORT_MRAPI_H

#include <stddef.h>
#include <stdint.h>

/**
 * @brief Copies @p n bytes between @p local (this process) and @p remote (an
 * address in process @p pid): write = 1 local -> remote, 0 remote -> local.
 * @retval 0 @retval MCX_EPERM not allowed (ptrace policy) @retval MCX_EIO gone or bad address
 * @retval MCX_ENOSYS the system has no cross-process copy (a kernel without
 *         CONFIG_CROSS_MEMORY_ATTACH, qemu-user)
 */
int mcx_port_vm_copy(uint32_t pid, void *local, void *remote, size_t n, int write);

/** @brief Starts a detached thread running fn(arg). @retval 0 @retval MCX_EIO */
int mcx_port_thread_start(void (*fn)(void *), void *arg);

/** @brief Installs @p handler for the notification signal (SIGALRM), once per process. @retval 0 */
int mcx_port_notify_install(void (*handler)(void));
/** @brief Sends the notification signal to thread @p tid of this process. @retval 0 @retval MCX_ENOENT */
int mcx_port_notify_thread(uint32_t tid);

/**
 * @brief Start time of thread @p tid (clock ticks since boot), 0 when no such
 * thread runs (gone or a zombie). With the tid it names one thread for good:
 * a recycled tid has another start time.
 */
uint64_t mcx_port_tid_start(uint32_t tid);

/** @brief Reads up to @p n - 1 bytes of text file @p path into @p buf (NUL-terminated).
 *  @return bytes read, or -1 when it cannot be read */
int mcx_port_read_text(const char *path, char *buf, size_t n);

#endif /* MCX_PORT_MRAPI_H */
