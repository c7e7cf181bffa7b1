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
#include "mrapi/mrapi_domain.h"

#include <stdio.h>
#include <string.h>

#include "mrapi_impl_spec.h"
#include "ports/mcx_port.h"
#include "ports/mcx_port_mrapi.h"
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
/* How long a semaphore / rwlock waiter sleeps before looking for dead holders. */
#define HOLDER_PROBE_NS 20000000ull

typedef struct mr_node {
  uint32_t used;
  uint32_t node_id;
  uint32_t pid;
  uint32_t tid;
  uint64_t start; /* the thread's start time: tid + start name it even after the tid is recycled */
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
  uint32_t profile;    /* MCX__MR_PROFILE_*: set by the creator, read-only after */
  uint32_t held_recoveries; /* dead holders whose units were given back (diagnostics) */
  mr_node_t nodes[MCA_MAX_NODES];
  mr_slot_t mutexes[MRAPI_MAX_MUTEXES];
  mr_slot_t sems[MRAPI_MAX_SEMS];
  mr_slot_t rwls[MRAPI_MAX_RWLS];
  mr_slot_t shmems[MRAPI_MAX_SHMEMS];
  mr_slot_t rmems[MRAPI_MAX_RMEMS];
} mr_part_t;

/* Per process: the domains it has joined and the segments it has mapped. */
typedef struct mr_dom {
  uint32_t domain;
  uint32_t nlocal; /* nodes of this process in the domain; 0 = entry free */
  /* Bumped whenever the entry is emptied (dom_clear): a node that recorded
   * another value is no longer one (its entry was dropped, see dom_drop).
   * Relaxed: a flag that publishes nothing; the entry itself is guarded by proc.lock. */
  mcx_atomic_u32 gen;
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
  uint32_t dgen; /* d->gen when this thread became a node */
  uint32_t nidx;
  uint32_t node_id;
} me;

/* ------------------------------------------------------------ helpers */

static mcx_atomic_u32 debug_level;

void mcx__mr_set_debug(int level) { mcx_store_relaxed(&debug_level, level < 0 ? 0u : (uint32_t)level); }
int mcx__mr_debug(void) { return (int)mcx_load_relaxed(&debug_level); }

/* The namespace part of every name (MCX_NAMESPACE, as MCAPI partitions use
 * it): unrelated runs with the same domain id do not meet. Names must fit
 * MCX_PORT_SHM_NAME_MAX: a namespace longer than 24 characters is kept as its
 * first 15 and a hash of the whole, so long names that share a prefix stay
 * apart. */
static const char *ns_of(char *clean, size_t n)
{
  const char *ns = mcx_port_getenv("MCX_NAMESPACE");
  size_t k = 0;
  uint32_t h = 2166136261u; /* FNV-1a over the whole value */
  for (; ns && *ns; ns++) {
    char c = *ns;
    h = (h ^ (uint8_t)c) * 16777619u;
    if (k < n - 1 && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                      c == '_'))
      clean[k++] = c;
  }
  if (k > 24)
    k = 15 + (size_t)snprintf(clean + 15, n - 15, "-%08x", h);
  clean[k] = 0;
  return k ? clean : "default";
}

void mcx__mr_partition_name(uint32_t domain, char *buf, size_t n)
{
  char ns[36];
  snprintf(buf, n, "/mcx-mrapi-%u-%s-%u", mcx_port_uid(), ns_of(ns, sizeof ns), domain);
}

static void segment_name(uint32_t domain, uint32_t seq, char *buf, size_t n)
{
  char ns[36];
  snprintf(buf, n, "/mcx-mrapi-%u-%s-%u-s%u", mcx_port_uid(), ns_of(ns, sizeof ns), domain, seq);
}

/* MRAPI's profile, read from MCX_COMPAT with the names the MCAPI runtime
 * accepts ("spec", "mca-2.0.3"); an unknown value keeps the default. */
