/* SPDX-License-Identifier: BSD-3-Clause */
/* MRAPI runtime: per-domain partition, node registry, object tables, handles.
 *
 * Partition: POSIX shared memory "/mcx-mrapi-<uid>-<domain>", mode 0600,
 * created by the first node (O_EXCL), removed by the last mrapi_finalize().
 * A partition left by a crashed run is recognized at the next initialize: the
 * table lock is robust, nodes whose thread no longer runs are reaped, and when
 * no live node remains the tables are reset (their segments unlinked).
 *
 * Memory-order pairs:
 *   D-R0 release (creator: ready = 1 after laying out) pairs with D-A0 acquire
 *        (openers read ready before touching the tables).
 *   D-R1 release (gen bumped to odd after an object is initialized, under the
 *        table lock) pairs with D-A1 acquire (handle check before using it).
 *   D-R2 release (gen bumped to even at delete) pairs with D-A1 too: a handle
 *        holder that sees the new gen knows the object is gone.
 *   Table fields other than gen are only touched under the table lock, whose
 *   acquire/release (M-A1/M-R1 in mrapi_prim.c) orders them.
 *   P-R0 release (proc.pid = ours after a reset) pairs with P-A0 acquire.
 */
#include "sync/mrapi_domain.h"

#include <stdio.h>
#include <string.h>

#include "mrapi_impl_spec.h"
#include "ports/mcx_port.h"
#include "ports/mcx_port_shm.h"
#include "sync/mrapi_prim.h"

#define PART_MAGIC 0x4d524150u /* "MRAP" */
#define PART_INITIALIZING 0u
#define PART_READY 1u
#define PART_CLOSING 2u
#define ID_ANY 0xffffffffu
#define NODE_WORDS ((MCA_MAX_NODES + 63) / 64)
/* How long an opener waits for a creator to finish before calling it dead. */
#define CREATOR_GRACE_NS 2000000000ull

typedef struct mr_node {
  uint32_t used;
  uint32_t node_id;
  uint32_t pid;
  uint32_t tid;
} mr_node_t;

/* One object. The primitive's word is written by every user; the rest of the
 * line is read-mostly (written at create/delete under the table lock). */
typedef struct mr_slot {
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
  uint64_t attached[NODE_WORDS]; /* shmem: node slots attached; under the table lock */
} mr_slot_t;

typedef struct mr_part {
  uint32_t magic;
  uint32_t layout; /* sizeof(mr_part_t): processes built with other limits are refused */
  uint32_t creator_pid;
  uint32_t domain;
  mcx_atomic_u32 ready; /* D-R0 / D-A0 */
  MCX_ALIGNED_LINE mcx__rmutex_t tlock; /* robust table lock */
  uint32_t nnodes;
  uint32_t next_any_id;
  uint32_t shm_seq;
  uint32_t recoveries; /* stale partitions recovered (diagnostics) */
  mr_node_t nodes[MCA_MAX_NODES];
  mr_slot_t mutexes[MRAPI_MAX_MUTEXES];
  mr_slot_t sems[MRAPI_MAX_SEMS];
  mr_slot_t rwls[MRAPI_MAX_RWLS];
  mr_slot_t shmems[MRAPI_MAX_SHMEMS];
} mr_part_t;

/* Per process: the domains it has joined and the segments it has mapped. */
typedef struct mr_dom {
  uint32_t domain;
  uint32_t nlocal; /* nodes of this process in the domain; 0 = entry free */
  mr_part_t *p;
  void *seg_addr[MRAPI_MAX_SHMEMS];
  size_t seg_size[MRAPI_MAX_SHMEMS];
  uint32_t seg_gen[MRAPI_MAX_SHMEMS];
  uint32_t seg_refs[MRAPI_MAX_SHMEMS];
} mr_dom_t;

static struct {
  mcx_atomic_u32 pid; /* P-R0 / P-A0; bit 31 while being reset */
  mcx__rmutex_t lock; /* process-private */
  mr_dom_t dom[MCA_MAX_DOMAINS];
} proc;

static _Thread_local struct {
  uint32_t pid;
  uint32_t fork_gen; /* a fork()ed child is not its parent's node: generations differ */
  uint32_t tid;
  mr_dom_t *d;
  uint32_t nidx;
  uint32_t node_id;
} me;

