/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Domains: the bottom of the runtime. The partition's mapping (its name,
 * creation, checks and the process's views), the admin lock, this thread's
 * node (mcx__self), liveness, waiting and notifying. It calls no other file
 * of the runtime: the partition's layout (node.c) and crash recovery
 * (recovery.c) are above it, reached through the upcalls node init
 * registers (mcx__upcalls_t). docs/design.md shows the layers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ports/mcx_port.h"
#include "ports/mcx_port_shm.h"
#include "runtime/chan.h"
#include "runtime/endpoint.h"
#include "runtime/msg.h"
#include "transport/pmq.h"

/* The empty caches (domain.h): entries no handle hits, pointing at a
 * zero-filled record (larger than an endpoint's or a channel's state
 * line: every word the fast paths read of it before their compare fails). */
static _Alignas(64) const unsigned char none_rec[1024];
_Static_assert(sizeof(mcx__endpoint_t) <= sizeof none_rec, "the empty record covers an endpoint");
#define NONE_EMPTY .handle = MCX_EPC_EMPTY, .state = MCX_EPC_EMPTY
MCX_ALIGNED_LINE mcx__mpsc_ring_t mcx__epc_idle_ring = {.tail = MCX_RING_CLOSED};
MCX_ALIGNED_LINE mcx__msg_slot_t mcx__epc_idle_slot;
/* A receive reads an entry's ring before its endpoint (mcx__epc_gate): the
 * empty entries' is the idle one, which reads empty. */
static const mcx__epc_t epc_none[MCX_EPC_N] = {
    [0 ... MCX_EPC_N - 1] = {
        {{NONE_EMPTY, .own = MCX_EPC_EMPTY, .prio = MCX_EPC_NOPRIO,
          .ep = (mcx__endpoint_t *)(uintptr_t)none_rec,
          .v = {.ring = &mcx__epc_idle_ring, .slots = &mcx__epc_idle_slot}}}}};
static const struct mcx__chc chc_none[MCX_CHC_N] = {
    [0 ... MCX_CHC_N - 1] = {NONE_EMPTY, .ch = (struct mcx__chan *)(uintptr_t)none_rec}};
struct mcx__epc *const mcx__epc_none = (struct mcx__epc *)(uintptr_t)epc_none;
struct mcx__chc *const mcx__chc_none = (struct mcx__chc *)(uintptr_t)chc_none;

/* A thread starts off the fast paths: the empty caches. */
#define CHC_NONE(t) ((struct mcx__chc *)(uintptr_t)(chc_none + (t) * MCX_CHC_WAYS))
#define SELF_INIT                                                                                  \
  {.epc = (struct mcx__epc *)(uintptr_t)epc_none,                                                  \
   .epc_rx = (struct mcx__epc *)(uintptr_t)epc_none,                                               \
   .chc = {CHC_NONE(0), CHC_NONE(1), CHC_NONE(2), CHC_NONE(3)}}
MCX_TLS mcx__self_t mcx__self = SELF_INIT;
mcx_atomic_u32 mcx__debug_level;
mcx_atomic_u32 mcx__proc_gen;

/* The process's domain views. Control plane only: guarded by proc_lock. */
static mcx__domain_t domains[MCA_MAX_DOMAINS];
static mcx__mutex_t proc_lock;

/* The layers above (node.c, recovery.c), registered by node init. */
static const mcx__upcalls_t *_Atomic upcalls;

void mcx__upcalls_register(const mcx__upcalls_t *u)
{
  /* Release: pairs with the acquire of up(); the table is constant. */
  if (mcx_load_acquire(&upcalls) != u)
    mcx_store_release(&upcalls, u);
}

static const mcx__upcalls_t *up(void) { return mcx_load_acquire(&upcalls); }

int mcx__recv_first(uint32_t kind, uint32_t handle)
{
  return up()->recv_queue_wait(kind, handle); /* a node: node init registered them */
}

static size_t align_up(size_t v, size_t a) { return (v + a - 1) & ~(a - 1); }

static uint32_t env_choice(const char *name, const char *const *names, const uint32_t *values,
                           int n, uint32_t dflt)
{
  const char *s = mcx_port_getenv(name);
  if (!s || !*s)
    return dflt;
  for (int i = 0; i < n; i++)
    if (!strcmp(s, names[i]))
      return values[i];
  mcx_port_log("%s=%s is not understood; using the default", name, s);
  return dflt;
}

/* Every MCX_* setting with a value this build does not know is refused, with
 * one line naming the variable and the accepted values: a run asked for
 * another mode must not silently measure the default one. */
