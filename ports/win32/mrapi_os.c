/* SPDX-License-Identifier: BSD-3-Clause */
/* Windows services for MRAPI remote memory and resources. */
#include "win32.h"

#include <process.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/mcx_err.h"
#include "ports/mcx_port.h"
#include "ports/mcx_port_mrapi.h"

int mcx_port_vm_copy(uint32_t pid, void *local, void *remote, size_t n, int write)
{
  DWORD access = write ? PROCESS_VM_WRITE | PROCESS_VM_OPERATION : PROCESS_VM_READ;
  HANDLE h = OpenProcess(access, FALSE, pid);
  if (!h)
    return GetLastError() == ERROR_ACCESS_DENIED ? MCX_EPERM : MCX_EIO;
  SIZE_T done = 0;
  BOOL ok = write ? WriteProcessMemory(h, remote, local, n, &done)
                  : ReadProcessMemory(h, remote, local, n, &done);
  DWORD e = GetLastError();
  CloseHandle(h);
  if (ok && done == n)
    return MCX_OK;
  return e == ERROR_ACCESS_DENIED ? MCX_EPERM : MCX_EIO;
}

typedef struct start {
  void (*fn)(void *);
  void *arg;
} start_t;

static unsigned __stdcall trampoline(void *p)
{
  start_t st = *(start_t *)p;
  free(p);
  st.fn(st.arg);
  return 0;
}

int mcx_port_thread_start(void (*fn)(void *), void *arg)
{
  start_t *st = malloc(sizeof *st);
  if (!st)
    return MCX_EIO;
  st->fn = fn;
  st->arg = arg;
  /* _beginthreadex: the C runtime's per-thread state is set up for it. */
  uintptr_t t = _beginthreadex(NULL, 0, trampoline, st, 0, NULL);
  if (!t) {
    free(st);
    return MCX_EIO;
  }
  CloseHandle((HANDLE)t); /* detached */
  return MCX_OK;
}

/* No signals: the notification is an APC, which runs when the thread next
 * waits alertably (mcx_port_sleep_ns and the waits of libmca's blocking calls
 * do; a thread that never waits in an alertable state does not get it). */
static void (*notify_handler)(void);

static void CALLBACK on_apc(ULONG_PTR arg)
{
  (void)arg;
  if (notify_handler)
    notify_handler();
}

int mcx_port_notify_install(void (*handler)(void))
{
  notify_handler = handler;
  return MCX_OK;
}

int mcx_port_notify_thread(uint32_t tid)
{
  HANDLE h = OpenThread(THREAD_SET_CONTEXT, FALSE, tid);
  if (!h)
    return MCX_ENOENT;
  DWORD ok = QueueUserAPC(on_apc, h, 0);
  CloseHandle(h);
  return ok ? MCX_OK : MCX_ENOENT;
}

uint64_t mcx_port_tid_start(uint32_t tid)
{
  if (tid == 0)
    return 0;
  HANDLE h = OpenThread(THREAD_QUERY_LIMITED_INFORMATION | SYNCHRONIZE, FALSE, tid);
  if (!h)
    return 0;
  FILETIME created, exited, kt, ut;
  uint64_t start = 0;
  /* Still running (an exited thread stays openable while a handle lives). */
  if (WaitForSingleObject(h, 0) == WAIT_TIMEOUT && GetThreadTimes(h, &created, &exited, &kt, &ut))
    start = ((uint64_t)created.dwHighDateTime << 32) | created.dwLowDateTime;
  CloseHandle(h);
  return start ? start : 0;
}

int mcx_port_read_text(const char *path, char *buf, size_t n)
{
  FILE *f = fopen(path, "rb");
  if (!f)
    return -1;
  size_t got = fread(buf, 1, n - 1, f);
  fclose(f);
  buf[got] = 0;
  return (int)got;
}
