/* SPDX-License-Identifier: BSD-3-Clause */
/* MRAPI metadata (contract in mrapi_rsrc.h and include/mrapi.h).
 *
 * Trees are process memory (malloc), one per mrapi_resources_get() call,
 * registered in a process-wide list so a pointer handed back is checked
 * before use. Dynamic attributes are HPC groups of one event counting the
 * thread that started them. In the mca-2.0.3 profile the tree is the
 * reference implementation's example machine (two cores, a crossbar, an L3
 * cache, a DDR) unless MCX_MRAPI_RESOURCES=machine: its values are kept in
 * their own widths, and its one dynamic attribute (the cache's hits) is a
 * counter of this file that only the reference's test hook moves.
 *
 * One HPC ticker (one-second period) serves the process: it checks started
 * counters for a 32-bit rollover and counts down the registered callbacks,
 * which it delivers to the registering node's thread with the notification
 * signal.
 *
 * Locking: one process-private mutex (rs.lock) guards the tree list, the
 * started counters and the callback table's non-atomic fields. The signal
 * handler takes no lock: it reads the table's atomic fields only.
 * Memory-order pairs:
 *   C-R1 release (the ticker sets `pending` after deciding to fire) pairs with
 *        C-A1 acquire (the handler's exchange of `pending`).
 *   C-R2 release (registration stores `fn` before `tid`) pairs with C-A2
 *        acquire (the handler loads `tid` before `fn`).
 */
#include "mrapi/mrapi_rsrc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/mcx_atomic.h"
#include "common/mcx_err.h"
#include "mcx_hpc.h"
#include "mrapi/mrapi_domain.h"
#include "ports/mcx_port.h"
#include "ports/mcx_port_hpc.h"
#include "ports/mcx_port_mrapi.h"
#include "ports/mcx_port_topo.h"
#include "sync/mrapi_prim.h"

#define RS_MAGIC 0x52534331u /* "RSC1" */
#define NATTR 6
#define MAXCPU MCX_TOPO_MAX
#define TICK_NS 1000000000ull

typedef struct rattr {
  uint32_t size; /* bytes of the value; 0: not supported here */
  mrapi_attribute_static kind;
  mca_boolean_t started;
  uint64_t value;        /* static integers */
  char text[64];         /* static strings */
  uint32_t nsize;        /* the reference's machine: the value's width (2 or 4), held in `native` */
  union {
    uint16_t u16;
    uint32_t u32;
  } native;              /* where attribute_values points, as the reference's do */
  int soft;              /* dynamic, counted here (native.u32): the reference's cache hits */
  const char *event;     /* dynamic: the HPC event, NULL when none */
  mcx_hpc_group_t *g;    /* while started */
  uint64_t base;         /* the count at the last reset */
  uint32_t last_hi;      /* upper half at the last tick (rollover) */
  uint32_t seq;          /* while started: its place in the order of starts (mrapi_impl_trigger_rollover) */
  void (*rollover)(void);
} rattr_t;

typedef struct rnode {
  mrapi_resource_t pub; /* first: what programs see */
  uint32_t magic;
  struct rnode *root;
  struct rnode *next_root; /* list of live roots (roots only) */
  char name[40];
  uint32_t nattr;
  rattr_t a[NATTR];
  void *types[NATTR];
  void *values[NATTR];
  mrapi_attribute_static *statics[NATTR];
  mca_boolean_t *starteds[NATTR];
} rnode_t;

typedef struct cb {
  mcx_atomic_u32 tid;     /* 0: free; C-R2 / C-A2 */
  mcx_atomic_u32 pending; /* C-R1 / C-A1 */
  mcx_atomic_u64 fn;      /* void (*)(mrapi_event_t) */
  uint32_t event, frequency, count; /* under rs.lock */
  uint32_t pid;
  int periodic; /* under rs.lock: registered on the example machine (every event a tick) */
} cb_t;

static struct {
  mcx__rmutex_t lock; /* process-private; zero = unlocked */
  rnode_t *roots;
  uint32_t nstarted;
  uint32_t next_seq; /* the next start's seq; back to 0 whenever nothing is started */
  cb_t cbs[MRAPI_MAX_CALLBACKS];
  uint32_t ncbs;
  mcx_port_ticker_t *ticker;
  int handler_installed;
  uint64_t last_freq;
  int warned_resources; /* MCX_MRAPI_RESOURCES had an unknown value (said once) */
} rs;

