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
 * Robust locks: when the holder of a mutex dies (its thread or process
 * ends), the next node to lock it gets the lock and the status
 * MRAPI_ERR_MUTEX_OWNER_DIED (a libmca extension); semaphore units and rwlock
 * holds of a dead node are given back with MRAPI_ERR_SEM_OWNER_DIED /
 * MRAPI_ERR_RWL_OWNER_DIED; see docs/mrapi.md.
 *
 * Profiles: the node creating a domain's partition reads MCX_COMPAT
 * ("spec", default, or "mca-2.0.3"); it decides the delete rules of the
 * domain. Partitions are named per MCX_NAMESPACE.
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

/** Access type of remote memory (see docs/mrapi.md, "Remote memory"). */
typedef enum {
  MRAPI_RMEM_DMA,     /**< copies by the process's software DMA engine; _i calls complete later */
  MRAPI_RMEM_SWCACHE, /**< not supported: create/get/attach give MRAPI_ERR_RMEM_ATYPE_NOTVALID */
  MRAPI_RMEM_DUMMY    /**< copies done by the calling thread; _i calls complete at once */
} mrapi_rmem_atype_t;

/** Subsystem filter of mrapi_resources_get(). */
typedef enum {
  MRAPI_RSRC_MEM,
  MRAPI_RSRC_CPU,
  MRAPI_RSRC_CACHE,
  MRAPI_RSRC_DMA,
  MRAPI_RSRC_CROSSBAR,
} mrapi_rsrc_filter_t;

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

#define MRAPI_NODE_INVALID 0xffffffffu
#define MRAPI_DOMAIN_INVALID 0xffffffffu
#define MRAPI_RETURN_VALUE_INVALID 0xffffffffu

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
  MRAPI_ERR_MUTEX_OWNER_DIED,
  /** libmca extension: the unit was taken; a node that held units of this
   *  semaphore died and they were given back (one report per recovery). */
  MRAPI_ERR_SEM_OWNER_DIED,
  /** libmca extension: the lock was taken; a node that held it (reader or
   *  writer) died and its hold was released (one report per recovery). */
  MRAPI_ERR_RWL_OWNER_DIED
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
#ifndef MCX_BUILDING_LIBMCA
/** The reference implementation's name of the attribute-number type (a
 * parameter named `attributes` shadows it; the library itself does not
 * declare it). */
typedef mrapi_attributes_t attributes;
#endif

/** Attribute numbers of a memory resource (mrapi_resource_get_attribute). */
typedef enum {
  MRAPI_RSRC_MEM_BASEADDR, /**< uint64_t: lowest physical address of the memory (its first memory block) */
  MRAPI_RSRC_MEM_NUMWORDS, /**< uint64_t: size in words */
  MRAPI_RSRC_MEM_WORDSIZE, /**< uint32_t: bytes per word (the pointer size) */
  MRAPI_RSRC_MEM_PAGE_FAULTS, /**< dynamic (libmca): page faults of the starting thread */
} mrapi_rsrc_mem_attrs;

/** Attribute numbers of a cache resource. */
typedef enum {
  MRAPI_RSRC_CACHE_SIZE,          /**< uint64_t: bytes */
  MRAPI_RSRC_CACHE_LINE_SIZE,     /**< uint32_t: bytes */
  MRAPI_RSRC_CACHE_ASSOCIATIVITY, /**< uint32_t: ways (0 = fully associative / unknown) */
  MRAPI_RSRC_CACHE_LEVEL,         /**< uint32_t: 1, 2, 3 ... */
  MRAPI_RSRC_CACHE_MISSES,        /**< dynamic (libmca): misses of the starting thread (L1 data, last level) */
  MRAPI_RSRC_CACHE_COHERENCE,     /**< dynamic (libmca): cross-core coherence events (HITM/forwards) */
} mrapi_rsrc_cache_attrs;

