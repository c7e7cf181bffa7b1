/* SPDX-License-Identifier: BSD-3-Clause */
/* Time, scheduling, memory, process liveness and environment (Windows). */
#include "win32.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/mcx_err.h"
#include "no_aligned_alloc.h"
#include "ports/mcx_port.h"

/* QueryPerformanceCounter: monotonic, system-wide (the same in every
 * process), frequency fixed at boot. */
static uint64_t qpc_freq(void)
{
  static mcx_atomic_u64 freq; /* 0 until read; every thread stores the same value */
  uint64_t f = mcx_load_relaxed(&freq);
  if (__builtin_expect(f == 0, 0)) {
    LARGE_INTEGER li;
    QueryPerformanceFrequency(&li);
    f = li.QuadPart > 0 ? (uint64_t)li.QuadPart : 1;
    mcx_store_relaxed(&freq, f);
  }
  return f;
}

uint64_t mcx_port_now_ns(void)
{
  LARGE_INTEGER c;
  QueryPerformanceCounter(&c);
  uint64_t f = qpc_freq(), t = (uint64_t)c.QuadPart;
  /* Split so that t * 1e9 does not overflow (t counts up to years at 10 MHz). */
  return t / f * 1000000000u + t % f * 1000000000u / f;
}

uint64_t mcx_port_deadline_ms(uint32_t timeout_ms)
{
  if (timeout_ms == UINT32_MAX)
    return MCX_NO_DEADLINE;
  return mcx_port_now_ns() + (uint64_t)timeout_ms * 1000000u;
}

DWORD mcx__win_ms_until(uint64_t deadline_ns)
{
  if (deadline_ns == MCX_NO_DEADLINE)
    return INFINITE;
  uint64_t now = mcx_port_now_ns();
  if (deadline_ns <= now)
    return 0;
  uint64_t ms = (deadline_ns - now + 999999u) / 1000000u; /* round up: never wake early */
  return ms >= INFINITE ? INFINITE - 1 : (DWORD)ms;
}

/* NtDelayExecution sleeps in 100 ns units (Sleep() in whole milliseconds);
 * alertable, so that an APC queued by mcx_port_notify_thread() runs. */
typedef LONG(NTAPI *delay_fn)(BOOLEAN alertable, const LARGE_INTEGER *interval);

static delay_fn delay_lookup(void)
{
  /* 0: not looked up yet, 1: absent, else the address. Every thread that
   * looks it up stores the same value: relaxed is enough. */
  static mcx_atomic_u64 addr;
  uint64_t a = mcx_load_relaxed(&addr);
  if (a == 0) {
    HMODULE nt = GetModuleHandleW(L"ntdll.dll");
    FARPROC f = nt ? GetProcAddress(nt, "NtDelayExecution") : NULL;
    a = f ? (uint64_t)(uintptr_t)f : 1u;
    mcx_store_relaxed(&addr, a);
  }
  return a == 1u ? NULL : (delay_fn)(uintptr_t)a;
}

void mcx_port_sleep_ns(uint64_t ns)
{
  delay_fn delay = delay_lookup();
  if (ns == 0) {
    SwitchToThread();
    return;
  }
  uint64_t end = mcx_port_now_ns() + ns;
  for (;;) {
    uint64_t now = mcx_port_now_ns();
    if (now >= end)
      return;
    uint64_t left = end - now;
    if (delay) {
      LARGE_INTEGER rel;
      rel.QuadPart = -(LONGLONG)((left + 99u) / 100u); /* negative: relative */
      delay(TRUE, &rel);
    } else {
      SleepEx((DWORD)((left + 999999u) / 1000000u), TRUE);
    }
  }
}

void mcx_port_yield(void) { SwitchToThread(); }

int mcx_port_ncpus(void)
{
  DWORD n = GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
  return n > 0 ? (int)n : 1;
}

int mcx_port_pin_self(int cpu)
{
  int n = mcx_port_ncpus();
  if (cpu >= n || cpu >= 64)
    return MCX_EINVAL;
  /* One processor group (64 processors) is what an affinity mask can name. */
  DWORD_PTR mask;
  if (cpu < 0) {
    DWORD_PTR proc, sys;
    if (!GetProcessAffinityMask(GetCurrentProcess(), &proc, &sys))
      return MCX_EIO;
    mask = proc;
  } else {
    mask = (DWORD_PTR)1 << cpu;
  }
  return SetThreadAffinityMask(GetCurrentThread(), mask) != 0 ? MCX_OK : MCX_EIO;
}

