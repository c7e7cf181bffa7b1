/* SPDX-License-Identifier: BSD-3-Clause */
/* Affinity and thread ids (Linux). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/mcx_err.h"
#include "ports/mcx_port.h"

int mcx_port_pin_self(int cpu)
{
  cpu_set_t set;
  CPU_ZERO(&set);
  int n = mcx_port_ncpus();
  if (cpu >= n)
    return MCX_EINVAL;
  if (cpu < 0) {
    for (int i = 0; i < n; i++)
      CPU_SET(i, &set);
  } else {
    CPU_SET(cpu, &set);
  }
  return sched_setaffinity(0, sizeof set, &set) == 0 ? MCX_OK : MCX_EIO;
}

uint32_t mcx_port_tid(void) { return (uint32_t)syscall(SYS_gettid); }
