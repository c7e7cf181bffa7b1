/* SPDX-License-Identifier: BSD-3-Clause */
/* mca sem: the EMERALDS experiment (Zuberi & Shin) on Linux. A high-priority
 * thread T2 waits for an event from a low-priority thread T1 and then locks a
 * semaphore S; T1 posts the event holding S ("held") or not ("free"). The
 * standard way wakes T2, which may block on S at once; the next-semaphore
 * hint (mcx_event_wait_then_lock, mcx_msg_recv_then_lock, ...) has the kernel
 * take S for T2 or queue T2 on S when the event fires. Filler threads keep the
 * run queue at 3..30 threads. Reported: time per acquire/release pair (post ->
 * T2 released S: median, p99) and context switches per round (docs/sem.md). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "cli.h"
#include "mca_tool.h"
#include "mcapi.h"
#include "mcx.h"

/* SCHED_FIFO priorities under --prio N: fillers N, T1 N + 9, T2 N + 19 (at most 99). */
static int PRIO_T2 = 20, PRIO_T1 = 10, PRIO_FILL = 1;

typedef enum variant {
  V_STD,   /* mcx_event_wait, then mcx_pisem_lock */
  V_HINT,  /* mcx_event_wait_then_lock */
  V_CSTD,  /* mcx_event_wait, then mcx_csem_acquire */
  V_CHINT, /* mcx_event_wait_then_acquire */
  V_MSTD,  /* mcapi_msg_recv, then mcx_pisem_lock */
  V_MHINT, /* mcx_msg_recv_then_lock */
  V_GCV,   /* pthread_cond_wait with a normal mutex */
  V_GPI,   /* pthread_cond_wait with a PTHREAD_PRIO_INHERIT mutex */
  V_COUNT
} variant_t;

static const struct {
  const char *name;
  const char *desc;
  int baseline; /* the variant a hint row is compared with, -1 none */
} VARIANTS[V_COUNT] = {
    [V_STD] = {"standard", "event wait, then PI lock", -1},
    [V_HINT] = {"hint", "event wait naming S (requeue-PI)", V_STD},
    [V_CSTD] = {"csem-standard", "event wait, then counting acquire", -1},
    [V_CHINT] = {"csem-hint", "event wait naming S (requeue)", V_CSTD},
    [V_MSTD] = {"msg-standard", "mcapi_msg_recv, then PI lock", -1},
    [V_MHINT] = {"msg-hint", "mcx_msg_recv_then_lock", V_MSTD},
    [V_GCV] = {"glibc-condvar", "pthread_cond_wait, normal mutex", -1},
    [V_GPI] = {"glibc-pi", "pthread_cond_wait, PRIO_INHERIT mutex", -1},
};

typedef struct cell {
  variant_t v;
  int held;
  int threads;
  int rounds;
  double med_ns, p99_ns, csw;
  int ok;
} cell_t;

/* ---- the shared state of one cell */
static struct {
  variant_t v;
  int held, rounds;
  mcx_pisem_t s;
  mcx_csem_t c;
  mcx_event_t ev;
  pthread_mutex_t m;
  pthread_cond_t cv;
  int flag; /* the condition, under m */
  atomic_int t2_ready, t1_ready, done, stop, errors, fill_started;
  uint64_t *t_post, *t_end;
  long csw1, csw2;
  uint32_t dom;
} X;

static int rt_ok, pin_ok;
static int cpu_run = 0;

static uint64_t now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static long thread_csw(void)
{
  struct rusage ru;
  getrusage(RUSAGE_THREAD, &ru);
  return ru.ru_nvcsw + ru.ru_nivcsw;
}

static void *filler(void *arg)
{
  (void)arg;
  unsigned long n = 0;
  atomic_fetch_add(&X.fill_started, 1);
  /* Yield now and then even under SCHED_FIFO: a filler just created (at the
   * same priority) may need the CPU to finish starting up, and pthread_create
   * of some runtimes (ASan, TSan) waits for that. Fillers stay runnable. */
  while (!atomic_load_explicit(&X.stop, memory_order_relaxed)) {
    if ((++n & 0xff) == 0)
      sched_yield();
  }
  return NULL;
}

