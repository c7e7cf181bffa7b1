/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file mrapi_domain.h
 * @brief MRAPI's runtime: one shared-memory partition per domain holding the
 * node table and the tables of mutexes, semaphores, reader/writer locks and
 * shared-memory segments; handles; thread-local node identity.
 *
 * Results are 0 or a negative MCX_E* (plus the few MRAPI-only codes below);
 * src/api/mrapi_api.c maps them to mrapi_status_t once.
 */
#ifndef MCX_MRAPI_DOMAIN_H
#define MCX_MRAPI_DOMAIN_H

#include <stddef.h>
#include <stdint.h>

#include "common/mcx_err.h"

/* MRAPI-only internal results, below the shared MCX_E* range. */
#define MCX_EMR_KEY (-64)         /**< lock key does not name a held lock level */
#define MCX_EMR_LOCKORDER (-65)   /**< recursive unlock out of order */
#define MCX_EMR_ATTACHED (-66)    /**< the node is attached already */
#define MCX_EMR_NOTATTACHED (-67) /**< the node is not attached */

typedef enum mcx__mr_kind {
  MCX__MR_MUTEX = 1,
  MCX__MR_SEM = 2,
  MCX__MR_RWL = 3,
  MCX__MR_SHMEM = 4,
} mcx__mr_kind_t;

/** Creation attributes, and what an object reports back. */
typedef struct mcx__mr_attrs {
  uint32_t recursive;     /* mutex */
  uint32_t error_ext;     /* stale handles give *_DELETED rather than *_INVALID */
  uint32_t domain_shared; /* recorded; objects are visible within their domain */
  uint32_t limit;         /* sem: lock limit; rwl: reader limit; shmem: size */
} mcx__mr_attrs_t;

/** @retval 0 @retval MCX_EEXIST this thread is a node already @retval MCX_EBUSY node id
 *  in use @retval MCX_ENOMEM node or domain table full @retval MCX_EPERM partition owned by
 *  another user @retval MCX_EIO OS failure */
int mcx__mr_initialize(uint32_t domain, uint32_t node);
/** @retval 0 @retval MCX_ENOENT not a node */
int mcx__mr_finalize(void);
/** @retval 0 @retval MCX_ENOENT not a node */
int mcx__mr_whoami(uint32_t *domain, uint32_t *node);

/** Id MRAPI_*_ID_ANY (0xffffffff) picks a free id.
 * @retval 0 @retval MCX_ENOENT not a node @retval MCX_EEXIST id taken
 * @retval MCX_ENOMEM table full @retval MCX_EIO segment creation failed */
int mcx__mr_create(mcx__mr_kind_t kind, uint32_t id, const mcx__mr_attrs_t *a, uint32_t *hndl);
/** @retval 0 @retval MCX_ENOENT not a node @retval MCX_EINVAL unknown id */
int mcx__mr_get(mcx__mr_kind_t kind, uint32_t id, uint32_t *hndl);
/** @retval 0 @retval MCX_ENOENT not a node @retval MCX_EINVAL bad or stale handle
 *  @retval MCX_EBUSY locked / attached */
int mcx__mr_delete(mcx__mr_kind_t kind, uint32_t hndl);
/** @retval 0 @retval MCX_EINVAL bad handle @retval MCX_ESTALE deleted (error_ext set) */
int mcx__mr_attrs_of(mcx__mr_kind_t kind, uint32_t hndl, mcx__mr_attrs_t *out);

/* Lock operations. timeout_ms: 0 = do not wait, 0xffffffff = forever.
 * Common results: MCX_ENOENT not a node, MCX_EINVAL bad handle, MCX_ESTALE deleted
 * (also while waiting) with error_ext set (else MCX_EINVAL), MCX_EAGAIN busy and
 * timeout 0, MCX_ETIMEDOUT. */
/** key_out: the lock key (nesting level, 0 first). @retval MCX_EOWNERDEAD locked, owner had
 *  died @retval MCX_EBUSY held by the caller, not recursive */
int mcx__mr_mutex_lock(uint32_t hndl, uint32_t timeout_ms, int32_t *key_out);
/** @retval MCX_EPERM not locked by the caller @retval MCX_EMR_KEY @retval MCX_EMR_LOCKORDER */
int mcx__mr_mutex_unlock(uint32_t hndl, int32_t key);
int mcx__mr_sem_lock(uint32_t hndl, uint32_t timeout_ms);
/** @retval MCX_EPERM no unit is taken */
int mcx__mr_sem_unlock(uint32_t hndl);
/** @retval MCX_EBUSY a writer re-locking */
int mcx__mr_rwl_lock(uint32_t hndl, int writer, uint32_t timeout_ms);
/** @retval MCX_EPERM not locked in that mode */
int mcx__mr_rwl_unlock(uint32_t hndl, int writer);
/** @retval 0 @retval MCX_EMR_ATTACHED @retval MCX_EIO mapping failed */
int mcx__mr_shmem_attach(uint32_t hndl, void **addr);
/** @retval 0 @retval MCX_EMR_NOTATTACHED */
int mcx__mr_shmem_detach(uint32_t hndl);

/** Name of the domain's partition ("/mcx-mrapi-<uid>-<domain>"), for tests and tools. */
void mcx__mr_partition_name(uint32_t domain, char *buf, size_t n);

#endif /* MCX_MRAPI_DOMAIN_H */
