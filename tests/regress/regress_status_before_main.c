/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Symptom guarded against: a channel call that fails reports its status
 * through a table of the api's mapping, filled when the library loads; a
 * program's own constructor (a C++ static object, say) that calls MCAPI
 * before main, in a program linked with the static library, must find it
 * filled, not read a zero that is no status at all.
 *
 * This program's constructor runs before main and calls the channel data
 * calls as a thread that is no node; main checks each reported
 * MCAPI_ERR_NODE_NOTINIT, then the same calls again from main.
 */
#include "mcapi.h"
#include "mcx.h"
#include "mcx_test.h"

enum { SCL_SEND, SCL_RECV, PKT_SEND, PKT_RECV, PKT_RELEASE, PKT_ALLOC, PKT_COMMIT, NCALLS };
static const char *const names[NCALLS] = {"sclchan_send_uint64", "sclchan_recv_uint32",
                                          "pktchan_send",        "pktchan_recv",
                                          "pktchan_release",     "mcx_pktchan_send_alloc",
                                          "mcx_pktchan_send_commit"};

static void call_all(mcapi_status_t st[NCALLS])
{
  char bytes[8] = {0};
  void *got = NULL;
  size_t size = 0;
  mcapi_sclchan_send_uint64((mcapi_sclchan_send_hndl_t)0x1234, 7, &st[SCL_SEND]);
  (void)mcapi_sclchan_recv_uint32((mcapi_sclchan_recv_hndl_t)0x1234, &st[SCL_RECV]);
  mcapi_pktchan_send((mcapi_pktchan_send_hndl_t)0x1234, bytes, sizeof bytes, &st[PKT_SEND]);
  mcapi_pktchan_recv((mcapi_pktchan_recv_hndl_t)0x1234, &got, &size, &st[PKT_RECV]);
  mcapi_pktchan_release(bytes, &st[PKT_RELEASE]);
  (void)mcx_pktchan_send_alloc((mcapi_pktchan_send_hndl_t)0x1234, 8, &st[PKT_ALLOC]);
  mcx_pktchan_send_commit((mcapi_pktchan_send_hndl_t)0x1234, bytes, 8, &st[PKT_COMMIT]);
}

static mcapi_status_t early[NCALLS];

__attribute__((constructor)) static void before_main(void)
{
  call_all(early);
}

static void check(const mcapi_status_t st[NCALLS])
{
  for (int i = 0; i < NCALLS; i++) {
    if (st[i] != MCAPI_ERR_NODE_NOTINIT)
      fprintf(stderr, "%s:\n", names[i]);
    CHECK_STATUS(st[i], MCAPI_ERR_NODE_NOTINIT);
  }
}

TEST(calls_before_main_report_their_status) { check(early); }

TEST(calls_from_main_report_their_status)
{
  mcapi_status_t st[NCALLS];
  call_all(st);
  check(st);
}

int main(void)
{
  RUN(calls_before_main_report_their_status);
  RUN(calls_from_main_report_their_status);
  return mcx_test_report();
}
