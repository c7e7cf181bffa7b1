/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file mrapi.h
 * @brief MRAPI 1.0 (Multicore Association Resource API) as libmca implements
 * it: nodes and domains, mutexes, semaphores, reader/writer locks, shared
 * memory, and the atomic-operation extensions of the reference
 * implementation (mrapi_atomic_*, see the last section).
 *
 * Every function reports its outcome through its last argument, a
 * `mrapi_status_t *`, and documents one `@retval` per status it can store. A
 * NULL status pointer makes the call return at once without doing anything.
 *
 * Context: every call is made from a thread that is an initialized node
 * (mrapi_initialize()), except mrapi_initialize(), mrapi_display_status() and
 * the *_init_attributes()/ *_set_attribute() functions. A node is a thread:
 * several threads of one process may each be a node of the same or another
 * domain; a fork()ed child is not its parent's node and initializes its own.
 * Calls are MT-safe. Blocking calls may sleep; none may be called from a
 * signal handler.
 *
 * Objects live in the domain's shared-memory partition, so any node of any
 * process of the same user finds them by id (their "key"). Timeouts are in
 * milliseconds: MRAPI_TIMEOUT_INFINITE waits forever, MRAPI_TIMEOUT_IMMEDIATE
 * (0) does not wait.
 *
 * Stale handles: a handle of a deleted object gives *_ERR_*_INVALID, or
 * *_ERR_*_DELETED when the object was created with the MRAPI_ERROR_EXT
 * attribute, as the specification describes.
 *
 * Robust mutexes: when the holder of a mutex dies (its thread or process
 * ends), the next node to lock it gets the lock and the status
 * MRAPI_ERR_MUTEX_OWNER_DIED (a libmca extension); see docs/mrapi.md.
 */
#ifndef MRAPI_H
#define MRAPI_H

#include <stddef.h>
#include <stdint.h>

#include "mca.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef mca_domain_t mrapi_domain_t;
typedef mca_node_t mrapi_node_t;
typedef mca_status_t mrapi_status_t;
typedef mca_timeout_t mrapi_timeout_t;
typedef mca_int_t mrapi_int_t;
typedef mca_uint_t mrapi_uint_t;
typedef mca_uint8_t mrapi_uint8_t;
typedef mca_uint16_t mrapi_uint16_t;
typedef mca_uint32_t mrapi_uint32_t;
typedef mca_uint64_t mrapi_uint64_t;
typedef mca_boolean_t mrapi_boolean_t;
typedef mca_request_t mrapi_request_t;

/** Lock mode of a reader/writer lock. */
typedef enum { MRAPI_RWL_READER, MRAPI_RWL_WRITER } mrapi_rwl_mode_t;

typedef int mrapi_parameters_t;

#define MRAPI_VERSION "1.0 (libmca " LIBMCA_VERSION_STRING ")"
typedef struct {
  char mrapi_version[64];
} mrapi_info_t;

/** Ids (keys) agreed between nodes beforehand, e.g. from ftok(). */
typedef int mrapi_shmem_id_t;
typedef int mrapi_mutex_id_t;
typedef int mrapi_sem_id_t;
typedef int mrapi_rwl_id_t;
typedef int mrapi_rmem_id_t;

#define MRAPI_TRUE MCA_TRUE
#define MRAPI_FALSE MCA_FALSE
#define MRAPI_NULL MCA_NULL

#define MRAPI_IN const
#define MRAPI_OUT
#define MRAPI_FUNCTION_PTR

#define MRAPI_TIMEOUT_INFINITE (~0) /**< wait forever */
#define MRAPI_TIMEOUT_IMMEDIATE 0   /**< do not wait */

#define MRAPI_NONE 0xffffffff
/** Ids that make *_create() pick an unused id (the handle is what callers keep). */
#define MRAPI_MUTEX_ID_ANY 0xffffffff
#define MRAPI_SEM_ID_ANY 0xffffffff
#define MRAPI_RWL_ID_ANY 0xffffffff
#define MRAPI_SHMEM_ID_ANY 0xffffffff
#define MRAPI_RMEM_ID_ANY 0xffffffff

#include "mrapi_impl_spec.h"

#define MRAPI_MAX_STATUS_SIZE 32

