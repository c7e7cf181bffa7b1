/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file mcapi.h
 * @retval MCAPI_ERR_TRANSMISSION the next packet's slot was corrupt in shared
 *         memory (a buffer or size no sender could have written): it is dropped.
 * @brief MCAPI 2.015: communication between nodes of one multicore system.
 *
 * Every function reports its outcome through its last argument, a
 * `mcapi_status_t *`; each documents one `@retval` per status it can store.
 * A NULL status pointer makes the call return at once without doing anything
 * (there is nowhere to report to).
 *
 * Context: every call is made from a thread that is an initialized node
 * (mcapi_initialize()), except mcapi_initialize(), mcapi_display_status(),
 * mcapi_node_init_attributes(), mcapi_node_set_attribute(),
 * mcapi_set_debug_level() and mcapi_display_state(). Calls are MT-safe: any
 * node may call any function concurrently with any other node. Blocking calls
 * may sleep; none may be called from a signal handler.
 *
 * Timeouts are in milliseconds; MCAPI_TIMEOUT_INFINITE waits forever and 0
 * polls once.
 */
#ifndef MCAPI_H
#define MCAPI_H

#include "mca.h"
#include "mcapi_impl_spec.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- types */

typedef mca_int_t mcapi_int_t;
typedef mca_int8_t mcapi_int8_t;
typedef mca_int16_t mcapi_int16_t;
typedef mca_int32_t mcapi_int32_t;
typedef mca_int64_t mcapi_int64_t;
typedef mca_uint_t mcapi_uint_t;
typedef mca_uint8_t mcapi_uint8_t;
typedef mca_uint16_t mcapi_uint16_t;
typedef mca_uint32_t mcapi_uint32_t;
typedef mca_uint64_t mcapi_uint64_t;
typedef mca_boolean_t mcapi_boolean_t;
typedef mca_domain_t mcapi_domain_t;
typedef mca_node_t mcapi_node_t;
typedef mca_uint32_t mcapi_port_t;
typedef mca_status_t mcapi_status_t;
typedef mca_request_t mcapi_request_t;
typedef mca_timeout_t mcapi_timeout_t;
typedef mca_uint32_t mcapi_priority_t;
typedef mcapi_endpoint_attributes_t mcapi_endp_attr_t;

/* ------------------------------------------------------------ constants */

#define MCAPI_VERSION 2015
#define MCAPI_TRUE MCA_TRUE
#define MCAPI_FALSE MCA_FALSE
#define MCAPI_NULL MCA_NULL
#define MCAPI_PORT_ANY (~(mcapi_port_t)0)
#define MCAPI_TIMEOUT_INFINITE (~(mcapi_timeout_t)0)
#define MCAPI_TIMEOUT_IMMEDIATE 0
#define MCAPI_INFINITE MCAPI_TIMEOUT_INFINITE
#define MCAPI_NODE_INVALID (~(mcapi_node_t)0)
#define MCAPI_DOMAIN_INVALID (~(mcapi_domain_t)0)
#define MCAPI_RETURN_VALUE_INVALID (~(mcapi_uint_t)0)

/** Size of the buffer mcapi_display_status() needs for any status. */
#define MCAPI_MAX_STATUS_MSG_LEN 32
/** The same, under the name other spec versions use. */
#define MCAPI_MAX_STATUS_SIZE MCAPI_MAX_STATUS_MSG_LEN

/** Status codes. */
typedef enum mcapi_status_codes {
  MCAPI_SUCCESS = 1,           /**< the operation completed */
  MCAPI_PENDING,               /**< a non-blocking operation was started */
  MCAPI_TIMEOUT,               /**< the operation timed out */
  MCAPI_ERR_PARAMETER,         /**< incorrect parameter (NULL pointer, bad value) */
  MCAPI_ERR_DOMAIN_INVALID,    /**< not a valid domain */
  MCAPI_ERR_NODE_INVALID,      /**< not a valid node */
  MCAPI_ERR_NODE_INITFAILED,   /**< the node could not be initialized */
  MCAPI_ERR_NODE_INITIALIZED,  /**< this thread is already a node */
  MCAPI_ERR_NODE_NOTINIT,      /**< this thread is not a node */
  MCAPI_ERR_NODE_FINALFAILED,  /**< the node could not be finalized */
  MCAPI_ERR_PORT_INVALID,      /**< not a valid port */
  MCAPI_ERR_ENDP_INVALID,      /**< not a valid endpoint handle */
  MCAPI_ERR_ENDP_EXISTS,       /**< the endpoint already exists */
  MCAPI_ERR_ENDP_GET_LIMIT,    /**< too many gets of one endpoint */
  MCAPI_ERR_ENDP_DELETED,      /**< the endpoint has been deleted */
  MCAPI_ERR_ENDP_NOTOWNER,     /**< only the creating node may do this */
  MCAPI_ERR_ENDP_REMOTE,       /**< only allowed on the node's own endpoints */
  MCAPI_ERR_ATTR_INCOMPATIBLE, /**< the endpoints' attributes do not match */
  MCAPI_ERR_ATTR_SIZE,         /**< wrong attribute size */
  MCAPI_ERR_ATTR_NUM,          /**< unknown attribute number */
  MCAPI_ERR_ATTR_VALUE,        /**< attribute value out of range */
  MCAPI_ERR_ATTR_NOTSUPPORTED, /**< attribute known but not supported */
  MCAPI_ERR_ATTR_READONLY,     /**< attribute cannot be set */
  MCAPI_ERR_MSG_SIZE,          /**< message larger than the implementation allows */
  MCAPI_ERR_MSG_TRUNCATED,     /**< message larger than the receive buffer */
  MCAPI_ERR_CHAN_OPEN,         /**< a channel is open: not allowed now */
  MCAPI_ERR_CHAN_TYPE,         /**< endpoint connected as another channel type */
  MCAPI_ERR_CHAN_DIRECTION,    /**< send handle on a receive side, or vice versa */
  MCAPI_ERR_CHAN_CONNECTED,    /**< endpoint already connected */
  MCAPI_ERR_CHAN_OPENPENDING,  /**< an open is pending */
  MCAPI_ERR_CHAN_CLOSEPENDING, /**< a close is pending */
  MCAPI_ERR_CHAN_NOTOPEN,      /**< the channel is not open */
  MCAPI_ERR_CHAN_INVALID,      /**< not a channel handle */
  MCAPI_ERR_PKT_SIZE,          /**< packet larger than the implementation allows */
  MCAPI_ERR_TRANSMISSION,      /**< transmission failure */
  MCAPI_ERR_PRIORITY,          /**< priority out of range */
  MCAPI_ERR_BUF_INVALID,       /**< not a buffer handed out by a receive */
  MCAPI_ERR_MEM_LIMIT,         /**< out of queue slots or buffers */
  MCAPI_ERR_REQUEST_INVALID,   /**< not a valid request handle */
  MCAPI_ERR_REQUEST_LIMIT,     /**< out of request handles */
  MCAPI_ERR_REQUEST_CANCELLED, /**< the request was cancelled */
  MCAPI_ERR_WAIT_PENDING,      /**< a wait is pending */
  MCAPI_ERR_GENERAL,           /**< an error no other code covers */
  MCAPI_ERR_SCL_SIZE,          /**< scalar received with another width than sent */
  MCAPI_ERR_ENDP_NOPORTS,      /**< MCAPI_PORT_ANY found no free port */
  MCAPI_ERR_ENDP_LIMIT,        /**< the domain's endpoint table is full */
  MCAPI_STATUSCODE_END         /**< one past the last code */
} mcapi_status_codes;

/** Names other spec versions use for the same codes. */
#define MCAPI_ERR_MSG_LIMIT MCAPI_ERR_MSG_SIZE
#define MCAPI_ERR_PKT_LIMIT MCAPI_ERR_PKT_SIZE
#define MCAPI_STATUS_CODE_END MCAPI_STATUSCODE_END

/** Node attribute numbers. */
#define MCAPI_NODE_ATTR_TYPE 0
#define MCAPI_NODE_ATTR_END 1
/** Node types (value of MCAPI_NODE_ATTR_TYPE). */
#define MCAPI_NODE_ATTR_TYPE_REGULAR 0
#define MCAPI_NODE_ATTR_TYPE_END 1
/** Type of the MCAPI_NODE_ATTR_TYPE attribute. */
typedef mcapi_uint_t mcapi_node_attr_type_t;