/** Attribute numbers of a processor (CPU) resource. */
typedef enum {
  MRAPI_RSRC_CPU_FREQUENCY, /**< uint32_t: MHz (maximum), not supported when unknown */
  MRAPI_RSRC_CPU_TYPE,      /**< char[64]: model name */
  MRAPI_RSRC_CPU_ID,        /**< uint32_t: the OS's processor number */
  MRAPI_RSRC_CPU_CONTEXT_SWITCHES, /**< dynamic (libmca): context switches of the starting thread */
  MRAPI_RSRC_CPU_MIGRATIONS,       /**< dynamic (libmca): moves of the starting thread between processors */
  MRAPI_RSRC_CPU_CYCLES,           /**< dynamic (libmca): cycles of the starting thread */
} mrapi_rsrc_cpu_attrs;

/* ================================================================ general */

/**
 * @brief Returns the name of @p status ("MRAPI_ERR_MUTEX_LOCKED").
 * @return @p status_message, or NULL when it is NULL or @p size is too small
 */
char *mrapi_display_status(mrapi_status_t status, char *status_message, size_t size);

/**
 * @brief Sets the diagnostic level (the reference implementation's call):
 * 0 (default) prints nothing; at 1 and above libmca prints a line on stderr
 * for each recovery it performs (dead holders, crashed runs). Any thread may
 * call it at any time, also before mrapi_initialize(). MT-safe.
 */
void mrapi_set_debug_level(int d);

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
 * @brief Deletes a mutex; nodes waiting on it return with
 * MRAPI_ERR_MUTEX_DELETED (ERROR_EXT) or MRAPI_ERR_MUTEX_INVALID. Profile
 * spec: it must be unlocked; mca-2.0.3: the caller must hold it.
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_NODE_NOTINIT
 * @retval MRAPI_ERR_MUTEX_INVALID not a live mutex handle (a second delete without ERROR_EXT)
 * @retval MRAPI_ERR_MUTEX_DELETED a second delete (ERROR_EXT)
 * @retval MRAPI_ERR_MUTEX_LOCKED spec: it is locked (by anyone); mca-2.0.3: the caller does not hold it
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
 * @retval MRAPI_ERR_SEM_LOCKLIMIT @p shared_lock_limit is 0 or above MRAPI_MAX_SHARED_LOCKS
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
 * @brief Deletes a semaphore. Profile spec: none of its units may be taken;
 * mca-2.0.3: the caller must hold a unit (other holders then see it deleted).
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_NODE_NOTINIT
 * @retval MRAPI_ERR_SEM_INVALID not a live semaphore handle (a second delete without ERROR_EXT)
 * @retval MRAPI_ERR_SEM_DELETED a second delete (ERROR_EXT)
 * @retval MRAPI_ERR_SEM_LOCKED spec: some unit is taken; mca-2.0.3: the caller holds none
 */
void mrapi_sem_delete(MRAPI_IN mrapi_sem_hndl_t sem, MRAPI_OUT mrapi_status_t *status);

/**
 * @brief Takes one unit, waiting up to @p timeout ms. Units held by a node
 * that died are given back while waiting.
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_SEM_OWNER_DIED taken; a holder died and its units were
 *         given back (reported to one locker per recovery)
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
 * @retval MRAPI_ERR_SEM_OWNER_DIED taken, after giving back a dead holder's units
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
 * @brief Deletes a reader/writer lock. Profile spec: no reader or writer may
 * hold it; mca-2.0.3: the caller must hold it (as reader or writer).
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_NODE_NOTINIT
 * @retval MRAPI_ERR_RWL_INVALID not a live handle (a second delete without ERROR_EXT)
 * @retval MRAPI_ERR_RWL_DELETED a second delete (ERROR_EXT)
 * @retval MRAPI_ERR_RWL_LOCKED spec: held; mca-2.0.3: not held by the caller
 */
void mrapi_rwl_delete(MRAPI_IN mrapi_rwl_hndl_t rwl, MRAPI_OUT mrapi_status_t *status);

