/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Packets larger than a slot's inline bytes travel in a pool buffer that
 * their slot owns (spec profile, shm): taken from the pool the first time a
 * large packet passes through the slot, kept for the connection's life,
 * held like a small packet until released, back to the pool when the
 * connection ends or its peer dies. These tests look at the pool (its free
 * count, by walking the stack) and at the slots' words in the partition,
 * as another process of the domain could.
 */
#include <stdlib.h>
#include <string.h>
#ifndef _WIN32 /* the crash cases fork a peer process */
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

#include "mcapi.h"
#include "mcx.h"
#include "mcx_test.h"
#include "runtime/runtime.h"
#include "transport/pkt_ring.h"
#include "mcx_test_chan.h" /* after runtime.h: mcx_test_pool_free */

static mcx_locking_t locking = MCX_LOCKING_LOCKFREE;

/* The pool index of a pointer a receive handed out, or UINT32_MAX. */
static uint32_t buf_index(const void *p)
{
  mcx__domain_t *d = mcx__self.dom;
  uintptr_t off = (uintptr_t)p - (uintptr_t)d->pkt_bufs;
  if (off >= (uintptr_t)d->pkt_pool.n * d->pkt_stride || off % d->pkt_stride)
    return UINT32_MAX;
  return (uint32_t)(off / d->pkt_stride);
}

/* The packet slot (its word, meta and value) of line @p line of the rings. */
static mcx__spsc_slot_t *slot_of_line(uint32_t line)
{
  return &((mcx__pkt_slot_t *)(void *)mcx__self.dom->pslots)[line].s;
}

/* The ring line a slot-owned buffer's state word names (bit 0 clear, bit 1
 * set, line in bits 2..31), or UINT32_MAX when the buffer is not a slot's. */
static uint32_t owner_line(uint32_t b)
{
  uint64_t w = mcx_load_relaxed(&mcx__self.dom->pkt_state[b]);
  return (w & 3u) == 2u ? (uint32_t)w >> 2 : UINT32_MAX;
}

/* Packet @p seq of @p size bytes: each byte a function of both, so a torn,
 * stale or misplaced packet fails the check. */
static void stamp(unsigned char *p, uint32_t seq, size_t size)
{
  for (size_t i = 0; i < size; i++)
    p[i] = (unsigned char)(seq * 131u + i * 7u + size);
}
static int stamped(const unsigned char *p, uint32_t seq, size_t size)
{
  for (size_t i = 0; i < size; i++)
    if (p[i] != (unsigned char)(seq * 131u + i * 7u + size))
      return 0;
  return 1;
}

