/* SPDX-License-Identifier: BSD-3-Clause */
/* Priority-inheritance futexes and requeue operations (Linux). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/mcx_err.h"
#include "ports/mcx_port.h"
#include "ports/mcx_port_pi.h"

#ifndef FUTEX_LOCK_PI2
#define FUTEX_LOCK_PI2 13
#endif

_Static_assert(MCX_PORT_PI_WAITERS == FUTEX_WAITERS, "kernel ABI");
_Static_assert(MCX_PORT_PI_OWNER_DIED == FUTEX_OWNER_DIED, "kernel ABI");
_Static_assert(MCX_PORT_PI_TID_MASK == FUTEX_TID_MASK, "kernel ABI");

/* ---- cached tid: one syscall per thread (and per fork()ed child) */
static __thread uint32_t tid_cache;
static pthread_once_t tid_once = PTHREAD_ONCE_INIT;
/* Runs in the child in the only thread there is: the one that forked. */
static void tid_child(void)
{
  tid_cache = 0;
}
static void tid_register(void)
{
  pthread_atfork(NULL, NULL, tid_child);
}

int mcx_port_pi_supported(void) { return 1; }

uint32_t mcx_port_tid_cached(void)
{
  if (__builtin_expect(tid_cache == 0, 0)) {
    pthread_once(&tid_once, tid_register);
    tid_cache = (uint32_t)syscall(SYS_gettid);
  }
  return tid_cache;
}

static long futex6(void *uaddr, int op, uint32_t val, const void *ts_or_val2, void *uaddr2,
                   uint32_t val3)
{
  return syscall(SYS_futex, uaddr, op, val, ts_or_val2, uaddr2, val3);
}

static struct timespec *abs_ts(struct timespec *ts, uint64_t deadline_ns)
{
  if (deadline_ns == MCX_NO_DEADLINE)
    return NULL;
  ts->tv_sec = (time_t)(deadline_ns / 1000000000u);
  ts->tv_nsec = (long)(deadline_ns % 1000000000u);
  return ts;
}

static int lock_err(int e)
{
  switch (e) {
  case ETIMEDOUT:
    return MCX_ETIMEDOUT;
  case ESRCH:
    return MCX_EOWNERDEAD;
  case EAGAIN:
  case EINTR:
    return MCX_EAGAIN;
  case EDEADLK:
    return MCX_EBUSY;
  default:
    return MCX_EIO;
  }
}

/* FUTEX_LOCK_PI2 (Linux 5.14) takes a CLOCK_MONOTONIC deadline; older kernels
 * only have FUTEX_LOCK_PI, whose deadline is CLOCK_REALTIME. */
static mcx_atomic_u32 have_lock_pi2 = 1; /* relaxed: a capability cache, any value is safe */

int mcx_port_futex_lock_pi(mcx_atomic_u32 *w, uint64_t deadline_ns, int shared)
{
  int priv = shared ? 0 : FUTEX_PRIVATE_FLAG;
  struct timespec ts;
  if (mcx_load_relaxed(&have_lock_pi2)) {
    long r = futex6((void *)w, FUTEX_LOCK_PI2 | priv, 0, abs_ts(&ts, deadline_ns), NULL, 0);
    if (r == 0)
      return MCX_OK;
    if (errno != ENOSYS)
      return lock_err(errno);
    mcx_store_relaxed(&have_lock_pi2, 0u);
  }
  struct timespec *tsp = NULL;
  if (deadline_ns != MCX_NO_DEADLINE) {
    struct timespec rt;
    clock_gettime(CLOCK_REALTIME, &rt);
    uint64_t now = mcx_port_now_ns();
    uint64_t left = deadline_ns > now ? deadline_ns - now : 0;
    uint64_t abs = (uint64_t)rt.tv_sec * 1000000000u + (uint64_t)rt.tv_nsec + left;
    tsp = abs_ts(&ts, abs);
  }
  long r = futex6((void *)w, FUTEX_LOCK_PI | priv, 0, tsp, NULL, 0);
  return r == 0 ? MCX_OK : lock_err(errno);
}

int mcx_port_futex_trylock_pi(mcx_atomic_u32 *w, int shared)
{
  long r =
      futex6((void *)w, FUTEX_TRYLOCK_PI | (shared ? 0 : FUTEX_PRIVATE_FLAG), 0, NULL, NULL, 0);
  if (r == 0)
    return MCX_OK;
  if (errno == EWOULDBLOCK || errno == EINTR)
    return MCX_EAGAIN;
  return lock_err(errno);
}

int mcx_port_futex_unlock_pi(mcx_atomic_u32 *w, int shared)
{
  long r = futex6((void *)w, FUTEX_UNLOCK_PI | (shared ? 0 : FUTEX_PRIVATE_FLAG), 0, NULL, NULL, 0);
  if (r == 0)
    return MCX_OK;
  return errno == EPERM ? MCX_EPERM : MCX_EIO;
}

int mcx_port_futex_wait_requeue_pi(mcx_atomic_u32 *uaddr, uint32_t val, mcx_atomic_u32 *pi,
                                   uint64_t deadline_ns, int shared)
{
  struct timespec ts;
  /* Without FUTEX_CLOCK_REALTIME the absolute deadline is CLOCK_MONOTONIC. */
  long r = futex6((void *)uaddr, FUTEX_WAIT_REQUEUE_PI | (shared ? 0 : FUTEX_PRIVATE_FLAG), val,
                  abs_ts(&ts, deadline_ns), (void *)pi, 0);
  if (r == 0)
    return MCX_OK;
  switch (errno) {
  case EAGAIN: /* == EWOULDBLOCK */
    return MCX_EAGAIN;
  case ETIMEDOUT:
    return MCX_ETIMEDOUT;
  case EINTR:
    return MCX_EINTR;
  default:
    return MCX_EIO;
  }
}

int mcx_port_futex_cmp_requeue_pi(mcx_atomic_u32 *uaddr, uint32_t val, mcx_atomic_u32 *pi,
                                  int nr_requeue, int shared)
{
  /* The 4th argument is nr_requeue (val2), passed in the timeout slot. */
  long r = futex6((void *)uaddr, FUTEX_CMP_REQUEUE_PI | (shared ? 0 : FUTEX_PRIVATE_FLAG), 1,
                  (const void *)(uintptr_t)(uint32_t)nr_requeue, (void *)pi, val);
  if (r >= 0)
    return (int)r;
  switch (errno) {
  case EAGAIN:
    return MCX_EAGAIN;
  case ESRCH:
    return MCX_EOWNERDEAD;
  default:
    return MCX_EIO;
  }
}

int mcx_port_futex_cmp_requeue(mcx_atomic_u32 *uaddr, uint32_t val, int nr_wake, int nr_requeue,
                               mcx_atomic_u32 *to, int shared)
{
  long r =
      futex6((void *)uaddr, FUTEX_CMP_REQUEUE | (shared ? 0 : FUTEX_PRIVATE_FLAG),
             (uint32_t)nr_wake, (const void *)(uintptr_t)(uint32_t)nr_requeue, (void *)to, val);
  if (r >= 0)
    return (int)r;
  return errno == EAGAIN ? MCX_EAGAIN : MCX_EIO;
}
