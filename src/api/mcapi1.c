/* SPDX-License-Identifier: BSD-3-Clause */
/* MCAPI 1.0 source compatibility (include/mcapi1.h): the calls whose 1.0
 * behaviour is more than a rename of a 2.x call. The rest are inline in the
 * header. */
#include <string.h>

#include "api/api.h"
#include "runtime/chan.h" /* MCX_CHAN_SEND, MCX_CHAN_RECV */
#define MCX_MCAPI1_NO_RENAMES /* the library calls the 2.x names */
#include "mcapi1.h"

MCX_API void mcx1_initialize(mcapi_domain_t domain_id, mcapi_node_t node_id,
                             mcapi_version_t *mcapi_version, mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return;
  if (!mcapi_version) {
    *mcapi_status = MCAPI_ERR_PARAMETER;
    return;
  }
  mcapi_info_t info;
  mcapi_initialize(domain_id, node_id, NULL, NULL, &info, mcapi_status);
  if (*mcapi_status == MCAPI_SUCCESS)
    *mcapi_version = info.mcapi_version;
}

/* 1.0 has no domains: the caller's is the one asked. */
static mcapi_domain_t my_domain(mcapi_status_t *mcapi_status)
{
  return mcapi_domain_id_get(mcapi_status);
}

/* The port a 1.0 get asks for. OpenMCAPI's port type is 16 bits and its
 * endpoint handle node << 16 | port, so a program that passes an endpoint's
 * handle where a port goes gets that endpoint (its low 16 bits). 1.0 ports
 * are below 65536; a larger value that is the handle of an endpoint of
 * @p node_id (the spec profile's handles are at least 2^30) stands for that
 * endpoint's port. */
static mcapi_port_t port_arg(mcapi_node_t node_id, mcapi_port_t port_id)
{
  mcx__endpoint_t *e;
  if (port_id <= 0xffffu || mcx__ref() || mcx__ep_resolve(mcx__self.dom, port_id, &e) ||
      mcx_load_relaxed(&e->node_id) != node_id) /* a snapshot of a live endpoint's fields */
    return port_id;
  return mcx_load_relaxed(&e->port);
}

MCX_API mcapi_endpoint_t mcx1_get_endpoint(mcapi_node_t node_id, mcapi_port_t port_id,
                                           mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return 0;
  mcapi_domain_t d = my_domain(mcapi_status);
  if (*mcapi_status != MCAPI_SUCCESS)
    return 0;
  return mcapi_endpoint_get(d, node_id, port_arg(node_id, port_id), MCAPI_TIMEOUT_INFINITE,
                            mcapi_status);
}

MCX_API void mcx1_get_endpoint_i(mcapi_node_t node_id, mcapi_port_t port_id,
                                 mcapi_endpoint_t *endpoint, mcapi_request_t *request,
                                 mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return;
  mcapi_domain_t d = my_domain(mcapi_status);
  if (*mcapi_status != MCAPI_SUCCESS)
    return;
  mcapi_endpoint_get_i(d, node_id, port_arg(node_id, port_id), endpoint, request, mcapi_status);
  mcx1_started(mcapi_status);
}

/* A 1.0 attribute's 2.x number; -1: none (computed here or refused). */
static int attr_2x(mcapi_uint_t num)
{
  switch (num) {
  case MCAPI_ATTR_NO_PRIORITIES:
    return MCAPI_ENDP_ATTR_NUM_PRIORITIES;
  case MCAPI_ATTR_NO_BUFFERS:
    return MCAPI_ENDP_ATTR_NUM_RECV_BUFFERS;
  case MCAPI_ATTR_BUFFER_SIZE:
    return MCAPI_ENDP_ATTR_MAX_PAYLOAD_SIZE;
  case MCAPI_ATTR_BUFFER_TYPE:
    return MCAPI_ENDP_ATTR_BUFFER_TYPE;
  case MCAPI_ATTR_MEMORY_TYPE:
    return MCAPI_ENDP_ATTR_MEMORY_TYPE;
  case MCAPI_ATTR_TIMEOUT:
    return MCAPI_ENDP_ATTR_TIMEOUT;
  case MCAPI_ATTR_ENDP_PRIO:
    return MCAPI_ENDP_ATTR_PRIORITY;
  case MCAPI_ATTR_ENDP_STATUS:
    return MCAPI_ENDP_ATTR_STATUS;
  default:
    return -1;
  }
}