static void set_depth(mcapi_endpoint_t rx, mcapi_uint_t depth)
{
  mcapi_status_t st;
  mcapi_endpoint_set_attribute(rx, MCAPI_ENDP_ATTR_NUM_RECV_BUFFERS, &depth, sizeof depth, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
}

static void send_pkt(mcapi_pktchan_send_hndl_t sh, uint32_t seq, size_t size, mcapi_status_t *st)
{
  static unsigned char b[MCAPI_MAX_PKT_SIZE];
  stamp(b, seq, size);
  mcapi_pktchan_send(sh, b, size, st);
}

/* Receives packet @p seq of @p size, checked; its pointer. */
static void *recv_pkt(mcapi_pktchan_recv_hndl_t rh, uint32_t seq, size_t size)
{
  mcapi_status_t st;
  void *p = NULL;
  size_t n = 0;
  mcapi_pktchan_recv(rh, &p, &n, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK_EQ_U(n, size);
  CHECK(p && stamped(p, seq, size));
  return p;
}

static void release_ok(void *p)
{
  mcapi_status_t st;
  mcapi_pktchan_release(p, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
}

static void close_both(mcapi_pktchan_send_hndl_t sh, mcapi_pktchan_recv_hndl_t rh)
{
  mcapi_status_t st;
  mcapi_request_t r;
  size_t n;
  mcapi_pktchan_send_close_i(sh, &r, &st);
  mcapi_wait(&r, &n, MCX_TEST_WAIT_MS, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_pktchan_recv_close_i(rh, &r, &st);
  mcapi_wait(&r, &n, MCX_TEST_WAIT_MS, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
}

/* Node 1 of domain @p dom, its endpoints 1 and 2 (the receiver's queue
 * @p depth deep; 0: the default) and a packet channel from 1 to 2, open.
 * Returns the pool's free count before the channel. */
static uint32_t open_pair(mcapi_domain_t dom, mcapi_uint_t depth, mcapi_endpoint_t *tx,
                          mcapi_endpoint_t *rx, mcapi_pktchan_send_hndl_t *sh,
                          mcapi_pktchan_recv_hndl_t *rh)
{
  mcapi_status_t st;
  mcx_test_node_init(dom, 1, locking, MCX_COMPAT_DEFAULT);
  *tx = mcapi_endpoint_create(1, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  *rx = mcapi_endpoint_create(2, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  if (depth)
    set_depth(*rx, depth);
  uint32_t free0 = mcx_test_pool_free();
  mcx_test_open_chan(*tx, *rx, 1, sh, rh);
  return free0;
}

/* Every size from 49 to 1024 bytes (and 1..48 in between, in their slots),
 * many laps of a 64-slot ring: each packet arrives exact, a large one in a
 * pool buffer. The owned buffers go back when the connection ends. */
TEST(large_packets_arrive_exact_through_laps)
{
  mcapi_status_t st;
  mcapi_endpoint_t tx, rx;
  mcapi_pktchan_send_hndl_t sh;
  mcapi_pktchan_recv_hndl_t rh;
  uint32_t free0 = open_pair(71, 0, &tx, &rx, &sh, &rh);
  uint32_t seq = 0;
  for (int round = 0; round < 3; round++) {
    for (size_t size = 1; size <= MCAPI_MAX_PKT_SIZE; size++, seq++) {
      send_pkt(sh, seq, size, &st);
      CHECK_STATUS(st, MCAPI_SUCCESS);
      void *p = recv_pkt(rh, seq, size);
      CHECK(size <= MCX_PKT_INLINE ? buf_index(p) == UINT32_MAX : buf_index(p) != UINT32_MAX);
      release_ok(p);
    }
  }
  /* A burst of every boundary size, then all received. */
  static const size_t sizes[] = {48, 49, 50, 63, 64, 65, 127, 128, 129, 255, 256, 257, 511, 512, 513, 1023, 1024};
  for (int lap = 0; lap < 20; lap++) {
    uint32_t s0 = seq;
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
      send_pkt(sh, seq++, sizes[i], &st);
      CHECK_STATUS(st, MCAPI_SUCCESS);
    }
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
      release_ok(recv_pkt(rh, s0 + (uint32_t)i, sizes[i]));
  }
  CHECK(mcx_test_pool_free() < free0); /* the slots own buffers */
  close_both(sh, rh);
  CHECK_EQ_U(mcx_test_pool_free(), free0);
  mcx_test_node_fini();
}

/* A slot keeps its buffer: on a 4-slot ring, thousands of large packets
 * come in at most four buffers, and the pool does not move after the first
 * lap. */
TEST(slot_reuses_its_buffer)
{
  mcapi_status_t st;
  mcapi_endpoint_t tx, rx;
  mcapi_pktchan_send_hndl_t sh;
  mcapi_pktchan_recv_hndl_t rh;
  uint32_t free0 = open_pair(72, 4, &tx, &rx, &sh, &rh);
  void *seen[8];
  uint32_t nseen = 0, free1 = 0;
  for (uint32_t seq = 0; seq < 4000; seq++) {
    size_t size = 49 + seq % 976;
    send_pkt(sh, seq, size, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    void *p = recv_pkt(rh, seq, size);
    uint32_t i = 0;
    while (i < nseen && seen[i] != p)
      i++;
    if (i == nseen && nseen < 8)
      seen[nseen++] = p;
    CHECK(owner_line(buf_index(p)) != UINT32_MAX); /* a slot's buffer */
    release_ok(p);
    if (seq == 3)
      free1 = mcx_test_pool_free();
    if (seq > 3 && mcx_test_pool_free() != free1) {
      CHECK_EQ_U(mcx_test_pool_free(), free1);
      break;
    }
  }
  CHECK_EQ_U(nseen, 4); /* one buffer per slot */
  CHECK_EQ_U(free1, free0 - 4);
  close_both(sh, rh);
  CHECK_EQ_U(mcx_test_pool_free(), free0);
  mcx_test_node_fini();
}

/* The receiver holds large packets (in any pattern); the sender passes the
 * held slots over and never stops; releases in any order; a second
 * release of a packet is BUF_INVALID; release_test says held / released. */
TEST(held_large_packets_passed_over_released_in_any_order)
{
  mcapi_status_t st;
  mcapi_endpoint_t tx, rx;
  mcapi_pktchan_send_hndl_t sh;
  mcapi_pktchan_recv_hndl_t rh;
  (void)open_pair(73, 4, &tx, &rx, &sh, &rh);
  mcapi_boolean_t fail = 1; /* a full ring says MEM_LIMIT at once */
  mcapi_endpoint_set_attribute(tx, MCAPI_ENDP_ATTR_FAIL_ON_MEM_LIMIT, &fail, sizeof fail, &st);
  mcapi_timeout_t tmo = MCX_TEST_WAIT_MS; /* a packet that never came: TIMEOUT, not a hang */
  mcapi_endpoint_set_attribute(rx, MCAPI_ENDP_ATTR_TIMEOUT, &tmo, sizeof tmo, &st);
  enum { N = 200 };
  void *held[N];
  uint32_t nheld = 0;
  /* Hold every third packet, release the others at once: 200 packets
   * through a 4-slot ring while up to 67 are held. */
  for (uint32_t seq = 0; seq < N; seq++) {
    send_pkt(sh, seq, 600, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    if (st != MCAPI_SUCCESS)
      break;
    void *p = recv_pkt(rh, seq, 600);
    if (seq % 3 == 0) {
      held[nheld++] = p;
      CHECK(mcapi_pktchan_release_test(p, &st) == MCAPI_FALSE);
      CHECK_STATUS(st, MCAPI_SUCCESS);
    } else {
      release_ok(p);
    }
  }
  /* Hold everything: still the ring never stops (a held slot is followed by
   * a free one), as the per-item path never did. */
  for (uint32_t seq = N; seq < N + 40; seq++) {
    send_pkt(sh, seq, 1024, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    if (st != MCAPI_SUCCESS)
      break;
    void *p = recv_pkt(rh, seq, 1024);
    CHECK(nheld < N);
    held[nheld++] = p;
  }
  /* Every held packet intact, released out of order: odd ones, then even
   * ones backwards. */
  CHECK_EQ_U(nheld, 67 + 40);
  for (uint32_t i = 0; i < nheld; i++) {
    uint32_t seq = i < 67 ? i * 3 : N + (i - 67);
    CHECK(held[i] && stamped(held[i], seq, seq < N ? 600 : 1024));
  }
  if (nheld != 67 + 40) { /* the checks above failed: do not release junk */
    mcx_test_node_fini();
    return;
  }
  for (uint32_t i = 1; i < nheld; i += 2)
    release_ok(held[i]);
  for (uint32_t i = (nheld - 1) & ~1u;; i -= 2) {
    release_ok(held[i]);
    if (i == 0)
      break;
  }
  mcapi_pktchan_release(held[5], &st);
  CHECK_STATUS(st, MCAPI_ERR_BUF_INVALID);
  mcapi_pktchan_release(held[0], &st);
  CHECK_STATUS(st, MCAPI_ERR_BUF_INVALID);
  CHECK(mcapi_pktchan_release_test(held[0], &st) == MCAPI_TRUE);
  /* The ring is whole again: four packets fit, then MEM_LIMIT. */
  for (uint32_t seq = 0; seq < 4; seq++) {
    send_pkt(sh, 500 + seq, 700, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
  }
  send_pkt(sh, 504, 700, &st);
  CHECK_STATUS(st, MCAPI_ERR_MEM_LIMIT);
  for (uint32_t seq = 0; seq < 4; seq++)
    release_ok(recv_pkt(rh, 500 + seq, 700));
  close_both(sh, rh);
  mcx_test_node_fini();
}

/* Both sides close while the receiver holds large packets: the close
 * completes, the held packets stay intact and valid, their releases
 * succeed (once) and the last one gives the pool back every buffer. */
TEST(close_with_large_packets_held_then_release)
{
  mcapi_status_t st;
  mcapi_endpoint_t tx, rx;
  mcapi_pktchan_send_hndl_t sh;
  mcapi_pktchan_recv_hndl_t rh;
  uint32_t free0 = open_pair(74, 8, &tx, &rx, &sh, &rh);
  for (uint32_t seq = 0; seq < 16; seq++) { /* every slot owns a buffer */
    send_pkt(sh, seq, 900, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    release_ok(recv_pkt(rh, seq, 900));
  }
  void *held[3];
  for (uint32_t i = 0; i < 3; i++) {
    send_pkt(sh, 100 + i, 900 - i, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
  }
  held[0] = recv_pkt(rh, 100, 900);
  held[1] = recv_pkt(rh, 101, 899);
  send_pkt(sh, 200, 300, &st); /* queued, never received: dropped at tear-down */
  CHECK_STATUS(st, MCAPI_SUCCESS);
  close_both(sh, rh); /* packet 102 and 200 queued: discarded */
  CHECK(mcx_test_pool_free() < free0);
  CHECK(stamped(held[0], 100, 900) && stamped(held[1], 101, 899));
  release_ok(held[1]);
  CHECK(stamped(held[0], 100, 900));
  mcapi_pktchan_release(held[1], &st);
  CHECK_STATUS(st, MCAPI_ERR_BUF_INVALID);
  release_ok(held[0]);
  CHECK_EQ_U(mcx_test_pool_free(), free0);
  /* The record is free again: a new connection works. */
  mcx_test_open_chan(tx, rx, 1, &sh, &rh);
  send_pkt(sh, 7, 1000, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  release_ok(recv_pkt(rh, 7, 1000));
  close_both(sh, rh);
  CHECK_EQ_U(mcx_test_pool_free(), free0);
  mcx_test_node_fini();
}

/* Slots own at most half the pool: channels beyond it send their large
 * packets on the per-item path, which still delivers; and with the pool
 * empty, a channel whose slots own buffers goes on without it. */
TEST(pool_exhausted_falls_back_per_item)
{
  mcx_test_node_init(75, 1, locking, MCX_COMPAT_DEFAULT);
  mcapi_status_t st;
  mcx__domain_t *d = mcx__self.dom;
  uint32_t n = d->pkt_pool.n, free0 = mcx_test_pool_free();
  enum { NCH = 12 }; /* 12 x 64 slots > half of MCAPI_MAX_BUFFERS */
  mcapi_endpoint_t ep[2 * NCH];
  mcapi_pktchan_send_hndl_t sh[NCH];
  mcapi_pktchan_recv_hndl_t rh[NCH];
  for (int c = 0; c < NCH; c++) {
    ep[2 * c] = mcapi_endpoint_create(10 + 2 * c, &st);
    ep[2 * c + 1] = mcapi_endpoint_create(11 + 2 * c, &st);
    set_depth(ep[2 * c + 1], 64);
    mcx_test_open_chan(ep[2 * c], ep[2 * c + 1], 1, &sh[c], &rh[c]);
  }
  uint32_t per_item = 0;
  for (int lap = 0; lap < 3; lap++)
    for (int c = 0; c < NCH; c++)
      for (uint32_t i = 0; i < 64; i++) {
        uint32_t seq = (uint32_t)(lap * 64 + i + c * 1000);
        send_pkt(sh[c], seq, 100 + i, &st);
        CHECK_STATUS(st, MCAPI_SUCCESS);
        void *p = recv_pkt(rh[c], seq, 100 + i);
        per_item += owner_line(buf_index(p)) == UINT32_MAX;
        release_ok(p);
      }
  CHECK(per_item > 0);               /* some went the per-item way */
  CHECK(mcx_test_pool_free() >= free0 - n / 2 - 2 * 64 - NCH); /* owned: at most half, plus return rings */
  /* The pool emptied (another user holds every buffer): channel 0's
   * slots all own buffers, so it goes on; a per-item send fails. */
  uint32_t *taken = malloc(n * sizeof *taken), nt = 0;
  while (nt < n && mcx__pool_get(&d->pkt_pool, &taken[nt]) == MCX_OK)
    nt++;
  CHECK_EQ_U(mcx_test_pool_free(), 0);
  for (uint32_t seq = 0; seq < 200; seq++) {
    send_pkt(sh[0], seq, 1024, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    release_ok(recv_pkt(rh[0], seq, 1024));
  }
  CHECK_EQ_U(mcx_test_pool_free(), 0);
  for (uint32_t i = 0; i < nt; i++)
    mcx__pool_put(&d->pkt_pool, taken[i]);
  free(taken);
  for (int c = 0; c < NCH; c++)
    close_both(sh[c], rh[c]);
  CHECK_EQ_U(mcx_test_pool_free(), free0);
  mcx_test_node_fini();
}

/* Shared memory is input: a slot value or a buffer state word that another
 * process overwrote is checked by the receiver (TRANSMISSION, the slot
 * freed, the next packet intact), by the sender (it takes another buffer)
 * and by the release (BUF_INVALID); nothing is read or written outside the
 * pool, and the buffers come back at tear-down. */
TEST(corrupt_owned_index_is_checked)
{
  mcapi_status_t st;
  mcapi_endpoint_t tx, rx;
  mcapi_pktchan_send_hndl_t sh;
  mcapi_pktchan_recv_hndl_t rh;
  uint32_t free0 = open_pair(76, 4, &tx, &rx, &sh, &rh);
  mcx__domain_t *d = mcx__self.dom;
  uint32_t line0 = UINT32_MAX, own[4];
  for (uint32_t seq = 0; seq < 4; seq++) { /* a lap: slot k owns own[k] */
    send_pkt(sh, seq, 200, &st);
    void *p = recv_pkt(rh, seq, 200);
    own[seq] = buf_index(p);
    if (seq == 0)
      line0 = owner_line(own[0]);
    CHECK_EQ_U(owner_line(own[seq]), line0 + seq);
    release_ok(p);
  }
  const uint64_t bad[] = {MCX_PKT_OWNS | (d->pkt_pool.n + 5), MCX_PKT_OWNS | 0xffffffffu,
                          MCX_PKT_OWNS | own[1], MCX_PKT_KEEP};
  uint32_t seq = 10, pos = 4; /* pos: the ring position of the next packet */
  for (uint32_t i = 0; i < 4; i++) {
    /* The queued packet's value: out of range, another slot's buffer, none. */
    mcx__spsc_slot_t *s = slot_of_line(line0 + (pos++ & 3));
    send_pkt(sh, seq, 300, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    s->value = bad[i];
    void *p = NULL;
    size_t got;
    mcapi_pktchan_recv(rh, &p, &got, &st);
    CHECK_STATUS(st, MCAPI_ERR_TRANSMISSION);
    CHECK(p == NULL);
    seq++;
    pos++;
    send_pkt(sh, seq, 400, &st); /* the slot was freed; the next arrives */
    CHECK_STATUS(st, MCAPI_SUCCESS);
    release_ok(recv_pkt(rh, seq, 400));
    seq++;
  }
  /* The sender reads a corrupt value of its own slot: it takes a buffer of
   * its own instead of writing where the value points. */
  for (uint32_t k = 0; k < 4; k++)
    slot_of_line(line0 + k)->value = MCX_PKT_OWNS | (d->pkt_pool.n + k);
  for (uint32_t i = 0; i < 8; i++, seq++) {
    send_pkt(sh, seq, 500, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    release_ok(recv_pkt(rh, seq, 500));
  }
  /* A held packet whose buffer's state word was overwritten: the release
   * refuses it; with the word back, it succeeds. */
  send_pkt(sh, seq, 600, &st);
  void *p = recv_pkt(rh, seq, 600);
  uint32_t b = buf_index(p);
  CHECK(owner_line(b) != UINT32_MAX); /* its slot's buffer, held with the slot */
  uint64_t w = mcx_load_relaxed(&d->pkt_state[b]);
  const uint64_t junk[] = {(uint64_t)0x7fff << 48 | (uint64_t)0x3fffffff << 2 | 2,
                           w ^ (uint64_t)1 << 40, w + 4, 0};
  for (uint32_t i = 0; i < 4; i++) {
    mcx_store_relaxed(&d->pkt_state[b], junk[i]);
    mcapi_pktchan_release(p, &st);
    CHECK_STATUS(st, MCAPI_ERR_BUF_INVALID);
    (void)mcapi_pktchan_release_test(p, &st); /* any answer; no crash */
  }
  mcx_store_relaxed(&d->pkt_state[b], w);
  release_ok(p);
  close_both(sh, rh);
  CHECK_EQ_U(mcx_test_pool_free(), free0); /* every owned buffer back, by its state word */
  mcx_test_node_fini();
}

/* ---- a peer that dies: the sweep (or the close that runs it) returns its
 * channel's owned buffers to the pool. */

#ifndef _WIN32 /* process nodes are made with fork(): tests/win32/test_win_proc covers them */
static int ready_fd[2];

static void say(void)
{
  char c = 1;
  if (write(ready_fd[1], &c, 1) != 1)
    _exit(90);
}

/* Receiver on node 2 port 5 of domain @p dom: takes 8 large packets, holds
 * 3 of them, closes its side when @p close, and waits to be killed. */
static int receive_holding_three(mcapi_domain_t dom, int close)
{
  mcx_test_node_init(dom, 2, locking, MCX_COMPAT_DEFAULT);
  mcapi_status_t st;
  mcapi_request_t r;
  size_t n;
  mcapi_endpoint_t in = mcapi_endpoint_create(5, &st);
  mcapi_pktchan_recv_hndl_t rh;
  mcapi_pktchan_recv_open_i(&rh, in, &r, &st);
  mcapi_wait(&r, &n, MCX_TEST_WAIT_MS, &st);
  if (st != MCAPI_SUCCESS)
    return 2;
  say();
  for (uint32_t seq = 0; seq < 8; seq++) {
    void *p;
    mcapi_pktchan_recv(rh, &p, &n, &st);
    if (st != MCAPI_SUCCESS || !stamped(p, seq, 1000))
      return 3;
    if (seq % 3 != 1)
      mcapi_pktchan_release(p, &st);
  }
  if (close) {
    mcapi_pktchan_recv_close_i(rh, &r, &st);
    mcapi_wait(&r, &n, MCX_TEST_WAIT_MS, &st);
    if (st != MCAPI_SUCCESS)
      return 4;
  }
  say();
  pause();
  return 0;
}
static int holding_receiver(void) { return receive_holding_three(77, 0); }
static int closing_receiver(void) { return receive_holding_three(79, 1); }

/* Sender on node 2 port 6: sends 8 large packets and waits to be killed. */
static int dying_sender(void)
{
  mcx_test_node_init(78, 2, locking, MCX_COMPAT_DEFAULT);
  mcapi_status_t st;
  mcapi_request_t r;
  size_t n;
  mcapi_endpoint_t out = mcapi_endpoint_create(6, &st);
  mcapi_pktchan_send_hndl_t sh;
  mcapi_pktchan_send_open_i(&sh, out, &r, &st);
  mcapi_wait(&r, &n, MCX_TEST_WAIT_MS, &st);
  if (st != MCAPI_SUCCESS)
    return 2;
  for (uint32_t seq = 0; seq < 8; seq++) {
    send_pkt(sh, seq, 1000, &st);
    if (st != MCAPI_SUCCESS)
      return 3;
  }
  say();
  pause();
  return 0;
}

static pid_t spawn(int (*fn)(void))
{
  if (pipe(ready_fd) != 0)
    return -1;
  fflush(stdout);
  pid_t c = fork();
  if (c == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    _exit(fn());
  }
  return c;
}

static int heard(void)
{
  char c;
  return read(ready_fd[0], &c, 1) == 1;
}

static void reap(pid_t c)
{
  kill(c, SIGKILL);
  waitpid(c, NULL, 0);
  close(ready_fd[0]);
  close(ready_fd[1]);
}

/* The parent's side of a receiver child of domain @p dom (receive_holding_three):
 * the channel from @p out to the child's endpoint connected and its send
 * side open; once the child is ready, 8 packets of 1000 bytes, then the
 * child's word that it is done with them. */
static mcapi_pktchan_send_hndl_t send_8_to_child(mcapi_domain_t dom, mcapi_endpoint_t out)
{
  mcapi_status_t st;
  mcapi_request_t r;
  size_t n;
  mcapi_endpoint_t in = mcapi_endpoint_get(dom, 2, 5, MCX_TEST_WAIT_MS, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_pktchan_connect_i(out, in, &r, &st);
  mcapi_wait(&r, &n, MCX_TEST_WAIT_MS, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_pktchan_send_hndl_t sh;
  mcapi_pktchan_send_open_i(&sh, out, &r, &st);
  mcapi_wait(&r, &n, MCX_TEST_WAIT_MS, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(heard());
  for (uint32_t seq = 0; seq < 8; seq++) {
    send_pkt(sh, seq, 1000, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
  }
  CHECK(heard());
  return sh;
}

TEST(crashed_receiver_gives_back_its_buffers)
{
  mcx_test_node_init(77, 1, locking, MCX_COMPAT_DEFAULT);
  mcapi_status_t st;
  mcapi_request_t r;
  size_t n;
  mcapi_endpoint_t out = mcapi_endpoint_create(1, &st);
  uint32_t free0 = mcx_test_pool_free();
  pid_t c = spawn(holding_receiver);
  mcapi_pktchan_send_hndl_t sh = send_8_to_child(77, out); /* it holds three */
  CHECK(mcx_test_pool_free() < free0);
  reap(c);
  /* The send finds the receiver gone (the sweep ran), and the close tears
   * the connection down: every buffer is back. */
  mcapi_uint_t tmo = 2000;
  mcapi_endpoint_set_attribute(out, MCAPI_ENDP_ATTR_TIMEOUT, &tmo, sizeof tmo, &st);
  for (int i = 0; i < 100; i++) {
    send_pkt(sh, 50, 1000, &st);
    if (st != MCAPI_SUCCESS)
      break;
  }
  CHECK_STATUS(st, MCAPI_ERR_CHAN_NOTOPEN);
  mcapi_pktchan_send_close_i(sh, &r, &st);
  mcapi_wait(&r, &n, MCX_TEST_WAIT_MS, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK_EQ_U(mcx_test_pool_free(), free0);
  mcx_test_node_fini();
}

/* The receiver closed while holding three packets and the sender closed
 * too: the connection is torn down with three slots held (their buffers
 * stay). The receiver dies: the sweep frees its slots and returns their
 * buffers. */
TEST(sweep_returns_buffers_of_a_torn_down_connection)
{
  mcx_test_node_init(79, 1, locking, MCX_COMPAT_DEFAULT);
  mcapi_status_t st;
  mcapi_request_t r;
  size_t n;
  mcapi_endpoint_t out = mcapi_endpoint_create(1, &st);
  uint32_t free0 = mcx_test_pool_free();
  pid_t c = spawn(closing_receiver);
  mcapi_pktchan_send_hndl_t sh = send_8_to_child(79, out); /* it holds three and has closed */
  mcapi_pktchan_send_close_i(sh, &r, &st);
  mcapi_wait(&r, &n, MCX_TEST_WAIT_MS, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK_EQ_U(mcx_test_pool_free(), free0 - 3); /* the tear-down left the held ones */
  reap(c);
  mcx__sweep_dead(mcx__self.dom);
  CHECK_EQ_U(mcx_test_pool_free(), free0);
  mcx_test_node_fini();
}

TEST(crashed_sender_gives_back_its_buffers)
{
  mcx_test_node_init(78, 1, locking, MCX_COMPAT_DEFAULT);
  mcapi_status_t st;
  mcapi_request_t r;
  size_t n;
  mcapi_endpoint_t in = mcapi_endpoint_create(1, &st);
  uint32_t free0 = mcx_test_pool_free();
  pid_t c = spawn(dying_sender);
  mcapi_endpoint_t out = mcapi_endpoint_get(78, 2, 6, MCX_TEST_WAIT_MS, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_pktchan_connect_i(out, in, &r, &st);
  mcapi_wait(&r, &n, MCX_TEST_WAIT_MS, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_pktchan_recv_hndl_t rh;
  mcapi_pktchan_recv_open_i(&rh, in, &r, &st);
  mcapi_wait(&r, &n, MCX_TEST_WAIT_MS, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(heard()); /* 8 sent */
  reap(c);
  void *held[2];
  for (uint32_t seq = 0; seq < 8; seq++) {
    void *p = recv_pkt(rh, seq, 1000);
    if (seq == 2 || seq == 5)
      held[seq == 5] = p;
    else
      release_ok(p);
  }
  void *p;
  mcapi_pktchan_recv(rh, &p, &n, &st); /* the sender is gone */
  CHECK_STATUS(st, MCAPI_ERR_CHAN_NOTOPEN);
  mcapi_pktchan_recv_close_i(rh, &r, &st);
  mcapi_wait(&r, &n, MCX_TEST_WAIT_MS, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK_EQ_U(mcx_test_pool_free(), free0 - 2); /* the two held ones */
  CHECK(stamped(held[0], 2, 1000) && stamped(held[1], 5, 1000));
  release_ok(held[1]);
  release_ok(held[0]);
  CHECK_EQ_U(mcx_test_pool_free(), free0);
  mcx_test_node_fini();
}
#endif

static void run_all(void)
{
  RUN(large_packets_arrive_exact_through_laps);
  RUN(slot_reuses_its_buffer);
  RUN(held_large_packets_passed_over_released_in_any_order);
  RUN(close_with_large_packets_held_then_release);
  RUN(pool_exhausted_falls_back_per_item);
  RUN(corrupt_owned_index_is_checked);
}

int main(void)
{
  setenv("MCX_NAMESPACE", "pkt_owned", 0);
  run_all();
#ifndef _WIN32
  RUN(crashed_receiver_gives_back_its_buffers);
  RUN(crashed_sender_gives_back_its_buffers);
  RUN(sweep_returns_buffers_of_a_torn_down_connection);
#endif
  /* The lock-based modes run the same ring code under their lock. */
  locking = MCX_LOCKING_GLOBAL;
  run_all();
  locking = MCX_LOCKING_KERNEL;
  run_all();
  return mcx_test_report();
}
