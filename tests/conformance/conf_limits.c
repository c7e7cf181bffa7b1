/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The reference implementation's default limits. Programs size their own
 * buffers with these macros: a message of MCAPI_MAX_MSG_SIZE-1 characters and
 * its NUL is built in a 1025-byte stack buffer and received into another, and
 * a receiver holds 256 packets before it releases any (the packet buffer pool
 * is not capped by the queue depth).
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

#define SENDER 1
#define RECEIVER 2
#define PKT_SEND_PORT 1
#define PKT_RECV_PORT 2
#define MSG_PORT_A 3
#define MSG_PORT_B 4
#define NUM_PACKETS 256
#define PACKET_SIZE 100

static pthread_barrier_t done;

static void fill_packet(unsigned char *p, int seq)
{
  for (int j = 0; j < PACKET_SIZE; j++)
    p[j] = (unsigned char)(seq * 7 + j);
  p[0] = (unsigned char)seq;
  p[1] = (unsigned char)(seq >> 8);
}

static void check_limits(void)
{
  EXPECT(MCAPI_MAX_MSG_SIZE == 1024, "MCAPI_MAX_MSG_SIZE is %ld, expected 1024",
         (long)MCAPI_MAX_MSG_SIZE);
  EXPECT(MCAPI_MAX_PKT_SIZE == 1024, "MCAPI_MAX_PKT_SIZE is %ld, expected 1024",
         (long)MCAPI_MAX_PKT_SIZE);
  EXPECT(MCAPI_MAX_QUEUE_ELEMENTS == 64, "MCAPI_MAX_QUEUE_ELEMENTS is %ld, expected 64",
         (long)MCAPI_MAX_QUEUE_ELEMENTS);
  EXPECT(MCAPI_MAX_ENDPOINTS == 32, "MCAPI_MAX_ENDPOINTS is %ld, expected 32",
         (long)MCAPI_MAX_ENDPOINTS);
  EXPECT(MCAPI_MAX_BUFFERS == 1284, "MCAPI_MAX_BUFFERS is %ld, expected 1284",
         (long)MCAPI_MAX_BUFFERS);
  EXPECT(MCA_MAX_REQUESTS == 1024, "MCA_MAX_REQUESTS is %ld, expected 1024",
         (long)MCA_MAX_REQUESTS);
  EXPECT(MCA_MAX_NODES == 16, "MCA_MAX_NODES is %ld, expected 16", (long)MCA_MAX_NODES);
}

