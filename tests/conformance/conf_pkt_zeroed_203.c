/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * As the reference's pkt3: packets are sent without their terminating NUL
 * (strlen bytes) and the receiver compares them with strcmp, so a buffer
 * handed out by a receive must read as zeros past the packet: the
 * reference's buffers start zeroed and are zeroed again on release. Here on
 * one node, one channel: the first packets land in fresh buffers, later
 * ones in buffers released before (a longer packet first, a shorter after).
 * Before the receive, the process frees heap blocks of the size of a pmq
 * receiver's buffer chunk filled with non-zero bytes, as a process that
 * used its heap first would (the pmq transport's local buffers come from
 * the heap, the shm transport's from the zeroed partition).
 */
#include <mca_config.h>
#include <mcapi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DOMAIN 1
#define NODE 1

static mcapi_param_t
    parms; /* never set by the program (reference programs pass one they never set) */

#include "conf_check.h"

static void await(mcapi_request_t *request, const char *what)
{
  mcapi_status_t status;
  size_t size;
  EXPECT(mcapi_wait(request, &size, CONF_WAIT_MS, &status), "%s did not complete", what);
  CHECK(status, MCAPI_SUCCESS, what);
}

/* Dirty heap: blocks of a receive chunk's size (64 buffers of the largest
 * packet), filled and freed, each kept from the heap's top by a guard. */
static void dirty_heap(void)
{
  enum { N = 3 };
  size_t size = (size_t)64 * MCAPI_MAX_PKT_SIZE + 4096;
  void *block[N], *guard[N];
  for (int i = 0; i < N; i++) {
    block[i] = malloc(size);
    guard[i] = malloc(64);
    EXPECT(block[i] && guard[i], "malloc");
    memset(block[i], 0xa5, size);
  }
  for (int i = 0; i < N; i++)
    free(block[i]);
  (void)guard; /* kept until exit */
}

static void recv_expect(mcapi_pktchan_recv_hndl_t rh, const char *want, int release)
{
  mcapi_status_t status;
  size_t size = 0;
  char *buf = NULL;
  mcapi_pktchan_recv(rh, (void **)&buf, &size, &status);
  CHECK(status, MCAPI_SUCCESS, "pktchan_recv");
  EXPECT(size == strlen(want), "packet of %zu bytes, expected %zu", size, strlen(want));
  for (size_t i = size; i < MCAPI_MAX_PKT_SIZE; i++)
    EXPECT(buf[i] == 0, "packet \"%s\": byte %zu past it is 0x%02x, not 0", want, i,
           (unsigned)(unsigned char)buf[i]);
  EXPECT(!strcmp(buf, want), "received \"%s\", expected \"%s\"", buf, want);
  if (release) {
    mcapi_pktchan_release(buf, &status);
    CHECK(status, MCAPI_SUCCESS, "pktchan_release");
  }
}

int main(void)
{
  static const char *const text[] = {"zero", "one", "two", "three", "four", "five"};
  mcapi_status_t status;
  mcapi_info_t info;
  mcapi_request_t request;
  mcapi_pktchan_send_hndl_t sh;
  mcapi_pktchan_recv_hndl_t rh;

  START_WATCHDOG();
  mcapi_initialize(DOMAIN, NODE, NULL, &parms, &info, &status);
  CHECK(status, MCAPI_SUCCESS, "initialize");
  mcapi_endpoint_t a = mcapi_endpoint_create(100, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create");
  mcapi_endpoint_t b = mcapi_endpoint_create(200, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create");
  mcapi_pktchan_connect_i(a, b, &request, &status);
  await(&request, "pktchan_connect_i");
  mcapi_pktchan_send_open_i(&sh, a, &request, &status);
  mcapi_request_t rreq;
  mcapi_pktchan_recv_open_i(&rh, b, &rreq, &status);
  await(&request, "pktchan_send_open_i");
  await(&rreq, "pktchan_recv_open_i");

  dirty_heap();
  for (int round = 0; round < 2; round++) {
    for (int i = 0; i < 6; i++) {
      mcapi_pktchan_send(sh, text[i], strlen(text[i]), &status);
      CHECK(status, MCAPI_SUCCESS, "pktchan_send");
    }
    /* First round: fresh buffers, two held; second: released buffers. */
    for (int i = 0; i < 6; i++)
      recv_expect(rh, text[i], round == 1 || i >= 2);
  }

  mcapi_finalize(&status);
  CHECK(status, MCAPI_SUCCESS, "finalize");
  return 0;
}
