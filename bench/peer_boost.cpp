/* SPDX-License-Identifier: BSD-3-Clause */
// Peer baseline: boost::lockfree::spsc_queue (Debian libboost-dev), with an
// extern "C" operations table for the C harness. Items up to 64 bytes travel
// as fixed-size elements (8, 32 or 64 bytes); larger ones through a byte
// queue with push/pop of ranges.
#include <boost/lockfree/spsc_queue.hpp>
#include <cstdlib>
#include <cstring>
#include <new>

extern "C" {
#include "bench/core/bench.h"
}

namespace {
template <size_t N> struct Item {
  unsigned char b[N];
};
constexpr size_t kSlots = 256;

struct Queues {
  int kind;  // 8, 32, 64, or 0 for the byte queue
  void *q[2];
};

template <size_t N> using Q = boost::lockfree::spsc_queue<Item<N>, boost::lockfree::capacity<kSlots>>;
using ByteQ = boost::lockfree::spsc_queue<unsigned char>;

struct Side {
  Queues *qs;
  int side;
};

template <size_t N> bool push(void *q, const void *buf, size_t n)
{
  Item<N> it;
  std::memcpy(&it, buf, n);
  return static_cast<Q<N> *>(q)->push(it);
}
template <size_t N> bool pop(void *q, void *buf, size_t n)
{
  Item<N> it;
  if (!static_cast<Q<N> *>(q)->pop(it))
    return false;
  std::memcpy(buf, &it, n);
  return true;
}

int b_prepare(bench_ctx_t *c)
{
  Queues *qs = new Queues;
  qs->kind = c->size <= 8 ? 8 : c->size <= 32 ? 32 : c->size <= 64 ? 64 : 0;
  for (int d = 0; d < 2; d++) {
    switch (qs->kind) {
    case 8: qs->q[d] = new Q<8>; break;
    case 32: qs->q[d] = new Q<32>; break;
    case 64: qs->q[d] = new Q<64>; break;
    default: qs->q[d] = new ByteQ(4 * c->size < (1u << 17) ? (1u << 17) : 4 * c->size); break;
    }
  }
  c->priv = qs;
  return 0;
}
void b_destroy(bench_ctx_t *c)
{
  Queues *qs = static_cast<Queues *>(c->priv);
  for (int d = 0; d < 2; d++) {
    switch (qs->kind) {
    case 8: delete static_cast<Q<8> *>(qs->q[d]); break;
    case 32: delete static_cast<Q<32> *>(qs->q[d]); break;
    case 64: delete static_cast<Q<64> *>(qs->q[d]); break;
    default: delete static_cast<ByteQ *>(qs->q[d]); break;
    }
  }
  delete qs;
}
int b_open(bench_ctx_t *c, int side, void **h)
{
  *h = new Side{static_cast<Queues *>(c->priv), side};
  return 0;
}
void b_close(bench_ctx_t *, int, void *h) { delete static_cast<Side *>(h); }
// One item each way; n is the constant 8 in the batch loops for 8-byte items.
inline __attribute__((always_inline)) void put(Side *s, const void *buf, size_t n)
{
  void *q = s->qs->q[s->side];
  unsigned k = 0;
  switch (s->qs->kind) {
  case 8: while (!push<8>(q, buf, n)) bench_relax(&k); break;
  case 32: while (!push<32>(q, buf, n)) bench_relax(&k); break;
  case 64: while (!push<64>(q, buf, n)) bench_relax(&k); break;
  default: {
    const unsigned char *p = static_cast<const unsigned char *>(buf);
    size_t left = n;
    while (left) {
      size_t w = static_cast<ByteQ *>(q)->push(p, left);
      p += w;
      left -= w;
      if (!w) bench_relax(&k);
    }
  }
  }
}
inline __attribute__((always_inline)) void get(Side *s, void *buf, size_t n)
{
  void *q = s->qs->q[!s->side];
  unsigned k = 0;
  switch (s->qs->kind) {
  case 8: while (!pop<8>(q, buf, n)) bench_relax(&k); break;
  case 32: while (!pop<32>(q, buf, n)) bench_relax(&k); break;
  case 64: while (!pop<64>(q, buf, n)) bench_relax(&k); break;
  default: {
    unsigned char *p = static_cast<unsigned char *>(buf);
    size_t left = n;
    while (left) {
      size_t r = static_cast<ByteQ *>(q)->pop(p, left);
      p += r;
      left -= r;
      if (!r) bench_relax(&k);
    }
  }
  }
}
int b_send(bench_ctx_t *c, void *h, const void *buf)
{
  put(static_cast<Side *>(h), buf, c->size);
  return 0;
}
int b_recv(bench_ctx_t *c, void *h, void *buf)
{
  get(static_cast<Side *>(h), buf, c->size);
  return 0;
}
int b_send_batch(bench_ctx_t *c, void *h, const void *items, unsigned k)
{
  Side *s = static_cast<Side *>(h);
  const unsigned char *p = static_cast<const unsigned char *>(items);
  size_t n = c->size;
  if (n == 8)
    for (unsigned i = 0; i < k; i++, p += 8)
      put(s, p, 8);
  else
    for (unsigned i = 0; i < k; i++, p += n)
      put(s, p, n);
  return 0;
}
int b_recv_batch(bench_ctx_t *c, void *h, void *items, unsigned k)
{
  Side *s = static_cast<Side *>(h);
  unsigned char *p = static_cast<unsigned char *>(items);
  size_t n = c->size;
  if (n == 8)
    for (unsigned i = 0; i < k; i++, p += 8)
      get(s, p, 8);
  else
    for (unsigned i = 0; i < k; i++, p += n)
      get(s, p, n);
  return 0;
}
}  // namespace

extern "C" const bench_ops_t bench_peer_boost = {"boost_spsc_queue", b_prepare, b_open, b_send,
                                                 b_recv, b_close, b_destroy, 0, 0, 0, NULL, NULL, NULL,
                                                 b_send_batch, b_recv_batch};
