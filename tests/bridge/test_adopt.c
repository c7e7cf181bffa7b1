/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a bridge's restart relies on (runtime/adopt.h, docs/bridge.md:
 * adoption), without a bridge: a kept endpoint's owner takes three
 * messages held (a small one, a large one in a pool buffer, a small one)
 * and is killed; the sweep (a new node's initialize) leaves the endpoint,
 * its queue and the held messages back at its head, and refuses sends to it
 * (MCAPI_ERR_TRANSMISSION); a process with the owner's node id adopts it
 * (the same handle), telling the position of the first message as recorded
 * elsewhere: that one is discarded, the rest arrive once, in order, intact,
 * and sends go through again once it is marked reachable. Each process says
 * what it saw; the parent checks. Processes: the parent (node 1, the
 * sender), the owner (node 2) and its restart (node 2 again). Then the
 * same after a clean stop: the owner leaves the endpoint (mcx__ep_leave)
 * and finalizes instead of dying.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/mcx_err.h"
#include "mcapi.h"
#include "mcx.h"
#include "mcx_test.h"
#include "runtime/adopt.h"

#define DOM 3
#define PORT 10
#define N 6

static size_t size_of(int i) { return i % 2 ? 8 : 300; } /* items 1, 3, 5 inline; 2, 4, 6 in pool buffers */

static void fill(uint8_t *m, int i)
{
  for (size_t k = 0; k < size_of(i); k++)
    m[k] = (uint8_t)(i * 31 + k);
}

static void init(mcapi_node_t node)
{
  mcapi_info_t info;
  mcapi_status_t st;
  mcapi_initialize(DOM, node, NULL, NULL, &info, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
}

static void put(int fd, const void *v, size_t n) { CHECK(write(fd, v, n) == (ssize_t)n); }
static void get(int fd, void *v, size_t n) { CHECK(read(fd, v, n) == (ssize_t)n); }

/* The owner: a kept endpoint; takes three messages held, says where the
 * first one was, and waits to be killed. */
static void owner(int to_parent, int from_parent)
{
  init(2);
  mcapi_status_t st;
  mcapi_endpoint_t ep = mcapi_endpoint_create(PORT, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK_EQ_U(mcx__ep_keep(ep), MCX_OK);
  put(to_parent, &ep, sizeof ep);
  char go;
  get(from_parent, &go, 1); /* all N queued */
  uint64_t first_pos = 0;
  uint32_t first_prio = 0;
  for (int i = 1; i <= 3; i++) {
    uint8_t buf[512], want[512];
    size_t n;
    uint32_t prio;
    uint64_t pos;
    CHECK_EQ_U(mcx__msg_take_held(ep, buf, sizeof buf, &n, &prio, &pos), MCX_OK);
    fill(want, i);
    CHECK(n == size_of(i) && !memcmp(buf, want, n));
    if (i == 1)
      first_pos = pos, first_prio = prio;
  }
  put(to_parent, &first_prio, sizeof first_prio);
  put(to_parent, &first_pos, sizeof first_pos);
  for (;;)
    pause();
}

/* The restart: adopts the endpoint (first message discarded), marks it
 * reachable when told, receives what is left. Exit status 0: all as
 * expected (each check prints what failed). */
static void restart(int to_parent, int from_parent, mcapi_endpoint_t old, uint32_t prio, uint64_t pos)
{
  init(2); /* sweeps the dead owner */
  char c = 's';
  put(to_parent, &c, 1);
  get(from_parent, &c, 1); /* the parent saw its send refused */
  uint64_t upto[16];
  for (int p = 0; p < 16; p++)
    upto[p] = UINT64_MAX;
  upto[prio & 15] = pos;
  uint32_t h = 0, dropped = 0;
  CHECK_EQ_U(mcx__ep_adopt(PORT, upto, 16, &h, &dropped), MCX_OK);
  CHECK(h == old);
  CHECK_EQ_U(dropped, 1);
  mcapi_status_t st;
  CHECK_EQ_U(mcapi_msg_available(h, &st), N - 1);
  CHECK_EQ_U(mcx__ep_adopt(PORT, upto, 0, &h, &dropped), MCX_ENOENT); /* adopted once */
  mcx_endpoint_set_reachable(h, MCAPI_TRUE, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  put(to_parent, &c, 1);
  get(from_parent, &c, 1); /* item N + 1 sent */
  for (int i = 2; i <= N + 1; i++) {
    uint8_t buf[512], want[512];
    size_t n;
    mcapi_msg_recv(h, buf, sizeof buf, &n, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    fill(want, i);
    CHECK(n == size_of(i) && !memcmp(buf, want, n));
  }
  CHECK_EQ_U(mcapi_msg_available(h, &st), 0);
  mcapi_finalize(&st);
  _exit(mcx_test_report());
}

/* The parent's side of both cases: forks @p child (node 2) with a pipe
 * each way (@p up from it, @p down to it), becomes node 1, sends the N
 * messages to the kept endpoint the child tells (@p to, from @p me) and says
 * so ("g"). The child's pid. */
static pid_t start_child(void (*child)(int, int), int up[2], int down[2], mcapi_endpoint_t *me,
                         mcapi_endpoint_t *to)
{
  CHECK(pipe(up) == 0 && pipe(down) == 0);
  pid_t o = fork();
  if (o == 0)
    child(up[1], down[0]);
  init(1);
  mcapi_status_t st;
  *me = mcapi_endpoint_create(1, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  get(up[0], to, sizeof *to);
  for (int i = 1; i <= N; i++) {
    uint8_t m[512];
    fill(m, i);
    mcapi_msg_send(*me, *to, m, size_of(i), 1, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
  }
  put(down[1], "g", 1);
  return o;
}

TEST(adopt)
{
  int up[2], down[2];
  mcapi_endpoint_t me, to;
  mcapi_status_t st;
  pid_t o = start_child(owner, up, down, &me, &to);
  uint32_t prio;
  uint64_t pos;
  get(up[0], &prio, sizeof prio);
  get(up[0], &pos, sizeof pos);
  kill(o, SIGKILL);
  waitpid(o, NULL, 0);
  pid_t r = fork();
  if (r == 0)
    restart(up[1], down[0], to, prio, pos);
  char c;
  get(up[0], &c, 1); /* swept, not adopted yet */
  uint8_t m[512];
  fill(m, N + 1);
  mcapi_msg_send(me, to, m, size_of(N + 1), 1, &st);
  CHECK_STATUS(st, MCAPI_ERR_TRANSMISSION); /* orphaned: refused, not deleted */
  put(down[1], "a", 1);
  get(up[0], &c, 1); /* adopted, reachable */
  mcapi_msg_send(me, to, m, size_of(N + 1), 1, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS); /* the same handle as before the death */
  put(down[1], "s", 1);
  int status = 0;
  waitpid(r, &status, 0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  mcapi_finalize(&st);
}

/* A clean stop (mcx__ep_leave): the owner takes two messages held (one
 * inline, one in a pool buffer), leaves its kept endpoint and finalizes;
 * sends are refused (MCAPI_ERR_TRANSMISSION, not deleted), and a new
 * process of the same node id adopts it with all N queued, the held ones
 * back at the head, in order. */
static void leaver(int to_parent, int from_parent)
{
  init(2);
  mcapi_status_t st;
  mcapi_endpoint_t ep = mcapi_endpoint_create(PORT, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK_EQ_U(mcx__ep_leave(ep), MCX_EINVAL); /* not kept: finalize deletes it */
  CHECK_EQ_U(mcx__ep_keep(ep), MCX_OK);
  put(to_parent, &ep, sizeof ep);
  char c;
  get(from_parent, &c, 1); /* all N queued */
  for (int i = 1; i <= 2; i++) {
    uint8_t buf[512];
    size_t n;
    uint32_t prio;
    uint64_t pos;
    CHECK_EQ_U(mcx__msg_take_held(ep, buf, sizeof buf, &n, &prio, &pos), MCX_OK);
  }
  CHECK_EQ_U(mcx__ep_leave(ep), MCX_OK);
  CHECK(mcx__ep_leave(ep) != MCX_OK); /* no longer this node's */
  mcapi_finalize(&st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  put(to_parent, &c, 1);
  _exit(mcx_test_report());
}

static void adopter(int to_parent, mcapi_endpoint_t old)
{
  init(2);
  uint64_t upto[16];
  for (int p = 0; p < 16; p++)
    upto[p] = UINT64_MAX;
  uint32_t h = 0, dropped = 0;
  CHECK_EQ_U(mcx__ep_adopt(PORT, upto, 16, &h, &dropped), MCX_OK);
  CHECK(h == old);
  CHECK_EQ_U(dropped, 0);
  mcapi_status_t st;
  CHECK_EQ_U(mcapi_msg_available(h, &st), N);
  for (int i = 1; i <= N; i++) {
    uint8_t buf[512], want[512];
    size_t n;
    mcapi_msg_recv(h, buf, sizeof buf, &n, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    fill(want, i);
    CHECK(n == size_of(i) && !memcmp(buf, want, n));
  }
  mcapi_finalize(&st);
  char c = 'd';
  put(to_parent, &c, 1);
  _exit(mcx_test_report());
}

TEST(leave)
{
  int up[2], down[2];
  mcapi_endpoint_t me, to;
  mcapi_status_t st;
  pid_t o = start_child(leaver, up, down, &me, &to);
  char c;
  get(up[0], &c, 1); /* left and finalized */
  int status = 0;
  waitpid(o, &status, 0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  uint8_t m[512];
  fill(m, N + 1);
  mcapi_msg_send(me, to, m, size_of(N + 1), 1, &st);
  CHECK_STATUS(st, MCAPI_ERR_TRANSMISSION); /* left, not deleted by the finalize */
  pid_t r = fork();
  if (r == 0)
    adopter(up[1], to);
  get(up[0], &c, 1);
  waitpid(r, &status, 0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  mcapi_finalize(&st);
}

int main(void)
{
  RUN(adopt);
  RUN(leave);
  return mcx_test_report();
}
