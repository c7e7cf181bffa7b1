/* SPDX-License-Identifier: BSD-3-Clause */
/* MRAPI runtime: the per-domain partition, the nodes, and what both need:
 * names, this process's domain entries, the table lock, the calling thread's
 * node identity. The object tables' operations are in mrapi_obj.c, shared and
 * remote memory in mrapi_mem.c; what the three share is in mrapi_part.h.
 *
 * Partition: POSIX shared memory "/mcx-mrapi-<uid>-<domain>", mode 0600,
 * created by the first node (O_EXCL), removed by the last mrapi_finalize().
 * A partition left by a crashed run is recognized at the next initialize: the
 * table lock is robust, nodes whose thread no longer runs are reaped (their
 * semaphore units and rwlock holds given back, their remote memory deleted),
 * and when no live node remains the tables are reset (their segments unlinked).
 *
 * Memory-order pairs:
 *   D-R0 release (creator: ready = 1 after laying out) pairs with D-A0 acquire
 *        (openers read ready before touching the tables).
 *   D-R2 release (gen bumped to even when reset, reaping or finalize drops an
 *        object) pairs with D-A1 acquire (mcx__mr_resolve in mrapi_part.h,
 *        the transfer's re-check in mrapi_mem.c): a handle holder that sees
 *        the new gen knows the object is gone.
 *   H-R1 release (died = 1 after a dead holder's units were given back)
 *        pairs with H-A1 acquire (the next locker, mrapi_obj.c).
 *   Table fields other than gen are only touched under the table lock, whose
 *   acquire/release (M-A1/M-R1 in mrapi_prim.c) orders them.
 *   P-R0 release (proc.pid = ours after a reset) pairs with P-A0 acquire.
 */
#include "mrapi/mrapi_domain.h"

#include <stdio.h>
#include <string.h>

#include "mrapi/mrapi_part.h"
#include "mrapi_impl_spec.h"
#include "ports/mcx_port.h"
#include "ports/mcx_port_mrapi.h"
#include "ports/mcx_port_shm.h"
#include "sync/mrapi_prim.h"

#define PART_MAGIC 0x4d524150u /* "MRAP" */
#define PART_INITIALIZING 0u
#define PART_READY 1u
#define PART_CLOSING 2u
/* How long an opener waits for a creator to finish before calling it dead. */
#define CREATOR_GRACE_NS 2000000000ull

/* Per process: the domains it has joined, under its own lock (mcx__mr_proc_enter). */
static struct {
  mcx_atomic_u32 pid; /* P-R0 / P-A0; bit 31 while being reset */
  mcx__rmutex_t lock; /* process-private */
  mcx__mr_dom_t dom[MCA_MAX_DOMAINS];
} proc;

MCX_TLS mcx__mr_me_t mcx__mr_me;

/* ------------------------------------------------------------ names, process state */

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

void mcx__mr_segment_name(uint32_t domain, uint32_t seq, char *buf, size_t n)
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

void mcx__mr_proc_enter(void)
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
          mcx__mr_proc_enter();
          return;
        }
        mcx_port_yield();
      }
    }
  }
  uint32_t depth;
  mcx__rmutex_lock(&proc.lock, mcx_port_tid(), MCX_NO_DEADLINE, 0, &depth);
}

void mcx__mr_proc_leave(void) { mcx__rmutex_unlock(&proc.lock, mcx_port_tid(), 0); }

/* Empties a proc.dom entry (under proc.lock). */
static void dom_clear(mcx__mr_dom_t *d)
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
 * (mcx__mr_is_node compares the generation). Under proc.lock. */
static void dom_drop(mcx__mr_dom_t *d)
{
  mcx_port_log("mrapi: domain %u was closed while this process counted %u node(s) in it (taken for gone); "
               "joining anew",
               d->domain, d->nlocal);
  dom_clear(d);
}

int mcx__mr_node_alive(const mcx__mr_node_t *n)
{
  uint64_t st = mcx_port_tid_start(n->tid);
  return st != 0 && (n->start == 0 || st == n->start);
}

