/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file mcx_port_topo.h
 * @brief The machine's topology for MRAPI metadata: processors online, caches
 * (with the processors sharing each), memory per NUMA node. Read through
 * hwloc when libmca is built with it (MCX_WITH_HWLOC), from /sys otherwise,
 * and from /sys when hwloc fails at run time.
 */
#ifndef MCX_PORT_TOPO_H
#define MCX_PORT_TOPO_H

#include <stdint.h>

#define MCX_TOPO_MAX 64 /* processors (bit masks), caches, memory nodes */

typedef struct mcx_port_cache {
  uint32_t level;
  char type; /* 'd' data, 'i' instruction, 'u' unified */
  uint32_t line, ways; /* 0: unknown; ways 0 also for fully associative */
  uint64_t size;       /* bytes, 0: unknown */
  uint64_t cpus;       /* processors sharing it (bit n = processor n < 64) */
} mcx_port_cache_t;

typedef struct mcx_port_memnode {
  uint32_t os_index;
  int has_base;   /* whether base is known */
  uint64_t base;  /* lowest physical address of the node's memory */
  uint64_t bytes; /* 0: unknown */
} mcx_port_memnode_t;

typedef struct mcx_port_topo {
  uint64_t cpus; /* online processors (bit n = processor n < 64) */
  int ncaches;
  mcx_port_cache_t caches[MCX_TOPO_MAX];
  int nmem;
  mcx_port_memnode_t mem[MCX_TOPO_MAX];
  const char *source; /* "hwloc" or "sys" */
} mcx_port_topo_t;

/** @brief Reads the topology (hwloc if built in and working, else /sys). MT-safe. @retval 0 */
int mcx_port_topo_read(mcx_port_topo_t *t);
/** @brief Reads it from /sys only. @retval 0 */
int mcx_port_topo_read_sys(mcx_port_topo_t *t);
/** @brief Lowest physical address of NUMA node @p node's memory (-1: the
 *  whole machine), from its lowest memory block. @retval 0 @retval -1 unknown */
int mcx_port_mem_base(int node, uint64_t *base);
/** @brief Maximum frequency of processor @p cpu in MHz, 0 when unknown (cpufreq). */
uint32_t mcx_port_cpu_max_mhz(int cpu);
/** @brief Current frequency of processor @p cpu in kHz, 0 when unknown. */
uint64_t mcx_port_cpu_cur_khz(int cpu);

#endif /* MCX_PORT_TOPO_H */
