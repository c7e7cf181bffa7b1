/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file mca_impl_spec.h
 * @brief Implementation-specific parts of mca.h for libmca.
 */
#ifndef MCA_IMPL_SPEC_H
#define MCA_IMPL_SPEC_H

#include "mca.h"

/** Declares a variable aligned as packet buffers are (reference-implementation name). */
#define MCA_DECL_ALIGNED __attribute__((aligned(MCAPI_BUF_ALIGN)))

/** Organization id reported in mcapi_info_t. */
#define MCA_ORG_ID 0x6d6361 /* "mca" */

#endif /* MCA_IMPL_SPEC_H */
