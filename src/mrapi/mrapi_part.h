/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file mrapi_part.h
 * @brief What the files of the MRAPI runtime share, private to src/mrapi/: the
 * partition's layout (node table, object tables), this process's entry of a
 * domain, the calling thread's node identity, handles, the table lock.
 *
 * The files, lowest first (each uses only those before it):
 *   mrapi_domain.c  names, the process state, the partition, nodes (join,
 *                   leave, reaping the dead), node identity
 *   mrapi_obj.c     the object tables (create, look-up, delete, attributes)
 *                   and the locks' operations: mutexes, semaphores, rwlocks
 *   mrapi_mem.c     shared memory and remote memory: attach, detach, checks,
 *                   transfers
 *
 * Memory-order pairs here: D-A1 acquire (mcx__mr_resolve) pairs with D-R1
 * (create, mrapi_obj.c) and D-R2 (delete, mrapi_obj.c; reset, reaping and
 * finalize, mrapi_domain.c). Table fields other than gen are only touched
 * under the table lock, whose acquire/release (M-A1/M-R1 in mrapi_prim.c)
 * orders them.
 *
 * Context: a node's thread (the DMA engine acts as one, mcx__mr_ident_set).
 */
#ifndef MCX_MRAPI_PART_H
#define MCX_MRAPI_PART_H

#include <stddef.h>
#include <stdint.h>

#include "common/mcx_atomic.h"
#include "common/mcx_err.h"
#include "mrapi/mrapi_domain.h"
#include "mrapi_impl_spec.h"
#include "ports/mcx_port_shm.h"
#include "sync/mrapi_prim.h"
#include "sync/wait.h"

#define MCX__MR_ID_ANY 0xffffffffu
#define MCX__MR_NODE_WORDS ((MCA_MAX_NODES + 63) / 64)

typedef struct mcx__mr_node {
  uint32_t used;
  uint32_t node_id;
  uint32_t pid;
  uint32_t tid;
  uint64_t start; /* the thread's start time: tid + start name it even after the tid is recycled */
} mcx__mr_node_t;

/* One object. The primitive's word is written by every user; the rest of the
 * line is read-mostly (written at create/delete under the table lock). */
typedef struct mcx__mr_slot {
  MCX_ALIGNED_LINE union {
    mcx__rmutex_t mutex;
    mcx__sem_t sem;
    mcx__rwl_t rwl;
  } u;
  mcx_atomic_u32 gen; /* odd: live; D-R1/D-R2 release, D-A1 acquire */
  uint32_t used;
  uint32_t id;
  uint32_t recursive;
  uint32_t error_ext;
  uint32_t domain_shared;
  uint32_t limit;   /* sem/rwl limit, shmem size */
  uint32_t shm_seq; /* shmem: the segment's name suffix */
  uint64_t attached[MCX__MR_NODE_WORDS]; /* shmem: node slots attached; under the table lock */
  /* rmem: the creator's buffer; written at create under the table lock. */
  uint64_t addr;
  uint32_t atype;
  uint32_t owner_pid;
  uint32_t owner_nidx;
  /* sem / rwl: a dead holder's units were given back; the next locker reports it. */
  mcx_atomic_u32 died;
  /* sem: units, rwl: read holds, rmem: attached (0/1), per node slot. Each entry is raised by its
   * node after it acquired and lowered before a release; a recovery (under
   * the table lock) takes a dead node's entries. Relaxed: the counts are
   * bookkeeping beside the lock word, which orders the protected data. */
  mcx_atomic_u32 held[MCA_MAX_NODES];
} mcx__mr_slot_t;

typedef struct mcx__mr_part {
  uint32_t magic;
  uint32_t layout; /* sizeof(mcx__mr_part_t): processes built with other limits are refused */
  uint32_t creator_pid;
  uint32_t domain;
  mcx_atomic_u32 ready; /* D-R0 / D-A0 */
  MCX_ALIGNED_LINE mcx__rmutex_t tlock; /* robust table lock */
  uint32_t nnodes;
  uint32_t next_any_id;
  uint32_t shm_seq;
  uint32_t recoveries; /* stale partitions recovered (diagnostics) */
  uint32_t profile;    /* MCX__MR_PROFILE_*: set by the creator, read-only after */
  uint32_t held_recoveries; /* dead holders whose units were given back (diagnostics) */
  mcx__mr_node_t nodes[MCA_MAX_NODES];
  mcx__mr_slot_t mutexes[MRAPI_MAX_MUTEXES];
  mcx__mr_slot_t sems[MRAPI_MAX_SEMS];
  mcx__mr_slot_t rwls[MRAPI_MAX_RWLS];
  mcx__mr_slot_t shmems[MRAPI_MAX_SHMEMS];
  mcx__mr_slot_t rmems[MRAPI_MAX_RMEMS];
} mcx__mr_part_t;

/* Per process: the domains it has joined and the segments it has mapped. */
typedef struct mcx__mr_dom {
  uint32_t domain;
  uint32_t nlocal; /* nodes of this process in the domain; 0 = entry free */
  /* Bumped whenever the entry is emptied (dom_clear in mrapi_domain.c): a node
   * that recorded another value is no longer one (its entry was dropped, see
   * dom_drop). Relaxed: a flag that publishes nothing; the entry itself is
   * guarded by the process lock (mcx__mr_proc_enter). */
  mcx_atomic_u32 gen;
  mcx__mr_part_t *p;
  void *seg_addr[MRAPI_MAX_SHMEMS];
  size_t seg_size[MRAPI_MAX_SHMEMS];
  uint32_t seg_gen[MRAPI_MAX_SHMEMS];
  uint32_t seg_refs[MRAPI_MAX_SHMEMS];
} mcx__mr_dom_t;

