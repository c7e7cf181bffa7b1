/* SPDX-License-Identifier: BSD-3-Clause */
/* MRAPI remote memory and requests: argument checks and the status mapping.
 * Contracts are in include/mrapi.h. */
#include <string.h>

#include "mrapi.h"
#include "mrapi/mrapi_domain.h"
#include "mrapi/mrapi_req.h"

#include "api/export.h"
#define API MCX_API

static mrapi_status_t map(int r)
{
  switch (r) {
  case MCX_OK:
    return MRAPI_SUCCESS;
  case MCX_ENOENT:
    return MRAPI_ERR_NODE_NOTINIT;
  case MCX_EINVAL:
  case MCX_ESTALE:
    return MRAPI_ERR_RMEM_INVALID;
  case MCX_EEXIST:
    return MRAPI_ERR_RMEM_EXISTS;
  case MCX_ENOMEM:
    return MRAPI_ERR_MEM_LIMIT;
  case MCX_EMR_ATTACHED:
    return MRAPI_ERR_RMEM_ATTACHED;
  case MCX_EMR_NOTATTACHED:
    return MRAPI_ERR_RMEM_NOTATTACHED;
  case MCX_EMR_ATYPE:
    return MRAPI_ERR_RMEM_ATYPE;
  case MCX_EMR_NOTOWNER:
    return MRAPI_ERR_RMEM_NOTOWNER;
  case MCX_EBUSY:
    return MRAPI_ERR_RMEM_ATTACH;
  case MCX_EMR_STRIDE:
    return MRAPI_ERR_RMEM_STRIDE;
  case MCX_EMR_OVERRUN:
    return MRAPI_ERR_RMEM_BUFF_OVERRUN;
  case MCX_ENOSYS:
    return MRAPI_ERR_NOT_SUPPORTED;
  case MCX_EMR_CONFLICT:
  default:
    return MRAPI_ERR_RMEM_CONFLICT;
  }
}

/* MRAPI_ERR_RMEM_TYPENOTVALID for no access type, ATYPE_NOTVALID for one not supported. */
static mrapi_status_t check_atype(mrapi_rmem_atype_t t)
{
  if ((unsigned)t > MRAPI_RMEM_DUMMY)
    return MRAPI_ERR_RMEM_TYPENOTVALID;
  if (t == MRAPI_RMEM_SWCACHE)
    return MRAPI_ERR_RMEM_ATYPE_NOTVALID;
  return MRAPI_SUCCESS;
}

static int is_node(void)
{
  uint32_t d, n;
  return mcx__mr_whoami(&d, &n) == MCX_OK;
}

API void mrapi_rmem_init_attributes(mrapi_rmem_attributes_t *attributes, mrapi_status_t *status)
{
  if (!status)
    return;
  if (!attributes) {
    *status = MRAPI_ERR_PARAMETER;
    return;
  }
  memset(attributes, 0, sizeof *attributes);
  *status = MRAPI_SUCCESS;
}

API void mrapi_rmem_set_attribute(mrapi_rmem_attributes_t *attributes, mrapi_uint_t attribute_num,
                                  const void *attribute, size_t attr_size, mrapi_status_t *status)
{
  if (!status)
    return;
  if (!attributes || !attribute) {
    *status = MRAPI_ERR_PARAMETER;
    return;
  }
  mca_boolean_t *field;
  if (attribute_num == MRAPI_ERROR_EXT)
    field = &attributes->error_ext;
  else if (attribute_num == MRAPI_DOMAIN_SHARED)
    field = &attributes->domain_shared;
  else {
    *status = MRAPI_ERR_ATTR_NUM;
    return;
  }
  if (attr_size != sizeof(mrapi_boolean_t)) {
    *status = MRAPI_ERR_ATTR_SIZE;
    return;
  }
  *field = *(const mrapi_boolean_t *)attribute ? MRAPI_TRUE : MRAPI_FALSE;
  *status = MRAPI_SUCCESS;
}

