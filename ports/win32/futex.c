/* SPDX-License-Identifier: BSD-3-Clause */
/* Waiting on addresses (Windows): the futex counterpart.
 *
 * Within one process, WaitOnAddress / WakeByAddress* do what a private futex
 * does. They do not reach across processes, so a word in a named mapping
 * (mcx_port_shm_map) waited on with shared = 1 parks on one of
 * MCX_WIN_BUCKETS named semaphores instead, chosen by a hash of the
 * mapping's creation stamp and the word's offset in it (the same in every
 * process). The waiter counts of the buckets live in one small named mapping
 * per user; a wake releases the semaphore once per counted waiter of the
 * bucket, and every woken waiter re-reads its word (callers treat any return
 * as "look again", as with a futex). */
#include "win32.h"

#include <stdio.h>

#include "common/mcx_err.h"
#include "ports/mcx_port.h"
#include "ports/mcx_port_shm.h"

#define MCX_WIN_BUCKETS 64
#define MCX_WIN_SEM_MAX 4096 /* surplus releases beyond this are dropped */

static _Thread_local uint64_t futex_calls;
uint64_t mcx_port_futex_calls(void) { return futex_calls; }

/* ---- the shared parking area */
typedef struct park {
  mcx_atomic_u32 waiters[MCX_WIN_BUCKETS]; /* announced sleepers; each waiter +1/-1 (seq_cst) */
} park_t;

static INIT_ONCE park_once = INIT_ONCE_STATIC_INIT;
static park_t *park;
static HANDLE park_sem[MCX_WIN_BUCKETS];

static BOOL CALLBACK park_init(PINIT_ONCE once, PVOID param, PVOID *ctx)
{
  (void)once;
  (void)param;
  (void)ctx;
  wchar_t name[64];
  SECURITY_ATTRIBUTES sa = {sizeof sa, mcx__win_user_sd(0600), FALSE};
  swprintf(name, 64, L"Local\\mcx-fx-%u", mcx_port_uid());
  HANDLE m = CreateFileMappingW(INVALID_HANDLE_VALUE, &sa, PAGE_READWRITE, 0, sizeof(park_t), name);
  park_t *p = m ? MapViewOfFile(m, FILE_MAP_ALL_ACCESS, 0, 0, sizeof(park_t)) : NULL;
  if (m)
    CloseHandle(m); /* the view keeps it */
  for (int i = 0; p && i < MCX_WIN_BUCKETS; i++) {
    swprintf(name, 64, L"Local\\mcx-fx-%u-%d", mcx_port_uid(), i);
    park_sem[i] = CreateSemaphoreW(&sa, 0, MCX_WIN_SEM_MAX, name);
    if (!park_sem[i])
      p = NULL;
  }
  if (sa.lpSecurityDescriptor)
    LocalFree(sa.lpSecurityDescriptor);
  if (!p)
    mcx_port_log("cannot create the shared wait area (error %lu): shared waits poll",
                 (unsigned long)GetLastError());
  park = p;
  return TRUE;
}

/* The bucket of a word of a named mapping; -1 when @p addr lies in none
 * (private memory: WaitOnAddress reaches every waiter). */
static int bucket_of(const void *addr)
{
  uint64_t stamp, off;
  if (!mcx__win_shm_key(addr, &stamp, &off))
    return -1;
  InitOnceExecuteOnce(&park_once, park_init, NULL, NULL);
  uint64_t h = (stamp ^ (off / 4u)) * 0x9e3779b97f4a7c15ull;
  return (int)(h >> 58); /* top 6 bits: 64 buckets */
}

static int wait_parked(int b, mcx_atomic_u32 *addr, uint32_t expected, uint64_t deadline_ns)
{
  if (!park) {
    /* No parking area: poll with short sleeps (correct, only slower). */
    if (mcx_load_acquire(addr) != expected) /* A-F1: pairs with the waker's release store */
      return MCX_OK;
    if (deadline_ns != MCX_NO_DEADLINE && mcx_port_now_ns() >= deadline_ns)
      return MCX_ETIMEDOUT;
    Sleep(1);
    return MCX_OK;
  }
  /* F1 — seq_cst: the announcement is ordered before the re-read of the word,
   * and a waker's store before its read of the count (F2): one of the two
   * sees the other (no lost wake-up). */
  mcx_fetch_add_seq_cst(&park->waiters[b], 1u);
  int r = MCX_OK;
  if (mcx_load_seq_cst(addr) == expected) {
    DWORD w = WaitForSingleObject(park_sem[b], mcx__win_ms_until(deadline_ns));
    if (w == WAIT_TIMEOUT && deadline_ns != MCX_NO_DEADLINE && mcx_port_now_ns() >= deadline_ns)
      r = MCX_ETIMEDOUT;
  }
  mcx_fetch_sub_relaxed(&park->waiters[b], 1u); /* a late decrement costs one spurious wake */
  return r;
}

int mcx_port_futex_wait(mcx_atomic_u32 *addr, uint32_t expected, uint64_t deadline_ns, int shared)
{
  futex_calls++;
  int b = shared ? bucket_of((const void *)addr) : -1;
  if (b >= 0)
    return wait_parked(b, addr, expected, deadline_ns);
  DWORD ms = mcx__win_ms_until(deadline_ns);
  if (ms == 0 && deadline_ns != MCX_NO_DEADLINE)
    return mcx_load_relaxed(addr) == expected ? MCX_ETIMEDOUT : MCX_OK;
  /* WaitOnAddress compares *addr with expected itself before it sleeps. */
  if (WaitOnAddress((volatile void *)addr, &expected, sizeof expected, ms))
    return MCX_OK;
  if (GetLastError() == ERROR_TIMEOUT && deadline_ns != MCX_NO_DEADLINE &&
      mcx_port_now_ns() >= deadline_ns)
    return MCX_ETIMEDOUT;
  return MCX_OK;
}

int mcx_port_futex_wake(mcx_atomic_u32 *addr, int n, int shared)
{
  futex_calls++;
  if (n <= 0)
    return 0;
  int b = shared ? bucket_of((const void *)addr) : -1;
  if (b >= 0) {
    if (!park)
      return 0; /* pollers see the new value by themselves */
    /* F2 — seq_cst fence: the caller's store to the word is ordered before the
     * read of the count; pairs with F1 in wait_parked. */
    mcx_fence_seq_cst();
    uint32_t w = mcx_load_relaxed(&park->waiters[b]);
    if (w == 0)
      return 0;
    /* Every sleeper of the bucket wakes: some may wait on other words. */
    ReleaseSemaphore(park_sem[b], (LONG)(w < MCX_WIN_SEM_MAX ? w : MCX_WIN_SEM_MAX), NULL);
    return (int)w < n ? (int)w : n;
  }
  if (n == 1)
    WakeByAddressSingle((void *)addr);
  else
    WakeByAddressAll((void *)addr);
  return n;
}
