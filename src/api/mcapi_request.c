/* SPDX-License-Identifier: BSD-3-Clause */
/* Request calls: test, wait, wait_any, cancel. */
#include "api/api.h"

/* Maps a completed request's own result. */
static mcapi_status_t outcome(int result) { return mcx__status(result, CTX_SEND); }

MCX_API mcapi_boolean_t mcapi_test(mcapi_request_t *request, size_t *size,
                                   mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return MCAPI_FALSE;
  REQUIRE_NODE(MCAPI_FALSE);
  if (!request) {
    SET(MCAPI_ERR_PARAMETER);
    return MCAPI_FALSE;
  }
  int result = 0;
  size_t n = 0;
  int t = mcx__req_test(request->mcx_handle, &result, &n);
  if (t < 0) {
    SET(MCAPI_ERR_REQUEST_INVALID);
    return MCAPI_FALSE;
  }
  if (t == 0) {
    SET(MCAPI_PENDING);
    return MCAPI_FALSE;
  }
  if (size)
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
  if (size)
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
  if (size)
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
