/* SPDX-License-Identifier: BSD-3-Clause */
/* mca sync: what synchronization costs on this OS - critical sections,
 * events, joins, mutex hand-offs, semaphores, spinlocks and atomics - for
 * pthreads, POSIX semaphores, SysV semaphores and libmca's MRAPI side by side
 * (the layout of Table 1 of Bogner et al.'s study, measured more carefully).
 *
 * Method (docs/sync.md): every thread pinned (one core, or two for the
 * cross-core variant), highest scheduling priority the process may use,
 * many repetitions, median / p99 / max in ns after subtracting the cost of
 * the measurement itself (one back-to-back timer read). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/resource.h>
#include <sys/sem.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include "common/mcx_atomic.h"
#include "bench.h"
#include "cli.h"
#include "mca_tool.h"
#include "mrapi.h"
#include "ports/mcx_port.h"

/* --cpus: one-core rows on cpu_a, two-core rows on cpu_a and cpu_b */
static int cpu_a = 0, cpu_b = 1;

/* Reads earlier runs for --compare (sync_compare.c). */
int mca_sync_compare_load(const char *path, void (*add)(void *ctx, const char *tech, const char *impl, int cores,
                                                         double median),
                          void *ctx);

/* ------------------------------------------------------------------ timer */

static int use_tsc;
static double ns_per_tick = 1.0;
static double timer_overhead_ticks; /* one back-to-back pair, subtracted from every sample */
static double timer_resolution_ns;

static inline uint64_t ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
  if (use_tsc) {
    _mm_lfence(); /* earlier instructions finish before the counter is read */
    uint64_t t = __rdtsc();
    _mm_lfence();
    return t;
  }