int mcx__env_settings_ok(void)
{
  static const struct {
    const char *name, *accepted;
  } vars[] = {{"MCX_LOCKING", "lockfree global kernel"},
              {"MCX_COMPAT", "spec mca-2.0.3"},
              {"MCX_TRANSPORT", "shm pmq"},
              {"MCX_NODE_SCOPE", "thread process"}};
  int ok = 1;
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
    const char *v = mcx_port_getenv(vars[i].name);
    if (!v || !*v)
      continue;
    size_t n = strlen(v);
    const char *a = vars[i].accepted;
    int found = 0;
    while (*a && !found) {
      size_t w = strcspn(a, " ");
      found = w == n && !strncmp(a, v, n);
      a += w + (a[w] == ' ');
    }
    if (!found) {
      mcx_port_log("%s=%s is not a value this build knows (accepted: %s)", vars[i].name, v,
                   vars[i].accepted);
      ok = 0;
    }
  }
  const char *ns = mcx_port_getenv("MCX_NAMESPACE");
  if (ns && *ns) {
    size_t n = strspn(ns, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_");
    if (ns[n] || n > 35) {
      mcx_port_log("MCX_NAMESPACE=%s is refused: at most 35 characters of a-z A-Z 0-9 - _", ns);
      ok = 0;
    }
  }
  return ok;
}

uint32_t mcx__resolve_scope(uint32_t requested)
{
  static const char *const names[] = {"thread", "process"};
  static const uint32_t values[] = {MCX_NODE_SCOPE_THREAD_, MCX_NODE_SCOPE_PROCESS_};
  return requested ? requested
                   : env_choice("MCX_NODE_SCOPE", names, values, 2, MCX_NODE_SCOPE_THREAD_);
}

int mcx__locking_from_env(void)
{
  const char *s = mcx_port_getenv("MCX_LOCKING");
  return s && *s;
}

int mcx__node_adopt(void)
{
  const mcx__upcalls_t *u = up();
  return u ? u->adopt() : 0; /* no node init yet: no process node either */
}

static uint32_t resolve_locking(uint32_t requested)
{
  static const char *const names[] = {"lockfree", "global", "kernel"};
  static const uint32_t values[] = {MCX_LOCK_LOCKFREE, MCX_LOCK_GLOBAL, MCX_LOCK_KERNEL};
  return requested ? requested : env_choice("MCX_LOCKING", names, values, 3, MCX_LOCK_LOCKFREE);
}

static uint32_t resolve_compat(uint32_t requested)
{
  static const char *const names[] = {"spec", "mca-2.0.3"};
  static const uint32_t values[] = {MCX_COMPAT_SPEC_, MCX_COMPAT_MCA203_};
  return requested ? requested : env_choice("MCX_COMPAT", names, values, 2, MCX_COMPAT_SPEC_);
}

uint32_t mcx__compat_of_caller(void)
{
  return mcx__is_node() ? mcx__self.dom->compat : resolve_compat(0);
}

static uint32_t resolve_transport(uint32_t requested)
{
  static const char *const names[] = {"shm", "pmq"};
  static const uint32_t values[] = {MCX_TRANSPORT_SHM_, MCX_TRANSPORT_PMQ_};
  return requested ? requested : env_choice("MCX_TRANSPORT", names, values, 2, MCX_TRANSPORT_SHM_);
}

/* The partition's name: per user, per namespace (MCX_NAMESPACE, so test runs
 * and users of one machine do not meet by accident), per domain. */
static void partition_name(char *out, size_t n, uint32_t domain_id)
{
  const char *ns = mcx_port_getenv("MCX_NAMESPACE");
  char clean[36];
  size_t k = 0;
  for (; ns && *ns && k < sizeof clean - 1; ns++) {
    char c = *ns;
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '_')
      clean[k++] = c;
  }
  clean[k] = 0;
  snprintf(out, n, "/mcx-%u-%s-d%u", mcx_port_uid(), k ? clean : "default", domain_id);
}

/* Whether @p rec is a private name of default name @p dflt: dflt-<16 hex>. */
static int private_name_ok(const char *dflt, const char *rec)
{
  size_t n = strlen(dflt);
  if (strncmp(rec, dflt, n) || rec[n] != '-' || strlen(rec + n + 1) != 16)
    return 0;
  return strspn(rec + n + 1, "0123456789abcdef") == 16;
}

