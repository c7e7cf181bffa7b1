/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receive in place (mcx_msg_recv_inplace / mcx_msg_release): messages come
 * in the order and priority mcapi_msg_recv gives them, their bytes are the
 * sender's, a held slot is not reused until released, bad releases and too
 * many holds get their statuses, a delete ends what is held, and a sender
 * thread streaming large messages to an in-place receiver loses, duplicates
 * and corrupts nothing. Every locking mode.
 */
#include <pthread.h>
#include <string.h>

#include "mcapi.h"
#include "mcx.h"
#include "mcx_test.h"

static mcapi_domain_t dom;
static mcx_locking_t locking;

static void init_node(mcapi_node_t node)
{
  mcapi_param_t p;
  mcx_param_init(&p);
  p.locking = locking;
  mcapi_info_t info;
  mcapi_status_t st;
  mcapi_initialize(dom, node, NULL, &p, &info, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
}

static void fini(void)
{
  mcapi_status_t st;
  mcapi_finalize(&st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
}

static void fill(char *b, size_t n, unsigned seed)
{
  for (size_t i = 0; i < n; i++)
    b[i] = (char)(seed * 131u + i * 7u);
}

static int same(const void *p, size_t n, unsigned seed)
{
  char want[MCAPI_MAX_MSG_SIZE];
  fill(want, n, seed);
  return memcmp(p, want, n) == 0;
}

TEST(order_priority_and_content)
{
  init_node(1);
  mcapi_status_t st;
  mcapi_endpoint_t a = mcapi_endpoint_create(1, &st);
  static const size_t sizes[] = {0, 10, 600, MCAPI_MAX_MSG_SIZE};
  char buf[MCAPI_MAX_MSG_SIZE];
  for (unsigned i = 0; i < 4; i++) {
    fill(buf, sizes[i], i);
    mcapi_msg_send(a, a, buf, sizes[i], 2, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
  }
  fill(buf, 7, 99);
  mcapi_msg_send(a, a, buf, 7, 0, &st); /* the highest priority: first out */
  const void *p[5];
  size_t n;
  mcx_msg_recv_inplace(a, &p[0], &n, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(n == 7 && same(p[0], 7, 99));
  for (unsigned i = 0; i < 4; i++) { /* held together, released later */
    mcx_msg_recv_inplace(a, &p[i + 1], &n, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    CHECK(n == sizes[i] && same(p[i + 1], n, i));
  }
  for (unsigned i = 0; i < 5; i++) {
    mcx_msg_release(p[i], &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
  }
  mcx_msg_release(p[0], &st); /* twice */
  CHECK_STATUS(st, MCAPI_ERR_PARAMETER);
  mcx_msg_release(buf, &st); /* never held */
  CHECK_STATUS(st, MCAPI_ERR_PARAMETER);
  mcapi_timeout_t t = 10;
  mcapi_endpoint_set_attribute(a, MCAPI_ENDP_ATTR_TIMEOUT, &t, sizeof t, &st);
  mcx_msg_recv_inplace(a, &p[0], &n, &st);
  CHECK_STATUS(st, MCAPI_TIMEOUT);
  mcx_msg_recv_inplace(a, NULL, &n, &st);
  CHECK_STATUS(st, MCAPI_ERR_PARAMETER);
  fini();
}

TEST(a_held_slot_is_not_reused_until_released)
{
  init_node(1);
  mcapi_status_t st;
  mcapi_endpoint_t a = mcapi_endpoint_create(1, &st);
  mcapi_uint_t two = 2;
  mcapi_endpoint_set_attribute(a, MCAPI_ENDP_ATTR_NUM_RECV_BUFFERS, &two, sizeof two, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_boolean_t yes = MCAPI_TRUE;
  mcapi_endpoint_set_attribute(a, MCAPI_ENDP_ATTR_FAIL_ON_MEM_LIMIT, &yes, sizeof yes, &st);
  mcapi_msg_send(a, a, "one", 4, 1, &st);
  mcapi_msg_send(a, a, "two", 4, 1, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  const void *p;
  size_t n;
  mcx_msg_recv_inplace(a, &p, &n, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(n == 4 && !memcmp(p, "one", 4));
  mcapi_msg_send(a, a, "three", 6, 1, &st); /* would go into the held slot */
  CHECK_STATUS(st, MCAPI_ERR_MEM_LIMIT);
  CHECK(!memcmp(p, "one", 4)); /* untouched */
  mcapi_uint_t four = 4;
  mcapi_endpoint_set_attribute(a, MCAPI_ENDP_ATTR_NUM_RECV_BUFFERS, &four, sizeof four, &st);
  CHECK(st != MCAPI_SUCCESS); /* not empty while held */
  mcx_msg_release(p, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_msg_send(a, a, "three", 6, 1, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  char buf[8];
  mcapi_msg_recv(a, buf, sizeof buf, &n, &st);
  CHECK(st == MCAPI_SUCCESS && !strcmp(buf, "two"));
  mcapi_msg_recv(a, buf, sizeof buf, &n, &st);
  CHECK(st == MCAPI_SUCCESS && !strcmp(buf, "three"));
  fini();
}

TEST(at_most_sixteen_held_and_delete_ends_them)
{
  init_node(1);
  mcapi_status_t st;
  mcapi_endpoint_t a = mcapi_endpoint_create(1, &st);
  for (int i = 0; i < 17; i++)
    mcapi_msg_send(a, a, &i, sizeof i, 1, &st);
  const void *p[17];
  size_t n;
  for (int i = 0; i < 16; i++) {
    mcx_msg_recv_inplace(a, &p[i], &n, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    CHECK(n == sizeof(int) && !memcmp(p[i], &i, sizeof i));
  }
  mcx_msg_recv_inplace(a, &p[16], &n, &st);
  CHECK_STATUS(st, MCAPI_ERR_MEM_LIMIT);
  mcapi_endpoint_delete(a, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_endpoint_t b = mcapi_endpoint_create(1, &st); /* may reuse the slot */
  mcapi_msg_send(b, b, "new", 4, 1, &st);
  mcx_msg_release(p[0], &st); /* ended by the delete: writes nothing */
  CHECK_STATUS(st, MCAPI_SUCCESS);
  char buf[8];
  mcapi_msg_recv(b, buf, sizeof buf, &n, &st);
  CHECK(st == MCAPI_SUCCESS && !strcmp(buf, "new"));
  /* the other fifteen are forgotten too: sixteen can be held again */
  for (int i = 0; i < 16; i++)
    mcapi_msg_send(b, b, &i, sizeof i, 1, &st);
  for (int i = 0; i < 16; i++) {
    mcx_msg_recv_inplace(b, &p[i], &n, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
  }
  for (int i = 0; i < 16; i++)
    mcx_msg_release(p[i], &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  fini();
}

#define STREAM_N 20000u

static void *stream_sender(void *arg)
{
  (void)arg;
  init_node(2);
  mcapi_status_t st;
  mcapi_endpoint_t me = mcapi_endpoint_create(1, &st);
  mcapi_endpoint_t to = mcapi_endpoint_get(dom, 1, 1, MCX_TEST_WAIT_MS, &st);
  char buf[MCAPI_MAX_MSG_SIZE];
  for (unsigned i = 0; i < STREAM_N && st == MCAPI_SUCCESS; i++) {
    size_t n = 8 + i % (MCAPI_MAX_MSG_SIZE - 8);
    fill(buf, n, i);
    memcpy(buf, &i, sizeof i);
    mcapi_msg_send(me, to, buf, n, 1, &st);
  }
  CHECK_STATUS(st, MCAPI_SUCCESS);
  fini();
  return NULL;
}

TEST(stream_from_another_thread)
{
  init_node(1);
  mcapi_status_t st;
  mcapi_endpoint_t a = mcapi_endpoint_create(1, &st);
  mcapi_timeout_t t = MCX_TEST_WAIT_MS;
  mcapi_endpoint_set_attribute(a, MCAPI_ENDP_ATTR_TIMEOUT, &t, sizeof t, &st);
  pthread_t th;
  pthread_create(&th, NULL, stream_sender, NULL);
  const void *held[3] = {0};
  unsigned bad = 0, i;
  for (i = 0; i < STREAM_N; i++) {
    const void *p;
    size_t n;
    mcx_msg_recv_inplace(a, &p, &n, &st);
    if (st != MCAPI_SUCCESS)
      break;
    unsigned seq;
    memcpy(&seq, p, sizeof seq);
    char want[MCAPI_MAX_MSG_SIZE];
    fill(want, n, i);
    bad += seq != i || n != 8 + i % (MCAPI_MAX_MSG_SIZE - 8) || memcmp((const char *)p + 4, want + 4, n - 4);
    /* hold up to three at a time, released oldest first */
    if (held[i % 3])
      mcx_msg_release(held[i % 3], &st);
    held[i % 3] = p;
  }
  for (unsigned k = 0; k < 3; k++)
    if (held[k])
      mcx_msg_release(held[k], &st);
  CHECK_EQ_U(i, STREAM_N);
  CHECK_EQ_U(bad, 0);
  pthread_join(th, NULL);
  fini();
}

int main(void)
{
  static const mcx_locking_t modes[] = {MCX_LOCKING_LOCKFREE, MCX_LOCKING_GLOBAL, MCX_LOCKING_KERNEL};
  for (unsigned m = 0; m < 3; m++) {
    locking = modes[m];
    dom = 60 + m;
    printf("-- locking mode %u\n", m);
    RUN(order_priority_and_content);
    RUN(a_held_slot_is_not_reused_until_released);
    RUN(at_most_sixteen_held_and_delete_ends_them);
    RUN(stream_from_another_thread);
  }
  return mcx_test_report();
}
