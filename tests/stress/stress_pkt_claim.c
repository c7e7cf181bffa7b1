/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stress: claim/commit packet sends (mcx_pktchan_send_alloc / _commit /
 * _abandon) mixed with plain sends, between two threads (nodes) pinned to
 * different CPUs when there are two, through a ring of 8 slots so positions
 * wrap constantly, in the three locking modes. Each packet is stamped with
 * {sequence, length} and a fill that depends on both; the producer claims
 * more than it commits now and then, abandons one claim in seven (no
 * sequence number is used by an abandoned claim), and sends every third
 * packet plainly. The receiver checks every packet's order and bytes,
 * holds up to three and releases them out of order (its held slots are
 * passed over by the claims). Bounded by MCX_STRESS_SECONDS (default 3 s
 * in total).
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mcapi.h"
#include "mcx.h"
#include "mcx_test.h"
#include "mcx_test_chan.h"
#include "ports/mcx_port.h"

#define SEND_PORT 1
#define RECV_PORT 2
#define HOLD 3

struct ctx {
  mcapi_domain_t dom;
  mcx_locking_t lk;
  double seconds;
  atomic_ullong sent, claimed, abandoned;
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

static mcapi_status_t wait_req(mcapi_request_t *r)
{
  mcapi_status_t st;
  size_t n;
  mcapi_wait(r, &n, MCX_TEST_WAIT_MS, &st);
  return st;
}

#define FAIL(...)                        \
  do {                                   \
    fprintf(stderr, __VA_ARGS__);        \
    atomic_store(&c->failed, 1);         \
  } while (0)

static uint8_t fill_byte(uint64_t seq, uint32_t i) { return (uint8_t)(seq * 131 + i * 7 + 1); }

/* Half the packets fit a slot's 48 bytes, half need a buffer. */
static uint32_t pkt_len(uint64_t seq)
{
  uint32_t h = (uint32_t)(seq * 2654435761u >> 7);
  return 12 + (h & 1 ? (h >> 1) % (48 - 12 + 1) : (h >> 1) % (MCAPI_MAX_PKT_SIZE - 12));
}

static void stamp(uint8_t *p, uint64_t seq, uint32_t len)
{
  memcpy(p, &seq, 8);
  memcpy(p + 8, &len, 4);
  for (uint32_t i = 12; i < len; i++)
    p[i] = fill_byte(seq, i);
}

static void *producer(void *arg)
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
    FAIL("connect failed\n");
  mcapi_pktchan_send_hndl_t sh;
  mcapi_pktchan_send_open_i(&sh, me, &r, &st);
  if (wait_req(&r) != MCAPI_SUCCESS)
    FAIL("send open failed\n");
  static uint8_t buf[MCAPI_MAX_PKT_SIZE];
  uint64_t seq = 0, claims = 0, abandons = 0;
  double end = mcx_test_now() + c->seconds;
  while (mcx_test_now() < end && !atomic_load(&c->failed)) {
    for (int k = 0; k < 64 && !atomic_load(&c->failed); k++) {
      uint32_t len = pkt_len(seq);
      if (seq % 3 == 2) {
        stamp(buf, seq, len);
        mcapi_pktchan_send(sh, buf, len, &st);
        if (st != MCAPI_SUCCESS)
          FAIL("send %llu failed: %u\n", (unsigned long long)seq, st);
        seq++;
        continue;
      }
      /* Claim more than is committed now and then (up to the largest). */
      uint32_t cap = (seq & 4) ? MCAPI_MAX_PKT_SIZE - (uint32_t)(seq % 64) : len;
      if (cap < len)
        cap = len;
      uint8_t *p = mcx_pktchan_send_alloc(sh, cap, &st);
      if (st != MCAPI_SUCCESS || !p) {
        FAIL("claim %llu failed: %u\n", (unsigned long long)seq, st);
        break;
      }
      claims++;
      if (claims % 7 == 0) { /* half built, then given up */
        memset(p, 0xee, cap / 2);
        mcx_pktchan_send_abandon(sh, p, &st);
        if (st != MCAPI_SUCCESS)
          FAIL("abandon failed: %u\n", st);
        abandons++;
        continue;
      }
      stamp(p, seq, len);
      mcx_pktchan_send_commit(sh, p, len, &st);
      if (st != MCAPI_SUCCESS)
        FAIL("commit %llu failed: %u\n", (unsigned long long)seq, st);
      seq++;
    }
  }
  atomic_store(&c->sent, seq);
  atomic_store(&c->claimed, claims);
  atomic_store(&c->abandoned, abandons);
  mcapi_pktchan_send_close_i(sh, &r, &st);
  if (wait_req(&r) != MCAPI_SUCCESS)
    FAIL("send close failed\n");
  mcapi_finalize(&st);
  return NULL;
}