/* A reference-era program: the message fills the largest size the headers allow. */
static void max_size_message(void)
{
#if MCAPI_MAX_MSG_SIZE <= 1024
  mcapi_status_t status;
  char send_buf[1025];
  char recv_buf[1025];
  size_t received;
  mcapi_endpoint_t a = mcapi_endpoint_create(MSG_PORT_A, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create A");
  mcapi_endpoint_t b = mcapi_endpoint_create(MSG_PORT_B, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_create B");
  for (int i = 0; i < MCAPI_MAX_MSG_SIZE - 1; i++)
    send_buf[i] = (char)('a' + i % 26);
  send_buf[MCAPI_MAX_MSG_SIZE - 1] = '\0';
  memset(recv_buf, 0x55, sizeof recv_buf);
  mcapi_msg_send(a, b, send_buf, strlen(send_buf) + 1, 1, &status);
  CHECK(status, MCAPI_SUCCESS, "msg_send of MCAPI_MAX_MSG_SIZE bytes");
  mcapi_msg_recv(b, recv_buf, sizeof recv_buf, &received, &status);
  CHECK(status, MCAPI_SUCCESS, "msg_recv of MCAPI_MAX_MSG_SIZE bytes");
  EXPECT(received == MCAPI_MAX_MSG_SIZE, "received %zu bytes, expected %d", received,
         MCAPI_MAX_MSG_SIZE);
  EXPECT(strcmp(send_buf, recv_buf) == 0, "received message differs from the one sent");
  EXPECT((unsigned char)recv_buf[MCAPI_MAX_MSG_SIZE] == 0x55, "byte past the message was written");
  mcapi_endpoint_delete(a, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_delete A");
  mcapi_endpoint_delete(b, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_delete B");
#else
  EXPECT(0, "MCAPI_MAX_MSG_SIZE (%ld) does not fit a 1025-byte buffer", (long)MCAPI_MAX_MSG_SIZE);
#endif
}

static void *receiver(void *arg)
{
  mcapi_status_t status;
  mcapi_info_t info;
  mcapi_request_t request;
  mcapi_pktchan_recv_hndl_t handle;
  size_t size;
  static void *held[NUM_PACKETS];
  (void)arg;

  mcapi_initialize(DOMAIN, RECEIVER, NULL, &parms, &info, &status);
  CHECK(status, MCAPI_SUCCESS, "receiver initialize");
  mcapi_endpoint_t ep = mcapi_endpoint_create(PKT_RECV_PORT, &status);
  CHECK(status, MCAPI_SUCCESS, "receiver endpoint_create");
  /* Bounded receives: a pool capped below 256 packets shows as a timeout, not a hang. */
  mcapi_timeout_t timeout = 10000;
  mcapi_endpoint_set_attribute(ep, MCAPI_ENDP_ATTR_TIMEOUT, &timeout, sizeof timeout, &status);
  CHECK(status, MCAPI_SUCCESS, "set receive timeout");
  mcapi_pktchan_recv_open_i(&handle, ep, &request, &status);
  EXPECT(status == MCAPI_SUCCESS || status == MCAPI_PENDING, "recv_open_i status %u",
         (unsigned)status);
  mcapi_wait(&request, &size, MCAPI_TIMEOUT_INFINITE, &status);
  CHECK(status, MCAPI_SUCCESS, "receive side open");
  pthread_barrier_wait(&done); /* both sides open */

  for (int i = 0; i < NUM_PACKETS; i++) {
    unsigned char want[PACKET_SIZE];
    mcapi_pktchan_recv(handle, &held[i], &size, &status);
    if (status != MCAPI_SUCCESS)
      printf("packet %d of %d (none released so far):\n", i, NUM_PACKETS);
    CHECK(status, MCAPI_SUCCESS, "pktchan_recv without releasing");
    EXPECT(size == PACKET_SIZE, "packet %d has %zu bytes, expected %d", i, size, PACKET_SIZE);
    fill_packet(want, i);
    EXPECT(memcmp(held[i], want, PACKET_SIZE) == 0, "packet %d has wrong contents", i);
  }
  for (int i = 0; i < NUM_PACKETS; i++) {
    unsigned char want[PACKET_SIZE];
    fill_packet(want, i);
    EXPECT(memcmp(held[i], want, PACKET_SIZE) == 0, "held packet %d changed before its release", i);
    mcapi_pktchan_release(held[i], &status);
    CHECK(status, MCAPI_SUCCESS, "pktchan_release");
  }
  pthread_barrier_wait(&done); /* everything received: both sides close */
  mcapi_pktchan_recv_close_i(handle, &request, &status);
  EXPECT(status == MCAPI_SUCCESS || status == MCAPI_PENDING, "recv_close_i status %u",
         (unsigned)status);
  mcapi_wait(&request, &size, CONF_WAIT_MS, &status);
  CHECK(status, MCAPI_SUCCESS, "receive side close");
  pthread_barrier_wait(&done);
  mcapi_finalize(&status);
  CHECK(status, MCAPI_SUCCESS, "receiver finalize");
  return NULL;
}

int main(void)
{
  mcapi_status_t status;
  mcapi_info_t info;
  mcapi_request_t request;
  mcapi_pktchan_send_hndl_t handle;
  size_t size;
  pthread_t t;

  START_WATCHDOG();
  check_limits();
  mcapi_initialize(DOMAIN, SENDER, NULL, &parms, &info, &status);
  CHECK(status, MCAPI_SUCCESS, "sender initialize");
  max_size_message();

  pthread_barrier_init(&done, NULL, 2);
  pthread_create(&t, NULL, receiver, NULL);
  mcapi_endpoint_t ep = mcapi_endpoint_create(PKT_SEND_PORT, &status);
  CHECK(status, MCAPI_SUCCESS, "sender endpoint_create");
  mcapi_endpoint_t remote =
      mcapi_endpoint_get(DOMAIN, RECEIVER, PKT_RECV_PORT, MCAPI_TIMEOUT_INFINITE, &status);
  CHECK(status, MCAPI_SUCCESS, "endpoint_get");
  mcapi_timeout_t timeout = 10000;
  mcapi_endpoint_set_attribute(ep, MCAPI_ENDP_ATTR_TIMEOUT, &timeout, sizeof timeout, &status);
  CHECK(status, MCAPI_SUCCESS, "set send timeout");
  mcapi_pktchan_connect_i(ep, remote, &request, &status);
  EXPECT(status == MCAPI_SUCCESS || status == MCAPI_PENDING, "connect_i status %u",
         (unsigned)status);
  mcapi_wait(&request, &size, MCAPI_TIMEOUT_INFINITE, &status);
  CHECK(status, MCAPI_SUCCESS, "connect");
  mcapi_pktchan_send_open_i(&handle, ep, &request, &status);
  EXPECT(status == MCAPI_SUCCESS || status == MCAPI_PENDING, "send_open_i status %u",
         (unsigned)status);
  mcapi_wait(&request, &size, MCAPI_TIMEOUT_INFINITE, &status);
  CHECK(status, MCAPI_SUCCESS, "send side open");
  pthread_barrier_wait(&done);

  for (int i = 0; i < NUM_PACKETS; i++) {
    unsigned char packet[PACKET_SIZE];
    fill_packet(packet, i);
    /* A full receive queue fails at once in the mca-2.0.3 profile (as the
     * reference does): retry then, as the reference's programs do. The
     * pool itself (1284 buffers) never runs out here. */
    int tries = 0;
    do {
      mcapi_pktchan_send(handle, packet, sizeof packet, &status);
      if (status == MCAPI_ERR_MEM_LIMIT)
        usleep(100);
    } while (status == MCAPI_ERR_MEM_LIMIT && ++tries < 10 * (int)CONF_WAIT_MS); /* >= the ceiling */
    if (status != MCAPI_SUCCESS)
      printf("packet %d of %d:\n", i, NUM_PACKETS);
    CHECK(status, MCAPI_SUCCESS, "pktchan_send");
  }
  pthread_barrier_wait(&done);
  mcapi_pktchan_send_close_i(handle, &request, &status);
  EXPECT(status == MCAPI_SUCCESS || status == MCAPI_PENDING, "send_close_i status %u",
         (unsigned)status);
  mcapi_wait(&request, &size, CONF_WAIT_MS, &status);
  CHECK(status, MCAPI_SUCCESS, "send side close");
  pthread_barrier_wait(&done);
  pthread_join(t, NULL);
  mcapi_finalize(&status);
  CHECK(status, MCAPI_SUCCESS, "sender finalize");
  printf("limits: PASSED\n");
  return 0;
}