/** Status codes, in the reference implementation's order (same values). */
typedef enum {
  MRAPI_SUCCESS,
  MRAPI_TIMEOUT,
  MRAPI_INCOMPLETE,
  MRAPI_ERR_ATTR_NUM,
  MRAPI_ERR_ATTR_READONLY,
  MRAPI_ERR_ATTR_SIZE,
  MRAPI_ERR_DOMAIN_INVALID,
  MRAPI_ERR_DOMAIN_NOTSHARED,
  MRAPI_ERR_MEM_LIMIT,
  MRAPI_ERR_MUTEX_DELETED,
  MRAPI_ERR_MUTEX_EXISTS,
  MRAPI_ERR_MUTEX_ID_INVALID,
  MRAPI_ERR_MUTEX_INVALID,
  MRAPI_ERR_MUTEX_KEY,
  MRAPI_ERR_MUTEX_LIMIT,
  MRAPI_ERR_MUTEX_LOCKED,
  MRAPI_ERR_MUTEX_LOCKORDER,
  MRAPI_ERR_MUTEX_NOTLOCKED,
  MRAPI_ERR_MUTEX_NOTVALID,
  MRAPI_ERR_NODE_INITFAILED,
  MRAPI_ERR_NODE_FINALFAILED,
  MRAPI_ERR_NODE_INITIALIZED,
  MRAPI_ERR_NODE_INVALID,
  MRAPI_ERR_NODE_NOTINIT,
  MRAPI_ERR_NOT_SUPPORTED,
  MRAPI_ERR_PARAMETER,
  MRAPI_ERR_REQUEST_CANCELED,
  MRAPI_ERR_REQUEST_INVALID,
  MRAPI_ERR_REQUEST_LIMIT,
  MRAPI_ERR_RMEM_ID_INVALID,
  MRAPI_ERR_RMEM_ATTACH,
  MRAPI_ERR_RMEM_ATTACHED,
  MRAPI_ERR_RMEM_ATYPE,
  MRAPI_ERR_RMEM_ATYPE_NOTVALID,
  MRAPI_ERR_RMEM_BLOCKED,
  MRAPI_ERR_RMEM_BUFF_OVERRUN,
  MRAPI_ERR_RMEM_CONFLICT,
  MRAPI_ERR_RMEM_EXISTS,
  MRAPI_ERR_RMEM_INVALID,
  MRAPI_ERR_RMEM_NOTATTACHED,
  MRAPI_ERR_RMEM_NOTOWNER,
  MRAPI_ERR_RMEM_STRIDE,
  MRAPI_ERR_RMEM_TYPENOTVALID,
  MRAPI_ERR_RSRC_COUNTER_INUSE,
  MRAPI_ERR_RSRC_INVALID,
  MRAPI_ERR_RSRC_INVALID_CALLBACK,
  MRAPI_ERR_RSRC_INVALID_EVENT,
  MRAPI_ERR_RSRC_INVALID_SUBSYSTEM,
  MRAPI_ERR_RSRC_INVALID_TREE,
  MRAPI_ERR_RSRC_NOTDYNAMIC,
  MRAPI_ERR_RSRC_NOTOWNER,
  MRAPI_ERR_RSRC_NOTSTARTED,
  MRAPI_ERR_RSRC_STARTED,
  MRAPI_ERR_RWL_DELETED,
  MRAPI_ERR_RWL_EXISTS,
  MRAPI_ERR_RWL_ID_INVALID,
  MRAPI_ERR_RWL_INVALID,
  MRAPI_ERR_RWL_LIMIT,
  MRAPI_ERR_RWL_LOCKED,
  MRAPI_ERR_RWL_NOTLOCKED,
  MRAPI_ERR_SEM_DELETED,
  MRAPI_ERR_SEM_EXISTS,
  MRAPI_ERR_SEM_ID_INVALID,
  MRAPI_ERR_SEM_INVALID,
  MRAPI_ERR_SEM_LIMIT,
  MRAPI_ERR_SEM_LOCKED,
  MRAPI_ERR_SEM_LOCKLIMIT,
  MRAPI_ERR_SEM_NOTLOCKED,
  MRAPI_ERR_SHM_ATTACHED,
  MRAPI_ERR_SHM_ATTCH,
  MRAPI_ERR_SHM_EXISTS,
  MRAPI_ERR_SHM_ID_INVALID,
  MRAPI_ERR_SHM_INVALID,
  MRAPI_ERR_SHM_NODES_INCOMPAT,
  MRAPI_ERR_SHM_NODE_NOTSHARED,
  MRAPI_ERR_SHM_NOTATTACHED,
  /* reference implementation's atomic extensions */
  MRAPI_ERR_ATOM_INVALID_ARG,
  MRAPI_ERR_ATOM_OP_FAILED,
  MRAPI_ERR_ATOM_OP_NOFORWARD,
  /** libmca extension: the lock was taken, but its previous holder died
   *  holding it; what it protects may be inconsistent. The caller holds the
   *  lock (key in *lock_key) and must unlock it as usual. */
  MRAPI_ERR_MUTEX_OWNER_DIED
} mrapi_status_flags;

/** Attribute numbers. */
typedef enum {
  MRAPI_MUTEX_RECURSIVE, /**< mrapi_boolean_t, mutex: may be locked again by its holder */
  MRAPI_ERROR_EXT,       /**< mrapi_boolean_t: stale handles give *_DELETED */
  MRAPI_DOMAIN_SHARED,   /**< mrapi_boolean_t: recorded only (objects are per domain) */
  MRAPI_SHMEM_RESOURCE,  /**< not supported */
  MRAPI_SHMEM_ADDRESS,   /**< not supported */
  MRAPI_SHMEM_SIZE       /**< mrapi_uint_t, read-only: the segment's size */
} mrapi_attributes_t;

/* ================================================================ general */

/**
 * @brief Returns the name of @p status ("MRAPI_ERR_MUTEX_LOCKED").
 * @return @p status_message, or NULL when it is NULL or @p size is too small
 */
char *mrapi_display_status(mrapi_status_t status, char *status_message, size_t size);