/* ------------------------------------------------------------ helpers */

void mcx__mr_partition_name(uint32_t domain, char *buf, size_t n)
{
  snprintf(buf, n, "/mcx-mrapi-%u-%u", mcx_port_uid(), domain);
}

static void segment_name(uint32_t domain, uint32_t seq, char *buf, size_t n)
{
  snprintf(buf, n, "/mcx-mrapi-%u-%u-s%u", mcx_port_uid(), domain, seq);
}

static void proc_enter(void)
{
  uint32_t mypid = mcx_port_pid();
  /* P-A0 acquire: pairs with P-R0 below (the reset state is visible). */
  uint32_t seen = mcx_load_acquire(&proc.pid);
  if (seen != mypid) {
    /* First use, or first use after fork(): the copied lock may be held by a
     * thread that does not exist here. One thread resets; others wait. */
    if ((seen & 0x80000000u) == 0 && mcx_cas_acq_rel(&proc.pid, &seen, mypid | 0x80000000u)) {
      memset(proc.dom, 0, sizeof proc.dom); /* a child leaks its parent's mappings: harmless */
      mcx__rmutex_init(&proc.lock, 0);
      mcx_store_release(&proc.pid, mypid); /* P-R0 */
    } else {
      while (mcx_load_acquire(&proc.pid) != mypid) /* P-A0 */
        mcx_port_yield();
    }
  }
  uint32_t depth;
  mcx__rmutex_lock(&proc.lock, mcx_port_tid(), MCX_NO_DEADLINE, 0, &depth);
}

static void proc_leave(void) { mcx__rmutex_unlock(&proc.lock, mcx_port_tid(), 0); }

static int is_node(void) { return me.d != NULL && me.fork_gen == mcx_port_fork_generation(); }

static void table_lock(mr_part_t *p)
{
  uint32_t depth;
  int r = mcx__rmutex_lock(&p->tlock, me.tid ? me.tid : mcx_port_tid(), MCX_NO_DEADLINE, 1, &depth);
  if (r == MCX_EOWNERDEAD) {
    /* A process died inside a table update. Updates publish with one gen
     * store at the end, so a half-made entry is either invisible or complete. */
    mcx_port_log("mrapi: previous holder of the domain table lock died; continuing");
  }
}

static void table_unlock(mr_part_t *p) { mcx__rmutex_unlock(&p->tlock, me.tid ? me.tid : mcx_port_tid(), 1); }

static mr_slot_t *table_of(mr_part_t *p, mcx__mr_kind_t kind, uint32_t *n)
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
  }
  *n = 0;
  return NULL;
}

static uint32_t make_handle(mcx__mr_kind_t kind, uint32_t slot, uint32_t gen)
{
  return ((uint32_t)kind << 28) | (slot << 16) | (gen & 0xffffu);
}

