/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Claim/commit packet sends (mcx_pktchan_send_alloc, _commit, _abandon):
 * the packet is built where it travels (a slot's bytes, the buffer a slot
 * owns, a pool buffer for one packet), then published. Each outcome the
 * header documents, the order with plain sends, the pool whole after
 * abandons and closes, a sender process killed and a sender thread ended
 * (without finalize) while they hold claims.
 * Every locking mode and both profiles (the mca-2.0.3 profile sends every
 * packet through a pool buffer of its own).
 */
#include <stdlib.h>
#include <string.h>
#ifndef _WIN32 /* the crash case forks the sender */
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

/* LeakSanitizer: the node of a thread that ends without finalize leaves its
 * per-thread caches behind (docs/channels.md), which the case below does on
 * purpose. */
#if defined(__SANITIZE_ADDRESS__)
#define CLAIM_EXIT_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CLAIM_EXIT_LSAN 1
#endif
#endif
#ifdef CLAIM_EXIT_LSAN
#include <sanitizer/lsan_interface.h>
#endif

#include "mcapi.h"
#include "mcx.h"
#include "mcx_test.h"
#include "runtime/runtime.h"
#include "mcx_test_chan.h" /* after runtime.h: mcx_test_pool_free */

static mcx_locking_t locking = MCX_LOCKING_LOCKFREE;
static mcx_compat_t compat = MCX_COMPAT_SPEC;

