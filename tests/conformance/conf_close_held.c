/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A receiver that never releases its last packet buffers can still close:
 * the receive-side close completes without waiting for the releases, the
 * send side closes, the held buffers are released afterwards, and the two
 * endpoints can be connected again and carry packets.
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

#define RECEIVER 1
#define SENDER 2
#define RECV_PORT 1
#define SEND_PORT 2
#define NUM_PACKETS 4
#define WAIT_MS CONF_WAIT_MS

static pthread_barrier_t step;

static void open_send_side(mcapi_endpoint_t me, mcapi_endpoint_t to,
                           mcapi_pktchan_send_hndl_t *handle)
{
  mcapi_status_t status;
  mcapi_request_t request;
  size_t size;
  mcapi_pktchan_connect_i(me, to, &request, &status);
  EXPECT(status == MCAPI_SUCCESS || status == MCAPI_PENDING, "pktchan_connect_i status %u",
         (unsigned)status);
  mcapi_wait(&request, &size, WAIT_MS, &status);
  CHECK(status, MCAPI_SUCCESS, "connect");
  mcapi_pktchan_send_open_i(handle, me, &request, &status);
  EXPECT(status == MCAPI_SUCCESS || status == MCAPI_PENDING, "pktchan_send_open_i status %u",
         (unsigned)status);
  mcapi_wait(&request, &size, WAIT_MS, &status);
  CHECK(status, MCAPI_SUCCESS, "send side open");
}

static void open_recv_side(mcapi_endpoint_t me, mcapi_pktchan_recv_hndl_t *handle)
{
  mcapi_status_t status;
  mcapi_request_t request;
  size_t size;
  mcapi_pktchan_recv_open_i(handle, me, &request, &status);
  EXPECT(status == MCAPI_SUCCESS || status == MCAPI_PENDING, "pktchan_recv_open_i status %u",
         (unsigned)status);
  mcapi_wait(&request, &size, WAIT_MS, &status);
  CHECK(status, MCAPI_SUCCESS, "receive side open");
}