/* Resolves a handle. MCX_EINVAL garbage / other kind, MCX_ESTALE deleted. */
static int resolve(mcx__mr_kind_t kind, uint32_t h, mr_slot_t **out, uint32_t *slot_out)
{
  if (!is_node())
    return MCX_ENOENT;
  uint32_t n;
  mr_slot_t *t = table_of(me.d->p, kind, &n);
  uint32_t slot = (h >> 16) & 0xfffu;
  if ((h >> 28) != (uint32_t)kind || slot >= n || (h & 1u) == 0)
    return MCX_EINVAL;
  mr_slot_t *s = &t[slot];
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
static int closed(const mr_slot_t *s) { return s->error_ext ? MCX_ESTALE : MCX_EINVAL; }

static uint64_t deadline_of(uint32_t timeout_ms)
{
  if (timeout_ms == 0)
    return 0;
  return mcx_port_deadline_ms(timeout_ms);
}

static void unlink_segment(mr_part_t *p, mr_slot_t *s)
{
  char name[MCX_PORT_SHM_NAME_MAX];
  segment_name(p->domain, s->shm_seq, name, sizeof name);
  mcx_port_shm_unlink(name);
}

/* Empties every table (no live node is left). Under the table lock. */
static void reset_tables(mr_part_t *p)
{
  mr_slot_t *tabs[4] = {p->mutexes, p->sems, p->rwls, p->shmems};
  uint32_t ns[4] = {MRAPI_MAX_MUTEXES, MRAPI_MAX_SEMS, MRAPI_MAX_RWLS, MRAPI_MAX_SHMEMS};
  for (int k = 0; k < 4; k++) {
    for (uint32_t i = 0; i < ns[k]; i++) {
      mr_slot_t *s = &tabs[k][i];
      if (!s->used)
        continue;
      if (k == 3)
        unlink_segment(p, s);
      s->used = 0;
      memset(s->attached, 0, sizeof s->attached);
      uint32_t g = mcx_load_relaxed(&s->gen);
      mcx_store_release(&s->gen, (g + 1) & ~1u); /* D-R2 */
    }
  }
}

/* ------------------------------------------------------------ partition */

static void part_layout(mr_part_t *p, uint32_t domain)
{
  p->layout = (uint32_t)sizeof(mr_part_t);
  p->creator_pid = mcx_port_pid();
  p->domain = domain;
  p->next_any_id = 0x40000000u;
  mcx__rmutex_init(&p->tlock, 0);
  p->magic = PART_MAGIC;
  mcx_store_release(&p->ready, PART_READY); /* D-R0: pairs with D-A0 in part_open */
}

/* Opens or creates the partition of @p domain and maps it. */
static int part_open(uint32_t domain, mr_part_t **out)
{
  char name[MCX_PORT_SHM_NAME_MAX];
  mcx__mr_partition_name(domain, name, sizeof name);
  uint64_t first_wait = 0;
  for (int attempt = 0; attempt < 100000; attempt++) {
    mcx_port_shm_t shm;
    int r = mcx_port_shm_create(name, sizeof(mr_part_t), &shm);
    if (r == MCX_OK) {
      mr_part_t *p = mcx_port_shm_map(&shm, sizeof(mr_part_t));
      mcx_port_shm_close(&shm);
      if (!p) {
        mcx_port_shm_unlink(name);
        return MCX_EIO;
      }
      part_layout(p, domain);
      *out = p;
      return MCX_OK;
    }
    if (r != MCX_EEXIST)
      return r == MCX_EINVAL ? MCX_EIO : r;
    r = mcx_port_shm_open(name, sizeof(mr_part_t), &shm);
    if (r == MCX_ENOENT)
      continue; /* removed between our create and open: try creating again */
    if (r == MCX_EPERM)
      return MCX_EPERM;
    uint64_t now = mcx_port_now_ns();
    if (!first_wait)
      first_wait = now;
    if (r == MCX_EAGAIN) {
      /* Not sized yet: a creator is at work, or died right after creating. */
      if (now - first_wait > CREATOR_GRACE_NS) {
        mcx_port_shm_unlink(name);
        first_wait = 0;
        continue;
      }
      mcx_port_sleep_ns(1000000);
      continue;
    }
    if (r != MCX_OK)
      return r;
    if (shm.size != sizeof(mr_part_t)) {
      /* Another build's layout. If nobody of that build is alive it is stale. */
      mcx_port_shm_close(&shm);
      mcx_port_log("mrapi: partition %s has another layout (%zu bytes, expected %zu)", name,
                   shm.size, sizeof(mr_part_t));
      return MCX_EIO;
    }
    mr_part_t *p = mcx_port_shm_map(&shm, sizeof(mr_part_t));
    mcx_port_shm_close(&shm);
    if (!p)
      return MCX_EIO;
    /* D-A0 acquire: pairs with D-R0 (the layout is complete). */
    uint32_t ready = mcx_load_acquire(&p->ready);
    if (ready == PART_READY && p->magic == PART_MAGIC) {
      *out = p;
      return MCX_OK;
    }
    if (ready == PART_INITIALIZING) {
      uint32_t creator = p->creator_pid;
      if (now - first_wait > CREATOR_GRACE_NS || (creator && !mcx_port_tid_alive(creator))) {
        mcx_port_log("mrapi: removing partition %s whose creator died", name);
        mcx_port_shm_unlink(name);
        first_wait = 0;
      } else {
        mcx_port_sleep_ns(1000000);
      }
    }
    /* PART_CLOSING: the last node is removing it; the name frees up shortly. */
    mcx_port_shm_unmap(p, sizeof(mr_part_t));
    if (ready == PART_CLOSING)
      mcx_port_yield();
  }
  return MCX_EIO;
}

/* ------------------------------------------------------------ nodes */

/* Drops nodes whose thread is gone (crashed, or exited without finalize).
 * Under the table lock. Mutexes they held are recovered by their next locker. */
static void reap_dead_nodes(mr_part_t *p)
{
  for (int i = 0; i < MCA_MAX_NODES; i++) {
    mr_node_t *n = &p->nodes[i];
    if (n->used && !mcx_port_tid_alive(n->tid)) {
      n->used = 0;
      p->nnodes--;
      for (uint32_t k = 0; k < MRAPI_MAX_SHMEMS; k++)
        p->shmems[k].attached[i / 64] &= ~(1ull << (i % 64));
    }
  }
}

int mcx__mr_initialize(uint32_t domain, uint32_t node)
{
  if (is_node())
    return MCX_EEXIST;
  uint32_t tid = mcx_port_tid();
  me.tid = tid;
  proc_enter();
  int r = MCX_OK;
  mr_dom_t *d = NULL;
  for (;;) {
    d = NULL;
    for (int i = 0; i < MCA_MAX_DOMAINS; i++)
      if (proc.dom[i].nlocal && proc.dom[i].domain == domain)
        d = &proc.dom[i];
    int fresh = 0;
    if (!d) {
      for (int i = 0; i < MCA_MAX_DOMAINS && !d; i++)
        if (!proc.dom[i].nlocal)
          d = &proc.dom[i];
      if (!d) {
        r = MCX_ENOMEM;
        break;
      }
      memset(d, 0, sizeof *d);
      r = part_open(domain, &d->p);
      if (r != MCX_OK)
        break;
      d->domain = domain;
      fresh = 1;
    }
    mr_part_t *p = d->p;
    table_lock(p);
    if (mcx_load_acquire(&p->ready) != PART_READY) { /* D-A0: closing under us */
      table_unlock(p);
      if (fresh)
        mcx_port_shm_unmap(p, sizeof(mr_part_t));
      continue;
    }
    reap_dead_nodes(p);
    if (p->nnodes == 0) {
      /* No live node: whatever the tables hold belongs to a crashed run. */
      int leftovers = 0;
      for (int kind = MCX__MR_MUTEX; kind <= MCX__MR_SHMEM; kind++) {
        uint32_t n;
        mr_slot_t *t = table_of(p, (mcx__mr_kind_t)kind, &n);
        for (uint32_t k = 0; k < n; k++)
          leftovers |= (int)t[k].used;
      }
      if (leftovers) {
        p->recoveries++;
        mcx_port_log("mrapi: domain %u: recovered objects of a crashed run", domain);
      }
      reset_tables(p);
    }
    int free_slot = -1;
    for (int i = 0; i < MCA_MAX_NODES; i++) {
      if (p->nodes[i].used && p->nodes[i].node_id == node) {
        r = MCX_EBUSY;
        break;
      }
      if (!p->nodes[i].used && free_slot < 0)
        free_slot = i;
    }
    if (r == MCX_OK && free_slot < 0)
      r = MCX_ENOMEM;
    if (r == MCX_OK) {
      mr_node_t *n = &p->nodes[free_slot];
      n->used = 1;
      n->node_id = node;
      n->pid = mcx_port_pid();
      n->tid = tid;
      p->nnodes++;
      d->nlocal++;
      me.pid = mcx_port_pid();
      me.fork_gen = mcx_port_fork_generation();
      me.d = d;
      me.nidx = (uint32_t)free_slot;
      me.node_id = node;
    }
    uint32_t left = p->nnodes;
    table_unlock(p);
    if (r != MCX_OK && fresh) {
      if (left == 0) {
        /* We created (or revived) it for nothing: do not leave it behind. */
        table_lock(p);
        if (p->nnodes == 0) {
          mcx_store_relaxed(&p->ready, PART_CLOSING);
          char name[MCX_PORT_SHM_NAME_MAX];
          mcx__mr_partition_name(domain, name, sizeof name);
          mcx_port_shm_unlink(name);
        }
        table_unlock(p);
      }
      mcx_port_shm_unmap(p, sizeof(mr_part_t));
      memset(d, 0, sizeof *d);
    }
    break;
  }
  proc_leave();
  return r;
}

int mcx__mr_finalize(void)
{
  if (!is_node())
    return MCX_ENOENT;
  proc_enter();
  mr_dom_t *d = me.d;
  mr_part_t *p = d->p;
  uint32_t ni = me.nidx;
  table_lock(p);
  for (uint32_t k = 0; k < MRAPI_MAX_SHMEMS; k++) {
    mr_slot_t *s = &p->shmems[k];
    if (s->used && (s->attached[ni / 64] & (1ull << (ni % 64)))) {
      s->attached[ni / 64] &= ~(1ull << (ni % 64));
      if (d->seg_refs[k] && --d->seg_refs[k] == 0) {
        mcx_port_shm_unmap(d->seg_addr[k], d->seg_size[k]);
        d->seg_addr[k] = NULL;
      }
    }
  }
  p->nodes[ni].used = 0;
  p->nnodes--;
  reap_dead_nodes(p);
  if (p->nnodes == 0) {
    /* Last node of the domain: remove everything it owns. */
    mcx_store_relaxed(&p->ready, PART_CLOSING); /* read under the table lock by openers */
    reset_tables(p);
    char name[MCX_PORT_SHM_NAME_MAX];
    mcx__mr_partition_name(d->domain, name, sizeof name);
    mcx_port_shm_unlink(name);
  }
  table_unlock(p);
  if (--d->nlocal == 0) {
    for (uint32_t k = 0; k < MRAPI_MAX_SHMEMS; k++)
      if (d->seg_addr[k])
        mcx_port_shm_unmap(d->seg_addr[k], d->seg_size[k]);
    mcx_port_shm_unmap(p, sizeof(mr_part_t));
    memset(d, 0, sizeof *d);
  }
  me.d = NULL;
  me.pid = 0;
  proc_leave();
  return MCX_OK;
}

int mcx__mr_whoami(uint32_t *domain, uint32_t *node)
{
  if (!is_node())
    return MCX_ENOENT;
  *domain = me.d->domain;
  *node = me.node_id;
  return MCX_OK;
}

/* ------------------------------------------------------------ objects */

int mcx__mr_create(mcx__mr_kind_t kind, uint32_t id, const mcx__mr_attrs_t *a, uint32_t *hndl)
{
  if (!is_node())
    return MCX_ENOENT;
  mr_part_t *p = me.d->p;
  uint32_t n;
  mr_slot_t *t = table_of(p, kind, &n);
  if (!t)
    return MCX_EINVAL;
  int r = MCX_OK;
  table_lock(p);
  if (id == ID_ANY) {
    /* Pick an id no live object of this kind uses. */
    for (int tries = 0; tries < 1000 && id == ID_ANY; tries++) {
      uint32_t cand = p->next_any_id++ | 0x40000000u;
      int taken = cand == ID_ANY;
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
    mr_slot_t *s = &t[free_slot];
    s->id = id;
    s->recursive = a->recursive;
    s->error_ext = a->error_ext;
    s->domain_shared = a->domain_shared;
    s->limit = a->limit;
    memset(s->attached, 0, sizeof s->attached);
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
      segment_name(p->domain, s->shm_seq, name, sizeof name);
      mcx_port_shm_unlink(name); /* a leftover of a crashed run under the same number */
      r = mcx_port_shm_create(name, a->limit, &shm);
      if (r == MCX_OK)
        mcx_port_shm_close(&shm);
      else
        r = MCX_EIO;
      break;
    }
    }
    if (r == MCX_OK) {
      s->used = 1;
      uint32_t g = (mcx_load_relaxed(&s->gen) + 1) | 1u;
      /* D-R1 release: the initialized object before the handle validates. */
      mcx_store_release(&s->gen, g);
      *hndl = make_handle(kind, (uint32_t)free_slot, g);
    }
  }
  table_unlock(p);
  return r;
}

