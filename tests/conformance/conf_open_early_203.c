/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mca-2.0.3 profile: a channel open completes as soon as the endpoint is
 * connected, without waiting for the other side to open. A single-threaded
 * program opens the receive side, waits for it, then opens the send side.
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

/* How a call reports its start is not the subject here (see conf_i_success, conf_pending_203). */
static void started(mcapi_status_t status, const char *what)
{
  EXPECT(status == MCAPI_SUCCESS || status == MCAPI_PENDING, "%s: status %u", what,
         (unsigned)status);
}

static void expect_complete(mcapi_request_t *request, const char *what)
{
  mcapi_status_t status;
  size_t size;
  mcapi_boolean_t done = mcapi_wait(request, &size, CONF_WAIT_MS, &status);
  CHECK(status, MCAPI_SUCCESS, what);
  EXPECT(done == MCAPI_TRUE, "%s: not complete", what);
}

static void packet_channel(void)
{
  mcapi_status_t status;
  mcapi_request_t request;
  mcapi_pktchan_send_hndl_t sh;
  mcapi_pktchan_recv_hndl_t rh;
  void *buf;
  size_t size;
  mcapi_endpoint_t s = mcapi_endpoint_create(1, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create");
  mcapi_endpoint_t r = mcapi_endpoint_create(2, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create");

  mcapi_pktchan_connect_i(s, r, &request, &status);
  started(status, "pktchan_connect_i");
  expect_complete(&request, "wait of pktchan_connect_i");
  mcapi_pktchan_recv_open_i(&rh, r, &request, &status);
  started(status, "pktchan_recv_open_i");
  expect_complete(&request, "wait of pktchan_recv_open_i before the send side opened");
  mcapi_pktchan_send_open_i(&sh, s, &request, &status);
  started(status, "pktchan_send_open_i");
  expect_complete(&request, "wait of pktchan_send_open_i");

  mcapi_pktchan_send(sh, "early", 6, &status);
  CHECK(status, MCAPI_SUCCESS, "pktchan_send");
  mcapi_pktchan_recv(rh, &buf, &size, &status);
  CHECK(status, MCAPI_SUCCESS, "pktchan_recv");
  EXPECT(size == 6 && strcmp((char *)buf, "early") == 0, "received '%s', expected 'early'",
         (char *)buf);
  mcapi_pktchan_release(buf, &status);
  CHECK(status, MCAPI_SUCCESS, "pktchan_release");

  mcapi_pktchan_recv_close_i(rh, &request, &status);
  started(status, "pktchan_recv_close_i");
  expect_complete(&request, "wait of pktchan_recv_close_i");
  mcapi_pktchan_send_close_i(sh, &request, &status);
  started(status, "pktchan_send_close_i");
  expect_complete(&request, "wait of pktchan_send_close_i");
}

static void scalar_channel(void)
{
  mcapi_status_t status;
  mcapi_request_t request;
  mcapi_sclchan_send_hndl_t sh;
  mcapi_sclchan_recv_hndl_t rh;
  mcapi_endpoint_t s = mcapi_endpoint_create(3, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create");
  mcapi_endpoint_t r = mcapi_endpoint_create(4, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create");

  mcapi_sclchan_connect_i(s, r, &request, &status);
  started(status, "sclchan_connect_i");
  expect_complete(&request, "wait of sclchan_connect_i");
  mcapi_sclchan_recv_open_i(&rh, r, &request, &status);
  started(status, "sclchan_recv_open_i");
  expect_complete(&request, "wait of sclchan_recv_open_i before the send side opened");
  mcapi_sclchan_send_open_i(&sh, s, &request, &status);
  started(status, "sclchan_send_open_i");
  expect_complete(&request, "wait of sclchan_send_open_i");

  mcapi_sclchan_send_uint32(sh, 0xCAFEF00Du, &status);
  CHECK(status, MCAPI_SUCCESS, "sclchan_send_uint32");
  mcapi_uint32_t v = mcapi_sclchan_recv_uint32(rh, &status);
  CHECK(status, MCAPI_SUCCESS, "sclchan_recv_uint32");
  EXPECT(v == 0xCAFEF00Du, "received %#x, expected 0xcafef00d", (unsigned)v);

  mcapi_sclchan_recv_close_i(rh, &request, &status);
  started(status, "sclchan_recv_close_i");
  expect_complete(&request, "wait of sclchan_recv_close_i");
  mcapi_sclchan_send_close_i(sh, &request, &status);
  started(status, "sclchan_send_close_i");
  expect_complete(&request, "wait of sclchan_send_close_i");
}

int main(void)
{
  mcapi_status_t status;
  mcapi_info_t info;
  START_WATCHDOG();
  mcapi_initialize(DOMAIN, NODE, NULL, &parms, &info, &status);
  CHECK(status, MCAPI_SUCCESS, "initialize");
  packet_channel();
  scalar_channel();
  mcapi_finalize(&status);
  CHECK(status, MCAPI_SUCCESS, "finalize");
  printf("open_early_203: PASSED\n");
  return 0;
}
