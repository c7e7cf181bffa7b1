/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mca bench's receiving-side checks (bench/core/bench_run.c): a subject that
 * loses, duplicates or corrupts an item fails the sample in the stream mode,
 * both through the subjects' batch operations and item by item. The subject is the ideal ring (bench/peer_basic.c) behind a
 * wrapper that injects one fault on the receiving side.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/core/bench.h"

enum fault { F_NONE, F_DROP, F_DUP, F_CORRUPT };
static enum fault g_fault;
/* Items received before the fault. A side that fails stops; the other side
 * is not told inside a subject's wait, so every sample here moves fewer
 * items than the ring holds (256): the sender never waits for room. */
static const uint64_t FAULT_AT = 100;
#define ITEMS 200

/* Receiving side of the wrapper: item count and the previous item (for F_DUP). */
struct wrap_side {
  void *h;
  uint64_t got;
  unsigned char prev[256];
};

static int w_prepare(bench_ctx_t *c) { return bench_peer_ideal.prepare(c); }
static void w_destroy(bench_ctx_t *c) { bench_peer_ideal.destroy(c); }
static int w_open(bench_ctx_t *c, int side, void **h)
{
  struct wrap_side *w = calloc(1, sizeof *w);
  *h = w;
  return bench_peer_ideal.open(c, side, &w->h);
}
static void w_close(bench_ctx_t *c, int side, void *h)
{
  struct wrap_side *w = h;
  bench_peer_ideal.close(c, side, w->h);
  free(w);
}
static int w_send(bench_ctx_t *c, void *h, const void *buf)
{
  return bench_peer_ideal.send(c, ((struct wrap_side *)h)->h, buf);
}
static int w_send_batch(bench_ctx_t *c, void *h, const void *items, unsigned k)
{
  return bench_peer_ideal.send_batch(c, ((struct wrap_side *)h)->h, items, k);
}
/* One received item at buf, after the subject's receive: the fault, once. */
static int w_after(bench_ctx_t *c, struct wrap_side *w, unsigned char *buf)
{
  if (w->got++ == FAULT_AT) {
    if (g_fault == F_DROP) /* this item is lost: the next one takes its place */
      return bench_peer_ideal.recv(c, w->h, buf);
    if (g_fault == F_DUP) /* the previous item again (this one is held back) */
      memcpy(buf, w->prev, c->size);
    if (g_fault == F_CORRUPT) /* the last byte: the stamp's for 8 bytes, the fill's beyond */
      buf[c->size - 1] ^= 0x10;
  }
  memcpy(w->prev, buf, c->size);
  return 0;
}
static int w_recv(bench_ctx_t *c, void *h, void *buf)
{
  struct wrap_side *w = h;
  if (bench_peer_ideal.recv(c, w->h, buf))
    return BENCH_ERR;
  return w_after(c, w, buf);
}
static int w_recv_batch(bench_ctx_t *c, void *h, void *items, unsigned k)
{
  struct wrap_side *w = h;
  if (bench_peer_ideal.recv_batch(c, w->h, items, k))
    return BENCH_ERR;
  for (unsigned i = 0; i < k; i++)
    if (w_after(c, w, (unsigned char *)items + (size_t)i * c->size))
      return BENCH_ERR;
  return 0;
}

static const bench_ops_t wrap_batch = {"faulty_batch", w_prepare, w_open, w_send, w_recv, w_close,
                                       w_destroy, 256, 0, 0, NULL, NULL, NULL,
                                       w_send_batch, w_recv_batch};
static const bench_ops_t wrap_item = {"faulty_item", w_prepare, w_open, w_send, w_recv, w_close,
                                      w_destroy, 256, 0, 0, NULL, NULL, NULL, NULL, NULL};

static int failures;
#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      printf("FAIL %s:%d: ", __FILE__, __LINE__);                                                  \
      printf(__VA_ARGS__);                                                                         \
      printf("\n");                                                                                \
      failures++;                                                                                  \
    }                                                                                              \
  } while (0)

/* One sample; returns its status, the note in note[] and the items per call in *k. */
static int run(const bench_ops_t *o, bench_mode_t mode, size_t size, enum fault f, char *note,
               unsigned *k)
{
  g_fault = f;
  bench_ctx_t *c = bench_ctx_alloc(0, ITEMS);
  c->ops = o;
  c->mode = mode;
  c->size = size;
  c->warm = 0;
  c->n_min = c->n_max = ITEMS;
  c->target_ns = 1;
  int st = bench_run_sample(c);
  snprintf(note, 200, "%s", c->note);
  *k = c->stream_k;
  bench_ctx_free(c);
  return st;
}

int main(void)
{
  static const size_t sizes[] = {3, 8, 24, 100};
  static const char *const fname[] = {"none", "drop", "dup", "corrupt"};
  char note[200];
  unsigned k;
  for (int b = 0; b < 2; b++) {
    const bench_ops_t *o = b ? &wrap_item : &wrap_batch;
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
      size_t size = sizes[si];
      unsigned want_k = b ? 1 : bench_stream_batch(size);
      for (int f = F_NONE; f <= F_CORRUPT; f++) {
        int st = run(o, BENCH_STREAM, size, (enum fault)f, note, &k);
        CHECK(k == want_k, "%s %zuB: %u items per call, expected %u", o->name, size, k, want_k);
        if (f == F_NONE) {
          CHECK(st == BENCH_OK, "%s %zuB stream, no fault: status %d (%s)", o->name, size, st, note);
          continue;
        }
        CHECK(st == BENCH_ERR, "%s %zuB stream, %s: status %d, expected a failed sample", o->name,
              size, fname[f], st);
        /* a lost or repeated item breaks the order; a changed byte of the
         * fill the checksum (of the stamp: the order) */
        const char *why = f == F_CORRUPT && size > 8 ? "corrupted (checksum)" : "expected item";
        CHECK(strstr(note, why) != NULL, "%s %zuB stream, %s: note \"%s\" lacks \"%s\"", o->name,
              size, fname[f], note, why);
      }
    }
  }
  /* ping-pong: item by item, whichever operations the subject has (no fault:
   * its other side would wait for the echo) */
  int st = run(&wrap_batch, BENCH_PINGPONG, 24, F_NONE, note, &k);
  CHECK(st == BENCH_OK && k == 1, "ping-pong 24B: status %d (%s), %u items per call", st, note, k);
  /* both or neither: the harness uses batches only with both */
  CHECK(bench_stream_calls(&bench_peer_ideal, 8, 0) == BENCH_STREAM_BATCH_MAX, "ideal ring, 8 B");
  CHECK(bench_stream_calls(&bench_peer_ideal, 8, 1) == 1, "in place: item by item");
  CHECK(bench_stream_calls(&bench_peer_ideal, 65536, 0) == 1, "64 KiB: one item per call");
  if (failures)
    printf("%d check(s) failed\n", failures);
  else
    printf("ok: faults caught in stream mode, in batches and per item\n");
  return failures != 0;
}
