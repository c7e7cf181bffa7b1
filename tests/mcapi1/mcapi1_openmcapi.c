/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MCAPI 1.0 calls in the situations OpenMCAPI's functional tests put them
 * in (docs/compat.md, "OpenMCAPI's functional tests"), one node, both ends:
 * the 1.0 attributes of an endpoint connected to a channel; a second open of
 * a side whose open is pending (1.0 has no "open pending" status).
 *
 * With MCX_NODE_SCOPE=process (test mcapi1_openmcapi_process) the process
 * is the node and the cases run on a thread that never initialized.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MCX_MCAPI1_DOMAIN 6
#include "mcapi1.h"
#include "mcx_test.h"
#include "mcapi1/mcapi1_test.h"

#define NODE 1


/* MCAPI_ATTR_RECV_BUFFERS_AVAILABLE of an endpoint whose packet or scalar
 * channel is connected and open (OpenMCAPI's 2.7.4 asks it of the send
 * side of its packet channel): success, and every receive slot free, as
 * for an endpoint with nothing queued. */
static void buffers_of_connected(int pkt)
{
  mcapi_status_t st;
  mcapi_endpoint_t tx = make(pkt ? 20 : 30), rx = make(pkt ? 21 : 31);
  mcapi_uint32_t bufs = 0, prios = 0, avail = 0;
  mcapi_get_endpoint_attribute(tx, MCAPI_ATTR_NO_BUFFERS, &bufs, sizeof bufs, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_get_endpoint_attribute(tx, MCAPI_ATTR_NO_PRIORITIES, &prios, sizeof prios, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_request_t cr, sr, rr;
  if (pkt)
    mcapi_connect_pktchan_i(tx, rx, &cr, &st);
  else
    mcapi_connect_sclchan_i(tx, rx, &cr, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  done(&cr);
  mcapi_pktchan_send_hndl_t psh = 0;
  mcapi_pktchan_recv_hndl_t prh = 0;
  mcapi_sclchan_send_hndl_t ssh = 0;
  mcapi_sclchan_recv_hndl_t srh = 0;
  if (pkt) {
    mcapi_open_pktchan_send_i(&psh, tx, &sr, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    mcapi_open_pktchan_recv_i(&prh, rx, &rr, &st);
  } else {
    mcapi_open_sclchan_send_i(&ssh, tx, &sr, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    mcapi_open_sclchan_recv_i(&srh, rx, &rr, &st);
  }
  CHECK_STATUS(st, MCAPI_SUCCESS);
  done(&sr);
  done(&rr);
  mcapi_endpoint_t ends[2] = {tx, rx};
  for (int i = 0; i < 2; i++) {
    avail = 0;
    mcapi_get_endpoint_attribute(ends[i], MCAPI_ATTR_RECV_BUFFERS_AVAILABLE, &avail,
                                 sizeof avail, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    CHECK_EQ_U(avail, (unsigned long)bufs * prios);
  }
  if (pkt)
    close_both(1, psh, prh);
  else
    close_both(0, ssh, srh);
  drop(tx);
  drop(rx);
}

TEST(recv_buffers_available_of_a_connected_endpoint)
{
  buffers_of_connected(1);
  buffers_of_connected(0);
}

/* A second open of the side of an endpoint whose open waits for its
 * connection: MCAPI_ECONNECTED (OpenMCAPI's 2.15.2, 2.16.2, 2.26.2, 2.27.2);
 * the first open is still pending, and completes once connected. */
TEST(second_open_of_a_pending_side)
{
  for (int k = 0; k < 4; k++) {
    int pkt = k < 2, recv = !(k & 1);
    mcapi_status_t st;
    mcapi_endpoint_t e = make((mcapi_port_t)(40 + 2 * k)),
                     peer = make((mcapi_port_t)(41 + 2 * k));
    mcapi_request_t r1, r2, cr, pr;
    uint32_t h = 0, ph = 0;
    size_t n = 0;
    for (int i = 0; i < 2; i++) {
      mcapi_request_t *r = i ? &r2 : &r1;
      if (pkt && recv)
        mcapi_open_pktchan_recv_i(&h, e, r, &st);
      else if (pkt)
        mcapi_open_pktchan_send_i(&h, e, r, &st);
      else if (recv)
        mcapi_open_sclchan_recv_i(&h, e, r, &st);
      else
        mcapi_open_sclchan_send_i(&h, e, r, &st);
      CHECK_STATUS(st, i ? MCAPI_ECONNECTED : MCAPI_SUCCESS);
    }
    CHECK(mcapi_test(&r1, &n, &st) == MCAPI_FALSE);
    CHECK_STATUS(st, MCAPI_INCOMPLETE);
    /* Connected and its peer opened: the first open completes. */
    mcapi_endpoint_t tx = recv ? peer : e, rx = recv ? e : peer;
    if (pkt)
      mcapi_connect_pktchan_i(tx, rx, &cr, &st);
    else
      mcapi_connect_sclchan_i(tx, rx, &cr, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    done(&cr);
    if (pkt && recv)
      mcapi_open_pktchan_send_i(&ph, peer, &pr, &st);
    else if (pkt)
      mcapi_open_pktchan_recv_i(&ph, peer, &pr, &st);
    else if (recv)
      mcapi_open_sclchan_send_i(&ph, peer, &pr, &st);
    else
      mcapi_open_sclchan_recv_i(&ph, peer, &pr, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    done(&r1);
    done(&pr);
    uint32_t sh = recv ? ph : h, rh = recv ? h : ph;
    close_both(pkt, sh, rh);
    drop(e);
    drop(peer);
  }
}

static void *cases(void *arg)
{
  (void)arg;
  RUN(recv_buffers_available_of_a_connected_endpoint);
  RUN(second_open_of_a_pending_side);
  return NULL;
}

int main(void)
{
  mcapi_status_t st;
  mcapi_version_t version = 0;
  mcapi_initialize(NODE, &version, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi1_run_cases(cases);
  mcapi_finalize(&st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  return mcx_test_report();
}