#endif
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cpu_has_flag(const char *flag)
{
  FILE *f = fopen("/proc/cpuinfo", "r");
  char line[4096];
  int found = 0;
  if (!f)
    return 0;
  while (!found && fgets(line, sizeof line, f)) {
    if (strncmp(line, "flags", 5))
      continue;
    for (char *tok = strtok(line, " \t\n"); tok; tok = strtok(NULL, " \t\n"))
      if (!strcmp(tok, flag))
        found = 1;
    break;
  }
  fclose(f);
  return found;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static void timer_setup(int quick)
{
#if defined(__x86_64__) || defined(__i386__)
  /* The TSC is a usable clock only if it ticks at a constant rate in every
   * P- and C-state (and is then synchronized across cores by the host). */
  use_tsc = cpu_has_flag("constant_tsc") && cpu_has_flag("nonstop_tsc");
  if (use_tsc) {
    uint64_t n0 = mcx_port_now_ns(), t0 = __rdtsc();
    mcx_port_sleep_ns(quick ? 20000000u : 100000000u);
    uint64_t n1 = mcx_port_now_ns(), t1 = __rdtsc();
    ns_per_tick = (double)(n1 - n0) / (double)(t1 - t0);
  }
#endif
  enum { N = 2001 };
  static double d[N];
  double minpos = 1e30;
  for (int i = 0; i < N; i++) {
    uint64_t a = ticks(), b = ticks();
    d[i] = (double)(b - a);
    if (b > a && d[i] < minpos)
      minpos = d[i];
  }
  qsort(d, N, sizeof d[0], cmp_double);
  timer_overhead_ticks = d[N / 2];
  timer_resolution_ns = use_tsc ? ns_per_tick : minpos * ns_per_tick;
}

/* ------------------------------------------------------------------ rows */

#define MAX_RUNS 8
typedef struct row {
  char tech[48];
  char impl[40];
  int cores;
  int n;
  double med, p99, max;
  const char *note; /* why not measured */
  double cmp[MAX_RUNS]; /* medians of --compare runs, <0: absent */
} row_t;

static row_t rows[128];
static int nrows;
static int ncmp;
static const char *cmp_names[MAX_RUNS];

static row_t *row_find(const char *tech, const char *impl, int cores, int create)
{
  for (int i = 0; i < nrows; i++)
    if (!strcmp(rows[i].tech, tech) && !strcmp(rows[i].impl, impl) && rows[i].cores == cores)
      return &rows[i];
  if (!create || nrows == (int)(sizeof rows / sizeof rows[0]))
    return NULL;
  row_t *r = &rows[nrows++];
  memset(r, 0, sizeof *r);
  snprintf(r->tech, sizeof r->tech, "%s", tech);
  snprintf(r->impl, sizeof r->impl, "%s", impl);
  r->cores = cores;
  for (int k = 0; k < MAX_RUNS; k++)
    r->cmp[k] = -1;
  return r;
}

/* Samples in ticks (overhead not yet subtracted), per operation after / div. */
static void record(const char *tech, const char *impl, int cores, double *s, int n, double div)
{
  row_t *r = row_find(tech, impl, cores, 1);
  if (!r)
    return;
  for (int i = 0; i < n; i++) {
    double v = (s[i] - timer_overhead_ticks) / div * ns_per_tick;
    s[i] = v < 0 ? 0 : v;
  }
  qsort(s, (size_t)n, sizeof s[0], cmp_double);
  r->n = n;
  r->med = s[n / 2];
  r->p99 = s[(size_t)((double)(n - 1) * 0.99)];
  r->max = s[n - 1];
}

static void skip(const char *tech, const char *impl, int cores, const char *why)
{
  row_t *r = row_find(tech, impl, cores, 1);
  if (r)
    r->note = why;
}

/* ------------------------------------------------------------------ the primitives */

typedef struct ev_cv { /* POSIX manual-reset event: mutex + condition variable */
  pthread_mutex_t m;
  pthread_cond_t c;
  int set;
} ev_cv_t;

static void ev_cv_set(ev_cv_t *e)
{
  pthread_mutex_lock(&e->m);
  e->set = 1;
  pthread_cond_broadcast(&e->c);
  pthread_mutex_unlock(&e->m);
}
static void ev_cv_wait(ev_cv_t *e)
{
  pthread_mutex_lock(&e->m);
  while (!e->set)
    pthread_cond_wait(&e->c, &e->m);
  pthread_mutex_unlock(&e->m);
}
static void ev_cv_reset(ev_cv_t *e)
{
  pthread_mutex_lock(&e->m);
  e->set = 0;
  pthread_mutex_unlock(&e->m);
}

typedef struct ev_fx { /* futex manual-reset event: a word, sleepers announced */
  mcx_atomic_u32 state;
  mcx_atomic_u32 nwait;
} ev_fx_t;

static void ev_fx_set(ev_fx_t *e)
{
  /* seq_cst: the store and the nwait load must not pass each other (Dekker
   * with ev_fx_wait); also the release that pairs with its acquire load. */
  mcx_exchange_seq_cst(&e->state, 1u);
  if (mcx_load_seq_cst(&e->nwait))
    mcx_port_futex_wake(&e->state, 0x7fffffff, 0);
}
static void ev_fx_wait(ev_fx_t *e)
{
  mcx_fetch_add_seq_cst(&e->nwait, 1u);
  while (mcx_load_seq_cst(&e->state) == 0) /* acquire side of ev_fx_set's exchange */
    mcx_port_futex_wait(&e->state, 0u, MCX_NO_DEADLINE, 0);
  mcx_fetch_sub_relaxed(&e->nwait, 1u);
}
static void ev_fx_reset(ev_fx_t *e) { mcx_store_relaxed(&e->state, 0u); /* only the waiter resets */ }

static int sysv_op(int id, int delta)
{
  struct sembuf b = {0, (short)delta, 0};
  while (semop(id, &b, 1) != 0)
    if (errno != EINTR)
      return -1;
  return 0;
}

/* Everything the measurements use, made once. */
static struct {
  pthread_mutex_t pm;
  pthread_spinlock_t spin;
  sem_t psem;
  int sysv;
  mrapi_mutex_hndl_t mm;
  mrapi_sem_hndl_t ms;
  ev_cv_t ecv;
  ev_fx_t efx;
  mcx_atomic_u32 a32;
  uint32_t mr32;
  uint32_t mrlock;
} P;

/* ------------------------------------------------------------------ single-thread rows */

#define BATCH 16
typedef void (*op_fn)(void);

/* Remote memory next to memcpy: the same bytes moved by memcpy, by a
 * blocking remote-memory read / write (the calling thread copies), and by a
 * request to the software DMA engine completed with mrapi_wait. */
static char rm_remote[4096], rm_local[4096];
static mrapi_rmem_hndl_t rm_dummy, rm_dma;
static size_t rm_len = 64;
static mcx_atomic_u32 rm_sink; /* keeps memcpy from being optimized away */

static void op_memcpy(void)
{
  memcpy(rm_local, rm_remote, rm_len);
  mcx_store_relaxed(&rm_sink, (uint32_t)rm_local[rm_len - 1]);
}
static void op_rm_read(void)
{
  mrapi_status_t st;
  mrapi_rmem_read(rm_dummy, 0, rm_local, 0, (mrapi_uint32_t)rm_len, 1, (mrapi_uint32_t)rm_len,
                  (mrapi_uint32_t)rm_len, &st);
}
static void op_rm_write(void)
{
  mrapi_status_t st;
  mrapi_rmem_write(rm_dummy, 0, rm_local, 0, (mrapi_uint32_t)rm_len, 1, (mrapi_uint32_t)rm_len,
                   (mrapi_uint32_t)rm_len, &st);
}
static void op_rm_dma_read(void)
{
  mrapi_status_t st;
  mrapi_request_t r;
  size_t n;
  mrapi_rmem_read_i(rm_dma, 0, rm_local, 0, (mrapi_uint32_t)rm_len, 1, (mrapi_uint32_t)rm_len,
                    (mrapi_uint32_t)rm_len, &r, &st);
  mrapi_wait(&r, &n, MRAPI_TIMEOUT_INFINITE, &st);
}

static void op_pm(void)
{
  pthread_mutex_lock(&P.pm);
  pthread_mutex_unlock(&P.pm);
}
static void op_psem(void)
{
  sem_wait(&P.psem);
  sem_post(&P.psem);
}
static void op_sysv(void)
{
  sysv_op(P.sysv, -1);
  sysv_op(P.sysv, 1);
}
static void op_mm(void)
{
  mrapi_status_t st;
  mrapi_key_t k;
  mrapi_mutex_lock(P.mm, &k, MRAPI_TIMEOUT_INFINITE, &st);
  mrapi_mutex_unlock(P.mm, &k, &st);
}
static void op_ms(void)
{
  mrapi_status_t st;
  mrapi_sem_lock(P.ms, MRAPI_TIMEOUT_INFINITE, &st);
  mrapi_sem_unlock(P.ms, &st);
}
static void op_spin(void)
{
  pthread_spin_lock(&P.spin);
  pthread_spin_unlock(&P.spin);
}
static void op_mrspin(void)
{
  mrapi_status_t st;
  mrapi_atomic_lock(NULL, &P.mrlock, NULL, 4, &st);
  mrapi_atomic_release(NULL, &P.mrlock, 4, &st);
}
static void op_inc(void) { mcx_fetch_add_seq_cst(&P.a32, 1u); }
static void op_dec(void) { mcx_fetch_sub_acq_rel(&P.a32, 1u); }
static void op_cas(void)
{
  uint32_t e = mcx_load_relaxed(&P.a32);
  mcx_cas_seq_cst(&P.a32, &e, e + 1);
}
static void op_mrinc(void)
{
  mrapi_status_t st;
  mrapi_atomic_inc(NULL, &P.mr32, NULL, 4, &st);
}
static void op_mrdec(void)
{
  mrapi_status_t st;
  mrapi_atomic_dec(NULL, &P.mr32, NULL, 4, &st);
}
static void op_mrcas(void)
{
  mrapi_status_t st;
  uint32_t cmp = P.mr32, x = cmp + 1;
  mrapi_atomic_cas(NULL, &P.mr32, &x, &cmp, NULL, 4, &st);
}

static void measure_op(const char *tech, const char *impl, op_fn op, int n)
{
  double *s = malloc(sizeof(double) * (size_t)n);
  for (int i = 0; i < n / 10; i++) /* warm caches and branch predictors */
    op();
  for (int i = 0; i < n; i++) {
    uint64_t t0 = ticks();
    for (int b = 0; b < BATCH; b++)
      op();
    uint64_t t1 = ticks();
    s[i] = (double)(t1 - t0);
  }
  /* The overhead is subtracted once per batch: record() divides afterwards. */
  record(tech, impl, 1, s, n, BATCH);
  free(s);
}

/* ------------------------------------------------------------------ two-thread rows */

enum kind { K_EV_CV, K_EV_FX, K_SEM_POSIX, K_SEM_SYSV, K_SEM_MRAPI, K_MX_PTHREAD, K_MX_MRAPI };

typedef struct pair {
  enum kind kind;
  int rounds;
  int partner_cpu;
  int cross;
  mcx_atomic_u32 go, armed, done;
  mcx_atomic_u64 t1; /* the partner's timestamp, handed over with `done` */
  int mrapi_node;
} pair_t;

static void wait_for(mcx_atomic_u32 *w, uint32_t v)
{
  /* acquire: pairs with the release store of the other thread */
  while (mcx_load_acquire(w) != v)
    sched_yield(); /* on one core the other thread needs the CPU */
}

static mrapi_domain_t sync_domain;

static void *partner_main(void *p)
{
  pair_t *a = p;
  mcx_port_pin_self(a->partner_cpu);
  mrapi_status_t st;
  mrapi_info_t info;
  mrapi_initialize(sync_domain, (mrapi_node_t)a->mrapi_node, 0, &info, &st);
  for (uint32_t i = 1; i <= (uint32_t)a->rounds; i++) {
    wait_for(&a->go, i);
    mrapi_key_t key;
    mcx_store_release(&a->armed, i); /* pairs with wait_for(&armed) in the measurer */
    switch (a->kind) {
    case K_EV_CV:
      ev_cv_wait(&P.ecv);
      mcx_store_relaxed(&a->t1, ticks());
      ev_cv_reset(&P.ecv);
      break;
    case K_EV_FX:
      ev_fx_wait(&P.efx);
      mcx_store_relaxed(&a->t1, ticks());
      ev_fx_reset(&P.efx);
      break;
    case K_SEM_POSIX:
      while (sem_wait(&P.psem) != 0) {
      }
      mcx_store_relaxed(&a->t1, ticks());
      break;
    case K_SEM_SYSV:
      sysv_op(P.sysv, -1);
      mcx_store_relaxed(&a->t1, ticks());
      break;
    case K_SEM_MRAPI:
      mrapi_sem_lock(P.ms, MRAPI_TIMEOUT_INFINITE, &st);
      mcx_store_relaxed(&a->t1, ticks());
      break;
    case K_MX_PTHREAD:
      pthread_mutex_lock(&P.pm);
      mcx_store_relaxed(&a->t1, ticks());
      pthread_mutex_unlock(&P.pm);
      break;
    case K_MX_MRAPI:
      mrapi_mutex_lock(P.mm, &key, MRAPI_TIMEOUT_INFINITE, &st);
      mcx_store_relaxed(&a->t1, ticks());
      mrapi_mutex_unlock(P.mm, &key, &st);
      break;
    }
    mcx_store_release(&a->done, i); /* publishes t1; pairs with wait_for(&done) */
  }
  mrapi_finalize(&st);
  return NULL;
}

static void measure_pair(const char *tech, const char *impl, enum kind kind, int rounds, int cross)
{
  pair_t a;
  memset(&a, 0, sizeof a);
  a.kind = kind;
  a.rounds = rounds;
  a.cross = cross;
  a.partner_cpu = cross ? cpu_b : cpu_a;
  a.mrapi_node = 2;
  mcx_port_pin_self(cpu_a);
  pthread_t t;
  pthread_create(&t, NULL, partner_main, &a);
  double *s = malloc(sizeof(double) * (size_t)rounds);
  mrapi_status_t st;
  mrapi_key_t key = 0;
  for (uint32_t i = 1; i <= (uint32_t)rounds; i++) {
    if (kind == K_MX_PTHREAD)
      pthread_mutex_lock(&P.pm);
    if (kind == K_MX_MRAPI)
      mrapi_mutex_lock(P.mm, &key, MRAPI_TIMEOUT_INFINITE, &st);
    mcx_store_release(&a.go, i);
    wait_for(&a.armed, i);
    /* Give the partner time to block in the kernel. On one core it already
     * has (it ran until it blocked); across cores it may still be spinning. */
    if (cross)
      mcx_port_sleep_ns(100000);
    uint64_t t0 = ticks();
    switch (kind) {
    case K_EV_CV:
      ev_cv_set(&P.ecv);
      break;
    case K_EV_FX:
      ev_fx_set(&P.efx);
      break;
    case K_SEM_POSIX:
      sem_post(&P.psem);
      break;
    case K_SEM_SYSV:
      sysv_op(P.sysv, 1);
      break;
    case K_SEM_MRAPI:
      mrapi_sem_unlock(P.ms, &st);
      break;
    case K_MX_PTHREAD:
      pthread_mutex_unlock(&P.pm);
      break;
    case K_MX_MRAPI:
      mrapi_mutex_unlock(P.mm, &key, &st);
      break;
    }
    wait_for(&a.done, i);
    uint64_t t1 = mcx_load_relaxed(&a.t1); /* ordered by the acquire in wait_for */
    s[i - 1] = t1 > t0 ? (double)(t1 - t0) : 0.0;
  }
  pthread_join(t, NULL);
  record(tech, impl, cross ? 2 : 1, s, rounds, 1);
  free(s);
}

/* Join: from the thread's last instruction to pthread_join returning. */
typedef struct join_arg {
  int cpu;
  uint64_t t0;
} join_arg_t;

static void *join_child(void *p)
{
  join_arg_t *j = p;
  j->t0 = ticks(); /* read by the joiner after pthread_join (join orders it) */
  return NULL;
}

static void measure_join(int rounds, int cross)
{
  double *s = malloc(sizeof(double) * (size_t)rounds);
  mcx_port_pin_self(cpu_a);
  for (int i = 0; i < rounds; i++) {
    join_arg_t j = {cross ? cpu_b : cpu_a, 0};
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(j.cpu, &set);
    pthread_attr_setaffinity_np(&attr, sizeof set, &set);
    pthread_t t;
    pthread_create(&t, &attr, join_child, &j);
    pthread_attr_destroy(&attr);
    pthread_join(t, NULL);
    uint64_t t1 = ticks();
    s[i] = t1 > j.t0 ? (double)(t1 - j.t0) : 0.0;
  }
  record("wait for thread end (join)", "pthread_join", cross ? 2 : 1, s, rounds, 1);
  free(s);
}

/* ------------------------------------------------------------------ setup */

static char prio_desc[96];

/* Real-time scheduling only when asked (--prio N); otherwise nice -20 when allowed. */
static int raise_priority(int rt_prio)
{
  struct sched_param sp;
  memset(&sp, 0, sizeof sp);
  sp.sched_priority = rt_prio;
  if (rt_prio) {
    if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
      fprintf(stderr, "mca sync: --prio %d: SCHED_FIFO refused (%s); run with CAP_SYS_NICE or an rtprio limit\n",
              rt_prio, strerror(errno));
      return -1;
    }
    snprintf(prio_desc, sizeof prio_desc, "SCHED_FIFO priority %d", rt_prio);
    return 0;
  }
  if (setpriority(PRIO_PROCESS, 0, -20) == 0) {
    snprintf(prio_desc, sizeof prio_desc, "SCHED_OTHER nice -20");
    return 0;
  }
  snprintf(prio_desc, sizeof prio_desc, "SCHED_OTHER nice %d (no permission to raise)",
           getpriority(PRIO_PROCESS, 0));
  return 0;
}

