/* SPDX-License-Identifier: BSD-3-Clause */
/* MRAPI runtime: the object tables and the locks. Creating, finding and
 * deleting objects of every kind (mutexes, semaphores, rwlocks, shared and
 * remote memory), their attributes; locking and unlocking mutexes,
 * semaphores and rwlocks, with the give-back of what dead holders had. The
 * partition and the nodes are in mrapi_domain.c, attaching and using shared
 * and remote memory in mrapi_mem.c; the layout is in mrapi_part.h.
 *
 * Memory-order pairs:
 *   D-R1 release (gen bumped to odd after an object is initialized, under the
 *        table lock) pairs with D-A1 acquire (mcx__mr_resolve in mrapi_part.h,
 *        before a handle is used).
 *   D-R2 release (gen bumped to even at delete) pairs with D-A1 too: a handle
 *        holder that sees the new gen knows the object is gone.
 *   H-A1 acquire (a locker takes the died flag) pairs with H-R1 (the
 *        recovery's release after giving back a dead holder's units,
 *        mrapi_domain.c).
 *   Table fields other than gen are only touched under the table lock, whose
 *   acquire/release (M-A1/M-R1 in mrapi_prim.c) orders them; the hold counts
 *   (held[]) are relaxed bookkeeping beside the lock words.
 */
#include "mrapi/mrapi_domain.h"

#include <string.h>

#include "mrapi/mrapi_part.h"
#include "mrapi_impl_spec.h"
#include "ports/mcx_port.h"
#include "ports/mcx_port_shm.h"
#include "sync/mrapi_prim.h"

/* How long a semaphore / rwlock waiter sleeps before looking for dead holders. */
#define HOLDER_PROBE_NS 20000000ull

static uint64_t deadline_of(uint32_t timeout_ms)
{
  if (timeout_ms == 0)
    return 0;
  return mcx_port_deadline_ms(timeout_ms);
}

/* ------------------------------------------------------------ objects */

int mcx__mr_create(mcx__mr_kind_t kind, uint32_t id, const mcx__mr_attrs_t *a, uint32_t *hndl)
{
  if (!mcx__mr_is_node())
    return MCX_ENOENT;
  mcx__mr_part_t *p = mcx__mr_me.d->p;
  uint32_t n;
  mcx__mr_slot_t *t = mcx__mr_table_of(p, kind, &n);
  if (!t)
    return MCX_EINVAL;
  int r = MCX_OK;
  mcx__mr_table_lock(p);
  if (id == MCX__MR_ID_ANY) {
    /* Pick an id no live object of this kind uses. */
    for (int tries = 0; tries < 1000 && id == MCX__MR_ID_ANY; tries++) {
      uint32_t cand = p->next_any_id++ | 0x40000000u;
      int taken = cand == MCX__MR_ID_ANY;
      for (uint32_t i = 0; i < n && !taken; i++)
        taken = t[i].used && t[i].id == cand;
      if (!taken)
        id = cand;
    }
  }
  int free_slot = -1;
  for (uint32_t i = 0; i < n; i++) {
    if (t[i].used && t[i].id == id) {
      r = MCX_EEXIST;
      break;
    }
    if (!t[i].used && free_slot < 0)
      free_slot = (int)i;
  }
  if (r == MCX_OK && free_slot < 0)
    r = MCX_ENOMEM;
  if (r == MCX_OK) {
    mcx__mr_slot_t *s = &t[free_slot];
    s->id = id;
    s->recursive = a->recursive;
    s->error_ext = a->error_ext;
    s->domain_shared = a->domain_shared;
    s->limit = a->limit;
    memset(s->attached, 0, sizeof s->attached);
    for (int i = 0; i < MCA_MAX_NODES; i++)
      mcx_store_relaxed(&s->held[i], 0u); /* published by the generation (D-R1) */
    mcx_store_relaxed(&s->died, 0u);
    s->addr = a->addr;
    s->atype = a->atype;
    s->owner_pid = mcx__mr_me.pid;
    s->owner_nidx = mcx__mr_me.nidx;
    switch (kind) {
    case MCX__MR_MUTEX:
      mcx__rmutex_init(&s->u.mutex, (int)a->recursive);
      break;
    case MCX__MR_SEM:
      mcx__sem_init(&s->u.sem, a->limit);
      break;
    case MCX__MR_RWL:
      mcx__rwl_init(&s->u.rwl, a->limit);
      break;
    case MCX__MR_SHMEM: {
      char name[MCX_PORT_SHM_NAME_MAX];
      mcx_port_shm_t shm;
      s->shm_seq = p->shm_seq++;
      mcx__mr_segment_name(p->domain, s->shm_seq, name, sizeof name);
      mcx_port_shm_unlink(name); /* a leftover of a crashed run under the same number */
      r = mcx_port_shm_create(name, a->limit, &shm);
      if (r == MCX_OK)
        mcx_port_shm_close(&shm);
      else
        r = MCX_EIO;
      break;
    }
    case MCX__MR_RMEM:
      mcx__rmutex_init(&s->u.mutex, 0); /* the transfer lock */
      break;
    }
    if (r == MCX_OK) {
      s->used = 1;
      uint32_t g = (mcx_load_relaxed(&s->gen) + 1) | 1u;
      /* D-R1 release: the initialized object before the handle validates. */
      mcx_store_release(&s->gen, g);
      *hndl = mcx__mr_make_handle(kind, (uint32_t)free_slot, g);
    }
  }
  mcx__mr_table_unlock(p);
  return r;
}

