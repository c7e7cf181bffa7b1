/* SPDX-License-Identifier: BSD-3-Clause */
/* Named shared memory (POSIX shm_open + mmap). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../src/common/mcx_atomic.h"
#include "../../src/common/mcx_err.h"
#include "../mcx_port_shm.h"

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
  if (shm_unlink(name) == 0)
    return MCX_OK;
  return errno == ENOENT ? MCX_ENOENT : MCX_EIO;
}

uint32_t mcx_port_uid(void) { return (uint32_t)geteuid(); }

/* Bumped in the child by a pthread_atfork handler. Relaxed: the child runs the
 * handler on its only thread before anything else in it can read it. */
static mcx_atomic_u32 fork_gen;
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

static void fork_child(void) { mcx_fetch_add_relaxed(&fork_gen, 1u); }

static void fork_register(void) { pthread_atfork(NULL, NULL, fork_child); }

/* Registered when the library is loaded, so the check below is one load (it
 * runs on every MCAPI call); pthread_once keeps a second registration out. */
__attribute__((constructor)) static void fork_register_at_load(void)
{
  pthread_once(&fork_once, fork_register);
}

uint32_t mcx_port_fork_generation(void) { return mcx_load_relaxed(&fork_gen); }