static void rs_lock(void)
{
  uint32_t d;
  mcx__rmutex_lock(&rs.lock, mcx_port_tid(), MCX_NO_DEADLINE, 0, &d);
}
static void rs_unlock(void) { mcx__rmutex_unlock(&rs.lock, mcx_port_tid(), 0); }

/* Under rs.lock: one started attribute fewer. */
static void started_gone(void)
{
  if (--rs.nstarted == 0)
    rs.next_seq = 0;
}

/* ------------------------------------------------------------ nodes */

static rnode_t *new_node(mrapi_resource_type type, const char *name)
{
  rnode_t *n = calloc(1, sizeof *n);
  if (!n)
    return NULL;
  n->magic = RS_MAGIC;
  snprintf(n->name, sizeof n->name, "%s", name);
  n->pub.name = n->name;
  n->pub.resource_type = type;
  return n;
}

/* A static attribute: @p size 0 when the machine does not tell. */
static void add_static(rnode_t *n, uint32_t size, uint64_t value, const char *text)
{
  rattr_t *a = &n->a[n->nattr++];
  a->kind = MRAPI_ATTR_STATIC;
  a->size = size;
  a->value = value;
  if (text)
    snprintf(a->text, sizeof a->text, "%s", text);
}

/* A dynamic attribute counted by HPC event @p event (NULL: none here). */
static void add_dynamic(rnode_t *n, const char *event)
{
  rattr_t *a = &n->a[n->nattr++];
  a->kind = MRAPI_ATTR_DYNAMIC;
  a->size = event ? 8 : 0;
  a->event = event;
}

static void publish_attrs(rnode_t *n)
{
  n->pub.number_of_attributes = n->nattr;
  for (uint32_t i = 0; i < n->nattr; i++) {
    n->types[i] = &n->a[i].size;
    n->values[i] = n->a[i].nsize    ? (void *)&n->a[i].native
                   : n->a[i].text[0] ? (void *)n->a[i].text
                                     : (void *)&n->a[i].value;
    n->statics[i] = &n->a[i].kind;
    n->starteds[i] = &n->a[i].started;
  }
  n->pub.attribute_types = n->types;
  n->pub.attribute_values = n->values;
  n->pub.attribute_static = n->statics;
  n->pub.attribute_started = n->starteds;
}

static int add_child(rnode_t *parent, rnode_t *child)
{
  mrapi_resource_t **k = realloc(parent->pub.children, (parent->pub.number_of_children + 1) * sizeof *k);
  if (!k)
    return MCX_ENOMEM;
  parent->pub.children = k;
  k[parent->pub.number_of_children++] = &child->pub;
  child->root = parent->root;
  return MCX_OK;
}

static void free_tree(rnode_t *n)
{
  for (uint32_t i = 0; i < n->pub.number_of_children; i++)
    free_tree((rnode_t *)(void *)n->pub.children[i]);
  for (uint32_t i = 0; i < n->nattr; i++) {
    if (n->a[i].started) {
      if (n->a[i].g)
        mcx_hpc_group_close(n->a[i].g);
      started_gone();
    }
  }
  free(n->pub.children);
  n->magic = 0;
  free(n);
}

/* ------------------------------------------------------------ the machine */

static const char *coherence_event(void)
{
  static char name[64];
  mcx_hpc_cpu_t cpu;
  if (mcx_hpc_cpu_detect(&cpu) != 0 || cpu.hypervisor)
    return NULL; /* a VM's PMU does not count model-specific events reliably */
  size_t n;
  const mcx_hpc_event_t *t = mcx_hpc_event_table(cpu.uarch, &n);
  for (size_t i = 0; t && i < n; i++) {
    if (t[i].cls == MCX_HPC_CLASS_COHERENCE) {
      snprintf(name, sizeof name, "%s", t[i].name);
      return name;
    }
  }
  return NULL;
}

static int build_cpus(rnode_t *root, const mcx_port_topo_t *topo)
{
  mcx_hpc_cpu_t cpu;
  int have_brand = mcx_hpc_cpu_detect(&cpu) == 0 && cpu.brand[0];
  for (int c = 0; c < MAXCPU; c++) {
    if (!(topo->cpus & (1ull << c)))
      continue;
    char name[32];
    snprintf(name, sizeof name, "cpu%d", c);
    rnode_t *n = new_node(CPU, name);
    if (!n)
      return MCX_ENOMEM;
    uint32_t mhz = mcx_port_cpu_max_mhz(c);
    add_static(n, mhz ? 4 : 0, mhz, NULL);
    add_static(n, have_brand ? (uint32_t)strlen(cpu.brand) + 1 : 0, 0, have_brand ? cpu.brand : NULL);
    add_static(n, 4, (uint64_t)c, NULL);
    add_dynamic(n, "context-switches");
    add_dynamic(n, "cpu-migrations");
    add_dynamic(n, "cycles");
    publish_attrs(n);
    if (add_child(root, n) != MCX_OK) {
      free(n);
      return MCX_ENOMEM;
    }
  }
  return MCX_OK;
}

