/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receive requests posted on one endpoint are matched to arriving messages
 * and packets in the order they were posted, and before a later blocking
 * receive takes anything: waiting on the third request first still finds the
 * third message in it.
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
#define MSG_PORT 1
#define PKT_PORT 2
#define WAIT_MS CONF_WAIT_MS

static pthread_barrier_t step;

static void sync_step(void)
{
  pthread_barrier_wait(&step);
}

static void expect_pending_or_success(mcapi_status_t status, const char *what)
{
  EXPECT(status == MCAPI_PENDING || status == MCAPI_SUCCESS, "%s: status %u", what,
         (unsigned)status);
}

static void wait_msg(mcapi_request_t *request, const char *buf, const char *want, const char *what)
{
  mcapi_status_t status;
  size_t size = 0;
  mcapi_boolean_t done = mcapi_wait(request, &size, WAIT_MS, &status);
  CHECK(status, MCAPI_SUCCESS, what);
  EXPECT(done == MCAPI_TRUE, "%s: not complete", what);
  EXPECT(size == strlen(want) + 1 && strcmp(buf, want) == 0,
         "%s holds '%s' (%zu bytes), expected '%s'", what, buf, size, want);
}

static void wait_pkt(mcapi_request_t *request, void **buf, const char *want, const char *what)
{
  mcapi_status_t status;
  size_t size = 0;
  mcapi_boolean_t done = mcapi_wait(request, &size, WAIT_MS, &status);
  CHECK(status, MCAPI_SUCCESS, what);
  EXPECT(done == MCAPI_TRUE, "%s: not complete", what);
  EXPECT(*buf != NULL && size == strlen(want) + 1 && strcmp((char *)*buf, want) == 0,
         "%s holds '%s', expected '%s'", what, *buf ? (char *)*buf : "(null)", want);
  mcapi_pktchan_release(*buf, &status);
  CHECK(status, MCAPI_SUCCESS, "pktchan_release");
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
  mcapi_endpoint_t me = mcapi_endpoint_create(MSG_PORT, &status);
  CHECK(status, MCAPI_SUCCESS, "sender endpoint_create");
  mcapi_endpoint_t pkt_me = mcapi_endpoint_create(PKT_PORT, &status);
  CHECK(status, MCAPI_SUCCESS, "sender endpoint_create");
  mcapi_endpoint_t to =
      mcapi_endpoint_get(DOMAIN, RECEIVER, MSG_PORT, MCAPI_TIMEOUT_INFINITE, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_get");
  mcapi_endpoint_t pkt_to =
      mcapi_endpoint_get(DOMAIN, RECEIVER, PKT_PORT, MCAPI_TIMEOUT_INFINITE, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_get");

  sync_step(); /* 1: three receives are posted */
  mcapi_msg_send(me, to, "A", 2, 1, &status);
  CHECK(status, MCAPI_SUCCESS, "msg_send A");
  mcapi_msg_send(me, to, "B", 2, 1, &status);
  CHECK(status, MCAPI_SUCCESS, "msg_send B");
  mcapi_msg_send(me, to, "C", 2, 1, &status);
  CHECK(status, MCAPI_SUCCESS, "msg_send C");

  sync_step(); /* 2: two receives are posted */
  mcapi_msg_send(me, to, "D", 2, 1, &status);
  CHECK(status, MCAPI_SUCCESS, "msg_send D");
  mcapi_msg_send(me, to, "E", 2, 1, &status);
  CHECK(status, MCAPI_SUCCESS, "msg_send E");
  mcapi_msg_send(me, to, "F", 2, 1, &status);
  CHECK(status, MCAPI_SUCCESS, "msg_send F");

  mcapi_pktchan_connect_i(pkt_me, pkt_to, &request, &status);
  expect_pending_or_success(status, "pktchan_connect_i");
  mcapi_wait(&request, &size, WAIT_MS, &status);
  CHECK(status, MCAPI_SUCCESS, "connect");
  mcapi_pktchan_send_open_i(&handle, pkt_me, &request, &status);
  expect_pending_or_success(status, "pktchan_send_open_i");
  mcapi_wait(&request, &size, WAIT_MS, &status);
  CHECK(status, MCAPI_SUCCESS, "send side open");

  sync_step(); /* 3: three packet receives are posted */
  const char *packets[] = {"P1", "P2", "P3", "P4", "P5", "P6"};
  for (int i = 0; i < 3; i++) {
    mcapi_pktchan_send(handle, packets[i], 3, &status);
    CHECK(status, MCAPI_SUCCESS, "pktchan_send");
  }
  sync_step(); /* 4: two packet receives are posted */
  for (int i = 3; i < 6; i++) {
    mcapi_pktchan_send(handle, packets[i], 3, &status);
    CHECK(status, MCAPI_SUCCESS, "pktchan_send");
  }
  sync_step(); /* 5: everything received */
  mcapi_pktchan_send_close_i(handle, &request, &status);
  EXPECT(status == MCAPI_SUCCESS || status == MCAPI_PENDING, "pktchan_send_close_i status %u",
         (unsigned)status);
  mcapi_wait(&request, &size, WAIT_MS, &status);
  CHECK(status, MCAPI_SUCCESS, "send side close");
  sync_step(); /* 6: both closed */
  mcapi_finalize(&status);
  CHECK(status, MCAPI_SUCCESS, "sender finalize");
  return NULL;
}

int main(void)
{
  mcapi_status_t status;
  mcapi_info_t info;
  mcapi_request_t r[3], request;
  mcapi_pktchan_recv_hndl_t handle;
  char b1[16], b2[16], b3[16];
  void *p[3];
  void *pkt;
  size_t size;
  pthread_t t;

  START_WATCHDOG();
  pthread_barrier_init(&step, NULL, 2);
  mcapi_initialize(DOMAIN, RECEIVER, NULL, &parms, &info, &status);
  CHECK(status, MCAPI_SUCCESS, "receiver initialize");
  mcapi_endpoint_t me = mcapi_endpoint_create(MSG_PORT, &status);
  CHECK(status, MCAPI_SUCCESS, "receiver endpoint_create");
  mcapi_endpoint_t pkt_me = mcapi_endpoint_create(PKT_PORT, &status);
  CHECK(status, MCAPI_SUCCESS, "receiver endpoint_create");
  pthread_create(&t, NULL, sender, NULL);

  /* Three receives posted on an empty queue, completed in posting order. */
  mcapi_msg_recv_i(me, b1, sizeof b1, &r[0], &status);
  expect_pending_or_success(status, "msg_recv_i 1");
  mcapi_msg_recv_i(me, b2, sizeof b2, &r[1], &status);
  expect_pending_or_success(status, "msg_recv_i 2");
  mcapi_msg_recv_i(me, b3, sizeof b3, &r[2], &status);
  expect_pending_or_success(status, "msg_recv_i 3");
  sync_step(); /* 1 */
  wait_msg(&r[2], b3, "C", "third msg_recv_i (waited first)");
  wait_msg(&r[1], b2, "B", "second msg_recv_i");
  wait_msg(&r[0], b1, "A", "first msg_recv_i (waited last)");

  /* Two receives posted, then a blocking receive: it gets the third message. */
  mcapi_msg_recv_i(me, b1, sizeof b1, &r[0], &status);
  expect_pending_or_success(status, "msg_recv_i 1");
  mcapi_msg_recv_i(me, b2, sizeof b2, &r[1], &status);
  expect_pending_or_success(status, "msg_recv_i 2");
  sync_step(); /* 2 */
  mcapi_msg_recv(me, b3, sizeof b3, &size, &status);
  CHECK(status, MCAPI_SUCCESS, "blocking msg_recv");
  EXPECT(size == 2 && strcmp(b3, "F") == 0, "blocking msg_recv got '%s', expected 'F'", b3);
  wait_msg(&r[0], b1, "D", "first msg_recv_i");
  wait_msg(&r[1], b2, "E", "second msg_recv_i");

  /* The same for packet receives. */
  mcapi_pktchan_recv_open_i(&handle, pkt_me, &request, &status);
  expect_pending_or_success(status, "pktchan_recv_open_i");
  mcapi_wait(&request, &size, WAIT_MS, &status);
  CHECK(status, MCAPI_SUCCESS, "receive side open");
  for (int i = 0; i < 3; i++) {
    p[i] = NULL;
    mcapi_pktchan_recv_i(handle, &p[i], &r[i], &status);
    expect_pending_or_success(status, "pktchan_recv_i");
  }
  sync_step(); /* 3 */
  wait_pkt(&r[2], &p[2], "P3", "third pktchan_recv_i (waited first)");
  wait_pkt(&r[1], &p[1], "P2", "second pktchan_recv_i");
  wait_pkt(&r[0], &p[0], "P1", "first pktchan_recv_i (waited last)");
  for (int i = 0; i < 2; i++) {
    p[i] = NULL;
    mcapi_pktchan_recv_i(handle, &p[i], &r[i], &status);
    expect_pending_or_success(status, "pktchan_recv_i");
  }
  sync_step(); /* 4 */
  mcapi_pktchan_recv(handle, &pkt, &size, &status);
  CHECK(status, MCAPI_SUCCESS, "blocking pktchan_recv");
  EXPECT(size == 3 && strcmp((char *)pkt, "P6") == 0,
         "blocking pktchan_recv got '%s', expected 'P6'", (char *)pkt);
  mcapi_pktchan_release(pkt, &status);
  CHECK(status, MCAPI_SUCCESS, "pktchan_release");
  wait_pkt(&r[0], &p[0], "P4", "first pktchan_recv_i");
  wait_pkt(&r[1], &p[1], "P5", "second pktchan_recv_i");

  sync_step(); /* 5 */
  mcapi_pktchan_recv_close_i(handle, &request, &status);
  EXPECT(status == MCAPI_SUCCESS || status == MCAPI_PENDING, "pktchan_recv_close_i status %u",
         (unsigned)status);
  mcapi_wait(&request, &size, WAIT_MS, &status);
  CHECK(status, MCAPI_SUCCESS, "receive side close");
  sync_step(); /* 6 */
  pthread_join(t, NULL);
  mcapi_finalize(&status);
  CHECK(status, MCAPI_SUCCESS, "receiver finalize");
  printf("recv_fifo: PASSED\n");
  return 0;
}