/**
 * @brief Locks shared (MRAPI_RWL_READER) or exclusive (MRAPI_RWL_WRITER),
 * waiting up to @p timeout ms. Holds of a node that died are released while waiting.
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_RWL_OWNER_DIED locked; a holder died and its hold was released
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
 * @retval MRAPI_ERR_RWL_OWNER_DIED locked, after releasing a dead holder's hold
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

/* ========================================================= remote memory
 *
 * Remote memory is a buffer of one node (the creator's @p mem) that other
 * nodes of the domain - threads of the same process or other processes -
 * read and write only through these calls. Offsets and sizes are bytes; a
 * transfer is @p num_strides blocks of @p bytes_per_access bytes, block k at
 * rmem_offset + k * rmem_stride in the remote buffer and at local_offset +
 * k * local_stride in the local one (a scatter/gather). A stride smaller
 * than bytes_per_access (when num_strides > 1 or always, as the reference
 * checks) is MRAPI_ERR_RMEM_STRIDE; a transfer past the end of the remote
 * buffer MRAPI_ERR_RMEM_BUFF_OVERRUN.
 *
 * Access types: MRAPI_RMEM_DUMMY copies in the calling thread (an _i call is
 * complete when it returns); MRAPI_RMEM_DMA hands the copy to the process's
 * software DMA engine (a thread started on first use) and an _i call returns
 * at once with a request to test, wait for or cancel. Across processes the
 * copy goes through the kernel (process_vm_readv/writev on Linux); the
 * creator's process must be alive. Concurrent writes to the same bytes are
 * not ordered; use a mutex for that.
 */

/**
 * @brief Sets @p attributes to the defaults.
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_PARAMETER @p attributes is NULL
 */
void mrapi_rmem_init_attributes(MRAPI_OUT mrapi_rmem_attributes_t *attributes, MRAPI_OUT mrapi_status_t *status);

/**
 * @brief Sets MRAPI_ERROR_EXT or MRAPI_DOMAIN_SHARED (mrapi_boolean_t).
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_PARAMETER NULL argument
 * @retval MRAPI_ERR_ATTR_NUM unknown attribute for remote memory
 * @retval MRAPI_ERR_ATTR_SIZE wrong size
 */
void mrapi_rmem_set_attribute(MRAPI_OUT mrapi_rmem_attributes_t *attributes, MRAPI_IN mrapi_uint_t attribute_num,
                              MRAPI_IN void *attribute, MRAPI_IN size_t attr_size,
                              MRAPI_OUT mrapi_status_t *status);

/**
 * @brief Reads MRAPI_ERROR_EXT, MRAPI_DOMAIN_SHARED (mrapi_boolean_t) or
 * MRAPI_SHMEM_SIZE (mrapi_uint_t: the buffer's size) of remote memory.
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_NODE_NOTINIT
 * @retval MRAPI_ERR_RMEM_INVALID not a live handle
 * @retval MRAPI_ERR_PARAMETER @p attribute is NULL
 * @retval MRAPI_ERR_ATTR_NUM unknown attribute
 * @retval MRAPI_ERR_ATTR_SIZE wrong size
 */
void mrapi_rmem_get_attribute(MRAPI_IN mrapi_rmem_hndl_t rmem, MRAPI_IN mrapi_uint_t attribute_num,
                              MRAPI_OUT void *attribute, MRAPI_IN size_t attribute_size,
                              MRAPI_OUT mrapi_status_t *status);

/**
 * @brief Offers @p size bytes at @p mem (the caller's memory, which must stay
 * valid until the object is deleted) as remote memory @p rmem_id.
 * @pre @p mem stays valid and is not freed before mrapi_rmem_delete()
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_NODE_NOTINIT
 * @retval MRAPI_ERR_PARAMETER @p mem is NULL or @p size is 0
 * @retval MRAPI_ERR_RMEM_TYPENOTVALID @p access_type is no access type
 * @retval MRAPI_ERR_RMEM_ATYPE_NOTVALID MRAPI_RMEM_SWCACHE (not supported)
 * @retval MRAPI_ERR_RMEM_EXISTS an object with that id exists
 * @retval MRAPI_ERR_MEM_LIMIT MRAPI_MAX_RMEMS exist
 */
mrapi_rmem_hndl_t mrapi_rmem_create(MRAPI_IN mrapi_rmem_id_t rmem_id, MRAPI_IN void *mem,
                                    MRAPI_IN mrapi_rmem_atype_t access_type,
                                    MRAPI_IN mrapi_rmem_attributes_t *attributes, MRAPI_IN mrapi_uint_t size,
                                    MRAPI_OUT mrapi_status_t *status);

