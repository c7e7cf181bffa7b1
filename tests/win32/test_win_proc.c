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
 * tests/stress/stress_mcapi_crash.c (which forks). Bounded by
 * MCX_STRESS_SECONDS (default 1 per locking mode).
 */
#include <windows.h>

#include "mcapi.h"
#include "mcx.h"
#include "mcx_test.h"
#include "common/mcx_err.h"
#include "ports/mcx_port.h"
#include "ports/mcx_port_shm.h"

#define MAX_SENDERS 64
#define FINAL_COUNT 500

typedef struct {
  uint32_t sender, seq, check;
  uint8_t fill[36];
} msg_t;

static msg_t make(uint32_t sender, uint32_t seq)
{
  msg_t m = {sender, seq, sender * 2654435761u ^ seq, {0}};
  for (int i = 0; i < 36; i++)
    m.fill[i] = (uint8_t)(seq + (uint32_t)i * 7 + sender);
  return m;
}

static mcapi_status_t init_node(mcapi_domain_t dom, mcapi_node_t node, mcx_locking_t lk)
{
  mcapi_param_t p;
  mcapi_info_t info;
  mcapi_status_t st;
  mcx_param_init(&p);
  p.locking = lk;
  p.queue_elements = 4;
  mcapi_initialize(dom, node, NULL, &p, &info, &st);
  return st;
}

/* The child: count == 0 streams until killed. */
static int sender(mcapi_domain_t dom, mcx_locking_t lk, uint32_t id, uint32_t count)
{
  if (init_node(dom, 100 + id, lk) != MCAPI_SUCCESS)
    return 1;
  mcapi_status_t st;
  mcapi_endpoint_t me = mcapi_endpoint_create(1, &st);
  mcapi_endpoint_t to = mcapi_endpoint_get(dom, 1, 1, MCX_TEST_WAIT_MS, &st);
  if (st != MCAPI_SUCCESS)
    return 2;
  for (uint32_t seq = 0; count == 0 || seq < count; seq++) {
    msg_t m = make(id, seq);
    mcapi_msg_send(me, to, &m, sizeof m, seq % 3, &st);
    if (st != MCAPI_SUCCESS)
      return 3;
  }
  /* Wait until the parent has everything (our endpoint must outlive the sends). */
  mcapi_endpoint_t back = mcapi_endpoint_create(2, &st);
  char c;
  size_t n;
  mcapi_msg_recv(back, &c, 1, &n, &st);
  mcapi_finalize(&st);
  return 0;
}

static HANDLE spawn(mcapi_domain_t dom, mcx_locking_t lk, uint32_t id, uint32_t count)
{
  char exe[MAX_PATH], cmd[MAX_PATH + 64];
  GetModuleFileNameA(NULL, exe, sizeof exe);
  snprintf(cmd, sizeof cmd, "\"%s\" sender %u %d %u %u", exe, (unsigned)dom, (int)lk, id, count);
  STARTUPINFOA si = {.cb = sizeof si};
  PROCESS_INFORMATION pi;
  if (!CreateProcessA(NULL, cmd, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi))
    return NULL;
  CloseHandle(pi.hThread);
  return pi.hProcess;
}

static void kill_child(HANDLE *h)
{
  TerminateProcess(*h, 9); /* mid-send, or blocked in a send */
  WaitForSingleObject(*h, INFINITE);
  CloseHandle(*h);
  *h = NULL;
}