/* The live object @p id, found under the table lock. @p atype (remote
 * memory; MCX__MR_ID_ANY: none) is checked in the same critical section: a delete
 * between a look-up and a later check would leave the caller a stale handle
 * to report on. */
static int find_id(mcx__mr_kind_t kind, uint32_t id, uint32_t atype, uint32_t *hndl)
{
  if (!mcx__mr_is_node())
    return MCX_ENOENT;
  mcx__mr_part_t *p = mcx__mr_me.d->p;
  uint32_t n;
  mcx__mr_slot_t *t = mcx__mr_table_of(p, kind, &n);
  int r = MCX_EINVAL;
  mcx__mr_table_lock(p);
  for (uint32_t i = 0; t && i < n; i++) {
    if (t[i].used && t[i].id == id) {
      r = atype != MCX__MR_ID_ANY && t[i].atype != atype ? MCX_EMR_ATYPE : MCX_OK;
      if (r == MCX_OK)
        *hndl = mcx__mr_make_handle(kind, i, mcx_load_relaxed(&t[i].gen)); /* under the table lock */
      break;
    }
  }
  mcx__mr_table_unlock(p);
  return r;
}

int mcx__mr_get(mcx__mr_kind_t kind, uint32_t id, uint32_t *hndl)
{
  return find_id(kind, id, MCX__MR_ID_ANY, hndl);
}

int mcx__mr_rmem_get(uint32_t id, uint32_t atype, uint32_t *hndl)
{
  return find_id(MCX__MR_RMEM, id, atype, hndl);
}

int mcx__mr_delete(mcx__mr_kind_t kind, uint32_t hndl)
{
  mcx__mr_slot_t *s;
  int r = mcx__mr_resolve(kind, hndl, &s, NULL);
  if (r != MCX_OK)
    return r; /* a second delete: *_DELETED with error_ext, else not a valid handle */
  mcx__mr_part_t *p = mcx__mr_me.d->p;
  int held_rule = p->profile == MCX__MR_PROFILE_MCA203;
  mcx__mr_table_lock(p);
  if (!s->used || (mcx_load_relaxed(&s->gen) & 0xffffu) != (hndl & 0xffffu)) {
    mcx__mr_table_unlock(p);
    return mcx__mr_closed(s); /* deleted meanwhile */
  }
  switch (kind) {
  case MCX__MR_MUTEX:
    /* mca-2.0.3: only its holder deletes it; spec: only when free. */
    r = held_rule ? (mcx__rmutex_delete_held(&s->u.mutex, mcx__mr_me.tid, 1) == MCX_OK ? MCX_OK : MCX_EBUSY)
                  : mcx__rmutex_mark_deleted(&s->u.mutex, 1);
    break;
  case MCX__MR_SEM:
    if (!held_rule) {
      r = mcx__sem_mark_deleted(&s->u.sem, 1);
    } else if (mcx_load_relaxed(&s->held[mcx__mr_me.nidx]) == 0) {
      r = MCX_EBUSY;
    } else {
      mcx__sem_delete_force(&s->u.sem, 1);
    }
    break;
  case MCX__MR_RWL:
    if (!held_rule) {
      r = mcx__rwl_mark_deleted(&s->u.rwl, 1);
    } else if (mcx_load_relaxed(&s->held[mcx__mr_me.nidx]) == 0 &&
               mcx_load_relaxed(&s->u.rwl.writer) != mcx__mr_me.tid) {
      r = MCX_EBUSY;
    } else {
      mcx__rwl_delete_force(&s->u.rwl, 1);
    }
    break;
  case MCX__MR_RMEM:
    /* spec: only its creator, and no other node attached; mca-2.0.3 (the
     * reference): any node, attached nodes are detached. */
    if (!held_rule && (s->owner_nidx != mcx__mr_me.nidx || s->owner_pid != mcx__mr_me.pid)) {
      r = MCX_EMR_NOTOWNER;
    } else {
      for (uint32_t i = 0; i < MCA_MAX_NODES && !held_rule; i++)
        if (i != mcx__mr_me.nidx && mcx_load_relaxed(&s->held[i]))
          r = MCX_EBUSY;
      if (r == MCX_OK)
        /* no transfer under way */
        mcx__rmutex_lock(&s->u.mutex, mcx__mr_me.tid, MCX_NO_DEADLINE, 1, &(uint32_t){0});
    }
    break;
  case MCX__MR_SHMEM:
    for (int w = 0; w < MCX__MR_NODE_WORDS; w++)
      if (s->attached[w])
        r = MCX_EBUSY;
    if (r == MCX_OK)
      mcx__mr_unlink_segment(p, s);
    break;
  }
  if (r == MCX_OK) {
    s->used = 0;
    uint32_t g = mcx_load_relaxed(&s->gen);
    mcx_store_release(&s->gen, (g + 1) & ~1u); /* D-R2 */
    if (kind == MCX__MR_RMEM)
      mcx__rmutex_unlock(&s->u.mutex, mcx__mr_me.tid, 1);
  }
  mcx__mr_table_unlock(p);
  return r;
}

