/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Packet and scalar channel calls: argument checks and status mapping; the
 * work is the runtime's (src/runtime/chan*.c).
 *
 * A data call (send, receive, release, claim, commit) is its checks, then
 * the runtime's fast path, inlined here (runtime/chan_pkt.h,
 * runtime/chan_scl.h); when that misses, the call ends with the runtime's
 * slow path, which stores the status from this layer's mapping as a table
 * (mcx__chan_status, mcapi_status.c). The status is stored before the fast
 * path, whose notify is then its last step, and the slow path's replaces
 * it; so the status pointer lives across no call and the fast path saves
 * no register (docs/design.md, "Fast paths").
 */
#include "api/api.h"
#include "runtime/chan_pkt.h"
#include "runtime/chan_scl.h"

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
  /* mca-2.0.3: the handle is the endpoint's own, filled in at the call as
   * the reference does (its programs, and MCAPI 1.0 code written for
   * OpenMCAPI, may use it before the open completes); the completion writes
   * the same value. */
  if (mcx__ref())
    *handle = ep;
  e = mcx__chan_open_progress(ep, type, dir, handle);
  mcx__req_args_t a = {.kind = REQ_CHAN_OPEN, .ep = ep, .chan = type | dir << 8,
                       .out_handle = handle};
  start(&a, e, 0, request, mcapi_status);
}

/* @p leave: MCAPI 1.0's close (mcapi1.c), after which the endpoint is free
 * of the channel at once (mcx__chan_leave); 2.x keeps it connected until
 * both sides have closed. */
