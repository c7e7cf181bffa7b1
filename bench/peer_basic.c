/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Peer baselines of `mca bench`, measured by the same harness in the same run
 * as libmca: the ideal ring (the physical limit), a mutex+condvar queue, a
 * pipe, a Unix socket pair, POSIX message queues, and the two ping-pong
 * references for one core (sched_yield and raw futex mailboxes).
 *
 * Each peer has two directions: dir 0 carries side 0 -> side 1, dir 1 the
 * reverse; ping-pong uses both, streams only dir 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef _WIN32
/* Windows: pipes are the C runtime's (_pipe); no socketpair, POSIX message
 * queues or Linux futex: those peers report "not supported on this platform". */
#include <io.h>
#define NS_WIN(what) "not supported on this platform (Windows has no " what ")"
#else
#include <linux/futex.h>
#include <mqueue.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#endif

#include "mca_config.h" /* MCAPI_MAX_QUEUE_ELEMENTS: the libmca cells' queue depth */
#include "bench/core/bench.h"

/* ------------------------------------------------ ideal ring (physical limit) */
/*
 * The per-slot-sequence SPSC ring DESIGN.md 2.2 names as the fastest hand-off
 * on this machine: the signal travels with the data, one cache-line transfer
 * per hand-off. Slot i holds seq == pos when free for position pos and pos + 1
 * when full; the consumer hands it back with pos + nslots.
 */
struct iring {
  _Alignas(64) size_t stride, mask;
  unsigned char *slots;
};
struct ideal {
  struct iring r[2];
  size_t map_size;
};
struct ideal_side {
  struct ideal *q;
  int side;
  uint64_t pos[2]; /* position in each direction's ring, private to this side */
};

static int ideal_prepare(bench_ctx_t *c)
{
  /* Slots of a power of two up to a line (8-byte items: four to a line), so
   * a stream moves a line per several items as DESIGN 2.2 measures; larger
   * items take whole lines. */
  size_t stride = 16;
  while (stride < 64 && stride < c->size + 8)
    stride *= 2;
  if (stride < c->size + 8)
    stride = (c->size + 8 + 63) & ~(size_t)63;
  /* As many slots as the libmca cells' rings and channels have (the
   * domain's default queue depth): a deeper ring absorbs more of the two
   * sides' uneven pace in a stream, and the comparison is of the same
   * depth. */
  size_t n = MCAPI_MAX_QUEUE_ELEMENTS;
  size_t total = sizeof(struct ideal) + 2 * n * stride + 64;
  struct ideal *q = bench_shared_alloc(total);
  if (!q)
    return BENCH_ERR;
  q->map_size = total;
  unsigned char *base = (unsigned char *)(((uintptr_t)(q + 1) + 63) & ~(uintptr_t)63);
  for (int d = 0; d < 2; d++) {
    q->r[d].stride = stride;
    q->r[d].mask = n - 1;
    q->r[d].slots = base + (size_t)d * n * stride;
    for (size_t i = 0; i < n; i++)
      atomic_store_explicit((atomic_uint_fast64_t *)(q->r[d].slots + i * stride), i, memory_order_relaxed);
  }
  c->priv = q;
  return 0;
}
static void ideal_destroy(bench_ctx_t *c)
{
  struct ideal *q = c->priv;
  bench_shared_free(q, q->map_size);
}
static int ideal_open(bench_ctx_t *c, int side, void **h)
{
  struct ideal_side *s = calloc(1, sizeof *s);
  s->q = c->priv;
  s->side = side;
  *h = s;
  return 0;
}
static void ideal_close(bench_ctx_t *c, int side, void *h) { free(h); }
/* Waits for slot word @p seq to read @p want: 0, or 1 when the sample failed
 * meanwhile (the other side stopped: a full or empty ring would wait for
 * ever), looked at once the wait has gone past its spinning. */