/* The calling thread as a node: all zero when it is none. */
typedef struct mcx__mr_me {
  uint32_t pid;
  uint32_t fork_gen; /* a fork()ed child is not its parent's node: generations differ */
  uint32_t tid;
  mcx__mr_dom_t *d;
  uint32_t dgen; /* d->gen when this thread became a node */
  uint32_t nidx;
  uint32_t node_id;
} mcx__mr_me_t;

/* Set by initialize and finalize, or copied in by mcx__mr_ident_set. */
extern MCX_TLS mcx__mr_me_t mcx__mr_me;

/* ------------------------------------------------------------ mrapi_domain.c */

/** Takes the process lock, which guards this process's domain entries and
 *  their segment mappings; first resets the process state after a fork(). */
void mcx__mr_proc_enter(void);
/** Gives the process lock back. @pre mcx__mr_proc_enter by this thread */
void mcx__mr_proc_leave(void);
/** Takes the partition's robust table lock; a holder that died inside an update
 *  is logged and the lock is taken over (updates publish with one gen store). */
void mcx__mr_table_lock(mcx__mr_part_t *p);
/** @pre the table lock is held by this thread */
void mcx__mr_table_unlock(mcx__mr_part_t *p);
/** Name of shared-memory segment @p seq of @p domain. */
void mcx__mr_segment_name(uint32_t domain, uint32_t seq, char *buf, size_t n);
/** Removes the name of the segment of shared memory @p s. Under the table lock. */
void mcx__mr_unlink_segment(mcx__mr_part_t *p, mcx__mr_slot_t *s);
/** Whether the thread of node @p n still runs (not merely its tid, which the
 *  kernel recycles). */
int mcx__mr_node_alive(const mcx__mr_node_t *n);
/** Drops nodes whose thread is gone, giving back their units and holds. Under
 *  the table lock. @return objects recovered */
int mcx__mr_reap_dead_nodes(mcx__mr_part_t *p);

/* ------------------------------------------------------------ the calling node, handles */

/** Whether the calling thread is a node (of this process: after fork() it is none). */
static inline int mcx__mr_is_node(void)
{
  return mcx__mr_me.d != NULL && mcx__mr_me.fork_gen == mcx_port_fork_generation() &&
         mcx_load_relaxed(&mcx__mr_me.d->gen) == mcx__mr_me.dgen;
}

/** The table of objects of @p kind and its length @p n (NULL and 0 for no kind). */
static inline mcx__mr_slot_t *mcx__mr_table_of(mcx__mr_part_t *p, mcx__mr_kind_t kind, uint32_t *n)
{
  switch (kind) {
  case MCX__MR_MUTEX:
    *n = MRAPI_MAX_MUTEXES;
    return p->mutexes;
  case MCX__MR_SEM:
    *n = MRAPI_MAX_SEMS;
    return p->sems;
  case MCX__MR_RWL:
    *n = MRAPI_MAX_RWLS;
    return p->rwls;
  case MCX__MR_SHMEM:
    *n = MRAPI_MAX_SHMEMS;
    return p->shmems;
  case MCX__MR_RMEM:
    *n = MRAPI_MAX_RMEMS;
    return p->rmems;
  }
  *n = 0;
  return NULL;
}

/* A handle: kind in bits 28-31, slot in 16-27, the slot's generation's low
 * 16 bits (odd: live) in 0-15. */
static inline uint32_t mcx__mr_make_handle(mcx__mr_kind_t kind, uint32_t slot, uint32_t gen)
{
  return ((uint32_t)kind << 28) | (slot << 16) | (gen & 0xffffu);
}

/** Resolves handle @p h of @p kind to its slot (and its index, @p slot_out may be NULL).
 * @retval 0 @retval MCX_ENOENT not a node @retval MCX_EINVAL garbage or another kind, or
 * deleted without error_ext @retval MCX_ESTALE deleted (error_ext set) */
static inline int mcx__mr_resolve(mcx__mr_kind_t kind, uint32_t h, mcx__mr_slot_t **out,
                                  uint32_t *slot_out)
{
  if (!mcx__mr_is_node())
    return MCX_ENOENT;
  uint32_t n;
  mcx__mr_slot_t *t = mcx__mr_table_of(mcx__mr_me.d->p, kind, &n);
  uint32_t slot = (h >> 16) & 0xfffu;
  if ((h >> 28) != (uint32_t)kind || slot >= n || (h & 1u) == 0)
    return MCX_EINVAL;
  mcx__mr_slot_t *s = &t[slot];
  /* D-A1 acquire: pairs with D-R1 (object initialized) and D-R2 (deleted). */
  uint32_t g = mcx_load_acquire(&s->gen);
  if ((g & 0xffffu) != (h & 0xffffu))
    return s->error_ext ? MCX_ESTALE : MCX_EINVAL;
  *out = s;
  if (slot_out)
    *slot_out = slot;
  return MCX_OK;
}

/* A deleted-while-waiting result, reported like a stale handle. */
static inline int mcx__mr_closed(const mcx__mr_slot_t *s)
{
  return s->error_ext ? MCX_ESTALE : MCX_EINVAL;
}

#endif /* MCX_MRAPI_PART_H */