static int usage(FILE *out)
{
  fprintf(out, "usage: mca sync [--quick] [--json FILE] [--compare FILE...] [--reps N] [--cpus LIST] [--prio N]\n"
               "Overhead of mutexes, events, semaphores, spinlocks, atomics and copies, pinned;\n"
               "median, p99 and max of each row's samples.\n"
               "  --quick          fewer repetitions (well under a minute)\n"
               "  --json FILE      also write the results as JSON (schema: docs/sync.md, docs/json.md);\n"
               "                   '-': the JSON to stdout, the table to stderr\n"
               "  --compare FILE.. add columns with the medians of earlier --json runs\n"
               "  --reps N         samples per single-thread row (two-thread rows: N/4), 10 or more\n"
               "  --cpus LIST      one-core rows run on the first CPU of LIST, two-core rows on the\n"
               "                   first two (default 0,1)\n"
               "  --prio N         run under SCHED_FIFO priority N (1-99); default: the normal\n"
               "                   scheduler at nice -20 when allowed\n"
               "  --no-rt          accepted for old scripts: the default (no real-time scheduling)\n"
               "Exit status: 0 done, 1 the JSON could not be written, 2 usage error.\n");
  return out == stderr ? 2 : 0;
}

static void add_cmp(void *ctx, const char *tech, const char *impl, int cores, double median)
{
  int k = *(int *)ctx;
  row_t *r = row_find(tech, impl, cores, 1);
  if (r)
    r->cmp[k] = median;
}