/**
 * @brief Makes the calling thread node @p node_id of domain @p domain_id.
 *
 * The first node of a domain creates its partition; a partition left by a
 * crashed run is recognized and recovered.
 * @param domain_id the domain to join
 * @param node_id the calling thread's node id in it
 * @param status receives the outcome (below)
 * @param init_parameters ignored (pass 0)
 * @param mrapi_info receives the version string
 * @retval MRAPI_SUCCESS the caller is a node
 * @retval MRAPI_ERR_PARAMETER @p mrapi_info is NULL
 * @retval MRAPI_ERR_NODE_INITIALIZED the calling thread is a node already
 * @retval MRAPI_ERR_NODE_INVALID @p node_id is MRAPI_NONE
 * @retval MRAPI_ERR_DOMAIN_INVALID @p domain_id is MRAPI_NONE
 * @retval MRAPI_ERR_NODE_INITFAILED the node id is taken by a live node, the
 *         domain's node table or the process's domain table is full, or the
 *         partition could not be created or opened (owned by another user,
 *         other layout)
 */
void mrapi_initialize(MRAPI_IN mrapi_domain_t domain_id, MRAPI_IN mrapi_node_t node_id,
                      MRAPI_IN mrapi_parameters_t init_parameters, MRAPI_OUT mrapi_info_t *mrapi_info,
                      MRAPI_OUT mrapi_status_t *status);

/**
 * @brief Ends the caller's membership. The last node of a domain removes the
 * partition and every object and segment in it.
 * @post Locks the node still holds stay held (the next locker of a mutex does
 *       not see an owner death: the thread is alive). Unlock before finalizing.
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_NODE_NOTINIT the caller is not a node
 */
void mrapi_finalize(MRAPI_OUT mrapi_status_t *status);

/**
 * @brief The caller's domain.
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_NODE_NOTINIT (returns MRAPI_NONE)
 */
mrapi_domain_t mrapi_domain_id_get(MRAPI_OUT mrapi_status_t *status);

/**
 * @brief The caller's node id.
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_NODE_NOTINIT (returns MRAPI_NONE)
 */
mrapi_node_t mrapi_node_id_get(MRAPI_OUT mrapi_status_t *status);

/* ================================================================ mutexes */

/**
 * @brief Sets @p attributes to the defaults: not recursive, no extended errors.
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_PARAMETER @p attributes is NULL
 */
void mrapi_mutex_init_attributes(MRAPI_OUT mrapi_mutex_attributes_t *attributes,
                                 MRAPI_OUT mrapi_status_t *status);

/**
 * @brief Sets one attribute (MRAPI_MUTEX_RECURSIVE, MRAPI_ERROR_EXT,
 * MRAPI_DOMAIN_SHARED; each a mrapi_boolean_t).
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_PARAMETER @p attributes or @p attribute is NULL
 * @retval MRAPI_ERR_ATTR_NUM unknown attribute for a mutex
 * @retval MRAPI_ERR_ATTR_SIZE @p attr_size is not sizeof(mrapi_boolean_t)
 */
void mrapi_mutex_set_attribute(MRAPI_OUT mrapi_mutex_attributes_t *attributes,
                               MRAPI_IN mrapi_uint_t attribute_num, MRAPI_IN void *attribute,
                               MRAPI_IN size_t attr_size, MRAPI_OUT mrapi_status_t *status);

/**
 * @brief Reads one attribute of an existing mutex.
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_NODE_NOTINIT
 * @retval MRAPI_ERR_MUTEX_INVALID not a (live) mutex handle
 * @retval MRAPI_ERR_MUTEX_DELETED deleted, created with MRAPI_ERROR_EXT
 * @retval MRAPI_ERR_PARAMETER @p attribute is NULL
 * @retval MRAPI_ERR_ATTR_NUM unknown attribute
 * @retval MRAPI_ERR_ATTR_SIZE wrong size
 */
void mrapi_mutex_get_attribute(MRAPI_IN mrapi_mutex_hndl_t mutex, MRAPI_IN mrapi_uint_t attribute_num,
                               MRAPI_OUT void *attribute, MRAPI_IN size_t attribute_size,
                               MRAPI_OUT mrapi_status_t *status);

/**
 * @brief Creates mutex @p mutex_id in the caller's domain (unlocked).
 * @param mutex_id the mutex's id in the domain
 * @param status receives the outcome (below)
 * @param attributes NULL for the defaults
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_NODE_NOTINIT
 * @retval MRAPI_ERR_MUTEX_EXISTS a mutex with that id exists (handle not valid)
 * @retval MRAPI_ERR_MUTEX_LIMIT MRAPI_MAX_MUTEXES exist
 */
mrapi_mutex_hndl_t mrapi_mutex_create(MRAPI_IN mrapi_mutex_id_t mutex_id,
                                      MRAPI_IN mrapi_mutex_attributes_t *attributes,
                                      MRAPI_OUT mrapi_status_t *status);

/**
 * @brief Finds the mutex with id @p mutex_id (created by any node of the domain).
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_NODE_NOTINIT
 * @retval MRAPI_ERR_MUTEX_ID_INVALID no such mutex
 */
mrapi_mutex_hndl_t mrapi_mutex_get(MRAPI_IN mrapi_mutex_id_t mutex_id, MRAPI_OUT mrapi_status_t *status);

/**
 * @brief Deletes an unlocked mutex; nodes waiting on it return with
 * MRAPI_ERR_MUTEX_DELETED (ERROR_EXT) or MRAPI_ERR_MUTEX_INVALID.
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_NODE_NOTINIT
 * @retval MRAPI_ERR_MUTEX_INVALID not a live mutex handle (also a second delete)
 * @retval MRAPI_ERR_MUTEX_LOCKED it is locked (by anyone)
 */
