/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A scalar received with another width than it was sent with:
 * MCAPI_ERR_SCL_SIZE in both profiles. The mca-2.0.3 profile consumes the
 * scalar (as the reference does); the spec profile leaves it first in the
 * channel for a receive of the right width.
 */
#include <mcapi.h>
#include <mcx.h>
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
#define BIG 0x1122334455667788ull

int main(void)
{
  mcapi_status_t status;
  mcapi_info_t info;
  mcapi_request_t rc, rs, rr;
  mcapi_sclchan_send_hndl_t sh;
  mcapi_sclchan_recv_hndl_t rh;
  size_t size;

  START_WATCHDOG();
  mcapi_initialize(DOMAIN, NODE, NULL, &parms, &info, &status);
  CHECK(status, MCAPI_SUCCESS, "initialize");
  int reference = mcx_compat() == MCX_COMPAT_MCA203;
  printf("profile %s\n", reference ? "mca-2.0.3" : "spec");
  mcapi_endpoint_t s = mcapi_endpoint_create(1, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create");
  mcapi_endpoint_t r = mcapi_endpoint_create(2, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create");
  mcapi_sclchan_connect_i(s, r, &rc, &status);
  EXPECT(status == MCAPI_SUCCESS || status == MCAPI_PENDING, "sclchan_connect_i status %u",
         (unsigned)status);
  mcapi_wait(&rc, &size, CONF_WAIT_MS, &status);
  CHECK(status, MCAPI_SUCCESS, "connect");
  mcapi_sclchan_send_open_i(&sh, s, &rs, &status);
  EXPECT(status == MCAPI_SUCCESS || status == MCAPI_PENDING, "sclchan_send_open_i status %u",
         (unsigned)status);
  mcapi_sclchan_recv_open_i(&rh, r, &rr, &status);
  EXPECT(status == MCAPI_SUCCESS || status == MCAPI_PENDING, "sclchan_recv_open_i status %u",
         (unsigned)status);
  mcapi_wait(&rs, &size, CONF_WAIT_MS, &status);
  CHECK(status, MCAPI_SUCCESS, "send side open");
  mcapi_wait(&rr, &size, CONF_WAIT_MS, &status);
  CHECK(status, MCAPI_SUCCESS, "receive side open");

  mcapi_sclchan_send_uint64(sh, BIG, &status);
  CHECK(status, MCAPI_SUCCESS, "sclchan_send_uint64");
  mcapi_sclchan_send_uint32(sh, 7, &status);
  CHECK(status, MCAPI_SUCCESS, "sclchan_send_uint32");

  (void)mcapi_sclchan_recv_uint32(rh, &status);
  CHECK(status, MCAPI_ERR_SCL_SIZE, "sclchan_recv_uint32 of a 64-bit scalar");
  if (!reference) {
    mcapi_uint64_t v64 = mcapi_sclchan_recv_uint64(rh, &status);
    CHECK(status, MCAPI_SUCCESS, "sclchan_recv_uint64 after the refused receive");
    EXPECT(v64 == BIG, "received %#llx, expected %#llx", (unsigned long long)v64, BIG);
  }
  mcapi_uint32_t v32 = mcapi_sclchan_recv_uint32(rh, &status);
  CHECK(status, MCAPI_SUCCESS, "sclchan_recv_uint32 of the 32-bit scalar");
  EXPECT(v32 == 7, "received %u, expected 7", (unsigned)v32);
  mcapi_uint_t left = mcapi_sclchan_available(rh, &status);
  CHECK(status, MCAPI_SUCCESS, "sclchan_available");
  EXPECT(left == 0, "%u scalar(s) left in the channel", (unsigned)left);

  mcapi_finalize(&status);
  CHECK(status, MCAPI_SUCCESS, "finalize");
  printf("scl_width: PASSED\n");
  return 0;
}
