/* SPDX-License-Identifier: BSD-3-Clause */
/* What configuring and reading the counters costs on this machine. The paper's
 * mediator needed 11 instructions to configure a counter and 40 to read it
 * (MSR writes in kernel mode); over perf_event_open configuring is a system
 * call, and reading is a read(2) unless rdpmc from the user page is allowed. */
#include <stdlib.h>
#include <string.h>

#include "common/mcx_err.h"
#include "hpc/hpc_internal.h"
#include "ports/mcx_port.h"
#include "ports/mcx_port_hpc.h"

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, unsigned n)
{
  qsort(v, n, sizeof *v, cmp_double);
  return n ? v[n / 2] : 0.0;
}

/* Median per-call cost of fn over `batches` batches of `per` calls, in ns and TSC ticks. */
#define BATCH_COST(batches, per, ns_out, tsc_out, call)                      \
  do {                                                                       \
    for (unsigned b_ = 0; b_ < (batches); b_++) {                            \
      uint64_t t0_ = mcx_port_now_ns(), c0_ = mcx_port_tsc();                \
      for (unsigned i_ = 0; i_ < (per); i_++) {                              \
        call;                                                                \
      }                                                                      \
      uint64_t c1_ = mcx_port_tsc(), t1_ = mcx_port_now_ns();                \
      ns[b_] = (double)(t1_ - t0_) / (per);                                  \
      tsc[b_] = (double)(c1_ - c0_) / (per);                                 \
    }                                                                        \
    (ns_out) = median(ns, (batches));                                        \
    (tsc_out) = median(tsc, (batches));                                      \
  } while (0)

int mcx_hpc_measure_cost(unsigned iterations, mcx_hpc_cost_t *out)
{
  if (!out)
    return MCX_EINVAL;
  memset(out, 0, sizeof *out);
  if (iterations < 10)
    iterations = 10;
  unsigned batches = iterations / 10 < 50 ? iterations / 10 : 50, per = iterations / batches;
  double *ns = calloc(iterations, sizeof *ns), *tsc = calloc(iterations, sizeof *tsc);
  if (!ns || !tsc) {
    free(ns);
    free(tsc);
    return MCX_ENOMEM;
  }
  mcx_hpc_group_t *g;
  int rc = mcx_hpc_group_open_default(&g, 0);
  if (rc != MCX_OK) {
    free(ns);
    free(tsc);
    return rc;
  }
  /* Configure: open one event of the first kind that works, enable it. */
  const char *first = mcx_hpc_group_name(g, 0);
  for (unsigned i = 0; i < iterations; i++) {
    mcx_hpc_group_t *one;
    if (mcx_hpc_group_create(&one, 0, -1) != MCX_OK)
      break;
    uint64_t t0 = mcx_port_now_ns();
    (void)mcx_hpc_group_add(one, first, NULL);
    (void)mcx_hpc_group_enable(one);
    uint64_t t1 = mcx_port_now_ns();
    mcx_hpc_group_close(one);
    ns[i] = (double)(t1 - t0);
  }
  out->open_ns = median(ns, iterations);
  double dummy;
  mcx_hpc_sample_t s;
  BATCH_COST(batches, per, out->enable_disable_ns, dummy,
             (mcx_hpc_group_enable(g), mcx_hpc_group_disable(g)));
  (void)dummy;
  mcx_hpc_group_enable(g);
  BATCH_COST(batches, per, out->read_ns, out->read_tsc, mcx_hpc_group_read(g, &s));
  BATCH_COST(batches, per, out->read_fast_ns, out->read_fast_tsc, mcx_hpc_group_read_fast(g, &s));
  out->events = mcx_hpc_group_size(g);
  out->fast_path = mcx_hpc_group_read_path(g);
  mcx_hpc_group_close(g);
  free(ns);
  free(tsc);
  return MCX_OK;
}
