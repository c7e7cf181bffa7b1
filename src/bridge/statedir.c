/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The state directory (docs/bridge.md: security): its checks, and the
 * files the bridge keeps in it, the status file and the delivery records.
 *
 * The directory is opened once, not through a symbolic link, and must be
 * this user's and writable by nobody else: then no one else can make,
 * replace or remove a name in it. Every file is reached through the
 * directory's descriptor and opened without following a symbolic link, so
 * names changed after the checks change nothing. The records are read and
 * written with pread/pwrite, never through a mapping: a file truncated
 * under the bridge is an error it reports at the start, never a SIGBUS.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bridge_internal.h"
#include "common/mcx_err.h"
#include "ports/mcx_port_file.h"

static const char *kind_name(int kind)
{
  switch (kind) {
  case MCX_FILE_REG: return "a regular file";
  case MCX_FILE_DIR: return "a directory";
  case MCX_FILE_LNK: return "a symbolic link";
  case MCX_FILE_FIFO: return "a FIFO";
  case MCX_FILE_CHR: return "a character device";
  case MCX_FILE_BLK: return "a block device";
  case MCX_FILE_SOCK: return "a socket";
  default: return "not a regular file";
  }
}

/* The name of the directory @p up levels above @p path, as far as the
 * path's own words tell (a relative path runs out: then "" ). */
static void ancestor_name(const char *path, unsigned up, char *out, size_t n)
{
  snprintf(out, n, "%s", path);
  for (unsigned k = 0; k < up; k++) {
    size_t len = strlen(out);
    while (len > 1 && out[len - 1] == '/')
      out[--len] = 0;
    char *slash = strrchr(out, '/');
    if (!slash) {
      out[0] = 0;
      return;
    }
    slash[slash == out] = 0; /* "/x" -> "/" */
  }
}

/* The ancestors of the state directory (opened as @p fd), as OpenSSH's
 * StrictModes checks a file's: whoever may write to one of them could move
 * the state directory away and put one of their own in its place, with
 * records and journals that make the bridge skip or repeat deliveries. Each
 * must be root's or this user's, and writable by group or others only when
 * sticky (like /tmp: nobody removes or renames another user's entry). The
 * walk goes up from the directory opened, by "..": the checks are of the
 * directories it is in now, whatever symbolic links its name went through. */
static int parents_check(int fd, const char *path, char *why, size_t n)
{
  uint32_t me = mcx_port_euid();
  int cur = fd, rc = -1;
  for (unsigned up = 1; up <= 4096; up++) {
    int parent, top;
    mcx_port_file_info_t in;
    int r = mcx_port_dir_parent(cur, &parent, &in, &top);
    if (cur != fd)
      mcx_port_file_close(cur);
    if (r) {
      snprintf(why, n, "state_dir %s: its parent directories cannot be checked (%s)", path,
               r == MCX_EPERM ? "permission denied" : "cannot be opened");
      return -1;
    }
    cur = parent;
    char name[256], at[300];
    ancestor_name(path, up, name, sizeof name);
    if (name[0])
      snprintf(at, sizeof at, "%s", name);
    else
      snprintf(at, sizeof at, "%u level(s) above it", up);
    if (in.uid != 0 && in.uid != me) {
      snprintf(why, n,
               "state_dir %s: its parent directory %s is owned by uid %u, neither root nor this bridge's user "
               "(uid %u): that user could replace the state directory",
               path, at, in.uid, me);
      break;
    }
    if ((in.mode & 022) && !(in.mode & 01000)) {
      snprintf(why, n,
               "state_dir %s: its parent directory %s is writable by its group or others and not sticky (mode "
               "%04o): they could replace the state directory (chmod go-w it)",
               path, at, in.mode);
      break;
    }
    if (top) {
      rc = 0;
      break;
    }
  }
  if (cur != fd)
    mcx_port_file_close(cur);
  return rc;
}

