/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * As the reference's endpoints1 and endpoints2: a node creates
 * MCAPI_MAX_ENDPOINTS endpoints, all succeed; one more fails with
 * MCAPI_ERR_ENDP_LIMIT, a port in use with MCAPI_ERR_ENDP_EXISTS; a lookup
 * finds one of them, whose MCAPI_ENDP_ATTR_NUM_RECV_BUFFERS reads
 * MCAPI_MAX_QUEUE_ELEMENTS + 1 (the reference's count). Messages still flow
 * between two of them, and between an endpoint deleted and created again.
 * On the pmq transport in this profile an endpoint's queue is made by its
 * first use, so creating them does not depend on RLIMIT_MSGQUEUE: 32 queues
 * of 64 messages of 1024 bytes would need 2,293,760 bytes of its 819,200.
 */
#include <mca_config.h>
#include <mcapi.h>
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

static void send_recv(mcapi_endpoint_t from, mcapi_endpoint_t to, const char *text)
{
  mcapi_status_t status;
  char buf[64];
  size_t size = 0;
  mcapi_msg_send(from, to, text, strlen(text) + 1, 1, &status);
  CHECK(status, MCAPI_SUCCESS, "msg_send");
  mcapi_msg_recv(to, buf, sizeof buf, &size, &status);
  CHECK(status, MCAPI_SUCCESS, "msg_recv");
  EXPECT(size == strlen(text) + 1 && !strcmp(buf, text), "received \"%s\", expected \"%s\"", buf, text);
}

int main(void)
{
  mcapi_status_t status;
  mcapi_info_t info;
  mcapi_endpoint_t ep[MCAPI_MAX_ENDPOINTS];

  START_WATCHDOG();
  mcapi_initialize(DOMAIN, NODE, NULL, &parms, &info, &status);
  CHECK(status, MCAPI_SUCCESS, "initialize");
  for (int i = 0; i < MCAPI_MAX_ENDPOINTS; i++) {
    ep[i] = mcapi_endpoint_create((mcapi_port_t)i, &status);
    if (status != MCAPI_SUCCESS)
      printf("endpoint %d of %d:\n", i + 1, MCAPI_MAX_ENDPOINTS);
    CHECK(status, MCAPI_SUCCESS, "endpoint_create");
  }
  mcapi_endpoint_create(115, &status);
  CHECK(status, MCAPI_ERR_ENDP_LIMIT, "endpoint_create past MCAPI_MAX_ENDPOINTS");
  mcapi_endpoint_create(0, &status);
  CHECK(status, MCAPI_ERR_ENDP_EXISTS, "endpoint_create on a port in use");
  mcapi_endpoint_t got = mcapi_endpoint_get(DOMAIN, NODE, 10, MCA_INFINITE, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_get");
  EXPECT(got == ep[10], "endpoint_get found another endpoint");
  int buffers = -1;
  mcapi_endpoint_get_attribute(got, MCAPI_ENDP_ATTR_NUM_RECV_BUFFERS, &buffers, sizeof buffers, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_get_attribute");
  EXPECT(buffers == MCAPI_MAX_QUEUE_ELEMENTS + 1, "NUM_RECV_BUFFERS %d, expected %d", buffers,
         MCAPI_MAX_QUEUE_ELEMENTS + 1);

  send_recv(ep[0], ep[1], "first");
  send_recv(ep[1], ep[0], "back");
  mcapi_endpoint_delete(ep[1], &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_delete");
  ep[1] = mcapi_endpoint_create(1, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create after a delete");
  send_recv(ep[0], ep[1], "again");
  send_recv(ep[MCAPI_MAX_ENDPOINTS - 1], ep[1], "last");

  mcapi_finalize(&status);
  CHECK(status, MCAPI_SUCCESS, "finalize");
  return 0;
}
