/* SPDX-License-Identifier: BSD-3-Clause */
/* POSIX message queues (mq_open and friends) for the pmq transport. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sys/vfs.h>
#include <time.h>

#include "common/mcx_err.h"
#include "ports/mcx_port.h"
#include "ports/mcx_port_mq.h"

#define MQUEUE_MAGIC_ 0x19800202
#define MQ_DIR "/dev/mqueue"

static uint32_t read_u32(const char *path)
{
  FILE *f = fopen(path, "re");
  if (!f)
    return 0;
  unsigned long v = 0;
  if (fscanf(f, "%lu", &v) != 1)
    v = 0;
  fclose(f);
  return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* CAP_SYS_RESOURCE (24) in the effective set: the kernel then ignores
 * msg_max, msgsize_max and queues_max (up to its hard ceilings). */
static int has_sys_resource(void)
{
  FILE *f = fopen("/proc/self/status", "re");
  if (!f)
    return 0;
  char line[256];
  unsigned long long eff = 0;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "CapEff: %llx", &eff) == 1)
      break;
  fclose(f);
  return (eff >> 24) & 1;
}

int mcx_port_mq_sys(mcx_port_mq_sys_t *out)
{
  memset(out, 0, sizeof *out);
  out->msg_max = read_u32("/proc/sys/fs/mqueue/msg_max");
  out->msgsize_max = read_u32("/proc/sys/fs/mqueue/msgsize_max");
  out->queues_max = read_u32("/proc/sys/fs/mqueue/queues_max");
  struct rlimit rl;
  out->rlimit = UINT64_MAX;
  if (getrlimit(RLIMIT_MSGQUEUE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
    out->rlimit = (uint64_t)rl.rlim_cur;
  out->privileged = has_sys_resource();
  struct statfs fs;
  out->listable = statfs(MQ_DIR, &fs) == 0 && fs.f_type == MQUEUE_MAGIC_;
  return MCX_OK;
}

uint64_t mcx_port_mq_bytes(uint32_t maxmsg, uint32_t msgsize)
{
  /* ipc/mqueue.c: maxmsg * (msgsize + sizeof(struct msg_msg)) plus one
   * priority-tree node per message (48 + 48 bytes on 64-bit kernels). */
  return (uint64_t)maxmsg * ((uint64_t)msgsize + 96u);
}

static int name_ok(const char *name)
{
  if (!name || name[0] != '/' || name[1] == '\0')
    return 0;
  size_t n = strnlen(name, MCX_PORT_MQ_NAME_MAX);
  return n < MCX_PORT_MQ_NAME_MAX && strchr(name + 1, '/') == NULL;
}

int mcx_port_mq_create(const char *name, uint32_t maxmsg, uint32_t msgsize, int *fd)
{
  if (!name_ok(name) || maxmsg == 0 || msgsize == 0)
    return MCX_EINVAL;
  struct mq_attr a = {.mq_flags = 0, .mq_maxmsg = (long)maxmsg, .mq_msgsize = (long)msgsize};
  mqd_t q = mq_open(name, O_RDWR | O_CREAT | O_EXCL | O_NONBLOCK | O_CLOEXEC, 0600, &a);
  if (q == (mqd_t)-1) {
    switch (errno) {
    case EEXIST:
      return MCX_EEXIST;
    case EINVAL:
      return MCX_EINVAL;
    case ENOSPC:
      return MCX_ENOMEM;
    case EMFILE:
    case ENFILE:
    case ENOMEM:
      return MCX_ELIMIT;
    case EACCES:
    case EPERM:
      return MCX_EPERM;
    default:
      return MCX_EIO;
    }
  }
  /* The umask may narrow the mode (harmless) and nothing may widen it: pin it. */
  (void)fchmod((int)q, 0600);
  *fd = (int)q;
  return MCX_OK;
}

/* A queue we may use: owned by our effective uid, readable and writable by
 * nobody else. Anyone can create any name first (/dev/mqueue is world
 * writable), and root opens every queue whatever its mode: an object of
 * another owner under our name is a squatter's, never ours. */
static int owned_by_us(int fd)
{
  struct stat st;
  return fstat(fd, &st) == 0 && st.st_uid == geteuid() && (st.st_mode & 077) == 0;
}

int mcx_port_mq_open(const char *name, int nonblock, int *fd)
{
  if (!name_ok(name))
    return MCX_EINVAL;
  mqd_t q = mq_open(name, O_RDWR | O_CLOEXEC | (nonblock ? O_NONBLOCK : 0));
  if (q == (mqd_t)-1) {
    switch (errno) {
    case ENOENT:
      return MCX_ENOENT;
    case EMFILE:
    case ENFILE:
    case ENOMEM:
      return MCX_ELIMIT;
    case EACCES:
      return MCX_EPERM;
    default:
      return MCX_EIO;
    }
  }
  if (!owned_by_us((int)q)) {
    mq_close(q);
    return MCX_EPERM;
  }
  *fd = (int)q;
  return MCX_OK;
}

void mcx_port_mq_close(int fd)
{
  if (fd >= 0)
    mq_close((mqd_t)fd);
}

int mcx_port_mq_unlink(const char *name)
{
  if (!name_ok(name))
    return MCX_EINVAL;
  /* Never another user's object (root could remove it): look before. */
  char path[sizeof MQ_DIR + MCX_PORT_MQ_NAME_MAX];
  struct stat st;
  snprintf(path, sizeof path, MQ_DIR "%s", name);
  if (lstat(path, &st) == 0 && st.st_uid != geteuid())
    return MCX_EPERM;
  if (lstat(path, &st) != 0 && errno != ENOENT) {
    /* /dev/mqueue not mounted: open it to see whose it is. */
    mqd_t q = mq_open(name, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (q != (mqd_t)-1) {
      int ours = fstat((int)q, &st) == 0 && st.st_uid == geteuid();
      mq_close(q);
      if (!ours)
        return MCX_EPERM;
    }
  }
  if (mq_unlink(name) == 0)
    return MCX_OK;
  return errno == ENOENT ? MCX_ENOENT : MCX_EIO;
}

/* The CLOCK_REALTIME time at which CLOCK_MONOTONIC reads @p deadline_ns. */
static struct timespec realtime_of(uint64_t deadline_ns)
{
  struct timespec rt;
  clock_gettime(CLOCK_REALTIME, &rt);
  uint64_t now = mcx_port_now_ns();
  uint64_t left = deadline_ns > now ? deadline_ns - now : 0;
  uint64_t ns = (uint64_t)rt.tv_nsec + left % 1000000000u;
  rt.tv_sec += (time_t)(left / 1000000000u + ns / 1000000000u);
  rt.tv_nsec = (long)(ns % 1000000000u);
  return rt;
}

static int io_error(int e)
{
  switch (e) {
  case EAGAIN:
    return MCX_EAGAIN;
  case ETIMEDOUT:
    return MCX_ETIMEDOUT;
  case EMSGSIZE:
    return MCX_EMSGSIZE;
  default:
    return MCX_EIO;
  }
}

int mcx_port_mq_send(int fd, const void *buf, size_t len, unsigned prio, uint64_t deadline_ns)
{
  static const char empty[1];
  if (!buf)
    buf = empty; /* a zero-length message may come without a buffer; mq_send wants one */
  for (;;) {
    int r;
    if (deadline_ns == 0) {
      r = mq_send((mqd_t)fd, (const char *)buf, len, prio);
    } else {
      struct timespec ts = realtime_of(deadline_ns);
      r = mq_timedsend((mqd_t)fd, (const char *)buf, len, prio, &ts);
    }
    if (r == 0)
      return MCX_OK;
    if (errno != EINTR)
      return io_error(errno);
  }
}

int mcx_port_mq_recv(int fd, void *buf, size_t cap, size_t *len, unsigned *prio,
                     uint64_t deadline_ns)
{
  for (;;) {
    ssize_t r;
    if (deadline_ns == 0) {
      r = mq_receive((mqd_t)fd, (char *)buf, cap, prio);
    } else {
      struct timespec ts = realtime_of(deadline_ns);
      r = mq_timedreceive((mqd_t)fd, (char *)buf, cap, prio, &ts);
    }
    if (r >= 0) {
      *len = (size_t)r;
      return MCX_OK;
    }
    if (errno != EINTR)
      return io_error(errno);
  }
}

int mcx_port_mq_count(int fd, uint32_t *count)
{
  struct mq_attr a;
  if (mq_getattr((mqd_t)fd, &a) != 0)
    return MCX_EIO;
  *count = (uint32_t)a.mq_curmsgs;
  return MCX_OK;
}

int mcx_port_mq_list(const char *prefix, void (*fn)(const char *name, void *arg), void *arg)
{
  struct statfs fs;
  if (statfs(MQ_DIR, &fs) != 0 || fs.f_type != MQUEUE_MAGIC_)
    return MCX_ENOSYS;
  DIR *dir = opendir(MQ_DIR);
  if (!dir)
    return MCX_ENOSYS;
  size_t plen = strlen(prefix);
  struct dirent *de;
  while ((de = readdir(dir)) != NULL)
    if (!strncmp(de->d_name, prefix, plen))
      fn(de->d_name, arg);
  closedir(dir);
  return MCX_OK;
}
