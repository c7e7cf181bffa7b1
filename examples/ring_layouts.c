/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ring_layouts: the two SPSC channel-ring layouts side by side, two threads
 * pinned to different CPUs.
 *   slot-state  (src/transport/spsc_ring.h): a state word in every slot
 *   nbb         (ring_layouts/nbb_ring.h):   update + ack counters (Kim et al.)
 * Cells: streaming (one-way items/s through a 256-slot ring) and ping-pong
 * (round trip of one item over two 8-slot rings). The raw cache-line round
 * trip L is measured before and after every cell; RTTs are also printed as
 * multiples of L. Each cell runs REPS times; medians with min-max.
 *
 * Usage: example_ring_layouts [reps] [stream_items] [pingpong_rounds]
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ports/mcx_port.h"
#include "ring_layouts/nbb_ring.h"
#include "transport/spsc_ring.h"

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cpu_a, cpu_b;
static long n_items, n_rounds;

/* ---- raw cache-line round trip */
static _Alignas(64) atomic_uint flag;
static void *pong_line(void *arg)
{
  mcx_port_pin_self(cpu_b);
  for (long i = 0; i < n_rounds; i++) {
    while (atomic_load_explicit(&flag, memory_order_acquire) != 2u * i + 1)
      ;
    atomic_store_explicit(&flag, 2u * i + 2, memory_order_release);
  }
  return NULL;
}
static double line_rtt_ns(void)
{
  atomic_store(&flag, 0);
  pthread_t t;
  pthread_create(&t, NULL, pong_line, NULL);
  mcx_port_pin_self(cpu_a);
  double t0 = now();
  for (long i = 0; i < n_rounds; i++) {
    atomic_store_explicit(&flag, 2u * i + 1, memory_order_release);
    while (atomic_load_explicit(&flag, memory_order_acquire) != 2u * i + 2)
      ;
  }
  double t1 = now();
  pthread_join(t, NULL);
  return (t1 - t0) * 1e9 / n_rounds;
}

/* ---- generic over the two layouts */
#define CAP_STREAM 256
#define CAP_PP 8

typedef struct {
  _Alignas(64) mcx__spsc_ring_t r;
  _Alignas(64) mcx__spsc_slot_t s[CAP_STREAM];
} spsc_mem_t;
typedef struct {
  _Alignas(64) mcx__nbb_ring_t r;
  _Alignas(64) mcx__nbb_slot_t s[CAP_STREAM];
} nbb_mem_t;

static spsc_mem_t sm[2];
static nbb_mem_t nm[2];

