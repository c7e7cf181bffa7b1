/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared memory is input: values a faulty or hostile process of the domain
 * wrote into the data path's records give a status, never a read or write
 * outside the partition. Each test corrupts one field of a live partition the
 * way another process could, then uses the endpoint as an application would.
 */
#include <stdlib.h>
#include <string.h>

#include "mcapi.h"
#include "mcx.h"
#include "mcx_test.h"
#include "mcx_test_chan.h"
#include "runtime/msg.h"
#include "runtime/runtime.h"
#include "transport/pkt_ring.h"

#define DOM 61
#define PRIO 1

static mcapi_endpoint_t a, b;

static void setup(void)
{
  mcapi_status_t st;
  mcapi_info_t info;
  mcapi_initialize(DOM, 1, NULL, NULL, &info, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  a = mcapi_endpoint_create(1, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  b = mcapi_endpoint_create(2, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
}

static void teardown(void)
{
  mcapi_status_t st;
  mcapi_finalize(&st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
}

static mcx__endpoint_t *ep_of(mcapi_endpoint_t h)
{
  mcx__endpoint_t *e = NULL;
  CHECK(mcx__ep_resolve(mcx__self.dom, (uint32_t)h, &e) == MCX_OK);
  return e;
}

/* The slot holding the next message of b's ring of priority PRIO. */
static mcx__msg_slot_t *next_slot(void)
{
  mcx__domain_t *d = mcx__self.dom;
  mcx__endpoint_t *e = ep_of(b);
  mcx__ring_view_t v = mcx__ring_of(d, mcx__ep_idx(d, e), PRIO, mcx_load_relaxed(&e->depth));
  return &v.slots[mcx_load_relaxed(&v.ring->head) & v.mask];
}

/* A queued message's size set to 2 GB (inline and big-buffer messages): the
 * receive reports MCAPI_ERR_TRANSMISSION and copies nothing past the slot's
 * buffer; the next message arrives intact. */
TEST(corrupt_message_size_is_a_transmission_error)
{
  setup();
  size_t cap = 1u << 20;
  char *out = malloc(cap);
  char msg[200];
  for (size_t len = 24; len <= 200; len += 176) { /* inline, then big buffer */
    memset(msg, 0x5a, sizeof msg);
    mcapi_status_t st;
    mcapi_msg_send(a, b, msg, len, PRIO, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    mcapi_msg_send(a, b, "after", 6, PRIO, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    next_slot()->size = 0x7fffffffu;
    memset(out, 0, cap);
    size_t got = 12345;
    mcapi_msg_recv(b, out, cap, &got, &st);
    CHECK_STATUS(st, MCAPI_ERR_TRANSMISSION);
    CHECK(out[0] == 0 && out[cap - 1] == 0); /* nothing was copied */
    mcapi_msg_recv(b, out, cap, &got, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    CHECK(got == 6 && !strcmp(out, "after"));
  }
  free(out);
  teardown();
}

/* The endpoint's ring depth (its NUM_RECV_BUFFERS) overwritten with garbage:
 * sends and receives stay inside the ring (the mask is bounded by the
 * layout) and every message still arrives once, in order. */
TEST(corrupt_depth_stays_inside_the_ring)
{
  static const uint32_t bad[] = {0xffffffffu, 0u, 12345u, 1u << 31};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    setup();
    mcx__endpoint_t *e = ep_of(b);
    uint32_t depth = mcx_load_relaxed(&e->depth);
    mcx_store_relaxed(&e->depth, bad[k]);
    mcapi_status_t st;
    uint32_t sent = 0, got_n = 0;
    for (uint32_t i = 0; i < 3 * depth; i++) {
      mcapi_msg_send(a, b, &i, sizeof i, PRIO, &st);
      if (st != MCAPI_SUCCESS)
        break; /* full under the garbage depth: a status, not a crash */
      sent++;
      uint32_t v = 0;
      size_t n = 0;
      mcapi_msg_recv(b, &v, sizeof v, &n, &st);
      CHECK_STATUS(st, MCAPI_SUCCESS);
      CHECK(n == sizeof v && v == got_n);
      got_n++;
    }
    CHECK(sent == got_n && sent > 0);
    mcx_store_relaxed(&e->depth, depth);
    teardown();
  }
}


/* Sends until the ring is full (MEM_LIMIT at once, not a wait), then
 * receives them all, checked: how many fitted. */
static uint32_t fill_and_drain(mcapi_endpoint_t tx, mcapi_pktchan_send_hndl_t sh,
                               mcapi_pktchan_recv_hndl_t rh)
{
  mcapi_status_t st;
  mcapi_boolean_t fail = 1;
  mcapi_endpoint_set_attribute(tx, MCAPI_ENDP_ATTR_FAIL_ON_MEM_LIMIT, &fail, sizeof fail, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  uint32_t depth = 0;
  while (depth < 4096) {
    uint32_t v = depth;
    mcapi_pktchan_send(sh, &v, sizeof v, &st);
    if (st != MCAPI_SUCCESS)
      break;
    depth++;
  }
  CHECK_STATUS(st, MCAPI_ERR_MEM_LIMIT);
  for (uint32_t i = 0; i < depth; i++) {
    void *pk;
    size_t n;
    uint32_t v;
    mcapi_pktchan_recv(rh, &pk, &n, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    memcpy(&v, pk, sizeof v);
    CHECK(n == sizeof v && v == i);
    mcapi_pktchan_release(pk, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
  }
  return depth;
}

/* A packet kept in its slot whose size another process overwrote (more than
 * a slot holds): the receive reports MCAPI_ERR_TRANSMISSION and hands out
 * nothing, the slot is freed (the whole ring can be filled again), the next
 * packet arrives intact. In each locking mode (the lock-based modes free the
 * slot under their lock, as a release does). */
static void corrupt_kept_packet(mcx_locking_t lk)
{
  mcapi_status_t st;
  mcapi_info_t info;
  mcapi_param_t p;
  mcx_param_init(&p);
  p.locking = lk;
  mcapi_initialize(DOM, 1, NULL, &p, &info, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_endpoint_t tx = mcapi_endpoint_create(1, &st);
  mcapi_endpoint_t rx = mcapi_endpoint_create(2, &st);
  size_t n;
  mcapi_pktchan_send_hndl_t sh;
  mcapi_pktchan_recv_hndl_t rh;
  mcx_test_open_chan(tx, rx, 1, &sh, &rh);
  uint32_t depth0 = fill_and_drain(tx, sh, rh);
  CHECK(depth0 >= 2);
  void *pk = NULL;
  mcapi_pktchan_send(sh, "first", 6, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_pktchan_recv(rh, &pk, &n, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(n == 6 && !strcmp(pk, "first"));
  /* The next packet goes to the next slot, one line further. */
  mcx__spsc_slot_t *next = (mcx__spsc_slot_t *)((uint8_t *)pk + 64 + MCX_PKT_INLINE);
  mcapi_pktchan_release(pk, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_pktchan_send(sh, "second", 7, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK_EQ_U(mcx_load_relaxed(&next->meta), 7);
  mcx_store_relaxed(&next->meta, 1000);
  pk = NULL;
  mcapi_pktchan_recv(rh, &pk, &n, &st);
  CHECK_STATUS(st, MCAPI_ERR_TRANSMISSION);
  CHECK(pk == NULL);
  /* Every slot free again: as many packets fit as before. */
  CHECK_EQ_U(fill_and_drain(tx, sh, rh), depth0);
  mcapi_pktchan_send(sh, "after", 6, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_pktchan_recv(rh, &pk, &n, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(n == 6 && !strcmp(pk, "after"));
  mcapi_pktchan_release(pk, &st);
  teardown();
}

/* b's ring of priority PRIO. */
static mcx__ring_view_t ring_b(void)
{
  mcx__domain_t *d = mcx__self.dom;
  mcx__endpoint_t *e = ep_of(b);
  return mcx__ring_of(d, mcx__ep_idx(d, e), PRIO, mcx_load_relaxed(&e->depth));
}

/* @p n rounds of one send and one receive, with @p backlog messages left
 * queued before them: every receive takes a message at depth backlog + 1. */
static void rounds(unsigned n, unsigned backlog)
{
  mcapi_status_t st;
  char m[24] = "x", out[24];
  size_t got;
  for (unsigned i = 0; i < backlog; i++) {
    mcapi_msg_send(a, b, m, sizeof m, PRIO, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
  }
  for (unsigned i = 0; i < n; i++) {
    mcapi_msg_send(a, b, m, sizeof m, PRIO, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    mcapi_msg_recv(b, out, sizeof out, &got, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
  }
  for (unsigned i = 0; i < backlog; i++) {
    mcapi_msg_recv(b, out, sizeof out, &got, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
  }
}

/* The queue's high-water mark (mcx__mpsc_sample_depth): sampled at every
 * 64th take, the senders' tail read only at every 16th sample while it
 * read no backlog. After quiet traffic (depth 1) a backlog of 31 is still
 * seen (depth 32) within 16 samples; and a skip count another process
 * wrote (shared memory is input) delays the next read by no more than
 * that. */
static void high_water(uint32_t quiet)
{
  setup();
  rounds(200, 0);
  mcx__ring_view_t v = ring_b();
  CHECK_EQ_U(mcx_load_relaxed(&v.ring->hwm), 1);
  CHECK(mcx_load_relaxed(&v.ring->hwm_quiet) != 0); /* quiet: the next samples skip the read */
  if (quiet)
    mcx_store_relaxed(&v.ring->hwm_quiet, quiet);
  rounds(17 * 64 + 63, 31);
  CHECK_EQ_U(mcx_load_relaxed(&v.ring->hwm), 32);
  CHECK_EQ_U(mcx_load_relaxed(&v.ring->hwm_quiet), 0); /* a backlog: every sample reads */
  teardown();
}

TEST(queue_high_water_seen_after_quiet_traffic) { high_water(0); }
TEST(corrupt_high_water_skip_count_is_bounded) { high_water(UINT32_MAX); }

TEST(corrupt_kept_packet_size_lockfree) { corrupt_kept_packet(MCX_LOCKING_LOCKFREE); }
TEST(corrupt_kept_packet_size_global) { corrupt_kept_packet(MCX_LOCKING_GLOBAL); }
TEST(corrupt_kept_packet_size_kernel) { corrupt_kept_packet(MCX_LOCKING_KERNEL); }

int main(void)
{
  setenv("MCX_NAMESPACE", "corrupt_slots", 0);
  RUN(corrupt_message_size_is_a_transmission_error);
  RUN(corrupt_depth_stays_inside_the_ring);
  RUN(queue_high_water_seen_after_quiet_traffic);
  RUN(corrupt_high_water_skip_count_is_bounded);
  RUN(corrupt_kept_packet_size_lockfree);
  RUN(corrupt_kept_packet_size_global);
  RUN(corrupt_kept_packet_size_kernel);
  return mcx_test_report();
}