/**
 * @brief Finds remote memory @p rmem_id.
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_NODE_NOTINIT
 * @retval MRAPI_ERR_RMEM_TYPENOTVALID @p access_type is no access type
 * @retval MRAPI_ERR_RMEM_ID_INVALID no such object
 * @retval MRAPI_ERR_RMEM_ATYPE it was created with another access type
 */
mrapi_rmem_hndl_t mrapi_rmem_get(MRAPI_IN mrapi_rmem_id_t rmem_id, MRAPI_IN mrapi_rmem_atype_t access_type,
                                 MRAPI_OUT mrapi_status_t *status);

/**
 * @brief Attaches the calling node (needed before reading or writing).
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_NODE_NOTINIT
 * @retval MRAPI_ERR_RMEM_INVALID not a live handle
 * @retval MRAPI_ERR_RMEM_TYPENOTVALID @p access_type is no access type
 * @retval MRAPI_ERR_RMEM_ATYPE not the object's access type
 * @retval MRAPI_ERR_RMEM_ATTACHED the node is attached already
 */
void mrapi_rmem_attach(MRAPI_IN mrapi_rmem_hndl_t rmem, MRAPI_IN mrapi_rmem_atype_t access_type,
                       MRAPI_OUT mrapi_status_t *status);

/**
 * @brief Detaches the calling node.
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_NODE_NOTINIT
 * @retval MRAPI_ERR_RMEM_INVALID not a live handle
 * @retval MRAPI_ERR_RMEM_NOTATTACHED the node is not attached
 */
void mrapi_rmem_detach(MRAPI_IN mrapi_rmem_hndl_t rmem, MRAPI_OUT mrapi_status_t *status);

/**
 * @brief Deletes remote memory (its buffer stays the creator's). Profile spec:
 * only the creating node, and no other node may be attached; mca-2.0.3 (the
 * reference): any node, nodes still attached are detached.
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_NODE_NOTINIT
 * @retval MRAPI_ERR_RMEM_INVALID not a live handle (also a second delete;
 *         MRAPI_ERR_RMEM_INVALID is the only "deleted" status remote memory has)
 * @retval MRAPI_ERR_RMEM_NOTOWNER spec: the caller is not the creating node
 * @retval MRAPI_ERR_RMEM_ATTACH spec: another node is still attached
 */
void mrapi_rmem_delete(MRAPI_IN mrapi_rmem_hndl_t rmem, MRAPI_OUT mrapi_status_t *status);

/**
 * @brief Copies from remote memory into @p local_buf (blocking).
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_NODE_NOTINIT
 * @retval MRAPI_ERR_RMEM_INVALID not a live handle
 * @retval MRAPI_ERR_RMEM_NOTATTACHED the node is not attached
 * @retval MRAPI_ERR_PARAMETER @p local_buf NULL, or nothing to copy
 * @retval MRAPI_ERR_RMEM_STRIDE a stride smaller than @p bytes_per_access
 * @retval MRAPI_ERR_RMEM_BUFF_OVERRUN past the end of the remote buffer
 * @retval MRAPI_ERR_RMEM_CONFLICT the creator's process is gone or refused the copy
 * @retval MRAPI_ERR_NOT_SUPPORTED the creator is another process and the system
 *         has no cross-process copy (process_vm_readv: missing from the kernel,
 *         or not emulated by qemu-user)
 */
void mrapi_rmem_read(MRAPI_IN mrapi_rmem_hndl_t rmem, MRAPI_IN mrapi_uint32_t rmem_offset,
                     MRAPI_OUT void *local_buf, MRAPI_IN mrapi_uint32_t local_offset,
                     MRAPI_IN mrapi_uint32_t bytes_per_access, MRAPI_IN mrapi_uint32_t num_strides,
                     MRAPI_IN mrapi_uint32_t rmem_stride, MRAPI_IN mrapi_uint32_t local_stride,
                     MRAPI_OUT mrapi_status_t *status);

/**
 * @brief Starts a read; complete it with mrapi_test()/mrapi_wait()/mrapi_wait_any().
 * @p local_buf must stay valid until the request completes or is cancelled.
 * Statuses: those of mrapi_rmem_read(), and
 * @retval MRAPI_ERR_REQUEST_LIMIT MRAPI_MAX_REQUESTS outstanding in this process
 * @retval MRAPI_ERR_PARAMETER @p mrapi_request is NULL
 */