/** Endpoint attribute numbers. */
#define MCAPI_ENDP_ATTR_TYPE 0             /**< read-only, mcapi_uint_t: MCAPI_NO_CHAN, MCAPI_PKT_CHAN, MCAPI_SCL_CHAN */
#define MCAPI_ENDP_ATTR_GET_COUNT 1        /**< read-only, mcapi_uint_t: gets that found this endpoint */
#define MCAPI_ENDP_ATTR_GET_SOURCE 2       /**< not supported */
#define MCAPI_ENDP_ATTR_MAX_PAYLOAD_SIZE 3 /**< read-only, size_t: largest message */
#define MCAPI_ENDP_ATTR_BUFFER_TYPE 4      /**< not supported */
#define MCAPI_ENDP_ATTR_MEMORY_TYPE 5      /**< not supported */
#define MCAPI_ENDP_ATTR_NUM_PRIORITIES 6   /**< read-only, mcapi_uint_t: MCAPI_MAX_PRIORITY + 1 */
#define MCAPI_ENDP_ATTR_PRIORITY 7         /**< read-write, mcapi_priority_t: default send priority of channels */
#define MCAPI_ENDP_ATTR_NUM_SEND_BUFFERS 8 /**< not supported */
#define MCAPI_ENDP_ATTR_NUM_RECV_BUFFERS 9 /**< read-write, mcapi_uint_t: queue depth per priority, power of two */
#define MCAPI_ENDP_ATTR_STATUS 10          /**< read-only, mcapi_uint_t: MCAPI_ENDP_STATUS_* flags */
#define MCAPI_ENDP_ATTR_TIMEOUT 11         /**< read-write, mcapi_timeout_t: bound of blocking sends from / receives on it, ms */
#define MCAPI_ENDP_ATTR_BLOCK_ON_MEM_LIMIT 12 /**< read-write, mcapi_boolean_t: sends from this endpoint to a full queue wait */
#define MCAPI_ENDP_ATTR_FAIL_ON_MEM_LIMIT 13  /**< read-write, mcapi_boolean_t: ... fail at once (MCAPI_ERR_MEM_LIMIT) */
#define MCAPI_ENDP_ATTR_END 14

/** Channel types (value of MCAPI_ENDP_ATTR_TYPE). */
typedef enum mcapi_channel_type {
  MCAPI_NO_CHAN = 0, /**< a message endpoint, not connected */
  MCAPI_PKT_CHAN,
  MCAPI_SCL_CHAN,
} mcapi_channel_type;
/** The reference implementation's name of the channel types. */
typedef mcapi_channel_type channel_type;

/* ---- further names of the reference headers (docs/compat.md, "Header names") */
/** Types of the endpoint attributes, as the reference's mcapi.h names them. */
typedef mcapi_uint_t mcapi_endp_attr_type_t;
typedef mcapi_uint_t mcapi_endp_attr_get_count_t;
typedef struct mcapi_endp_attr_get_source {
  mcapi_domain_t domain_id;
  mcapi_node_t node_id;
} mcapi_endp_attr_get_source_t;
typedef mcapi_int_t mcapi_endp_attr_max_payload_size_t;
typedef mcapi_uint_t mcapi_endp_attr_buffer_type_t;
typedef mcapi_uint_t mcapi_endp_attr_memory_type_t;
typedef mcapi_int_t mcapi_endp_attr_num_priorities_t;
typedef mcapi_uint_t mcapi_endp_attr_priority_t;
typedef mcapi_int_t mcapi_endp_attr_num_send_buffers_t;
typedef mcapi_uint_t mcapi_endp_attr_num_recv_buffers_t;
typedef mcapi_uint_t mcapi_endp_attr_status_t;
typedef mcapi_timeout_t mcapi_endp_attr_timeout_t;
/** Endpoint status attribute under its older name. */
#define MCAPI_ENDP_ATTR_ENDP_STATUS MCAPI_ENDP_ATTR_STATUS
/** Buffer type values (MCAPI_ENDP_ATTR_BUFFER_TYPE). */
#define MCAPI_ENDP_ATTR_FIFO_BUFFER 0
/** Memory locality values (MCAPI_ENDP_ATTR_MEMORY_TYPE). */
#define MCAPI_ENDP_ATTR_LOCAL_MEMORY 0
#define MCAPI_ENDP_ATTR_SHARED_MEMORY 1
#define MCAPI_ENDP_ATTR_REMOTE_MEMORY 2
/** Endpoint attribute numbers reserved for the MCA and for other organizations. */
#define MCAPI_MAX_NUM_ENDP_ATTRS_MCA 64
#define MCAPI_MAX_NUM_ENDP_ATTRS_OTHER 32
#define mcapi_start_endp_attribute(x) (MCAPI_MAX_NUM_ENDP_ATTRS_MCA + (x) * MCAPI_MAX_NUM_ENDP_ATTRS_OTHER)
#define mcapi_end_endp_attribute(x) (MCAPI_MAX_NUM_ENDP_ATTRS_MCA + ((x) + 1) * MCAPI_MAX_NUM_ENDP_ATTRS_OTHER)
/** Parameter direction markers of the reference headers. */
#ifndef MCAPI_IN
#define MCAPI_IN const
#endif
#ifndef MCAPI_OUT
#define MCAPI_OUT
#endif
/** Declares a buffer aligned as packet buffers are. */
#ifndef MCAPI_DECL_ALIGNED
#define MCAPI_DECL_ALIGNED MCA_DECL_ALIGNED
#endif

/** Flags of MCAPI_ENDP_ATTR_STATUS. */
#define MCAPI_ENDP_STATUS_CREATED 0x1u
#define MCAPI_ENDP_STATUS_CONNECTED 0x2u
#define MCAPI_ENDP_STATUS_OPEN_PENDING 0x4u
#define MCAPI_ENDP_STATUS_OPEN 0x8u
#define MCAPI_ENDP_STATUS_CLOSE_PENDING 0x10u
#define MCAPI_ENDP_STATUS_SEND_SIDE 0x20u
#define MCAPI_ENDP_STATUS_RECV_SIDE 0x40u

/* ------------------------------------------------------- general calls */

/**
 * @brief Makes the calling thread node @p node_id of domain @p domain_id.
 *
 * The first node of a domain creates the domain's partition, laid out from
 * @p init_parameters (NULL: defaults and the MCX_* environment variables).
 * Several threads of a process may each be a node; the identity is
 * thread-local.
 * @param domain_id the domain to join
 * @param node_id the calling thread's node id in it
 * @param mcapi_status receives the outcome (below)
 * @param node_attributes from mcapi_node_init_attributes(), or NULL.
 * @param init_parameters locking mode, compatibility profile, sizes; or NULL.
 * @param mcapi_info receives version and limits; must not be NULL.
 * @retval MCAPI_SUCCESS the thread is now the node.
 * @retval MCAPI_ERR_PARAMETER @p mcapi_info is NULL, or @p init_parameters is
 *         invalid or asks for another locking mode than the domain has.
 * @retval MCAPI_ERR_DOMAIN_INVALID @p domain_id is MCAPI_DOMAIN_INVALID.
 * @retval MCAPI_ERR_NODE_INVALID @p node_id is MCAPI_NODE_INVALID.
 * @retval MCAPI_ERR_NODE_INITIALIZED this thread is already a node.
 * @retval MCAPI_ERR_NODE_INITFAILED @p node_id is in use in the domain, the
 *         node table is full, the partition could not be created (among
 *         others: it does not fit in /dev/shm; the log says so), or the
 *         domain's control-plane lock could not be had.
 * @post On success the node must be finalized by the same thread.
 */
void mcapi_initialize(mcapi_domain_t domain_id, mcapi_node_t node_id,
                      const mcapi_node_attributes_t *node_attributes,
                      const mcapi_param_t *init_parameters, mcapi_info_t *mcapi_info,
                      mcapi_status_t *mcapi_status);

/**
 * @brief Ends the calling thread's node: deletes its endpoints (messages still
 * queued to them are dropped, blocked senders return MCAPI_ERR_ENDP_DELETED),
 * frees its requests, and releases the partition when it was the last node.
 * Channel sides of its endpoints are closed at once: buffers the node still
 * held are invalid from then on; the other side's calls report
 * MCAPI_ERR_CHAN_NOTOPEN (after draining what was queued) until it closes too,
 * which ends the connection.
 * @retval MCAPI_SUCCESS the thread is no longer a node.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 * @retval MCAPI_ERR_NODE_FINALFAILED the domain's control-plane lock could not be
 *         had (a thread that is alive held it for too long; the log names it):
 *         the thread is still the node.
 */