static void fail(const char *what)
{
  if (atomic_fetch_add(&X.errors, 1) == 0)
    fprintf(stderr, "mca sem: %s failed in %s/%s\n", what, VARIANTS[X.v].name,
            X.held ? "held" : "free");
}

/* T2: waits for the event, holds S, releases it. */
static void *t2_main(void *arg)
{
  (void)arg;
  mcapi_status_t st;
  mcapi_endpoint_t ep = 0;
  int is_msg = X.v == V_MSTD || X.v == V_MHINT;
  if (is_msg) {
    mcapi_info_t info;
    mcapi_initialize(X.dom, 2, NULL, NULL, &info, &st);
    ep = mcapi_endpoint_create(1, &st);
    if (st != MCAPI_SUCCESS)
      fail("mcapi setup");
  }
  long c0 = thread_csw();
  atomic_store(&X.t2_ready, 1);
  for (int i = 0; i < X.rounds && !atomic_load(&X.errors); i++) {
    int v = 0;
    size_t got;
    switch (X.v) {
    case V_STD:
      if (mcx_event_wait(&X.ev, MCX_SEM_INFINITE) != MCX_SEM_OK ||
          mcx_pisem_lock(&X.s, MCX_SEM_INFINITE) != MCX_SEM_OK)
        fail("wait+lock");
      break;
    case V_HINT:
      if (mcx_event_wait_then_lock(&X.ev, &X.s, MCX_SEM_INFINITE) != MCX_SEM_OK)
        fail("wait_then_lock");
      break;
    case V_CSTD:
      if (mcx_event_wait(&X.ev, MCX_SEM_INFINITE) != MCX_SEM_OK ||
          mcx_csem_acquire(&X.c, MCX_SEM_INFINITE) != MCX_SEM_OK)
        fail("wait+acquire");
      break;
    case V_CHINT:
      if (mcx_event_wait_then_acquire(&X.ev, &X.c, MCX_SEM_INFINITE) != MCX_SEM_OK)
        fail("wait_then_acquire");
      break;
    case V_MSTD:
      mcapi_msg_recv(ep, &v, sizeof v, &got, &st);
      if (st != MCAPI_SUCCESS || mcx_pisem_lock(&X.s, MCX_SEM_INFINITE) != MCX_SEM_OK)
        fail("recv+lock");
      break;
    case V_MHINT:
      if (mcx_msg_recv_then_lock(ep, &v, sizeof v, &got, &X.s, &st) != MCX_SEM_OK ||
          st != MCAPI_SUCCESS)
        fail("recv_then_lock");
      break;
    case V_GCV:
    case V_GPI:
      pthread_mutex_lock(&X.m);
      while (!X.flag)
        pthread_cond_wait(&X.cv, &X.m);
      X.flag = 0;
      break;
    default:
      break;
    }
    /* holding S */
    switch (X.v) {
    case V_CSTD:
    case V_CHINT:
      mcx_csem_release(&X.c);
      break;
    case V_GCV:
    case V_GPI:
      pthread_mutex_unlock(&X.m);
      break;
    default:
      if (mcx_pisem_unlock(&X.s) != MCX_SEM_OK)
        fail("unlock");
    }
    X.t_end[i] = now_ns();
    atomic_store_explicit(&X.done, i + 1, memory_order_release);
  }
  X.csw2 = thread_csw() - c0;
  if (is_msg) {
    while (!atomic_load(&X.stop) && !atomic_load(&X.errors))
      usleep(1000); /* keep the endpoint until T1 is done */
    mcapi_finalize(&st);
  }
  return NULL;
}

