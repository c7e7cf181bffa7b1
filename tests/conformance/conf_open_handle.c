/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A channel side's handle is written as soon as the channel is known: an
 * open of a connected endpoint writes it at the call, while the open waits
 * for the peer's, with the value its completion gives (MCAPI 1.0 code
 * written for OpenMCAPI uses it before the open completes). Packet and
 * scalar channels, either side first; one node, both sides.
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
#define SENTINEL 0xdeadbeefu

/* Connects ports @p sp -> @p rp (packet or scalar), opens side @p first, checks
 * its handle is there at once, opens the other, and checks both handles once
 * the opens complete. */
static void one(mcapi_port_t sp, mcapi_port_t rp, int pkt, int send_first)
{
  mcapi_status_t status;
  mcapi_request_t r1, r2;
  size_t size;
  mcapi_endpoint_t s = mcapi_endpoint_create(sp, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create");
  mcapi_endpoint_t r = mcapi_endpoint_create(rp, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create");
  conf_connect(s, r, pkt);
  uint32_t h1 = SENTINEL, h2 = SENTINEL;
  conf_open(&h1, send_first ? s : r, pkt, send_first, &r1, &status);
  EXPECT(status == MCAPI_SUCCESS || status == MCAPI_PENDING, "first open: status %u",
         (unsigned)status);
  EXPECT(h1 != SENTINEL, "%s %s side: no handle at the open call", pkt ? "packet" : "scalar",
         send_first ? "send" : "receive");
  uint32_t early = h1;
  /* While it waits for the peer's open (the mca-2.0.3 profile completes it
   * at once, as the reference), a send on the side says so. */
  int done1 = mcapi_test(&r1, &size, &status);
  if (done1)
    CHECK(status, MCAPI_SUCCESS, "first open completes");
  else if (send_first) {
    if (pkt)
      mcapi_pktchan_send(h1, "x", 1, &status);
    else
      mcapi_sclchan_send_uint8(h1, 1, &status);
    CHECK(status, MCAPI_ERR_CHAN_OPENPENDING, "a send before the open completes");
  }
  conf_open(&h2, send_first ? r : s, pkt, !send_first, &r2, &status);
  EXPECT(status == MCAPI_SUCCESS || status == MCAPI_PENDING, "second open: status %u",
         (unsigned)status);
  if (!done1) {
    mcapi_wait(&r1, &size, CONF_WAIT_MS, &status);
    CHECK(status, MCAPI_SUCCESS, "first open completes");
  }
  mcapi_wait(&r2, &size, CONF_WAIT_MS, &status);
  CHECK(status, MCAPI_SUCCESS, "second open completes");
  EXPECT(h1 == early, "handle %#x at the call, %#x once open", (unsigned)early, (unsigned)h1);
  EXPECT(h2 != SENTINEL, "no handle for the second side");
  /* The handles carry data. */
  uint32_t sh = send_first ? h1 : h2, rh = send_first ? h2 : h1;
  if (pkt) {
    void *buf;
    mcapi_pktchan_send(sh, "early", 6, &status);
    CHECK(status, MCAPI_SUCCESS, "pktchan_send");
    mcapi_pktchan_recv(rh, &buf, &size, &status);
    CHECK(status, MCAPI_SUCCESS, "pktchan_recv");
    EXPECT(size == 6 && !strcmp(buf, "early"), "received %zu bytes", size);
    mcapi_pktchan_release(buf, &status);
    CHECK(status, MCAPI_SUCCESS, "pktchan_release");
  } else {
    mcapi_sclchan_send_uint32(sh, 0x1234567u, &status);
    CHECK(status, MCAPI_SUCCESS, "sclchan_send_uint32");
    mcapi_uint32_t v = mcapi_sclchan_recv_uint32(rh, &status);
    CHECK(status, MCAPI_SUCCESS, "sclchan_recv_uint32");
    EXPECT(v == 0x1234567u, "received %#x", (unsigned)v);
  }
}

int main(void)
{
  mcapi_status_t status;
  mcapi_info_t info;
  START_WATCHDOG();
  mcapi_initialize(DOMAIN, NODE, NULL, &parms, &info, &status);
  CHECK(status, MCAPI_SUCCESS, "initialize");
  one(1, 2, 1, 1);
  one(3, 4, 1, 0);
  one(5, 6, 0, 1);
  one(7, 8, 0, 0);
  mcapi_finalize(&status);
  CHECK(status, MCAPI_SUCCESS, "finalize");
  printf("open_handle: PASSED\n");
  return 0;
}
