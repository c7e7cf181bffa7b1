/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Symptom: handle generations wrapped. After enough reuses of one endpoint
 * slot (the 17 bits of generation an endpoint handle carries) or of one
 * channel record (15 bits), a new endpoint or connection got the very handle
 * a deleted one had, so a stale handle was followed to it.
 *
 * Cases (spec profile): an endpoint slot brought to its last generation is
 * used once more, then retired: the next endpoint goes to another slot, and
 * the first handle the slot ever had stays refused; a packet channel
 * connected and closed 32,767 times between the same two endpoints never
 * hands out the handle of its first connection again, and that handle stays
 * refused; a request handle stays refused while its slot serves 65,536 more
 * requests (15 bits of generation wrapped after 32,767 reuses, and the
 * same slot served every request of a program that waits for each one). In
 * the mca-2.0.3 profile handles carry no generation (as in the
 * reference), so nothing is retired there.
 */
#include "mcapi.h"
#include "mcx.h"
#include "mcx_test.h"
#include "regress/regress_util.h"
#include "runtime/runtime.h"

#define DOM 11u

static void init(void)
{
  mcapi_info_t info;
  mcapi_status_t st;
  mcapi_initialize(DOM, 1, NULL, NULL, &info, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
}

static void fini(void)
{
  mcapi_status_t st;
  mcapi_finalize(&st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
}

/* A message to @p to fails: the handle no longer names an endpoint. */
static void refused(mcapi_endpoint_t from, mcapi_endpoint_t to)
{
  mcapi_status_t st;
  mcapi_msg_send(from, to, "x", 1, 1, &st);
  CHECK(st == MCAPI_ERR_ENDP_INVALID || st == MCAPI_ERR_ENDP_DELETED);
}

TEST(endpoint_slot_retired_at_its_last_generation)
{
  init();
  mcapi_status_t st;
  mcapi_endpoint_t from = mcapi_endpoint_create(1, &st);
  mcapi_endpoint_t first = mcapi_endpoint_create(5, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  uint32_t idx = mcx__h_idx(first);
  mcapi_endpoint_delete(first, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  /* Skip the slot's generations ahead to the last but one (131,070 create
   * and delete pairs would do the same, slowly). Free slot, one thread. */
  mcx__endpoint_t *e = &mcx__eps(mcx__self.dom)[idx];
  CHECK_EQ_U(mcx_load_relaxed(&e->state) & 0xffu, EP_FREE);
  mcx_store_relaxed(&e->state, (MCX_EP_GEN_MASK - 1) << 8 | EP_FREE);
  mcapi_endpoint_t last = mcapi_endpoint_create(5, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK_EQ_U(mcx__h_idx(last), idx); /* the lowest free slot: the same one */
  CHECK_EQ_U((last >> 12) & MCX_EP_GEN_MASK, MCX_EP_GEN_MASK);
  mcapi_endpoint_delete(last, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  for (int i = 0; i < 3; i++) {
    mcapi_endpoint_t next = mcapi_endpoint_create(5, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    CHECK(next != first && next != last);
    CHECK(mcx__h_idx(next) != idx); /* retired */
    refused(from, first);
    refused(from, last);
    mcapi_endpoint_delete(next, &st);
  }
  fini();
}

static mcapi_status_t wait_req(mcapi_request_t *r)
{
  size_t n;
  mcapi_status_t st;
  mcapi_wait(r, &n, MCX_TEST_WAIT_MS, &st);
  return st;
}

/* Connects @p a to @p b and opens both sides; the send handle. */
static mcapi_pktchan_send_hndl_t connect_open(mcapi_endpoint_t a, mcapi_endpoint_t b,
                                              mcapi_pktchan_recv_hndl_t *rh)
{
  mcapi_status_t st;
  mcapi_request_t r1, r2, r3;
  mcapi_pktchan_send_hndl_t sh;
  mcapi_pktchan_connect_i(a, b, &r1, &st);
  CHECK_STATUS(wait_req(&r1), MCAPI_SUCCESS);
  mcapi_pktchan_send_open_i(&sh, a, &r2, &st);
  mcapi_pktchan_recv_open_i(rh, b, &r3, &st);
  CHECK_STATUS(wait_req(&r2), MCAPI_SUCCESS);
  CHECK_STATUS(wait_req(&r3), MCAPI_SUCCESS);
  return sh;
}

static void close_both(mcapi_pktchan_send_hndl_t sh, mcapi_pktchan_recv_hndl_t rh)
{
  mcapi_status_t st;
  mcapi_request_t r1, r2;
  mcapi_pktchan_send_close_i(sh, &r1, &st);
  mcapi_pktchan_recv_close_i(rh, &r2, &st);
  CHECK_STATUS(wait_req(&r1), MCAPI_SUCCESS);
  CHECK_STATUS(wait_req(&r2), MCAPI_SUCCESS);
}

TEST(channel_record_retired_at_its_last_generation)
{
  init();
  mcapi_status_t st;
  mcapi_endpoint_t a = mcapi_endpoint_create(1, &st);
  mcapi_endpoint_t b = mcapi_endpoint_create(2, &st);
  mcapi_pktchan_recv_hndl_t rh0;
  mcapi_pktchan_send_hndl_t sh0 = connect_open(a, b, &rh0);
  close_both(sh0, rh0);
  /* Every generation a record's handles can carry, and one more. */
  int same = 0, ok = 1, failed_before = mcx_test_failures;
  for (uint32_t i = 0; i < 0x7fffu && ok; i++) {
    mcapi_pktchan_recv_hndl_t rh;
    mcapi_pktchan_send_hndl_t sh = connect_open(a, b, &rh);
    same += sh == sh0 || rh == rh0;
    mcapi_pktchan_send(sh0, "x", 1, &st);
    ok = st != MCAPI_SUCCESS; /* the first connection's handle stays refused */
    close_both(sh, rh);
    if (mcx_test_failures != failed_before)
      break;
  }
  CHECK(ok);
  CHECK_EQ_U(same, 0);
  fini();
}

TEST(stale_request_handle_stays_refused)
{
  init();
  mcapi_status_t st;
  mcapi_endpoint_t a = mcapi_endpoint_create(1, &st);
  char buf[8];
  size_t n;
  mcapi_request_t first, r;
  mcapi_msg_send_i(a, a, "x", 1, 1, &first, &st); /* completes at once */
  CHECK(st == MCAPI_SUCCESS || st == MCAPI_PENDING);
  mcapi_wait(&first, &n, MCX_TEST_WAIT_MS, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_msg_recv(a, buf, sizeof buf, &n, &st);
  /* Twice the reuses a 15-bit generation carries: a pending request in the
   * first one's slot never answers for the stale handle. */
  int followed = 0;
  for (uint32_t i = 0; i < 2 * 0x8000u && !followed; i++) {
    mcapi_msg_recv_i(a, buf, sizeof buf, &r, &st);
    CHECK_STATUS(st, MCAPI_PENDING);
    mcapi_test(&first, &n, &st);
    followed = st != MCAPI_ERR_REQUEST_INVALID;
    mcapi_cancel(&r, &st);
    mcapi_test(&r, &n, &st);
  }
  CHECK_EQ_U(followed, 0);
  fini();
}

int main(void)
{
  regress_watchdog(110);
  RUN(endpoint_slot_retired_at_its_last_generation);
  RUN(channel_record_retired_at_its_last_generation);
  RUN(stale_request_handle_stays_refused);
  return mcx_test_report();
}