void mcapi_finalize(mcapi_status_t *mcapi_status);

/**
 * @brief The calling node's domain.
 * @retval MCAPI_SUCCESS returns the id.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node (returns MCAPI_DOMAIN_INVALID).
 */
mcapi_domain_t mcapi_domain_id_get(mcapi_status_t *mcapi_status);

/**
 * @brief The calling node's id.
 * @retval MCAPI_SUCCESS returns the id.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node (returns MCAPI_NODE_INVALID).
 */
mcapi_node_t mcapi_node_id_get(mcapi_status_t *mcapi_status);

/**
 * @brief Sets @p mcapi_node_attributes to the defaults. Any thread.
 * @retval MCAPI_SUCCESS done.
 * @retval MCAPI_ERR_PARAMETER @p mcapi_node_attributes is NULL.
 */
void mcapi_node_init_attributes(mcapi_node_attributes_t *mcapi_node_attributes,
                                mcapi_status_t *mcapi_status);

/**
 * @brief Sets one attribute in an attribute structure. Any thread.
 * @retval MCAPI_SUCCESS done.
 * @retval MCAPI_ERR_PARAMETER a pointer is NULL, or the structure was not initialized.
 * @retval MCAPI_ERR_ATTR_NUM @p attribute_num is unknown.
 * @retval MCAPI_ERR_ATTR_SIZE @p attribute_size is not the attribute's size.
 * @retval MCAPI_ERR_ATTR_VALUE the value is out of range.
 */
void mcapi_node_set_attribute(mcapi_node_attributes_t *mcapi_node_attributes,
                              mcapi_uint_t attribute_num, const void *attribute,
                              size_t attribute_size, mcapi_status_t *mcapi_status);

/**
 * @brief Reads an attribute of a node of the domain.
 * @retval MCAPI_SUCCESS done.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 * @retval MCAPI_ERR_PARAMETER @p attribute is NULL.
 * @retval MCAPI_ERR_DOMAIN_INVALID @p domain_id is not the caller's domain.
 * @retval MCAPI_ERR_NODE_INVALID no such node is initialized.
 * @retval MCAPI_ERR_ATTR_NUM @p attribute_num is unknown.
 * @retval MCAPI_ERR_ATTR_SIZE @p attribute_size is not the attribute's size.
 */
void mcapi_node_get_attribute(mcapi_domain_t domain_id, mcapi_node_t node_id,
                              mcapi_uint_t attribute_num, void *attribute, size_t attribute_size,
                              mcapi_status_t *mcapi_status);

/* ------------------------------------------------------------ endpoints */

/**
 * @brief Creates an endpoint of the calling node on @p port_id
 * (MCAPI_PORT_ANY: the lowest free port).
 * @retval MCAPI_SUCCESS returns the handle.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 * @retval MCAPI_ERR_PORT_INVALID @p port_id is above MCAPI_MAX_PORT.
 * @retval MCAPI_ERR_ENDP_EXISTS the node already has an endpoint on @p port_id.
 * @retval MCAPI_ERR_ENDP_LIMIT the domain's endpoint table is full, the node has
 *         MCAPI_MAX_ENDPOINTS endpoints, or (pmq) the system's message-queue
 *         count, /proc/sys/fs/mqueue/queues_max, is reached.
 * @retval MCAPI_ERR_ENDP_NOPORTS MCAPI_PORT_ANY found no free port.
 * @retval MCAPI_ERR_MEM_LIMIT (pmq) the endpoint's queue could not be made:
 *         RLIMIT_MSGQUEUE, msg_max or a descriptor limit (mcx_pmq_limits() names it).
 *         In the mca-2.0.3 profile only a queue that could never fit fails here;
 *         the queue is made by the endpoint's first send or receive.
 * @retval MCAPI_ERR_GENERAL (pmq) the queue's name is held by another user's
 *         queue (left alone; the log names it), or the domain's control-plane
 *         lock could not be had: a thread that is alive held it for too long.
 */
mcapi_endpoint_t mcapi_endpoint_create(mcapi_port_t port_id, mcapi_status_t *mcapi_status);

/**
 * @brief Starts finding the endpoint (domain, node, port); completes through
 * mcapi_test(), mcapi_wait() or mcapi_wait_any() once it exists.
 * @retval MCAPI_PENDING started; @p endpoint is written on completion.
 * @retval MCAPI_SUCCESS completed at once; test or wait on @p request for the outcome.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 * @retval MCAPI_ERR_PARAMETER @p endpoint or @p request is NULL.
 * @retval MCAPI_ERR_DOMAIN_INVALID @p domain_id is not the caller's domain.
 * @retval MCAPI_ERR_NODE_INVALID @p node_id is MCAPI_NODE_INVALID.
 * @retval MCAPI_ERR_PORT_INVALID @p port_id is MCAPI_PORT_ANY or above MCAPI_MAX_PORT.
 * @retval MCAPI_ERR_REQUEST_LIMIT no request handle is free.
 */
void mcapi_endpoint_get_i(mcapi_domain_t domain_id, mcapi_node_t node_id, mcapi_port_t port_id,
                          mcapi_endpoint_t *endpoint, mcapi_request_t *request,
                          mcapi_status_t *mcapi_status);

/**
 * @brief Finds the endpoint (domain, node, port), waiting up to @p timeout ms
 * for it to be created.
 * @retval MCAPI_SUCCESS returns the handle.
 * @retval MCAPI_TIMEOUT it was not created in time.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 * @retval MCAPI_ERR_DOMAIN_INVALID @p domain_id is not the caller's domain.
 * @retval MCAPI_ERR_NODE_INVALID @p node_id is MCAPI_NODE_INVALID.
 * @retval MCAPI_ERR_PORT_INVALID @p port_id is MCAPI_PORT_ANY or above MCAPI_MAX_PORT.
 */
mcapi_endpoint_t mcapi_endpoint_get(mcapi_domain_t domain_id, mcapi_node_t node_id,
                                    mcapi_port_t port_id, mcapi_timeout_t timeout,
                                    mcapi_status_t *mcapi_status);

/**
 * @brief Deletes an endpoint of the calling node. Queued messages are dropped;
 * senders blocked on it return MCAPI_ERR_ENDP_DELETED; its handle becomes stale.
 * @retval MCAPI_SUCCESS deleted.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 * @retval MCAPI_ERR_ENDP_INVALID the handle is stale or forged.
 * @retval MCAPI_ERR_ENDP_NOTOWNER the endpoint belongs to another node.
 * @retval MCAPI_ERR_CHAN_OPEN the endpoint's channel side is open, or its open
 *         waits for a connection (a connected endpoint whose side is not open
 *         is deleted: it leaves its channel).
 * @retval MCAPI_ERR_GENERAL the domain's control-plane lock could not be had: a
 *         thread that is alive held it for too long (the log names it).
 */
void mcapi_endpoint_delete(mcapi_endpoint_t endpoint, mcapi_status_t *mcapi_status);

/**
 * @brief Gives back an endpoint obtained with mcapi_endpoint_get(): decrements
 * its get count. The endpoint itself stays.
 * @retval MCAPI_SUCCESS released.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 * @retval MCAPI_ERR_ENDP_INVALID the handle is stale or forged.
 * @retval MCAPI_ERR_ENDP_REMOTE the endpoint is the caller's own (nothing to release).
 * @retval MCAPI_ERR_ENDP_GET_LIMIT the endpoint's get count is already zero.
 */
void mcapi_endpoint_release(mcapi_endpoint_t endpoint, mcapi_status_t *mcapi_status);

/**
 * @brief Reads an endpoint attribute (MCAPI_ENDP_ATTR_*).
 * @retval MCAPI_SUCCESS done.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 * @retval MCAPI_ERR_ENDP_INVALID the handle is stale or forged.
 * @retval MCAPI_ERR_PARAMETER @p attribute is NULL.
 * @retval MCAPI_ERR_ATTR_NUM @p attribute_num is unknown.
 * @retval MCAPI_ERR_ATTR_NOTSUPPORTED the attribute is not supported.
 * @retval MCAPI_ERR_ATTR_SIZE @p attribute_size is not the attribute's size.
 */
void mcapi_endpoint_get_attribute(mcapi_endpoint_t endpoint, mcapi_uint_t attribute_num,
                                  void *attribute, size_t attribute_size,
                                  mcapi_status_t *mcapi_status);