static int build_caches(rnode_t *root, const mcx_port_topo_t *topo)
{
  int nc = topo->ncaches;
  const mcx_port_cache_t *c = topo->caches;
  rnode_t *node[MCX_TOPO_MAX];
  int parent[MCX_TOPO_MAX];
  uint32_t top = 0;
  for (int k = 0; k < nc; k++)
    top = c[k].level > top ? c[k].level : top;
  const char *coh = coherence_event();
  for (int k = 0; k < nc; k++) {
    char name[40];
    const char *t = c[k].type == 'd' ? "d" : c[k].type == 'i' ? "i" : "";
    int first = 0;
    while (first < MAXCPU && !(c[k].cpus & (1ull << first)))
      first++;
    snprintf(name, sizeof name, "L%u%s-cpu%d", c[k].level, t, first);
    rnode_t *n = new_node(CACHE, name);
    if (!n) {
      for (int j = 0; j < k; j++)
        free(node[j]);
      return MCX_ENOMEM;
    }
    add_static(n, c[k].size ? 8 : 0, c[k].size, NULL);
    add_static(n, c[k].line ? 4 : 0, c[k].line, NULL);
    add_static(n, 4, c[k].ways, NULL);
    add_static(n, 4, c[k].level, NULL);
    const char *miss = NULL;
    if (c[k].level == 1 && c[k].type == 'd')
      miss = "L1-dcache-load-misses";
    else if (c[k].level == top && top > 1)
      miss = "cache-misses";
    add_dynamic(n, miss);
    add_dynamic(n, c[k].level == top ? coh : NULL);
    publish_attrs(n);
    node[k] = n;
    /* The parent: the smallest higher-level data/unified cache over a superset of processors. */
    parent[k] = -1;
    for (int j = 0; j < nc; j++) {
      if (c[j].level > c[k].level && c[j].type != 'i' && (c[j].cpus & c[k].cpus) == c[k].cpus &&
          (parent[k] < 0 || c[j].level < c[parent[k]].level))
        parent[k] = j;
    }
  }
  /* Attach outermost first so every node carries its root pointer. */
  for (uint32_t lvl = top; lvl >= 1; lvl--) {
    for (int k = 0; k < nc; k++) {
      if (c[k].level != lvl)
        continue;
      if (add_child(parent[k] < 0 ? root : node[parent[k]], node[k]) != MCX_OK)
        return MCX_ENOMEM;
    }
  }
  return MCX_OK;
}

static int build_memory(rnode_t *root, const mcx_port_topo_t *topo)
{
  for (int i = 0; i < topo->nmem; i++) {
    char name[32];
    snprintf(name, sizeof name, "mem%u", topo->mem[i].os_index);
    rnode_t *n = new_node(MEM, name);
    if (!n)
      return MCX_ENOMEM;
    uint64_t bytes = topo->mem[i].bytes;
    /* Base address: the lowest physical address of the node's memory blocks, when /sys tells. */
    add_static(n, topo->mem[i].has_base ? 8 : 0, topo->mem[i].base, NULL);
    add_static(n, bytes ? 8 : 0, bytes / sizeof(void *), NULL);
    add_static(n, 4, sizeof(void *), NULL);
    add_dynamic(n, "page-faults");
    publish_attrs(n);
    if (add_child(root, n) != MCX_OK) {
      free(n);
      return MCX_ENOMEM;
    }
  }
  return MCX_OK;
}

/* ------------------------------------------------------------ the reference's machine */

/* An attribute of the reference's machine: @p size 2 or 4 bytes, as its
 * uint16_t / uint32_t values. A dynamic one is a counter of this file. */
static void add_native(rnode_t *n, mrapi_attribute_static kind, uint32_t size, uint32_t value)
{
  rattr_t *a = &n->a[n->nattr++];
  a->kind = kind;
  a->size = size;
  a->nsize = size;
  if (size == 2)
    a->native.u16 = (uint16_t)value;
  else
    a->native.u32 = value;
  a->soft = kind == MRAPI_ATTR_DYNAMIC;
}