static uint32_t profile_from_env(void)
{
  const char *v = mcx_port_getenv("MCX_COMPAT");
  if (v && strcmp(v, "mca-2.0.3") == 0)
    return MCX__MR_PROFILE_MCA203;
  if (v && *v && strcmp(v, "spec") != 0)
    mcx_port_log("mrapi: MCX_COMPAT=%s is not a profile (spec, mca-2.0.3): using spec", v);
  return MCX__MR_PROFILE_SPEC;
}

static void proc_enter(void)
{
  uint32_t mypid = mcx_port_pid();
  /* P-A0 acquire: pairs with P-R0 below (the reset state is visible). */
  uint32_t seen = mcx_load_acquire(&proc.pid);
  if (seen != mypid) {
    /* First use, or first use after fork(): the copied lock may be held by a
     * thread that does not exist here. One thread resets; others wait. */
    /* A reset marked by another process (fork() came in the middle of the
     * parent's reset) is not ours to wait for: take it over. */
    int ours_resetting = (seen & 0x80000000u) && (seen & 0x7fffffffu) == mypid;
    if (!ours_resetting && mcx_cas_acq_rel(&proc.pid, &seen, mypid | 0x80000000u)) {
      memset(proc.dom, 0, sizeof proc.dom); /* a child leaks its parent's mappings: harmless */
      mcx__rmutex_init(&proc.lock, 0);
      mcx_store_release(&proc.pid, mypid); /* P-R0 */
    } else {
      while ((seen = mcx_load_acquire(&proc.pid)) != mypid) { /* P-A0 */
        if (!((seen & 0x80000000u) && (seen & 0x7fffffffu) == mypid)) {
          proc_enter();
          return;
        }
        mcx_port_yield();
      }
    }
  }
  uint32_t depth;
  mcx__rmutex_lock(&proc.lock, mcx_port_tid(), MCX_NO_DEADLINE, 0, &depth);
}

static void proc_leave(void) { mcx__rmutex_unlock(&proc.lock, mcx_port_tid(), 0); }

static int is_node(void)
{
  return me.d != NULL && me.fork_gen == mcx_port_fork_generation() && mcx_load_relaxed(&me.d->gen) == me.dgen;
}

/* Empties a proc.dom entry (under proc.lock). */
static void dom_clear(mr_dom_t *d)
{
  uint32_t g = mcx_load_relaxed(&d->gen) + 1;
  memset(d, 0, sizeof *d);
  mcx_store_relaxed(&d->gen, g);
}

/* This process's entry names a partition that was closed: every node of the
 * process in it was reaped as gone (their threads exited without
 * mrapi_finalize, or - on a system whose thread liveness cannot be read
 * right - were wrongly taken for gone), so its last live node closed it. The
 * entry is emptied so that the domain can be joined anew. Its mappings stay:
 * a node wrongly reaped may still be using them; from now on it is no node
 * (is_node compares the generation). Under proc.lock. */
static void dom_drop(mr_dom_t *d)
{
  mcx_port_log("mrapi: domain %u was closed while this process counted %u node(s) in it (taken for gone); "
               "joining anew",
               d->domain, d->nlocal);
  dom_clear(d);
}

/* Whether the thread of node @p n still runs (not merely its tid, which the
 * kernel recycles). */
