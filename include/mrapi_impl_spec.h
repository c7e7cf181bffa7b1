/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file mrapi_impl_spec.h
 * @brief libmca's implementation-defined part of MRAPI: handle, key and
 * attribute types, and the limits of one domain's partition.
 *
 * Every process of a domain must be built with the same limits: the partition
 * is laid out from them and a process whose layout differs is refused
 * (mrapi_initialize() gives MRAPI_ERR_NODE_INITFAILED).
 */
#ifndef MRAPI_IMPL_SPEC_H
#define MRAPI_IMPL_SPEC_H

#include "mca.h"
#include "mca_config.h"

/* Programs written for the reference implementation rely on mrapi.h pulling
 * in what its implementation header includes (pthreads, SysV IPC, errno ...)
 * and on mca_utils.h. The library itself is built without them: its sources
 * include OS headers only through ports/. */
#ifndef MCX_BUILDING_LIBMCA
#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>
#ifndef _WIN32 /* System V IPC and the password database: POSIX only */
#include <pwd.h>
#include <sys/ipc.h>
#include <sys/sem.h>
#include <sys/shm.h>
#endif

#include "mca_utils.h"
#endif

/** Mutexes, semaphores, reader/writer locks and shared-memory segments per domain. */
#ifndef MRAPI_MAX_MUTEXES
#define MRAPI_MAX_MUTEXES 64
#endif
#ifndef MRAPI_MAX_SEMS
#define MRAPI_MAX_SEMS 64
#endif
#ifndef MRAPI_MAX_RWLS
#define MRAPI_MAX_RWLS 64
#endif
#ifndef MRAPI_MAX_SHMEMS
#define MRAPI_MAX_SHMEMS 32
#endif
/** Remote-memory objects per domain. */
#ifndef MRAPI_MAX_RMEMS
#define MRAPI_MAX_RMEMS 32
#endif
/** Units of one semaphore (its lock limit) at most; more is MRAPI_ERR_SEM_LOCKLIMIT. */
#define MRAPI_MAX_SHARED_LOCKS 32
/** Outstanding MRAPI requests of one process (remote-memory _i calls). */
#define MRAPI_MAX_REQUESTS MCA_MAX_REQUESTS
/** Domains one process may join. */
#define MRAPI_MAX_DOMAINS MCA_MAX_DOMAINS
/** Resource callbacks registered at once, per domain and process. */
#define MRAPI_MAX_CALLBACKS 10
/** The default remote-memory access type. */
#define MRAPI_RMEM_DEFAULT MRAPI_RMEM_DUMMY
/** The reference implementation's debug print (mca_utils.h). */
#define mrapi_dprintf mca_dprintf
/** The reference implementation's thread-local storage keyword. */
#define TLS _Thread_local

/** Largest shared-memory segment (bytes). */
#ifndef MRAPI_MAX_SHMEM_SIZE
#define MRAPI_MAX_SHMEM_SIZE (1u << 30)
#endif
/** Nodes per domain (shared with MCAPI). */
#define MRAPI_MAX_NODES MCA_MAX_NODES
/** Largest reader count of a reader/writer lock (and its default limit). */
#define MRAPI_MAX_READERS 0xfffffu

/* Handles: kind (4 bits) | table slot (12 bits) | generation (16 bits). A
 * handle of a deleted object, or of another kind, is recognized and refused. */
typedef mca_uint32_t mrapi_mutex_hndl_t;
typedef mca_uint32_t mrapi_sem_hndl_t;
typedef mca_uint32_t mrapi_rwl_hndl_t;
typedef mca_uint32_t mrapi_shmem_hndl_t;
typedef mca_uint32_t mrapi_rmem_hndl_t;

/** Lock key of a mutex: the nesting level this lock took (0 for the first). */
typedef int mrapi_key_t;

typedef struct {
  mca_boolean_t recursive;
  mca_boolean_t error_ext;
  mca_boolean_t domain_shared;
} mrapi_mutex_attributes_t;

typedef struct {
  mca_boolean_t error_ext;
  mca_boolean_t domain_shared;
} mrapi_sem_attributes_t;

typedef struct {
  mca_boolean_t error_ext;
  mca_boolean_t domain_shared;
} mrapi_rwl_attributes_t;

typedef struct {
  mca_boolean_t error_ext;
  mca_boolean_t domain_shared;
} mrapi_shmem_attributes_t;

typedef struct {
  mca_boolean_t error_ext;
  mca_boolean_t domain_shared;
} mrapi_rmem_attributes_t;

/** The reference implementation's common attribute type (kept for its name;
 * libmca's calls take the per-kind types above). */
