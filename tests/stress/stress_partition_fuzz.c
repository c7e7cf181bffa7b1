/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz: a second process writes random values into the fields of a live
 * partition — header, node table, endpoint table, channel records, ring
 * positions, message slots, channel slots, packet buffer states — while two node processes exchange
 * messages, packets and scalars (every blocking call bounded by a 50 ms
 * TIMEOUT attribute). The nodes must survive: no signal, no hang past the
 * round's deadline; statuses only. Every group must survive: the data path
 * checks what it reads (ring positions against the capacity, slot sizes and
 * packet buffer indexes against the layout, offsets from process memory).
 *
 * One round per field group, each in a fresh domain, MCX_STRESS_SECONDS in
 * total (default 3 s). A node that dies prints the signal, the last values
 * written (field, offset, value) and its stack; a node that hangs is asked
 * for its stack (SIGUSR1) before it is killed; either fails the test.
 */
#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mcapi.h"
#include "mcx.h"
#include "mcx_test.h"
#include "runtime/runtime.h"

/* What the fuzzer wrote last, shared with the nodes (for their crash report). */
struct fuzz_log {
  atomic_uint round, count;
  char field[64];
  atomic_ullong offset, value;
  atomic_uint nodes_ready; /* nodes done setting up (the fuzzer starts then) */
};
static struct fuzz_log *flog;

enum group {
  G_HEADER, G_NODES, G_EPS, G_CHANS, G_RINGS, G_SLOTS, G_CHAN_SLOTS, G_PKT_META, G_MSG_META, G_N
};
static const char *const group_name[G_N] = {"header",          "node table",
                                            "endpoint table",  "channel records",
                                            "ring positions",  "message slot sizes",
                                            "channel slots",   "packet buffer states",
                                            "message pool states"};
static mcapi_domain_t dom;
static double round_seconds;

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}
static uint64_t nasty(void)
{
  static const uint64_t v[] = {0, 1, 2, 0xff, 0xffff, 0x7fffffff, 0x80000000u, 0xffffffffu,
                               0xffffffffffffffffull, 0x8000000000000000ull, 4096, 65536};
  switch (rnd() % 3) {
  case 0:
    return v[rnd() % (sizeof v / sizeof v[0])];
  case 1:
    return rnd() % 256;
  default:
    return rnd();
  }
}

static void on_crash(int sig)
{
  char m[256];
  int n = snprintf(m, sizeof m,
                   "node pid %d: signal %d; last write of the fuzzer: %s +%#llx = %#llx (write %u)\n",
                   (int)getpid(), sig, flog->field, (unsigned long long)flog->offset,
                   (unsigned long long)flog->value, flog->count);
  if (write(2, m, (size_t)n) < 0) {
  }
  void *bt[32];
  int k = backtrace(bt, 32);
  backtrace_symbols_fd(bt, k, 2);
  signal(sig, SIG_DFL);
  raise(sig);
}

/* Sent by the test to a node that hangs: where it is. */
static void on_hang(int sig)
{
  static const char m[] = "node still running past its deadline; its stack:\n";
  if (write(2, m, sizeof m - 1) < 0) {
  }
  void *bt[32];
  int k = backtrace(bt, 32);
  backtrace_symbols_fd(bt, k, 2);
  _exit(100 + sig);
}

static mcapi_status_t wait_req(mcapi_request_t *r, unsigned ms)
{
  mcapi_status_t st;
  size_t n;
  mcapi_wait(r, &n, ms, &st);
  return st;
}

static void bound(mcapi_endpoint_t e)
{
  mcapi_status_t st;
  mcapi_timeout_t t = 50;
  mcapi_endpoint_set_attribute(e, MCAPI_ENDP_ATTR_TIMEOUT, &t, sizeof t, &st);
}