void mrapi_mutex_delete(MRAPI_IN mrapi_mutex_hndl_t mutex, MRAPI_OUT mrapi_status_t *status);

/**
 * @brief Locks @p mutex, waiting up to @p timeout ms.
 * @param mutex the mutex
 * @param timeout how long to wait (MRAPI_TIMEOUT_INFINITE: no limit)
 * @param status receives the outcome (below)
 * @param lock_key receives the key to unlock this level with (0 for the first
 *        lock of a recursive mutex, 1 for the second, ...)
 * @retval MRAPI_SUCCESS locked
 * @retval MRAPI_ERR_MUTEX_OWNER_DIED locked; the previous holder died holding it
 * @retval MRAPI_TIMEOUT still held by another node when the timeout expired
 *         (at once for MRAPI_TIMEOUT_IMMEDIATE)
 * @retval MRAPI_ERR_MUTEX_LOCKED the caller holds it and it is not recursive
 * @retval MRAPI_ERR_PARAMETER @p lock_key is NULL
 * @retval MRAPI_ERR_NODE_NOTINIT
 * @retval MRAPI_ERR_MUTEX_INVALID not a live mutex handle
 * @retval MRAPI_ERR_MUTEX_DELETED deleted before or while waiting (ERROR_EXT)
 */
void mrapi_mutex_lock(MRAPI_IN mrapi_mutex_hndl_t mutex, MRAPI_OUT mrapi_key_t *lock_key,
                      MRAPI_IN mrapi_timeout_t timeout, MRAPI_OUT mrapi_status_t *status);

/**
 * @brief Locks @p mutex if that needs no waiting.
 * @return MRAPI_TRUE when locked (status MRAPI_SUCCESS or MRAPI_ERR_MUTEX_OWNER_DIED)
 * @retval MRAPI_SUCCESS locked
 * @retval MRAPI_ERR_MUTEX_OWNER_DIED locked; the previous holder had died
 * @retval MRAPI_ERR_MUTEX_LOCKED held by another node, or by the caller and not recursive
 * @retval MRAPI_ERR_PARAMETER @p lock_key is NULL
 * @retval MRAPI_ERR_NODE_NOTINIT
 * @retval MRAPI_ERR_MUTEX_INVALID not a live mutex handle
 * @retval MRAPI_ERR_MUTEX_DELETED deleted (ERROR_EXT)
 */
mrapi_boolean_t mrapi_mutex_trylock(MRAPI_IN mrapi_mutex_hndl_t mutex, MRAPI_OUT mrapi_key_t *lock_key,
                                    MRAPI_OUT mrapi_status_t *status);

/**
 * @brief Unlocks the level of @p mutex that @p lock_key names; levels of a
 * recursive mutex are unlocked in the reverse order of locking.
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_MUTEX_NOTLOCKED not locked by the calling node (free, or
 *         held by another node)
 * @retval MRAPI_ERR_MUTEX_KEY @p lock_key names no level the caller holds
 * @retval MRAPI_ERR_MUTEX_LOCKORDER @p lock_key names an outer level while
 *         inner ones are still held
 * @retval MRAPI_ERR_PARAMETER @p lock_key is NULL
 * @retval MRAPI_ERR_NODE_NOTINIT
 * @retval MRAPI_ERR_MUTEX_INVALID not a live mutex handle
 * @retval MRAPI_ERR_MUTEX_DELETED deleted (ERROR_EXT)
 */
void mrapi_mutex_unlock(MRAPI_IN mrapi_mutex_hndl_t mutex, MRAPI_IN mrapi_key_t *lock_key,
                        MRAPI_OUT mrapi_status_t *status);

/* ============================================================= semaphores */

/**
 * @brief Sets @p attributes to the defaults.
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_PARAMETER @p attributes is NULL
 */
void mrapi_sem_init_attributes(MRAPI_OUT mrapi_sem_attributes_t *attributes, MRAPI_OUT mrapi_status_t *status);

/**
 * @brief Sets MRAPI_ERROR_EXT or MRAPI_DOMAIN_SHARED (mrapi_boolean_t).
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_PARAMETER NULL argument
 * @retval MRAPI_ERR_ATTR_NUM unknown attribute for a semaphore
 * @retval MRAPI_ERR_ATTR_SIZE wrong size
 */
void mrapi_sem_set_attribute(MRAPI_OUT mrapi_sem_attributes_t *attributes, MRAPI_IN mrapi_uint_t attribute_num,
                             MRAPI_IN void *attribute, MRAPI_IN size_t attr_size,
                             MRAPI_OUT mrapi_status_t *status);

/**
 * @brief Reads one attribute of an existing semaphore.
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_NODE_NOTINIT
 * @retval MRAPI_ERR_SEM_INVALID not a live semaphore handle
 * @retval MRAPI_ERR_SEM_DELETED deleted (ERROR_EXT)
 * @retval MRAPI_ERR_PARAMETER @p attribute is NULL
 * @retval MRAPI_ERR_ATTR_NUM unknown attribute
 * @retval MRAPI_ERR_ATTR_SIZE wrong size
 */
void mrapi_sem_get_attribute(MRAPI_IN mrapi_sem_hndl_t sem, MRAPI_IN mrapi_uint_t attribute_num,
                             MRAPI_OUT void *attribute, MRAPI_IN size_t attribute_size,
                             MRAPI_OUT mrapi_status_t *status);

