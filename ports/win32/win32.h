/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared by the files of the Windows port only: the <windows.h> settings
 * and the few helpers one file of the port provides to another. */
#ifndef MCX_PORT_WIN32_H
#define MCX_PORT_WIN32_H

#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#ifndef NOMINMAX
#define NOMINMAX
#endif
/* Windows 8: WaitOnAddress, GetActiveProcessorCount, thread groups. */
#if !defined(_WIN32_WINNT) || _WIN32_WINNT < 0x0602
#undef _WIN32_WINNT
#define _WIN32_WINNT 0x0602
#endif
#include <windows.h>

#include <stddef.h>
#include <stdint.h>

/* An open Windows object stored in the int of mcx_port_shm_t and the ksem id:
 * kernel handles fit in 32 bits and may be sign-extended back (documented for
 * 32/64-bit interoperation). */
static inline int mcx__win_handle_int(HANDLE h) { return (int)(intptr_t)h; }
static inline HANDLE mcx__win_int_handle(int fd) { return (HANDLE)(intptr_t)fd; }

/* shm.c: the futex key of the named mapping that holds @p addr (its unique
 * creation stamp and the offset of @p addr in it); 0 when @p addr lies in no
 * view that mcx_port_shm_map() made. */
int mcx__win_shm_key(const void *addr, uint64_t *stamp, uint64_t *offset);
/* shm.c: the security descriptor giving the calling user alone every right
 * (plus read/write for everyone as @p mode's group/other bits ask), in SDDL.
 * LocalFree() the result. NULL on failure. */
PSECURITY_DESCRIPTOR mcx__win_user_sd(unsigned mode);
/* shm.c: whether @p addr starts a mapped view (it is unmapped then). */
int mcx__win_unmap_view(void *addr);
/* The remaining milliseconds until @p deadline_ns (INFINITE for none). */
DWORD mcx__win_ms_until(uint64_t deadline_ns);

#endif /* MCX_PORT_WIN32_H */