/**
 * @brief Sets an endpoint attribute of one of the calling node's endpoints.
 * NUM_RECV_BUFFERS can be changed only while nothing is queued.
 * @retval MCAPI_SUCCESS done.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 * @retval MCAPI_ERR_ENDP_INVALID the handle is stale or forged.
 * @retval MCAPI_ERR_ENDP_REMOTE the endpoint belongs to another node.
 * @retval MCAPI_ERR_PARAMETER @p attribute is NULL.
 * @retval MCAPI_ERR_ATTR_NUM @p attribute_num is unknown.
 * @retval MCAPI_ERR_ATTR_NOTSUPPORTED the attribute is not supported.
 * @retval MCAPI_ERR_ATTR_READONLY the attribute cannot be set.
 * @retval MCAPI_ERR_ATTR_SIZE @p attribute_size is not the attribute's size.
 * @retval MCAPI_ERR_ATTR_VALUE the value is out of range.
 * @retval MCAPI_ERR_MEM_LIMIT NUM_RECV_BUFFERS: messages are queued or in flight.
 * @retval MCAPI_ERR_CHAN_OPEN NUM_RECV_BUFFERS: the endpoint is connected.
 * @retval MCAPI_ERR_GENERAL NUM_RECV_BUFFERS: the domain's control-plane lock could
 *         not be had (a thread that is alive held it for too long).
 */
void mcapi_endpoint_set_attribute(mcapi_endpoint_t endpoint, mcapi_uint_t attribute_num,
                                  const void *attribute, size_t attribute_size,
                                  mcapi_status_t *mcapi_status);

/* ------------------------------------------------------------- messages */

/**
 * @brief Starts sending a message; completes through mcapi_test()/wait().
 * The buffer is copied before MCAPI_PENDING or MCAPI_SUCCESS is returned when
 * the receive queue has space; otherwise it must stay valid until completion.
 * @retval MCAPI_PENDING started.
 * @retval MCAPI_SUCCESS completed at once; test or wait on @p request for the outcome.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 * @retval MCAPI_ERR_ENDP_INVALID either handle is stale or forged.
 * @retval MCAPI_ERR_ENDP_REMOTE @p send_endpoint is not the caller's.
 * @retval MCAPI_ERR_CHAN_CONNECTED either endpoint is connected to a channel.
 * @retval MCAPI_ERR_PARAMETER @p buffer is NULL with a non-zero size, or @p request is NULL.
 * @retval MCAPI_ERR_MSG_SIZE @p buffer_size is above the receiver's MAX_PAYLOAD_SIZE.
 * @retval MCAPI_ERR_PRIORITY @p priority is above MCAPI_MAX_PRIORITY.
 * @retval MCAPI_ERR_REQUEST_LIMIT no request handle is free.
 * @retval MCAPI_ERR_MEM_LIMIT the queue is full and @p send_endpoint is
 *         FAIL_ON_MEM_LIMIT (the default under MCX_COMPAT=mca-2.0.3).
 * On completion the request reports MCAPI_SUCCESS, MCAPI_ERR_ENDP_DELETED (the
 * receiver was deleted meanwhile), MCAPI_ERR_CHAN_CONNECTED (an endpoint was
 * connected to a channel meanwhile) or MCAPI_ERR_REQUEST_CANCELLED.
 */
void mcapi_msg_send_i(mcapi_endpoint_t send_endpoint, mcapi_endpoint_t receive_endpoint,
                      const void *buffer, size_t buffer_size, mcapi_priority_t priority,
                      mcapi_request_t *request, mcapi_status_t *mcapi_status);

/**
 * @brief Sends a message: connectionless, FIFO per sender and priority, higher
 * priority (lower number) delivered first. A full queue makes the call wait for
 * space, up to @p send_endpoint's TIMEOUT attribute, unless @p send_endpoint is
 * FAIL_ON_MEM_LIMIT.
 * @retval MCAPI_SUCCESS the message is queued.
 * @retval MCAPI_TIMEOUT the queue stayed full for TIMEOUT ms; nothing was queued.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 * @retval MCAPI_ERR_ENDP_INVALID either handle is stale or forged.
 * @retval MCAPI_ERR_ENDP_REMOTE @p send_endpoint is not the caller's.
 * @retval MCAPI_ERR_ENDP_DELETED the receiver was deleted while the call waited.
 * @retval MCAPI_ERR_CHAN_CONNECTED either endpoint is connected to a channel.
 * @retval MCAPI_ERR_PARAMETER @p buffer is NULL with a non-zero size.
 * @retval MCAPI_ERR_MSG_SIZE @p buffer_size is above the receiver's MAX_PAYLOAD_SIZE.
 * @retval MCAPI_ERR_PRIORITY @p priority is above MCAPI_MAX_PRIORITY.
 * @retval MCAPI_ERR_MEM_LIMIT the queue is full and @p send_endpoint is
 *         FAIL_ON_MEM_LIMIT (the default under MCX_COMPAT=mca-2.0.3).
 * @retval MCAPI_ERR_TRANSMISSION the receiver's queue was corrupted in shared
 *         memory (its ring never matches the endpoint); nothing was queued.
 */
void mcapi_msg_send(mcapi_endpoint_t send_endpoint, mcapi_endpoint_t receive_endpoint,
                    const void *buffer, size_t buffer_size, mcapi_priority_t priority,
                    mcapi_status_t *mcapi_status);

/**
 * @brief Starts receiving a message into @p buffer; completes through
 * mcapi_test()/wait(), which report the received size.
 * @retval MCAPI_PENDING started.
 * @retval MCAPI_SUCCESS completed at once; test or wait on @p request for the outcome.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 * @retval MCAPI_ERR_ENDP_INVALID the handle is stale or forged.
 * @retval MCAPI_ERR_ENDP_REMOTE the endpoint is not the caller's.
 * @retval MCAPI_ERR_CHAN_CONNECTED the endpoint is connected to a channel.
 * @retval MCAPI_ERR_PARAMETER @p buffer or @p request is NULL.
 * @retval MCAPI_ERR_REQUEST_LIMIT no request handle is free.
 * On completion the request reports MCAPI_SUCCESS, MCAPI_ERR_MSG_TRUNCATED (the
 * first @p buffer_size bytes were stored, the message is consumed),
 * MCAPI_ERR_ENDP_DELETED, MCAPI_ERR_CHAN_CONNECTED (the endpoint was connected
 * to a channel meanwhile) or MCAPI_ERR_REQUEST_CANCELLED.
 */
void mcapi_msg_recv_i(mcapi_endpoint_t receive_endpoint, void *buffer, size_t buffer_size,
                      mcapi_request_t *request, mcapi_status_t *mcapi_status);

/**
 * @brief Receives the oldest message of the highest priority present, waiting
 * up to the endpoint's TIMEOUT attribute. One thread receives on an endpoint:
 * its owner node.
 * @retval MCAPI_SUCCESS @p received_size holds the size.
 * @retval MCAPI_TIMEOUT no message came in time.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 * @retval MCAPI_ERR_ENDP_INVALID the handle is stale or forged.
 * @retval MCAPI_ERR_ENDP_REMOTE the endpoint is not the caller's.
 * @retval MCAPI_ERR_CHAN_CONNECTED the endpoint is connected to a channel.
 * @retval MCAPI_ERR_PARAMETER @p buffer or @p received_size is NULL.
 * @retval MCAPI_ERR_MSG_TRUNCATED the message was larger than @p buffer_size:
 *         the first @p buffer_size bytes were stored, @p received_size holds the
 *         full size, and the message is consumed.
 * @retval MCAPI_ERR_TRANSMISSION the next queued message was corrupt in shared
 *         memory (an impossible size, written by a faulty process): it is dropped.
 */
void mcapi_msg_recv(mcapi_endpoint_t receive_endpoint, void *buffer, size_t buffer_size,
                    size_t *received_size, mcapi_status_t *mcapi_status);

/**
 * @brief Messages queued to the endpoint (all priorities); a snapshot.
 * @retval MCAPI_SUCCESS returns the count.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 * @retval MCAPI_ERR_ENDP_INVALID the handle is stale or forged (returns 0).
 * @retval MCAPI_ERR_ENDP_REMOTE the endpoint is not the caller's.
 */
mcapi_uint_t mcapi_msg_available(mcapi_endpoint_t receive_endpoint, mcapi_status_t *mcapi_status);

