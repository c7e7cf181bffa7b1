/* SPDX-License-Identifier: BSD-3-Clause */
/* Process-wide waiting policy (see wait.h). */
#include "sync/wait.h"

/* Defaults: ~100 pause instructions (a few µs, enough for a cross-core reply
 * that is already on its way), then up to 200 yields, then the futex. */
mcx_atomic_u32 mcx__wait_spins = 128;
mcx_atomic_u32 mcx__wait_yields = 200;

MCX_TLS uint32_t mcx__tl_spin_budget;
MCX_TLS uint32_t mcx__tl_waits;