static uint32_t native_of(const rattr_t *a)
{
  return a->nsize == 2 ? a->native.u16 : a->native.u32;
}

/* The reference implementation's example machine: the leaves of its tree in
 * its order (a core complex of two cores, a crossbar, an L3 cache, a DDR),
 * each with up to three attributes (width 0: none). Numbers and widths are
 * its own: a core's id (uint32) and L1 / L2 sizes in KB (uint16); the
 * crossbar's port count; the cache's size in KB and its hits (uint32,
 * dynamic); the DDR's size (uint16) and base address (uint32). */
#define ST MRAPI_ATTR_STATIC
#define DY MRAPI_ATTR_DYNAMIC
static const struct ref_leaf {
  int filter;
  mrapi_resource_type type;
  const char *name;
  struct {
    mrapi_attribute_static kind;
    uint32_t size, value;
  } at[3];
} ref_machine[] = {
    {MRAPI_RSRC_CPU, CPU, "Core 0", {{ST, 4, 200000001u}, {ST, 2, 32}, {ST, 2, 128}}},
    {MRAPI_RSRC_CPU, CPU, "Core 1", {{ST, 4, 400000002u}, {ST, 2, 64}, {ST, 2, 256}}},
    {MRAPI_RSRC_CROSSBAR, CROSSBAR, "Crossbar", {{ST, 2, 8}}},
    {MRAPI_RSRC_CACHE, CACHE, "L3 Cache", {{ST, 2, 1024}, {DY, 4, 0}}},
    {MRAPI_RSRC_MEM, MEM, "DDR", {{ST, 2, 1024}, {ST, 4, 0xfffff000u}}},
};
#undef ST
#undef DY

/* The leaves of the example machine that @p filter names, as the reference's
 * mrapi_resources_get gives them. */
static int build_reference(rnode_t *root, int filter)
{
  for (size_t k = 0; k < sizeof ref_machine / sizeof ref_machine[0]; k++) {
    const struct ref_leaf *l = &ref_machine[k];
    if (l->filter != filter)
      continue;
    rnode_t *n = new_node(l->type, l->name);
    if (!n)
      return MCX_ENOMEM;
    for (int i = 0; i < 3 && l->at[i].size; i++)
      add_native(n, l->at[i].kind, l->at[i].size, l->at[i].value);
    publish_attrs(n);
    if (add_child(root, n) != MCX_OK) {
      free(n);
      return MCX_ENOMEM;
    }
  }
  return MCX_OK;
}

/* The reference's machine is the mca-2.0.3 profile's tree; MCX_MRAPI_RESOURCES
 * =machine gives this machine's there too (=reference: the default). */
static int reference_machine(void)
{
  if (mcx__mr_profile() != MCX__MR_PROFILE_MCA203)
    return 0;
  const char *v = mcx_port_getenv("MCX_MRAPI_RESOURCES");
  if (!v || !*v || strcmp(v, "reference") == 0)
    return 1;
  if (strcmp(v, "machine") == 0)
    return 0;
  rs_lock();
  int say = !rs.warned_resources;
  rs.warned_resources = 1;
  rs_unlock();
  if (say)
    mcx_port_log("mrapi: MCX_MRAPI_RESOURCES=%s is not a tree (reference, machine): "
                 "using reference",
                 v);
  return 1;
}

int mcx__mr_rsrc_get(int filter, mrapi_resource_t **out)
{
  *out = NULL;
  uint32_t d, nd;
  if (mcx__mr_whoami(&d, &nd) != MCX_OK)
    return MCX_ENOENT;
  if (filter < MRAPI_RSRC_MEM || filter > MRAPI_RSRC_CROSSBAR)
    return MCX_EMR_RSRC_SUBSYS;
  int reference = reference_machine();
  if (filter == MRAPI_RSRC_DMA || (filter == MRAPI_RSRC_CROSSBAR && !reference))
    return MCX_OK; /* neither machine has a DMA engine as a resource; a PC has no crossbar */
  rnode_t *root = new_node(SYSTEM, reference ? "filtered tree" : "system");
  if (!root)
    return MCX_ENOMEM;
  root->root = root;
  publish_attrs(root);
  int r;
  if (reference) {
    r = build_reference(root, filter);
  } else {
    mcx_port_topo_t *topo = malloc(sizeof *topo);
    if (!topo) {
      free(root);
      return MCX_ENOMEM;
    }
    mcx_port_topo_read(topo);
    r = filter == MRAPI_RSRC_CPU     ? build_cpus(root, topo)
        : filter == MRAPI_RSRC_CACHE ? build_caches(root, topo)
                                     : build_memory(root, topo);
    free(topo);
  }
  if (r != MCX_OK) {
    rs_lock();
    free_tree(root);
    rs_unlock();
    return r;
  }
  rs_lock();
  root->next_root = rs.roots;
  rs.roots = root;
  rs_unlock();
  *out = &root->pub;
  return MCX_OK;
}

