/* SPDX-License-Identifier: BSD-3-Clause */
/* Counter groups over perf_event_open (or the mock backend). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/mcx_err.h"
#include "hpc/hpc_internal.h"
#include "ports/mcx_port.h"
#include "ports/mcx_port_hpc.h"

typedef struct hpc_slot {
  char name[MCX_HPC_NAME_MAX];
  mcx_hpc_event_t ev; /* ev.name points at name[] */
  mcx_hpc_status_t status;
  int fd;       /* -1 unless OK on the perf backend */
  int leader;   /* index into g->leaders */
  unsigned pos; /* position in the leader's group read */
  int user_only;
  void *page; /* user page for rdpmc (self-monitoring hardware events) */
} hpc_slot_t;

typedef struct hpc_leader {
  int fd;
  unsigned members;
} hpc_leader_t;

struct mcx_hpc_group {
  int32_t tid, cpu;
  const mcx_hpc_mock_t *mock; /* non-NULL: mock backend */
  size_t mock_step;
  int enabled;
  unsigned n;
  hpc_slot_t slot[MCX_HPC_MAX_EVENTS];
  unsigned nleaders;
  hpc_leader_t leaders[MCX_HPC_MAX_EVENTS];
  unsigned nskipped;
  struct {
    char name[MCX_HPC_NAME_MAX];
    mcx_hpc_status_t status;
  } skipped[MCX_HPC_MAX_EVENTS];
};

static mcx_hpc_group_t *group_new(int32_t tid, int32_t cpu)
{
  mcx_hpc_group_t *g = calloc(1, sizeof *g);
  if (!g)
    return NULL;
  g->tid = tid;
  g->cpu = cpu;
  for (unsigned i = 0; i < MCX_HPC_MAX_EVENTS; i++)
    g->slot[i].fd = -1;
  return g;
}

int mcx_hpc_group_create(mcx_hpc_group_t **out, int32_t tid, int32_t cpu)
{
  if (!out || tid < -1 || cpu < -1 || (tid == -1 && cpu < 0))
    return MCX_EINVAL;
  mcx_hpc_group_t *g = group_new(tid, cpu);
  if (!g)
    return MCX_ENOMEM;
  *out = g;
  return MCX_OK;
}

int mcx_hpc_group_create_mock(mcx_hpc_group_t **out, const mcx_hpc_mock_t *script)
{
  if (!out || !script || (script->nsteps && !script->steps))
    return MCX_EINVAL;
  mcx_hpc_group_t *g = group_new(0, -1);
  if (!g)
    return MCX_ENOMEM;
  g->mock = script;
  *out = g;
  return MCX_OK;
}

static int in_list(const char *const *list, const char *name)
{
  for (; list && *list; list++)
    if (mcx__hpc_name_eq(*list, name))
      return 1;
  return 0;
}

/* Opens one event for the group: joins the first leader when the kernel
 * accepts it, else becomes a leader of its own (mixing PMUs, or a group too
 * big to fit the counters at once, is refused by the kernel at open). */
static int open_perf(mcx_hpc_group_t *g, hpc_slot_t *s)
{
  mcx_port_perf_attr_t a = {.type = s->ev.type, .config = s->ev.config, .exclude_kernel = 0};
  if (s->ev.cls == MCX_HPC_CLASS_RAW)
    a.config1 = mcx__hpc_raw_config1(s->name);
  int rc = MCX_ENOSYS, fd = -1;
  for (int user_only = 0; user_only < 2; user_only++) {
    a.exclude_kernel = user_only;
    if (g->nleaders) {
      a.disabled = 0;
      rc = mcx_port_perf_open(&a, g->tid, g->cpu, g->leaders[0].fd, &fd);
      if (rc == MCX_OK) {
        s->leader = 0;
        break;
      }
    }
    a.disabled = 1;
    rc = mcx_port_perf_open(&a, g->tid, g->cpu, -1, &fd);
    if (rc == MCX_OK) {
      s->leader = (int)g->nleaders;
      g->leaders[g->nleaders].fd = fd;
      g->leaders[g->nleaders].members = 0;
      g->nleaders++;
      break;
    }
    /* Only a permission refusal is worth a user-only retry (perf_event_paranoid
     * >= 2 without CAP_PERFMON forbids counting kernel mode). */
    if (rc != MCX_EPERM)
      break;
  }
  if (rc != MCX_OK)
    return rc;
  s->fd = fd;
  s->user_only = a.exclude_kernel;
  s->pos = g->leaders[s->leader].members++;
  if (g->tid == 0 && g->cpu == -1 && s->ev.type != MCX_HPC_TYPE_SOFTWARE)
    (void)mcx_port_perf_mmap(fd, &s->page); /* optional: read_fast falls back without it */
  return MCX_OK;
}