/* A node: node 1 or 2 of the domain; traffic until the deadline, statuses only. */
static int node_main(mcapi_node_t me)
{
  signal(SIGSEGV, on_crash);
  signal(SIGBUS, on_crash);
  signal(SIGFPE, on_crash);
  signal(SIGILL, on_crash);
  signal(SIGABRT, on_crash);
  signal(SIGUSR1, on_hang);
  mcapi_info_t info;
  mcapi_status_t st;
  mcapi_initialize(dom, me, NULL, NULL, &info, &st);
  if (st != MCAPI_SUCCESS)
    return 0;
  mcapi_node_t peer = me == 1 ? 2 : 1;
  mcapi_endpoint_t m = mcapi_endpoint_create(1, &st);
  mcapi_endpoint_t p = mcapi_endpoint_create(2, &st);
  mcapi_endpoint_t s = mcapi_endpoint_create(3, &st);
  bound(m);
  bound(p);
  bound(s);
  mcapi_endpoint_t pm = mcapi_endpoint_get(dom, peer, 1, MCX_TEST_WAIT_MS, &st);
  mcapi_endpoint_t pp = mcapi_endpoint_get(dom, peer, 2, MCX_TEST_WAIT_MS, &st);
  mcapi_endpoint_t ps = mcapi_endpoint_get(dom, peer, 3, MCX_TEST_WAIT_MS, &st);
  mcapi_request_t r;
  /* node 1 sends packets to node 2; node 2 sends scalars to node 1 */
  if (me == 1) {
    mcapi_pktchan_connect_i(p, pp, &r, &st);
    wait_req(&r, MCX_TEST_WAIT_MS);
  } else {
    mcapi_sclchan_connect_i(s, ps, &r, &st);
    wait_req(&r, MCX_TEST_WAIT_MS);
  }
  mcapi_pktchan_send_hndl_t psh = 0;
  mcapi_pktchan_recv_hndl_t prh = 0;
  mcapi_sclchan_send_hndl_t ssh = 0;
  mcapi_sclchan_recv_hndl_t srh = 0;
  if (me == 1) {
    mcapi_pktchan_send_open_i(&psh, p, &r, &st);
    wait_req(&r, MCX_TEST_WAIT_MS);
    mcapi_sclchan_recv_open_i(&srh, s, &r, &st);
    wait_req(&r, MCX_TEST_WAIT_MS);
  } else {
    mcapi_pktchan_recv_open_i(&prh, p, &r, &st);
    wait_req(&r, MCX_TEST_WAIT_MS);
    mcapi_sclchan_send_open_i(&ssh, s, &r, &st);
    wait_req(&r, MCX_TEST_WAIT_MS);
  }
  atomic_fetch_add(&flog->nodes_ready, 1);
  double end = mcx_test_now() + round_seconds;
  char buf[256];
  size_t n;
  while (mcx_test_now() < end) {
    mcapi_msg_send(m, pm, "fuzz", 5, 1, &st);
    mcapi_msg_recv(m, buf, sizeof buf, &n, &st);
    memset(buf, 'b', 200); /* larger than a slot's inline bytes: a pool buffer */
    mcapi_msg_send(m, pm, buf, 200, 2, &st);
    mcapi_msg_recv(m, buf, sizeof buf, &n, &st);
    mcapi_msg_available(m, &st);
    if (me == 1) {
      mcapi_pktchan_send(psh, buf, 16, &st);
      mcapi_sclchan_recv_uint32(srh, &st);
    } else {
      void *pk;
      mcapi_pktchan_recv(prh, &pk, &n, &st);
      if (st == MCAPI_SUCCESS)
        mcapi_pktchan_release(pk, &st);
      mcapi_sclchan_send_uint32(ssh, 42, &st);
    }
    mcapi_request_t rr;
    mcapi_msg_recv_i(m, buf, sizeof buf, &rr, &st);
    if (st == MCAPI_PENDING) {
      mcapi_cancel(&rr, &st);
      mcapi_test(&rr, &n, &st);
    }
  }
  mcapi_finalize(&st);
  return 0;
}

