/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Channels across processes: packets (zero-copy, held and released out of
 * order) and scalars between a parent and a forked child, both locking
 * modes; a receiver killed while holding packets, and a node killed in the
 * middle of a channel open, leave the survivor able to close, reconnect to a
 * new peer and move an exact tally; nothing stays in /dev/shm.
 */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mcapi.h"
#include "mcx.h"
#include "mcx_test.h"

static mcx_locking_t lk = MCX_LOCKING_LOCKFREE;

static mcapi_status_t init_node(mcapi_domain_t dom, mcapi_node_t node)
{
  mcapi_param_t p;
  mcapi_info_t info;
  mcapi_status_t st;
  mcx_param_init(&p);
  p.locking = lk;
  mcapi_initialize(dom, node, NULL, &p, &info, &st);
  return st;
}

static mcapi_status_t wait_req(mcapi_request_t *r, mcapi_timeout_t ms)
{
  mcapi_status_t st;
  size_t n;
  mcapi_wait(r, &n, ms, &st);
  return st;
}

static int wait_child(pid_t pid)
{
  int ws = 0;
  waitpid(pid, &ws, 0);
  return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
}

static int part_gone(mcapi_domain_t dom)
{
  char path[128];
  snprintf(path, sizeof path, "/dev/shm/mcx-%u-%s-d%u", (unsigned)geteuid(),
           getenv("MCX_NAMESPACE"), dom);
  return access(path, F_OK) != 0;
}

static void fill(uint8_t *p, size_t n, uint32_t seq)
{
  for (size_t i = 0; i < n; i++)
    p[i] = (uint8_t)(seq * 13 + i);
}

static int check(const uint8_t *p, size_t n, uint32_t seq)
{
  for (size_t i = 0; i < n; i++)
    if (p[i] != (uint8_t)(seq * 13 + i))
      return 0;
  return 1;
}

static size_t size_of(uint32_t seq) { return 4 + (seq * 37) % 500; }

/* Child: receives @p n packets on port 5 (holding up to three, releasing out
 * of order), answers each with a uint64 scalar from port 6 to node 1 port 2. */
static int child_receiver(mcapi_domain_t dom, mcapi_node_t node, uint32_t n)
{
  if (init_node(dom, node) != MCAPI_SUCCESS)
    return 1;
  mcapi_status_t st;
  mcapi_request_t r;
  mcapi_endpoint_t in = mcapi_endpoint_create(5, &st);
  mcapi_endpoint_t out = mcapi_endpoint_create(6, &st);
  mcapi_endpoint_t back = mcapi_endpoint_get(dom, 1, 2, MCX_TEST_WAIT_MS, &st);
  mcapi_sclchan_connect_i(out, back, &r, &st);
  if (wait_req(&r, MCX_TEST_WAIT_MS) != MCAPI_SUCCESS)
    return 2;
  mcapi_pktchan_recv_hndl_t rh;
  mcapi_sclchan_send_hndl_t sh;
  mcapi_pktchan_recv_open_i(&rh, in, &r, &st);
  if (wait_req(&r, MCX_TEST_WAIT_MS) != MCAPI_SUCCESS)
    return 3;
  mcapi_sclchan_send_open_i(&sh, out, &r, &st);
  if (wait_req(&r, MCX_TEST_WAIT_MS) != MCAPI_SUCCESS)
    return 4;
  void *held[3] = {0};
  int nheld = 0;
  for (uint32_t seq = 0; seq < n; seq++) {
    void *buf;
    size_t sz;
    mcapi_pktchan_recv(rh, &buf, &sz, &st);
    if (st != MCAPI_SUCCESS || sz != size_of(seq) || !check(buf, sz, seq))
      return 5;
    if (((uintptr_t)buf % MCAPI_BUF_ALIGN) != 0)
      return 6;
    if (nheld == 3) { /* release the middle one: out of order */
      mcapi_pktchan_release(held[1], &st);
      if (st != MCAPI_SUCCESS)
        return 7;
      held[1] = held[2];
      nheld = 2;
    }
    held[nheld++] = buf;
    mcapi_sclchan_send_uint64(sh, (uint64_t)seq * 1000003u, &st);
    if (st != MCAPI_SUCCESS)
      return 8;
  }
  for (int i = 0; i < nheld; i++)
    mcapi_pktchan_release(held[i], &st);
  /* Wait for the parent's close of the packet channel, then close ours. */
  mcapi_sclchan_send_close_i(sh, &r, &st);
  wait_req(&r, MCX_TEST_WAIT_MS);
  mcapi_pktchan_recv_close_i(rh, &r, &st);
  wait_req(&r, MCX_TEST_WAIT_MS);
  mcapi_finalize(&st);
  return st == MCAPI_SUCCESS ? 0 : 9;
}

