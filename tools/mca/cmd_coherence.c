/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mca coherence: the cache-coherence benchmark of Gracioli & Froehlich.
 *
 * Two functions update two 2-D int arrays: f1 does A[i][j] += B[i][j] + 1,
 * f2 does B[i][j] += A[i][j] + 1. Three versions:
 *   sequential  one thread (cpu0) runs f1 and f2 in turn, pass after pass
 *   shared      two threads on two cores, f1 and f2 over the SAME arrays at
 *               the same positions: every line ping-pongs between the caches
 *   private     two threads on two cores, each with its own pair of arrays
 *               (the best case: no sharing at all)
 * For every data size (both arrays together) and repetition it measures the
 * time and every counter that opens, and prints medians with min-max and
 * the counters per 10 ms period. --simulate replays the same accesses
 * through the MESI model (src/hpc/mesi.c) and counts snoop responses, so the
 * paper's comparison is reproducible on machines without a PMU.
 *
 * The arrays are accessed with relaxed atomic loads and stores: on x86 these
 * are plain movs (the same cache traffic as plain ints), but the racing
 * versions stay defined behaviour and the compiler cannot vectorize or merge
 * the accesses away.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "common/mcx_atomic.h"
#include "hpc/mesi.h"
#include "bench.h"
#include "cli.h"
#include "mca_tool.h"
#include "mcx_hpc.h"

#define COLS 256 /* ints per row: 1 KiB rows */
#define MAX_SIZES 32
#define MAX_REPS 100
#define MAX_CTR MCX_HPC_MAX_EVENTS

enum version { V_SEQ, V_SHARED, V_PRIVATE, V_COUNT };
static const char *const vname[V_COUNT] = {"sequential", "shared", "private"};

typedef struct opts {
  size_t sizes[MAX_SIZES];
  unsigned nsizes;
  unsigned reps;
  size_t work_bytes; /* bytes of array swept per function per run */
  int simulate, no_run, quick, list, cost;
  unsigned line, ways, quantum, sim_passes;
  size_t cache;
  int cpu[2];
  const char *json;
} opts_t;

/* ------------------------------------------------------------------ kernels */

typedef struct arrays {
  mcx_atomic_u32 *a, *b;
  size_t rows;
} arrays_t;

static void f1(const arrays_t *x)
{
  for (size_t i = 0; i < x->rows; i++)
    for (size_t j = 0; j < COLS; j++) {
      size_t k = i * COLS + j;
      /* relaxed: a benchmark of cache traffic, no ordering is published */
      uint32_t v = mcx_load_relaxed(&x->a[k]) + mcx_load_relaxed(&x->b[k]) + 1u;
      mcx_store_relaxed(&x->a[k], v);
    }
}

static void f2(const arrays_t *x)
{
  for (size_t i = 0; i < x->rows; i++)
    for (size_t j = 0; j < COLS; j++) {
      size_t k = i * COLS + j;
      uint32_t v = mcx_load_relaxed(&x->b[k]) + mcx_load_relaxed(&x->a[k]) + 1u;
      mcx_store_relaxed(&x->b[k], v);
    }
}

static int arrays_alloc(arrays_t *x, size_t size)
{
  x->rows = size / 2 / (COLS * sizeof(uint32_t));
  if (x->rows == 0)
    x->rows = 1;
  size_t bytes = x->rows * COLS * sizeof(uint32_t);
  x->a = aligned_alloc(64, bytes);
  x->b = aligned_alloc(64, bytes);
  if (!x->a || !x->b)
    return -1;
  for (size_t k = 0; k < x->rows * COLS; k++) {
    mcx_store_relaxed(&x->a[k], (uint32_t)k);
    mcx_store_relaxed(&x->b[k], (uint32_t)(k * 7));
  }
  return 0;
}

static void arrays_free(arrays_t *x)
{
  free(x->a);
  free(x->b);
}

/* ------------------------------------------------------------------ one run */

typedef struct counters {
  unsigned n;
  char name[MAX_CTR][MCX_HPC_NAME_MAX];
  double value[MAX_CTR];
  int valid[MAX_CTR];
} counters_t;

typedef struct worker {
  pthread_t th;
  pthread_barrier_t *start;
  int cpu;
  int pin_rc;
  void (*fn[2])(const arrays_t *); /* fn[1] NULL unless sequential */
  const arrays_t *x;
  unsigned passes;
  uint64_t t_start, t_end; /* the worker's own clock: main may not run while both cores work */
  counters_t ctr;
} worker_t;

