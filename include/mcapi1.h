/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file mcapi1.h
 * @brief MCAPI 1.0 source compatibility: the 1.0 names, signatures, status
 * codes and attribute numbers, on top of libmca's MCAPI 2.x API.
 *
 * A program written for MCAPI 1.0 (OpenMCAPI and the code written for it)
 * includes this header instead of mcapi.h, or defines MCX_API_1_0 (or
 * MCAPI_VERSION_1) before including mcapi.h. docs/compat.md, "MCAPI 1.0
 * programs", lists what is supported and which 1.0 behaviours differ.
 *
 * - The 1.0 calls whose name or argument order changed in 2.x are macros
 *   over small inline functions (mcx1_*) or over the library's mcapi1.c.
 *   Calls 1.0 and 2.x share (mcapi_msg_send, mcapi_pktchan_recv, ...) are
 *   the library's own; the 2.x names stay declared too.
 * - 1.0 has no domains: every node of a 1.0 program is in domain
 *   MCX_MCAPI1_DOMAIN (0 unless defined before inclusion).
 * - Non-blocking calls report MCAPI_SUCCESS once started, as 1.0 says (2.x
 *   says MCAPI_PENDING); test and wait report an unfinished request as
 *   MCAPI_INCOMPLETE / MCAPI_EREQ_TIMEOUT.
 * - A cancelled request's test or wait returns MCAPI_FALSE with
 *   MCAPI_EREQ_CANCELED (2.x: MCAPI_TRUE, the request is reported).
 * - The 1.0 status names are aliases of the 2.x codes (several 1.0 names
 *   share one 2.x code: a switch over them needs one case per code).
 */
#ifndef MCX_MCAPI1_H
#define MCX_MCAPI1_H

#ifndef MCX_MCAPI1_INCLUDED_BY_MCAPI_H
#include "mcapi.h"
#endif

