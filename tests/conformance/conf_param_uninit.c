/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Init parameters the program never initialized. Reference programs pass a
 * mcapi_param_t from the stack that they never set (in the reference it is an
 * ignored integer): garbage there must not make mcapi_initialize fail nor
 * change the domain's locking mode, profile, transport or sizes. Parameters
 * count only when mcx_param_init() prepared them.
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

#define DOMAIN_GARBAGE 1
#define DOMAIN_PARAM 2
#define MAIN_NODE 1
#define JOIN_NODE 2
#define PORT_A 1
#define PORT_B 2
#define PORT_JOIN 3

static mcx_locking_t expected_locking(void)
{
  const char *e = getenv("MCX_LOCKING");
  return e && strcmp(e, "global") == 0 ? MCX_LOCKING_GLOBAL : MCX_LOCKING_LOCKFREE;
}

static mcx_compat_t expected_compat(void)
{
  const char *e = getenv("MCX_COMPAT");
  return e && strcmp(e, "mca-2.0.3") == 0 ? MCX_COMPAT_MCA203 : MCX_COMPAT_SPEC;
}

static mcx_transport_t expected_transport(void)
{
  const char *e = getenv("MCX_TRANSPORT");
  return e && strcmp(e, "pmq") == 0 ? MCX_TRANSPORT_PMQ : MCX_TRANSPORT_SHM;
}

/* A second node joins with garbage parameters of another pattern and sends one message. */
static void *joiner(void *arg)
{
  mcapi_domain_t domain = *(mcapi_domain_t *)arg;
  mcapi_param_t garbage;
  mcapi_status_t status;
  mcapi_info_t info;
  memset(&garbage, 0x5A, sizeof garbage);
  mcapi_initialize(domain, JOIN_NODE, NULL, &garbage, &info, &status);
  CHECK(status, MCAPI_SUCCESS, "second node initialize with uninitialized parameters");
  mcapi_endpoint_t me = mcapi_endpoint_create(PORT_JOIN, &status);
  CHECK(status, MCAPI_SUCCESS, "second node endpoint_create");
  mcapi_endpoint_t to =
      mcapi_endpoint_get(domain, MAIN_NODE, PORT_B, MCAPI_TIMEOUT_INFINITE, &status);
  CHECK(status, MCAPI_SUCCESS, "second node endpoint_get");
  mcapi_msg_send(me, to, "joined", 7, 1, &status);
  CHECK(status, MCAPI_SUCCESS, "second node msg_send");
  /* Stay a node until the main node has the message. */
  char go[8];
  size_t n;
  mcapi_msg_recv(me, go, sizeof go, &n, &status);
  CHECK(status, MCAPI_SUCCESS, "second node msg_recv");
  mcapi_finalize(&status);
  CHECK(status, MCAPI_SUCCESS, "second node finalize");
  return NULL;
}

