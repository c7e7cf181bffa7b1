# SPDX-License-Identifier: BSD-3-Clause
"""The C declarations the package calls: one text for both loading modes.

Every type is spelled as the C headers define it on every target libmca
builds for (handles, ids, statuses and timeouts are 32-bit unsigned), so the
same text serves the compiled module (checked against mcapi.h by the C
compiler) and the dlopen() fallback (which trusts it).
"""

CDEF = r"""
typedef uint32_t mcapi_domain_t;
typedef uint32_t mcapi_node_t;
typedef uint32_t mcapi_port_t;
typedef uint32_t mcapi_status_t;
typedef uint32_t mcapi_timeout_t;
typedef uint32_t mcapi_priority_t;
typedef uint32_t mcapi_uint_t;
typedef uint8_t mcapi_boolean_t;
typedef uint32_t mcapi_endpoint_t;
typedef uint32_t mcapi_pktchan_recv_hndl_t;
typedef uint32_t mcapi_pktchan_send_hndl_t;
typedef uint32_t mcapi_sclchan_recv_hndl_t;
typedef uint32_t mcapi_sclchan_send_hndl_t;

typedef struct mca_request { uint32_t mcx_handle; } mca_request_t;
typedef mca_request_t mcapi_request_t;

typedef enum mcx_locking { MCX_LOCKING_DEFAULT = 0, MCX_LOCKING_LOCKFREE = 1,
                           MCX_LOCKING_GLOBAL = 2 } mcx_locking_t;
typedef enum mcx_compat { MCX_COMPAT_DEFAULT = 0, MCX_COMPAT_SPEC = 1,
                          MCX_COMPAT_MCA203 = 2 } mcx_compat_t;
typedef enum mcx_transport { MCX_TRANSPORT_DEFAULT = 0, MCX_TRANSPORT_SHM = 1,
                             MCX_TRANSPORT_PMQ = 2 } mcx_transport_t;
typedef enum mcx_node_scope { MCX_NODE_SCOPE_DEFAULT = 0, MCX_NODE_SCOPE_THREAD = 1,
                              MCX_NODE_SCOPE_PROCESS = 2 } mcx_node_scope_t;

typedef struct mcapi_param {
  uint32_t mcx_magic;
  mcx_locking_t locking;
  mcx_compat_t compat;
  mcx_transport_t transport;
  uint32_t max_endpoints;
  uint32_t queue_elements;
  uint32_t max_msg_size;
  uint32_t shm_mode;
  uint32_t shm_allow_foreign_write;
  uint32_t msg_buffers;
  mcx_node_scope_t node_scope;
} mcapi_param_t;

typedef struct mcapi_info {
  uint32_t mcapi_version;
  uint32_t organization_id;
  uint32_t implementation_version;
  uint32_t number_of_domains;
  uint32_t number_of_nodes;
  uint32_t number_of_ports;
} mcapi_info_t;

typedef struct mcapi_node_attributes { uint32_t type; uint32_t valid; } mcapi_node_attributes_t;

void mcx_param_init(mcapi_param_t *p);
void mcapi_initialize(mcapi_domain_t domain_id, mcapi_node_t node_id,
                      const mcapi_node_attributes_t *node_attributes,
                      const mcapi_param_t *init_parameters, mcapi_info_t *mcapi_info,
                      mcapi_status_t *mcapi_status);
void mcapi_finalize(mcapi_status_t *mcapi_status);
char *mcapi_display_status(mcapi_status_t status, char *status_message, size_t size);

mcapi_endpoint_t mcapi_endpoint_create(mcapi_port_t port_id, mcapi_status_t *mcapi_status);
mcapi_endpoint_t mcapi_endpoint_get(mcapi_domain_t domain_id, mcapi_node_t node_id,
                                    mcapi_port_t port_id, mcapi_timeout_t timeout,
                                    mcapi_status_t *mcapi_status);
void mcapi_endpoint_delete(mcapi_endpoint_t endpoint, mcapi_status_t *mcapi_status);
void mcapi_endpoint_release(mcapi_endpoint_t endpoint, mcapi_status_t *mcapi_status);
void mcapi_endpoint_get_attribute(mcapi_endpoint_t endpoint, mcapi_uint_t attribute_num,
                                  void *attribute, size_t attribute_size,
                                  mcapi_status_t *mcapi_status);
void mcapi_endpoint_set_attribute(mcapi_endpoint_t endpoint, mcapi_uint_t attribute_num,
                                  const void *attribute, size_t attribute_size,
                                  mcapi_status_t *mcapi_status);

void mcapi_msg_send(mcapi_endpoint_t send_endpoint, mcapi_endpoint_t receive_endpoint,
                    const void *buffer, size_t buffer_size, mcapi_priority_t priority,
                    mcapi_status_t *mcapi_status);
void mcapi_msg_recv(mcapi_endpoint_t receive_endpoint, void *buffer, size_t buffer_size,
                    size_t *received_size, mcapi_status_t *mcapi_status);
void mcapi_msg_recv_i(mcapi_endpoint_t receive_endpoint, void *buffer, size_t buffer_size,
                      mcapi_request_t *request, mcapi_status_t *mcapi_status);
mcapi_uint_t mcapi_msg_available(mcapi_endpoint_t receive_endpoint, mcapi_status_t *mcapi_status);

void mcapi_pktchan_connect_i(mcapi_endpoint_t send_endpoint, mcapi_endpoint_t receive_endpoint,
                             mcapi_request_t *request, mcapi_status_t *mcapi_status);
void mcapi_pktchan_recv_open_i(mcapi_pktchan_recv_hndl_t *recv_handle,
                               mcapi_endpoint_t receive_endpoint, mcapi_request_t *request,
                               mcapi_status_t *mcapi_status);
void mcapi_pktchan_send_open_i(mcapi_pktchan_send_hndl_t *send_handle,
                               mcapi_endpoint_t send_endpoint, mcapi_request_t *request,
                               mcapi_status_t *mcapi_status);
void mcapi_pktchan_send(mcapi_pktchan_send_hndl_t send_handle, const void *buffer, size_t size,
                        mcapi_status_t *mcapi_status);
void mcapi_pktchan_recv(mcapi_pktchan_recv_hndl_t receive_handle, void **buffer,
                        size_t *received_size, mcapi_status_t *mcapi_status);
void mcapi_pktchan_recv_i(mcapi_pktchan_recv_hndl_t receive_handle, void **buffer,
                          mcapi_request_t *request, mcapi_status_t *mcapi_status);
mcapi_uint_t mcapi_pktchan_available(mcapi_pktchan_recv_hndl_t receive_handle,
                                     mcapi_status_t *mcapi_status);
void mcapi_pktchan_release(void *buffer, mcapi_status_t *mcapi_status);
void mcapi_pktchan_recv_close_i(mcapi_pktchan_recv_hndl_t receive_handle,
                                mcapi_request_t *request, mcapi_status_t *mcapi_status);
void mcapi_pktchan_send_close_i(mcapi_pktchan_send_hndl_t send_handle, mcapi_request_t *request,
                                mcapi_status_t *mcapi_status);

void mcapi_sclchan_connect_i(mcapi_endpoint_t send_endpoint, mcapi_endpoint_t receive_endpoint,
                             mcapi_request_t *request, mcapi_status_t *mcapi_status);
void mcapi_sclchan_recv_open_i(mcapi_sclchan_recv_hndl_t *receive_handle,
                               mcapi_endpoint_t receive_endpoint, mcapi_request_t *request,
                               mcapi_status_t *mcapi_status);
void mcapi_sclchan_send_open_i(mcapi_sclchan_send_hndl_t *send_handle,
                               mcapi_endpoint_t send_endpoint, mcapi_request_t *request,
                               mcapi_status_t *mcapi_status);
void mcapi_sclchan_send_uint64(mcapi_sclchan_send_hndl_t send_handle, uint64_t dataword,
                               mcapi_status_t *mcapi_status);
void mcapi_sclchan_send_uint32(mcapi_sclchan_send_hndl_t send_handle, uint32_t dataword,
                               mcapi_status_t *mcapi_status);
void mcapi_sclchan_send_uint16(mcapi_sclchan_send_hndl_t send_handle, uint16_t dataword,
                               mcapi_status_t *mcapi_status);
void mcapi_sclchan_send_uint8(mcapi_sclchan_send_hndl_t send_handle, uint8_t dataword,
                              mcapi_status_t *mcapi_status);
uint64_t mcapi_sclchan_recv_uint64(mcapi_sclchan_recv_hndl_t receive_handle,
                                   mcapi_status_t *mcapi_status);
uint32_t mcapi_sclchan_recv_uint32(mcapi_sclchan_recv_hndl_t receive_handle,
                                   mcapi_status_t *mcapi_status);
uint16_t mcapi_sclchan_recv_uint16(mcapi_sclchan_recv_hndl_t receive_handle,
                                   mcapi_status_t *mcapi_status);
uint8_t mcapi_sclchan_recv_uint8(mcapi_sclchan_recv_hndl_t receive_handle,
                                 mcapi_status_t *mcapi_status);
mcapi_uint_t mcapi_sclchan_available(mcapi_sclchan_recv_hndl_t receive_handle,
                                     mcapi_status_t *mcapi_status);
void mcapi_sclchan_recv_close_i(mcapi_sclchan_recv_hndl_t receive_handle,
                                mcapi_request_t *request, mcapi_status_t *mcapi_status);
void mcapi_sclchan_send_close_i(mcapi_sclchan_send_hndl_t send_handle, mcapi_request_t *request,
                                mcapi_status_t *mcapi_status);

mcapi_boolean_t mcapi_test(mcapi_request_t *request, size_t *size, mcapi_status_t *mcapi_status);
mcapi_boolean_t mcapi_wait(mcapi_request_t *request, size_t *size, mcapi_timeout_t timeout,
                           mcapi_status_t *mcapi_status);
void mcapi_cancel(mcapi_request_t *request, mcapi_status_t *mcapi_status);
"""
