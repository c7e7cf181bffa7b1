/* SPDX-License-Identifier: BSD-3-Clause */
/* Event tables, CPU identification and name parsing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/mcx_atomic.h"
#include "common/mcx_err.h"
#include "hpc/hpc_internal.h"
#include "ports/mcx_port_hpc.h"

/*
 * Generic events: perf's generic ids (include/uapi/linux/perf_event.h,
 * enum perf_hw_id / perf_sw_ids / perf_hw_cache_id); the kernel maps them to
 * each PMU. HW_CACHE config = cache | op << 8 | result << 16.
 */
#define SRC_PERF "linux include/uapi/linux/perf_event.h"
static const mcx_hpc_event_t generic_events[] = {
    {"cycles", MCX_HPC_TYPE_HARDWARE, 0, MCX_HPC_CLASS_HARDWARE, 0, 0, "core cycles", SRC_PERF},
    {"instructions", MCX_HPC_TYPE_HARDWARE, 1, MCX_HPC_CLASS_HARDWARE, 0, 0, "instructions retired", SRC_PERF},
    {"cache-references", MCX_HPC_TYPE_HARDWARE, 2, MCX_HPC_CLASS_HARDWARE, 0, 0, "last-level cache references", SRC_PERF},
    {"cache-misses", MCX_HPC_TYPE_HARDWARE, 3, MCX_HPC_CLASS_HARDWARE, 0, 0, "last-level cache misses", SRC_PERF},
    {"L1-dcache-load-misses", MCX_HPC_TYPE_HW_CACHE, 0x10000, MCX_HPC_CLASS_HARDWARE, 0, 0, "L1D read misses", SRC_PERF},
    {"LLC-load-misses", MCX_HPC_TYPE_HW_CACHE, 0x10002, MCX_HPC_CLASS_HARDWARE, 0, 0, "LLC read misses", SRC_PERF},
    {"branch-misses", MCX_HPC_TYPE_HARDWARE, 5, MCX_HPC_CLASS_HARDWARE, 0, 0, "mispredicted branches", SRC_PERF},
    /* Software events: counted by the kernel, no PMU needed. Context switches
     * happen in kernel mode, so they are opened with exclude_kernel = 0. */
    {"task-clock", MCX_HPC_TYPE_SOFTWARE, 1, MCX_HPC_CLASS_SOFTWARE, 0, MCX_HPC_EV_TIME_NS, "time on CPU (ns)", SRC_PERF},
    {"context-switches", MCX_HPC_TYPE_SOFTWARE, 3, MCX_HPC_CLASS_SOFTWARE, 0, 0, "context switches", SRC_PERF},
    {"cpu-migrations", MCX_HPC_TYPE_SOFTWARE, 4, MCX_HPC_CLASS_SOFTWARE, 0, 0, "moves to another CPU", SRC_PERF},
    {"page-faults", MCX_HPC_TYPE_SOFTWARE, 2, MCX_HPC_CLASS_SOFTWARE, 0, 0, "page faults", SRC_PERF},
};

static const struct {
  const char *alias, *name;
} aliases[] = {
    {"cpu-cycles", "cycles"},       {"l1d-read-misses", "L1-dcache-load-misses"},
    {"llc-misses", "LLC-load-misses"}, {"llc-read-misses", "LLC-load-misses"},
    {"cs", "context-switches"},     {"migrations", "cpu-migrations"},
    {"faults", "page-faults"},
};

/*
 * Coherence events. Raw codes are perf's x86 encoding: Intel umask << 8 |
 * event; AMD umask << 8 | event[7:0] | event[11:8] << 32.
 *
 * Intel Core 2 (the paper's Q9550): Intel SDM vol. 3B, "Performance
 * Monitoring Events for Intel Core Microarchitecture" (EXT_SNOOP 77H, umask
 * CLEAN 01H / HIT 02H / HITM 08H, ALL_AGENTS 20H; CMP_SNOOP 78H, ANY 03H,
 * SHARE 01H, INVALIDATE 02H with core specificity 40H = this core;
 * BUS_HIT_DRV 7AH, BUS_HITM_DRV 7BH, ALL_AGENTS 20H); same codes in libpfm4
 * lib/events/intel_core_events.h.
 */