/*
 * The name to use for a partition whose default name is @p name. Anyone can
 * create any name in /dev/shm first, and the sticky directory keeps us from
 * removing another user's object: a partition name held by another user
 * would deny us the domain forever. Then the domain lives under a private
 * name, the default plus a random tag, recorded in a directory only we can
 * use (mcx_port_name_record), where the domain's other processes find it.
 * A recorded private name whose partition exists is used even when the
 * default name is free again, so the domain's processes never split.
 * @p squatted: the default name is held by another user (uid in *owner).
 */
static void choose_partition_name(char *name, size_t n, int squatted, uint32_t owner)
{
  char key[96], rec[96], where[512] = "";
  snprintf(key, sizeof key, "%s", name + 1);
  if (!squatted) {
    uint32_t uid;
    unsigned mode;
    size_t size;
    if (mcx_port_name_record(key, NULL, rec, sizeof rec, NULL, 0) == MCX_OK &&
        private_name_ok(name, rec) &&
        mcx_port_shm_stat(rec, &uid, &mode, &size) == MCX_OK && uid == mcx_port_uid())
      snprintf(name, n, "%s", rec);
    return;
  }
  uint64_t tag = 0;
  char proposal[96];
  if (mcx_port_random(&tag, sizeof tag) != MCX_OK)
    tag = mcx_port_now_ns() * 0x9e3779b97f4a7c15ull;
  snprintf(proposal, sizeof proposal, "%s-%016llx", name, (unsigned long long)tag);
  int r = mcx_port_name_record(key, proposal, rec, sizeof rec, where, sizeof where);
  if (r != MCX_OK || !private_name_ok(name, rec)) {
    mcx_port_log("shared partition %s belongs to another user (uid %u) and no private name could "
                 "be recorded (%s): the domain cannot be created",
                 name, owner, *where ? where : "no private directory: set XDG_RUNTIME_DIR or HOME");
    return;
  }
  mcx_port_log("shared partition %s belongs to another user (uid %u), who may be squatting the "
               "name: using the private name %s (recorded in %s)",
               name, owner, rec, where);
  snprintf(name, n, "%s", rec);
}

/* Fills a fresh (zeroed) partition's header, the layout's fields and pools
 * by the layer that knows them (node.c); `magic` goes last (release). */
static void init_header(const mcx__upcalls_t *u, mcx__part_hdr_t *h, uint32_t domain_id,
                        const mcx__layout_t *l, const mcx__init_opts_t *o)
{
  h->version = MCX_PART_VERSION;
  h->hdr_size = sizeof *h;
  h->total_size = l->total;
  h->domain_id = domain_id;
  h->locking = resolve_locking(o->locking);
  h->compat = resolve_compat(o->compat);
  h->transport = resolve_transport(o->transport);
  h->max_nodes = MCA_MAX_NODES;
  h->owner_uid = mcx_port_uid();
  h->creator_pid = mcx_port_pid();
  uint64_t tag = 0;
  if (mcx_port_random(&tag, sizeof tag) != MCX_OK || tag == 0)
    tag = mcx_port_now_ns() * 0x9e3779b97f4a7c15ull ^ (uint64_t)mcx_port_pid() << 32;
  h->name_tag = tag;
  h->node_size = sizeof(mcx__node_t);
  h->ep_size = sizeof(mcx__endpoint_t);
  h->ring_size = sizeof(mcx__mpsc_ring_t);
  h->slot_size = sizeof(mcx__msg_slot_t);
  u->format(h, l);
  mcx__rmutex_init(&h->admin, 0);
  /* R-P1 — release: every field above before the magic; pairs with A-P1 in
   * mcx__part_header_check (another process opening the partition). */
  mcx_store_release(&h->magic, MCX_PART_MAGIC);
}

