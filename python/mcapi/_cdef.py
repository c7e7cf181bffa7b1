# SPDX-License-Identifier: BSD-3-Clause
"""The C declarations the package calls, for ABI mode (dlopen), which has no compiler.

The compiled module (API mode) does not use this text: mcapi/_build.py takes
the declarations from the installed headers through the C preprocessor
(header_cdef), keeping of the functions the ones named here. Every type is
spelled as the headers define it on every target libmca builds for (handles,
ids, statuses and timeouts are 32-bit unsigned); tests/python/test_cdef_python.py
checks each function's signature and each type's size and layout here against
the headers' own.
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
void mcapi_endpoint_get_i(mcapi_domain_t domain_id, mcapi_node_t node_id, mcapi_port_t port_id,
                          mcapi_endpoint_t *endpoint, mcapi_request_t *request,
                          mcapi_status_t *mcapi_status);
void mcapi_msg_send_i(mcapi_endpoint_t send_endpoint, mcapi_endpoint_t receive_endpoint,
                      const void *buffer, size_t buffer_size, mcapi_priority_t priority,
                      mcapi_request_t *request, mcapi_status_t *mcapi_status);
void mcapi_pktchan_send_i(mcapi_pktchan_send_hndl_t send_handle, const void *buffer, size_t size,
                          mcapi_request_t *request, mcapi_status_t *mcapi_status);
mcapi_uint_t mcapi_wait_any(size_t number, mcapi_request_t **requests, size_t *size,
                            mcapi_timeout_t timeout, mcapi_status_t *mcapi_status);

typedef uint32_t mcx_state_t;
mcx_state_t mcx_state_create(mcapi_port_t port, size_t max_size, unsigned nbuf,
                             mcapi_status_t *mcapi_status);
mcx_state_t mcx_state_open(mcapi_domain_t domain, mcapi_node_t node, mcapi_port_t port,
                           mcapi_timeout_t timeout, mcapi_status_t *mcapi_status);
void mcx_state_close(mcx_state_t state, mcapi_status_t *mcapi_status);
void mcx_state_write(mcx_state_t state, const void *buffer, size_t size,
                     mcapi_status_t *mcapi_status);
size_t mcx_state_read(mcx_state_t state, void *buffer, size_t size, uint64_t *version,
                      mcapi_status_t *mcapi_status);
uint64_t mcx_state_wait_newer(mcx_state_t state, uint64_t version,
                              mcapi_timeout_t timeout, mcapi_status_t *mcapi_status);
void mcx_state_set_read_retries(unsigned retries);
unsigned mcx_requests_in_use(void);
"""

