/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Symptoms:
 *  - a packet receiver killed while holding every buffer: its sender got
 *    MCAPI_ERR_MEM_LIMIT for ever instead of MCAPI_ERR_CHAN_NOTOPEN (the
 *    dead-node sweep never ran on that path), and after the sender's close
 *    its endpoint stayed connected until an unrelated node initialized;
 *  - a sender killed after connect, before its open: the receiver's pending
 *    open never completed, and the endpoint stayed connected and
 *    open-pending (a new open gave MCAPI_ERR_CHAN_OPENPENDING, delete
 *    MCAPI_ERR_CHAN_OPEN) until finalize.
 *
 * The first case with two packet sizes: one that travels in its ring slot
 * on shm (held in the slot: the sender's blocking send waits, TIMEOUT) and
 * one that takes a pool buffer (the pool runs out: MEM_LIMIT).
 *
 * Each case on both transports (shm, pmq): the sender's next send says
 * CHAN_NOTOPEN, its close completes and leaves the endpoint unconnected and
 * deletable; the receiver's open completes with MCAPI_ERR_ENDP_DELETED (the
 * header's word for "the other side's node went away before opening") and
 * the endpoint takes a new connection from a new peer and receives on it.
 */
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>

#include "mcapi.h"
#include "mcx.h"
#include "mcx_test.h"
#include "regress/regress_util.h"

static mcx_transport_t transport;
static size_t pkt_size = 2; /* the first case's packets */
static char pkt_bytes[128] = "p";

static mcapi_status_t init(mcapi_domain_t dom, mcapi_node_t node)
{
  mcapi_param_t p;
  mcapi_info_t info;
  mcapi_status_t st;
  mcx_param_init(&p);
  p.transport = transport;
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

static mcapi_uint_t ep_status(mcapi_endpoint_t e)
{
  mcapi_uint_t v = 0;
  mcapi_status_t st;
  mcapi_endpoint_get_attribute(e, MCAPI_ENDP_ATTR_STATUS, &v, sizeof v, &st);
  return v;
}

static int go_fd = -1; /* the parent's end of the child's "go" pipe */

static pid_t spawn(int (*fn)(mcapi_domain_t), mcapi_domain_t dom, int *ready_fd)
{
  int p[2], g[2];
  if (pipe(p) != 0 || pipe(g) != 0)
    return -1;
  fflush(stdout);
  pid_t c = fork();
  if (c == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    close(p[0]);
    close(g[1]);
    dup2(p[1], 100);
    dup2(g[0], 101);
    _exit(fn(dom));
  }
  close(p[1]);
  close(g[0]);
  if (go_fd >= 0)
    close(go_fd);
  go_fd = g[1];
  *ready_fd = p[0];
  return c;
}

static void say_go(void)
{
  char c = 1;
  if (write(go_fd, &c, 1) != 1)
    CHECK(0);
}

static void say_ready(void)
{
  char c = 1;
  if (write(100, &c, 1) != 1)
    _exit(90);
}

static int await_ready(int fd)
{
  char c;
  return read(fd, &c, 1) == 1;
}

/* Receiver on node 2 port 5: opens, then receives and holds every packet. */
static int greedy_receiver(mcapi_domain_t dom)
{
  if (init(dom, 2) != MCAPI_SUCCESS)
    return 1;
  mcapi_status_t st;
  mcapi_request_t r;
  mcapi_endpoint_t in = mcapi_endpoint_create(5, &st);
  mcapi_pktchan_recv_hndl_t rh;
  mcapi_pktchan_recv_open_i(&rh, in, &r, &st);
  if (wait_req(&r, 10000) != MCAPI_SUCCESS)
    return 2;
  say_ready();
  for (;;) {
    void *buf;
    size_t sz;
    mcapi_pktchan_recv(rh, &buf, &sz, &st); /* never released */
  }
}

TEST(receiver_dies_holding_every_buffer)
{
  mcapi_domain_t dom = (transport == MCX_TRANSPORT_PMQ ? 41 : 40) + (pkt_size > 48 ? 100 : 0);
  CHECK_STATUS(init(dom, 1), MCAPI_SUCCESS);
  mcapi_status_t st;
  mcapi_request_t r;
  mcapi_endpoint_t out = mcapi_endpoint_create(1, &st);
  int ready;
  pid_t c = spawn(greedy_receiver, dom, &ready);
  mcapi_endpoint_t in = mcapi_endpoint_get(dom, 2, 5, MCX_TEST_WAIT_MS, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_pktchan_connect_i(out, in, &r, &st);
  CHECK_STATUS(wait_req(&r, 10000), MCAPI_SUCCESS);
  mcapi_pktchan_send_hndl_t sh;
  mcapi_pktchan_send_open_i(&sh, out, &r, &st);
  CHECK_STATUS(wait_req(&r, 10000), MCAPI_SUCCESS);
  CHECK(await_ready(ready));
  mcapi_uint_t tmo = 2000;
  mcapi_endpoint_set_attribute(out, MCAPI_ENDP_ATTR_TIMEOUT, &tmo, sizeof tmo, &st);
  int sent = 0;
  for (; sent < 100000; sent++) {
    mcapi_pktchan_send(sh, pkt_bytes, pkt_size, &st);
    if (st != MCAPI_SUCCESS)
      break;
  }
  /* It holds them all: pmq's local buffers or shm's pool run out; packets
   * in their slots fill the ring, and the sender waits for a release. */
  CHECK_STATUS(st, transport == MCX_TRANSPORT_SHM && pkt_size <= 48 ? MCAPI_TIMEOUT
                                                                    : MCAPI_ERR_MEM_LIMIT);
  if (transport == MCX_TRANSPORT_SHM && pkt_size <= 48)
    CHECK(sent > 0 && sent <= MCAPI_MAX_QUEUE_ELEMENTS);
  kill(c, SIGKILL);
  waitpid(c, NULL, 0);
  close(ready);
  /* The non-blocking send says so too, at once or on completion. On pmq a
   * receiver killed between taking a packet out of the queue and counting it
   * as held leaves room for one more: that send succeeds (the packet is lost
   * with the receiver, as one sent just before the kill), the next one says so. */
  for (int room = transport == MCX_TRANSPORT_PMQ ? 1 : 0;; room--) {
    mcapi_pktchan_send_i(sh, pkt_bytes, pkt_size, &r, &st);
    if (st == MCAPI_PENDING)
      st = wait_req(&r, 10000);
    if (st != MCAPI_SUCCESS || room == 0)
      break;
  }
  CHECK_STATUS(st, MCAPI_ERR_CHAN_NOTOPEN);
  mcapi_pktchan_send(sh, pkt_bytes, pkt_size, &st);
  CHECK_STATUS(st, MCAPI_ERR_CHAN_NOTOPEN);
  mcapi_pktchan_send_close_i(sh, &r, &st);
  CHECK_STATUS(wait_req(&r, 10000), MCAPI_SUCCESS);
  CHECK((ep_status(out) & MCAPI_ENDP_STATUS_CONNECTED) == 0);
  mcapi_endpoint_delete(out, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_finalize(&st);
}

/* Sender on node 2: connects its port 1 to node 1 port 1, then waits to be killed. */
static int connect_only_sender(mcapi_domain_t dom)
{
  if (init(dom, 2) != MCAPI_SUCCESS)
    return 1;
  mcapi_status_t st;
  mcapi_request_t r;
  mcapi_endpoint_t out = mcapi_endpoint_create(1, &st);
  mcapi_endpoint_t in = mcapi_endpoint_get(dom, 1, 1, MCX_TEST_WAIT_MS, &st);
  mcapi_pktchan_connect_i(out, in, &r, &st);
  if (wait_req(&r, 10000) != MCAPI_SUCCESS)
    return 2;
  say_ready();
  pause();
  return 0;
}

/* A well-behaved sender on node 3: connects, opens, sends one packet, closes. */
static int good_sender(mcapi_domain_t dom)
{
  if (init(dom, 3) != MCAPI_SUCCESS)
    return 1;
  mcapi_status_t st;
  mcapi_request_t r;
  mcapi_endpoint_t out = mcapi_endpoint_create(1, &st);
  mcapi_endpoint_t in = mcapi_endpoint_get(dom, 1, 1, MCX_TEST_WAIT_MS, &st);
  mcapi_pktchan_connect_i(out, in, &r, &st);
  if (wait_req(&r, 10000) != MCAPI_SUCCESS)
    return 2;
  mcapi_pktchan_send_hndl_t sh;
  mcapi_pktchan_send_open_i(&sh, out, &r, &st);
  if (wait_req(&r, 10000) != MCAPI_SUCCESS)
    return 3;
  mcapi_pktchan_send(sh, "again", 6, &st);
  if (st != MCAPI_SUCCESS)
    return 4;
  say_ready();
  char go;
  if (read(101, &go, 1) != 1) /* the receiver has the packet */
    return 5;
  mcapi_pktchan_send_close_i(sh, &r, &st);
  wait_req(&r, 10000);
  mcapi_finalize(&st);
  return 0;
}

TEST(sender_dies_between_connect_and_open)
{
  mcapi_domain_t dom = transport == MCX_TRANSPORT_PMQ ? 43 : 42;
  CHECK_STATUS(init(dom, 1), MCAPI_SUCCESS);
  mcapi_status_t st;
  mcapi_request_t r;
  mcapi_endpoint_t in = mcapi_endpoint_create(1, &st);
  int ready;
  pid_t c = spawn(connect_only_sender, dom, &ready);
  CHECK(await_ready(ready));
  close(ready);
  mcapi_pktchan_recv_hndl_t rh;
  mcapi_pktchan_recv_open_i(&rh, in, &r, &st);
  CHECK_STARTED(st);
  kill(c, SIGKILL);
  waitpid(c, NULL, 0);
  CHECK_STATUS(wait_req(&r, 10000), MCAPI_ERR_ENDP_DELETED);
  CHECK((ep_status(in) & (MCAPI_ENDP_STATUS_CONNECTED | MCAPI_ENDP_STATUS_OPEN_PENDING)) == 0);
  /* Reusable: a new peer connects, the new open completes, its packet arrives. */
  c = spawn(good_sender, dom, &ready);
  mcapi_pktchan_recv_open_i(&rh, in, &r, &st);
  CHECK_STARTED(st);
  CHECK_STATUS(wait_req(&r, 10000), MCAPI_SUCCESS);
  void *buf;
  size_t sz;
  mcapi_pktchan_recv(rh, &buf, &sz, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(st == MCAPI_SUCCESS && !strcmp(buf, "again"));
  if (st == MCAPI_SUCCESS)
    mcapi_pktchan_release(buf, &st);
  CHECK(await_ready(ready));
  say_go();
  close(ready);
  int ws;
  waitpid(c, &ws, 0);
  CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
  mcapi_pktchan_recv_close_i(rh, &r, &st);
  CHECK_STATUS(wait_req(&r, 10000), MCAPI_SUCCESS);
  mcapi_endpoint_delete(in, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_finalize(&st);
}

int main(void)
{
  regress_watchdog(110);
  transport = MCX_TRANSPORT_SHM;
  RUN(receiver_dies_holding_every_buffer);
  pkt_size = 100;
  RUN(receiver_dies_holding_every_buffer);
  pkt_size = 2;
  RUN(sender_dies_between_connect_and_open);
  struct stat sb;
  if (stat("/dev/mqueue", &sb) == 0) {
    transport = MCX_TRANSPORT_PMQ;
    RUN(receiver_dies_holding_every_buffer);
    RUN(sender_dies_between_connect_and_open);
  } else {
    printf("   SKIP pmq cases: /dev/mqueue is not mounted\n");
  }
  return mcx_test_report();
}