int mcx__br_state_open(const char *path, int *fd, char *why, size_t n)
{
  mcx_port_file_info_t in;
  int rc = mcx_port_dir_open(path, fd, &in);
  if (rc == MCX_EINVAL && mcx_port_file_lstat(-1, path, &in) == 0) {
    snprintf(why, n, "state_dir %s is %s, not a directory%s", path, kind_name(in.kind),
             in.kind == MCX_FILE_LNK ? " (name the directory itself)" : "");
    return -1;
  }
  if (rc) {
    snprintf(why, n, "state_dir %s: %s", path,
             rc == MCX_ENOENT ? "no such directory" : rc == MCX_EPERM ? "permission denied" : "cannot be opened");
    return -1;
  }
  uint32_t me = mcx_port_euid();
  if (in.uid != me) {
    snprintf(why, n, "state_dir %s is owned by uid %u, not by this bridge's user (uid %u)", path, in.uid, me);
  } else if (in.mode & 022) {
    snprintf(why, n, "state_dir %s is writable by its group or others (mode %04o): chmod go-w it", path, in.mode);
  } else if (parents_check(*fd, path, why, n) == 0) {
    return 0;
  }
  mcx_port_file_close(*fd);
  *fd = -1;
  return -1;
}

/* NAME.tmp made anew: a name already there (a stale one of a killed run, a
 * link put there) is removed, never opened; the link itself goes, not what
 * it points to. */
static int create_tmp(int dirfd, const char *tmp, unsigned mode, int *fd)
{
  mcx_port_file_info_t in;
  int rc = mcx_port_file_openat(dirfd, tmp, MCX_FILE_CREATE, mode, fd, &in);
  if (rc == MCX_EEXIST && mcx_port_file_unlinkat(dirfd, tmp) == 0)
    rc = mcx_port_file_openat(dirfd, tmp, MCX_FILE_CREATE, mode, fd, &in);
  return rc;
}

int mcx__br_state_write(int dirfd, const char *name, const void *text, size_t len)
{
  char tmp[128];
  int fd;
  if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp", name) >= sizeof tmp || create_tmp(dirfd, tmp, 0644, &fd))
    return -1;
  int rc = mcx_port_file_pwrite(fd, text, len, 0);
  mcx_port_file_close(fd);
  if (!rc)
    rc = mcx_port_file_renameat(dirfd, tmp, name);
  if (rc)
    mcx_port_file_unlinkat(dirfd, tmp);
  return rc ? -1 : 0;
}

/* A new record: zeros written to NAME.tmp, then renamed into place, so a
 * kill leaves either no record or a whole one (never an empty file, which
 * the next start would refuse as truncated). */
static int record_create(int dirfd, const char *name, int *fd, char *why, size_t n)
{
  char tmp[128];
  int t;
  static const uint8_t zero[RECORD_LEN];
  mcx_port_file_info_t in;
  if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp", name) >= sizeof tmp || create_tmp(dirfd, tmp, 0600, &t)) {
    snprintf(why, n, "delivery record %s cannot be made", name);
    return -1;
  }
  int rc = mcx_port_file_pwrite(t, zero, sizeof zero, 0);
  mcx_port_file_close(t);
  if (!rc)
    rc = mcx_port_file_renameat(dirfd, tmp, name);
  if (!rc)
    rc = mcx_port_file_openat(dirfd, name, MCX_FILE_RDWR, 0, fd, &in);
  if (rc) {
    mcx_port_file_unlinkat(dirfd, tmp);
    snprintf(why, n, "delivery record %s cannot be made", name);
    return -1;
  }
  return 0;
}

int mcx__br_record_file(int dirfd, const char *name, int create, int *fd, uint64_t v[2], char *why, size_t n)
{
  mcx_port_file_info_t in;
  v[0] = v[1] = 0;
  *fd = -1;
  /* NONBLOCK: a FIFO put in its place is opened without waiting, then refused. */
  int rc = mcx_port_file_openat(dirfd, name, MCX_FILE_RDWR | MCX_FILE_NONBLOCK, 0, fd, &in);
  if (rc == MCX_ENOENT)
    return create ? record_create(dirfd, name, fd, why, n) : 0;
  if (rc == MCX_EINVAL) {
    snprintf(why, n, "delivery record %s is a symbolic link (not followed): remove it", name);
    return -1;
  }
  if (rc) {
    snprintf(why, n, "delivery record %s: %s", name, rc == MCX_EPERM ? "permission denied" : "cannot be opened");
    return -1;
  }
  uint32_t me = mcx_port_euid();
  if (in.kind != MCX_FILE_REG)
    snprintf(why, n, "delivery record %s is %s, not a regular file", name, kind_name(in.kind));
  else if (in.uid != me)
    snprintf(why, n, "delivery record %s is owned by uid %u, not by this bridge's user (uid %u)", name, in.uid, me);
  else if (in.mode & 022)
    snprintf(why, n, "delivery record %s is writable by its group or others (mode %04o)", name, in.mode);
  else if (in.nlink != 1)
    snprintf(why, n, "delivery record %s has %llu links (a hard link to another file?)", name,
             (unsigned long long)in.nlink);
  else if (in.size != RECORD_LEN)
    snprintf(why, n,
             "delivery record %s has %llu bytes, not %u: truncated or not a record (remove it to start "
             "without it: what the peer sends again may then be delivered twice)",
             name, (unsigned long long)in.size, RECORD_LEN);
  else if (mcx_port_file_pread(*fd, v, RECORD_LEN, 0))
    snprintf(why, n, "delivery record %s cannot be read", name);
  else
    return 0;
  mcx_port_file_close(*fd);
  *fd = -1;
  v[0] = v[1] = 0;
  return -1;
}

