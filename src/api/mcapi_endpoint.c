/* SPDX-License-Identifier: BSD-3-Clause */
/* Endpoint calls. */
#include "api/api.h"

MCX_API mcapi_endpoint_t mcapi_endpoint_create(mcapi_port_t port_id, mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return 0;
  REQUIRE_NODE(0);
  if (port_id > MCAPI_MAX_PORT && port_id != MCAPI_PORT_ANY) {
    SET(MCAPI_ERR_PORT_INVALID);
    return 0;
  }
  uint32_t h = 0;
  int r = mcx__ep_create(port_id, &h);
  if (r == MCX_EEXIST)
    SET(MCAPI_ERR_ENDP_EXISTS);
  else if (r == MCX_ENOMEM) /* the table (or the node's share of it) is full */
    SET(MCAPI_ERR_ENDP_LIMIT);
  else if (r == MCX_ENOENT) /* MCAPI_PORT_ANY: every port of the node is in use */
    SET(MCAPI_ERR_ENDP_NOPORTS);
  else
    SET(mcx__status(r, CTX_ENDPOINT));
  return h;
}

static mcapi_status_t check_get(mcapi_domain_t domain_id, mcapi_node_t node_id,
                                mcapi_port_t port_id)
{
  if (domain_id != mcx__self.dom->domain_id)
    return MCAPI_ERR_DOMAIN_INVALID;
  if (node_id == MCAPI_NODE_INVALID)
    return MCAPI_ERR_NODE_INVALID;
  if (port_id > MCAPI_MAX_PORT)
    return MCAPI_ERR_PORT_INVALID;
  return MCAPI_SUCCESS;
}

MCX_API void mcapi_endpoint_get_i(mcapi_domain_t domain_id, mcapi_node_t node_id,
                                  mcapi_port_t port_id, mcapi_endpoint_t *endpoint,
                                  mcapi_request_t *request, mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return;
  REQUIRE_NODE();
  if (!request) {
    SET(MCAPI_ERR_PARAMETER);
    return;
  }
  if (domain_id != mcx__self.dom->domain_id) { /* another domain: through its bridge (mcx_foreign.c) */
    mcx__foreign_get_i(domain_id, node_id, port_id, endpoint, request, mcapi_status);
    return;
  }
  mcapi_status_t s = endpoint ? check_get(domain_id, node_id, port_id) : MCAPI_ERR_PARAMETER;
  if (s != MCAPI_SUCCESS) {
    mcx__nb_fail(s, 0, request, mcapi_status);
    return;
  }
  mcx__req_args_t a = {.kind = REQ_EP_GET, .node_id = node_id, .port = port_id,
                       .out_handle = endpoint};
  mcx__nb_start(&a, CTX_ENDPOINT, 0, request, mcapi_status);
}

MCX_API mcapi_endpoint_t mcapi_endpoint_get(mcapi_domain_t domain_id, mcapi_node_t node_id,
                                            mcapi_port_t port_id, mcapi_timeout_t timeout,
                                            mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return 0;
  REQUIRE_NODE(0);
  if (domain_id != mcx__self.dom->domain_id) /* another domain: through its bridge (mcx_foreign.c) */
    return mcx__foreign_get(domain_id, node_id, port_id, timeout, mcapi_status);
  mcapi_status_t s = check_get(domain_id, node_id, port_id);
  if (s != MCAPI_SUCCESS) {
    SET(s);
    return 0;
  }
  uint32_t h = 0;
  int r = mcx__ep_get(node_id, port_id, timeout, &h);
  SET(mcx__status(r, CTX_ENDPOINT));
  return r == MCX_OK ? h : 0;
}

MCX_API void mcapi_endpoint_delete(mcapi_endpoint_t endpoint, mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return;
  REQUIRE_NODE();
  SET(mcx__status(mcx__ep_delete(endpoint), CTX_ENDPOINT));
}

MCX_API void mcapi_endpoint_release(mcapi_endpoint_t endpoint, mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return;
  REQUIRE_NODE();
  int r = mcx__ep_release(endpoint);
  if (r == MCX_EPERM)
    SET(MCAPI_ERR_ENDP_REMOTE);
  else if (r == MCX_ENOENT)
    SET(MCAPI_ERR_ENDP_GET_LIMIT);
  else
    SET(mcx__status(r, CTX_ENDPOINT));
}

static mcapi_status_t attr_status(int r)
{
  if (r == MCX_ESTALE) /* deleted between the check and the call */
    return MCAPI_ERR_ENDP_INVALID;
  if (r == MCX_EPERM)
    return MCAPI_ERR_ENDP_REMOTE;
  return mcx__status(r, CTX_ATTR);
}

MCX_API void mcapi_endpoint_get_attribute(mcapi_endpoint_t endpoint, mcapi_uint_t attribute_num,
                                          void *attribute, size_t attribute_size,
                                          mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return;
  REQUIRE_NODE();
  mcx__endpoint_t *ep;
  int r = mcx__ep_resolve(mcx__self.dom, endpoint, &ep);
  if (r) {
    SET(MCAPI_ERR_ENDP_INVALID);
    return;
  }
  if (!attribute) {
    SET(MCAPI_ERR_PARAMETER);
    return;
  }
  SET(attr_status(mcx__ep_get_attr(endpoint, attribute_num, attribute, attribute_size)));
}

MCX_API void mcapi_endpoint_set_attribute(mcapi_endpoint_t endpoint, mcapi_uint_t attribute_num,
                                          const void *attribute, size_t attribute_size,
                                          mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return;
  REQUIRE_NODE();
  mcx__endpoint_t *ep;
  int r = mcx__ep_resolve(mcx__self.dom, endpoint, &ep);
  if (r) {
    SET(MCAPI_ERR_ENDP_INVALID);
    return;
  }
  if (!mcx__ep_is_mine(ep)) {
    SET(MCAPI_ERR_ENDP_REMOTE);
    return;
  }
  if (!attribute) {
    SET(MCAPI_ERR_PARAMETER);
    return;
  }
  r = mcx__ep_set_attr(endpoint, attribute_num, attribute, attribute_size);
  SET(r == MCX_EBUSY ? MCAPI_ERR_MEM_LIMIT : attr_status(r));
}