#ifdef __cplusplus
extern "C" {
#endif

#ifndef MCX_MCAPI1_DOMAIN
/** The domain of every node of an MCAPI 1.0 program (1.0 has none). */
#define MCX_MCAPI1_DOMAIN 0
#endif

/** mcapi_initialize()'s version output (1.0). */
typedef mca_uint_t mcapi_version_t;

/* ---- 1.0 status names (aliases of the 2.x codes) */
#define MCAPI_INCOMPLETE MCAPI_PENDING
#define MCAPI_EREQ_PENDING MCAPI_PENDING
#define MCAPI_EREQ_TIMEOUT MCAPI_TIMEOUT
#define MCAPI_ENO_INIT MCAPI_ERR_NODE_INITFAILED
#define MCAPI_ENO_FINAL MCAPI_ERR_NODE_FINALFAILED
#define MCAPI_INITIALIZED MCAPI_ERR_NODE_INITIALIZED
#define MCAPI_ENODE_NOTINIT MCAPI_ERR_NODE_NOTINIT
#define MCAPI_ENODE_NOTVALID MCAPI_ERR_NODE_INVALID
#define MCAPI_EPARAM MCAPI_ERR_PARAMETER
#define MCAPI_EPORT_NOTVALID MCAPI_ERR_PORT_INVALID
#define MCAPI_ENOT_ENDP MCAPI_ERR_ENDP_INVALID
#define MCAPI_ENO_ENDPOINT MCAPI_ERR_ENDP_INVALID
#define MCAPI_EENDP_INVALID MCAPI_ERR_ENDP_INVALID
#define MCAPI_EENDP_ISCREATED MCAPI_ERR_ENDP_EXISTS
#define MCAPI_EENDP_LIMIT MCAPI_ERR_ENDP_LIMIT
#define MCAPI_EEP_NOTALLOWED MCAPI_ERR_ENDP_REMOTE
#define MCAPI_ENOT_OWNER MCAPI_ERR_ENDP_NOTOWNER
#define MCAPI_EATTR_NUM MCAPI_ERR_ATTR_NUM
#define MCAPI_EATTR_SIZE MCAPI_ERR_ATTR_SIZE
#define MCAPI_EATTR_INCOMP MCAPI_ERR_ATTR_INCOMPATIBLE
#define MCAPI_EREAD_ONLY MCAPI_ERR_ATTR_READONLY
#define MCAPI_ECHAN_OPEN MCAPI_ERR_CHAN_OPEN
#define MCAPI_ECONNECTED MCAPI_ERR_CHAN_CONNECTED
#define MCAPI_ENOT_CONNECTED MCAPI_ERR_CHAN_NOTOPEN
#define MCAPI_ENOT_OPEN MCAPI_ERR_CHAN_NOTOPEN
#define MCAPI_ECHAN_TYPE MCAPI_ERR_CHAN_TYPE
#define MCAPI_EDIR MCAPI_ERR_CHAN_DIRECTION
#define MCAPI_ENOT_HANDLE MCAPI_ERR_CHAN_INVALID
#define MCAPI_ESCL_SIZE MCAPI_ERR_SCL_SIZE
#define MCAPI_EMESS_LIMIT MCAPI_ERR_MSG_SIZE
#define MCAPI_EPACK_LIMIT MCAPI_ERR_PKT_SIZE
#define MCAPI_ETRUNCATED MCAPI_ERR_MSG_TRUNCATED
#define MCAPI_ENOT_VALID_BUF MCAPI_ERR_BUF_INVALID
#define MCAPI_ENO_BUFFER MCAPI_ERR_MEM_LIMIT
#define MCAPI_ENO_MEM MCAPI_ERR_MEM_LIMIT
#define MCAPI_ENO_REQUEST MCAPI_ERR_REQUEST_LIMIT
#define MCAPI_EREQ_CANCELED MCAPI_ERR_REQUEST_CANCELLED
#define MCAPI_ENOTREQ_HANDLE MCAPI_ERR_REQUEST_INVALID
#define MCAPI_EPRIO MCAPI_ERR_PRIORITY
#define MCAPI_EREQ_ERROR MCAPI_ERR_GENERAL
#define MCAPI_OS_ERROR MCAPI_ERR_GENERAL

/* ---- 1.0 endpoint attribute numbers (mcapi_get/set_endpoint_attribute
 * take these, not the 2.x MCAPI_ENDP_ATTR_* numbers). Values are
 * mcapi_uint32_t (a size_t buffer is accepted too where 2.x keeps one). */
#define MCAPI_ATTR_NO_PRIORITIES 1          /**< read-only: priorities of the domain */
#define MCAPI_ATTR_NO_BUFFERS 2             /**< receive queue depth per priority */
#define MCAPI_ATTR_BUFFER_SIZE 3            /**< read-only: largest message */
#define MCAPI_ATTR_BUFFER_TYPE 4            /**< not supported */
#define MCAPI_ATTR_MEMORY_TYPE 5            /**< not supported */
#define MCAPI_ATTR_TIMEOUT 6                /**< blocking calls' bound, ms */
#define MCAPI_ATTR_ENDP_PRIO 7              /**< default send priority of channels */
#define MCAPI_ATTR_ENDP_STATUS 8            /**< read-only: MCAPI_ENDP_STATUS_* flags */
#define MCAPI_ATTR_RECV_BUFFERS_AVAILABLE 9 /**< read-only: free receive slots */

/* ---- the calls mcapi1.c implements (behaviour beyond a rename) */
/** mcapi_initialize (1.0): node @p node_id of domain @p domain_id with the
 * default parameters; @p mcapi_version gets MCAPI_VERSION. */
void mcx1_initialize(mcapi_domain_t domain_id, mcapi_node_t node_id,
                     mcapi_version_t *mcapi_version, mcapi_status_t *mcapi_status);
/** mcapi_get_endpoint (1.0): waits until (caller's domain, node, port) exists. */
mcapi_endpoint_t mcx1_get_endpoint(mcapi_node_t node_id, mcapi_port_t port_id,
                                   mcapi_status_t *mcapi_status);
/** mcapi_get_endpoint_i (1.0), in the caller's domain. */
void mcx1_get_endpoint_i(mcapi_node_t node_id, mcapi_port_t port_id, mcapi_endpoint_t *endpoint,
                         mcapi_request_t *request, mcapi_status_t *mcapi_status);
/** mcapi_get_endpoint_attribute (1.0 numbers, MCAPI_ATTR_*). */
void mcx1_get_endpoint_attribute(mcapi_endpoint_t endpoint, mcapi_uint_t attribute_num,
                                 void *attribute, size_t attribute_size,
                                 mcapi_status_t *mcapi_status);
/** mcapi_set_endpoint_attribute (1.0 numbers, MCAPI_ATTR_*). */
void mcx1_set_endpoint_attribute(mcapi_endpoint_t endpoint, mcapi_uint_t attribute_num,
                                 const void *attribute, size_t attribute_size,
                                 mcapi_status_t *mcapi_status);

/** The side's handle for @p handle, the handle a 1.0 call was given: a
 * side's own handle unchanged; an endpoint's handle (what the opens below
 * give while an open waits for its connection: OpenMCAPI's channel handle
 * is its endpoint's, known at the open call) becomes its side's, when it is
 * one. @p scalar: of a scalar channel, else of a packet channel. */
mcapi_uint32_t mcx1_side(mcapi_uint32_t handle, int scalar);
/** The connects (1.0): an endpoint whose open is for the other direction
 * is found by the connection's handshake in OpenMCAPI, so the call starts
 * and its request says MCAPI_EDIR (2.x: the call says it). */
void mcx1_connect_pktchan_i(mcapi_endpoint_t send_endpoint, mcapi_endpoint_t receive_endpoint,
                            mcapi_request_t *request, mcapi_status_t *mcapi_status);
void mcx1_connect_sclchan_i(mcapi_endpoint_t send_endpoint, mcapi_endpoint_t receive_endpoint,
                            mcapi_request_t *request, mcapi_status_t *mcapi_status);
/** The closes (1.0): the endpoint is free of the channel when its own side
 * has closed (a message endpoint again, or one to connect anew), while the
 * peer's side stays, its data calls saying MCAPI_ENOT_HANDLE, until the
 * peer closes it too. 2.x frees both when the second side closes. */
void mcx1_pktchan_recv_close_i(mcapi_pktchan_recv_hndl_t receive_handle,
                               mcapi_request_t *request, mcapi_status_t *mcapi_status);
void mcx1_pktchan_send_close_i(mcapi_pktchan_send_hndl_t send_handle, mcapi_request_t *request,
                               mcapi_status_t *mcapi_status);
void mcx1_sclchan_recv_close_i(mcapi_sclchan_recv_hndl_t receive_handle,
                               mcapi_request_t *request, mcapi_status_t *mcapi_status);
void mcx1_sclchan_send_close_i(mcapi_sclchan_send_hndl_t send_handle, mcapi_request_t *request,
                               mcapi_status_t *mcapi_status);

/* ---- renames and argument orders (inline) */
/* A started non-blocking call is SUCCESS in 1.0. */
static inline void mcx1_started(mcapi_status_t *mcapi_status)
{
  if (mcapi_status && *mcapi_status == MCAPI_PENDING)
    *mcapi_status = MCAPI_SUCCESS;
}

/* A side's handle passes as it is (one compare); an endpoint's is looked up. */
static inline mcapi_uint32_t mcx1_h(mcapi_uint32_t handle, int scalar)
{
  return handle >> 30 == 1u ? mcx1_side(handle, scalar) : handle;
}

/* A channel data call on a side that is not open, or whose peer has left:
 * 1.0's MCAPI_ENOT_HANDLE, as OpenMCAPI (its handle names no connection);
 * 2.x says MCAPI_ERR_CHAN_NOTOPEN. */
static inline void mcx1_data(mcapi_status_t *mcapi_status)
{
  if (mcapi_status && *mcapi_status == MCAPI_ERR_CHAN_NOTOPEN)
    *mcapi_status = MCAPI_ERR_CHAN_INVALID;
}

static inline mcapi_node_t mcx1_get_node_id(mcapi_status_t *mcapi_status)
{
  return mcapi_node_id_get(mcapi_status);
}
static inline mcapi_endpoint_t mcx1_create_endpoint(mcapi_port_t port_id,
                                                    mcapi_status_t *mcapi_status)
{
  return mcapi_endpoint_create(port_id, mcapi_status);
}
static inline void mcx1_delete_endpoint(mcapi_endpoint_t endpoint, mcapi_status_t *mcapi_status)
{
  mcapi_endpoint_delete(endpoint, mcapi_status);
}
/* A cancelled request did not finish (1.0): FALSE with MCAPI_EREQ_CANCELED. */
static inline mcapi_boolean_t mcx1_finished(mcapi_boolean_t b, const mcapi_status_t *mcapi_status)
{
  return mcapi_status && *mcapi_status == MCAPI_ERR_REQUEST_CANCELLED ? MCAPI_FALSE : b;
}
static inline mcapi_boolean_t mcx1_wait(mcapi_request_t *request, size_t *size,
                                        mcapi_status_t *mcapi_status, mcapi_timeout_t timeout)
{
  return mcx1_finished(mcapi_wait(request, size, timeout, mcapi_status), mcapi_status);
}
static inline mcapi_boolean_t mcx1_test(mcapi_request_t *request, size_t *size,
                                        mcapi_status_t *mcapi_status)
{
  return mcx1_finished(mcapi_test(request, size, mcapi_status), mcapi_status);
}
static inline void mcx1_msg_send_i(mcapi_endpoint_t send_endpoint, mcapi_endpoint_t receive_endpoint,
                                   const void *buffer, size_t buffer_size, mcapi_priority_t priority,
                                   mcapi_request_t *request, mcapi_status_t *mcapi_status)
{
  mcapi_msg_send_i(send_endpoint, receive_endpoint, buffer, buffer_size, priority, request,
                   mcapi_status);
  mcx1_started(mcapi_status);
}
static inline void mcx1_msg_recv_i(mcapi_endpoint_t receive_endpoint, void *buffer,
                                   size_t buffer_size, mcapi_request_t *request,
                                   mcapi_status_t *mcapi_status)
{
  mcapi_msg_recv_i(receive_endpoint, buffer, buffer_size, request, mcapi_status);
  mcx1_started(mcapi_status);
}
/* 1.0 names no "open pending" status: a second open of a side whose open
 * is pending is MCAPI_ECONNECTED (the endpoint is taken by a channel), as
 * for an endpoint already connected; a started open is SUCCESS. */
static inline void mcx1_opened(mcapi_status_t *mcapi_status)
{
  if (mcapi_status && *mcapi_status == MCAPI_ERR_CHAN_OPENPENDING)
    *mcapi_status = MCAPI_ERR_CHAN_CONNECTED;
  mcx1_started(mcapi_status);
}
static inline void mcx1_open_pktchan_recv_i(mcapi_pktchan_recv_hndl_t *recv_handle,
                                            mcapi_endpoint_t receive_endpoint,
                                            mcapi_request_t *request, mcapi_status_t *mcapi_status)
{
  if (recv_handle) /* the side's own handle replaces it once known (the call, or the completion) */
    *recv_handle = receive_endpoint;
  mcapi_pktchan_recv_open_i(recv_handle, receive_endpoint, request, mcapi_status);
  mcx1_opened(mcapi_status);
}
static inline void mcx1_open_pktchan_send_i(mcapi_pktchan_send_hndl_t *send_handle,
                                            mcapi_endpoint_t send_endpoint,
                                            mcapi_request_t *request, mcapi_status_t *mcapi_status)
{
  if (send_handle) /* the side's own handle replaces it once known (the call, or the completion) */
    *send_handle = send_endpoint;
  mcapi_pktchan_send_open_i(send_handle, send_endpoint, request, mcapi_status);
  mcx1_opened(mcapi_status);
}
static inline void mcx1_open_sclchan_recv_i(mcapi_sclchan_recv_hndl_t *recv_handle,
                                            mcapi_endpoint_t receive_endpoint,
                                            mcapi_request_t *request, mcapi_status_t *mcapi_status)
{
  if (recv_handle) /* the side's own handle replaces it once known (the call, or the completion) */
    *recv_handle = receive_endpoint;
  mcapi_sclchan_recv_open_i(recv_handle, receive_endpoint, request, mcapi_status);
  mcx1_opened(mcapi_status);
}
static inline void mcx1_open_sclchan_send_i(mcapi_sclchan_send_hndl_t *send_handle,
                                            mcapi_endpoint_t send_endpoint,
                                            mcapi_request_t *request, mcapi_status_t *mcapi_status)
{
  if (send_handle) /* the side's own handle replaces it once known (the call, or the completion) */
    *send_handle = send_endpoint;
  mcapi_sclchan_send_open_i(send_handle, send_endpoint, request, mcapi_status);
  mcx1_opened(mcapi_status);
}
static inline void mcx1_pktchan_send_i(mcapi_pktchan_send_hndl_t send_handle, const void *buffer,
                                       size_t size, mcapi_request_t *request,
                                       mcapi_status_t *mcapi_status)
{
  mcapi_pktchan_send_i(mcx1_h(send_handle, 0), buffer, size, request, mcapi_status);
  mcx1_data(mcapi_status);
  mcx1_started(mcapi_status);
}
static inline void mcx1_pktchan_recv_i(mcapi_pktchan_recv_hndl_t receive_handle, void **buffer,
                                       mcapi_request_t *request, mcapi_status_t *mcapi_status)
{
  mcapi_pktchan_recv_i(mcx1_h(receive_handle, 0), buffer, request, mcapi_status);
  mcx1_data(mcapi_status);
  mcx1_started(mcapi_status);
}
static inline void mcx1_pktchan_send(mcapi_pktchan_send_hndl_t send_handle, const void *buffer,
                                     size_t size, mcapi_status_t *mcapi_status)
{
  mcapi_pktchan_send(mcx1_h(send_handle, 0), buffer, size, mcapi_status);
  mcx1_data(mcapi_status);
}
static inline void mcx1_pktchan_recv(mcapi_pktchan_recv_hndl_t receive_handle, void **buffer,
                                     size_t *received_size, mcapi_status_t *mcapi_status)
{
  mcapi_pktchan_recv(mcx1_h(receive_handle, 0), buffer, received_size, mcapi_status);
  mcx1_data(mcapi_status);
}
static inline mcapi_uint_t mcx1_pktchan_available(mcapi_pktchan_recv_hndl_t receive_handle,
                                                  mcapi_status_t *mcapi_status)
{
  mcapi_uint_t n = mcapi_pktchan_available(mcx1_h(receive_handle, 0), mcapi_status);
  mcx1_data(mcapi_status);
  return n;
}
static inline mcapi_uint_t mcx1_sclchan_available(mcapi_sclchan_recv_hndl_t receive_handle,
                                                  mcapi_status_t *mcapi_status)
{
  mcapi_uint_t n = mcapi_sclchan_available(mcx1_h(receive_handle, 1), mcapi_status);
  mcx1_data(mcapi_status);
  return n;
}
#define MCX1_SCALAR(bits)                                                                          \
  static inline void mcx1_sclchan_send_uint##bits(mcapi_sclchan_send_hndl_t send_handle,          \
                                                   mcapi_uint##bits##_t dataword,                 \
                                                   mcapi_status_t *mcapi_status)                  \
  {                                                                                                \
    mcapi_sclchan_send_uint##bits(mcx1_h(send_handle, 1), dataword, mcapi_status);                 \
    mcx1_data(mcapi_status);                                                                       \
  }                                                                                                \
  static inline mcapi_uint##bits##_t mcx1_sclchan_recv_uint##bits(                                 \
      mcapi_sclchan_recv_hndl_t receive_handle, mcapi_status_t *mcapi_status)                      \
  {                                                                                                \
    mcapi_uint##bits##_t v = mcapi_sclchan_recv_uint##bits(mcx1_h(receive_handle, 1), mcapi_status); \
    mcx1_data(mcapi_status);                                                                       \
    return v;                                                                                      \
  }
