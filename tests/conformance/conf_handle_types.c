/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Handles carry their type: an endpoint handle given to a packet or scalar
 * channel call, a channel handle given to a message call, or a handle of the
 * other channel type, is refused with MCAPI_ERR_CHAN_INVALID /
 * MCAPI_ERR_ENDP_INVALID, and nothing is sent anywhere.
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
#define NUM_MSG_EPS 4
#define PKT_S 10
#define PKT_R 11
#define SCL_S 12
#define SCL_R 13

static void open_both(int scalar, mcapi_endpoint_t s, mcapi_endpoint_t r, mca_uint32_t *sh,
                      mca_uint32_t *rh)
{
  mcapi_status_t status;
  mcapi_request_t rc, rs, rr;
  size_t size;
  if (scalar)
    mcapi_sclchan_connect_i(s, r, &rc, &status);
  else
    mcapi_pktchan_connect_i(s, r, &rc, &status);
  EXPECT(status == MCAPI_SUCCESS || status == MCAPI_PENDING, "connect_i status %u",
         (unsigned)status);
  mcapi_wait(&rc, &size, CONF_WAIT_MS, &status);
  CHECK(status, MCAPI_SUCCESS, "connect");
  if (scalar)
    mcapi_sclchan_send_open_i(sh, s, &rs, &status);
  else
    mcapi_pktchan_send_open_i(sh, s, &rs, &status);
  EXPECT(status == MCAPI_SUCCESS || status == MCAPI_PENDING, "send_open_i status %u",
         (unsigned)status);
  if (scalar)
    mcapi_sclchan_recv_open_i(rh, r, &rr, &status);
  else
    mcapi_pktchan_recv_open_i(rh, r, &rr, &status);
  EXPECT(status == MCAPI_SUCCESS || status == MCAPI_PENDING, "recv_open_i status %u",
         (unsigned)status);
  mcapi_wait(&rs, &size, CONF_WAIT_MS, &status);
  CHECK(status, MCAPI_SUCCESS, "send side open");
  mcapi_wait(&rr, &size, CONF_WAIT_MS, &status);
  CHECK(status, MCAPI_SUCCESS, "receive side open");
}

static void expect_nothing_arrived(mcapi_pktchan_recv_hndl_t prh, mcapi_sclchan_recv_hndl_t srh,
                                   mcapi_endpoint_t *msg_eps)
{
  mcapi_status_t status;
  mcapi_uint_t n = mcapi_pktchan_available(prh, &status);
  CHECK(status, MCAPI_SUCCESS, "pktchan_available");
  EXPECT(n == 0, "%u packet(s) arrived on the real packet channel", (unsigned)n);
  n = mcapi_sclchan_available(srh, &status);
  CHECK(status, MCAPI_SUCCESS, "sclchan_available");
  EXPECT(n == 0, "%u scalar(s) arrived on the real scalar channel", (unsigned)n);
  for (int i = 0; i < NUM_MSG_EPS; i++) {
    n = mcapi_msg_available(msg_eps[i], &status);
    CHECK(status, MCAPI_SUCCESS, "msg_available");
    EXPECT(n == 0, "%u message(s) arrived on message endpoint %d", (unsigned)n, i);
  }
}

