/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Nodes as processes on Windows, and crash recovery: sender processes (this
 * program started again with CreateProcess) join the parent's domain and
 * stream messages to its endpoint through a tiny queue, so they are often
 * blocked or mid-send; the parent kills one with TerminateProcess now and
 * then and starts a replacement, in every locking mode. Every message a
 * killed sender got out must arrive intact and in per-priority order, a last
 * sender with a fixed count must get through whole, and the domain's mapping
 * must be gone after the last node leaves. The Windows counterpart of
 * tests/stress/stress_mcapi_crash.c (which forks); the run itself is
 * tests/mcx_test_crash.h's, shared with it. Bounded by MCX_STRESS_SECONDS
 * (default 1 per locking mode).
 */
#include <stdint.h>
#include <windows.h>

#include "common/mcx_err.h"
#include "mcx_test.h"
#include "mcx_test_crash.h"
#include "ports/mcx_port.h"
#include "ports/mcx_port_shm.h"

/* A sender: this program started again with the arguments main() reads. */
static intptr_t crash_spawn(mcapi_domain_t dom, mcx_locking_t lk, uint32_t id, uint32_t count)
{
  char exe[MAX_PATH], cmd[MAX_PATH + 64];
  GetModuleFileNameA(NULL, exe, sizeof exe);
  snprintf(cmd, sizeof cmd, "\"%s\" sender %u %d %u %u", exe, (unsigned)dom, (int)lk, id, count);
  STARTUPINFOA si = {.cb = sizeof si};
  PROCESS_INFORMATION pi;
  if (!CreateProcessA(NULL, cmd, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi))
    return 0;
  CloseHandle(pi.hThread);
  return (intptr_t)pi.hProcess;
}

static void crash_kill(intptr_t proc)
{
  HANDLE h = (HANDLE)proc;
  TerminateProcess(h, 9);
  WaitForSingleObject(h, INFINITE);
  CloseHandle(h);
}

static int crash_reap(intptr_t proc)
{
  HANDLE h = (HANDLE)proc;
  DWORD code = 99;
  int ended = WaitForSingleObject(h, MCX_TEST_WAIT_MS) == WAIT_OBJECT_0;
  GetExitCodeProcess(h, &code);
  CloseHandle(h);
  return ended ? (int)code : -1;
}

/* The last node left: the mapping is gone (its name opens no more). */
static int crash_partition_gone(mcapi_domain_t dom)
{
  char name[MCX_PORT_SHM_NAME_MAX];
  snprintf(name, sizeof name, "/mcx-%u-%s-d%u", mcx_port_uid(), getenv("MCX_NAMESPACE"), dom);
  mcx_port_shm_t shm;
  return mcx_port_shm_open(name, 8, &shm) == MCX_ENOENT;
}

int main(int argc, char **argv)
{
  /* CreateProcess costs milliseconds: fewer kills, a shorter last stream. */
  static const crash_pace_t pace = {.final_count = 500, .first_kill_s = 0.2, .kill_every_s = 0.1,
                                    .kill_jitter_ms = 100};
  if (!getenv("MCX_NAMESPACE"))
    setenv("MCX_NAMESPACE", "test_win_proc", 1);
  if (argc == 6 && !strcmp(argv[1], "sender"))
    return crash_sender((mcapi_domain_t)atoi(argv[2]), (mcx_locking_t)atoi(argv[3]),
                        (uint32_t)atoi(argv[4]), (uint32_t)atoi(argv[5]));
  return crash_main(&pace, mcx_test_stress_seconds(1));
}
