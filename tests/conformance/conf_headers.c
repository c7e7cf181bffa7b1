/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The reference implementation's header names, used as reference-era
 * programs use them: MCAPI_DECL_ALIGNED and MCA_DECL_ALIGNED buffers,
 * mcapi_node_attr_type_t (an unsigned integer type), the channel_type enum,
 * impl_info_t, mcapi_endpt_attributes_t, MAX_NUM_ATTRIBUTES,
 * MCAPI_MAX_ATTRIBUTES, MCAPI_MAX_STATUS_SIZE and mcapi_display_status.
 * Compiled when the test runs, so a missing name fails this test only.
 */
#include <mcapi.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DOMAIN 1

static mcapi_param_t
    parms; /* never set by the program (reference programs pass one they never set) */

#include "conf_check.h"

#define NODE 1

static MCAPI_DECL_ALIGNED char send_buf[64];
static MCA_DECL_ALIGNED char recv_buf[64];
static char status_buff[MCAPI_MAX_STATUS_SIZE];
static mcapi_endpt_attributes_t endpoint_attrs[MAX_NUM_ATTRIBUTES];
static int attribute_slots[MCAPI_MAX_ATTRIBUTES];

int main(void)
{
  mcapi_status_t status;
  mcapi_info_t info;
  mcapi_node_attr_type_t node_type = MCAPI_NODE_ATTR_TYPE_REGULAR;
  channel_type types[3] = {MCAPI_NO_CHAN, MCAPI_PKT_CHAN, MCAPI_SCL_CHAN};
  impl_info_t *impl = NULL;
  size_t n;

  START_WATCHDOG();
  EXPECT((mcapi_node_attr_type_t)-1 > 0, "mcapi_node_attr_type_t is not unsigned");
  EXPECT(sizeof node_type == sizeof(mcapi_uint_t), "mcapi_node_attr_type_t has %zu bytes",
         sizeof node_type);
  EXPECT(types[0] == 0 && types[1] == 1 && types[2] == 2, "channel_type values %d %d %d",
         (int)types[0], (int)types[1], (int)types[2]);
  EXPECT(MAX_NUM_ATTRIBUTES > 0 && MCAPI_MAX_ATTRIBUTES > 0, "attribute counts are not positive");
  EXPECT(mcapi_display_status(MCAPI_SUCCESS, status_buff, MCAPI_MAX_STATUS_SIZE) != NULL &&
             strcmp(status_buff, "MCAPI_SUCCESS") == 0,
         "mcapi_display_status(MCAPI_SUCCESS) gave '%s'", status_buff);
  EXPECT(mcapi_display_status(MCAPI_ERR_SCL_SIZE, status_buff, MCAPI_MAX_STATUS_SIZE) != NULL &&
             strcmp(status_buff, "MCAPI_ERR_SCL_SIZE") == 0,
         "mcapi_display_status(MCAPI_ERR_SCL_SIZE) gave '%s'", status_buff);
  EXPECT((uintptr_t)send_buf % 32 == 0 && (uintptr_t)recv_buf % 32 == 0,
         "aligned buffers are not aligned");

  mcapi_initialize(DOMAIN, NODE, NULL, &parms, &info, &status);
  CHECK(status, MCAPI_SUCCESS, "initialize");
  mcapi_endpoint_t a = mcapi_endpoint_create(1, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create");
  mcapi_endpoint_t b = mcapi_endpoint_create(2, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create");
  strcpy(send_buf, "aligned");
  mcapi_msg_send(a, b, send_buf, strlen(send_buf) + 1, 1, &status);
  CHECK(status, MCAPI_SUCCESS, "msg_send");
  mcapi_msg_recv(b, recv_buf, sizeof recv_buf, &n, &status);
  CHECK(status, MCAPI_SUCCESS, "msg_recv");
  EXPECT(n == 8 && strcmp(recv_buf, "aligned") == 0, "received '%s'", recv_buf);
  mcapi_finalize(&status);
  CHECK(status, MCAPI_SUCCESS, "finalize");
  (void)impl;
  (void)endpoint_attrs;
  (void)attribute_slots;
  printf("headers: PASSED\n");
  return 0;
}