/* Messages work with the default sizes: a full default queue and a largest message. */
static void exchange(mcapi_domain_t domain)
{
  mcapi_status_t status;
  mcapi_boolean_t fail = MCAPI_TRUE;
  size_t n;
  char buf[64];
  pthread_t t;

  mcapi_endpoint_t a = mcapi_endpoint_create(PORT_A, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create A");
  mcapi_endpoint_t b = mcapi_endpoint_create(PORT_B, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create B");
  mcapi_endpoint_set_attribute(a, MCAPI_ENDP_ATTR_FAIL_ON_MEM_LIMIT, &fail, sizeof fail, &status);
  CHECK(status, MCAPI_SUCCESS, "set FAIL_ON_MEM_LIMIT");
  for (int i = 0; i < MCAPI_MAX_QUEUE_ELEMENTS; i++) {
    int len = snprintf(buf, sizeof buf, "message %d", i);
    mcapi_msg_send(a, b, buf, (size_t)len + 1, 1, &status);
    if (status != MCAPI_SUCCESS)
      printf("message %d of a default-sized queue (%d):\n", i, MCAPI_MAX_QUEUE_ELEMENTS);
    CHECK(status, MCAPI_SUCCESS, "msg_send");
  }
  for (int i = 0; i < MCAPI_MAX_QUEUE_ELEMENTS; i++) {
    char want[64];
    snprintf(want, sizeof want, "message %d", i);
    mcapi_msg_recv(b, buf, sizeof buf, &n, &status);
    CHECK(status, MCAPI_SUCCESS, "msg_recv");
    EXPECT(n == strlen(want) + 1 && strcmp(buf, want) == 0, "received '%s', expected '%s'", buf,
           want);
  }
  char *big = malloc(MCAPI_MAX_MSG_SIZE);
  char *back = malloc(MCAPI_MAX_MSG_SIZE);
  EXPECT(big && back, "out of memory");
  for (int i = 0; i < MCAPI_MAX_MSG_SIZE; i++)
    big[i] = (char)(i * 13);
  mcapi_msg_send(a, b, big, MCAPI_MAX_MSG_SIZE, 1, &status);
  CHECK(status, MCAPI_SUCCESS, "msg_send of MCAPI_MAX_MSG_SIZE bytes");
  mcapi_msg_recv(b, back, MCAPI_MAX_MSG_SIZE, &n, &status);
  CHECK(status, MCAPI_SUCCESS, "msg_recv of MCAPI_MAX_MSG_SIZE bytes");
  EXPECT(n == MCAPI_MAX_MSG_SIZE && memcmp(big, back, n) == 0,
         "largest message came back wrong (%zu bytes)", n);
  free(big);
  free(back);

  pthread_create(&t, NULL, joiner, &domain);
  mcapi_msg_recv(b, buf, sizeof buf, &n, &status);
  CHECK(status, MCAPI_SUCCESS, "msg_recv from the second node");
  EXPECT(strcmp(buf, "joined") == 0, "received '%s' from the second node", buf);
  mcapi_endpoint_t j =
      mcapi_endpoint_get(domain, JOIN_NODE, PORT_JOIN, MCAPI_TIMEOUT_INFINITE, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_get of the second node");
  mcapi_msg_send(a, j, "bye", 4, 1, &status);
  CHECK(status, MCAPI_SUCCESS, "msg_send to the second node");
  pthread_join(t, NULL);
}

int main(void)
{
  mcapi_param_t garbage; /* as an uninitialized stack variable */
  mcapi_param_t p;
  mcapi_status_t status;
  mcapi_info_t info;

  START_WATCHDOG();
  memset(&garbage, 0xA5, sizeof garbage);
  mcapi_initialize(DOMAIN_GARBAGE, MAIN_NODE, NULL, &garbage, &info, &status);
  CHECK(status, MCAPI_SUCCESS, "initialize with uninitialized parameters");
  EXPECT(mcx_locking() == expected_locking(), "locking mode %d, expected %d (the default)",
         (int)mcx_locking(), (int)expected_locking());
  EXPECT(mcx_compat() == expected_compat(), "profile %d, expected %d (the default)",
         (int)mcx_compat(), (int)expected_compat());
  EXPECT(mcx_transport() == expected_transport(), "transport %d, expected %d (the default)",
         (int)mcx_transport(), (int)expected_transport());
  exchange(DOMAIN_GARBAGE);
  mcapi_finalize(&status);
  CHECK(status, MCAPI_SUCCESS, "finalize");

  /* Parameters prepared by mcx_param_init() do count. */
  mcx_param_init(&p);
  p.locking = MCX_LOCKING_GLOBAL;
  mcapi_initialize(DOMAIN_PARAM, MAIN_NODE, NULL, &p, &info, &status);
  CHECK(status, MCAPI_SUCCESS, "initialize with mcx_param_init parameters");
  EXPECT(mcx_locking() == MCX_LOCKING_GLOBAL, "locking mode %d, expected MCX_LOCKING_GLOBAL (%d)",
         (int)mcx_locking(), (int)MCX_LOCKING_GLOBAL);
  exchange(DOMAIN_PARAM); /* the second node's garbage must not ask for another locking mode */
  mcapi_finalize(&status);
  CHECK(status, MCAPI_SUCCESS, "finalize");
  (void)parms;
  printf("param_uninit: PASSED\n");
  return 0;
}
