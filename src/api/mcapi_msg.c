/* SPDX-License-Identifier: BSD-3-Clause */
/* Message calls. */
#include "api/api.h"
#include "runtime/msg.h"

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
  if (!request) {
    SET(MCAPI_ERR_PARAMETER);
    return;
  }
  if (!buffer && buffer_size) {
    mcx__nb_fail(MCAPI_ERR_PARAMETER, 1, request, mcapi_status);
    return;
  }
  if (priority > MCAPI_MAX_PRIORITY) {
    mcx__nb_fail(MCAPI_ERR_PRIORITY, 1, request, mcapi_status);
    return;
  }
  /* The request first, then the attempt: nothing is sent without one. */
  mcx__req_args_t a = {.kind = REQ_MSG_SEND, .ep = send_endpoint, .ep2 = receive_endpoint,
                       .prio = priority, .cbuf = buffer, .size = buffer_size};
  mcx__nb_start(&a, CTX_SEND, 1, request, mcapi_status);
}

MCX_API void mcapi_msg_send(mcapi_endpoint_t send_endpoint, mcapi_endpoint_t receive_endpoint,
                            const void *buffer, size_t buffer_size, mcapi_priority_t priority,
                            mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return;
  if (__builtin_expect(!buffer && buffer_size, 0)) {
    *mcapi_status = mcx__arg_error(MCAPI_ERR_PARAMETER);
    return;
  }
  /* SUCCESS unless the send says otherwise. The node check and the
   * priority's range are the runtime's (MCX_ENODE, MCX_EPRIO). */
  *mcapi_status = MCAPI_SUCCESS;
  if (__builtin_expect(mcx__msg_send_fast(&send_endpoint, &receive_endpoint, buffer,
                                          buffer_size, &priority), 1))
    return;
  int r = mcx__msg_send_slow(send_endpoint, receive_endpoint, buffer, buffer_size, priority);
  if (r != MCX_OK)
    *mcapi_status = send_status(r);
}

MCX_API void mcapi_msg_recv_i(mcapi_endpoint_t receive_endpoint, void *buffer, size_t buffer_size,
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
  /* Joins the endpoint's receive queue: matched after earlier requests. */
  mcx__req_args_t a = {.kind = REQ_MSG_RECV, .ep = receive_endpoint, .buf = buffer,
                       .size = buffer_size};
  mcx__nb_start(&a, CTX_RECV, 0, request, mcapi_status);
}

MCX_API void mcapi_msg_recv(mcapi_endpoint_t receive_endpoint, void *buffer, size_t buffer_size,
                            size_t *received_size, mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return;
  if (__builtin_expect(!buffer || !received_size, 0)) {
    *mcapi_status = mcx__arg_error(MCAPI_ERR_PARAMETER);
    return;
  }
  /* SUCCESS unless the receive says otherwise (as in mcapi_msg_send). The
   * receive requests this thread queued before it go first (msg.h). */
  *mcapi_status = MCAPI_SUCCESS;
  if (__builtin_expect(mcx__msg_recv_fast(&receive_endpoint, buffer, buffer_size,
                                          received_size), 1))
    return;
  int r = mcx__msg_recv_slow(receive_endpoint, buffer, buffer_size, received_size);
  if (r != MCX_OK)
    *mcapi_status = mcx__status(r, CTX_RECV);
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

MCX_API void mcx_msg_recv_inplace(mcapi_endpoint_t receive_endpoint, const void **buffer,
                                  size_t *received_size, mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return;
  REQUIRE_NODE();
  if (!buffer || !received_size) {
    SET(MCAPI_ERR_PARAMETER);
    return;
  }
  mcx__recv_after_queued(REQ_MSG_RECV, receive_endpoint);
  const void *p = NULL;
  size_t n = 0;
  int r = mcx__msg_recv_inplace(receive_endpoint, &p, &n);
  if (r == MCX_OK) {
    *buffer = p;
    *received_size = n;
  }
  SET(r == MCX_ENOSYS ? MCAPI_ERR_GENERAL : mcx__status(r, CTX_RECV));
}

MCX_API void mcx_msg_release(const void *buffer, mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return;
  REQUIRE_NODE();
  int r = buffer ? mcx__msg_release_inplace(buffer) : MCX_EINVAL;
  SET(r == MCX_OK ? MCAPI_SUCCESS : MCAPI_ERR_PARAMETER);
}

MCX_API void mcx_endpoint_set_reachable(mcapi_endpoint_t endpoint, mcapi_boolean_t reachable,
                                        mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return;
  REQUIRE_NODE();
  int r = mcx__ep_set_reachable(endpoint, reachable != MCAPI_FALSE);
  SET(r == MCX_OK ? MCAPI_SUCCESS : r == MCX_EBUSY ? MCAPI_ERR_ENDP_INVALID : mcx__status(r, CTX_ENDPOINT));
}

MCX_API mcx_receipt_t mcx_receipt_open(mca_uint64_t key, mca_uint64_t *value, mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return 0;
  REQUIRE_NODE(0);
  if (!value || !key) {
    SET(MCAPI_ERR_PARAMETER);
    return 0;
  }
  uint32_t h = 0;
  uint64_t v = 0;
  int r = mcx__receipt_open(key, &h, &v);
  if (r == MCX_OK)
    *value = v;
  SET(r == MCX_OK ? MCAPI_SUCCESS : r == MCX_ENOMEM ? MCAPI_ERR_MEM_LIMIT : MCAPI_ERR_GENERAL);
  return r == MCX_OK ? h : 0;
}

MCX_API void mcx_receipt_set(mcx_receipt_t receipt, mca_uint64_t value, mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return;
  REQUIRE_NODE();
  SET(mcx__receipt_set(receipt, value) == MCX_OK ? MCAPI_SUCCESS : MCAPI_ERR_PARAMETER);
}

MCX_API void mcx_receipt_delete(mca_uint64_t key, mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return;
  REQUIRE_NODE();
  int r = mcx__receipt_delete(key);
  SET(r == MCX_OK ? MCAPI_SUCCESS : r == MCX_EIO ? MCAPI_ERR_GENERAL : MCAPI_ERR_PARAMETER);
}

MCX_API void mcx_msg_send_receipted(mcapi_endpoint_t send_endpoint, mcapi_endpoint_t receive_endpoint,
                                    const void *buffer, size_t buffer_size, mcapi_priority_t priority,
                                    mcx_receipt_t receipt, mca_uint64_t value,
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
  int r = mcx__msg_send_receipted(send_endpoint, receive_endpoint, buffer, buffer_size, priority,
                                  receipt, value);
  SET(r == MCX_EBADRCPT ? MCAPI_ERR_PARAMETER : send_status(r));
}
