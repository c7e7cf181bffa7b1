/* SPDX-License-Identifier: BSD-3-Clause */
/* Message calls. */
#include "api/api.h"

static mcapi_status_t send_status(int r)
{
  /* A stale receive handle is ENDP_INVALID up front, ENDP_DELETED once the
   * send had started (mcx__status maps ECLOSED). */
  return mcx__status(r, CTX_SEND);
}

MCX_API void mcapi_msg_send_i(mcapi_endpoint_t send_endpoint, mcapi_endpoint_t receive_endpoint,
                              const void *buffer, size_t buffer_size, mcapi_priority_t priority,
                              mcapi_request_t *request, mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return;
  REQUIRE_NODE();
  if (!request || (!buffer && buffer_size)) {
    SET(MCAPI_ERR_PARAMETER);
    return;
  }
  if (priority > MCAPI_MAX_PRIORITY) {
    SET(MCAPI_ERR_PRIORITY);
    return;
  }
  /* One attempt; it checks the handles and the size on its way. */
  int r = mcx__msg_try_send(send_endpoint, receive_endpoint, buffer, buffer_size, priority);
  if (r != MCX_OK && r != MCX_EAGAIN) {
    SET(send_status(r)); /* MEM_LIMIT (fail-on-mem-limit), ENDP_DELETED */
    return;
  }
  mcx__req_args_t a = {.kind = REQ_MSG_SEND, .ep = send_endpoint, .ep2 = receive_endpoint,
                       .prio = priority, .cbuf = buffer, .size = buffer_size};
  if (mcx__req_start(&a, r == MCX_OK, MCX_OK, buffer_size, &request->mcx_handle)) {
    /* Nothing can be reported later: undoing a queued message is impossible,
     * so a send that already went out still counts as sent. */
    SET(r == MCX_OK ? MCAPI_SUCCESS : MCAPI_ERR_REQUEST_LIMIT);
    return;
  }
  SET(MCAPI_PENDING);
}

MCX_API void mcapi_msg_send(mcapi_endpoint_t send_endpoint, mcapi_endpoint_t receive_endpoint,
                            const void *buffer, size_t buffer_size, mcapi_priority_t priority,
                            mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return;
  REQUIRE_NODE();
  if (!buffer && buffer_size) {
    SET(MCAPI_ERR_PARAMETER);
    return;
  }
  if (priority > MCAPI_MAX_PRIORITY) {
    SET(MCAPI_ERR_PRIORITY);
    return;
  }
  SET(send_status(mcx__msg_send(send_endpoint, receive_endpoint, buffer, buffer_size, priority)));
}

MCX_API void mcapi_msg_recv_i(mcapi_endpoint_t receive_endpoint, void *buffer, size_t buffer_size,
                              mcapi_request_t *request, mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return;
  REQUIRE_NODE();
  if (!request || !buffer) {
    SET(MCAPI_ERR_PARAMETER);
    return;
  }
  size_t got = 0; /* one attempt; it checks the handle on its way */
  int r = mcx__msg_try_recv(receive_endpoint, buffer, buffer_size, &got);
  int done = r != MCX_EAGAIN;
  mcx__req_args_t a = {.kind = REQ_MSG_RECV, .ep = receive_endpoint, .buf = buffer,
                       .size = buffer_size};
  if (done && r != MCX_OK && r != MCX_ETRUNC) {
    SET(mcx__status(r, CTX_RECV));
    return;
  }
  if (mcx__req_start(&a, done, r, got, &request->mcx_handle)) {
    SET(MCAPI_ERR_REQUEST_LIMIT);
    return;
  }
  SET(MCAPI_PENDING);
}

MCX_API void mcapi_msg_recv(mcapi_endpoint_t receive_endpoint, void *buffer, size_t buffer_size,
                            size_t *received_size, mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return;
  REQUIRE_NODE();
  if (!buffer || !received_size) {
    SET(MCAPI_ERR_PARAMETER);
    return;
  }
  size_t got = 0;
  int r = mcx__msg_recv(receive_endpoint, buffer, buffer_size, &got);
  if (r == MCX_OK || r == MCX_ETRUNC)
    *received_size = got;
  SET(mcx__status(r, CTX_RECV));
}

MCX_API mcapi_uint_t mcapi_msg_available(mcapi_endpoint_t receive_endpoint,
                                         mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return 0;
  REQUIRE_NODE(0);
  uint32_t n = 0;
  int r = mcx__msg_available(receive_endpoint, &n);
  SET(mcx__status(r, CTX_RECV));
  return r == MCX_OK ? n : 0;
}
