/* SPDX-License-Identifier: BSD-3-Clause */
/* Liveness of a lock owner (Linux): the robust-mutex check of src/sync/mrapi_prim.c.
 *
 * Why not the kernel's robust-futex list (set_robust_list)? glibc registers
 * one list per thread for its own robust pthread mutexes, and a thread has
 * exactly one list head: registering ours would silently disable glibc's.
 * Instead the lock word holds the owner's kernel tid and a waiter that has
 * slept for a while asks whether that tid still runs. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ports/mcx_port_shm.h"

int mcx_port_tid_alive(uint32_t tid)
{
  char path[64];
  char buf[512];
  if (tid == 0)
    return 0;
  /* /proc/<tid> resolves any thread id, listed or not, and its task/<tid>
   * entry is that thread itself. Not /proc/<tid>/stat: qemu-user answers
   * /proc/self/stat and /proc/<its pid>/stat with a made-up line (state "0",
   * the start time of the thread that reads it), so the main thread of an
   * emulated process would look like another thread; it passes the task
   * path through to the kernel. */
  snprintf(path, sizeof path, "/proc/%u/task/%u/stat", tid, tid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0)
    return 0;
  buf[n] = '\0';
  /* "pid (comm) S ...": comm may hold spaces and ')', the state follows the last ')'. */
  const char *p = strrchr(buf, ')');
  if (!p || p[1] != ' ')
    return 1;
  char state = p[2];
  return !(state == 'Z' || state == 'X' || state == 'x');
}

uint32_t mcx_port_tid_pid(uint32_t tid)
{
  char path[48], buf[1024];
  if (tid == 0)
    return 0;
  snprintf(path, sizeof path, "/proc/%u/status", tid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0)
    return 0;
  buf[n] = '\0';
  const char *p = strstr(buf, "\nTgid:");
  unsigned long v = 0;
  if (!p || sscanf(p + 6, "%lu", &v) != 1)
    return 0;
  return (uint32_t)v;
}