/* Stores @p v in a caller's 4- or 8-byte buffer (1.0 programs pass an
 * mcapi_uint32_t where 2.x keeps a size_t); MCAPI_ERR_ATTR_SIZE else. */
static mcapi_status_t put_value(uint64_t v, void *out, size_t size)
{
  if (size == sizeof(uint32_t)) {
    uint32_t w = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
    memcpy(out, &w, sizeof w);
  } else if (size == sizeof(uint64_t)) {
    memcpy(out, &v, sizeof v);
  } else {
    return MCAPI_ERR_ATTR_SIZE;
  }
  return MCAPI_SUCCESS;
}

MCX_API void mcx1_get_endpoint_attribute(mcapi_endpoint_t endpoint, mcapi_uint_t attribute_num,
                                         void *attribute, size_t attribute_size,
                                         mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return;
  if (!attribute) {
    *mcapi_status = mcx__arg_error(MCAPI_ERR_PARAMETER);
    return;
  }
  if (attribute_num == MCAPI_ATTR_RECV_BUFFERS_AVAILABLE) {
    /* The receive slots free: the depth of every priority's queue, less
     * what is queued. */
    mcapi_uint_t depth = 0, prios = 0;
    mcapi_endpoint_get_attribute(endpoint, MCAPI_ENDP_ATTR_NUM_RECV_BUFFERS, &depth, sizeof depth,
                                 mcapi_status);
    if (*mcapi_status == MCAPI_SUCCESS)
      mcapi_endpoint_get_attribute(endpoint, MCAPI_ENDP_ATTR_NUM_PRIORITIES, &prios, sizeof prios,
                                   mcapi_status);
    if (*mcapi_status != MCAPI_SUCCESS)
      return;
    /* A connected endpoint takes no messages (its channel's data are the
     * channel calls'): none of its receive slots is taken by one. */
    mcapi_uint_t queued = mcapi_msg_available(endpoint, mcapi_status);
    if (*mcapi_status == MCAPI_ERR_CHAN_CONNECTED)
      queued = 0, *mcapi_status = MCAPI_SUCCESS;
    if (*mcapi_status != MCAPI_SUCCESS)
      return;
    uint64_t total = (uint64_t)depth * prios;
    *mcapi_status = put_value(total > queued ? total - queued : 0, attribute, attribute_size);
    return;
  }
  int n = attr_2x(attribute_num);
  if (n < 0) {
    *mcapi_status = mcx__arg_error(MCAPI_ERR_ATTR_NUM);
    return;
  }
  if (n == MCAPI_ENDP_ATTR_MAX_PAYLOAD_SIZE) { /* a size_t in 2.x */
    size_t v = 0;
    mcapi_endpoint_get_attribute(endpoint, (mcapi_uint_t)n, &v, sizeof v, mcapi_status);
    if (*mcapi_status == MCAPI_SUCCESS)
      *mcapi_status = put_value(v, attribute, attribute_size);
    return;
  }
  mcapi_endpoint_get_attribute(endpoint, (mcapi_uint_t)n, attribute, attribute_size, mcapi_status);
}

MCX_API void mcx1_set_endpoint_attribute(mcapi_endpoint_t endpoint, mcapi_uint_t attribute_num,
                                         const void *attribute, size_t attribute_size,
                                         mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return;
  if (!attribute) {
    *mcapi_status = mcx__arg_error(MCAPI_ERR_PARAMETER);
    return;
  }
  int n = attribute_num == MCAPI_ATTR_RECV_BUFFERS_AVAILABLE ? -2 : attr_2x(attribute_num);
  if (n == -2) {
    *mcapi_status = mcx__arg_error(MCAPI_ERR_ATTR_READONLY);
    return;
  }
  if (n < 0) {
    *mcapi_status = mcx__arg_error(MCAPI_ERR_ATTR_NUM);
    return;
  }
  mcapi_endpoint_set_attribute(endpoint, (mcapi_uint_t)n, attribute, attribute_size, mcapi_status);
}

