/* SPDX-License-Identifier: BSD-3-Clause */
/* the public calls of mcx_sem.h: argument checks and the one mapping
 * from internal results to mcx_sem_status_t. */
#include "api/api.h"
#include "mcx_sem.h"
#include "ports/mcx_port.h"
#include "ports/mcx_port_pi.h"
#include "runtime/chan_sem.h"
#include "runtime/msg_sem.h"
#include "sync/pisem.h"

_Static_assert(sizeof(mcx__pisem_t) <= sizeof(mcx_pisem_t), "mcx_pisem_t too small");
_Static_assert(sizeof(mcx__csem_t) <= sizeof(mcx_csem_t), "mcx_csem_t too small");
_Static_assert(sizeof(mcx__event_t) <= sizeof(mcx_event_t), "mcx_event_t too small");
_Static_assert(_Alignof(mcx_event_t) >= _Alignof(mcx__event_t), "mcx_event_t alignment");

static mcx_sem_status_t sem_status(int r)
{
  switch (r) {
  case MCX_OK:
    return MCX_SEM_OK;
  case MCX_EOWNERDEAD:
    return MCX_SEM_OWNER_DIED;
  case MCX_ETIMEDOUT:
    return MCX_SEM_TIMEOUT;
  case MCX_EAGAIN:
    return MCX_SEM_BUSY;
  case MCX_EBUSY:
    return MCX_SEM_DEADLOCK;
  case MCX_EPERM:
    return MCX_SEM_NOT_OWNER;
  case MCX_EINVAL:
    return MCX_SEM_INVALID;
  case MCX_ENOSYS:
    return MCX_SEM_NOT_SUPPORTED;
  default:
    return MCX_SEM_ERROR;
  }
}

static mcx__pisem_t *pisem_of(const mcx_pisem_t *s)
{
  mcx__pisem_t *p = (mcx__pisem_t *)(void *)s;
  return p && p->magic == MCX__PISEM_MAGIC ? p : NULL;
}
static mcx__csem_t *csem_of(const mcx_csem_t *s)
{
  mcx__csem_t *p = (mcx__csem_t *)(void *)s;
  return p && p->magic == MCX__CSEM_MAGIC ? p : NULL;
}
static mcx__event_t *event_of(const mcx_event_t *e)
{
  mcx__event_t *p = (mcx__event_t *)(void *)e;
  return p && p->magic == MCX__EVENT_MAGIC ? p : NULL;
}

static uint64_t deadline_of(uint32_t timeout_ms)
{
  return timeout_ms == 0 ? 0
                         : mcx_port_deadline_ms(timeout_ms == MCX_SEM_INFINITE ? ~0u : timeout_ms);
}

/* ---- PI semaphore */
MCX_API mcx_sem_status_t mcx_pisem_init(mcx_pisem_t *s, unsigned flags)
{
  if (!s || (flags & ~MCX_SEM_SHARED))
    return MCX_SEM_INVALID;
  if (!mcx_port_pi_supported())
    return MCX_SEM_NOT_SUPPORTED;
  mcx__pisem_init((mcx__pisem_t *)(void *)s, (flags & MCX_SEM_SHARED) != 0);
  return MCX_SEM_OK;
}

MCX_API mcx_sem_status_t mcx_pisem_destroy(mcx_pisem_t *s)
{
  mcx__pisem_t *p = pisem_of(s);
  if (!p)
    return MCX_SEM_INVALID;
  if (mcx__pisem_owner(p) != 0)
    return MCX_SEM_BUSY;
  p->magic = 0;
  return MCX_SEM_OK;
}

MCX_API mcx_sem_status_t mcx_pisem_lock(mcx_pisem_t *s, uint32_t timeout_ms)
{
  mcx__pisem_t *p = pisem_of(s);
  if (!p)
    return MCX_SEM_INVALID;
  int r = mcx__pisem_lock(p, deadline_of(timeout_ms));
  return r == MCX_EAGAIN ? MCX_SEM_TIMEOUT : sem_status(r);
}

MCX_API mcx_sem_status_t mcx_pisem_trylock(mcx_pisem_t *s)
{
  mcx__pisem_t *p = pisem_of(s);
  return p ? sem_status(mcx__pisem_lock(p, 0)) : MCX_SEM_INVALID;
}

MCX_API mcx_sem_status_t mcx_pisem_unlock(mcx_pisem_t *s)
{
  mcx__pisem_t *p = pisem_of(s);
  return p ? sem_status(mcx__pisem_unlock(p)) : MCX_SEM_INVALID;
}

