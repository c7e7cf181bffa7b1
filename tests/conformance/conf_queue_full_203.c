/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * As the reference's msg4, msg17 and scl3: an endpoint's queue takes
 * MCAPI_MAX_QUEUE_ELEMENTS messages sent without a receive, each non-blocking
 * send completing at once with MCAPI_SUCCESS; the next completes with
 * MCAPI_ERR_MEM_LIMIT and its request is free again; the messages come out
 * in order. A scalar channel takes MCAPI_MAX_QUEUE_ELEMENTS scalars, then
 * MCAPI_ERR_MEM_LIMIT. On the pmq transport this needs queues of that depth
 * (fs.mqueue.msg_max at least MCAPI_MAX_QUEUE_ELEMENTS; pmq_run.sh skips
 * below it, and libmca says so on stderr).
 */
#include <mca_config.h>
#include <mcapi.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DOMAIN 1
#define NODE 1

static mcapi_param_t
    parms; /* never set by the program (reference programs pass one they never set) */

#include "conf_check.h"

static void send_expect(mcapi_endpoint_t from, mcapi_endpoint_t to, int i, mcapi_status_t want)
{
  char buf[32];
  mcapi_status_t status;
  mcapi_request_t request;
  size_t size = 0;
  int len = snprintf(buf, sizeof buf, "message %d", i);
  mcapi_msg_send_i(from, to, buf, (size_t)len + 1, 1, &request, &status);
  CHECK(status, MCAPI_SUCCESS, "msg_send_i");
  EXPECT(mcapi_test(&request, &size, &status), "send %d did not complete at once", i);
  CHECK(status, want, "send's completed request");
  if (want == MCAPI_SUCCESS)
    EXPECT(size == (size_t)len + 1, "send %d: size %zu, expected %d", i, size, len + 1);
}

int main(void)
{
  mcapi_status_t status;
  mcapi_info_t info;
  mcapi_request_t request;
  size_t size;
  char buf[32], want[32];

  START_WATCHDOG();
  mcapi_initialize(DOMAIN, NODE, NULL, &parms, &info, &status);
  CHECK(status, MCAPI_SUCCESS, "initialize");
  mcapi_endpoint_t a = mcapi_endpoint_create(500, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create");
  mcapi_endpoint_t b = mcapi_endpoint_create(600, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create");

  for (int i = 0; i < MCAPI_MAX_QUEUE_ELEMENTS; i++)
    send_expect(a, b, i, MCAPI_SUCCESS);
  /* Full: every further send completes with MEM_LIMIT, and frees its request
   * (more of them than there are requests). */
  for (int i = 0; i < MCA_MAX_REQUESTS + 1; i++)
    send_expect(a, b, MCAPI_MAX_QUEUE_ELEMENTS + i, MCAPI_ERR_MEM_LIMIT);
  for (int i = 0; i < MCAPI_MAX_QUEUE_ELEMENTS; i++) {
    mcapi_msg_recv_i(b, buf, sizeof buf, &request, &status);
    CHECK(status, MCAPI_SUCCESS, "msg_recv_i");
    EXPECT(mcapi_test(&request, &size, &status), "receive %d did not complete at once", i);
    CHECK(status, MCAPI_SUCCESS, "receive's completed request");
    snprintf(want, sizeof want, "message %d", i);
    EXPECT(size == strlen(want) + 1 && !strcmp(buf, want), "receive %d: \"%s\"", i, buf);
  }
  EXPECT(mcapi_msg_available(b, &status) == 0, "messages left");

  /* A scalar channel between two other endpoints. */
  mcapi_endpoint_t c = mcapi_endpoint_create(1, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create");
  mcapi_endpoint_t d = mcapi_endpoint_create(2, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create");
  mcapi_sclchan_send_hndl_t sh;
  mcapi_sclchan_recv_hndl_t rh;
  mcapi_sclchan_connect_i(c, d, &request, &status);
  mcapi_wait(&request, &size, CONF_WAIT_MS, &status);
  CHECK(status, MCAPI_SUCCESS, "sclchan_connect_i");
  mcapi_sclchan_send_open_i(&sh, c, &request, &status);
  mcapi_wait(&request, &size, CONF_WAIT_MS, &status);
  CHECK(status, MCAPI_SUCCESS, "sclchan_send_open_i");
  mcapi_sclchan_recv_open_i(&rh, d, &request, &status);
  mcapi_wait(&request, &size, CONF_WAIT_MS, &status);
  CHECK(status, MCAPI_SUCCESS, "sclchan_recv_open_i");
  for (int i = 0; i < MCAPI_MAX_QUEUE_ELEMENTS; i++) {
    mcapi_sclchan_send_uint32(sh, (mcapi_uint32_t)i, &status);
    CHECK(status, MCAPI_SUCCESS, "sclchan_send_uint32");
  }
  mcapi_sclchan_send_uint32(sh, 1000, &status);
  CHECK(status, MCAPI_ERR_MEM_LIMIT, "sclchan_send_uint32 to a full channel");
  for (int i = 0; i < MCAPI_MAX_QUEUE_ELEMENTS; i++) {
    mcapi_uint32_t v = mcapi_sclchan_recv_uint32(rh, &status);
    CHECK(status, MCAPI_SUCCESS, "sclchan_recv_uint32");
    EXPECT(v == (mcapi_uint32_t)i, "scalar %d: %u", i, (unsigned)v);
  }
  mcapi_finalize(&status);
  CHECK(status, MCAPI_SUCCESS, "finalize");
  return 0;
}