API void mrapi_rmem_get_attribute(mrapi_rmem_hndl_t rmem, mrapi_uint_t attribute_num, void *attribute,
                                  size_t attribute_size, mrapi_status_t *status)
{
  if (!status)
    return;
  mcx__mr_attrs_t a;
  int r = mcx__mr_attrs_of(MCX__MR_RMEM, rmem, &a);
  if (r != MCX_OK) {
    *status = map(r);
    return;
  }
  if (!attribute) {
    *status = MRAPI_ERR_PARAMETER;
    return;
  }
  if (attribute_num == MRAPI_SHMEM_SIZE) {
    if (attribute_size != sizeof(mrapi_uint_t)) {
      *status = MRAPI_ERR_ATTR_SIZE;
      return;
    }
    *(mrapi_uint_t *)attribute = a.limit;
    *status = MRAPI_SUCCESS;
    return;
  }
  if (attribute_num != MRAPI_ERROR_EXT && attribute_num != MRAPI_DOMAIN_SHARED) {
    *status = MRAPI_ERR_ATTR_NUM;
    return;
  }
  if (attribute_size != sizeof(mrapi_boolean_t)) {
    *status = MRAPI_ERR_ATTR_SIZE;
    return;
  }
  *(mrapi_boolean_t *)attribute = (mrapi_boolean_t)(attribute_num == MRAPI_ERROR_EXT ? a.error_ext : a.domain_shared);
  *status = MRAPI_SUCCESS;
}

API mrapi_rmem_hndl_t mrapi_rmem_create(mrapi_rmem_id_t rmem_id, const void *mem, mrapi_rmem_atype_t access_type,
                                        const mrapi_rmem_attributes_t *attributes, mrapi_uint_t size,
                                        mrapi_status_t *status)
{
  uint32_t h = 0;
  if (!status)
    return 0;
  if (!is_node()) {
    *status = MRAPI_ERR_NODE_NOTINIT;
    return 0;
  }
  if ((*status = check_atype(access_type)) != MRAPI_SUCCESS)
    return 0;
  if (!mem || size == 0) {
    *status = MRAPI_ERR_PARAMETER;
    return 0;
  }
  mcx__mr_attrs_t a = {0};
  if (attributes) {
    a.error_ext = attributes->error_ext;
    a.domain_shared = attributes->domain_shared;
  }
  a.limit = size;
  a.atype = (uint32_t)access_type;
  a.addr = (uint64_t)(uintptr_t)mem;
  *status = map(mcx__mr_create(MCX__MR_RMEM, (uint32_t)rmem_id, &a, &h));
  return *status == MRAPI_SUCCESS ? h : 0;
}

API mrapi_rmem_hndl_t mrapi_rmem_get(mrapi_rmem_id_t rmem_id, mrapi_rmem_atype_t access_type, mrapi_status_t *status)
{
  uint32_t h = 0;
  if (!status)
    return 0;
  if (!is_node()) {
    *status = MRAPI_ERR_NODE_NOTINIT;
    return 0;
  }
  if ((*status = check_atype(access_type)) != MRAPI_SUCCESS)
    return 0;
  int r = mcx__mr_rmem_get((uint32_t)rmem_id, (uint32_t)access_type, &h);
  *status = r == MCX_EINVAL ? MRAPI_ERR_RMEM_ID_INVALID : map(r);
  return r == MCX_OK ? h : 0;
}

API void mrapi_rmem_attach(mrapi_rmem_hndl_t rmem, mrapi_rmem_atype_t access_type, mrapi_status_t *status)
{
  if (!status)
    return;
  int r = mcx__mr_rmem_info(rmem, &(uint32_t){0}, &(uint32_t){0});
  if (r != MCX_OK) {
    *status = map(r);
    return;
  }
  if ((unsigned)access_type > MRAPI_RMEM_DUMMY) {
    *status = MRAPI_ERR_RMEM_TYPENOTVALID;
    return;
  }
  *status = map(mcx__mr_rmem_attach(rmem, (uint32_t)access_type));
}

API void mrapi_rmem_detach(mrapi_rmem_hndl_t rmem, mrapi_status_t *status)
{
  if (status)
    *status = map(mcx__mr_rmem_detach(rmem));
}

API void mrapi_rmem_delete(mrapi_rmem_hndl_t rmem, mrapi_status_t *status)
{
  if (!status)
    return;
  uint32_t d, n;
  if (mcx__mr_whoami(&d, &n) == MCX_OK)
    mcx__mr_req_drain(rmem); /* transfers this process queued on it finish first */
  *status = map(mcx__mr_delete(MCX__MR_RMEM, rmem));
}

