/* SPDX-License-Identifier: BSD-3-Clause */
/* The periodic monitor: sample a group every period, compute events per
 * period, call back when a threshold is crossed (the hook a scheduler uses to
 * move or throttle a thread). */
#include <stdlib.h>
#include <string.h>

#include "common/mcx_atomic.h"
#include "common/mcx_err.h"
#include "hpc/hpc_internal.h"
#include "ports/mcx_port_hpc.h"

#define MAX_THRESHOLDS (2 * MCX_HPC_MAX_EVENTS)

struct mcx_hpc_monitor {
  mcx_hpc_group_t *g;
  uint64_t period_ns;
  mcx_hpc_alert_fn fn;
  void *user;
  unsigned nthr;
  mcx_hpc_threshold_t thr[MAX_THRESHOLDS];
  unsigned char above[MAX_THRESHOLDS]; /* last side of each threshold; monitor thread only */
  mcx_hpc_sample_t prev;               /* monitor thread only */
  mcx_port_ticker_t *ticker;
  /* Written by the monitor thread, read by anyone: relaxed, they are
   * statistics and publish no other data. */
  mcx_atomic_u64 periods;
  mcx_atomic_u64 alerts;
};

int mcx_hpc_monitor_create(mcx_hpc_monitor_t **out, mcx_hpc_group_t *g,
                           const mcx_hpc_monitor_config_t *cfg)
{
  if (!out || !g || !cfg || cfg->nthresholds > MAX_THRESHOLDS ||
      (cfg->nthresholds && !cfg->thresholds))
    return MCX_EINVAL;
  for (unsigned i = 0; i < cfg->nthresholds; i++)
    if (cfg->thresholds[i].event >= mcx_hpc_group_size(g))
      return MCX_EINVAL;
  mcx_hpc_monitor_t *m = calloc(1, sizeof *m);
  if (!m)
    return MCX_ENOMEM;
  m->g = g;
  m->period_ns = cfg->period_ns ? cfg->period_ns : MCX_HPC_DEFAULT_PERIOD_NS;
  m->fn = cfg->on_alert;
  m->user = cfg->user;
  m->nthr = cfg->nthresholds;
  if (m->nthr)
    memcpy(m->thr, cfg->thresholds, m->nthr * sizeof m->thr[0]);
  int rc = mcx_hpc_group_enable(g);
  if (rc == MCX_OK)
    rc = mcx_hpc_group_read(g, &m->prev); /* the baseline of period 1 */
  if (rc != MCX_OK) {
    free(m);
    return rc;
  }
  *out = m;
  return MCX_OK;
}

int mcx_hpc_monitor_step(mcx_hpc_monitor_t *m)
{
  mcx_hpc_sample_t now, d;
  int rc = mcx_hpc_group_read(m->g, &now);
  if (rc != MCX_OK)
    return rc;
  mcx_hpc_sample_delta(&m->prev, &now, &d);
  m->prev = now;
  /* Normalize to exactly one period: a late tick covers more time. */
  double norm = d.t_ns ? (double)m->period_ns / (double)d.t_ns : 1.0;
  for (unsigned i = 0; i < d.n; i++)
    d.v[i].scaled *= norm;
  uint64_t period = mcx_load_relaxed(&m->periods) + 1;
  for (unsigned k = 0; k < m->nthr; k++) {
    const mcx_hpc_value_t *v = &d.v[m->thr[k].event];
    if (!v->valid)
      continue; /* no figure, no decision */
    unsigned char above = v->scaled > m->thr[k].per_period;
    if (above == m->above[k])
      continue;
    m->above[k] = above;
    mcx_fetch_add_relaxed(&m->alerts, 1u);
    if (m->fn) {
      mcx_hpc_alert_t a = {
          .event = m->thr[k].event,
          .name = mcx_hpc_group_name(m->g, m->thr[k].event),
          .value = v->scaled,
          .threshold = m->thr[k].per_period,
          .rising = above,
          .period = period,
          .tid = mcx__hpc_group_tid(m->g),
          .per_period = &d,
      };
      m->fn(&a, m->user);
    }
  }
  mcx_store_relaxed(&m->periods, period);
  return MCX_OK;
}

static void on_tick(void *arg, uint64_t expirations)
{
  (void)expirations; /* a late tick is one longer period: step() normalizes by time */
  (void)mcx_hpc_monitor_step(arg);
}

int mcx_hpc_monitor_start(mcx_hpc_monitor_t *m)
{
  if (!m)
    return MCX_EINVAL;
  if (m->ticker)
    return MCX_EBUSY;
  return mcx_port_ticker_start(&m->ticker, m->period_ns, on_tick, m);
}

void mcx_hpc_monitor_stop(mcx_hpc_monitor_t *m)
{
  if (m && m->ticker) {
    mcx_port_ticker_stop(m->ticker);
    m->ticker = NULL;
  }
}

uint64_t mcx_hpc_monitor_periods(const mcx_hpc_monitor_t *m)
{
  return mcx_load_relaxed((mcx_atomic_u64 *)&m->periods);
}

uint64_t mcx_hpc_monitor_alerts(const mcx_hpc_monitor_t *m)
{
  return mcx_load_relaxed((mcx_atomic_u64 *)&m->alerts);
}

void mcx_hpc_monitor_destroy(mcx_hpc_monitor_t *m)
{
  if (!m)
    return;
  mcx_hpc_monitor_stop(m);
  free(m);
}