/**
 * @brief Creates a counting semaphore with @p shared_lock_limit units, all free.
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_NODE_NOTINIT
 * @retval MRAPI_ERR_PARAMETER @p shared_lock_limit is 0 or above 0xfffffffe
 * @retval MRAPI_ERR_SEM_EXISTS a semaphore with that id exists
 * @retval MRAPI_ERR_SEM_LIMIT MRAPI_MAX_SEMS exist
 */
mrapi_sem_hndl_t mrapi_sem_create(MRAPI_IN mrapi_sem_id_t sem_id, MRAPI_IN mrapi_sem_attributes_t *attributes,
                                  MRAPI_IN mrapi_uint_t shared_lock_limit, MRAPI_OUT mrapi_status_t *status);

/**
 * @brief Finds semaphore @p sem_id.
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_NODE_NOTINIT
 * @retval MRAPI_ERR_SEM_ID_INVALID no such semaphore
 */
mrapi_sem_hndl_t mrapi_sem_get(MRAPI_IN mrapi_sem_id_t sem_id, MRAPI_OUT mrapi_status_t *status);

/**
 * @brief Deletes a semaphore none of whose units is taken.
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_NODE_NOTINIT
 * @retval MRAPI_ERR_SEM_INVALID not a live semaphore handle (also a second delete)
 * @retval MRAPI_ERR_SEM_LOCKED some unit is taken
 */
void mrapi_sem_delete(MRAPI_IN mrapi_sem_hndl_t sem, MRAPI_OUT mrapi_status_t *status);

/**
 * @brief Takes one unit, waiting up to @p timeout ms.
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_TIMEOUT no unit freed up in time
 * @retval MRAPI_ERR_NODE_NOTINIT
 * @retval MRAPI_ERR_SEM_INVALID not a live semaphore handle
 * @retval MRAPI_ERR_SEM_DELETED deleted before or while waiting (ERROR_EXT)
 */
void mrapi_sem_lock(MRAPI_IN mrapi_sem_hndl_t sem, MRAPI_IN mrapi_timeout_t timeout,
                    MRAPI_OUT mrapi_status_t *status);

/**
 * @brief Takes one unit if one is free.
 * @return MRAPI_TRUE when taken
 * @retval MRAPI_SUCCESS taken
 * @retval MRAPI_ERR_SEM_LOCKED no unit free
 * @retval MRAPI_ERR_NODE_NOTINIT
 * @retval MRAPI_ERR_SEM_INVALID not a live semaphore handle
 * @retval MRAPI_ERR_SEM_DELETED deleted (ERROR_EXT)
 */
mrapi_boolean_t mrapi_sem_trylock(MRAPI_IN mrapi_sem_hndl_t sem, MRAPI_OUT mrapi_status_t *status);

/**
 * @brief Returns one unit (any node may; semaphores have no owner).
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_SEM_NOTLOCKED every unit is free already
 * @retval MRAPI_ERR_NODE_NOTINIT
 * @retval MRAPI_ERR_SEM_INVALID not a live semaphore handle
 * @retval MRAPI_ERR_SEM_DELETED deleted (ERROR_EXT)
 */
void mrapi_sem_unlock(MRAPI_IN mrapi_sem_hndl_t sem, MRAPI_OUT mrapi_status_t *status);

/* ============================================================ rw locks */

/**
 * @brief Sets @p attributes to the defaults.
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_PARAMETER @p attributes is NULL
 */
void mrapi_rwl_init_attributes(MRAPI_OUT mrapi_rwl_attributes_t *attributes, MRAPI_OUT mrapi_status_t *status);

/**
 * @brief Sets MRAPI_ERROR_EXT or MRAPI_DOMAIN_SHARED (mrapi_boolean_t).
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_PARAMETER NULL argument
 * @retval MRAPI_ERR_ATTR_NUM unknown attribute for a reader/writer lock
 * @retval MRAPI_ERR_ATTR_SIZE wrong size
 */
void mrapi_rwl_set_attribute(MRAPI_OUT mrapi_rwl_attributes_t *attributes, MRAPI_IN mrapi_uint_t attribute_num,
                             MRAPI_IN void *attribute, MRAPI_IN size_t attr_size,
                             MRAPI_OUT mrapi_status_t *status);

/**
 * @brief Reads one attribute of an existing reader/writer lock.
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_NODE_NOTINIT
 * @retval MRAPI_ERR_RWL_INVALID not a live handle
 * @retval MRAPI_ERR_RWL_DELETED deleted (ERROR_EXT)
 * @retval MRAPI_ERR_PARAMETER @p attribute is NULL
 * @retval MRAPI_ERR_ATTR_NUM unknown attribute
 * @retval MRAPI_ERR_ATTR_SIZE wrong size
 */
void mrapi_rwl_get_attribute(MRAPI_IN mrapi_rwl_hndl_t rwl, MRAPI_IN mrapi_uint_t attribute_num,
                             MRAPI_OUT void *attribute, MRAPI_IN size_t attribute_size,
                             MRAPI_OUT mrapi_status_t *status);

/**
 * @brief Creates a reader/writer lock admitting @p reader_lock_limit readers
 * at once (0: MRAPI_MAX_READERS). Waiting writers hold new readers back.
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_NODE_NOTINIT
 * @retval MRAPI_ERR_PARAMETER @p reader_lock_limit above MRAPI_MAX_READERS
 * @retval MRAPI_ERR_RWL_EXISTS a lock with that id exists
 * @retval MRAPI_ERR_RWL_LIMIT MRAPI_MAX_RWLS exist
 */