/* One transfer, blocking (req NULL) or not. */
static void transfer(mrapi_rmem_hndl_t rmem, int write, mrapi_uint32_t rmem_offset, const void *local_buf,
                     mrapi_uint32_t local_offset, mrapi_uint32_t bpa, mrapi_uint32_t num_strides,
                     mrapi_uint32_t rmem_stride, mrapi_uint32_t local_stride, mrapi_request_t *req,
                     mrapi_status_t *status, int nonblocking)
{
  if (!status)
    return;
  uint32_t atype, size;
  int r = mcx__mr_rmem_info(rmem, &atype, &size);
  if (r != MCX_OK) {
    *status = map(r);
    return;
  }
  if (!local_buf || bpa == 0 || num_strides == 0 || (nonblocking && !req)) {
    *status = MRAPI_ERR_PARAMETER;
    return;
  }
  mcx__mr_xfer_t x = {rmem, write, rmem_offset, local_offset, bpa, num_strides, rmem_stride, local_stride,
                      (void *)(uintptr_t)local_buf};
  if (!nonblocking) {
    size_t bytes;
    r = mcx__mr_rmem_check(rmem, rmem_offset, bpa, num_strides, rmem_stride, local_stride);
    if (r == MCX_OK)
      r = mcx__mr_rmem_transfer(rmem, write, rmem_offset, x.local, local_offset, bpa, num_strides, rmem_stride,
                                local_stride, &bytes);
    *status = map(r);
    return;
  }
  uint32_t h = 0;
  r = mcx__mr_req_issue(&x, atype == MRAPI_RMEM_DMA, &h);
  if (r == MCX_ENOMEM) {
    *status = MRAPI_ERR_REQUEST_LIMIT;
    return;
  }
  if (r == MCX_OK)
    req->mcx_handle = h;
  *status = map(r);
}

API void mrapi_rmem_read(mrapi_rmem_hndl_t rmem, mrapi_uint32_t rmem_offset, void *local_buf,
                         mrapi_uint32_t local_offset, mrapi_uint32_t bytes_per_access, mrapi_uint32_t num_strides,
                         mrapi_uint32_t rmem_stride, mrapi_uint32_t local_stride, mrapi_status_t *status)
{
  transfer(rmem, 0, rmem_offset, local_buf, local_offset, bytes_per_access, num_strides, rmem_stride, local_stride,
           NULL, status, 0);
}

API void mrapi_rmem_read_i(mrapi_rmem_hndl_t rmem, mrapi_uint32_t rmem_offset, void *local_buf,
                           mrapi_uint32_t local_offset, mrapi_uint32_t bytes_per_access, mrapi_uint32_t num_strides,
                           mrapi_uint32_t rmem_stride, mrapi_uint32_t local_stride, mrapi_request_t *mrapi_request,
                           mrapi_status_t *status)
{
  transfer(rmem, 0, rmem_offset, local_buf, local_offset, bytes_per_access, num_strides, rmem_stride, local_stride,
           mrapi_request, status, 1);
}

API void mrapi_rmem_write(mrapi_rmem_hndl_t rmem, mrapi_uint32_t rmem_offset, const void *local_buf,
                          mrapi_uint32_t local_offset, mrapi_uint32_t bytes_per_access, mrapi_uint32_t num_strides,
                          mrapi_uint32_t rmem_stride, mrapi_uint32_t local_stride, mrapi_status_t *status)
{
  transfer(rmem, 1, rmem_offset, local_buf, local_offset, bytes_per_access, num_strides, rmem_stride, local_stride,
           NULL, status, 0);
}

API void mrapi_rmem_write_i(mrapi_rmem_hndl_t rmem, mrapi_uint32_t rmem_offset, const void *local_buf,
                            mrapi_uint32_t local_offset, mrapi_uint32_t bytes_per_access, mrapi_uint32_t num_strides,
                            mrapi_uint32_t rmem_stride, mrapi_uint32_t local_stride, mrapi_request_t *mrapi_request,
                            mrapi_status_t *status)
{
  transfer(rmem, 1, rmem_offset, local_buf, local_offset, bytes_per_access, num_strides, rmem_stride, local_stride,
           mrapi_request, status, 1);
}