static int node_alive(const mr_node_t *n)
{
  uint64_t st = mcx_port_tid_start(n->tid);
  return st != 0 && (n->start == 0 || st == n->start);
}

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
  case MCX__MR_RMEM:
    *n = MRAPI_MAX_RMEMS;
    return p->rmems;
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
  mr_slot_t *tabs[5] = {p->mutexes, p->sems, p->rwls, p->shmems, p->rmems};
  uint32_t ns[5] = {MRAPI_MAX_MUTEXES, MRAPI_MAX_SEMS, MRAPI_MAX_RWLS, MRAPI_MAX_SHMEMS, MRAPI_MAX_RMEMS};
  for (int k = 0; k < 5; k++) {
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
  p->profile = profile_from_env();
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

/* Gives back the semaphore units and rwlock holds of node slot @p i (dead,
 * thread id @p tid). Under the table lock. Returns how many objects it touched. */
static int release_holds(mr_part_t *p, int i, uint32_t tid)
{
  int touched = 0;
  for (uint32_t k = 0; k < MRAPI_MAX_SEMS; k++) {
    mr_slot_t *s = &p->sems[k];
    uint32_t n = mcx_exchange_acq_rel(&s->held[i], 0u); /* pairs with the holders' relaxed updates: bookkeeping */
    if (!s->used || n == 0)
      continue;
    for (uint32_t u = 0; u < n; u++)
      mcx__sem_unlock(&s->u.sem, 1);
    mcx_store_release(&s->died, 1u); /* H-R1: pairs with H-A1 in the next locker */
    touched++;
  }
  for (uint32_t k = 0; k < MRAPI_MAX_RWLS; k++) {
    mr_slot_t *s = &p->rwls[k];
    uint32_t n = mcx_exchange_acq_rel(&s->held[i], 0u);
    int was_writer = s->used && mcx_load_relaxed(&s->u.rwl.writer) == tid && tid != 0;
    if (!s->used || (n == 0 && !was_writer))
      continue;
    for (uint32_t u = 0; u < n; u++)
      mcx__rwl_unlock(&s->u.rwl, 0, tid, 1);
    if (was_writer)
      mcx__rwl_unlock(&s->u.rwl, 1, tid, 1);
    mcx_store_release(&s->died, 1u); /* H-R1 */
    touched++;
  }
  return touched;
}

/* Drops nodes whose thread is gone (crashed, or exited without finalize),
 * giving back the units and holds they had. Under the table lock. Mutexes
 * they held are recovered by their next locker. Returns objects recovered. */
static int reap_dead_nodes(mr_part_t *p)
{
  int recovered = 0;
  for (int i = 0; i < MCA_MAX_NODES; i++) {
    mr_node_t *n = &p->nodes[i];
    if (n->used && !node_alive(n)) {
      n->used = 0;
      p->nnodes--;
      int r = release_holds(p, i, n->tid);
      if (r) {
        p->held_recoveries++;
        if (mcx__mr_debug() > 0)
          mcx_port_log("mrapi: node %u (tid %u) died holding %d semaphore(s)/rwlock(s); given back", n->node_id,
                       n->tid, r);
      }
      recovered += r;
      for (uint32_t k = 0; k < MRAPI_MAX_SHMEMS; k++)
        p->shmems[k].attached[i / 64] &= ~(1ull << (i % 64));
      for (uint32_t k = 0; k < MRAPI_MAX_RMEMS; k++) {
        mr_slot_t *s = &p->rmems[k];
        mcx_store_relaxed(&s->held[i], 0u); /* rmem: no longer attached */
        if (s->used && s->owner_nidx == (uint32_t)i) {
          /* Its buffer went with its thread: the object goes too. */
          s->used = 0;
          uint32_t g = mcx_load_relaxed(&s->gen);
          mcx_store_release(&s->gen, (g + 1) & ~1u); /* D-R2 */
        }
      }
    }
  }
  return recovered;
}

int mcx__mr_recover_dead(void)
{
  if (!is_node())
    return 0;
  mr_part_t *p = me.d->p;
  table_lock(p);
  int r = reap_dead_nodes(p);
  table_unlock(p);
  return r;
}

uint32_t mcx__mr_profile(void) { return is_node() ? me.d->p->profile : 0; }

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
      dom_clear(d);
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
        mcx_port_shm_unmap(p, sizeof(mr_part_t)); /* its name is gone too: the next open makes a new one */
      else
        dom_drop(d); /* otherwise this loop would find the same closed partition forever */
      continue;
    }
    reap_dead_nodes(p);
    if (p->nnodes == 0) {
      /* No live node: whatever the tables hold belongs to a crashed run. */
      int leftovers = 0;
      for (int kind = MCX__MR_MUTEX; kind <= MCX__MR_RMEM; kind++) {
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
      n->start = mcx_port_tid_start(tid);
      p->nnodes++;
      d->nlocal++;
      me.pid = mcx_port_pid();
      me.fork_gen = mcx_port_fork_generation();
      me.d = d;
      me.dgen = mcx_load_relaxed(&d->gen);
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
      dom_clear(d);
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
  for (uint32_t k = 0; k < MRAPI_MAX_RMEMS; k++) {
    mr_slot_t *s = &p->rmems[k];
    mcx_store_relaxed(&s->held[ni], 0u); /* rmem: no longer attached */
    if (s->used && s->owner_nidx == ni) {
      /* The creator leaves: its buffer is no longer offered. */
      s->used = 0;
      uint32_t g = mcx_load_relaxed(&s->gen);
      mcx_store_release(&s->gen, (g + 1) & ~1u); /* D-R2 */
    }
  }
  /* Units and read holds the node still has stay taken (another node may be
   * meant to release them), but they are no longer recorded as its: the
   * slot's next node starts with clean counts. */
  for (uint32_t k = 0; k < MRAPI_MAX_SEMS; k++)
    mcx_store_relaxed(&p->sems[k].held[ni], 0u);
  for (uint32_t k = 0; k < MRAPI_MAX_RWLS; k++)
    mcx_store_relaxed(&p->rwls[k].held[ni], 0u);
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
    dom_clear(d);
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
    for (int i = 0; i < MCA_MAX_NODES; i++)
      mcx_store_relaxed(&s->held[i], 0u); /* published by the generation (D-R1) */
    mcx_store_relaxed(&s->died, 0u);
    s->addr = a->addr;
    s->atype = a->atype;
    s->owner_pid = me.pid;
    s->owner_nidx = me.nidx;
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
    case MCX__MR_RMEM:
      mcx__rmutex_init(&s->u.mutex, 0); /* the transfer lock */
      break;
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

/* The live object @p id, found under the table lock. @p atype (remote
 * memory; ID_ANY: none) is checked in the same critical section: a delete
 * between a look-up and a later check would leave the caller a stale handle
 * to report on. */
static int find_id(mcx__mr_kind_t kind, uint32_t id, uint32_t atype, uint32_t *hndl)
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
      r = atype != ID_ANY && t[i].atype != atype ? MCX_EMR_ATYPE : MCX_OK;
      if (r == MCX_OK)
        *hndl = make_handle(kind, i, mcx_load_relaxed(&t[i].gen)); /* under the table lock */
      break;
    }
  }
  table_unlock(p);
  return r;
}

