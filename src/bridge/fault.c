/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fault injection for the tests (docs/bridge.md): MCX_BRIDGE_FAULT=K:S kills
 * this process with SIGKILL at step S (0..4, see mcx__mpsc_commit_t) of its
 * K-th message delivery; MCX_BRIDGE_TAKE_FAULT=K:S at step S of its K-th
 * take of a message from a proxy (0: taken and held, not yet journaled; 1:
 * its pass's frames journaled, the messages not yet given back). Node thread only; nothing happens without
 * the variables. MCX_BRIDGE_IO_FAULT=read:K,write:K closes a peer's
 * connection just before its K-th read (its link thread) or write (the node
 * thread) starts, as a close from another thread can land (a new connection
 * replacing it, its reader or keeper finding it lost): that read or write
 * must be refused, not left waiting on the closed stream.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bridge_internal.h"
#include "ports/mcx_port.h"
#include "runtime/receipt_hook.h"

static int fault_step;

static void fault_kill(int step)
{
  if (step != fault_step)
    return;
  mcx_port_kill_self();
}

void mcx__br_fault_arm(void)
{
  static long count, at = -1;
  if (at < 0) {
    const char *f = getenv("MCX_BRIDGE_FAULT");
    at = 0;
    if (f && sscanf(f, "%ld:%d", &at, &fault_step) != 2)
      at = 0;
  }
  if (at > 0 && ++count == at) {
    fprintf(stderr, "mca bridge: MCX_BRIDGE_FAULT: killed at step %d of delivery %ld\n", fault_step, count);
    fflush(stderr);
    mcx__receipt_test_hook = fault_kill;
  }
}

void mcx__br_fault_take(int step, unsigned n)
{
  static long count, at = -1;
  static int want;
  if (at < 0) {
    const char *f = getenv("MCX_BRIDGE_TAKE_FAULT");
    at = 0;
    if (f && sscanf(f, "%ld:%d", &at, &want) != 2)
      at = 0;
  }
  if (at <= 0 || step != want || count >= at || (count += n) < at)
    return;
  fprintf(stderr, "mca bridge: MCX_BRIDGE_TAKE_FAULT: killed at step %d of take %ld\n", step, at);
  fflush(stderr);
  mcx_port_kill_self();
}

/* MCX_BRIDGE_IO_FAULT's counts: [0] reads, [1] writes; 0: none. Set at the start, before any I/O thread. */
static long io_at[2];

void mcx__br_fault_init(void)
{
  const char *f = getenv("MCX_BRIDGE_IO_FAULT");
  io_at[0] = io_at[1] = 0;
  while (f && *f) {
    long k = 0;
    if (!strncmp(f, "read:", 5))
      k = strtol(f + 5, NULL, 10), io_at[0] = k > 0 ? k : 0;
    else if (!strncmp(f, "write:", 6))
      k = strtol(f + 6, NULL, 10), io_at[1] = k > 0 ? k : 0;
    f = strchr(f, ',');
    f = f ? f + 1 : NULL;
  }
}

int mcx__br_fault_io(int write)
{
  /* Reads come from the link threads (one per peer), writes from the node
   * thread: a counter, no data hangs on it (relaxed). */
  static mcx_atomic_u64 count[2];
  if (!io_at[write] || mcx_fetch_add_relaxed(&count[write], 1) + 1 != (uint64_t)io_at[write])
    return 0;
  fprintf(stderr, "mca bridge: MCX_BRIDGE_IO_FAULT: the connection closed before %s %ld\n", write ? "write" : "read",
          io_at[write]);
  fflush(stderr);
  return 1;
}
