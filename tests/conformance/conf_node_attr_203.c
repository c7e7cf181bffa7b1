/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mca-2.0.3 profile: node attributes. An unknown attribute number gives
 * MCAPI_ERR_ATTR_NOTSUPPORTED; a node type other than regular is accepted,
 * and a node initializes with it.
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

static const char *status_name(mcapi_status_t status, char *buf, size_t size)
{
  const char *name = mcapi_display_status(status, buf, size);
  return name ? name : "(not a status code)";
}

/* Any wrong status ends the program with a FAIL line. */
static void check_status(mcapi_status_t got, mcapi_status_t want, const char *what, int line)
{
  if (got != want) {
    char g[MCAPI_MAX_STATUS_SIZE], w[MCAPI_MAX_STATUS_SIZE];
    printf("FAIL %s (line %d): status %s, expected %s\n", what, line, status_name(got, g, sizeof g),
           status_name(want, w, sizeof w));
    fflush(stdout);
    exit(1);
  }
}
#define CHECK(status, want, what) check_status((status), (want), (what), __LINE__)

/* Any wrong data ends the program with a FAIL line. */
#define EXPECT(cond, ...)                                                                          \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      printf("FAIL line %d: ", __LINE__);                                                          \
      printf(__VA_ARGS__);                                                                         \
      printf("\n");                                                                                \
      fflush(stdout);                                                                              \
      exit(1);                                                                                     \
    }                                                                                              \
  } while (0)

static void watchdog(int sig)
{
  static const char msg[] = "FAIL watchdog: the program did not finish within 30 s\n";
  (void)sig;
  if (write(1, msg, sizeof msg - 1) < 0)
    _exit(3);
  _exit(2);
}
#define START_WATCHDOG() (signal(SIGALRM, watchdog), alarm(30))

#define NODE 1

int main(void)
{
  mcapi_status_t status;
  mcapi_info_t info;
  mcapi_node_attributes_t node_attrs;
  /* The reference declares the value as mcapi_node_attr_type_t, an unsigned
   * integer (that name is checked by conf_headers); mcapi_uint_t is the same type. */
  mcapi_uint_t attr = 1;

  START_WATCHDOG();
  mcapi_node_init_attributes(&node_attrs, &status);
  CHECK(status, MCAPI_SUCCESS, "node_init_attributes");
  mcapi_node_set_attribute(&node_attrs, 92, &attr, sizeof attr, &status);
  CHECK(status, MCAPI_ERR_ATTR_NOTSUPPORTED, "node_set_attribute of attribute 92");
  mcapi_node_set_attribute(&node_attrs, MCAPI_NODE_ATTR_TYPE, &attr, sizeof attr, &status);
  CHECK(status, MCAPI_SUCCESS, "node_set_attribute of the node type to 1");
  mcapi_initialize(DOMAIN, NODE, &node_attrs, &parms, &info, &status);
  CHECK(status, MCAPI_SUCCESS, "initialize with node type 1");
  mcapi_finalize(&status);
  CHECK(status, MCAPI_SUCCESS, "finalize");
  printf("node_attr_203: PASSED\n");
  return 0;
}