int mcx_hpc_group_add(mcx_hpc_group_t *g, const char *name, mcx_hpc_status_t *status)
{
  if (status)
    *status = MCX_HPC_INVALID;
  if (!g || !name)
    return MCX_EINVAL;
  if (g->enabled)
    return MCX_EBUSY;
  if (g->n >= MCX_HPC_MAX_EVENTS)
    return MCX_ENOMEM;
  hpc_slot_t *s = &g->slot[g->n];
  memset(s, 0, sizeof *s);
  s->fd = -1;
  int rc = mcx_hpc_event_parse(name, &s->ev, s->name, sizeof s->name, NULL, 0);
  if (rc != MCX_OK)
    return rc;
  if (s->ev.name != s->name) {
    snprintf(s->name, sizeof s->name, "%s", s->ev.name);
    s->ev.name = s->name;
  }
  if (g->mock) {
    s->status = in_list(g->mock->not_supported, s->name)   ? MCX_HPC_NOT_SUPPORTED
                : in_list(g->mock->no_permission, s->name) ? MCX_HPC_NO_PERMISSION
                                                            : MCX_HPC_OK;
  } else if (s->ev.cls == MCX_HPC_CLASS_COHERENCE && s->ev.uarch != mcx__hpc_cpu()->uarch) {
    /* Another family's code would count an unrelated event here. */
    s->status = MCX_HPC_NOT_SUPPORTED;
  } else {
    s->status = mcx__hpc_status_from_err(open_perf(g, s));
  }
  if (status)
    *status = s->status;
  return (int)g->n++;
}

mcx_hpc_status_t mcx_hpc_probe(const char *name, int32_t tid, int32_t cpu)
{
  mcx_hpc_group_t *g;
  mcx_hpc_status_t st = MCX_HPC_INVALID;
  if (mcx_hpc_group_create(&g, tid, cpu) != MCX_OK)
    return MCX_HPC_INVALID;
  (void)mcx_hpc_group_add(g, name, &st);
  mcx_hpc_group_close(g);
  return st;
}

/* Events of a default group, in print order. */
static const char *const default_events[] = {
    "cycles", "instructions", "cache-references", "cache-misses", "L1-dcache-load-misses",
    "LLC-load-misses", "branch-misses", "task-clock", "context-switches", "cpu-migrations",
    "page-faults",
};

int mcx_hpc_group_open_default(mcx_hpc_group_t **out, int32_t tid)
{
  mcx_hpc_group_t *g;
  int rc = mcx_hpc_group_create(&g, tid, -1);
  if (rc != MCX_OK)
    return rc;
  size_t ncoh;
  const mcx_hpc_event_t *coh = mcx_hpc_event_table(mcx__hpc_cpu()->uarch, &ncoh);
  if (mcx__hpc_cpu()->uarch == MCX_HPC_UARCH_UNKNOWN)
    ncoh = 0; /* the generic table is already in default_events */
  size_t total = sizeof default_events / sizeof default_events[0] + ncoh;
  for (size_t i = 0; i < total; i++) {
    const char *name = i < sizeof default_events / sizeof default_events[0]
                           ? default_events[i]
                           : coh[i - sizeof default_events / sizeof default_events[0]].name;
    mcx_hpc_status_t st;
    int idx = mcx_hpc_group_add(g, name, &st);
    if (idx < 0)
      continue;
    if (st != MCX_HPC_OK) {
      /* Not opened, so no descriptor: drop the slot, remember why. */
      memcpy(g->skipped[g->nskipped].name, g->slot[idx].name, MCX_HPC_NAME_MAX);
      g->skipped[g->nskipped++].status = st;
      g->n--;
    }
  }
  if (g->n == 0) {
    mcx_hpc_group_close(g);
    return MCX_ENOSYS;
  }
  *out = g;
  return MCX_OK;
}

void mcx_hpc_group_close(mcx_hpc_group_t *g)
{
  if (!g)
    return;
  for (unsigned i = 0; i < g->n; i++) {
    mcx_port_perf_munmap(g->slot[i].page);
    mcx_port_perf_close(g->slot[i].fd);
  }
  free(g);
}

static int ctl(mcx_hpc_group_t *g, enum mcx_port_perf_op op)
{
  if (!g)
    return MCX_EINVAL;
  if (!g->mock)
    for (unsigned i = 0; i < g->nleaders; i++)
      if (mcx_port_perf_ioctl(g->leaders[i].fd, op) != MCX_OK)
        return MCX_EIO;
  if (op == MCX_PORT_PERF_ENABLE)
    g->enabled = 1;
  else if (op == MCX_PORT_PERF_DISABLE)
    g->enabled = 0;
  return MCX_OK;
}

int mcx_hpc_group_enable(mcx_hpc_group_t *g) { return ctl(g, MCX_PORT_PERF_ENABLE); }
int mcx_hpc_group_disable(mcx_hpc_group_t *g) { return ctl(g, MCX_PORT_PERF_DISABLE); }
int mcx_hpc_group_reset(mcx_hpc_group_t *g) { return ctl(g, MCX_PORT_PERF_RESET); }

static void set_value(mcx_hpc_value_t *v, uint64_t raw, uint64_t en, uint64_t run)
{
  v->raw = raw;
  v->enabled_ns = en;
  v->running_ns = run;
  v->valid = run > 0;
  v->scaled = !run ? 0.0 : run >= en ? (double)raw : (double)raw * ((double)en / (double)run);
}