/* The fuzzer: maps the partition and writes into group @p g until the deadline. */
static int fuzz_main(enum group g)
{
  char name[160];
  snprintf(name, sizeof name, "/mcx-%u-%s-d%u", (unsigned)geteuid(),
           getenv("MCX_NAMESPACE") ? getenv("MCX_NAMESPACE") : "default", dom);
  /* Event: both nodes have set up their endpoints and channels (so the
   * partition exists, sized and initialized). */
  MCX_TEST_AWAIT(atomic_load(&flog->nodes_ready) == 2);
  int fd = shm_open(name, O_RDWR, 0);
  if (fd < 0)
    return 1;
  struct stat sb;
  if (fstat(fd, &sb) != 0 || (size_t)sb.st_size < sizeof(mcx__part_hdr_t))
    return 1;
  uint8_t *base = mmap(NULL, (size_t)sb.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (base == MAP_FAILED)
    return 1;
  mcx__part_hdr_t *h = (mcx__part_hdr_t *)base;
  /* The region of the group, from the header as the creator wrote it. */
  size_t lo = 0, hi = 0;
  switch (g) {
  case G_HEADER: /* the creator's fields, not the locks (forged locks: regress_admin_lock) */
    lo = offsetof(mcx__part_hdr_t, version);
    hi = offsetof(mcx__part_hdr_t, admin);
    break;
  case G_NODES:
    lo = h->off_nodes;
    hi = h->off_nodes + (size_t)h->max_nodes * sizeof(mcx__node_t);
    break;
  case G_EPS:
    lo = h->off_eps;
    hi = h->off_eps + (size_t)h->max_endpoints * sizeof(mcx__endpoint_t);
    break;
  case G_CHANS:
    lo = h->off_chans;
    hi = h->off_chan_slots;
    break;
  case G_RINGS:
    lo = h->off_rings;
    hi = h->off_slots;
    break;
  case G_SLOTS:
    lo = h->off_slots;
    hi = h->off_msg_meta;
    break;
  case G_MSG_META: /* the message pool's head, buffer states and links */
    lo = h->off_msg_meta;
    hi = h->off_big;
    break;
  case G_CHAN_SLOTS: /* packet descriptors (buffer indexes, sizes) and scalars */
    lo = h->off_chan_slots;
    hi = h->off_chan_pools;
    break;
  case G_PKT_META: /* which side holds each packet buffer */
    lo = h->off_pkt_meta;
    hi = h->off_chan_pools;
    break;
  default:
    break;
  }
  /* Only the parts in use: the first endpoints / records / rings. */
  if (g >= G_EPS && hi - lo > 64 * 1024)
    hi = lo + 64 * 1024;
  double end = mcx_test_now() + round_seconds * 0.8;
  while (mcx_test_now() < end) {
    size_t off = lo + (rnd() % ((hi - lo) / 4)) * 4;
    uint64_t v = nasty();
    snprintf(flog->field, sizeof flog->field, "%s", group_name[g]);
    atomic_store(&flog->offset, off);
    atomic_store(&flog->value, v & 0xffffffffu);
    atomic_fetch_add(&flog->count, 1);
    __atomic_store_n((uint32_t *)(base + off), (uint32_t)v, __ATOMIC_RELAXED); /* the attack */
    usleep(200 + rnd() % 2000);
  }
  return 0;
}

static pid_t spawn_node(mcapi_node_t n)
{
  fflush(stdout);
  pid_t c = fork();
  if (c == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    _exit(node_main(n));
  }
  return c;
}

static void run_group(enum group g)
{
  dom = 200 + g;
  atomic_store(&flog->count, 0);
  atomic_store(&flog->nodes_ready, 0);
  pid_t a = spawn_node(1), b = spawn_node(2);
  pid_t f = fork();
  if (f == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    _exit(fuzz_main(g));
  }
  /* Every node ends by the round's deadline plus its setup's and its bounded
   * calls' slack (scaled: generous, only a hang reaches it). */
  double slack = mcx_test_ceiling_ms(60000) / 1000.0;
  double deadline = mcx_test_now() + round_seconds + slack;
  pid_t who[2] = {a, b};
  int crashed = 0, hung = 0;
  for (int i = 0; i < 2; i++) {
    int ws = 0;
    pid_t r = 0;
    while ((r = waitpid(who[i], &ws, WNOHANG)) == 0 && mcx_test_now() < deadline)
      usleep(10000);
    if (r == 0) {
      hung++;
      printf("   %s: node %d (pid %d) still running %.0f s past its deadline: a hang\n",
             group_name[g], i + 1, (int)who[i], round_seconds + slack);
      kill(who[i], SIGUSR1); /* its stack, then it exits */
      usleep(200000);
      kill(who[i], SIGKILL);
      waitpid(who[i], &ws, 0);
    } else if (WIFSIGNALED(ws)) {
      crashed++;
      printf("   %s: node %d died of signal %d after %u fuzzed writes (stack on stderr)\n",
             group_name[g], i + 1, WTERMSIG(ws), atomic_load(&flog->count));
    }
  }
  kill(f, SIGKILL);
  waitpid(f, NULL, 0);
  char name[160];
  snprintf(name, sizeof name, "/mcx-%u-%s-d%u", (unsigned)geteuid(),
           getenv("MCX_NAMESPACE") ? getenv("MCX_NAMESPACE") : "default", dom);
  shm_unlink(name);
  CHECK_EQ_U(crashed, 0);
  CHECK_EQ_U(hung, 0);
  printf("   %s: %u writes, nodes %s\n", group_name[g], atomic_load(&flog->count),
         crashed || hung ? "FAILED" : "survived");
}

TEST(header) { run_group(G_HEADER); }
TEST(node_table) { run_group(G_NODES); }
TEST(endpoint_table) { run_group(G_EPS); }
TEST(channel_records) { run_group(G_CHANS); }
TEST(ring_positions) { run_group(G_RINGS); }
TEST(message_slot_sizes) { run_group(G_SLOTS); }
TEST(channel_slots) { run_group(G_CHAN_SLOTS); }
TEST(packet_buffer_states) { run_group(G_PKT_META); }
TEST(message_pool_states) { run_group(G_MSG_META); }

int main(void)
{
  flog = mmap(NULL, sizeof *flog, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  round_seconds = mcx_test_stress_seconds(3.0) / G_N;
  if (round_seconds < 0.3)
    round_seconds = 0.3;
  rng ^= (uint64_t)getpid();
  RUN(header);
  RUN(node_table);
  RUN(endpoint_table);
  RUN(channel_records);
  RUN(ring_positions);
  RUN(message_slot_sizes);
  RUN(channel_slots);
  RUN(packet_buffer_states);
  RUN(message_pool_states);
  return mcx_test_report();
}