int mcx__mr_attrs_of(mcx__mr_kind_t kind, uint32_t hndl, mcx__mr_attrs_t *out)
{
  mcx__mr_slot_t *s;
  int r = mcx__mr_resolve(kind, hndl, &s, NULL);
  if (r != MCX_OK)
    return r;
  out->recursive = s->recursive;
  out->error_ext = s->error_ext;
  out->domain_shared = s->domain_shared;
  out->limit = s->limit;
  return MCX_OK;
}

/* ------------------------------------------------------------ locking */

int mcx__mr_mutex_lock(uint32_t hndl, uint32_t timeout_ms, int32_t *key_out)
{
  mcx__mr_slot_t *s;
  int r = mcx__mr_resolve(MCX__MR_MUTEX, hndl, &s, NULL);
  if (r != MCX_OK)
    return r;
  uint32_t depth = 0;
  r = mcx__rmutex_lock(&s->u.mutex, mcx__mr_me.tid, deadline_of(timeout_ms), 1, &depth);
  if (r == MCX_ECLOSED)
    return mcx__mr_closed(s);
  if (r == MCX_OK || r == MCX_EOWNERDEAD)
    *key_out = (int32_t)depth - 1;
  return r;
}

int mcx__mr_mutex_unlock(uint32_t hndl, int32_t key)
{
  mcx__mr_slot_t *s;
  int r = mcx__mr_resolve(MCX__MR_MUTEX, hndl, &s, NULL);
  if (r != MCX_OK)
    return r;
  if (mcx__rmutex_owner(&s->u.mutex) != mcx__mr_me.tid)
    return MCX_EPERM;
  int32_t top = (int32_t)s->u.mutex.depth - 1; /* we own it: depth is ours to read */
  if (key != top)
    return (key >= 0 && key < top) ? MCX_EMR_LOCKORDER : MCX_EMR_KEY;
  r = mcx__rmutex_unlock(&s->u.mutex, mcx__mr_me.tid, 1);
  return r == MCX_ECLOSED ? mcx__mr_closed(s) : r;
}

/* Gives back what dead holders of @p s had, if any holder other than the
 * caller has died. The hold counts are a cheap first filter; liveness is
 * checked under the table lock. Returns objects recovered. */
static int recover_holders_of(mcx__mr_slot_t *s, int rwl)
{
  int any = rwl && mcx_load_relaxed(&s->u.rwl.writer) != 0;
  for (int i = 0; i < MCA_MAX_NODES && !any; i++)
    any = (uint32_t)i != mcx__mr_me.nidx && mcx_load_relaxed(&s->held[i]) != 0;
  if (!any)
    return 0;
  mcx__mr_part_t *p = mcx__mr_me.d->p;
  int dead = 0;
  mcx__mr_table_lock(p);
  uint32_t wtid = rwl ? mcx_load_relaxed(&s->u.rwl.writer) : 0;
  for (int i = 0; i < MCA_MAX_NODES && !dead; i++) {
    mcx__mr_node_t *n = &p->nodes[i];
    if (n->used &&
        ((mcx_load_relaxed(&s->held[i]) && (uint32_t)i != mcx__mr_me.nidx) || (wtid && n->tid == wtid)))
      dead = !mcx__mr_node_alive(n);
  }
  int r = dead ? mcx__mr_reap_dead_nodes(p) : 0;
  mcx__mr_table_unlock(p);
  return r;
}

