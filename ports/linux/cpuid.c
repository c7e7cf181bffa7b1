/* SPDX-License-Identifier: BSD-3-Clause */
/* CPU identification (x86 CPUID) and the time-stamp counter. */
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <x86intrin.h>
#endif

#include "common/mcx_err.h"
#include "ports/mcx_port_hpc.h"

int mcx_port_cpuid(mcx_port_cpuid_t *out)
{
  memset(out, 0, sizeof *out);
#if defined(__x86_64__) || defined(__i386__)
  unsigned a, b, c, d, max;
  if (!__get_cpuid(0, &max, &b, &c, &d))
    return MCX_ENOSYS;
  memcpy(out->vendor + 0, &b, 4);
  memcpy(out->vendor + 4, &d, 4);
  memcpy(out->vendor + 8, &c, 4);
  out->vendor[12] = '\0';
  if (max >= 1 && __get_cpuid(1, &a, &b, &c, &d)) {
    unsigned fam = (a >> 8) & 0xf, mod = (a >> 4) & 0xf;
    out->stepping = a & 0xf;
    if (fam == 0xf)
      fam += (a >> 20) & 0xff;
    if (fam == 0x6 || fam >= 0xf)
      mod |= ((a >> 16) & 0xf) << 4;
    out->family = fam;
    out->model = mod;
    out->hypervisor = (int)((c >> 31) & 1);
  }
  if (max >= 0xa && !strcmp(out->vendor, "GenuineIntel") && __get_cpuid(0xa, &a, &b, &c, &d))
    out->arch_perfmon_version = a & 0xff;
  unsigned ext;
  if (__get_cpuid(0x80000000u, &ext, &b, &c, &d) && ext >= 0x80000004u) {
    unsigned w[12];
    for (unsigned i = 0; i < 3; i++)
      __get_cpuid(0x80000002u + i, &w[4 * i], &w[4 * i + 1], &w[4 * i + 2], &w[4 * i + 3]);
    memcpy(out->brand, w, 48);
    out->brand[48] = '\0';
  }
  return MCX_OK;
#else
  return MCX_ENOSYS;
#endif
}

uint64_t mcx_port_tsc(void)
{
#if defined(__x86_64__) || defined(__i386__)
  return __rdtsc();
#else
  return 0;
#endif
}
