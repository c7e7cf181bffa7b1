/* SPDX-License-Identifier: BSD-3-Clause */
/* Message calls. */
#include "api/api.h"
#include "runtime/msg_fast.h"

static mcapi_status_t send_status(int r)
{
  /* A stale receive handle is ENDP_INVALID up front, ENDP_DELETED once the
   * send had started (mcx__status maps ECLOSED). */
  return mcx__status(r, CTX_SEND);
}

MCX_API void mcapi_msg_send_i(mcapi_endpoint_t send_endpoint, mcapi_endpoint_t receive_endpoint,
                              const void *buffer, size_t buffer_size, mcapi_priority_t priority,
                              mcapi_request_t *request, mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return;
  REQUIRE_NODE();
  if (!request) {
    SET(MCAPI_ERR_PARAMETER);
    return;
  }
  if (!buffer && buffer_size) {
    mcx__nb_fail(MCAPI_ERR_PARAMETER, 1, request, mcapi_status);
    return;
  }
  if (priority > MCAPI_MAX_PRIORITY) {
    mcx__nb_fail(MCAPI_ERR_PRIORITY, 1, request, mcapi_status);
    return;
  }
  /* The request first, then the attempt: nothing is sent without one. */
  mcx__req_args_t a = {.kind = REQ_MSG_SEND, .ep = send_endpoint, .ep2 = receive_endpoint,
                       .prio = priority, .cbuf = buffer, .size = buffer_size};
  mcx__nb_start(&a, CTX_SEND, 1, request, mcapi_status);
}

/* The checks of a blocking send, then the send (with @p receipted, one that
 * sets receipt @p receipt to @p value: mcx_msg_send_receipted). */
static void msg_send_checked(mcapi_endpoint_t send_endpoint, mcapi_endpoint_t receive_endpoint,
                             const void *buffer, size_t buffer_size, mcapi_priority_t priority,
                             int receipted, mcx_receipt_t receipt, mca_uint64_t value,
                             mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return;
  REQUIRE_NODE();
  if (!buffer && buffer_size) {
    SET(MCAPI_ERR_PARAMETER);
    return;
  }
  if (priority > MCAPI_MAX_PRIORITY) {
    SET(MCAPI_ERR_PRIORITY);
    return;
  }
  int r = receipted ? mcx__msg_send_receipted(send_endpoint, receive_endpoint, buffer, buffer_size,
                                              priority, receipt, value)
                    : mcx__msg_send(send_endpoint, receive_endpoint, buffer, buffer_size, priority);
  SET(r == MCX_OK ? MCAPI_SUCCESS : r == MCX_EBADRCPT ? MCAPI_ERR_PARAMETER : send_status(r));
}

/* The full send: every check, waiting, the other transports and modes. Out
 * of line, so the fast path below needs no saved registers. */
static __attribute__((noinline)) void msg_send_full(mcapi_endpoint_t send_endpoint,
                                                           mcapi_endpoint_t receive_endpoint,
                                                           const void *buffer, size_t buffer_size,
                                                           mcapi_priority_t priority,
                                                           mcapi_status_t *mcapi_status)
{
  msg_send_checked(send_endpoint, receive_endpoint, buffer, buffer_size, priority, 0, 0, 0, mcapi_status);
}

/* A payload larger than a slot's inline bytes (or than the domain's
 * largest message, or any before the node's first full call: see
 * mcx__self_t.msg_lim): the fast path through the pool, which checks the
 * size against the domain's limit, else the full send. Out of line, as the
 * copy dwarfs the call. */
static __attribute__((noinline)) void msg_send_big(mcapi_endpoint_t send_endpoint,
                                                   mcapi_endpoint_t receive_endpoint,
                                                   const void *buffer, size_t buffer_size,
                                                   mcapi_priority_t priority,
                                                   mcapi_status_t *mcapi_status)
{
  if (mcx__msg_send_big_fast(mcx__fast_domain(), send_endpoint, receive_endpoint, buffer,
                             buffer_size, priority) == MCX_OK)
    return;
  msg_send_full(send_endpoint, receive_endpoint, buffer, buffer_size, priority, mcapi_status);
}

/* The fast send's middle tier: the destination's entry has no ring resolved
 * for this priority. Resolved, then the fast send again, else the full send. */
