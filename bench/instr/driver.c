/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Instruction-count driver for the data path (bench/instr/instr.py runs it
 * under callgrind). One node sends to itself in a loop; each case runs a
 * warm-up outside the counted function, then N iterations inside
 * instr_measure(), which callgrind counts alone (--toggle-collect). One
 * iteration is one hand-off: send + receive (+ release for packets), driver
 * loop included.
 *
 * The peers do the same work per item in the same loop shape: a bare C11 ring
 * with a sequence word per slot (the ideal the data path is judged against),
 * Concurrency Kit's ck_ring and Boost.Lockfree's spsc_queue when they were
 * found at build time.
 *
 * Usage: mca_instr_driver CASE N     (mca_instr_driver --list prints the cases)
 *        mca_instr_driver --time CASE N
 *            runs natively and prints `ns_per_iteration X`: the median of 5
 *            timed runs of N iterations each (what one hand-off costs one
 *            core with everything in its cache; `mca model` takes it as the
 *            per-item instruction cost)
 */
#include <mcapi.h>
#include <mcx.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef MCA_HAVE_CK
#include <ck_ring.h>
#endif

#define DOMAIN 1
#define NODE 1
#define BIG 8192

typedef void (*loop_fn)(long n);

static unsigned char src_buf[BIG], dst_buf[BIG];
static volatile uint64_t sink;

/* ---- libmca ---- */
static mcapi_endpoint_t ep_a, ep_b;
static mcapi_pktchan_send_hndl_t pkt_tx;
static mcapi_pktchan_recv_hndl_t pkt_rx;
static mcapi_sclchan_send_hndl_t scl_tx;
static mcapi_sclchan_recv_hndl_t scl_rx;

static void die(const char *what, mcapi_status_t st)
{
  char b[MCAPI_MAX_STATUS_SIZE];
  fprintf(stderr, "mca_instr_driver: %s: %s\n", what, mcapi_display_status(st, b, sizeof b));
  exit(1);
}

static void wait_ok(mcapi_request_t *r, const char *what)
{
  mcapi_status_t st;
  size_t n;
  mcapi_wait(r, &n, MCAPI_TIMEOUT_INFINITE, &st);
  if (st != MCAPI_SUCCESS)
    die(what, st);
}

static void mcapi_setup(int chan_type)
{
  mcapi_status_t st;
  mcapi_info_t info;
  mcapi_param_t param;
  mcx_param_init(&param);
  if (chan_type == 'M') /* 8 KiB messages exceed the default MCAPI_MAX_MSG_SIZE */
    param.max_msg_size = BIG;
  mcapi_initialize(DOMAIN, NODE, NULL, &param, &info, &st);
  if (st != MCAPI_SUCCESS)
    die("initialize", st);
  ep_a = mcapi_endpoint_create(1, &st);
  if (st != MCAPI_SUCCESS)
    die("endpoint_create", st);
  ep_b = mcapi_endpoint_create(2, &st);
  if (st != MCAPI_SUCCESS)
    die("endpoint_create", st);
  if (chan_type == 0 || chan_type == 'M')
    return;
  mcapi_request_t rc, rs, rr;
  if (chan_type == 'p') {
    mcapi_pktchan_connect_i(ep_a, ep_b, &rc, &st);
    wait_ok(&rc, "pktchan_connect");
    mcapi_pktchan_send_open_i(&pkt_tx, ep_a, &rs, &st);
    mcapi_pktchan_recv_open_i(&pkt_rx, ep_b, &rr, &st);
  } else {
    mcapi_sclchan_connect_i(ep_a, ep_b, &rc, &st);
    wait_ok(&rc, "sclchan_connect");
    mcapi_sclchan_send_open_i(&scl_tx, ep_a, &rs, &st);
    mcapi_sclchan_recv_open_i(&scl_rx, ep_b, &rr, &st);
  }
  wait_ok(&rs, "send_open");
  wait_ok(&rr, "recv_open");
}

static void loop_msg(long n, size_t size)
{
  mcapi_status_t st = MCAPI_SUCCESS;
  size_t got = 0;
  for (long i = 0; i < n; i++) {
    mcapi_msg_send(ep_a, ep_b, src_buf, size, 1, &st);
    if (st != MCAPI_SUCCESS)
      break; /* a failed send must not leave the receive waiting */
    mcapi_msg_recv(ep_b, dst_buf, size, &got, &st);
  }
  if (st != MCAPI_SUCCESS || got != size)
    die("msg", st);
}
static void loop_msg24(long n) { loop_msg(n, 24); }
static void loop_msg8k(long n) { loop_msg(n, BIG); }

