/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The asymmetric barrier on Linux: membarrier(2) with the GLOBAL_EXPEDITED
 * command, which interrupts every CPU running a thread of a registered
 * process (in any process: domains are shared between processes) and has it
 * execute a full memory barrier. A process registers when the library is
 * loaded and again in a fork child (the kernel does not carry the
 * registration across fork); only then do its notifiers skip their fence.
 * A sleeper issues the command whenever the kernel has it, registered or
 * not, since a notifier of another process may rely on it.
 */
#include <errno.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/mcx_err.h"
#include "ports/mcx_port.h"

mcx_atomic_u32 mcx_port_asym_light;
/* The kernel has GLOBAL_EXPEDITED (decided once at load; fork keeps it). */
static mcx_atomic_u32 heavy_supported;

static long membarrier(int cmd) { return syscall(__NR_membarrier, cmd, 0, 0); }

static void asym_register(void)
{
  /* Relaxed: read by this process's threads, which all start after the
   * constructor (or, in a fork child, after the atfork handler). */
  mcx_store_relaxed(&mcx_port_asym_light, 0);
  if (!mcx_load_relaxed(&heavy_supported) || mcx_port_getenv("MCX_NO_MEMBARRIER"))
    return;
  if (membarrier(MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED) == 0)
    mcx_store_relaxed(&mcx_port_asym_light, 1);
}

__attribute__((constructor)) static void asym_setup_at_load(void)
{
  long q = membarrier(MEMBARRIER_CMD_QUERY);
  if (q > 0 && (q & MEMBARRIER_CMD_GLOBAL_EXPEDITED) &&
      (q & MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED))
    mcx_store_relaxed(&heavy_supported, 1);
  asym_register();
  pthread_atfork(NULL, NULL, asym_register);
}

int mcx_port_heavy_barrier(void)
{
  if (!mcx_load_relaxed(&heavy_supported))
    return MCX_ENOSYS;
  while (membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED) != 0)
    if (errno != EINTR && errno != EAGAIN)
      return MCX_ENOSYS;
  return MCX_OK;
}
