/* SPDX-License-Identifier: BSD-3-Clause */
/* The machine's topology from /sys (and /proc/meminfo without NUMA nodes). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ports/mcx_port.h"
#include "ports/mcx_port_mrapi.h"
#include "ports/mcx_port_topo.h"

static int read_u64(const char *path, uint64_t *v)
{
  char b[64];
  if (mcx_port_read_text(path, b, sizeof b) <= 0)
    return -1;
  char *end;
  unsigned long long x = strtoull(b, &end, 10);
  if (end == b)
    return -1;
  if (*end == 'K')
    x *= 1024ull;
  else if (*end == 'M')
    x *= 1024ull * 1024ull;
  *v = x;
  return 0;
}

/* "0-3,8,10-11" -> bit mask (processors 0..63). */
static uint64_t parse_list(const char *s)
{
  uint64_t m = 0;
  while (*s) {
    char *end;
    unsigned long a = strtoul(s, &end, 10), b = a;
    if (end == s)
      break;
    s = end;
    if (*s == '-') {
      b = strtoul(s + 1, &end, 10);
      s = end;
    }
    for (unsigned long i = a; i <= b && i < MCX_TOPO_MAX; i++)
      m |= 1ull << i;
    while (*s == ',' || *s == '\n' || *s == ' ')
      s++;
  }
  return m;
}

int mcx_port_mem_base(int node, uint64_t *base)
{
  char b[64], path[96];
  if (mcx_port_read_text("/sys/devices/system/memory/block_size_bytes", b, sizeof b) <= 0)
    return -1;
  unsigned long long block = strtoull(b, NULL, 16);
  if (node >= 0)
    snprintf(path, sizeof path, "/sys/devices/system/node/node%d", node);
  else
    snprintf(path, sizeof path, "/sys/devices/system/memory");
  DIR *d = opendir(path);
  if (!d)
    return -1;
  unsigned long long lowest = ~0ull;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    char *end;
    if (strncmp(e->d_name, "memory", 6) != 0)
      continue;
    unsigned long long k = strtoull(e->d_name + 6, &end, 10);
    if (end != e->d_name + 6 && *end == 0 && k < lowest)
      lowest = k;
  }
  closedir(d);
  if (block == 0 || lowest == ~0ull)
    return -1;
  *base = lowest * block;
  return 0;
}

uint32_t mcx_port_cpu_max_mhz(int cpu)
{
  char path[128];
  uint64_t khz = 0;
  snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpufreq/cpuinfo_max_freq", cpu);
  return read_u64(path, &khz) == 0 ? (uint32_t)(khz / 1000) : 0;
}

uint64_t mcx_port_cpu_cur_khz(int cpu)
{
  char path[128];
  uint64_t khz = 0;
  snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq", cpu);
  return read_u64(path, &khz) == 0 ? khz : 0;
}

int mcx_port_topo_read_sys(mcx_port_topo_t *t)
{
  memset(t, 0, sizeof *t);
  t->source = "sys";
  char b[4096];
  if (mcx_port_read_text("/sys/devices/system/cpu/online", b, sizeof b) > 0) {
    t->cpus = parse_list(b);
  } else {
    int n = mcx_port_ncpus();
    t->cpus = n >= 64 ? ~0ull : ((1ull << n) - 1);
  }
  for (int cpu = 0; cpu < MCX_TOPO_MAX; cpu++) {
    if (!(t->cpus & (1ull << cpu)))
      continue;
    for (int idx = 0; idx < 16 && t->ncaches < MCX_TOPO_MAX; idx++) {
      char path[160];
      mcx_port_cache_t x;
      memset(&x, 0, sizeof x);
      uint64_t v;
      snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cache/index%d/level", cpu, idx);
      if (read_u64(path, &v) != 0)
        break;
      x.level = (uint32_t)v;
      snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cache/index%d/type", cpu, idx);
      x.type = 'u';
      if (mcx_port_read_text(path, b, sizeof b) > 0)
        x.type = !strncmp(b, "Data", 4) ? 'd' : !strncmp(b, "Instruction", 11) ? 'i' : 'u';
      snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cache/index%d/size", cpu, idx);
      read_u64(path, &x.size);
      snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cache/index%d/coherency_line_size", cpu, idx);
      if (read_u64(path, &v) == 0)
        x.line = (uint32_t)v;
      snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cache/index%d/ways_of_associativity", cpu, idx);
      if (read_u64(path, &v) == 0)
        x.ways = (uint32_t)v;
      snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cache/index%d/shared_cpu_list", cpu, idx);
      x.cpus = mcx_port_read_text(path, b, sizeof b) > 0 ? parse_list(b) : (1ull << cpu);
      int dup = 0;
      for (int k = 0; k < t->ncaches && !dup; k++)
        dup = t->caches[k].level == x.level && t->caches[k].cpus == x.cpus && t->caches[k].type == x.type;
      if (!dup)
        t->caches[t->ncaches++] = x;
    }
  }
  for (int node = 0; node < MCX_TOPO_MAX; node++) {
    char path[128];
    snprintf(path, sizeof path, "/sys/devices/system/node/node%d/meminfo", node);
    if (mcx_port_read_text(path, b, sizeof b) <= 0)
      continue;
    const char *p = strstr(b, "MemTotal:");
    unsigned long long kb = p ? strtoull(p + 9, NULL, 10) : 0;
    t->mem[t->nmem].os_index = (uint32_t)node;
    t->mem[t->nmem].has_base = mcx_port_mem_base(node, &t->mem[t->nmem].base) == 0;
    t->mem[t->nmem++].bytes = kb * 1024ull;
  }
  if (t->nmem == 0) {
    unsigned long long kb = 0;
    if (mcx_port_read_text("/proc/meminfo", b, 256) > 0 && !strncmp(b, "MemTotal:", 9))
      kb = strtoull(b + 9, NULL, 10);
    t->mem[0].os_index = 0;
    t->mem[0].has_base = mcx_port_mem_base(-1, &t->mem[0].base) == 0;
    t->mem[0].bytes = kb * 1024ull;
    t->nmem = 1;
  }
  return 0;
}

#ifndef MCX_HAVE_HWLOC
int mcx_port_topo_read(mcx_port_topo_t *t) { return mcx_port_topo_read_sys(t); }
#endif
