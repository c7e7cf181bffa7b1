/* SPDX-License-Identifier: BSD-3-Clause */
/* Process-wide waiting policy (see wait.h). */
#include "sync/wait.h"

/* Defaults: ~100 pause instructions (a few µs, enough for a cross-core reply
 * that is already on its way), then up to 200 yields, then the futex. */
mcx_atomic_u32 mcx__wait_spins = 128;
mcx_atomic_u32 mcx__wait_yields = 200;

MCX_TLS uint32_t mcx__tl_spin_budget;
MCX_TLS uint32_t mcx__tl_waits;

void mcx__wp_wake(mcx__waitpoint_t *wp, uint32_t sleepers, int shared)
{
  if (sleepers >= MCX__WP_PI_ONE) { /* a hinted sleeper: requeue instead of wake */
    mcx__wp_wake_pi(wp, sleepers, shared);
    return;
  }
  mcx_fetch_add_release(&wp->seq, 1); /* R-W1: pairs with A-W1 (mcx__wp_prepare) */
  mcx_port_futex_wake(&wp->seq, 0x7fffffff, shared);
}

uint64_t mcx__wp_wake_v(mcx__waitpoint_t *wp, uint32_t sleepers, int shared, uint64_t v)
{
  mcx__wp_wake(wp, sleepers, shared);
  return v;
}
