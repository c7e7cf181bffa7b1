/* SPDX-License-Identifier: BSD-3-Clause */
/* Linux services for MRAPI remote memory and resources. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "common/mcx_err.h"
#include "ports/mcx_port_mrapi.h"

int mcx_port_vm_copy(uint32_t pid, void *local, void *remote, size_t n, int write)
{
  struct iovec l = {local, n};
  struct iovec r = {remote, n};
  ssize_t got = write ? process_vm_writev((pid_t)pid, &l, 1, &r, 1, 0) : process_vm_readv((pid_t)pid, &l, 1, &r, 1, 0);
  if (got == (ssize_t)n)
    return MCX_OK;
  if (got < 0 && errno == ENOSYS)
    return MCX_ENOSYS;
  return (got < 0 && errno == EPERM) ? MCX_EPERM : MCX_EIO;
}

typedef struct start {
  void (*fn)(void *);
  void *arg;
} start_t;

static void *trampoline(void *p)
{
  start_t st = *(start_t *)p;
  free(p);
  st.fn(st.arg);
  return NULL;
}

int mcx_port_thread_start(void (*fn)(void *), void *arg)
{
  start_t *st = malloc(sizeof *st);
  if (!st)
    return MCX_EIO;
  st->fn = fn;
  st->arg = arg;
  pthread_attr_t a;
  pthread_attr_init(&a);
  pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
  /* The thread must not take signals meant for the application's threads. */
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  pthread_t t;
  int e = pthread_create(&t, &a, trampoline, st);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  pthread_attr_destroy(&a);
  if (e) {
    free(st);
    return MCX_EIO;
  }
  return MCX_OK;
}

static void (*notify_handler)(void);

static void on_signal(int sig)
{
  (void)sig;
  int saved = errno;
  if (notify_handler)
    notify_handler();
  errno = saved;
}

int mcx_port_notify_install(void (*handler)(void))
{
  notify_handler = handler;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  return sigaction(SIGALRM, &sa, NULL) == 0 ? MCX_OK : MCX_EIO;
}

int mcx_port_notify_thread(uint32_t tid)
{
  return syscall(SYS_tgkill, getpid(), (pid_t)tid, SIGALRM) == 0 ? MCX_OK : MCX_ENOENT;
}

int mcx_port_read_text(const char *path, char *buf, size_t n)
{
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  ssize_t got = read(fd, buf, n - 1);
  close(fd);
  if (got < 0)
    return -1;
  buf[got] = 0;
  return (int)got;
}

uint64_t mcx_port_tid_start(uint32_t tid)
{
  char path[64], buf[1024];
  if (tid == 0)
    return 0;
  /* The task path, not /proc/<tid>/stat: see mcx_port_tid_alive (robust.c). */
  snprintf(path, sizeof path, "/proc/%u/task/%u/stat", tid, tid);
  if (mcx_port_read_text(path, buf, sizeof buf) <= 0)
    return 0;
  /* "pid (comm) S f4 ... f22": comm may hold spaces and ')'; fields follow the last ')'. */
  const char *p = strrchr(buf, ')');
  if (!p || p[1] != ' ')
    return 0;
  char state = p[2];
  if (state == 'Z' || state == 'X' || state == 'x')
    return 0;
  p += 2; /* at field 3 (state) */
  for (int field = 3; field < 22 && p; field++) {
    p = strchr(p, ' ');
    if (p)
      p++;
  }
  if (!p)
    return 0;
  uint64_t start = strtoull(p, NULL, 10);
  return start ? start : 1; /* alive: never 0 */
}