/* Parent: connects its port 1 to (node, 5), sends @p n packets, checks the scalars. */
static uint32_t parent_sender(mcapi_domain_t dom, mcapi_node_t node, mcapi_endpoint_t out,
                              mcapi_endpoint_t in, uint32_t n)
{
  mcapi_status_t st;
  mcapi_request_t r;
  mcapi_endpoint_t peer = mcapi_endpoint_get(dom, node, 5, MCX_TEST_WAIT_MS, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_pktchan_connect_i(out, peer, &r, &st);
  CHECK_STATUS(wait_req(&r, MCX_TEST_WAIT_MS), MCAPI_SUCCESS);
  mcapi_pktchan_send_hndl_t sh;
  mcapi_sclchan_recv_hndl_t rh;
  mcapi_pktchan_send_open_i(&sh, out, &r, &st);
  CHECK_STATUS(wait_req(&r, MCX_TEST_WAIT_MS), MCAPI_SUCCESS);
  mcapi_sclchan_recv_open_i(&rh, in, &r, &st);
  CHECK_STATUS(wait_req(&r, MCX_TEST_WAIT_MS), MCAPI_SUCCESS);
  static uint8_t buf[600];
  uint32_t acked = 0;
  for (uint32_t seq = 0; seq < n; seq++) {
    fill(buf, size_of(seq), seq);
    mcapi_pktchan_send(sh, buf, size_of(seq), &st);
    if (st != MCAPI_SUCCESS)
      break;
    uint64_t v = mcapi_sclchan_recv_uint64(rh, &st);
    if (st == MCAPI_SUCCESS && v == (uint64_t)seq * 1000003u)
      acked++;
  }
  mcapi_pktchan_send_close_i(sh, &r, &st);
  CHECK_STATUS(wait_req(&r, MCX_TEST_WAIT_MS), MCAPI_SUCCESS);
  mcapi_sclchan_recv_close_i(rh, &r, &st);
  CHECK_STATUS(wait_req(&r, MCX_TEST_WAIT_MS), MCAPI_SUCCESS);
  return acked;
}

static void exchange(mcapi_domain_t dom)
{
  CHECK_STATUS(init_node(dom, 1), MCAPI_SUCCESS);
  mcapi_status_t st;
  mcapi_endpoint_t out = mcapi_endpoint_create(1, &st);
  mcapi_endpoint_t in = mcapi_endpoint_create(2, &st);
  pid_t pid = fork();
  if (pid == 0)
    _exit(child_receiver(dom, 2, 2000));
  CHECK_EQ_U(parent_sender(dom, 2, out, in, 2000), 2000);
  CHECK_EQ_U(wait_child(pid), 0);
  mcapi_finalize(&st);
  CHECK(part_gone(dom));
}

TEST(packets_and_scalars_across_processes) { exchange(lk == MCX_LOCKING_KERNEL ? 47 : lk == MCX_LOCKING_GLOBAL ? 42 : 41); }

/* Kills @p pid once it reported on @p fd, then checks the survivor can go on. */
static void survivor_goes_on(mcapi_domain_t dom, mcapi_endpoint_t out, mcapi_endpoint_t in,
                             mcapi_pktchan_send_hndl_t *sh, int opened)
{
  mcapi_status_t st;
  mcapi_request_t r;
  if (opened) {
    /* Sends succeed while there is room; once the dead receiver's side is
     * swept away they fail, never hang. */
    uint8_t b[16] = {0};
    int sent = 0;
    do {
      mcapi_pktchan_send(*sh, b, sizeof b, &st);
    } while (st == MCAPI_SUCCESS && ++sent < 10 * MCAPI_MAX_BUFFERS);
    CHECK_STATUS(st, MCAPI_ERR_CHAN_NOTOPEN);
    mcapi_pktchan_send_close_i(*sh, &r, &st);
    CHECK_STATUS(wait_req(&r, MCX_TEST_WAIT_MS), MCAPI_SUCCESS);
  }
  /* A new receiver on a new connection gets an exact tally. */
  pid_t pid = fork();
  if (pid == 0)
    _exit(child_receiver(dom, 3, 500));
  CHECK_EQ_U(parent_sender(dom, 3, out, in, 500), 500);
  CHECK_EQ_U(wait_child(pid), 0);
}

TEST(receiver_killed_while_holding_packets)
{
  mcapi_domain_t dom = lk == MCX_LOCKING_KERNEL ? 48 : lk == MCX_LOCKING_GLOBAL ? 44 : 43;
  CHECK_STATUS(init_node(dom, 1), MCAPI_SUCCESS);
  mcapi_status_t st;
  mcapi_request_t r;
  mcapi_endpoint_t out = mcapi_endpoint_create(1, &st);
  mcapi_endpoint_t in = mcapi_endpoint_create(2, &st);
  int ready[2];
  CHECK(pipe(ready) == 0);
  pid_t pid = fork();
  if (pid == 0) {
    if (init_node(dom, 2) != MCAPI_SUCCESS)
      _exit(1);
    mcapi_status_t s;
    mcapi_request_t q;
    mcapi_endpoint_t me = mcapi_endpoint_create(5, &s);
    mcapi_pktchan_recv_hndl_t rh;
    mcapi_pktchan_recv_open_i(&rh, me, &q, &s);
    if (wait_req(&q, 5000) != MCAPI_SUCCESS)
      _exit(2);
    for (int i = 0; i < 3; i++) { /* hold three packets, release none */
      void *b;
      size_t n;
      mcapi_pktchan_recv(rh, &b, &n, &s);
      if (s != MCAPI_SUCCESS)
        _exit(3);
    }
    if (write(ready[1], "h", 1) != 1)
      _exit(4);
    pause();
    _exit(0);
  }
  mcapi_endpoint_t peer = mcapi_endpoint_get(dom, 2, 5, MCX_TEST_WAIT_MS, &st);
  mcapi_pktchan_connect_i(out, peer, &r, &st);
  CHECK_STATUS(wait_req(&r, MCX_TEST_WAIT_MS), MCAPI_SUCCESS);
  mcapi_pktchan_send_hndl_t sh;
  mcapi_pktchan_send_open_i(&sh, out, &r, &st);
  CHECK_STATUS(wait_req(&r, MCX_TEST_WAIT_MS), MCAPI_SUCCESS);
  for (int i = 0; i < 3; i++)
    mcapi_pktchan_send(sh, "held", 4, &st);
  char c;
  CHECK(read(ready[0], &c, 1) == 1);
  kill(pid, SIGKILL);
  wait_child(pid);
  survivor_goes_on(dom, out, in, &sh, 1);
  mcapi_finalize(&st);
  CHECK(part_gone(dom));
  close(ready[0]);
  close(ready[1]);
}

TEST(node_killed_in_the_middle_of_an_open)
{
  mcapi_domain_t dom = lk == MCX_LOCKING_KERNEL ? 49 : lk == MCX_LOCKING_GLOBAL ? 46 : 45;
  CHECK_STATUS(init_node(dom, 1), MCAPI_SUCCESS);
  mcapi_status_t st;
  mcapi_request_t r;
  mcapi_endpoint_t out = mcapi_endpoint_create(1, &st);
  mcapi_endpoint_t in = mcapi_endpoint_create(2, &st);
  int ready[2], go[2]; /* child to parent, parent to child */
  CHECK(pipe(ready) == 0 && pipe(go) == 0);
  pid_t pid = fork();
  if (pid == 0) {
    if (init_node(dom, 2) != MCAPI_SUCCESS)
      _exit(1);
    mcapi_status_t s;
    mcapi_request_t q;
    mcapi_endpoint_t me = mcapi_endpoint_create(5, &s);
    char g;
    if (read(go[0], &g, 1) != 1) /* connected by the parent now */
      _exit(2);
    mcapi_pktchan_recv_hndl_t rh;
    mcapi_pktchan_recv_open_i(&rh, me, &q, &s); /* pending: the send side is not open */
    if (s != MCAPI_PENDING)
      _exit(3);
    if (write(ready[1], "o", 1) != 1)
      _exit(4);
    pause();
    _exit(0);
  }
  mcapi_endpoint_t peer = mcapi_endpoint_get(dom, 2, 5, MCX_TEST_WAIT_MS, &st);
  mcapi_pktchan_connect_i(out, peer, &r, &st);
  CHECK_STATUS(wait_req(&r, MCX_TEST_WAIT_MS), MCAPI_SUCCESS);
  CHECK(write(go[1], "g", 1) == 1);
  char c;
  CHECK(read(ready[0], &c, 1) == 1); /* event: the child's open is pending */
  kill(pid, SIGKILL);
  wait_child(pid);
  /* Our open either completes against the dead side (then sends fail) or fails. */
  mcapi_pktchan_send_hndl_t sh;
  mcapi_pktchan_send_open_i(&sh, out, &r, &st);
  mcapi_status_t o = wait_req(&r, MCX_TEST_WAIT_MS);
  CHECK(o == MCAPI_SUCCESS || o == MCAPI_ERR_CHAN_NOTOPEN);
  survivor_goes_on(dom, out, in, &sh, o == MCAPI_SUCCESS);
  mcapi_finalize(&st);
  CHECK(part_gone(dom));
  close(ready[0]);
  close(ready[1]);
  close(go[0]);
  close(go[1]);
}

int main(void)
{
  if (!getenv("MCX_NAMESPACE"))
    setenv("MCX_NAMESPACE", "test_chan_proc", 1);
  for (int mode = 0; mode < 3; mode++) {
    lk = mode == 2 ? MCX_LOCKING_KERNEL : mode ? MCX_LOCKING_GLOBAL : MCX_LOCKING_LOCKFREE;
    printf("-- %s locking\n", mode == 2 ? "kernel" : mode ? "global" : "lock-free");
    RUN(packets_and_scalars_across_processes);
    RUN(receiver_killed_while_holding_packets);
    RUN(node_killed_in_the_middle_of_an_open);
  }
  return mcx_test_report();
}
