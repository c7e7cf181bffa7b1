/* SPDX-License-Identifier: BSD-3-Clause */
/* MRAPI metadata: argument checks and the status mapping. Contracts are in
 * include/mrapi.h. */
#include "mrapi.h"
#include "mrapi/mrapi_domain.h"
#include "mrapi/mrapi_rsrc.h"

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
    return MRAPI_ERR_PARAMETER;
  case MCX_ENOMEM:
    return MRAPI_ERR_MEM_LIMIT;
  case MCX_EMR_RSRC_SUBSYS:
    return MRAPI_ERR_RSRC_INVALID_SUBSYSTEM;
  case MCX_EMR_RSRC_INVALID:
    return MRAPI_ERR_RSRC_INVALID;
  case MCX_EMR_RSRC_TREE:
    return MRAPI_ERR_RSRC_INVALID_TREE;
  case MCX_EMR_ATTR_NUM:
    return MRAPI_ERR_ATTR_NUM;
  case MCX_EMR_ATTR_SIZE:
    return MRAPI_ERR_ATTR_SIZE;
  case MCX_EMR_NOTDYNAMIC:
    return MRAPI_ERR_RSRC_NOTDYNAMIC;
  case MCX_EMR_NOTSTARTED:
    return MRAPI_ERR_RSRC_NOTSTARTED;
  case MCX_EMR_STARTED:
    return MRAPI_ERR_RSRC_STARTED;
  case MCX_EMR_EVENT:
    return MRAPI_ERR_RSRC_INVALID_EVENT;
  case MCX_EMR_CALLBACK:
    return MRAPI_ERR_RSRC_INVALID_CALLBACK;
  case MCX_EMR_NOTSUP:
  default:
    return MRAPI_ERR_NOT_SUPPORTED;
  }
}

API mrapi_resource_t *mrapi_resources_get(mrapi_rsrc_filter_t subsystem_filter, mrapi_status_t *status)
{
  mrapi_resource_t *root = NULL;
  if (!status)
    return NULL;
  *status = map(mcx__mr_rsrc_get((int)subsystem_filter, &root));
  return root;
}

API void mrapi_resource_tree_free(mrapi_resource_t *const *root_ptr, mrapi_status_t *status)
{
  if (!status)
    return;
  if (!root_ptr) {
    *status = MRAPI_ERR_RSRC_INVALID_TREE;
    return;
  }
  int r = mcx__mr_rsrc_free(*root_ptr);
  if (r == MCX_OK)
    *(mrapi_resource_t **)(uintptr_t)root_ptr = NULL;
  *status = map(r);
}

API void mrapi_resource_get_attribute(const mrapi_resource_t *resource, mrapi_uint_t attribute_number,
                                      void *attribute_value, size_t attr_size, mrapi_status_t *status)
{
  if (status)
    *status = map(mcx__mr_rsrc_attr(resource, attribute_number, attribute_value, attr_size));
}

API void mrapi_dynamic_attribute_start(const mrapi_resource_t *resource, mrapi_uint_t attribute_number,
                                       void (*rollover_callback)(void), mrapi_status_t *status)
{
  if (status)
    *status = map(mcx__mr_rsrc_start(resource, attribute_number, rollover_callback));
}

API void mrapi_dynamic_attribute_reset(const mrapi_resource_t *resource, mrapi_uint_t attribute_number,
                                       mrapi_status_t *status)
{
  if (status)
    *status = map(mcx__mr_rsrc_reset(resource, attribute_number));
}

API void mrapi_dynamic_attribute_stop(const mrapi_resource_t *resource, mrapi_uint_t attribute_number,
                                      mrapi_status_t *status)
{
  if (status)
    *status = map(mcx__mr_rsrc_stop(resource, attribute_number));
}

API void mrapi_resource_register_callback(mrapi_event_t event, unsigned int frequency,
                                          void (*callback_function)(mrapi_event_t event), mrapi_status_t *status)
{
  if (status)
    *status = map(mcx__mr_rsrc_register((int)event, frequency, callback_function));
}

API void mrapi_resource_unregister_callback(mrapi_event_t event, void (*callback_function)(mrapi_event_t event),
                                            mrapi_status_t *status)
{
  if (status)
    *status = map(mcx__mr_rsrc_unregister((int)event, callback_function));
}

/* The reference's test hooks: only a node of a domain in the mca-2.0.3
 * profile moves a counter; elsewhere they do nothing. */
API void mrapi_impl_increment_cache_hits(mrapi_resource_t *resource, int increment)
{
  if (mcx__mr_profile() == MCX__MR_PROFILE_MCA203)
    (void)mcx__mr_rsrc_bump(resource, increment);
}

API void mrapi_impl_trigger_rollover(uint16_t index)
{
  if (mcx__mr_profile() == MCX__MR_PROFILE_MCA203)
    (void)mcx__mr_rsrc_rollover(index);
}