void mrapi_rmem_read_i(MRAPI_IN mrapi_rmem_hndl_t rmem, MRAPI_IN mrapi_uint32_t rmem_offset,
                       MRAPI_OUT void *local_buf, MRAPI_IN mrapi_uint32_t local_offset,
                       MRAPI_IN mrapi_uint32_t bytes_per_access, MRAPI_IN mrapi_uint32_t num_strides,
                       MRAPI_IN mrapi_uint32_t rmem_stride, MRAPI_IN mrapi_uint32_t local_stride,
                       MRAPI_OUT mrapi_request_t *mrapi_request, MRAPI_OUT mrapi_status_t *status);

/** @brief Copies @p local_buf into remote memory (blocking). Statuses as mrapi_rmem_read(). */
void mrapi_rmem_write(MRAPI_IN mrapi_rmem_hndl_t rmem, MRAPI_IN mrapi_uint32_t rmem_offset,
                      MRAPI_IN void *local_buf, MRAPI_IN mrapi_uint32_t local_offset,
                      MRAPI_IN mrapi_uint32_t bytes_per_access, MRAPI_IN mrapi_uint32_t num_strides,
                      MRAPI_IN mrapi_uint32_t rmem_stride, MRAPI_IN mrapi_uint32_t local_stride,
                      MRAPI_OUT mrapi_status_t *status);

/** @brief Starts a write. Statuses as mrapi_rmem_read_i(). */
void mrapi_rmem_write_i(MRAPI_IN mrapi_rmem_hndl_t rmem, MRAPI_IN mrapi_uint32_t rmem_offset,
                        MRAPI_IN void *local_buf, MRAPI_IN mrapi_uint32_t local_offset,
                        MRAPI_IN mrapi_uint32_t bytes_per_access, MRAPI_IN mrapi_uint32_t num_strides,
                        MRAPI_IN mrapi_uint32_t rmem_stride, MRAPI_IN mrapi_uint32_t local_stride,
                        MRAPI_OUT mrapi_request_t *mrapi_request, MRAPI_OUT mrapi_status_t *status);

/**
 * @brief Waits until every transfer this process started on @p rmem is done
 * (copies are not cached, so nothing else needs flushing).
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_NODE_NOTINIT
 * @retval MRAPI_ERR_RMEM_INVALID not a live handle
 * @retval MRAPI_ERR_RMEM_NOTATTACHED the node is not attached
 */
void mrapi_rmem_flush(MRAPI_IN mrapi_rmem_hndl_t rmem, MRAPI_OUT mrapi_status_t *status);
/** @brief Same as mrapi_rmem_flush() (no software cache to synchronize). */
void mrapi_rmem_synch(MRAPI_IN mrapi_rmem_hndl_t rmem, MRAPI_OUT mrapi_status_t *status);

/* ==================================================== requests */

/**
 * @brief Checks whether @p request is complete, without waiting. A complete
 * request is freed: its handle is stale afterwards.
 * @param request the request
 * @param mrapi_status receives the outcome (below)
 * @param size receives the bytes transferred (may be NULL)
 * @return MRAPI_TRUE when complete (its outcome in *status)
 * @retval MRAPI_SUCCESS complete
 * @retval MRAPI_INCOMPLETE not yet
 * @retval MRAPI_ERR_REQUEST_INVALID NULL, stale or never issued
 * @retval MRAPI_ERR_REQUEST_CANCELED it was cancelled
 * @retval MRAPI_ERR_RMEM_CONFLICT, MRAPI_ERR_RMEM_INVALID, MRAPI_ERR_NOT_SUPPORTED
 *         the transfer failed (as mrapi_rmem_read() reports them)
 */
mrapi_boolean_t mrapi_test(MRAPI_IN mrapi_request_t *request, MRAPI_OUT size_t *size,
                           MRAPI_OUT mrapi_status_t *mrapi_status);

/**
 * @brief Waits up to @p timeout ms for @p request to complete.
 * @return MRAPI_TRUE when complete
 * @retval the statuses of mrapi_test(), and MRAPI_TIMEOUT not complete in time
 */
