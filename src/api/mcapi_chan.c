/* SPDX-License-Identifier: BSD-3-Clause */
/* Packet and scalar channel calls: argument checks and status mapping; the
 * work is in src/runtime/chan.c. */
#include "api/api.h"

#define ST(r) mcx__status((r), CTX_CHAN)

/* Starts a request whose operation already happened (or failed) or is pending. */
static void start(const mcx__req_args_t *a, int r, size_t size, mcapi_request_t *request,
                  mcapi_status_t *mcapi_status)
{
  if (r != MCX_OK && r != MCX_EAGAIN) {
    mcx__nb_fail(ST(r), 0, request, mcapi_status);
    return;
  }
  int done = r == MCX_OK;
  if (mcx__req_start(a, done, r, size, &request->mcx_handle)) {
    /* What already happened cannot be undone: report it, else the limit. */
    SET(done ? MCAPI_SUCCESS : MCAPI_ERR_REQUEST_LIMIT);
    return;
  }
  SET(done || mcx__ref() ? MCAPI_SUCCESS : MCAPI_PENDING);
}

static void connect_i(mcapi_endpoint_t s, mcapi_endpoint_t r, uint32_t type,
                      mcapi_request_t *request, mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return;
  REQUIRE_NODE();
  if (!request) {
    SET(MCAPI_ERR_PARAMETER);
    return;
  }
  int e = mcx__chan_connect(s, r, type);
  if (e) {
    mcx__nb_fail(ST(e), 0, request, mcapi_status);
    return;
  }
  mcx__req_args_t a = {.kind = REQ_CHAN_CONNECT, .ep = s, .ep2 = r, .chan = type};
  start(&a, MCX_OK, 0, request, mcapi_status);
}

static void open_i(uint32_t *handle, mcapi_endpoint_t ep, uint32_t type, uint32_t dir,
                   mcapi_request_t *request, mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return;
  REQUIRE_NODE();
  if (!handle || !request) {
    SET(MCAPI_ERR_PARAMETER);
    return;
  }
  int e = mcx__chan_open_start(ep, type, dir);
  if (e) {
    mcx__nb_fail(ST(e), 0, request, mcapi_status);
    return;
  }
  e = mcx__chan_open_progress(ep, type, dir, handle);
  mcx__req_args_t a = {.kind = REQ_CHAN_OPEN, .ep = ep, .chan = type | dir << 8,
                       .out_handle = handle};
  start(&a, e, 0, request, mcapi_status);
}

static void close_i(uint32_t handle, uint32_t type, uint32_t dir, mcapi_request_t *request,
                    mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return;
  REQUIRE_NODE();
  if (!request) {
    SET(MCAPI_ERR_PARAMETER);
    return;
  }
  uint32_t canon = 0;
  int e = mcx__chan_close_start(handle, type, dir, &canon);
  if (e) {
    mcx__nb_fail(ST(e), 0, request, mcapi_status);
    return;
  }
  e = mcx__chan_close_progress(canon);
  mcx__req_args_t a = {.kind = REQ_CHAN_CLOSE, .ep = canon, .chan = type | dir << 8};
  start(&a, e, 0, request, mcapi_status);
}

static mcapi_uint_t available(uint32_t handle, uint32_t type, mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return 0;
  REQUIRE_NODE(0);
  uint32_t n = 0;
  int e = mcx__chan_available(handle, type, &n);
  SET(ST(e));
  return e ? 0 : n;
}

/* ------------------------------------------------------ packet channels */

MCX_API void mcapi_pktchan_connect_i(mcapi_endpoint_t send_endpoint,
                                     mcapi_endpoint_t receive_endpoint, mcapi_request_t *request,
                                     mcapi_status_t *mcapi_status)
{
  connect_i(send_endpoint, receive_endpoint, MCAPI_PKT_CHAN, request, mcapi_status);
}

MCX_API void mcapi_pktchan_recv_open_i(mcapi_pktchan_recv_hndl_t *recv_handle,
                                       mcapi_endpoint_t receive_endpoint,
                                       mcapi_request_t *request, mcapi_status_t *mcapi_status)
{
  open_i(recv_handle, receive_endpoint, MCAPI_PKT_CHAN, MCX_CHAN_RECV, request, mcapi_status);
}

MCX_API void mcapi_pktchan_send_open_i(mcapi_pktchan_send_hndl_t *send_handle,
                                       mcapi_endpoint_t send_endpoint, mcapi_request_t *request,
                                       mcapi_status_t *mcapi_status)
{
  open_i(send_handle, send_endpoint, MCAPI_PKT_CHAN, MCX_CHAN_SEND, request, mcapi_status);
}

