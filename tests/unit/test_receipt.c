/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Delivery receipts (mcx_receipt_open, mcx_msg_send_receipted): the calls'
 * statuses, the receipt following the sends that queue (and not those that
 * fail), and the guarantee they exist for: a sender killed at any moment of
 * a receipted send leaves either its message queued and the receipt at its
 * value, or neither. A child process sends numbered messages (inline and
 * pool-sized) with their numbers as receipt values while this process
 * receives them; it is killed at a random moment, the receipt is opened
 * again (which settles the dead sender's send), and what arrived must be
 * exactly the numbers up to the receipt's value, in order, each once.
 * In the three locking modes.
 */
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
#include "runtime/runtime.h" /* to see whether a kill landed inside a send */

#define KEY UINT64_C(0x5245434549505431)

static mcapi_domain_t dom;
static mcx_locking_t locking;

static void params(mcapi_param_t *p)
{
  mcx_param_init(p);
  p->locking = locking;
  p->queue_elements = 16;
}

static void init(mcapi_node_t node)
{
  mcapi_param_t p;
  params(&p);
  mcapi_info_t info;
  mcapi_status_t st;
  mcapi_initialize(dom, node, NULL, &p, &info, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
}

static void set_attr_u32(mcapi_endpoint_t e, mcapi_uint_t num, mcapi_uint32_t v)
{
  mcapi_status_t st;
  mcapi_endpoint_set_attribute(e, num, &v, sizeof v, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
}

TEST(calls)
{
  mcapi_status_t st;
  mca_uint64_t v = 7;
  /* not a node yet */
  CHECK(mcx_receipt_open(KEY, &v, &st) == 0);
  CHECK_STATUS(st, MCAPI_ERR_NODE_NOTINIT);
  init(1);
  CHECK(mcx_receipt_open(0, &v, &st) == 0);
  CHECK_STATUS(st, MCAPI_ERR_PARAMETER);
  CHECK(mcx_receipt_open(KEY, NULL, &st) == 0);
  CHECK_STATUS(st, MCAPI_ERR_PARAMETER);
  mcx_receipt_t r = mcx_receipt_open(KEY, &v, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(r != 0);
  CHECK_EQ_U(v, 0);

  setvbuf(stdout, NULL, _IONBF, 0);
  mcapi_endpoint_t a = mcapi_endpoint_create(1, &st);
  mcapi_endpoint_t b = mcapi_endpoint_create(2, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  char m[200];
  memset(m, 'x', sizeof m);
  /* sends that queue set it, inline and pool-sized */
  mcx_msg_send_receipted(a, b, m, 8, 1, r, 11, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcx_msg_send_receipted(a, b, m, sizeof m, 0, r, 12, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(mcx_receipt_open(KEY, &v, &st) == r);
  CHECK_EQ_U(v, 12);
  CHECK_EQ_U(mcapi_msg_available(b, &st), 2);

  /* sends that fail leave it */
  mcx_msg_send_receipted(a, b, m, 8, 1, r + (1u << 8), 13, &st); /* another generation */
  CHECK_STATUS(st, MCAPI_ERR_PARAMETER);
  mcx_msg_send_receipted(a, b, m, 8, 1, 0, 13, &st);
  CHECK_STATUS(st, MCAPI_ERR_PARAMETER);
  mcx_msg_send_receipted(a, b, m, 8, MCAPI_MAX_PRIORITY + 1, r, 13, &st);
  CHECK_STATUS(st, MCAPI_ERR_PRIORITY);
  mcx_msg_send_receipted(a, b, NULL, 8, 1, r, 13, &st);
  CHECK_STATUS(st, MCAPI_ERR_PARAMETER);
  mcx_msg_send_receipted(a, b + 12345, m, 8, 1, r, 13, &st);
  CHECK(st != MCAPI_SUCCESS);
  mcapi_boolean_t on = MCA_TRUE;
  mcapi_endpoint_set_attribute(a, MCAPI_ENDP_ATTR_FAIL_ON_MEM_LIMIT, &on, sizeof on, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  set_attr_u32(a, MCAPI_ENDP_ATTR_TIMEOUT, 5000); /* a wrong outcome fails instead of hanging */
  unsigned queued = 2;
  for (; queued < 40; queued++) {
    mcx_msg_send_receipted(a, b, m, 8, 1, r, 100 + queued, &st);
    if (st != MCAPI_SUCCESS)
      break;
  }
  CHECK_STATUS(st, MCAPI_ERR_MEM_LIMIT); /* the queue of 16 is full */
  CHECK(mcx_receipt_open(KEY, &v, &st) == r);
  CHECK_EQ_U(v, 100 + queued - 1); /* the last one that was queued */
  CHECK_EQ_U(mcapi_msg_available(b, &st), queued);

  mcx_receipt_set(r, 5, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcx_receipt_open(KEY, &v, &st);
  CHECK_EQ_U(v, 5);
  mcx_receipt_set(r ^ 0x80u, 5, &st);
  CHECK_STATUS(st, MCAPI_ERR_PARAMETER);

  /* a table of 32: the 33rd key is refused; delete frees one */
  for (uint64_t k = 1; k < MCX_RECEIPTS; k++) {
    mcx_receipt_open(KEY + k, &v, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
  }
  CHECK(mcx_receipt_open(KEY + MCX_RECEIPTS, &v, &st) == 0);
  CHECK_STATUS(st, MCAPI_ERR_MEM_LIMIT);
  mcx_receipt_delete(KEY, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcx_receipt_delete(KEY, &st);
  CHECK_STATUS(st, MCAPI_ERR_PARAMETER);
  mcx_receipt_delete(0, &st);
  CHECK_STATUS(st, MCAPI_ERR_PARAMETER);
  mcx_msg_send_receipted(a, b, m, 8, 1, r, 1, &st); /* a deleted receipt's handle */
  CHECK_STATUS(st, MCAPI_ERR_PARAMETER);
  mcx_receipt_t r2 = mcx_receipt_open(KEY + MCX_RECEIPTS, &v, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(r2 != r && v == 0);
  for (uint64_t k = 1; k <= MCX_RECEIPTS; k++)
    mcx_receipt_delete(KEY + k, &st);
  mcapi_finalize(&st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
}

#ifndef _WIN32
#define ROUNDS 40

/* The child: numbered messages from @p first on, each with its number as
 * the receipt's value, until it is killed. */
/* A child's node 2 with an endpoint, this process's endpoint and the
 * receipt, which must read @p first - 1; exits on any failure. */
static void child_node(uint64_t first, mcapi_endpoint_t *me, mcapi_endpoint_t *to, mcx_receipt_t *r)
{
  mcapi_param_t p;
  params(&p);
  mcapi_info_t info;
  mcapi_status_t st;
  mcapi_initialize(dom, 2, NULL, &p, &info, &st);
  if (st != MCAPI_SUCCESS)
    _exit(10);
  *me = mcapi_endpoint_create(1, &st);
  *to = mcapi_endpoint_get(dom, 1, 1, MCX_TEST_WAIT_MS, &st);
  if (st != MCAPI_SUCCESS)
    _exit(11);
  mca_uint64_t v;
  *r = mcx_receipt_open(KEY, &v, &st);
  if (st != MCAPI_SUCCESS || v != first - 1)
    _exit(12);
}

static void sender(uint64_t first)
{
  mcapi_endpoint_t me, to;
  mcx_receipt_t r;
  mcapi_status_t st;
  child_node(first, &me, &to, &r);
  uint8_t m[120];
  for (uint64_t n = first;; n++) {
    memset(m, (int)(n & 0xff), sizeof m);
    memcpy(m, &n, sizeof n);
    mcx_msg_send_receipted(me, to, m, n % 3 ? 16 : sizeof m, 0, r, n, &st); /* inline and pool */
    if (st != MCAPI_SUCCESS)
      _exit(13);
  }
}

static int stop_at = -1;
static void kill_at_step(int step)
{
  if (step == stop_at)
    kill(getpid(), SIGKILL);
}

/* The child of killed_at_each_step: numbers first..first+2 sent, then
 * first+3 killed at step @p step of the receipt's protocol. */
static void stepped_sender(uint64_t first, int step, size_t size)
{
  mcapi_endpoint_t me, to;
  mcx_receipt_t r;
  mcapi_status_t st;
  child_node(first, &me, &to, &r);
  uint8_t m[120];
  for (uint64_t n = first; n < first + 4; n++) {
    if (n == first + 3) {
      stop_at = step;
      mcx__receipt_test_hook = kill_at_step;
    }
    memset(m, (int)(n & 0xff), sizeof m);
    memcpy(m, &n, sizeof n);
    mcx_msg_send_receipted(me, to, m, size, 0, r, n, &st);
    if (st != MCAPI_SUCCESS)
      _exit(13);
  }
  _exit(14); /* the hook never ran */
}

/* Takes one message if there is one; checks it is number *next. */
static int take(mcapi_endpoint_t e, uint64_t *next, unsigned *bad)
{
  mcapi_status_t st;
  uint8_t m[128];
  size_t got = 0;
  if (!mcapi_msg_available(e, &st))
    return 0;
  mcapi_msg_recv(e, m, sizeof m, &got, &st);
  if (st != MCAPI_SUCCESS)
    return 0; /* a tombstone took the place of the last one */
  uint64_t n;
  memcpy(&n, m, sizeof n);
  uint8_t want[120];
  memset(want, (int)(n & 0xff), sizeof want);
  memcpy(want, &n, sizeof n);
  if (n != *next || got != (n % 3 ? 16u : 120u) || memcmp(m, want, got) != 0) {
    if ((*bad)++ < 5)
      fprintf(stderr, "  got number %llu (%zu bytes), expected %llu\n", (unsigned long long)n, got,
              (unsigned long long)*next);
  }
  *next = n + 1;
  return 1;
}

/* A sender killed at each step of a receipted send, inline and pool-sized:
 * before its receipt names the send (0), after (1), after R1 (2), after its
 * in-flight record is cleared (3), after `done` is stored (4). From step 2 on
 * the message is queued, and the receipt must say so. */
TEST(killed_at_each_step)
{
  init(1);
  mcapi_status_t st;
  mcapi_endpoint_t e = mcapi_endpoint_create(1, &st);
  set_attr_u32(e, MCAPI_ENDP_ATTR_TIMEOUT, 2000);
  mca_uint64_t v = 0;
  mcx_receipt_open(KEY, &v, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  uint64_t next = 1;
  unsigned bad = 0;
  for (int step = 0; step <= 4; step++)
    for (int big = 0; big < 2; big++) {
      uint64_t first = v + 1;
      pid_t p = fork();
      if (p == 0)
        stepped_sender(first, step, big ? 120 : 16);
      int ws = 0;
      waitpid(p, &ws, 0);
      CHECK(WIFSIGNALED(ws) && WTERMSIG(ws) == SIGKILL);
      mcx_receipt_open(KEY, &v, &st);
      CHECK_STATUS(st, MCAPI_SUCCESS);
      CHECK_EQ_U(v, first + (step >= 2 ? 3 : 2));
      /* 16 and 120 bytes alternate in take()'s check by number: send sizes
       * here by number too */
      (void)big;
      uint64_t got_to = next;
      for (;;) {
        uint8_t m[128];
        size_t got = 0;
        if (!mcapi_msg_available(e, &st))
          break;
        mcapi_msg_recv(e, m, sizeof m, &got, &st);
        CHECK_STATUS(st, MCAPI_SUCCESS);
        uint64_t n;
        memcpy(&n, m, sizeof n);
        if (n != got_to || got != (big ? 120u : 16u))
          bad++;
        got_to = n + 1;
      }
      CHECK_EQ_U(got_to, v + 1);
      next = v + 1;
    }
  CHECK_EQ_U(bad, 0);
  mcx_receipt_delete(KEY, &st);
  mcapi_finalize(&st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
}

TEST(killed_senders)
{
  init(1);
  mcapi_status_t st;
  mcapi_endpoint_t e = mcapi_endpoint_create(1, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  set_attr_u32(e, MCAPI_ENDP_ATTR_TIMEOUT, 2000);
  mca_uint64_t v = 0;
  mcx_receipt_t r = mcx_receipt_open(KEY, &v, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcx__receipt_t *rc = mcx__receipt_get(mcx__self.dom, r);
  uint64_t next = 1; /* the number the next message must carry */
  unsigned bad = 0, in_send = 0, kills = 0;
  srand(12345u + (unsigned)locking);
  for (int round = 0; round < ROUNDS && !bad; round++) {
    uint64_t first = v + 1;
    pid_t p = fork();
    if (p == 0)
      sender(first);
    /* receive while it sends, for 1..8 ms */
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    long budget = 1000000L + (long)(rand() % 7000000);
    for (;;) {
      take(e, &next, &bad);
      clock_gettime(CLOCK_MONOTONIC, &t);
      if ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) > budget && next > first)
        break;
      if (t.tv_sec - t0.tv_sec > 10)
        break; /* it never sent: reported below */
    }
    kill(p, SIGKILL);
    int ws = 0;
    waitpid(p, &ws, 0);
    CHECK(WIFSIGNALED(ws)); /* still sending, not failed */
    kills++;
    in_send += mcx_load_relaxed(&rc->pend_rec) != 0; /* killed between naming and R1's clear */
    /* open settles the dead sender's send: v is the last number queued */
    mcx_receipt_t again = mcx_receipt_open(KEY, &v, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    CHECK(again == r);
    CHECK_EQ_U(mcx_load_relaxed(&rc->pend_rec), 0);
    while (take(e, &next, &bad))
      ;
    CHECK_EQ_U(mcapi_msg_available(e, &st), 0);
    if (next != v + 1 && bad++ < 5)
      fprintf(stderr, "  round %d: received up to %llu, receipt %llu\n", round,
              (unsigned long long)next - 1, (unsigned long long)v);
  }
  CHECK_EQ_U(bad, 0);
  printf("  %u kills, %u inside a receipted send's window, %llu messages\n", kills, in_send,
         (unsigned long long)v);
  mcx_receipt_delete(KEY, &st);
  mcapi_finalize(&st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
}
#endif

int main(void)
{
  static const mcx_locking_t modes[] = {MCX_LOCKING_LOCKFREE, MCX_LOCKING_GLOBAL,
                                        MCX_LOCKING_KERNEL};
  for (unsigned k = 0; k < 3; k++) {
    locking = modes[k];
    dom = 96 + k;
    printf("-- %s locking\n", k == 0 ? "lock-free" : k == 1 ? "global" : "kernel");
    RUN(calls);
#ifndef _WIN32
    RUN(killed_at_each_step);
    RUN(killed_senders);
#endif
  }
  return mcx_test_report();
}
