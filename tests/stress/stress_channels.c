/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stress: a packet channel and a scalar channel, each moving items between two
 * threads pinned to different CPUs (when there are two), in both locking
 * modes, through tiny rings (8 buffers / 4 slots) so indices wrap constantly.
 *  - packets carry {sequence, length, fill pattern}, half of them small
 *    enough to travel in their ring slot; the receiver holds up to three
 *    packets and releases them out of order, poisoning each first, and
 *    keeps one small packet for hundreds of receptions at a time (its slot
 *    is passed over by the sender meanwhile), checking it is intact before
 *    its release;
 *  - scalars cycle through the four widths; the receiver checks width
 *    (SCL_SIZE never seen) and value;
 *  - open/close cycles under traffic: connect, open, a burst, close, drain,
 *    repeat; the tally must match per cycle.
 * Bounded by MCX_STRESS_SECONDS (default 3 s in total).
 */
#include <stdatomic.h>
#include <unistd.h>

#include "mcapi.h"
#include "mcx.h"
#include "mcx_test.h"
#include "mcx_test_chan.h"
#include "ports/mcx_port.h"

#define SEND_PORT 1
#define RECV_PORT 2
#define MAX_PKT 300
#define HOLD 3

struct ctx {
  mcapi_domain_t dom;
  mcx_locking_t lk;
  double seconds;
  atomic_ullong sent;
  atomic_int cycle_sent; /* packets of the current open/close cycle */
  atomic_int failed;
};

static void init_node(struct ctx *c, mcapi_node_t node)
{
  if (mcx_test_node_init(c->dom, node, c->lk, MCX_COMPAT_DEFAULT) != MCAPI_SUCCESS)
    exit(2);
}

static void pin(int which)
{
  if (mcx_port_ncpus() >= 2)
    mcx_port_pin_self(which);
}

static uint8_t fill_byte(uint64_t seq, uint32_t i) { return (uint8_t)(seq * 131 + i * 7 + 1); }

static mcapi_status_t wait_req(mcapi_request_t *r)
{
  mcapi_status_t st;
  size_t n;
  /* Bounded: a request that never completes fails the test, not the run. */
  mcapi_wait(r, &n, MCX_TEST_WAIT_MS, &st);
  return st;
}

#define FAIL(...)                        \
  do {                                   \
    fprintf(stderr, __VA_ARGS__);        \
    atomic_store(&c->failed, 1);         \
  } while (0)

/* ---------------------------------------------------------------- packets */

static uint32_t pkt_len(uint64_t seq)
{
  uint32_t h = (uint32_t)(seq * 2654435761u >> 7);
  /* Half up to 48 bytes (in the slot), half up to MAX_PKT (a pool buffer). */
  return 12 + (h & 1 ? (h >> 1) % (48 - 12 + 1) : (h >> 1) % (MAX_PKT - 12));
}

/* The receiver's long-held packet: intact? */
static int pkt_intact(const uint8_t *p, size_t n)
{
  uint64_t seq;
  uint32_t len;
  memcpy(&seq, p, 8);
  memcpy(&len, p + 8, 4);
  if (len != n || len != pkt_len(seq))
    return 0;
  for (uint32_t i = 12; i < len; i++)
    if (p[i] != fill_byte(seq, i))
      return 0;
  return 1;
}

static void *pkt_sender(void *arg)
{
  struct ctx *c = arg;
  mcapi_status_t st;
  init_node(c, 2);
  pin(1);
  mcapi_endpoint_t me = mcapi_endpoint_create(SEND_PORT, &st);
  mcapi_endpoint_t to = mcapi_endpoint_get(c->dom, 1, RECV_PORT, MCAPI_TIMEOUT_INFINITE, &st);
  mcapi_request_t r;
  mcapi_pktchan_connect_i(me, to, &r, &st);
  if (wait_req(&r) != MCAPI_SUCCESS)
    FAIL("pkt connect failed\n");
  mcapi_pktchan_send_hndl_t sh;
  mcapi_pktchan_send_open_i(&sh, me, &r, &st);
  if (wait_req(&r) != MCAPI_SUCCESS)
    FAIL("pkt send open failed\n");
  uint8_t buf[MAX_PKT];
  uint64_t seq = 0;
  double end = mcx_test_now() + c->seconds;
  while (mcx_test_now() < end && !atomic_load(&c->failed)) {
    for (int k = 0; k < 64; k++, seq++) {
      uint32_t len = pkt_len(seq);
      memcpy(buf, &seq, 8);
      memcpy(buf + 8, &len, 4);
      for (uint32_t i = 12; i < len; i++)
        buf[i] = fill_byte(seq, i);
      if (seq & 1) {
        mcapi_pktchan_send(sh, buf, len, &st);
      } else {
        mcapi_pktchan_send_i(sh, buf, len, &r, &st);
        if (st == MCAPI_PENDING || st == MCAPI_SUCCESS) /* SUCCESS: completed at once, the request reports it */
          st = wait_req(&r);
      }
      if (st != MCAPI_SUCCESS) {
        FAIL("pkt send %llu failed: %u\n", (unsigned long long)seq, st);
        break;
      }
    }
  }
  atomic_store(&c->sent, seq);
  mcapi_pktchan_send_close_i(sh, &r, &st);
  if (wait_req(&r) != MCAPI_SUCCESS)
    FAIL("pkt send close failed\n");
  mcapi_finalize(&st);
  return NULL;
}