/* The CPUs online (what --cpus numbers may name). */
static int online_cpus(void)
{
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

static void *worker_main(void *p)
{
  worker_t *w = p;
  w->pin_rc = bench_pin(w->cpu);
  mcx_hpc_group_t *g = NULL;
  if (mcx_hpc_group_open_default(&g, 0) != 0)
    g = NULL;
  mcx_hpc_sample_t s0, s1, d;
  pthread_barrier_wait(w->start);
  if (g) {
    mcx_hpc_group_enable(g);
    mcx_hpc_group_read(g, &s0);
  }
  w->t_start = bench_now_ns();
  for (unsigned p2 = 0; p2 < w->passes; p2++) {
    w->fn[0](w->x);
    if (w->fn[1])
      w->fn[1](w->x);
  }
  w->t_end = bench_now_ns();
  w->ctr.n = 0;
  if (g) {
    mcx_hpc_group_read(g, &s1);
    mcx_hpc_sample_delta(&s0, &s1, &d);
    for (unsigned i = 0; i < mcx_hpc_group_size(g) && i < MAX_CTR; i++) {
      snprintf(w->ctr.name[i], MCX_HPC_NAME_MAX, "%s", mcx_hpc_group_name(g, i));
      w->ctr.value[i] = d.v[i].scaled;
      w->ctr.valid[i] = d.v[i].valid;
      w->ctr.n++;
    }
    mcx_hpc_group_close(g);
  }
  return NULL;
}

typedef struct run {
  uint64_t time_ns;
  uint64_t items; /* elements updated, all threads */
  unsigned nthreads;
  counters_t thr[2];
  counters_t sum;
} run_t;

static void sum_counters(run_t *r)
{
  memset(&r->sum, 0, sizeof r->sum);
  for (unsigned t = 0; t < r->nthreads; t++)
    for (unsigned i = 0; i < r->thr[t].n; i++) {
      unsigned k;
      for (k = 0; k < r->sum.n; k++)
        if (!strcmp(r->sum.name[k], r->thr[t].name[i]))
          break;
      if (k == r->sum.n) {
        if (r->sum.n == MAX_CTR)
          continue;
        memcpy(r->sum.name[k], r->thr[t].name[i], MCX_HPC_NAME_MAX);
        r->sum.valid[k] = 1;
        r->sum.n++;
      }
      r->sum.value[k] += r->thr[t].value[i];
      r->sum.valid[k] &= r->thr[t].valid[i];
    }
}

static int run_once(const opts_t *o, enum version v, arrays_t *shared, arrays_t *priv,
                    unsigned passes, run_t *r)
{
  worker_t w[2];
  memset(w, 0, sizeof w);
  memset(r, 0, sizeof *r);
  unsigned n = v == V_SEQ ? 1 : 2;
  pthread_barrier_t start;
  pthread_barrier_init(&start, NULL, n + 1);
  for (unsigned t = 0; t < n; t++) {
    w[t].start = &start;
    w[t].cpu = o->cpu[t];
    w[t].passes = passes;
    w[t].x = v == V_PRIVATE && t == 1 ? priv : shared;
    w[t].fn[0] = t == 0 ? f1 : f2;
    w[t].fn[1] = v == V_SEQ ? f2 : NULL;
    if (pthread_create(&w[t].th, NULL, worker_main, &w[t]) != 0) {
      fprintf(stderr, "mca coherence: cannot start a thread\n");
      exit(1);
    }
  }
  pthread_barrier_wait(&start);
  for (unsigned t = 0; t < n; t++)
    pthread_join(w[t].th, NULL);
  /* From the first worker's start to the last one's end. */
  uint64_t t0 = w[0].t_start, t1 = w[0].t_end;
  for (unsigned t = 1; t < n; t++) {
    t0 = w[t].t_start < t0 ? w[t].t_start : t0;
    t1 = w[t].t_end > t1 ? w[t].t_end : t1;
  }
  r->time_ns = t1 - t0;
  pthread_barrier_destroy(&start);
  r->nthreads = n;
  r->items = (uint64_t)passes * shared->rows * COLS * 2; /* two functions' elements */
  for (unsigned t = 0; t < n; t++) {
    r->thr[t] = w[t].ctr;
    if (w[t].pin_rc != 0)
      return -1;
  }
  sum_counters(r);
  return 0;
}

/* ------------------------------------------------------------------ simulation */

typedef struct sim_result {
  mcx__mesi_stats_t core[2];
  mcx__mesi_stats_t total;
  uint64_t items;
} sim_result_t;

/* One function's walk over its arrays, resumable a quantum at a time. */
typedef struct stream {
  uint64_t a, b; /* base addresses of the arrays it reads (a) and writes (a) ... */
  int writes_b;  /* f2 writes B, f1 writes A */
  size_t pos, n; /* element position and elements per pass */
  unsigned pass, passes;
} stream_t;

static int stream_step(stream_t *s, mcx__mesi_t *m, unsigned core, unsigned quantum)
{
  for (unsigned q = 0; q < quantum; q++) {
    if (s->pass == s->passes)
      return 0;
    uint64_t off = (uint64_t)s->pos * sizeof(uint32_t);
    uint64_t mine = s->writes_b ? s->b : s->a, other = s->writes_b ? s->a : s->b;
    mcx__mesi_access(m, core, mine + off, 0);
    mcx__mesi_access(m, core, other + off, 0);
    mcx__mesi_access(m, core, mine + off, 1);
    if (++s->pos == s->n) {
      s->pos = 0;
      s->pass++;
    }
  }
  return s->pass < s->passes;
}

static int simulate(const opts_t *o, enum version v, size_t size, sim_result_t *res)
{
  mcx__mesi_config_t cfg = {.cores = 2, .line_size = o->line, .capacity = o->cache, .ways = o->ways};
  mcx__mesi_t *m;
  if (mcx__mesi_create(&m, &cfg) != 0)
    return -1;
  size_t rows = size / 2 / (COLS * sizeof(uint32_t));
  size_t n = (rows ? rows : 1) * COLS;
  const uint64_t A = 0x10000000, B = 0x20000000, A1 = 0x30000000, B1 = 0x40000000;
  memset(res, 0, sizeof *res);
  if (v == V_SEQ) {
    /* One core, the two functions in turn, pass after pass. */
    stream_t s1 = {A, B, 0, 0, n, 0, 1}, s2 = {A, B, 1, 0, n, 0, 1};
    for (unsigned p = 0; p < o->sim_passes; p++) {
      s1.pass = s2.pass = 0;
      while (stream_step(&s1, m, 0, 4096)) {
      }
      while (stream_step(&s2, m, 0, 4096)) {
      }
    }
  } else {
    stream_t s1 = {A, B, 0, 0, n, 0, o->sim_passes};
    stream_t s2 = {v == V_SHARED ? A : A1, v == V_SHARED ? B : B1, 1, 0, n, 0, o->sim_passes};
    /* The two cores interleaved in quanta of `quantum` elements. */
    int more1 = 1, more2 = 1;
    while (more1 || more2) {
      if (more1)
        more1 = stream_step(&s1, m, 0, o->quantum);
      if (more2)
        more2 = stream_step(&s2, m, 1, o->quantum);
    }
  }
  mcx__mesi_stats(m, 0, &res->core[0]);
  mcx__mesi_stats(m, 1, &res->core[1]);
  mcx__mesi_total(m, &res->total);
  res->items = (uint64_t)n * 2 * o->sim_passes;
  mcx__mesi_destroy(m);
  return 0;
}

/* ------------------------------------------------------------------ output helpers */

static int cmp_u64(const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static int cmp_dbl(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static void fmt_size(size_t s, char *buf, size_t len)
{
  if (s >= 1024 * 1024 && s % (1024 * 1024) == 0)
    snprintf(buf, len, "%zuM", s >> 20);
  else if (s >= 1024 && s % 1024 == 0)
    snprintf(buf, len, "%zuK", s >> 10);
  else
    snprintf(buf, len, "%zu", s);
}

static int parse_size(const char *s, size_t *out)
{
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || end == s || v <= 0)
    return -1;
  if (*end == 'k' || *end == 'K')
    v *= 1024, end++;
  else if (*end == 'm' || *end == 'M')
    v *= 1024 * 1024, end++;
  else if (*end == 'g' || *end == 'G')
    v *= 1024.0 * 1024 * 1024, end++;
  if (*end == 'B' || *end == 'b')
    end++;
  if (*end || v < 2 * COLS * sizeof(uint32_t) || v > 4.0 * 1024 * 1024 * 1024)
    return -1;
  *out = (size_t)v;
  return 0;
}

static void json_str(FILE *f, const char *s)
{
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"' || *s == '\\')
      fputc('\\', f);
    if ((unsigned char)*s >= 0x20)
      fputc(*s, f);
  }
  fputc('"', f);
}

static void json_counters(FILE *f, const counters_t *c)
{
  fputc('{', f);
  for (unsigned i = 0; i < c->n; i++) {
    fprintf(f, "%s", i ? ", " : "");
    json_str(f, c->name[i]);
    if (c->valid[i])
      fprintf(f, ": %.0f", c->value[i]);
    else
      fprintf(f, ": null");
  }
  fputc('}', f);
}

static int usage(FILE *out)
{
  fprintf(out,
          "usage: mca coherence [options]\n"
          "  Sequential vs parallel-shared vs parallel-private updates of two 2-D int arrays\n"
          "  (Gracioli & Froehlich): time and coherence counters per data size.\n"
          "  --sizes LIST     data sizes, both arrays together (default 32K,64K,128K,256K,512K,1M,\n"
          "                   2M,4M,6M,12M,18M; suffixes K M G)\n"
          "  --reps N         repetitions per cell (default 5, --quick 3)\n"
          "  --work BYTES     array bytes each function sweeps per run (default 256M, --quick 64M)\n"
          "  --quick          every version at 32K,512K,4M, fewer repetitions (< 1 minute)\n"
          "  --simulate       also replay the accesses through the MESI model and print\n"
          "                   snoop responses HIT/HITM/CLEAN and invalidations\n"
          "  --no-run         with --simulate: the model only, no timed runs\n"
          "  --line B --cache B --ways N --quantum N --sim-passes N\n"
          "                   model: line size (64), private cache per core (32K), ways (8),\n"
          "                   elements per interleaving quantum (16), passes (2)\n"
          "  --cpus LIST      the two cores: the first two CPUs of LIST, e.g. 0,1 or 2-3 (default 0,1)\n"
          "  --json FILE      every sample as JSON (schema: docs/coherence.md, docs/json.md);\n"
          "                   '-': the JSON to stdout, the table to stderr\n"
          "  --list           the events of this CPU and what probing them says\n"
          "  --cost           cost of configuring and reading the counters\n"
          "Exit status: 0 done, 1 a run failed or the JSON could not be written, 2 usage error.\n");
  return out == stderr ? 2 : 0;
}

/* 0; 1: --help was asked for; -1 after a usage error (one line on stderr). */
static int parse_opts(int argc, char **argv, opts_t *o)
{
  static const size_t dflt[] = {32 << 10, 64 << 10, 128 << 10, 256 << 10, 512 << 10, 1 << 20,
                                2 << 20,  4 << 20,  6 << 20,   12 << 20,  18 << 20};
  static const size_t quick[] = {32 << 10, 512 << 10, 4 << 20};
  memset(o, 0, sizeof *o);
  o->line = 64;
  o->cache = 32 << 10;
  o->ways = 8;
  o->quantum = 16;
  o->sim_passes = 2;
  o->cpu[0] = 0;
  o->cpu[1] = 1;
  int sizes_given = 0, reps_given = 0, work_given = 0;
  static const mca_opt_t table[] = {
      {"--quick", MCA_OPT_FLAG, 'q'},   {"--simulate", MCA_OPT_FLAG, 'S'}, {"--no-run", MCA_OPT_FLAG, 'n'},
      {"--list", MCA_OPT_FLAG, 'l'},    {"--cost", MCA_OPT_FLAG, 'k'},     {"--sizes", MCA_OPT_VALUE, 's'},
      {"--reps", MCA_OPT_VALUE, 'r'},   {"--work", MCA_OPT_VALUE, 'w'},    {"--line", MCA_OPT_VALUE, 'L'},
      {"--cache", MCA_OPT_VALUE, 'c'},  {"--ways", MCA_OPT_VALUE, 'W'},    {"--quantum", MCA_OPT_VALUE, 'Q'},
      {"--sim-passes", MCA_OPT_VALUE, 'P'}, {"--cpus", MCA_OPT_VALUE, 'C'}, {"--json", MCA_OPT_VALUE, 'j'},
      {NULL, 0, 0}};
  mca_opts_t s;
  mca_opts_init(&s, "coherence", argc, argv);
  for (int k; (k = mca_opts_next(&s, table)) != MCA_OPTS_END;) {
    const char *val = s.value;
    long long x;
    switch (k) {
    case MCA_OPTS_HELP: return 1;
    case MCA_OPTS_OPERAND: mca_usage_error("coherence", "unexpected argument '%s'", val); return -1;
    case 'q': o->quick = 1; break;
    case 'S': o->simulate = 1; break;
    case 'n': o->no_run = 1; break;
    case 'l': o->list = 1; break;
    case 'k': o->cost = 1; break;
    case 's': {
      char *copy = strdup(val), *save = NULL;
      o->nsizes = 0;
      for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (o->nsizes == MAX_SIZES || parse_size(t, &o->sizes[o->nsizes]) != 0) {
          mca_usage_error("coherence", "--sizes: expected a size like 32K or 1.5M (at least 2K), got '%s'", t);
          free(copy);
          return -1;
        }
        o->nsizes++;
      }
      free(copy);
      sizes_given = o->nsizes > 0;
      break;
    }
    case 'r':
      if (mca_parse_int("coherence", "--reps", val, 1, MAX_REPS, &x))
        return -1;
      o->reps = (unsigned)x;
      reps_given = 1;
      break;
    case 'w':
      if (parse_size(val, &o->work_bytes) != 0) {
        mca_usage_error("coherence", "--work: expected a size like 64M, got '%s'", val);
        return -1;
      }
      work_given = 1;
      break;
    case 'c':
      if (parse_size(val, &o->cache) != 0) {
        mca_usage_error("coherence", "--cache: expected a size like 32K, got '%s'", val);
        return -1;
      }
      break;
    case 'L':
    case 'W':
    case 'Q':
    case 'P':
      if (mca_parse_int("coherence", s.name, val, k == 'W' ? 0 : 1, 1 << 20, &x))
        return -1;
      *(k == 'L' ? &o->line : k == 'W' ? &o->ways : k == 'Q' ? &o->quantum : &o->sim_passes) = (unsigned)x;
      break;
    case 'C':
      if (mca_parse_cpus("coherence", val))
        return -1;
      if (bench_ncpu < 2) {
        mca_usage_error("coherence", "--cpus: expected two CPUs (the first two of the list are used), got '%s'",
                        val);
        return -1;
      }
      o->cpu[0] = bench_cpus[0];
      o->cpu[1] = bench_cpus[1];
      break;
    case 'j': o->json = val; break;
    default: return -1;
    }
  }
  if (!sizes_given) {
    const size_t *src = o->quick ? quick : dflt;
    o->nsizes = o->quick ? sizeof quick / sizeof quick[0] : sizeof dflt / sizeof dflt[0];
    memcpy(o->sizes, src, o->nsizes * sizeof *src);
  }
  if (!reps_given)
    o->reps = o->quick ? 3 : 5;
  if (!work_given)
    o->work_bytes = o->quick ? (64u << 20) : (256u << 20);
  if (o->no_run && !o->simulate) {
    mca_usage_error("coherence", "--no-run only makes sense with --simulate");
    return -1;
  }
  return 0;
}