int mcx__mr_get(mcx__mr_kind_t kind, uint32_t id, uint32_t *hndl)
{
  if (!is_node())
    return MCX_ENOENT;
  mr_part_t *p = me.d->p;
  uint32_t n;
  mr_slot_t *t = table_of(p, kind, &n);
  int r = MCX_EINVAL;
  table_lock(p);
  for (uint32_t i = 0; t && i < n; i++) {
    if (t[i].used && t[i].id == id) {
      *hndl = make_handle(kind, i, mcx_load_relaxed(&t[i].gen)); /* under the table lock */
      r = MCX_OK;
      break;
    }
  }
  table_unlock(p);
  return r;
}

int mcx__mr_delete(mcx__mr_kind_t kind, uint32_t hndl)
{
  mr_slot_t *s;
  int r = resolve(kind, hndl, &s, NULL);
  if (r != MCX_OK)
    return r == MCX_ESTALE ? MCX_EINVAL : r; /* a second delete: not a valid handle */
  mr_part_t *p = me.d->p;
  table_lock(p);
  if (!s->used || (mcx_load_relaxed(&s->gen) & 0xffffu) != (hndl & 0xffffu)) {
    table_unlock(p);
    return MCX_EINVAL; /* deleted meanwhile */
  }
  switch (kind) {
  case MCX__MR_MUTEX:
    r = mcx__rmutex_mark_deleted(&s->u.mutex, 1);
    break;
  case MCX__MR_SEM:
    r = mcx__sem_mark_deleted(&s->u.sem, 1);
    break;
  case MCX__MR_RWL:
    r = mcx__rwl_mark_deleted(&s->u.rwl, 1);
    break;
  case MCX__MR_SHMEM:
    for (int w = 0; w < NODE_WORDS; w++)
      if (s->attached[w])
        r = MCX_EBUSY;
    if (r == MCX_OK)
      unlink_segment(p, s);
    break;
  }
  if (r == MCX_OK) {
    s->used = 0;
    uint32_t g = mcx_load_relaxed(&s->gen);
    mcx_store_release(&s->gen, (g + 1) & ~1u); /* D-R2 */
  }
  table_unlock(p);
  return r;
}

