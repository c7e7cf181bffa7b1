/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file mcx_port_shm.h
 * @brief Named shared memory and owner liveness: what process-shared objects
 * need from the OS. Generic on purpose: MRAPI's domain partitions and shared
 * memory segments use it today, MCAPI's process-shared domains will later.
 *
 * Implemented by ports/posix/shm.c (POSIX shm_open/mmap) and
 * ports/linux/robust.c (thread liveness through /proc). Results follow
 * src/common/mcx_err.h: 0 or a negative MCX_E* code.
 *
 * Names are POSIX shared-memory names: one leading '/', no other '/', at most
 * MCX_PORT_SHM_NAME_MAX - 1 bytes.
 */
#ifndef MCX_PORT_SHM_H
#define MCX_PORT_SHM_H

#include <stddef.h>
#include <stdint.h>

#define MCX_PORT_SHM_NAME_MAX 96

/** An open shared-memory object: its descriptor and its size in bytes. */
typedef struct mcx_port_shm {
  int fd;
  size_t size;
} mcx_port_shm_t;

/**
 * @brief Creates the object @p name exclusively, mode 0600, sized @p size
 * (zero-filled).
 * @retval 0 created; @p out holds it open
 * @retval MCX_EEXIST an object of that name exists already
 * @retval MCX_EINVAL bad name or size 0
 * @retval MCX_ENOMEM the file system has no room for @p size bytes (the
 *         pages are reserved now, posix_fallocate, so a full /dev/shm is
 *         this error and never a SIGBUS at a later access)
 * @retval MCX_EIO the OS refused (permissions)
 */
int mcx_port_shm_create(const char *name, size_t size, mcx_port_shm_t *out);

/**
 * @brief Opens the existing object @p name for reading and writing, after
 * checking that the caller's effective uid owns it and that it is at least
 * @p min_size bytes (a creator may not have sized it yet: MCX_EAGAIN).
 * @retval 0 opened; out->size is its current size
 * @retval MCX_ENOENT no such object
 * @retval MCX_EPERM owned by another user (or group/other may access it)
 * @retval MCX_EAGAIN smaller than @p min_size (still being created?)
 * @retval MCX_EINVAL bad name
 * @retval MCX_EIO the OS refused
 */
int mcx_port_shm_open(const char *name, size_t min_size, mcx_port_shm_t *out);

/** @brief As mcx_port_shm_create(), with permission bits @p mode (0600..0666, owner rw required). */
int mcx_port_shm_create_mode(const char *name, size_t size, unsigned mode, mcx_port_shm_t *out);

/** @brief As mcx_port_shm_open(), accepting objects whose permission bits lie within @p mode. */
int mcx_port_shm_open_mode(const char *name, size_t min_size, unsigned mode, mcx_port_shm_t *out);

/** @brief Maps @p size bytes of an open object read/write, shared. NULL on failure. */
void *mcx_port_shm_map(const mcx_port_shm_t *shm, size_t size);

/**
 * @brief Maps the regular file @p path (created 0600 when missing, and
 * extended with zeros to @p size) read/write and shared: stores into it
 * outlive the process at once, with no system call per store.
 * @return the mapping (unmap with mcx_port_shm_unmap()), or NULL.
 */
void *mcx_port_map_file(const char *path, size_t size);

/** @brief Unmaps what mcx_port_shm_map() returned. */
void mcx_port_shm_unmap(void *addr, size_t size);

/** @brief Closes the descriptor (mappings stay valid). */
void mcx_port_shm_close(mcx_port_shm_t *shm);

/**
 * @brief Removes the name; mappings stay valid until unmapped.
 * @retval 0 removed
 * @retval MCX_ENOENT no such object
 * @retval MCX_EPERM another user owns it: left alone
 * @retval MCX_EIO the OS refused
 */
int mcx_port_shm_unlink(const char *name);

/** @brief The caller's effective user id (names are made per user). */
uint32_t mcx_port_uid(void);

/**
 * @brief A number that changes in a child process after each fork(), so
 * per-thread state copied into a child can be recognized as its parent's
 * without a getpid() system call on every use. Cheap (one load).
 */
uint32_t mcx_port_fork_generation(void);

/**
 * @brief Registers @p fn to run in a child process right after fork(), on
 * its only thread (the one that forked), before fork() returns there. One
 * hook; a second call replaces the first. No-op where there is no fork().
 */
void mcx_port_on_fork_child(void (*fn)(void));

/**
 * @brief Whether thread (or process) @p tid exists and has not exited.
 *
 * Unlike kill(pid, 0), a zombie (exited, not yet reaped) counts as dead, and
 * any thread id works, not only process ids. Linux: /proc/<tid>/task/<tid>/stat.
 * @return 1 alive, 0 dead (or never existed)
 */
int mcx_port_tid_alive(uint32_t tid);

/** @brief The process (thread group) of thread @p tid; 0 when it does not run. */
uint32_t mcx_port_tid_pid(uint32_t tid);

/**
 * @brief Fills @p buf with @p n bytes from the kernel's random source
 * (getrandom, else /dev/urandom). @retval 0 @retval MCX_EIO none available
 */
int mcx_port_random(void *buf, size_t n);

/**
 * @brief Owner and mode of the named object @p name, when it exists.
 * @retval 0 *uid, *mode (permission bits) and *size set
 * @retval MCX_ENOENT no such object
 * @retval MCX_EIO it could not be examined
 */
int mcx_port_shm_stat(const char *name, uint32_t *uid, unsigned *mode, size_t *size);

/**
 * @brief A small per-user record: the value stored under @p key in a
 * directory only the calling user can use (mode 0700, owned by it, not a
 * symlink): $XDG_RUNTIME_DIR/libmca, else /run/user/<uid>/libmca, else
 * $HOME/.cache/libmca. Any candidate another user owns or others can write is
 * passed over.
 * With @p proposal NULL it only reads. Otherwise, when no value is stored,
 * @p proposal is stored atomically (written aside, then linked into place:
 * of two processes proposing at once, one value wins and both read it).
 * @param where receives the record's path (for messages); may be NULL
 * @retval 0 the stored value is in @p out
 * @retval MCX_ENOENT nothing stored (read only), or no usable directory
 * @retval MCX_EIO the record could not be read or written
 */
int mcx_port_name_record(const char *key, const char *proposal, char *out, size_t n, char *where,
                         size_t wn);

#endif /* MCX_PORT_SHM_H */