/* Under rs.lock: @p r is a node of a live tree. */
static rnode_t *valid_node(const mrapi_resource_t *r)
{
  if (!r)
    return NULL;
  rnode_t *n = (rnode_t *)(uintptr_t)r;
  for (rnode_t *t = rs.roots; t; t = t->next_root) {
    /* Only dereference pointers that lie in a live tree: walk it. */
    rnode_t *stack[256];
    int sp = 0;
    stack[sp++] = t;
    while (sp) {
      rnode_t *x = stack[--sp];
      if (x == n)
        return n->magic == RS_MAGIC ? n : NULL;
      for (uint32_t i = 0; i < x->pub.number_of_children && sp < 256; i++)
        stack[sp++] = (rnode_t *)(void *)x->pub.children[i];
    }
  }
  return NULL;
}

int mcx__mr_rsrc_free(mrapi_resource_t *root)
{
  uint32_t d, nd;
  if (mcx__mr_whoami(&d, &nd) != MCX_OK)
    return MCX_ENOENT;
  if (!root)
    return MCX_EMR_RSRC_TREE;
  rs_lock();
  rnode_t **pp = &rs.roots;
  while (*pp && &(*pp)->pub != root)
    pp = &(*pp)->next_root;
  if (!*pp) {
    rs_unlock();
    return MCX_EMR_RSRC_TREE;
  }
  rnode_t *t = *pp;
  *pp = t->next_root;
  free_tree(t);
  rs_unlock();
  return MCX_OK;
}

static int store_int(void *out, size_t size, uint64_t v)
{
  switch (size) {
  case 1:
    *(uint8_t *)out = (uint8_t)v;
    return MCX_OK;
  case 2:
    *(uint16_t *)out = (uint16_t)v;
    return MCX_OK;
  case 4:
    *(uint32_t *)out = (uint32_t)v;
    return MCX_OK;
  case 8:
    memcpy(out, &v, 8);
    return MCX_OK;
  }
  return MCX_EMR_ATTR_SIZE;
}

static uint64_t count_of(rattr_t *a)
{
  mcx_hpc_sample_t smp;
  if (mcx_hpc_group_read(a->g, &smp) != 0 || smp.n == 0)
    return 0;
  return smp.v[0].raw;
}

int mcx__mr_rsrc_attr(const mrapi_resource_t *r, uint32_t num, void *out, size_t size)
{
  uint32_t d, nd;
  if (mcx__mr_whoami(&d, &nd) != MCX_OK)
    return MCX_ENOENT;
  rs_lock();
  rnode_t *n = valid_node(r);
  int rc = MCX_OK;
  if (!n)
    rc = MCX_EMR_RSRC_INVALID;
  else if (num >= n->nattr)
    rc = MCX_EMR_ATTR_NUM;
  else if (!out)
    rc = MCX_EINVAL;
  else if (size == 0)
    rc = MCX_EMR_ATTR_SIZE;
  else {
    rattr_t *a = &n->a[num];
    if (a->kind == MRAPI_ATTR_DYNAMIC) {
      if (!a->event && !a->soft)
        rc = MCX_EMR_NOTSUP;
      else if (!a->started)
        rc = MCX_EMR_NOTSTARTED;
      else
        rc = store_int(out, size, a->soft ? native_of(a) : count_of(a) - a->base);
    } else if (a->nsize) {
      rc = store_int(out, size, native_of(a));
    } else if (a->size == 0) {
      rc = MCX_EMR_NOTSUP;
    } else if (a->text[0]) {
      if (size < strlen(a->text) + 1)
        rc = MCX_EMR_ATTR_SIZE;
      else
        memcpy(out, a->text, strlen(a->text) + 1);
    } else {
      rc = store_int(out, size, a->value);
    }
  }
  rs_unlock();
  return rc;
}

/* ------------------------------------------------------------ ticker */