/* ------------------------------------------------------------------ subcommands */

static int do_list(void)
{
  const mcx_hpc_cpu_t *c;
  mcx_hpc_cpu_t cpu;
  mcx_hpc_cpu_detect(&cpu);
  c = &cpu;
  printf("cpu: %s family 0x%x model 0x%x -> %s%s\n\n", c->vendor, c->family, c->model,
         mcx_hpc_uarch_name(c->uarch), c->hypervisor ? " (virtual machine)" : "");
  for (int u = 0; u < MCX_HPC_UARCH_COUNT; u++) {
    size_t n;
    const mcx_hpc_event_t *t = mcx_hpc_event_table((mcx_hpc_uarch_t)u, &n);
    printf("%s events%s:\n", u ? mcx_hpc_uarch_name((mcx_hpc_uarch_t)u) : "generic and software",
           u && (mcx_hpc_uarch_t)u == c->uarch ? " (this CPU)" : "");
    for (size_t i = 0; i < n; i++)
      printf("  %-42s %-14s type %u config 0x%-6" PRIx64 " %s\n", t[i].name,
             mcx_hpc_status_name(mcx_hpc_probe(t[i].name, 0, -1)), t[i].type, t[i].config,
             t[i].description);
    printf("\n");
  }
  printf("raw codes: raw:0xCODE[:0xCONFIG1] or rCODE (perf's spelling)\n");
  return 0;
}