static void fmt_ns(char *buf, size_t n, double v)
{
  if (v < 0)
    snprintf(buf, n, "-");
  else if (v < 100)
    snprintf(buf, n, "%.1f", v);
  else
    snprintf(buf, n, "%.0f", v);
}

static void print_table(FILE *out, int ncpu)
{
  struct utsname u;
  uname(&u);
  fprintf(out, "mca sync: synchronization overhead (ns; median, p99, max of each row's samples)\n");
  fprintf(out, "machine  : %s %s %s, %d CPUs\n", u.sysname, u.release, u.machine, ncpu);
  fprintf(out, "priority : %s; threads pinned (1 core: CPU %d; 2 cores: CPUs %d and %d)\n", prio_desc, cpu_a, cpu_a,
          cpu_b);
  fprintf(out, "timer    : %s, resolution %.2f ns, measurement cost %.1f ns (subtracted)\n",
          use_tsc ? "rdtsc (calibrated against CLOCK_MONOTONIC)" : "clock_gettime(CLOCK_MONOTONIC)",
          timer_resolution_ns, timer_overhead_ticks * ns_per_tick);
  fprintf(out, "\n%-34s %-22s %5s %9s %9s %9s", "technique", "implementation", "cores", "median", "p99", "max");
  for (int k = 0; k < ncmp; k++) {
    const char *b = strrchr(cmp_names[k], '/');
    fprintf(out, " %12.12s", b ? b + 1 : cmp_names[k]);
  }
  fputc('\n', out);
  const char *last = "";
  for (int i = 0; i < nrows; i++) {
    row_t *r = &rows[i];
    char m[16], p[16], x[16];
    const char *tech = strcmp(last, r->tech) ? r->tech : "";
    last = r->tech;
    if (r->n) {
      fmt_ns(m, sizeof m, r->med);
      fmt_ns(p, sizeof p, r->p99);
      fmt_ns(x, sizeof x, r->max);
      fprintf(out, "%-34s %-22s %5d %9s %9s %9s", tech, r->impl, r->cores, m, p, x);
    } else {
      fprintf(out, "%-34s %-22s %5d %29s", tech, r->impl, r->cores, r->note ? r->note : "(not in this run)");
    }
    for (int k = 0; k < ncmp; k++) {
      fmt_ns(m, sizeof m, r->cmp[k]);
      fprintf(out, " %12s", m);
    }
    fputc('\n', out);
  }
}