static int read_mock(mcx_hpc_group_t *g, mcx_hpc_sample_t *s)
{
  const mcx_hpc_mock_t *m = g->mock;
  if (!m->nsteps) {
    s->t_ns = 0;
    return MCX_OK;
  }
  size_t k = g->mock_step < m->nsteps ? g->mock_step++ : m->nsteps - 1;
  const mcx_hpc_mock_step_t *st = &m->steps[k];
  uint64_t en = st->enabled_ns, run = st->running_ns;
  if (!en && !run)
    en = run = st->t_ns ? st->t_ns : 1;
  s->t_ns = st->t_ns;
  for (unsigned i = 0; i < g->n; i++)
    if (g->slot[i].status == MCX_HPC_OK)
      set_value(&s->v[i], st->values[i], en, run);
  return MCX_OK;
}

int mcx_hpc_group_read(mcx_hpc_group_t *g, mcx_hpc_sample_t *s)
{
  if (!g || !s)
    return MCX_EINVAL;
  memset(s, 0, sizeof *s);
  s->n = g->n;
  if (g->mock)
    return read_mock(g, s);
  s->t_ns = mcx_port_now_ns();
  for (unsigned l = 0; l < g->nleaders; l++) {
    uint64_t w[3 + MCX_HPC_MAX_EVENTS];
    int rc = mcx_port_perf_read_group(g->leaders[l].fd, w, 3 + g->leaders[l].members);
    if (rc != MCX_OK)
      return rc;
    for (unsigned i = 0; i < g->n; i++) {
      hpc_slot_t *sl = &g->slot[i];
      if (sl->status == MCX_HPC_OK && sl->leader == (int)l && sl->pos < w[0])
        set_value(&s->v[i], w[3 + sl->pos], w[1], w[2]);
    }
  }
  return MCX_OK;
}

static int fast_possible(const mcx_hpc_group_t *g)
{
  if (g->mock || g->tid != 0 || g->cpu != -1 || g->n == 0)
    return 0;
  for (unsigned i = 0; i < g->n; i++) {
    const hpc_slot_t *s = &g->slot[i];
    if (s->status != MCX_HPC_OK)
      continue;
    if (!s->page || !mcx_port_perf_cap_rdpmc(s->page))
      return 0;
  }
  return 1;
}

int mcx_hpc_group_read_fast(mcx_hpc_group_t *g, mcx_hpc_sample_t *s)
{
  if (!g || !s)
    return MCX_EINVAL;
  if (!fast_possible(g))
    return mcx_hpc_group_read(g, s);
  s->n = g->n;
  s->t_ns = mcx_port_now_ns();
  for (unsigned i = 0; i < g->n; i++) {
    hpc_slot_t *sl = &g->slot[i];
    if (sl->status != MCX_HPC_OK) {
      memset(&s->v[i], 0, sizeof s->v[i]);
      continue;
    }
    uint64_t c, en, run;
    if (mcx_port_perf_read_user(sl->page, &c, &en, &run) != MCX_OK)
      return mcx_hpc_group_read(g, s); /* not on a counter right now */
    set_value(&s->v[i], c, en, run);
  }
  return MCX_OK;
}

const char *mcx_hpc_group_read_path(const mcx_hpc_group_t *g)
{
  return g && fast_possible(g) ? "rdpmc" : "read";
}

unsigned mcx_hpc_group_size(const mcx_hpc_group_t *g) { return g ? g->n : 0; }

const char *mcx_hpc_group_name(const mcx_hpc_group_t *g, unsigned i)
{
  return g && i < g->n ? g->slot[i].name : NULL;
}

mcx_hpc_status_t mcx_hpc_group_status(const mcx_hpc_group_t *g, unsigned i)
{
  return g && i < g->n ? g->slot[i].status : MCX_HPC_INVALID;
}

mcx_hpc_class_t mcx_hpc_group_class(const mcx_hpc_group_t *g, unsigned i)
{
  return g && i < g->n ? g->slot[i].ev.cls : MCX_HPC_CLASS_RAW;
}

int mcx_hpc_group_user_only(const mcx_hpc_group_t *g, unsigned i)
{
  return g && i < g->n ? g->slot[i].user_only : 0;
}

int mcx_hpc_group_find(const mcx_hpc_group_t *g, const char *name)
{
  if (!g || !name)
    return MCX_EINVAL;
  for (unsigned i = 0; i < g->n; i++)
    if (mcx__hpc_name_eq(g->slot[i].name, name))
      return (int)i;
  return MCX_ENOENT;
}

int mcx_hpc_group_skipped(const mcx_hpc_group_t *g, unsigned i, const char **name,
                          mcx_hpc_status_t *status)
{
  if (!g || i >= g->nskipped)
    return MCX_ENOENT;
  if (name)
    *name = g->skipped[i].name;
  if (status)
    *status = g->skipped[i].status;
  return MCX_OK;
}

unsigned mcx__hpc_group_flags(const mcx_hpc_group_t *g, unsigned i)
{
  return g && i < g->n ? g->slot[i].ev.flags : 0;
}

int32_t mcx__hpc_group_tid(const mcx_hpc_group_t *g) { return g->tid; }
