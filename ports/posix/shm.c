/* SPDX-License-Identifier: BSD-3-Clause */
/* Named shared memory (POSIX shm_open + mmap). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/mcx_atomic.h"
#include "common/mcx_err.h"
#include "ports/mcx_port_shm.h"

static int shm_name_ok(const char *name)
{
  if (!name || name[0] != '/' || name[1] == '\0')
    return 0;
  size_t n = strnlen(name, MCX_PORT_SHM_NAME_MAX);
  return n < MCX_PORT_SHM_NAME_MAX && strchr(name + 1, '/') == NULL;
}

int mcx_port_shm_create(const char *name, size_t size, mcx_port_shm_t *out)
{
  return mcx_port_shm_create_mode(name, size, 0600, out);
}

int mcx_port_shm_create_mode(const char *name, size_t size, unsigned mode, mcx_port_shm_t *out)
{
  if (!shm_name_ok(name) || size == 0 || !out || (mode & ~0666u) || (mode & 0600) != 0600)
    return MCX_EINVAL;
  int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, (mode_t)mode);
  if (fd < 0)
    return errno == EEXIST ? MCX_EEXIST : MCX_EIO;
  /* The umask may narrow the mode and an inherited ACL widen it: pin it. */
  (void)fchmod(fd, (mode_t)mode);
  if (ftruncate(fd, (off_t)size) != 0) {
    int e = MCX_EIO;
    close(fd);
    shm_unlink(name);
    return e;
  }
  /* Reserve the pages now: on a full tmpfs a later first touch would kill
   * every process that maps the object with SIGBUS. File systems without
   * fallocate (EOPNOTSUPP) keep the old behaviour. */
  int fe = posix_fallocate(fd, 0, (off_t)size);
  if (fe == ENOSPC || fe == EFBIG || fe == ENOMEM) {
    close(fd);
    shm_unlink(name);
    return MCX_ENOMEM;
  }
  out->fd = fd;
  out->size = size;
  return MCX_OK;
}

int mcx_port_shm_open(const char *name, size_t min_size, mcx_port_shm_t *out)
{
  return mcx_port_shm_open_mode(name, min_size, 0600, out);
}

int mcx_port_shm_open_mode(const char *name, size_t min_size, unsigned mode, mcx_port_shm_t *out)
{
  if (!shm_name_ok(name) || !out)
    return MCX_EINVAL;
  int fd = shm_open(name, O_RDWR | O_CLOEXEC, 0);
  if (fd < 0)
    return errno == ENOENT ? MCX_ENOENT : (errno == EACCES ? MCX_EPERM : MCX_EIO);
  struct stat st;
  if (fstat(fd, &st) != 0) {
    close(fd);
    return MCX_EIO;
  }
  /* Somebody else's object under our name, or one others can write: refuse it. */
  if (st.st_uid != geteuid() || (st.st_mode & 0777 & ~(mode_t)mode) != 0) {
    close(fd);
    return MCX_EPERM;
  }
  if ((size_t)st.st_size < min_size || st.st_size == 0) {
    close(fd);
    return MCX_EAGAIN;
  }
  out->fd = fd;
  out->size = (size_t)st.st_size;
  return MCX_OK;
}

void *mcx_port_shm_map(const mcx_port_shm_t *shm, size_t size)
{
  if (!shm || shm->fd < 0 || size == 0)
    return NULL;
  void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, shm->fd, 0);
  return p == MAP_FAILED ? NULL : p;
}

void *mcx_port_map_file(const char *path, size_t size)
{
  if (!path || !size)
    return NULL;
  int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0)
    return NULL;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
      ((size_t)st.st_size < size && ftruncate(fd, (off_t)size) != 0)) {
    close(fd);
    return NULL;
  }
  void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  return p == MAP_FAILED ? NULL : p;
}

void mcx_port_shm_unmap(void *addr, size_t size)
{
  if (addr && size)
    munmap(addr, size);
}

void mcx_port_shm_close(mcx_port_shm_t *shm)
{
  if (shm && shm->fd >= 0) {
    close(shm->fd);
    shm->fd = -1;
  }
}

int mcx_port_shm_unlink(const char *name)
{
  if (!shm_name_ok(name))
    return MCX_EINVAL;
  /* Never another user's object (root could remove it): look before. */
  uint32_t uid;
  unsigned mode;
  size_t size;
  if (mcx_port_shm_stat(name, &uid, &mode, &size) == MCX_OK && uid != (uint32_t)geteuid())
    return MCX_EPERM;
  if (shm_unlink(name) == 0)
    return MCX_OK;
  return errno == ENOENT ? MCX_ENOENT : MCX_EIO;
}

uint32_t mcx_port_uid(void) { return (uint32_t)geteuid(); }

int mcx_port_shm_stat(const char *name, uint32_t *uid, unsigned *mode, size_t *size)
{
  if (!shm_name_ok(name))
    return MCX_EINVAL;
  /* O_RDONLY without O_CREAT never makes anything; fstat needs no permission
   * beyond the open, and a name we may not open is examined by path. */
  struct stat st;
  int fd = shm_open(name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW, 0);
  int r;
  if (fd >= 0) {
    r = fstat(fd, &st);
    close(fd);
  } else {
    if (errno == ENOENT)
      return MCX_ENOENT;
    char path[MCX_PORT_SHM_NAME_MAX + 16];
    snprintf(path, sizeof path, "/dev/shm%s", name);
    r = lstat(path, &st);
    if (r != 0 && errno == ENOENT)
      return MCX_ENOENT;
  }
  if (r != 0)
    return MCX_EIO;
  *uid = (uint32_t)st.st_uid;
  *mode = (unsigned)(st.st_mode & 07777);
  *size = (size_t)st.st_size;
  return MCX_OK;
}

