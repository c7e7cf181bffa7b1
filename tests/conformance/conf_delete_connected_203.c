/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Both profiles (conf_delete_connected_203, conf_delete_connected_spec): an
 * endpoint whose channel is connected but whose side is not open (never
 * opened, or closed) can be deleted, as with the reference (only an open
 * side refuses, MCAPI_ERR_CHAN_OPEN); it leaves its channel as at finalize,
 * so its peer is then free to connect again, and an open peer's sends say
 * MCAPI_ERR_CHAN_NOTOPEN.
 */
#include <mcapi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DOMAIN 1

static mcapi_param_t
    parms; /* never set by the program (reference programs pass one they never set) */

#include "conf_check.h"
#include "conf_chan.h"

#define NODE 1

int main(void)
{
  mcapi_status_t status;
  mcapi_info_t info;
  mcapi_request_t r1, r2;
  size_t size;
  START_WATCHDOG();
  mcapi_initialize(DOMAIN, NODE, NULL, &parms, &info, &status);
  CHECK(status, MCAPI_SUCCESS, "initialize");
  mcapi_endpoint_t a = mcapi_endpoint_create(1, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create");
  mcapi_endpoint_t b = mcapi_endpoint_create(2, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create");
  mcapi_endpoint_t c = mcapi_endpoint_create(3, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create");

  /* Connected, never opened: the sender is deleted. */
  conf_connect(a, b, 1);
  mcapi_endpoint_delete(a, &status);
  CHECK(status, MCAPI_SUCCESS, "delete of a connected, unopened endpoint");
  {
    /* Its peer is free: connected again, opened, it carries packets. */
    conf_connect(c, b, 1);
    mcapi_pktchan_send_hndl_t sh;
    mcapi_pktchan_recv_hndl_t rh;
    conf_open_both(c, b, 1, &sh, &rh);
    void *buf;
    mcapi_pktchan_send(sh, "again", 6, &status);
    CHECK(status, MCAPI_SUCCESS, "pktchan_send");
    mcapi_pktchan_recv(rh, &buf, &size, &status);
    CHECK(status, MCAPI_SUCCESS, "pktchan_recv");
    EXPECT(size == 6 && !strcmp(buf, "again"), "received %zu bytes", size);
    mcapi_pktchan_release(buf, &status);
    CHECK(status, MCAPI_SUCCESS, "pktchan_release");
    /* An open side refuses; once closed, it is deleted. */
    mcapi_endpoint_delete(b, &status);
    CHECK(status, MCAPI_ERR_CHAN_OPEN, "delete of an open side");
    mcapi_pktchan_recv_close_i(rh, &r2, &status);
    mcapi_wait(&r2, &size, CONF_WAIT_MS, &status);
    CHECK(status, MCAPI_SUCCESS, "receive side close");
    mcapi_endpoint_delete(b, &status);
    CHECK(status, MCAPI_SUCCESS, "delete of a closed side whose peer is still open");
    mcapi_pktchan_send(sh, "x", 2, &status);
    CHECK(status, MCAPI_ERR_CHAN_NOTOPEN, "a send to a deleted receiver");
    mcapi_pktchan_send_close_i(sh, &r1, &status);
    mcapi_wait(&r1, &size, CONF_WAIT_MS, &status);
    CHECK(status, MCAPI_SUCCESS, "send side close");
    mcapi_endpoint_delete(c, &status);
    CHECK(status, MCAPI_SUCCESS, "delete after the close");
  }
  /* Scalar channels alike: the receiver deleted before any open. */
  mcapi_endpoint_t s2 = mcapi_endpoint_create(4, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create");
  mcapi_endpoint_t r3 = mcapi_endpoint_create(5, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create");
  conf_connect(s2, r3, 0);
  mcapi_endpoint_delete(r3, &status);
  CHECK(status, MCAPI_SUCCESS, "delete of a connected scalar receiver");
  /* Its sender is free: connected to a new receiver, it carries scalars. */
  mcapi_endpoint_t r4 = mcapi_endpoint_create(6, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create");
  conf_connect(s2, r4, 0);
  mcapi_sclchan_send_hndl_t ssh;
  mcapi_sclchan_recv_hndl_t srh;
  conf_open_both(s2, r4, 0, &ssh, &srh);
  mcapi_sclchan_send_uint32(ssh, 42, &status);
  CHECK(status, MCAPI_SUCCESS, "sclchan_send_uint32");
  mcapi_uint32_t v = mcapi_sclchan_recv_uint32(srh, &status);
  CHECK(status, MCAPI_SUCCESS, "sclchan_recv_uint32");
  EXPECT(v == 42, "received %u", (unsigned)v);

  mcapi_finalize(&status);
  CHECK(status, MCAPI_SUCCESS, "finalize");
  printf("delete_connected: PASSED\n");
  return 0;
}
