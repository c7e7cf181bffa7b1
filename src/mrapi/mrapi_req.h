/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file mrapi_req.h
 * @brief MRAPI requests (remote-memory _i transfers) and the process's
 * software DMA engine. Requests live in process memory: a table of
 * MRAPI_MAX_REQUESTS entries whose state word changes only by CAS
 * (FREE -> ISSUED -> QUEUED -> RUNNING -> DONE, QUEUED -> CANCELLED; DONE or
 * CANCELLED -> FREE when reported). A handle carries slot + generation, so a
 * reported (freed) request's handle is stale.
 */
#ifndef MCX_MRAPI_REQ_H
#define MCX_MRAPI_REQ_H

#include <stddef.h>
#include <stdint.h>

/** A transfer's arguments (see mrapi_rmem_read()). */
typedef struct mcx__mr_xfer {
  uint32_t rmem;
  int write;
  uint32_t rmem_off, local_off, bpa, nstrides, rstride, lstride;
  void *local;
} mcx__mr_xfer_t;

/**
 * @brief Issues a transfer: done now by the caller (@p engine 0), or queued
 * to the DMA engine (@p engine 1). Arguments are checked before issuing.
 * @retval 0 (@p req_out set) @retval MCX_ENOMEM no free request
 * @retval the results of mcx__mr_rmem_check()
 */
int mcx__mr_req_issue(const mcx__mr_xfer_t *x, int engine, uint32_t *req_out);
/**
 * @brief Reports a request: waits up to @p timeout_ms (0: not at all). A
 * complete request is freed.
 * @param result the transfer's own result (0 or MCX_EMR_* / MCX_E*)
 * @retval 0 complete @retval MCX_EAGAIN not yet (timeout 0) @retval MCX_ETIMEDOUT
 * @retval MCX_EINVAL not a live request @retval MCX_ECANCELED it was cancelled
 */
int mcx__mr_req_wait(uint32_t req, uint32_t timeout_ms, size_t *bytes, int *result);
/**
 * @brief Waits up to @p timeout_ms until one of the @p n requests completes.
 * @param result the completed one's transfer result, MCX_ECANCELED if it was cancelled
 * @retval >= 0 its index (reported and freed as by mcx__mr_req_wait)
 * @retval MCX_EINVAL none is a live request @retval MCX_ETIMEDOUT @retval MCX_EAGAIN (timeout 0)
 */
int mcx__mr_req_wait_any(const uint32_t *reqs, size_t n, uint32_t timeout_ms, size_t *bytes, int *result);
/** @brief Cancels a queued request. @retval 0 @retval MCX_EINVAL */
int mcx__mr_req_cancel(uint32_t req);
/** @brief Waits until no request of this process on @p rmem (0: any) is queued or running. */
void mcx__mr_req_drain(uint32_t rmem);

#endif /* MCX_MRAPI_REQ_H */