int main(void)
{
  mcapi_status_t status;
  mcapi_info_t info;
  mcapi_endpoint_t msg_eps[NUM_MSG_EPS];
  mcapi_pktchan_send_hndl_t psh;
  mcapi_pktchan_recv_hndl_t prh;
  mcapi_sclchan_send_hndl_t ssh;
  mcapi_sclchan_recv_hndl_t srh;
  void *buf = NULL;
  size_t size = 0;
  mcapi_timeout_t timeout = 1000;

  START_WATCHDOG();
  mcapi_initialize(DOMAIN, NODE, NULL, &parms, &info, &status);
  CHECK(status, MCAPI_SUCCESS, "initialize");
  for (int i = 0; i < NUM_MSG_EPS; i++) {
    msg_eps[i] = mcapi_endpoint_create((mcapi_port_t)(i + 1), &status);
    CHECK(status, MCAPI_SUCCESS, "endpoint_create");
  }
  mcapi_endpoint_t ps = mcapi_endpoint_create(PKT_S, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create");
  mcapi_endpoint_t pr = mcapi_endpoint_create(PKT_R, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create");
  mcapi_endpoint_t ss = mcapi_endpoint_create(SCL_S, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create");
  mcapi_endpoint_t sr = mcapi_endpoint_create(SCL_R, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create");
  /* Bounded receives, so a mix-up shows as a wrong status, not a hang. */
  mcapi_endpoint_set_attribute(pr, MCAPI_ENDP_ATTR_TIMEOUT, &timeout, sizeof timeout, &status);
  CHECK(status, MCAPI_SUCCESS, "set timeout");
  mcapi_endpoint_set_attribute(sr, MCAPI_ENDP_ATTR_TIMEOUT, &timeout, sizeof timeout, &status);
  CHECK(status, MCAPI_SUCCESS, "set timeout");
  open_both(0, ps, pr, &psh, &prh);
  open_both(1, ss, sr, &ssh, &srh);

  /* Message endpoint handles where a packet send handle belongs. */
  for (int i = 0; i < NUM_MSG_EPS; i++) {
    mcapi_pktchan_send(msg_eps[i], "wrong", 6, &status);
    CHECK(status, MCAPI_ERR_CHAN_INVALID, "pktchan_send on a message endpoint's handle");
  }
  expect_nothing_arrived(prh, srh, msg_eps);

  /* A packet send handle where a message endpoint belongs. */
  mcapi_msg_send(psh, msg_eps[0], "wrong", 6, 1, &status);
  CHECK(status, MCAPI_ERR_ENDP_INVALID, "msg_send from a packet channel send handle");
  expect_nothing_arrived(prh, srh, msg_eps);

  /* A scalar receive handle where a packet receive handle belongs. */
  mcapi_sclchan_send_uint32(ssh, 42, &status);
  CHECK(status, MCAPI_SUCCESS, "sclchan_send_uint32");
  mcapi_pktchan_recv(srh, &buf, &size, &status);
  CHECK(status, MCAPI_ERR_CHAN_INVALID, "pktchan_recv on a scalar channel receive handle");
  mcapi_uint32_t v = mcapi_sclchan_recv_uint32(srh, &status);
  CHECK(status, MCAPI_SUCCESS, "sclchan_recv_uint32 after the refused pktchan_recv");
  EXPECT(v == 42, "scalar %u, expected 42", (unsigned)v);

  /* A packet send handle where a scalar send handle belongs. */
  mcapi_sclchan_send_uint32(psh, 7, &status);
  CHECK(status, MCAPI_ERR_CHAN_INVALID, "sclchan_send_uint32 on a packet channel send handle");
  expect_nothing_arrived(prh, srh, msg_eps);

  /* The real channels still work. */
  mcapi_pktchan_send(psh, "right", 6, &status);
  CHECK(status, MCAPI_SUCCESS, "pktchan_send");
  mcapi_pktchan_recv(prh, &buf, &size, &status);
  CHECK(status, MCAPI_SUCCESS, "pktchan_recv");
  EXPECT(size == 6 && strcmp((char *)buf, "right") == 0, "received '%s', expected 'right'",
         (char *)buf);
  mcapi_pktchan_release(buf, &status);
  CHECK(status, MCAPI_SUCCESS, "pktchan_release");

  mcapi_finalize(&status);
  CHECK(status, MCAPI_SUCCESS, "finalize");
  (void)ps;
  (void)pr;
  (void)ss;
  (void)sr;
  printf("handle_types: PASSED\n");
  return 0;
}