static void run(mcapi_domain_t dom, mcx_locking_t lk, double seconds)
{
  struct ctx ctx = {.dom = dom, .lk = lk, .seconds = seconds}, *c = &ctx;
  mcapi_status_t st;
  init_node(c, 1);
  pin(0);
  mcapi_endpoint_t me = mcapi_endpoint_create(RECV_PORT, &st);
  mcapi_uint_t depth = 8;
  mcapi_endpoint_set_attribute(me, MCAPI_ENDP_ATTR_NUM_RECV_BUFFERS, &depth, sizeof depth, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  pthread_t t;
  pthread_create(&t, NULL, producer, c);
  mcapi_pktchan_recv_hndl_t rh;
  mcapi_request_t r;
  mcapi_pktchan_recv_open_i(&rh, me, &r, &st);
  CHECK_STATUS(wait_req(&r), MCAPI_SUCCESS);
  void *held[HOLD];
  int nheld = 0;
  uint64_t expect = 0;
  uint32_t rnd = 777;
  for (;;) {
    void *p;
    size_t n;
    mcapi_pktchan_recv(rh, &p, &n, &st);
    if (st == MCAPI_ERR_CHAN_NOTOPEN)
      break; /* the producer closed and everything was drained */
    CHECK_STATUS(st, MCAPI_SUCCESS);
    if (st != MCAPI_SUCCESS)
      break;
    uint64_t seq;
    uint32_t len;
    memcpy(&seq, p, 8);
    memcpy(&len, (uint8_t *)p + 8, 4);
    int ok = seq == expect && len == n && len == pkt_len(seq);
    for (uint32_t i = 12; ok && i < len; i++)
      ok = ((uint8_t *)p)[i] == fill_byte(seq, i);
    if (!ok) {
      fprintf(stderr, "packet: got seq %llu len %u (size %zu), expected seq %llu\n",
              (unsigned long long)seq, len, n, (unsigned long long)expect);
      atomic_store(&c->failed, 1);
      break;
    }
    expect++;
    held[nheld++] = p;
    rnd = rnd * 1103515245u + 12345u;
    if (nheld == HOLD || (rnd >> 16) % 2) {
      int k = (int)((rnd >> 20) % (uint32_t)nheld); /* out of order */
      memset(held[k], 0x5a, 12); /* poisoned: a sender that reused it early is caught */
      mcapi_pktchan_release(held[k], &st);
      CHECK_STATUS(st, MCAPI_SUCCESS);
      held[k] = held[--nheld];
    }
  }
  while (nheld) {
    mcapi_pktchan_release(held[--nheld], &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
  }
  pthread_join(t, NULL);
  CHECK(!atomic_load(&c->failed));
  CHECK_EQ_U(expect, atomic_load(&c->sent));
  CHECK(atomic_load(&c->claimed) > 0 && atomic_load(&c->abandoned) > 0);
  mcapi_pktchan_recv_close_i(rh, &r, &st);
  CHECK_STATUS(wait_req(&r), MCAPI_SUCCESS);
  mcapi_finalize(&st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  printf("   %s: %llu packets in order (%llu claims, %llu abandoned)\n",
         lk == MCX_LOCKING_GLOBAL ? "global" : lk == MCX_LOCKING_KERNEL ? "kernel" : "lock-free",
         (unsigned long long)expect, (unsigned long long)atomic_load(&c->claimed),
         (unsigned long long)atomic_load(&c->abandoned));
}

static double seconds;
TEST(claims_lockfree) { run(41, MCX_LOCKING_LOCKFREE, seconds); }
TEST(claims_global) { run(42, MCX_LOCKING_GLOBAL, seconds); }
TEST(claims_kernel) { run(43, MCX_LOCKING_KERNEL, seconds); }

int main(void)
{
  setenv("MCX_NAMESPACE", "stress_pkt_claim", 0);
  seconds = mcx_test_stress_seconds(3.0) / 3;
  RUN(claims_lockfree);
  RUN(claims_global);
  RUN(claims_kernel);
  return mcx_test_report();
}