/* T1: holds S (or not) and posts the event, round after round. */
static void *t1_main(void *arg)
{
  (void)arg;
  mcapi_status_t st;
  mcapi_endpoint_t me = 0, peer = 0;
  int is_msg = X.v == V_MSTD || X.v == V_MHINT;
  while (!atomic_load(&X.t2_ready))
    usleep(100);
  if (is_msg) {
    mcapi_info_t info;
    mcapi_initialize(X.dom, 1, NULL, NULL, &info, &st);
    me = mcapi_endpoint_create(1, &st);
    peer = mcapi_endpoint_get(X.dom, 2, 1, MCAPI_TIMEOUT_INFINITE, &st);
    if (st != MCAPI_SUCCESS)
      fail("mcapi setup");
  }
  usleep(2000); /* T2 is asleep in its first wait */
  long c0 = thread_csw();
  for (int i = 0; i < X.rounds && !atomic_load(&X.errors); i++) {
    int glibc = X.v == V_GCV || X.v == V_GPI, csem = X.v == V_CSTD || X.v == V_CHINT;
    if (X.held) {
      if (glibc)
        pthread_mutex_lock(&X.m);
      else if (csem)
        mcx_csem_acquire(&X.c, MCX_SEM_INFINITE);
      else
        mcx_pisem_lock(&X.s, MCX_SEM_INFINITE);
    }
    X.t_post[i] = now_ns();
    if (glibc) {
      if (!X.held)
        pthread_mutex_lock(&X.m);
      X.flag = 1;
      if (!X.held)
        pthread_mutex_unlock(&X.m);
      pthread_cond_signal(&X.cv);
    } else if (is_msg) {
      mcapi_msg_send(me, peer, &i, sizeof i, 0, &st);
    } else {
      mcx_event_post(&X.ev);
    }
    if (X.held) {
      if (glibc)
        pthread_mutex_unlock(&X.m);
      else if (csem)
        mcx_csem_release(&X.c);
      else
        mcx_pisem_unlock(&X.s);
    }
    /* With SCHED_FIFO on one CPU T2 is done already; otherwise wait for it. */
    for (int spin = 0;
         atomic_load_explicit(&X.done, memory_order_acquire) < i + 1 && !atomic_load(&X.errors);
         spin++) {
      if (spin < 1000)
        sched_yield();
      else
        usleep(50); /* T2 is blocked on something lower priorities must finish (a page fault,
                       mmap_lock) */
    }
  }
  X.csw1 = thread_csw() - c0;
  if (is_msg)
    mcapi_finalize(&st);
  return NULL;
}

static int start(pthread_t *t, void *(*fn)(void *), int prio)
{
  pthread_attr_t a;
  pthread_attr_init(&a);
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu_run, &one);
  if (pin_ok)
    pthread_attr_setaffinity_np(&a, sizeof one, &one);
  if (rt_ok) {
    struct sched_param sp = {.sched_priority = prio};
    pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
    pthread_attr_setschedpolicy(&a, SCHED_FIFO);
    pthread_attr_setschedparam(&a, &sp);
  }
  int r = pthread_create(t, &a, fn, NULL);
  pthread_attr_destroy(&a);
  return r;
}