static __attribute__((noinline)) void msg_send_prio(mcapi_endpoint_t send_endpoint,
                                                    mcapi_endpoint_t receive_endpoint,
                                                    const void *buffer, size_t buffer_size,
                                                    mcapi_priority_t priority,
                                                    mcapi_status_t *mcapi_status)
{
  mcx__epc_t *s, *t;
  if (mcx__epc_prio(receive_endpoint, priority) &&
      buffer_size <= mcx__self.msg_lim &&
      mcx__msg_send_fast(send_endpoint, receive_endpoint, priority, &s, &t) == MCX_OK &&
      mcx__msg_send_ring(s, t, buffer, buffer_size) == MCX_OK)
    return;
  msg_send_full(send_endpoint, receive_endpoint, buffer, buffer_size, priority, mcapi_status);
}

/* The full send after the fast send's checks passed and its ring operation
 * did not (a full ring, a lost slot, a re-size), with the handles and the
 * priority as the entries hold them (the checks found them equal to the
 * arguments): the fast path then need not keep the arguments in registers. */
static __attribute__((noinline)) void msg_send_again(const mcx__epc_t *s, const mcx__epc_t *t,
                                                     const void *buffer, size_t buffer_size,
                                                     mcapi_status_t *mcapi_status)
{
  msg_send_full(s->handle, t->handle, buffer, buffer_size, t->prio, mcapi_status);
}

MCX_API void mcapi_msg_send(mcapi_endpoint_t send_endpoint, mcapi_endpoint_t receive_endpoint,
                            const void *buffer, size_t buffer_size, mcapi_priority_t priority,
                            mcapi_status_t *mcapi_status)
{
  /* A NULL buffer (legal only for an empty message) takes the full path.
   * Where the thread does not take the fast path, its cache is the empty
   * table, where no handle hits (mcx__epc_none), and msg_lim is 0. */
  if (__builtin_expect(mcapi_status != NULL, 1)) {
    /* Stored first: the fast path's notify is then its last step, and its
     * rare wake a tail call (no frame here). The full path stores its own.
     * The store also keeps this test apart from the next ones (tested
     * together, their flags took registers the send needs). */
    *mcapi_status = MCAPI_SUCCESS;
    /* The priority's range is tested by the fast path's compare with its
     * entry (mcx__msg_send_fast), and by the other paths. */
    if (__builtin_expect(!buffer, 0))
      goto full;
    if (__builtin_expect(buffer_size > mcx__self.msg_lim, 0)) {
      /* Off the fast path msg_lim is 0: every send comes here, and goes
       * straight to the full send (no second try for the other modes). */
      if (mcx__fast_domain())
        msg_send_big(send_endpoint, receive_endpoint, buffer, buffer_size, priority, mcapi_status);
      else
        msg_send_full(send_endpoint, receive_endpoint, buffer, buffer_size, priority,
                      mcapi_status);
      return;
    }
    mcx__epc_t *s, *t;
    int r = mcx__msg_send_fast(send_endpoint, receive_endpoint, priority, &s, &t);
    if (__builtin_expect(r == MCX_OK, 1)) {
      if (__builtin_expect(mcx__msg_send_ring(s, t, buffer, buffer_size) != MCX_OK, 0))
        msg_send_again(s, t, buffer, buffer_size, mcapi_status);
      return;
    }
    if (r == MCX_ENOENT) {
      msg_send_prio(send_endpoint, receive_endpoint, buffer, buffer_size, priority, mcapi_status);
      return;
    }
  }
full:
  msg_send_full(send_endpoint, receive_endpoint, buffer, buffer_size, priority, mcapi_status);
}

MCX_API void mcapi_msg_recv_i(mcapi_endpoint_t receive_endpoint, void *buffer, size_t buffer_size,
                              mcapi_request_t *request, mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return;
  REQUIRE_NODE();
  if (!request) {
    SET(MCAPI_ERR_PARAMETER);
    return;
  }
  if (!buffer) {
    mcx__nb_fail(MCAPI_ERR_PARAMETER, 0, request, mcapi_status);
    return;
  }
  /* Joins the endpoint's receive queue: matched after earlier requests. */
  mcx__req_args_t a = {.kind = REQ_MSG_RECV, .ep = receive_endpoint, .buf = buffer,
                       .size = buffer_size};
  mcx__nb_start(&a, CTX_RECV, 0, request, mcapi_status);
}

/* The full receive (see msg_send_full), continuing the wait @p spun (NULL:
 * none; see mcx__msg_recv_spun). */
static __attribute__((noinline)) void msg_recv_full_spun(mcapi_endpoint_t receive_endpoint,
                                                         void *buffer, size_t buffer_size,
                                                         size_t *received_size,
                                                         mcapi_status_t *mcapi_status,
                                                         const mcx__backoff_t *spun)
{
  if (!mcapi_status)
    return;
  REQUIRE_NODE();
  if (!buffer || !received_size) {
    SET(MCAPI_ERR_PARAMETER);
    return;
  }
  mcx__recv_after_queued(REQ_MSG_RECV, receive_endpoint);
  size_t got = 0;
  int r = mcx__msg_recv_spun(receive_endpoint, buffer, buffer_size, &got, spun);
  if (r == MCX_OK || r == MCX_ETRUNC)
    *received_size = got;
  SET(mcx__status(r, CTX_RECV));
}