int mcx__mr_attrs_of(mcx__mr_kind_t kind, uint32_t hndl, mcx__mr_attrs_t *out)
{
  mr_slot_t *s;
  int r = resolve(kind, hndl, &s, NULL);
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
  mr_slot_t *s;
  int r = resolve(MCX__MR_MUTEX, hndl, &s, NULL);
  if (r != MCX_OK)
    return r;
  uint32_t depth = 0;
  r = mcx__rmutex_lock(&s->u.mutex, me.tid, deadline_of(timeout_ms), 1, &depth);
  if (r == MCX_ECLOSED)
    return closed(s);
  if (r == MCX_OK || r == MCX_EOWNERDEAD)
    *key_out = (int32_t)depth - 1;
  return r;
}

int mcx__mr_mutex_unlock(uint32_t hndl, int32_t key)
{
  mr_slot_t *s;
  int r = resolve(MCX__MR_MUTEX, hndl, &s, NULL);
  if (r != MCX_OK)
    return r;
  if (mcx__rmutex_owner(&s->u.mutex) != me.tid)
    return MCX_EPERM;
  int32_t top = (int32_t)s->u.mutex.depth - 1; /* we own it: depth is ours to read */
  if (key != top)
    return (key >= 0 && key < top) ? MCX_EMR_LOCKORDER : MCX_EMR_KEY;
  r = mcx__rmutex_unlock(&s->u.mutex, me.tid, 1);
  return r == MCX_ECLOSED ? closed(s) : r;
}