/* Takes a unit (sem) or a hold (rwl), looking for dead holders whenever it
 * has waited a probe slice, or at once when it may not wait. */
static int lock_with_recovery(mcx__mr_slot_t *s, int rwl, int writer, uint32_t timeout_ms)
{
  uint64_t user_dl = deadline_of(timeout_ms);
  for (;;) {
    uint64_t dl = user_dl;
    if (dl != 0) {
      uint64_t probe = mcx_port_now_ns() + HOLDER_PROBE_NS;
      if (dl == MCX_NO_DEADLINE || dl > probe)
        dl = probe;
    }
    int r = rwl ? mcx__rwl_lock(&s->u.rwl, writer, mcx__mr_me.tid, dl, 1) : mcx__sem_lock(&s->u.sem, dl, 1);
    if (r == MCX_EAGAIN || (r == MCX_ETIMEDOUT && (user_dl == MCX_NO_DEADLINE || mcx_port_now_ns() < user_dl))) {
      if (recover_holders_of(s, rwl) > 0)
        continue;
      if (r == MCX_EAGAIN)
        return r;
      continue;
    }
    if (r != MCX_OK)
      return r;
    if (!writer)
      mcx_fetch_add_relaxed(&s->held[mcx__mr_me.nidx], 1u); /* bookkeeping, see mcx__mr_slot_t.held */
    /* H-A1 acquire: pairs with H-R1 (the recovery's release of the dead holder's units). */
    if (mcx_load_relaxed(&s->died) && mcx_exchange_acquire(&s->died, 0u))
      return MCX_EOWNERDEAD;
    return MCX_OK;
  }
}

/* Lowers a hold count before its release: the caller's own if it has one,
 * else another node's (semaphores may be unlocked by any node). */
static int drop_hold(mcx__mr_slot_t *s)
{
  uint32_t v = mcx_load_relaxed(&s->held[mcx__mr_me.nidx]);
  while (v) {
    if (mcx_cas_relaxed(&s->held[mcx__mr_me.nidx], &v, v - 1))
      return (int)mcx__mr_me.nidx;
  }
  for (int i = 0; i < MCA_MAX_NODES; i++) {
    v = mcx_load_relaxed(&s->held[i]);
    while (v) {
      if (mcx_cas_relaxed(&s->held[i], &v, v - 1))
        return i;
    }
  }
  return -1;
}

int mcx__mr_sem_lock(uint32_t hndl, uint32_t timeout_ms)
{
  mcx__mr_slot_t *s;
  int r = mcx__mr_resolve(MCX__MR_SEM, hndl, &s, NULL);
  if (r != MCX_OK)
    return r;
  r = lock_with_recovery(s, 0, 0, timeout_ms);
  return r == MCX_ECLOSED ? mcx__mr_closed(s) : r;
}

int mcx__mr_sem_unlock(uint32_t hndl)
{
  mcx__mr_slot_t *s;
  int r = mcx__mr_resolve(MCX__MR_SEM, hndl, &s, NULL);
  if (r != MCX_OK)
    return r;
  int from = drop_hold(s);
  r = mcx__sem_unlock(&s->u.sem, 1);
  if (r != MCX_OK && from >= 0)
    mcx_fetch_add_relaxed(&s->held[from], 1u); /* nothing was released: restore */
  return r == MCX_ECLOSED ? mcx__mr_closed(s) : r;
}

int mcx__mr_rwl_lock(uint32_t hndl, int writer, uint32_t timeout_ms)
{
  mcx__mr_slot_t *s;
  int r = mcx__mr_resolve(MCX__MR_RWL, hndl, &s, NULL);
  if (r != MCX_OK)
    return r;
  r = lock_with_recovery(s, 1, writer, timeout_ms);
  return r == MCX_ECLOSED ? mcx__mr_closed(s) : r;
}

int mcx__mr_rwl_unlock(uint32_t hndl, int writer)
{
  mcx__mr_slot_t *s;
  int r = mcx__mr_resolve(MCX__MR_RWL, hndl, &s, NULL);
  if (r != MCX_OK)
    return r;
  int from = writer ? -1 : drop_hold(s);
  r = mcx__rwl_unlock(&s->u.rwl, writer, mcx__mr_me.tid, 1);
  if (r != MCX_OK && from >= 0)
    mcx_fetch_add_relaxed(&s->held[from], 1u); /* nothing was released: restore */
  return r == MCX_ECLOSED ? mcx__mr_closed(s) : r;
}