/* ------------------------------------------------------ packet channels */
/*
 * Channels connect one send endpoint to one receive endpoint (docs/channels.md).
 * Life of a side: connected -> open pending -> open -> close pending -> closed;
 * the connection ends when both sides have closed (or their nodes finalized),
 * and both endpoints are message endpoints again. MCAPI_ENDP_ATTR_STATUS shows
 * the side's state, MCAPI_ENDP_ATTR_TYPE the channel type.
 *
 * Concurrency: per channel, one sender thread (the node owning the send
 * endpoint) and one receiver thread (the node owning the receive endpoint);
 * handles are valid only in the node that opened them. Data calls are
 * lock-free in the lockfree mode and never make a system call unless they
 * have to wait. Blocking calls wait up to the own endpoint's TIMEOUT
 * attribute (spin, yield, then sleep).
 */

/**
 * @brief Connects @p send_endpoint to @p receive_endpoint as a packet channel.
 * Any node may connect any two endpoints of the domain; the connection is made
 * before the call returns and the request completes at once. Opens issued
 * before the connection (of the same type and direction) become pending on it.
 * The channel has min(NUM_RECV_BUFFERS of the receive endpoint,
 * MCAPI_MAX_BUFFERS) packet buffers.
 * @retval MCAPI_PENDING connected; complete the request with mcapi_test()/wait().
 * @retval MCAPI_SUCCESS completed at once; test or wait on @p request for the outcome.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 * @retval MCAPI_ERR_PARAMETER @p request is NULL.
 * @retval MCAPI_ERR_ENDP_INVALID an endpoint handle is stale or forged, or both are the same.
 * @retval MCAPI_ERR_CHAN_CONNECTED an endpoint is already connected.
 * @retval MCAPI_ERR_CHAN_TYPE an endpoint has a pending open of the other channel type.
 * @retval MCAPI_ERR_CHAN_DIRECTION an endpoint has a pending open of the other direction.
 * @retval MCAPI_ERR_MEM_LIMIT the domain has no free channel record, or (pmq) the
 *         connection's queue could not be made (a limit; mcx_pmq_limits() names it).
 * @retval MCAPI_ERR_REQUEST_LIMIT no request handle is free (the connection stays made).
 * @retval MCAPI_ERR_GENERAL (pmq) the connection's queue name is held by another
 *         user's queue (left alone; the log names it), or the domain's
 *         control-plane lock could not be had: a thread that is alive held it
 *         for too long. Nothing is connected.
 */
void mcapi_pktchan_connect_i(mcapi_endpoint_t send_endpoint, mcapi_endpoint_t receive_endpoint,
                             mcapi_request_t *request, mcapi_status_t *mcapi_status);

/**
 * @brief Opens the receive side of a packet channel on one of the caller's
 * endpoints. Opens are synchronizing: the request completes once the endpoint
 * is connected and the send side has opened too (it may already have closed
 * again: its queued packets can still be received). @p recv_handle is written
 * on completion. An endpoint whose previous connection is still closing waits
 * for the next connection.
 * @retval MCAPI_PENDING started (or already complete); test or wait on @p request.
 * @retval MCAPI_SUCCESS completed at once; test or wait on @p request for the outcome.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 * @retval MCAPI_ERR_PARAMETER @p recv_handle or @p request is NULL.
 * @retval MCAPI_ERR_ENDP_INVALID the endpoint handle is stale or forged.
 * @retval MCAPI_ERR_ENDP_REMOTE the endpoint belongs to another node.
 * @retval MCAPI_ERR_CHAN_TYPE the endpoint is connected (or opening) as a scalar channel.
 * @retval MCAPI_ERR_CHAN_DIRECTION the endpoint is the send side.
 * @retval MCAPI_ERR_CHAN_OPENPENDING an open of this side is already pending.
 * @retval MCAPI_ERR_CHAN_OPEN this side is already open.
 * @retval MCAPI_ERR_CHAN_CLOSEPENDING this side's close is still pending.
 * @retval MCAPI_ERR_GENERAL the domain's control-plane lock could not be had: a
 *         thread that is alive held it for too long (the log names it).
 * @retval MCAPI_ERR_REQUEST_LIMIT no request handle is free.
 * On completion the request reports MCAPI_SUCCESS, MCAPI_ERR_ENDP_DELETED (the
 * other side's node finalized before opening) or MCAPI_ERR_REQUEST_CANCELLED
 * (the side stays open-pending until the node finalizes).
 */
void mcapi_pktchan_recv_open_i(mcapi_pktchan_recv_hndl_t *recv_handle,
                               mcapi_endpoint_t receive_endpoint, mcapi_request_t *request,
                               mcapi_status_t *mcapi_status);

/**
 * @brief Opens the send side of a packet channel; as mcapi_pktchan_recv_open_i()
 * with the directions swapped (MCAPI_ERR_CHAN_DIRECTION: the endpoint is the
 * receive side).
 * @retval MCAPI_PENDING started (or already complete); test or wait on @p request.
 * @retval MCAPI_SUCCESS completed at once; test or wait on @p request for the outcome.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 * @retval MCAPI_ERR_PARAMETER @p send_handle or @p request is NULL.
 * @retval MCAPI_ERR_ENDP_INVALID the endpoint handle is stale or forged.
 * @retval MCAPI_ERR_ENDP_REMOTE the endpoint belongs to another node.
 * @retval MCAPI_ERR_CHAN_TYPE the endpoint is connected (or opening) as a scalar channel.
 * @retval MCAPI_ERR_CHAN_DIRECTION the endpoint is the receive side.
 * @retval MCAPI_ERR_CHAN_OPENPENDING an open of this side is already pending.
 * @retval MCAPI_ERR_CHAN_OPEN this side is already open.
 * @retval MCAPI_ERR_CHAN_CLOSEPENDING this side's close is still pending.
 * @retval MCAPI_ERR_GENERAL the domain's control-plane lock could not be had: a
 *         thread that is alive held it for too long (the log names it).
 * @retval MCAPI_ERR_REQUEST_LIMIT no request handle is free.
 */
void mcapi_pktchan_send_open_i(mcapi_pktchan_send_hndl_t *send_handle,
                               mcapi_endpoint_t send_endpoint, mcapi_request_t *request,
                               mcapi_status_t *mcapi_status);

/**
 * @brief Starts sending a packet. The packet is copied into a channel buffer
 * before MCAPI_PENDING is returned when a buffer is free; otherwise the request
 * stays pending (and @p buffer must stay valid) until a buffer comes back.
 * @pre @p buffer holds @p size bytes (NULL allowed when @p size is 0).
 * @retval MCAPI_PENDING started (or already complete); test or wait on @p request.
 * @retval MCAPI_SUCCESS completed at once; test or wait on @p request for the outcome.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 * @retval MCAPI_ERR_PARAMETER @p request is NULL, or @p buffer is NULL with a non-zero size.
 * @retval MCAPI_ERR_CHAN_INVALID not a send handle of this node's open channels (stale or forged).
 * @retval MCAPI_ERR_CHAN_TYPE the handle is a scalar channel's.
 * @retval MCAPI_ERR_CHAN_DIRECTION the handle is a receive handle.
 * @retval MCAPI_ERR_CHAN_OPENPENDING the open has not completed.
 * @retval MCAPI_ERR_CHAN_NOTOPEN this side is closed (or closing), or the receive side closed.
 * @retval MCAPI_ERR_PKT_SIZE @p size is above MCAPI_MAX_PKT_SIZE (MCAPI_ERR_PKT_LIMIT).
 * @retval MCAPI_ERR_MEM_LIMIT the receiver holds every buffer (received, not released),
 *         or the send endpoint is FAIL_ON_MEM_LIMIT and no buffer is free.
 * @retval MCAPI_ERR_REQUEST_LIMIT no request handle is free.
 * On completion the request reports MCAPI_SUCCESS, MCAPI_ERR_MEM_LIMIT,
 * MCAPI_ERR_CHAN_NOTOPEN or MCAPI_ERR_REQUEST_CANCELLED.
 */
void mcapi_pktchan_send_i(mcapi_pktchan_send_hndl_t send_handle, const void *buffer, size_t size,
                          mcapi_request_t *request, mcapi_status_t *mcapi_status);

