/* SPDX-License-Identifier: BSD-3-Clause */
/* The single mapping from internal results to MCAPI status codes, and
 * mcapi_display_status(). */
#include <stdio.h>
#include <string.h>

#include "api/api.h"

mcapi_status_t mcx__status(int r, mcx__ctx_t ctx)
{
  switch (r) {
  case MCX_OK:
    return MCAPI_SUCCESS;
  case MCX_ETIMEDOUT:
    return MCAPI_TIMEOUT;
  case MCX_ESTALE:
    return ctx == CTX_REQUEST ? MCAPI_ERR_REQUEST_INVALID : MCAPI_ERR_ENDP_INVALID;
  case MCX_EINVAL:
    if (ctx == CTX_REQUEST)
      return MCAPI_ERR_REQUEST_INVALID;
    if (ctx == CTX_ATTR)
      return MCAPI_ERR_ATTR_VALUE;
    return MCAPI_ERR_ENDP_INVALID;
  case MCX_EPERM:
    return ctx == CTX_ENDPOINT ? MCAPI_ERR_ENDP_NOTOWNER : MCAPI_ERR_ENDP_REMOTE;
  case MCX_ECHAN:
    return ctx == CTX_ATTR || ctx == CTX_ENDPOINT ? MCAPI_ERR_CHAN_OPEN : MCAPI_ERR_CHAN_CONNECTED;
  case MCX_ECLOSED:
    return MCAPI_ERR_ENDP_DELETED;
  case MCX_EMSGSIZE:
    if (ctx == CTX_CHAN)
      return MCAPI_ERR_PKT_SIZE;
    return ctx == CTX_ATTR ? MCAPI_ERR_ATTR_SIZE : MCAPI_ERR_MSG_SIZE;
  case MCX_ETRUNC:
    return MCAPI_ERR_MSG_TRUNCATED;
  case MCX_ELIMIT: /* a system limit (pmq: RLIMIT_MSGQUEUE, msg_max); the log names it */
    return MCAPI_ERR_MEM_LIMIT;
  case MCX_ENOMEM:
    return ctx == CTX_REQUEST ? MCAPI_ERR_REQUEST_LIMIT : MCAPI_ERR_MEM_LIMIT;
  case MCX_EBUSY:
    return ctx == CTX_REQUEST ? MCAPI_ERR_REQUEST_INVALID : MCAPI_ERR_MEM_LIMIT;
  case MCX_ECANCELED:
    return MCAPI_ERR_REQUEST_CANCELLED;
  case MCX_EROFS:
    return MCAPI_ERR_ATTR_READONLY;
  case MCX_ENOSYS:
    return MCAPI_ERR_ATTR_NOTSUPPORTED;
  case MCX_ENOENT:
    return ctx == CTX_ATTR ? MCAPI_ERR_ATTR_NUM : MCAPI_ERR_ENDP_INVALID;
  case MCX_EAGAIN:
    return MCAPI_PENDING;
  case MCX_ENODE:
    return MCAPI_ERR_NODE_NOTINIT;
  case MCX_EPRIO:
    return MCAPI_ERR_PRIORITY;
  /* channels */
  case MCX_ECHTYPE:
    return MCAPI_ERR_CHAN_TYPE;
  case MCX_ECHDIR:
    return MCAPI_ERR_CHAN_DIRECTION;
  case MCX_EOPENP:
    return MCAPI_ERR_CHAN_OPENPENDING;
  case MCX_ECLOSEP:
    return MCAPI_ERR_CHAN_CLOSEPENDING;
  case MCX_ENOTOPEN:
    return MCAPI_ERR_CHAN_NOTOPEN;
  case MCX_EBADCH:
    return MCAPI_ERR_CHAN_INVALID;
  case MCX_EWIDTH:
    return MCAPI_ERR_SCL_SIZE;
  case MCX_EBADBUF:
    return MCAPI_ERR_BUF_INVALID;
  case MCX_EISOPEN:
    return MCAPI_ERR_CHAN_OPEN;
  case MCX_ECORRUPT: /* a corrupt slot read from the partition: the item is lost */
  case MCX_EUNREACH: /* the destination cannot be reached now */
    return MCAPI_ERR_TRANSMISSION;
  default:
    return MCAPI_ERR_GENERAL;
  }
}

/* The channel calls' mapping as a table, for their slow paths to store
 * from (mcx__status_map_t): filled from mcx__status when the library loads,
 * so it is the one mapping. At the first constructor priority: before the
 * constructors of a program linked with the static library (C++ static
 * objects among them), which may already call MCAPI. */
mcx__status_map_t mcx__chan_status;

__attribute__((constructor(101))) static void chan_status_fill(void)
{
  for (int i = 0; i < MCX_ERR_COUNT; i++)
    mcx__chan_status.of[i] = mcx__status(-i, CTX_CHAN);
}