#define SRC_CORE2 "Intel SDM vol. 3B, Core microarchitecture events; libpfm4 intel_core_events.h"
#define SUM MCX_HPC_EV_COHERENCE_SUM
#define C2 MCX_HPC_UARCH_INTEL_CORE2
static const mcx_hpc_event_t core2_events[] = {
    {"EXT_SNOOP.ALL_AGENTS.HIT", 4, 0x2277, MCX_HPC_CLASS_COHERENCE, C2, SUM, "external snoops answered HIT (clean copy)", SRC_CORE2},
    {"EXT_SNOOP.ALL_AGENTS.HITM", 4, 0x2877, MCX_HPC_CLASS_COHERENCE, C2, SUM, "external snoops answered HITM (modified copy)", SRC_CORE2},
    {"EXT_SNOOP.ALL_AGENTS.CLEAN", 4, 0x2177, MCX_HPC_CLASS_COHERENCE, C2, 0, "external snoops answered CLEAN (no copy)", SRC_CORE2},
    {"CMP_SNOOP.ANY", 4, 0x4378, MCX_HPC_CLASS_COHERENCE, C2, 0, "this core's L1D snooped by the other core", SRC_CORE2},
    {"CMP_SNOOP.SHARE", 4, 0x4178, MCX_HPC_CLASS_COHERENCE, C2, 0, "L1D snooped for sharing by the other core", SRC_CORE2},
    {"CMP_SNOOP.INVALIDATE", 4, 0x4278, MCX_HPC_CLASS_COHERENCE, C2, 0, "L1D snooped for invalidation by the other core", SRC_CORE2},
    {"BUS_HIT_DRV.ALL_AGENTS", 4, 0x207A, MCX_HPC_CLASS_COHERENCE, C2, 0, "HIT signal asserted on the bus", SRC_CORE2},
    {"BUS_HITM_DRV.ALL_AGENTS", 4, 0x207B, MCX_HPC_CLASS_COHERENCE, C2, 0, "HITM signal asserted on the bus", SRC_CORE2},
};

/*
 * Skylake .. Ice Lake: MEM_LOAD_L3_HIT_RETIRED (event D2H) umask XSNP_MISS
 * 01H, XSNP_HIT 02H, XSNP_HITM 04H, XSNP_NONE 08H. Source: Intel perfmon
 * event lists (perfmon.intel.com, SKL/SKX/ICL/ICX "core" JSON), mirrored in
 * linux tools/perf/pmu-events/arch/x86/skylake/cache.json.
 */
#define SRC_SKL "Intel perfmon SKL/SKX/ICL/ICX; linux tools/perf/pmu-events/arch/x86/skylake/cache.json"
#define SK MCX_HPC_UARCH_INTEL_SKL_ICL
static const mcx_hpc_event_t skl_events[] = {
    {"MEM_LOAD_L3_HIT_RETIRED.XSNP_HITM", 4, 0x04D2, MCX_HPC_CLASS_COHERENCE, SK, SUM, "loads hitting L3 whose line was modified in a sibling core", SRC_SKL},
    {"MEM_LOAD_L3_HIT_RETIRED.XSNP_HIT", 4, 0x02D2, MCX_HPC_CLASS_COHERENCE, SK, SUM, "loads hitting L3 whose line was clean in a sibling core", SRC_SKL},
    {"MEM_LOAD_L3_HIT_RETIRED.XSNP_MISS", 4, 0x01D2, MCX_HPC_CLASS_COHERENCE, SK, 0, "loads hitting L3 after a cross-core snoop that missed", SRC_SKL},
    {"MEM_LOAD_L3_HIT_RETIRED.XSNP_NONE", 4, 0x08D2, MCX_HPC_CLASS_COHERENCE, SK, 0, "loads hitting L3 without a snoop", SRC_SKL},
};

