/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Channel steps the conformance programs share: a connect waited for, one
 * side's open by kind, and both sides opened and waited for. Any wrong
 * status ends the program (conf_check.h, included before this).
 */
#ifndef CONF_CHAN_H
#define CONF_CHAN_H

/* Connects a packet (@p pkt) or scalar channel from @p s to @p r and waits. */
static inline void conf_connect(mcapi_endpoint_t s, mcapi_endpoint_t r, int pkt)
{
  mcapi_status_t status;
  mcapi_request_t rc;
  size_t size;
  if (pkt)
    mcapi_pktchan_connect_i(s, r, &rc, &status);
  else
    mcapi_sclchan_connect_i(s, r, &rc, &status);
  mcapi_wait(&rc, &size, CONF_WAIT_MS, &status);
  CHECK(status, MCAPI_SUCCESS, "connect");
}

/* Starts the open of endpoint @p ep's side: packet (@p pkt) or scalar,
 * send (@p send) or receive; its handle at *@p h. */
static inline void conf_open(uint32_t *h, mcapi_endpoint_t ep, int pkt, int send,
                             mcapi_request_t *r, mcapi_status_t *status)
{
  if (pkt && send)
    mcapi_pktchan_send_open_i(h, ep, r, status);
  else if (pkt)
    mcapi_pktchan_recv_open_i(h, ep, r, status);
  else if (send)
    mcapi_sclchan_send_open_i(h, ep, r, status);
  else
    mcapi_sclchan_recv_open_i(h, ep, r, status);
}

/* Opens the send side on @p s and the receive side on @p r of their
 * connected channel and waits for both opens. */
static inline void conf_open_both(mcapi_endpoint_t s, mcapi_endpoint_t r, int pkt, uint32_t *sh,
                                  uint32_t *rh)
{
  mcapi_status_t status;
  mcapi_request_t r1, r2;
  size_t size;
  conf_open(sh, s, pkt, 1, &r1, &status);
  conf_open(rh, r, pkt, 0, &r2, &status);
  mcapi_wait(&r1, &size, CONF_WAIT_MS, &status);
  CHECK(status, MCAPI_SUCCESS, "send side open");
  mcapi_wait(&r2, &size, CONF_WAIT_MS, &status);
  CHECK(status, MCAPI_SUCCESS, "receive side open");
}

#endif
