/* SPDX-License-Identifier: BSD-3-Clause */
/* Stands in for bench/peer_boost.cpp when Boost.Lockfree is not installed. */
#include "bench/core/bench.h"

#ifndef MCA_HAVE_BOOST
static int boost_absent(bench_ctx_t *c)
{
  bench_fail(c, BENCH_NA, "boost/lockfree/spsc_queue.hpp not found at build time (install libboost-dev)");
  return BENCH_NA;
}
const bench_ops_t bench_peer_boost = {"boost_spsc_queue", boost_absent, 0, 0, 0, 0, 0, 0, 0, 0,
                                      NULL, NULL, NULL, NULL, NULL};
#endif
