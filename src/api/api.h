/* SPDX-License-Identifier: BSD-3-Clause */
/* The api layer's helpers: argument checks and the one mapping from internal
 * results to mcapi_status_t. */
#ifndef MCX_API_H
#define MCX_API_H

#include "mcapi.h"
#include "mcx.h"
#include "runtime/runtime.h"

#define MCX_API __attribute__((visibility("default")))

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

#endif