static int write_json(const char *path, int ncpu, int quick)
{
  FILE *f = mca_output_open("sync", path);
  if (!f)
    return -1;
  (void)ncpu;
  mca_json_envelope(f, "mca-sync/1");
  fprintf(f,
          "\"config\": {\"quick\": %s, \"priority\": \"%s\", \"timer\": \"%s\", \"timer_resolution_ns\": %.3f, "
          "\"timer_overhead_ns\": %.3f, \"batch\": %d},\n",
          quick ? "true" : "false", prio_desc, use_tsc ? "rdtsc" : "clock_gettime", timer_resolution_ns,
          timer_overhead_ticks * ns_per_tick, BATCH);
  fprintf(f, "\"results\": [\n");
  int first = 1;
  for (int i = 0; i < nrows; i++) {
    row_t *r = &rows[i];
    if (!r->n)
      continue;
    fprintf(f,
            "%s{\"technique\": \"%s\", \"impl\": \"%s\", \"cores\": %d, \"samples\": %d, \"median_ns\": %.2f, "
            "\"p99_ns\": %.2f, \"max_ns\": %.2f}",
            first ? "" : ",\n", r->tech, r->impl, r->cores, r->n, r->med, r->p99, r->max);
    first = 0;
  }
  fprintf(f, "\n]\n}\n");
  return mca_output_close(f);
}