static void loop_scl64(long n)
{
  mcapi_status_t st = MCAPI_SUCCESS;
  uint64_t sum = 0;
  for (long i = 0; i < n; i++) {
    mcapi_sclchan_send_uint64(scl_tx, (uint64_t)i, &st);
    if (st != MCAPI_SUCCESS)
      break;
    sum += mcapi_sclchan_recv_uint64(scl_rx, &st);
  }
  if (st != MCAPI_SUCCESS)
    die("scalar", st);
  sink = sum;
}

static void pkt_loop(long n, size_t size)
{
  mcapi_status_t st = MCAPI_SUCCESS;
  void *p;
  size_t got;
  for (long i = 0; i < n; i++) {
    mcapi_pktchan_send(pkt_tx, src_buf, size, &st);
    if (st != MCAPI_SUCCESS)
      break;
    mcapi_pktchan_recv(pkt_rx, &p, &got, &st);
    mcapi_pktchan_release(p, &st);
  }
  if (st != MCAPI_SUCCESS)
    die("packet", st);
}
static void loop_pkt24(long n) { pkt_loop(n, 24); }

/* The same hand-off with a ready item (the driver's) copied into a claim
 * and committed (mcx_pktchan_send_alloc / _commit): the same bytes copied
 * as the send copies them, so the difference is the two calls against the
 * send's one. */
static void pkt_claim_loop(long n, size_t size)
{
  mcapi_status_t st = MCAPI_SUCCESS;
  void *p;
  size_t got;
  for (long i = 0; i < n; i++) {
    void *q = mcx_pktchan_send_alloc(pkt_tx, size, &st);
    if (st != MCAPI_SUCCESS)
      break;
    /* The library's memcpy, as the send's copy (a constant size would
     * let the compiler inline a copy of another instruction count). */
    size_t z = size;
    __asm__("" : "+r"(z));
    memcpy(q, src_buf, z);
    mcx_pktchan_send_commit(pkt_tx, q, size, &st);
    if (st != MCAPI_SUCCESS)
      break;
    mcapi_pktchan_recv(pkt_rx, &p, &got, &st);
    mcapi_pktchan_release(p, &st);
  }
  if (st != MCAPI_SUCCESS)
    die("packet claim", st);
}

/* A producer that builds each packet: word by word, its sequence number
 * and then a fill that follows from it (seq + offset), written whole at
 * @p dst (the same work in both build loops). A loop of stores, not libc's
 * memset: under callgrind a large memset is a rep stosb counted byte by
 * byte, which would bury the difference the rows are there to show. */
static inline void build_item(unsigned char *dst, size_t size, uint64_t seq)
{
  size_t z = size; /* not a constant: the same loop at every size */
  __asm__("" : "+r"(z));
  for (size_t i = 0; i + 8 <= z; i += 8) {
    uint64_t w = seq + i;
    memcpy(dst + i, &w, 8);
  }
}

/* What the receiver saw of the last built item: its sequence number. */
static uint64_t built_last;

/* Built in the producer's own buffer, then sent (the send copies it). */
static void pkt_build_loop(long n, size_t size)
{
  mcapi_status_t st = MCAPI_SUCCESS;
  void *p = NULL;
  size_t got;
  uint64_t last = 0;
  for (long i = 0; i < n; i++) {
    build_item(src_buf, size, (uint64_t)i);
    mcapi_pktchan_send(pkt_tx, src_buf, size, &st);
    if (st != MCAPI_SUCCESS)
      break;
    mcapi_pktchan_recv(pkt_rx, &p, &got, &st);
    memcpy(&last, p, 8);
    mcapi_pktchan_release(p, &st);
  }
  if (st != MCAPI_SUCCESS)
    die("packet build", st);
  built_last = last;
}

/* Built straight into a claim, then committed: no buffer of the
 * producer's, no copy. */