/* Validates a mapped header against the object's size; logs why not. */
int mcx__part_header_check(const char *name, const mcx__part_hdr_t *h, size_t size)
{
  const mcx__upcalls_t *u = up();
  /* A-P1 — acquire: pairs with R-P1. The creator may still be initializing:
   * the caller retries for a while on MCX_EAGAIN. */
  uint64_t magic = mcx_load_acquire(&((mcx__part_hdr_t *)(uintptr_t)h)->magic);
  if (magic == 0)
    return MCX_EAGAIN;
  const char *why = NULL;
  if (magic != MCX_PART_MAGIC)
    why = "wrong magic (not a libmca partition, or corrupted)";
  else if (h->version != MCX_PART_VERSION)
    why = "incompatible layout version";
  else if (h->hdr_size != sizeof *h || h->node_size != sizeof(mcx__node_t) ||
           h->ep_size != sizeof(mcx__endpoint_t) || h->ring_size != sizeof(mcx__mpsc_ring_t) ||
           h->slot_size != sizeof(mcx__msg_slot_t))
    why = "structure sizes differ (built with another configuration)";
  else if (h->total_size != size)
    why = "size does not match the header (truncated or corrupted)";
  else if (h->max_nodes != MCA_MAX_NODES || h->nprio != MCX_NPRIO || h->max_endpoints == 0 ||
           h->max_endpoints > MCX_H_MAX_INDEX || h->qcap < 2 || (h->qcap & (h->qcap - 1)) ||
           h->max_msg > (1u << 24) || h->locking < MCX_LOCK_LOCKFREE ||
           h->locking > MCX_LOCK_KERNEL || h->compat < MCX_COMPAT_SPEC_ ||
           h->compat > MCX_COMPAT_MCA203_ || h->transport < MCX_TRANSPORT_SHM_ ||
           h->transport > MCX_TRANSPORT_PMQ_ ||
           (h->locking == MCX_LOCK_KERNEL && h->kernel_sem < 0))
    why = "header fields out of range (corrupted)";
  else if (!u)
    why = "its layout is unknown here (no node was initialized in this process)";
  else if (u->layout_differs(h))
    why = "offsets do not match the layout (corrupted)";
  if (why) {
    mcx_port_log("refusing shared partition %s: %s", name, why);
    return MCX_EIO;
  }
  return MCX_OK;
}

/* Whether every node recorded in the partition belongs to a dead process. */
static int all_nodes_dead(const uint8_t *base, size_t size)
{
  /* The node table's place is the same in every layout (after the header):
   * computed here, not read again from a header another process may have
   * changed since it was checked (shared memory is input). */
  size_t off = align_up(sizeof(mcx__part_hdr_t), 4096);
  if (off > size || size - off < (size_t)MCA_MAX_NODES * sizeof(mcx__node_t))
    return 0;
  const mcx__node_t *nodes = (const mcx__node_t *)(base + off);
  for (uint32_t i = 0; i < MCA_MAX_NODES; i++)
    if (mcx_load_acquire(&nodes[i].state) == NODE_ACTIVE &&
        mcx_port_tid_alive(mcx_load_relaxed(&nodes[i].tid)))
      return 0;
  return 1;
}

/* The process's queues of a pmq domain (transport/pmq.c), from the view's settings. */
static int pmq_open(mcx__domain_t *d)
{
  mcx__pmq_cfg_t c = {.name = d->name,
                      .domain_id = d->domain_id,
                      .tag = d->hdr->name_tag,
                      .n_eps = d->g.max_endpoints,
                      .n_chans = d->g.n_chans,
                      .max_msg = d->g.max_msg,
                      .qcap = d->g.qcap,
                      .consume_wrong_width = d->compat == MCX_COMPAT_MCA203_,
                      .debug = &mcx__debug_level};
  return mcx__pmq_open(&c, &d->pmq);
}

/*
 * Maps the domain's partition, creating it when it does not exist. A
 * partition whose nodes are all dead (a crashed run) is removed and made
 * anew; one of another user, of another layout version or with inconsistent
 * header fields is refused, never mapped blindly.
 */