void mcx__mr_table_lock(mcx__mr_part_t *p)
{
  uint32_t depth;
  uint32_t tid = mcx__mr_me.tid ? mcx__mr_me.tid : mcx_port_tid();
  int r = mcx__rmutex_lock(&p->tlock, tid, MCX_NO_DEADLINE, 1, &depth);
  if (r == MCX_EOWNERDEAD) {
    /* A process died inside a table update. Updates publish with one gen
     * store at the end, so a half-made entry is either invisible or complete. */
    mcx_port_log("mrapi: previous holder of the domain table lock died; continuing");
  }
}

void mcx__mr_table_unlock(mcx__mr_part_t *p)
{
  mcx__rmutex_unlock(&p->tlock, mcx__mr_me.tid ? mcx__mr_me.tid : mcx_port_tid(), 1);
}

void mcx__mr_unlink_segment(mcx__mr_part_t *p, mcx__mr_slot_t *s)
{
  char name[MCX_PORT_SHM_NAME_MAX];
  mcx__mr_segment_name(p->domain, s->shm_seq, name, sizeof name);
  mcx_port_shm_unlink(name);
}

/* Empties every table (no live node is left). Under the table lock. */
static void reset_tables(mcx__mr_part_t *p)
{
  mcx__mr_slot_t *tabs[5] = {p->mutexes, p->sems, p->rwls, p->shmems, p->rmems};
  uint32_t ns[5] = {MRAPI_MAX_MUTEXES, MRAPI_MAX_SEMS, MRAPI_MAX_RWLS, MRAPI_MAX_SHMEMS, MRAPI_MAX_RMEMS};
  for (int k = 0; k < 5; k++) {
    for (uint32_t i = 0; i < ns[k]; i++) {
      mcx__mr_slot_t *s = &tabs[k][i];
      if (!s->used)
        continue;
      if (k == 3)
        mcx__mr_unlink_segment(p, s);
      s->used = 0;
      memset(s->attached, 0, sizeof s->attached);
      uint32_t g = mcx_load_relaxed(&s->gen);
      mcx_store_release(&s->gen, (g + 1) & ~1u); /* D-R2 */
    }
  }
}

/* ------------------------------------------------------------ partition */

static void part_layout(mcx__mr_part_t *p, uint32_t domain)
{
  p->layout = (uint32_t)sizeof(mcx__mr_part_t);
  p->creator_pid = mcx_port_pid();
  p->domain = domain;
  p->next_any_id = 0x40000000u;
  p->profile = profile_from_env();
  mcx__rmutex_init(&p->tlock, 0);
  p->magic = PART_MAGIC;
  mcx_store_release(&p->ready, PART_READY); /* D-R0: pairs with D-A0 in part_open */
}

