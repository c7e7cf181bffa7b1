/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file mcapi_impl_spec.h
 * @brief Implementation-specific types and limits of MCAPI in libmca.
 *
 * Handles are 32-bit values holding a table slot and a generation: a handle
 * whose object was deleted (or one made up) is rejected with a status, never
 * followed.
 */
#ifndef MCAPI_IMPL_SPEC_H
#define MCAPI_IMPL_SPEC_H

#include "mca.h"
#include "mca_impl_spec.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef mca_uint32_t mcapi_endpoint_t;
typedef mca_uint32_t mcapi_pktchan_recv_hndl_t;
typedef mca_uint32_t mcapi_pktchan_send_hndl_t;
typedef mca_uint32_t mcapi_sclchan_recv_hndl_t;
typedef mca_uint32_t mcapi_sclchan_send_hndl_t;

/** Locking modes of a domain (init parameter `locking`, or MCX_LOCKING). */
typedef enum mcx_locking {
  MCX_LOCKING_DEFAULT = 0, /**< MCX_LOCKING from the environment, else lockfree */
  MCX_LOCKING_LOCKFREE = 1,
  MCX_LOCKING_GLOBAL = 2, /**< one process-shared reader/writer lock (the reference design) */
} mcx_locking_t;

/** Behaviour profiles (init parameter `compat`, or MCX_COMPAT). */
typedef enum mcx_compat {
  MCX_COMPAT_DEFAULT = 0, /**< MCX_COMPAT from the environment, else the spec */
  MCX_COMPAT_SPEC = 1,    /**< MCAPI 2.015 as written */
  MCX_COMPAT_MCA203 = 2,  /**< the observable behaviour of the mca-2.0.3 reference */
} mcx_compat_t;

/** Transports (init parameter `transport`, or MCX_TRANSPORT). */
typedef enum mcx_transport {
  MCX_TRANSPORT_DEFAULT = 0, /**< MCX_TRANSPORT from the environment (shm, pmq), else shm */
  MCX_TRANSPORT_SHM = 1,     /**< lock-free rings in the domain partition */
  MCX_TRANSPORT_PMQ = 2,     /**< one POSIX message queue per receiving endpoint (docs/pmq.md) */
} mcx_transport_t;

/**
 * What a node is (mcapi_param_t.node_scope, or MCX_NODE_SCOPE=thread|process).
 * Thread (the default): the thread that called mcapi_initialize(); every
 * other thread is its own node or none. Process: the process. Every thread
 * of the process acts as the node, threads that never called
 * mcapi_initialize() included, and mcapi_finalize() from any of them ends
 * it for all. Its domain runs a lock-based mode (docs/compat.md).
 */
typedef enum mcx_node_scope {
  MCX_NODE_SCOPE_DEFAULT = 0, /**< MCX_NODE_SCOPE from the environment, else thread */
  MCX_NODE_SCOPE_THREAD = 1,
  MCX_NODE_SCOPE_PROCESS = 2
} mcx_node_scope_t;

/** Value of mcapi_param_t.mcx_magic set by mcx_param_init(). */
#define MCX_PARAM_MAGIC 0x4d435850u /* "MCXP" */

/**
 * @brief Init parameters for mcapi_initialize(). NULL means all defaults.
 *
 * Call mcx_param_init() first, then set what you need: the fields count only
 * when mcx_param_init() marked the structure (`mcx_magic`). A structure that
 * was never initialized (the reference implementation's parameter is an
 * ignored integer, so programs pass one from the stack) is ignored as if NULL.
 */
typedef struct mcapi_param {
  mca_uint32_t mcx_magic; /**< MCX_PARAM_MAGIC when mcx_param_init() prepared it */
  mcx_locking_t locking;
  mcx_compat_t compat;
  mcx_transport_t transport;
  mca_uint32_t max_endpoints;  /**< 0: MCAPI_MAX_ENDPOINTS; used by the domain's creator */
  mca_uint32_t queue_elements; /**< 0: MCAPI_MAX_QUEUE_ELEMENTS; power of two */
  mca_uint32_t max_msg_size;   /**< 0: MCAPI_MAX_MSG_SIZE */
  mca_uint32_t shm_mode;       /**< 0: 0600; permission bits of the domain's shared partition (0600..0666;
                                    group or other write only with shm_allow_foreign_write) */
  mca_uint32_t shm_allow_foreign_write; /**< 1: accept a shm_mode that lets other users write the
                                             partition (they can then corrupt or truncate it and
                                             stop every process of the domain: docs/processes.md) */
  mca_uint32_t msg_buffers; /**< 0: MCAPI_MAX_BUFFERS; buffers of the domain's message payload pool,
                                 for messages larger than a queue slot's 48 inline bytes (at most
                                 2^20; used by the domain's creator) */
  mcx_node_scope_t node_scope; /**< 0: MCX_NODE_SCOPE from the environment, else thread
                                    (docs/compat.md, "Node scope") */
} mcapi_param_t;