int mcx__mr_sem_lock(uint32_t hndl, uint32_t timeout_ms)
{
  mr_slot_t *s;
  int r = resolve(MCX__MR_SEM, hndl, &s, NULL);
  if (r != MCX_OK)
    return r;
  r = mcx__sem_lock(&s->u.sem, deadline_of(timeout_ms), 1);
  return r == MCX_ECLOSED ? closed(s) : r;
}

int mcx__mr_sem_unlock(uint32_t hndl)
{
  mr_slot_t *s;
  int r = resolve(MCX__MR_SEM, hndl, &s, NULL);
  if (r != MCX_OK)
    return r;
  r = mcx__sem_unlock(&s->u.sem, 1);
  return r == MCX_ECLOSED ? closed(s) : r;
}

int mcx__mr_rwl_lock(uint32_t hndl, int writer, uint32_t timeout_ms)
{
  mr_slot_t *s;
  int r = resolve(MCX__MR_RWL, hndl, &s, NULL);
  if (r != MCX_OK)
    return r;
  r = mcx__rwl_lock(&s->u.rwl, writer, me.tid, deadline_of(timeout_ms), 1);
  return r == MCX_ECLOSED ? closed(s) : r;
}

int mcx__mr_rwl_unlock(uint32_t hndl, int writer)
{
  mr_slot_t *s;
  int r = resolve(MCX__MR_RWL, hndl, &s, NULL);
  if (r != MCX_OK)
    return r;
  r = mcx__rwl_unlock(&s->u.rwl, writer, me.tid, 1);
  return r == MCX_ECLOSED ? closed(s) : r;
}