static void run(mcapi_domain_t dom, mcx_locking_t lk, double seconds)
{
  CHECK_STATUS(init_node(dom, 1, lk), MCAPI_SUCCESS);
  mcapi_status_t st;
  mcapi_endpoint_t me = mcapi_endpoint_create(1, &st);
  mcapi_timeout_t to = 20;
  mcapi_endpoint_set_attribute(me, MCAPI_ENDP_ATTR_TIMEOUT, &to, sizeof to, &st);
  static uint32_t next[MAX_SENDERS][3]; /* expected seq per sender and priority */
  memset(next, 0, sizeof next);
  HANDLE procs[MAX_SENDERS] = {0};
  uint32_t nsenders = 0, kills = 0, bad = 0;
  uint64_t got = 0;
  double end = mcx_test_now() + seconds, next_kill = mcx_test_now() + 0.2;
  for (int k = 0; k < 2; k++) {
    procs[nsenders] = spawn(dom, lk, nsenders, 0);
    CHECK(procs[nsenders] != NULL);
    nsenders++;
  }
  uint32_t rnd = 12345;
  while (mcx_test_now() < end && nsenders < MAX_SENDERS - 2) {
    msg_t m;
    size_t n;
    mcapi_msg_recv(me, &m, sizeof m, &n, &st);
    if (st == MCAPI_SUCCESS) {
      msg_t want = make(m.sender, m.seq);
      if (n != sizeof m || m.sender >= nsenders || memcmp(&m, &want, sizeof m)) {
        bad++;
      } else {
        uint32_t p = m.seq % 3; /* per-priority FIFO: steps of 3 */
        if (m.seq != next[m.sender][p] * 3 + p)
          bad++;
        next[m.sender][p]++;
      }
      got++;
    }
    if (mcx_test_now() >= next_kill) {
      rnd = rnd * 1103515245u + 12345u;
      uint32_t victim = nsenders - 1 - (rnd >> 16) % 2;
      if (procs[victim]) {
        kill_child(&procs[victim]);
        kills++;
      }
      procs[nsenders] = spawn(dom, lk, nsenders, 0);
      nsenders++;
      next_kill = mcx_test_now() + 0.1 + (rnd >> 20) % 100 / 1000.0;
    }
  }
  for (uint32_t i = 0; i < nsenders; i++)
    if (procs[i]) {
      kill_child(&procs[i]);
      kills++;
    }
  /* One last sender with a fixed count must get through whole. */
  uint32_t last = nsenders++;
  HANDLE p = spawn(dom, lk, last, FINAL_COUNT);
  CHECK(p != NULL);
  uint32_t last_got = 0;
  to = MCX_TEST_WAIT_MS; /* the last sender's messages are expected */
  mcapi_endpoint_set_attribute(me, MCAPI_ENDP_ATTR_TIMEOUT, &to, sizeof to, &st);
  while (last_got < FINAL_COUNT) {
    msg_t m;
    size_t n;
    mcapi_msg_recv(me, &m, sizeof m, &n, &st);
    if (st != MCAPI_SUCCESS)
      break;
    msg_t want = make(m.sender, m.seq);
    if (memcmp(&m, &want, sizeof m) || m.sender > last)
      bad++;
    else if (m.sender == last)
      last_got++;
  }
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK_EQ_U(last_got, FINAL_COUNT);
  CHECK_EQ_U(bad, 0);
  mcapi_endpoint_t back = mcapi_endpoint_get(dom, 100 + last, 2, MCX_TEST_WAIT_MS, &st);
  mcapi_msg_send(me, back, "x", 1, 0, &st);
  DWORD code = 99;
  CHECK(WaitForSingleObject(p, MCX_TEST_WAIT_MS) == WAIT_OBJECT_0);
  GetExitCodeProcess(p, &code);
  CHECK_EQ_U(code, 0);
  CloseHandle(p);
  mcapi_finalize(&st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  /* The last node left: the mapping is gone (its name opens no more). */
  char name[MCX_PORT_SHM_NAME_MAX];
  snprintf(name, sizeof name, "/mcx-%u-%s-d%u", mcx_port_uid(), getenv("MCX_NAMESPACE"), dom);
  mcx_port_shm_t shm;
  CHECK_EQ_U(mcx_port_shm_open(name, 8, &shm), MCX_ENOENT);
  printf("   %s: %llu messages checked, %u senders killed mid-stream, final stream of %u whole\n",
         lk == MCX_LOCKING_GLOBAL   ? "global"
         : lk == MCX_LOCKING_KERNEL ? "kernel"
                                    : "lock-free",
         (unsigned long long)got, kills, last_got);
}

TEST(killed_sender_processes_lockfree) { run(31, MCX_LOCKING_LOCKFREE, mcx_test_stress_seconds(1)); }
TEST(killed_sender_processes_global) { run(32, MCX_LOCKING_GLOBAL, mcx_test_stress_seconds(1)); }
TEST(killed_sender_processes_kernel) { run(33, MCX_LOCKING_KERNEL, mcx_test_stress_seconds(1)); }

int main(int argc, char **argv)
{
  if (!getenv("MCX_NAMESPACE"))
    setenv("MCX_NAMESPACE", "test_win_proc", 1);
  if (argc == 6 && !strcmp(argv[1], "sender"))
    return sender((mcapi_domain_t)atoi(argv[2]), (mcx_locking_t)atoi(argv[3]),
                  (uint32_t)atoi(argv[4]), (uint32_t)atoi(argv[5]));
  RUN(killed_sender_processes_lockfree);
  RUN(killed_sender_processes_global);
  RUN(killed_sender_processes_kernel);
  return mcx_test_report();
}