mrapi_boolean_t mrapi_wait(MRAPI_IN mrapi_request_t *request, MRAPI_OUT size_t *size,
                           MRAPI_IN mrapi_timeout_t timeout, MRAPI_OUT mrapi_status_t *mrapi_status);

/**
 * @brief Waits up to @p timeout ms until one of the @p number requests of the
 * array @p requests completes (the reference's signature: an array of
 * requests, not of pointers).
 * @return its index, or MRAPI_RETURN_VALUE_INVALID
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_TIMEOUT none completed in time
 * @retval MRAPI_ERR_PARAMETER @p requests NULL or @p number 0
 * @retval MRAPI_ERR_REQUEST_INVALID no entry is a live request
 */
mrapi_uint_t mrapi_wait_any(MRAPI_IN size_t number, MRAPI_IN mrapi_request_t *requests, MRAPI_OUT size_t *size,
                            MRAPI_IN mrapi_timeout_t timeout, MRAPI_OUT mrapi_status_t *mrapi_status);

/**
 * @brief Cancels @p request if its transfer has not started; a later test or
 * wait reports MRAPI_ERR_REQUEST_CANCELED. A transfer under way finishes.
 * @retval MRAPI_SUCCESS cancelled (or already complete: nothing to cancel)
 * @retval MRAPI_ERR_REQUEST_INVALID NULL, stale or never issued
 */
void mrapi_cancel(MRAPI_IN mrapi_request_t *request, MRAPI_OUT mrapi_status_t *mrapi_status);

/* ==================================================== metadata (resources)
 *
 * The machine's resources as a tree: SYSTEM root, processors (CPU), caches
 * (CACHE, nested from the outermost level in) and memory (MEM), read from
 * hwloc when libmca was built with it (MCX_WITH_HWLOC), else from /sys. Attributes are static
 * (sizes, ids, levels) or dynamic: counters started and stopped per
 * resource (cache misses and coherence events from the hardware performance
 * counters where the machine has them, software events otherwise). An
 * attribute the machine cannot provide reports MRAPI_ERR_NOT_SUPPORTED. See
 * docs/mrapi.md for each resource's attributes.
 */

/**
 * @brief Builds the tree of the resources of @p subsystem_filter.
 * @return the root (a SYSTEM node whose children match), NULL when none or on error
 * @retval MRAPI_SUCCESS (an empty filter, such as MRAPI_RSRC_DMA on a PC, gives NULL)
 * @retval MRAPI_ERR_NODE_NOTINIT
 * @retval MRAPI_ERR_RSRC_INVALID_SUBSYSTEM no such filter
 * @retval MRAPI_ERR_MEM_LIMIT out of memory
 */
mrapi_resource_t *mrapi_resources_get(MRAPI_IN mrapi_rsrc_filter_t subsystem_filter, MRAPI_OUT mrapi_status_t *status);

/**
 * @brief Frees a tree from mrapi_resources_get() and sets *root_ptr to NULL.
 * Dynamic attributes still started in it are stopped.
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_NODE_NOTINIT
 * @retval MRAPI_ERR_RSRC_INVALID_TREE NULL, or not a tree root of this process
 */
void mrapi_resource_tree_free(mrapi_resource_t *MRAPI_IN *root_ptr, MRAPI_OUT mrapi_status_t *status);

/**
 * @brief Reads attribute @p attribute_number of @p resource into @p attribute_value.
 * @p attr_size may be smaller than the value's size for integers (the value
 * is truncated to it, as the reference's programs expect) but not 0.
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_NODE_NOTINIT
 * @retval MRAPI_ERR_RSRC_INVALID @p resource NULL or not from a live tree
 * @retval MRAPI_ERR_ATTR_NUM no such attribute
 * @retval MRAPI_ERR_PARAMETER @p attribute_value NULL
 * @retval MRAPI_ERR_ATTR_SIZE @p attr_size 0, or too small for a string
 * @retval MRAPI_ERR_RSRC_NOTSTARTED a dynamic attribute not started
 * @retval MRAPI_ERR_NOT_SUPPORTED the machine does not provide it
 */