/** Information returned by mcapi_initialize(). */
typedef struct mcapi_info {
  mca_uint_t mcapi_version;
  mca_uint_t organization_id;
  mca_uint_t implementation_version;
  mca_uint_t number_of_domains;
  mca_uint_t number_of_nodes;
  mca_uint_t number_of_ports;
} mcapi_info_t;

/** Node attributes (only the node type is defined by MCAPI 2.015). */
typedef struct mcapi_node_attributes {
  mca_uint32_t type;
  mca_uint32_t valid;
} mcapi_node_attributes_t;

/** Endpoint attributes (for the spec's attribute-structure form). */
typedef struct mcapi_endpoint_attributes {
  mca_uint32_t reserved;
} mcapi_endpoint_attributes_t;

/* ---- names of the mca-2.0.3 reference implementation's mcapi_impl_spec.h,
 * so programs written for it compile unmodified (docs/compat.md lists them). */

/** Implementation information (the reference's placeholder type). */
typedef int impl_info_t;
/** Attribute slots per attribute structure in the reference. */
#ifndef MAX_NUM_ATTRIBUTES
#define MAX_NUM_ATTRIBUTES 4
#endif
/** One attribute of the reference's attribute structures. */
typedef struct attribute_entry {
  mca_boolean_t valid;
  mca_uint16_t attribute_num;
  mca_uint32_t bytes;
  void *attribute_d;
} attribute_entry_t;
/** The reference's attribute structure. */
typedef struct attributes {
  attribute_entry_t entries[MAX_NUM_ATTRIBUTES];
} attributes_t;
/** Endpoint attributes under the reference's name. */
typedef mcapi_endpoint_attributes_t mcapi_endpt_attributes_t;

/** Implementation version reported in mcapi_info_t (major<<16 | minor<<8 | patch). */
#define MCAPI_IMPL_VERSION \
  ((LIBMCA_VERSION_MAJOR << 16) | (LIBMCA_VERSION_MINOR << 8) | LIBMCA_VERSION_PATCH)

/** Ports above this value are refused; MCAPI_PORT_ANY picks a free one. */
#define MCAPI_MAX_PORT 0xfffffffeu
#define MCAPI_MAX_NODE (MCA_MAX_NODES * 1024u)
#define MCAPI_MAX_DOMAIN 0xfffffffeu

/** Names the MCAPI headers ask every implementation to define. */
#define MCAPI_MAX_MESSAGE_SIZE MCAPI_MAX_MSG_SIZE
#define MCAPI_MAX_PACKET_SIZE MCAPI_MAX_PKT_SIZE
#define MCAPI_MIN_PORT 0u
#define MCAPI_NUM_RESERVED_PORTS 0u
/** The highest priority (the smallest number), under the reference's spelling. */
#define MCAPI_MAX_PRORITY 0
#define MCAPI_MIN_PRORITY MCAPI_MAX_PRIORITY

/** Attributes per attribute structure, and channels, as the reference's configuration names them. */
#ifndef MCAPI_MAX_ATTRIBUTES
#define MCAPI_MAX_ATTRIBUTES MAX_NUM_ATTRIBUTES
#endif
#ifndef MCAPI_MAX_CHANNELS
#define MCAPI_MAX_CHANNELS MCX_DOMAIN_ENDPOINTS
#endif

/** Scalar channel slots per channel. */
#define MCAPI_MAX_SCL_ELEMENTS MCAPI_MAX_QUEUE_ELEMENTS

/** Alias of MCAPI_MAX_QUEUE_ELEMENTS used by older programs. */
#ifndef MAX_QUEUE_ELEMENTS
#define MAX_QUEUE_ELEMENTS MCAPI_MAX_QUEUE_ELEMENTS
#endif

#ifdef __cplusplus
}
#endif

#endif /* MCAPI_IMPL_SPEC_H */