/* ------------------------------------------------------------ shared memory */

int mcx__mr_shmem_attach(uint32_t hndl, void **addr)
{
  mr_slot_t *s;
  uint32_t k;
  int r = resolve(MCX__MR_SHMEM, hndl, &s, &k);
  if (r != MCX_OK)
    return r;
  proc_enter();
  mr_dom_t *d = me.d;
  mr_part_t *p = d->p;
  uint32_t ni = me.nidx;
  table_lock(p);
  if (!s->used || (mcx_load_relaxed(&s->gen) & 0xffffu) != (hndl & 0xffffu)) {
    r = closed(s);
  } else if (s->attached[ni / 64] & (1ull << (ni % 64))) {
    r = MCX_EMR_ATTACHED;
  } else {
    uint32_t g = mcx_load_relaxed(&s->gen);
    if (d->seg_addr[k] && d->seg_gen[k] != g) {
      /* A mapping of an earlier segment in this slot, left by a node that
       * never detached: drop it. */
      mcx_port_shm_unmap(d->seg_addr[k], d->seg_size[k]);
      d->seg_addr[k] = NULL;
      d->seg_refs[k] = 0;
    }
    if (!d->seg_addr[k]) {
      char name[MCX_PORT_SHM_NAME_MAX];
      mcx_port_shm_t shm;
      segment_name(p->domain, s->shm_seq, name, sizeof name);
      r = mcx_port_shm_open(name, s->limit, &shm);
      if (r == MCX_OK) {
        d->seg_addr[k] = mcx_port_shm_map(&shm, s->limit);
        mcx_port_shm_close(&shm);
        if (!d->seg_addr[k])
          r = MCX_EIO;
      } else {
        r = MCX_EIO;
      }
      d->seg_size[k] = s->limit;
      d->seg_gen[k] = g;
      d->seg_refs[k] = 0;
    }
    if (r == MCX_OK) {
      d->seg_refs[k]++;
      s->attached[ni / 64] |= 1ull << (ni % 64);
      *addr = d->seg_addr[k];
    }
  }
  table_unlock(p);
  proc_leave();
  return r;
}

int mcx__mr_shmem_detach(uint32_t hndl)
{
  mr_slot_t *s;
  uint32_t k;
  int r = resolve(MCX__MR_SHMEM, hndl, &s, &k);
  if (r != MCX_OK)
    return r;
  proc_enter();
  mr_dom_t *d = me.d;
  mr_part_t *p = d->p;
  uint32_t ni = me.nidx;
  table_lock(p);
  if (!(s->attached[ni / 64] & (1ull << (ni % 64)))) {
    r = MCX_EMR_NOTATTACHED;
  } else {
    s->attached[ni / 64] &= ~(1ull << (ni % 64));
    if (d->seg_refs[k] && --d->seg_refs[k] == 0) {
      mcx_port_shm_unmap(d->seg_addr[k], d->seg_size[k]);
      d->seg_addr[k] = NULL;
    }
  }
  table_unlock(p);
  proc_leave();
  return r;
}