uint32_t mcx_port_tid(void) { return (uint32_t)GetCurrentThreadId(); }

uint32_t mcx_port_pid(void) { return (uint32_t)GetCurrentProcessId(); }

void mcx_port_kill_self(void) { TerminateProcess(GetCurrentProcess(), 137); }

int mcx_port_pid_alive(uint32_t pid)
{
  if (pid == 0)
    return 0;
  if (pid == GetCurrentProcessId())
    return 1;
  HANDLE h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION | SYNCHRONIZE, FALSE, pid);
  if (!h)
    return GetLastError() == ERROR_ACCESS_DENIED; /* exists, owned by someone else */
  /* Signalled once it has exited (GetExitCodeProcess's STILL_ACTIVE could be
   * an exit code too). */
  int alive = WaitForSingleObject(h, 0) == WAIT_TIMEOUT;
  CloseHandle(h);
  return alive;
}

void *mcx_port_map_anon(size_t size)
{
  /* Committed pages are zero and get memory on first touch. */
  return VirtualAlloc(NULL, size, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
}

void mcx_port_unmap(void *p, size_t size)
{
  (void)size;
  if (!p)
    return;
  /* Also called on views of shared partitions (as munmap is on Linux). */
  if (!mcx__win_unmap_view(p))
    VirtualFree(p, 0, MEM_RELEASE);
}

const char *mcx_port_getenv(const char *name) { return getenv(name); }

void mcx_port_log(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  fputs("libmca: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  fflush(stderr);
  va_end(ap);
}

/* Stands in for aligned_alloc in src/transport/pmq.c (no_aligned_alloc.h). */
void *mcx__win_no_aligned_alloc(size_t align, size_t size)
{
  (void)align;
  (void)size;
  return NULL;
}

/* The Windows release from RtlGetVersion (GetVersionEx is capped by the
 * manifest); Wine is recognized by the wine_get_version export of ntdll. */
void mcx_port_sysinfo(mcx_port_sysinfo_t *out)
{
  HMODULE nt = GetModuleHandleW(L"ntdll.dll");
  typedef LONG(WINAPI * rtl_get_version_t)(OSVERSIONINFOW *);
  typedef const char *(CDECL * wine_get_version_t)(void);
  rtl_get_version_t rgv = NULL;
  wine_get_version_t wgv = NULL;
  if (nt) {
    FARPROC a = GetProcAddress(nt, "RtlGetVersion"), b = GetProcAddress(nt, "wine_get_version");
    memcpy(&rgv, &a, sizeof a); /* a function pointer of another type: copied, not cast */
    memcpy(&wgv, &b, sizeof b);
  }
  const char *wine = wgv ? wgv() : NULL;
  snprintf(out->platform, sizeof out->platform, "%s", wine ? "windows (wine)" : "windows");
  OSVERSIONINFOW v;
  memset(&v, 0, sizeof v);
  v.dwOSVersionInfoSize = sizeof v;
  if (rgv && rgv(&v) == 0)
    snprintf(out->os, sizeof out->os, "Windows %lu.%lu.%lu", (unsigned long)v.dwMajorVersion,
             (unsigned long)v.dwMinorVersion, (unsigned long)v.dwBuildNumber);
  else
    snprintf(out->os, sizeof out->os, "Windows");
  if (wine) {
    size_t k = strlen(out->os);
    snprintf(out->os + k, sizeof out->os - k, " (Wine %.40s)", wine);
  }
  SYSTEM_INFO si;
  GetNativeSystemInfo(&si);
  const char *arch = si.wProcessorArchitecture == PROCESSOR_ARCHITECTURE_AMD64   ? "x86_64"
                     : si.wProcessorArchitecture == PROCESSOR_ARCHITECTURE_ARM64 ? "aarch64"
                     : si.wProcessorArchitecture == PROCESSOR_ARCHITECTURE_INTEL ? "x86"
                                                                                 : "unknown";
  snprintf(out->arch, sizeof out->arch, "%s", arch);
}