/**
 * @brief Sends a packet: copies @p size bytes into a free channel buffer and
 * queues it, FIFO. When every buffer is queued for the receiver, the call waits
 * for one to come back, up to the send endpoint's TIMEOUT attribute.
 * @pre @p buffer holds @p size bytes (NULL allowed when @p size is 0).
 * @post @p buffer can be reused at once.
 * @retval MCAPI_SUCCESS the packet is queued.
 * @retval MCAPI_TIMEOUT no buffer came back within TIMEOUT ms; nothing was queued.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 * @retval MCAPI_ERR_PARAMETER @p buffer is NULL with a non-zero size.
 * @retval MCAPI_ERR_CHAN_INVALID not a send handle of this node's open channels (stale or forged).
 * @retval MCAPI_ERR_CHAN_TYPE the handle is a scalar channel's.
 * @retval MCAPI_ERR_CHAN_DIRECTION the handle is a receive handle.
 * @retval MCAPI_ERR_CHAN_OPENPENDING the open has not completed.
 * @retval MCAPI_ERR_CHAN_NOTOPEN this side is closed (or closing), or the receive side
 *         closed or its node finalized (also while waiting).
 * @retval MCAPI_ERR_PKT_SIZE @p size is above MCAPI_MAX_PKT_SIZE.
 * @retval MCAPI_ERR_MEM_LIMIT the receiver holds every buffer, or no buffer is free and
 *         the send endpoint is FAIL_ON_MEM_LIMIT.
 */
void mcapi_pktchan_send(mcapi_pktchan_send_hndl_t send_handle, const void *buffer, size_t size,
                        mcapi_status_t *mcapi_status);

/**
 * @brief Starts receiving a packet (zero-copy). On completion *@p buffer points
 * to the packet inside the channel's buffer pool and the request's size is its
 * length.
 * @post The buffer belongs to the caller until mcapi_pktchan_release().
 * @retval MCAPI_PENDING started (or already complete); test or wait on @p request.
 * @retval MCAPI_SUCCESS completed at once; test or wait on @p request for the outcome.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 * @retval MCAPI_ERR_PARAMETER @p buffer or @p request is NULL.
 * @retval MCAPI_ERR_CHAN_INVALID not a receive handle of this node's open channels.
 * @retval MCAPI_ERR_CHAN_TYPE the handle is a scalar channel's.
 * @retval MCAPI_ERR_CHAN_DIRECTION the handle is a send handle.
 * @retval MCAPI_ERR_CHAN_OPENPENDING the open has not completed.
 * @retval MCAPI_ERR_CHAN_NOTOPEN this side is closed or closing, or the send side closed
 *         and every packet has been received.
 * @retval MCAPI_ERR_MEM_LIMIT (pmq) this side holds every buffer of its local
 *         pool (received, not released).
 * @retval MCAPI_ERR_REQUEST_LIMIT no request handle is free.
 * On completion the request reports MCAPI_SUCCESS, MCAPI_ERR_CHAN_NOTOPEN,
 * MCAPI_ERR_MEM_LIMIT (pmq, as above) or MCAPI_ERR_REQUEST_CANCELLED.
 */
void mcapi_pktchan_recv_i(mcapi_pktchan_recv_hndl_t receive_handle, void **buffer,
                          mcapi_request_t *request, mcapi_status_t *mcapi_status);

/**
 * @brief Receives the oldest packet (zero-copy), waiting up to the receive
 * endpoint's TIMEOUT attribute. *@p buffer points into the channel's pool,
 * aligned to MCAPI_BUF_ALIGN.
 * @post The buffer belongs to the caller until mcapi_pktchan_release(); the
 * sender cannot reuse it before.
 * @retval MCAPI_SUCCESS *@p buffer and *@p received_size are set.
 * @retval MCAPI_TIMEOUT no packet came in time.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 * @retval MCAPI_ERR_PARAMETER @p buffer or @p received_size is NULL.
 * @retval MCAPI_ERR_CHAN_INVALID not a receive handle of this node's open channels.
 * @retval MCAPI_ERR_CHAN_TYPE the handle is a scalar channel's.
 * @retval MCAPI_ERR_CHAN_DIRECTION the handle is a send handle.
 * @retval MCAPI_ERR_CHAN_OPENPENDING the open has not completed.
 * @retval MCAPI_ERR_CHAN_NOTOPEN this side is closed or closing, or the send side closed
 *         (or its node finalized) and every packet has been received.
 * @retval MCAPI_ERR_MEM_LIMIT (pmq) this side holds every buffer of its local
 *         pool (received, not released).
 */
void mcapi_pktchan_recv(mcapi_pktchan_recv_hndl_t receive_handle, void **buffer,
                        size_t *received_size, mcapi_status_t *mcapi_status);

/**
 * @brief Packets queued on the receive side and not yet received; a snapshot.
 * @retval MCAPI_SUCCESS returns the count.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 * @retval MCAPI_ERR_CHAN_INVALID not a receive handle of this node's open channels (returns 0).
 * @retval MCAPI_ERR_CHAN_TYPE the handle is a scalar channel's.
 * @retval MCAPI_ERR_CHAN_DIRECTION the handle is a send handle.
 * @retval MCAPI_ERR_CHAN_OPENPENDING the open has not completed.
 * @retval MCAPI_ERR_CHAN_NOTOPEN this side is closed or closing.
 */
mcapi_uint_t mcapi_pktchan_available(mcapi_pktchan_recv_hndl_t receive_handle,
                                     mcapi_status_t *mcapi_status);

/**
 * @brief Gives a buffer handed out by a packet receive back to the channel
 * (it returns to the sender on the return ring). Any order. Call it from the
 * receiving node; it is allowed while the receive side's close is pending (the
 * close completes after the last release).
 * @pre @p buffer is a pointer returned by mcapi_pktchan_recv() or _recv_i()
 * of this node and not yet released.
 * @post The caller must not touch the buffer any more.
 * @retval MCAPI_SUCCESS released.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 * @retval MCAPI_ERR_BUF_INVALID @p buffer is NULL, not the start of a pool buffer, not
 *         handed out to this node, or already released; nothing was changed.
 */
void mcapi_pktchan_release(void *buffer, mcapi_status_t *mcapi_status);

/**
 * @brief Whether a pool buffer is free (released, or never handed out) rather
 * than held by the receiver.
 * @return MCAPI_TRUE released, MCAPI_FALSE held (or on error).
 * @retval MCAPI_SUCCESS the answer is valid.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 * @retval MCAPI_ERR_BUF_INVALID @p buffer is not the start of a buffer of one of this
 *         node's packet channels.
 */
mcapi_boolean_t mcapi_pktchan_release_test(void *buffer, mcapi_status_t *mcapi_status);

/**
 * @brief Closes the receive side of a packet channel. Packets still queued
 * are dropped when the connection ends. While the receiver holds buffers the
 * close stays pending (MCAPI_ENDP_STATUS_CLOSE_PENDING): it completes after
 * the last mcapi_pktchan_release(). The connection ends (both endpoints become
 * message endpoints, the handles stale) when the send side has closed too.
 * @retval MCAPI_PENDING started (or already complete); test or wait on @p request.
 * @retval MCAPI_SUCCESS completed at once; test or wait on @p request for the outcome.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 * @retval MCAPI_ERR_PARAMETER @p request is NULL.
 * @retval MCAPI_ERR_CHAN_INVALID not a receive handle of this node's channels (stale or forged).
 * @retval MCAPI_ERR_CHAN_TYPE the handle is a scalar channel's.
 * @retval MCAPI_ERR_CHAN_DIRECTION the handle is a send handle.
 * @retval MCAPI_ERR_CHAN_NOTOPEN this side is not open (already closed).
 * @retval MCAPI_ERR_CHAN_CLOSEPENDING a close of this side is already pending.
 * @retval MCAPI_ERR_REQUEST_LIMIT no request handle is free.
 */
void mcapi_pktchan_recv_close_i(mcapi_pktchan_recv_hndl_t receive_handle,
                                mcapi_request_t *request, mcapi_status_t *mcapi_status);

/**
 * @brief Closes the send side of a packet channel; completes at once. Packets
 * already queued stay receivable until the receive side closes.
 * @retval MCAPI_PENDING started (complete); test or wait on @p request.
 * @retval MCAPI_SUCCESS completed at once; test or wait on @p request for the outcome.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 * @retval MCAPI_ERR_PARAMETER @p request is NULL.
 * @retval MCAPI_ERR_CHAN_INVALID not a send handle of this node's channels (stale or forged).
 * @retval MCAPI_ERR_CHAN_TYPE the handle is a scalar channel's.
 * @retval MCAPI_ERR_CHAN_DIRECTION the handle is a receive handle.
 * @retval MCAPI_ERR_CHAN_NOTOPEN this side is not open (already closed).
 * @retval MCAPI_ERR_CHAN_CLOSEPENDING a close of this side is already pending.
 * @retval MCAPI_ERR_REQUEST_LIMIT no request handle is free.
 */
