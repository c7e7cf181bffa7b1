/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * model_opcount: the driver `mca model --count` runs under
 * `valgrind --tool=lackey --trace-mem=yes` to count, from the implementation
 * itself, the memory operations one exchange costs (tools/model/opcount.py
 * reads the trace). It also measures, natively, what those operations cost on
 * this machine (--calibrate).
 *
 *   model_opcount exchange --type message|packet|scalar --locking lockfree|global
 *                 [--size BYTES] [--exchanges K] [--warmup W]
 *       Two threads, node 1 (sender) and node 2 (receiver) of one domain,
 *       alternate strictly: the sender sends one item, then the receiver
 *       receives it, K + W times. Each side brackets its call with a store to
 *       its own marker line, so the trace reader attributes every access
 *       between the markers to that side. The idle side is blocked in a POSIX
 *       semaphore (a futex), so it runs no code inside the other's window
 *       except the user-space tail of sem_post/sem_wait, which touches no
 *       partition line. The first W exchanges warm the caches and are not
 *       counted.
 *   model_opcount toy [--exchanges K]
 *       A toy ring with known counts, for the tests: per exchange the sender
 *       does 2 loads, 3 stores and 1 atomic RMW on a shared page, the
 *       receiver 3 loads, 1 store and 2 RMWs (see toy_send / toy_recv); in
 *       steady state the sender pulls 2 lines from the receiver's cache and
 *       the receiver pulls 1 and upgrades 2 (invalidates the sender's copy).
 *   model_opcount calibrate
 *       Prints JSON: ns per L1-resident pointer-chase step (a local hit), per
 *       pointer-chase step over 256 MiB in random line order (a memory access),
 *       and per uncontended atomic fetch-add on a private line.
 *   model_opcount probe [--cpus A,B]
 *       Prints JSON: what a stream gets from the hardware between CPU A (the
 *       reader) and CPU B (the writer; default 0 and 1). lines_in_flight: B
 *       writes 32 lines, A reads them as a dependent chase in random order
 *       (one transfer at a time) and as independent loads in order (as many
 *       in flight as the core and prefetcher allow); the ratio of the two
 *       times; store_lines_in_flight: the same for stores to the lines, in order,
 *       drained by a full fence. memcpy_xcore_bytes_per_ns: A copies 64 KiB that B has just
 *       written. memcpy_local_bytes_per_ns: an 8 KiB copy within A's cache.
 *       Medians over the rounds.
 *
 * Standard output carries the lines the trace reader needs:
 *   opcount.map START END OFFSET NAME   every mapping of a /dev/shm/mcx-* partition
 *   opcount.shared START END            the toy's shared page
 *   opcount.marker NAME ADDR            the four marker lines
 *   opcount.done K W                    exchanges counted and warm-up
 */
#include <errno.h>
#include <sched.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "mcapi.h"
#include "mcx.h"

#define DOMAIN_ID 73u
#define PORT_MSG 1
#define PORT_TX 10
#define PORT_RX 11
#define TIMEOUT_MS 10000u

enum { M_SEND_BEGIN, M_SEND_END, M_RECV_BEGIN, M_RECV_END, M_COUNT };
static const char *const marker_names[M_COUNT] = {"send_begin", "send_end", "recv_begin", "recv_end"};

/* One line per marker, so a marker store never shares a line with anything. */
static struct {
  _Alignas(64) atomic_uint v;
} markers[M_COUNT];

static void mark(int m)
{
  /* A relaxed atomic store: the compiler must emit exactly one store. */
  atomic_store_explicit(&markers[m].v, 1u, memory_order_relaxed);
}

static struct cfg {
  int type; /* 'm', 'p', 's' */
  mcx_locking_t locking;
  size_t size;
  long exchanges, warmup;
} cfg = {'m', MCX_LOCKING_LOCKFREE, 24, 200, 20};

static sem_t go_send, go_recv;
static pthread_barrier_t ready;
static int failed;

static void die(const char *what, mcapi_status_t st)
{
  char b[MCAPI_MAX_STATUS_MSG_LEN];
  fprintf(stderr, "model_opcount: %s: %s\n", what, mcapi_display_status(st, b, sizeof b) ? b : "?");
  exit(1);
}

static void init_node(mcapi_node_t node)
{
  mcapi_param_t p;
  mcapi_info_t info;
  mcapi_status_t st;
  mcx_param_init(&p);
  p.locking = cfg.locking;
  /* A small partition: set-up is traced too, and the data path does not
   * depend on the table sizes. */
  p.max_endpoints = 8;
  p.queue_elements = 16;
  mcapi_initialize(DOMAIN_ID, node, NULL, &p, &info, &st);
  if (st != MCAPI_SUCCESS)
    die("mcapi_initialize", st);
}

static mcapi_endpoint_t make_ep(mcapi_port_t port)
{
  mcapi_status_t st;
  mcapi_endpoint_t e = mcapi_endpoint_create(port, &st);
  if (st != MCAPI_SUCCESS)
    die("mcapi_endpoint_create", st);
  return e;
}

static void wait_req(mcapi_request_t *r, const char *what)
{
  mcapi_status_t st;
  size_t sz;
  mcapi_wait(r, &sz, TIMEOUT_MS, &st);
  if (st != MCAPI_SUCCESS)
    die(what, st);
}

/* Prints every mapping of a libmca partition (a node may map it on its own). */
static void print_partition_maps(void)
{
  FILE *f = fopen("/proc/self/maps", "r");
  char line[512];
  while (f && fgets(line, sizeof line, f)) {
    unsigned long lo, hi, off;
    char perms[8], dev[16], path[400] = "";
    unsigned long ino;
    if (sscanf(line, "%lx-%lx %7s %lx %15s %lu %399s", &lo, &hi, perms, &off, dev, &ino, path) >= 6 &&
        strstr(path, "/dev/shm/mcx-") && !strstr(path, "mcx-mrapi"))
      printf("opcount.map %lx %lx %lx %s\n", lo, hi, off, path);
  }
  if (f)
    fclose(f);
}

static void *sender(void *arg)
{
  (void)arg;
  init_node(1);
  mcapi_status_t st;
  mcapi_endpoint_t me = 0, peer = 0;
  mcapi_pktchan_send_hndl_t ps = 0;
  mcapi_sclchan_send_hndl_t ss = 0;
  if (cfg.type == 'm') {
    me = make_ep(PORT_MSG);
    peer = mcapi_endpoint_get(DOMAIN_ID, 2, PORT_MSG, TIMEOUT_MS, &st);
    if (st != MCAPI_SUCCESS)
      die("mcapi_endpoint_get", st);
  } else {
    mcapi_endpoint_t tx = make_ep(PORT_TX);
    mcapi_endpoint_t rx = mcapi_endpoint_get(DOMAIN_ID, 2, PORT_RX, TIMEOUT_MS, &st);
    if (st != MCAPI_SUCCESS)
      die("mcapi_endpoint_get", st);
    mcapi_request_t rc, ro;
    if (cfg.type == 'p')
      mcapi_pktchan_connect_i(tx, rx, &rc, &st);
    else
      mcapi_sclchan_connect_i(tx, rx, &rc, &st);
    wait_req(&rc, "connect");
    if (cfg.type == 'p')
      mcapi_pktchan_send_open_i(&ps, tx, &ro, &st);
    else
      mcapi_sclchan_send_open_i(&ss, tx, &ro, &st);
    wait_req(&ro, "send_open");
  }
  uint8_t *buf = calloc(1, cfg.size + 64);
  pthread_barrier_wait(&ready);
  for (long i = 0; i < cfg.exchanges + cfg.warmup; i++) {
    while (sem_wait(&go_send) && errno == EINTR)
      ;
    memcpy(buf, &i, sizeof i);
    mark(M_SEND_BEGIN);
    if (cfg.type == 'm')
      mcapi_msg_send(me, peer, buf, cfg.size, 1, &st);
    else if (cfg.type == 'p')
      mcapi_pktchan_send(ps, buf, cfg.size, &st);
    else
      mcapi_sclchan_send_uint64(ss, (uint64_t)i, &st);
    mark(M_SEND_END);
    if (st != MCAPI_SUCCESS)
      die("send", st);
    sem_post(&go_recv);
  }
  pthread_barrier_wait(&ready); /* the receiver has taken everything */
  if (cfg.type != 'm') {
    mcapi_request_t r;
    size_t sz;
    if (cfg.type == 'p')
      mcapi_pktchan_send_close_i(ps, &r, &st);
    else
      mcapi_sclchan_send_close_i(ss, &r, &st);
    if (st == MCAPI_PENDING)
      mcapi_wait(&r, &sz, TIMEOUT_MS, &st);
  }
  pthread_barrier_wait(&ready);
  mcapi_finalize(&st);
  free(buf);
  return NULL;
}

static void *receiver(void *arg)
{
  (void)arg;
  init_node(2);
  mcapi_status_t st;
  mcapi_endpoint_t me = 0;
  mcapi_pktchan_recv_hndl_t pr = 0;
  mcapi_sclchan_recv_hndl_t sr = 0;
  if (cfg.type == 'm') {
    me = make_ep(PORT_MSG);
  } else {
    mcapi_endpoint_t rx = make_ep(PORT_RX);
    mcapi_request_t ro;
    if (cfg.type == 'p')
      mcapi_pktchan_recv_open_i(&pr, rx, &ro, &st);
    else
      mcapi_sclchan_recv_open_i(&sr, rx, &ro, &st);
    wait_req(&ro, "recv_open");
  }
  uint8_t *buf = calloc(1, cfg.size + 64);
  pthread_barrier_wait(&ready);
  print_partition_maps(); /* both nodes have mapped the partition by now */
  fflush(stdout);
  for (long i = 0; i < cfg.exchanges + cfg.warmup; i++) {
    while (sem_wait(&go_recv) && errno == EINTR)
      ;
    size_t got = 0;
    uint64_t v = 0;
    mark(M_RECV_BEGIN);
    if (cfg.type == 'm') {
      mcapi_msg_recv(me, buf, cfg.size, &got, &st);
    } else if (cfg.type == 'p') {
      void *p = NULL;
      mcapi_pktchan_recv(pr, &p, &got, &st);
      if (st == MCAPI_SUCCESS) {
        memcpy(buf, p, got < 64 ? got : 64); /* read the stamp, as mca bench does */
        mcapi_pktchan_release(p, &st);
      }
    } else {
      v = mcapi_sclchan_recv_uint64(sr, &st);
      got = 8;
    }
    mark(M_RECV_END);
    if (st != MCAPI_SUCCESS)
      die("receive", st);
    long seq = 0;
    if (cfg.type == 's')
      seq = (long)v;
    else
      memcpy(&seq, buf, sizeof seq);
    if (seq != i || (cfg.type != 's' && got != cfg.size)) {
      fprintf(stderr, "model_opcount: item %ld arrived as %ld (%zu bytes)\n", i, seq, got);
      failed = 1;
    }
    sem_post(&go_send);
  }
  pthread_barrier_wait(&ready);
  if (cfg.type != 'm') {
    mcapi_request_t r;
    size_t sz;
    if (cfg.type == 'p')
      mcapi_pktchan_recv_close_i(pr, &r, &st);
    else
      mcapi_sclchan_recv_close_i(sr, &r, &st);
    if (st == MCAPI_PENDING)
      mcapi_wait(&r, &sz, TIMEOUT_MS, &st);
  }
  pthread_barrier_wait(&ready);
  mcapi_finalize(&st);
  free(buf);
  return NULL;
}

static void print_markers(void)
{
  for (int m = 0; m < M_COUNT; m++)
    printf("opcount.marker %s %lx\n", marker_names[m], (unsigned long)(uintptr_t)&markers[m].v);
}

static int run_exchange(void)
{
  print_markers();
  sem_init(&go_send, 0, 1);
  sem_init(&go_recv, 0, 0);
  pthread_barrier_init(&ready, NULL, 2);
  pthread_t s, r;
  pthread_create(&r, NULL, receiver, NULL);
  pthread_create(&s, NULL, sender, NULL);
  pthread_join(s, NULL);
  pthread_join(r, NULL);
  printf("opcount.done %ld %ld\n", cfg.exchanges, cfg.warmup);
  return failed;
}

/* ---- the toy ring: counts known by construction ---------------------------------- */

static struct toy {
  _Alignas(64) atomic_ulong tail; /* line 0: the producer's */
  _Alignas(64) atomic_ulong head; /* line 1: the consumer's */
  _Alignas(64) atomic_ulong slot[2]; /* line 2: seq word and value */
} *toy;

static void toy_send(long i)
{
  /* 2 loads, 3 stores, 1 RMW; every loaded value is used, so no load is dead */
  unsigned long t = atomic_load_explicit(&toy->tail, memory_order_relaxed);
  unsigned long h = atomic_load_explicit(&toy->head, memory_order_acquire);
  atomic_store_explicit(&toy->slot[1], ((unsigned long)i << 1) | (h & 1), memory_order_relaxed);
  atomic_store_explicit(&toy->slot[0], t + 1, memory_order_release);
  atomic_store_explicit(&toy->tail, t + 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&toy->tail, 0, memory_order_acq_rel);
}

static long toy_recv(void)
{
  /* 3 loads, 1 store, 2 RMWs */
  unsigned long s = atomic_load_explicit(&toy->slot[0], memory_order_acquire);
  unsigned long v = atomic_load_explicit(&toy->slot[1], memory_order_relaxed);
  unsigned long h = atomic_load_explicit(&toy->head, memory_order_relaxed);
  atomic_store_explicit(&toy->head, h + 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&toy->slot[0], 0, memory_order_acq_rel);
  unsigned long expect = h + 1;
  atomic_compare_exchange_strong_explicit(&toy->head, &expect, h + 1, memory_order_acq_rel,
                                          memory_order_relaxed);
  if (s == 0)
    failed = 1;
  return (long)(v >> 1);
}

static void *toy_sender(void *arg)
{
  (void)arg;
  for (long i = 0; i < cfg.exchanges + cfg.warmup; i++) {
    while (sem_wait(&go_send) && errno == EINTR)
      ;
    mark(M_SEND_BEGIN);
    toy_send(i);
    mark(M_SEND_END);
    sem_post(&go_recv);
  }
  return NULL;
}

static void *toy_receiver(void *arg)
{
  (void)arg;
  for (long i = 0; i < cfg.exchanges + cfg.warmup; i++) {
    while (sem_wait(&go_recv) && errno == EINTR)
      ;
    mark(M_RECV_BEGIN);
    long v = toy_recv();
    mark(M_RECV_END);
    if (v != i)
      failed = 1;
    sem_post(&go_send);
  }
  return NULL;
}

static int run_toy(void)
{
  toy = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (toy == MAP_FAILED) {
    perror("model_opcount: mmap");
    return 1;
  }
  printf("opcount.shared %lx %lx\n", (unsigned long)(uintptr_t)toy, (unsigned long)(uintptr_t)toy + 4096);
  print_markers();
  fflush(stdout);
  sem_init(&go_send, 0, 1);
  sem_init(&go_recv, 0, 0);
  pthread_t s, r;
  pthread_create(&r, NULL, toy_receiver, NULL);
  pthread_create(&s, NULL, toy_sender, NULL);
  pthread_join(s, NULL);
  pthread_join(r, NULL);
  printf("opcount.done %ld %ld\n", cfg.exchanges, cfg.warmup);
  return failed;
}

/* ---- calibration: what a hit, a memory access and a local RMW cost ---------------- */

static double now_ns(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rng(void)
{
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

/* Keeps the chase's result alive (not synchronization). */
static void *volatile chase_sink;

/* ns per step of a pointer chase through @p bytes, one pointer per line, random cyclic order. */
static double chase_ns(size_t bytes, long steps)
{
  size_t n = bytes / 64;
  void **mem = aligned_alloc(64, n * 64);
  size_t *order = malloc(n * sizeof *order);
  if (!mem || !order) {
    free(mem);
    free(order);
    return -1;
  }
  for (size_t i = 0; i < n; i++)
    order[i] = i;
  for (size_t i = n - 1; i > 0; i--) {
    size_t j = (size_t)(rng() % (i + 1));
    size_t t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  for (size_t i = 0; i < n; i++)
    mem[order[i] * 8] = &mem[order[(i + 1) % n] * 8];
  void **p = &mem[order[0] * 8];
  for (size_t i = 0; i < n; i++) /* one lap to warm (and fault in) the pages */
    p = (void **)*p;
  double best = 1e30;
  for (int rep = 0; rep < 3; rep++) {
    double t0 = now_ns();
    for (long i = 0; i < steps; i++)
      p = (void **)*p;
    double ns = (now_ns() - t0) / (double)steps;
    chase_sink = p;
    if (ns < best)
      best = ns;
  }
  free(order);
  free(mem);
  return best;
}

/* ns per load of independent L1-resident loads (4 accumulators): what a hit
 * costs an out-of-order core that does not wait for it. */
static double load_ns(long rounds)
{
  enum { N = 2048 }; /* 16 KiB */
  static uint64_t arr[N];
  for (int i = 0; i < N; i++)
    arr[i] = (uint64_t)i;
  /* volatile: one scalar load per element, as the library's code does (no
   * vector loads); it orders nothing */
  const volatile uint64_t *a = arr;
  double best = 1e30;
  for (int rep = 0; rep < 3; rep++) {
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    double t0 = now_ns();
    for (long r = 0; r < rounds; r++) {
      for (int i = 0; i < N; i += 4) {
        s0 += a[i];
        s1 += a[i + 1];
        s2 += a[i + 2];
        s3 += a[i + 3];
      }
      __asm__ __volatile__("" : "+r"(s0), "+r"(s1), "+r"(s2), "+r"(s3)); /* no vectorizing across rounds */
    }
    double ns = (now_ns() - t0) / ((double)rounds * N);
    chase_sink = (void *)(uintptr_t)(s0 + s1 + s2 + s3);
    if (ns < best)
      best = ns;
  }
  return best;
}

static double rmw_ns(long n)
{
  static _Alignas(64) atomic_ulong x;
  double best = 1e30;
  for (int rep = 0; rep < 3; rep++) {
    double t0 = now_ns();
    for (long i = 0; i < n; i++)
      atomic_fetch_add_explicit(&x, 1, memory_order_seq_cst);
    double ns = (now_ns() - t0) / (double)n;
    if (ns < best)
      best = ns;
  }
  return best;
}

static int run_calibrate(void)
{
  double hit = chase_ns(16 << 10, 20000000);
  double mem = chase_ns((size_t)256 << 20, 2000000);
  double rmw = rmw_ns(20000000);
  double load = load_ns(10000);
  if (hit < 0 || mem < 0) {
    fprintf(stderr, "model_opcount: calibrate: out of memory\n");
    return 1;
  }
  printf("{\"hit_latency_ns\": %.3f, \"hit_ns\": %.3f, \"mem_ns\": %.3f, \"rmw_ns\": %.3f,\n"
         " \"method\": \"hit_latency_ns: pointer chase over 16 KiB (L1-resident), one pointer per "
         "64-byte line in random cyclic order; hit_ns: independent loads over the same 16 KiB "
         "(4 accumulators), the cost of a hit the core does not wait for; mem_ns: the pointer "
         "chase over 256 MiB; rmw_ns: uncontended seq_cst fetch_add on a private line; best of 3\"}\n",
         hit, load, mem, rmw);
  return 0;
}

/* ---- probe: lines in flight and memcpy bandwidth between two CPUs ----------------- */

enum { PROBE_LINES = 32, PROBE_ROUNDS = 301, XCOPY_BYTES = 64 << 10, LCOPY_BYTES = 8 << 10 };

static struct probe {
  _Alignas(64) atomic_uint turn; /* A sets odd: B writes; B sets even: A reads */
  _Alignas(64) atomic_uint stop;
  int cpu_b, what; /* 0: lines, 1: copy buffer */
  uint64_t *lines; /* PROBE_LINES lines, 8 words each */
  unsigned char *buf;
} pr;

static void pin_self(int cpu)
{
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

static uint32_t chase_next[PROBE_LINES];

static void *probe_writer(void *arg)
{
  (void)arg;
  pin_self(pr.cpu_b);
  unsigned seen = 0;
  for (;;) {
    unsigned t;
    /* acquire: pairs with the reader's release of an odd turn (or of stop) */
    while (((t = atomic_load_explicit(&pr.turn, memory_order_acquire)) == seen || !(t & 1)) &&
           !atomic_load_explicit(&pr.stop, memory_order_relaxed))
      ;
    if (atomic_load_explicit(&pr.stop, memory_order_relaxed))
      return NULL;
    seen = t;
    if (pr.what == 0) {
      for (int i = 0; i < PROBE_LINES; i++) /* every line to B's cache, modified */
        pr.lines[i * 8] = chase_next[i] + ((uint64_t)t << 32);
    } else {
      memset(pr.buf, (int)(t & 0xff), XCOPY_BYTES);
    }
    /* release: pairs with the reader's acquire of the even turn */
    atomic_store_explicit(&pr.turn, t + 1, memory_order_release);
  }
}

static int cmp_dbl(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static volatile uint64_t probe_sink;

/* One round: B writes, then A times @p how (0: chase, 1: independent loads, 2: copy, 3: stores). */
static double probe_round(unsigned *turn, int how, unsigned char *dst)
{
  *turn += 2;
  /* release: pairs with the writer's acquire of the odd turn */
  atomic_store_explicit(&pr.turn, *turn - 1, memory_order_release);
  /* acquire: pairs with the writer's release of the even turn */
  while (atomic_load_explicit(&pr.turn, memory_order_acquire) != *turn)
    ;
  double t0 = now_ns();
  uint64_t s = 0;
  if (how == 0) {
    uint32_t i = 0;
    for (int k = 0; k < PROBE_LINES; k++)
      i = (uint32_t)pr.lines[i * 8]; /* the next index is in the line: one transfer at a time */
    s = i;
  } else if (how == 1) {
    const volatile uint64_t *l = pr.lines; /* one scalar load per line, in order; orders nothing */
    for (int k = 0; k < PROBE_LINES; k++)
      s += l[k * 8];
  } else if (how == 3) {
    volatile uint64_t *l = pr.lines; /* one scalar store per line, in order */
    for (int k = 0; k < PROBE_LINES; k++)
      l[k * 8 + 1] = (uint64_t)k;
    /* a full fence: the stores leave the store buffer (each line owned) before the clock stops;
     * it orders nothing the writer reads */
    atomic_thread_fence(memory_order_seq_cst);
  } else {
    memcpy(dst, pr.buf, XCOPY_BYTES);
    s = dst[XCOPY_BYTES - 1];
  }
  double dt = now_ns() - t0;
  probe_sink = s;
  return dt;
}

static int run_probe(int cpu_a, int cpu_b)
{
  pr.lines = aligned_alloc(64, PROBE_LINES * 64);
  pr.buf = aligned_alloc(64, XCOPY_BYTES);
  unsigned char *dst = aligned_alloc(64, XCOPY_BYTES), *lsrc = aligned_alloc(64, LCOPY_BYTES);
  double *t = malloc(PROBE_ROUNDS * sizeof *t), res[4], tloc;
  if (!pr.lines || !pr.buf || !dst || !lsrc || !t) {
    fprintf(stderr, "model_opcount: probe: out of memory\n");
    return 1;
  }
  /* a random cyclic order of the lines for the chase */
  uint32_t order[PROBE_LINES];
  for (uint32_t i = 0; i < PROBE_LINES; i++)
    order[i] = i;
  for (uint32_t i = PROBE_LINES - 1; i > 0; i--) {
    uint32_t j = (uint32_t)(rng() % (i + 1)), x = order[i];
    order[i] = order[j];
    order[j] = x;
  }
  for (uint32_t i = 0; i < PROBE_LINES; i++)
    chase_next[order[i]] = order[(i + 1) % PROBE_LINES];
  memset(pr.lines, 0, PROBE_LINES * 64);
  memset(pr.buf, 0, XCOPY_BYTES);
  memset(dst, 0, XCOPY_BYTES);
  memset(lsrc, 1, LCOPY_BYTES);
  pr.cpu_b = cpu_b;
  pin_self(cpu_a);
  unsigned turn = 0;
  for (int how = 0; how < 4; how++) {
    pr.what = how == 2;
    atomic_store_explicit(&pr.stop, 0, memory_order_relaxed);
    pthread_t w;
    if (pthread_create(&w, NULL, probe_writer, NULL)) {
      fprintf(stderr, "model_opcount: probe: cannot start the writer thread\n");
      return 1;
    }
    for (int r = 0; r < 20; r++) /* warm-up */
      probe_round(&turn, how, dst);
    for (int r = 0; r < PROBE_ROUNDS; r++)
      t[r] = probe_round(&turn, how, dst);
    atomic_store_explicit(&pr.stop, 1, memory_order_relaxed);
    pthread_join(w, NULL);
    qsort(t, PROBE_ROUNDS, sizeof *t, cmp_dbl);
    res[how] = t[PROBE_ROUNDS / 2];
  }
  for (int r = 0; r < PROBE_ROUNDS; r++) {
    double t0 = now_ns();
    memcpy(dst, lsrc, LCOPY_BYTES);
    probe_sink = dst[r % LCOPY_BYTES];
    t[r] = now_ns() - t0;
  }
  qsort(t, PROBE_ROUNDS, sizeof *t, cmp_dbl);
  tloc = t[PROBE_ROUNDS / 2];
  double chase = res[0] / PROBE_LINES, ind = res[1] / PROBE_LINES, sto = res[3] / PROBE_LINES;
  printf("{\"cpus\": [%d, %d], \"line_transfer_ns\": %.3f, \"line_stream_ns\": %.3f, "
         "\"lines_in_flight\": %.3f,\n \"line_store_stream_ns\": %.3f, \"store_lines_in_flight\": %.3f,\n"
         " \"memcpy_xcore_bytes_per_ns\": %.3f, "
         "\"memcpy_local_bytes_per_ns\": %.3f,\n"
         " \"method\": \"B writes %d lines, A reads them as a dependent chase in random order "
         "(line_transfer_ns per line) and as independent loads in order (line_stream_ns per line); "
         "lines_in_flight = their ratio; A stores to each of them in order, then a full fence "
         "(line_store_stream_ns; store_lines_in_flight = line_transfer_ns / it); A copies %d bytes B has just written "
         "(memcpy_xcore) and %d bytes within its cache (memcpy_local); medians of %d rounds\"}\n",
         cpu_a, cpu_b, chase, ind, ind > 0 ? chase / ind : 0.0, sto, sto > 0 ? chase / sto : 0.0, XCOPY_BYTES / res[2],
         LCOPY_BYTES / (tloc > 0 ? tloc : 1), PROBE_LINES, XCOPY_BYTES, LCOPY_BYTES, PROBE_ROUNDS);
  free(t);
  free(lsrc);
  free(dst);
  free(pr.buf);
  free(pr.lines);
  return 0;
}

static int usage(void)
{
  fprintf(stderr,
          "usage: model_opcount exchange --type message|packet|scalar --locking lockfree|global\n"
          "                     [--size BYTES] [--exchanges K] [--warmup W]\n"
          "       model_opcount toy [--exchanges K]\n"
          "       model_opcount calibrate\n"
          "       model_opcount probe [--cpus A,B]\n");
  return 2;
}

int main(int argc, char **argv)
{
  if (argc < 2)
    return usage();
  const char *mode = argv[1];
  if (!strcmp(mode, "probe")) {
    int a = 0, b = 1;
    char tail;
    if (argc == 4 && !strcmp(argv[2], "--cpus") && sscanf(argv[3], "%d,%d%c", &a, &b, &tail) == 2 && a >= 0 &&
        b >= 0 && a != b)
      return run_probe(a, b);
    if (argc == 2)
      return run_probe(0, 1);
    return usage();
  }
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!v)
      return usage();
    if (!strcmp(a, "--type")) {
      if (strcmp(v, "message") && strcmp(v, "packet") && strcmp(v, "scalar"))
        return usage();
      cfg.type = v[0] == 'm' ? 'm' : v[0] == 'p' ? 'p' : 's';
    } else if (!strcmp(a, "--locking")) {
      if (!strcmp(v, "lockfree"))
        cfg.locking = MCX_LOCKING_LOCKFREE;
      else if (!strcmp(v, "global"))
        cfg.locking = MCX_LOCKING_GLOBAL;
      else
        return usage();
    } else if (!strcmp(a, "--size")) {
      cfg.size = (size_t)strtoul(v, NULL, 0);
    } else if (!strcmp(a, "--exchanges")) {
      cfg.exchanges = strtol(v, NULL, 0);
    } else if (!strcmp(a, "--warmup")) {
      cfg.warmup = strtol(v, NULL, 0);
    } else {
      return usage();
    }
    i++;
  }
  if (cfg.exchanges < 1 || cfg.warmup < 0 || cfg.size < 8)
    return usage();
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (!strcmp(mode, "exchange"))
    return run_exchange();
  if (!strcmp(mode, "toy"))
    return run_toy();
  if (!strcmp(mode, "calibrate"))
    return run_calibrate();
  return usage();
}
