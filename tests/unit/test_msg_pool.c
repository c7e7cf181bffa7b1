/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The message payload pool: messages larger than a queue slot's 48 inline
 * bytes travel in buffers of one pool per domain (the msg_buffers init
 * parameter). Every case ends by counting the pool's free buffers the way
 * a program sees them (big messages a FAIL_ON_MEM_LIMIT sender can queue
 * before MCAPI_ERR_MEM_LIMIT), so a buffer lost on any path fails the case:
 * sizes on both sides of the inline limit, truncation, an empty pool
 * (MEM_LIMIT, TIMEOUT, a pending send_i that completes, inline messages
 * still passing), receive in place, an endpoint deleted with messages queued
 * or held, and (processes) a receiver killed holding buffers in place and a
 * sender killed while it waits for one. In the three locking modes.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#ifndef _WIN32
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

#include "mcapi.h"
#include "mcx.h"
#include "mcx_test.h"

#define NBUFS 8
#define BIG 700

static mcapi_domain_t dom;
static mcx_locking_t locking;
static mcapi_endpoint_t a; /* the sender used by every case */

static void fill(uint8_t *m, size_t n, uint32_t seed)
{
  for (size_t i = 0; i < n; i++)
    m[i] = (uint8_t)(seed * 31u + i * 7u + (i >> 8));
}

static int same(const uint8_t *m, size_t n, uint32_t seed)
{
  uint8_t want[1024];
  fill(want, n, seed);
  return memcmp(m, want, n) == 0;
}