static int map_partition(mcx__domain_t *d, uint32_t domain_id, const mcx__init_opts_t *o)
{
  const mcx__upcalls_t *u = up();
  if (!u)
    return MCX_EIO; /* node init registers the layout first */
  mcx__layout_t l;
  mcx__init_opts_t oc = *o; /* a creator resolves its transport before the layout */
  oc.transport = resolve_transport(o->transport);
  o = &oc;
  int r = u->layout(o, &l);
  if (r)
    return r;
  char name[96], dflt[96];
  partition_name(dflt, sizeof dflt, domain_id);
  snprintf(name, sizeof name, "%s", dflt);
  unsigned mode = o->shm_mode ? o->shm_mode : 0600;
  uint32_t owner;
  unsigned omode;
  size_t osize;
  int squatted = mcx_port_shm_stat(name, &owner, &omode, &osize) == MCX_OK && owner != mcx_port_uid();
  choose_partition_name(name, sizeof name, squatted, owner);
  int created = 0;
  for (int attempt = 0; attempt < 200; attempt++) {
    mcx_port_shm_t shm;
    r = mcx_port_shm_create_mode(name, l.total, mode, &shm);
    if (r == MCX_OK) {
      uint8_t *base = mcx_port_shm_map(&shm, l.total);
      mcx_port_shm_close(&shm);
      if (!base) {
        mcx_port_shm_unlink(name);
        return MCX_ENOMEM;
      }
      /* kernel locking: the semaphore exists before the header is published */
      int32_t ksem = -1;
      if (resolve_locking(o->locking) == MCX_LOCK_KERNEL && (r = mcx_port_ksem_create(&ksem))) {
        mcx_port_shm_unmap(base, l.total);
        mcx_port_shm_unlink(name);
        return r;
      }
      ((mcx__part_hdr_t *)base)->kernel_sem = ksem;
      d->base = base;
      d->size = l.total;
      d->hdr = (mcx__part_hdr_t *)base;
      init_header(u, (mcx__part_hdr_t *)base, domain_id, &l, o);
      created = 1;
      break;
    }
    if (r == MCX_ENOMEM) {
      mcx_port_log("cannot create shared partition %s: its %zu bytes (%.1f MiB) do not fit in "
                   "/dev/shm (full, or a small tmpfs as in a container); fewer endpoints, queue "
                   "elements or a smaller max_msg_size make it smaller",
                   name, l.total, (double)l.total / (1 << 20));
      return r;
    }
    if (r != MCX_EEXIST)
      return r;
    r = mcx_port_shm_open_mode(name, sizeof(mcx__part_hdr_t), mode, &shm);
    if (r == MCX_ENOENT || r == MCX_EAGAIN) { /* removed or still being sized */
      if (r == MCX_EAGAIN && attempt > 100) {
        /* Still too small after 100 ms: its creator died between creating
         * and sizing it. Nobody can have joined it: remove it, make ours. */
        MCX_DEBUG(1, "removing partition %s: its creator never sized it", name);
        mcx_port_shm_unlink(name);
      }
      mcx_port_sleep_ns(1000000);
      continue;
    }
    if (r == MCX_EPERM && !squatted && !strcmp(name, dflt) &&
        mcx_port_shm_stat(name, &owner, &omode, &osize) == MCX_OK && owner != mcx_port_uid()) {
      squatted = 1; /* created by another user since we looked */
      choose_partition_name(name, sizeof name, squatted, owner);
      if (strcmp(name, dflt))
        continue;
    }
    if (r == MCX_EPERM && mcx_port_shm_stat(name, &owner, &omode, &osize) == MCX_OK &&
        owner == mcx_port_uid() && osize == 0) {
      /* Ours, never sized, with a mode its creator did not get to pin (it
       * died between shm_open and fchmod/ftruncate, or asked for another
       * shm_mode): nobody can have joined it. Retire it after a while, as a
       * stale partition. */
      if (attempt > 100) {
        MCX_DEBUG(1, "removing partition %s: its creator never sized it", name);
        mcx_port_shm_unlink(name);
      }
      mcx_port_sleep_ns(1000000);
      continue;
    }
    if (r == MCX_EPERM) {
      mcx_port_log("refusing shared partition %s: it belongs to another user or is more open "
                   "than mode %03o",
                   name, mode);
      return MCX_EPERM;
    }
    if (r)
      return r;
    size_t size = shm.size;
    uint8_t *base = mcx_port_shm_map(&shm, size);
    mcx_port_shm_close(&shm);
    if (!base)
      return MCX_ENOMEM;
    mcx__part_hdr_t *h = (mcx__part_hdr_t *)base;
    r = size < sizeof *h ? MCX_EIO : mcx__part_header_check(name, h, size);
    if (r == MCX_EAGAIN) {
      /* Being initialized by its creator; a creator that died before the
       * magic leaves a zero header: treat it as stale after a while. */
      mcx_port_shm_unmap(base, size);
      if (attempt > 100)
        mcx_port_shm_unlink(name);
      mcx_port_sleep_ns(1000000);
      continue;
    }
    if (r) {
      mcx_port_shm_unmap(base, size);
      return r;
    }
    if (all_nodes_dead(base, size) && mcx_load_relaxed(&h->n_nodes) != 0) {
      /* Left by a crashed run: retire it under its lock, unlink, start anew. */
      uint32_t depth;
      mcx__rmutex_lock(&h->admin, mcx__my_tid(), MCX_NO_DEADLINE, 1, &depth);
      if (!mcx_load_relaxed(&h->retired) && all_nodes_dead(base, size)) {
        mcx_store_relaxed(&h->retired, 1);
        mcx_port_shm_unlink(name);
        if (h->locking == MCX_LOCK_KERNEL)
          mcx_port_ksem_destroy(h->kernel_sem);
        MCX_DEBUG(1, "removed stale partition %s left by a crashed run", name);
      }
      mcx__rmutex_unlock(&h->admin, mcx__my_tid(), 1);
      mcx_port_shm_unmap(base, size);
      continue;
    }
    d->base = base;
    d->size = size;
    break;
  }
  if (!d->base)
    return MCX_EIO;
  d->hdr = (mcx__part_hdr_t *)d->base;
  if ((r = u->geometry(d)) != MCX_OK) {
    mcx_port_shm_unmap(d->base, d->size);
    memset(d, 0, sizeof *d);
    return r;
  }
  d->domain_id = domain_id;
  d->shared = 1;
  d->locking = d->hdr->locking;
  d->compat = d->hdr->compat;
  snprintf(d->name, sizeof d->name, "%s", name);
  d->transport = d->hdr->transport;
  d->fastpath = d->locking == MCX_LOCK_LOCKFREE && d->transport == MCX_TRANSPORT_SHM_;
  u->attach(d); /* the pools (chan_conn.c, msg.c) */
  if (d->transport == MCX_TRANSPORT_PMQ_ && (r = pmq_open(d)) != MCX_OK) {
    if (created) /* nobody joined a partition whose transport cannot open: not left behind */
      mcx_port_shm_unlink(name);
    mcx_port_shm_unmap(d->base, d->size);
    memset(d, 0, sizeof *d);
    return r;
  }
  return MCX_OK;
}

