/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The MCAPI 1.0 tests' shared steps, in the 1.0 names: an endpoint made or
 * deleted with SUCCESS checked, a started request waited for, and the cases
 * run on the node's thread or, process scope, another. Included after
 * mcapi1.h and mcx_test.h.
 */
#ifndef MCAPI1_TEST_H
#define MCAPI1_TEST_H

static inline mcapi_endpoint_t make(mcapi_port_t port)
{
  mcapi_status_t st;
  mcapi_endpoint_t e = mcapi_create_endpoint(port, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  return e;
}

static inline void drop(mcapi_endpoint_t e)
{
  mcapi_status_t st;
  mcapi_delete_endpoint(e, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
}

/* Waits for a started request: TRUE and SUCCESS; its size. */
static inline size_t done(mcapi_request_t *r)
{
  mcapi_status_t st;
  size_t n = 0;
  CHECK(mcapi_wait(r, &n, &st, MCX_TEST_WAIT_MS) == MCAPI_TRUE);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  return n;
}

/* Closes both sides of a packet (@p pkt) or scalar channel, handles @p sh
 * and @p rh, and waits for each close. */
static inline void close_both(int pkt, uint32_t sh, uint32_t rh)
{
  mcapi_status_t st;
  mcapi_request_t sr, rr;
  if (pkt) {
    mcapi_packetchan_send_close_i(sh, &sr, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    mcapi_packetchan_recv_close_i(rh, &rr, &st);
  } else {
    mcapi_sclchan_send_close_i(sh, &sr, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    mcapi_sclchan_recv_close_i(rh, &rr, &st);
  }
  CHECK_STATUS(st, MCAPI_SUCCESS);
  done(&sr);
  done(&rr);
}

/* Runs @p cases as the node: on this thread, or, with
 * MCX_NODE_SCOPE=process, on a thread that never initialized (every thread
 * of the process acts as its node). */
static inline void mcapi1_run_cases(void *(*cases)(void *))
{
  const char *scope = getenv("MCX_NODE_SCOPE");
  if (scope && !strcmp(scope, "process")) {
    pthread_t t;
    CHECK(pthread_create(&t, NULL, cases, NULL) == 0);
    pthread_join(t, NULL);
  } else {
    cases(NULL);
  }
}

#endif