MRAPI_CDEF = r"""
typedef uint32_t mrapi_domain_t;
typedef uint32_t mrapi_node_t;
typedef uint32_t mrapi_status_t;
typedef uint32_t mrapi_timeout_t;
typedef uint32_t mrapi_uint_t;
typedef uint8_t mrapi_boolean_t;
typedef int mrapi_parameters_t;
typedef int mrapi_key_t;
typedef int mrapi_mutex_id_t;
typedef int mrapi_sem_id_t;
typedef int mrapi_rwl_id_t;
typedef int mrapi_shmem_id_t;
typedef uint32_t mrapi_mutex_hndl_t;
typedef uint32_t mrapi_sem_hndl_t;
typedef uint32_t mrapi_rwl_hndl_t;
typedef uint32_t mrapi_shmem_hndl_t;
typedef enum { MRAPI_RWL_READER, MRAPI_RWL_WRITER } mrapi_rwl_mode_t;
typedef struct { char mrapi_version[64]; } mrapi_info_t;
typedef struct { uint8_t recursive; uint8_t error_ext; uint8_t domain_shared; } mrapi_mutex_attributes_t;
typedef struct { uint8_t error_ext; uint8_t domain_shared; } mrapi_sem_attributes_t;
typedef struct { uint8_t error_ext; uint8_t domain_shared; } mrapi_rwl_attributes_t;
typedef struct { uint8_t error_ext; uint8_t domain_shared; } mrapi_shmem_attributes_t;

char *mrapi_display_status(mrapi_status_t status, char *status_message, size_t size);
void mrapi_initialize(const mrapi_domain_t domain_id, const mrapi_node_t node_id,
                      const mrapi_parameters_t init_parameters, mrapi_info_t *mrapi_info,
                      mrapi_status_t *status);
void mrapi_finalize(mrapi_status_t *status);

void mrapi_mutex_init_attributes(mrapi_mutex_attributes_t *attributes, mrapi_status_t *status);
void mrapi_mutex_set_attribute(mrapi_mutex_attributes_t *attributes, const mrapi_uint_t attribute_num,
                               const void *attribute, const size_t attr_size, mrapi_status_t *status);
mrapi_mutex_hndl_t mrapi_mutex_create(const mrapi_mutex_id_t mutex_id,
                                      const mrapi_mutex_attributes_t *attributes, mrapi_status_t *status);
mrapi_mutex_hndl_t mrapi_mutex_get(const mrapi_mutex_id_t mutex_id, mrapi_status_t *status);
void mrapi_mutex_delete(const mrapi_mutex_hndl_t mutex, mrapi_status_t *status);
void mrapi_mutex_lock(const mrapi_mutex_hndl_t mutex, mrapi_key_t *lock_key,
                      const mrapi_timeout_t timeout, mrapi_status_t *status);
mrapi_boolean_t mrapi_mutex_trylock(const mrapi_mutex_hndl_t mutex, mrapi_key_t *lock_key,
                                    mrapi_status_t *status);
void mrapi_mutex_unlock(const mrapi_mutex_hndl_t mutex, const mrapi_key_t *lock_key,
                        mrapi_status_t *status);

void mrapi_sem_init_attributes(mrapi_sem_attributes_t *attributes, mrapi_status_t *status);
void mrapi_sem_set_attribute(mrapi_sem_attributes_t *attributes, const mrapi_uint_t attribute_num,
                             const void *attribute, const size_t attr_size, mrapi_status_t *status);
mrapi_sem_hndl_t mrapi_sem_create(const mrapi_sem_id_t sem_id, const mrapi_sem_attributes_t *attributes,
                                  const mrapi_uint_t shared_lock_limit, mrapi_status_t *status);
mrapi_sem_hndl_t mrapi_sem_get(const mrapi_sem_id_t sem_id, mrapi_status_t *status);
void mrapi_sem_delete(const mrapi_sem_hndl_t sem, mrapi_status_t *status);
void mrapi_sem_lock(const mrapi_sem_hndl_t sem, const mrapi_timeout_t timeout, mrapi_status_t *status);
mrapi_boolean_t mrapi_sem_trylock(const mrapi_sem_hndl_t sem, mrapi_status_t *status);
void mrapi_sem_unlock(const mrapi_sem_hndl_t sem, mrapi_status_t *status);

void mrapi_rwl_init_attributes(mrapi_rwl_attributes_t *attributes, mrapi_status_t *status);
void mrapi_rwl_set_attribute(mrapi_rwl_attributes_t *attributes, const mrapi_uint_t attribute_num,
                             const void *attribute, const size_t attr_size, mrapi_status_t *status);
mrapi_rwl_hndl_t mrapi_rwl_create(const mrapi_rwl_id_t rwl_id, const mrapi_rwl_attributes_t *attributes,
                                  const mrapi_uint_t reader_lock_limit, mrapi_status_t *status);
mrapi_rwl_hndl_t mrapi_rwl_get(const mrapi_rwl_id_t rwl_id, mrapi_status_t *status);
void mrapi_rwl_delete(const mrapi_rwl_hndl_t rwl, mrapi_status_t *status);
void mrapi_rwl_lock(const mrapi_rwl_hndl_t rwl, const mrapi_rwl_mode_t mode,
                    const mrapi_timeout_t timeout, mrapi_status_t *status);
mrapi_boolean_t mrapi_rwl_trylock(const mrapi_rwl_hndl_t rwl, const mrapi_rwl_mode_t mode,
                                  mrapi_status_t *status);
void mrapi_rwl_unlock(const mrapi_rwl_hndl_t rwl, const mrapi_rwl_mode_t mode, mrapi_status_t *status);

void mrapi_shmem_init_attributes(mrapi_shmem_attributes_t *attributes, mrapi_status_t *status);
void mrapi_shmem_set_attribute(mrapi_shmem_attributes_t *attributes, const mrapi_uint_t attribute_num,
                               const void *attribute, const size_t attr_size, mrapi_status_t *status);
mrapi_shmem_hndl_t mrapi_shmem_create(const mrapi_shmem_id_t shmem_id, const mrapi_uint_t size,
                                      const mrapi_node_t *nodes, const mrapi_uint_t nodes_size,
                                      const mrapi_shmem_attributes_t *attributes,
                                      const mrapi_uint_t attr_size, mrapi_status_t *status);
mrapi_shmem_hndl_t mrapi_shmem_get(const mrapi_shmem_id_t shmem_id, mrapi_status_t *status);
void *mrapi_shmem_attach(const mrapi_shmem_hndl_t shmem, mrapi_status_t *status);
void mrapi_shmem_detach(const mrapi_shmem_hndl_t shmem, mrapi_status_t *status);
void mrapi_shmem_delete(const mrapi_shmem_hndl_t shmem, mrapi_status_t *status);
void mrapi_shmem_get_attribute(const mrapi_shmem_hndl_t shmem, const mrapi_uint_t attribute_num,
                               void *attribute, const size_t attribute_size, mrapi_status_t *status);
"""
