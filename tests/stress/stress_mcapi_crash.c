/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Crash stress: sender processes stream messages to the parent's endpoint
 * (tiny queue, so they are often blocked or mid-send); the parent kills one
 * with SIGKILL at a random moment, starts a replacement, and so on, in both
 * locking modes. Every message a killed sender got out must arrive intact and
 * in order (a contiguous prefix of its sequence), the survivors' streams must
 * be complete, nothing may arrive torn, and no shm object may remain.
 * Bounded by MCX_STRESS_SECONDS (default 3).
 */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mcapi.h"
#include "mcx.h"
#include "mcx_test.h"

#define MAX_SENDERS 64
#define FINAL_COUNT 2000

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

/* count == 0: stream until killed. */
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

static void run(mcapi_domain_t dom, mcx_locking_t lk, double seconds)
{
  CHECK_STATUS(init_node(dom, 1, lk), MCAPI_SUCCESS);
  mcapi_status_t st;
  mcapi_endpoint_t me = mcapi_endpoint_create(1, &st);
  mcapi_timeout_t to = 20;
  mcapi_endpoint_set_attribute(me, MCAPI_ENDP_ATTR_TIMEOUT, &to, sizeof to, &st);
  static uint32_t next[MAX_SENDERS][3]; /* expected seq per sender and priority */
  memset(next, 0, sizeof next);
  pid_t pids[MAX_SENDERS] = {0};
  uint32_t nsenders = 0, kills = 0, bad = 0;
  uint64_t got = 0;
  double end = mcx_test_now() + seconds, next_kill = mcx_test_now() + 0.05;
  /* Two streaming senders at a time; one gets killed now and then. */
  for (int k = 0; k < 2; k++) {
    pid_t p = fork();
    if (p == 0)
      _exit(sender(dom, lk, nsenders, 0));
    pids[nsenders++] = p;
  }
  uint32_t rnd = 12345;
  while (mcx_test_now() < end && nsenders < MAX_SENDERS - 2) {
    msg_t m;
    size_t n;
    mcapi_msg_recv(me, &m, sizeof m, &n, &st);
    if (st == MCAPI_SUCCESS) {
      msg_t want = make(m.sender, m.seq);
      if (n != sizeof m || m.sender >= nsenders || memcmp(&m, &want, sizeof m) ||
          m.seq % 3 > 2)
        bad++;
      else {
        /* Per-priority FIFO: seqs of one priority are seq%3 == p, in steps of 3. */
        uint32_t p = m.seq % 3;
        if (m.seq != next[m.sender][p] * 3 + p)
          bad++;
        next[m.sender][p]++;
      }
      got++;
    }
    if (mcx_test_now() >= next_kill) {
      rnd = rnd * 1103515245u + 12345u;
      uint32_t victim = nsenders - 1 - (rnd >> 16) % 2;
      if (pids[victim]) {
        kill(pids[victim], SIGKILL);
        waitpid(pids[victim], NULL, 0);
        pids[victim] = 0;
        kills++;
      }
      pid_t p = fork();
      if (p == 0)
        _exit(sender(dom, lk, nsenders, 0));
      pids[nsenders++] = p;
      next_kill = mcx_test_now() + 0.02 + (rnd >> 20) % 50 / 1000.0;
    }
  }
  /* Kill the streamers; one last sender with a fixed count must get through whole. */
  for (uint32_t i = 0; i < nsenders; i++)
    if (pids[i]) {
      kill(pids[i], SIGKILL);
      waitpid(pids[i], NULL, 0);
      pids[i] = 0;
      kills++;
    }
  uint32_t last = nsenders++;
  pid_t p = fork();
  if (p == 0)
    _exit(sender(dom, lk, last, FINAL_COUNT));
  uint32_t last_got = 0;
  to = MCX_TEST_WAIT_MS; /* the last sender's messages are expected: a generous ceiling */
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
  int ws = 0;
  waitpid(p, &ws, 0);
  CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
  mcapi_finalize(&st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  char path[128];
  snprintf(path, sizeof path, "/dev/shm/mcx-%u-%s-d%u", (unsigned)geteuid(),
           getenv("MCX_NAMESPACE"), dom);
  CHECK(access(path, F_OK) != 0);
  printf("   %s: %llu messages checked, %u senders killed mid-stream, final stream of %u whole\n",
         lk == MCX_LOCKING_GLOBAL ? "global" : lk == MCX_LOCKING_KERNEL ? "kernel" : "lock-free", (unsigned long long)got, kills,
         last_got);
}

TEST(killed_senders_lockfree) { run(31, MCX_LOCKING_LOCKFREE, mcx_test_stress_seconds(3) / 2); }
TEST(killed_senders_global) { run(32, MCX_LOCKING_GLOBAL, mcx_test_stress_seconds(3) / 2); }
TEST(killed_senders_kernel) { run(33, MCX_LOCKING_KERNEL, mcx_test_stress_seconds(3) / 2); }

int main(void)
{
  if (!getenv("MCX_NAMESPACE"))
    setenv("MCX_NAMESPACE", "stress_mcapi_crash", 1);
  RUN(killed_senders_lockfree);
  RUN(killed_senders_global);
  RUN(killed_senders_kernel);
  return mcx_test_report();
}