/* Packet @p seq of @p size bytes: each byte a function of both. */
static void stamp(unsigned char *p, uint32_t seq, size_t size)
{
  if (!p) /* a failed claim, reported where it failed */
    return;
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

/* Claims @p cap bytes, stamps @p size of them as packet @p seq, commits them. */
static void claim_send(mcapi_pktchan_send_hndl_t sh, uint32_t seq, size_t cap, size_t size)
{
  mcapi_status_t st;
  unsigned char *p = mcx_pktchan_send_alloc(sh, cap, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(p != NULL);
  if (!p)
    return;
  stamp(p, seq, size);
  mcx_pktchan_send_commit(sh, p, size, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
}

static void plain_send(mcapi_pktchan_send_hndl_t sh, uint32_t seq, size_t size, mcapi_status_t *st)
{
  static unsigned char b[MCAPI_MAX_PKT_SIZE];
  stamp(b, seq, size);
  mcapi_pktchan_send(sh, b, size, st);
}

/* Receives packet @p seq of @p size, checked, and releases it. */
static void recv_check(mcapi_pktchan_recv_hndl_t rh, uint32_t seq, size_t size)
{
  mcapi_status_t st;
  void *p = NULL;
  size_t n = 0;
  mcapi_pktchan_recv(rh, &p, &n, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK_EQ_U(n, size);
  CHECK(p && stamped(p, seq, size));
  if (st == MCAPI_SUCCESS) {
    mcapi_pktchan_release(p, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
  }
}

/* Nothing to receive (a TIMEOUT of 0 on the receive side's endpoint). */
static void recv_nothing(mcapi_pktchan_recv_hndl_t rh)
{
  mcapi_status_t st;
  void *p;
  size_t n;
  mcapi_pktchan_recv(rh, &p, &n, &st);
  CHECK_STATUS(st, MCAPI_TIMEOUT);
}

static void close_side(uint32_t h, int send)
{
  mcapi_status_t st;
  mcapi_request_t r;
  size_t n;
  if (send)
    mcapi_pktchan_send_close_i(h, &r, &st);
  else
    mcapi_pktchan_recv_close_i(h, &r, &st);
  mcapi_wait(&r, &n, MCX_TEST_WAIT_MS, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
}

/* Endpoints @p tx (port 1) and @p rx (port 2) of the caller's node, a packet
 * channel between them, open; the receiver's TIMEOUT 0. */
static void open_pair(mcapi_endpoint_t *tx, mcapi_endpoint_t *rx, mcapi_pktchan_send_hndl_t *sh,
                      mcapi_pktchan_recv_hndl_t *rh)
{
  mcapi_status_t st;
  mcapi_request_t r, r2;
  size_t n;
  *tx = mcapi_endpoint_create(1, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  *rx = mcapi_endpoint_create(2, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_timeout_t t0 = 0;
  mcapi_endpoint_set_attribute(*rx, MCAPI_ENDP_ATTR_TIMEOUT, &t0, sizeof t0, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_pktchan_connect_i(*tx, *rx, &r, &st);
  mcapi_wait(&r, &n, MCX_TEST_WAIT_MS, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_pktchan_send_open_i(sh, *tx, &r, &st);
  mcapi_pktchan_recv_open_i(rh, *rx, &r2, &st);
  mcapi_wait(&r, &n, MCX_TEST_WAIT_MS, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_wait(&r2, &n, MCX_TEST_WAIT_MS, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
}

/* Packets of this build: up to MCAPI_MAX_PKT_SIZE (1024 by default). */
#define BIG ((size_t)MCAPI_MAX_PKT_SIZE)
#define MID (BIG / 2 + 3)
static const size_t sizes[] = {0, 1, 24, 48, 49, 200, MID, BIG};
#define NSIZES (sizeof sizes / sizeof sizes[0])

/* Every size, through several laps of the ring, mixed with plain sends,
 * arrives whole and in order; a commit shorter than the claim sends what
 * it says (a large claim committed short travels in the slot's bytes). */
TEST(claims_and_sends_arrive_in_order)
{
  mcx_test_node_init(61, 1, locking, compat);
  mcapi_endpoint_t tx, rx;
  mcapi_pktchan_send_hndl_t sh;
  mcapi_pktchan_recv_hndl_t rh;
  uint32_t free0 = mcx_test_pool_free();
  open_pair(&tx, &rx, &sh, &rh);
  mcapi_status_t st;
  uint32_t seq = 0;
  for (int lap = 0; lap < 40; lap++) {
    for (size_t i = 0; i < NSIZES; i++) {
      size_t z = sizes[i];
      claim_send(sh, seq, z, z);
      recv_check(rh, seq, z);
      seq++;
      claim_send(sh, seq, z, z / 3); /* committed shorter than claimed */
      plain_send(sh, seq + 1, z, &st);
      CHECK_STATUS(st, MCAPI_SUCCESS);
      recv_check(rh, seq, z / 3);
      recv_check(rh, seq + 1, z);
      seq += 2;
    }
  }
  /* Several in flight: claims and sends queue behind each other. */
  for (uint32_t k = 0; k < 6; k++) {
    if (k % 2)
      plain_send(sh, 1000 + k, MID, &st);
    else
      claim_send(sh, 1000 + k, MID, MID);
  }
  for (uint32_t k = 0; k < 6; k++)
    recv_check(rh, 1000 + k, MID);
  recv_nothing(rh);
  close_side(sh, 1);
  close_side(rh, 0);
  CHECK_EQ_U(mcx_test_pool_free(), free0);
  mcx_test_node_fini();
}

/* The statuses of mcx.h, one by one. */
TEST(claim_errors)
{
  mcx_test_node_init(62, 1, locking, compat);
  mcapi_endpoint_t tx, rx;
  mcapi_pktchan_send_hndl_t sh;
  mcapi_pktchan_recv_hndl_t rh;
  uint32_t free0 = mcx_test_pool_free();
  open_pair(&tx, &rx, &sh, &rh);
  mcapi_status_t st;
  char other[8];

  /* Wrong handles: forged, the receive side's. */
  CHECK(mcx_pktchan_send_alloc(0x12345678u, 8, &st) == NULL);
  CHECK_STATUS(st, MCAPI_ERR_CHAN_INVALID);
  CHECK(mcx_pktchan_send_alloc(rh, 8, &st) == NULL);
  CHECK_STATUS(st, MCAPI_ERR_CHAN_DIRECTION);
  /* Too big. */
  CHECK(mcx_pktchan_send_alloc(sh, MCAPI_MAX_PKT_SIZE + 1, &st) == NULL);
  CHECK_STATUS(st, MCAPI_ERR_PKT_SIZE);
  /* No status: nothing happens. */
  CHECK(mcx_pktchan_send_alloc(sh, 8, NULL) == NULL);

  /* Commit and abandon without a claim. */
  mcx_pktchan_send_commit(sh, other, 8, &st);
  CHECK_STATUS(st, MCAPI_ERR_BUF_INVALID);
  mcx_pktchan_send_abandon(sh, other, &st);
  CHECK_STATUS(st, MCAPI_ERR_BUF_INVALID);
  mcx_pktchan_send_commit(sh, NULL, 8, &st);
  CHECK_STATUS(st, MCAPI_ERR_PARAMETER);
  mcx_pktchan_send_abandon(sh, NULL, &st);
  CHECK_STATUS(st, MCAPI_ERR_PARAMETER);

  for (size_t i = 0; i < NSIZES; i++) {
    size_t z = sizes[i];
    unsigned char *p = mcx_pktchan_send_alloc(sh, z, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    CHECK(p != NULL);
    /* One claim per side; a plain send waits for none. */
    CHECK(mcx_pktchan_send_alloc(sh, 8, &st) == NULL);
    CHECK_STATUS(st, MCAPI_ERR_MEM_LIMIT);
    plain_send(sh, 0, 8, &st);
    CHECK_STATUS(st, MCAPI_ERR_MEM_LIMIT);
    mcapi_request_t req;
    size_t nn;
    mcapi_pktchan_send_i(sh, other, 8, &req, &st);
    if (st == MCAPI_SUCCESS || st == MCAPI_PENDING) /* started: the request says how it ended */
      mcapi_wait(&req, &nn, MCX_TEST_WAIT_MS, &st);
    CHECK_STATUS(st, MCAPI_ERR_MEM_LIMIT);
    /* The receiver waits at the claimed slot. */
    recv_nothing(rh);
    /* Another pointer, a longer commit: refused, the claim stays. */
    mcx_pktchan_send_commit(sh, other, z, &st);
    CHECK_STATUS(st, MCAPI_ERR_BUF_INVALID);
    mcx_pktchan_send_commit(sh, p, z + 1, &st);
    CHECK_STATUS(st, MCAPI_ERR_PKT_SIZE);
    mcx_pktchan_send_commit(rh, p, z, &st);
    CHECK_STATUS(st, MCAPI_ERR_CHAN_DIRECTION);
    stamp(p, (uint32_t)i, z);
    mcx_pktchan_send_commit(sh, p, z, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    /* Double commit, abandon after commit. */
    mcx_pktchan_send_commit(sh, p, z, &st);
    CHECK_STATUS(st, MCAPI_ERR_BUF_INVALID);
    mcx_pktchan_send_abandon(sh, p, &st);
    CHECK_STATUS(st, MCAPI_ERR_BUF_INVALID);
    recv_check(rh, (uint32_t)i, z);
    /* Abandoned: nothing arrives, the next packet does. */
    p = mcx_pktchan_send_alloc(sh, z, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    mcx_pktchan_send_abandon(sh, p, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    mcx_pktchan_send_commit(sh, p, z, &st);
    CHECK_STATUS(st, MCAPI_ERR_BUF_INVALID);
    mcx_pktchan_send_abandon(sh, p, &st);
    CHECK_STATUS(st, MCAPI_ERR_BUF_INVALID);
    recv_nothing(rh);
    plain_send(sh, 77, z, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    recv_check(rh, 77, z);
  }
  /* A claimed buffer is no packet to release. */
  void *p = mcx_pktchan_send_alloc(sh, MID, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_pktchan_release(p, &st);
  CHECK_STATUS(st, MCAPI_ERR_BUF_INVALID);
  /* Never a packet held: not one at all, or (a slot's buffer) not held. */
  mcapi_boolean_t done = mcapi_pktchan_release_test(p, &st);
  CHECK(st == MCAPI_ERR_BUF_INVALID || (st == MCAPI_SUCCESS && done == MCAPI_TRUE));
  mcx_pktchan_send_abandon(sh, p, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);

  /* The receiver closes while a claim is held: the commit says so and
   * sends nothing; a new claim says so at once. */
  p = mcx_pktchan_send_alloc(sh, BIG, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  close_side(rh, 0);
  mcx_pktchan_send_commit(sh, p, BIG, &st);
  CHECK_STATUS(st, MCAPI_ERR_CHAN_NOTOPEN);
  mcx_pktchan_send_commit(sh, p, BIG, &st);
  CHECK_STATUS(st, MCAPI_ERR_BUF_INVALID); /* the claim ended */
  CHECK(mcx_pktchan_send_alloc(sh, 8, &st) == NULL);
  CHECK_STATUS(st, MCAPI_ERR_CHAN_NOTOPEN);
  close_side(sh, 1);
  /* A stale handle. */
  CHECK(mcx_pktchan_send_alloc(sh, 8, &st) == NULL);
  CHECK(st == MCAPI_ERR_CHAN_INVALID || st == MCAPI_ERR_CHAN_NOTOPEN);
  CHECK_EQ_U(mcx_test_pool_free(), free0);
  mcx_test_node_fini();
  /* Not a node. */
  CHECK(mcx_pktchan_send_alloc(sh, 8, &st) == NULL);
  CHECK_STATUS(st, MCAPI_ERR_NODE_NOTINIT);
  mcx_pktchan_send_commit(sh, other, 8, &st);
  CHECK_STATUS(st, MCAPI_ERR_NODE_NOTINIT);
  mcx_pktchan_send_abandon(sh, other, &st);
  CHECK_STATUS(st, MCAPI_ERR_NODE_NOTINIT);
}

/* Claims held at a close and at finalize end unsent; the pool is whole. */
TEST(claims_end_with_close_and_finalize)
{
  mcx_test_node_init(63, 1, locking, compat);
  mcapi_endpoint_t tx, rx;
  mcapi_pktchan_send_hndl_t sh;
  mcapi_pktchan_recv_hndl_t rh;
  uint32_t free0 = mcx_test_pool_free();
  open_pair(&tx, &rx, &sh, &rh);
  mcapi_status_t st;
  void *p = mcx_pktchan_send_alloc(sh, BIG, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  close_side(sh, 1); /* the claim is abandoned */
  void *q;
  size_t n;
  mcapi_pktchan_recv(rh, &q, &n, &st);
  CHECK_STATUS(st, MCAPI_ERR_CHAN_NOTOPEN);
  mcx_pktchan_send_commit(sh, p, 10, &st);
  CHECK(st == MCAPI_ERR_CHAN_INVALID || st == MCAPI_ERR_CHAN_NOTOPEN);
  close_side(rh, 0);
  CHECK_EQ_U(mcx_test_pool_free(), free0);
  /* A new connection on the same endpoints: a claim held at finalize. */
  mcapi_request_t r, r2;
  mcapi_pktchan_connect_i(tx, rx, &r, &st);
  mcapi_wait(&r, &n, MCX_TEST_WAIT_MS, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_pktchan_send_open_i(&sh, tx, &r, &st);
  mcapi_pktchan_recv_open_i(&rh, rx, &r2, &st);
  mcapi_wait(&r, &n, MCX_TEST_WAIT_MS, &st);
  mcapi_wait(&r2, &n, MCX_TEST_WAIT_MS, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  claim_send(sh, 5, BIG, BIG);
  recv_check(rh, 5, BIG);
  CHECK(mcx_pktchan_send_alloc(sh, BIG, &st) != NULL);
  mcx_test_node_fini();
  /* The next node of the domain finds the pool whole (the partition was
   * retired with the last node: a fresh one, as the first). */
  mcx_test_node_init(63, 1, locking, compat);
  CHECK_EQ_U(mcx_test_pool_free(), free0);
  mcx_test_node_fini();
}

/* Four claims at a time, on four channels; a fifth is refused. */
TEST(claims_on_several_channels)
{
  mcx_test_node_init(64, 1, locking, compat);
  mcapi_status_t st;
  mcapi_request_t r, r2;
  size_t n;
  mcapi_pktchan_send_hndl_t sh[5];
  mcapi_pktchan_recv_hndl_t rh[5];
  void *p[5];
  uint32_t free0 = mcx_test_pool_free();
  for (int i = 0; i < 5; i++) {
    mcapi_endpoint_t tx = mcapi_endpoint_create(10 + i, &st), rx = mcapi_endpoint_create(20 + i, &st);
    mcapi_pktchan_connect_i(tx, rx, &r, &st);
    mcapi_wait(&r, &n, MCX_TEST_WAIT_MS, &st);
    mcapi_pktchan_send_open_i(&sh[i], tx, &r, &st);
    mcapi_pktchan_recv_open_i(&rh[i], rx, &r2, &st);
    mcapi_wait(&r, &n, MCX_TEST_WAIT_MS, &st);
    mcapi_wait(&r2, &n, MCX_TEST_WAIT_MS, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
  }
  size_t z[5] = {16, MID, 40, BIG, 16};
  for (int i = 0; i < 4; i++) {
    p[i] = mcx_pktchan_send_alloc(sh[i], z[i], &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    stamp(p[i], (uint32_t)i, z[i]);
  }
  CHECK(mcx_pktchan_send_alloc(sh[4], z[4], &st) == NULL);
  CHECK_STATUS(st, MCAPI_ERR_MEM_LIMIT);
  /* Committed in another order than claimed. */
  for (int i = 3; i >= 0; i--) {
    mcx_pktchan_send_commit(sh[i], p[i], z[i], &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
  }
  for (int i = 0; i < 4; i++)
    recv_check(rh[i], (uint32_t)i, z[i]);
  claim_send(sh[4], 4, z[4], z[4]);
  recv_check(rh[4], 4, z[4]);
  for (int i = 0; i < 5; i++) {
    close_side(sh[i], 1);
    close_side(rh[i], 0);
  }
  CHECK_EQ_U(mcx_test_pool_free(), free0);
  mcx_test_node_fini();
}

/* The receiver holds packets (their slots are passed over): claims go on
 * past them, and the held ones stay whole. */
TEST(claims_pass_held_slots)
{
  mcx_test_node_init(65, 1, locking, compat);
  mcapi_endpoint_t tx, rx;
  mcapi_pktchan_send_hndl_t sh;
  mcapi_pktchan_recv_hndl_t rh;
  uint32_t free0 = mcx_test_pool_free();
  open_pair(&tx, &rx, &sh, &rh);
  mcapi_status_t st;
  void *held[8];
  size_t n;
  /* pmq: the receiver's local pool is its queue's depth (docs/pmq.md). */
  uint32_t nheld = mcx_transport() == MCX_TRANSPORT_PMQ ? 2 : 8;
  for (uint32_t k = 0; k < nheld; k++) {
    claim_send(sh, k, k % 2 ? 30 : MID, k % 2 ? 30 : MID);
    mcapi_pktchan_recv(rh, &held[k], &n, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
  }
  for (uint32_t k = 100; k < 300; k++) {
    claim_send(sh, k, k % 3 ? 20 : MID, k % 3 ? 20 : MID);
    recv_check(rh, k, k % 3 ? 20 : MID);
  }
  for (uint32_t k = 0; k < nheld; k++) {
    CHECK(stamped(held[k], k, k % 2 ? 30 : MID));
    mcapi_pktchan_release(held[k], &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
  }
  close_side(sh, 1);
  close_side(rh, 0);
  CHECK_EQ_U(mcx_test_pool_free(), free0);
  mcx_test_node_fini();
}

#ifndef _WIN32 /* process nodes are made with fork() */
static int ready_fd[2];

/* The sender process (node 2 of domain @p dom, endpoint 6): 3 packets with
 * claim/commit, then it claims @p size bytes, half fills them, tells the
 * parent and waits to be killed. */
static int claiming_sender(mcapi_domain_t dom, size_t size)
{
  mcx_test_node_init(dom, 2, locking, compat);
  mcapi_status_t st;
  mcapi_request_t r;
  size_t n;
  mcapi_endpoint_t out = mcapi_endpoint_create(6, &st);
  mcapi_pktchan_send_hndl_t sh;
  mcapi_pktchan_send_open_i(&sh, out, &r, &st);
  mcapi_wait(&r, &n, MCX_TEST_WAIT_MS, &st);
  if (st != MCAPI_SUCCESS)
    return 2;
  for (uint32_t seq = 0; seq < 3; seq++) {
    unsigned char *p = mcx_pktchan_send_alloc(sh, size, &st);
    if (st != MCAPI_SUCCESS)
      return 3;
    stamp(p, seq, size);
    mcx_pktchan_send_commit(sh, p, size, &st);
    if (st != MCAPI_SUCCESS)
      return 4;
  }
  unsigned char *p = mcx_pktchan_send_alloc(sh, size, &st);
  if (st != MCAPI_SUCCESS)
    return 5;
  memset(p, 0xee, size / 2);
  char c = 1;
  if (write(ready_fd[1], &c, 1) != 1)
    return 6;
  pause();
  return 0;
}

/* A sender killed (SIGKILL) while it holds a claim: the receiver gets what
 * was committed, then CHAN_NOTOPEN; after the close the pool is whole and
 * the endpoints connect again and carry packets. For a small claim (slot
 * bytes), a large one (the slot's buffer, or in the mca-2.0.3 profile a
 * buffer of its own). */
static void killed_while_claiming(mcapi_domain_t dom, size_t size)
{
  mcx_test_node_init(dom, 1, locking, compat);
  mcapi_status_t st;
  mcapi_request_t r, r2;
  size_t n;
  mcapi_endpoint_t in = mcapi_endpoint_create(1, &st);
  uint32_t free0 = mcx_test_pool_free();
  CHECK(pipe(ready_fd) == 0);
  fflush(stdout);
  pid_t c = fork();
  if (c == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    _exit(claiming_sender(dom, size));
  }
  mcapi_endpoint_t out = mcapi_endpoint_get(dom, 2, 6, MCX_TEST_WAIT_MS, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_pktchan_connect_i(out, in, &r, &st);
  mcapi_wait(&r, &n, MCX_TEST_WAIT_MS, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_pktchan_recv_hndl_t rh;
  mcapi_pktchan_recv_open_i(&rh, in, &r, &st);
  mcapi_wait(&r, &n, MCX_TEST_WAIT_MS, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  char ch;
  CHECK(read(ready_fd[0], &ch, 1) == 1); /* it holds a claim */
  kill(c, SIGKILL);
  int ws = 0;
  waitpid(c, &ws, 0);
  CHECK(WIFSIGNALED(ws));
  close(ready_fd[0]);
  close(ready_fd[1]);
  for (uint32_t seq = 0; seq < 3; seq++)
    recv_check(rh, seq, size);
  /* The sweep takes the dead sender's side away: nothing more comes. */
  mcx__sweep_dead(mcx__self.dom);
  void *p;
  mcapi_pktchan_recv(rh, &p, &n, &st);
  CHECK_STATUS(st, MCAPI_ERR_CHAN_NOTOPEN);
  close_side(rh, 0);
  CHECK_EQ_U(mcx_test_pool_free(), free0);
  /* The channel's record and rings serve a new connection, whole. */
  mcapi_endpoint_t tx = mcapi_endpoint_create(3, &st);
  mcapi_pktchan_connect_i(tx, in, &r, &st);
  mcapi_wait(&r, &n, MCX_TEST_WAIT_MS, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_pktchan_send_hndl_t sh;
  mcapi_pktchan_send_open_i(&sh, tx, &r, &st);
  mcapi_pktchan_recv_open_i(&rh, in, &r2, &st);
  mcapi_wait(&r, &n, MCX_TEST_WAIT_MS, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_wait(&r2, &n, MCX_TEST_WAIT_MS, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  for (uint32_t seq = 0; seq < 70; seq++) {
    claim_send(sh, seq, size, size);
    recv_check(rh, seq, size);
  }
  close_side(sh, 1);
  close_side(rh, 0);
  CHECK_EQ_U(mcx_test_pool_free(), free0);
  mcx_test_node_fini();
}

TEST(killed_while_claiming_small) { killed_while_claiming(66, 40); }
TEST(killed_while_claiming_large) { killed_while_claiming(67, BIG); }
#endif

/* A sender thread (node 2 of domain claim_exit.dom, endpoint 6): 3 packets
 * with claim/commit, then a claim of claim_exit.size bytes, and it ends
 * without mcapi_finalize. */
static struct {
  mcapi_domain_t dom;
  size_t size;
  int failed; /* the step that failed, 0 none */
  pthread_barrier_t opened; /* the receive side is open: the sender may end */
} claim_exit;

static void *exiting_sender(void *arg)
{
  (void)arg;
  size_t size = claim_exit.size;
#ifdef CLAIM_EXIT_LSAN
  __lsan_disable(); /* what the node allocates is left with the thread, on purpose */
#endif
  mcx_test_node_init(claim_exit.dom, 2, locking, compat);
  mcapi_status_t st;
  mcapi_request_t r;
  size_t n;
  mcapi_endpoint_t out = mcapi_endpoint_create(6, &st);
  mcapi_pktchan_send_hndl_t sh;
  mcapi_pktchan_send_open_i(&sh, out, &r, &st);
  mcapi_wait(&r, &n, MCX_TEST_WAIT_MS, &st);
  if (st != MCAPI_SUCCESS) {
    claim_exit.failed = 1;
    goto done;
  }
  for (uint32_t seq = 0; seq < 3; seq++) {
    unsigned char *p = mcx_pktchan_send_alloc(sh, size, &st);
    if (st != MCAPI_SUCCESS) {
      claim_exit.failed = 2;
      goto done;
    }
    stamp(p, seq, size);
    mcx_pktchan_send_commit(sh, p, size, &st);
    if (st != MCAPI_SUCCESS) {
      claim_exit.failed = 3;
      goto done;
    }
  }
  unsigned char *p = mcx_pktchan_send_alloc(sh, size, &st);
  if (st != MCAPI_SUCCESS)
    claim_exit.failed = 4;
  else
    memset(p, 0xee, size / 2);
done:
  /* A sender gone before the receive side's open completes fails that open
   * (its side is swept away); the case is a claim held when it ends. */
  pthread_barrier_wait(&claim_exit.opened);
  return NULL; /* no finalize: the node dies with its thread */
}

/* A sender thread that ends while it holds a claim, without finalize: its
 * node is dead once the thread is gone, and the claim ends as a killed
 * claimer's (docs/channels.md): the receiver gets what was committed, then
 * CHAN_NOTOPEN after the sweep; the pool is whole after the close. */
static void thread_exits_while_claiming(mcapi_domain_t dom, size_t size)
{
  mcx_test_node_init(dom, 1, locking, compat);
  mcapi_status_t st;
  mcapi_request_t r;
  size_t n;
  mcapi_endpoint_t in = mcapi_endpoint_create(1, &st);
  uint32_t free0 = mcx_test_pool_free();
  claim_exit.dom = dom;
  claim_exit.size = size;
  claim_exit.failed = 0;
  CHECK(pthread_barrier_init(&claim_exit.opened, NULL, 2) == 0);
  pthread_t t;
  CHECK(pthread_create(&t, NULL, exiting_sender, NULL) == 0);
  mcapi_endpoint_t out = mcapi_endpoint_get(dom, 2, 6, MCX_TEST_WAIT_MS, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_pktchan_connect_i(out, in, &r, &st);
  mcapi_wait(&r, &n, MCX_TEST_WAIT_MS, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_pktchan_recv_hndl_t rh;
  mcapi_pktchan_recv_open_i(&rh, in, &r, &st);
  mcapi_wait(&r, &n, MCX_TEST_WAIT_MS, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  pthread_barrier_wait(&claim_exit.opened);
  CHECK(pthread_join(t, NULL) == 0); /* it ended holding a claim */
  pthread_barrier_destroy(&claim_exit.opened);
  CHECK_EQ_U(claim_exit.failed, 0);
  for (uint32_t seq = 0; seq < 3; seq++)
    recv_check(rh, seq, size);
  /* The sweep takes the dead sender's side away: nothing more comes. */
  mcx__sweep_dead(mcx__self.dom);
  void *p;
  mcapi_pktchan_recv(rh, &p, &n, &st);
  CHECK_STATUS(st, MCAPI_ERR_CHAN_NOTOPEN);
  close_side(rh, 0);
  CHECK_EQ_U(mcx_test_pool_free(), free0);
  mcx_test_node_fini();
}

/* A domain of its own each: the process keeps its mapping of a domain
 * whose node's thread ended without finalize. */
TEST(thread_exits_while_claiming_small) { thread_exits_while_claiming(80, 40); }
TEST(thread_exits_while_claiming_large) { thread_exits_while_claiming(81, BIG); }

static void run_all(void)
{
  RUN(claims_and_sends_arrive_in_order);
  RUN(claim_errors);
  RUN(claims_end_with_close_and_finalize);
  RUN(claims_on_several_channels);
  RUN(claims_pass_held_slots);
#ifndef _WIN32
  RUN(killed_while_claiming_small);
  RUN(killed_while_claiming_large);
#endif
  /* Once per process: each leaves its domain mapped (one of MCA_MAX_DOMAINS). */
  if (locking == MCX_LOCKING_LOCKFREE && compat == MCX_COMPAT_SPEC) {
    RUN(thread_exits_while_claiming_small);
    RUN(thread_exits_while_claiming_large);
  }
}

int main(void)
{
  setenv("MCX_NAMESPACE", "pkt_claim", 0);
  mcx_locking_t modes[] = {MCX_LOCKING_LOCKFREE, MCX_LOCKING_GLOBAL, MCX_LOCKING_KERNEL};
  for (int m = 0; m < 3; m++) {
    locking = modes[m];
    compat = MCX_COMPAT_SPEC;
    printf("-- %s, spec profile\n", m == 0 ? "lock-free" : m == 1 ? "global" : "kernel");
    run_all();
  }
  locking = MCX_LOCKING_LOCKFREE;
  compat = MCX_COMPAT_MCA203;
  printf("-- lock-free, mca-2.0.3 profile\n");
  run_all();
  return mcx_test_report();
}
