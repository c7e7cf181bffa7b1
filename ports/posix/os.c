/* SPDX-License-Identifier: BSD-3-Clause */
/* Time, scheduling, memory and environment (POSIX). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "common/mcx_err.h"
#include "ports/mcx_port.h"

uint64_t mcx_port_now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t mcx_port_deadline_ms(uint32_t timeout_ms)
{
  if (timeout_ms == UINT32_MAX)
    return MCX_NO_DEADLINE;
  return mcx_port_now_ns() + (uint64_t)timeout_ms * 1000000u;
}

void mcx_port_sleep_ns(uint64_t ns)
{
  struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000u), .tv_nsec = (long)(ns % 1000000000u)};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

void mcx_port_yield(void) { sched_yield(); }

int mcx_port_ncpus(void)
{
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

uint32_t mcx_port_pid(void) { return (uint32_t)getpid(); }

void mcx_port_kill_self(void)
{
  raise(SIGKILL);
  _exit(137); /* not reached */
}

int mcx_port_pid_alive(uint32_t pid)
{
  if (kill((pid_t)pid, 0) == 0)
    return 1;
  return errno == EPERM; /* exists, owned by someone else */
}

void *mcx_port_map_anon(size_t size)
{
  void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

void mcx_port_unmap(void *p, size_t size)
{
  if (p)
    munmap(p, size);
}

const char *mcx_port_getenv(const char *name) { return getenv(name); }

void mcx_port_log(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  fputs("libmca: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

void mcx_port_sysinfo(mcx_port_sysinfo_t *out)
{
  struct utsname u;
  if (uname(&u)) {
    snprintf(out->platform, sizeof out->platform, "unknown");
    snprintf(out->os, sizeof out->os, "unknown");
    snprintf(out->arch, sizeof out->arch, "unknown");
    return;
  }
  size_t i = 0;
  for (; u.sysname[i] && i + 1 < sizeof out->platform; i++) /* "Linux" -> "linux" */
    out->platform[i] = (char)(u.sysname[i] >= 'A' && u.sysname[i] <= 'Z' ? u.sysname[i] - 'A' + 'a' : u.sysname[i]);
  out->platform[i] = 0;
  snprintf(out->os, sizeof out->os, "%.60s %.60s", u.sysname, u.release);
  snprintf(out->arch, sizeof out->arch, "%.30s", u.machine);
}