void mcapi_pktchan_send_close_i(mcapi_pktchan_send_hndl_t send_handle, mcapi_request_t *request,
                                mcapi_status_t *mcapi_status);

/* ------------------------------------------------------ scalar channels */

/**
 * @brief Connects two endpoints as a scalar channel; as mcapi_pktchan_connect_i().
 * The channel queues NUM_RECV_BUFFERS of the receive endpoint scalars.
 * @retval MCAPI_PENDING connected; complete the request with mcapi_test()/wait().
 * @retval MCAPI_SUCCESS completed at once; test or wait on @p request for the outcome.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 * @retval MCAPI_ERR_PARAMETER @p request is NULL.
 * @retval MCAPI_ERR_ENDP_INVALID an endpoint handle is stale or forged, or both are the same.
 * @retval MCAPI_ERR_CHAN_CONNECTED an endpoint is already connected.
 * @retval MCAPI_ERR_CHAN_TYPE an endpoint has a pending open of the other channel type.
 * @retval MCAPI_ERR_CHAN_DIRECTION an endpoint has a pending open of the other direction.
 * @retval MCAPI_ERR_MEM_LIMIT the domain has no free channel record, or (pmq) the
 *         connection's queue could not be made (a limit; mcx_pmq_limits() names it).
 * @retval MCAPI_ERR_REQUEST_LIMIT no request handle is free (the connection stays made).
 * @retval MCAPI_ERR_GENERAL (pmq) the connection's queue name is held by another
 *         user's queue (left alone; the log names it), or the domain's
 *         control-plane lock could not be had: a thread that is alive held it
 *         for too long. Nothing is connected.
 */
void mcapi_sclchan_connect_i(mcapi_endpoint_t send_endpoint, mcapi_endpoint_t receive_endpoint,
                             mcapi_request_t *request, mcapi_status_t *mcapi_status);

/**
 * @brief Opens the receive side of a scalar channel; as mcapi_pktchan_recv_open_i().
 * @retval MCAPI_PENDING started (or already complete); test or wait on @p request.
 * @retval MCAPI_SUCCESS completed at once; test or wait on @p request for the outcome.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 * @retval MCAPI_ERR_PARAMETER @p receive_handle or @p request is NULL.
 * @retval MCAPI_ERR_ENDP_INVALID the endpoint handle is stale or forged.
 * @retval MCAPI_ERR_ENDP_REMOTE the endpoint belongs to another node.
 * @retval MCAPI_ERR_CHAN_TYPE the endpoint is connected (or opening) as a packet channel.
 * @retval MCAPI_ERR_CHAN_DIRECTION the endpoint is the send side.
 * @retval MCAPI_ERR_CHAN_OPENPENDING an open of this side is already pending.
 * @retval MCAPI_ERR_CHAN_OPEN this side is already open.
 * @retval MCAPI_ERR_CHAN_CLOSEPENDING this side's close is still pending.
 * @retval MCAPI_ERR_GENERAL the domain's control-plane lock could not be had: a
 *         thread that is alive held it for too long (the log names it).
 * @retval MCAPI_ERR_REQUEST_LIMIT no request handle is free.
 */
void mcapi_sclchan_recv_open_i(mcapi_sclchan_recv_hndl_t *receive_handle,
                               mcapi_endpoint_t receive_endpoint, mcapi_request_t *request,
                               mcapi_status_t *mcapi_status);

/**
 * @brief Opens the send side of a scalar channel; as mcapi_pktchan_send_open_i().
 * @retval MCAPI_PENDING started (or already complete); test or wait on @p request.
 * @retval MCAPI_SUCCESS completed at once; test or wait on @p request for the outcome.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 * @retval MCAPI_ERR_PARAMETER @p send_handle or @p request is NULL.
 * @retval MCAPI_ERR_ENDP_INVALID the endpoint handle is stale or forged.
 * @retval MCAPI_ERR_ENDP_REMOTE the endpoint belongs to another node.
 * @retval MCAPI_ERR_CHAN_TYPE the endpoint is connected (or opening) as a packet channel.
 * @retval MCAPI_ERR_CHAN_DIRECTION the endpoint is the receive side.
 * @retval MCAPI_ERR_CHAN_OPENPENDING an open of this side is already pending.
 * @retval MCAPI_ERR_CHAN_OPEN this side is already open.
 * @retval MCAPI_ERR_CHAN_CLOSEPENDING this side's close is still pending.
 * @retval MCAPI_ERR_GENERAL the domain's control-plane lock could not be had: a
 *         thread that is alive held it for too long (the log names it).
 * @retval MCAPI_ERR_REQUEST_LIMIT no request handle is free.
 */
void mcapi_sclchan_send_open_i(mcapi_sclchan_send_hndl_t *send_handle,
                               mcapi_endpoint_t send_endpoint, mcapi_request_t *request,
                               mcapi_status_t *mcapi_status);

/**
 * @brief Sends a 64-bit scalar; the slot records the width (8 bytes). A full
 * channel makes the call wait, up to the send endpoint's TIMEOUT attribute.
 * The 32-, 16- and 8-bit variants below behave the same with their widths.
 * @retval MCAPI_SUCCESS queued.
 * @retval MCAPI_TIMEOUT the channel stayed full for TIMEOUT ms; nothing was queued.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 * @retval MCAPI_ERR_CHAN_INVALID not a send handle of this node's open channels (stale or forged).
 * @retval MCAPI_ERR_CHAN_TYPE the handle is a packet channel's.
 * @retval MCAPI_ERR_CHAN_DIRECTION the handle is a receive handle.
 * @retval MCAPI_ERR_CHAN_OPENPENDING the open has not completed.
 * @retval MCAPI_ERR_CHAN_NOTOPEN this side is closed (or closing), or the receive side
 *         closed or its node finalized (also while waiting).
 * @retval MCAPI_ERR_MEM_LIMIT the channel is full and the send endpoint is FAIL_ON_MEM_LIMIT.
 */
void mcapi_sclchan_send_uint64(mcapi_sclchan_send_hndl_t send_handle, mcapi_uint64_t dataword,
                               mcapi_status_t *mcapi_status);
/** @brief Sends a 32-bit scalar; statuses as mcapi_sclchan_send_uint64(). */
void mcapi_sclchan_send_uint32(mcapi_sclchan_send_hndl_t send_handle, mcapi_uint32_t dataword,
                               mcapi_status_t *mcapi_status);
/** @brief Sends a 16-bit scalar; statuses as mcapi_sclchan_send_uint64(). */
void mcapi_sclchan_send_uint16(mcapi_sclchan_send_hndl_t send_handle, mcapi_uint16_t dataword,
                               mcapi_status_t *mcapi_status);
/** @brief Sends an 8-bit scalar; statuses as mcapi_sclchan_send_uint64(). */
void mcapi_sclchan_send_uint8(mcapi_sclchan_send_hndl_t send_handle, mcapi_uint8_t dataword,
                              mcapi_status_t *mcapi_status);

/**
 * @brief Receives the oldest scalar, which must have been sent as 64 bits;
 * waits up to the receive endpoint's TIMEOUT attribute. The 32-, 16- and 8-bit
 * variants below behave the same with their widths.
 * @return the scalar, or 0 on any error.
 * @retval MCAPI_SUCCESS received.
 * @retval MCAPI_TIMEOUT nothing came in time.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 * @retval MCAPI_ERR_SCL_SIZE the oldest scalar was sent with another width. It is
 *         NOT consumed: it stays first in the channel, and a receive of the right
 *         width returns it.
 * @retval MCAPI_ERR_CHAN_INVALID not a receive handle of this node's open channels.
 * @retval MCAPI_ERR_CHAN_TYPE the handle is a packet channel's.
 * @retval MCAPI_ERR_CHAN_DIRECTION the handle is a send handle.
 * @retval MCAPI_ERR_CHAN_OPENPENDING the open has not completed.
 * @retval MCAPI_ERR_CHAN_NOTOPEN this side is closed or closing, or the send side closed
 *         (or its node finalized) and every scalar has been received.
 */
mcapi_uint64_t mcapi_sclchan_recv_uint64(mcapi_sclchan_recv_hndl_t receive_handle,
                                         mcapi_status_t *mcapi_status);
/** @brief Receives a 32-bit scalar; statuses as mcapi_sclchan_recv_uint64(). */
mcapi_uint32_t mcapi_sclchan_recv_uint32(mcapi_sclchan_recv_hndl_t receive_handle,
                                         mcapi_status_t *mcapi_status);
