/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A genuinely pending receive. In the mca-2.0.3 profile mcapi_msg_recv_i
 * returns MCAPI_SUCCESS and mcapi_test on the pending request returns false
 * with MCAPI_SUCCESS; in the spec profile they give MCAPI_PENDING. Once the
 * message arrives, mcapi_test returns true with MCAPI_SUCCESS in both.
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

#define RECEIVER 1
#define SENDER 2
#define PORT 1

static pthread_barrier_t step;

static void *sender(void *arg)
{
  mcapi_status_t status;
  mcapi_info_t info;
  (void)arg;
  mcapi_initialize(DOMAIN, SENDER, NULL, &parms, &info, &status);
  CHECK(status, MCAPI_SUCCESS, "sender initialize");
  mcapi_endpoint_t me = mcapi_endpoint_create(PORT, &status);
  CHECK(status, MCAPI_SUCCESS, "sender endpoint_create");
  mcapi_endpoint_t to = mcapi_endpoint_get(DOMAIN, RECEIVER, PORT, MCAPI_TIMEOUT_INFINITE, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_get");
  pthread_barrier_wait(&step); /* 1: the receive is posted and tested */
  mcapi_msg_send(me, to, "ping", 5, 1, &status);
  CHECK(status, MCAPI_SUCCESS, "msg_send");
  pthread_barrier_wait(&step); /* 2: received */
  mcapi_finalize(&status);
  CHECK(status, MCAPI_SUCCESS, "sender finalize");
  return NULL;
}

int main(void)
{
  mcapi_status_t status;
  mcapi_info_t info;
  mcapi_request_t request;
  char buf[16] = "";
  size_t size = 0;
  pthread_t t;

  START_WATCHDOG();
  pthread_barrier_init(&step, NULL, 2);
  mcapi_initialize(DOMAIN, RECEIVER, NULL, &parms, &info, &status);
  CHECK(status, MCAPI_SUCCESS, "receiver initialize");
  mcapi_status_t pending = mcx_compat() == MCX_COMPAT_MCA203 ? MCAPI_SUCCESS : MCAPI_PENDING;
  printf("profile %s\n", mcx_compat() == MCX_COMPAT_MCA203 ? "mca-2.0.3" : "spec");
  mcapi_endpoint_t me = mcapi_endpoint_create(PORT, &status);
  CHECK(status, MCAPI_SUCCESS, "receiver endpoint_create");
  pthread_create(&t, NULL, sender, NULL);

  mcapi_msg_recv_i(me, buf, sizeof buf, &request, &status);
  CHECK(status, pending, "msg_recv_i on an empty queue");
  mcapi_boolean_t done = mcapi_test(&request, &size, &status);
  CHECK(status, pending, "mcapi_test of the pending receive");
  EXPECT(done == MCAPI_FALSE, "mcapi_test reported the pending receive complete");
  pthread_barrier_wait(&step); /* 1 */

  /* Poll as reference programs do, bounded: each poll sleeps 1 ms or more,
   * so CONF_WAIT_MS polls outlast the wait ceiling. */
  int polls = 0;
  for (;;) {
    done = mcapi_test(&request, &size, &status);
    if (done == MCAPI_TRUE)
      break;
    CHECK(status, pending, "mcapi_test while the message is on its way");
    EXPECT(++polls < (int)CONF_WAIT_MS, "the receive did not complete (hung)");
    usleep(1000);
  }
  CHECK(status, MCAPI_SUCCESS, "mcapi_test of the completed receive");
  EXPECT(size == 5 && strcmp(buf, "ping") == 0, "received '%s' (%zu bytes), expected 'ping'", buf,
         size);
  pthread_barrier_wait(&step); /* 2 */
  pthread_join(t, NULL);
  mcapi_finalize(&status);
  CHECK(status, MCAPI_SUCCESS, "receiver finalize");
  printf("pending: PASSED\n");
  return 0;
}
