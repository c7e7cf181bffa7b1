/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The other way in to the MCAPI 1.0 names: MCX_API_1_0 defined before
 * mcapi.h (no mcapi1.h in the program). A receive request started (SUCCESS
 * in 1.0), tested (MCAPI_INCOMPLETE), waited past its timeout (the status
 * before the timeout; MCAPI_EREQ_TIMEOUT), cancelled (a test says FALSE with
 * MCAPI_EREQ_CANCELED), then a message received by a second request.
 */
#define MCX_API_1_0
#define MCX_MCAPI1_DOMAIN 6
#include "mcapi.h"
#include "mcx_test.h"

TEST(define_before_mcapi_h)
{
  mcapi_status_t st;
  mcapi_version_t v = 0;
  mcapi_initialize(2, &v, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK_EQ_U(mcapi_get_node_id(&st), 2);
  mcapi_endpoint_t a = mcapi_create_endpoint(MCAPI_PORT_ANY, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_endpoint_t b = mcapi_create_endpoint(7, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  char buf[16];
  size_t n = 0;
  mcapi_request_t r;
  mcapi_msg_recv_i(b, buf, sizeof buf, &r, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(mcapi_test(&r, &n, &st) == MCAPI_FALSE);
  CHECK_STATUS(st, MCAPI_INCOMPLETE);
  CHECK(mcapi_wait(&r, &n, &st, 5) == MCAPI_FALSE);
  CHECK_STATUS(st, MCAPI_EREQ_TIMEOUT);
  mcapi_cancel(&r, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(mcapi_test(&r, &n, &st) == MCAPI_FALSE);
  CHECK_STATUS(st, MCAPI_EREQ_CANCELED);
  mcapi_msg_recv_i(b, buf, sizeof buf, &r, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_msg_send(a, b, "one-oh", 7, 0, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(mcapi_wait(&r, &n, &st, MCX_TEST_WAIT_MS) == MCAPI_TRUE);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(n == 7 && !strcmp(buf, "one-oh"));
  mcapi_delete_endpoint(b, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_finalize(&st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
}

int main(void)
{
  RUN(define_before_mcapi_h);
  return mcx_test_report();
}
