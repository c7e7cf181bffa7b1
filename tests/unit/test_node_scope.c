/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Node scope (docs/compat.md): with process scope, every thread of the
 * process is its node. Threads that never called mcapi_initialize send and
 * receive through it; several of them block on one endpoint, or on one
 * packet channel, at once and each message or packet goes to exactly one; a request one thread starts another
 * waits on; mcapi_finalize from any thread ends the node for all (their
 * next call hears NODE_NOTINIT, a receiver blocked in it returns) and a new
 * initialize gives them the new node. Thread scope, the default, is
 * unchanged: a thread that did not initialize is no node. A lock-free domain
 * is refused to a process-scope node.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "mcapi.h"
#include "mcx.h"
#include "mcx_test.h"

#define DOM 71
#define NODE 3

static void init_scope(mcx_node_scope_t scope, mcx_locking_t locking, mcapi_status_t *st)
{
  mcapi_param_t p;
  mcx_param_init(&p);
  p.node_scope = scope;
  p.locking = locking;
  mcapi_info_t info;
  mcapi_initialize(DOM, NODE, NULL, &p, &info, st);
}

static void init_process(void)
{
  mcapi_status_t st;
  init_scope(MCX_NODE_SCOPE_PROCESS, 0, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
}

static void fini(void)
{
  mcapi_status_t st;
  mcapi_finalize(&st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
}

/* ---- a thread that never initialized */
static mcapi_endpoint_t main_ep;

static void *plain_thread(void *arg)
{
  (void)arg;
  mcapi_status_t st;
  mcapi_node_t n = mcapi_node_id_get(&st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK_EQ_U(n, NODE);
  CHECK_EQ_U(mcapi_domain_id_get(&st), DOM);
  mcapi_endpoint_t me = mcapi_endpoint_create(2, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_msg_send(me, main_ep, "from a thread", 14, 1, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  char buf[32];
  size_t got = 0;
  mcapi_msg_recv(me, buf, sizeof buf, &got, &st); /* main's answer */
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(got == 7 && !memcmp(buf, "answer", 7));
  mcapi_endpoint_delete(me, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  return NULL;
}

TEST(threads_without_init_use_the_process_node)
{
  init_process();
  mcapi_status_t st;
  main_ep = mcapi_endpoint_create(1, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  pthread_t t;
  CHECK(pthread_create(&t, NULL, plain_thread, NULL) == 0);
  char buf[32];
  size_t got = 0;
  mcapi_msg_recv(main_ep, buf, sizeof buf, &got, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(got == 14 && !strcmp(buf, "from a thread"));
  /* The thread's endpoint is the node's: main finds it by (node, port). */
  mcapi_endpoint_t to = mcapi_endpoint_get(DOM, NODE, 2, MCA_INFINITE, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_msg_send(main_ep, to, "answer", 7, 1, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  pthread_join(t, NULL);
  /* A second initialize from any thread: the process already is the node. */
  init_scope(MCX_NODE_SCOPE_PROCESS, 0, &st);
  CHECK_STATUS(st, MCAPI_ERR_NODE_INITIALIZED);
  fini();
}

/* ---- thread scope: a thread that did not initialize is no node */
static void *no_node_thread(void *arg)
{
  mcapi_status_t st;
  (void)mcapi_node_id_get(&st);
  *(mcapi_status_t *)arg = st;
  return NULL;
}

TEST(thread_scope_is_unchanged)
{
  mcapi_status_t st;
  init_scope(MCX_NODE_SCOPE_THREAD, 0, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_status_t seen = MCAPI_SUCCESS;
  pthread_t t;
  CHECK(pthread_create(&t, NULL, no_node_thread, &seen) == 0);
  pthread_join(t, NULL);
  CHECK_STATUS(seen, MCAPI_ERR_NODE_NOTINIT);
  fini();
}

/* ---- several threads blocked at once */
#define NRECV 4
static atomic_long recv_tid[NRECV];
static atomic_int recv_got[NRECV];

static void *blocked_receiver(void *arg)
{
  int i = (int)(intptr_t)arg;
  atomic_store(&recv_tid[i], mcx_test_tid());
  mcapi_status_t st;
  uint32_t v = 0;
  size_t got = 0;
  mcapi_msg_recv(main_ep, &v, sizeof v, &got, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(got == sizeof v);
  atomic_store(&recv_got[i], (int)v);
  return NULL;
}

static int all_asleep(void *arg)
{
  (void)arg;
  for (int i = 0; i < NRECV; i++) {
    long tid = atomic_load(&recv_tid[i]);
    if (!tid || !mcx_test_thread_asleep(tid))
      return 0;
  }
  return 1;
}

static mcapi_request_t shared_req;
static atomic_int req_posted;
static uint32_t req_value;

static void *request_starter(void *arg)
{
  (void)arg;
  mcapi_status_t st;
  mcapi_endpoint_t ep = mcapi_endpoint_create(9, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_msg_recv_i(ep, &req_value, sizeof req_value, &shared_req, &st);
  CHECK_STARTED(st);
  atomic_store(&req_posted, 1);
  return NULL;
}

TEST(several_threads_block_at_once)
{
  init_process();
  mcapi_status_t st;
  main_ep = mcapi_endpoint_create(1, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_endpoint_t src = mcapi_endpoint_create(5, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  pthread_t t[NRECV];
  for (int i = 0; i < NRECV; i++) {
    atomic_store(&recv_tid[i], 0);
    atomic_store(&recv_got[i], -1);
    CHECK(pthread_create(&t[i], NULL, blocked_receiver, (void *)(intptr_t)i) == 0);
  }
  CHECK(mcx_test_wait_until(all_asleep, NULL, MCX_TEST_WAIT_MS));
  for (uint32_t v = 100; v < 100 + NRECV; v++) {
    mcapi_msg_send(src, main_ep, &v, sizeof v, 1, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
  }
  for (int i = 0; i < NRECV; i++)
    pthread_join(t[i], NULL);
  int seen = 0;
  for (int i = 0; i < NRECV; i++) {
    int v = atomic_load(&recv_got[i]);
    CHECK(v >= 100 && v < 100 + NRECV);
    if (v >= 100 && v < 100 + NRECV)
      seen |= 1 << (v - 100);
  }
  CHECK_EQ_U(seen, (1u << NRECV) - 1); /* each message once */
  /* A request one thread started, another waits on. */
  pthread_t s;
  CHECK(pthread_create(&s, NULL, request_starter, NULL) == 0);
  pthread_join(s, NULL);
  CHECK(atomic_load(&req_posted));
  mcapi_endpoint_t to = mcapi_endpoint_get(DOM, NODE, 9, MCA_INFINITE, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  uint32_t v = 777;
  mcapi_msg_send(src, to, &v, sizeof v, 1, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  size_t size = 0;
  CHECK(mcapi_wait(&shared_req, &size, MCA_INFINITE, &st));
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(size == sizeof v && req_value == 777);
  fini();
}

/* ---- several threads blocked on one packet channel */
static mcapi_pktchan_recv_hndl_t pkt_rx;

static void *pkt_receiver(void *arg)
{
  int i = (int)(intptr_t)arg;
  atomic_store(&recv_tid[i], mcx_test_tid());
  mcapi_status_t st;
  void *p = NULL;
  size_t got = 0;
  mcapi_pktchan_recv(pkt_rx, &p, &got, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(got == sizeof(uint32_t));
  uint32_t v = 0;
  if (p)
    memcpy(&v, p, sizeof v);
  atomic_store(&recv_got[i], (int)v);
  mcapi_pktchan_release(p, &st); /* a buffer another thread's receive took */
  CHECK_STATUS(st, MCAPI_SUCCESS);
  return NULL;
}

TEST(several_threads_block_on_a_channel)
{
  init_process();
  mcapi_status_t st;
  mcapi_endpoint_t tx = mcapi_endpoint_create(20, &st), rx = mcapi_endpoint_create(21, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_request_t r;
  size_t n;
  mcapi_pktchan_connect_i(tx, rx, &r, &st);
  CHECK(mcapi_wait(&r, &n, MCX_TEST_WAIT_MS, &st));
  mcapi_pktchan_send_hndl_t sh;
  mcapi_request_t r2;
  mcapi_pktchan_recv_open_i(&pkt_rx, rx, &r, &st);
  mcapi_pktchan_send_open_i(&sh, tx, &r2, &st);
  CHECK(mcapi_wait(&r, &n, MCX_TEST_WAIT_MS, &st));
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(mcapi_wait(&r2, &n, MCX_TEST_WAIT_MS, &st));
  CHECK_STATUS(st, MCAPI_SUCCESS);
  pthread_t t[NRECV];
  for (int i = 0; i < NRECV; i++) {
    atomic_store(&recv_tid[i], 0);
    atomic_store(&recv_got[i], -1);
    CHECK(pthread_create(&t[i], NULL, pkt_receiver, (void *)(intptr_t)i) == 0);
  }
  CHECK(mcx_test_wait_until(all_asleep, NULL, MCX_TEST_WAIT_MS));
  for (uint32_t v = 200; v < 200 + NRECV; v++) {
    mcapi_pktchan_send(sh, &v, sizeof v, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
  }
  for (int i = 0; i < NRECV; i++)
    pthread_join(t[i], NULL);
  int seen = 0;
  for (int i = 0; i < NRECV; i++) {
    int v = atomic_load(&recv_got[i]);
    if (v >= 200 && v < 200 + NRECV)
      seen |= 1 << (v - 200);
  }
  CHECK_EQ_U(seen, (1u << NRECV) - 1); /* each packet once */
  fini();
}

/* ---- finalize from one thread */
static atomic_int phase;
static atomic_long sleeper_tid;
static mcapi_status_t sleeper_status;

static void *finalizer(void *arg)
{
  (void)arg;
  mcapi_status_t st;
  mcapi_finalize(&st); /* the node was main's initialize */
  CHECK_STATUS(st, MCAPI_SUCCESS);
  atomic_store(&phase, 1);
  MCX_TEST_AWAIT(atomic_load(&phase) == 2); /* main initialized again */
  mcapi_node_t n = mcapi_node_id_get(&st); /* the new node */
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK_EQ_U(n, NODE);
  return NULL;
}

static void *sleeper(void *arg)
{
  (void)arg;
  atomic_store(&sleeper_tid, mcx_test_tid());
  char buf[8];
  size_t got;
  mcapi_msg_recv(main_ep, buf, sizeof buf, &got, &sleeper_status);
  return NULL;
}

static int sleeper_asleep(void *arg)
{
  (void)arg;
  long tid = atomic_load(&sleeper_tid);
  return tid && mcx_test_thread_asleep(tid);
}

TEST(finalize_from_one_thread)
{
  init_process();
  mcapi_status_t st;
  main_ep = mcapi_endpoint_create(1, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  atomic_store(&sleeper_tid, 0);
  sleeper_status = MCAPI_SUCCESS;
  pthread_t z;
  CHECK(pthread_create(&z, NULL, sleeper, NULL) == 0);
  CHECK(mcx_test_wait_until(sleeper_asleep, NULL, MCX_TEST_WAIT_MS));
  atomic_store(&phase, 0);
  pthread_t t;
  CHECK(pthread_create(&t, NULL, finalizer, NULL) == 0);
  MCX_TEST_AWAIT(atomic_load(&phase) == 1);
  CHECK(atomic_load(&phase) == 1);
  pthread_join(z, NULL); /* the blocked receive returned */
  CHECK(sleeper_status != MCAPI_SUCCESS);
  /* The node is gone for main too. */
  (void)mcapi_node_id_get(&st);
  CHECK_STATUS(st, MCAPI_ERR_NODE_NOTINIT);
  mcapi_msg_send(main_ep, main_ep, "x", 1, 1, &st);
  CHECK_STATUS(st, MCAPI_ERR_NODE_NOTINIT);
  mcapi_finalize(&st);
  CHECK_STATUS(st, MCAPI_ERR_NODE_NOTINIT);
  /* A new node: the thread that finalized takes it at its next call. */
  init_process();
  atomic_store(&phase, 2);
  pthread_join(t, NULL);
  fini();
}

TEST(a_lockfree_domain_is_refused)
{
  mcapi_status_t st;
  init_scope(MCX_NODE_SCOPE_PROCESS, MCX_LOCKING_LOCKFREE, &st);
  CHECK_STATUS(st, MCAPI_ERR_PARAMETER);
  (void)mcapi_node_id_get(&st);
  CHECK_STATUS(st, MCAPI_ERR_NODE_NOTINIT);
}

int main(void)
{
  unsetenv("MCX_NODE_SCOPE");
  unsetenv("MCX_LOCKING");
  RUN(thread_scope_is_unchanged);
  RUN(threads_without_init_use_the_process_node);
  RUN(several_threads_block_at_once);
  RUN(several_threads_block_on_a_channel);
  RUN(finalize_from_one_thread);
  RUN(a_lockfree_domain_is_refused);
  return mcx_test_report();
}
