/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file mcx_test_crash.h
 * @brief The crash stress of nodes that are processes, shared by
 * tests/stress/stress_mcapi_crash.c (fork, SIGKILL) and
 * tests/win32/test_win_proc.c (CreateProcess, TerminateProcess).
 *
 * Sender processes stream messages to the parent's endpoint through a tiny
 * queue, so they are often blocked or mid-send; the parent kills one now and
 * then and starts a replacement. Every message a killed sender got out must
 * arrive intact and in per-priority order, a last sender with a fixed count
 * must get through whole, and the domain's partition must be gone after the
 * last node leaves. A program defines how a sender process starts, dies and
 * ends (crash_spawn, crash_kill, crash_reap) and how a partition is seen
 * gone (crash_partition_gone), and runs the three locking modes with
 * crash_main().
 */
#ifndef MCX_TEST_CRASH_H
#define MCX_TEST_CRASH_H

#include <stdint.h>
#include <string.h>

#include "mcapi.h"
#include "mcx.h"
#include "mcx_test.h"

#define CRASH_MAX_SENDERS 64

/** A message: {sender, sequence}, a check word and a fill pattern that a torn
 * copy breaks. Sequence seq is sent at priority seq % 3. */
typedef struct {
  uint32_t sender, seq, check;
  uint8_t fill[36];
} crash_msg_t;

static inline crash_msg_t crash_msg(uint32_t sender, uint32_t seq)
{
  crash_msg_t m = {sender, seq, sender * 2654435761u ^ seq, {0}};
  for (int i = 0; i < 36; i++)
    m.fill[i] = (uint8_t)(seq + (uint32_t)i * 7 + sender);
  return m;
}

/** Makes the caller node @p node of @p dom in locking mode @p lk, with a
 * receive queue of 4 elements (senders fill it and block). */
static inline mcapi_status_t crash_init_node(mcapi_domain_t dom, mcapi_node_t node, mcx_locking_t lk)
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

/** The body of a sender process: node 100 + @p id sends @p count messages
 * (0: until killed) to endpoint 1 of node 1, then waits for the parent's
 * word before it leaves (its endpoint must outlive the sends).
 * @retval 0 all sent
 * @retval 1 initialize failed
 * @retval 2 the parent's endpoint was not found
 * @retval 3 a send failed */
static inline int crash_sender(mcapi_domain_t dom, mcx_locking_t lk, uint32_t id, uint32_t count)
{
  if (crash_init_node(dom, 100 + id, lk) != MCAPI_SUCCESS)
    return 1;
  mcapi_status_t st;
  mcapi_endpoint_t me = mcapi_endpoint_create(1, &st);
  mcapi_endpoint_t to = mcapi_endpoint_get(dom, 1, 1, MCX_TEST_WAIT_MS, &st);
  if (st != MCAPI_SUCCESS)
    return 2;
  for (uint32_t seq = 0; count == 0 || seq < count; seq++) {
    crash_msg_t m = crash_msg(id, seq);
    mcapi_msg_send(me, to, &m, sizeof m, seq % 3, &st);
    if (st != MCAPI_SUCCESS)
      return 3;
  }
  mcapi_endpoint_t back = mcapi_endpoint_create(2, &st);
  char c;
  size_t n;
  mcapi_msg_recv(back, &c, 1, &n, &st);
  mcapi_finalize(&st);
  return 0;
}

/* What each program defines: a sender process is a pid or a handle in an
 * intptr_t, 0 is none. */
/** Starts a process whose body is crash_sender(dom, lk, id, count); 0 if it could not. */
static intptr_t crash_spawn(mcapi_domain_t dom, mcx_locking_t lk, uint32_t id, uint32_t count);
/** Kills @p proc wherever it is and waits until it is gone. */
static void crash_kill(intptr_t proc);
/** Waits for @p proc to end by itself: its exit code, or -1 (killed, or still running at the ceiling). */
static int crash_reap(intptr_t proc);
/** 1 when the partition of @p dom is gone (its name opens no more). */
static int crash_partition_gone(mcapi_domain_t dom);

/** The pace of a run: what a platform's process start allows. */
typedef struct {
  uint32_t final_count;    /**< messages of the last sender, which must all arrive */
  double first_kill_s;     /**< from the start to the first kill */
  double kill_every_s;     /**< least time between two kills ... */
  unsigned kill_jitter_ms; /**< ... plus up to this much at random */
} crash_pace_t;

/** One run in locking mode @p lk on domain @p dom: @p seconds of streaming
 * senders and kills, then the last sender's whole stream. */