/* After fork(), the child holds copies of its parent's domain views; none
 * of them is the child's (node.c drops the parent's requests). */
static uint32_t proc_fork_gen;

int mcx__domains_forget_parent(void)
{
  uint32_t g = mcx_port_fork_generation();
  if (g == proc_fork_gen)
    return 0;
  proc_fork_gen = g;
  for (int i = 0; i < MCA_MAX_DOMAINS; i++)
    if (domains[i].refs) {
      mcx__pmq_forget(domains[i].pmq); /* the parent's descriptors */
      mcx_port_unmap(domains[i].base, domains[i].size);
      memset(&domains[i], 0, sizeof domains[i]);
    }
  memset(&proc_lock, 0, sizeof proc_lock);
  return 1;
}

void mcx__domains_lock(void) { mcx__mutex_lock(&proc_lock, 0); }

void mcx__domains_unlock(void) { mcx__mutex_unlock(&proc_lock, 0); }

/* Finds or maps the process's view of @p domain_id; under proc_lock. */
int mcx__domain_attach(uint32_t domain_id, const mcx__init_opts_t *o, mcx__domain_t **out)
{
  mcx__domain_t *free_slot = NULL;
  for (int i = 0; i < MCA_MAX_DOMAINS; i++) {
    if (domains[i].refs && !domains[i].retired_view && domains[i].domain_id == domain_id) {
      *out = &domains[i];
      return MCX_OK;
    }
    if (!domains[i].refs && !free_slot)
      free_slot = &domains[i];
  }
  if (!free_slot)
    return MCX_ENOMEM;
  int r = map_partition(free_slot, domain_id, o);
  if (r)
    return r;
  *out = free_slot;
  return MCX_OK;
}

void mcx__domain_detach(mcx__domain_t *d, int last_in_domain)
{
  if (last_in_domain) {
    mcx_port_shm_unlink(d->name);
    if (d->locking == MCX_LOCK_KERNEL)
      mcx_port_ksem_destroy(d->hdr->kernel_sem);
  }
  if (--d->refs == 0) {
    mcx__pmq_close(d->pmq, last_in_domain);
    mcx_port_unmap(d->base, d->size);
    memset(d, 0, sizeof *d);
  }
}

void mcx__domain_detach_deferred(mcx__domain_t *d, int last_in_domain)
{
  if (d->refs > 1) { /* a thread-scope node of the process keeps it mapped anyway */
    mcx__domain_detach(d, last_in_domain);
    return;
  }
  if (last_in_domain)
    mcx_port_shm_unlink(d->name); /* the name goes now; the semaphore with the mapping */
  d->retired_view = 1 + (uint32_t)last_in_domain;
}

void mcx__domains_drop_retired(void)
{
  for (int i = 0; i < MCA_MAX_DOMAINS; i++) {
    mcx__domain_t *d = &domains[i];
    if (!d->refs || !d->retired_view)
      continue;
    int last = d->retired_view == 2;
    if (last && d->locking == MCX_LOCK_KERNEL)
      mcx_port_ksem_destroy(d->hdr->kernel_sem);
    mcx__pmq_close(d->pmq, last);
    mcx_port_unmap(d->base, d->size);
    memset(d, 0, sizeof *d);
  }
}

static _Thread_local uint32_t tl_tid, tl_tid_gen;

uint32_t mcx__my_tid(void)
{
  uint32_t g = mcx_port_fork_generation();
  if (!tl_tid || tl_tid_gen != g) {
    tl_tid = mcx_port_tid();
    tl_tid_gen = g;
  }
  return tl_tid;
}

