/* SPDX-License-Identifier: BSD-3-Clause */
/* The machine's topology for MRAPI metadata (Windows):
 * GetLogicalProcessorInformation for processors, caches and NUMA nodes,
 * GlobalMemoryStatusEx for the memory. hwloc is not used on this port. */
#include "win32.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/mcx_err.h"
#include "ports/mcx_port.h"
#include "ports/mcx_port_topo.h"

int mcx_port_topo_read_sys(mcx_port_topo_t *t)
{
  memset(t, 0, sizeof *t);
  t->source = "win32";
  DWORD_PTR proc, sys;
  if (GetProcessAffinityMask(GetCurrentProcess(), &proc, &sys))
    t->cpus = (uint64_t)sys;
  DWORD len = 0;
  GetLogicalProcessorInformation(NULL, &len);
  SYSTEM_LOGICAL_PROCESSOR_INFORMATION *info = len ? malloc(len) : NULL;
  int nodes = 0;
  if (info && GetLogicalProcessorInformation(info, &len)) {
    size_t n = len / sizeof *info;
    for (size_t i = 0; i < n; i++) {
      if (info[i].Relationship == RelationCache && t->ncaches < MCX_TOPO_MAX) {
        const CACHE_DESCRIPTOR *c = &info[i].Cache;
        mcx_port_cache_t *o = &t->caches[t->ncaches++];
        o->level = c->Level;
        o->type = c->Type == CacheInstruction ? 'i' : c->Type == CacheData ? 'd' : 'u';
        o->line = c->LineSize;
        o->ways = c->Associativity == CACHE_FULLY_ASSOCIATIVE ? 0 : c->Associativity;
        o->size = c->Size;
        o->cpus = (uint64_t)info[i].ProcessorMask;
      } else if (info[i].Relationship == RelationNumaNode && t->nmem < MCX_TOPO_MAX) {
        t->mem[t->nmem].os_index = info[i].NumaNode.NodeNumber;
        t->nmem++;
        nodes++;
      }
    }
  }
  free(info);
  MEMORYSTATUSEX ms = {.dwLength = sizeof ms};
  uint64_t total = GlobalMemoryStatusEx(&ms) ? ms.ullTotalPhys : 0;
  if (t->nmem == 0) {
    t->nmem = 1;
    t->mem[0].os_index = 0;
  }
  for (int i = 0; i < t->nmem; i++) {
    ULONGLONG avail = 0;
    /* Per-node totals are not reported; one node has the machine's memory. */
    if (t->nmem == 1)
      t->mem[i].bytes = total;
    else if (GetNumaAvailableMemoryNodeEx((USHORT)t->mem[i].os_index, &avail))
      t->mem[i].bytes = avail;
  }
  (void)nodes;
  if (t->cpus == 0) {
    int n = mcx_port_ncpus();
    t->cpus = n >= 64 ? ~0ull : (1ull << n) - 1;
  }
  return MCX_OK;
}

int mcx_port_topo_read(mcx_port_topo_t *t) { return mcx_port_topo_read_sys(t); }

int mcx_port_mem_base(int node, uint64_t *base)
{
  (void)node;
  (void)base;
  return -1; /* physical addresses are not visible to programs on Windows */
}

uint32_t mcx_port_cpu_max_mhz(int cpu)
{
  wchar_t key[96];
  DWORD mhz = 0, size = sizeof mhz;
  swprintf(key, 96, L"HARDWARE\\DESCRIPTION\\System\\CentralProcessor\\%d", cpu < 0 ? 0 : cpu);
  if (RegGetValueW(HKEY_LOCAL_MACHINE, key, L"~MHz", RRF_RT_REG_DWORD, NULL, &mhz, &size) !=
      ERROR_SUCCESS)
    return 0;
  return mhz;
}

uint64_t mcx_port_cpu_cur_khz(int cpu)
{
  (void)cpu;
  return 0; /* not reported without the power API's per-processor query */
}
