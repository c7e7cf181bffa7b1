/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The `mca bench` harness: two sides (threads, or a parent and a forked child)
 * exchange fixed-size items through one "subject" — libmca in one of its
 * configurations, or a peer baseline — either as a ping-pong (round-trip
 * latency per item) or as a one-way stream (throughput).
 *
 * A subject is a table of operations (bench_ops_t). The harness owns threads,
 * pinning, barriers, warm-up, timing and the payload check; a subject only
 * moves bytes. Every item carries its sequence number in its first bytes and
 * the receiving side checks it, so a subject that loses or reorders items
 * fails the sample instead of producing a number.
 */
#ifndef MCA_BENCH_H
#define MCA_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "bench_hist.h"

/* The C++ peer sees the same layout with plain fields (same size and alignment). */
#ifdef __cplusplus
#define BENCH_ATOMIC(t) t
#define BENCH_ALIGN64 alignas(64)
#else
#include <stdatomic.h>
#define BENCH_ATOMIC(t) _Atomic t
#define BENCH_ALIGN64 _Alignas(64)
#endif

#define BENCH_OK 0
#define BENCH_NA 1  /* this subject cannot run this cell here (note says why) */
#define BENCH_ERR 2 /* it ran and failed (note says how) */

typedef enum bench_mode { BENCH_PINGPONG = 0, BENCH_STREAM = 1 } bench_mode_t;
typedef enum bench_place { PLACE_ONECORE = 0, PLACE_NONE = 1, PLACE_SPREAD = 2 } bench_place_t;

/* libmca configuration of a subject (ignored by peers). */
typedef struct bench_cfg {
  int type;          /* 'm' message, 'p' packet, 's' scalar */
  int locking;       /* MCX_LOCKING_LOCKFREE / _GLOBAL / _KERNEL */
  int transport;     /* 0 shm, 1 pmq */
  int blocking_wait; /* 1: mcx_set_wait_policy(0, 0) for the sample */
  int claim;         /* packets: sent with mcx_pktchan_send_alloc / _commit */
  int build;         /* packets: the sender writes the whole item (stamp and fill,
                      * bench_build) where it sends it from: its own buffer, or the claim */
} bench_cfg_t;

struct bench_ctx;

typedef struct bench_ops {
  const char *name;
  /* Whole-sample setup before the sides start (shared rings, fds); may be NULL. */
  int (*prepare)(struct bench_ctx *c);
  /* Per-side setup on the side's own thread/process; *h is the side's handle. */
  int (*open)(struct bench_ctx *c, int side, void **h);
  /* Moves one item of c->size bytes from this side to the other: 0 or BENCH_ERR. */
  int (*send)(struct bench_ctx *c, void *h, const void *buf);
  /* Receives one item into buf (c->size bytes): 0 or BENCH_ERR. */
  int (*recv)(struct bench_ctx *c, void *h, void *buf);
  void (*close)(struct bench_ctx *c, int side, void *h);
  void (*destroy)(struct bench_ctx *c);
  size_t max_size;     /* 0: any */
  int pingpong_only;   /* no stream mode (yield / futex ping-pong) */
  int stream_only;
  /* Optional zero-copy receive: *p points at the item where it lies until
   * release(); used when the cell consumes in place (ctx->inplace). */
  int (*recv_view)(struct bench_ctx *c, void *h, const void **p);
  void (*release)(struct bench_ctx *c, void *h, const void *p);
  /* Non-NULL: this build lacks the peer (the note says why and what to install). */
  const char *unavailable;
  /* Stream mode, optional (both or neither): k items of c->size bytes laid out
   * back to back, each moved as its own item exactly as k calls of send / recv
   * would, in one call from the harness (which stamps and checks every item).
   * NULL: the harness calls send / recv once per item. */
  int (*send_batch)(struct bench_ctx *c, void *h, const void *items, unsigned k);
  int (*recv_batch)(struct bench_ctx *c, void *h, void *items, unsigned k);
} bench_ops_t;

/* Stream mode: items per call of send_batch / recv_batch, the same for every
 * subject of a size (up to 32 items, up to 2 KiB; at least one). */
#define BENCH_STREAM_BATCH_MAX 32
#define BENCH_STREAM_BATCH_BYTES 2048
static inline unsigned bench_stream_batch(size_t size)
{
  size_t k = size ? BENCH_STREAM_BATCH_BYTES / size : BENCH_STREAM_BATCH_MAX;
  return k < 1 ? 1 : k > BENCH_STREAM_BATCH_MAX ? BENCH_STREAM_BATCH_MAX : (unsigned)k;
}

/* Items per call in a stream of this subject: bench_stream_batch(size) with
 * its batch operations, 1 without them or when the receiver consumes in place
 * (recv_view, item by item). */