static inline void crash_run(const crash_pace_t *pace, mcapi_domain_t dom, mcx_locking_t lk, double seconds)
{
  CHECK_STATUS(crash_init_node(dom, 1, lk), MCAPI_SUCCESS);
  mcapi_status_t st;
  mcapi_endpoint_t me = mcapi_endpoint_create(1, &st);
  mcapi_timeout_t to = 20;
  mcapi_endpoint_set_attribute(me, MCAPI_ENDP_ATTR_TIMEOUT, &to, sizeof to, &st);
  static uint32_t next[CRASH_MAX_SENDERS][3]; /* expected seq per sender and priority */
  memset(next, 0, sizeof next);
  intptr_t procs[CRASH_MAX_SENDERS] = {0};
  uint32_t nsenders = 0, kills = 0, bad = 0;
  uint64_t got = 0;
  double end = mcx_test_now() + seconds, next_kill = mcx_test_now() + pace->first_kill_s;
  /* Two streaming senders at a time; one gets killed now and then. */
  for (int k = 0; k < 2; k++) {
    procs[nsenders] = crash_spawn(dom, lk, nsenders, 0);
    CHECK(procs[nsenders] != 0);
    nsenders++;
  }
  uint32_t rnd = 12345;
  while (mcx_test_now() < end && nsenders < CRASH_MAX_SENDERS - 2) {
    crash_msg_t m;
    size_t n;
    mcapi_msg_recv(me, &m, sizeof m, &n, &st);
    if (st == MCAPI_SUCCESS) {
      crash_msg_t want = crash_msg(m.sender, m.seq);
      if (n != sizeof m || m.sender >= nsenders || memcmp(&m, &want, sizeof m)) {
        bad++;
      } else {
        uint32_t p = m.seq % 3; /* per-priority FIFO: the seqs of one priority go in steps of 3 */
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
        crash_kill(procs[victim]); /* mid-send, or blocked in a send */
        procs[victim] = 0;
        kills++;
      }
      procs[nsenders] = crash_spawn(dom, lk, nsenders, 0);
      nsenders++;
      next_kill = mcx_test_now() + pace->kill_every_s + (rnd >> 20) % pace->kill_jitter_ms / 1000.0;
    }
  }
  /* Kill the streamers; one last sender with a fixed count must get through whole. */
  for (uint32_t i = 0; i < nsenders; i++)
    if (procs[i]) {
      crash_kill(procs[i]);
      procs[i] = 0;
      kills++;
    }
  uint32_t last = nsenders++;
  intptr_t p = crash_spawn(dom, lk, last, pace->final_count);
  CHECK(p != 0);
  uint32_t last_got = 0;
  to = MCX_TEST_WAIT_MS; /* the last sender's messages are expected: a generous ceiling */
  mcapi_endpoint_set_attribute(me, MCAPI_ENDP_ATTR_TIMEOUT, &to, sizeof to, &st);
  while (last_got < pace->final_count) {
    crash_msg_t m;
    size_t n;
    mcapi_msg_recv(me, &m, sizeof m, &n, &st);
    if (st != MCAPI_SUCCESS)
      break;
    crash_msg_t want = crash_msg(m.sender, m.seq);
    if (memcmp(&m, &want, sizeof m) || m.sender > last)
      bad++;
    else if (m.sender == last)
      last_got++;
  }
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK_EQ_U(last_got, pace->final_count);
  CHECK_EQ_U(bad, 0);
  mcapi_endpoint_t back = mcapi_endpoint_get(dom, 100 + last, 2, MCX_TEST_WAIT_MS, &st);
  mcapi_msg_send(me, back, "x", 1, 0, &st);
  if (p)
    CHECK_EQ_U(crash_reap(p), 0);
  mcapi_finalize(&st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(crash_partition_gone(dom));
  printf("   %s: %llu messages checked, %u senders killed mid-stream, final stream of %u whole\n",
         lk == MCX_LOCKING_GLOBAL   ? "global"
         : lk == MCX_LOCKING_KERNEL ? "kernel"
                                    : "lock-free",
         (unsigned long long)got, kills, last_got);
}

static const crash_pace_t *crash_pace;
static double crash_seconds;

TEST(killed_senders_lockfree) { crash_run(crash_pace, 31, MCX_LOCKING_LOCKFREE, crash_seconds); }
TEST(killed_senders_global) { crash_run(crash_pace, 32, MCX_LOCKING_GLOBAL, crash_seconds); }
TEST(killed_senders_kernel) { crash_run(crash_pace, 33, MCX_LOCKING_KERNEL, crash_seconds); }

/** Runs the three locking modes at @p pace, @p seconds each: the program's exit code. */
static inline int crash_main(const crash_pace_t *pace, double seconds)
{
  crash_pace = pace;
  crash_seconds = seconds;
  RUN(killed_senders_lockfree);
  RUN(killed_senders_global);
  RUN(killed_senders_kernel);
  return mcx_test_report();
}

#endif
