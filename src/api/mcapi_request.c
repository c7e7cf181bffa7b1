/* SPDX-License-Identifier: BSD-3-Clause */
/* Request calls: test, wait, wait_any, cancel. */
#include "api/api.h"

/* Maps a completed request's own result. */
static mcapi_status_t outcome(int result)
{
  if (result >= MCX_REQ_STATUS(0))
    return (mcapi_status_t)(result - MCX_REQ_STATUS(0));
  /* The request was started on a valid handle: one that went stale while it
   * was pending names an endpoint deleted meanwhile (the headers' word). */
  if (result == MCX_ESTALE)
    return MCAPI_ERR_ENDP_DELETED;
  return mcx__status(result, CTX_SEND);
}

void mcx__nb_fail(mcapi_status_t st, int send_call, mcapi_request_t *request,
                  mcapi_status_t *mcapi_status)
{
  if (mcx__ref()) {
    mcx__req_args_t done = {.kind = REQ_DONE};
    if (mcx__req_start(&done, 1, MCX_REQ_STATUS(st), 0, &request->mcx_handle) == MCX_OK &&
        send_call) {
      SET(MCAPI_SUCCESS);
      return;
    }
  }
  SET(st);
}

void mcx__nb_start(const mcx__req_args_t *a, mcx__ctx_t ctx, int send_call,
                   mcapi_request_t *request, mcapi_status_t *mcapi_status)
{
  uint32_t h = 0;
  int result = 0;
  size_t size = 0;
  int t = mcx__req_begin(a, &h, &result, &size);
  if (t < 0) {
    SET(MCAPI_ERR_REQUEST_LIMIT);
    return;
  }
  request->mcx_handle = h;
  if (t == 0) {
    SET(mcx__ref() ? MCAPI_SUCCESS : MCAPI_PENDING);
    return;
  }
  /* Completed at once. A truncated receive did complete: the request tells. */
  if (result == MCX_OK || result == MCX_ETRUNC) {
    SET(MCAPI_SUCCESS);
    return;
  }
  mcx__req_discard(h);
  mcx__nb_fail(mcx__status(result, ctx), send_call, request, mcapi_status);
}

MCX_API mcapi_boolean_t mcapi_test(mcapi_request_t *request, size_t *size,
                                   mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return MCAPI_FALSE;
  REQUIRE_NODE(MCAPI_FALSE);
  /* mca-2.0.3 reports its own errors as "done" (true), size first. */
  mcapi_boolean_t err_done = mcx__ref() ? MCAPI_TRUE : MCAPI_FALSE;
  if (!size) {
    SET(MCAPI_ERR_PARAMETER);
    return err_done;
  }
  if (!request) {
    SET(err_done ? MCAPI_ERR_REQUEST_INVALID : MCAPI_ERR_PARAMETER);
    return err_done;
  }
  int result = 0;
  size_t n = 0;
  int t = mcx__req_test(request->mcx_handle, &result, &n);
  if (t < 0) {
    SET(MCAPI_ERR_REQUEST_INVALID);
    return err_done;
  }
  if (t == 0) {
    SET(err_done ? MCAPI_SUCCESS : MCAPI_PENDING);
    return MCAPI_FALSE;
  }
  *size = n;
  SET(outcome(result));
  return MCAPI_TRUE;
}

MCX_API mcapi_boolean_t mcapi_wait(mcapi_request_t *request, size_t *size,
                                   mcapi_timeout_t timeout, mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return MCAPI_FALSE;
  REQUIRE_NODE(MCAPI_FALSE);
  if (!size) {
    SET(MCAPI_ERR_PARAMETER);
    return mcx__ref() ? MCAPI_TRUE : MCAPI_FALSE; /* mca-2.0.3: "done" */
  }
  if (!request) {
    SET(MCAPI_ERR_PARAMETER);
    return MCAPI_FALSE;
  }
  int result = 0;
  size_t n = 0;
  int t = mcx__req_wait(request->mcx_handle, timeout, &result, &n);
  if (t == MCX_ETIMEDOUT) {
    SET(MCAPI_TIMEOUT);
    return MCAPI_FALSE;
  }
  if (t < 0) {
    SET(MCAPI_ERR_REQUEST_INVALID);
    return MCAPI_FALSE;
  }
  *size = n;
  SET(outcome(result));
  return MCAPI_TRUE;
}

MCX_API mcapi_uint_t mcapi_wait_any(size_t number, mcapi_request_t **requests, size_t *size,
                                    mcapi_timeout_t timeout, mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return MCAPI_RETURN_VALUE_INVALID;
  REQUIRE_NODE(MCAPI_RETURN_VALUE_INVALID);
  if (!size) {
    SET(MCAPI_ERR_PARAMETER);
    return mcx__ref() ? MCAPI_TRUE : MCAPI_RETURN_VALUE_INVALID; /* as mca-2.0.3 does */
  }
  if (!requests || number == 0 || number > MCA_MAX_REQUESTS) {
    SET(MCAPI_ERR_PARAMETER);
    return MCAPI_RETURN_VALUE_INVALID;
  }
  uint32_t handles[MCA_MAX_REQUESTS];
  for (size_t i = 0; i < number; i++) {
    if (!requests[i]) {
      SET(MCAPI_ERR_PARAMETER);
      return MCAPI_RETURN_VALUE_INVALID;
    }
    handles[i] = requests[i]->mcx_handle;
  }
  int result = 0;
  size_t n = 0, idx = 0;
  int t = mcx__req_wait_any(number, handles, timeout, &idx, &result, &n);
  if (t == MCX_ETIMEDOUT) {
    SET(MCAPI_TIMEOUT);
    return MCAPI_RETURN_VALUE_INVALID;
  }
  if (t < 0) {
    SET(MCAPI_ERR_REQUEST_INVALID);
    return MCAPI_RETURN_VALUE_INVALID;
  }
  *size = n;
  SET(outcome(result));
  return (mcapi_uint_t)idx;
}

MCX_API void mcapi_cancel(mcapi_request_t *request, mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return;
  REQUIRE_NODE();
  if (!request) {
    SET(MCAPI_ERR_PARAMETER);
    return;
  }
  SET(mcx__status(mcx__req_cancel(request->mcx_handle), CTX_REQUEST));
}
