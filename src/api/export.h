/* SPDX-License-Identifier: BSD-3-Clause */
/* The mark of the library's exported functions (it is built with
 * -fvisibility=hidden). PE targets have no ELF visibility: MinGW exports
 * every function of the DLL, and warns about the attribute (at link time,
 * with LTO). */
#ifndef MCX_API_EXPORT_H
#define MCX_API_EXPORT_H

#if defined(_WIN32) || defined(__CYGWIN__)
#define MCX_API
#else
#define MCX_API __attribute__((visibility("default")))
#endif

#endif
