/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Peer baseline: Concurrency Kit's ck_ring in its SPSC form (Debian libck-dev).
 * Items up to 8 bytes travel in the pointer-sized slot, larger ones (up to 64)
 * in a CK_RING_PROTOTYPE typed ring. Skipped with a note when ck is absent.
 */
#include <stdlib.h>
#include <string.h>

#include "bench/core/bench.h"

#ifdef MCA_HAVE_CK
#include <ck_ring.h>

#define CK_SLOTS 256
struct item32 {
  unsigned char b[32];
};
struct item64 {
  unsigned char b[64];
};
CK_RING_PROTOTYPE(item32, item32)
CK_RING_PROTOTYPE(item64, item64)

struct ckq {
  struct {
    _Alignas(64) ck_ring_t ring;
    void *buf;
  } d[2];
  int kind; /* 8, 32 or 64 */
};
struct ck_side {
  struct ckq *q;
  int side;
};

static int ck_prepare(bench_ctx_t *c)
{
  struct ckq *q = aligned_alloc(64, sizeof *q);
  memset(q, 0, sizeof *q);
  q->kind = c->size <= 8 ? 8 : c->size <= 32 ? 32 : 64;
  size_t esz = q->kind == 8 ? sizeof(ck_ring_buffer_t) : (size_t)q->kind;
  for (int i = 0; i < 2; i++) {
    ck_ring_init(&q->d[i].ring, CK_SLOTS);
    q->d[i].buf = aligned_alloc(64, CK_SLOTS * esz);
  }
  c->priv = q;
  return 0;
}
static void ck_destroy(bench_ctx_t *c)
{
  struct ckq *q = c->priv;
  free(q->d[0].buf);
  free(q->d[1].buf);
  free(q);
}
static int ck_open(bench_ctx_t *c, int side, void **h)
{
  struct ck_side *s = malloc(sizeof *s);
  s->q = c->priv;
  s->side = side;
  *h = s;
  return 0;
}
static void ck_close(bench_ctx_t *c, int side, void *h) { free(h); }
/* One item each way; size is a constant in the batch loops when it is the
 * slot's 8 bytes (the copy into the pointer-sized slot is then one move). */
static inline __attribute__((always_inline)) void ck_put(struct ckq *q, int d, const void *buf, size_t size)
{
  ck_ring_t *r = &q->d[d].ring;
  unsigned k = 0;
  if (q->kind == 8) {
    uintptr_t v = 0;
    memcpy(&v, buf, size);
    while (!ck_ring_enqueue_spsc(r, q->d[d].buf, (void *)v))
      bench_relax(&k);
  } else if (q->kind == 32) {
    struct item32 it;
    memcpy(&it, buf, size);
    while (!ck_ring_enqueue_spsc_item32(r, q->d[d].buf, &it))
      bench_relax(&k);
  } else {
    struct item64 it;
    memcpy(&it, buf, size);
    while (!ck_ring_enqueue_spsc_item64(r, q->d[d].buf, &it))
      bench_relax(&k);
  }
}
static inline __attribute__((always_inline)) void ck_get(struct ckq *q, int d, void *buf, size_t size)
{
  ck_ring_t *r = &q->d[d].ring;
  unsigned k = 0;
  if (q->kind == 8) {
    void *v;
    while (!ck_ring_dequeue_spsc(r, q->d[d].buf, &v))
      bench_relax(&k);
    uintptr_t u = (uintptr_t)v;
    memcpy(buf, &u, size);
  } else if (q->kind == 32) {
    struct item32 it;
    while (!ck_ring_dequeue_spsc_item32(r, q->d[d].buf, &it))
      bench_relax(&k);
    memcpy(buf, &it, size);
  } else {
    struct item64 it;
    while (!ck_ring_dequeue_spsc_item64(r, q->d[d].buf, &it))
      bench_relax(&k);
    memcpy(buf, &it, size);
  }
}
static int ck_send(bench_ctx_t *c, void *h, const void *buf)
{
  struct ck_side *s = h;
  ck_put(s->q, s->side, buf, c->size);
  return 0;
}
static int ck_recv(bench_ctx_t *c, void *h, void *buf)
{
  struct ck_side *s = h;
  ck_get(s->q, !s->side, buf, c->size);
  return 0;
}
static int ck_send_batch(bench_ctx_t *c, void *h, const void *items, unsigned k)
{
  struct ck_side *s = h;
  const unsigned char *p = items;
  size_t size = c->size;
  if (size == 8 && s->q->kind == 8)
    for (unsigned i = 0; i < k; i++, p += 8)
      ck_put(s->q, s->side, p, 8);
  else
    for (unsigned i = 0; i < k; i++, p += size)
      ck_put(s->q, s->side, p, size);
  return 0;
}
static int ck_recv_batch(bench_ctx_t *c, void *h, void *items, unsigned k)
{
  struct ck_side *s = h;
  unsigned char *p = items;
  size_t size = c->size;
  if (size == 8 && s->q->kind == 8)
    for (unsigned i = 0; i < k; i++, p += 8)
      ck_get(s->q, !s->side, p, 8);
  else
    for (unsigned i = 0; i < k; i++, p += size)
      ck_get(s->q, !s->side, p, size);
  return 0;
}
const bench_ops_t bench_peer_ck = {"ck_ring_spsc", ck_prepare, ck_open, ck_send, ck_recv,
                                   ck_close, ck_destroy, 64, 0, 0, NULL, NULL, NULL,
                                   ck_send_batch, ck_recv_batch};
#else
static int ck_absent(bench_ctx_t *c)
{
  bench_fail(c, BENCH_NA, "ck_ring.h not found at build time (install libck-dev)");
  return BENCH_NA;
}
const bench_ops_t bench_peer_ck = {"ck_ring_spsc", ck_absent, 0, 0, 0, 0, 0, 64, 0, 0,
                                   NULL, NULL, NULL, NULL, NULL};
#endif
