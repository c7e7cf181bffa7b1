/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mca-2.0.3 profile: a channel handle is numerically the local endpoint's
 * handle; the endpoint handle works in channel sends and receives; the
 * handle stays valid after a close, so a second close reports
 * MCAPI_ERR_CHAN_NOTOPEN.
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

/* One node opens both sides: send side first, so the open works whether or not opens synchronize.
 */
static void open_packet_channel(mcapi_endpoint_t s, mcapi_endpoint_t r,
                                mcapi_pktchan_send_hndl_t *sh, mcapi_pktchan_recv_hndl_t *rh)
{
  mcapi_status_t status;
  mcapi_request_t rc, rs, rr;
  size_t size;
  mcapi_pktchan_connect_i(s, r, &rc, &status);
  EXPECT(status == MCAPI_SUCCESS || status == MCAPI_PENDING, "pktchan_connect_i status %u",
         (unsigned)status);
  mcapi_wait(&rc, &size, CONF_WAIT_MS, &status);
  CHECK(status, MCAPI_SUCCESS, "connect");
  /* The handles are filled in at the calls, as the reference does: a
   * program may read them before the opens complete. */
  *sh = *rh = 0xdeadbeef;
  mcapi_pktchan_send_open_i(sh, s, &rs, &status);
  EXPECT(status == MCAPI_SUCCESS || status == MCAPI_PENDING, "pktchan_send_open_i status %u",
         (unsigned)status);
  EXPECT(*sh == s, "send handle %#x at the open call, expected the endpoint's %#x", (unsigned)*sh,
         (unsigned)s);
  mcapi_pktchan_recv_open_i(rh, r, &rr, &status);
  EXPECT(status == MCAPI_SUCCESS || status == MCAPI_PENDING, "pktchan_recv_open_i status %u",
         (unsigned)status);
  EXPECT(*rh == r, "receive handle %#x at the open call, expected the endpoint's %#x",
         (unsigned)*rh, (unsigned)r);
  mcapi_wait(&rs, &size, CONF_WAIT_MS, &status);
  CHECK(status, MCAPI_SUCCESS, "send side open");
  mcapi_wait(&rr, &size, CONF_WAIT_MS, &status);
  CHECK(status, MCAPI_SUCCESS, "receive side open");
}

int main(void)
{
  mcapi_status_t status;
  mcapi_info_t info;
  mcapi_request_t request;
  mcapi_pktchan_send_hndl_t sh;
  mcapi_pktchan_recv_hndl_t rh;
  void *buf;
  size_t size;

  START_WATCHDOG();
  mcapi_initialize(DOMAIN, NODE, NULL, &parms, &info, &status);
  CHECK(status, MCAPI_SUCCESS, "initialize");
  mcapi_endpoint_t s = mcapi_endpoint_create(1, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create");
  mcapi_endpoint_t r = mcapi_endpoint_create(2, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create");
  open_packet_channel(s, r, &sh, &rh);
  EXPECT(rh == r, "receive handle %#x, expected the receive endpoint's handle %#x", (unsigned)rh,
         (unsigned)r);
  EXPECT(sh == s, "send handle %#x, expected the send endpoint's handle %#x", (unsigned)sh,
         (unsigned)s);

  mcapi_pktchan_send(s, "via endpoint", 13, &status);
  CHECK(status, MCAPI_SUCCESS, "pktchan_send with the send endpoint's handle");
  mcapi_pktchan_recv(r, &buf, &size, &status);
  CHECK(status, MCAPI_SUCCESS, "pktchan_recv with the receive endpoint's handle");
  EXPECT(size == 13 && strcmp((char *)buf, "via endpoint") == 0, "received '%s'", (char *)buf);
  mcapi_pktchan_release(buf, &status);
  CHECK(status, MCAPI_SUCCESS, "pktchan_release");

  mcapi_pktchan_recv_close_i(rh, &request, &status);
  EXPECT(status == MCAPI_SUCCESS || status == MCAPI_PENDING, "pktchan_recv_close_i status %u",
         (unsigned)status);
  mcapi_wait(&request, &size, CONF_WAIT_MS, &status);
  CHECK(status, MCAPI_SUCCESS, "receive side close");
  mcapi_pktchan_recv_close_i(rh, &request, &status);
  CHECK(status, MCAPI_ERR_CHAN_NOTOPEN, "second pktchan_recv_close_i");

  mcapi_pktchan_send_close_i(sh, &request, &status);
  EXPECT(status == MCAPI_SUCCESS || status == MCAPI_PENDING, "pktchan_send_close_i status %u",
         (unsigned)status);
  mcapi_wait(&request, &size, CONF_WAIT_MS, &status);
  CHECK(status, MCAPI_SUCCESS, "send side close");
  mcapi_pktchan_send_close_i(sh, &request, &status);
  CHECK(status, MCAPI_ERR_CHAN_NOTOPEN, "second pktchan_send_close_i");

  /* An open before the connect stays pending (the reference completes an
   * open once the endpoint is connected); its handle is there at once. */
  mcapi_endpoint_t s2 = mcapi_endpoint_create(3, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create");
  mcapi_endpoint_t r2 = mcapi_endpoint_create(4, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create");
  mcapi_request_t rr2, rs2, rc2;
  rh = 0xdeadbeef;
  mcapi_pktchan_recv_open_i(&rh, r2, &rr2, &status);
  EXPECT(status == MCAPI_SUCCESS || status == MCAPI_PENDING, "pktchan_recv_open_i status %u",
         (unsigned)status);
  mcapi_boolean_t done = mcapi_test(&rr2, &size, &status);
  EXPECT(!done, "an open before the connect completed (status %u)", (unsigned)status);
  EXPECT(rh == r2, "receive handle %#x of a pending open, expected the endpoint's %#x",
         (unsigned)rh, (unsigned)r2);
  mcapi_pktchan_connect_i(s2, r2, &rc2, &status);
  mcapi_wait(&rc2, &size, CONF_WAIT_MS, &status);
  CHECK(status, MCAPI_SUCCESS, "connect after the receive side's open");
  mcapi_pktchan_send_open_i(&sh, s2, &rs2, &status);
  mcapi_wait(&rs2, &size, CONF_WAIT_MS, &status);
  CHECK(status, MCAPI_SUCCESS, "send side open");
  mcapi_wait(&rr2, &size, CONF_WAIT_MS, &status);
  CHECK(status, MCAPI_SUCCESS, "receive side open, after the connect");
  EXPECT(rh == r2, "receive handle %#x once open, expected %#x", (unsigned)rh, (unsigned)r2);

  mcapi_finalize(&status);
  CHECK(status, MCAPI_SUCCESS, "finalize");
  printf("chan_handle_203: PASSED\n");
  return 0;
}