/** @brief Receives a 16-bit scalar; statuses as mcapi_sclchan_recv_uint64(). */
mcapi_uint16_t mcapi_sclchan_recv_uint16(mcapi_sclchan_recv_hndl_t receive_handle,
                                         mcapi_status_t *mcapi_status);
/** @brief Receives an 8-bit scalar; statuses as mcapi_sclchan_recv_uint64(). */
mcapi_uint8_t mcapi_sclchan_recv_uint8(mcapi_sclchan_recv_hndl_t receive_handle,
                                       mcapi_status_t *mcapi_status);

/**
 * @brief Scalars queued on the receive side; a snapshot.
 * @retval MCAPI_SUCCESS returns the count.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 * @retval MCAPI_ERR_CHAN_INVALID not a receive handle of this node's open channels (returns 0).
 * @retval MCAPI_ERR_CHAN_TYPE the handle is a packet channel's.
 * @retval MCAPI_ERR_CHAN_DIRECTION the handle is a send handle.
 * @retval MCAPI_ERR_CHAN_OPENPENDING the open has not completed.
 * @retval MCAPI_ERR_CHAN_NOTOPEN this side is closed or closing.
 */
mcapi_uint_t mcapi_sclchan_available(mcapi_sclchan_recv_hndl_t receive_handle,
                                     mcapi_status_t *mcapi_status);

/**
 * @brief Closes the receive side of a scalar channel; completes at once.
 * Queued scalars are dropped when the connection ends (once the send side has
 * closed too).
 * @retval MCAPI_PENDING started (complete); test or wait on @p request.
 * @retval MCAPI_SUCCESS completed at once; test or wait on @p request for the outcome.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 * @retval MCAPI_ERR_PARAMETER @p request is NULL.
 * @retval MCAPI_ERR_CHAN_INVALID not a receive handle of this node's channels.
 * @retval MCAPI_ERR_CHAN_TYPE the handle is a packet channel's.
 * @retval MCAPI_ERR_CHAN_DIRECTION the handle is a send handle.
 * @retval MCAPI_ERR_CHAN_NOTOPEN this side is not open (already closed).
 * @retval MCAPI_ERR_CHAN_CLOSEPENDING a close of this side is already pending.
 * @retval MCAPI_ERR_REQUEST_LIMIT no request handle is free.
 */
void mcapi_sclchan_recv_close_i(mcapi_sclchan_recv_hndl_t receive_handle,
                                mcapi_request_t *request, mcapi_status_t *mcapi_status);

/**
 * @brief Closes the send side of a scalar channel; completes at once. Queued
 * scalars stay receivable until the receive side closes.
 * @retval MCAPI_PENDING started (complete); test or wait on @p request.
 * @retval MCAPI_SUCCESS completed at once; test or wait on @p request for the outcome.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 * @retval MCAPI_ERR_PARAMETER @p request is NULL.
 * @retval MCAPI_ERR_CHAN_INVALID not a send handle of this node's channels.
 * @retval MCAPI_ERR_CHAN_TYPE the handle is a packet channel's.
 * @retval MCAPI_ERR_CHAN_DIRECTION the handle is a receive handle.
 * @retval MCAPI_ERR_CHAN_NOTOPEN this side is not open (already closed).
 * @retval MCAPI_ERR_CHAN_CLOSEPENDING a close of this side is already pending.
 * @retval MCAPI_ERR_REQUEST_LIMIT no request handle is free.
 */
void mcapi_sclchan_send_close_i(mcapi_sclchan_send_hndl_t send_handle, mcapi_request_t *request,
                                mcapi_status_t *mcapi_status);

/* ------------------------------------------------------------- requests */

/**
 * @brief Checks a request without blocking; on completion reports its outcome
 * and frees the handle.
 * @param request the request
 * @param mcapi_status receives the outcome (below)
 * @return MCAPI_TRUE when the request completed (or was cancelled).
 * @param size receives the bytes moved (receives) or sent; may be NULL.
 * @retval MCAPI_SUCCESS completed successfully (returns MCAPI_TRUE).
 * @retval MCAPI_PENDING not yet (returns MCAPI_FALSE).
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 * @retval MCAPI_ERR_PARAMETER @p request is NULL.
 * @retval MCAPI_ERR_REQUEST_INVALID the handle is stale, forged or already reported.
 * @retval MCAPI_ERR_REQUEST_CANCELLED the request was cancelled (returns MCAPI_TRUE).
 * @retval other the operation's own failure status (e.g. MCAPI_ERR_MSG_TRUNCATED,
 *         MCAPI_ERR_ENDP_DELETED, MCAPI_ERR_MEM_LIMIT, MCAPI_ERR_CHAN_NOTOPEN);
 *         returns MCAPI_TRUE.
 */
mcapi_boolean_t mcapi_test(mcapi_request_t *request, size_t *size, mcapi_status_t *mcapi_status);

/**
 * @brief Waits up to @p timeout ms for a request to complete, then as mcapi_test().
 * @retval MCAPI_SUCCESS completed successfully (returns MCAPI_TRUE).
 * @retval MCAPI_TIMEOUT not completed in time; the request stays valid.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 * @retval MCAPI_ERR_PARAMETER @p request is NULL.
 * @retval MCAPI_ERR_REQUEST_INVALID the handle is stale, forged or already reported.
 * @retval MCAPI_ERR_REQUEST_CANCELLED the request was cancelled.
 * @retval other the operation's own failure status, as for mcapi_test().
 */
mcapi_boolean_t mcapi_wait(mcapi_request_t *request, size_t *size, mcapi_timeout_t timeout,
                           mcapi_status_t *mcapi_status);

/**
 * @brief Waits up to @p timeout ms for any of @p number requests.
 * @return the index of the completed request, or MCAPI_RETURN_VALUE_INVALID.
 * @retval MCAPI_SUCCESS request [returned index] completed successfully.
 * @retval MCAPI_TIMEOUT none completed in time.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 * @retval MCAPI_ERR_PARAMETER @p requests is NULL, @p number is 0, or an entry is NULL.
 * @retval MCAPI_ERR_REQUEST_INVALID an entry is stale, forged or already reported.
 * @retval MCAPI_ERR_REQUEST_CANCELLED the returned request was cancelled.
 * @retval other the returned request's own failure status.
 */
mcapi_uint_t mcapi_wait_any(size_t number, mcapi_request_t **requests, size_t *size,
                            mcapi_timeout_t timeout, mcapi_status_t *mcapi_status);

/**
 * @brief Cancels a pending request; a later test/wait reports
 * MCAPI_ERR_REQUEST_CANCELLED and frees it. A send whose message is already
 * queued, or a receive that already took a message, has completed and can no
 * longer be cancelled. A cancelled channel open is withdrawn: the endpoint is
 * as before the open (a message endpoint when not connected; connected, its
 * side not open, when connected).
 * @retval MCAPI_SUCCESS cancelled.
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 * @retval MCAPI_ERR_PARAMETER @p request is NULL.
 * @retval MCAPI_ERR_REQUEST_INVALID the handle is stale or forged, or the request
 *         has already completed.
 * @retval MCAPI_ERR_REQUEST_CANCELLED the request was already cancelled.
 */
void mcapi_cancel(mcapi_request_t *request, mcapi_status_t *mcapi_status);

/* ---------------------------------------------------------- convenience */

/**
 * @brief Writes the name of @p status into @p status_message (at most @p size
 * bytes, NUL included). Any thread, no node needed.
 * @return @p status_message, or NULL when @p status_message is NULL, @p size is 0
 *         or @p status is not a status code.
 */
char *mcapi_display_status(mcapi_status_t status, char *status_message, size_t size);

/** @brief Sets the verbosity of diagnostics printed to stderr (0: none). Any thread. */
void mcapi_set_debug_level(int d);

/**
 * @brief Prints the state of the calling node's domain (nodes, endpoints, queue
 * depths) to stdout; @p handle is ignored (kept for the reference signature).
 */
void mcapi_display_state(void *handle);

#ifdef __cplusplus
}
#endif

/* MCAPI 1.0 programs (include/mcapi1.h): asked for before inclusion. */
#if defined(MCX_API_1_0) || defined(MCAPI_VERSION_1)
#define MCX_MCAPI1_INCLUDED_BY_MCAPI_H
#include "mcapi1.h"
#endif

#endif /* MCAPI_H */
