/* SPDX-License-Identifier: BSD-3-Clause */
/* The kernel locking mode's lock (Windows): a named mutex per domain,
 * Local\mcx-ksem-<user>-<id>. Windows releases a mutex whose owning thread
 * exits (the next waiter gets WAIT_ABANDONED and owns it), as SEM_UNDO does
 * on Linux. Each process keeps its handles open from first use until the
 * domain's semaphore is destroyed, so the object lives while a user does. */
#include "win32.h"

#include <stdio.h>

#include "common/mcx_err.h"
#include "ports/mcx_port.h"
#include "ports/mcx_port_ksem.h"
#include "ports/mcx_port_shm.h"

#define MAX_KSEMS 64

static struct {
  int32_t id; /* 0: free entry */
  HANDLE h;
} ksems[MAX_KSEMS];
static SRWLOCK ksems_lock = SRWLOCK_INIT;
static _Thread_local uint64_t lock_calls;

uint64_t mcx_port_ksem_calls(void) { return lock_calls; }

static HANDLE open_id(int32_t id, int create_new)
{
  wchar_t name[64];
  swprintf(name, 64, L"Local\\mcx-ksem-%u-%ld", mcx_port_uid(), (long)id);
  SECURITY_ATTRIBUTES sa = {sizeof sa, mcx__win_user_sd(0600), FALSE};
  /* CreateMutexW opens the object when it exists. */
  HANDLE h = CreateMutexW(&sa, FALSE, name);
  if (h && create_new && GetLastError() == ERROR_ALREADY_EXISTS) {
    CloseHandle(h);
    h = NULL;
  }
  if (sa.lpSecurityDescriptor)
    LocalFree(sa.lpSecurityDescriptor);
  return h;
}

static HANDLE handle_of(int32_t id, int create_new)
{
  HANDLE h = NULL;
  AcquireSRWLockShared(&ksems_lock);
  for (int i = 0; i < MAX_KSEMS && !h; i++)
    if (ksems[i].id == id)
      h = ksems[i].h;
  ReleaseSRWLockShared(&ksems_lock);
  if (h)
    return h;
  HANDLE n = open_id(id, create_new);
  if (!n)
    return NULL;
  AcquireSRWLockExclusive(&ksems_lock);
  for (int i = 0; i < MAX_KSEMS && !h; i++)
    if (ksems[i].id == id)
      h = ksems[i].h; /* another thread was first */
  for (int i = 0; i < MAX_KSEMS && !h; i++)
    if (ksems[i].id == 0) {
      ksems[i].id = id;
      ksems[i].h = h = n;
      n = NULL;
    }
  ReleaseSRWLockExclusive(&ksems_lock);
  if (n)
    CloseHandle(n);
  return h;
}

int mcx_port_ksem_create(int32_t *id)
{
  static mcx_atomic_u32 seq;
  for (int tries = 0; tries < 64; tries++) {
    /* Ids are positive and unlikely to meet another process's. */
    int32_t c = (int32_t)(((GetCurrentProcessId() & 0xffffu) << 15 ^
                           (mcx_fetch_add_relaxed(&seq, 1u) + (uint32_t)tries)) &
                          0x7fffffffu);
    if (c == 0)
      continue;
    if (handle_of(c, 1)) {
      *id = c;
      return MCX_OK;
    }
    if (GetLastError() != ERROR_ALREADY_EXISTS)
      return MCX_EIO;
  }
  return MCX_ENOMEM;
}

void mcx_port_ksem_lock(int32_t id)
{
  lock_calls++;
  HANDLE h = handle_of(id, 0);
  if (h)
    WaitForSingleObject(h, INFINITE); /* WAIT_ABANDONED: the holder died; ours now */
}

void mcx_port_ksem_unlock(int32_t id)
{
  lock_calls++;
  HANDLE h = handle_of(id, 0);
  if (h)
    ReleaseMutex(h);
}

void mcx_port_ksem_destroy(int32_t id)
{
  if (id <= 0)
    return;
  AcquireSRWLockExclusive(&ksems_lock);
  for (int i = 0; i < MAX_KSEMS; i++)
    if (ksems[i].id == id) {
      CloseHandle(ksems[i].h);
      ksems[i].id = 0;
      ksems[i].h = NULL;
    }
  ReleaseSRWLockExclusive(&ksems_lock);
}