mrapi_rwl_hndl_t mrapi_rwl_create(MRAPI_IN mrapi_rwl_id_t rwl_id, MRAPI_IN mrapi_rwl_attributes_t *attributes,
                                  MRAPI_IN mrapi_uint_t reader_lock_limit, MRAPI_OUT mrapi_status_t *status);

/**
 * @brief Finds reader/writer lock @p rwl_id.
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_NODE_NOTINIT
 * @retval MRAPI_ERR_RWL_ID_INVALID no such lock
 */
mrapi_rwl_hndl_t mrapi_rwl_get(MRAPI_IN mrapi_rwl_id_t rwl_id, MRAPI_OUT mrapi_status_t *status);

/**
 * @brief Deletes an unlocked reader/writer lock.
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_NODE_NOTINIT
 * @retval MRAPI_ERR_RWL_INVALID not a live handle (also a second delete)
 * @retval MRAPI_ERR_RWL_LOCKED held by a reader or the writer
 */
void mrapi_rwl_delete(MRAPI_IN mrapi_rwl_hndl_t rwl, MRAPI_OUT mrapi_status_t *status);

/**
 * @brief Locks shared (MRAPI_RWL_READER) or exclusive (MRAPI_RWL_WRITER),
 * waiting up to @p timeout ms.
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_TIMEOUT not available in time
 * @retval MRAPI_ERR_RWL_LOCKED the caller holds it as writer already
 * @retval MRAPI_ERR_PARAMETER @p mode is neither mode
 * @retval MRAPI_ERR_NODE_NOTINIT
 * @retval MRAPI_ERR_RWL_INVALID not a live handle
 * @retval MRAPI_ERR_RWL_DELETED deleted before or while waiting (ERROR_EXT)
 */
void mrapi_rwl_lock(MRAPI_IN mrapi_rwl_hndl_t rwl, MRAPI_IN mrapi_rwl_mode_t mode,
                    MRAPI_IN mrapi_timeout_t timeout, MRAPI_OUT mrapi_status_t *status);

/**
 * @brief Locks in @p mode if that needs no waiting.
 * @return MRAPI_TRUE when locked
 * @retval MRAPI_SUCCESS locked
 * @retval MRAPI_ERR_RWL_LOCKED not available now
 * @retval MRAPI_ERR_PARAMETER bad @p mode
 * @retval MRAPI_ERR_NODE_NOTINIT
 * @retval MRAPI_ERR_RWL_INVALID not a live handle
 * @retval MRAPI_ERR_RWL_DELETED deleted (ERROR_EXT)
 */
mrapi_boolean_t mrapi_rwl_trylock(MRAPI_IN mrapi_rwl_hndl_t rwl, MRAPI_IN mrapi_rwl_mode_t mode,
                                  MRAPI_OUT mrapi_status_t *status);

/**
 * @brief Releases a lock taken in @p mode.
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_RWL_NOTLOCKED not locked in that mode (a writer unlock by
 *         a node that is not the writer included)
 * @retval MRAPI_ERR_PARAMETER bad @p mode
 * @retval MRAPI_ERR_NODE_NOTINIT
 * @retval MRAPI_ERR_RWL_INVALID not a live handle
 * @retval MRAPI_ERR_RWL_DELETED deleted (ERROR_EXT)
 */
void mrapi_rwl_unlock(MRAPI_IN mrapi_rwl_hndl_t rwl, MRAPI_IN mrapi_rwl_mode_t mode,
                      MRAPI_OUT mrapi_status_t *status);

/* ========================================================= shared memory */

/**
 * @brief Sets @p attributes to the defaults.
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_PARAMETER @p attributes is NULL
 */
void mrapi_shmem_init_attributes(MRAPI_OUT mrapi_shmem_attributes_t *attributes,
                                 MRAPI_OUT mrapi_status_t *status);

/**
 * @brief Sets MRAPI_ERROR_EXT or MRAPI_DOMAIN_SHARED (mrapi_boolean_t).
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_PARAMETER NULL argument
 * @retval MRAPI_ERR_ATTR_NUM unknown attribute for shared memory
 * @retval MRAPI_ERR_ATTR_READONLY MRAPI_SHMEM_SIZE (it is the create argument)
 * @retval MRAPI_ERR_ATTR_SIZE wrong size
 */
void mrapi_shmem_set_attribute(MRAPI_OUT mrapi_shmem_attributes_t *attributes,
                               MRAPI_IN mrapi_uint_t attribute_num, MRAPI_IN void *attribute,
                               MRAPI_IN size_t attr_size, MRAPI_OUT mrapi_status_t *status);

/**
 * @brief Reads MRAPI_SHMEM_SIZE (mrapi_uint_t), MRAPI_ERROR_EXT or MRAPI_DOMAIN_SHARED.
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_NODE_NOTINIT
 * @retval MRAPI_ERR_SHM_INVALID not a live handle
 * @retval MRAPI_ERR_PARAMETER @p attribute is NULL
 * @retval MRAPI_ERR_ATTR_NUM unknown or unsupported attribute
 * @retval MRAPI_ERR_ATTR_SIZE wrong size
 */
void mrapi_shmem_get_attribute(MRAPI_IN mrapi_shmem_hndl_t shmem, MRAPI_IN mrapi_uint_t attribute_num,
                               MRAPI_OUT void *attribute, MRAPI_IN size_t attribute_size,
                               MRAPI_OUT mrapi_status_t *status);