static void pkt_claim_build_loop(long n, size_t size)
{
  mcapi_status_t st = MCAPI_SUCCESS;
  void *p = NULL;
  size_t got;
  uint64_t last = 0;
  for (long i = 0; i < n; i++) {
    void *q = mcx_pktchan_send_alloc(pkt_tx, size, &st);
    if (st != MCAPI_SUCCESS)
      break;
    build_item(q, size, (uint64_t)i);
    mcx_pktchan_send_commit(pkt_tx, q, size, &st);
    if (st != MCAPI_SUCCESS)
      break;
    mcapi_pktchan_recv(pkt_rx, &p, &got, &st);
    memcpy(&last, p, 8);
    mcapi_pktchan_release(p, &st);
  }
  if (st != MCAPI_SUCCESS)
    die("packet claim build", st);
  built_last = last;
}

static void loop_pktc24(long n) { pkt_claim_loop(n, 24); }
static void loop_pktb24(long n) { pkt_build_loop(n, 24); }
static void loop_pktcb24(long n) { pkt_claim_build_loop(n, 24); }
#if MCAPI_MAX_PKT_SIZE >= BIG
/* 8 KiB packets: a build with MCAPI_MAX_PKT_SIZE of 8192 or more. */
static void loop_pkt8k(long n) { pkt_loop(n, BIG); }
static void loop_pktc8k(long n) { pkt_claim_loop(n, BIG); }
static void loop_pktb8k(long n) { pkt_build_loop(n, BIG); }
static void loop_pktcb8k(long n) { pkt_claim_build_loop(n, BIG); }
#endif
/* A packet larger than a slot's inline bytes: it travels in a pool buffer. */
static void loop_pkt1k(long n) { pkt_loop(n, 1024); }
static void loop_pktc1k(long n) { pkt_claim_loop(n, 1024); }
static void loop_pktb1k(long n) { pkt_build_loop(n, 1024); }
static void loop_pktcb1k(long n) { pkt_claim_build_loop(n, 1024); }

/* ---- a bare C11 ring with a sequence word per slot ---- */
#define RING_SLOTS 64
struct ring {
  _Alignas(64) unsigned long head; /* producer only */
  _Alignas(64) unsigned long tail; /* consumer only */
  _Alignas(64) struct {
    _Atomic unsigned long seq;
    uint32_t size;
    unsigned char data[BIG];
  } slot[RING_SLOTS];
};
static struct ring *ring;

static int ring_put(const void *buf, uint32_t size)
{
  unsigned long h = ring->head;
  __typeof__(ring->slot[0]) *s = &ring->slot[h & (RING_SLOTS - 1)];
  /* acquire: pairs with the consumer's release that freed the slot */
  if (atomic_load_explicit(&s->seq, memory_order_acquire) != h)
    return 0;
  s->size = size;
  memcpy(s->data, buf, size);
  /* release: pairs with ring_get's acquire of seq */
  atomic_store_explicit(&s->seq, h + 1, memory_order_release);
  ring->head = h + 1;
  return 1;
}

static uint32_t ring_get(void *buf, uint32_t cap)
{
  unsigned long t = ring->tail;
  __typeof__(ring->slot[0]) *s = &ring->slot[t & (RING_SLOTS - 1)];
  /* acquire: pairs with ring_put's release */
  if (atomic_load_explicit(&s->seq, memory_order_acquire) != t + 1)
    return 0;
  uint32_t size = s->size < cap ? s->size : cap;
  memcpy(buf, s->data, size);
  /* release: pairs with ring_put's acquire (the slot is free again) */
  atomic_store_explicit(&s->seq, t + RING_SLOTS, memory_order_release);
  ring->tail = t + 1;
  return size;
}

static void ring_setup(void)
{
  ring = aligned_alloc(64, sizeof *ring);
  memset(ring, 0, sizeof *ring);
  for (unsigned long i = 0; i < RING_SLOTS; i++)
    atomic_init(&ring->slot[i].seq, i);
}

static void loop_ring(long n, uint32_t size)
{
  uint32_t got = 0;
  for (long i = 0; i < n; i++) {
    ring_put(src_buf, size);
    got = ring_get(dst_buf, size);
  }
  sink = got;
}
static void loop_ring_msg24(long n) { loop_ring(n, 24); }
static void loop_ring_msg8k(long n) { loop_ring(n, BIG); }

