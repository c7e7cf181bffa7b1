/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Packet and scalar receives that name the semaphore they lock next
 * (mcx_pktchan_recv_then_lock, mcx_sclchan_recv_uintN_then_lock): the
 * receiver owns S on return with the item, whether S was held by the sender
 * when it sent (the requeue path) or free; a scalar of another width gives
 * MCAPI_ERR_SCL_SIZE, is not consumed and leaves S free; MCX_NO_SEM is a
 * plain receive; a timeout takes nothing.
 */
#include <stdatomic.h>
#include <unistd.h>

#include "mcapi.h"
#include "mcx.h"
#include "mcx_sem.h"
#include "mcx_test.h"

static mcx_pisem_t S;
static atomic_int phase;
static atomic_long receiver_tid;

struct ctx {
  mcapi_endpoint_t pkt_in, scl_in;
  mcapi_pktchan_recv_hndl_t prh;
  mcapi_sclchan_recv_hndl_t srh;
};

static void node(mcapi_node_t id)
{
  mcapi_status_t st;
  mcapi_info_t info;
  mcapi_initialize(1, id, NULL, NULL, &info, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
}

static mcapi_status_t waitr(mcapi_request_t *r)
{
  mcapi_status_t st;
  size_t n;
  mcapi_wait(r, &n, MCX_TEST_WAIT_MS, &st);
  return st;
}

/* T2: the receiver. */
static void *receiver(void *arg)
{
  struct ctx *c = arg;
  mcapi_status_t st;
  mcapi_request_t r;
  node(2);
  c->pkt_in = mcapi_endpoint_create(5, &st);
  c->scl_in = mcapi_endpoint_create(6, &st);
  mcapi_pktchan_recv_open_i(&c->prh, c->pkt_in, &r, &st);
  CHECK_STATUS(waitr(&r), MCAPI_SUCCESS);
  mcapi_sclchan_recv_open_i(&c->srh, c->scl_in, &r, &st);
  CHECK_STATUS(waitr(&r), MCAPI_SUCCESS);
  atomic_store(&receiver_tid, mcx_test_tid());
  atomic_store(&phase, 1); /* open: the sender may start */

  /* 1. S held by the sender when it sends: we wake owning S. */
  void *buf;
  size_t n;
  CHECK(mcx_pktchan_recv_then_lock(c->prh, &buf, &n, &S, &st) == MCX_SEM_OK);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(n == 5 && !memcmp(buf, "first", 5));
  CHECK(mcx_pisem_trylock(&S) != MCX_SEM_OK); /* we hold it (not recursive) */
  mcapi_pktchan_release(buf, &st);
  CHECK(mcx_pisem_unlock(&S) == MCX_SEM_OK);
  atomic_store(&phase, 2);

  /* 2. A scalar while S is free. */
  uint64_t v = 0;
  CHECK(mcx_sclchan_recv_uint64_then_lock(c->srh, &v, &S, &st) == MCX_SEM_OK);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK_EQ_U(v, 0x1122334455667788ull);
  CHECK(mcx_pisem_unlock(&S) == MCX_SEM_OK);

  /* 3. Wrong width: SCL_SIZE, not consumed, S not held. */
  while (atomic_load(&phase) != 3)
    usleep(1000);
  uint8_t b8 = 0;
  CHECK(mcx_sclchan_recv_uint8_then_lock(c->srh, &b8, &S, &st) == MCX_SEM_NOT_LOCKED);
  CHECK_STATUS(st, MCAPI_ERR_SCL_SIZE);
  CHECK(mcx_pisem_trylock(&S) == MCX_SEM_OK);
  CHECK(mcx_pisem_unlock(&S) == MCX_SEM_OK);
  uint32_t v32 = 0;
  CHECK(mcx_sclchan_recv_uint32_then_lock(c->srh, &v32, &S, &st) == MCX_SEM_OK);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK_EQ_U(v32, 77);
  CHECK(mcx_pisem_unlock(&S) == MCX_SEM_OK);

  /* 4. MCX_NO_SEM: a plain receive. */
  CHECK(mcx_pktchan_recv_then_lock(c->prh, &buf, &n, MCX_NO_SEM, &st) == MCX_SEM_NOT_LOCKED);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_pktchan_release(buf, &st);

  /* 5. Timeout: nothing taken. */
  mcapi_timeout_t to = 20;
  mcapi_endpoint_set_attribute(c->pkt_in, MCAPI_ENDP_ATTR_TIMEOUT, &to, sizeof to, &st);
  CHECK(mcx_pktchan_recv_then_lock(c->prh, &buf, &n, &S, &st) == MCX_SEM_NOT_LOCKED);
  CHECK_STATUS(st, MCAPI_TIMEOUT);
  CHECK(mcx_pisem_trylock(&S) == MCX_SEM_OK);
  CHECK(mcx_pisem_unlock(&S) == MCX_SEM_OK);
  atomic_store(&phase, 4);
  while (atomic_load(&phase) != 5)
    usleep(1000);
  mcapi_finalize(&st);
  return NULL;
}

TEST(channel_receives_wake_owning_the_semaphore)
{
  CHECK(mcx_pisem_init(&S, 0) == MCX_SEM_OK);
  struct ctx c;
  memset(&c, 0, sizeof c);
  mcapi_status_t st;
  mcapi_request_t r;
  node(1);
  mcapi_endpoint_t po = mcapi_endpoint_create(1, &st), so = mcapi_endpoint_create(2, &st);
  pthread_t t;
  pthread_create(&t, NULL, receiver, &c);
  mcapi_endpoint_t pi = mcapi_endpoint_get(1, 2, 5, MCAPI_TIMEOUT_INFINITE, &st);
  mcapi_endpoint_t si = mcapi_endpoint_get(1, 2, 6, MCAPI_TIMEOUT_INFINITE, &st);
  mcapi_pktchan_connect_i(po, pi, &r, &st);
  CHECK_STATUS(waitr(&r), MCAPI_SUCCESS);
  mcapi_sclchan_connect_i(so, si, &r, &st);
  CHECK_STATUS(waitr(&r), MCAPI_SUCCESS);
  mcapi_pktchan_send_hndl_t psh;
  mcapi_sclchan_send_hndl_t ssh;
  mcapi_pktchan_send_open_i(&psh, po, &r, &st);
  CHECK_STATUS(waitr(&r), MCAPI_SUCCESS);
  mcapi_sclchan_send_open_i(&ssh, so, &r, &st);
  CHECK_STATUS(waitr(&r), MCAPI_SUCCESS);
  while (atomic_load(&phase) != 1)
    usleep(1000);
  /* Hold S, let the receiver fall asleep naming S, send, then release S. */
  CHECK(mcx_pisem_lock(&S, MCX_SEM_INFINITE) == MCX_SEM_OK);
  /* Event: the receiver is asleep in its receive (the test holds either way). */
  MCX_TEST_AWAIT(mcx_test_thread_asleep(atomic_load(&receiver_tid)));
  mcapi_pktchan_send(psh, "first", 5, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  /* Event: the receiver is asleep again, now on S (the send moved it there). */
  MCX_TEST_AWAIT(mcx_test_thread_asleep(atomic_load(&receiver_tid)));
  CHECK(mcx_pisem_unlock(&S) == MCX_SEM_OK);
  while (atomic_load(&phase) != 2)
    usleep(1000);
  mcapi_sclchan_send_uint64(ssh, 0x1122334455667788ull, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_sclchan_send_uint32(ssh, 77, &st);
  atomic_store(&phase, 3);
  mcapi_pktchan_send(psh, "plain", 5, &st);
  while (atomic_load(&phase) != 4)
    usleep(1000);
  atomic_store(&phase, 5);
  pthread_join(t, NULL);
  mcapi_finalize(&st);
}

int main(void)
{
  if (!getenv("MCX_NAMESPACE"))
    setenv("MCX_NAMESPACE", "test_chan_sem", 1);
  RUN(channel_receives_wake_owning_the_semaphore);
  return mcx_test_report();
}