static int cmp_u64(const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static void run_cell(cell_t *c)
{
  memset(&X, 0, sizeof X);
  X.v = c->v;
  X.held = c->held;
  X.rounds = c->rounds;
  X.dom = 0x30000000u + ((uint32_t)getpid() & 0xffffffu); /* not shared with other runs */
  mcx_pisem_init(&X.s, 0);
  mcx_csem_init(&X.c, 1, 1, 0);
  mcx_event_init(&X.ev, 0);
  pthread_mutexattr_t ma;
  pthread_mutexattr_init(&ma);
  if (c->v == V_GPI)
    pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
  pthread_mutex_init(&X.m, &ma);
  pthread_mutexattr_destroy(&ma);
  pthread_cond_init(&X.cv, NULL);
  X.t_post = calloc((size_t)c->rounds, sizeof(uint64_t));
  X.t_end = calloc((size_t)c->rounds, sizeof(uint64_t));
  int nfill = c->threads - 2;
  pthread_t fill[64], t1, t2;
  for (int i = 0; i < nfill; i++)
    start(&fill[i], filler, PRIO_FILL);
  /* Let every filler finish starting (its start-up maps memory and takes the
   * mm lock) before the measured threads run above them. */
  while (atomic_load(&X.fill_started) < nfill)
    usleep(100);
  start(&t2, t2_main, PRIO_T2);
  start(&t1, t1_main, PRIO_T1);
  pthread_join(t1, NULL);
  atomic_store(&X.stop, 1);
  pthread_join(t2, NULL);
  for (int i = 0; i < nfill; i++)
    pthread_join(fill[i], NULL);
  c->ok = atomic_load(&X.errors) == 0;
  if (c->ok) {
    int warm = c->rounds / 10, n = c->rounds - warm;
    uint64_t *d = malloc((size_t)n * sizeof *d);
    for (int i = 0; i < n; i++)
      d[i] = X.t_end[warm + i] - X.t_post[warm + i];
    qsort(d, (size_t)n, sizeof *d, cmp_u64);
    c->med_ns = (double)d[n / 2];
    c->p99_ns = (double)d[(size_t)((n - 1) * 0.99)];
    c->csw = (double)(X.csw1 + X.csw2) / c->rounds;
    free(d);
  }
  free(X.t_post);
  free(X.t_end);
  pthread_cond_destroy(&X.cv);
  pthread_mutex_destroy(&X.m);
}

static int usage(FILE *out)
{
  fprintf(
      out,
      "usage: mca sem [--quick] [--json FILE] [--threads N,N,...] [--rounds N] [--cpus LIST] [--prio N]\n"
      "T2 waits for an event from T1, then locks semaphore S: the next-semaphore hint against\n"
      "waiting, then locking; time per acquire/release and context switches.\n"
      "  --quick        thread counts 3,10,30 and fewer rounds (well under a minute)\n"
      "  --json FILE    also write the results as JSON (schema: docs/sem.md, docs/json.md);\n"
      "                 '-': the JSON to stdout, the table to stderr\n"
      "  --threads LIST run-queue lengths (T1 + T2 + fillers), 3..60; default 3,5,10,15,20,25,30\n"
      "  --rounds N     acquire/release pairs per cell, 10 or more (default 3000, --quick 400)\n"
      "  --cpus LIST    the measured threads run on the first CPU of LIST (default 0)\n"
      "  --prio N       SCHED_FIFO with fillers at N, T1 at N+9, T2 at N+19 (N 1-80); default:\n"
      "                 the normal scheduler (the hint's priority-inheritance effects need --prio)\n"
      "  --no-rt        accepted for old scripts: the default (no real-time scheduling)\n"
      "Exit status: 0 done, 1 a cell failed or the JSON could not be written, 2 usage error.\n");
  return out == stderr ? 2 : 0;
}

static double improvement(const cell_t *cells, int n, const cell_t *c)
{
  int b = VARIANTS[c->v].baseline;
  if (b < 0 || !c->ok)
    return -1e9;
  for (int i = 0; i < n; i++)
    if ((int)cells[i].v == b && cells[i].held == c->held && cells[i].threads == c->threads &&
        cells[i].ok)
      return 100.0 * (cells[i].med_ns - c->med_ns) / cells[i].med_ns;
  return -1e9;
}

static const char *sched_desc(void)
{
  static char buf[160];
  snprintf(buf, sizeof buf, "%s; %s",
           rt_ok ? "SCHED_FIFO (T2 > T1 > fillers, --prio)" : "SCHED_OTHER (no --prio)",
           pin_ok ? "all measured threads pinned to one CPU" : "not pinned (affinity refused)");
  return buf;
}

int mca_cmd_sem(int argc, char **argv)
{
  int quick = 0, allow_rt = 0, rounds = 0, prio = 0;
  const char *json = NULL, *tlist = NULL;
  long long v;
  static const mca_opt_t table[] = {{"--quick", MCA_OPT_FLAG, 'q'},  {"--no-rt", MCA_OPT_FLAG, 'R'},
                                     {"--json", MCA_OPT_VALUE, 'j'},  {"--threads", MCA_OPT_VALUE, 't'},
                                     {"--rounds", MCA_OPT_VALUE, 'r'}, {"--prio", MCA_OPT_VALUE, 'p'},
                                     {"--cpus", MCA_OPT_VALUE, 'C'},  {NULL, 0, 0}};
  mca_opts_t s;
  mca_opts_init(&s, "sem", argc, argv);
  for (int k; (k = mca_opts_next(&s, table)) != MCA_OPTS_END;) {
    switch (k) {
    case 'q': quick = 1; break;
    case 'R': allow_rt = 0; break;
    case 'j': json = s.value; break;
    case 't': tlist = s.value; break;
    case 'r':
      if (mca_parse_int("sem", "--rounds", s.value, 10, 10000000, &v))
        return MCA_EXIT_USAGE;
      rounds = (int)v;
      break;
    case 'p':
      if (mca_parse_int("sem", "--prio", s.value, 1, 80, &v))
        return MCA_EXIT_USAGE;
      prio = (int)v;
      allow_rt = 1;
      break;
    case 'C':
      if (mca_parse_cpus("sem", s.value))
        return MCA_EXIT_USAGE;
      cpu_run = bench_cpus[0];
      break;
    case MCA_OPTS_HELP: return usage(stdout);
    case MCA_OPTS_OPERAND: return mca_usage_error("sem", "unexpected argument '%s'", s.value);
    default: return MCA_EXIT_USAGE;
    }
  }
  int counts[32], ncounts = 0;
  const char *spec = tlist ? tlist : quick ? "3,10,30" : "3,5,10,15,20,25,30";
  for (const char *p = spec; *p && ncounts < 32;) {
    char *end;
    long v = strtol(p, &end, 10);
    if (end == p || v < 3 || v > 60) {
      return mca_usage_error("sem", "--threads: expected run-queue lengths from 3 to 60 like 3,10,30, got '%s'",
                             spec);
    }
    counts[ncounts++] = (int)v;
    p = *end == ',' ? end + 1 : end;
    if (*end && *end != ',') {
      return mca_usage_error("sem", "--threads: expected run-queue lengths from 3 to 60 like 3,10,30, got '%s'",
                             spec);
    }
  }
  if (rounds <= 0)
    rounds = quick ? 400 : 3000;
  if (json && mca_check_output("sem", "--json", json))
    return MCA_EXIT_USAGE;
  if (json && !strcmp(json, "-"))
    mca_json_to_stdout();
  if (prio) {
    PRIO_FILL = prio;
    PRIO_T1 = prio + 9;
    PRIO_T2 = prio + 19;
  }

  /* Can we use SCHED_FIFO and pin? Ask for this thread, then step back. */
  struct sched_param sp = {.sched_priority = PRIO_T1};
  rt_ok = allow_rt && pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) == 0;
  if (allow_rt && !rt_ok) {
    fprintf(stderr, "mca sem: --prio %d: SCHED_FIFO refused; run with CAP_SYS_NICE or an rtprio limit\n", prio);
    return MCA_EXIT_USAGE;
  }
  sp.sched_priority = 0;
  if (rt_ok)
    pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);
  cpu_set_t one, all;
  pthread_getaffinity_np(pthread_self(), sizeof all, &all);
  CPU_ZERO(&one);
  CPU_SET(cpu_run, &one);
  pin_ok = pthread_setaffinity_np(pthread_self(), sizeof one, &one) == 0;
  /* The main thread only waits: keep it off the measured CPU when there is another. */
  if (pin_ok && sysconf(_SC_NPROCESSORS_ONLN) > 1) {
    cpu_set_t other;
    CPU_ZERO(&other);
    CPU_SET(cpu_run == 0 ? 1 : 0, &other);
    pthread_setaffinity_np(pthread_self(), sizeof other, &other);
  } else {
    pthread_setaffinity_np(pthread_self(), sizeof all, &all);
  }
  mcx_set_wait_policy(0, 0); /* MCAPI receives sleep at once, like the events */

  fprintf(stderr, "mca sem: %s; %d rounds per cell ...\n", sched_desc(), rounds);
  int ncells = ncounts * V_COUNT * 2;
  cell_t *cells = calloc((size_t)ncells, sizeof *cells);
  int k = 0;
  for (int ti = 0; ti < ncounts; ti++)
    for (int held = 1; held >= 0; held--)
      for (int v = 0; v < V_COUNT; v++) {
        cell_t *c = &cells[k++];
        c->v = (variant_t)v;
        c->held = held;
        c->threads = counts[ti];
        c->rounds = rounds;
        run_cell(c);
      }
  pthread_setaffinity_np(pthread_self(), sizeof all, &all);

  struct utsname u;
  uname(&u);
  printf("mca sem: T2 waits for an event from T1, then locks S (EMERALDS next-semaphore hint)\n");
  printf("machine   : %s %s %s, %ld CPUs\n", u.sysname, u.release, u.machine,
         sysconf(_SC_NPROCESSORS_ONLN));
  printf("scheduling: %s\n", sched_desc());
  printf("measured  : T1 posts -> T2 has locked and released S (us; median, p99 of %d rounds after "
         "%d warm-up),\n"
         "            context switches of T1+T2 per round (getrusage), improvement of the median "
         "vs the standard way\n",
         rounds - rounds / 10, rounds / 10);
  int failed = 0;
  for (int held = 1; held >= 0; held--) {
    printf("\nS %s when the event fires\n", held ? "HELD by T1" : "FREE");
    printf("%-7s %-14s %-38s %9s %9s %9s %8s\n", "threads", "variant", "", "median", "p99",
           "csw/rnd", "improve");
    for (int i = 0; i < ncells; i++) {
      cell_t *c = &cells[i];
      if (c->held != held)
        continue;
      if (!c->ok) {
        printf("%-7d %-14s %-38s %9s\n", c->threads, VARIANTS[c->v].name, VARIANTS[c->v].desc,
               "FAILED");
        failed = 1;
        continue;
      }
      double imp = improvement(cells, ncells, c);
      char ib[16] = "";
      if (imp > -1e8)
        snprintf(ib, sizeof ib, "%+.0f%%", imp);
      printf("%-7d %-14s %-38s %9.2f %9.2f %9.2f %8s\n", c->threads, VARIANTS[c->v].name,
             VARIANTS[c->v].desc, c->med_ns / 1000, c->p99_ns / 1000, c->csw, ib);
    }
  }
  int rc = failed;
  if (json) {
    FILE *f = mca_output_open("sem", json);
    if (!f) {
      rc = 1;
    } else {
      mca_json_envelope(f, "mca-sem/1");
      fprintf(f,
              "\"config\": {\"quick\": %s, \"sched_fifo\": %s, \"pinned\": %s, \"rounds\": %d, "
              "\"warmup\": %d},\n",
              quick ? "true" : "false", rt_ok ? "true" : "false", pin_ok ? "true" : "false", rounds,
              rounds / 10);
      fprintf(f, "\"results\": [\n");
      int first = 1;
      for (int i = 0; i < ncells; i++) {
        cell_t *c = &cells[i];
        if (!c->ok)
          continue;
        double imp = improvement(cells, ncells, c);
        char ib[32] = "null";
        if (imp > -1e8)
          snprintf(ib, sizeof ib, "%.2f", imp);
        fprintf(f,
                "%s{\"variant\": \"%s\", \"case\": \"%s\", \"threads\": %d, \"rounds\": %d, "
                "\"median_ns\": %.0f, "
                "\"p99_ns\": %.0f, \"csw_per_round\": %.3f, \"baseline\": %s%s%s, "
                "\"improvement_pct\": %s}",
                first ? "" : ",\n", VARIANTS[c->v].name, c->held ? "held" : "free", c->threads,
                c->rounds, c->med_ns, c->p99_ns, c->csw, VARIANTS[c->v].baseline >= 0 ? "\"" : "",
                VARIANTS[c->v].baseline >= 0 ? VARIANTS[VARIANTS[c->v].baseline].name : "null",
                VARIANTS[c->v].baseline >= 0 ? "\"" : "", ib);
        first = 0;
      }
      fprintf(f, "\n]\n}\n");
      if (mca_output_close(f) != 0)
        rc = 1;
    }
  }
  free(cells);
  return rc;
}