typedef struct {
  mca_boolean_t ext_error_checking;
  mca_boolean_t shared_across_domains;
  mca_boolean_t recursive;
  void *mem_addr;
  mca_uint32_t mem_size;
} mrapi_impl_attributes_t;

/** Kinds of lock (reference implementation's names). */
typedef enum { RWL, SEM, MUTEX } lock_type;

/* ---------------------------------------------------------- metadata */

/** Kind of a node of the resource tree. */
typedef enum {
  CPU,          /**< a processing unit (logical processor) */
  CACHE,        /**< a data or unified cache */
  MEM,          /**< main memory (one per NUMA node) */
  CORE_COMPLEX, /**< a core or package grouping processors */
  CROSSBAR,     /**< an interconnect (none on a PC: filter gives an empty tree) */
  SYSTEM,       /**< the root */
} mrapi_resource_type;

/** Whether an attribute is fixed or counts something while started. */
typedef enum {
  MRAPI_ATTR_STATIC,
  MRAPI_ATTR_DYNAMIC,
} mrapi_attribute_static;

/** Events a resource callback may be registered for. */
typedef enum {
  MRAPI_EVENT_POWER_MANAGEMENT,
  MRAPI_EVENT_CROSSBAR_BUFFER_UNDER_20PERCENT,
  MRAPI_EVENT_CROSSBAR_BUFFER_OVER_80PERCENT,
} mrapi_event_t;

/**
 * One node of a resource tree returned by mrapi_resources_get(): the fields
 * are those of the reference implementation, readable by programs; the
 * tree is the caller's until mrapi_resource_tree_free().
 * attribute_types[i] points at a mrapi_uint32_t holding the value's size in
 * bytes (0: "not supported" on this machine); attribute_values[i] at the
 * value (static attributes); attribute_static[i] at its kind;
 * attribute_started[i] at whether a dynamic attribute is counting.
 */
#ifdef __cplusplus
/* C++ refuses a struct tag spelled like a typedef name (the enum above): C++
 * programs see the struct under another tag; C keeps the reference's. */
#define MCX_RESOURCE_TAG mcx_resource_node
#else
#define MCX_RESOURCE_TAG mrapi_resource_type
#endif
typedef struct MCX_RESOURCE_TAG {
  char *name;
  mrapi_resource_type resource_type;
  mca_uint32_t number_of_children;
  struct MCX_RESOURCE_TAG **children;
  mca_uint32_t number_of_attributes;
  void **attribute_types;
  void **attribute_values;
  mrapi_attribute_static **attribute_static;
  mca_boolean_t **attribute_started;
} mrapi_resource_t;
#undef MCX_RESOURCE_TAG

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief The reference implementation's test hook: counts @p increment more
 * hits of the L3 cache of the reference's example machine (the mca-2.0.3
 * profile's resource tree), or, on this machine's tree
 * (MCX_MRAPI_RESOURCES=machine), moves a started dynamic attribute as if the
 * hardware had counted @p increment more events.
 * @param resource a node of a tree from mrapi_resources_get(): the example's
 *        "L3 Cache" (its hits move started or not, modulo 2^32, as the
 *        reference's uint32_t), or a node of this machine's tree whose first
 *        started dynamic attribute (in attribute order) is moved
 * @param increment added to the value mrapi_resource_get_attribute() reads
 *        (until the next mrapi_dynamic_attribute_reset())
 *
 * Only in the mca-2.0.3 profile, called by a node: otherwise, and for a
 * resource with nothing to move, it does nothing. MT-safe.
 */
void mrapi_impl_increment_cache_hits(mrapi_resource_t *resource, int increment);

/**
 * @brief The reference implementation's test hook: a rollover of the dynamic
 * attribute that was started @p index-th (0 first, counted in this process
 * since none was started): its rollover callback runs in the caller's thread
 * before the hook returns. The example machine's cache hits keep their count
 * (the reference's hook only calls the callback); an attribute of this
 * machine's tree first goes to the next multiple of 2^32, so its low 32 bits
 * start again from 0 (once: the periodic check does not report it again).
 * @param index the attribute's place in the order of starts
 *
 * Only in the mca-2.0.3 profile, called by a node: otherwise, and for an
 * index no started attribute has, it does nothing. MT-safe; the callback
 * runs without libmca's locks held.
 */
void mrapi_impl_trigger_rollover(mca_uint16_t index);

#ifdef __cplusplus
}
#endif

/**
 * Reference-implementation compatibility for the atomic extensions: the
 * `sync` argument of mrapi_atomic_*() may point at one of these or be NULL.
 * libmca ignores it: a partition is coherent memory, so no cross-process
 * barrier protocol is needed.
 */
typedef struct {
  mca_uint32_t mcx_unused;
} mrapi_atomic_barrier_t;

#endif /* MRAPI_IMPL_SPEC_H */