static void *sender(void *arg)
{
  mcapi_status_t status;
  mcapi_info_t info;
  mcapi_request_t request;
  mcapi_pktchan_send_hndl_t handle;
  size_t size;
  (void)arg;

  mcapi_initialize(DOMAIN, SENDER, NULL, &parms, &info, &status);
  CHECK(status, MCAPI_SUCCESS, "sender initialize");
  mcapi_endpoint_t me = mcapi_endpoint_create(SEND_PORT, &status);
  CHECK(status, MCAPI_SUCCESS, "sender endpoint_create");
  mcapi_endpoint_t to =
      mcapi_endpoint_get(DOMAIN, RECEIVER, RECV_PORT, MCAPI_TIMEOUT_INFINITE, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_get");
  open_send_side(me, to, &handle);
  pthread_barrier_wait(&step); /* 1: both sides open */
  for (int i = 0; i < NUM_PACKETS; i++) {
    char packet[16];
    int n = snprintf(packet, sizeof packet, "packet %d", i);
    mcapi_pktchan_send(handle, packet, (size_t)n + 1, &status);
    CHECK(status, MCAPI_SUCCESS, "pktchan_send");
  }
  pthread_barrier_wait(&step); /* 2: the receive side has closed */
  mcapi_pktchan_send_close_i(handle, &request, &status);
  EXPECT(status == MCAPI_SUCCESS || status == MCAPI_PENDING, "pktchan_send_close_i status %u",
         (unsigned)status);
  mcapi_boolean_t done = mcapi_wait(&request, &size, WAIT_MS, &status);
  CHECK(status, MCAPI_SUCCESS, "send side close");
  EXPECT(done == MCAPI_TRUE, "send side close not complete");
  pthread_barrier_wait(&step); /* 3: closed; the receiver releases its buffers */
  pthread_barrier_wait(&step); /* 4: released */

  open_send_side(me, to, &handle);
  mcapi_pktchan_send(handle, "again", 6, &status);
  CHECK(status, MCAPI_SUCCESS, "pktchan_send on the new connection");
  pthread_barrier_wait(&step); /* 5: received */
  mcapi_pktchan_send_close_i(handle, &request, &status);
  EXPECT(status == MCAPI_SUCCESS || status == MCAPI_PENDING, "pktchan_send_close_i status %u",
         (unsigned)status);
  mcapi_wait(&request, &size, WAIT_MS, &status);
  CHECK(status, MCAPI_SUCCESS, "send side close");
  pthread_barrier_wait(&step); /* 6 */
  mcapi_finalize(&status);
  CHECK(status, MCAPI_SUCCESS, "sender finalize");
  return NULL;
}

int main(void)
{
  mcapi_status_t status;
  mcapi_info_t info;
  mcapi_request_t request;
  mcapi_pktchan_recv_hndl_t handle;
  void *held[NUM_PACKETS];
  void *pkt;
  size_t size;
  pthread_t t;

  START_WATCHDOG();
  pthread_barrier_init(&step, NULL, 2);
  mcapi_initialize(DOMAIN, RECEIVER, NULL, &parms, &info, &status);
  CHECK(status, MCAPI_SUCCESS, "receiver initialize");
  mcapi_endpoint_t me = mcapi_endpoint_create(RECV_PORT, &status);
  CHECK(status, MCAPI_SUCCESS, "receiver endpoint_create");
  pthread_create(&t, NULL, sender, NULL);
  open_recv_side(me, &handle);
  pthread_barrier_wait(&step); /* 1 */
  for (int i = 0; i < NUM_PACKETS; i++) {
    char want[16];
    snprintf(want, sizeof want, "packet %d", i);
    mcapi_pktchan_recv(handle, &held[i], &size, &status);
    CHECK(status, MCAPI_SUCCESS, "pktchan_recv");
    EXPECT(strcmp((char *)held[i], want) == 0, "received '%s', expected '%s'", (char *)held[i],
           want);
  }
  /* Release all but the last two, then close while holding those. */
  for (int i = 0; i < NUM_PACKETS - 2; i++) {
    mcapi_pktchan_release(held[i], &status);
    CHECK(status, MCAPI_SUCCESS, "pktchan_release");
  }
  mcapi_pktchan_recv_close_i(handle, &request, &status);
  EXPECT(status == MCAPI_SUCCESS || status == MCAPI_PENDING, "pktchan_recv_close_i status %u",
         (unsigned)status);
  mcapi_boolean_t done = mcapi_wait(&request, &size, WAIT_MS, &status);
  CHECK(status, MCAPI_SUCCESS, "receive side close while holding two buffers");
  EXPECT(done == MCAPI_TRUE, "receive side close not complete");
  pthread_barrier_wait(&step); /* 2 */
  pthread_barrier_wait(&step); /* 3 */
  for (int i = NUM_PACKETS - 2; i < NUM_PACKETS; i++) {
    mcapi_pktchan_release(held[i], &status);
    CHECK(status, MCAPI_SUCCESS, "pktchan_release of a buffer held over the close");
  }
  pthread_barrier_wait(&step); /* 4 */

  open_recv_side(me, &handle);
  mcapi_pktchan_recv(handle, &pkt, &size, &status);
  CHECK(status, MCAPI_SUCCESS, "pktchan_recv on the new connection");
  EXPECT(size == 6 && strcmp((char *)pkt, "again") == 0, "received '%s', expected 'again'",
         (char *)pkt);
  mcapi_pktchan_release(pkt, &status);
  CHECK(status, MCAPI_SUCCESS, "pktchan_release");
  pthread_barrier_wait(&step); /* 5 */
  mcapi_pktchan_recv_close_i(handle, &request, &status);
  EXPECT(status == MCAPI_SUCCESS || status == MCAPI_PENDING, "pktchan_recv_close_i status %u",
         (unsigned)status);
  mcapi_wait(&request, &size, WAIT_MS, &status);
  CHECK(status, MCAPI_SUCCESS, "receive side close");
  pthread_barrier_wait(&step); /* 6 */
  pthread_join(t, NULL);
  mcapi_finalize(&status);
  CHECK(status, MCAPI_SUCCESS, "receiver finalize");
  printf("close_held: PASSED\n");
  return 0;
}
