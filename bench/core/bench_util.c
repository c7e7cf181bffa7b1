/* SPDX-License-Identifier: BSD-3-Clause */
/* mca bench: time, pinning, shared memory, statistics (the payload stamp is inline in bench.h). */
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifndef _WIN32
#include <sys/mman.h>
#endif

#include "bench.h"
#include "ports/mcx_port.h"

#ifdef _WIN32
/* Windows: affinity and memory through the port (one processor group of up
 * to 64 CPUs); no fork(), so memory the sides share needs no MAP_SHARED. */
#define CPU_SETSIZE 64
#endif

uint64_t bench_now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_u64_(const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

uint64_t bench_timer_cost_ns(void)
{
  /* The cost of one timed interval's clock reads: the median of back-to-back
   * readings. It is subtracted from every per-item latency and every L probe,
   * so both are the exchange's own time (ratios to L stay honest). */
  static uint64_t cost = UINT64_MAX;
  if (cost != UINT64_MAX)
    return cost;
  enum { N = 20001 };
  static uint64_t d[N];
  for (int i = 0; i < N; i++) {
    uint64_t t0 = bench_now_ns();
    d[i] = bench_now_ns() - t0;
  }
  qsort(d, N, sizeof d[0], cmp_u64_);
  cost = d[N / 2];
  return cost;
}

int bench_cpus[1024];
int bench_ncpu;

void bench_default_cpus(void)
{
  bench_ncpu = 0;
#ifdef _WIN32
  for (int i = 0; i < mcx_port_ncpus() && i < CPU_SETSIZE; i++)
    bench_cpus[bench_ncpu++] = i;
#else
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    for (int i = 0; i < CPU_SETSIZE && bench_ncpu < 1024; i++)
      if (CPU_ISSET(i, &set))
        bench_cpus[bench_ncpu++] = i;
#endif
  if (!bench_ncpu)
    bench_cpus[bench_ncpu++] = 0;
}

int bench_set_cpus(const char *list)
{
#ifdef _WIN32
  long online = mcx_port_ncpus();
#else
  long online = sysconf(_SC_NPROCESSORS_CONF);
#endif
  int n = 0;
  const char *s = list;
  while (*s) {
    char *end;
    long a = strtol(s, &end, 10), b;
    if (end == s || a < 0)
      return -1;
    b = a;
    if (*end == '-') {
      s = end + 1;
      b = strtol(s, &end, 10);
      if (end == s || b < a)
        return -1;
    }
    for (long c = a; c <= b; c++) {
      if (c >= online || c >= CPU_SETSIZE || n >= 1024)
        return -1;
      bench_cpus[n++] = (int)c;
    }
    if (*end == ',')
      end++;
    else if (*end)
      return -1;
    s = end;
  }
  if (!n)
    return -1;
  bench_ncpu = n;
  return 0;
}

static pthread_once_t cpus_once = PTHREAD_ONCE_INIT;
static void cpus_init(void)
{
  if (!bench_ncpu) /* --cpus, parsed before any thread starts, wins */
    bench_default_cpus();
}

int bench_ncpus(void)
{
  pthread_once(&cpus_once, cpus_init);
  return bench_ncpu;
}

int bench_cpu(int i) { return bench_cpus[i % bench_ncpus()]; }

int bench_pin(int cpu)
{
#ifdef _WIN32
  return mcx_port_pin_self(cpu) ? -1 : 0;
#else
  cpu_set_t set;
  CPU_ZERO(&set);
  int n = bench_ncpus();
  if (cpu < 0) {
    for (int i = 0; i < n; i++)
      CPU_SET(bench_cpus[i], &set);
  } else {
    CPU_SET(cpu, &set);
  }
  return sched_setaffinity(0, sizeof set, &set);
#endif
}

void bench_yield(void) { sched_yield(); }

void *bench_shared_alloc(size_t size)
{
#ifdef _WIN32
  return mcx_port_map_anon(size);
#else
  void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? NULL : p;
#endif
}

void bench_shared_free(void *p, size_t size)
{
#ifdef _WIN32
  mcx_port_unmap(p, size);
#else
  if (p)
    munmap(p, size);
#endif
}

void bench_fail(bench_ctx_t *c, int status, const char *fmt, ...)
{
  /* The first failure wins; the other side only sees `failed`. */
  int expected = 0;
  if (atomic_compare_exchange_strong(&c->failed, &expected, status)) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->note, sizeof c->note, fmt, ap);
    va_end(ap);
    c->status = status;
  }
}

int bench_cmp_u64(const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

int bench_cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

double bench_median(double *v, int n)
{
  if (n <= 0)
    return 0;
  qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

uint64_t bench_checksum_large(const void *buf, size_t size)
{
  const unsigned char *p = (const unsigned char *)buf;
  uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0, w0, w1, w2, w3;
  size_t i = 0;
  for (; i + 32 <= size; i += 32) {
    memcpy(&w0, p + i, 8);
    memcpy(&w1, p + i + 8, 8);
    memcpy(&w2, p + i + 16, 8);
    memcpy(&w3, p + i + 24, 8);
    s0 += w0;
    s1 += w1;
    s2 += w2;
    s3 += w3;
  }
  /* the last 0 to 31 bytes: the small items' sum (the words stay aligned to
   * the item's start, i being a multiple of 8) */
  return s0 + s1 + s2 + s3 + bench_checksum(p + i, size - i);
}
