/* SPDX-License-Identifier: BSD-3-Clause */
/* Files a process must not be tricked into (ports/mcx_port_file.h): opens
 * that never wait, *at calls relative to a directory descriptor, no
 * symbolic link followed where the caller says so. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/mcx_err.h"
#include "ports/mcx_port_file.h"

static int err_of(int e)
{
  switch (e) {
  case ENOENT: return MCX_ENOENT;
  case EEXIST: return MCX_EEXIST;
  case EACCES:
  case EPERM: return MCX_EPERM;
  case ELOOP:
  case ENOTDIR:
  case EINVAL: return MCX_EINVAL;
  default: return MCX_EIO;
  }
}

static void info_of(const struct stat *st, mcx_port_file_info_t *out)
{
  mode_t m = st->st_mode;
  out->kind = S_ISREG(m)    ? MCX_FILE_REG
              : S_ISDIR(m)  ? MCX_FILE_DIR
              : S_ISLNK(m)  ? MCX_FILE_LNK
              : S_ISFIFO(m) ? MCX_FILE_FIFO
              : S_ISCHR(m)  ? MCX_FILE_CHR
              : S_ISBLK(m)  ? MCX_FILE_BLK
              : S_ISSOCK(m) ? MCX_FILE_SOCK
                            : MCX_FILE_OTHER;
  out->uid = (uint32_t)st->st_uid;
  out->mode = (unsigned)(m & 07777);
  out->size = st->st_size > 0 ? (uint64_t)st->st_size : 0;
  out->nlink = (uint64_t)st->st_nlink;
}

uint32_t mcx_port_euid(void) { return (uint32_t)geteuid(); }

int mcx_port_file_lstat(int dirfd, const char *path, mcx_port_file_info_t *out)
{
  struct stat st;
  if (fstatat(dirfd >= 0 ? dirfd : AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) != 0)
    return err_of(errno);
  info_of(&st, out);
  return MCX_OK;
}

int mcx_port_file_fstat(int fd, mcx_port_file_info_t *out)
{
  struct stat st;
  if (fstat(fd, &st) != 0)
    return MCX_EIO;
  info_of(&st, out);
  return MCX_OK;
}

/* O_NONBLOCK: opening a FIFO for reading returns at once (no writer is
 * waited for); O_NOCTTY: a terminal does not become the controlling one.
 * The caller looks at what was opened before it reads anything. */
/* Opens @p path with @p flags and describes what was opened (closed again
 * when fstat fails). */
static int open_described(const char *path, int flags, int *fd, mcx_port_file_info_t *out)
{
  int f = open(path, flags);
  if (f < 0)
    return err_of(errno);
  if (mcx_port_file_fstat(f, out) != 0) {
    close(f);
    return MCX_EIO;
  }
  *fd = f;
  return MCX_OK;
}

int mcx_port_file_open_read(const char *path, int *fd, mcx_port_file_info_t *out)
{
  return open_described(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, fd, out);
}

int mcx_port_file_read_all(int fd, void *buf, size_t cap, size_t *got)
{
  size_t n = 0;
  while (n < cap) {
    ssize_t r = read(fd, (char *)buf + n, cap - n);
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0)
      return MCX_EIO;
    if (r == 0)
      break;
    n += (size_t)r;
  }
  *got = n;
  return MCX_OK;
}

int mcx_port_dir_open(const char *path, int *fd, mcx_port_file_info_t *out)
{
  return open_described(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, fd, out);
}

int mcx_port_dir_parent(int dirfd, int *parent, mcx_port_file_info_t *out, int *top)
{
  struct stat me, st;
  if (fstat(dirfd, &me) != 0)
    return MCX_EIO;
  int f = openat(dirfd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (f < 0)
    return err_of(errno);
  if (fstat(f, &st) != 0) {
    close(f);
    return MCX_EIO;
  }
  info_of(&st, out);
  *top = st.st_dev == me.st_dev && st.st_ino == me.st_ino;
  *parent = f;
  return MCX_OK;
}

int mcx_port_file_openat(int dirfd, const char *name, unsigned flags, unsigned mode, int *fd,
                         mcx_port_file_info_t *out)
{
  if (strchr(name, '/'))
    return MCX_EINVAL;
  int o = (flags & MCX_FILE_RDWR ? O_RDWR : O_WRONLY) | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY;
  if (flags & MCX_FILE_CREATE)
    o |= O_CREAT | O_EXCL;
  if (flags & MCX_FILE_NONBLOCK)
    o |= O_NONBLOCK;
  int f = openat(dirfd, name, o, (mode_t)mode);
  if (f < 0)
    return err_of(errno);
  if (mcx_port_file_fstat(f, out) != 0) {
    close(f);
    return MCX_EIO;
  }
  *fd = f;
  return MCX_OK;
}

int mcx_port_file_pread(int fd, void *buf, size_t n, uint64_t off)
{
  size_t done = 0;
  while (done < n) {
    ssize_t r = pread(fd, (char *)buf + done, n - done, (off_t)(off + done));
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0)
      return MCX_EIO;
    if (r == 0)
      return MCX_ETRUNC;
    done += (size_t)r;
  }
  return MCX_OK;
}

int mcx_port_file_pwrite(int fd, const void *buf, size_t n, uint64_t off)
{
  size_t done = 0;
  while (done < n) {
    ssize_t r = pwrite(fd, (const char *)buf + done, n - done, (off_t)(off + done));
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      return MCX_EIO;
    done += (size_t)r;
  }
  return MCX_OK;
}

int mcx_port_file_renameat(int dirfd, const char *from, const char *to)
{
  return renameat(dirfd, from, dirfd, to) == 0 ? MCX_OK : err_of(errno);
}

int mcx_port_file_unlinkat(int dirfd, const char *name)
{
  return unlinkat(dirfd, name, 0) == 0 ? MCX_OK : err_of(errno);
}

void *mcx_port_file_mark(int fd, size_t size)
{
  void *p = mmap(NULL, size, PROT_NONE, MAP_SHARED, fd, 0);
  return p == MAP_FAILED ? NULL : p;
}

void mcx_port_file_unmark(void *mark, size_t size)
{
  if (mark && size)
    munmap(mark, size);
}

void mcx_port_file_close(int fd)
{
  if (fd >= 0)
    close(fd);
}
