/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mcx_endpoint_set_reachable: while an endpoint is marked unreachable, every
 * message send to it (blocking, non-blocking) gives MCAPI_ERR_TRANSMISSION, a
 * sender blocked on its full queue is woken and gets it too, what was queued
 * before stays and is received, and once it is reachable again sends go
 * through. Only the owner may mark it; bad handles get their statuses. Every
 * locking mode and both transports.
 */
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "mcapi.h"
#include "mcx.h"
#include "mcx_test.h"

static mcapi_domain_t dom;
static mcx_locking_t locking;
static mcx_transport_t transport;

static int init_node(mcapi_node_t node)
{
  mcapi_param_t p;
  mcx_param_init(&p);
  p.locking = locking;
  p.transport = transport;
  mcapi_info_t info;
  mcapi_status_t st;
  mcapi_initialize(dom, node, NULL, &p, &info, &st);
  return st == MCAPI_SUCCESS;
}

static void fini(void)
{
  mcapi_status_t st;
  mcapi_finalize(&st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
}

struct other {
  mcapi_endpoint_t target;
  mcapi_status_t mark_status; /* its attempt to mark the target */
  mcapi_status_t send_status; /* its blocking send into the full queue */
  atomic_long sending_tid;    /* set just before that send */
  int ok;
};

/* Another node: may not mark our endpoint; then sends into the full queue
 * and blocks until the owner marks it unreachable. */
static void *other_node(void *arg)
{
  struct other *o = arg;
  if (!init_node(2))
    return NULL;
  mcapi_status_t st;
  mcx_endpoint_set_reachable(o->target, MCAPI_FALSE, &o->mark_status);
  mcapi_endpoint_t c = mcapi_endpoint_create(7, &st);
  mcapi_timeout_t t = MCX_TEST_WAIT_MS; /* bounded: a hang fails, the wake comes first */
  mcapi_endpoint_set_attribute(c, MCAPI_ENDP_ATTR_TIMEOUT, &t, sizeof t, &st);
  char m[8] = "blocked";
  atomic_store(&o->sending_tid, mcx_test_tid());
  mcapi_msg_send(c, o->target, m, sizeof m, 1, &o->send_status);
  o->ok = 1;
  mcapi_finalize(&st);
  return NULL;
}

TEST(unreachable_refuses_sends_and_wakes_blocked_senders)
{
  if (!init_node(1)) {
    printf("  (transport not available here: skipped)\n");
    return;
  }
  mcapi_status_t st;
  mcapi_endpoint_t a = mcapi_endpoint_create(1, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_endpoint_t b = mcapi_endpoint_create(2, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  char buf[32];
  size_t n;

  /* Queued before: stays, and is received while unreachable. */
  mcapi_msg_send(b, a, "before", 7, 1, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcx_endpoint_set_reachable(a, MCAPI_FALSE, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcx_endpoint_set_reachable(a, MCAPI_FALSE, &st); /* again: no change */
  CHECK_STATUS(st, MCAPI_SUCCESS);
  for (int i = 0; i < 3; i++) { /* every attempt, not only the first */
    mcapi_msg_send(b, a, "during", 7, 1, &st);
    CHECK_STATUS(st, MCAPI_ERR_TRANSMISSION);
  }
  mcapi_request_t r;
  mcapi_msg_send_i(b, a, "during", 7, 1, &r, &st);
  if (st == MCAPI_PENDING || st == MCAPI_SUCCESS) {
    mcapi_wait(&r, &n, MCX_TEST_WAIT_MS, &st);
  }
  CHECK_STATUS(st, MCAPI_ERR_TRANSMISSION);
  mcapi_msg_recv(a, buf, sizeof buf, &n, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(n == 7 && !strcmp(buf, "before"));
  CHECK_EQ_U(mcapi_msg_available(a, &st), 0); /* nothing of the refused sends */

  /* Reachable again: sends go through. */
  mcx_endpoint_set_reachable(a, MCAPI_TRUE, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_msg_send(b, a, "after", 6, 1, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_msg_recv(a, buf, sizeof buf, &n, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(n == 6 && !strcmp(buf, "after"));

  /* Bad handles. */
  mcx_endpoint_set_reachable((mcapi_endpoint_t)0x7777u, MCAPI_FALSE, &st);
  CHECK_STATUS(st, MCAPI_ERR_ENDP_INVALID);
  mcx_endpoint_set_reachable(a, MCAPI_FALSE, NULL); /* no status: nothing happens */
  mcapi_msg_send(b, a, "x", 2, 1, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_msg_recv(a, buf, sizeof buf, &n, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);

  /* A sender blocked on the full queue is woken with TRANSMISSION. */
  mcapi_boolean_t fail = MCAPI_TRUE;
  mcapi_endpoint_set_attribute(b, MCAPI_ENDP_ATTR_FAIL_ON_MEM_LIMIT, &fail, sizeof fail, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  unsigned queued = 0;
  for (;;) {
    mcapi_msg_send(b, a, "fill", 5, 1, &st);
    if (st != MCAPI_SUCCESS)
      break;
    queued++;
  }
  CHECK_STATUS(st, MCAPI_ERR_MEM_LIMIT);
  CHECK(queued > 0);
  struct other o = {.target = a};
  pthread_t th;
  pthread_create(&th, NULL, other_node, &o);
  /* Event: the other node is asleep in its send. */
  MCX_TEST_AWAIT(atomic_load(&o.sending_tid) && mcx_test_thread_asleep(atomic_load(&o.sending_tid)));
  mcx_endpoint_set_reachable(a, MCAPI_FALSE, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  pthread_join(th, NULL);
  CHECK(o.ok);
  CHECK_STATUS(o.mark_status, MCAPI_ERR_ENDP_NOTOWNER);
  CHECK_STATUS(o.send_status, MCAPI_ERR_TRANSMISSION);
  /* Everything queued is still there, in order. */
  unsigned got = 0;
  for (;;) {
    mcapi_msg_recv_i(a, buf, sizeof buf, &r, &st);
    mcapi_wait(&r, &n, 0, &st);
    if (st != MCAPI_SUCCESS)
      break;
    got += n == 5 && !strcmp(buf, "fill");
  }
  CHECK_EQ_U(got, queued);
  fini();
}

int main(void)
{
  static const mcx_locking_t modes[] = {MCX_LOCKING_LOCKFREE, MCX_LOCKING_GLOBAL, MCX_LOCKING_KERNEL};
  for (unsigned m = 0; m < 4; m++) {
    locking = modes[m % 3];
    transport = m == 3 ? MCX_TRANSPORT_PMQ : MCX_TRANSPORT_SHM;
    dom = 70 + m;
    printf("-- locking mode %u, transport %s\n", m % 3, m == 3 ? "pmq" : "shm");
    RUN(unreachable_refuses_sends_and_wakes_blocked_senders);
  }
  return mcx_test_report();
}