MCX_API void mcapi_pktchan_send_i(mcapi_pktchan_send_hndl_t send_handle, const void *buffer,
                                  size_t size, mcapi_request_t *request,
                                  mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return;
  REQUIRE_NODE();
  if (!request) {
    SET(MCAPI_ERR_PARAMETER);
    return;
  }
  if (!buffer && size) {
    mcx__nb_fail(MCAPI_ERR_PARAMETER, 1, request, mcapi_status);
    return;
  }
  mcx__req_args_t a = {.kind = REQ_PKT_SEND, .ep = send_handle, .cbuf = buffer, .size = size};
  mcx__nb_start(&a, CTX_CHAN, 1, request, mcapi_status);
}

static __attribute__((noinline)) void pkt_send_full(mcapi_pktchan_send_hndl_t send_handle,
                                                    const void *buffer, size_t size,
                                                    mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return;
  REQUIRE_NODE();
  if (!buffer && size) {
    SET(MCAPI_ERR_PARAMETER);
    return;
  }
  int r = mcx__pkt_send(send_handle, buffer, size);
  SET(r == MCX_OK ? MCAPI_SUCCESS : ST(r));
}

/* The fast path's second try (a node on the fast path): out of line, so the
 * straight path keeps no registers; then the full path. */
static __attribute__((noinline)) void pkt_send_other(mcapi_pktchan_send_hndl_t send_handle,
                                                     const void *buffer, size_t size,
                                                     mcapi_status_t *mcapi_status)
{
  if (mcx__pkt_send_other(mcx__self.fast, send_handle, buffer, size) == MCX_OK)
    return;
  pkt_send_full(send_handle, buffer, size, mcapi_status);
}

/* After the straight path missed: the second try, or, off the fast path (a
 * lock-based mode, pmq, no node), the full path at once. Two tail calls, no
 * frame: those modes pay a test, not a second try. */
static __attribute__((noinline)) void pkt_send_slow(mcapi_pktchan_send_hndl_t send_handle,
                                                    const void *buffer, size_t size,
                                                    mcapi_status_t *mcapi_status)
{
  if (mcx__self.fast)
    pkt_send_other(send_handle, buffer, size, mcapi_status);
  else
    pkt_send_full(send_handle, buffer, size, mcapi_status);
}

MCX_API void mcapi_pktchan_send(mcapi_pktchan_send_hndl_t send_handle, const void *buffer,
                                size_t size, mcapi_status_t *mcapi_status)
{
  if (__builtin_expect(mcapi_status != NULL, 1)) { /* as in scl_send */
    *mcapi_status = MCAPI_SUCCESS;
    /* Tested apart from the status (as in mcapi_msg_send). */
    if (__builtin_expect(!buffer && size, 0))
      goto full;
    if (__builtin_expect(mcx__pkt_send_fast(send_handle, buffer, size) == MCX_OK, 1))
      return;
    pkt_send_slow(send_handle, buffer, size, mcapi_status);
    return;
  }
full:
  pkt_send_full(send_handle, buffer, size, mcapi_status);
}

MCX_API void mcapi_pktchan_recv_i(mcapi_pktchan_recv_hndl_t receive_handle, void **buffer,
                                  mcapi_request_t *request, mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return;
  REQUIRE_NODE();
  if (!request) {
    SET(MCAPI_ERR_PARAMETER);
    return;
  }
  if (!buffer) {
    mcx__nb_fail(MCAPI_ERR_PARAMETER, 0, request, mcapi_status);
    return;
  }
  /* Joins the channel's receive queue: matched after earlier requests. */
  mcx__req_args_t a = {.kind = REQ_PKT_RECV, .ep = receive_handle, .buf = buffer};
  mcx__nb_start(&a, CTX_CHAN, 0, request, mcapi_status);
}

/* The full receive, continuing the wait @p spun (NULL: none; see
 * mcx__chan_recv_spin). */
static __attribute__((noinline)) void pkt_recv_full_spun(mcapi_pktchan_recv_hndl_t receive_handle,
                                                         void **buffer, size_t *received_size,
                                                         mcapi_status_t *mcapi_status,
                                                         const mcx__backoff_t *spun)
{
  if (!mcapi_status)
    return;
  REQUIRE_NODE();
  if (!buffer || !received_size) {
    SET(MCAPI_ERR_PARAMETER);
    return;
  }
  mcx__recv_after_queued(REQ_PKT_RECV, receive_handle);
  size_t got = 0;
  int e = mcx__pkt_recv_spun(receive_handle, buffer, &got, spun);
  if (e == MCX_OK)
    *received_size = got;
  SET(e == MCX_OK ? MCAPI_SUCCESS : ST(e));
}

