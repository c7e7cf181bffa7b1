/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Spec profile: a cancelled channel open leaves its endpoint as before the
 * open. An endpoint not connected is a message endpoint again (it sends and
 * is deleted); a connected endpoint's side is connected and not open again
 * (it is deleted, or opens once more and carries packets), for packet and
 * scalar channels alike.
 */
#include <mcapi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DOMAIN 1
#define NODE 1

static mcapi_param_t parms; /* never set by the program, as the reference's programs */

#include "conf_check.h"
#include "conf_chan.h"

static void cancel_pending_open(mcapi_endpoint_t ep, int pkt, int send, const char *what)
{
  mcapi_status_t status;
  mcapi_request_t r;
  uint32_t h;
  size_t size;
  conf_open(&h, ep, pkt, send, &r, &status);
  CHECK(status, MCAPI_PENDING, what);
  EXPECT(!mcapi_test(&r, &size, &status), "%s: the open completed with no peer open", what);
  mcapi_cancel(&r, &status);
  CHECK(status, MCAPI_SUCCESS, "cancel of the pending open");
}

int main(void)
{
  mcapi_status_t status;
  mcapi_info_t info;
  mcapi_request_t r1, r2;
  size_t size;
  START_WATCHDOG();
  mcapi_initialize(DOMAIN, NODE, NULL, &parms, &info, &status);
  CHECK(status, MCAPI_SUCCESS, "initialize");

  for (int pkt = 1; pkt >= 0; pkt--) {
    /* Not connected: the cancelled open leaves a message endpoint. */
    mcapi_endpoint_t a = mcapi_endpoint_create(1, &status);
    CHECK(status, MCAPI_SUCCESS, "endpoint_create");
    mcapi_endpoint_t b = mcapi_endpoint_create(2, &status);
    CHECK(status, MCAPI_SUCCESS, "endpoint_create");
    cancel_pending_open(a, pkt, 1, "open of an endpoint not connected");
    mcapi_msg_send(a, b, "msg", 4, 0, &status);
    CHECK(status, MCAPI_SUCCESS, "message send after the cancelled open");
    char buf[8];
    mcapi_msg_recv(b, buf, sizeof buf, &size, &status);
    CHECK(status, MCAPI_SUCCESS, "message receive");
    EXPECT(size == 4 && !strcmp(buf, "msg"), "received %zu bytes", size);
    mcapi_endpoint_delete(a, &status);
    CHECK(status, MCAPI_SUCCESS, "delete after the cancelled open");

    /* Connected: the cancelled open leaves the side connected, not open. */
    a = mcapi_endpoint_create(1, &status);
    CHECK(status, MCAPI_SUCCESS, "endpoint_create");
    conf_connect(a, b, pkt);
    cancel_pending_open(b, pkt, 0, "receive-side open, sender not open");
    /* It opens again, and with the sender open the channel carries data. */
    uint32_t sh, rh;
    conf_open_both(a, b, pkt, &sh, &rh);
    if (pkt) {
      void *p;
      mcapi_pktchan_send(sh, "pkt", 4, &status);
      CHECK(status, MCAPI_SUCCESS, "pktchan_send");
      mcapi_pktchan_recv(rh, &p, &size, &status);
      CHECK(status, MCAPI_SUCCESS, "pktchan_recv");
      EXPECT(size == 4 && !strcmp(p, "pkt"), "received %zu bytes", size);
      mcapi_pktchan_release(p, &status);
      CHECK(status, MCAPI_SUCCESS, "pktchan_release");
      mcapi_pktchan_send_close_i(sh, &r1, &status);
      mcapi_pktchan_recv_close_i(rh, &r2, &status);
    } else {
      mcapi_sclchan_send_uint32(sh, 77, &status);
      CHECK(status, MCAPI_SUCCESS, "sclchan_send");
      uint32_t v = mcapi_sclchan_recv_uint32(rh, &status);
      CHECK(status, MCAPI_SUCCESS, "sclchan_recv");
      EXPECT(v == 77, "received %u", v);
      mcapi_sclchan_send_close_i(sh, &r1, &status);
      mcapi_sclchan_recv_close_i(rh, &r2, &status);
    }
    mcapi_wait(&r1, &size, CONF_WAIT_MS, &status);
    CHECK(status, MCAPI_SUCCESS, "send-side close");
    mcapi_wait(&r2, &size, CONF_WAIT_MS, &status);
    CHECK(status, MCAPI_SUCCESS, "receive-side close");

    /* Connected again, the sender's open cancelled: the sender is deleted. */
    conf_connect(a, b, pkt);
    cancel_pending_open(a, pkt, 1, "send-side open, receiver not open");
    mcapi_endpoint_delete(a, &status);
    CHECK(status, MCAPI_SUCCESS, "delete of a connected endpoint after its cancelled open");
    mcapi_endpoint_delete(b, &status);
    CHECK(status, MCAPI_SUCCESS, "delete of its peer");
  }
  mcapi_finalize(&status);
  CHECK(status, MCAPI_SUCCESS, "finalize");
  printf("PASS\n");
  return 0;
}