void mcx__admin_lock(mcx__domain_t *d)
{
  uint32_t depth;
  int r = mcx__rmutex_lock(&d->hdr->admin, mcx__my_tid(), MCX_NO_DEADLINE, d->shared, &depth);
  if (r == MCX_EOWNERDEAD) {
    MCX_DEBUG(1, "domain %u: a process died holding the control-plane lock; repairing",
              d->domain_id);
    mcx__sweep_dead_locked(d);
  }
}

/* Waits for the control-plane lock are bounded: its word is in shared
 * memory, and a word naming a live thread that never lets go (a forged tid,
 * a stopped or looping process) must not hang every control-plane call. A
 * holder that dies is taken over (robust lock). A holder that lives is given
 * ADMIN_WAIT_MEMBER_NS when it is a node's thread or a thread of a process
 * with a node in the domain, ADMIN_WAIT_OTHER_NS otherwise (a joining
 * process holds the lock briefly before its node is in the table); each
 * counted from the time the lock last changed hands. */
#define ADMIN_SLICE_NS 100000000ull
#define ADMIN_WAIT_MEMBER_NS 30000000000ull
#define ADMIN_WAIT_OTHER_NS 2000000000ull

static int tid_is_member(const mcx__domain_t *d, uint32_t tid)
{
  const mcx__node_t *nodes = mcx__nodes(d);
  uint32_t pid = mcx_port_tid_pid(tid);
  for (uint32_t i = 0; i < MCA_MAX_NODES; i++)
    if (mcx_load_acquire(&nodes[i].state) == NODE_ACTIVE &&
        (mcx_load_relaxed(&nodes[i].tid) == tid || (pid && mcx_load_relaxed(&nodes[i].pid) == pid)))
      return 1;
  return 0;
}

int mcx__admin_lock_bounded(mcx__domain_t *d)
{
  uint32_t depth, me = mcx__my_tid(), holder = 0;
  uint64_t since = mcx_port_now_ns();
  for (;;) {
    int r = mcx__rmutex_lock(&d->hdr->admin, me, mcx_port_now_ns() + ADMIN_SLICE_NS, d->shared,
                             &depth);
    if (r == MCX_OK)
      return MCX_OK;
    if (r == MCX_EOWNERDEAD) {
      MCX_DEBUG(1, "domain %u: a process died holding the control-plane lock; repairing",
                d->domain_id);
      mcx__sweep_dead_locked(d);
      return MCX_OK;
    }
    uint32_t w = mcx_load_relaxed(&d->hdr->admin.word) & MCX__RMUTEX_TID_MASK;
    if (r == MCX_ECLOSED || r == MCX_EBUSY) {
      /* No thread has that id (the deleted mark), or it is ours though we do
       * not hold the lock: the word was overwritten. */
      mcx_port_log("domain %u: the control-plane lock word is corrupt (%#x): giving up",
                   d->domain_id, w);
      return MCX_EIO;
    }
    uint64_t now = mcx_port_now_ns();
    if (w != holder) { /* it changed hands: the domain makes progress */
      holder = w;
      since = now;
      continue;
    }
    int member = tid_is_member(d, w);
    if (now - since >= (member ? ADMIN_WAIT_MEMBER_NS : ADMIN_WAIT_OTHER_NS)) {
      mcx_port_log("domain %u: the control-plane lock has been held by thread %u (%s) for %llu ms: "
                   "giving up",
                   d->domain_id, w,
                   member ? "a node of this domain" : "not a node of this domain",
                   (unsigned long long)((now - since) / 1000000u));
      return MCX_ETIMEDOUT;
    }
  }
}

void mcx__admin_unlock(mcx__domain_t *d) { mcx__rmutex_unlock(&d->hdr->admin, mcx__my_tid(), d->shared); }

int mcx__node_alive(const mcx__domain_t *d, uint32_t slot)
{
  if (slot >= MCA_MAX_NODES) /* a slot number read from the partition: checked */
    return 0;
  const mcx__node_t *n = &mcx__nodes(d)[slot];
  return mcx_load_acquire(&n->state) == NODE_ACTIVE &&
         mcx_port_tid_alive(mcx_load_relaxed(&n->tid));
}

void mcx__wake_fast(mcx__waitpoint_t *wp)
{
  /* Relaxed, as the fast path's test (F-W2 came before it). */
  mcx__wp_wake(wp, mcx_load_relaxed(&wp->sleepers), mcx__self.dom->shared);
}

uint64_t mcx__wake_fast_v(mcx__waitpoint_t *wp, uint64_t v)
{
  mcx__wake_fast(wp);
  return v;
}