static __attribute__((noinline)) void pkt_recv_full(mcapi_pktchan_recv_hndl_t receive_handle,
                                                    void **buffer, size_t *received_size,
                                                    mcapi_status_t *mcapi_status)
{
  pkt_recv_full_spun(receive_handle, buffer, received_size, mcapi_status, NULL);
}

/* As pkt_send_other. */
static __attribute__((noinline)) void pkt_recv_other(mcapi_pktchan_recv_hndl_t receive_handle,
                                                    void **buffer, size_t *received_size,
                                                    mcapi_status_t *mcapi_status)
{
  int e = mcx__pkt_recv_other(mcx__self.fast, receive_handle, buffer, received_size);
  if (e == MCX_OK)
    return;
  if (e != MCX_EAGAIN) { /* taken and dropped (corrupt) */
    *mcapi_status = ST(e);
    return;
  }
  /* Nothing there: the wait, its spin here, then the full path. */
  mcx__backoff_t b;
  e = mcx__pkt_recv_spin(receive_handle, buffer, received_size, &b);
  if (e == MCX_OK)
    return;
  if (e != MCX_EAGAIN) { /* taken and dropped (corrupt) */
    *mcapi_status = ST(e);
    return;
  }
  pkt_recv_full_spun(receive_handle, buffer, received_size, mcapi_status, &b);
}

/* As pkt_send_slow. */
static __attribute__((noinline)) void pkt_recv_slow(mcapi_pktchan_recv_hndl_t receive_handle,
                                                    void **buffer, size_t *received_size,
                                                    mcapi_status_t *mcapi_status)
{
  if (mcx__self.fast)
    pkt_recv_other(receive_handle, buffer, received_size, mcapi_status);
  else
    pkt_recv_full(receive_handle, buffer, received_size, mcapi_status);
}

MCX_API void mcapi_pktchan_recv(mcapi_pktchan_recv_hndl_t receive_handle, void **buffer,
                                size_t *received_size, mcapi_status_t *mcapi_status)
{
  /* Receive requests queued by this thread come first (the full path). */
  if (__builtin_expect(mcapi_status != NULL, 1)) {
    *mcapi_status = MCAPI_SUCCESS; /* as in scl_send */
    /* Tested apart from the status (as in mcapi_msg_send). */
    if (__builtin_expect(!buffer || !received_size || mcx__recv_queued, 0))
      goto full;
    if (__builtin_expect(mcx__pkt_recv_fast(receive_handle, buffer, received_size) == MCX_OK, 1))
      return;
    pkt_recv_slow(receive_handle, buffer, received_size, mcapi_status);
    return;
  }
full:
  pkt_recv_full(receive_handle, buffer, received_size, mcapi_status);
}

MCX_API mcapi_uint_t mcapi_pktchan_available(mcapi_pktchan_recv_hndl_t receive_handle,
                                             mcapi_status_t *mcapi_status)
{
  return available(receive_handle, MCAPI_PKT_CHAN, mcapi_status);
}

static __attribute__((noinline)) void pkt_release_full(void *buffer, mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return;
  REQUIRE_NODE();
  int r = mcx__pkt_release(buffer);
  SET(r == MCX_OK ? MCAPI_SUCCESS : ST(r));
}

MCX_API void mcapi_pktchan_release(void *buffer, mcapi_status_t *mcapi_status)
{
  /* A pointer, not a handle: the fast path's test is mcx__self.fast. */
  mcx__domain_t *d = mcx__self.fast;
  if (__builtin_expect(d && mcapi_status, 1)) {
    *mcapi_status = MCAPI_SUCCESS; /* as in scl_send */
    if (__builtin_expect(mcx__pkt_release_fast(d, buffer) == MCX_OK, 1))
      return;
  }
  pkt_release_full(buffer, mcapi_status);
}

MCX_API mcapi_boolean_t mcapi_pktchan_release_test(void *buffer, mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return MCAPI_FALSE;
  REQUIRE_NODE(MCAPI_FALSE);
  int e = mcx__pkt_release_test(buffer);
  if (e < 0) {
    SET(ST(e));
    return MCAPI_FALSE;
  }
  SET(MCAPI_SUCCESS);
  return e ? MCAPI_TRUE : MCAPI_FALSE;
}

