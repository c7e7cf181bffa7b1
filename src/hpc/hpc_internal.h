/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal pieces of src/hpc shared between its files. */
#ifndef MCX_HPC_INTERNAL_H
#define MCX_HPC_INTERNAL_H

#include "mcx_hpc.h"

/** The detected CPU, computed once (MT-safe: idempotent, relaxed publication). */
const mcx_hpc_cpu_t *mcx__hpc_cpu(void);
/** Maps a port error from perf_event_open to a probe status. */
mcx_hpc_status_t mcx__hpc_status_from_err(int err);
/** Case-insensitive equality of two names. */
int mcx__hpc_name_eq(const char *a, const char *b);

/** config1 of a "raw:0xCODE:0xCONFIG1" name (0 when absent). */
uint64_t mcx__hpc_raw_config1(const char *name);
/** MCX_HPC_EV_* flags of event @p i. */
unsigned mcx__hpc_group_flags(const mcx_hpc_group_t *g, unsigned i);
/** The group's target thread. */
int32_t mcx__hpc_group_tid(const mcx_hpc_group_t *g);

#endif