static inline __attribute__((always_inline)) int ideal_wait(atomic_uint_fast64_t *seq,
                                                            uint64_t want, bench_ctx_t *c)
{
  unsigned k = 0;
  /* A1 / A2 — acquire: pairs with R2 / R1 (see the callers). */
  while (atomic_load_explicit(seq, memory_order_acquire) != want) {
    if (k >= 128 && atomic_load_explicit(&c->failed, memory_order_relaxed))
      return 1;
    bench_relax(&k);
  }
  return 0;
}
/* One slot of ring r at position pos; size is a constant in the batch loops
 * (8 for scalars: the copy is one load and one store). 0, or 1 when the
 * sample failed while it waited. */
static inline __attribute__((always_inline)) int ideal_put(const struct iring *r, uint64_t pos,
                                                           const void *buf, size_t size,
                                                           bench_ctx_t *c)
{
  unsigned char *slot = r->slots + (pos & r->mask) * r->stride;
  atomic_uint_fast64_t *seq = (atomic_uint_fast64_t *)slot;
  /* A1: the consumer's reads of this slot are done; pairs with R2. */
  if (ideal_wait(seq, pos, c))
    return 1;
  memcpy(slot + 8, buf, size);
  /* R1 — release: payload written before the slot shows full; pairs with A2. */
  atomic_store_explicit(seq, pos + 1, memory_order_release);
  return 0;
}
static inline __attribute__((always_inline)) int ideal_get(const struct iring *r, uint64_t pos,
                                                           void *buf, size_t size, bench_ctx_t *c)
{
  unsigned char *slot = r->slots + (pos & r->mask) * r->stride;
  atomic_uint_fast64_t *seq = (atomic_uint_fast64_t *)slot;
  if (ideal_wait(seq, pos + 1, c)) /* A2: pairs with R1 */
    return 1;
  memcpy(buf, slot + 8, size);
  atomic_store_explicit(seq, pos + r->mask + 1, memory_order_release); /* R2 */
  return 0;
}
static int ideal_send(bench_ctx_t *c, void *h, const void *buf)
{
  struct ideal_side *s = h;
  int d = s->side;
  return ideal_put(&s->q->r[d], s->pos[d]++, buf, c->size, c) ? BENCH_ERR : 0;
}
static int ideal_recv(bench_ctx_t *c, void *h, void *buf)
{
  struct ideal_side *s = h;
  int d = !s->side;
  return ideal_get(&s->q->r[d], s->pos[d]++, buf, c->size, c) ? BENCH_ERR : 0;
}
/* Batches: the ring's geometry and the position stay in registers. */
static inline __attribute__((always_inline)) int ideal_put_n(bench_ctx_t *c, struct ideal_side *s,
                                                             const unsigned char *p, unsigned k,
                                                             size_t size)
{
  int d = s->side;
  const struct iring r = s->q->r[d];
  uint64_t pos = s->pos[d];
  for (unsigned i = 0; i < k; i++, p += size)
    if (ideal_put(&r, pos++, p, size, c))
      return BENCH_ERR;
  s->pos[d] = pos;
  return 0;
}
static inline __attribute__((always_inline)) int ideal_get_n(bench_ctx_t *c, struct ideal_side *s,
                                                             unsigned char *p, unsigned k,
                                                             size_t size)
{
  int d = !s->side;
  const struct iring r = s->q->r[d];
  uint64_t pos = s->pos[d];
  for (unsigned i = 0; i < k; i++, p += size)
    if (ideal_get(&r, pos++, p, size, c))
      return BENCH_ERR;
  s->pos[d] = pos;
  return 0;
}
static int ideal_send_batch(bench_ctx_t *c, void *h, const void *items, unsigned k)
{
  if (c->size == 8)
    return ideal_put_n(c, h, items, k, 8);
  return ideal_put_n(c, h, items, k, c->size);
}
static int ideal_recv_batch(bench_ctx_t *c, void *h, void *items, unsigned k)
{
  if (c->size == 8)
    return ideal_get_n(c, h, items, k, 8);
  return ideal_get_n(c, h, items, k, c->size);
}
const bench_ops_t bench_peer_ideal = {"ideal_ring", ideal_prepare, ideal_open, ideal_send, ideal_recv,
                                      ideal_close, ideal_destroy, 0, 0, 0, NULL, NULL, NULL,
                                      ideal_send_batch, ideal_recv_batch};