/**
 * @brief Creates a zero-filled shared-memory segment of @p size bytes (a POSIX
 * shared-memory object, mode 0600) that every node of the domain may attach.
 * @param shmem_id the segment's id in the domain
 * @param size its size in bytes
 * @param status receives the outcome (below)
 * @param nodes, nodes_size the nodes meant to share it: recorded nowhere, any
 *        node of the domain may attach (NULL/0 accepted)
 * @param attributes, attr_size NULL/0 for the defaults
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_NODE_NOTINIT
 * @retval MRAPI_ERR_PARAMETER @p size is 0
 * @retval MRAPI_ERR_MEM_LIMIT @p size above MRAPI_MAX_SHMEM_SIZE, or the OS refused
 * @retval MRAPI_ERR_SHM_EXISTS a segment with that id exists
 */
mrapi_shmem_hndl_t mrapi_shmem_create(MRAPI_IN mrapi_shmem_id_t shmem_id, MRAPI_IN mrapi_uint_t size,
                                      MRAPI_IN mrapi_node_t *nodes, MRAPI_IN mrapi_uint_t nodes_size,
                                      MRAPI_IN mrapi_shmem_attributes_t *attributes,
                                      MRAPI_IN mrapi_uint_t attr_size, MRAPI_OUT mrapi_status_t *status);

/**
 * @brief Finds segment @p shmem_id.
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_NODE_NOTINIT
 * @retval MRAPI_ERR_SHM_ID_INVALID no such segment
 */
mrapi_shmem_hndl_t mrapi_shmem_get(MRAPI_IN mrapi_shmem_id_t shmem_id, MRAPI_OUT mrapi_status_t *status);

/**
 * @brief Maps the segment into the caller's process and returns its address
 * there (nodes of one process share one mapping).
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_NODE_NOTINIT
 * @retval MRAPI_ERR_SHM_INVALID not a live handle
 * @retval MRAPI_ERR_SHM_ATTACHED the calling node is attached already
 * @retval MRAPI_ERR_MEM_LIMIT the mapping failed
 */
void *mrapi_shmem_attach(MRAPI_IN mrapi_shmem_hndl_t shmem, MRAPI_OUT mrapi_status_t *status);

/**
 * @brief Detaches the calling node; the process unmaps it with its last node.
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_NODE_NOTINIT
 * @retval MRAPI_ERR_SHM_INVALID not a live handle
 * @retval MRAPI_ERR_SHM_NOTATTACHED the calling node is not attached
 */
void mrapi_shmem_detach(MRAPI_IN mrapi_shmem_hndl_t shmem, MRAPI_OUT mrapi_status_t *status);

/**
 * @brief Deletes a segment no node is attached to.
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_NODE_NOTINIT
 * @retval MRAPI_ERR_SHM_INVALID not a live handle (also a second delete)
 * @retval MRAPI_ERR_SHM_ATTCH some node is still attached
 */
void mrapi_shmem_delete(MRAPI_IN mrapi_shmem_hndl_t shmem, MRAPI_OUT mrapi_status_t *status);

/* ==================================================== atomic extensions
 *
 * The reference implementation's (mca-2.0.3) extensions for lock-free code,
 * with its names and signatures: mrapi_atomic_*. They operate on naturally
 * aligned integers of @p size 1, 2, 4 or 8 bytes anywhere in the caller's
 * memory - a shared-memory segment, a partition, or process memory - and are
 * atomic across threads and processes (lock-free hardware atomics; a segment
 * mapped at different addresses in two processes is still one location).
 *
 * Memory order: every read-modify-write (add, inc, dec, or, and, xor, cas,
 * xchg, set, clear, change, lock) is sequentially consistent (a full barrier,
 * like the reference's __sync builtins). mrapi_atomic_read is an acquire load,
 * mrapi_atomic_release is a release store of zero, mrapi_atomic_sync is a
 * sequentially consistent fence. @p sync (a mrapi_atomic_barrier_t * in the
 * reference) is accepted and ignored; pass NULL.
 *
 * Common statuses, for every function below:
 * @retval MRAPI_SUCCESS done
 * @retval MRAPI_ERR_NODE_NOTINIT the caller is not a node
 * @retval MRAPI_ERR_ATOM_INVALID_ARG @p dest NULL or misaligned, or @p size
 *         not 1, 2, 4 or 8 (a required value pointer NULL, a bit out of range)
 */

/** @brief *value = *dest (acquire). */
void mrapi_atomic_read(MRAPI_OUT void *sync, MRAPI_IN void *dest, MRAPI_OUT void *value, MRAPI_IN size_t size,
                       MRAPI_OUT mrapi_status_t *status);
/** @brief *value = *dest for a pointer-sized word (acquire). */
void mrapi_atomic_read_ptr(MRAPI_OUT void *sync, MRAPI_IN uintptr_t *dest, MRAPI_OUT uintptr_t *value,
                           MRAPI_OUT mrapi_status_t *status);
/** @brief *dest += *value; *previous (may be NULL) = the old value. */
void mrapi_atomic_add(MRAPI_OUT void *sync, MRAPI_IN void *dest, MRAPI_IN void *value, MRAPI_OUT void *previous,
                      MRAPI_IN size_t size, MRAPI_OUT mrapi_status_t *status);