static void set_fail(mcapi_endpoint_t e, mcapi_boolean_t on)
{
  mcapi_status_t st;
  mcapi_endpoint_set_attribute(e, MCAPI_ENDP_ATTR_FAIL_ON_MEM_LIMIT, &on, sizeof on, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
}

static void set_timeout(mcapi_endpoint_t e, mcapi_timeout_t t)
{
  mcapi_status_t st;
  mcapi_endpoint_set_attribute(e, MCAPI_ENDP_ATTR_TIMEOUT, &t, sizeof t, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
}

/* The pool's free buffers, seen from a program: big messages queued to a
 * fresh endpoint before MCAPI_ERR_MEM_LIMIT; each is then received and
 * checked, and the endpoint deleted. */
static unsigned free_buffers(void)
{
  mcapi_status_t st;
  mcapi_endpoint_t x = mcapi_endpoint_create(90, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  set_timeout(x, MCX_TEST_WAIT_MS);
  set_fail(a, MCA_TRUE);
  uint8_t m[BIG];
  unsigned n = 0;
  for (; n < 60; n++) {
    fill(m, sizeof m, 1000 + n);
    mcapi_msg_send(a, x, m, sizeof m, 1, &st);
    if (st != MCAPI_SUCCESS)
      break;
  }
  CHECK_STATUS(st, MCAPI_ERR_MEM_LIMIT);
  set_fail(a, MCA_FALSE);
  for (unsigned i = 0; i < n; i++) {
    size_t got = 0;
    mcapi_msg_recv(x, m, sizeof m, &got, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    CHECK(got == BIG && same(m, got, 1000 + i));
  }
  mcapi_endpoint_delete(x, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  return n;
}

static void init(void)
{
  mcapi_param_t p;
  mcx_param_init(&p);
  p.locking = locking;
  p.msg_buffers = NBUFS;
  p.queue_elements = 64; /* deeper than the pool: the pool runs out first */
  mcapi_info_t info;
  mcapi_status_t st;
  mcapi_initialize(dom, 1, NULL, &p, &info, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  a = mcapi_endpoint_create(1, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
}

static void fini(void)
{
  mcapi_status_t st;
  mcapi_finalize(&st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
}

/* Sizes around the inline limit, three priorities, checked byte for byte. */
TEST(sizes_and_priorities)
{
  init();
  mcapi_status_t st;
  mcapi_endpoint_t b = mcapi_endpoint_create(2, &st);
  set_timeout(b, MCX_TEST_WAIT_MS);
  static const size_t sizes[] = {0, 1, 47, 48, 49, 64, 100, 1023, 1024};
  enum { NS = sizeof sizes / sizeof sizes[0] };
  uint8_t m[1024];
  for (unsigned i = 0; i < NS; i++) {
    fill(m, sizes[i], i);
    mcapi_msg_send(a, b, m, sizes[i], 2 - i % 3, &st); /* priorities 2, 1, 0, ... */
    CHECK_STATUS(st, MCAPI_SUCCESS);
  }
  /* a message over the domain's limit is refused, nothing taken from the pool */
  mcapi_msg_send(a, b, m, 1025, 0, &st);
  CHECK_STATUS(st, MCAPI_ERR_MSG_SIZE);
  for (unsigned prio = 0; prio < 3; prio++)
    for (unsigned i = 0; i < NS; i++) {
      if (2 - i % 3 != prio)
        continue;
      size_t got = 99999;
      memset(m, 0xee, sizeof m);
      mcapi_msg_recv(b, m, sizeof m, &got, &st);
      CHECK_STATUS(st, MCAPI_SUCCESS);
      CHECK(got == sizes[i] && same(m, got, i));
    }
  /* truncated: the rest is dropped, the buffer goes back */
  fill(m, 900, 77);
  mcapi_msg_send(a, b, m, 900, 0, &st);
  uint8_t small[100];
  size_t got = 0;
  mcapi_msg_recv(b, small, sizeof small, &got, &st);
  CHECK_STATUS(st, MCAPI_ERR_MSG_TRUNCATED);
  CHECK(same(small, sizeof small, 77));
  CHECK_EQ_U(free_buffers(), NBUFS);
  fini();
}

/* An empty pool is a full queue for the send's rules. */
TEST(pool_exhausted)
{
  init();
  mcapi_status_t st;
  mcapi_endpoint_t b = mcapi_endpoint_create(2, &st);
  set_timeout(b, MCX_TEST_WAIT_MS);
  uint8_t m[BIG];
  for (unsigned i = 0; i < NBUFS; i++) {
    fill(m, sizeof m, i);
    mcapi_msg_send(a, b, m, sizeof m, 0, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
  }
  set_fail(a, MCA_TRUE);
  mcapi_msg_send(a, b, m, sizeof m, 0, &st);
  CHECK_STATUS(st, MCAPI_ERR_MEM_LIMIT);
  set_fail(a, MCA_FALSE);
  set_timeout(a, 30);
  mcapi_msg_send(a, b, m, sizeof m, 0, &st);
  CHECK_STATUS(st, MCAPI_TIMEOUT);
  set_timeout(a, MCAPI_TIMEOUT_INFINITE);
  /* inline messages do not need the pool */
  uint32_t small = 4242;
  mcapi_msg_send(a, b, &small, sizeof small, 0, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  /* a non-blocking send waits for a buffer, and completes once one is freed */
  fill(m, sizeof m, NBUFS);
  mcapi_request_t req;
  mcapi_msg_send_i(a, b, m, sizeof m, 0, &req, &st);
  CHECK_STARTED(st);
  size_t sz = 0;
  mcapi_boolean_t done = mcapi_test(&req, &sz, &st);
  CHECK(!done && st == MCAPI_PENDING);
  uint8_t r[BIG];
  size_t got = 0;
  mcapi_msg_recv(b, r, sizeof r, &got, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(got == BIG && same(r, got, 0));
  mcapi_wait(&req, &sz, MCX_TEST_WAIT_MS, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  /* everything arrives once, in order */
  for (unsigned i = 1; i <= NBUFS; i++) {
    mcapi_msg_recv(b, r, sizeof r, &got, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    if (i == NBUFS)
      CHECK(got == sizeof small); /* queued before the send_i's message */
    else
      CHECK(got == BIG && same(r, got, i));
  }
  mcapi_msg_recv(b, r, sizeof r, &got, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(got == BIG && same(r, got, NBUFS));
  CHECK_EQ_U(free_buffers(), NBUFS);
  fini();
}

/* Receive in place: a held big message holds its buffer until released, or
 * until its endpoint is deleted (then the release gives it back). */
TEST(in_place)
{
  init();
  mcapi_status_t st;
  mcapi_endpoint_t b = mcapi_endpoint_create(2, &st);
  set_timeout(b, MCX_TEST_WAIT_MS);
  uint8_t m[BIG];
  for (unsigned i = 0; i < 3; i++) {
    fill(m, sizeof m, 50 + i);
    mcapi_msg_send(a, b, m, sizeof m, 0, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
  }
  const void *h1, *h2;
  size_t n1 = 0, n2 = 0;
  mcx_msg_recv_inplace(b, &h1, &n1, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcx_msg_recv_inplace(b, &h2, &n2, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(n1 == BIG && same(h1, n1, 50) && n2 == BIG && same(h2, n2, 51));
  CHECK_EQ_U(free_buffers(), NBUFS - 3); /* two held, one queued */
  mcx_msg_release(h1, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcx_msg_release(h1, &st); /* twice: refused, nothing freed twice */
  CHECK_STATUS(st, MCAPI_ERR_PARAMETER);
  CHECK_EQ_U(free_buffers(), NBUFS - 2);
  /* deleted with one held and one queued */
  mcapi_endpoint_delete(b, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK_EQ_U(free_buffers(), NBUFS - 1); /* the held one stays the holder's */
  mcx_msg_release(h2, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK_EQ_U(free_buffers(), NBUFS);
  fini();
}

/* A node that keeps the domain (and its pool) alive while the main thread
 * finalizes and initializes again. */
static pthread_barrier_t keeper_bar;
static void *keeper(void *arg)
{
  (void)arg;
  mcapi_param_t p;
  mcx_param_init(&p);
  p.locking = locking;
  p.msg_buffers = NBUFS;
  p.queue_elements = 64;
  mcapi_info_t info;
  mcapi_status_t st;
  mcapi_initialize(dom, 7, NULL, &p, &info, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  pthread_barrier_wait(&keeper_bar); /* initialized */
  pthread_barrier_wait(&keeper_bar); /* the case is done */
  mcapi_finalize(&st);
  return NULL;
}

/* A finalize gives back what the node held in place. */
TEST(finalize_while_holding)
{
  init();
  pthread_t th;
  pthread_barrier_init(&keeper_bar, NULL, 2);
  pthread_create(&th, NULL, keeper, NULL);
  pthread_barrier_wait(&keeper_bar);
  mcapi_status_t st;
  mcapi_endpoint_t b = mcapi_endpoint_create(2, &st);
  uint8_t m[BIG];
  fill(m, sizeof m, 5);
  mcapi_msg_send(a, b, m, sizeof m, 0, &st);
  const void *h;
  size_t n = 0;
  mcx_msg_recv_inplace(b, &h, &n, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  fini();
  init(); /* the same partition: the keeper node is still in it */
  CHECK_EQ_U(free_buffers(), NBUFS);
  mcx_msg_release(h, &st); /* of the last incarnation: nothing to give back */
  CHECK_EQ_U(free_buffers(), NBUFS);
  fini();
  pthread_barrier_wait(&keeper_bar);
  pthread_join(th, NULL);
  pthread_barrier_destroy(&keeper_bar);
}

#ifndef _WIN32
/* Node @p node in a child; returns its endpoint 1's handle seen by us. */
static void child_init(uint32_t node, mcapi_endpoint_t *me)
{
  mcapi_param_t p;
  mcx_param_init(&p);
  p.locking = locking;
  p.msg_buffers = NBUFS;
  p.queue_elements = 64;
  mcapi_info_t info;
  mcapi_status_t st;
  mcapi_initialize(dom, node, NULL, &p, &info, &st);
  if (st != MCAPI_SUCCESS)
    _exit(10);
  *me = mcapi_endpoint_create(1, &st);
  if (st != MCAPI_SUCCESS)
    _exit(11);
}

/* Another node's init sweeps the dead ones. */
static void sweep_by_new_node(void)
{
  pid_t p = fork();
  if (p == 0) {
    mcapi_endpoint_t me;
    child_init(9, &me);
    mcapi_status_t st;
    mcapi_finalize(&st);
    _exit(0);
  }
  int ws = 0;
  waitpid(p, &ws, 0);
  CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
}

/* A receiver killed holding big messages in place, with more queued; a
 * sender killed while it waits for a buffer of an empty pool. */
TEST(killed_processes)
{
  init();
  mcapi_status_t st;
  pid_t p = fork();
  if (p == 0) {
    mcapi_endpoint_t me;
    child_init(2, &me);
    const void *h;
    size_t n;
    for (int i = 0; i < 3; i++) {
      mcx_msg_recv_inplace(me, &h, &n, &st);
      if (st != MCAPI_SUCCESS || n != BIG || !same(h, n, 70 + (uint32_t)i))
        _exit(12);
    }
    mcapi_endpoint_t parent = mcapi_endpoint_get(dom, 1, 1, MCX_TEST_WAIT_MS, &st);
    mcapi_msg_send(me, parent, "held", 4, 0, &st); /* three held, two queued */
    for (;;)
      pause();
  }
  mcapi_endpoint_t c = mcapi_endpoint_get(dom, 2, 1, MCX_TEST_WAIT_MS, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  uint8_t m[BIG];
  for (unsigned i = 0; i < 5; i++) {
    fill(m, sizeof m, 70 + i);
    mcapi_msg_send(a, c, m, sizeof m, 0, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
  }
  char note[8];
  size_t got = 0;
  set_timeout(a, MCX_TEST_WAIT_MS);
  mcapi_msg_recv(a, note, sizeof note, &got, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  kill(p, SIGKILL);
  waitpid(p, NULL, 0);
  sweep_by_new_node();
  CHECK_EQ_U(free_buffers(), NBUFS);

  /* the sender side: a child fills the pool towards our endpoint 3 (which
   * reads nothing) and blocks for one more buffer; killed there */
  mcapi_endpoint_t b = mcapi_endpoint_create(3, &st);
  set_timeout(b, MCX_TEST_WAIT_MS); /* a lost message fails the case instead of hanging it */
  p = fork();
  if (p == 0) {
    mcapi_endpoint_t me;
    child_init(3, &me);
    mcapi_endpoint_t to = mcapi_endpoint_get(dom, 1, 3, MCX_TEST_WAIT_MS, &st);
    uint8_t mm[BIG];
    for (uint32_t i = 0;; i++) {
      fill(mm, sizeof mm, 200 + i);
      mcapi_msg_send(me, to, mm, sizeof mm, 0, &st);
      if (st != MCAPI_SUCCESS)
        _exit(13);
    }
  }
  /* Event: it has queued all NBUFS, then it is asleep waiting for a buffer. */
  MCX_TEST_AWAIT(mcapi_msg_available(b, &st) >= NBUFS);
  CHECK_EQ_U(mcapi_msg_available(b, &st), NBUFS);
  MCX_TEST_AWAIT(mcx_test_process_asleep(p));
  kill(p, SIGKILL);
  int ws = 0;
  waitpid(p, &ws, 0);
  CHECK(WIFSIGNALED(ws)); /* it was still waiting, not failed */
  for (unsigned i = 0; i < NBUFS; i++) {
    mcapi_msg_recv(b, m, sizeof m, &got, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    CHECK(got == BIG && same(m, got, 200 + i));
  }
  sweep_by_new_node();
  CHECK_EQ_U(free_buffers(), NBUFS);
  fini();
}
#endif

int main(void)
{
  static const mcx_locking_t modes[] = {MCX_LOCKING_LOCKFREE, MCX_LOCKING_GLOBAL,
                                        MCX_LOCKING_KERNEL};
  for (unsigned k = 0; k < 3; k++) {
    locking = modes[k];
    dom = 84 + k;
    printf("-- %s locking\n", k == 0 ? "lock-free" : k == 1 ? "global" : "kernel");
    RUN(sizes_and_priorities);
    RUN(pool_exhausted);
    RUN(in_place);
    RUN(finalize_while_holding);
#ifndef _WIN32
    RUN(killed_processes);
#endif
  }
  return mcx_test_report();
}
