/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file mcx_err.h
 * @brief Internal results: 0 or a negative MCX_E* code. Only src/api maps them
 * to mcapi_status_t / mrapi_status_t, once: by a call of its mapping, or by
 * a table of it (mcx__status_map_t) that a runtime call stores from.
 */
#ifndef MCX_ERR_H
#define MCX_ERR_H

enum mcx_err {
  MCX_OK = 0,
  MCX_EAGAIN = -1,     /**< would block (queue full/empty, try again) */
  MCX_ETIMEDOUT = -2,  /**< a timed wait expired */
  MCX_EINVAL = -3,     /**< bad argument */
  MCX_ESTALE = -4,     /**< handle names a deleted or reused object */
  MCX_ENOMEM = -5,     /**< no slot, buffer or table entry */
  MCX_EEXIST = -6,     /**< already exists */
  MCX_ENOENT = -7,     /**< no such object */
  MCX_EPERM = -8,      /**< not the owner */
  MCX_ECLOSED = -9,    /**< the object was closed/deleted under the caller */
  MCX_EMSGSIZE = -10,  /**< payload too large */
  MCX_ELIMIT = -40,    /**< a system resource limit (e.g. RLIMIT_MSGQUEUE) was reached */
  MCX_ECORRUPT = -41,  /**< an item in shared memory no sender could have written: dropped */
  MCX_EUNREACH = -42,  /**< the destination cannot be reached now (mcx_endpoint_set_reachable) */
  MCX_EBADRCPT = -43,  /**< not a receipt handle of the domain (mcx_receipt_open) */
  MCX_ENODE = -44,     /**< the calling thread is not a node (or a fork child's copy of one) */
  MCX_EPRIO = -45,     /**< a message priority above MCAPI_MAX_PRIORITY */
  MCX_ETRUNC = -11,    /**< payload truncated into a smaller buffer */
  MCX_EBUSY = -12,     /**< in use (queued data, connected, locked) */
  MCX_EINTR = -13,     /**< interrupted by a signal */
  MCX_ECANCELED = -14, /**< the operation was cancelled */
  MCX_EOWNERDEAD = -15,/**< the previous owner died holding it */
  MCX_ENOSYS = -16,    /**< not supported here */
  MCX_EIO = -17,       /**< an OS call failed */
  MCX_EROFS = -18,     /**< read-only (attribute) */
  MCX_ECHAN = -19,     /**< the endpoint is connected to a channel */
  /* channels */
  MCX_ECHTYPE = -20,   /**< connected (or opening) as another channel type */
  MCX_ECHDIR = -21,    /**< the other direction of the channel */
  MCX_EOPENP = -22,    /**< an open is pending */
  MCX_ECLOSEP = -23,   /**< a close is pending */
  MCX_ENOTOPEN = -24,  /**< the channel (this side or the other) is not open */
  MCX_EBADCH = -25,    /**< not a channel handle of the caller */
  MCX_EWIDTH = -26,    /**< scalar of another width */
  MCX_EBADBUF = -27,   /**< not a buffer handed out by a packet receive */
  MCX_EISOPEN = -28,   /**< already open */
};
/** Every code is above -MCX_ERR_COUNT (MCX_EPRIO the lowest). */
#define MCX_ERR_COUNT 46
_Static_assert(MCX_EPRIO == 1 - MCX_ERR_COUNT, "MCX_ERR_COUNT follows the lowest code");

#include <stdint.h>

/**
 * A caller's status for each result: the api's mapping as a table (src/api
 * fills it), for a runtime call that ends by storing its caller's status
 * (the channel data calls' slow paths), so that its caller's call of it is
 * its last step. of[-r] is the status of result r.
 */
typedef struct mcx__status_map {
  uint32_t of[MCX_ERR_COUNT];
} mcx__status_map_t;

/** Stores the status @p m gives a failed result @p r (an MCX_E* code: the
 * runtime's own result, never a value read from shared memory) at
 * *@p status; leaves it on MCX_OK, where the caller stored its success
 * before the call. */
static inline void mcx__status_store(uint32_t *status, const mcx__status_map_t *m, int r)
{
  if (r != MCX_OK)
    *status = m->of[-r];
}

#endif /* MCX_ERR_H */