/* Opens or creates the partition of @p domain and maps it. */
static int part_open(uint32_t domain, mcx__mr_part_t **out)
{
  char name[MCX_PORT_SHM_NAME_MAX];
  mcx__mr_partition_name(domain, name, sizeof name);
  uint64_t first_wait = 0;
  for (int attempt = 0; attempt < 100000; attempt++) {
    mcx_port_shm_t shm;
    int r = mcx_port_shm_create(name, sizeof(mcx__mr_part_t), &shm);
    if (r == MCX_OK) {
      mcx__mr_part_t *p = mcx_port_shm_map(&shm, sizeof(mcx__mr_part_t));
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
    r = mcx_port_shm_open(name, sizeof(mcx__mr_part_t), &shm);
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
    if (shm.size != sizeof(mcx__mr_part_t)) {
      /* Another build's layout. If nobody of that build is alive it is stale. */
      mcx_port_shm_close(&shm);
      mcx_port_log("mrapi: partition %s has another layout (%zu bytes, expected %zu)", name,
                   shm.size, sizeof(mcx__mr_part_t));
      return MCX_EIO;
    }
    mcx__mr_part_t *p = mcx_port_shm_map(&shm, sizeof(mcx__mr_part_t));
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
    mcx_port_shm_unmap(p, sizeof(mcx__mr_part_t));
    if (ready == PART_CLOSING)
      mcx_port_yield();
  }
  return MCX_EIO;
}

/* ------------------------------------------------------------ nodes */

/* Gives back the semaphore units and rwlock holds of node slot @p i (dead,
 * thread id @p tid). Under the table lock. Returns how many objects it touched. */
static int release_holds(mcx__mr_part_t *p, int i, uint32_t tid)
{
  int touched = 0;
  for (uint32_t k = 0; k < MRAPI_MAX_SEMS; k++) {
    mcx__mr_slot_t *s = &p->sems[k];
    uint32_t n = mcx_exchange_acq_rel(&s->held[i], 0u); /* pairs with the holders' relaxed updates: bookkeeping */
    if (!s->used || n == 0)
      continue;
    for (uint32_t u = 0; u < n; u++)
      mcx__sem_unlock(&s->u.sem, 1);
    mcx_store_release(&s->died, 1u); /* H-R1: pairs with H-A1 in the next locker */
    touched++;
  }
  for (uint32_t k = 0; k < MRAPI_MAX_RWLS; k++) {
    mcx__mr_slot_t *s = &p->rwls[k];
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
int mcx__mr_reap_dead_nodes(mcx__mr_part_t *p)
{
  int recovered = 0;
  for (int i = 0; i < MCA_MAX_NODES; i++) {
    mcx__mr_node_t *n = &p->nodes[i];
    if (n->used && !mcx__mr_node_alive(n)) {
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
        mcx__mr_slot_t *s = &p->rmems[k];
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
  if (!mcx__mr_is_node())
    return 0;
  mcx__mr_part_t *p = mcx__mr_me.d->p;
  mcx__mr_table_lock(p);
  int r = mcx__mr_reap_dead_nodes(p);
  mcx__mr_table_unlock(p);
  return r;
}

uint32_t mcx__mr_profile(void) { return mcx__mr_is_node() ? mcx__mr_me.d->p->profile : 0; }

int mcx__mr_initialize(uint32_t domain, uint32_t node)
{
  if (mcx__mr_is_node())
    return MCX_EEXIST;
  uint32_t tid = mcx_port_tid();
  mcx__mr_me.tid = tid;
  mcx__mr_proc_enter();
  int r = MCX_OK;
  mcx__mr_dom_t *d = NULL;
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
    mcx__mr_part_t *p = d->p;
    mcx__mr_table_lock(p);
    if (mcx_load_acquire(&p->ready) != PART_READY) { /* D-A0: closing under us */
      mcx__mr_table_unlock(p);
      if (fresh)
        mcx_port_shm_unmap(p, sizeof(mcx__mr_part_t)); /* its name is gone too: the next open makes a new one */
      else
        dom_drop(d); /* otherwise this loop would find the same closed partition forever */
      continue;
    }
    mcx__mr_reap_dead_nodes(p);
    if (p->nnodes == 0) {
      /* No live node: whatever the tables hold belongs to a crashed run. */
      int leftovers = 0;
      for (int kind = MCX__MR_MUTEX; kind <= MCX__MR_RMEM; kind++) {
        uint32_t n;
        mcx__mr_slot_t *t = mcx__mr_table_of(p, (mcx__mr_kind_t)kind, &n);
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
      mcx__mr_node_t *n = &p->nodes[free_slot];
      n->used = 1;
      n->node_id = node;
      n->pid = mcx_port_pid();
      n->tid = tid;
      n->start = mcx_port_tid_start(tid);
      p->nnodes++;
      d->nlocal++;
      mcx__mr_me.pid = mcx_port_pid();
      mcx__mr_me.fork_gen = mcx_port_fork_generation();
      mcx__mr_me.d = d;
      mcx__mr_me.dgen = mcx_load_relaxed(&d->gen);
      mcx__mr_me.nidx = (uint32_t)free_slot;
      mcx__mr_me.node_id = node;
    }
    uint32_t left = p->nnodes;
    mcx__mr_table_unlock(p);
    if (r != MCX_OK && fresh) {
      if (left == 0) {
        /* We created (or revived) it for nothing: do not leave it behind. */
        mcx__mr_table_lock(p);
        if (p->nnodes == 0) {
          mcx_store_relaxed(&p->ready, PART_CLOSING);
          char name[MCX_PORT_SHM_NAME_MAX];
          mcx__mr_partition_name(domain, name, sizeof name);
          mcx_port_shm_unlink(name);
        }
        mcx__mr_table_unlock(p);
      }
      mcx_port_shm_unmap(p, sizeof(mcx__mr_part_t));
      dom_clear(d);
    }
    break;
  }
  mcx__mr_proc_leave();
  return r;
}

int mcx__mr_finalize(void)
{
  if (!mcx__mr_is_node())
    return MCX_ENOENT;
  mcx__mr_proc_enter();
  mcx__mr_dom_t *d = mcx__mr_me.d;
  mcx__mr_part_t *p = d->p;
  uint32_t ni = mcx__mr_me.nidx;
  mcx__mr_table_lock(p);
  for (uint32_t k = 0; k < MRAPI_MAX_SHMEMS; k++) {
    mcx__mr_slot_t *s = &p->shmems[k];
    if (s->used && (s->attached[ni / 64] & (1ull << (ni % 64)))) {
      s->attached[ni / 64] &= ~(1ull << (ni % 64));
      if (d->seg_refs[k] && --d->seg_refs[k] == 0) {
        mcx_port_shm_unmap(d->seg_addr[k], d->seg_size[k]);
        d->seg_addr[k] = NULL;
      }
    }
  }
  for (uint32_t k = 0; k < MRAPI_MAX_RMEMS; k++) {
    mcx__mr_slot_t *s = &p->rmems[k];
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
  mcx__mr_reap_dead_nodes(p);
  if (p->nnodes == 0) {
    /* Last node of the domain: remove everything it owns. */
    mcx_store_relaxed(&p->ready, PART_CLOSING); /* read under the table lock by openers */
    reset_tables(p);
    char name[MCX_PORT_SHM_NAME_MAX];
    mcx__mr_partition_name(d->domain, name, sizeof name);
    mcx_port_shm_unlink(name);
  }
  mcx__mr_table_unlock(p);
  if (--d->nlocal == 0) {
    for (uint32_t k = 0; k < MRAPI_MAX_SHMEMS; k++)
      if (d->seg_addr[k])
        mcx_port_shm_unmap(d->seg_addr[k], d->seg_size[k]);
    mcx_port_shm_unmap(p, sizeof(mcx__mr_part_t));
    dom_clear(d);
  }
  mcx__mr_me.d = NULL;
  mcx__mr_me.pid = 0;
  mcx__mr_proc_leave();
  return MCX_OK;
}

int mcx__mr_whoami(uint32_t *domain, uint32_t *node)
{
  if (!mcx__mr_is_node())
    return MCX_ENOENT;
  *domain = mcx__mr_me.d->domain;
  *node = mcx__mr_me.node_id;
  return MCX_OK;
}

/* ------------------------------------------------------------ node identity */

_Static_assert(sizeof(mcx__mr_me) <= sizeof(mcx__mr_ident_t), "identity fits");

int mcx__mr_ident_get(mcx__mr_ident_t *id)
{
  if (!mcx__mr_is_node())
    return MCX_ENOENT;
  memset(id, 0, sizeof *id);
  memcpy(id, &mcx__mr_me, sizeof mcx__mr_me);
  return MCX_OK;
}

void mcx__mr_ident_set(const mcx__mr_ident_t *id)
{
  if (!id) {
    memset(&mcx__mr_me, 0, sizeof mcx__mr_me);
    return;
  }
  memcpy(&mcx__mr_me, id, sizeof mcx__mr_me);
  mcx__mr_me.tid = mcx_port_tid(); /* locks taken here are owned by this thread */
}
