/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MCAPI 1.0 calls in the situations OpenMCAPI's functional tests put them
 * in (docs/compat.md, "OpenMCAPI's functional tests"), one node, both ends:
 * the 1.0 attributes of an endpoint connected to a channel; a second open of
 * a side whose open is pending (1.0 has no "open pending" status); an
 * endpoint free of its channel once its own side has closed; the handle an
 * open gives at its call, before its endpoint is connected; a connect that
 * finds an open for the other direction; an endpoint's handle given as the
 * port of a get.
 *
 * With MCX_NODE_SCOPE=process (test mcapi1_openmcapi_process) the process
 * is the node and the cases run on a thread that never initialized.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MCX_MCAPI1_DOMAIN 6
#include "mcapi1.h"
#include "mcx.h" /* mcx_pktchan_send_alloc */
#include "mcx_test.h"
#include "mcapi1/mcapi1_test.h"

#define NODE 1

/* Opens a side of endpoint @p e (packet channel when @p pkt, the receive
 * side when @p recv): the call's status. */
static mcapi_status_t open_side(int pkt, int recv, uint32_t *h, mcapi_endpoint_t e,
                                mcapi_request_t *r)
{
  mcapi_status_t st;
  if (pkt && recv)
    mcapi_open_pktchan_recv_i(h, e, r, &st);
  else if (pkt)
    mcapi_open_pktchan_send_i(h, e, r, &st);
  else if (recv)
    mcapi_open_sclchan_recv_i(h, e, r, &st);
  else
    mcapi_open_sclchan_send_i(h, e, r, &st);
  return st;
}

