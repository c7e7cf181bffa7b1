/* SPDX-License-Identifier: BSD-3-Clause */
/* MESI model of per-core private caches (see mesi.h). */
#include <stdlib.h>
#include <string.h>

#include "common/mcx_err.h"
#include "hpc/mesi.h"

typedef struct mesi_cache {
  uint64_t *tag;   /* line number + 1; 0 = empty way */
  uint8_t *state;  /* mcx__mesi_state_t */
  uint64_t *stamp; /* LRU: last use */
  mcx__mesi_stats_t st;
} mesi_cache_t;

struct mcx__mesi {
  unsigned cores, ways, shift;
  size_t sets;
  uint64_t clock;
  mesi_cache_t c[MCX__MESI_MAX_CORES];
};

int mcx__mesi_create(mcx__mesi_t **out, const mcx__mesi_config_t *cfg)
{
  if (!out || !cfg || cfg->cores == 0 || cfg->cores > MCX__MESI_MAX_CORES || cfg->line_size < 4 ||
      (cfg->line_size & (cfg->line_size - 1)) || cfg->capacity < cfg->line_size)
    return MCX_EINVAL;
  size_t lines = cfg->capacity / cfg->line_size;
  unsigned ways = cfg->ways ? cfg->ways : (unsigned)lines;
  if (cfg->capacity % cfg->line_size || lines % ways)
    return MCX_EINVAL;
  mcx__mesi_t *m = calloc(1, sizeof *m);
  if (!m)
    return MCX_ENOMEM;
  m->cores = cfg->cores;
  m->ways = ways;
  m->sets = lines / ways;
  while ((1u << m->shift) < cfg->line_size)
    m->shift++;
  for (unsigned k = 0; k < m->cores; k++) {
    m->c[k].tag = calloc(lines, sizeof(uint64_t));
    m->c[k].state = calloc(lines, 1);
    m->c[k].stamp = calloc(lines, sizeof(uint64_t));
    if (!m->c[k].tag || !m->c[k].state || !m->c[k].stamp) {
      mcx__mesi_destroy(m);
      return MCX_ENOMEM;
    }
  }
  *out = m;
  return MCX_OK;
}

void mcx__mesi_destroy(mcx__mesi_t *m)
{
  if (!m)
    return;
  for (unsigned k = 0; k < m->cores; k++) {
    free(m->c[k].tag);
    free(m->c[k].state);
    free(m->c[k].stamp);
  }
  free(m);
}

/* Way holding `line` in core k's cache, or -1. */
static long find(const mcx__mesi_t *m, unsigned k, uint64_t line)
{
  size_t base = (size_t)(line % m->sets) * m->ways;
  const uint64_t *tag = m->c[k].tag + base;
  for (unsigned w = 0; w < m->ways; w++)
    if (tag[w] == line + 1 && m->c[k].state[base + w] != MCX__MESI_I)
      return (long)(base + w);
  return -1;
}

/* Installs `line` in core k in state s, evicting the LRU way of its set. */
static void install(mcx__mesi_t *m, unsigned k, uint64_t line, mcx__mesi_state_t s)
{
  mesi_cache_t *c = &m->c[k];
  size_t base = (size_t)(line % m->sets) * m->ways, victim = base;
  for (unsigned w = 0; w < m->ways; w++) {
    size_t i = base + w;
    if (c->state[i] == MCX__MESI_I) {
      victim = i;
      break;
    }
    if (c->stamp[i] < c->stamp[victim])
      victim = i;
  }
  if (c->state[victim] != MCX__MESI_I) {
    c->st.evictions++;
    if (c->state[victim] == MCX__MESI_M)
      c->st.writebacks++;
  }
  c->tag[victim] = line + 1;
  c->state[victim] = (uint8_t)s;
  c->stamp[victim] = ++m->clock;
}

/* Snoops every other cache for `line`. A read leaves copies Shared, a write
 * (read-for-ownership or upgrade) invalidates them. Returns the combined
 * response: 2 HITM, 1 HIT, 0 CLEAN. */
static int snoop(mcx__mesi_t *m, unsigned k, uint64_t line, int write)
{
  int resp = 0;
  for (unsigned o = 0; o < m->cores; o++) {
    if (o == k)
      continue;
    long i = find(m, o, line);
    if (i < 0)
      continue;
    mesi_cache_t *c = &m->c[o];
    if (c->state[i] == MCX__MESI_M)
      resp = 2;
    else if (resp == 0)
      resp = 1;
    if (write) {
      c->state[i] = MCX__MESI_I;
      c->st.invalidated++;
      m->c[k].st.invalidations_sent++;
    } else {
      c->state[i] = MCX__MESI_S; /* M supplies the data and writes it back */
    }
  }
  mcx__mesi_stats_t *st = &m->c[k].st;
  if (resp == 2)
    st->snoop_hitm++;
  else if (resp == 1)
    st->snoop_hit++;
  else
    st->snoop_clean++;
  return resp;
}

void mcx__mesi_access(mcx__mesi_t *m, unsigned k, uint64_t addr, int write)
{
  uint64_t line = addr >> m->shift;
  mesi_cache_t *c = &m->c[k];
  long i = find(m, k, line);
  if (write)
    c->st.writes++;
  else
    c->st.reads++;
  if (i >= 0) {
    c->st.hits++;
    c->stamp[i] = ++m->clock;
    if (write) {
      if (c->state[i] == MCX__MESI_S) {
        c->st.upgrades++;
        snoop(m, k, line, 1);
      }
      c->state[i] = MCX__MESI_M; /* E -> M is silent */
    }
    return;
  }
  c->st.misses++;
  int resp = snoop(m, k, line, write);
  install(m, k, line, write ? MCX__MESI_M : resp ? MCX__MESI_S : MCX__MESI_E);
}

mcx__mesi_state_t mcx__mesi_state(const mcx__mesi_t *m, unsigned k, uint64_t addr)
{
  long i = find(m, k, addr >> m->shift);
  return i < 0 ? MCX__MESI_I : (mcx__mesi_state_t)m->c[k].state[i];
}

void mcx__mesi_stats(const mcx__mesi_t *m, unsigned k, mcx__mesi_stats_t *out)
{
  *out = m->c[k].st;
}

void mcx__mesi_total(const mcx__mesi_t *m, mcx__mesi_stats_t *out)
{
  memset(out, 0, sizeof *out);
  for (unsigned k = 0; k < m->cores; k++) {
    const mcx__mesi_stats_t *s = &m->c[k].st;
    out->reads += s->reads;
    out->writes += s->writes;
    out->hits += s->hits;
    out->misses += s->misses;
    out->snoop_hit += s->snoop_hit;
    out->snoop_hitm += s->snoop_hitm;
    out->snoop_clean += s->snoop_clean;
    out->upgrades += s->upgrades;
    out->invalidations_sent += s->invalidations_sent;
    out->invalidated += s->invalidated;
    out->evictions += s->evictions;
    out->writebacks += s->writebacks;
  }
}

void mcx__mesi_reset_stats(mcx__mesi_t *m)
{
  for (unsigned k = 0; k < m->cores; k++)
    memset(&m->c[k].st, 0, sizeof m->c[k].st);
}

void mcx__mesi_flush(mcx__mesi_t *m)
{
  size_t lines = m->sets * m->ways;
  for (unsigned k = 0; k < m->cores; k++) {
    memset(m->c[k].tag, 0, lines * sizeof(uint64_t));
    memset(m->c[k].state, 0, lines);
    memset(m->c[k].stamp, 0, lines * sizeof(uint64_t));
  }
  mcx__mesi_reset_stats(m);
}