/** @brief *dest += 1; *result (may be NULL) = the new value. */
void mrapi_atomic_inc(MRAPI_OUT void *sync, MRAPI_IN void *dest, MRAPI_OUT void *result, MRAPI_IN size_t size,
                      MRAPI_OUT mrapi_status_t *status);
/** @brief *dest -= 1; *result (may be NULL) = the new value. */
void mrapi_atomic_dec(MRAPI_OUT void *sync, MRAPI_IN void *dest, MRAPI_OUT void *result, MRAPI_IN size_t size,
                      MRAPI_OUT mrapi_status_t *status);
/** @brief *dest |= *value; *previous (may be NULL) = the old value. */
void mrapi_atomic_or(MRAPI_OUT void *sync, MRAPI_IN void *dest, MRAPI_IN void *value, MRAPI_OUT void *previous,
                     MRAPI_IN size_t size, MRAPI_OUT mrapi_status_t *status);
/** @brief *dest &= *value; *previous (may be NULL) = the old value. */
void mrapi_atomic_and(MRAPI_OUT void *sync, MRAPI_IN void *dest, MRAPI_IN void *value, MRAPI_OUT void *previous,
                      MRAPI_IN size_t size, MRAPI_OUT mrapi_status_t *status);
/** @brief *dest ^= *value; *previous (may be NULL) = the old value. */
void mrapi_atomic_xor(MRAPI_OUT void *sync, MRAPI_IN void *dest, MRAPI_IN void *value, MRAPI_OUT void *previous,
                      MRAPI_IN size_t size, MRAPI_OUT mrapi_status_t *status);
/**
 * @brief If *dest == *compare then *dest = *exchange; *previous (may be NULL)
 * = the value seen. Compare *previous with *compare to learn whether it swapped.
 * @retval MRAPI_ERR_ATOM_OP_FAILED also: no swap happened (*dest != *compare)
 */
void mrapi_atomic_cas(MRAPI_OUT void *sync, MRAPI_IN void *dest, MRAPI_IN void *exchange, MRAPI_IN void *compare,
                      MRAPI_OUT void *previous, MRAPI_IN size_t size, MRAPI_OUT mrapi_status_t *status);
/** @brief *previous (may be NULL) = *dest; *dest = *exchange. */
void mrapi_atomic_xchg(MRAPI_OUT void *sync, MRAPI_IN void *dest, MRAPI_IN void *exchange, MRAPI_OUT void *previous,
                       MRAPI_IN size_t size, MRAPI_OUT mrapi_status_t *status);
/** @brief Pointer-sized CAS. @retval MRAPI_ERR_ATOM_OP_FAILED also: no swap happened */
void mrapi_atomic_cas_ptr(MRAPI_OUT void *sync, MRAPI_IN uintptr_t *dest, MRAPI_IN uintptr_t exchange,
                          MRAPI_IN uintptr_t compare, MRAPI_OUT uintptr_t *previous, MRAPI_OUT mrapi_status_t *status);
/** @brief Pointer-sized exchange. */
void mrapi_atomic_xchg_ptr(MRAPI_OUT void *sync, MRAPI_IN uintptr_t *dest, MRAPI_IN uintptr_t exchange,
                           MRAPI_OUT uintptr_t *previous, MRAPI_OUT mrapi_status_t *status);
/** @brief Full (sequentially consistent) memory fence. Only NODE_NOTINIT can fail. */
void mrapi_atomic_sync(MRAPI_OUT void *sync, MRAPI_OUT mrapi_status_t *status);
/**
 * @brief Spin lock: waits until *dest is 0 and sets it to 1 (acquire); *previous
 * (may be NULL) = 0. Spins with a pause and yields; never sleeps in the kernel.
 */
void mrapi_atomic_lock(MRAPI_OUT void *sync, MRAPI_IN void *dest, MRAPI_OUT void *previous, MRAPI_IN size_t size,
                       MRAPI_OUT mrapi_status_t *status);
/** @brief Releases mrapi_atomic_lock(): *dest = 0 (release; pairs with its acquire). */
void mrapi_atomic_release(MRAPI_OUT void *sync, MRAPI_IN void *dest, MRAPI_IN size_t size,
                          MRAPI_OUT mrapi_status_t *status);
/** @brief Sets bit @p bit of *dest; *previous (may be NULL) = its old value (0/1). */
void mrapi_atomic_set(MRAPI_OUT void *sync, MRAPI_IN void *dest, MRAPI_IN int bit, MRAPI_OUT int *previous,
                      MRAPI_IN size_t size, MRAPI_OUT mrapi_status_t *status);
/** @brief Clears bit @p bit of *dest; *previous (may be NULL) = its old value. */
void mrapi_atomic_clear(MRAPI_OUT void *sync, MRAPI_IN void *dest, MRAPI_IN int bit, MRAPI_OUT int *previous,
                        MRAPI_IN size_t size, MRAPI_OUT mrapi_status_t *status);
/** @brief Flips bit @p bit of *dest; *previous (may be NULL) = its old value. */
void mrapi_atomic_change(MRAPI_OUT void *sync, MRAPI_IN void *dest, MRAPI_IN int bit, MRAPI_OUT int *previous,
                         MRAPI_IN size_t size, MRAPI_OUT mrapi_status_t *status);

#ifdef __cplusplus
}
#endif

#endif /* MRAPI_H */
