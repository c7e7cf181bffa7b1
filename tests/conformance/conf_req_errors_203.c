/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mca-2.0.3 profile: errors of non-blocking calls live in a completed
 * request. mcapi_msg_send_i returns MCAPI_SUCCESS and its request carries the
 * error (a deleted receiver, a full queue); other _i calls return the error
 * and leave it in a completed request too. mcapi_test reports a never-started
 * request as complete with MCAPI_ERR_REQUEST_INVALID, and a NULL size as
 * complete with MCAPI_ERR_PARAMETER, checked before the handle.
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

static void expect_request_error(mcapi_request_t *request, mcapi_status_t want, int use_wait,
                                 const char *what)
{
  mcapi_status_t status;
  size_t size;
  mcapi_boolean_t done =
      use_wait ? mcapi_wait(request, &size, CONF_WAIT_MS, &status) : mcapi_test(request, &size, &status);
  CHECK(status, want, what);
  EXPECT(done == MCAPI_TRUE, "%s: request not reported complete", what);
}

int main(void)
{
  mcapi_status_t status;
  mcapi_info_t info;
  mcapi_request_t request;
  char buf[16];
  size_t size;

  START_WATCHDOG();
  mcapi_initialize(DOMAIN, NODE, NULL, &parms, &info, &status);
  CHECK(status, MCAPI_SUCCESS, "initialize");
  mcapi_endpoint_t me = mcapi_endpoint_create(1, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create");
  mcapi_endpoint_t gone = mcapi_endpoint_create(2, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create");
  mcapi_endpoint_t full = mcapi_endpoint_create(3, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create");
  mcapi_endpoint_delete(gone, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_delete");

  /* Send to a deleted endpoint: accepted, the request holds the error. */
  mcapi_msg_send_i(me, gone, "lost", 5, 1, &request, &status);
  CHECK(status, MCAPI_SUCCESS, "msg_send_i to a deleted endpoint");
  expect_request_error(&request, MCAPI_ERR_ENDP_INVALID, 1,
                       "wait of msg_send_i to a deleted endpoint");

  /* Send to a full queue (the profile fails on the memory limit): accepted, the request holds the
   * error. */
  int queued = 0;
  for (;;) {
    mcapi_msg_send(me, full, "fill", 5, 1, &status);
    if (status != MCAPI_SUCCESS)
      break;
    queued++;
    EXPECT(queued <= 4 * MCAPI_MAX_QUEUE_ELEMENTS, "the queue never became full");
  }
  CHECK(status, MCAPI_ERR_MEM_LIMIT, "msg_send to a full queue");
  mcapi_msg_send_i(me, full, "more", 5, 1, &request, &status);
  CHECK(status, MCAPI_SUCCESS, "msg_send_i to a full queue");
  expect_request_error(&request, MCAPI_ERR_MEM_LIMIT, 1, "wait of msg_send_i to a full queue");

  /* Receive on an invalid endpoint: the error is returned and left in the request. */
  mcapi_msg_recv_i(gone, buf, sizeof buf, &request, &status);
  CHECK(status, MCAPI_ERR_ENDP_INVALID, "msg_recv_i on a deleted endpoint");
  expect_request_error(&request, MCAPI_ERR_ENDP_INVALID, 0,
                       "test of msg_recv_i on a deleted endpoint");

  /* A request that was never started. */
  mcapi_request_t never;
  memset(&never, 0, sizeof never);
  expect_request_error(&never, MCAPI_ERR_REQUEST_INVALID, 0, "test of a never-started request");

  /* A NULL size, checked before the handle: on a pending request and on a never-started one. */
  mcapi_msg_recv_i(me, buf, sizeof buf, &request, &status);
  EXPECT(status == MCAPI_SUCCESS || status == MCAPI_PENDING,
         "msg_recv_i on an empty queue: status %u", (unsigned)status);
  mcapi_boolean_t done = mcapi_test(&request, NULL, &status);
  CHECK(status, MCAPI_ERR_PARAMETER, "mcapi_test with a NULL size");
  EXPECT(done == MCAPI_TRUE, "mcapi_test with a NULL size: not reported complete");
  memset(&never, 0, sizeof never);
  done = mcapi_test(&never, NULL, &status);
  CHECK(status, MCAPI_ERR_PARAMETER, "mcapi_test of a never-started request with a NULL size");
  EXPECT(done == MCAPI_TRUE, "mcapi_test with a NULL size: not reported complete");

  mcapi_finalize(&status);
  CHECK(status, MCAPI_SUCCESS, "finalize");
  (void)size;
  printf("req_errors_203: PASSED (%d messages filled the queue)\n", queued);
  return 0;
}
