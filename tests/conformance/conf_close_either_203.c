/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mca-2.0.3 profile: a close is accepted from either close call, whatever the
 * side: the send side closed with mcapi_pktchan_recv_close_i, the receive
 * side with mcapi_pktchan_send_close_i.
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

/* One node opens both sides: send side first, so the open works whether or not opens synchronize.
 */
static void open_packet_channel(mcapi_endpoint_t s, mcapi_endpoint_t r,
                                mcapi_pktchan_send_hndl_t *sh, mcapi_pktchan_recv_hndl_t *rh)
{
  mcapi_status_t status;
  mcapi_request_t rc, rs, rr;
  size_t size;
  mcapi_pktchan_connect_i(s, r, &rc, &status);
  EXPECT(status == MCAPI_SUCCESS || status == MCAPI_PENDING, "pktchan_connect_i status %u",
         (unsigned)status);
  mcapi_wait(&rc, &size, CONF_WAIT_MS, &status);
  CHECK(status, MCAPI_SUCCESS, "connect");
  mcapi_pktchan_send_open_i(sh, s, &rs, &status);
  EXPECT(status == MCAPI_SUCCESS || status == MCAPI_PENDING, "pktchan_send_open_i status %u",
         (unsigned)status);
  mcapi_pktchan_recv_open_i(rh, r, &rr, &status);
  EXPECT(status == MCAPI_SUCCESS || status == MCAPI_PENDING, "pktchan_recv_open_i status %u",
         (unsigned)status);
  mcapi_wait(&rs, &size, CONF_WAIT_MS, &status);
  CHECK(status, MCAPI_SUCCESS, "send side open");
  mcapi_wait(&rr, &size, CONF_WAIT_MS, &status);
  CHECK(status, MCAPI_SUCCESS, "receive side open");
}

int main(void)
{
  mcapi_status_t status;
  mcapi_info_t info;
  mcapi_request_t request;
  mcapi_pktchan_send_hndl_t sh;
  mcapi_pktchan_recv_hndl_t rh;
  size_t size;
  mcapi_boolean_t done;

  START_WATCHDOG();
  mcapi_initialize(DOMAIN, NODE, NULL, &parms, &info, &status);
  CHECK(status, MCAPI_SUCCESS, "initialize");
  mcapi_endpoint_t s = mcapi_endpoint_create(1, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create");
  mcapi_endpoint_t r = mcapi_endpoint_create(2, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create");
  open_packet_channel(s, r, &sh, &rh);

  mcapi_pktchan_recv_close_i(sh, &request, &status);
  CHECK(status, MCAPI_SUCCESS, "pktchan_recv_close_i of the send handle");
  done = mcapi_wait(&request, &size, CONF_WAIT_MS, &status);
  CHECK(status, MCAPI_SUCCESS, "wait of the send side's close");
  EXPECT(done == MCAPI_TRUE, "send side close not complete");

  mcapi_pktchan_send_close_i(rh, &request, &status);
  CHECK(status, MCAPI_SUCCESS, "pktchan_send_close_i of the receive handle");
  done = mcapi_wait(&request, &size, CONF_WAIT_MS, &status);
  CHECK(status, MCAPI_SUCCESS, "wait of the receive side's close");
  EXPECT(done == MCAPI_TRUE, "receive side close not complete");

  mcapi_finalize(&status);
  CHECK(status, MCAPI_SUCCESS, "finalize");
  printf("close_either_203: PASSED\n");
  return 0;
}