/*
 * Sapphire Rapids / Emerald Rapids: MEM_LOAD_L3_HIT_RETIRED (D2H) with the
 * renamed umasks XSNP_MISS 01H, XSNP_NO_FWD 02H, XSNP_FWD 04H, XSNP_NONE 08H.
 * Source: linux tools/perf/pmu-events/arch/x86/sapphirerapids/cache.json.
 */
#define SRC_SPR "Intel perfmon SPR; linux tools/perf/pmu-events/arch/x86/sapphirerapids/cache.json"
#define SP MCX_HPC_UARCH_INTEL_SPR
static const mcx_hpc_event_t spr_events[] = {
    {"MEM_LOAD_L3_HIT_RETIRED.XSNP_FWD", 4, 0x04D2, MCX_HPC_CLASS_COHERENCE, SP, SUM, "loads hitting L3, data forwarded from a sibling core", SRC_SPR},
    {"MEM_LOAD_L3_HIT_RETIRED.XSNP_NO_FWD", 4, 0x02D2, MCX_HPC_CLASS_COHERENCE, SP, SUM, "loads hitting L3, sibling snooped, not forwarded", SRC_SPR},
    {"MEM_LOAD_L3_HIT_RETIRED.XSNP_MISS", 4, 0x01D2, MCX_HPC_CLASS_COHERENCE, SP, 0, "loads hitting L3 after a snoop that missed", SRC_SPR},
    {"MEM_LOAD_L3_HIT_RETIRED.XSNP_NONE", 4, 0x08D2, MCX_HPC_CLASS_COHERENCE, SP, 0, "loads hitting L3 without a snoop", SRC_SPR},
};

/*
 * AMD Zen 3: PMCx044 LsAnyFillsFromSys, umask LclL2 01H, IntCache 02H
 * (another L2 or L3 in this CCX), ExtCacheLcl 04H (another CCX, this node),
 * MemIoLcl 08H, ExtCacheRmt 10H (another node), MemIoRmt 40H. Source: AMD
 * PPR for family 19h model 01h, 2.1.15.4.x; linux
 * tools/perf/pmu-events/arch/x86/amdzen3/load-store.json.
 * Same-CCX cache-to-cache fills are not separable from L3 hits on AMD, so
 * only the cross-CCX sources count as coherence traffic here.
 */
#define SRC_ZEN3 "AMD PPR 19h model 01h (PMCx044); linux tools/perf/pmu-events/arch/x86/amdzen3/load-store.json"
#define Z3 MCX_HPC_UARCH_AMD_ZEN3
static const mcx_hpc_event_t zen3_events[] = {
    {"ls_any_fills_from_sys.ext_cache_local", 4, 0x0444, MCX_HPC_CLASS_COHERENCE, Z3, SUM, "fills from another CCX's cache, same node", SRC_ZEN3},
    {"ls_any_fills_from_sys.ext_cache_remote", 4, 0x1044, MCX_HPC_CLASS_COHERENCE, Z3, SUM, "fills from another CCX's cache, other node", SRC_ZEN3},
    {"ls_any_fills_from_sys.int_cache", 4, 0x0244, MCX_HPC_CLASS_COHERENCE, Z3, 0, "fills from L3 or another L2 in this CCX", SRC_ZEN3},
    {"ls_any_fills_from_sys.lcl_l2", 4, 0x0144, MCX_HPC_CLASS_COHERENCE, Z3, 0, "fills from this core's L2", SRC_ZEN3},
    {"ls_any_fills_from_sys.mem_io_local", 4, 0x0844, MCX_HPC_CLASS_COHERENCE, Z3, 0, "fills from DRAM/IO, same node", SRC_ZEN3},
};

/*
 * AMD Zen 4: PMCx044 with umask local_l2 01H, local_ccx 02H, near_cache 04H
 * (another CCX, same NUMA node), dram_io_near 08H, far_cache 10H (another
 * CCX, other node), remote_cache 14H, dram_io_far 40H. Source: AMD PPR for
 * family 19h model 11h; linux tools/perf/pmu-events/arch/x86/amdzen4/load-store.json.
 */