static __attribute__((noinline)) void msg_recv_full(mcapi_endpoint_t receive_endpoint,
                                                    void *buffer, size_t buffer_size,
                                                    size_t *received_size,
                                                    mcapi_status_t *mcapi_status)
{
  msg_recv_full_spun(receive_endpoint, buffer, buffer_size, received_size, mcapi_status, NULL);
}

/* The middle tier found nothing: the wait, its spin on that tier
 * (mcx__msg_recv_scan_spin), then the full path, which continues it. */
static __attribute__((noinline)) void msg_recv_scan_wait(mcapi_endpoint_t receive_endpoint,
                                                         void *buffer, size_t buffer_size,
                                                         size_t *received_size,
                                                         mcapi_status_t *mcapi_status)
{
  mcx__backoff_t b;
  int r = mcx__msg_recv_scan_spin(receive_endpoint, buffer, buffer_size, received_size, &b);
  if (r == MCX_OK)
    return;
  if (r != MCX_EAGAIN) { /* taken but truncated or corrupt (consumed either way) */
    *mcapi_status = mcx__status(r, CTX_RECV);
    return;
  }
  msg_recv_full_spun(receive_endpoint, buffer, buffer_size, received_size, mcapi_status, &b);
}

/* The fast receive's middle tier: more than one ring in use, or a message
 * that is not a small one that fits (see mcx__msg_recv_scan); then the
 * full receive, continuing the wait @p spun (NULL: none). */
static __attribute__((noinline)) void msg_recv_scan(mcapi_endpoint_t receive_endpoint,
                                                    void *buffer, size_t buffer_size,
                                                    size_t *received_size,
                                                    mcapi_status_t *mcapi_status,
                                                    const mcx__backoff_t *spun)
{
  int r = mcx__msg_recv_scan(receive_endpoint, buffer, buffer_size, received_size);
  if (r == MCX_OK)
    return;
  if (r != MCX_EAGAIN) { /* taken but truncated or corrupt (consumed either way) */
    *mcapi_status = mcx__status(r, CTX_RECV);
    return;
  }
  if (spun)
    msg_recv_full_spun(receive_endpoint, buffer, buffer_size, received_size, mcapi_status, spun);
  else /* nothing there: the wait's spin, on this tier */
    msg_recv_scan_wait(receive_endpoint, buffer, buffer_size, received_size, mcapi_status);
}

/* The fast receive found its ring empty: the wait, its spin here
 * (mcx__msg_recv_spin), then the middle tier or the full path, which
 * continue it. Out of line: the other outcomes need no frame. */
static __attribute__((noinline)) void msg_recv_wait(const mcx__epc_t *c, void *buffer,
                                                    size_t buffer_size, size_t *received_size,
                                                    mcapi_status_t *mcapi_status)
{
  uint32_t h = c->handle;
  mcx__backoff_t b;
  int r = mcx__msg_recv_spin(c, buffer, buffer_size, received_size, &b);
  if (r == MCX_OK)
    return;
  if (r == MCX_ENOENT)
    msg_recv_scan(h, buffer, buffer_size, received_size, mcapi_status, &b);
  else
    msg_recv_full_spun(h, buffer, buffer_size, received_size, mcapi_status, &b);
}

/* After the fast receive's checks passed and its ring operation did not
 * finish (@p r: MCX_ENOENT, the middle tier; else the full receive), with
 * the handle as the entry holds it (see msg_send_again). */
static __attribute__((noinline)) void msg_recv_again(const mcx__epc_t *c, int r, void *buffer,
                                                     size_t buffer_size, size_t *received_size,
                                                     mcapi_status_t *mcapi_status)
{
  if (r == MCX_ENOENT)
    msg_recv_scan(c->handle, buffer, buffer_size, received_size, mcapi_status, NULL);
  else
    msg_recv_wait(c, buffer, buffer_size, received_size, mcapi_status);
}