/* Off the fast paths: their caches are the empty tables (node.c, at init,
 * finalize and in a fork child). */
void mcx__self_set_chc(struct mcx__chc *base)
{
  for (uint32_t t = 0; t < 4; t++)
    mcx__self.chc[t] = base + t * MCX_CHC_WAYS;
}

void mcx__self_set_epc(struct mcx__epc *epc)
{
  mcx__self.epc = epc;
  mcx__self.epc_rx = mcx__self.recv_queued ? mcx__epc_none : epc;
}

void mcx__self_recv_queued(uint32_t n)
{
  mcx__self.recv_queued = n;
  mcx__self.epc_rx = n ? mcx__epc_none : mcx__self.epc;
}

void mcx__self_no_fast(void)
{
  mcx__self.fast = NULL;
  mcx__self_set_epc(mcx__epc_none);
  mcx__self_set_chc(mcx__chc_none);
  mcx__self.msg_lim = 0;
}

int mcx__any_dead_node(const mcx__domain_t *d)
{
  const mcx__node_t *nodes = mcx__nodes(d);
  for (uint32_t i = 0; i < MCA_MAX_NODES; i++)
    if (mcx_load_acquire(&nodes[i].state) == NODE_ACTIVE &&
        !mcx_port_tid_alive(mcx_load_relaxed(&nodes[i].tid)))
      return 1;
  return 0;
}

/* The dead-node sweep is recovery.c's, above the objects it repairs; the
 * layers below it (the admin lock here, endpoints, channels, messages,
 * state channels, receipts) call these, which go up through the upcalls.
 * Slow paths only: a dead holder or peer was seen. Without a registered
 * table (no node initialized in the process) there is nothing to sweep. */
uint32_t mcx__sweep_dead_locked(mcx__domain_t *d)
{
  const mcx__upcalls_t *u = up();
  return u ? u->sweep_dead_locked(d) : 0;
}

void mcx__resolve_orphans_locked(mcx__domain_t *d)
{
  const mcx__upcalls_t *u = up();
  if (u)
    u->resolve_orphans_locked(d);
}

uint32_t mcx__sweep_dead_try(mcx__domain_t *d)
{
  uint32_t depth;
  int r = mcx__rmutex_lock(&d->hdr->admin, mcx__my_tid(), 0, d->shared, &depth);
  if (r != MCX_OK && r != MCX_EOWNERDEAD)
    return 0; /* held: its holder or a later call sweeps */
  uint32_t n = mcx__sweep_dead_locked(d);
  mcx__admin_unlock(d);
  return n;
}

uint32_t mcx__sweep_dead(mcx__domain_t *d)
{
  if (mcx__admin_lock_bounded(d) != MCX_OK)
    return 0;
  uint32_t n = mcx__sweep_dead_locked(d);
  mcx__admin_unlock(d);
  return n;
}

int mcx__wait_until(mcx__domain_t *d, mcx__waitpoint_t *wp, uint32_t timeout_ms,
                    int (*try_fn)(void *), void *ctx)
{
  uint64_t deadline = mcx_port_deadline_ms(timeout_ms);
  mcx__backoff_t b;
  mcx__backoff_begin(&b);
  for (;;) {
    if (try_fn(ctx) == MCX_OK)
      return MCX_OK;
    if (timeout_ms == 0 || mcx_port_now_ns() >= deadline)
      return MCX_ETIMEDOUT;
    if (!mcx__backoff_step(&b))
      continue;
    uint32_t key = mcx__wp_prepare(wp);
    if (try_fn(ctx) == MCX_OK) {
      mcx__wp_cancel(wp);
      return MCX_OK;
    }
    mcx__wp_sleep(wp, key, deadline, d->shared);
  }
}

int mcx__node_type(uint32_t domain_id, uint32_t node_id, uint32_t *type)
{
  mcx__domain_t *d = mcx__self.dom;
  if (!d || d->domain_id != domain_id)
    return MCX_EINVAL;
  mcx__node_t *nodes = mcx__nodes(d);
  int r = MCX_ENOENT;
  if (mcx__admin_lock_bounded(d) != MCX_OK)
    return MCX_EIO;
  for (uint32_t i = 0; i < MCA_MAX_NODES; i++) {
    if (mcx_load_relaxed(&nodes[i].state) == 1 && mcx_load_relaxed(&nodes[i].node_id) == node_id) {
      *type = mcx_load_relaxed(&nodes[i].type);
      r = MCX_OK;
      break;
    }
  }
  mcx__admin_unlock(d);
  return r;
}
