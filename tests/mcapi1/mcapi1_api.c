/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An MCAPI 1.0 program (include/mcapi1.h): each 1.0 function family with
 * the 1.0 signatures, status names and attribute numbers. Init, finalize
 * and the node id; endpoints created, found (blocking and _i, the _i
 * completed by a later create), deleted, their 1.0 attributes; messages
 * blocking and _i; packet and scalar channels connected, opened, used,
 * closed and their buffers freed; requests tested, waited (status before
 * timeout), timed out, cancelled and waited on together. Non-blocking calls
 * report MCAPI_SUCCESS once started, as 1.0 says.
 *
 * With MCX_NODE_SCOPE=process (test mcapi1_api_process) the process is the
 * node, as OpenMCAPI's harness assumes: main initializes and the families
 * run on a thread that never called mcapi_initialize.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MCX_MCAPI1_DOMAIN 5
#include "mcapi1.h"
#include "mcx_test.h"
#include "mcapi1/mcapi1_test.h"

#define NODE 1


TEST(node)
{
  mcapi_status_t st;
  CHECK_EQ_U(mcapi_get_node_id(&st), NODE);
  CHECK_STATUS(st, MCAPI_SUCCESS);
}

TEST(endpoints)
{
  mcapi_status_t st;
  mcapi_endpoint_t a = make(10);
  /* The same port twice. */
  (void)mcapi_create_endpoint(10, &st);
  CHECK_STATUS(st, MCAPI_EENDP_ISCREATED);
  /* Blocking get of an endpoint that exists. */
  mcapi_endpoint_t g = mcapi_get_endpoint(NODE, 10, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(g == a);
  /* _i get of one that does not exist yet: started (SUCCESS), incomplete,
   * a wait that times out, then completed by its create. */
  mcapi_endpoint_t later = 0;
  mcapi_request_t r;
  mcapi_get_endpoint_i(NODE, 11, &later, &r, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  size_t n;
  CHECK(mcapi_test(&r, &n, &st) == MCAPI_FALSE);
  CHECK_STATUS(st, MCAPI_INCOMPLETE);
  CHECK(mcapi_wait(&r, &n, &st, 10) == MCAPI_FALSE);
  CHECK_STATUS(st, MCAPI_EREQ_TIMEOUT);
  mcapi_endpoint_t b = make(11);
  done(&r);
  CHECK(later == b);
  /* 1.0 attributes, by their 1.0 numbers and mcapi_uint32_t values. */
  mcapi_uint32_t v = 0;
  mcapi_get_endpoint_attribute(a, MCAPI_ATTR_NO_PRIORITIES, &v, sizeof v, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(v >= 1);
  mcapi_get_endpoint_attribute(a, MCAPI_ATTR_BUFFER_SIZE, &v, sizeof v, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(v >= 64);
  mcapi_uint32_t bufs = 0;
  mcapi_get_endpoint_attribute(a, MCAPI_ATTR_NO_BUFFERS, &bufs, sizeof bufs, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(bufs >= 2);
  mcapi_uint32_t avail = 0;
  mcapi_get_endpoint_attribute(a, MCAPI_ATTR_RECV_BUFFERS_AVAILABLE, &avail, sizeof avail, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(avail >= bufs);
  mcapi_uint32_t status_flags = 0;
  mcapi_get_endpoint_attribute(a, MCAPI_ATTR_ENDP_STATUS, &status_flags, sizeof status_flags, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_timeout_t t = 250, t2 = 0;
  mcapi_set_endpoint_attribute(a, MCAPI_ATTR_TIMEOUT, &t, sizeof t, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_get_endpoint_attribute(a, MCAPI_ATTR_TIMEOUT, &t2, sizeof t2, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK_EQ_U(t2, 250);
  mcapi_set_endpoint_attribute(a, MCAPI_ATTR_RECV_BUFFERS_AVAILABLE, &v, sizeof v, &st);
  CHECK_STATUS(st, MCAPI_EREAD_ONLY);
  mcapi_get_endpoint_attribute(a, 99, &v, sizeof v, &st);
  CHECK_STATUS(st, MCAPI_EATTR_NUM);
  mcapi_get_endpoint_attribute(a, MCAPI_ATTR_BUFFER_SIZE, &v, 3, &st);
  CHECK_STATUS(st, MCAPI_EATTR_SIZE);
  drop(b);
  drop(a);
  /* A deleted endpoint is no endpoint. */
  mcapi_delete_endpoint(a, &st);
  CHECK_STATUS(st, MCAPI_ENOT_ENDP);
}

TEST(messages)
{
  mcapi_status_t st;
  mcapi_endpoint_t a = make(20), b = make(21);
  char buf[64];
  size_t n = 0;
  mcapi_msg_send(a, b, "blocking", 9, 1, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK_EQ_U(mcapi_msg_available(b, &st), 1);
  mcapi_msg_recv(b, buf, sizeof buf, &n, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(n == 9 && !strcmp(buf, "blocking"));
  /* A receive request posted first, completed by a later send. */
  mcapi_request_t rr, sr;
  mcapi_msg_recv_i(b, buf, sizeof buf, &rr, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_msg_send_i(a, b, "non-blocking", 13, 1, &sr, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK_EQ_U(done(&sr), 13);
  CHECK_EQ_U(done(&rr), 13);
  CHECK(!strcmp(buf, "non-blocking"));
  /* Truncated: the buffer is smaller than the message. */
  mcapi_msg_send(a, b, "0123456789", 10, 1, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_msg_recv(b, buf, 4, &n, &st);
  CHECK_STATUS(st, MCAPI_ETRUNCATED);
  drop(a);
  drop(b);
}

TEST(requests)
{
  mcapi_status_t st;
  mcapi_endpoint_t a = make(30), b = make(31), c = make(32);
  char buf[16];
  size_t n;
  /* Cancel a pending receive: a wait on it says cancelled. */
  mcapi_request_t r;
  mcapi_msg_recv_i(b, buf, sizeof buf, &r, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_cancel(&r, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(mcapi_wait(&r, &n, &st, 0) == MCAPI_FALSE);
  CHECK_STATUS(st, MCAPI_EREQ_CANCELED);
  /* Wait on any of two receives: the one whose message comes. */
  mcapi_request_t r1, r2;
  char b1[16], b2[16];
  mcapi_msg_recv_i(b, b1, sizeof b1, &r1, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_msg_recv_i(c, b2, sizeof b2, &r2, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_request_t *both[2] = {&r1, &r2};
  mcapi_msg_send(a, c, "second", 7, 1, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_int_t which = (mcapi_int_t)mcapi_wait_any(2, both, &n, MCX_TEST_WAIT_MS, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK_EQ_U(which, 1);
  CHECK(n == 7 && !strcmp(b2, "second"));
  mcapi_cancel(&r1, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  drop(a);
  drop(b);
  drop(c);
}

TEST(packet_channels)
{
  mcapi_status_t st;
  mcapi_endpoint_t tx = make(40), rx = make(41);
  mcapi_request_t cr, orq, osq;
  mcapi_connect_pktchan_i(tx, rx, &cr, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  done(&cr);
  mcapi_pktchan_recv_hndl_t rh;
  mcapi_pktchan_send_hndl_t sh;
  mcapi_open_pktchan_recv_i(&rh, rx, &orq, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_open_pktchan_send_i(&sh, tx, &osq, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  done(&orq);
  done(&osq);
  /* Connected twice. */
  mcapi_connect_pktchan_i(tx, rx, &cr, &st);
  CHECK(st == MCAPI_ECONNECTED || st == MCAPI_ECHAN_OPEN);
  mcapi_pktchan_send(sh, "packet", 7, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK_EQ_U(mcapi_pktchan_available(rh, &st), 1);
  void *p = NULL;
  size_t n = 0;
  mcapi_pktchan_recv(rh, &p, &n, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(n == 7 && p && !strcmp(p, "packet"));
  mcapi_pktchan_free(p, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_pktchan_free(p, &st); /* once only */
  CHECK(st != MCAPI_SUCCESS);
  /* Non-blocking send and receive. */
  mcapi_request_t sr, rr;
  mcapi_pktchan_recv_i(rh, &p, &rr, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_pktchan_send_i(sh, "again", 6, &sr, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK_EQ_U(done(&sr), 6);
  CHECK_EQ_U(done(&rr), 6);
  CHECK(!strcmp(p, "again"));
  mcapi_pktchan_free(p, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  /* Close both sides (the 1.0 names). */
  mcapi_request_t c1, c2;
  mcapi_packetchan_send_close_i(sh, &c1, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_packetchan_recv_close_i(rh, &c2, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  done(&c1);
  done(&c2);
  mcapi_pktchan_send(sh, "closed", 7, &st);
  CHECK(st != MCAPI_SUCCESS);
  drop(tx);
  drop(rx);
}

TEST(scalar_channels)
{
  mcapi_status_t st;
  mcapi_endpoint_t tx = make(50), rx = make(51);
  mcapi_request_t cr, orq, osq;
  mcapi_connect_sclchan_i(tx, rx, &cr, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  done(&cr);
  mcapi_sclchan_recv_hndl_t rh;
  mcapi_sclchan_send_hndl_t sh;
  mcapi_open_sclchan_recv_i(&rh, rx, &orq, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_open_sclchan_send_i(&sh, tx, &osq, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  done(&orq);
  done(&osq);
  mcapi_sclchan_send_uint64(sh, 0x0123456789abcdefull, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_sclchan_send_uint32(sh, 0xdeadbeefu, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_sclchan_send_uint16(sh, 0xbeef, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_sclchan_send_uint8(sh, 0x5a, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK_EQ_U(mcapi_sclchan_available(rh, &st), 4);
  CHECK_EQ_U(mcapi_sclchan_recv_uint64(rh, &st), 0x0123456789abcdefull);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK_EQ_U(mcapi_sclchan_recv_uint32(rh, &st), 0xdeadbeefu);
  CHECK_EQ_U(mcapi_sclchan_recv_uint16(rh, &st), 0xbeef);
  CHECK_EQ_U(mcapi_sclchan_recv_uint8(rh, &st), 0x5a);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  /* A width the sender did not send. */
  mcapi_sclchan_send_uint8(sh, 1, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  (void)mcapi_sclchan_recv_uint32(rh, &st);
  CHECK_STATUS(st, MCAPI_ESCL_SIZE);
  mcapi_request_t c1, c2;
  mcapi_sclchan_send_close_i(sh, &c1, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_sclchan_recv_close_i(rh, &c2, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  done(&c1);
  done(&c2);
  drop(tx);
  drop(rx);
}

static void *families(void *arg)
{
  (void)arg;
  RUN(node);
  RUN(endpoints);
  RUN(messages);
  RUN(requests);
  RUN(packet_channels);
  RUN(scalar_channels);
  return NULL;
}

int main(void)
{
  mcapi_status_t st;
  mcapi_version_t version = 0;
  mcapi_initialize(NODE, &version, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(version != 0);
  mcapi_initialize(NODE, &version, &st);
  CHECK_STATUS(st, MCAPI_INITIALIZED);
  mcapi1_run_cases(families);
  mcapi_finalize(&st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  (void)mcapi_get_node_id(&st);
  CHECK_STATUS(st, MCAPI_ENODE_NOTINIT);
  return mcx_test_report();
}