MCX_API void mcx1_pktchan_recv_close_i(mcapi_pktchan_recv_hndl_t receive_handle,
                                       mcapi_request_t *request, mcapi_status_t *mcapi_status)
{
  mcx__chan_close_i(receive_handle, MCAPI_PKT_CHAN, MCX_CHAN_RECV, true, request, mcapi_status);
  mcx1_started(mcapi_status);
}

MCX_API void mcx1_pktchan_send_close_i(mcapi_pktchan_send_hndl_t send_handle,
                                       mcapi_request_t *request, mcapi_status_t *mcapi_status)
{
  mcx__chan_close_i(send_handle, MCAPI_PKT_CHAN, MCX_CHAN_SEND, true, request, mcapi_status);
  mcx1_started(mcapi_status);
}

MCX_API void mcx1_sclchan_recv_close_i(mcapi_sclchan_recv_hndl_t receive_handle,
                                       mcapi_request_t *request, mcapi_status_t *mcapi_status)
{
  mcx__chan_close_i(receive_handle, MCAPI_SCL_CHAN, MCX_CHAN_RECV, true, request, mcapi_status);
  mcx1_started(mcapi_status);
}

MCX_API void mcx1_sclchan_send_close_i(mcapi_sclchan_send_hndl_t send_handle,
                                       mcapi_request_t *request, mcapi_status_t *mcapi_status)
{
  mcx__chan_close_i(send_handle, MCAPI_SCL_CHAN, MCX_CHAN_SEND, true, request, mcapi_status);
  mcx1_started(mcapi_status);
}

MCX_API mcapi_uint32_t mcx1_side(mcapi_uint32_t handle, int scalar)
{
  /* Not a node, or the mca-2.0.3 profile (whose side handles are the
   * endpoints'): as given, for the 2.x call to judge. */
  if (!mcx__is_node() || mcx__ref())
    return handle;
  uint32_t canon = 0, dir = 0;
  uint32_t type = scalar ? MCAPI_SCL_CHAN : MCAPI_PKT_CHAN;
  if (mcx__chan_side_of_ep(handle, type, &canon, &dir) != MCX_OK)
    return handle;
  /* The side's open may wait only for its own progress (its request not
   * yet tested): OpenMCAPI's side is open once both have opened, so make
   * that step here; the request then completes as opened. */
  uint32_t opened = 0;
  (void)mcx__chan_open_progress(handle, type, dir, &opened);
  return canon;
}

/* A connect refused because an endpoint's open is for the other direction:
 * started, its request completed with that status. */
static void direction_in_request(mcapi_request_t *request, mcapi_status_t *mcapi_status)
{
  if (*mcapi_status != MCAPI_ERR_CHAN_DIRECTION || mcx__ref())
    return; /* mca-2.0.3: its request already has the status (mcx__nb_fail) */
  mcx__req_args_t done = {.kind = REQ_DONE};
  if (mcx__req_start(&done, 1, MCX_REQ_STATUS(MCAPI_ERR_CHAN_DIRECTION), 0,
                     &request->mcx_handle) == MCX_OK)
    *mcapi_status = MCAPI_SUCCESS;
}

MCX_API void mcx1_connect_pktchan_i(mcapi_endpoint_t send_endpoint,
                                    mcapi_endpoint_t receive_endpoint, mcapi_request_t *request,
                                    mcapi_status_t *mcapi_status)
{
  mcapi_pktchan_connect_i(send_endpoint, receive_endpoint, request, mcapi_status);
  if (mcapi_status) {
    direction_in_request(request, mcapi_status);
    mcx1_started(mcapi_status);
  }
}

MCX_API void mcx1_connect_sclchan_i(mcapi_endpoint_t send_endpoint,
                                    mcapi_endpoint_t receive_endpoint, mcapi_request_t *request,
                                    mcapi_status_t *mcapi_status)
{
  mcapi_sclchan_connect_i(send_endpoint, receive_endpoint, request, mcapi_status);
  if (mcapi_status) {
    direction_in_request(request, mcapi_status);
    mcx1_started(mcapi_status);
  }
}