#define SRC_ZEN4 "AMD PPR 19h model 11h (PMCx044); linux tools/perf/pmu-events/arch/x86/amdzen4/load-store.json"
#define Z4 MCX_HPC_UARCH_AMD_ZEN4
static const mcx_hpc_event_t zen4_events[] = {
    {"ls_any_fills_from_sys.near_cache", 4, 0x0444, MCX_HPC_CLASS_COHERENCE, Z4, SUM, "fills from another CCX's cache, same NUMA node", SRC_ZEN4},
    {"ls_any_fills_from_sys.far_cache", 4, 0x1044, MCX_HPC_CLASS_COHERENCE, Z4, SUM, "fills from another CCX's cache, other NUMA node", SRC_ZEN4},
    {"ls_any_fills_from_sys.local_ccx", 4, 0x0244, MCX_HPC_CLASS_COHERENCE, Z4, 0, "fills from L3 or another L2 in this CCX", SRC_ZEN4},
    {"ls_any_fills_from_sys.local_l2", 4, 0x0144, MCX_HPC_CLASS_COHERENCE, Z4, 0, "fills from this core's L2", SRC_ZEN4},
    {"ls_any_fills_from_sys.dram_io_near", 4, 0x0844, MCX_HPC_CLASS_COHERENCE, Z4, 0, "fills from DRAM/IO, same NUMA node", SRC_ZEN4},
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

const mcx_hpc_event_t *mcx_hpc_event_table(mcx_hpc_uarch_t u, size_t *n)
{
  switch (u) {
  case MCX_HPC_UARCH_INTEL_CORE2: *n = N(core2_events); return core2_events;
  case MCX_HPC_UARCH_INTEL_SKL_ICL: *n = N(skl_events); return skl_events;
  case MCX_HPC_UARCH_INTEL_SPR: *n = N(spr_events); return spr_events;
  case MCX_HPC_UARCH_AMD_ZEN3: *n = N(zen3_events); return zen3_events;
  case MCX_HPC_UARCH_AMD_ZEN4: *n = N(zen4_events); return zen4_events;
  default: *n = N(generic_events); return generic_events;
  }
}

const char *mcx_hpc_uarch_name(mcx_hpc_uarch_t u)
{
  static const char *const names[] = {"unknown", "Intel Core 2", "Intel Skylake..Ice Lake",
                                      "Intel Sapphire Rapids", "AMD Zen 3", "AMD Zen 4"};
  return (unsigned)u < N(names) ? names[u] : "unknown";
}

static mcx_hpc_uarch_t classify(const char *vendor, unsigned family, unsigned model)
{
  if (!strcmp(vendor, "GenuineIntel") && family == 6) {
    static const unsigned core2[] = {0x0F, 0x16, 0x17, 0x1D};
    static const unsigned skl[] = {0x4E, 0x5E, 0x55, 0x8E, 0x9E, 0xA5, 0xA6, 0x66, 0x7D, 0x7E, 0x6A, 0x6C};
    static const unsigned spr[] = {0x8F, 0xCF};
    for (size_t i = 0; i < N(core2); i++)
      if (model == core2[i])
        return MCX_HPC_UARCH_INTEL_CORE2;
    for (size_t i = 0; i < N(skl); i++)
      if (model == skl[i])
        return MCX_HPC_UARCH_INTEL_SKL_ICL;
    for (size_t i = 0; i < N(spr); i++)
      if (model == spr[i])
        return MCX_HPC_UARCH_INTEL_SPR;
  }
  if (!strcmp(vendor, "AuthenticAMD") && family == 0x19) {
    unsigned hi = model >> 4; /* Zen 3: 0x, 2x, 4x, 5x; Zen 4: 1x, 6x, 7x, Ax */
    if (hi == 0x0 || hi == 0x2 || hi == 0x4 || hi == 0x5)
      return MCX_HPC_UARCH_AMD_ZEN3;
    if (hi == 0x1 || hi == 0x6 || hi == 0x7 || hi == 0xA)
      return MCX_HPC_UARCH_AMD_ZEN4;
  }
  return MCX_HPC_UARCH_UNKNOWN;
}

int mcx_hpc_cpu_detect(mcx_hpc_cpu_t *cpu)
{
  mcx_port_cpuid_t id;
  int rc = mcx_port_cpuid(&id);
  memset(cpu, 0, sizeof *cpu);
  if (rc != MCX_OK)
    return rc;
  memcpy(cpu->vendor, id.vendor, sizeof cpu->vendor);
  memcpy(cpu->brand, id.brand, sizeof cpu->brand);
  cpu->family = id.family;
  cpu->model = id.model;
  cpu->stepping = id.stepping;
  cpu->hypervisor = id.hypervisor;
  cpu->uarch = classify(id.vendor, id.family, id.model);
  return MCX_OK;
}

const mcx_hpc_cpu_t *mcx__hpc_cpu(void)
{
  /* Detection is idempotent and cheap; every caller computing it again into
   * its own copy would do as well, so a relaxed flag is enough: the worst case
   * is two threads filling the same bytes with the same values before one
   * publishes. The store of "ready" is release so a reader that sees it also
   * sees the bytes (A1 pairs with R1). */
  static mcx_hpc_cpu_t cpu;
  static mcx_atomic_u32 ready;
  static mcx_atomic_u32 claimed;
  if (mcx_load_acquire(&ready)) /* A1 */
    return &cpu;
  uint32_t zero = 0;
  if (mcx_cas_acq_rel(&claimed, &zero, 1u)) {
    mcx_hpc_cpu_detect(&cpu);
    mcx_store_release(&ready, 1u); /* R1 */
  } else {
    while (!mcx_load_acquire(&ready)) { /* A1: the claimer is filling it in, microseconds */
    }
  }
  return &cpu;
}

int mcx__hpc_name_eq(const char *a, const char *b)
{
  for (; *a && *b; a++, b++) {
    char x = *a, y = *b;
    if (x >= 'A' && x <= 'Z')
      x = (char)(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z')
      y = (char)(y - 'A' + 'a');
    if (x != y)
      return 0;
  }
  return *a == *b;
}

static void set_err(char *err, size_t len, const char *fmt, const char *arg)
{
  if (err && len)
    snprintf(err, len, fmt, arg);
}

static int parse_hex(const char *s, uint64_t *out)
{
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
    s += 2;
  if (!*s)
    return -1;
  uint64_t v = 0;
  int digits = 0;
  for (; *s; s++) {
    int d;
    if (*s >= '0' && *s <= '9')
      d = *s - '0';
    else if (*s >= 'a' && *s <= 'f')
      d = *s - 'a' + 10;
    else if (*s >= 'A' && *s <= 'F')
      d = *s - 'A' + 10;
    else
      return -1;
    if (++digits > 16)
      return -2;
    v = v << 4 | (uint64_t)d;
  }
  *out = v;
  return 0;
}

int mcx_hpc_event_parse(const char *name, mcx_hpc_event_t *ev, char *namebuf, size_t namelen,
                        char *err, size_t errlen)
{
  if (!name || !*name || !ev) {
    set_err(err, errlen, "empty event name%s", "");
    return MCX_ENOENT;
  }
  for (size_t i = 0; i < N(aliases); i++)
    if (mcx__hpc_name_eq(name, aliases[i].alias))
      name = aliases[i].name;
  for (int u = 0; u < MCX_HPC_UARCH_COUNT; u++) {
    size_t n;
    const mcx_hpc_event_t *t = mcx_hpc_event_table((mcx_hpc_uarch_t)u, &n);
    for (size_t i = 0; i < n; i++)
      if (mcx__hpc_name_eq(name, t[i].name)) {
        *ev = t[i];
        return MCX_OK;
      }
  }
  const char *code = NULL;
  if (!strncmp(name, "raw:", 4))
    code = name + 4;
  else if (name[0] == 'r' && name[1] &&
           strspn(name + 1, "0123456789abcdefABCDEF") == strlen(name + 1))
    code = name + 1; /* perf's rNNNN spelling */
  if (!code) {
    set_err(err, errlen,
            "unknown event '%s' (generic, software and coherence names, or raw:0xCODE; "
            "`mca coherence --list` shows them)",
            name);
    return MCX_ENOENT;
  }
  char first[24] = {0}, second[24] = {0};
  const char *colon = strchr(code, ':');
  size_t l1 = colon ? (size_t)(colon - code) : strlen(code);
  if (l1 == 0 || l1 >= sizeof first || (colon && strlen(colon + 1) >= sizeof second)) {
    set_err(err, errlen, "raw code '%s' is malformed (expected raw:0xCODE or raw:0xCODE:0xCONFIG1)", name);
    return MCX_EINVAL;
  }
  memcpy(first, code, l1);
  if (colon)
    strcpy(second, colon + 1);
  uint64_t config = 0, config1 = 0;
  int r1 = parse_hex(first, &config), r2 = colon ? parse_hex(second, &config1) : 0;
  if (r1 == -2 || r2 == -2) {
    set_err(err, errlen, "raw code '%s' does not fit in 64 bits", name);
    return MCX_EINVAL;
  }
  if (r1 || r2) {
    set_err(err, errlen, "raw code '%s' is not a hexadecimal number", name);
    return MCX_EINVAL;
  }
  if (config == 0) {
    set_err(err, errlen, "raw code '%s' is zero (no event selected)", name);
    return MCX_EINVAL;
  }
  memset(ev, 0, sizeof *ev);
  if (namebuf && namelen) {
    snprintf(namebuf, namelen, "%s", name);
    ev->name = namebuf;
  } else {
    ev->name = "raw";
  }
  ev->type = MCX_HPC_TYPE_RAW;
  ev->config = config;
  ev->cls = MCX_HPC_CLASS_RAW;
  ev->uarch = MCX_HPC_UARCH_UNKNOWN;
  ev->description = "raw code given by hand";
  ev->source = "user";
  (void)config1; /* config1 (offcore/extra masks) is carried by the group, see group.c */
  return MCX_OK;
}

uint64_t mcx__hpc_raw_config1(const char *name)
{
  const char *code = !strncmp(name, "raw:", 4) ? name + 4 : NULL;
  const char *colon = code ? strchr(code, ':') : NULL;
  uint64_t v = 0;
  if (colon && parse_hex(colon + 1, &v) == 0)
    return v;
  return 0;
}

const char *mcx_hpc_status_name(mcx_hpc_status_t s)
{
  switch (s) {
  case MCX_HPC_OK: return "OK";
  case MCX_HPC_NOT_SUPPORTED: return "NOT_SUPPORTED";
  case MCX_HPC_NO_PERMISSION: return "NO_PERMISSION";
  case MCX_HPC_INVALID: return "INVALID";
  }
  return "?";
}

const char *mcx_hpc_strerror(int err)
{
  switch (err) {
  case MCX_OK: return "ok";
  case MCX_EINVAL: return "invalid argument";
  case MCX_ENOMEM: return "out of memory or slots";
  case MCX_ENOENT: return "no such event or thread";
  case MCX_EPERM: return "no permission";
  case MCX_EBUSY: return "busy";
  case MCX_ENOSYS: return "not supported here";
  case MCX_EIO: return "an OS call failed";
  default: return "error";
  }
}

mcx_hpc_status_t mcx__hpc_status_from_err(int err)
{
  switch (err) {
  case MCX_OK: return MCX_HPC_OK;
  case MCX_ENOSYS: return MCX_HPC_NOT_SUPPORTED;
  case MCX_EPERM: return MCX_HPC_NO_PERMISSION;
  default: return MCX_HPC_INVALID;
  }
}
