/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mca-2.0.3 profile: endpoint handles follow the reference's encoding of
 * (domain index, node index, endpoint index), 8 bits each: the first node
 * initialized in the domain has endpoints 0, 1, ...; the second node's first
 * endpoint is 0x100. mcapi_endpoint_get returns the same numbers, and
 * messages sent between those handles arrive.
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

#define FIRST_NODE 1
#define SECOND_NODE 2
#define PORT_X 10
#define PORT_Y 11

static pthread_barrier_t step;

static void *second_node(void *arg)
{
  mcapi_status_t status;
  mcapi_info_t info;
  char buf[32];
  size_t n;
  (void)arg;
  mcapi_initialize(DOMAIN, SECOND_NODE, NULL, &parms, &info, &status);
  CHECK(status, MCAPI_SUCCESS, "second node initialize");
  mcapi_endpoint_t me = mcapi_endpoint_create(PORT_X, &status);
  CHECK(status, MCAPI_SUCCESS, "second node endpoint_create");
  EXPECT(me == 0x100, "second node's first endpoint is %#x, expected 0x100", (unsigned)me);
  mcapi_endpoint_t first =
      mcapi_endpoint_get(DOMAIN, FIRST_NODE, PORT_X, MCAPI_TIMEOUT_INFINITE, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_get");
  EXPECT(first == 0, "endpoint_get of the first node's first endpoint gave %#x, expected 0",
         (unsigned)first);
  pthread_barrier_wait(&step); /* 1: both nodes have their endpoints */

  mcapi_msg_recv(me, buf, sizeof buf, &n, &status);
  CHECK(status, MCAPI_SUCCESS, "msg_recv on endpoint 0x100");
  EXPECT(strcmp(buf, "to 0x100") == 0, "endpoint 0x100 received '%s'", buf);
  mcapi_msg_send(me, 1, "to 1", 5, 1, &status);
  CHECK(status, MCAPI_SUCCESS, "msg_send from 0x100 to handle 1");
  pthread_barrier_wait(&step); /* 2: done */
  mcapi_finalize(&status);
  CHECK(status, MCAPI_SUCCESS, "second node finalize");
  return NULL;
}

int main(void)
{
  mcapi_status_t status;
  mcapi_info_t info;
  char buf[32];
  size_t n;
  pthread_t t;

  START_WATCHDOG();
  pthread_barrier_init(&step, NULL, 2);
  mcapi_initialize(DOMAIN, FIRST_NODE, NULL, &parms, &info, &status);
  CHECK(status, MCAPI_SUCCESS, "first node initialize");
  mcapi_endpoint_t x = mcapi_endpoint_create(PORT_X, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create");
  EXPECT(x == 0, "first node's first endpoint is %#x, expected 0", (unsigned)x);
  mcapi_endpoint_t y = mcapi_endpoint_create(PORT_Y, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create");
  EXPECT(y == 1, "first node's second endpoint is %#x, expected 1", (unsigned)y);
  pthread_create(&t, NULL, second_node, NULL);
  pthread_barrier_wait(&step); /* 1 */

  mcapi_endpoint_t e =
      mcapi_endpoint_get(DOMAIN, FIRST_NODE, PORT_X, MCAPI_TIMEOUT_INFINITE, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_get");
  EXPECT(e == 0, "endpoint_get(first node, port %d) gave %#x, expected 0", PORT_X, (unsigned)e);
  e = mcapi_endpoint_get(DOMAIN, FIRST_NODE, PORT_Y, MCAPI_TIMEOUT_INFINITE, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_get");
  EXPECT(e == 1, "endpoint_get(first node, port %d) gave %#x, expected 1", PORT_Y, (unsigned)e);
  e = mcapi_endpoint_get(DOMAIN, SECOND_NODE, PORT_X, MCAPI_TIMEOUT_INFINITE, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_get");
  EXPECT(e == 0x100, "endpoint_get(second node, port %d) gave %#x, expected 0x100", PORT_X,
         (unsigned)e);

  mcapi_msg_send(0, 0x100, "to 0x100", 9, 1, &status);
  CHECK(status, MCAPI_SUCCESS, "msg_send from handle 0 to handle 0x100");
  mcapi_msg_recv(1, buf, sizeof buf, &n, &status);
  CHECK(status, MCAPI_SUCCESS, "msg_recv on handle 1");
  EXPECT(strcmp(buf, "to 1") == 0, "endpoint 1 received '%s'", buf);
  pthread_barrier_wait(&step); /* 2 */
  pthread_join(t, NULL);
  mcapi_finalize(&status);
  CHECK(status, MCAPI_SUCCESS, "first node finalize");
  printf("ep_encoding_203: PASSED\n");
  return 0;
}
