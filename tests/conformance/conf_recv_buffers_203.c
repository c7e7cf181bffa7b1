/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mca-2.0.3 profile: MCAPI_ENDP_ATTR_NUM_RECV_BUFFERS reports the
 * reference's free-buffer count, MCAPI_MAX_QUEUE_ELEMENTS + 1 - queued.
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

int main(void)
{
  mcapi_status_t status;
  mcapi_info_t info;
  mcapi_uint_t v = 0;

  START_WATCHDOG();
  mcapi_initialize(DOMAIN, NODE, NULL, &parms, &info, &status);
  CHECK(status, MCAPI_SUCCESS, "initialize");
  mcapi_endpoint_t a = mcapi_endpoint_create(1, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create");
  mcapi_endpoint_t b = mcapi_endpoint_create(2, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create");

  mcapi_endpoint_get_attribute(b, MCAPI_ENDP_ATTR_NUM_RECV_BUFFERS, &v, sizeof v, &status);
  CHECK(status, MCAPI_SUCCESS, "get NUM_RECV_BUFFERS of a fresh endpoint");
  EXPECT(v == MCAPI_MAX_QUEUE_ELEMENTS + 1, "NUM_RECV_BUFFERS %u, expected %u", (unsigned)v,
         (unsigned)(MCAPI_MAX_QUEUE_ELEMENTS + 1));
  for (int i = 0; i < 3; i++) {
    mcapi_msg_send(a, b, "queued", 7, 1, &status);
    CHECK(status, MCAPI_SUCCESS, "msg_send");
  }
  mcapi_endpoint_get_attribute(b, MCAPI_ENDP_ATTR_NUM_RECV_BUFFERS, &v, sizeof v, &status);
  CHECK(status, MCAPI_SUCCESS, "get NUM_RECV_BUFFERS with 3 messages queued");
  EXPECT(v == MCAPI_MAX_QUEUE_ELEMENTS + 1 - 3, "NUM_RECV_BUFFERS %u with 3 queued, expected %u",
         (unsigned)v, (unsigned)(MCAPI_MAX_QUEUE_ELEMENTS + 1 - 3));

  mcapi_finalize(&status);
  CHECK(status, MCAPI_SUCCESS, "finalize");
  printf("recv_buffers_203: PASSED\n");
  return 0;
}
