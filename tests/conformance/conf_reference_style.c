/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A program in the style of the MCAPI reference implementation's examples,
 * using only the standard headers: two nodes (threads) exchange messages,
 * the receiver uses non-blocking receives and mcapi_wait_any with an array of
 * request pointers, buffers are declared with MCA_DECL_ALIGNED, statuses are
 * printed with mcapi_display_status and MCAPI_MAX_STATUS_SIZE, and sizes are
 * checked against the reference's limit macros. Also compiled as C++.
 */
#include <mcapi.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define DOMAIN 1
#define SENDER 1
#define RECEIVER 2
#define PORT 100
#define NUM_MSGS 64

static int failures;

#define EXPECT(st, want, what)                                                            \
  do {                                                                                    \
    if ((st) != (want)) {                                                                 \
      char b_[MCAPI_MAX_STATUS_SIZE];                                                     \
      printf("FAIL %s: %s\n", what, mcapi_display_status(st, b_, MCAPI_MAX_STATUS_SIZE)); \
      failures++;                                                                         \
    }                                                                                     \
  } while (0)

static void *sender(void *arg)
{
  mcapi_status_t status;
  mcapi_info_t info;
  mcapi_param_t *parms = NULL;
  (void)arg;
  mcapi_initialize(DOMAIN, SENDER, NULL, parms, &info, &status);
  EXPECT(status, MCAPI_SUCCESS, "sender initialize");
  mcapi_endpoint_t me = mcapi_endpoint_create(PORT, &status);
  mcapi_endpoint_t them = mcapi_endpoint_get(DOMAIN, RECEIVER, PORT, MCAPI_TIMEOUT_INFINITE, &status);
  EXPECT(status, MCAPI_SUCCESS, "endpoint_get");
  for (int i = 0; i < NUM_MSGS; i++) {
    char msg[32];
    int n = snprintf(msg, sizeof msg, "message %d", i);
    mcapi_msg_send(me, them, msg, (size_t)n + 1, MCAPI_MAX_PRIORITY, &status);
    EXPECT(status, MCAPI_SUCCESS, "msg_send");
  }
  static char too_big[MCAPI_MAX_MSG_SIZE + 1];
  mcapi_msg_send(me, them, too_big, sizeof too_big, 1, &status);
  EXPECT(status, MCAPI_ERR_MSG_LIMIT, "oversize message");
  /* Wait for the receiver's go-ahead before finalizing (our endpoint would go away). */
  char done[8];
  size_t n;
  mcapi_msg_recv(me, done, sizeof done, &n, &status);
  mcapi_finalize(&status);
  EXPECT(status, MCAPI_SUCCESS, "sender finalize");
  return NULL;
}

int main(void)
{
  mcapi_status_t status;
  mcapi_info_t info;
  pthread_t t;
  mcapi_initialize(DOMAIN, RECEIVER, NULL, NULL, &info, &status);
  EXPECT(status, MCAPI_SUCCESS, "receiver initialize");
  mcapi_endpoint_t me = mcapi_endpoint_create(PORT, &status);
  pthread_create(&t, NULL, sender, NULL);

  MCA_DECL_ALIGNED char buf_a[64];
  MCA_DECL_ALIGNED char buf_b[64];
  mca_request_t ra, rb;
  mcapi_request_t *requests[2] = {&ra, &rb};
  mcapi_msg_recv_i(me, buf_a, sizeof buf_a, &ra, &status);
  if (status != MCAPI_SUCCESS) /* SUCCESS when a message was already there */
    EXPECT(status, MCAPI_PENDING, "recv_i a");
  mcapi_msg_recv_i(me, buf_b, sizeof buf_b, &rb, &status);
  if (status != MCAPI_SUCCESS) /* SUCCESS when a message was already there */
    EXPECT(status, MCAPI_PENDING, "recv_i b");
  /* Two receives in flight; the requests may complete in either order, but
   * every message must arrive exactly once. */
  int got = 0, posted = 2;
  unsigned char seen[NUM_MSGS] = {0};
  while (got < NUM_MSGS) {
    size_t size;
    mcapi_uint_t i = mcapi_wait_any(2, requests, &size, MCAPI_TIMEOUT_INFINITE, &status);
    EXPECT(status, MCAPI_SUCCESS, "wait_any");
    if (i > 1)
      break;
    const char *buf = i == 0 ? buf_a : buf_b;
    int k = -1;
    if (sscanf(buf, "message %d", &k) != 1 || k < 0 || k >= NUM_MSGS || seen[k] ||
        size != strlen(buf) + 1) {
      printf("FAIL bad or duplicate message '%s'\n", buf);
      failures++;
    } else {
      seen[k] = 1;
    }
    got++;
    if (posted < NUM_MSGS + 1) { /* keep two in flight; the last one gets cancelled */
      mcapi_msg_recv_i(me, i == 0 ? buf_a : buf_b, 64, requests[i], &status);
      if (status != MCAPI_SUCCESS) /* SUCCESS when a message was already there */
        EXPECT(status, MCAPI_PENDING, "recv_i again");
      posted++;
    }
  }
  /* One request is still pending; cancel it. */
  mcapi_request_t *left = requests[0];
  mcapi_cancel(left, &status);
  if (status != MCAPI_SUCCESS) {
    left = requests[1];
    mcapi_cancel(left, &status);
  }
  EXPECT(status, MCAPI_SUCCESS, "cancel");
  mcapi_endpoint_t them = mcapi_endpoint_get(DOMAIN, SENDER, PORT, MCAPI_TIMEOUT_INFINITE, &status);
  mcapi_msg_send(me, them, "done", 5, 0, &status);
  pthread_join(t, NULL);
  mcapi_finalize(&status);
  EXPECT(status, MCAPI_SUCCESS, "receiver finalize");
  printf("%d messages received, %d failure(s)\n", got, failures);
  return failures != 0 || got != NUM_MSGS;
}