int mca_cmd_sync(int argc, char **argv)
{
  int quick = 0, prio = 0, reps = 0;
  const char *json = NULL;
  static const mca_opt_t table[] = {{"--quick", MCA_OPT_FLAG, 'q'},   {"--no-rt", MCA_OPT_FLAG, 'R'},
                                     {"--json", MCA_OPT_VALUE, 'j'},   {"--reps", MCA_OPT_VALUE, 'r'},
                                     {"--prio", MCA_OPT_VALUE, 'p'},   {"--cpus", MCA_OPT_VALUE, 'C'},
                                     {"--compare", MCA_OPT_VALUE, 'c'}, {NULL, 0, 0}};
  int comparing = 0; /* --compare takes the operands after it too */
  mca_opts_t s;
  mca_opts_init(&s, "sync", argc, argv);
  for (int k; (k = mca_opts_next(&s, table)) != MCA_OPTS_END;) {
    long long v;
    switch (k) {
    case 'q': quick = 1; break;
    case 'R': prio = 0; break;
    case 'j': json = s.value; break;
    case 'r':
      if (mca_parse_int("sync", "--reps", s.value, 10, 100000000, &v))
        return MCA_EXIT_USAGE;
      reps = (int)v;
      break;
    case 'p':
      if (mca_parse_prio("sync", s.value, &prio))
        return MCA_EXIT_USAGE;
      break;
    case 'C':
      if (mca_parse_cpus("sync", s.value))
        return MCA_EXIT_USAGE;
      cpu_a = bench_cpus[0];
      cpu_b = bench_ncpu > 1 ? bench_cpus[1] : bench_cpus[0];
      break;
    case 'c':
    case MCA_OPTS_OPERAND:
      if (k == MCA_OPTS_OPERAND && !comparing)
        return mca_usage_error("sync", "unexpected argument '%s' (earlier runs to compare follow --compare)",
                               s.value);
      if (ncmp == MAX_RUNS)
        return mca_usage_error("sync", "--compare: at most %d runs", MAX_RUNS);
      cmp_names[ncmp++] = s.value;
      comparing = 1;
      break;
    case MCA_OPTS_HELP: return usage(stdout);
    default: return MCA_EXIT_USAGE;
    }
  }
  int n1 = reps > 0 ? reps : quick ? 2000 : 20000;
  int n2 = reps > 0 ? (reps / 4 > 10 ? reps / 4 : 10) : quick ? 300 : 3000;
  int nj = quick ? 100 : 1000;
  int ncpu = mcx_port_ncpus();
  if (json && mca_check_output("sync", "--json", json))
    return MCA_EXIT_USAGE;
  if (json && !strcmp(json, "-"))
    mca_json_to_stdout();

  if (raise_priority(prio))
    return MCA_EXIT_USAGE;
  mcx_port_pin_self(cpu_a);
  timer_setup(quick);

  /* The objects. MRAPI gets a domain of its own, removed at the end. */
  pthread_mutex_init(&P.pm, NULL);
  pthread_spin_init(&P.spin, PTHREAD_PROCESS_PRIVATE);
  sem_init(&P.psem, 0, 1);
  P.sysv = semget(IPC_PRIVATE, 1, IPC_CREAT | 0600);
  if (P.sysv >= 0)
    semctl(P.sysv, 0, SETVAL, 1);
  pthread_mutex_init(&P.ecv.m, NULL);
  pthread_cond_init(&P.ecv.c, NULL);
  sync_domain = 0x5c000000u | (uint32_t)(getpid() & 0xffffff);
  mrapi_status_t st;
  mrapi_info_t info;
  mrapi_initialize(sync_domain, 1, 0, &info, &st);
  int have_mrapi = st == MRAPI_SUCCESS;
  if (have_mrapi) {
    P.mm = mrapi_mutex_create(MRAPI_MUTEX_ID_ANY, NULL, &st);
    P.ms = mrapi_sem_create(MRAPI_SEM_ID_ANY, NULL, 1, &st);
  } else {
    fprintf(stderr, "mca sync: MRAPI unavailable (status %u); its rows are skipped\n", st);
  }

  for (int k = 0; k < ncmp; k++)
    if (mca_sync_compare_load(cmp_names[k], add_cmp, &k) != 0)
      fprintf(stderr, "mca sync: cannot read %s (ignored)\n", cmp_names[k]);

  fprintf(stderr, "mca sync: %s, %d/%d samples per row ...\n", prio_desc, n1, n2);

  const char *cs = "critical section (enter+leave)";
  measure_op(cs, "pthread mutex", op_pm, n1);
  measure_op(cs, "POSIX semaphore", op_psem, n1);
  if (P.sysv >= 0)
    measure_op(cs, "SysV semaphore", op_sysv, n1 / 4 > 10 ? n1 / 4 : 10);
  if (have_mrapi) {
    measure_op(cs, "MRAPI mutex", op_mm, n1);
    measure_op(cs, "MRAPI semaphore", op_ms, n1);
  }
  const char *sp = "spinlock lock+unlock";
  measure_op(sp, "pthread spinlock", op_spin, n1);
  if (have_mrapi)
    measure_op(sp, "MRAPI atomic lock", op_mrspin, n1);
  measure_op("atomic increment", "C11 atomic", op_inc, n1);
  if (have_mrapi)
    measure_op("atomic increment", "MRAPI atomic", op_mrinc, n1);
  measure_op("atomic decrement", "C11 atomic", op_dec, n1);
  if (have_mrapi)
    measure_op("atomic decrement", "MRAPI atomic", op_mrdec, n1);
  measure_op("atomic compare-and-swap", "C11 atomic", op_cas, n1);
  if (have_mrapi)
    measure_op("atomic compare-and-swap", "MRAPI atomic", op_mrcas, n1);

  if (have_mrapi) {
    mrapi_status_t rs1, rs2;
    rm_dummy = mrapi_rmem_create(MRAPI_RMEM_ID_ANY, rm_remote, MRAPI_RMEM_DUMMY, NULL, sizeof rm_remote, &rs1);
    mrapi_rmem_attach(rm_dummy, MRAPI_RMEM_DUMMY, &rs1);
    rm_dma = mrapi_rmem_create(MRAPI_RMEM_ID_ANY, rm_remote, MRAPI_RMEM_DMA, NULL, sizeof rm_remote, &rs2);
    mrapi_rmem_attach(rm_dma, MRAPI_RMEM_DMA, &rs2);
    static const size_t lens[2] = {64, 4096};
    static const char *const techs[2] = {"copy 64 B", "copy 4 KiB"};
    for (int k = 0; k < 2; k++) {
      rm_len = lens[k];
      measure_op(techs[k], "memcpy", op_memcpy, n1);
      if (rs1 == MRAPI_SUCCESS) {
        measure_op(techs[k], "MRAPI rmem read", op_rm_read, n1);
        measure_op(techs[k], "MRAPI rmem write", op_rm_write, n1);
      }
      if (rs2 == MRAPI_SUCCESS)
        measure_op(techs[k], "MRAPI rmem DMA+wait", op_rm_dma_read, n1 / 4 > 10 ? n1 / 4 : 10);
    }
    mrapi_rmem_detach(rm_dummy, &rs1);
    mrapi_rmem_delete(rm_dummy, &rs1);
    mrapi_rmem_detach(rm_dma, &rs2);
    mrapi_rmem_delete(rm_dma, &rs2);
  }

  for (int cross = 0; cross <= 1; cross++) {
    int cores = cross ? 2 : 1;
    if (cross && (ncpu < 2 || cpu_a == cpu_b)) {
      skip("event set -> waiter runs", "pthread mutex+condvar", 2, "n/a: one CPU");
      break;
    }
    /* Semaphores start with their unit taken: the partner waits for a post. */
    sem_wait(&P.psem);
    if (P.sysv >= 0)
      sysv_op(P.sysv, -1);
    if (have_mrapi)
      mrapi_sem_lock(P.ms, MRAPI_TIMEOUT_INFINITE, &st);
    measure_pair("event set -> waiter runs", "pthread mutex+condvar", K_EV_CV, n2, cross);
    measure_pair("event set -> waiter runs", "futex event", K_EV_FX, n2, cross);
    measure_pair("semaphore post -> wait returns", "POSIX semaphore", K_SEM_POSIX, n2, cross);
    if (P.sysv >= 0)
      measure_pair("semaphore post -> wait returns", "SysV semaphore", K_SEM_SYSV, n2, cross);
    if (have_mrapi)
      measure_pair("semaphore post -> wait returns", "MRAPI semaphore", K_SEM_MRAPI, n2, cross);
    sem_post(&P.psem);
    if (P.sysv >= 0)
      sysv_op(P.sysv, 1);
    if (have_mrapi)
      mrapi_sem_unlock(P.ms, &st);
    measure_pair("mutex hand-off (unlock -> lock)", "pthread mutex", K_MX_PTHREAD, n2, cross);
    if (have_mrapi)
      measure_pair("mutex hand-off (unlock -> lock)", "MRAPI mutex", K_MX_MRAPI, n2, cross);
    measure_join(nj, cross);
    (void)cores;
  }
  mcx_port_pin_self(-1);

  print_table(stdout, ncpu);
  int rc = 0;
  if (json && write_json(json, ncpu, quick) != 0)
    rc = 1;

  if (have_mrapi) {
    mrapi_mutex_delete(P.mm, &st);
    mrapi_sem_delete(P.ms, &st);
    mrapi_finalize(&st);
  }
  if (P.sysv >= 0)
    semctl(P.sysv, 0, IPC_RMID);
  sem_destroy(&P.psem);
  pthread_spin_destroy(&P.spin);
  return rc;
}