static void pkt_phase(struct ctx *c)
{
  mcapi_status_t st;
  init_node(c, 1);
  pin(0);
  mcapi_endpoint_t me = mcapi_endpoint_create(RECV_PORT, &st);
  mcapi_uint_t depth = 8;
  mcapi_endpoint_set_attribute(me, MCAPI_ENDP_ATTR_NUM_RECV_BUFFERS, &depth, sizeof depth, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  pthread_t t;
  pthread_create(&t, NULL, pkt_sender, c);
  mcapi_pktchan_recv_hndl_t rh;
  mcapi_request_t r;
  mcapi_pktchan_recv_open_i(&rh, me, &r, &st);
  CHECK_STATUS(wait_req(&r), MCAPI_SUCCESS);
  void *held[HOLD];
  size_t lens[HOLD];
  int nheld = 0;
  uint64_t expect = 0;
  uint32_t rnd = 12345;
  void *kept = NULL; /* a small packet held long */
  size_t kept_len = 0;
  uint64_t kept_until = 0, n_kept = 0;
  for (;;) {
    void *p;
    size_t n;
    if (expect & 2) {
      mcapi_pktchan_recv_i(rh, &p, &r, &st);
      if (st == MCAPI_PENDING || st == MCAPI_SUCCESS) { /* SUCCESS: completed at once */
        mcapi_wait(&r, &n, MCAPI_TIMEOUT_INFINITE, &st);
      } else if (st != MCAPI_ERR_CHAN_NOTOPEN) {
        CHECK_STATUS(st, MCAPI_PENDING);
        break;
      }
    } else {
      mcapi_pktchan_recv(rh, &p, &n, &st);
    }
    if (st == MCAPI_ERR_CHAN_NOTOPEN)
      break; /* the sender closed and everything was drained */
    CHECK_STATUS(st, MCAPI_SUCCESS);
    if (st != MCAPI_SUCCESS)
      break;
    uint64_t seq;
    uint32_t len;
    memcpy(&seq, p, 8);
    memcpy(&len, (uint8_t *)p + 8, 4);
    if (seq != expect || len != n || len != pkt_len(seq)) {
      fprintf(stderr, "packet: got seq %llu len %u (size %zu), expected seq %llu\n",
              (unsigned long long)seq, len, n, (unsigned long long)expect);
      atomic_store(&c->failed, 1);
      break;
    }
    for (uint32_t i = 12; i < len; i++)
      if (((uint8_t *)p)[i] != fill_byte(seq, i)) {
        fprintf(stderr, "packet %llu torn at byte %u\n", (unsigned long long)seq, i);
        atomic_store(&c->failed, 1);
        break;
      }
    expect++;
    if (kept && expect >= kept_until) {
      if (!pkt_intact(kept, kept_len)) {
        fprintf(stderr, "long-held packet overwritten\n");
        atomic_store(&c->failed, 1);
        break;
      }
      mcapi_pktchan_release(kept, &st);
      CHECK_STATUS(st, MCAPI_SUCCESS);
      kept = NULL;
    }
    if (!kept && n <= 48 && (expect & 7) == 0) {
      kept = p;
      kept_len = n;
      kept_until = expect + 100 + (expect * 2654435761u >> 9) % 900;
      n_kept++;
      continue;
    }
    held[nheld] = p;
    lens[nheld++] = n;
    rnd = rnd * 1103515245u + 12345u;
    if (nheld == HOLD || (rnd >> 16) % 4 == 0) {
      /* Release out of order, each poisoned first. */
      for (int k = nheld - 1; k >= 0; k--) {
        int j = (int)((rnd >> 8) % (uint32_t)(k + 1));
        memset(held[j], 0xdd, lens[j]);
        mcapi_pktchan_release(held[j], &st);
        CHECK_STATUS(st, MCAPI_SUCCESS);
        held[j] = held[k];
        lens[j] = lens[k];
      }
      nheld = 0;
    }
  }
  for (int k = 0; k < nheld; k++) {
    mcapi_pktchan_release(held[k], &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
  }
  if (kept) {
    CHECK(pkt_intact(kept, kept_len));
    mcapi_pktchan_release(kept, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
  }
  CHECK(n_kept > 0);
  pthread_join(t, NULL);
  CHECK(!atomic_load(&c->failed));
  CHECK_EQ_U(expect, atomic_load(&c->sent));
  mcapi_pktchan_recv_close_i(rh, &r, &st);
  CHECK_STATUS(wait_req(&r), MCAPI_SUCCESS);
  mcapi_finalize(&st);
  printf("   %s: %llu packets checked (8 buffers, up to %d held, out-of-order release, %llu held long)\n",
         c->lk == MCX_LOCKING_GLOBAL ? "global" : c->lk == MCX_LOCKING_KERNEL ? "kernel" : "lock-free", (unsigned long long)expect, HOLD, (unsigned long long)n_kept);
}

/* ---------------------------------------------------------------- scalars */

static void *scl_sender(void *arg)
{
  struct ctx *c = arg;
  mcapi_status_t st;
  init_node(c, 2);
  pin(1);
  mcapi_endpoint_t me = mcapi_endpoint_create(SEND_PORT, &st);
  mcapi_endpoint_t to = mcapi_endpoint_get(c->dom, 1, RECV_PORT, MCAPI_TIMEOUT_INFINITE, &st);
  mcapi_request_t r;
  mcapi_sclchan_connect_i(me, to, &r, &st);
  if (wait_req(&r) != MCAPI_SUCCESS)
    FAIL("scl connect failed\n");
  mcapi_sclchan_send_hndl_t sh;
  mcapi_sclchan_send_open_i(&sh, me, &r, &st);
  if (wait_req(&r) != MCAPI_SUCCESS)
    FAIL("scl send open failed\n");
  uint64_t seq = 0;
  double end = mcx_test_now() + c->seconds;
  while (mcx_test_now() < end && !atomic_load(&c->failed)) {
    for (int k = 0; k < 256; k++, seq++) {
      uint64_t v = seq * 0x9e3779b97f4a7c15ull;
      switch (seq % 4) {
      case 0: mcapi_sclchan_send_uint64(sh, v, &st); break;
      case 1: mcapi_sclchan_send_uint32(sh, (uint32_t)v, &st); break;
      case 2: mcapi_sclchan_send_uint16(sh, (uint16_t)v, &st); break;
      default: mcapi_sclchan_send_uint8(sh, (uint8_t)v, &st); break;
      }
      if (st != MCAPI_SUCCESS) {
        FAIL("scl send %llu failed: %u\n", (unsigned long long)seq, st);
        break;
      }
    }
  }
  atomic_store(&c->sent, seq);
  mcapi_sclchan_send_close_i(sh, &r, &st);
  if (wait_req(&r) != MCAPI_SUCCESS)
    FAIL("scl send close failed\n");
  mcapi_finalize(&st);
  return NULL;
}

static void scl_phase(struct ctx *c)
{
  mcapi_status_t st;
  init_node(c, 1);
  pin(0);
  mcapi_endpoint_t me = mcapi_endpoint_create(RECV_PORT, &st);
  mcapi_uint_t depth = 4;
  mcapi_endpoint_set_attribute(me, MCAPI_ENDP_ATTR_NUM_RECV_BUFFERS, &depth, sizeof depth, &st);
  pthread_t t;
  pthread_create(&t, NULL, scl_sender, c);
  mcapi_sclchan_recv_hndl_t rh;
  mcapi_request_t r;
  mcapi_sclchan_recv_open_i(&rh, me, &r, &st);
  CHECK_STATUS(wait_req(&r), MCAPI_SUCCESS);
  uint64_t expect = 0;
  for (;;) {
    uint64_t v = expect * 0x9e3779b97f4a7c15ull, got;
    switch (expect % 4) {
    case 0: got = mcapi_sclchan_recv_uint64(rh, &st); break;
    case 1: got = mcapi_sclchan_recv_uint32(rh, &st); v = (uint32_t)v; break;
    case 2: got = mcapi_sclchan_recv_uint16(rh, &st); v = (uint16_t)v; break;
    default: got = mcapi_sclchan_recv_uint8(rh, &st); v = (uint8_t)v; break;
    }
    if (st == MCAPI_ERR_CHAN_NOTOPEN)
      break;
    if (st != MCAPI_SUCCESS || got != v) {
      fprintf(stderr, "scalar %llu: status %u, got %llx expected %llx\n",
              (unsigned long long)expect, st, (unsigned long long)got, (unsigned long long)v);
      atomic_store(&c->failed, 1);
      break;
    }
    expect++;
  }
  pthread_join(t, NULL);
  CHECK(!atomic_load(&c->failed));
  CHECK_EQ_U(expect, atomic_load(&c->sent));
  mcapi_sclchan_recv_close_i(rh, &r, &st);
  CHECK_STATUS(wait_req(&r), MCAPI_SUCCESS);
  mcapi_finalize(&st);
  printf("   %s: %llu scalars checked (4 slots, widths 8/4/2/1)\n",
         c->lk == MCX_LOCKING_GLOBAL ? "global" : c->lk == MCX_LOCKING_KERNEL ? "kernel" : "lock-free", (unsigned long long)expect);
}

/* ------------------------------------------------------ open/close cycles */

static atomic_int cycles_done;

static void *cycle_sender(void *arg)
{
  struct ctx *c = arg;
  mcapi_status_t st;
  init_node(c, 2);
  pin(1);
  mcapi_endpoint_t me = mcapi_endpoint_create(SEND_PORT, &st);
  mcapi_endpoint_t to = mcapi_endpoint_get(c->dom, 1, RECV_PORT, MCAPI_TIMEOUT_INFINITE, &st);
  double end = mcx_test_now() + c->seconds;
  uint32_t rnd = 777;
  int cycles = 0;
  while (mcx_test_now() < end && !atomic_load(&c->failed)) {
    mcapi_request_t r;
    /* The previous connection is gone once the receiver's close completed. */
    do {
      mcapi_pktchan_connect_i(me, to, &r, &st);
      if (st == MCAPI_ERR_CHAN_CONNECTED)
        usleep(50);
    } while (st == MCAPI_ERR_CHAN_CONNECTED);
    if ((st != MCAPI_PENDING && st != MCAPI_SUCCESS) || wait_req(&r) != MCAPI_SUCCESS) {
      FAIL("cycle connect failed: %u\n", st);
      break;
    }
    mcapi_pktchan_send_hndl_t sh;
    mcapi_pktchan_send_open_i(&sh, me, &r, &st);
    if (wait_req(&r) != MCAPI_SUCCESS) {
      FAIL("cycle open failed\n");
      break;
    }
    rnd = rnd * 1103515245u + 12345u;
    int n = 1 + (int)((rnd >> 16) % 50);
    for (int i = 0; i < n; i++) {
      uint32_t v[2] = {(uint32_t)cycles, (uint32_t)i};
      mcapi_pktchan_send(sh, v, sizeof v, &st);
      if (st != MCAPI_SUCCESS) {
        FAIL("cycle send failed: %u\n", st);
        break;
      }
    }
    atomic_store(&c->cycle_sent, n);
    mcapi_pktchan_send_close_i(sh, &r, &st);
    if (wait_req(&r) != MCAPI_SUCCESS)
      FAIL("cycle close failed\n");
    cycles++;
  }
  atomic_store(&cycles_done, cycles);
  atomic_store(&c->sent, 1); /* no more cycles */
  /* Stay a node until the receiver has seen the last close. */
  while (atomic_load(&c->sent) == 1)
    usleep(1000);
  mcapi_finalize(&st);
  return NULL;
}

static void cycle_phase(struct ctx *c)
{
  mcapi_status_t st;
  init_node(c, 1);
  pin(0);
  mcapi_endpoint_t me = mcapi_endpoint_create(RECV_PORT, &st);
  mcapi_uint_t depth = 4;
  mcapi_endpoint_set_attribute(me, MCAPI_ENDP_ATTR_NUM_RECV_BUFFERS, &depth, sizeof depth, &st);
  atomic_store(&c->cycle_sent, 0);
  pthread_t t;
  pthread_create(&t, NULL, cycle_sender, c);
  int cycles = 0;
  for (;;) {
    mcapi_pktchan_recv_hndl_t rh;
    mcapi_request_t r;
    /* Opened before or after the connection: either is fine. */
    mcapi_pktchan_recv_open_i(&rh, me, &r, &st);
    CHECK_STARTED(st);
    if (st != MCAPI_SUCCESS && st != MCAPI_PENDING) {
      atomic_store(&c->failed, 1); /* the sender stops its cycles */
      break;
    }
    mcapi_request_t *rs[1] = {&r};
    size_t n;
    int opened = 0;
    while (!opened) {
      mcapi_wait_any(1, rs, &n, 20, &st);
      if (st == MCAPI_SUCCESS)
        opened = 1;
      else if (st != MCAPI_TIMEOUT || atomic_load(&c->sent) == 1)
        break;
    }
    if (!opened) {
      mcapi_cancel(&r, &st);
      mcapi_test(&r, &n, &st);
      break;
    }
    int got = 0;
    void *p;
    for (;;) {
      mcapi_pktchan_recv(rh, &p, &n, &st);
      if (st != MCAPI_SUCCESS)
        break;
      uint32_t v[2];
      memcpy(v, p, sizeof v);
      if (n != sizeof v || v[0] != (uint32_t)cycles || v[1] != (uint32_t)got) {
        fprintf(stderr, "cycle %d: got {%u,%u} expected {%d,%d}\n", cycles, v[0], v[1], cycles, got);
        atomic_store(&c->failed, 1);
      }
      got++;
      mcapi_pktchan_release(p, &st);
    }
    CHECK_STATUS(st, MCAPI_ERR_CHAN_NOTOPEN);
    CHECK_EQ_U(got, atomic_load(&c->cycle_sent));
    mcapi_pktchan_recv_close_i(rh, &r, &st);
    CHECK_STATUS(wait_req(&r), MCAPI_SUCCESS);
    cycles++;
    if (atomic_load(&c->failed))
      break;
  }
  atomic_store(&c->sent, 2);
  pthread_join(t, NULL);
  CHECK(!atomic_load(&c->failed));
  CHECK_EQ_U(cycles, atomic_load(&cycles_done));
  CHECK_EQ_U(mcx_requests_in_use(), 0);
  mcapi_finalize(&st);
  printf("   %s: %d connect/open/send/close cycles checked\n",
         c->lk == MCX_LOCKING_GLOBAL ? "global" : c->lk == MCX_LOCKING_KERNEL ? "kernel" : "lock-free", cycles);
}

static struct ctx ctx;

static void phase(mcapi_domain_t dom, mcx_locking_t lk, void (*fn)(struct ctx *))
{
  memset(&ctx, 0, sizeof ctx);
  ctx.dom = dom;
  ctx.lk = lk;
  ctx.seconds = mcx_test_stress_seconds(3.0) / 6;
  fn(&ctx);
}

TEST(packets_lockfree) { phase(21, MCX_LOCKING_LOCKFREE, pkt_phase); }
TEST(packets_global) { phase(22, MCX_LOCKING_GLOBAL, pkt_phase); }
TEST(scalars_lockfree) { phase(23, MCX_LOCKING_LOCKFREE, scl_phase); }
TEST(scalars_global) { phase(24, MCX_LOCKING_GLOBAL, scl_phase); }
TEST(open_close_cycles_lockfree) { phase(25, MCX_LOCKING_LOCKFREE, cycle_phase); }
TEST(open_close_cycles_global) { phase(26, MCX_LOCKING_GLOBAL, cycle_phase); }
TEST(packets_kernel) { phase(27, MCX_LOCKING_KERNEL, pkt_phase); }
TEST(scalars_kernel) { phase(28, MCX_LOCKING_KERNEL, scl_phase); }

int main(void)
{
  RUN(packets_lockfree);
  RUN(packets_global);
  RUN(scalars_lockfree);
  RUN(scalars_global);
  RUN(packets_kernel);
  RUN(scalars_kernel);
  RUN(open_close_cycles_lockfree);
  RUN(open_close_cycles_global);
  return mcx_test_report();
}