static void on_notify(void)
{
  /* Signal context: atomics only. */
  uint32_t me_tid = mcx_port_tid();
  for (int i = 0; i < MRAPI_MAX_CALLBACKS; i++) {
    cb_t *c = &rs.cbs[i];
    if (mcx_load_acquire(&c->tid) != me_tid) /* C-A2 */
      continue;
    if (mcx_exchange_acquire(&c->pending, 0u)) { /* C-A1 */
      void (*fn)(mrapi_event_t) = (void (*)(mrapi_event_t))(uintptr_t)mcx_load_relaxed(&c->fn);
      if (fn)
        fn((mrapi_event_t)c->event);
    }
  }
}

static int event_holds(const cb_t *c, int freq_changed)
{
  if (c->event == MRAPI_EVENT_POWER_MANAGEMENT && !c->periodic)
    return freq_changed;
  /* Crossbar events: no crossbar buffer on this machine; they are periodic
   * ticks. On the reference's machine every event is (its alarm). */
  return 1;
}

/* Under rs.lock: calls @p visit for every started attribute of every live tree. */
static void each_started(void (*visit)(rattr_t *a, void *ctx), void *ctx)
{
  for (rnode_t *t = rs.roots; t; t = t->next_root) {
    rnode_t *stack[256];
    int sp = 0;
    stack[sp++] = t;
    while (sp) {
      rnode_t *x = stack[--sp];
      for (uint32_t i = 0; i < x->nattr; i++)
        if (x->a[i].started)
          visit(&x->a[i], ctx);
      for (uint32_t i = 0; i < x->pub.number_of_children && sp < 256; i++)
        stack[sp++] = (rnode_t *)(void *)x->pub.children[i];
    }
  }
}

typedef struct rollovers {
  void (*fn[64])(void);
  int n;
} rollovers_t;

/* A counter whose upper half moved since the last tick rolled over. */
static void check_rollover(rattr_t *a, void *ctx)
{
  rollovers_t *ro = ctx;
  if (a->soft)
    return; /* moved by the test hook only, which reports its own rollovers */
  uint32_t hi = (uint32_t)((count_of(a) - a->base) >> 32);
  if (hi != a->last_hi && a->rollover && ro->n < 64)
    ro->fn[ro->n++] = a->rollover;
  a->last_hi = hi;
}

static void tick(void *arg, uint64_t expirations)
{
  (void)arg;
  (void)expirations;
  rollovers_t ro = {.n = 0};
  uint32_t notify[MRAPI_MAX_CALLBACKS];
  int nnotify = 0;
  uint64_t f = mcx_port_cpu_cur_khz(0);
  rs_lock();
  int freq_changed = rs.last_freq && f && f != rs.last_freq;
  rs.last_freq = f;
  each_started(check_rollover, &ro);
  for (int i = 0; i < MRAPI_MAX_CALLBACKS; i++) {
    cb_t *c = &rs.cbs[i];
    uint32_t tid = mcx_load_relaxed(&c->tid);
    if (!tid)
      continue;
    if (++c->count % c->frequency == 0 && event_holds(c, freq_changed)) {
      mcx_store_release(&c->pending, 1u); /* C-R1 */
      notify[nnotify++] = tid;
    }
  }
  rs_unlock();
  for (int i = 0; i < ro.n; i++)
    ro.fn[i]();
  for (int i = 0; i < nnotify; i++)
    mcx_port_notify_thread(notify[i]);
}

/* Under rs.lock: runs the ticker while anything needs it. The ticker is
 * stopped outside the lock (its tick takes the lock). */
static mcx_port_ticker_t *ticker_update(void)
{
  int need = rs.nstarted > 0 || rs.ncbs > 0;
  if (need && !rs.ticker) {
    if (mcx_port_ticker_start(&rs.ticker, TICK_NS, tick, NULL) != MCX_OK)
      rs.ticker = NULL;
    return NULL;
  }
  if (!need && rs.ticker) {
    mcx_port_ticker_t *t = rs.ticker;
    rs.ticker = NULL;
    return t;
  }
  return NULL;
}

static void ticker_stop(mcx_port_ticker_t *t)
{
  if (t)
    mcx_port_ticker_stop(t);
}

/* ------------------------------------------------------------ dynamic attributes */