int mcx_port_random(void *buf, size_t n)
{
  uint8_t *p = buf;
  while (n) {
    ssize_t k = getrandom(p, n, 0);
    if (k < 0) {
      if (errno == EINTR)
        continue;
      break;
    }
    p += k;
    n -= (size_t)k;
  }
  if (!n)
    return MCX_OK;
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return MCX_EIO;
  while (n) {
    ssize_t k = read(fd, p, n);
    if (k <= 0) {
      if (k < 0 && errno == EINTR)
        continue;
      close(fd);
      return MCX_EIO;
    }
    p += k;
    n -= (size_t)k;
  }
  close(fd);
  return MCX_OK;
}

/* A directory that is ours alone: owned by us, not a symlink, no group or
 * other write; made (0700) when missing and @p make. */
static int own_dir(const char *path, int make)
{
  struct stat st;
  if (make && mkdir(path, 0700) != 0 && errno != EEXIST)
    return 0;
  if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
      (st.st_mode & 0022))
    return 0;
  return 1;
}

static int private_dir(char *out, size_t n, int make)
{
  const char *base[3];
  char run[48];
  snprintf(run, sizeof run, "/run/user/%u", (unsigned)geteuid());
  base[0] = getenv("XDG_RUNTIME_DIR");
  base[1] = run;
  base[2] = getenv("HOME");
  for (int i = 0; i < 3; i++) {
    if (!base[i] || base[i][0] != '/')
      continue;
    struct stat st;
    /* Its parent must be ours too (XDG_RUNTIME_DIR, /run/user/<uid>, $HOME). */
    if (stat(base[i], &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
        (st.st_mode & 0022))
      continue;
    int k;
    if (i == 2) {
      k = snprintf(out, n, "%s/.cache", base[i]);
      if (k < 0 || (size_t)k >= n || !own_dir(out, make))
        continue;
    }
    k = snprintf(out, n, i == 2 ? "%s/.cache/libmca" : "%s/libmca", base[i]);
    if (k < 0 || (size_t)k >= n || !own_dir(out, make))
      continue;
    return MCX_OK;
  }
  return MCX_ENOENT;
}

static int read_record(const char *path, char *out, size_t n)
{
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return errno == ENOENT ? MCX_ENOENT : MCX_EIO;
  struct stat st;
  ssize_t k = -1;
  if (fstat(fd, &st) == 0 && st.st_uid == geteuid() && S_ISREG(st.st_mode))
    k = read(fd, out, n - 1);
  close(fd);
  if (k <= 0)
    return MCX_EIO;
  out[k] = 0;
  out[strcspn(out, "\n")] = 0;
  return out[0] ? MCX_OK : MCX_EIO;
}

int mcx_port_name_record(const char *key, const char *proposal, char *out, size_t n, char *where,
                         size_t wn)
{
  char dir[400], path[512], tmp[540];
  if (!key || !*key || strchr(key, '/') || !out || n < 2)
    return MCX_EINVAL;
  if (private_dir(dir, sizeof dir, proposal != NULL))
    return MCX_ENOENT;
  snprintf(path, sizeof path, "%s/%s", dir, key);
  if (where)
    snprintf(where, wn, "%s", path);
  int r = read_record(path, out, n);
  if (r != MCX_ENOENT || !proposal)
    return r;
  snprintf(tmp, sizeof tmp, "%s.%u.tmp", path, (unsigned)getpid());
  int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0)
    return MCX_EIO;
  size_t len = strlen(proposal);
  int ok = write(fd, proposal, len) == (ssize_t)len && write(fd, "\n", 1) == 1;
  close(fd);
  if (ok && link(tmp, path) != 0 && errno != EEXIST)
    ok = 0;
  unlink(tmp);
  return ok ? read_record(path, out, n) : MCX_EIO;
}

/* Bumped in the child by a pthread_atfork handler. Relaxed: the child runs the
 * handler on its only thread before anything else in it can read it. */
static mcx_atomic_u32 fork_gen;
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

/* The hook, set by every node's initialization (the same function each
 * time, from any thread): atomic, relaxed (the function is code, nothing it
 * reads is published through this word). */
static _Atomic(void (*)(void)) fork_hook;

static void fork_child(void)
{
  mcx_fetch_add_relaxed(&fork_gen, 1u);
  void (*fn)(void) = mcx_load_relaxed(&fork_hook);
  if (fn)
    fn();
}

void mcx_port_on_fork_child(void (*fn)(void)) { mcx_store_relaxed(&fork_hook, fn); }

static void fork_register(void) { pthread_atfork(NULL, NULL, fork_child); }

/* Registered when the library is loaded, so the check below is one load (it
 * runs on every MCAPI call); pthread_once keeps a second registration out. */
__attribute__((constructor)) static void fork_register_at_load(void)
{
  pthread_once(&fork_once, fork_register);
}

uint32_t mcx_port_fork_generation(void) { return mcx_load_relaxed(&fork_gen); }