static int do_cost(void)
{
  mcx_hpc_cost_t c;
  int rc = mcx_hpc_measure_cost(20000, &c);
  if (rc != 0) {
    fprintf(stderr, "mca coherence: no counter opens here (%s)\n", mcx_hpc_strerror(rc));
    return 1;
  }
  printf("counter interface cost (medians, calling thread, %u events in the group):\n", c.events);
  printf("  configure (open + enable one event): %8.0f ns\n", c.open_ns);
  printf("  enable + disable the group:          %8.0f ns\n", c.enable_disable_ns);
  printf("  read the group with read(2):         %8.0f ns  %8.0f TSC ticks\n", c.read_ns, c.read_tsc);
  printf("  read_fast (%s):                   %8.0f ns  %8.0f TSC ticks\n", c.fast_path,
         c.read_fast_ns, c.read_fast_tsc);
  printf("  (the paper's mediator: 11 instructions to configure, 40 to read)\n");
  return 0;
}

static void print_header(const opts_t *o)
{
  struct utsname u;
  uname(&u);
  mcx_hpc_cpu_t cpu;
  mcx_hpc_cpu_detect(&cpu);
  printf("mca coherence: %s %s, %s, %d cpus, %s%s\n", u.sysname, u.release,
         cpu.brand[0] ? cpu.brand : cpu.vendor, online_cpus(), mcx_hpc_uarch_name(cpu.uarch),
         cpu.hypervisor ? " (virtual machine)" : "");
  printf("compiler: %s; threads pinned to cpu%d (f1) and cpu%d (f2); %u reps; %zu bytes swept per "
         "function per run\n",
#ifdef __VERSION__
         "gcc/clang " __VERSION__,
#else
         "unknown",
#endif
         o->cpu[0], o->cpu[1], o->reps, o->work_bytes);
}

