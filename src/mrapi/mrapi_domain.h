/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file mrapi_domain.h
 * @brief MRAPI's runtime: one shared-memory partition per domain holding the
 * node table and the tables of mutexes, semaphores, reader/writer locks and
 * shared-memory segments; handles; thread-local node identity.
 * Implemented by mrapi_domain.c (partition, nodes), mrapi_obj.c (object
 * tables, locks) and mrapi_mem.c (shared and remote memory), which share
 * mrapi_part.h.
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
#define MCX_EMR_ATYPE (-68)       /**< remote memory of another access type */
#define MCX_EMR_NOTOWNER (-69)    /**< remote memory: the caller is not its creator */
#define MCX_EMR_STRIDE (-70)      /**< a stride smaller than the block */
#define MCX_EMR_OVERRUN (-71)     /**< past the end of the remote buffer */
#define MCX_EMR_CONFLICT (-72)    /**< the creator's process refused or is gone */
#define MCX_EMR_LOCKLIMIT (-73)   /**< semaphore limit 0 or above MRAPI_MAX_SHARED_LOCKS */

typedef enum mcx__mr_kind {
  MCX__MR_MUTEX = 1,
  MCX__MR_SEM = 2,
  MCX__MR_RWL = 3,
  MCX__MR_SHMEM = 4,
  MCX__MR_RMEM = 5,
} mcx__mr_kind_t;

/** Behaviour profile of MRAPI (read from MCX_COMPAT by the partition's creator). */
enum { MCX__MR_PROFILE_SPEC = 1, MCX__MR_PROFILE_MCA203 = 2 };

/** Creation attributes, and what an object reports back. */
typedef struct mcx__mr_attrs {
  uint32_t recursive;     /* mutex */
  uint32_t error_ext;     /* stale handles give *_DELETED rather than *_INVALID */
  uint32_t domain_shared; /* recorded; objects are visible within their domain */
  uint32_t limit;         /* sem: lock limit; rwl: reader limit; shmem, rmem: size */
  uint32_t atype;         /* rmem: access type */
  uint64_t addr;          /* rmem: the creator's buffer, in its process */
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
/** Delete rules by profile: spec - only a free object (no unit, reader or
 *  holder); mca-2.0.3 - the caller must hold the mutex / a unit / the lock.
 * @retval 0 @retval MCX_ENOENT not a node @retval MCX_EINVAL bad handle
 * @retval MCX_ESTALE deleted before (error_ext set) @retval MCX_EBUSY locked /
 * attached (spec), or not held by the caller (mca-2.0.3)
 * @retval MCX_EMR_NOTOWNER rmem: the caller is not its creator */
int mcx__mr_delete(mcx__mr_kind_t kind, uint32_t hndl);
/** The calling node's profile (MCX__MR_PROFILE_*), 0 if not a node. */
uint32_t mcx__mr_profile(void);
/** Diagnostic level (mrapi_set_debug_level). */
void mcx__mr_set_debug(int level);
int mcx__mr_debug(void);
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

/* Remote memory. */
/** Remote memory @p id of access type @p atype, looked up and checked at once
 *  (no delete comes between). @retval 0 @retval MCX_ENOENT not a node
 *  @retval MCX_EINVAL unknown id @retval MCX_EMR_ATYPE created with another access type */
int mcx__mr_rmem_get(uint32_t id, uint32_t atype, uint32_t *hndl);
/** @retval 0 @retval MCX_EMR_ATTACHED @retval MCX_EMR_ATYPE */
int mcx__mr_rmem_attach(uint32_t hndl, uint32_t atype);
/** @retval 0 @retval MCX_EMR_NOTATTACHED */
int mcx__mr_rmem_detach(uint32_t hndl);
/** Access type and size of remote memory. @retval 0 @retval MCX_EINVAL @retval MCX_ESTALE */
int mcx__mr_rmem_info(uint32_t hndl, uint32_t *atype, uint32_t *size);
/** One strided transfer (write: local -> remote), done by the caller under
 * the object's transfer lock. @p bytes receives the bytes moved.
 * @retval 0 @retval MCX_EMR_NOTATTACHED @retval MCX_EMR_STRIDE @retval MCX_EMR_OVERRUN
 * @retval MCX_EMR_CONFLICT @retval MCX_EINVAL @retval MCX_ESTALE */
int mcx__mr_rmem_transfer(uint32_t hndl, int write, uint32_t rmem_off, void *local, uint32_t local_off,
                          uint32_t bpa, uint32_t nstrides, uint32_t rstride, uint32_t lstride, size_t *bytes);
/** Checks a transfer's arguments without doing it (same results as above but CONFLICT). */
int mcx__mr_rmem_check(uint32_t hndl, uint32_t rmem_off, uint32_t bpa, uint32_t nstrides, uint32_t rstride,
                       uint32_t lstride);

/** A node identity, copied so a background thread (the DMA engine) acts for a node. */
typedef struct mcx__mr_ident {
  uint64_t opaque[6];
} mcx__mr_ident_t;
/** Copies the calling node's identity. @retval 0 @retval MCX_ENOENT not a node */
int mcx__mr_ident_get(mcx__mr_ident_t *id);
/** The calling thread acts as @p id (NULL: as nothing) until the next call. */
void mcx__mr_ident_set(const mcx__mr_ident_t *id);

/* Holders: units of semaphores and read/write holds of rwlocks per node, so a
 * dead node's holds are given back. */
/** Gives back what nodes that no longer run held; @return holds recovered. */
int mcx__mr_recover_dead(void);

/** Name of the domain's partition ("/mcx-mrapi-<uid>-<domain>"), for tests and tools. */
void mcx__mr_partition_name(uint32_t domain, char *buf, size_t n);

#endif /* MCX_MRAPI_DOMAIN_H */