static void flush(mrapi_rmem_hndl_t rmem, mrapi_status_t *status)
{
  if (!status)
    return;
  int r = mcx__mr_rmem_check(rmem, 0, 1, 1, 1, 1);
  if (r == MCX_OK || r == MCX_EMR_OVERRUN)
    mcx__mr_req_drain(rmem);
  *status = map(r == MCX_EMR_OVERRUN ? MCX_OK : r);
}

API void mrapi_rmem_flush(mrapi_rmem_hndl_t rmem, mrapi_status_t *status) { flush(rmem, status); }
API void mrapi_rmem_synch(mrapi_rmem_hndl_t rmem, mrapi_status_t *status) { flush(rmem, status); }

/* ------------------------------------------------------------ requests */

static mrapi_status_t req_status(int r, int result)
{
  switch (r) {
  case MCX_OK:
    return map(result);
  case MCX_EAGAIN:
    return MRAPI_INCOMPLETE;
  case MCX_ETIMEDOUT:
    return MRAPI_TIMEOUT;
  case MCX_ECANCELED:
    return MRAPI_ERR_REQUEST_CANCELED;
  default:
    return MRAPI_ERR_REQUEST_INVALID;
  }
}

API mrapi_boolean_t mrapi_test(const mrapi_request_t *request, size_t *size, mrapi_status_t *mrapi_status)
{
  if (!mrapi_status)
    return MRAPI_FALSE;
  if (!request) {
    *mrapi_status = MRAPI_ERR_REQUEST_INVALID;
    return MRAPI_FALSE;
  }
  size_t bytes = 0;
  int result = 0;
  int r = mcx__mr_req_wait(request->mcx_handle, 0, &bytes, &result);
  if (size && r == MCX_OK)
    *size = bytes;
  *mrapi_status = req_status(r, result);
  return r == MCX_OK || r == MCX_ECANCELED ? MRAPI_TRUE : MRAPI_FALSE;
}

API mrapi_boolean_t mrapi_wait(const mrapi_request_t *request, size_t *size, mrapi_timeout_t timeout,
                               mrapi_status_t *mrapi_status)
{
  if (!mrapi_status)
    return MRAPI_FALSE;
  if (!request) {
    *mrapi_status = MRAPI_ERR_REQUEST_INVALID;
    return MRAPI_FALSE;
  }
  size_t bytes = 0;
  int result = 0;
  int r = mcx__mr_req_wait(request->mcx_handle, timeout, &bytes, &result);
  if (r == MCX_EAGAIN)
    r = MCX_ETIMEDOUT; /* timeout 0 and not complete */
  if (size && r == MCX_OK)
    *size = bytes;
  *mrapi_status = req_status(r, result);
  return r == MCX_OK || r == MCX_ECANCELED ? MRAPI_TRUE : MRAPI_FALSE;
}

API mrapi_uint_t mrapi_wait_any(size_t number, const mrapi_request_t *requests, size_t *size,
                                mrapi_timeout_t timeout, mrapi_status_t *mrapi_status)
{
  if (!mrapi_status)
    return MRAPI_RETURN_VALUE_INVALID;
  if (!requests || number == 0) {
    *mrapi_status = MRAPI_ERR_PARAMETER;
    return MRAPI_RETURN_VALUE_INVALID;
  }
  size_t bytes = 0;
  int result = 0;
  _Static_assert(sizeof(mrapi_request_t) == sizeof(uint32_t), "a request is its handle");
  int r = mcx__mr_req_wait_any((const uint32_t *)(const void *)requests, number, timeout, &bytes, &result);
  if (r >= 0) {
    if (size)
      *size = bytes;
    *mrapi_status = result == MCX_ECANCELED ? MRAPI_ERR_REQUEST_CANCELED : map(result);
    return (mrapi_uint_t)r;
  }
  if (r == MCX_EAGAIN)
    r = MCX_ETIMEDOUT;
  *mrapi_status = req_status(r, 0);
  return MRAPI_RETURN_VALUE_INVALID;
}

API void mrapi_cancel(const mrapi_request_t *request, mrapi_status_t *mrapi_status)
{
  if (!mrapi_status)
    return;
  if (!request) {
    *mrapi_status = MRAPI_ERR_REQUEST_INVALID;
    return;
  }
  *mrapi_status = mcx__mr_req_cancel(request->mcx_handle) == MCX_OK ? MRAPI_SUCCESS : MRAPI_ERR_REQUEST_INVALID;
}
