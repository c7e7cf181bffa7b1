/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * request_reply: a client and a server node exchange requests and replies as
 * MCAPI messages. Each node is a thread; the server squares the numbers it
 * receives and answers to the endpoint the request came from.
 *
 * Shows: mcapi_initialize per node, endpoints on fixed ports, finding the
 * peer with mcapi_endpoint_get, blocking mcapi_msg_send / mcapi_msg_recv,
 * a non-blocking receive completed with mcapi_wait, and a clean finalize.
 *
 *   example_request_reply [requests]     (default 1000; exit 0 when every reply is right)
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <mcapi.h>

enum { DOMAIN = 1, CLIENT = 1, SERVER = 2, PORT = 10 };

struct request { uint32_t id; uint32_t value; };
struct reply { uint32_t id; uint64_t square; };

static int fail(const char *what, mcapi_status_t st)
{
  char buf[MCAPI_MAX_STATUS_SIZE];
  fprintf(stderr, "request_reply: %s: %s\n", what, mcapi_display_status(st, buf, sizeof buf));
  return 1;
}

static void *server(void *arg)
{
  long n = (long)(intptr_t)arg;
  mcapi_status_t st;
  mcapi_info_t info;
  mcapi_initialize(DOMAIN, SERVER, NULL, NULL, &info, &st);
  if (st != MCAPI_SUCCESS)
    return (void *)(intptr_t)fail("server initialize", st);
  mcapi_endpoint_t me = mcapi_endpoint_create(PORT, &st);
  mcapi_endpoint_t client = mcapi_endpoint_get(DOMAIN, CLIENT, PORT, MCAPI_TIMEOUT_INFINITE, &st);
  for (long i = 0; i < n && st == MCAPI_SUCCESS; i++) {
    struct request rq;
    size_t got;
    mcapi_msg_recv(me, &rq, sizeof rq, &got, &st);
    if (st != MCAPI_SUCCESS || got != sizeof rq)
      break;
    struct reply rp = {rq.id, (uint64_t)rq.value * rq.value};
    mcapi_msg_send(me, client, &rp, sizeof rp, /*priority*/ 1, &st);
  }
  int bad = st != MCAPI_SUCCESS ? fail("server", st) : 0;
  mcapi_finalize(&st);
  return (void *)(intptr_t)bad;
}

int main(int argc, char **argv)
{
  long n = argc > 1 ? atol(argv[1]) : 1000;
  pthread_t t;
  pthread_create(&t, NULL, server, (void *)(intptr_t)n);

  mcapi_status_t st;
  mcapi_info_t info;
  mcapi_initialize(DOMAIN, CLIENT, NULL, NULL, &info, &st);
  if (st != MCAPI_SUCCESS)
    return fail("client initialize", st);
  mcapi_endpoint_t me = mcapi_endpoint_create(PORT, &st);
  /* Waits until the server has created its endpoint. */
  mcapi_endpoint_t server_ep = mcapi_endpoint_get(DOMAIN, SERVER, PORT, MCAPI_TIMEOUT_INFINITE, &st);
  if (st != MCAPI_SUCCESS)
    return fail("endpoint_get", st);

  long good = 0;
  for (long i = 0; i < n; i++) {
    struct request rq = {(uint32_t)i, (uint32_t)(i * 7 + 3)};
    mcapi_msg_send(me, server_ep, &rq, sizeof rq, 1, &st);
    if (st != MCAPI_SUCCESS)
      return fail("send", st);
    /* The reply with a non-blocking receive: start it, then wait for it. */
    struct reply rp;
    size_t got = 0;
    mcapi_request_t req;
    mcapi_msg_recv_i(me, &rp, sizeof rp, &req, &st);
    if (st != MCAPI_SUCCESS && st != MCAPI_PENDING)
      return fail("recv_i", st);
    mcapi_wait(&req, &got, 5000, &st);
    if (st != MCAPI_SUCCESS)
      return fail("wait", st);
    good += got == sizeof rp && rp.id == rq.id && rp.square == (uint64_t)rq.value * rq.value;
  }
  void *server_bad;
  pthread_join(t, &server_bad);
  mcapi_finalize(&st);
  printf("request_reply: %ld of %ld replies right\n", good, n);
  return good == n && !server_bad && st == MCAPI_SUCCESS ? 0 : 1;
}
