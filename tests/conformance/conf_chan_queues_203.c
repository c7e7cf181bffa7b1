/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * As the reference's pkt3 and scl1: one node, eight endpoints (named and
 * anonymous), four packet channels connected and opened, ten packets sent on
 * each before any is received, then received in order and released, the
 * channels closed; then the same endpoints carry messages again. On the pmq
 * transport every queue draws on the user's RLIMIT_MSGQUEUE: a connected
 * endpoint, which carries no message, gives its queue up, so the program
 * needs eight queues at once, not twelve (with queues of 64 messages of 1024
 * bytes, twelve exceed the default 819200 bytes). pmq_run.sh skips it where
 * fs.mqueue.msg_max gives queues of fewer than ten messages.
 */
#include <mcapi.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DOMAIN 1
#define NODE 1
#define NUM_CHANS 4
#define NUM_PACKETS 10

static mcapi_param_t
    parms; /* never set by the program (reference programs pass one they never set) */

#include "conf_check.h"

static const char *msg[NUM_PACKETS] = {"zero", "one", "two",   "three", "four",
                                       "five", "six", "seven", "eight", "nine"};

/* A non-blocking call's request, tested until it completes (as the reference's programs do). */
static void complete(mcapi_request_t *request, mcapi_status_t status, const char *what)
{
  size_t size;
  while (status == MCAPI_SUCCESS && !mcapi_test(request, &size, &status)) {
  }
  CHECK(status, MCAPI_SUCCESS, what);
}

int main(void)
{
  mcapi_status_t status;
  mcapi_info_t info;
  mcapi_request_t request;
  mcapi_endpoint_t ep[2 * NUM_CHANS];
  mcapi_pktchan_send_hndl_t sh[NUM_CHANS];
  mcapi_pktchan_recv_hndl_t rh[NUM_CHANS];
  size_t size;

  START_WATCHDOG();
  mcapi_initialize(DOMAIN, NODE, NULL, &parms, &info, &status);
  CHECK(status, MCAPI_SUCCESS, "initialize");
  for (int i = 0; i < 2 * NUM_CHANS; i++) {
    ep[i] = mcapi_endpoint_create(i % 2 ? MCAPI_PORT_ANY : (mcapi_port_t)(100 * (i + 1)), &status);
    CHECK(status, MCAPI_SUCCESS, "endpoint_create");
  }
  for (int c = 0; c < NUM_CHANS; c++) {
    mcapi_pktchan_connect_i(ep[2 * c], ep[2 * c + 1], &request, &status);
    complete(&request, status, "pktchan_connect_i");
  }
  for (int c = 0; c < NUM_CHANS; c++) {
    mcapi_pktchan_recv_open_i(&rh[c], ep[2 * c + 1], &request, &status);
    complete(&request, status, "pktchan_recv_open_i");
  }
  for (int c = 0; c < NUM_CHANS; c++) {
    mcapi_pktchan_send_open_i(&sh[c], ep[2 * c], &request, &status);
    complete(&request, status, "pktchan_send_open_i");
  }
  for (int i = 0; i < NUM_PACKETS; i++)
    for (int c = 0; c < NUM_CHANS; c++) {
      mcapi_pktchan_send_i(sh[c], msg[i], strlen(msg[i]) + 1, &request, &status);
      complete(&request, status, "pktchan_send_i before any receive");
    }
  for (int i = 0; i < NUM_PACKETS; i++)
    for (int c = 0; c < NUM_CHANS; c++) {
      char *p = NULL;
      mcapi_pktchan_recv_i(rh[c], (void **)&p, &request, &status);
      CHECK(status, MCAPI_SUCCESS, "pktchan_recv_i");
      EXPECT(mcapi_test(&request, &size, &status), "receive did not complete at once");
      CHECK(status, MCAPI_SUCCESS, "pktchan_recv_i's request");
      EXPECT(p && size == strlen(msg[i]) + 1 && !strcmp(p, msg[i]), "channel %d packet %d", c, i);
      mcapi_pktchan_release(p, &status);
      CHECK(status, MCAPI_SUCCESS, "pktchan_release");
    }
  for (int c = 0; c < NUM_CHANS; c++) {
    mcapi_pktchan_recv_close_i(rh[c], &request, &status);
    complete(&request, status, "pktchan_recv_close_i");
    mcapi_pktchan_send_close_i(sh[c], &request, &status);
    complete(&request, status, "pktchan_send_close_i");
  }
  /* Message endpoints again, each pair both ways. */
  for (int c = 0; c < NUM_CHANS; c++)
    for (int k = 0; k < 2; k++) {
      char buf[16];
      mcapi_endpoint_t from = ep[2 * c + k], to = ep[2 * c + !k];
      mcapi_msg_send(from, to, msg[c], strlen(msg[c]) + 1, 1, &status);
      CHECK(status, MCAPI_SUCCESS, "msg_send after the channel's close");
      EXPECT(mcapi_msg_available(to, &status) == 1, "msg_available");
      mcapi_msg_recv(to, buf, sizeof buf, &size, &status);
      CHECK(status, MCAPI_SUCCESS, "msg_recv after the channel's close");
      EXPECT(size == strlen(msg[c]) + 1 && !strcmp(buf, msg[c]), "message \"%s\"", buf);
    }
  mcapi_finalize(&status);
  CHECK(status, MCAPI_SUCCESS, "finalize");
  return 0;
}
