/* SPDX-License-Identifier: BSD-3-Clause */
/* No asymmetric barrier across processes on Windows: notifiers fence. */
#include "common/mcx_err.h"
#include "ports/mcx_port.h"

mcx_atomic_u32 mcx_port_asym_light;

int mcx_port_heavy_barrier(void) { return MCX_ENOSYS; }