int mca_cmd_coherence(int argc, char **argv)
{
  opts_t o;
  int prc = parse_opts(argc, argv, &o);
  if (prc)
    return prc > 0 ? usage(stdout) : MCA_EXIT_USAGE;
  if (o.list)
    return do_list();
  if (o.cost)
    return do_cost();
  int ncpu = online_cpus();
  if (!o.no_run && (o.cpu[0] >= ncpu || o.cpu[1] >= ncpu)) {
    fprintf(stderr, "mca coherence: --cpus %d,%d but this machine has %d cpus\n", o.cpu[0], o.cpu[1],
            ncpu);
    return 2;
  }
  FILE *jf = NULL;
  if (o.json && mca_check_output("coherence", "--json", o.json))
    return MCA_EXIT_USAGE;
  if (o.json && !strcmp(o.json, "-"))
    mca_json_to_stdout();
  if (o.json && !(jf = mca_output_open("coherence", o.json)))
    return 1;
  print_header(&o);

  /* What the counters say on this machine. */
  mcx_hpc_group_t *g;
  char counters_line[1024] = "";
  if (mcx_hpc_group_open_default(&g, 0) == 0) {
    size_t off = 0;
    for (unsigned i = 0; i < mcx_hpc_group_size(g); i++)
      off += (size_t)snprintf(counters_line + off, sizeof counters_line - off, "%s%s", i ? " " : "",
                              mcx_hpc_group_name(g, i));
    printf("counters: %s\n", counters_line);
    const char *name;
    mcx_hpc_status_t st;
    unsigned nskip = 0;
    for (unsigned i = 0; mcx_hpc_group_skipped(g, i, &name, &st) == 0; i++, nskip++)
      printf("%s%s=%s", i ? " " : "not counting: ", name, mcx_hpc_status_name(st));
    if (nskip)
      printf("\n");
    if (nskip && mcx_hpc_group_find(g, "cycles") < 0)
      printf("(no hardware PMU here: coherence events are n/a; --simulate counts them in a MESI model)\n");
    if (jf) {
      mca_json_envelope(jf, "mca-coherence/1");
      fprintf(jf, "  \"tool\": \"mca coherence\",\n  \"counters\": [");
      unsigned k = 0;
      for (unsigned i = 0; i < mcx_hpc_group_size(g); i++, k++) {
        fprintf(jf, "%s{\"name\": ", k ? ", " : "");
        json_str(jf, mcx_hpc_group_name(g, i));
        fprintf(jf, ", \"status\": \"OK\"}");
      }
      for (unsigned i = 0; mcx_hpc_group_skipped(g, i, &name, &st) == 0; i++, k++) {
        fprintf(jf, "%s{\"name\": ", k ? ", " : "");
        json_str(jf, name);
        fprintf(jf, ", \"status\": \"%s\"}", mcx_hpc_status_name(st));
      }
      fprintf(jf, "],\n");
    }
    mcx_hpc_group_close(g);
  } else {
    printf("counters: none open here\n");
    if (jf)
    {
      mca_json_envelope(jf, "mca-coherence/1");
      fprintf(jf, "  \"tool\": \"mca coherence\",\n  \"counters\": [],\n");
    }
  }
  if (jf) {
    fprintf(jf, "  \"config\": {\"reps\": %u, \"work_bytes\": %zu, \"cpus\": [%d, %d], \"cols\": %d, "
                "\"period_ns\": %u, \"sim\": {\"line\": %u, \"cache\": %zu, \"ways\": %u, "
                "\"quantum\": %u, \"passes\": %u}},\n  \"samples\": [",
            o.reps, o.work_bytes, o.cpu[0], o.cpu[1], COLS, MCX_HPC_DEFAULT_PERIOD_NS, o.line,
            o.cache, o.ways, o.quantum, o.sim_passes);
  }
  int jfirst = 1, failed = 0;

  if (!o.no_run) {
    printf("\n%-6s %-10s %10s %21s %8s  %s\n", "size", "version", "time ms", "[min - max]", "ns/item",
           "counters per 10 ms period (median)");
    for (unsigned si = 0; si < o.nsizes; si++) {
      size_t size = o.sizes[si];
      arrays_t shared, priv;
      if (arrays_alloc(&shared, size) || arrays_alloc(&priv, size)) {
        fprintf(stderr, "mca coherence: out of memory for %zu bytes\n", size);
        return 1;
      }
      size_t per_array = shared.rows * COLS * sizeof(uint32_t);
      unsigned passes = (unsigned)(o.work_bytes / per_array);
      if (passes == 0)
        passes = 1;
      for (int v = 0; v < V_COUNT; v++) {
        run_t runs[MAX_REPS];
        uint64_t times[MAX_REPS];
        /* a warm-up run: page faults and first-touch effects out of the samples */
        run_once(&o, (enum version)v, &shared, &priv, 1, &runs[0]);
        for (unsigned r = 0; r < o.reps; r++) {
          if (run_once(&o, (enum version)v, &shared, &priv, passes, &runs[r]) != 0)
            failed = 1;
          times[r] = runs[r].time_ns;
          if (jf) {
            fprintf(jf, "%s\n    {\"kind\": \"run\", \"version\": \"%s\", \"size_bytes\": %zu, "
                        "\"rep\": %u, \"passes\": %u, \"items\": %" PRIu64 ", \"time_ns\": %" PRIu64
                        ", \"threads\": [",
                    jfirst ? "" : ",", vname[v], size, r, passes, runs[r].items, runs[r].time_ns);
            jfirst = 0;
            for (unsigned t = 0; t < runs[r].nthreads; t++) {
              fprintf(jf, "%s{\"cpu\": %d, \"counters\": ", t ? ", " : "", o.cpu[t]);
              json_counters(jf, &runs[r].thr[t]);
              fputc('}', jf);
            }
            fprintf(jf, "]}");
          }
        }
        qsort(times, o.reps, sizeof times[0], cmp_u64);
        uint64_t med = times[o.reps / 2];
        char sz[32], ctr[768] = "";
        fmt_size(size, sz, sizeof sz);
        size_t off = 0;
        const counters_t *c0 = &runs[0].sum;
        for (unsigned i = 0; i < c0->n && off < sizeof ctr; i++) {
          double vals[MAX_REPS];
          unsigned nv = 0;
          for (unsigned r = 0; r < o.reps; r++)
            if (runs[r].sum.valid[i] && runs[r].time_ns)
              vals[nv++] = runs[r].sum.value[i] * (double)MCX_HPC_DEFAULT_PERIOD_NS / (double)runs[r].time_ns;
          if (nv) {
            qsort(vals, nv, sizeof vals[0], cmp_dbl);
            off += (size_t)snprintf(ctr + off, sizeof ctr - off, "%s%s=%.3g", i ? " " : "", c0->name[i],
                                    vals[nv / 2]);
          } else {
            off += (size_t)snprintf(ctr + off, sizeof ctr - off, "%s%s=n/a", i ? " " : "", c0->name[i]);
          }
        }
        if (off >= sizeof ctr)
          ctr[sizeof ctr - 1] = '\0';
        printf("%-6s %-10s %10.2f [%8.2f - %8.2f] %8.2f  %s\n", sz, vname[v], (double)med / 1e6,
               (double)times[0] / 1e6, (double)times[o.reps - 1] / 1e6,
               (double)med / (double)runs[0].items, ctr);
        fflush(stdout);
      }
      arrays_free(&shared);
      arrays_free(&priv);
    }
    if (failed)
      fprintf(stderr, "mca coherence: warning: pinning failed for some runs\n");
  }

  if (o.simulate) {
    printf("\nMESI model: 2 cores, %zu-byte %u-way private caches, %u-byte lines, threads interleaved "
           "every %u elements, %u passes\n",
           o.cache, o.ways, o.line, o.quantum, o.sim_passes);
    printf("%-6s %-10s %11s %10s %10s %10s %10s %10s %10s %9s %9s\n", "size", "version", "accesses",
           "misses", "HIT", "HITM", "CLEAN", "invalid.", "writebacks", "HITM/kacc", "coh/item");
    for (unsigned si = 0; si < o.nsizes; si++) {
      for (int v = 0; v < V_COUNT; v++) {
        sim_result_t res;
        if (simulate(&o, (enum version)v, o.sizes[si], &res) != 0) {
          fprintf(stderr, "mca coherence: bad model geometry (line %u, cache %zu, ways %u)\n", o.line,
                  o.cache, o.ways);
          return 2;
        }
        const mcx__mesi_stats_t *t = &res.total;
        uint64_t acc = t->reads + t->writes;
        char sz[32];
        fmt_size(o.sizes[si], sz, sizeof sz);
        printf("%-6s %-10s %11" PRIu64 " %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %10" PRIu64
               " %10" PRIu64 " %10" PRIu64 " %9.3f %9.4f\n",
               sz, vname[v], acc, t->misses, t->snoop_hit, t->snoop_hitm, t->snoop_clean,
               t->invalidations_sent, t->writebacks, acc ? 1000.0 * (double)t->snoop_hitm / (double)acc : 0.0,
               (double)(t->snoop_hit + t->snoop_hitm) / (double)res.items);
        if (jf) {
          fprintf(jf, "%s\n    {\"kind\": \"simulation\", \"version\": \"%s\", \"size_bytes\": %zu, "
                      "\"items\": %" PRIu64 ", \"cores\": [",
                  jfirst ? "" : ",", vname[v], o.sizes[si], res.items);
          jfirst = 0;
          for (int k = 0; k < 2; k++) {
            const mcx__mesi_stats_t *s = &res.core[k];
            fprintf(jf, "%s{\"reads\": %" PRIu64 ", \"writes\": %" PRIu64 ", \"hits\": %" PRIu64
                        ", \"misses\": %" PRIu64 ", \"snoop_hit\": %" PRIu64 ", \"snoop_hitm\": %" PRIu64
                        ", \"snoop_clean\": %" PRIu64 ", \"upgrades\": %" PRIu64
                        ", \"invalidations_sent\": %" PRIu64 ", \"invalidated\": %" PRIu64
                        ", \"evictions\": %" PRIu64 ", \"writebacks\": %" PRIu64 "}",
                    k ? ", " : "", s->reads, s->writes, s->hits, s->misses, s->snoop_hit, s->snoop_hitm,
                    s->snoop_clean, s->upgrades, s->invalidations_sent, s->invalidated, s->evictions,
                    s->writebacks);
          }
          fprintf(jf, "]}");
        }
      }
    }
  }
  if (jf) {
    fprintf(jf, "\n  ]\n}\n");
    if (mca_output_close(jf)) {
      fprintf(stderr, "mca coherence: writing %s failed\n", o.json);
      return 1;
    }
    if (strcmp(o.json, "-"))
      printf("\nwrote %s\n", o.json);
  }
  return 0;
}
