/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file request.h
 * @brief Requests (request.c): the non-blocking calls' records, their progress,
 * and the receive queue a blocking receive lets go first.
 */
#ifndef MCX_RUNTIME_REQUEST_H
#define MCX_RUNTIME_REQUEST_H

#include "runtime/domain.h"

/* ---- requests (request.c) */
enum mcx__req_kind {
  REQ_MSG_SEND = 1, REQ_MSG_RECV, REQ_EP_GET, REQ_DONE,
  /* channels (chan.h) */
  REQ_CHAN_CONNECT, REQ_CHAN_OPEN, REQ_CHAN_CLOSE, REQ_PKT_SEND, REQ_PKT_RECV,
  /* completed by a poll of its own (a->poller, context a->buf) */
  REQ_POLL,
};

/*
 * A request whose operation is another process's answer (mcx_foreign.c):
 * poll makes one attempt from the owner's test or wait (MCX_EAGAIN while
 * pending, else the result; the context is then the poller's own to free);
 * drop frees the context of a request that will never complete: cancelled
 * (cancelled = 1, on the owner's thread) or abandoned when its node
 * finalizes (0).
 */
typedef struct mcx__req_poller {
  int (*poll)(void *ctx);
  void (*drop)(void *ctx, int cancelled);
} mcx__req_poller_t;

typedef struct mcx__req_args {
  uint32_t kind;
  uint32_t ep, ep2, prio, node_id, port;
  const void *cbuf;
  void *buf;
  size_t size;
  uint32_t *out_handle;
  uint32_t chan; /* channels: type | direction << 8 (chan.h) */
  const mcx__req_poller_t *poller; /* REQ_POLL */
} mcx__req_args_t;

/**
 * Starts a request: tries the operation once; completes at once or stays
 * pending. @p result_now receives the completion result when it completed.
 * @return 0 with *handle set, or MCX_ENOMEM when the pool is exhausted.
 */
int mcx__req_start(const mcx__req_args_t *a, int completed, int result, size_t size,
                   uint32_t *handle);
/**
 * Starts a request and makes its first attempt (a receive joins the back of
 * its endpoint's or channel's receive queue first).
 * @return 1 completed (*result, *size set; not yet reported), 0 pending, or
 * MCX_ENOMEM when the pool is exhausted (nothing was done).
 */
int mcx__req_begin(const mcx__req_args_t *a, uint32_t *handle, int *result, size_t *size);
/** Frees a completed request that will never be reported (its start failed). */
void mcx__req_discard(uint32_t handle);
/**
 * Serves the receive queue of (@p kind, @p handle) in order.
 * @return 1 when it is empty (a new receive may take the next item), else 0.
 */
int mcx__recv_queue_drain(uint32_t kind, uint32_t handle);
/** Waits until the receive queue of (@p kind, @p handle) is empty (a blocking
 * receive comes after every receive request posted before it). */
int mcx__recv_queue_wait(uint32_t kind, uint32_t handle);
/** Progress + report. @return 1 completed (result, size set), 0 pending, <0 bad handle. */
int mcx__req_test(uint32_t handle, int *result, size_t *size);
int mcx__req_wait(uint32_t handle, uint32_t timeout_ms, int *result, size_t *size);
int mcx__req_wait_any(size_t n, const uint32_t *handles, uint32_t timeout_ms, size_t *index,
                      int *result, size_t *size);
int mcx__req_cancel(uint32_t handle);
/** Forgets every request (a fork child's copy of its parent's). */
void mcx__req_forget_all(void);
/** Frees every request of the calling node (finalize). */
void mcx__req_release_node(uint32_t key);
/** Requests in use (tests, display_state). */
uint32_t mcx__req_in_use(void);
/** A node's receive-queue table (process memory): a thread's own, or one
 * that every thread of a process-scope node shares (@p shared: under its
 * lock). NULL when out of memory. */
struct mcx__recv_qs *mcx__recv_qs_new(int shared);
void mcx__recv_qs_free(struct mcx__recv_qs *t);

#endif