/* ------------------------------------------------ mutex + condvar queue */
struct mq_dir {
  pthread_mutex_t mu;
  pthread_cond_t not_empty, not_full;
  size_t head, tail, count, cap;
  unsigned char *data;
};
struct mutexq {
  struct mq_dir d[2];
};
static int mutex_prepare(bench_ctx_t *c)
{
  struct mutexq *q = calloc(1, sizeof *q);
  size_t cap = 64;
  while (cap > 2 && cap * c->size > (1u << 20))
    cap /= 2;
  for (int i = 0; i < 2; i++) {
    pthread_mutex_init(&q->d[i].mu, NULL);
    pthread_cond_init(&q->d[i].not_empty, NULL);
    pthread_cond_init(&q->d[i].not_full, NULL);
    q->d[i].cap = cap;
    q->d[i].data = malloc(cap * c->size);
  }
  c->priv = q;
  return 0;
}
static void mutex_destroy(bench_ctx_t *c)
{
  struct mutexq *q = c->priv;
  for (int i = 0; i < 2; i++) {
    pthread_mutex_destroy(&q->d[i].mu);
    pthread_cond_destroy(&q->d[i].not_empty);
    pthread_cond_destroy(&q->d[i].not_full);
    free(q->d[i].data);
  }
  free(q);
}
struct side_h {
  void *q;
  int side;
  int fd_out, fd_in;
#ifndef _WIN32
  mqd_t mq_out, mq_in;
#endif
};
static int generic_open(bench_ctx_t *c, int side, void **h)
{
  struct side_h *s = calloc(1, sizeof *s);
  s->q = c->priv;
  s->side = side;
  *h = s;
  return 0;
}
static void generic_close(bench_ctx_t *c, int side, void *h) { free(h); }
static int mutex_send(bench_ctx_t *c, void *h, const void *buf)
{
  struct side_h *s = h;
  struct mq_dir *d = &((struct mutexq *)s->q)->d[s->side];
  pthread_mutex_lock(&d->mu);
  while (d->count == d->cap)
    pthread_cond_wait(&d->not_full, &d->mu);
  memcpy(d->data + d->tail * c->size, buf, c->size);
  d->tail = (d->tail + 1) % d->cap;
  d->count++;
  pthread_cond_signal(&d->not_empty);
  pthread_mutex_unlock(&d->mu);
  return 0;
}
static int mutex_recv(bench_ctx_t *c, void *h, void *buf)
{
  struct side_h *s = h;
  struct mq_dir *d = &((struct mutexq *)s->q)->d[!s->side];
  pthread_mutex_lock(&d->mu);
  while (d->count == 0)
    pthread_cond_wait(&d->not_empty, &d->mu);
  memcpy(buf, d->data + d->head * c->size, c->size);
  d->head = (d->head + 1) % d->cap;
  d->count--;
  pthread_cond_signal(&d->not_full);
  pthread_mutex_unlock(&d->mu);
  return 0;
}
BENCH_BATCH_FROM_ITEM(mutex)
const bench_ops_t bench_peer_mutex = {"mutex_condvar", mutex_prepare, generic_open, mutex_send,
                                      mutex_recv, generic_close, mutex_destroy, 0, 0, 0, NULL, NULL, NULL,
                                      mutex_send_batch, mutex_recv_batch};

