/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file mca.h
 * @brief Types shared by the Multicore Association APIs (MCAPI, MRAPI).
 *
 * Standard names, as in the MCA 2.x headers, so programs written against
 * other implementations compile unmodified.
 */
#ifndef MCA_H
#define MCA_H

#include <stddef.h>
#include <stdint.h>

#include "mca_config.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef int32_t mca_int_t;
typedef int8_t mca_int8_t;
typedef int16_t mca_int16_t;
typedef int32_t mca_int32_t;
typedef int64_t mca_int64_t;
typedef uint32_t mca_uint_t;
typedef uint8_t mca_uint8_t;
typedef uint16_t mca_uint16_t;
typedef uint32_t mca_uint32_t;
typedef uint64_t mca_uint64_t;
typedef uint8_t mca_boolean_t;
typedef uint32_t mca_node_t;
typedef uint32_t mca_status_t;
typedef uint32_t mca_timeout_t;
typedef uint32_t mca_domain_t;

/**
 * @brief A non-blocking operation's handle.
 *
 * Opaque: the runtime stores a slot index and a generation in it, so a handle
 * that was completed, cancelled and reused is recognized as stale.
 */
typedef struct mca_request {
  mca_uint32_t mcx_handle;
} mca_request_t;

#define MCA_TRUE 1
#define MCA_FALSE 0
#define MCA_NULL 0
#define MCA_INFINITE (~(mca_timeout_t)0)

/** Sizes of the version strings. */
#define MCA_MAX_VERSION_STRING_LEN 128

#ifdef __cplusplus
}
#endif

#endif /* MCA_H */