MCX_API void mcapi_pktchan_recv_close_i(mcapi_pktchan_recv_hndl_t receive_handle,
                                        mcapi_request_t *request, mcapi_status_t *mcapi_status)
{
  close_i(receive_handle, MCAPI_PKT_CHAN, MCX_CHAN_RECV, request, mcapi_status);
}

MCX_API void mcapi_pktchan_send_close_i(mcapi_pktchan_send_hndl_t send_handle,
                                        mcapi_request_t *request, mcapi_status_t *mcapi_status)
{
  close_i(send_handle, MCAPI_PKT_CHAN, MCX_CHAN_SEND, request, mcapi_status);
}

/* ------------------------------------------------------ scalar channels */

MCX_API void mcapi_sclchan_connect_i(mcapi_endpoint_t send_endpoint,
                                     mcapi_endpoint_t receive_endpoint, mcapi_request_t *request,
                                     mcapi_status_t *mcapi_status)
{
  connect_i(send_endpoint, receive_endpoint, MCAPI_SCL_CHAN, request, mcapi_status);
}

MCX_API void mcapi_sclchan_recv_open_i(mcapi_sclchan_recv_hndl_t *receive_handle,
                                       mcapi_endpoint_t receive_endpoint,
                                       mcapi_request_t *request, mcapi_status_t *mcapi_status)
{
  open_i(receive_handle, receive_endpoint, MCAPI_SCL_CHAN, MCX_CHAN_RECV, request, mcapi_status);
}

MCX_API void mcapi_sclchan_send_open_i(mcapi_sclchan_send_hndl_t *send_handle,
                                       mcapi_endpoint_t send_endpoint, mcapi_request_t *request,
                                       mcapi_status_t *mcapi_status)
{
  open_i(send_handle, send_endpoint, MCAPI_SCL_CHAN, MCX_CHAN_SEND, request, mcapi_status);
}

/* The full scalar send and receive: every check, waiting, the other
 * transports and modes. Out of line, so the fast paths below stay small. */
static __attribute__((noinline)) void scl_send_full(uint32_t h, uint32_t width, uint64_t v,
                                                           mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return;
  REQUIRE_NODE();
  int r = mcx__scl_send(h, width, v);
  SET(r == MCX_OK ? MCAPI_SUCCESS : ST(r));
}

static uint64_t scl_recv_full_spun(uint32_t h, uint32_t width, mcapi_status_t *mcapi_status,
                                   const mcx__backoff_t *spun)
{
  if (!mcapi_status)
    return 0;
  REQUIRE_NODE(0);
  uint64_t v = 0;
  int e = mcx__scl_recv_spun(h, width, &v, spun);
  SET(e == MCX_OK ? MCAPI_SUCCESS : ST(e));
  return e ? 0 : v;
}

/* The full receive; after the fast path found nothing (@p mcapi_status
 * set), first the wait's spin (mcx__chan_recv_spin) and the fast path
 * again. */
static __attribute__((noinline)) uint64_t scl_recv_full(uint32_t h, uint32_t width,
                                                        mcapi_status_t *mcapi_status)
{
  if (!mcapi_status || !mcx__self.fast) /* the other modes: no fast path to spin on */
    return scl_recv_full_spun(h, width, mcapi_status, NULL);
  mcx__backoff_t b;
  uint64_t v;
  mcx__waitpoint_t *wp = mcx__scl_recv_spin(h, width, &v, &b);
  if (wp)
    return mcx__notify_fast_v(wp, v);
  return scl_recv_full_spun(h, width, mcapi_status, &b);
}

/* The fast path's send once the producer is at the limit it last read
 * (once a ring's capacity of sends): out of line, so the fast path reaches
 * it by a tail call and needs no frame. */
static __attribute__((noinline)) void scl_send_refill(uint32_t h, uint32_t width, uint64_t v,
                                                      mcapi_status_t *mcapi_status)
{
  if (mcx__scl_send_refill(h, width, v) != MCX_OK)
    scl_send_full(h, width, v, mcapi_status);
}

/* One attempt on the channel cache (chan.c). Where the thread does not take
 * the fast path (no node, another mode or transport, a fork child's copy)
 * its cache is the empty table, where no handle hits (mcx__chc_none). */
