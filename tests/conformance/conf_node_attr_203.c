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

#include "conf_check.h"

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