static inline unsigned bench_stream_calls(const bench_ops_t *o, size_t size, int inplace)
{
  return !inplace && o->send_batch && o->recv_batch ? bench_stream_batch(size) : 1;
}

/* Defines <prefix>_send_batch / <prefix>_recv_batch from a subject's per-item
 * <prefix>_send / <prefix>_recv (static functions of the same file, inlined
 * into the loop): each item is still its own hand-off. */
#define BENCH_BATCH_FROM_ITEM(prefix)                                                            \
  static int prefix##_send_batch(struct bench_ctx *c, void *h, const void *items, unsigned k)   \
  {                                                                                              \
    const unsigned char *p = (const unsigned char *)items;                                       \
    size_t sz = c->size;                                                                         \
    for (unsigned i = 0; i < k; i++, p += sz)                                                    \
      if (prefix##_send(c, h, p))                                                                \
        return BENCH_ERR;                                                                        \
    return 0;                                                                                    \
  }                                                                                              \
  static int prefix##_recv_batch(struct bench_ctx *c, void *h, void *items, unsigned k)         \
  {                                                                                              \
    unsigned char *p = (unsigned char *)items;                                                   \
    size_t sz = c->size;                                                                         \
    for (unsigned i = 0; i < k; i++, p += sz)                                                    \
      if (prefix##_recv(c, h, p))                                                                \
        return BENCH_ERR;                                                                        \
    return 0;                                                                                    \
  }

/* Shared between the sides; lives in MAP_SHARED memory so a forked child sees it. */
typedef struct bench_ctx {
  /* configuration, written before the sides start */
  const bench_ops_t *ops;
  bench_cfg_t cfg;
  bench_mode_t mode;
  size_t size;
  uint64_t warm;        /* warm-up items (also the calibration run) */
  uint64_t n_min, n_max; /* bounds of the measured item count */
  uint64_t target_ns;   /* measured phase aims for this duration */
  int cpu[2];           /* -1: no affinity */
  int cross_process;
  uint32_t domain;      /* libmca domain id of this sample */
  int hpc;              /* --hpc: each side counts its measured phase (mcx_hpc_*) */
  int inplace;          /* the receiver checksums the item where it lies (recv_view), no copy */
  unsigned stream_k;    /* stream: items per call to the subject (set by bench_run_sample; 1: send / recv) */
  char hpc_line[2][480]; /* per item, written by each side (shared memory when cross-process) */
  /* shared state */
  BENCH_ALIGN64 BENCH_ATOMIC(unsigned) barrier_count;
  BENCH_ATOMIC(unsigned) barrier_gen;
  BENCH_ATOMIC(int) failed;
  BENCH_ALIGN64 uint64_t n; /* measured items (per pass), set by side 0 after warm-up */
  uint64_t batch;           /* ping-pong: round trips per clock-read pair in the batch pass */
  uint64_t t_start, t_end, warm_ns;
  uint64_t *lat;     /* ping-pong batch pass: ns per batch (n / batch entries; side 0 writes) */
  bench_hist_t *hist; /* ping-pong per-round pass: every round trip (side 0 writes) */
  int status;
  char note[200];
  size_t map_size;
  void *priv;           /* subject's state from prepare (shared memory when cross-process) */
  unsigned char area[]; /* subject scratch (bench_ctx_alloc's extra bytes) */
} bench_ctx_t;

/* 64-byte aligned memory: the C runtime of Windows has no aligned_alloc
 * (its free() could not release one). */
#if defined(_WIN32) && !defined(__cplusplus)
#include <malloc.h>
#define bench_aligned_alloc(align, size) _aligned_malloc((size), (align))
#define bench_aligned_free(p) _aligned_free(p)
#else
#define bench_aligned_alloc(align, size) aligned_alloc((align), (size))
#define bench_aligned_free(p) free(p)
#endif

/* ---- time, pinning, waiting (bench_util.c) */
uint64_t bench_now_ns(void);
/** Median cost of one pair of clock reads (subtracted from timed intervals). */
uint64_t bench_timer_cost_ns(void);
/** Pins the caller to @p cpu (an OS CPU number; -1: every CPU of the list). */
int bench_pin(int cpu);
int bench_ncpus(void);
/* The CPUs the benchmark uses (--cpus; default every CPU the process may run on). */
extern int bench_cpus[1024];
extern int bench_ncpu;
/** Parses "0,2,4-7" into bench_cpus; 0 or -1 (bad list, or a CPU not online). */
int bench_set_cpus(const char *list);
/** The i-th CPU of the list (wrapping around). */
int bench_cpu(int i);
/** Fills bench_cpus with the CPUs the process may run on. */
void bench_default_cpus(void);
/* Spin briefly, then yield: safe with both sides on one core. */
static inline void bench_relax(unsigned *i)
{
  if (++*i < 128) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  } else {
    extern void bench_yield(void);
    bench_yield();
  }
}
void bench_yield(void);
void *bench_shared_alloc(size_t size); /* zeroed MAP_SHARED anonymous memory */
void bench_shared_free(void *p, size_t size);
#if defined(__MINGW32__) /* MinGW's printf archetype is Microsoft's; the C99 stdio is gnu_printf */
void bench_fail(bench_ctx_t *c, int status, const char *fmt, ...) __attribute__((format(gnu_printf, 3, 4)));
#else
void bench_fail(bench_ctx_t *c, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
#endif

/* ---- running one sample (bench_run.c) */
/* Runs c (allocated with bench_ctx_alloc) to completion; returns c->status. */
int bench_run_sample(bench_ctx_t *c);
bench_ctx_t *bench_ctx_alloc(size_t extra, uint64_t n_max);
void bench_ctx_free(bench_ctx_t *c);
/* One cache line bounced between the first two CPUs of the list, timed like the
 * subjects (batches of round trips between two clock reads): the median over
 * batches of ns per round trip (0: one CPU). */
double bench_measure_L(unsigned rounds);
/** Before re-running slow samples: waits (at most @p max_ms) until L is back
 * within the slow threshold of @p L_median, so a re-run is not spent inside
 * the same slow phase of the host. */
void bench_wait_fast_mode(double L_median, unsigned max_ms);

/* ---- statistics (bench_util.c) */
int bench_cmp_u64(const void *a, const void *b);
int bench_cmp_double(const void *a, const void *b);
double bench_median(double *v, int n); /* sorts v */

/* ---- subjects */
extern const bench_ops_t bench_libmca_ops; /* bench_mcapi.c; configured by ctx->cfg */
extern const bench_ops_t bench_peer_ideal, bench_peer_mutex, bench_peer_pipe, bench_peer_socket,
    bench_peer_mqueue, bench_peer_boost, bench_peer_ck, bench_peer_yield, bench_peer_futex;
/* messaging libraries (bench/peer_zmq.c, peer_nng.c, peer_iceoryx.c) */
extern const bench_ops_t bench_peer_zmq_inproc, bench_peer_zmq_ipc, bench_peer_nng_inproc,
    bench_peer_nng_ipc, bench_peer_iceoryx;
/** Stops the RouDi daemon the iceoryx peer started, if any (end of the run). */
void bench_iceoryx_stop(void);
/* Whether channels / pmq / cross-process domains exist in this build (probed once). */
int bench_probe_channels(char *why, size_t n);
int bench_probe_pmq(char *why, size_t n);
int bench_probe_xproc(char *why, size_t n);

/* ---- the payload stamp every item carries. Inline: the stream loops run them
 * once per item, and with a constant size (8 for scalars) each folds to a load
 * or a store. */
/** The first min(size, 8) bytes carry the sequence number (little-endian, truncated). */
static inline void bench_stamp(void *buf, size_t size, uint64_t seq)
{
  memcpy(buf, &seq, size < 8 ? size : 8);
}
static inline uint64_t bench_unstamp(const void *buf, size_t size)
{
  uint64_t v = 0;
  memcpy(&v, buf, size < 8 ? size : 8);
  return v;
}
/** The fill every item carries after its stamp (run_side fills the harness's buffers with it). */
#define BENCH_FILL 0xa5
/** Writes a whole item at @p dst, as a producer that builds its packet
 * does: the stamp of @p from (the harness's item) and the fill. */
static inline void bench_build(void *dst, const void *from, size_t size)
{
  memcpy(dst, from, size < 8 ? size : 8);
  if (size > 8)
    memset((unsigned char *)dst + 8, BENCH_FILL, size - 8);
}
/* bench_checksum of an item of more than 256 bytes (bench_util.c): four
 * words per trip into four sums, so that reading a large item costs every
 * subject little and the same, however its loop falls in a build. Out of
 * line, so the small items' inline sum below is the same code as it always
 * was. */
uint64_t bench_checksum_large(const void *buf, size_t size);
/** Sum of the payload's little-endian 8-byte words (the last one zero-padded):
 * reading every byte is how a receiver consumes an item. */
static inline uint64_t bench_checksum(const void *buf, size_t size)
{
  if (size > 256)
    return bench_checksum_large(buf, size);
  const unsigned char *p = (const unsigned char *)buf;
  uint64_t s = 0, w;
  size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    memcpy(&w, p + i, 8);
    s += w;
  }
  if (i < size) {
    w = 0;
    memcpy(&w, p + i, size - i);
    s += w;
  }
  return s;
}
#endif