static void loop_ring_scl64(long n)
{
  uint64_t sum = 0;
  for (long i = 0; i < n; i++) {
    unsigned long h = ring->head;
    __typeof__(ring->slot[0]) *s = &ring->slot[h & (RING_SLOTS - 1)];
    if (atomic_load_explicit(&s->seq, memory_order_acquire) == h) { /* partner: release below */
      memcpy(s->data, &i, 8);
      atomic_store_explicit(&s->seq, h + 1, memory_order_release); /* partner: acquire below */
      ring->head = h + 1;
    }
    unsigned long t = ring->tail;
    s = &ring->slot[t & (RING_SLOTS - 1)];
    if (atomic_load_explicit(&s->seq, memory_order_acquire) == t + 1) { /* partner: release above */
      uint64_t v;
      memcpy(&v, s->data, 8);
      sum += v;
      atomic_store_explicit(&s->seq, t + RING_SLOTS, memory_order_release); /* partner: acquire above */
      ring->tail = t + 1;
    }
  }
  sink = sum;
}

/* Zero-copy packet on the bare ring: the receiver reads in place, release frees the slot. */
static void loop_ring_pkt24(long n)
{
  uint64_t sum = 0;
  for (long i = 0; i < n; i++) {
    ring_put(src_buf, 24);
    unsigned long t = ring->tail;
    __typeof__(ring->slot[0]) *s = &ring->slot[t & (RING_SLOTS - 1)];
    if (atomic_load_explicit(&s->seq, memory_order_acquire) != t + 1) /* partner: ring_put */
      continue;
    ring->tail = t + 1;
    const unsigned char *p = s->data; /* "recv" hands out the pointer */
    sum += p[0];
    atomic_store_explicit(&s->seq, t + RING_SLOTS, memory_order_release); /* "release" */
  }
  sink = sum;
}

/* ---- Concurrency Kit ---- */
#ifdef MCA_HAVE_CK
struct item24 {
  unsigned char b[24];
};
CK_RING_PROTOTYPE(item24, item24)
static ck_ring_t ckr;
static void *ck_buf;

static void ck_setup(int typed)
{
  ck_buf = aligned_alloc(64, RING_SLOTS * (typed ? sizeof(struct item24) : sizeof(void *)));
  ck_ring_init(&ckr, RING_SLOTS);
}

static void loop_ck_msg24(long n)
{
  struct item24 in, out;
  memcpy(&in, src_buf, sizeof in);
  for (long i = 0; i < n; i++) {
    ck_ring_enqueue_spsc_item24(&ckr, ck_buf, &in);
    ck_ring_dequeue_spsc_item24(&ckr, ck_buf, &out);
  }
  memcpy(dst_buf, &out, sizeof out);
}

static void loop_ck_scl64(long n)
{
  uint64_t sum = 0;
  for (long i = 0; i < n; i++) {
    void *v = NULL;
    ck_ring_enqueue_spsc(&ckr, ck_buf, (void *)(uintptr_t)i);
    ck_ring_dequeue_spsc(&ckr, ck_buf, &v);
    sum += (uint64_t)(uintptr_t)v;
  }
  sink = sum;
}
#endif

/* ---- Boost.Lockfree (peer_boost.cpp) ---- */
#ifdef MCA_HAVE_BOOST_INSTR
void mca_instr_boost_setup(void);
void mca_instr_boost_msg24(long n, const void *src, void *dst);
uint64_t mca_instr_boost_scl64(long n);
static void loop_boost_msg24(long n) { mca_instr_boost_msg24(n, src_buf, dst_buf); }
static void loop_boost_scl64(long n) { sink = mca_instr_boost_scl64(n); }
#endif

struct instr_case {
  const char *name;
  loop_fn fn;
  int setup; /* 0 none, 'm' msg, 'p' pkt, 's' scl, 'r' ring, 'c'/'C' ck, 'b' boost */
  int check; /* 'd' the payload reaches dst_buf; 'b' built items arrive in order; 0 none */
};

