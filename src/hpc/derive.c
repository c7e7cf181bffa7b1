/* SPDX-License-Identifier: BSD-3-Clause */
/* Derived metrics (Gracioli & Froehlich): CPI, coherence events per 1000
 * instructions and per item, events per period; "n/a" instead of a wrong zero. */
#include <stdio.h>
#include <string.h>

#include "common/mcx_err.h"
#include "hpc/hpc_internal.h"

void mcx_hpc_sample_delta(const mcx_hpc_sample_t *a, const mcx_hpc_sample_t *b,
                          mcx_hpc_sample_t *out)
{
  mcx_hpc_sample_t d;
  memset(&d, 0, sizeof d);
  d.n = b->n < a->n ? b->n : a->n;
  d.t_ns = b->t_ns >= a->t_ns ? b->t_ns - a->t_ns : 0;
  for (unsigned i = 0; i < d.n; i++) {
    const mcx_hpc_value_t *x = &a->v[i], *y = &b->v[i];
    mcx_hpc_value_t *v = &d.v[i];
    v->valid = x->valid && y->valid && y->raw >= x->raw && y->running_ns > x->running_ns;
    if (!v->valid)
      continue;
    v->raw = y->raw - x->raw;
    v->enabled_ns = y->enabled_ns - x->enabled_ns;
    v->running_ns = y->running_ns - x->running_ns;
    /* Scaled over the interval: the difference of the scaled totals. */
    v->scaled = y->scaled - x->scaled;
    if (v->scaled < 0)
      v->scaled = (double)v->raw;
  }
  *out = d;
}

mcx_hpc_metric_t mcx_hpc_ratio(const mcx_hpc_value_t *num, const mcx_hpc_value_t *den, double scale)
{
  mcx_hpc_metric_t m = {0.0, 0};
  if (!num || !den || !num->valid || !den->valid || den->scaled <= 0.0)
    return m;
  m.value = num->scaled / den->scaled * scale;
  m.valid = 1;
  return m;
}

int mcx_hpc_derive(const mcx_hpc_group_t *g, const mcx_hpc_sample_t *d, uint64_t items,
                   uint64_t period_ns, mcx_hpc_derived_t *out)
{
  if (!g || !d || !out)
    return MCX_EINVAL;
  memset(out, 0, sizeof *out);
  if (!period_ns)
    period_ns = MCX_HPC_DEFAULT_PERIOD_NS;
  int ic = mcx_hpc_group_find(g, "cycles"), ii = mcx_hpc_group_find(g, "instructions");
  const mcx_hpc_value_t *cyc = ic >= 0 ? &d->v[ic] : NULL, *ins = ii >= 0 ? &d->v[ii] : NULL;
  out->cpi = mcx_hpc_ratio(cyc, ins, 1.0);

  mcx_hpc_value_t coh = {0};
  unsigned n = d->n < mcx_hpc_group_size(g) ? d->n : mcx_hpc_group_size(g);
  for (unsigned i = 0; i < n; i++) {
    const mcx_hpc_value_t *v = &d->v[i];
    if ((mcx__hpc_group_flags(g, i) & MCX_HPC_EV_COHERENCE_SUM) && v->valid) {
      coh.scaled += v->scaled;
      coh.raw += v->raw;
      coh.valid = 1;
    }
    if (v->valid && items) {
      out->per_item[i].value = v->scaled / (double)items;
      out->per_item[i].valid = 1;
    }
    if (v->valid && d->t_ns) {
      out->per_period[i].value = v->scaled * (double)period_ns / (double)d->t_ns;
      out->per_period[i].valid = 1;
    }
  }
  out->coherence_pki = mcx_hpc_ratio(&coh, ins, 1000.0);
  if (coh.valid && items) {
    out->coherence_per_item.value = coh.scaled / (double)items;
    out->coherence_per_item.valid = 1;
  }
  return MCX_OK;
}

char *mcx_hpc_format_metric(mcx_hpc_metric_t m, char *buf, size_t len)
{
  if (!buf || !len)
    return buf;
  if (!m.valid)
    snprintf(buf, len, "n/a");
  else
    snprintf(buf, len, "%.4g", m.value);
  return buf;
}

int mcx_hpc_format_per_item(const mcx_hpc_group_t *g, const mcx_hpc_sample_t *d, uint64_t items,
                            char *buf, size_t len)
{
  if (!g || !d || !buf || !len)
    return MCX_EINVAL;
  size_t off = 0;
  buf[0] = '\0';
  unsigned n = mcx_hpc_group_size(g);
  for (unsigned i = 0; i < n; i++) {
    const char *name = mcx_hpc_group_name(g, i);
    mcx_hpc_status_t st = mcx_hpc_group_status(g, i);
    char num[32];
    int w;
    if (st != MCX_HPC_OK)
      w = snprintf(buf + off, len - off, "%s%s=n/a(%s)", i ? " " : "", name, mcx_hpc_status_name(st));
    else if (i >= d->n || !d->v[i].valid || !items)
      w = snprintf(buf + off, len - off, "%s%s=n/a", i ? " " : "", name);
    else {
      mcx_hpc_metric_t m = {d->v[i].scaled / (double)items, 1};
      w = snprintf(buf + off, len - off, "%s%s=%s%s", i ? " " : "", name,
                   mcx_hpc_format_metric(m, num, sizeof num),
                   (mcx__hpc_group_flags(g, i) & MCX_HPC_EV_TIME_NS) ? " ns/item" : "/item");
    }
    if (w < 0)
      return MCX_EINVAL;
    off += (size_t)w;
    if (off >= len) {
      off = len - 1; /* truncated: keep what fits */
      break;
    }
  }
  return (int)off;
}