MCX_API uint32_t mcx_pisem_owner(const mcx_pisem_t *s)
{
  mcx__pisem_t *p = pisem_of(s);
  return p ? mcx__pisem_owner(p) : 0;
}

/* ---- counting semaphore */
MCX_API mcx_sem_status_t mcx_csem_init(mcx_csem_t *s, uint32_t units, uint32_t limit,
                                       unsigned flags)
{
  if (!s || limit == 0 || units > limit || limit == UINT32_MAX || (flags & ~MCX_SEM_SHARED))
    return MCX_SEM_INVALID;
  mcx__csem_init((mcx__csem_t *)(void *)s, units, limit, (flags & MCX_SEM_SHARED) != 0);
  return MCX_SEM_OK;
}

MCX_API mcx_sem_status_t mcx_csem_acquire(mcx_csem_t *s, uint32_t timeout_ms)
{
  mcx__csem_t *p = csem_of(s);
  if (!p)
    return MCX_SEM_INVALID;
  int r = mcx__csem_acquire(p, deadline_of(timeout_ms));
  return r == MCX_EAGAIN ? MCX_SEM_TIMEOUT : sem_status(r);
}

MCX_API mcx_sem_status_t mcx_csem_tryacquire(mcx_csem_t *s)
{
  mcx__csem_t *p = csem_of(s);
  return p ? sem_status(mcx__csem_acquire(p, 0)) : MCX_SEM_INVALID;
}

MCX_API mcx_sem_status_t mcx_csem_release(mcx_csem_t *s)
{
  mcx__csem_t *p = csem_of(s);
  return p ? sem_status(mcx__csem_release(p)) : MCX_SEM_INVALID;
}

MCX_API uint32_t mcx_csem_value(const mcx_csem_t *s)
{
  mcx__csem_t *p = csem_of(s);
  /* Relaxed: a snapshot. */
  return p ? mcx_load_relaxed(&p->count) : 0;
}

/* ---- event */
MCX_API mcx_sem_status_t mcx_event_init(mcx_event_t *ev, unsigned flags)
{
  if (!ev || (flags & ~MCX_SEM_SHARED))
    return MCX_SEM_INVALID;
  mcx__event_init((mcx__event_t *)(void *)ev, (flags & MCX_SEM_SHARED) != 0);
  return MCX_SEM_OK;
}

MCX_API mcx_sem_status_t mcx_event_post(mcx_event_t *ev)
{
  mcx__event_t *e = event_of(ev);
  if (!e)
    return MCX_SEM_INVALID;
  mcx__event_post(e);
  return MCX_SEM_OK;
}

MCX_API mcx_sem_status_t mcx_event_wait(mcx_event_t *ev, uint32_t timeout_ms)
{
  mcx__event_t *e = event_of(ev);
  if (!e)
    return MCX_SEM_INVALID;
  return sem_status(mcx__event_wait_then_lock(e, NULL, deadline_of(timeout_ms)));
}

MCX_API mcx_sem_status_t mcx_event_wait_then_lock(mcx_event_t *ev, mcx_pisem_t *sem,
                                                  uint32_t timeout_ms)
{
  mcx__event_t *e = event_of(ev);
  mcx__pisem_t *p = sem ? pisem_of(sem) : NULL;
  if (!e || (sem && !p) || (p && p->shared != e->shared))
    return MCX_SEM_INVALID;
  return sem_status(mcx__event_wait_then_lock(e, p, deadline_of(timeout_ms)));
}

MCX_API mcx_sem_status_t mcx_event_wait_then_acquire(mcx_event_t *ev, mcx_csem_t *sem,
                                                     uint32_t timeout_ms)
{
  mcx__event_t *e = event_of(ev);
  mcx__csem_t *c = sem ? csem_of(sem) : NULL;
  if (!e || (sem && !c) || (c && c->shared != e->shared))
    return MCX_SEM_INVALID;
  return sem_status(mcx__event_wait_then_acquire(e, c, deadline_of(timeout_ms)));
}

