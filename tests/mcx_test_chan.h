/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file mcx_test_chan.h
 * @brief A channel connected and opened at both ends, checked, for tests
 * that need one as their setup (mcx_test.h's CHECK macros).
 */
#ifndef MCX_TEST_CHAN_H
#define MCX_TEST_CHAN_H

#include "mcapi.h"
#include "mcx_test.h"

/** Connects @p tx to @p rx as a packet (@p pkt) or scalar channel and opens
 * both ends: the send handle in @p *sh, the receive handle in @p *rh. */
static inline void mcx_test_open_chan(mcapi_endpoint_t tx, mcapi_endpoint_t rx, int pkt,
                                      uint32_t *sh, uint32_t *rh)
{
  mcapi_status_t st;
  mcapi_request_t r, r2;
  size_t n;
  if (pkt)
    mcapi_pktchan_connect_i(tx, rx, &r, &st);
  else
    mcapi_sclchan_connect_i(tx, rx, &r, &st);
  mcapi_wait(&r, &n, MCX_TEST_WAIT_MS, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  if (pkt) {
    mcapi_pktchan_send_open_i(sh, tx, &r, &st);
    mcapi_pktchan_recv_open_i(rh, rx, &r2, &st);
  } else {
    mcapi_sclchan_send_open_i(sh, tx, &r, &st);
    mcapi_sclchan_recv_open_i(rh, rx, &r2, &st);
  }
  mcapi_wait(&r, &n, MCX_TEST_WAIT_MS, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_wait(&r2, &n, MCX_TEST_WAIT_MS, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
}

#endif