static const struct instr_case cases[] = {
  {"msg24", loop_msg24, 'm', 'd'},
  {"scl64", loop_scl64, 's', 0},
  {"pkt24", loop_pkt24, 'p', 0},
  {"pkt1k", loop_pkt1k, 'p', 0},
  {"pktc24", loop_pktc24, 'p', 0},
  {"pktc1k", loop_pktc1k, 'p', 0},
  {"pktb24", loop_pktb24, 'p', 'b'},
  {"pktcb24", loop_pktcb24, 'p', 'b'},
  {"pktb1k", loop_pktb1k, 'p', 'b'},
  {"pktcb1k", loop_pktcb1k, 'p', 'b'},
#if MCAPI_MAX_PKT_SIZE >= BIG
  {"pkt8k", loop_pkt8k, 'p', 0},
  {"pktc8k", loop_pktc8k, 'p', 0},
  {"pktb8k", loop_pktb8k, 'p', 'b'},
  {"pktcb8k", loop_pktcb8k, 'p', 'b'},
#endif
  {"msg8k", loop_msg8k, 'M', 'd'},
  {"ring_msg24", loop_ring_msg24, 'r', 'd'},
  {"ring_scl64", loop_ring_scl64, 'r', 0},
  {"ring_pkt24", loop_ring_pkt24, 'r', 0},
  {"ring_msg8k", loop_ring_msg8k, 'r', 'd'},
#ifdef MCA_HAVE_CK
  {"ck_msg24", loop_ck_msg24, 'C', 'd'},
  {"ck_scl64", loop_ck_scl64, 'c', 0},
#endif
#ifdef MCA_HAVE_BOOST_INSTR
  {"boost_msg24", loop_boost_msg24, 'b', 'd'},
  {"boost_scl64", loop_boost_scl64, 'b', 0},
#endif
};

/* The only function callgrind counts (--toggle-collect=instr_measure). */
__attribute__((noinline)) void instr_measure(loop_fn fn, long n);
__attribute__((noinline)) void instr_measure(loop_fn fn, long n) { fn(n); }

static double now_ns(void)
{
  struct timespec t;
  timespec_get(&t, TIME_UTC);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* --time: the median of 5 timed runs, ns per iteration. */
static void time_case(loop_fn fn, long n)
{
  double per[5];
  for (int r = 0; r < 5; r++) {
    double t0 = now_ns();
    instr_measure(fn, n);
    per[r] = (now_ns() - t0) / (double)n;
  }
  qsort(per, 5, sizeof per[0], cmp_double);
  printf("ns_per_iteration %.3f\n", per[2]);
}

int main(int argc, char **argv)
{
  size_t ncases = sizeof cases / sizeof cases[0];
  int timed = argc == 4 && !strcmp(argv[1], "--time");
  if (timed) {
    argv++;
    argc--;
  }
  if (argc == 2 && !strcmp(argv[1], "--list")) {
    for (size_t i = 0; i < ncases; i++)
      puts(cases[i].name);
    return 0;
  }
  if (argc != 3) {
    fprintf(stderr, "usage: mca_instr_driver [--time] CASE N | --list\n");
    return 2;
  }
  char *end;
  long n = strtol(argv[2], &end, 10);
  if (*end || n <= 0) {
    fprintf(stderr, "mca_instr_driver: N must be a positive integer, not '%s'\n", argv[2]);
    return 2;
  }
  for (size_t i = 0; i < ncases; i++) {
    if (strcmp(argv[1], cases[i].name))
      continue;
    switch (cases[i].setup) {
    case 'm': mcapi_setup(0); break;
    case 'M': mcapi_setup('M'); break;
    case 'p': mcapi_setup('p'); break;
    case 's': mcapi_setup('s'); break;
    case 'r': ring_setup(); break;
#ifdef MCA_HAVE_CK
    case 'c': ck_setup(0); break;
    case 'C': ck_setup(1); break;
#endif
#ifdef MCA_HAVE_BOOST_INSTR
    case 'b': mca_instr_boost_setup(); break;
#endif
    }
    memset(src_buf, 0x5a, sizeof src_buf);
    cases[i].fn(1000); /* warm-up: first-use paths, caches, lazy binding */
    if (timed)
      time_case(cases[i].fn, n);
    else
      instr_measure(cases[i].fn, n);
    if ((cases[i].check == 'd' && memcmp(src_buf, dst_buf, 24)) ||
        (cases[i].check == 'b' && built_last != (uint64_t)n - 1)) {
      fprintf(stderr, "mca_instr_driver: %s: the payload did not arrive\n", argv[1]);
      return 1;
    }
    if (cases[i].setup == 'm' || cases[i].setup == 'M' || cases[i].setup == 'p' || cases[i].setup == 's') {
      mcapi_status_t st;
      mcapi_finalize(&st);
    }
    return 0;
  }
  fprintf(stderr, "mca_instr_driver: unknown case '%s' (--list)\n", argv[1]);
  return 2;
}
