/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Crash stress: sender processes stream messages to the parent's endpoint
 * (tiny queue, so they are often blocked or mid-send); the parent kills one
 * with SIGKILL at a random moment, starts a replacement, and so on, in both
 * locking modes. Every message a killed sender got out must arrive intact and
 * in order (a contiguous prefix of its sequence), the survivors' streams must
 * be complete, nothing may arrive torn, and no shm object may remain.
 * Bounded by MCX_STRESS_SECONDS (default 3). The run itself is
 * tests/mcx_test_crash.h's, shared with tests/win32/test_win_proc.c; here a
 * sender is a fork()ed child.
 */
#include <signal.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mcx_test.h"
#include "mcx_test_crash.h"

static intptr_t crash_spawn(mcapi_domain_t dom, mcx_locking_t lk, uint32_t id, uint32_t count)
{
  pid_t p = fork();
  if (p == 0)
    _exit(crash_sender(dom, lk, id, count));
  return p > 0 ? (intptr_t)p : 0;
}

static void crash_kill(intptr_t proc)
{
  kill((pid_t)proc, SIGKILL);
  waitpid((pid_t)proc, NULL, 0);
}

static int crash_reap(intptr_t proc)
{
  int ws = 0;
  waitpid((pid_t)proc, &ws, 0);
  return WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
}

static int crash_partition_gone(mcapi_domain_t dom)
{
  char path[128];
  snprintf(path, sizeof path, "/dev/shm/mcx-%u-%s-d%u", (unsigned)geteuid(),
           getenv("MCX_NAMESPACE"), dom);
  return access(path, F_OK) != 0;
}

int main(void)
{
  static const crash_pace_t pace = {.final_count = 2000, .first_kill_s = 0.05, .kill_every_s = 0.02,
                                    .kill_jitter_ms = 50};
  if (!getenv("MCX_NAMESPACE"))
    setenv("MCX_NAMESPACE", "stress_mcapi_crash", 1);
  return crash_main(&pace, mcx_test_stress_seconds(3) / 2);
}