void mcx__chan_close_i(uint32_t handle, uint32_t type, uint32_t dir, bool leave,
                       mcapi_request_t *request, mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return;
  REQUIRE_NODE();
  if (!request) {
    SET(MCAPI_ERR_PARAMETER);
    return;
  }
  if (leave && (mcx__ref() || mcx__h_kind(handle) == MCX_HK_EP)) {
    /* 1.0: the endpoint's handle, which mcapi1.c's opens give until the
     * side's own is known (the mca-2.0.3 profile's side handle). A side
     * whose open still waits for its connection closes by withdrawing the
     * open (its request then says CHAN_NOTOPEN). */
    uint32_t side = 0, canon = 0;
    int r = mcx__chan_side_of_ep(handle, type, &canon, &side);
    if (r == MCX_OK && !mcx__ref())
      handle = canon;
    if (r == MCX_EOPENP && side != dir) {
      mcx__nb_fail(ST(MCX_ECHDIR), 0, request, mcapi_status);
      return;
    }
    if (r == MCX_EOPENP) {
      mcx__chan_open_withdraw(handle, dir);
      mcx__req_args_t a = {.kind = REQ_CHAN_CLOSE, .ep = 0, .chan = type | dir << 8};
      start(&a, MCX_OK, 0, request, mcapi_status);
      return;
    }
  }
  if (type == MCAPI_PKT_CHAN && dir == MCX_CHAN_SEND)
    mcx__pkt_claim_drop(handle); /* a claim of the side ends unsent */
  uint32_t canon = 0;
  int e = mcx__chan_close_start(handle, type, dir, &canon);
  if (e) {
    mcx__nb_fail(ST(e), 0, request, mcapi_status);
    return;
  }
  e = mcx__chan_close_progress(canon);
  if (leave && e == MCX_OK)
    mcx__chan_leave(canon);
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

MCX_API void mcapi_pktchan_send(mcapi_pktchan_send_hndl_t send_handle, const void *buffer,
                                size_t size, mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return;
  if (!buffer && size) {
    *mcapi_status = mcx__arg_error(MCAPI_ERR_PARAMETER);
    return;
  }
  *mcapi_status = MCAPI_SUCCESS;
  if (!mcx__pkt_send_fast(send_handle, buffer, size))
    mcx__pkt_send_slow(send_handle, buffer, size, mcapi_status, &mcx__chan_status);
}

/* Claim/commit sends (mcx.h): the fast paths inlined, as the send's. */
MCX_API void *mcx_pktchan_send_alloc(mcapi_pktchan_send_hndl_t send_handle, size_t size,
                                     mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return NULL;
  *mcapi_status = MCAPI_SUCCESS;
  void *p;
  if (__builtin_expect(!mcx__pkt_claim_fast(send_handle, size, &p), 0))
    return mcx__pkt_claim_slow(send_handle, size, mcapi_status, &mcx__chan_status);
  return p;
}

MCX_API void mcx_pktchan_send_commit(mcapi_pktchan_send_hndl_t send_handle, void *buffer,
                                     size_t size, mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return;
  if (!buffer) {
    *mcapi_status = mcx__arg_error(MCAPI_ERR_PARAMETER);
    return;
  }
  *mcapi_status = MCAPI_SUCCESS;
  if (!mcx__pkt_commit_fast(send_handle, buffer, size))
    mcx__pkt_commit_slow(send_handle, buffer, size, mcapi_status, &mcx__chan_status);
}

MCX_API void mcx_pktchan_send_abandon(mcapi_pktchan_send_hndl_t send_handle, void *buffer,
                                      mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return;
  if (!buffer) {
    *mcapi_status = mcx__arg_error(MCAPI_ERR_PARAMETER);
    return;
  }
  *mcapi_status = ST(mcx__pkt_abandon(send_handle, buffer));
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

MCX_API void mcapi_pktchan_recv(mcapi_pktchan_recv_hndl_t receive_handle, void **buffer,
                                size_t *received_size, mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return;
  if (!buffer || !received_size) {
    *mcapi_status = mcx__arg_error(MCAPI_ERR_PARAMETER);
    return;
  }
  *mcapi_status = MCAPI_SUCCESS;
  /* Receive requests this thread queued come first: the slow path waits
   * for them. */
  if (__builtin_expect(mcx__recv_queued != 0, 0) ||
      !mcx__pkt_recv_fast(receive_handle, buffer, received_size))
    mcx__pkt_recv_slow(receive_handle, buffer, received_size, mcapi_status, &mcx__chan_status);
}

MCX_API mcapi_uint_t mcapi_pktchan_available(mcapi_pktchan_recv_hndl_t receive_handle,
                                             mcapi_status_t *mcapi_status)
{
  return available(receive_handle, MCAPI_PKT_CHAN, mcapi_status);
}

MCX_API void mcapi_pktchan_release(void *buffer, mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return;
  *mcapi_status = MCAPI_SUCCESS;
  if (!mcx__pkt_release_fast(buffer))
    mcx__pkt_release_slow(buffer, mcapi_status, &mcx__chan_status);
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
  mcx__chan_close_i(receive_handle, MCAPI_PKT_CHAN, MCX_CHAN_RECV, false, request, mcapi_status);
}

MCX_API void mcapi_pktchan_send_close_i(mcapi_pktchan_send_hndl_t send_handle,
                                        mcapi_request_t *request, mcapi_status_t *mcapi_status)
{
  mcx__chan_close_i(send_handle, MCAPI_PKT_CHAN, MCX_CHAN_SEND, false, request, mcapi_status);
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

/* The scalar calls, one per width (no argument to check). A failed
 * receive returns 0. */
/* The scalar calls of one width: mcapi_sclchan_send_uint<BITS> and
 * mcapi_sclchan_recv_uint<BITS>, of BYTES bytes. */
#define SCALAR_CALLS(BITS, BYTES)                                                               \
  MCX_API void mcapi_sclchan_send_uint##BITS(mcapi_sclchan_send_hndl_t send_handle,             \
                                             mcapi_uint##BITS##_t dataword,                     \
                                             mcapi_status_t *mcapi_status)                      \
  {                                                                                             \
    if (!mcapi_status)                                                                          \
      return;                                                                                   \
    *mcapi_status = MCAPI_SUCCESS;                                                              \
    if (!mcx__scl_send_fast(send_handle, BYTES, dataword))                                      \
      mcx__scl_send_slow(send_handle, BYTES, dataword, mcapi_status, &mcx__chan_status);        \
  }                                                                                             \
                                                                                                \
  MCX_API mcapi_uint##BITS##_t mcapi_sclchan_recv_uint##BITS(                                   \
      mcapi_sclchan_recv_hndl_t receive_handle, mcapi_status_t *mcapi_status)                   \
  {                                                                                             \
    if (!mcapi_status)                                                                          \
      return 0;                                                                                 \
    *mcapi_status = MCAPI_SUCCESS;                                                              \
    uint64_t v;                                                                                 \
    if (mcx__scl_recv_fast(receive_handle, BYTES, &v))                                          \
      return (mcapi_uint##BITS##_t)v;                                                           \
    return (mcapi_uint##BITS##_t)mcx__scl_recv_slow(receive_handle, BYTES, mcapi_status,         \
                                                    &mcx__chan_status);                         \
  }

SCALAR_CALLS(64, 8)
SCALAR_CALLS(32, 4)
SCALAR_CALLS(16, 2)
SCALAR_CALLS(8, 1)

MCX_API mcapi_uint_t mcapi_sclchan_available(mcapi_sclchan_recv_hndl_t receive_handle,
                                             mcapi_status_t *mcapi_status)
{
  return available(receive_handle, MCAPI_SCL_CHAN, mcapi_status);
}

MCX_API void mcapi_sclchan_recv_close_i(mcapi_sclchan_recv_hndl_t receive_handle,
                                        mcapi_request_t *request, mcapi_status_t *mcapi_status)
{
  mcx__chan_close_i(receive_handle, MCAPI_SCL_CHAN, MCX_CHAN_RECV, false, request, mcapi_status);
}

MCX_API void mcapi_sclchan_send_close_i(mcapi_sclchan_send_hndl_t send_handle,
                                        mcapi_request_t *request, mcapi_status_t *mcapi_status)
{
  mcx__chan_close_i(send_handle, MCAPI_SCL_CHAN, MCX_CHAN_SEND, false, request, mcapi_status);
}
