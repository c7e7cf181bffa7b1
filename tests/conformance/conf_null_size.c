/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mcapi_test and mcapi_wait with a NULL size pointer: MCAPI_ERR_PARAMETER
 * (the spec lists it), and the request is left as it was.
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
  mcapi_request_t done_req, pending_req;
  char buf[16];
  size_t size;

  START_WATCHDOG();
  mcapi_initialize(DOMAIN, NODE, NULL, &parms, &info, &status);
  CHECK(status, MCAPI_SUCCESS, "initialize");
  mcapi_endpoint_t a = mcapi_endpoint_create(1, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create");
  mcapi_endpoint_t b = mcapi_endpoint_create(2, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create");

  /* A completed request. */
  mcapi_msg_send_i(a, b, "hi", 3, 1, &done_req, &status);
  EXPECT(status == MCAPI_SUCCESS || status == MCAPI_PENDING, "msg_send_i status %u",
         (unsigned)status);
  mcapi_boolean_t r = mcapi_test(&done_req, NULL, &status);
  CHECK(status, MCAPI_ERR_PARAMETER, "mcapi_test with a NULL size");
  EXPECT(r == MCAPI_FALSE, "mcapi_test with a NULL size returned true");
  r = mcapi_wait(&done_req, NULL, CONF_WAIT_MS, &status);
  CHECK(status, MCAPI_ERR_PARAMETER, "mcapi_wait with a NULL size");
  EXPECT(r == MCAPI_FALSE, "mcapi_wait with a NULL size returned true");
  r = mcapi_test(&done_req, &size, &status);
  CHECK(status, MCAPI_SUCCESS, "mcapi_test of the send afterwards");
  EXPECT(r == MCAPI_TRUE && size == 3, "send request: done %d, size %zu", (int)r, size);

  /* A pending request. */
  mcapi_msg_recv_i(a, buf, sizeof buf, &pending_req, &status);
  EXPECT(status == MCAPI_SUCCESS || status == MCAPI_PENDING, "msg_recv_i status %u",
         (unsigned)status);
  r = mcapi_test(&pending_req, NULL, &status);
  CHECK(status, MCAPI_ERR_PARAMETER, "mcapi_test of a pending request with a NULL size");
  EXPECT(r == MCAPI_FALSE, "mcapi_test with a NULL size returned true");
  r = mcapi_wait(&pending_req, NULL, CONF_WAIT_MS, &status);
  CHECK(status, MCAPI_ERR_PARAMETER, "mcapi_wait of a pending request with a NULL size");
  EXPECT(r == MCAPI_FALSE, "mcapi_wait with a NULL size returned true");
  mcapi_msg_send(b, a, "yo", 3, 1, &status);
  CHECK(status, MCAPI_SUCCESS, "msg_send");
  r = mcapi_wait(&pending_req, &size, CONF_WAIT_MS, &status);
  CHECK(status, MCAPI_SUCCESS, "mcapi_wait of the receive afterwards");
  EXPECT(r == MCAPI_TRUE && size == 3 && strcmp(buf, "yo") == 0,
         "receive request: done %d, size %zu, '%s'", (int)r, size, buf);

  size_t n;
  mcapi_msg_recv(b, buf, sizeof buf, &n, &status);
  CHECK(status, MCAPI_SUCCESS, "msg_recv");
  EXPECT(strcmp(buf, "hi") == 0, "received '%s', expected 'hi'", buf);
  mcapi_finalize(&status);
  CHECK(status, MCAPI_SUCCESS, "finalize");
  (void)parms;
  printf("null_size: PASSED\n");
  return 0;
}