/* Connects @p tx to @p rx, a packet channel when @p pkt. */
static void connect(int pkt, mcapi_endpoint_t tx, mcapi_endpoint_t rx)
{
  mcapi_status_t st;
  mcapi_request_t cr;
  if (pkt)
    mcapi_connect_pktchan_i(tx, rx, &cr, &st);
  else
    mcapi_connect_sclchan_i(tx, rx, &cr, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  done(&cr);
}

/* Connects @p tx to @p rx (packet channel when @p pkt) and opens both
 * sides: their handles in *sh and *rh. */
static void connect_open(int pkt, mcapi_endpoint_t tx, mcapi_endpoint_t rx, uint32_t *sh,
                         uint32_t *rh)
{
  mcapi_request_t sr, rr;
  connect(pkt, tx, rx);
  CHECK_STATUS(open_side(pkt, 0, sh, tx, &sr), MCAPI_SUCCESS);
  CHECK_STATUS(open_side(pkt, 1, rh, rx, &rr), MCAPI_SUCCESS);
  done(&sr);
  done(&rr);
}

/* MCAPI_ATTR_RECV_BUFFERS_AVAILABLE of an endpoint whose packet or scalar
 * channel is connected and open (OpenMCAPI's 2.7.4 asks it of the send
 * side of its packet channel): success, and every receive slot free, as
 * for an endpoint with nothing queued. */
static void buffers_of_connected(int pkt)
{
  mcapi_status_t st;
  mcapi_endpoint_t tx = make(pkt ? 20 : 30), rx = make(pkt ? 21 : 31);
  mcapi_uint32_t bufs = 0, prios = 0, avail = 0;
  mcapi_get_endpoint_attribute(tx, MCAPI_ATTR_NO_BUFFERS, &bufs, sizeof bufs, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_get_endpoint_attribute(tx, MCAPI_ATTR_NO_PRIORITIES, &prios, sizeof prios, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  uint32_t sh = 0, rh = 0;
  connect_open(pkt, tx, rx, &sh, &rh);
  mcapi_endpoint_t ends[2] = {tx, rx};
  for (int i = 0; i < 2; i++) {
    avail = 0;
    mcapi_get_endpoint_attribute(ends[i], MCAPI_ATTR_RECV_BUFFERS_AVAILABLE, &avail,
                                 sizeof avail, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    CHECK_EQ_U(avail, (unsigned long)bufs * prios);
  }
  close_both(pkt, sh, rh);
  drop(tx);
  drop(rx);
}

TEST(recv_buffers_available_of_a_connected_endpoint)
{
  buffers_of_connected(1);
  buffers_of_connected(0);
}

/* A second open of the side of an endpoint whose open waits for its
 * connection: MCAPI_ECONNECTED (OpenMCAPI's 2.15.2, 2.16.2, 2.26.2, 2.27.2);
 * the first open is still pending, and completes once connected. */
TEST(second_open_of_a_pending_side)
{
  for (int k = 0; k < 4; k++) {
    int pkt = k < 2, recv = !(k & 1);
    mcapi_status_t st;
    mcapi_endpoint_t e = make((mcapi_port_t)(40 + 2 * k)),
                     peer = make((mcapi_port_t)(41 + 2 * k));
    mcapi_request_t r1, r2, pr;
    uint32_t h = 0, ph = 0;
    size_t n = 0;
    for (int i = 0; i < 2; i++) {
      mcapi_request_t *r = i ? &r2 : &r1;
      CHECK_STATUS(open_side(pkt, recv, &h, e, r), i ? MCAPI_ECONNECTED : MCAPI_SUCCESS);
    }
    CHECK(mcapi_test(&r1, &n, &st) == MCAPI_FALSE);
    CHECK_STATUS(st, MCAPI_INCOMPLETE);
    /* Connected and its peer opened: the first open completes. */
    mcapi_endpoint_t tx = recv ? peer : e, rx = recv ? e : peer;
    connect(pkt, tx, rx);
    CHECK_STATUS(open_side(pkt, !recv, &ph, peer, &pr), MCAPI_SUCCESS);
    done(&r1);
    done(&pr);
    uint32_t sh = recv ? ph : h, rh = recv ? h : ph;
    close_both(pkt, sh, rh);
    drop(e);
    drop(peer);
  }
}


/* Closes one side (@p recv: the receive side) and waits for the close. */
static void close_side(int pkt, int recv, uint32_t h)
{
  mcapi_status_t st;
  mcapi_request_t r;
  if (pkt && recv)
    mcapi_packetchan_recv_close_i(h, &r, &st);
  else if (pkt)
    mcapi_packetchan_send_close_i(h, &r, &st);
  else if (recv)
    mcapi_sclchan_recv_close_i(h, &r, &st);
  else
    mcapi_sclchan_send_close_i(h, &r, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  done(&r);
}

/* A message each way between @p e and @p other: SUCCESS, the bytes. A
 * receive follows only a send that succeeded (none waits for ever). */
static void messages_flow(mcapi_endpoint_t e, mcapi_endpoint_t other)
{
  mcapi_endpoint_t from[2] = {other, e}, to[2] = {e, other};
  for (int i = 0; i < 2; i++) {
    mcapi_status_t st;
    char out[16] = "freed endpoint", in[16] = {0};
    size_t n = 0;
    mcapi_msg_send(from[i], to[i], out, sizeof out, 1, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    if (st != MCAPI_SUCCESS)
      return;
    mcapi_msg_recv(to[i], in, sizeof in, &n, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    CHECK(n == sizeof out && !memcmp(in, out, sizeof out));
  }
}

/* A side's close frees its endpoint at once (OpenMCAPI's rule, which its
 * tests from 2.14 on count on): it carries messages, can be deleted and
 * made again, while the peer's side stays open, its data calls saying
 * MCAPI_ENOT_HANDLE (the handle names no connection), until its own close;
 * then both ports connect anew.
 * Each channel type, each side closing first. */
TEST(close_frees_its_own_endpoint)
{
  for (int k = 0; k < 4; k++) {
    int pkt = k < 2, recv_first = k & 1;
    mcapi_port_t base = (mcapi_port_t)(60 + 3 * k);
    mcapi_status_t st;
    mcapi_endpoint_t tx = make(base), rx = make((mcapi_port_t)(base + 1)),
                     other = make((mcapi_port_t)(base + 2));
    uint32_t sh = 0, rh = 0;
    connect_open(pkt, tx, rx, &sh, &rh);
    if (!recv_first) { /* one item in flight: the receiver gets it after the close */
      if (pkt)
        mcapi_pktchan_send(sh, "last", 5, &st);
      else
        mcapi_sclchan_send_uint32(sh, 0xfeedu, &st);
      CHECK_STATUS(st, MCAPI_SUCCESS);
    }
    close_side(pkt, recv_first, recv_first ? rh : sh);
    mcapi_endpoint_t freed = recv_first ? rx : tx;
    if (!recv_first && pkt) {
      char *got = NULL;
      size_t n = 0;
      mcapi_pktchan_recv(rh, (void **)&got, &n, &st);
      CHECK_STATUS(st, MCAPI_SUCCESS);
      CHECK(st == MCAPI_SUCCESS && n == 5 && !strcmp(got, "last"));
      if (st == MCAPI_SUCCESS)
        mcapi_pktchan_free(got, &st);
    } else if (!recv_first) {
      CHECK_EQ_U(mcapi_sclchan_recv_uint32(rh, &st), 0xfeedu);
      CHECK_STATUS(st, MCAPI_SUCCESS);
    }
    messages_flow(freed, other);
    /* The peer's side is open and connected to nothing. */
    if (recv_first && pkt) {
      mcapi_pktchan_send(sh, "x", 1, &st);
      CHECK_STATUS(st, MCAPI_ENOT_HANDLE);
    } else if (recv_first) {
      mcapi_sclchan_send_uint32(sh, 7, &st);
      CHECK_STATUS(st, MCAPI_ENOT_HANDLE);
    } else if (pkt) {
      void *buf = NULL;
      size_t n = 0;
      mcapi_pktchan_recv(rh, &buf, &n, &st);
      CHECK_STATUS(st, MCAPI_ENOT_HANDLE);
    } else {
      (void)mcapi_sclchan_recv_uint32(rh, &st);
      CHECK_STATUS(st, MCAPI_ENOT_HANDLE);
    }
    /* Deleted and made again on its port while the peer's side is open. */
    drop(freed);
    freed = make(recv_first ? (mcapi_port_t)(base + 1) : base);
    close_side(pkt, !recv_first, recv_first ? sh : rh);
    if (recv_first)
      rx = freed;
    else
      tx = freed;
    /* Both free: the same ports connect again. */
    connect_open(pkt, tx, rx, &sh, &rh);
    close_both(pkt, sh, rh);
    drop(tx);
    drop(rx);
    drop(other);
  }
}

/* An open of an endpoint not yet connected gives a handle at its call (the
 * endpoint's, as OpenMCAPI's mgmt service keeps it without waiting): once
 * connected and the peer open, data calls on it work without a wait for
 * the open, and it closes the side. Each channel type. */
TEST(handle_at_the_open_call)
{
  for (int pkt = 1; pkt >= 0; pkt--) {
    mcapi_port_t base = pkt ? 80 : 90;
    mcapi_status_t st;
    mcapi_endpoint_t tx = make(base), rx = make((mcapi_port_t)(base + 1));
    mcapi_request_t rr, sr;
    uint32_t rh = 0, sh = 0;
    CHECK_STATUS(open_side(pkt, 1, &rh, rx, &rr), MCAPI_SUCCESS);
    CHECK(rh != 0);
    uint32_t at_call = rh;
    connect(pkt, tx, rx);
    CHECK_STATUS(open_side(pkt, 0, &sh, tx, &sr), MCAPI_SUCCESS);
    done(&sr);
    if (pkt) {
      char *got = NULL;
      size_t n = 0;
      mcapi_pktchan_send(sh, "kept", 5, &st);
      CHECK_STATUS(st, MCAPI_SUCCESS);
      CHECK_EQ_U(mcapi_pktchan_available(at_call, &st), 1);
      CHECK_STATUS(st, MCAPI_SUCCESS);
      mcapi_pktchan_recv(at_call, (void **)&got, &n, &st);
      CHECK_STATUS(st, MCAPI_SUCCESS);
      CHECK(st == MCAPI_SUCCESS && n == 5 && !strcmp(got, "kept"));
      if (st == MCAPI_SUCCESS)
        mcapi_pktchan_free(got, &st);
    } else {
      mcapi_sclchan_send_uint64(sh, 0x1122334455667788ull, &st);
      CHECK_STATUS(st, MCAPI_SUCCESS);
      CHECK_EQ_U(mcapi_sclchan_available(at_call, &st), 1);
      CHECK(mcapi_sclchan_recv_uint64(at_call, &st) == 0x1122334455667788ull);
      CHECK_STATUS(st, MCAPI_SUCCESS);
    }
    done(&rr); /* the completion writes the side's own handle: either works */
    close_side(pkt, 1, at_call);
    close_side(pkt, 0, sh);
    drop(tx);
    drop(rx);
  }
}

/* The handle of an open still waiting for its connection closes the side by
 * withdrawing the open: its request says MCAPI_ENOT_CONNECTED, the endpoint
 * is a message endpoint again; the other side's close says MCAPI_EDIR.
 * Each channel type and side. */
TEST(close_of_an_open_waiting_for_its_connection)
{
  for (int k = 0; k < 4; k++) {
    int pkt = k < 2, recv = k & 1;
    mcapi_status_t st;
    mcapi_endpoint_t e = make((mcapi_port_t)(100 + 2 * k)),
                     other = make((mcapi_port_t)(101 + 2 * k));
    mcapi_request_t r;
    uint32_t h = 0;
    size_t n = 0;
    CHECK_STATUS(open_side(pkt, recv, &h, e, &r), MCAPI_SUCCESS);
    mcapi_request_t wrong;
    if (pkt && recv)
      mcapi_packetchan_send_close_i(h, &wrong, &st);
    else if (pkt)
      mcapi_packetchan_recv_close_i(h, &wrong, &st);
    else if (recv)
      mcapi_sclchan_send_close_i(h, &wrong, &st);
    else
      mcapi_sclchan_recv_close_i(h, &wrong, &st);
    CHECK_STATUS(st, MCAPI_EDIR); /* the other side's close */
    close_side(pkt, recv, h);
    CHECK(mcapi_wait(&r, &n, &st, MCX_TEST_WAIT_MS) == MCAPI_TRUE);
    CHECK_STATUS(st, MCAPI_ENOT_CONNECTED);
    messages_flow(e, other);
    drop(e);
    drop(other);
  }
}

/* A connect whose endpoint's pending open is for the other direction (the
 * receive side opened, connected as the sender): the call starts, its
 * request says MCAPI_EDIR (OpenMCAPI finds it in its handshake: 2.15.4,
 * 2.26.4). The open still waits and closes by its handle. */
TEST(connect_against_the_open_direction)
{
  for (int pkt = 1; pkt >= 0; pkt--) {
    mcapi_status_t st;
    mcapi_endpoint_t e = make(pkt ? 110 : 112), peer = make(pkt ? 111 : 113);
    mcapi_request_t r, cr;
    uint32_t h = 0;
    size_t n = 0;
    CHECK_STATUS(open_side(pkt, 1, &h, e, &r), MCAPI_SUCCESS);
    if (pkt)
      mcapi_connect_pktchan_i(e, peer, &cr, &st);
    else
      mcapi_connect_sclchan_i(e, peer, &cr, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    CHECK(mcapi_wait(&cr, &n, &st, MCX_TEST_WAIT_MS) == MCAPI_TRUE);
    CHECK_STATUS(st, MCAPI_EDIR);
    CHECK(mcapi_test(&r, &n, &st) == MCAPI_FALSE);
    CHECK_STATUS(st, MCAPI_INCOMPLETE);
    close_side(pkt, 1, h);
    CHECK(mcapi_wait(&r, &n, &st, MCX_TEST_WAIT_MS) == MCAPI_TRUE);
    CHECK_STATUS(st, MCAPI_ENOT_CONNECTED);
    drop(e);
    drop(peer);
  }
}

/* An endpoint's handle where a get takes a port (OpenMCAPI's 2.17.1,
 * 2.18.1, 2.28.1: its port type is 16 bits, its handle node << 16 | port):
 * the get finds that endpoint, blocking and non-blocking. */
TEST(endpoint_handle_as_port)
{
  mcapi_status_t st;
  mcapi_endpoint_t e = make(120), got = 0;
  mcapi_request_t r;
  mcapi_get_endpoint_i(NODE, e, &got, &r, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  done(&r);
  CHECK(got == e);
  if (got == e) { /* else the blocking get would wait for that port for ever */
    CHECK(mcapi_get_endpoint(NODE, e, &st) == e);
    CHECK_STATUS(st, MCAPI_SUCCESS);
  } else {
    mcapi_cancel(&r, &st);
  }
  drop(e);
}

/* A 1.0 send close of a side that holds a claim (mcx_pktchan_send_alloc)
 * ends the claim unsent, as the 2.x close does: a thread holds at most four
 * claims, and a fifth connection's claim after four such closes succeeds. */
TEST(send_close_ends_a_claim)
{
  for (int i = 0; i < 5; i++) {
    mcapi_status_t st;
    mcapi_endpoint_t tx = make(130), rx = make(131);
    uint32_t sh = 0, rh = 0;
    connect_open(1, tx, rx, &sh, &rh);
    void *slot = mcx_pktchan_send_alloc(sh, 16, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    CHECK(slot != NULL);
    close_side(1, 0, sh);
    close_side(1, 1, rh);
    drop(tx);
    drop(rx);
  }
}

static void *cases(void *arg)
{
  (void)arg;
  RUN(recv_buffers_available_of_a_connected_endpoint);
  RUN(second_open_of_a_pending_side);
  RUN(close_frees_its_own_endpoint);
  RUN(handle_at_the_open_call);
  RUN(close_of_an_open_waiting_for_its_connection);
  RUN(connect_against_the_open_direction);
  RUN(endpoint_handle_as_port);
  RUN(send_close_ends_a_claim);
  return NULL;
}

int main(void)
{
  mcapi_status_t st;
  mcapi_version_t version = 0;
  mcapi_initialize(NODE, &version, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi1_run_cases(cases);
  mcapi_finalize(&st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  return mcx_test_report();
}
