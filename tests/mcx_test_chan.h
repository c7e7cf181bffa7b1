/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file mcx_test_chan.h
 * @brief The set-up channel tests share (mcx_test.h's CHECK macros): the
 * calling thread made a node of a given mode and profile, a channel connected
 * and opened at both ends, the packet pool's free buffers counted.
 */
#ifndef MCX_TEST_CHAN_H
#define MCX_TEST_CHAN_H

#include "mcapi.h"
#include "mcx.h"
#include "mcx_test.h"

/** Makes the calling thread node @p node of domain @p dom, locking mode
 * @p lk, profile @p compat (checked); its status. */
static inline mcapi_status_t mcx_test_node_init(mcapi_domain_t dom, mcapi_node_t node, mcx_locking_t lk,
                                                mcx_compat_t compat)
{
  mcapi_status_t st;
  mcapi_info_t info;
  mcapi_param_t p;
  mcx_param_init(&p);
  p.locking = lk;
  p.compat = compat;
  mcapi_initialize(dom, node, NULL, &p, &info, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  return st;
}

/** Finalizes the calling thread's node (checked). */
static inline void mcx_test_node_fini(void)
{
  mcapi_status_t st;
  mcapi_finalize(&st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
}

#ifdef MCX_RUNTIME_H
/** The buffers on the calling node's domain's packet pool (its free stack,
 * walked, bounded: nothing else may run on it meanwhile); 0 on pmq, which
 * has no pool (packets are copied out of the queue). */
static inline uint32_t mcx_test_pool_free(void)
{
  mcx__domain_t *d = mcx__self.dom;
  if (mcx_transport() == MCX_TRANSPORT_PMQ)
    return 0;
  uint32_t n = 0, top = (uint32_t)mcx_load_relaxed(&d->pkt_pool.hdr->head);
  while (top && top <= d->pkt_pool.n && n <= d->pkt_pool.n) {
    n++;
    top = mcx_load_relaxed(&d->pkt_pool.next[top - 1]);
  }
  return n;
}
#endif

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
