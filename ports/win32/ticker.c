/* SPDX-License-Identifier: BSD-3-Clause */
/* A periodic ticker thread (Windows), for the HPC monitor and MRAPI's
 * resource alarms: a thread that waits on its stop event until the next
 * period's boundary (QueryPerformanceCounter time), and counts the periods
 * that passed meanwhile as expirations. */
#include "win32.h"

#include <process.h>
#include <stdlib.h>

#include "common/mcx_err.h"
#include "ports/mcx_port.h"
#include "ports/mcx_port_hpc.h"

struct mcx_port_ticker {
  HANDLE thread;
  HANDLE stop; /* manual-reset event, set once by mcx_port_ticker_stop */
  uint64_t period_ns;
  void (*fn)(void *, uint64_t);
  void *arg;
  mcx_atomic_u32 tid; /* written by the thread, read by the owner after start returns */
  mcx_atomic_u32 started;
};

static unsigned __stdcall ticker_main(void *p)
{
  mcx_port_ticker_t *t = p;
  mcx_store_relaxed(&t->tid, mcx_port_tid());
  /* R1 — release: tid stored before started; pairs with A1 in mcx_port_ticker_start. */
  mcx_store_release(&t->started, 1u);
  uint64_t start = mcx_port_now_ns(), done = 0;
  for (;;) {
    uint64_t next = start + (done + 1) * t->period_ns;
    if (WaitForSingleObject(t->stop, mcx__win_ms_until(next)) == WAIT_OBJECT_0)
      break;
    uint64_t now = mcx_port_now_ns();
    if (now < next)
      continue; /* woke a little early (millisecond waits): wait the rest */
    uint64_t periods = (now - start) / t->period_ns;
    uint64_t exp = periods - done;
    done = periods;
    if (exp > 0)
      t->fn(t->arg, exp);
  }
  return 0;
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
  t->period_ns = period_ns;
  t->stop = CreateEventW(NULL, TRUE, FALSE, NULL);
  if (!t->stop) {
    free(t);
    return MCX_EIO;
  }
  t->thread = (HANDLE)_beginthreadex(NULL, 0, ticker_main, t, 0, NULL);
  if (!t->thread) {
    CloseHandle(t->stop);
    free(t);
    return MCX_EIO;
  }
  /* A1 — acquire: pairs with R1; after it t->tid is the ticker's. Bounded: the
   * thread stores it before anything else. */
  while (!mcx_load_acquire(&t->started))
    mcx_port_yield();
  *out = t;
  return MCX_OK;
}

void mcx_port_ticker_stop(mcx_port_ticker_t *t)
{
  if (!t)
    return;
  SetEvent(t->stop);
  WaitForSingleObject(t->thread, INFINITE);
  CloseHandle(t->thread);
  CloseHandle(t->stop);
  free(t);
}

uint32_t mcx_port_ticker_tid(const mcx_port_ticker_t *t)
{
  return mcx_load_relaxed((mcx_atomic_u32 *)&t->tid); /* set before start returned (A1) */
}