/* ---- MCAPI receives with a hint */
MCX_API mcx_sem_status_t mcx_msg_recv_then_lock(mcapi_endpoint_t receive_endpoint, void *buffer,
                                                size_t buffer_size, size_t *received_size,
                                                mcx_pisem_t *sem, mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return MCX_SEM_INVALID;
  REQUIRE_NODE(MCX_SEM_NOT_LOCKED);
  mcx__pisem_t *p = sem ? pisem_of(sem) : NULL;
  if (!buffer || !received_size || (sem && !p)) {
    SET(MCAPI_ERR_PARAMETER);
    return sem && !p ? MCX_SEM_INVALID : MCX_SEM_NOT_LOCKED;
  }
  size_t got = 0;
  int lr = MCX_EAGAIN;
  int r = mcx__msg_recv_then_lock(receive_endpoint, buffer, buffer_size, &got, p, &lr);
  if (r == MCX_EBUSY) {
    SET(MCAPI_ERR_PARAMETER);
    return MCX_SEM_DEADLOCK;
  }
  if (r == MCX_OK || r == MCX_ETRUNC)
    *received_size = got;
  SET(mcx__status(r, CTX_RECV));
  if (lr == MCX_EAGAIN)
    return MCX_SEM_NOT_LOCKED;
  return sem_status(lr);
}

/* Packet and scalar channels: the receiver sleeps on the channel's receive
 * wait point naming the semaphore (runtime/chan_sem.c). */
static mcx_sem_status_t chan_then_lock(uint32_t handle, uint32_t type, uint32_t width, void **buf,
                                       size_t *size, uint64_t *value, mcx_pisem_t *sem,
                                       mcapi_status_t *mcapi_status)
{
  mcx__pisem_t *p = sem ? pisem_of(sem) : NULL;
  if (sem && !p) {
    SET(MCAPI_ERR_PARAMETER);
    return MCX_SEM_INVALID;
  }
  if (!p) { /* MCX_NO_SEM: the plain receive */
    if (type == MCAPI_PKT_CHAN)
      mcapi_pktchan_recv(handle, buf, size, mcapi_status);
    else if (width == 8)
      *value = mcapi_sclchan_recv_uint64(handle, mcapi_status);
    else if (width == 4)
      *value = mcapi_sclchan_recv_uint32(handle, mcapi_status);
    else if (width == 2)
      *value = mcapi_sclchan_recv_uint16(handle, mcapi_status);
    else
      *value = mcapi_sclchan_recv_uint8(handle, mcapi_status);
    return MCX_SEM_NOT_LOCKED;
  }
  if (mcx__pisem_owner(p) == mcx_port_tid_cached()) {
    SET(MCAPI_ERR_PARAMETER);
    return MCX_SEM_DEADLOCK;
  }
  int lr = MCX_EAGAIN;
  int r = mcx__chan_recv_then_lock(handle, type, width, buf, size, value, p, &lr);
  SET(mcx__status(r, CTX_CHAN));
  if (lr == MCX_EAGAIN)
    return MCX_SEM_NOT_LOCKED;
  return sem_status(lr);
}

MCX_API mcx_sem_status_t mcx_pktchan_recv_then_lock(mcapi_pktchan_recv_hndl_t receive_handle,
                                                    void **buffer, size_t *received_size,
                                                    mcx_pisem_t *sem, mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return MCX_SEM_INVALID;
  REQUIRE_NODE(MCX_SEM_NOT_LOCKED);
  if (!buffer || !received_size) {
    SET(MCAPI_ERR_PARAMETER);
    return MCX_SEM_NOT_LOCKED;
  }
  return chan_then_lock(receive_handle, MCAPI_PKT_CHAN, 0, buffer, received_size, NULL, sem,
                        mcapi_status);
}

#define SCL_THEN_LOCK(bits, bytes)                                                              \
  MCX_API mcx_sem_status_t mcx_sclchan_recv_uint##bits##_then_lock(                           \
      mcapi_sclchan_recv_hndl_t receive_handle, uint##bits##_t *value, mcx_pisem_t *sem,      \
      mcapi_status_t *mcapi_status)                                                           \
  {                                                                                           \
    if (!mcapi_status)                                                                        \
      return MCX_SEM_INVALID;                                                                 \
    REQUIRE_NODE(MCX_SEM_NOT_LOCKED);                                                         \
    if (!value) {                                                                             \
      SET(MCAPI_ERR_PARAMETER);                                                               \
      return MCX_SEM_NOT_LOCKED;                                                              \
    }                                                                                         \
    uint64_t v = 0;                                                                           \
    mcx_sem_status_t r = chan_then_lock(receive_handle, MCAPI_SCL_CHAN, bytes, NULL, NULL, &v, \
                                        sem, mcapi_status);                                   \
    if (*mcapi_status == MCAPI_SUCCESS)                                                       \
      *value = (uint##bits##_t)v;                                                             \
    return r;                                                                                 \
  }

SCL_THEN_LOCK(64, 8)
SCL_THEN_LOCK(32, 4)
SCL_THEN_LOCK(16, 2)
SCL_THEN_LOCK(8, 1)
