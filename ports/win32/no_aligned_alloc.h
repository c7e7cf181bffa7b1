/* SPDX-License-Identifier: BSD-3-Clause */
/* Force-included into src/transport/pmq.c on Windows (CMakeLists.txt): the
 * Windows C runtime has no aligned_alloc (its free() could not release one).
 * The message-queue transport that calls it is refused before it allocates
 * (ports/none/mq.c), so the stand-in (ports/win32/os.c) returns NULL. */
#ifndef MCX_PORT_WIN32_NO_ALIGNED_ALLOC_H
#define MCX_PORT_WIN32_NO_ALIGNED_ALLOC_H
#include <stddef.h>
void *mcx__win_no_aligned_alloc(size_t align, size_t size);
#define aligned_alloc mcx__win_no_aligned_alloc
#endif
