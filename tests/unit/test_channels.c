/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Packet and scalar channels: connect, open, send, receive, zero-copy release,
 * close, and every error status, in both locking modes (one domain each).
 */
#include <string.h>
#include <unistd.h>

#include "mcapi.h"
#include "mcx.h"
#include "mcx_test.h"

#define DOM_LF 11
#define DOM_GL 12
#define DOM_KL 16

static mcapi_domain_t cur_domain = DOM_LF;
static mcx_locking_t cur_locking = MCX_LOCKING_LOCKFREE;

static void init_node(mcapi_node_t node)
{
  mcapi_param_t p;
  mcapi_info_t info;
  mcapi_status_t st;
  mcx_param_init(&p);
  p.locking = cur_locking;
  mcapi_initialize(cur_domain, node, NULL, &p, &info, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
}

static void fini(void)
{
  mcapi_status_t st;
  mcapi_finalize(&st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
}

static mcapi_status_t wait_st(mcapi_request_t *r)
{
  mcapi_status_t st;
  size_t n;
  mcapi_wait(r, &n, MCX_TEST_WAIT_MS, &st);
  return st;
}

static mcapi_uint_t ep_status(mcapi_endpoint_t e)
{
  mcapi_status_t st;
  mcapi_uint_t v = 0;
  mcapi_endpoint_get_attribute(e, MCAPI_ENDP_ATTR_STATUS, &v, sizeof v, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  return v;
}

static mcapi_uint_t ep_type(mcapi_endpoint_t e)
{
  mcapi_status_t st;
  mcapi_uint_t v = 99;
  mcapi_endpoint_get_attribute(e, MCAPI_ENDP_ATTR_TYPE, &v, sizeof v, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  return v;
}

/* Connects a -> b as a packet channel and opens both sides (one node). */
static void pkt_setup(mcapi_endpoint_t a, mcapi_endpoint_t b, mcapi_pktchan_send_hndl_t *sh,
                      mcapi_pktchan_recv_hndl_t *rh)
{
  mcapi_status_t st;
  mcapi_request_t c, s, r;
  mcapi_pktchan_connect_i(a, b, &c, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS) /* completes at once */;
  CHECK_STATUS(wait_st(&c), MCAPI_SUCCESS);
  mcapi_pktchan_send_open_i(sh, a, &s, &st);
  CHECK_STATUS(st, MCAPI_PENDING);
  mcapi_pktchan_recv_open_i(rh, b, &r, &st);
  CHECK_STARTED(st);
  CHECK_STATUS(wait_st(&s), MCAPI_SUCCESS);
  CHECK_STATUS(wait_st(&r), MCAPI_SUCCESS);
}

static void scl_setup(mcapi_endpoint_t a, mcapi_endpoint_t b, mcapi_sclchan_send_hndl_t *sh,
                      mcapi_sclchan_recv_hndl_t *rh)
{
  mcapi_status_t st;
  mcapi_request_t c, s, r;
  mcapi_sclchan_connect_i(a, b, &c, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS) /* completes at once */;
  CHECK_STATUS(wait_st(&c), MCAPI_SUCCESS);
  mcapi_sclchan_send_open_i(sh, a, &s, &st);
  mcapi_sclchan_recv_open_i(rh, b, &r, &st);
  CHECK_STATUS(wait_st(&s), MCAPI_SUCCESS);
  CHECK_STATUS(wait_st(&r), MCAPI_SUCCESS);
}

static void close_pkt(mcapi_pktchan_send_hndl_t sh, mcapi_pktchan_recv_hndl_t rh)
{
  mcapi_status_t st;
  mcapi_request_t r1, r2;
  mcapi_pktchan_send_close_i(sh, &r1, &st);
  CHECK_STARTED(st);
  CHECK_STATUS(wait_st(&r1), MCAPI_SUCCESS);
  mcapi_pktchan_recv_close_i(rh, &r2, &st);
  CHECK_STARTED(st);
  CHECK_STATUS(wait_st(&r2), MCAPI_SUCCESS);
}

/* ------------------------------------------------------------ packets */

TEST(packet_channel_lifecycle_and_zero_copy)
{
  mcapi_status_t st;
  init_node(1);
  mcapi_endpoint_t a = mcapi_endpoint_create(1, &st);
  mcapi_endpoint_t b = mcapi_endpoint_create(2, &st);
  CHECK_EQ_U(ep_type(a), MCAPI_NO_CHAN);
  mcapi_request_t c, s, r;
  mcapi_pktchan_connect_i(a, b, &c, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS) /* completes at once */;
  CHECK_STATUS(wait_st(&c), MCAPI_SUCCESS);
  CHECK_EQ_U(ep_type(a), MCAPI_PKT_CHAN);
  CHECK_EQ_U(ep_type(b), MCAPI_PKT_CHAN);
  CHECK_EQ_U(ep_status(a), MCAPI_ENDP_STATUS_CREATED | MCAPI_ENDP_STATUS_CONNECTED |
                               MCAPI_ENDP_STATUS_SEND_SIDE);
  CHECK_EQ_U(ep_status(b), MCAPI_ENDP_STATUS_CREATED | MCAPI_ENDP_STATUS_CONNECTED |
                               MCAPI_ENDP_STATUS_RECV_SIDE);
  /* Opens are synchronizing: the send side waits for the receive side. */
  mcapi_pktchan_send_hndl_t sh = 0;
  mcapi_pktchan_recv_hndl_t rh = 0;
  size_t n;
  mcapi_pktchan_send_open_i(&sh, a, &s, &st);
  CHECK_STATUS(st, MCAPI_PENDING);
  CHECK(!mcapi_test(&s, &n, &st));
  CHECK_STATUS(st, MCAPI_PENDING);
  CHECK(ep_status(a) & MCAPI_ENDP_STATUS_OPEN_PENDING);
  mcapi_pktchan_recv_open_i(&rh, b, &r, &st);
  CHECK_STARTED(st);
  CHECK_STATUS(wait_st(&s), MCAPI_SUCCESS);
  CHECK_STATUS(wait_st(&r), MCAPI_SUCCESS);
  CHECK(sh != 0 && rh != 0 && sh != rh);
  CHECK(ep_status(a) & MCAPI_ENDP_STATUS_OPEN);
  CHECK(ep_status(b) & MCAPI_ENDP_STATUS_OPEN);

  /* Packets of several sizes, zero-copy and aligned (on pmq copied into the
   * receiver's pool, and bounded by the kernel's msgsize_max: docs/pmq.md). */
  static char big[MCAPI_MAX_PKT_SIZE];
  size_t bigsz = sizeof big;
  if (mcx_transport() == MCX_TRANSPORT_PMQ) {
    mcx_pmq_limits_t l;
    mcx_pmq_limits(&l);
    bigsz = l.max_packet;
    CHECK(bigsz > 0 && bigsz <= sizeof big);
  }
  for (size_t i = 0; i < sizeof big; i++)
    big[i] = (char)(i * 7);
  mcapi_pktchan_send(sh, "hello", 5, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_pktchan_send(sh, big, bigsz, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_pktchan_send(sh, NULL, 0, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK_EQ_U(mcapi_pktchan_available(rh, &st), 3);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  void *p1 = NULL, *p2 = NULL, *p3 = NULL;
  mcapi_pktchan_recv(rh, &p1, &n, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK_EQ_U(n, 5);
  CHECK(p1 && memcmp(p1, "hello", 5) == 0);
  CHECK_EQ_U((uintptr_t)p1 % MCAPI_BUF_ALIGN, 0);
  mcapi_pktchan_recv(rh, &p2, &n, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK_EQ_U(n, bigsz);
  CHECK(p2 && memcmp(p2, big, bigsz) == 0);
  CHECK_EQ_U((uintptr_t)p2 % MCAPI_BUF_ALIGN, 0);
  mcapi_request_t rr;
  mcapi_pktchan_recv_i(rh, &p3, &rr, &st);
  CHECK_STARTED(st);
  CHECK(mcapi_wait(&rr, &n, MCX_TEST_WAIT_MS, &st));
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK_EQ_U(n, 0);
  CHECK_EQ_U(mcapi_pktchan_available(rh, &st), 0);

  /* Release: only what was handed out, once; bad pointers change nothing. */
  CHECK(!mcapi_pktchan_release_test(p1, &st));
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_pktchan_release(p1, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(mcapi_pktchan_release_test(p1, &st));
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_pktchan_release(p1, &st);
  CHECK_STATUS(st, MCAPI_ERR_BUF_INVALID);
  mcapi_pktchan_release((char *)p2 + 1, &st);
  CHECK_STATUS(st, MCAPI_ERR_BUF_INVALID);
  mcapi_pktchan_release(big, &st);
  CHECK_STATUS(st, MCAPI_ERR_BUF_INVALID);
  mcapi_pktchan_release(NULL, &st);
  CHECK_STATUS(st, MCAPI_ERR_BUF_INVALID);
  mcapi_pktchan_release_test(big, &st);
  CHECK_STATUS(st, MCAPI_ERR_BUF_INVALID);
  CHECK(!mcapi_pktchan_release_test(p2, &st));
  CHECK(p2 && memcmp(p2, big, bigsz) == 0); /* still intact */
  mcapi_pktchan_release(p2, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_pktchan_release(p3, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);

  /* Non-blocking send; a receive on an empty channel times out. */
  mcapi_request_t sr;
  mcapi_pktchan_send_i(sh, "xyz", 3, &sr, &st);
  CHECK_STARTED(st);
  CHECK(mcapi_wait(&sr, &n, MCX_TEST_WAIT_MS, &st));
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK_EQ_U(n, 3);
  mcapi_pktchan_recv(rh, &p1, &n, &st);
  CHECK(memcmp(p1, "xyz", 3) == 0);
  mcapi_pktchan_release(p1, &st);
  mcapi_timeout_t to = 5;
  mcapi_endpoint_set_attribute(b, MCAPI_ENDP_ATTR_TIMEOUT, &to, sizeof to, &st);
  mcapi_pktchan_recv(rh, &p1, &n, &st);
  CHECK_STATUS(st, MCAPI_TIMEOUT);
  mcapi_pktchan_recv_i(rh, &p1, &rr, &st);
  CHECK_STATUS(st, MCAPI_PENDING);
  CHECK(!mcapi_test(&rr, &n, &st));
  mcapi_cancel(&rr, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_test(&rr, &n, &st);
  CHECK_STATUS(st, MCAPI_ERR_REQUEST_CANCELLED);

  /* Oversize and bad arguments. */
  mcapi_pktchan_send(sh, big, MCAPI_MAX_PKT_SIZE + 1, &st);
  CHECK_STATUS(st, MCAPI_ERR_PKT_SIZE);
  CHECK(MCAPI_ERR_PKT_LIMIT == MCAPI_ERR_PKT_SIZE);
  mcapi_pktchan_send_i(sh, big, MCAPI_MAX_PKT_SIZE + 1, &sr, &st);
  CHECK_STATUS(st, MCAPI_ERR_PKT_SIZE);
  mcapi_pktchan_send(sh, NULL, 4, &st);
  CHECK_STATUS(st, MCAPI_ERR_PARAMETER);
  mcapi_pktchan_send_i(sh, "x", 1, NULL, &st);
  CHECK_STATUS(st, MCAPI_ERR_PARAMETER);
  mcapi_pktchan_recv(rh, NULL, &n, &st);
  CHECK_STATUS(st, MCAPI_ERR_PARAMETER);
  mcapi_pktchan_recv(rh, &p1, NULL, &st);
  CHECK_STATUS(st, MCAPI_ERR_PARAMETER);
  mcapi_pktchan_recv_i(rh, NULL, &rr, &st);
  CHECK_STATUS(st, MCAPI_ERR_PARAMETER);

  /* Close: the sender first; queued packets stay receivable. */
  mcapi_pktchan_send(sh, "last", 4, &st);
  mcapi_request_t cs, cr;
  mcapi_pktchan_send_close_i(sh, &cs, &st);
  CHECK_STARTED(st);
  CHECK_STATUS(wait_st(&cs), MCAPI_SUCCESS);
  mcapi_pktchan_send(sh, "x", 1, &st);
  CHECK_STATUS(st, MCAPI_ERR_CHAN_NOTOPEN);
  mcapi_pktchan_send_close_i(sh, &cs, &st);
  CHECK_STATUS(st, MCAPI_ERR_CHAN_NOTOPEN);
  mcapi_pktchan_recv(rh, &p1, &n, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(n == 4 && memcmp(p1, "last", 4) == 0);
  mcapi_pktchan_release(p1, &st);
  mcapi_pktchan_recv(rh, &p1, &n, &st);
  CHECK_STATUS(st, MCAPI_ERR_CHAN_NOTOPEN); /* drained, and nothing more will come */
  mcapi_pktchan_recv_close_i(rh, &cr, &st);
  CHECK_STARTED(st);
  CHECK_STATUS(wait_st(&cr), MCAPI_SUCCESS);
  /* Disconnected: message endpoints again; the handles are stale. */
  CHECK_EQ_U(ep_type(a), MCAPI_NO_CHAN);
  CHECK_EQ_U(ep_status(b), MCAPI_ENDP_STATUS_CREATED);
  mcapi_pktchan_send(sh, "x", 1, &st);
  CHECK_STATUS(st, MCAPI_ERR_CHAN_INVALID);
  mcapi_pktchan_recv_close_i(rh, &cr, &st);
  CHECK_STATUS(st, MCAPI_ERR_CHAN_INVALID);
  mcapi_msg_send(a, b, "m", 1, 0, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  char m;
  mcapi_msg_recv(b, &m, 1, &n, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  /* ... and can be connected again. */
  pkt_setup(a, b, &sh, &rh);
  mcapi_pktchan_send(sh, "again", 5, &st);
  mcapi_pktchan_recv(rh, &p1, &n, &st);
  CHECK(n == 5 && memcmp(p1, "again", 5) == 0);
  mcapi_pktchan_release(p1, &st);
  close_pkt(sh, rh);
  CHECK_EQ_U(mcx_requests_in_use(), 0);
  fini();
}

TEST(channel_errors)
{
  mcapi_status_t st;
  init_node(1);
  mcapi_endpoint_t a = mcapi_endpoint_create(1, &st);
  mcapi_endpoint_t b = mcapi_endpoint_create(2, &st);
  mcapi_endpoint_t c = mcapi_endpoint_create(3, &st);
  mcapi_request_t r;
  mcapi_pktchan_connect_i(a, b, NULL, &st);
  CHECK_STATUS(st, MCAPI_ERR_PARAMETER);
  mcapi_pktchan_connect_i(a, 0x7fff0033u, &r, &st);
  CHECK_STATUS(st, MCAPI_ERR_ENDP_INVALID);
  mcapi_pktchan_connect_i(a, a, &r, &st);
  CHECK_STATUS(st, MCAPI_ERR_ENDP_INVALID);
  /* Channel calls on a message endpoint / a made-up handle. */
  mcapi_pktchan_send(0x12345, "x", 1, &st);
  CHECK_STATUS(st, MCAPI_ERR_CHAN_INVALID);
  mcapi_sclchan_recv_uint8(0, &st);
  CHECK_STATUS(st, MCAPI_ERR_CHAN_INVALID);
  mcapi_pktchan_available(0x80010001u, &st);
  CHECK_STATUS(st, MCAPI_ERR_CHAN_INVALID);

  mcapi_pktchan_connect_i(a, b, &r, &st);
  CHECK_STATUS(wait_st(&r), MCAPI_SUCCESS);
  /* Connected endpoints: no second connection, no messages (the delete of
   * one whose side is not open succeeds: conf_delete_connected_spec). */
  mcapi_pktchan_connect_i(a, c, &r, &st);
  CHECK_STATUS(st, MCAPI_ERR_CHAN_CONNECTED);
  mcapi_sclchan_connect_i(c, b, &r, &st);
  CHECK_STATUS(st, MCAPI_ERR_CHAN_CONNECTED);
  mcapi_msg_send(a, c, "x", 1, 0, &st);
  CHECK_STATUS(st, MCAPI_ERR_CHAN_CONNECTED);
  mcapi_msg_send(c, b, "x", 1, 0, &st);
  CHECK_STATUS(st, MCAPI_ERR_CHAN_CONNECTED);
  mcapi_uint_t depth = 4;
  mcapi_endpoint_set_attribute(b, MCAPI_ENDP_ATTR_NUM_RECV_BUFFERS, &depth, sizeof depth, &st);
  CHECK_STATUS(st, MCAPI_ERR_CHAN_OPEN);
  /* Opens of the wrong type or direction. */
  mcapi_sclchan_send_hndl_t ssh;
  mcapi_pktchan_send_hndl_t sh;
  mcapi_pktchan_recv_hndl_t rh;
  mcapi_sclchan_send_open_i(&ssh, a, &r, &st);
  CHECK_STATUS(st, MCAPI_ERR_CHAN_TYPE);
  mcapi_pktchan_recv_open_i(&rh, a, &r, &st);
  CHECK_STATUS(st, MCAPI_ERR_CHAN_DIRECTION);
  mcapi_pktchan_send_open_i(&sh, b, &r, &st);
  CHECK_STATUS(st, MCAPI_ERR_CHAN_DIRECTION);
  mcapi_pktchan_send_open_i(NULL, a, &r, &st);
  CHECK_STATUS(st, MCAPI_ERR_PARAMETER);
  mcapi_pktchan_send_open_i(&sh, 0x7fff0044u, &r, &st);
  CHECK_STATUS(st, MCAPI_ERR_ENDP_INVALID);
  mcapi_request_t so, ro;
  mcapi_pktchan_send_open_i(&sh, a, &so, &st);
  CHECK_STATUS(st, MCAPI_PENDING);
  mcapi_pktchan_send_open_i(&sh, a, &r, &st);
  CHECK_STATUS(st, MCAPI_ERR_CHAN_OPENPENDING);
  mcapi_pktchan_recv_open_i(&rh, b, &ro, &st);
  CHECK_STATUS(wait_st(&so), MCAPI_SUCCESS);
  CHECK_STATUS(wait_st(&ro), MCAPI_SUCCESS);
  mcapi_pktchan_send_open_i(&sh, a, &r, &st);
  CHECK_STATUS(st, MCAPI_ERR_CHAN_OPEN);
  mcapi_endpoint_delete(a, &st); /* its side is open */
  CHECK_STATUS(st, MCAPI_ERR_CHAN_OPEN);
  /* Handles used the wrong way. */
  void *p;
  size_t n;
  mcapi_pktchan_recv(sh, &p, &n, &st);
  CHECK_STATUS(st, MCAPI_ERR_CHAN_DIRECTION);
  mcapi_pktchan_send(rh, "x", 1, &st);
  CHECK_STATUS(st, MCAPI_ERR_CHAN_DIRECTION);
  mcapi_sclchan_send_uint32(sh, 1, &st);
  CHECK_STATUS(st, MCAPI_ERR_CHAN_INVALID); /* a handle of the other type */
  mcapi_sclchan_available(rh, &st);
  CHECK_STATUS(st, MCAPI_ERR_CHAN_INVALID); /* a handle of the other type */
  mcapi_pktchan_send_close_i(rh, &r, &st);
  CHECK_STATUS(st, MCAPI_ERR_CHAN_DIRECTION);
  mcapi_sclchan_recv_close_i(rh, &r, &st);
  CHECK_STATUS(st, MCAPI_ERR_CHAN_INVALID); /* a handle of the other type */
  mcapi_pktchan_send_close_i(sh, NULL, &st);
  CHECK_STATUS(st, MCAPI_ERR_PARAMETER);
  mcapi_pktchan_send_close_i(0x00450001u, &r, &st);
  CHECK_STATUS(st, MCAPI_ERR_CHAN_INVALID);
  /* Double close. */
  mcapi_pktchan_send_close_i(sh, &r, &st);
  CHECK_STATUS(wait_st(&r), MCAPI_SUCCESS);
  mcapi_pktchan_send_close_i(sh, &r, &st);
  CHECK_STATUS(st, MCAPI_ERR_CHAN_NOTOPEN);
  mcapi_pktchan_recv_close_i(rh, &r, &st);
  CHECK_STATUS(wait_st(&r), MCAPI_SUCCESS);
  mcapi_pktchan_recv_close_i(rh, &r, &st);
  CHECK_STATUS(st, MCAPI_ERR_CHAN_INVALID);
  mcapi_endpoint_delete(a, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK_EQ_U(mcx_requests_in_use(), 0);
  fini();
}

/* Packets larger than a slot's inline bytes take pool buffers (shm). */
#define BIGPKT 64
static void send_big(mcapi_pktchan_send_hndl_t sh, unsigned v, mcapi_status_t *st)
{
  unsigned char b[BIGPKT] = {0};
  memcpy(b, &v, sizeof v);
  mcapi_pktchan_send(sh, b, sizeof b, st);
}
static void send_big_i(mcapi_pktchan_send_hndl_t sh, unsigned v, mcapi_request_t *r,
                       mcapi_status_t *st)
{
  static unsigned char b[BIGPKT]; /* read by the request until it completes */
  memcpy(b, &v, sizeof v);
  mcapi_pktchan_send_i(sh, b, sizeof b, r, st);
}

TEST(packet_pool_exhaustion_and_waiting)
{
  mcapi_status_t st;
  init_node(1);
  mcapi_endpoint_t a = mcapi_endpoint_create(1, &st);
  mcapi_endpoint_t b = mcapi_endpoint_create(2, &st);
  mcapi_uint_t depth = 4; /* four packet buffers */
  mcapi_endpoint_set_attribute(b, MCAPI_ENDP_ATTR_NUM_RECV_BUFFERS, &depth, sizeof depth, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_pktchan_send_hndl_t sh;
  mcapi_pktchan_recv_hndl_t rh;
  pkt_setup(a, b, &sh, &rh);
  for (unsigned i = 0; i < 4; i++) {
    send_big(sh, i, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
  }
  /* Queued for the receiver: a blocking send waits (TIMEOUT), or fails at
   * once with FAIL_ON_MEM_LIMIT; a send_i stays pending. */
  mcapi_timeout_t to = 10;
  mcapi_endpoint_set_attribute(a, MCAPI_ENDP_ATTR_TIMEOUT, &to, sizeof to, &st);
  unsigned x = 99;
  send_big(sh, x, &st);
  CHECK_STATUS(st, MCAPI_TIMEOUT);
  mcapi_request_t sr;
  size_t n;
  send_big_i(sh, x, &sr, &st);
  CHECK_STATUS(st, MCAPI_PENDING);
  CHECK(!mcapi_test(&sr, &n, &st));
  mcapi_boolean_t fail = 1;
  mcapi_endpoint_set_attribute(a, MCAPI_ENDP_ATTR_FAIL_ON_MEM_LIMIT, &fail, sizeof fail, &st);
  send_big(sh, x, &st);
  CHECK_STATUS(st, MCAPI_ERR_MEM_LIMIT);
  fail = 0;
  mcapi_endpoint_set_attribute(a, MCAPI_ENDP_ATTR_FAIL_ON_MEM_LIMIT, &fail, sizeof fail, &st);
  /* The receiver takes and holds all four: the pool is exhausted. */
  void *held[4];
  for (unsigned i = 0; i < 4; i++) {
    mcapi_pktchan_recv(rh, &held[i], &n, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    CHECK_EQ_U(*(unsigned *)held[i], i);
  }
  {
    /* Buffers come from the domain's pool, not from the queue: the pending
     * send goes out, and the receiver can hold every buffer the pool has
     * before a send finds none (pmq: its local pool grows up to the
     * domain's buffer count; a packet in the queue holds none). */
    CHECK(mcapi_wait(&sr, &n, MCX_TEST_WAIT_MS, &st));
    CHECK_STATUS(st, MCAPI_SUCCESS);
    static void *more[MCAPI_MAX_BUFFERS];
    unsigned nmore = 0;
    for (;;) {
      send_big(sh, x, &st);
      if (st != MCAPI_SUCCESS)
        break;
      mcapi_pktchan_recv(rh, &more[nmore], &n, &st);
      CHECK_STATUS(st, MCAPI_SUCCESS);
      if (++nmore > MCAPI_MAX_BUFFERS)
        break;
    }
    CHECK_STATUS(st, MCAPI_ERR_MEM_LIMIT);
    /* held[4], the pending send's packet (queued), the rest held here. */
    CHECK_EQ_U(nmore, MCAPI_MAX_BUFFERS - 5);
    send_big_i(sh, x, &sr, &st);
    CHECK_STATUS(st, MCAPI_ERR_MEM_LIMIT); /* failed at once: no request */
    mcapi_pktchan_recv(rh, &more[nmore], &n, &st); /* the queued one */
    CHECK_STATUS(st, MCAPI_SUCCESS);
    for (unsigned i = 0; i <= nmore; i++) {
      mcapi_pktchan_release(more[i], &st);
      CHECK_STATUS(st, MCAPI_SUCCESS);
    }
  }
  /* Release out of order; sends go through again. */
  mcapi_pktchan_release(held[2], &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  send_big_i(sh, x, &sr, &st);
  CHECK_STARTED(st);
  CHECK(mcapi_wait(&sr, &n, MCX_TEST_WAIT_MS, &st));
  CHECK_STATUS(st, MCAPI_SUCCESS);
  void *p;
  mcapi_pktchan_recv(rh, &p, &n, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK_EQ_U(*(unsigned *)p, 99);
  if (mcx_transport() == MCX_TRANSPORT_PMQ)
    CHECK(p == held[2]); /* the released buffer came back */
  mcapi_pktchan_release(p, &st);
  mcapi_pktchan_release(held[0], &st);
  mcapi_pktchan_release(held[3], &st);
  mcapi_request_t cs, cr;
  mcapi_pktchan_send_close_i(sh, &cs, &st);
  CHECK_STATUS(wait_st(&cs), MCAPI_SUCCESS);
  /* Close with a packet still held: it completes at once; the buffer goes
   * back to the domain's pool when released (pmq: the receiver's local copy
   * stays valid until then, and the record is not reconnected before). */
  mcapi_pktchan_recv_close_i(rh, &cr, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(mcapi_wait(&cr, &n, MCX_TEST_WAIT_MS, &st));
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK_EQ_U(ep_type(b), MCAPI_NO_CHAN);
  CHECK(!mcapi_pktchan_release_test(held[1], &st));
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_pktchan_release(held[1], &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_pktchan_release(held[1], &st);
  CHECK_STATUS(st, MCAPI_ERR_BUF_INVALID); /* once */
  fini();
}

/* ------------------------------------------------------------ scalars */

/* shm: a packet of up to 48 bytes travels in its ring slot: the receiver
 * gets a pointer into the slot, aligned as pool buffers are, which its
 * release frees. Held slots do not stop the channel: the sender passes them
 * over, so packets can be held for as long as the receiver likes and
 * released in any order; only with every slot held does a send wait. */
TEST(packets_held_in_their_slots)
{
  mcapi_status_t st;
  init_node(1);
  if (mcx_transport() == MCX_TRANSPORT_PMQ) {
    fini(); /* pmq: packets are copied into the receiver's local pool */
    return;
  }
  mcapi_endpoint_t a = mcapi_endpoint_create(1, &st);
  mcapi_endpoint_t b = mcapi_endpoint_create(2, &st);
  mcapi_uint_t depth = 4;
  mcapi_endpoint_set_attribute(b, MCAPI_ENDP_ATTR_NUM_RECV_BUFFERS, &depth, sizeof depth, &st);
  mcapi_pktchan_send_hndl_t sh;
  mcapi_pktchan_recv_hndl_t rh;
  pkt_setup(a, b, &sh, &rh);
  static const size_t sizes[4] = {1, 24, 48, 0};
  unsigned char src[48];
  void *held[4];
  size_t n;
  for (unsigned i = 0; i < 4; i++) {
    memset(src, 'a' + (int)i, sizeof src);
    mcapi_pktchan_send(sh, src, sizes[i], &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
  }
  CHECK_EQ_U(mcapi_pktchan_available(rh, &st), 4);
  for (unsigned i = 0; i < 4; i++) {
    mcapi_pktchan_recv(rh, &held[i], &n, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    CHECK_EQ_U(n, sizes[i]);
    CHECK(((uintptr_t)held[i] % MCAPI_BUF_ALIGN) == 0);
    for (size_t k = 0; k < n; k++)
      CHECK(((unsigned char *)held[i])[k] == 'a' + i);
    CHECK(!mcapi_pktchan_release_test(held[i], &st));
    CHECK_STATUS(st, MCAPI_SUCCESS);
  }
  /* Every slot held: a send waits (TIMEOUT), or fails at once. */
  mcapi_timeout_t to = 10;
  mcapi_endpoint_set_attribute(a, MCAPI_ENDP_ATTR_TIMEOUT, &to, sizeof to, &st);
  unsigned x = 1000;
  mcapi_pktchan_send(sh, &x, sizeof x, &st);
  CHECK_STATUS(st, MCAPI_TIMEOUT);
  mcapi_boolean_t fail = 1;
  mcapi_endpoint_set_attribute(a, MCAPI_ENDP_ATTR_FAIL_ON_MEM_LIMIT, &fail, sizeof fail, &st);
  mcapi_pktchan_send(sh, &x, sizeof x, &st);
  CHECK_STATUS(st, MCAPI_ERR_MEM_LIMIT);
  fail = 0;
  mcapi_endpoint_set_attribute(a, MCAPI_ENDP_ATTR_FAIL_ON_MEM_LIMIT, &fail, sizeof fail, &st);
  CHECK_EQ_U(mcapi_pktchan_available(rh, &st), 0);
  /* Not the oldest released: the next send passes the two held before it. */
  mcapi_pktchan_release(held[2], &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(mcapi_pktchan_release_test(held[2], &st));
  mcapi_pktchan_release(held[2], &st);
  CHECK_STATUS(st, MCAPI_ERR_BUF_INVALID); /* once */
  mcapi_pktchan_release((char *)held[0] + 1, &st);
  CHECK_STATUS(st, MCAPI_ERR_BUF_INVALID); /* not a packet's start */
  x = 1;
  mcapi_pktchan_send(sh, &x, sizeof x, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_pktchan_send(sh, &x, sizeof x, &st);
  CHECK_STATUS(st, MCAPI_TIMEOUT); /* the one free slot is taken */
  CHECK_EQ_U(mcapi_pktchan_available(rh, &st), 1);
  void *p;
  mcapi_pktchan_recv(rh, &p, &n, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(p == held[2] && n == sizeof x && *(unsigned *)p == 1);
  held[2] = p;
  /* Release the oldest and the one just taken; several more go round,
   * passing the two still held, in order. */
  mcapi_pktchan_release(held[0], &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_pktchan_release(held[2], &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  for (unsigned round = 0; round < 20; round++) {
    for (unsigned k = 0; k < 2; k++) {
      x = 100 * round + k;
      mcapi_pktchan_send(sh, &x, sizeof x, &st);
      CHECK_STATUS(st, MCAPI_SUCCESS);
    }
    mcapi_pktchan_send(sh, &x, sizeof x, &st);
    CHECK_STATUS(st, MCAPI_TIMEOUT); /* two slots held, two queued */
    CHECK_EQ_U(mcapi_pktchan_available(rh, &st), 2);
    for (unsigned k = 0; k < 2; k++) {
      mcapi_pktchan_recv(rh, &p, &n, &st);
      CHECK_STATUS(st, MCAPI_SUCCESS);
      CHECK(p != held[1] && p != held[3]);
      CHECK_EQ_U(*(unsigned *)p, 100 * round + k);
      mcapi_pktchan_release(p, &st);
      CHECK_STATUS(st, MCAPI_SUCCESS);
    }
  }
  /* The long-held packets are intact. */
  CHECK(((unsigned char *)held[1])[23] == 'b');
  CHECK(((unsigned char *)held[3]) != NULL);
  /* A large packet in between takes a pool buffer. */
  unsigned char big[100];
  memset(big, 'z', sizeof big);
  mcapi_pktchan_send(sh, big, sizeof big, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_pktchan_recv(rh, &p, &n, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(n == sizeof big && ((unsigned char *)p)[99] == 'z');
  mcapi_pktchan_release(p, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  /* Close with two held: it completes at once; the held bytes stay put
   * while a new connection on the same endpoints carries packets. */
  close_pkt(sh, rh);
  CHECK(!mcapi_pktchan_release_test(held[1], &st));
  pkt_setup(a, b, &sh, &rh);
  for (unsigned i = 0; i < 8; i++) {
    memset(src, 'q', sizeof src);
    mcapi_pktchan_send(sh, src, sizeof src, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    mcapi_pktchan_recv(rh, &p, &n, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    CHECK(p != held[1] && p != held[3] && n == sizeof src && ((char *)p)[47] == 'q');
    mcapi_pktchan_release(p, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
  }
  CHECK(((unsigned char *)held[1])[0] == 'b' && ((unsigned char *)held[1])[23] == 'b');
  mcapi_pktchan_release(held[1], &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_pktchan_release(held[3], &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_pktchan_release(held[3], &st);
  CHECK_STATUS(st, MCAPI_ERR_BUF_INVALID);
  close_pkt(sh, rh);
  fini();
}

TEST(scalar_channel_widths_and_errors)
{
  mcapi_status_t st;
  init_node(1);
  mcapi_endpoint_t a = mcapi_endpoint_create(1, &st);
  mcapi_endpoint_t b = mcapi_endpoint_create(2, &st);
  mcapi_uint_t depth = 4;
  mcapi_endpoint_set_attribute(b, MCAPI_ENDP_ATTR_NUM_RECV_BUFFERS, &depth, sizeof depth, &st);
  mcapi_sclchan_send_hndl_t sh;
  mcapi_sclchan_recv_hndl_t rh;
  scl_setup(a, b, &sh, &rh);
  CHECK_EQ_U(ep_type(a), MCAPI_SCL_CHAN);
  mcapi_sclchan_send_uint64(sh, 0x0123456789abcdefull, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_sclchan_send_uint32(sh, 0x89abcdefu, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_sclchan_send_uint16(sh, 0xbeef, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_sclchan_send_uint8(sh, 0x5a, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK_EQ_U(mcapi_sclchan_available(rh, &st), 4);
  /* Full: a blocking send waits for TIMEOUT, or fails with FAIL_ON_MEM_LIMIT. */
  mcapi_timeout_t to = 5;
  mcapi_endpoint_set_attribute(a, MCAPI_ENDP_ATTR_TIMEOUT, &to, sizeof to, &st);
  mcapi_sclchan_send_uint8(sh, 1, &st);
  CHECK_STATUS(st, MCAPI_TIMEOUT);
  mcapi_boolean_t fail = 1;
  mcapi_endpoint_set_attribute(a, MCAPI_ENDP_ATTR_FAIL_ON_MEM_LIMIT, &fail, sizeof fail, &st);
  mcapi_sclchan_send_uint8(sh, 1, &st);
  CHECK_STATUS(st, MCAPI_ERR_MEM_LIMIT);
  /* A receive of another width reports SCL_SIZE and does not consume. */
  CHECK_EQ_U(mcapi_sclchan_recv_uint32(rh, &st), 0);
  CHECK_STATUS(st, MCAPI_ERR_SCL_SIZE);
  CHECK_EQ_U(mcapi_sclchan_recv_uint8(rh, &st), 0);
  CHECK_STATUS(st, MCAPI_ERR_SCL_SIZE);
  CHECK_EQ_U(mcapi_sclchan_available(rh, &st), 4);
  CHECK_EQ_U(mcapi_sclchan_recv_uint64(rh, &st), 0x0123456789abcdefull);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK_EQ_U(mcapi_sclchan_recv_uint16(rh, &st), 0);
  CHECK_STATUS(st, MCAPI_ERR_SCL_SIZE);
  CHECK_EQ_U(mcapi_sclchan_recv_uint32(rh, &st), 0x89abcdefu);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK_EQ_U(mcapi_sclchan_recv_uint16(rh, &st), 0xbeef);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK_EQ_U(mcapi_sclchan_recv_uint8(rh, &st), 0x5a);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_endpoint_set_attribute(b, MCAPI_ENDP_ATTR_TIMEOUT, &to, sizeof to, &st);
  mcapi_sclchan_recv_uint64(rh, &st);
  CHECK_STATUS(st, MCAPI_TIMEOUT);
  /* Wrap the tiny ring many times. */
  for (uint64_t i = 0; i < 1000; i++) {
    mcapi_sclchan_send_uint64(sh, i * 3, &st);
    CHECK_EQ_U(mcapi_sclchan_recv_uint64(rh, &st), i * 3);
  }
  /* Wrong handles. */
  mcapi_sclchan_recv_uint64(sh, &st);
  CHECK_STATUS(st, MCAPI_ERR_CHAN_DIRECTION);
  mcapi_sclchan_send_uint64(rh, 1, &st);
  CHECK_STATUS(st, MCAPI_ERR_CHAN_DIRECTION);
  void *p;
  size_t n;
  mcapi_pktchan_recv(rh, &p, &n, &st);
  CHECK_STATUS(st, MCAPI_ERR_CHAN_INVALID); /* a handle of the other type */
  /* Close: the receiver first; the sender learns it. */
  mcapi_request_t cr, cs;
  mcapi_sclchan_recv_close_i(rh, &cr, &st);
  CHECK_STATUS(wait_st(&cr), MCAPI_SUCCESS);
  mcapi_sclchan_recv_uint8(rh, &st);
  CHECK_STATUS(st, MCAPI_ERR_CHAN_NOTOPEN);
  mcapi_sclchan_send_uint8(sh, 1, &st);
  CHECK_STATUS(st, MCAPI_ERR_CHAN_NOTOPEN);
  mcapi_sclchan_send_close_i(sh, &cs, &st);
  CHECK_STATUS(wait_st(&cs), MCAPI_SUCCESS);
  CHECK_EQ_U(ep_type(a), MCAPI_NO_CHAN);
  mcapi_sclchan_send_uint8(sh, 1, &st);
  CHECK_STATUS(st, MCAPI_ERR_CHAN_INVALID);
  fini();
}

/* The sender takes whole lines of the scalar ring while the receiver keeps
 * up (spsc_ring.h), but a send never fails while any slot is free: with a
 * TIMEOUT of 0, after each single receive from a full ring (the free slot
 * in the line the receiver is reading), after two, three, and once the
 * receiver has finished a line. Depths of one, two and sixteen lines. */
TEST(scalar_send_takes_any_free_slot)
{
  static const mcapi_uint_t depths[] = {4, 8, 64};
  mcapi_status_t st;
  init_node(1);
  for (unsigned k = 0; k < sizeof depths / sizeof depths[0]; k++) {
    if (mcx_transport() == MCX_TRANSPORT_PMQ) { /* queues as deep as the kernel's limit allows */
      mcx_pmq_limits_t l;
      mcx_pmq_limits(&l);
      CHECK(l.default_depth >= 4);
      if (depths[k] > l.default_depth)
        continue;
    }
    mcapi_endpoint_t a = mcapi_endpoint_create(1, &st);
    mcapi_endpoint_t b = mcapi_endpoint_create(2, &st);
    mcapi_uint_t depth = depths[k];
    mcapi_endpoint_set_attribute(b, MCAPI_ENDP_ATTR_NUM_RECV_BUFFERS, &depth, sizeof depth, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    mcapi_timeout_t to = 0;
    mcapi_endpoint_set_attribute(a, MCAPI_ENDP_ATTR_TIMEOUT, &to, sizeof to, &st);
    mcapi_timeout_t rto = MCX_TEST_WAIT_MS; /* a lost item fails a check, not the run */
    mcapi_endpoint_set_attribute(b, MCAPI_ENDP_ATTR_TIMEOUT, &rto, sizeof rto, &st);
    mcapi_sclchan_send_hndl_t sh;
    mcapi_sclchan_recv_hndl_t rh;
    scl_setup(a, b, &sh, &rh);
    uint64_t sent = 0, got = 0;
    for (; sent < depth; sent++) {
      mcapi_sclchan_send_uint64(sh, sent, &st);
      CHECK_STATUS(st, MCAPI_SUCCESS);
    }
    mcapi_sclchan_send_uint64(sh, sent, &st);
    CHECK_STATUS(st, MCAPI_TIMEOUT); /* full */
    /* Receive n, send n, for n = 1..5, several laps: each send finds a
     * free slot whichever line it is in. */
    for (unsigned round = 0; round < 3 * depth; round++) {
      unsigned n = 1 + round % 5;
      if (n > depth)
        n = depth;
      for (unsigned i = 0; i < n; i++) {
        CHECK_EQ_U(mcapi_sclchan_recv_uint64(rh, &st), got++);
        CHECK_STATUS(st, MCAPI_SUCCESS);
      }
      for (unsigned i = 0; i < n; i++) {
        mcapi_sclchan_send_uint64(sh, sent++, &st);
        CHECK_STATUS(st, MCAPI_SUCCESS);
      }
      mcapi_sclchan_send_uint64(sh, sent, &st);
      CHECK_STATUS(st, MCAPI_TIMEOUT); /* full again */
      CHECK_EQ_U(mcapi_sclchan_available(rh, &st), depth);
    }
    while (got < sent) {
      CHECK_EQ_U(mcapi_sclchan_recv_uint64(rh, &st), got++);
      CHECK_STATUS(st, MCAPI_SUCCESS);
      if (st != MCAPI_SUCCESS)
        break;
    }
    mcapi_request_t cr, cs;
    mcapi_sclchan_recv_close_i(rh, &cr, &st);
    CHECK_STATUS(wait_st(&cr), MCAPI_SUCCESS);
    mcapi_sclchan_send_close_i(sh, &cs, &st);
    CHECK_STATUS(wait_st(&cs), MCAPI_SUCCESS);
    mcapi_endpoint_delete(b, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    mcapi_endpoint_delete(a, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
  }
  fini();
}

/* ------------------------------------------------------ several nodes */

struct peer {
  mcapi_node_t node;
  mcapi_endpoint_t a, b;
  int mode;
  mcapi_status_t st;
  atomic_int step;
  atomic_long recv_tid; /* set by the receiver just before its blocking recv */
};

/* A third node connects two endpoints of node 1. */
static void *third_party_connect(void *arg)
{
  struct peer *p = arg;
  mcapi_status_t st;
  init_node(p->node);
  mcapi_endpoint_t a = mcapi_endpoint_get(cur_domain, 1, 1, MCAPI_TIMEOUT_INFINITE, &st);
  mcapi_endpoint_t b = mcapi_endpoint_get(cur_domain, 1, 2, MCAPI_TIMEOUT_INFINITE, &st);
  mcapi_request_t r;
  if (p->mode)
    mcapi_sclchan_connect_i(a, b, &r, &st);
  else
    mcapi_pktchan_connect_i(a, b, &r, &st);
  p->st = st == MCAPI_PENDING ? wait_st(&r) : st;
  fini();
  return NULL;
}

TEST(third_node_connects_after_the_opens)
{
  mcapi_status_t st;
  init_node(1);
  mcapi_endpoint_t a = mcapi_endpoint_create(1, &st);
  mcapi_endpoint_t b = mcapi_endpoint_create(2, &st);
  /* Opens issued before the connection wait for it. */
  mcapi_sclchan_send_hndl_t sh;
  mcapi_sclchan_recv_hndl_t rh;
  mcapi_request_t so, ro;
  mcapi_sclchan_send_open_i(&sh, a, &so, &st);
  CHECK_STATUS(st, MCAPI_PENDING);
  mcapi_sclchan_recv_open_i(&rh, b, &ro, &st);
  CHECK_STATUS(st, MCAPI_PENDING);
  CHECK_EQ_U(ep_status(a), MCAPI_ENDP_STATUS_CREATED | MCAPI_ENDP_STATUS_OPEN_PENDING |
                               MCAPI_ENDP_STATUS_SEND_SIDE);
  mcapi_sclchan_send_open_i(&sh, a, &so, &st);
  CHECK_STATUS(st, MCAPI_ERR_CHAN_OPENPENDING);
  mcapi_pktchan_recv_open_i(&rh, b, &ro, &st);
  CHECK_STATUS(st, MCAPI_ERR_CHAN_TYPE);
  mcapi_sclchan_send_open_i(&sh, b, &ro, &st);
  CHECK_STATUS(st, MCAPI_ERR_CHAN_DIRECTION);
  size_t n;
  CHECK(!mcapi_test(&so, &n, &st));
  /* A packet connect conflicts with the pending scalar opens. */
  struct peer p = {.node = 3, .mode = 0};
  pthread_t t;
  pthread_create(&t, NULL, third_party_connect, &p);
  pthread_join(t, NULL);
  CHECK_STATUS(p.st, MCAPI_ERR_CHAN_TYPE);
  p.mode = 1;
  pthread_create(&t, NULL, third_party_connect, &p);
  pthread_join(t, NULL);
  CHECK_STATUS(p.st, MCAPI_SUCCESS);
  mcapi_request_t *rs[2] = {&so, &ro};
  int left = 2;
  while (left) {
    mcapi_uint_t i = mcapi_wait_any(2, rs, &n, MCX_TEST_WAIT_MS, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    if (st != MCAPI_SUCCESS)
      break;
    rs[i] = rs[1]; /* drop the completed one */
    left--;
    if (left == 1) {
      CHECK_STATUS(wait_st(rs[0]), MCAPI_SUCCESS);
      left = 0;
    }
  }
  mcapi_sclchan_send_uint16(sh, 7, &st);
  CHECK_EQ_U(mcapi_sclchan_recv_uint16(rh, &st), 7);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  fini(); /* finalize with the channel open: must not crash or leak */
  CHECK_EQ_U(mcx_requests_in_use(), 0);
}

/* The receiving node: opens, takes one packet, holds it, and finalizes. */
static void *receiver_that_finalizes(void *arg)
{
  struct peer *p = arg;
  mcapi_status_t st;
  init_node(p->node);
  mcapi_endpoint_t me = mcapi_endpoint_create(5, &st);
  mcapi_pktchan_recv_hndl_t rh;
  mcapi_request_t r;
  mcapi_pktchan_recv_open_i(&rh, me, &r, &st);
  p->st = wait_st(&r);
  void *buf;
  size_t n;
  atomic_store(&p->recv_tid, mcx_test_tid());
  mcapi_pktchan_recv(rh, &buf, &n, &st); /* blocks until the sender sends */
  if (st != MCAPI_SUCCESS || n != 3 || memcmp(buf, "abc", 3))
    p->st = MCAPI_ERR_GENERAL;
  atomic_store(&p->step, 1);
  MCX_TEST_AWAIT(atomic_load(&p->step) == 2); /* the main thread saw step 1 */
  fini(); /* with a packet held and the channel open */
  atomic_store(&p->step, 3);
  return NULL;
}

TEST(peer_finalizes_with_the_channel_open)
{
  mcapi_status_t st;
  init_node(1);
  mcapi_endpoint_t a = mcapi_endpoint_create(1, &st);
  struct peer p = {.node = 2};
  pthread_t t;
  pthread_create(&t, NULL, receiver_that_finalizes, &p);
  mcapi_endpoint_t b = mcapi_endpoint_get(cur_domain, 2, 5, MCAPI_TIMEOUT_INFINITE, &st);
  mcapi_request_t r;
  mcapi_pktchan_connect_i(a, b, &r, &st);
  CHECK_STATUS(wait_st(&r), MCAPI_SUCCESS);
  mcapi_pktchan_send_hndl_t sh;
  mcapi_pktchan_send_open_i(&sh, a, &r, &st);
  CHECK_STATUS(wait_st(&r), MCAPI_SUCCESS);
  /* Event: the receiver is asleep in its recv (the test holds either way). */
  MCX_TEST_AWAIT(atomic_load(&p.recv_tid) && mcx_test_thread_asleep(atomic_load(&p.recv_tid)));
  mcapi_pktchan_send(sh, "abc", 3, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  MCX_TEST_AWAIT(atomic_load(&p.step) == 1); /* the receiver took the packet */
  CHECK_EQ_U(atomic_load(&p.step), 1);
  atomic_store(&p.step, 2);
  pthread_join(t, NULL); /* it finalizes, then ends */
  CHECK_EQ_U(atomic_load(&p.step), 3);
  CHECK_STATUS(p.st, MCAPI_SUCCESS);
  /* The receiver is gone: sends fail; closing our side releases the channel. */
  mcapi_pktchan_send(sh, "x", 1, &st);
  CHECK_STATUS(st, MCAPI_ERR_CHAN_NOTOPEN);
  mcapi_pktchan_send_close_i(sh, &r, &st);
  CHECK_STATUS(wait_st(&r), MCAPI_SUCCESS);
  CHECK_EQ_U(ep_type(a), MCAPI_NO_CHAN);
  mcapi_endpoint_delete(a, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  fini();
}

static void run_mode_suite(mcapi_domain_t dom, mcx_locking_t lk)
{
  cur_domain = dom;
  cur_locking = lk;
  printf("-- %s locking\n", lk == MCX_LOCKING_GLOBAL   ? "global"
                            : lk == MCX_LOCKING_KERNEL ? "kernel"
                                                       : "lock-free");
  RUN(packet_channel_lifecycle_and_zero_copy);
  RUN(channel_errors);
  RUN(packet_pool_exhaustion_and_waiting);
  RUN(packets_held_in_their_slots);
  RUN(scalar_channel_widths_and_errors);
  RUN(scalar_send_takes_any_free_slot);
  RUN(third_node_connects_after_the_opens);
  RUN(peer_finalizes_with_the_channel_open);
}

int main(void)
{
  mcapi_status_t st;
  mcapi_pktchan_send(1, "x", 1, &st);
  CHECK_STATUS(st, MCAPI_ERR_NODE_NOTINIT);
  mcapi_pktchan_release(&st, &st);
  CHECK_STATUS(st, MCAPI_ERR_NODE_NOTINIT);
  run_mode_suite(DOM_LF, MCX_LOCKING_LOCKFREE);
  run_mode_suite(DOM_GL, MCX_LOCKING_GLOBAL);
  run_mode_suite(DOM_KL, MCX_LOCKING_KERNEL);
  return mcx_test_report();
}