MCX_API void mcapi_msg_recv(mcapi_endpoint_t receive_endpoint, void *buffer, size_t buffer_size,
                            size_t *received_size, mcapi_status_t *mcapi_status)
{
  /* As in mcapi_msg_send: no test of the mode here. */
  if (__builtin_expect(mcapi_status != NULL, 1)) {
    /* Stored first, as in mcapi_msg_send (and apart from the next test, as
     * there); a truncation or the full path store their own. */
    *mcapi_status = MCAPI_SUCCESS;
    if (__builtin_expect(!buffer || !received_size, 0))
      goto full;
    mcx__epc_t *c;
    int r = mcx__msg_recv_fast(receive_endpoint, &c);
    if (__builtin_expect(r == MCX_OK, 1)) {
      r = mcx__msg_recv_ring(c, buffer, buffer_size, received_size);
      if (__builtin_expect(r != MCX_OK, 0))
        msg_recv_again(c, r, buffer, buffer_size, received_size, mcapi_status);
      return;
    }
    if (r == MCX_ENOENT) {
      msg_recv_scan(receive_endpoint, buffer, buffer_size, received_size, mcapi_status, NULL);
      return;
    }
  }
full:
  msg_recv_full(receive_endpoint, buffer, buffer_size, received_size, mcapi_status);
}

MCX_API mcapi_uint_t mcapi_msg_available(mcapi_endpoint_t receive_endpoint,
                                         mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return 0;
  REQUIRE_NODE(0);
  uint32_t n = 0;
  int r = mcx__msg_available(receive_endpoint, &n);
  SET(mcx__status(r, CTX_RECV));
  return r == MCX_OK ? n : 0;
}

MCX_API void mcx_msg_recv_inplace(mcapi_endpoint_t receive_endpoint, const void **buffer,
                                  size_t *received_size, mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return;
  REQUIRE_NODE();
  if (!buffer || !received_size) {
    SET(MCAPI_ERR_PARAMETER);
    return;
  }
  mcx__recv_after_queued(REQ_MSG_RECV, receive_endpoint);
  const void *p = NULL;
  size_t n = 0;
  int r = mcx__msg_recv_inplace(receive_endpoint, &p, &n);
  if (r == MCX_OK) {
    *buffer = p;
    *received_size = n;
  }
  SET(r == MCX_ENOSYS ? MCAPI_ERR_GENERAL : mcx__status(r, CTX_RECV));
}

MCX_API void mcx_msg_release(const void *buffer, mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return;
  REQUIRE_NODE();
  int r = buffer ? mcx__msg_release_inplace(buffer) : MCX_EINVAL;
  SET(r == MCX_OK ? MCAPI_SUCCESS : MCAPI_ERR_PARAMETER);
}

MCX_API void mcx_endpoint_set_reachable(mcapi_endpoint_t endpoint, mcapi_boolean_t reachable,
                                        mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return;
  REQUIRE_NODE();
  int r = mcx__ep_set_reachable(endpoint, reachable != MCAPI_FALSE);
  SET(r == MCX_OK ? MCAPI_SUCCESS : r == MCX_EBUSY ? MCAPI_ERR_ENDP_INVALID : mcx__status(r, CTX_ENDPOINT));
}

MCX_API mcx_receipt_t mcx_receipt_open(mca_uint64_t key, mca_uint64_t *value, mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return 0;
  REQUIRE_NODE(0);
  if (!value || !key) {
    SET(MCAPI_ERR_PARAMETER);
    return 0;
  }
  uint32_t h = 0;
  uint64_t v = 0;
  int r = mcx__receipt_open(key, &h, &v);
  if (r == MCX_OK)
    *value = v;
  SET(r == MCX_OK ? MCAPI_SUCCESS : r == MCX_ENOMEM ? MCAPI_ERR_MEM_LIMIT : MCAPI_ERR_GENERAL);
  return r == MCX_OK ? h : 0;
}

MCX_API void mcx_receipt_set(mcx_receipt_t receipt, mca_uint64_t value, mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return;
  REQUIRE_NODE();
  SET(mcx__receipt_set(receipt, value) == MCX_OK ? MCAPI_SUCCESS : MCAPI_ERR_PARAMETER);
}

MCX_API void mcx_receipt_delete(mca_uint64_t key, mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return;
  REQUIRE_NODE();
  int r = mcx__receipt_delete(key);
  SET(r == MCX_OK ? MCAPI_SUCCESS : r == MCX_EIO ? MCAPI_ERR_GENERAL : MCAPI_ERR_PARAMETER);
}

MCX_API void mcx_msg_send_receipted(mcapi_endpoint_t send_endpoint, mcapi_endpoint_t receive_endpoint,
                                    const void *buffer, size_t buffer_size, mcapi_priority_t priority,
                                    mcx_receipt_t receipt, mca_uint64_t value,
                                    mcapi_status_t *mcapi_status)
{
  msg_send_checked(send_endpoint, receive_endpoint, buffer, buffer_size, priority, 1, receipt, value,
                   mcapi_status);
}
