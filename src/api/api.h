/* SPDX-License-Identifier: BSD-3-Clause */
/* The api layer's helpers: argument checks and the one mapping from internal
 * results to mcapi_status_t. */
#ifndef MCX_API_H
#define MCX_API_H

#include "mcapi.h"
#include "mcx.h"
#include "runtime/runtime.h"

#include "api/export.h" /* MCX_API */

/* Stores @p s when the caller gave a status pointer. */
#define SET(s)                \
  do {                        \
    if (mcapi_status)         \
      *mcapi_status = (s);    \
  } while (0)

/* Every call but the few listed in mcapi.h needs the calling thread to be a node. */
#define REQUIRE_NODE(ret)                  \
  do {                                     \
    if (!mcx__is_node()) {                 \
      SET(MCAPI_ERR_NODE_NOTINIT);         \
      return ret;                          \
    }                                      \
  } while (0)

/** The status of a call whose argument check failed with @p st: a caller
 * that is not a node hears that first, as from REQUIRE_NODE. For the data
 * calls, which leave the node check to the runtime (its fast path serves
 * only nodes; its slow path reports MCX_ENODE), so the check costs nothing
 * on the way that succeeds. No call and no more loads than a thread's own
 * node needs (the data calls inline it beside their fast paths): a thread
 * that took its process's node counts as one (mcx__node_adopt), a thread
 * that has not taken it yet does not. */
static inline mcapi_status_t mcx__arg_error(mcapi_status_t st)
{
  return mcx__self.dom && mcx__self.forked != 1 ? st : MCAPI_ERR_NODE_NOTINIT;
}

/** The context a result is mapped in: which object an error is about. */
typedef enum mcx__ctx {
  CTX_ENDPOINT, /* ESTALE/EINVAL name an endpoint */
  CTX_SEND,     /* a message send */
  CTX_RECV,     /* a message receive */
  CTX_ATTR,     /* an attribute */
  CTX_REQUEST,  /* a request handle */
  CTX_CHAN,     /* a channel call (EMSGSIZE is a packet size) */
} mcx__ctx_t;

mcapi_status_t mcx__status(int r, mcx__ctx_t ctx);
/** mcx__status(r, CTX_CHAN) as a table (mcapi_status.c), which the channel
 * data calls' slow paths store the status from. */
extern mcx__status_map_t mcx__chan_status;

/** mcapi_endpoint_get() of an endpoint in another domain, through the
 * local domain's bridge (mcx_foreign.c, docs/bridge.md). */
mcapi_endpoint_t mcx__foreign_get(mcapi_domain_t domain_id, mcapi_node_t node_id,
                                  mcapi_port_t port_id, mcapi_timeout_t timeout,
                                  mcapi_status_t *mcapi_status);
/** mcapi_endpoint_get_i() of the same: a request that the owner's test and
 * wait complete when the bridge answers (mcx_foreign.c). */
void mcx__foreign_get_i(mcapi_domain_t domain_id, mcapi_node_t node_id, mcapi_port_t port_id,
                        mcapi_endpoint_t *endpoint, mcapi_request_t *request, mcapi_status_t *mcapi_status);

/* ---- non-blocking calls (mcapi_request.c) */
/** A request result that is already an MCAPI status (an _i call's own error). */
#define MCX_REQ_STATUS(s) (0x10000 + (int)(s))

/**
 * Starts request @p a and makes its first attempt; sets the call's status:
 * SUCCESS when it completed at once, PENDING when not (SUCCESS in the
 * mca-2.0.3 profile), REQUEST_LIMIT when no request is free (nothing done),
 * and an error of the attempt as mcx__nb_fail() reports it.
 */
void mcx__nb_start(const mcx__req_args_t *a, mcx__ctx_t ctx, int send_call,
                   mcapi_request_t *request, mcapi_status_t *mcapi_status);
/**
 * An _i call failed before its operation started. Spec: the call returns
 * @p st and no request exists. mca-2.0.3: a completed request carries @p st
 * too, and the message and packet send calls return SUCCESS (@p send_call).
 */
void mcx__nb_fail(mcapi_status_t st, int send_call, mcapi_request_t *request,
                  mcapi_status_t *mcapi_status);

/** A channel side's close (mcapi_chan.c); @p leave: MCAPI 1.0's, which
 * frees the endpoint of the channel at once (mcx__chan_leave). */
void mcx__chan_close_i(uint32_t handle, uint32_t type, uint32_t dir, bool leave,
                       mcapi_request_t *request, mcapi_status_t *mcapi_status);
/** A blocking receive comes after the receive requests posted before it. */
static inline void mcx__recv_after_queued(uint32_t kind, uint32_t handle)
{
  if (__builtin_expect(mcx__recv_queued != 0, 0))
    mcx__recv_queue_wait(kind, handle);
}

#endif
