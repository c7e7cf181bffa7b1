/* SPDX-License-Identifier: BSD-3-Clause */
/* The machine's topology through hwloc (built with MCX_WITH_HWLOC). The
 * topology is loaded once per process; /sys is the fallback when hwloc fails. */
#include <hwloc.h>
#include <pthread.h>
#include <string.h>

#include "ports/mcx_port_topo.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static mcx_port_topo_t cached;
static int cached_ok;

static uint64_t mask_of(hwloc_const_bitmap_t set)
{
  uint64_t m = 0;
  for (int i = 0; i < MCX_TOPO_MAX; i++)
    if (hwloc_bitmap_isset(set, (unsigned)i))
      m |= 1ull << i;
  return m;
}

static void load(void)
{
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0)
    return;
  /* Instruction caches too, as /sys lists them. */
  hwloc_topology_set_icache_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_ALL);
  if (hwloc_topology_load(topo) != 0) {
    hwloc_topology_destroy(topo);
    return;
  }
  mcx_port_topo_t *t = &cached;
  memset(t, 0, sizeof *t);
  t->source = "hwloc";
  int npu = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
  for (int i = 0; i < npu; i++) {
    hwloc_obj_t pu = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, (unsigned)i);
    if (pu && pu->os_index < MCX_TOPO_MAX)
      t->cpus |= 1ull << pu->os_index;
  }
  static const hwloc_obj_type_t kinds[] = {HWLOC_OBJ_L1CACHE,  HWLOC_OBJ_L2CACHE,  HWLOC_OBJ_L3CACHE,
                                           HWLOC_OBJ_L4CACHE,  HWLOC_OBJ_L5CACHE,  HWLOC_OBJ_L1ICACHE,
                                           HWLOC_OBJ_L2ICACHE, HWLOC_OBJ_L3ICACHE};
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
    int n = hwloc_get_nbobjs_by_type(topo, kinds[k]);
    for (int i = 0; i < n && t->ncaches < MCX_TOPO_MAX; i++) {
      hwloc_obj_t o = hwloc_get_obj_by_type(topo, kinds[k], (unsigned)i);
      if (!o || !o->attr)
        continue;
      mcx_port_cache_t *c = &t->caches[t->ncaches++];
      c->level = o->attr->cache.depth;
      c->size = o->attr->cache.size;
      c->line = o->attr->cache.linesize;
      c->ways = o->attr->cache.associativity > 0 ? (uint32_t)o->attr->cache.associativity : 0;
      c->type = o->attr->cache.type == HWLOC_OBJ_CACHE_DATA          ? 'd'
                : o->attr->cache.type == HWLOC_OBJ_CACHE_INSTRUCTION ? 'i'
                                                                     : 'u';
      c->cpus = mask_of(o->cpuset);
    }
  }
  int nn = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
  for (int i = 0; i < nn && t->nmem < MCX_TOPO_MAX; i++) {
    hwloc_obj_t o = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, (unsigned)i);
    if (!o)
      continue;
    t->mem[t->nmem].os_index = o->os_index;
    uint64_t *base = &t->mem[t->nmem].base;
    t->mem[t->nmem].has_base =
        mcx_port_mem_base((int)o->os_index, base) == 0 || (nn == 1 && mcx_port_mem_base(-1, base) == 0);
    t->mem[t->nmem++].bytes = o->attr ? o->attr->numanode.local_memory : 0;
  }
  hwloc_topology_destroy(topo);
  cached_ok = t->cpus != 0 && t->nmem > 0;
}

int mcx_port_topo_read(mcx_port_topo_t *t)
{
  pthread_once(&once, load);
  if (!cached_ok)
    return mcx_port_topo_read_sys(t);
  *t = cached;
  return 0;
}