int mcx__br_record_write(int fd, const uint64_t v[2]) { return mcx_port_file_pwrite(fd, v, RECORD_LEN, 0) ? -1 : 0; }

/* The checks of a file of the state directory opened as @p fd (@p in: its
 * fstat): a regular file of this user, writable by nobody else, one link. */
static int file_checks(const char *what, const char *name, const mcx_port_file_info_t *in, char *why, size_t n)
{
  uint32_t me = mcx_port_euid();
  if (in->kind != MCX_FILE_REG)
    snprintf(why, n, "%s %s is %s, not a regular file", what, name, kind_name(in->kind));
  else if (in->uid != me)
    snprintf(why, n, "%s %s is owned by uid %u, not by this bridge's user (uid %u)", what, name, in->uid, me);
  else if (in->mode & 022)
    snprintf(why, n, "%s %s is writable by its group or others (mode %04o)", what, name, in->mode);
  else if (in->nlink != 1)
    snprintf(why, n, "%s %s has %llu links (a hard link to another file?)", what, name,
             (unsigned long long)in->nlink);
  else
    return 0;
  return -1;
}

int mcx__br_state_read(int dirfd, const char *what, const char *name, size_t max, void **buf, size_t *len, char *why,
                       size_t n)
{
  mcx_port_file_info_t in;
  int fd;
  *buf = NULL;
  *len = 0;
  int rc = mcx_port_file_openat(dirfd, name, MCX_FILE_RDWR | MCX_FILE_NONBLOCK, 0, &fd, &in);
  if (rc == MCX_ENOENT)
    return 0;
  if (rc) {
    snprintf(why, n, "%s %s: %s", what, name,
             rc == MCX_EINVAL ? "a symbolic link (not followed): remove it"
                              : rc == MCX_EPERM ? "permission denied" : "cannot be opened");
    return -1;
  }
  if (file_checks(what, name, &in, why, n)) {
    mcx_port_file_close(fd);
    return -1;
  }
  if (in.size > max) {
    snprintf(why, n, "%s %s has %llu bytes, more than %zu: not one of this bridge's (remove it)", what, name,
             (unsigned long long)in.size, max);
    mcx_port_file_close(fd);
    return -1;
  }
  void *b = malloc(in.size ? (size_t)in.size : 1);
  rc = b && in.size ? mcx_port_file_pread(fd, b, (size_t)in.size, 0) : !b;
  mcx_port_file_close(fd);
  if (rc) {
    free(b);
    snprintf(why, n, "%s %s cannot be read", what, name);
    return -1;
  }
  *buf = b;
  *len = (size_t)in.size;
  return 0;
}

int mcx__br_state_replace(int dirfd, const char *name, const void *data, size_t len, unsigned mode, int *fd)
{
  char tmp[128];
  int t;
  mcx_port_file_info_t in;
  if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp", name) >= sizeof tmp || create_tmp(dirfd, tmp, mode, &t))
    return -1;
  int rc = len ? mcx_port_file_pwrite(t, data, len, 0) : 0;
  mcx_port_file_close(t);
  if (!rc)
    rc = mcx_port_file_renameat(dirfd, tmp, name);
  if (rc) {
    mcx_port_file_unlinkat(dirfd, tmp);
    return -1;
  }
  if (fd && mcx_port_file_openat(dirfd, name, MCX_FILE_RDWR | MCX_FILE_NONBLOCK, 0, fd, &in))
    return -1;
  return 0;
}