void mrapi_resource_get_attribute(MRAPI_IN mrapi_resource_t *resource, MRAPI_IN mrapi_uint_t attribute_number,
                                  MRAPI_OUT void *attribute_value, MRAPI_IN size_t attr_size,
                                  MRAPI_OUT mrapi_status_t *status);

/**
 * @brief Starts counting dynamic attribute @p attribute_number from 0.
 * @param resource the resource (from mrapi_resources_get())
 * @param attribute_number the dynamic attribute
 * @param status receives the outcome (below)
 * @param rollover_callback called (from the monitor's timer thread) when
 *        the counter wraps its 32-bit range; may be NULL
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_NODE_NOTINIT
 * @retval MRAPI_ERR_RSRC_INVALID bad resource
 * @retval MRAPI_ERR_ATTR_NUM no such attribute
 * @retval MRAPI_ERR_RSRC_NOTDYNAMIC a static attribute
 * @retval MRAPI_ERR_RSRC_STARTED started already
 * @retval MRAPI_ERR_NOT_SUPPORTED no counter for it on this machine
 * @retval MRAPI_ERR_RSRC_COUNTER_INUSE no counter free
 */
void mrapi_dynamic_attribute_start(MRAPI_IN mrapi_resource_t *resource, MRAPI_IN mrapi_uint_t attribute_number,
                                   MRAPI_FUNCTION_PTR void (*rollover_callback)(void),
                                   MRAPI_OUT mrapi_status_t *status);

/**
 * @brief Sets a started dynamic attribute back to 0.
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_NODE_NOTINIT
 * @retval MRAPI_ERR_RSRC_INVALID bad resource
 * @retval MRAPI_ERR_ATTR_NUM no such attribute
 * @retval MRAPI_ERR_RSRC_NOTDYNAMIC a static attribute
 * @retval MRAPI_ERR_RSRC_NOTSTARTED not started
 */
void mrapi_dynamic_attribute_reset(MRAPI_IN mrapi_resource_t *resource, MRAPI_IN mrapi_uint_t attribute_number,
                                   MRAPI_OUT mrapi_status_t *status);

/** @brief Stops counting. Statuses as mrapi_dynamic_attribute_reset(). */
void mrapi_dynamic_attribute_stop(MRAPI_IN mrapi_resource_t *resource, MRAPI_IN mrapi_uint_t attribute_number,
                                  MRAPI_OUT mrapi_status_t *status);

/**
 * @brief Calls @p callback_function every @p frequency ticks of the monitor's
 * timer (one tick per second) while @p event holds, in the registering
 * node's thread (delivered as a signal, SIGALRM, to that thread; the
 * callback runs in signal context and must be async-signal-safe enough for
 * what it does). Events of the machine: MRAPI_EVENT_POWER_MANAGEMENT holds
 * when the processor frequency changed since the last tick; the crossbar
 * events hold while the timer runs (a PC has no crossbar buffer to measure:
 * they are periodic). Registrations end with mrapi_finalize().
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_NODE_NOTINIT
 * @retval MRAPI_ERR_RSRC_INVALID_EVENT no such event
 * @retval MRAPI_ERR_RSRC_INVALID_CALLBACK @p callback_function NULL or @p frequency 0
 * @retval MRAPI_ERR_MEM_LIMIT MRAPI_MAX_CALLBACKS registered in this process
 */
void mrapi_resource_register_callback(MRAPI_IN mrapi_event_t event, MRAPI_IN unsigned int frequency,
                                      MRAPI_FUNCTION_PTR void (*callback_function)(mrapi_event_t event),
                                      MRAPI_OUT mrapi_status_t *status);

/**
 * @brief Removes the calling node's registrations of @p callback_function for
 * @p event (libmca; the reference has no unregister call).
 * @retval MRAPI_SUCCESS
 * @retval MRAPI_ERR_NODE_NOTINIT
 * @retval MRAPI_ERR_RSRC_INVALID_CALLBACK the node registered no such callback
 */
void mrapi_resource_unregister_callback(MRAPI_IN mrapi_event_t event,
                                        MRAPI_FUNCTION_PTR void (*callback_function)(mrapi_event_t event),
                                        MRAPI_OUT mrapi_status_t *status);

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
