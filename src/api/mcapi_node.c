/* SPDX-License-Identifier: BSD-3-Clause */
/* General calls: initialize, finalize, ids, node attributes; extensions. */
#include <string.h>

#include "api/api.h"
#include "transport/pmq.h"

#define ATTRS_VALID 0x4e4f4445u /* marks an initialized mcapi_node_attributes_t */

MCX_API void mcapi_initialize(mcapi_domain_t domain_id, mcapi_node_t node_id,
                              const mcapi_node_attributes_t *node_attributes,
                              const mcapi_param_t *init_parameters, mcapi_info_t *mcapi_info,
                              mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return;
  if (!mcapi_info) {
    SET(MCAPI_ERR_PARAMETER);
    return;
  }
  if (domain_id == MCAPI_DOMAIN_INVALID) {
    SET(MCAPI_ERR_DOMAIN_INVALID);
    return;
  }
  if (node_id == MCAPI_NODE_INVALID) {
    SET(MCAPI_ERR_NODE_INVALID);
    return;
  }
  if (node_attributes && node_attributes->valid != ATTRS_VALID) {
    SET(MCAPI_ERR_PARAMETER);
    return;
  }
  if (mcx__is_node()) {
    SET(MCAPI_ERR_NODE_INITIALIZED);
    return;
  }
  mcx__init_opts_t o = {0};
  if (init_parameters && init_parameters->mcx_magic != MCX_PARAM_MAGIC) {
    /* The reference's parameter is an ignored integer: programs pass one
     * they never initialized. Only mcx_param_init() makes the fields count. */
    MCX_DEBUG(1, "mcapi_initialize: init parameters not prepared by mcx_param_init(); ignored");
    init_parameters = NULL;
  }
  if (init_parameters) {
    const mcapi_param_t *p = init_parameters;
    if ((unsigned)p->locking > MCX_LOCKING_KERNEL || (unsigned)p->compat > MCX_COMPAT_MCA203 ||
        (unsigned)p->transport > MCX_TRANSPORT_PMQ || (unsigned)p->node_scope > MCX_NODE_SCOPE_PROCESS ||
        (p->queue_elements && (p->queue_elements < 2 || (p->queue_elements & (p->queue_elements - 1)))) ||
        p->msg_buffers > MCX_MSG_BUFS_MAX ||
        (p->shm_mode && ((p->shm_mode & ~0666u) || (p->shm_mode & 0600) != 0600)) ||
        ((p->shm_mode & 0022) && p->shm_allow_foreign_write != 1)) {
      if ((p->shm_mode & 0022) && p->shm_allow_foreign_write != 1)
        mcx_port_log("mcapi_initialize: shm_mode %03o lets other users write the partition; "
                     "set shm_allow_foreign_write to accept that",
                     (unsigned)p->shm_mode);
      SET(MCAPI_ERR_PARAMETER);
      return;
    }
    o.locking = (uint32_t)p->locking;
    o.compat = (uint32_t)p->compat;
    o.transport = (uint32_t)p->transport;
    o.max_endpoints = p->max_endpoints;
    o.qcap = p->queue_elements;
    o.max_msg = p->max_msg_size;
    o.msg_bufs = p->msg_buffers;
    o.shm_mode = p->shm_mode;
    o.scope = (uint32_t)p->node_scope;
  }
  int r = mcx__node_init(domain_id, node_id, node_attributes ? node_attributes->type : 0, &o);
  switch (r) {
  case MCX_OK:
    break;
  case MCX_EEXIST:
    SET(MCAPI_ERR_NODE_INITIALIZED);
    return;
  case MCX_EINVAL:
    SET(MCAPI_ERR_PARAMETER);
    return;
  default:
    SET(MCAPI_ERR_NODE_INITFAILED);
    return;
  }
  mcapi_info->mcapi_version = MCAPI_VERSION;
  mcapi_info->organization_id = MCA_ORG_ID;
  mcapi_info->implementation_version = MCAPI_IMPL_VERSION;
  mcapi_info->number_of_domains = MCA_MAX_DOMAINS;
  mcapi_info->number_of_nodes = MCA_MAX_NODES;
  mcapi_info->number_of_ports = MCAPI_MAX_ENDPOINTS;
  SET(MCAPI_SUCCESS);
}

MCX_API void mcapi_finalize(mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return;
  REQUIRE_NODE();
  SET(mcx__node_finalize() == MCX_OK ? MCAPI_SUCCESS : MCAPI_ERR_NODE_FINALFAILED);
}

MCX_API mcapi_domain_t mcapi_domain_id_get(mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return MCAPI_DOMAIN_INVALID;
  REQUIRE_NODE(MCAPI_DOMAIN_INVALID);
  SET(MCAPI_SUCCESS);
  return mcx__self.dom->domain_id;
}

MCX_API mcapi_node_t mcapi_node_id_get(mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return MCAPI_NODE_INVALID;
  REQUIRE_NODE(MCAPI_NODE_INVALID);
  SET(MCAPI_SUCCESS);
  return mcx__self.node_id;
}