/* ------------------------------------------------ pipe and Unix socket pair */
struct fds {
  int out[2], in[2]; /* out[side]: write end of side's direction; in[side]: read end of the other */
};
static int write_all(int fd, const unsigned char *p, size_t n)
{
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR)
        continue;
      return BENCH_ERR;
    }
    p += w;
    n -= (size_t)w;
  }
  return 0;
}
static int read_all(int fd, unsigned char *p, size_t n)
{
  while (n) {
    ssize_t r = read(fd, p, n);
    if (r <= 0) {
      if (r < 0 && errno == EINTR)
        continue;
      return BENCH_ERR;
    }
    p += r;
    n -= (size_t)r;
  }
  return 0;
}
static int pipe_prepare(bench_ctx_t *c)
{
  struct fds *f = calloc(1, sizeof *f);
  int p0[2], p1[2];
#ifdef _WIN32
  if (_pipe(p0, 1 << 16, _O_BINARY) || _pipe(p1, 1 << 16, _O_BINARY)) {
#else
  if (pipe(p0) || pipe(p1)) {
#endif
    free(f);
    bench_fail(c, BENCH_ERR, "pipe: %s", strerror(errno));
    return BENCH_ERR;
  }
  f->out[0] = p0[1];
  f->in[1] = p0[0];
  f->out[1] = p1[1];
  f->in[0] = p1[0];
  c->priv = f;
  return 0;
}
#ifndef _WIN32
static int socket_prepare(bench_ctx_t *c)
{
  struct fds *f = calloc(1, sizeof *f);
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
    free(f);
    bench_fail(c, BENCH_ERR, "socketpair: %s", strerror(errno));
    return BENCH_ERR;
  }
  f->out[0] = f->in[0] = sv[0];
  f->out[1] = f->in[1] = sv[1];
  c->priv = f;
  return 0;
}
#endif
static void fds_destroy(bench_ctx_t *c)
{
  struct fds *f = c->priv;
  close(f->out[0]);
  close(f->in[0]);
  if (f->out[1] != f->in[1])
    close(f->in[1]);
  close(f->out[1]);
  free(f);
}
static int fd_send(bench_ctx_t *c, void *h, const void *buf)
{
  struct side_h *s = h;
  return write_all(((struct fds *)s->q)->out[s->side], buf, c->size);
}
static int fd_recv(bench_ctx_t *c, void *h, void *buf)
{
  struct side_h *s = h;
  return read_all(((struct fds *)s->q)->in[s->side], buf, c->size);
}
BENCH_BATCH_FROM_ITEM(fd)
const bench_ops_t bench_peer_pipe = {"pipe", pipe_prepare, generic_open, fd_send, fd_recv,
                                     generic_close, fds_destroy, 0, 0, 0, NULL, NULL, NULL,
                                     fd_send_batch, fd_recv_batch};
#ifdef _WIN32
const bench_ops_t bench_peer_socket = {.name = "unix_socketpair", .unavailable = NS_WIN("socketpair()")};
#else
const bench_ops_t bench_peer_socket = {"unix_socketpair", socket_prepare, generic_open, fd_send,
                                       fd_recv, generic_close, fds_destroy, 0, 0, 0, NULL, NULL, NULL,
                                       fd_send_batch, fd_recv_batch};
#endif

/* ------------------------------------------------ POSIX message queues */
#ifdef _WIN32
const bench_ops_t bench_peer_mqueue = {.name = "posix_mqueue", .unavailable = NS_WIN("POSIX message queues")};
#else
struct pmq {
  mqd_t q[2];
  char name[2][64];
};
static int mqueue_prepare(bench_ctx_t *c)
{
  static atomic_uint counter;
  struct pmq *m = calloc(1, sizeof *m);
  struct mq_attr a = {0};
  a.mq_maxmsg = 10; /* the default fs.mqueue.msg_max for unprivileged users */
  a.mq_msgsize = (long)c->size;
  for (int d = 0; d < 2; d++) {
    snprintf(m->name[d], sizeof m->name[d], "/mca-bench-%d-%u-%d", (int)getpid(),
             atomic_fetch_add(&counter, 1), d);
    m->q[d] = mq_open(m->name[d], O_RDWR | O_CREAT | O_EXCL, 0600, &a);
    if (m->q[d] == (mqd_t)-1) {
      int e = errno;
      if (d == 1) {
        mq_close(m->q[0]);
        mq_unlink(m->name[0]);
      }
      free(m);
      bench_fail(c, BENCH_NA, "mq_open(msgsize %zu): %s", c->size, strerror(e));
      return BENCH_NA;
    }
  }
  c->priv = m;
  return 0;
}
static void mqueue_destroy(bench_ctx_t *c)
{
  struct pmq *m = c->priv;
  for (int d = 0; d < 2; d++) {
    mq_close(m->q[d]);
    mq_unlink(m->name[d]);
  }
  free(m);
}
static int mqueue_send(bench_ctx_t *c, void *h, const void *buf)
{
  struct side_h *s = h;
  while (mq_send(((struct pmq *)s->q)->q[s->side], buf, c->size, 0))
    if (errno != EINTR)
      return BENCH_ERR;
  return 0;
}
static int mqueue_recv(bench_ctx_t *c, void *h, void *buf)
{
  struct side_h *s = h;
  for (;;) {
    ssize_t r = mq_receive(((struct pmq *)s->q)->q[!s->side], buf, c->size, NULL);
    if (r == (ssize_t)c->size)
      return 0;
    if (r < 0 && errno == EINTR)
      continue;
    return BENCH_ERR;
  }
}
BENCH_BATCH_FROM_ITEM(mqueue)
const bench_ops_t bench_peer_mqueue = {"posix_mqueue", mqueue_prepare, generic_open, mqueue_send,
                                       mqueue_recv, generic_close, mqueue_destroy, 0, 0, 0, NULL, NULL, NULL,
                                       mqueue_send_batch, mqueue_recv_batch};