#define DEFINE_LAYOUT(NAME, VIEW, MEM, INIT, PUT, GET)                                  \
  static VIEW NAME##_view(int i, uint32_t cap)                                          \
  {                                                                                     \
    VIEW v = {&MEM[i].r, MEM[i].s, cap - 1};                                            \
    return v;                                                                           \
  }                                                                                     \
  static void *NAME##_stream_consumer(void *arg)                                        \
  {                                                                                     \
    VIEW v = NAME##_view(0, CAP_STREAM);                                                \
    mcx_port_pin_self(cpu_b);                                                           \
    long bad = 0;                                                                       \
    for (long i = 0; i < n_items;) {                                                    \
      uint32_t m;                                                                       \
      uint64_t x;                                                                       \
      if (GET(&v, 0, &m, &x) == MCX_Q_OK) {                                             \
        bad += x != (uint64_t)i;                                                        \
        i++;                                                                            \
      } else {                                                                          \
        mcx_port_cpu_relax();                                                           \
      }                                                                                 \
    }                                                                                   \
    *(long *)arg = bad;                                                                 \
    return NULL;                                                                        \
  }                                                                                     \
  static double NAME##_stream(void)                                                     \
  {                                                                                     \
    VIEW v = NAME##_view(0, CAP_STREAM);                                                \
    INIT(&v);                                                                           \
    long bad = 0;                                                                       \
    pthread_t t;                                                                        \
    pthread_create(&t, NULL, NAME##_stream_consumer, &bad);                             \
    mcx_port_pin_self(cpu_a);                                                           \
    double t0 = now();                                                                  \
    for (long i = 0; i < n_items;) {                                                    \
      if (PUT(&v, 8, (uint64_t)i) == MCX_Q_OK)                                          \
        i++;                                                                            \
      else                                                                              \
        mcx_port_cpu_relax();                                                           \
    }                                                                                   \
    pthread_join(t, NULL);                                                              \
    double t1 = now();                                                                  \
    if (bad)                                                                            \
      fprintf(stderr, #NAME ": %ld items out of order\n", bad);                         \
    return n_items / (t1 - t0);                                                         \
  }                                                                                     \
  static void *NAME##_pong(void *arg)                                                   \
  {                                                                                     \
    VIEW in = NAME##_view(0, CAP_PP), out = NAME##_view(1, CAP_PP);                     \
    mcx_port_pin_self(cpu_b);                                                           \
    for (long i = 0; i < n_rounds; i++) {                                               \
      uint32_t m;                                                                       \
      uint64_t x;                                                                       \
      while (GET(&in, 0, &m, &x) != MCX_Q_OK)                                           \
        ;                                                                               \
      while (PUT(&out, 8, x + 1) != MCX_Q_OK)                                           \
        ;                                                                               \
    }                                                                                   \
    return NULL;                                                                        \
  }                                                                                     \
  static double NAME##_pingpong(void)                                                   \
  {                                                                                     \
    VIEW out = NAME##_view(0, CAP_PP), in = NAME##_view(1, CAP_PP);                     \
    INIT(&out);                                                                         \
    INIT(&in);                                                                          \
    pthread_t t;                                                                        \
    pthread_create(&t, NULL, NAME##_pong, NULL);                                        \
    mcx_port_pin_self(cpu_a);                                                           \
    double t0 = now();                                                                  \
    for (long i = 0; i < n_rounds; i++) {                                               \
      uint32_t m;                                                                       \
      uint64_t x;                                                                       \
      while (PUT(&out, 8, (uint64_t)i) != MCX_Q_OK)                                     \
        ;                                                                               \
      while (GET(&in, 0, &m, &x) != MCX_Q_OK)                                           \
        ;                                                                               \
      if (x != (uint64_t)i + 1)                                                         \
        fprintf(stderr, #NAME ": bad reply\n");                                         \
    }                                                                                   \
    double t1 = now();                                                                  \
    pthread_join(t, NULL);                                                              \
    return (t1 - t0) * 1e9 / n_rounds;                                                  \
  }

DEFINE_LAYOUT(slot, mcx__spsc_view_t, sm, mcx__spsc_init, mcx__spsc_put, mcx__spsc_get)
DEFINE_LAYOUT(nbb, mcx__nbb_view_t, nm, mcx__nbb_init, mcx__nbb_put, mcx__nbb_get)

static int cmp(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

#define MAXREPS 64
typedef struct {
  double v[MAXREPS];
  int n;
} series_t;
static double med(series_t *s)
{
  qsort(s->v, (size_t)s->n, sizeof s->v[0], cmp);
  return s->v[s->n / 2];
}

int main(int argc, char **argv)
{
  int reps = argc > 1 ? atoi(argv[1]) : 7;
  n_items = argc > 2 ? atol(argv[2]) : 20000000;
  n_rounds = argc > 3 ? atol(argv[3]) : 1000000;
  if (reps < 1 || reps > MAXREPS)
    reps = 7;
  int ncpu = mcx_port_ncpus();
  cpu_a = 0;
  cpu_b = ncpu > 1 ? 1 : 0;
  printf("ring_layouts: CPUs %d and %d (of %d), %d reps, %ld items streamed (ring %d), "
         "%ld ping-pong rounds (rings %d)\n",
         cpu_a, cpu_b, ncpu, reps, n_items, CAP_STREAM, n_rounds, CAP_PP);
  series_t L = {0}, ss = {0}, ns = {0}, sp = {0}, np = {0};
  for (int r = 0; r < reps; r++) {
    /* Alternate the order so a slow-mode phase of the host hits both. */
    L.v[L.n++] = line_rtt_ns();
    if (r & 1) {
      ns.v[ns.n++] = nbb_stream();
      ss.v[ss.n++] = slot_stream();
      np.v[np.n++] = nbb_pingpong();
      sp.v[sp.n++] = slot_pingpong();
    } else {
      ss.v[ss.n++] = slot_stream();
      ns.v[ns.n++] = nbb_stream();
      sp.v[sp.n++] = slot_pingpong();
      np.v[np.n++] = nbb_pingpong();
    }
    L.v[L.n++] = line_rtt_ns();
    printf("  rep %d: L %.0f/%.0f ns | stream slot %.1f nbb %.1f M/s | RTT slot %.0f nbb %.0f ns\n",
           r, L.v[L.n - 2], L.v[L.n - 1], ss.v[ss.n - 1] / 1e6, ns.v[ns.n - 1] / 1e6,
           sp.v[sp.n - 1], np.v[np.n - 1]);
  }
  double l = med(&L);
  double mss = med(&ss), mns = med(&ns), msp = med(&sp), mnp = med(&np);
  printf("median cache-line round trip L = %.0f ns (min %.0f max %.0f)\n", l, L.v[0], L.v[L.n - 1]);
  printf("streaming  slot-state %7.1f M items/s (min %.1f max %.1f)\n", mss / 1e6, ss.v[0] / 1e6,
         ss.v[ss.n - 1] / 1e6);
  printf("streaming  nbb        %7.1f M items/s (min %.1f max %.1f)\n", mns / 1e6, ns.v[0] / 1e6,
         ns.v[ns.n - 1] / 1e6);
  printf("ping-pong  slot-state %7.0f ns RTT = %.2f L (min %.0f max %.0f)\n", msp, msp / l, sp.v[0],
         sp.v[sp.n - 1]);
  printf("ping-pong  nbb        %7.0f ns RTT = %.2f L (min %.0f max %.0f)\n", mnp, mnp / l, np.v[0],
         np.v[np.n - 1]);
  printf("ratios slot-state / nbb: streaming throughput %.2fx (above 1 = slot-state faster), "
         "ping-pong RTT %.2fx (below 1 = slot-state faster)\n",
         mss / mns, msp / mnp);
  return 0;
}