static int dyn_attr(const mrapi_resource_t *r, uint32_t num, rnode_t **n_out, rattr_t **a_out)
{
  uint32_t d, nd;
  if (mcx__mr_whoami(&d, &nd) != MCX_OK)
    return MCX_ENOENT;
  rnode_t *n = valid_node(r);
  if (!n)
    return MCX_EMR_RSRC_INVALID;
  if (num >= n->nattr)
    return MCX_EMR_ATTR_NUM;
  if (n->a[num].kind != MRAPI_ATTR_DYNAMIC)
    return MCX_EMR_NOTDYNAMIC;
  *n_out = n;
  *a_out = &n->a[num];
  return MCX_OK;
}

int mcx__mr_rsrc_start(const mrapi_resource_t *r, uint32_t num, void (*rollover)(void))
{
  rnode_t *n;
  rattr_t *a;
  rs_lock();
  int rc = dyn_attr(r, num, &n, &a);
  if (rc == MCX_OK && a->started)
    rc = MCX_EMR_STARTED;
  if (rc == MCX_OK && !a->event && !a->soft)
    rc = MCX_EMR_NOTSUP;
  if (rc == MCX_OK && a->soft) {
    /* Counting goes on from the value it had (the spec's rule for a restart). */
    a->started = MRAPI_TRUE;
    a->rollover = rollover;
    a->seq = rs.next_seq++;
    rs.nstarted++;
  } else if (rc == MCX_OK) {
    mcx_hpc_group_t *g = NULL;
    mcx_hpc_status_t st = MCX_HPC_NOT_SUPPORTED;
    if (mcx_hpc_group_create(&g, 0, -1) != 0) {
      rc = MCX_EMR_NOTSUP;
    } else if (mcx_hpc_group_add(g, a->event, &st) < 0 || st != MCX_HPC_OK || mcx_hpc_group_enable(g) != 0) {
      mcx_hpc_group_close(g);
      rc = st == MCX_HPC_NO_PERMISSION || st == MCX_HPC_NOT_SUPPORTED || st == MCX_HPC_INVALID ? MCX_EMR_NOTSUP
                                                                                              : MCX_ENOMEM;
      if (rc == MCX_ENOMEM)
        rc = MCX_EMR_NOTSUP;
    } else {
      a->g = g;
      a->started = MRAPI_TRUE;
      a->base = 0;
      a->last_hi = 0;
      a->rollover = rollover;
      a->seq = rs.next_seq++;
      rs.nstarted++;
    }
  }
  ticker_update();
  rs_unlock();
  return rc;
}

int mcx__mr_rsrc_reset(const mrapi_resource_t *r, uint32_t num)
{
  rnode_t *n;
  rattr_t *a;
  rs_lock();
  int rc = dyn_attr(r, num, &n, &a);
  if (rc == MCX_OK && !a->started)
    rc = MCX_EMR_NOTSTARTED;
  if (rc == MCX_OK && a->soft) {
    a->native.u32 = 0;
  } else if (rc == MCX_OK) {
    a->base = count_of(a);
    a->last_hi = 0;
  }
  rs_unlock();
  return rc;
}

int mcx__mr_rsrc_stop(const mrapi_resource_t *r, uint32_t num)
{
  rnode_t *n;
  rattr_t *a;
  rs_lock();
  int rc = dyn_attr(r, num, &n, &a);
  if (rc == MCX_OK && !a->started)
    rc = MCX_EMR_NOTSTARTED;
  mcx_port_ticker_t *t = NULL;
  if (rc == MCX_OK) {
    if (a->g)
      mcx_hpc_group_close(a->g);
    a->g = NULL;
    a->started = MRAPI_FALSE;
    started_gone();
    t = ticker_update();
  }
  rs_unlock();
  ticker_stop(t);
  return rc;
}

/* ------------------------------------------------------------ the reference's test hooks */

/* Counts shift by moving the base: the value read is count - base. The
 * example machine's cache hits move started or not, as the reference's hook
 * moves them, modulo 2^32 (its uint32_t). */
int mcx__mr_rsrc_bump(const mrapi_resource_t *r, int64_t by)
{
  uint32_t d, nd;
  if (mcx__mr_whoami(&d, &nd) != MCX_OK)
    return MCX_ENOENT;
  rs_lock();
  rnode_t *n = valid_node(r);
  int rc = n ? MCX_EMR_NOTSTARTED : MCX_EMR_RSRC_INVALID;
  for (uint32_t i = 0; n && i < n->nattr && rc != MCX_OK; i++) {
    if (n->a[i].soft) {
      n->a[i].native.u32 += (uint32_t)by;
      rc = MCX_OK;
    } else if (n->a[i].started) {
      n->a[i].base -= (uint64_t)by;
      rc = MCX_OK;
    }
  }
  rs_unlock();
  return rc;
}