int mcx__mr_get(mcx__mr_kind_t kind, uint32_t id, uint32_t *hndl) { return find_id(kind, id, ID_ANY, hndl); }

int mcx__mr_rmem_get(uint32_t id, uint32_t atype, uint32_t *hndl) { return find_id(MCX__MR_RMEM, id, atype, hndl); }

int mcx__mr_delete(mcx__mr_kind_t kind, uint32_t hndl)
{
  mr_slot_t *s;
  int r = resolve(kind, hndl, &s, NULL);
  if (r != MCX_OK)
    return r; /* a second delete: *_DELETED with error_ext, else not a valid handle */
  mr_part_t *p = me.d->p;
  int held_rule = p->profile == MCX__MR_PROFILE_MCA203;
  table_lock(p);
  if (!s->used || (mcx_load_relaxed(&s->gen) & 0xffffu) != (hndl & 0xffffu)) {
    table_unlock(p);
    return closed(s); /* deleted meanwhile */
  }
  switch (kind) {
  case MCX__MR_MUTEX:
    /* mca-2.0.3: only its holder deletes it; spec: only when free. */
    r = held_rule ? (mcx__rmutex_delete_held(&s->u.mutex, me.tid, 1) == MCX_OK ? MCX_OK : MCX_EBUSY)
                  : mcx__rmutex_mark_deleted(&s->u.mutex, 1);
    break;
  case MCX__MR_SEM:
    if (!held_rule) {
      r = mcx__sem_mark_deleted(&s->u.sem, 1);
    } else if (mcx_load_relaxed(&s->held[me.nidx]) == 0) {
      r = MCX_EBUSY;
    } else {
      mcx__sem_delete_force(&s->u.sem, 1);
    }
    break;
  case MCX__MR_RWL:
    if (!held_rule) {
      r = mcx__rwl_mark_deleted(&s->u.rwl, 1);
    } else if (mcx_load_relaxed(&s->held[me.nidx]) == 0 && mcx_load_relaxed(&s->u.rwl.writer) != me.tid) {
      r = MCX_EBUSY;
    } else {
      mcx__rwl_delete_force(&s->u.rwl, 1);
    }
    break;
  case MCX__MR_RMEM:
    /* spec: only its creator, and no other node attached; mca-2.0.3 (the
     * reference): any node, attached nodes are detached. */
    if (!held_rule && (s->owner_nidx != me.nidx || s->owner_pid != me.pid)) {
      r = MCX_EMR_NOTOWNER;
    } else {
      for (uint32_t i = 0; i < MCA_MAX_NODES && !held_rule; i++)
        if (i != me.nidx && mcx_load_relaxed(&s->held[i]))
          r = MCX_EBUSY;
      if (r == MCX_OK)
        mcx__rmutex_lock(&s->u.mutex, me.tid, MCX_NO_DEADLINE, 1, &(uint32_t){0}); /* no transfer under way */
    }
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
    if (kind == MCX__MR_RMEM)
      mcx__rmutex_unlock(&s->u.mutex, me.tid, 1);
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

/* Gives back what dead holders of @p s had, if any holder other than the
 * caller has died. The hold counts are a cheap first filter; liveness is
 * checked under the table lock. Returns objects recovered. */
static int recover_holders_of(mr_slot_t *s, int rwl)
{
  int any = rwl && mcx_load_relaxed(&s->u.rwl.writer) != 0;
  for (int i = 0; i < MCA_MAX_NODES && !any; i++)
    any = (uint32_t)i != me.nidx && mcx_load_relaxed(&s->held[i]) != 0;
  if (!any)
    return 0;
  mr_part_t *p = me.d->p;
  int dead = 0;
  table_lock(p);
  uint32_t wtid = rwl ? mcx_load_relaxed(&s->u.rwl.writer) : 0;
  for (int i = 0; i < MCA_MAX_NODES && !dead; i++) {
    mr_node_t *n = &p->nodes[i];
    if (n->used && ((mcx_load_relaxed(&s->held[i]) && (uint32_t)i != me.nidx) || (wtid && n->tid == wtid)))
      dead = !node_alive(n);
  }
  int r = dead ? reap_dead_nodes(p) : 0;
  table_unlock(p);
  return r;
}

/* Takes a unit (sem) or a hold (rwl), looking for dead holders whenever it
 * has waited a probe slice, or at once when it may not wait. */
static int lock_with_recovery(mr_slot_t *s, int rwl, int writer, uint32_t timeout_ms)
{
  uint64_t user_dl = deadline_of(timeout_ms);
  for (;;) {
    uint64_t dl = user_dl;
    if (dl != 0) {
      uint64_t probe = mcx_port_now_ns() + HOLDER_PROBE_NS;
      if (dl == MCX_NO_DEADLINE || dl > probe)
        dl = probe;
    }
    int r = rwl ? mcx__rwl_lock(&s->u.rwl, writer, me.tid, dl, 1) : mcx__sem_lock(&s->u.sem, dl, 1);
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
      mcx_fetch_add_relaxed(&s->held[me.nidx], 1u); /* bookkeeping, see mr_slot_t.held */
    /* H-A1 acquire: pairs with H-R1 (the recovery's release of the dead holder's units). */
    if (mcx_load_relaxed(&s->died) && mcx_exchange_acquire(&s->died, 0u))
      return MCX_EOWNERDEAD;
    return MCX_OK;
  }
}

/* Lowers a hold count before its release: the caller's own if it has one,
 * else another node's (semaphores may be unlocked by any node). */
static int drop_hold(mr_slot_t *s)
{
  uint32_t v = mcx_load_relaxed(&s->held[me.nidx]);
  while (v) {
    if (mcx_cas_relaxed(&s->held[me.nidx], &v, v - 1))
      return (int)me.nidx;
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
  mr_slot_t *s;
  int r = resolve(MCX__MR_SEM, hndl, &s, NULL);
  if (r != MCX_OK)
    return r;
  r = lock_with_recovery(s, 0, 0, timeout_ms);
  return r == MCX_ECLOSED ? closed(s) : r;
}

int mcx__mr_sem_unlock(uint32_t hndl)
{
  mr_slot_t *s;
  int r = resolve(MCX__MR_SEM, hndl, &s, NULL);
  if (r != MCX_OK)
    return r;
  int from = drop_hold(s);
  r = mcx__sem_unlock(&s->u.sem, 1);
  if (r != MCX_OK && from >= 0)
    mcx_fetch_add_relaxed(&s->held[from], 1u); /* nothing was released: restore */
  return r == MCX_ECLOSED ? closed(s) : r;
}

int mcx__mr_rwl_lock(uint32_t hndl, int writer, uint32_t timeout_ms)
{
  mr_slot_t *s;
  int r = resolve(MCX__MR_RWL, hndl, &s, NULL);
  if (r != MCX_OK)
    return r;
  r = lock_with_recovery(s, 1, writer, timeout_ms);
  return r == MCX_ECLOSED ? closed(s) : r;
}

int mcx__mr_rwl_unlock(uint32_t hndl, int writer)
{
  mr_slot_t *s;
  int r = resolve(MCX__MR_RWL, hndl, &s, NULL);
  if (r != MCX_OK)
    return r;
  int from = writer ? -1 : drop_hold(s);
  r = mcx__rwl_unlock(&s->u.rwl, writer, me.tid, 1);
  if (r != MCX_OK && from >= 0)
    mcx_fetch_add_relaxed(&s->held[from], 1u); /* nothing was released: restore */
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

/* ------------------------------------------------------------ remote memory */

_Static_assert(sizeof(me) <= sizeof(mcx__mr_ident_t), "identity fits");

int mcx__mr_ident_get(mcx__mr_ident_t *id)
{
  if (!is_node())
    return MCX_ENOENT;
  memset(id, 0, sizeof *id);
  memcpy(id, &me, sizeof me);
  return MCX_OK;
}

void mcx__mr_ident_set(const mcx__mr_ident_t *id)
{
  if (!id) {
    memset(&me, 0, sizeof me);
    return;
  }
  memcpy(&me, id, sizeof me);
  me.tid = mcx_port_tid(); /* locks taken here are owned by this thread */
}

int mcx__mr_rmem_info(uint32_t hndl, uint32_t *atype, uint32_t *size)
{
  mr_slot_t *s;
  int r = resolve(MCX__MR_RMEM, hndl, &s, NULL);
  if (r != MCX_OK)
    return r;
  *atype = s->atype;
  *size = s->limit;
  return MCX_OK;
}

int mcx__mr_rmem_attach(uint32_t hndl, uint32_t atype)
{
  mr_slot_t *s;
  int r = resolve(MCX__MR_RMEM, hndl, &s, NULL);
  if (r != MCX_OK)
    return r;
  mr_part_t *p = me.d->p;
  uint32_t ni = me.nidx;
  table_lock(p);
  if (!s->used || (mcx_load_relaxed(&s->gen) & 0xffffu) != (hndl & 0xffffu))
    r = closed(s);
  else if (s->atype != atype)
    r = MCX_EMR_ATYPE;
  else if (mcx_load_relaxed(&s->held[ni]))
    r = MCX_EMR_ATTACHED;
  else
    mcx_store_relaxed(&s->held[ni], 1u); /* rmem: held[i] = node i attached; read by node i without the lock */
  table_unlock(p);
  return r;
}

int mcx__mr_rmem_detach(uint32_t hndl)
{
  mr_slot_t *s;
  int r = resolve(MCX__MR_RMEM, hndl, &s, NULL);
  if (r != MCX_OK)
    return r;
  mr_part_t *p = me.d->p;
  uint32_t ni = me.nidx;
  table_lock(p);
  if (!mcx_load_relaxed(&s->held[ni]))
    r = MCX_EMR_NOTATTACHED;
  else
    mcx_store_relaxed(&s->held[ni], 0u);
  table_unlock(p);
  return r;
}

static int rmem_args(const mr_slot_t *s, uint32_t rmem_off, uint32_t bpa, uint32_t n, uint32_t rstride,
                     uint32_t lstride)
{
  /* The reference checks the strides of every transfer, single blocks too. */
  if (rstride < bpa || lstride < bpa)
    return MCX_EMR_STRIDE;
  uint64_t end = (uint64_t)rmem_off + (uint64_t)(n - 1) * rstride + bpa;
  if (end > s->limit)
    return MCX_EMR_OVERRUN;
  return MCX_OK;
}

int mcx__mr_rmem_check(uint32_t hndl, uint32_t rmem_off, uint32_t bpa, uint32_t nstrides, uint32_t rstride,
                       uint32_t lstride)
{
  mr_slot_t *s;
  int r = resolve(MCX__MR_RMEM, hndl, &s, NULL);
  if (r != MCX_OK)
    return r;
  /* Strides first, as the reference checks them. */
  if (rstride < bpa || lstride < bpa)
    return MCX_EMR_STRIDE;
  /* Relaxed, without the table lock: only this node attaches and detaches
   * itself (others clear it only when it is gone or the object deleted). */
  if (!mcx_load_relaxed(&s->held[me.nidx]))
    return MCX_EMR_NOTATTACHED;
  return rmem_args(s, rmem_off, bpa, nstrides, rstride, lstride);
}

int mcx__mr_rmem_transfer(uint32_t hndl, int write, uint32_t rmem_off, void *local, uint32_t local_off,
                          uint32_t bpa, uint32_t nstrides, uint32_t rstride, uint32_t lstride, size_t *bytes)
{
  mr_slot_t *s;
  int r = resolve(MCX__MR_RMEM, hndl, &s, NULL);
  if (r != MCX_OK)
    return r;
  r = rmem_args(s, rmem_off, bpa, nstrides, rstride, lstride);
  if (r != MCX_OK)
    return r;
  /* Transfers on one object are serialized by its transfer lock (robust: a
   * node that dies in a transfer does not block the others). */
  uint32_t depth;
  r = mcx__rmutex_lock(&s->u.mutex, me.tid, MCX_NO_DEADLINE, 1, &depth);
  if (r == MCX_ECLOSED)
    return closed(s);
  if (r != MCX_OK && r != MCX_EOWNERDEAD)
    return r;
  /* The generation again: deleted while we waited for the lock? */
  if ((mcx_load_acquire(&s->gen) & 0xffffu) != (hndl & 0xffffu)) { /* D-A1 */
    mcx__rmutex_unlock(&s->u.mutex, me.tid, 1);
    return closed(s);
  }
  r = MCX_OK;
  char *remote = (char *)(uintptr_t)s->addr;
  char *loc = (char *)local + local_off;
  int same = s->owner_pid == me.pid;
  for (uint32_t k = 0; k < nstrides && r >= 0; k++) {
    char *rp = remote + rmem_off + (size_t)k * rstride;
    char *lp = loc + (size_t)k * lstride;
    if (same)
      memcpy(write ? rp : lp, write ? lp : rp, bpa);
    else if ((r = mcx_port_vm_copy(s->owner_pid, lp, rp, bpa, write)) != MCX_OK)
      r = r == MCX_ENOSYS ? MCX_ENOSYS : MCX_EMR_CONFLICT; /* the system cannot, or the creator refused / is gone */
  }
  mcx__rmutex_unlock(&s->u.mutex, me.tid, 1);
  if (r >= 0) {
    *bytes = (size_t)bpa * nstrides;
    r = MCX_OK;
  }
  return r;
}
