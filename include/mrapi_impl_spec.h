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
