/* SPDX-License-Identifier: BSD-3-Clause */
/* A periodic ticker thread over timerfd (Linux), for the HPC monitor. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "common/mcx_err.h"
#include "ports/mcx_port.h"
#include "ports/mcx_port_hpc.h"

struct mcx_port_ticker {
  pthread_t thread;
  int tfd;    /* timerfd: readable once per expired period */
  int stopfd; /* eventfd: written once by mcx_port_ticker_stop */
  void (*fn)(void *, uint64_t);
  void *arg;
  mcx_atomic_u32 tid; /* written by the thread, read by the owner after start returns */
  mcx_atomic_u32 started;
};

static void *ticker_main(void *p)
{
  mcx_port_ticker_t *t = p;
  mcx_store_relaxed(&t->tid, mcx_port_tid());
  /* R1 — release: tid stored before started; pairs with A1 in mcx_port_ticker_start. */
  mcx_store_release(&t->started, 1u);
  struct pollfd fds[2] = {{.fd = t->tfd, .events = POLLIN}, {.fd = t->stopfd, .events = POLLIN}};
  for (;;) {
    int r = poll(fds, 2, -1);
    if (r < 0) {
      if (errno == EINTR)
        continue;
      break;
    }
    if (fds[1].revents)
      break;
    if (fds[0].revents & POLLIN) {
      uint64_t exp = 0;
      if (read(t->tfd, &exp, sizeof exp) == (ssize_t)sizeof exp && exp > 0)
        t->fn(t->arg, exp);
    }
  }
  return NULL;
}

int mcx_port_ticker_start(mcx_port_ticker_t **out, uint64_t period_ns,
                          void (*fn)(void *arg, uint64_t expirations), void *arg)
{
  if (!out || !fn || period_ns == 0)
    return MCX_EINVAL;
  mcx_port_ticker_t *t = calloc(1, sizeof *t);
  if (!t)
    return MCX_ENOMEM;
  t->fn = fn;
  t->arg = arg;
  t->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
  t->stopfd = eventfd(0, EFD_CLOEXEC);
  if (t->tfd < 0 || t->stopfd < 0)
    goto fail;
  struct itimerspec its = {
      .it_interval = {.tv_sec = (time_t)(period_ns / 1000000000u), .tv_nsec = (long)(period_ns % 1000000000u)},
  };
  its.it_value = its.it_interval;
  if (timerfd_settime(t->tfd, 0, &its, NULL) != 0)
    goto fail;
  if (pthread_create(&t->thread, NULL, ticker_main, t) != 0)
    goto fail;
  /* A1 — acquire: pairs with R1; after it t->tid is the ticker's. Bounded: the
   * thread stores it before anything else. */
  while (!mcx_load_acquire(&t->started))
    mcx_port_yield();
  *out = t;
  return MCX_OK;
fail:
  if (t->tfd >= 0)
    close(t->tfd);
  if (t->stopfd >= 0)
    close(t->stopfd);
  free(t);
  return MCX_EIO;
}

void mcx_port_ticker_stop(mcx_port_ticker_t *t)
{
  if (!t)
    return;
  uint64_t one = 1;
  while (write(t->stopfd, &one, sizeof one) < 0 && errno == EINTR) {
  }
  pthread_join(t->thread, NULL);
  close(t->tfd);
  close(t->stopfd);
  free(t);
}

uint32_t mcx_port_ticker_tid(const mcx_port_ticker_t *t)
{
  return mcx_load_relaxed((mcx_atomic_u32 *)&t->tid); /* set before start returned (A1) */
}
