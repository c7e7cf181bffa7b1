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
#include "runtime/runtime.h"

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

int main(void)
{
  setenv("MCX_NAMESPACE", "corrupt_slots", 0);
  RUN(corrupt_message_size_is_a_transmission_error);
  RUN(corrupt_depth_stays_inside_the_ring);
  return mcx_test_report();
}
