/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file mcx_port_file.h
 * @brief Files a process must not be tricked into: what the bridge needs
 * to read its key and certificates and to keep its state directory
 * (docs/bridge.md: security).
 *
 * - Paths given by a configuration are opened without waiting (a FIFO or a
 *   device is opened, looked at and closed, never read) and described by
 *   the descriptor actually opened (fstat), not by the name.
 * - A directory is opened once (no symbolic link as its last component);
 *   every file in it is then reached relative to that descriptor, without
 *   following a symbolic link, so swapping names after the checks changes
 *   nothing.
 *
 * Implemented by ports/posix/file.c. Results follow src/common/mcx_err.h:
 * 0 or a negative MCX_E* code. Descriptors are plain ints, closed with
 * mcx_port_file_close(). MT-safe (no shared state).
 */
#ifndef MCX_PORT_FILE_H
#define MCX_PORT_FILE_H

#include <stddef.h>
#include <stdint.h>

/** What a name or descriptor is. */
enum { MCX_FILE_REG = 1, MCX_FILE_DIR, MCX_FILE_LNK, MCX_FILE_FIFO, MCX_FILE_CHR, MCX_FILE_BLK,
       MCX_FILE_SOCK, MCX_FILE_OTHER };

typedef struct mcx_port_file_info {
  int kind;       /**< MCX_FILE_* */
  uint32_t uid;   /**< owner */
  unsigned mode;  /**< permission bits (07777) */
  uint64_t size;  /**< bytes */
  uint64_t nlink; /**< hard links */
} mcx_port_file_info_t;

/** The effective user id of the process. */
uint32_t mcx_port_euid(void);

/**
 * @brief Describes @p path without following a symbolic link at its end
 * (@p dirfd >= 0: relative to that directory; -1: as a plain path).
 * @retval 0 *out set.
 * @retval MCX_ENOENT no such name.
 * @retval MCX_EPERM not allowed to look.
 * @retval MCX_EIO another failure.
 */
int mcx_port_file_lstat(int dirfd, const char *path, mcx_port_file_info_t *out);

/**
 * @brief Opens @p path for reading without waiting: a FIFO, a terminal or a
 * device is opened non-blocking and never read; *@p out describes what was
 * opened (the caller refuses what is not a regular file). Symbolic links
 * are followed.
 * @retval 0 *fd open, *out set.
 * @retval MCX_ENOENT no such file.
 * @retval MCX_EPERM not readable by this user.
 * @retval MCX_EIO another failure.
 */
int mcx_port_file_open_read(const char *path, int *fd, mcx_port_file_info_t *out);

/**
 * @brief Reads up to @p cap bytes from the start of a regular file.
 * @retval 0 *got bytes read (fewer than @p cap only at its end).
 * @retval MCX_EIO the read failed.
 */
int mcx_port_file_read_all(int fd, void *buf, size_t cap, size_t *got);

/**
 * @brief Opens the directory @p path (O_DIRECTORY, not through a symbolic
 * link at its end) for the *at calls below.
 * @retval 0 *fd open, *out set.
 * @retval MCX_ENOENT no such directory.
 * @retval MCX_EINVAL not a directory, or a symbolic link (mcx_port_file_lstat() says which).
 * @retval MCX_EPERM not allowed.
 * @retval MCX_EIO another failure.
 */
int mcx_port_dir_open(const char *path, int *fd, mcx_port_file_info_t *out);

/**
 * @brief Opens the parent of the directory @p dirfd (its "..") and
 * describes it: the ancestors of a directory opened once, whatever names
 * led to it.
 * @retval 0 *parent open (mcx_port_file_close() it), *out set; *top is 1
 *         when it is @p dirfd itself (the root).
 * @retval MCX_EPERM not allowed.
 * @retval MCX_EIO another failure.
 */
int mcx_port_dir_parent(int dirfd, int *parent, mcx_port_file_info_t *out, int *top);

/** mcx_port_file_openat() @p flags. */
enum { MCX_FILE_RDWR = 1,   /**< read and write (else write only) */
       MCX_FILE_CREATE = 2, /**< create it; fail when the name exists (O_EXCL) */
       MCX_FILE_NONBLOCK = 4 /**< open without waiting (a FIFO is opened, never waited for) */ };

/**
 * @brief Opens @p name in the directory @p dirfd, never through a symbolic
 * link (O_NOFOLLOW); MCX_FILE_CREATE makes a new file with @p mode (and
 * fails on any existing name, link or not).
 * @retval 0 *fd open, *out describes it.
 * @retval MCX_ENOENT no such name (without MCX_FILE_CREATE).
 * @retval MCX_EEXIST the name exists (with MCX_FILE_CREATE).
 * @retval MCX_EINVAL a symbolic link, or a name with '/'.
 * @retval MCX_EPERM not allowed.
 * @retval MCX_EIO another failure.
 */
int mcx_port_file_openat(int dirfd, const char *name, unsigned flags, unsigned mode, int *fd,
                         mcx_port_file_info_t *out);

/** @brief Describes an open descriptor. @retval 0 *out set. @retval MCX_EIO failed. */
int mcx_port_file_fstat(int fd, mcx_port_file_info_t *out);

/**
 * @brief Reads exactly @p n bytes at @p off.
 * @retval 0 read.
 * @retval MCX_ETRUNC the file ends before (it is shorter than @p off + @p n).
 * @retval MCX_EIO the read failed.
 */
int mcx_port_file_pread(int fd, void *buf, size_t n, uint64_t off);

/** @brief Writes exactly @p n bytes at @p off. @retval 0 written. @retval MCX_EIO failed (full, I/O error). */
int mcx_port_file_pwrite(int fd, const void *buf, size_t n, uint64_t off);

/** @brief Renames @p from to @p to within @p dirfd (replacing @p to, a link itself, never its target). */
int mcx_port_file_renameat(int dirfd, const char *from, const char *to);

/** @brief Removes the name @p name of @p dirfd (a link itself, never its target). */
int mcx_port_file_unlinkat(int dirfd, const char *name);

/**
 * @brief Maps @p size bytes of @p fd with no access at all: never read or
 * written through (so a file truncated under it cannot fault), it only
 * names the file in the process's memory map (Linux: /proc/PID/maps),
 * where tools look for it.
 * @return the mapping (unmap with mcx_port_file_unmark()), or NULL.
 */
void *mcx_port_file_mark(int fd, size_t size);
void mcx_port_file_unmark(void *mark, size_t size);

/** Closes @p fd (ignored when negative). */
void mcx_port_file_close(int fd);

#endif /* MCX_PORT_FILE_H */
