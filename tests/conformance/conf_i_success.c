/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A non-blocking call whose operation completes at once returns
 * MCAPI_SUCCESS, not MCAPI_PENDING (spec and reference agree); the request
 * then reports completion with MCAPI_SUCCESS and the size moved.
 */
#include <mcapi.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DOMAIN 1

static mcapi_param_t
    parms; /* never set by the program (reference programs pass one they never set) */

#include "conf_check.h"

#define NODE 1
#define MSG_A 1
#define MSG_B 2
#define PKT_S 3
#define PKT_R 4
#define SCL_S 5
#define SCL_R 6

static void expect_done(mcapi_request_t *request, int use_wait, size_t want_size, int check_size,
                        const char *what)
{
  mcapi_status_t status;
  size_t size = 12345;
  mcapi_boolean_t done =
      use_wait ? mcapi_wait(request, &size, CONF_WAIT_MS, &status) : mcapi_test(request, &size, &status);
  CHECK(status, MCAPI_SUCCESS, what);
  EXPECT(done == MCAPI_TRUE, "%s: request not complete", what);
  if (check_size)
    EXPECT(size == want_size, "%s: size %zu, expected %zu", what, size, want_size);
}

int main(void)
{
  mcapi_status_t status;
  mcapi_info_t info;
  mcapi_request_t r_send, r_recv, r_get, r_pconn, r_sopen, r_ropen, r_psend, r_precv, r_sconn, r_c1,
      r_c2;
  mcapi_endpoint_t found = 0;
  mcapi_pktchan_send_hndl_t ph_send;
  mcapi_pktchan_recv_hndl_t ph_recv;
  char buf[32];
  void *packet = NULL;
  size_t size;

  START_WATCHDOG();
  mcapi_initialize(DOMAIN, NODE, NULL, &parms, &info, &status);
  CHECK(status, MCAPI_SUCCESS, "initialize");
  mcapi_endpoint_t a = mcapi_endpoint_create(MSG_A, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create");
  mcapi_endpoint_t b = mcapi_endpoint_create(MSG_B, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create");

  mcapi_msg_send_i(a, b, "hello", 6, 1, &r_send, &status);
  CHECK(status, MCAPI_SUCCESS, "msg_send_i to an endpoint with room");
  mcapi_msg_recv_i(b, buf, sizeof buf, &r_recv, &status);
  CHECK(status, MCAPI_SUCCESS, "msg_recv_i with a message queued");
  mcapi_endpoint_get_i(DOMAIN, NODE, MSG_B, &found, &r_get, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_get_i of an existing endpoint");

  expect_done(&r_send, 0, 6, 1, "test of msg_send_i");
  expect_done(&r_recv, 1, 6, 1, "wait of msg_recv_i");
  EXPECT(strcmp(buf, "hello") == 0, "msg_recv_i received '%s'", buf);
  expect_done(&r_get, 0, 0, 0, "test of endpoint_get_i");
  EXPECT(found == b, "endpoint_get_i found %#x, expected %#x", (unsigned)found, (unsigned)b);

  mcapi_endpoint_t ps = mcapi_endpoint_create(PKT_S, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create");
  mcapi_endpoint_t pr = mcapi_endpoint_create(PKT_R, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create");
  mcapi_pktchan_connect_i(ps, pr, &r_pconn, &status);
  CHECK(status, MCAPI_SUCCESS, "pktchan_connect_i");
  expect_done(&r_pconn, 1, 0, 0, "wait of pktchan_connect_i");
  /* One thread opens both sides: the first open may have to wait for the second. */
  mcapi_pktchan_send_open_i(&ph_send, ps, &r_sopen, &status);
  EXPECT(status == MCAPI_SUCCESS || status == MCAPI_PENDING, "pktchan_send_open_i status %u",
         (unsigned)status);
  mcapi_pktchan_recv_open_i(&ph_recv, pr, &r_ropen, &status);
  EXPECT(status == MCAPI_SUCCESS || status == MCAPI_PENDING, "pktchan_recv_open_i status %u",
         (unsigned)status);
  expect_done(&r_sopen, 1, 0, 0, "wait of pktchan_send_open_i");
  expect_done(&r_ropen, 1, 0, 0, "wait of pktchan_recv_open_i");

  mcapi_pktchan_send_i(ph_send, "packet", 7, &r_psend, &status);
  CHECK(status, MCAPI_SUCCESS, "pktchan_send_i with a free buffer");
  expect_done(&r_psend, 0, 7, 1, "test of pktchan_send_i");
  mcapi_pktchan_recv_i(ph_recv, &packet, &r_precv, &status);
  CHECK(status, MCAPI_SUCCESS, "pktchan_recv_i with a packet queued");
  expect_done(&r_precv, 1, 7, 1, "wait of pktchan_recv_i");
  EXPECT(packet != NULL && strcmp((char *)packet, "packet") == 0,
         "pktchan_recv_i received the wrong packet");
  mcapi_pktchan_release(packet, &status);
  CHECK(status, MCAPI_SUCCESS, "pktchan_release");

  mcapi_endpoint_t ss = mcapi_endpoint_create(SCL_S, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create");
  mcapi_endpoint_t sr = mcapi_endpoint_create(SCL_R, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create");
  mcapi_sclchan_connect_i(ss, sr, &r_sconn, &status);
  CHECK(status, MCAPI_SUCCESS, "sclchan_connect_i");
  expect_done(&r_sconn, 0, 0, 0, "test of sclchan_connect_i");

  mcapi_pktchan_recv_close_i(ph_recv, &r_c1, &status);
  EXPECT(status == MCAPI_SUCCESS || status == MCAPI_PENDING, "pktchan_recv_close_i status %u",
         (unsigned)status);
  mcapi_pktchan_send_close_i(ph_send, &r_c2, &status);
  EXPECT(status == MCAPI_SUCCESS || status == MCAPI_PENDING, "pktchan_send_close_i status %u",
         (unsigned)status);
  mcapi_wait(&r_c1, &size, CONF_WAIT_MS, &status);
  CHECK(status, MCAPI_SUCCESS, "receive side close");
  mcapi_wait(&r_c2, &size, CONF_WAIT_MS, &status);
  CHECK(status, MCAPI_SUCCESS, "send side close");
  mcapi_finalize(&status);
  CHECK(status, MCAPI_SUCCESS, "finalize");
  printf("i_success: PASSED\n");
  return 0;
}