MCX1_SCALAR(8)
MCX1_SCALAR(16)
MCX1_SCALAR(32)
MCX1_SCALAR(64)
#undef MCX1_SCALAR
static inline void mcx1_pktchan_free(void *buffer, mcapi_status_t *mcapi_status)
{
  mcapi_pktchan_release(buffer, mcapi_status);
}

#ifndef MCX_MCAPI1_NO_RENAMES
/* The 1.0 names. Function-like macros: a 1.0 call with its 1.0 arguments
 * becomes the call above; the 2.x declarations stay as they are. */
#define mcapi_initialize(node_id, version, status)                                                 \
  mcx1_initialize(MCX_MCAPI1_DOMAIN, (node_id), (version), (status))
#define mcapi_get_node_id mcx1_get_node_id
#define mcapi_create_endpoint mcx1_create_endpoint
#define mcapi_delete_endpoint mcx1_delete_endpoint
#define mcapi_get_endpoint mcx1_get_endpoint
#define mcapi_get_endpoint_i mcx1_get_endpoint_i
#define mcapi_get_endpoint_attribute mcx1_get_endpoint_attribute
#define mcapi_set_endpoint_attribute mcx1_set_endpoint_attribute
#define mcapi_wait(request, size, status, timeout) mcx1_wait((request), (size), (status), (timeout))
#define mcapi_test(request, size, status) mcx1_test((request), (size), (status))
#define mcapi_msg_send_i(s, r, b, n, p, q, st) mcx1_msg_send_i((s), (r), (b), (n), (p), (q), (st))
#define mcapi_msg_recv_i(r, b, n, q, st) mcx1_msg_recv_i((r), (b), (n), (q), (st))
#define mcapi_connect_pktchan_i mcx1_connect_pktchan_i
#define mcapi_connect_sclchan_i mcx1_connect_sclchan_i
#define mcapi_open_pktchan_recv_i mcx1_open_pktchan_recv_i
#define mcapi_open_pktchan_send_i mcx1_open_pktchan_send_i
#define mcapi_open_sclchan_recv_i mcx1_open_sclchan_recv_i
#define mcapi_open_sclchan_send_i mcx1_open_sclchan_send_i
#define mcapi_pktchan_send_i(h, b, n, q, st) mcx1_pktchan_send_i((h), (b), (n), (q), (st))
#define mcapi_pktchan_recv_i(h, b, q, st) mcx1_pktchan_recv_i((h), (b), (q), (st))
#define mcapi_packetchan_recv_close_i mcx1_pktchan_recv_close_i
#define mcapi_packetchan_send_close_i mcx1_pktchan_send_close_i
#define mcapi_pktchan_recv_close_i(h, q, st) mcx1_pktchan_recv_close_i((h), (q), (st))
#define mcapi_pktchan_send_close_i(h, q, st) mcx1_pktchan_send_close_i((h), (q), (st))
#define mcapi_sclchan_recv_close_i(h, q, st) mcx1_sclchan_recv_close_i((h), (q), (st))
#define mcapi_sclchan_send_close_i(h, q, st) mcx1_sclchan_send_close_i((h), (q), (st))
#define mcapi_pktchan_free mcx1_pktchan_free
#define mcapi_pktchan_send(h, b, n, st) mcx1_pktchan_send((h), (b), (n), (st))
#define mcapi_pktchan_recv(h, b, n, st) mcx1_pktchan_recv((h), (b), (n), (st))
#define mcapi_pktchan_available(h, st) mcx1_pktchan_available((h), (st))
#define mcapi_sclchan_available(h, st) mcx1_sclchan_available((h), (st))
#define mcapi_sclchan_send_uint8(h, v, st) mcx1_sclchan_send_uint8((h), (v), (st))
#define mcapi_sclchan_send_uint16(h, v, st) mcx1_sclchan_send_uint16((h), (v), (st))
#define mcapi_sclchan_send_uint32(h, v, st) mcx1_sclchan_send_uint32((h), (v), (st))
#define mcapi_sclchan_send_uint64(h, v, st) mcx1_sclchan_send_uint64((h), (v), (st))
#define mcapi_sclchan_recv_uint8(h, st) mcx1_sclchan_recv_uint8((h), (st))
#define mcapi_sclchan_recv_uint16(h, st) mcx1_sclchan_recv_uint16((h), (st))
#define mcapi_sclchan_recv_uint32(h, st) mcx1_sclchan_recv_uint32((h), (st))
#define mcapi_sclchan_recv_uint64(h, st) mcx1_sclchan_recv_uint64((h), (st))
#endif

#ifdef __cplusplus
}
#endif

#endif