typedef struct seq_find {
  uint32_t seq;
  rattr_t *a;
} seq_find_t;

static void match_seq(rattr_t *a, void *ctx)
{
  seq_find_t *f = ctx;
  if (a->seq == f->seq)
    f->a = a;
}

int mcx__mr_rsrc_rollover(uint32_t seq)
{
  uint32_t d, nd;
  if (mcx__mr_whoami(&d, &nd) != MCX_OK)
    return MCX_ENOENT;
  seq_find_t f = {seq, NULL};
  void (*fn)(void) = NULL;
  rs_lock();
  each_started(match_seq, &f);
  if (f.a && f.a->soft) {
    /* The reference's cache hits: its hook only runs the callback. */
    fn = f.a->rollover;
  } else if (f.a) {
    /* To the next multiple of 2^32: the low half starts again from 0. The
     * ticker is told (last_hi), so the callback runs once, here. */
    uint64_t v = count_of(f.a) - f.a->base;
    uint64_t next = ((v >> 32) + 1) << 32;
    f.a->base -= next - v;
    f.a->last_hi = (uint32_t)(next >> 32);
    fn = f.a->rollover;
  }
  rs_unlock();
  if (fn)
    fn();
  return f.a ? MCX_OK : MCX_EMR_NOTSTARTED;
}

/* ------------------------------------------------------------ callbacks */

int mcx__mr_rsrc_register(int event, unsigned frequency, void (*fn)(mrapi_event_t))
{
  uint32_t d, nd;
  if (mcx__mr_whoami(&d, &nd) != MCX_OK)
    return MCX_ENOENT;
  if (event < MRAPI_EVENT_POWER_MANAGEMENT || event > MRAPI_EVENT_CROSSBAR_BUFFER_OVER_80PERCENT)
    return MCX_EMR_EVENT;
  if (!fn || frequency == 0)
    return MCX_EMR_CALLBACK;
  int periodic = reference_machine();
  rs_lock();
  if (!rs.handler_installed) {
    mcx_port_notify_install(on_notify);
    rs.handler_installed = 1;
  }
  int rc = MCX_ENOMEM;
  for (int i = 0; i < MRAPI_MAX_CALLBACKS; i++) {
    cb_t *c = &rs.cbs[i];
    if (mcx_load_relaxed(&c->tid))
      continue;
    c->event = (uint32_t)event;
    c->frequency = frequency;
    c->count = 0;
    c->pid = mcx_port_pid();
    c->periodic = periodic;
    mcx_store_relaxed(&c->pending, 0u);
    mcx_store_relaxed(&c->fn, (uint64_t)(uintptr_t)fn);
    mcx_store_release(&c->tid, mcx_port_tid()); /* C-R2: pairs with C-A2 */
    rs.ncbs++;
    rc = MCX_OK;
    break;
  }
  ticker_update();
  rs_unlock();
  return rc;
}

/* Under rs.lock. */
static void drop_cb(cb_t *c)
{
  mcx_store_release(&c->tid, 0u);
  mcx_store_relaxed(&c->fn, 0u);
  rs.ncbs--;
}

int mcx__mr_rsrc_unregister(int event, void (*fn)(mrapi_event_t))
{
  uint32_t d, nd;
  if (mcx__mr_whoami(&d, &nd) != MCX_OK)
    return MCX_ENOENT;
  uint32_t tid = mcx_port_tid();
  int found = 0;
  rs_lock();
  for (int i = 0; i < MRAPI_MAX_CALLBACKS; i++) {
    cb_t *c = &rs.cbs[i];
    if (mcx_load_relaxed(&c->tid) == tid && c->event == (uint32_t)event &&
        mcx_load_relaxed(&c->fn) == (uint64_t)(uintptr_t)fn) {
      drop_cb(c);
      found = 1;
    }
  }
  mcx_port_ticker_t *t = ticker_update();
  rs_unlock();
  ticker_stop(t);
  return found ? MCX_OK : MCX_EMR_CALLBACK;
}

void mcx__mr_rsrc_node_gone(void)
{
  uint32_t tid = mcx_port_tid();
  rs_lock();
  for (int i = 0; i < MRAPI_MAX_CALLBACKS; i++)
    if (mcx_load_relaxed(&rs.cbs[i].tid) == tid)
      drop_cb(&rs.cbs[i]);
  mcx_port_ticker_t *t = ticker_update();
  rs_unlock();
  ticker_stop(t);
}