MCX_API void mcapi_node_init_attributes(mcapi_node_attributes_t *mcapi_node_attributes,
                                        mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return;
  if (!mcapi_node_attributes) {
    SET(MCAPI_ERR_PARAMETER);
    return;
  }
  mcapi_node_attributes->type = MCAPI_NODE_ATTR_TYPE_REGULAR;
  mcapi_node_attributes->valid = ATTRS_VALID;
  SET(MCAPI_SUCCESS);
}

MCX_API void mcapi_node_set_attribute(mcapi_node_attributes_t *mcapi_node_attributes,
                                      mcapi_uint_t attribute_num, const void *attribute,
                                      size_t attribute_size, mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return;
  if (!mcapi_node_attributes || !attribute || mcapi_node_attributes->valid != ATTRS_VALID) {
    SET(MCAPI_ERR_PARAMETER);
    return;
  }
  int ref = mcx__compat_of_caller() == MCX_COMPAT_MCA203_;
  if (attribute_num != MCAPI_NODE_ATTR_TYPE) {
    SET(ref ? MCAPI_ERR_ATTR_NOTSUPPORTED : MCAPI_ERR_ATTR_NUM);
    return;
  }
  if (attribute_size != sizeof(mcapi_uint_t)) {
    SET(MCAPI_ERR_ATTR_SIZE);
    return;
  }
  mcapi_uint_t v;
  memcpy(&v, attribute, sizeof v);
  /* The reference stores any type; the spec knows only the regular one. */
  if (v != MCAPI_NODE_ATTR_TYPE_REGULAR && !ref) {
    SET(MCAPI_ERR_ATTR_VALUE);
    return;
  }
  mcapi_node_attributes->type = v;
  SET(MCAPI_SUCCESS);
}

MCX_API void mcapi_node_get_attribute(mcapi_domain_t domain_id, mcapi_node_t node_id,
                                      mcapi_uint_t attribute_num, void *attribute,
                                      size_t attribute_size, mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return;
  REQUIRE_NODE();
  if (!attribute) {
    SET(MCAPI_ERR_PARAMETER);
    return;
  }
  if (domain_id != mcx__self.dom->domain_id) {
    SET(MCAPI_ERR_DOMAIN_INVALID);
    return;
  }
  if (attribute_num != MCAPI_NODE_ATTR_TYPE) {
    SET(mcx__ref() ? MCAPI_ERR_ATTR_NOTSUPPORTED : MCAPI_ERR_ATTR_NUM);
    return;
  }
  if (attribute_size != sizeof(mcapi_uint_t)) {
    SET(MCAPI_ERR_ATTR_SIZE);
    return;
  }
  uint32_t type;
  if (mcx__node_type(domain_id, node_id, &type) != MCX_OK) {
    SET(MCAPI_ERR_NODE_INVALID);
    return;
  }
  mcapi_uint_t v = type;
  memcpy(attribute, &v, sizeof v);
  SET(MCAPI_SUCCESS);
}

/* ---- extensions (mcx.h) */

MCX_API void mcx_param_init(mcapi_param_t *p)
{
  if (p) {
    memset(p, 0, sizeof *p);
    p->mcx_magic = MCX_PARAM_MAGIC;
  }
}

MCX_API void mcx_set_wait_policy(unsigned spins, unsigned yields)
{
  mcx_store_relaxed(&mcx__wait_spins, spins); /* tuning knobs, no ordering */
  mcx_store_relaxed(&mcx__wait_yields, yields);
}

MCX_API mcx_locking_t mcx_locking(void)
{
  if (!mcx__is_node())
    return MCX_LOCKING_DEFAULT;
  return (mcx_locking_t)mcx__self.dom->locking; /* MCX_LOCK_* == MCX_LOCKING_* */
}

MCX_API void mcx_thread_syscalls(mca_uint64_t *futex_calls, mca_uint64_t *semop_calls)
{
  if (futex_calls)
    *futex_calls = mcx_port_futex_calls();
  if (semop_calls)
    *semop_calls = mcx_port_ksem_calls();
}

MCX_API mcx_compat_t mcx_compat(void)
{
  if (!mcx__is_node())
    return MCX_COMPAT_DEFAULT;
  return mcx__self.dom->compat == MCX_COMPAT_MCA203_ ? MCX_COMPAT_MCA203 : MCX_COMPAT_SPEC;
}

MCX_API mcx_transport_t mcx_transport(void)
{
  if (!mcx__is_node())
    return MCX_TRANSPORT_DEFAULT;
  return mcx__self.dom->transport == MCX_TRANSPORT_PMQ_ ? MCX_TRANSPORT_PMQ : MCX_TRANSPORT_SHM;
}

MCX_API int mcx_pmq_limits(mcx_pmq_limits_t *out)
{
  if (!out)
    return -1;
  mcx__pmq_limits(mcx__is_node() ? mcx__self.dom->pmq : NULL, out);
  return 0;
}

MCX_API unsigned mcx_requests_in_use(void) { return mcx__req_in_use(); }