static inline __attribute__((always_inline)) void scl_send(uint32_t h, uint32_t width, uint64_t v,
                                                           mcapi_status_t *mcapi_status)
{
  if (__builtin_expect(mcapi_status != NULL, 1)) {
    /* Stored first: the fast path's notify is then its last step, and its
     * rare wake a tail call (no frame here). The full path stores its own. */
    *mcapi_status = MCAPI_SUCCESS;
    int r = mcx__scl_send_fast(h, width, v);
    if (__builtin_expect(r == MCX_OK, 1))
      return;
    if (r == MCX_SCL_LIMIT) {
      scl_send_refill(h, width, v, mcapi_status);
      return;
    }
  }
  scl_send_full(h, width, v, mcapi_status);
}

static inline __attribute__((always_inline)) uint64_t scl_recv(uint32_t h, uint32_t width,
                                                               mcapi_status_t *mcapi_status)
{
  uint64_t v;
  mcx__waitpoint_t *wp;
  if (__builtin_expect(mcapi_status != NULL, 1)) { /* as in scl_send */
    *mcapi_status = MCAPI_SUCCESS;
    if (__builtin_expect((wp = mcx__scl_recv_fast(h, width, &v)) != NULL, 1))
      return mcx__notify_fast_v(wp, v);
  }
  return scl_recv_full(h, width, mcapi_status);
}

MCX_API void mcapi_sclchan_send_uint64(mcapi_sclchan_send_hndl_t send_handle,
                                       mcapi_uint64_t dataword, mcapi_status_t *mcapi_status)
{
  scl_send(send_handle, 8, dataword, mcapi_status);
}
MCX_API void mcapi_sclchan_send_uint32(mcapi_sclchan_send_hndl_t send_handle,
                                       mcapi_uint32_t dataword, mcapi_status_t *mcapi_status)
{
  scl_send(send_handle, 4, dataword, mcapi_status);
}
MCX_API void mcapi_sclchan_send_uint16(mcapi_sclchan_send_hndl_t send_handle,
                                       mcapi_uint16_t dataword, mcapi_status_t *mcapi_status)
{
  scl_send(send_handle, 2, dataword, mcapi_status);
}
MCX_API void mcapi_sclchan_send_uint8(mcapi_sclchan_send_hndl_t send_handle,
                                      mcapi_uint8_t dataword, mcapi_status_t *mcapi_status)
{
  scl_send(send_handle, 1, dataword, mcapi_status);
}
MCX_API mcapi_uint64_t mcapi_sclchan_recv_uint64(mcapi_sclchan_recv_hndl_t receive_handle,
                                                 mcapi_status_t *mcapi_status)
{
  return scl_recv(receive_handle, 8, mcapi_status);
}
MCX_API mcapi_uint32_t mcapi_sclchan_recv_uint32(mcapi_sclchan_recv_hndl_t receive_handle,
                                                 mcapi_status_t *mcapi_status)
{
  return (mcapi_uint32_t)scl_recv(receive_handle, 4, mcapi_status);
}
MCX_API mcapi_uint16_t mcapi_sclchan_recv_uint16(mcapi_sclchan_recv_hndl_t receive_handle,
                                                 mcapi_status_t *mcapi_status)
{
  return (mcapi_uint16_t)scl_recv(receive_handle, 2, mcapi_status);
}
MCX_API mcapi_uint8_t mcapi_sclchan_recv_uint8(mcapi_sclchan_recv_hndl_t receive_handle,
                                               mcapi_status_t *mcapi_status)
{
  return (mcapi_uint8_t)scl_recv(receive_handle, 1, mcapi_status);
}

MCX_API mcapi_uint_t mcapi_sclchan_available(mcapi_sclchan_recv_hndl_t receive_handle,
                                             mcapi_status_t *mcapi_status)
{
  return available(receive_handle, MCAPI_SCL_CHAN, mcapi_status);
}

MCX_API void mcapi_sclchan_recv_close_i(mcapi_sclchan_recv_hndl_t receive_handle,
                                        mcapi_request_t *request, mcapi_status_t *mcapi_status)
{
  close_i(receive_handle, MCAPI_SCL_CHAN, MCX_CHAN_RECV, request, mcapi_status);
}

MCX_API void mcapi_sclchan_send_close_i(mcapi_sclchan_send_hndl_t send_handle,
                                        mcapi_request_t *request, mcapi_status_t *mcapi_status)
{
  close_i(send_handle, MCAPI_SCL_CHAN, MCX_CHAN_SEND, request, mcapi_status);
}