#endif

/* ------------------------------------------------ one-core ping-pong references */
/* One mailbox per direction: a counter and up to 64 bytes of payload. */
struct mbox {
  _Alignas(64) _Atomic uint32_t seq;
  unsigned char data[64];
};
struct mboxes {
  struct mbox m[2];
  uint32_t got[2];
};
static int mbox_prepare(bench_ctx_t *c)
{
  struct mboxes *b = bench_aligned_alloc(64, sizeof *b);
  memset(b, 0, sizeof *b);
  c->priv = b;
  return 0;
}
static void mbox_destroy(bench_ctx_t *c) { bench_aligned_free(c->priv); }
static void mbox_put(bench_ctx_t *c, struct side_h *s, const void *buf, int wake)
{
  struct mbox *m = &((struct mboxes *)s->q)->m[s->side];
  memcpy(m->data, buf, c->size);
  atomic_fetch_add_explicit(&m->seq, 1, memory_order_release);
#ifndef _WIN32
  if (wake)
    syscall(SYS_futex, &m->seq, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
#endif
}
static int yield_send(bench_ctx_t *c, void *h, const void *buf)
{
  mbox_put(c, h, buf, 0);
  return 0;
}
#ifndef _WIN32
static int futex_send(bench_ctx_t *c, void *h, const void *buf)
{
  mbox_put(c, h, buf, 1);
  return 0;
}
#endif
static int mbox_get(bench_ctx_t *c, struct side_h *s, void *buf, int futex)
{
  struct mboxes *b = s->q;
  struct mbox *m = &b->m[!s->side];
  uint32_t want = ++b->got[!s->side];
  uint32_t v;
  while ((v = atomic_load_explicit(&m->seq, memory_order_acquire)) != want) {
    (void)v, (void)futex;
#ifndef _WIN32
    if (futex)
      syscall(SYS_futex, &m->seq, FUTEX_WAIT_PRIVATE, v, NULL, NULL, 0);
    else
#endif
      sched_yield();
  }
  memcpy(buf, m->data, c->size);
  return 0;
}
static int yield_recv(bench_ctx_t *c, void *h, void *buf) { return mbox_get(c, h, buf, 0); }
#ifndef _WIN32
static int futex_recv(bench_ctx_t *c, void *h, void *buf) { return mbox_get(c, h, buf, 1); }
#endif
const bench_ops_t bench_peer_yield = {"sched_yield_pingpong", mbox_prepare, generic_open,
                                      yield_send, yield_recv, generic_close, mbox_destroy, 64, 1, 0, NULL, NULL, NULL,
                                      NULL, NULL}; /* ping-pong only: no stream batches */
#ifdef _WIN32
const bench_ops_t bench_peer_futex = {.name = "futex_pingpong", .max_size = 64, .pingpong_only = 1,
                                      .unavailable = NS_WIN("futex system call")};
#else
const bench_ops_t bench_peer_futex = {"futex_pingpong", mbox_prepare, generic_open, futex_send,
                                      futex_recv, generic_close, mbox_destroy, 64, 1, 0, NULL, NULL, NULL,
                                      NULL, NULL}; /* ping-pong only: no stream batches */
#endif
