/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file mca_utils.h
 * @brief The reference implementation's utility header, for programs that
 * include it: a leveled debug print and its level. Nothing else of libmca
 * needs it.
 */
#ifndef MCA_UTILS_H
#define MCA_UTILS_H

#include "mca_config.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Signals a handler table needs room for (Linux: _NSIG). */
#define MCA_MAX_SIGNALS 65

/** @brief Prints @p format on stderr when @p level is at most the debug level. MT-safe. */
void mca_dprintf(int level, const char *format, ...) __attribute__((format(printf, 2, 3)));
/** @brief Sets the debug level (same as mrapi_set_debug_level()). MT-safe. */
void mca_set_debug_level(int d);

#ifdef __cplusplus
}
#endif

#endif /* MCA_UTILS_H */