static const char *const status_names[] = {
    [MCAPI_SUCCESS] = "MCAPI_SUCCESS",
    [MCAPI_PENDING] = "MCAPI_PENDING",
    [MCAPI_TIMEOUT] = "MCAPI_TIMEOUT",
    [MCAPI_ERR_PARAMETER] = "MCAPI_ERR_PARAMETER",
    [MCAPI_ERR_DOMAIN_INVALID] = "MCAPI_ERR_DOMAIN_INVALID",
    [MCAPI_ERR_NODE_INVALID] = "MCAPI_ERR_NODE_INVALID",
    [MCAPI_ERR_NODE_INITFAILED] = "MCAPI_ERR_NODE_INITFAILED",
    [MCAPI_ERR_NODE_INITIALIZED] = "MCAPI_ERR_NODE_INITIALIZED",
    [MCAPI_ERR_NODE_NOTINIT] = "MCAPI_ERR_NODE_NOTINIT",
    [MCAPI_ERR_NODE_FINALFAILED] = "MCAPI_ERR_NODE_FINALFAILED",
    [MCAPI_ERR_PORT_INVALID] = "MCAPI_ERR_PORT_INVALID",
    [MCAPI_ERR_ENDP_INVALID] = "MCAPI_ERR_ENDP_INVALID",
    [MCAPI_ERR_ENDP_EXISTS] = "MCAPI_ERR_ENDP_EXISTS",
    [MCAPI_ERR_ENDP_GET_LIMIT] = "MCAPI_ERR_ENDP_GET_LIMIT",
    [MCAPI_ERR_ENDP_DELETED] = "MCAPI_ERR_ENDP_DELETED",
    [MCAPI_ERR_ENDP_NOTOWNER] = "MCAPI_ERR_ENDP_NOTOWNER",
    [MCAPI_ERR_ENDP_REMOTE] = "MCAPI_ERR_ENDP_REMOTE",
    [MCAPI_ERR_ATTR_INCOMPATIBLE] = "MCAPI_ERR_ATTR_INCOMPATIBLE",
    [MCAPI_ERR_ATTR_SIZE] = "MCAPI_ERR_ATTR_SIZE",
    [MCAPI_ERR_ATTR_NUM] = "MCAPI_ERR_ATTR_NUM",
    [MCAPI_ERR_ATTR_VALUE] = "MCAPI_ERR_ATTR_VALUE",
    [MCAPI_ERR_ATTR_NOTSUPPORTED] = "MCAPI_ERR_ATTR_NOTSUPPORTED",
    [MCAPI_ERR_ATTR_READONLY] = "MCAPI_ERR_ATTR_READONLY",
    [MCAPI_ERR_MSG_SIZE] = "MCAPI_ERR_MSG_SIZE",
    [MCAPI_ERR_MSG_TRUNCATED] = "MCAPI_ERR_MSG_TRUNCATED",
    [MCAPI_ERR_CHAN_OPEN] = "MCAPI_ERR_CHAN_OPEN",
    [MCAPI_ERR_CHAN_TYPE] = "MCAPI_ERR_CHAN_TYPE",
    [MCAPI_ERR_CHAN_DIRECTION] = "MCAPI_ERR_CHAN_DIRECTION",
    [MCAPI_ERR_CHAN_CONNECTED] = "MCAPI_ERR_CHAN_CONNECTED",
    [MCAPI_ERR_CHAN_OPENPENDING] = "MCAPI_ERR_CHAN_OPENPENDING",
    [MCAPI_ERR_CHAN_CLOSEPENDING] = "MCAPI_ERR_CHAN_CLOSEPENDING",
    [MCAPI_ERR_CHAN_NOTOPEN] = "MCAPI_ERR_CHAN_NOTOPEN",
    [MCAPI_ERR_CHAN_INVALID] = "MCAPI_ERR_CHAN_INVALID",
    [MCAPI_ERR_PKT_SIZE] = "MCAPI_ERR_PKT_SIZE",
    [MCAPI_ERR_TRANSMISSION] = "MCAPI_ERR_TRANSMISSION",
    [MCAPI_ERR_PRIORITY] = "MCAPI_ERR_PRIORITY",
    [MCAPI_ERR_BUF_INVALID] = "MCAPI_ERR_BUF_INVALID",
    [MCAPI_ERR_MEM_LIMIT] = "MCAPI_ERR_MEM_LIMIT",
    [MCAPI_ERR_REQUEST_INVALID] = "MCAPI_ERR_REQUEST_INVALID",
    [MCAPI_ERR_REQUEST_LIMIT] = "MCAPI_ERR_REQUEST_LIMIT",
    [MCAPI_ERR_REQUEST_CANCELLED] = "MCAPI_ERR_REQUEST_CANCELLED",
    [MCAPI_ERR_WAIT_PENDING] = "MCAPI_ERR_WAIT_PENDING",
    [MCAPI_ERR_GENERAL] = "MCAPI_ERR_GENERAL",
    [MCAPI_ERR_SCL_SIZE] = "MCAPI_ERR_SCL_SIZE",
    [MCAPI_ERR_ENDP_NOPORTS] = "MCAPI_ERR_ENDP_NOPORTS",
    [MCAPI_ERR_ENDP_LIMIT] = "MCAPI_ERR_ENDP_LIMIT",
};

_Static_assert(sizeof status_names / sizeof status_names[0] == MCAPI_STATUSCODE_END,
               "a name for every status code");

MCX_API char *mcapi_display_status(mcapi_status_t status, char *status_message, size_t size)
{
  if (!status_message || size == 0 || status >= MCAPI_STATUSCODE_END || !status_names[status])
    return NULL;
  snprintf(status_message, size, "%s", status_names[status]);
  return status_message;
}

MCX_API void mcapi_set_debug_level(int d)
{
  mcx_store_relaxed(&mcx__debug_level, d < 0 ? 0u : (uint32_t)d); /* a knob */
}

MCX_API void mcapi_display_state(void *handle)
{
  (void)handle;
  mcx__display_state();
}
