/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mca-2.0.3 profile: a released packet buffer is zeroed. Programs compare
 * packets with strcmp, also packets sent without their NUL.
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
  mcapi_pktchan_send_open_i(sh, s, &rs, &status);
  EXPECT(status == MCAPI_SUCCESS || status == MCAPI_PENDING, "pktchan_send_open_i status %u",
         (unsigned)status);
  mcapi_pktchan_recv_open_i(rh, r, &rr, &status);
  EXPECT(status == MCAPI_SUCCESS || status == MCAPI_PENDING, "pktchan_recv_open_i status %u",
         (unsigned)status);
  mcapi_wait(&rs, &size, CONF_WAIT_MS, &status);
  CHECK(status, MCAPI_SUCCESS, "send side open");
  mcapi_wait(&rr, &size, CONF_WAIT_MS, &status);
  CHECK(status, MCAPI_SUCCESS, "receive side open");
}

int main(void)
{
  mcapi_status_t status;
  mcapi_info_t info;
  mcapi_pktchan_send_hndl_t sh;
  mcapi_pktchan_recv_hndl_t rh;
  void *buf;
  size_t size;
  char copy[32];

  START_WATCHDOG();
  mcapi_initialize(DOMAIN, NODE, NULL, &parms, &info, &status);
  CHECK(status, MCAPI_SUCCESS, "initialize");
  mcapi_endpoint_t s = mcapi_endpoint_create(1, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create");
  mcapi_endpoint_t r = mcapi_endpoint_create(2, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create");
  open_packet_channel(s, r, &sh, &rh);

  mcapi_pktchan_send(sh, "hello world", 12, &status);
  CHECK(status, MCAPI_SUCCESS, "pktchan_send");
  mcapi_pktchan_recv(rh, &buf, &size, &status);
  CHECK(status, MCAPI_SUCCESS, "pktchan_recv");
  EXPECT(size == 12 && strcmp((char *)buf, "hello world") == 0, "received '%s'", (char *)buf);
  memcpy(copy, buf, size);
  unsigned char *old = buf;
  mcapi_pktchan_release(buf, &status);
  CHECK(status, MCAPI_SUCCESS, "pktchan_release");
  for (size_t i = 0; i < size; i++)
    EXPECT(old[i] == 0, "released buffer byte %zu is %#x, expected 0", i, old[i]);
  EXPECT(strcmp(copy, "hello world") == 0, "the copy changed");

  /* Packets sent without their NUL still compare equal. */
  const char *words[] = {"hi", "hello", "hey"};
  for (int i = 0; i < 3; i++) {
    mcapi_pktchan_send(sh, words[i], strlen(words[i]), &status);
    CHECK(status, MCAPI_SUCCESS, "pktchan_send");
    mcapi_pktchan_recv(rh, &buf, &size, &status);
    CHECK(status, MCAPI_SUCCESS, "pktchan_recv");
    EXPECT(size == strlen(words[i]) && strcmp((char *)buf, words[i]) == 0,
           "packet '%s' sent without NUL did not compare equal", words[i]);
    mcapi_pktchan_release(buf, &status);
    CHECK(status, MCAPI_SUCCESS, "pktchan_release");
  }

  mcapi_finalize(&status);
  CHECK(status, MCAPI_SUCCESS, "finalize");
  printf("release_zero_203: PASSED\n");
  return 0;
}
