/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fast paths' caches (a node's endpoint and channel entries, in process
 * memory) never outlive what they describe: after a delete and re-create,
 * a re-size, a channel's close and reconnect, or an eviction by another
 * handle, each call acts on the object as it is now. Every case first makes
 * the cache hold the old state (a successful send and receive), then changes
 * the object, then checks the next calls. Both profiles.
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#ifndef _WIN32
#include <sys/wait.h>
#endif

#include "mcapi.h"
#include "mcx.h"
#include "mcx_test.h"
#include "mcx_test_chan.h"

static mcx_compat_t compat;
static mcapi_domain_t dom;

/* Node @p node of the test's domain, in the calling thread. */
static mcapi_status_t start_node(mcapi_node_t node)
{
  mcapi_param_t p;
  mcx_param_init(&p);
  p.compat = compat;
  p.max_endpoints = 128; /* the domain's: room for more handles than the cache has entries */
  mcapi_info_t info;
  mcapi_status_t st;
  mcapi_initialize(dom, node, NULL, &p, &info, &st);
  return st;
}

static void init(void)
{
  CHECK_STATUS(start_node(1), MCAPI_SUCCESS);
}

static void fini(void)
{
  mcapi_status_t st;
  mcapi_finalize(&st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
}

/* Endpoints on ports 1..n, checked. */
static void create_eps(mcapi_endpoint_t *ep, unsigned n)
{
  mcapi_status_t st;
  for (unsigned i = 0; i < n; i++) {
    ep[i] = mcapi_endpoint_create(i + 1, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
  }
}

/* One message a -> b, checked. */
static void roundtrip(mcapi_endpoint_t a, mcapi_endpoint_t b, unsigned v)
{
  mcapi_status_t st;
  size_t n;
  unsigned got = ~v;
  mcapi_msg_send(a, b, &v, sizeof v, 1, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_msg_recv(b, &got, sizeof got, &n, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK_EQ_U(got, v);
}

/* One message a -> b, one scalar ss -> sr, one packet ps -> pr (its
 * release too), each checked: fills every kind's cache entries. */
static void one_of_each(mcapi_endpoint_t a, mcapi_endpoint_t b, uint32_t ss, uint32_t sr,
                        uint32_t ps, uint32_t pr, unsigned v)
{
  mcapi_status_t st;
  roundtrip(a, b, v);
  mcapi_sclchan_send_uint64(ss, v, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK_EQ_U(mcapi_sclchan_recv_uint64(sr, &st), v);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  void *p;
  size_t n;
  mcapi_pktchan_send(ps, "pk", 3, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_pktchan_recv(pr, &p, &n, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(n == 3 && !strcmp(p, "pk"));
  mcapi_pktchan_release(p, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
}

TEST(endpoint_deleted_and_recreated)
{
  init();
  mcapi_status_t st;
  mcapi_endpoint_t a = mcapi_endpoint_create(1, &st);
  mcapi_endpoint_t b = mcapi_endpoint_create(2, &st);
  roundtrip(a, b, 1);
  roundtrip(a, b, 2);
  mcapi_endpoint_delete(b, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  unsigned v = 3;
  size_t n;
  mcapi_endpoint_t c = mcapi_endpoint_create(2, &st); /* the same port again */
  CHECK_STATUS(st, MCAPI_SUCCESS);
  if (compat == MCX_COMPAT_MCA203) {
    /* The reference's handles name (node, port): the old one is the new one. */
    CHECK_EQ_U(c, b);
  } else {
    CHECK(c != b);
    mcapi_msg_send(a, b, &v, sizeof v, 1, &st); /* the deleted one */
    CHECK_STATUS(st, MCAPI_ERR_ENDP_INVALID);
    mcapi_msg_recv(b, &v, sizeof v, &n, &st);
    CHECK_STATUS(st, MCAPI_ERR_ENDP_INVALID);
  }
  roundtrip(a, c, 4);
  CHECK_EQ_U(mcapi_msg_available(c, &st), 0);
  /* The sender deleted: its old handle is refused, the receiver unharmed. */
  mcapi_endpoint_delete(a, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_msg_send(a, c, &v, sizeof v, 1, &st);
  CHECK(st != MCAPI_SUCCESS);
  CHECK_EQ_U(mcapi_msg_available(c, &st), 0);
  fini();
}

TEST(endpoint_resized)
{
  init();
  mcapi_status_t st;
  mcapi_endpoint_t a = mcapi_endpoint_create(1, &st);
  mcapi_endpoint_t b = mcapi_endpoint_create(2, &st);
  roundtrip(a, b, 1);
  mcapi_uint_t depth = 4;
  mcapi_endpoint_set_attribute(b, MCAPI_ENDP_ATTR_NUM_RECV_BUFFERS, &depth, sizeof depth, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_boolean_t fail = MCAPI_TRUE;
  mcapi_endpoint_set_attribute(a, MCAPI_ENDP_ATTR_FAIL_ON_MEM_LIMIT, &fail, sizeof fail, &st);
  /* The new depth holds, not the one the cache saw. */
  for (unsigned i = 0; i < 4; i++) {
    mcapi_msg_send(a, b, &i, sizeof i, 1, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
  }
  unsigned v = 99;
  mcapi_msg_send(a, b, &v, sizeof v, 1, &st);
  CHECK_STATUS(st, compat == MCX_COMPAT_MCA203 ? MCAPI_ERR_MEM_LIMIT : MCAPI_ERR_MEM_LIMIT);
  for (unsigned i = 0; i < 4; i++) {
    size_t n;
    mcapi_msg_recv(b, &v, sizeof v, &n, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    CHECK_EQ_U(v, i);
  }
  CHECK_EQ_U(mcapi_msg_available(b, &st), 0);
  roundtrip(a, b, 5);
  fini();
}

TEST(channel_closed_and_reconnected)
{
  init();
  mcapi_status_t st;
  mcapi_request_t r;
  size_t n;
  mcapi_endpoint_t a = mcapi_endpoint_create(1, &st);
  mcapi_endpoint_t b = mcapi_endpoint_create(2, &st);
  for (unsigned round = 0; round < 3; round++) {
    mcapi_sclchan_send_hndl_t sh;
    mcapi_sclchan_recv_hndl_t rh;
    mcapi_sclchan_connect_i(a, b, &r, &st);
    mcapi_wait(&r, &n, MCX_TEST_WAIT_MS, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    mcapi_sclchan_send_open_i(&sh, a, &r, &st);
    mcapi_request_t r2;
    mcapi_sclchan_recv_open_i(&rh, b, &r2, &st);
    mcapi_wait(&r, &n, MCX_TEST_WAIT_MS, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    mcapi_wait(&r2, &n, MCX_TEST_WAIT_MS, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    for (uint64_t i = 0; i < 100; i++) {
      mcapi_sclchan_send_uint64(sh, i + round * 1000, &st);
      CHECK_STATUS(st, MCAPI_SUCCESS);
      CHECK_EQ_U(mcapi_sclchan_recv_uint64(rh, &st), i + round * 1000);
      CHECK_STATUS(st, MCAPI_SUCCESS);
    }
    /* The wrong width is refused and leaves the item (spec profile). */
    mcapi_sclchan_send_uint32(sh, 7, &st);
    if (compat != MCX_COMPAT_MCA203) {
      mcapi_sclchan_recv_uint64(rh, &st);
      CHECK_STATUS(st, MCAPI_ERR_SCL_SIZE);
    }
    CHECK_EQ_U(mcapi_sclchan_recv_uint32(rh, &st), 7);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    mcapi_sclchan_send_close_i(sh, &r, &st);
    mcapi_sclchan_recv_close_i(rh, &r2, &st);
    mcapi_wait(&r, &n, MCX_TEST_WAIT_MS, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    mcapi_wait(&r2, &n, MCX_TEST_WAIT_MS, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    /* The closed handles are refused (never a send into the next connection). */
    mcapi_sclchan_send_uint64(sh, 1, &st);
    CHECK(st != MCAPI_SUCCESS);
    mcapi_sclchan_recv_uint64(rh, &st);
    CHECK(st != MCAPI_SUCCESS);
  }
  fini();
}

/* Endpoints the cache holds as message endpoints are then connected to
 * channels: the next message calls are refused (their entries' state_chan
 * compare fails, the full path reports CHAN_CONNECTED), nothing is queued,
 * and the channels carry their own traffic unharmed. */
TEST(endpoint_connected_after_messages)
{
  init();
  mcapi_status_t st;
  mcapi_endpoint_t ep[5];
  create_eps(ep, 5);
  mcapi_endpoint_t a = ep[0], b = ep[1], c = ep[2], d = ep[3], e = ep[4];
  roundtrip(a, b, 1); /* a (source), b (destination and receiver) cached */
  roundtrip(a, e, 2);
  /* b becomes a packet channel's receive end. */
  uint32_t ps, pr;
  mcx_test_open_chan(c, b, 1, &ps, &pr);
  unsigned v = 3, got = 0;
  size_t n;
  mcapi_msg_send(a, b, &v, sizeof v, 1, &st);
  CHECK_STATUS(st, MCAPI_ERR_CHAN_CONNECTED);
  mcapi_msg_recv(b, &got, sizeof got, &n, &st);
  CHECK(st != MCAPI_SUCCESS);
  CHECK_EQ_U(mcapi_pktchan_available(pr, &st), 0);
  /* a becomes a scalar channel's send end. */
  uint32_t ss, sr;
  mcx_test_open_chan(a, d, 0, &ss, &sr);
  mcapi_msg_send(a, e, &v, sizeof v, 1, &st);
  CHECK_STATUS(st, MCAPI_ERR_CHAN_CONNECTED);
  CHECK_EQ_U(mcapi_msg_available(e, &st), 0);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  /* The channels work. */
  mcapi_pktchan_send(ps, "pk", 3, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  void *p = NULL;
  mcapi_pktchan_recv(pr, &p, &n, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(n == 3 && p && memcmp(p, "pk", 3) == 0);
  mcapi_pktchan_release(p, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_sclchan_send_uint64(ss, 42, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK_EQ_U(mcapi_sclchan_recv_uint64(sr, &st), 42);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  fini();
}

/* A receive request posted before a blocking receive on an endpoint the
 * cache holds takes the first message: the blocking receive gets the next
 * (its fast path looks in the empty table while requests are queued). */
TEST(queued_request_before_cached_receive)
{
  init();
  mcapi_status_t st;
  mcapi_endpoint_t ep[2];
  create_eps(ep, 2);
  roundtrip(ep[0], ep[1], 1); /* both cached */
  roundtrip(ep[0], ep[1], 2);
  for (unsigned round = 0; round < 3; round++) {
    unsigned first = 10 + round * 2, second = first + 1, by_req = 0, by_recv = 0;
    mcapi_request_t r;
    size_t n;
    mcapi_msg_recv_i(ep[1], &by_req, sizeof by_req, &r, &st);
    CHECK(st == MCAPI_PENDING || st == MCAPI_SUCCESS);
    mcapi_msg_send(ep[0], ep[1], &first, sizeof first, 1, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    mcapi_msg_send(ep[0], ep[1], &second, sizeof second, 1, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    mcapi_msg_recv(ep[1], &by_recv, sizeof by_recv, &n, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    CHECK_EQ_U(by_recv, second);
    CHECK(mcapi_wait(&r, &n, MCX_TEST_WAIT_MS, &st));
    CHECK_STATUS(st, MCAPI_SUCCESS);
    CHECK_EQ_U(by_req, first);
  }
  roundtrip(ep[0], ep[1], 3); /* and the cache serves it again */
  fini();
}

/* A priority out of range gets its error on every call: before the
 * endpoints' entries are filled, once they are (the destination's with no
 * priority's ring resolved, then with one), and nothing is queued. */
TEST(priority_out_of_range_when_cached)
{
  init();
  mcapi_status_t st;
  mcapi_endpoint_t ep[3];
  create_eps(ep, 3);
  const mcapi_priority_t bad[] = {MCAPI_MAX_PRIORITY + 1, 1000, 0x7fffffffu, 0xfffffffeu,
                                  0xffffffffu};
  unsigned v = 7, got = 0;
  size_t n;
  /* The first send to ep[2] takes the full path, which fills its entry with
   * no priority's ring resolved; no receive resolves one. */
  mcapi_msg_send(ep[0], ep[2], &v, sizeof v, 1, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  for (unsigned round = 0; round < 3; round++) {
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
      st = MCAPI_SUCCESS;
      mcapi_msg_send(ep[0], ep[1], &v, sizeof v, bad[i], &st);
      CHECK_STATUS(st, MCAPI_ERR_PRIORITY);
      st = MCAPI_SUCCESS;
      mcapi_msg_send(ep[0], ep[2], &v, sizeof v, bad[i], &st);
      CHECK_STATUS(st, MCAPI_ERR_PRIORITY);
    }
    CHECK_EQ_U(mcapi_msg_available(ep[1], &st), 0);
    CHECK_EQ_U(mcapi_msg_available(ep[2], &st), 1);
    if (round == 0)
      roundtrip(ep[0], ep[1], 1); /* ep[1]'s entry: priority 1's ring */
  }
  roundtrip(ep[0], ep[1], 2);
  mcapi_msg_recv(ep[2], &got, sizeof got, &n, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK_EQ_U(got, v);
  CHECK_EQ_U(mcapi_msg_available(ep[2], &st), 0);
  fini();
}

/* Every size a slot holds inline (0..48 bytes), as a message and as a
 * packet: the bytes arrive exactly, and a receive writes nothing past the
 * size (the inline copies move fixed-size pieces that may overlap). */
TEST(every_inline_size_exact)
{
  init();
  mcapi_status_t st;
  mcapi_endpoint_t ep[4];
  create_eps(ep, 4);
  uint32_t ps, pr;
  mcx_test_open_chan(ep[2], ep[3], 1, &ps, &pr);
  for (unsigned n = 0; n <= 48; n++) {
    unsigned char src[64], dst[64];
    for (unsigned i = 0; i < sizeof src; i++)
      src[i] = (unsigned char)(n * 31 + i * 7 + 1);
    memset(dst, 0xee, sizeof dst);
    size_t got = 999;
    mcapi_msg_send(ep[0], ep[1], src, n, 1, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    mcapi_msg_recv(ep[1], dst, sizeof dst, &got, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    CHECK_EQ_U(got, n);
    CHECK(memcmp(dst, src, n) == 0);
    unsigned past = 0;
    for (unsigned i = n; i < sizeof dst; i++)
      past += dst[i] != 0xee;
    CHECK_EQ_U(past, 0);
    mcapi_pktchan_send(ps, src, n, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    void *p = NULL;
    mcapi_pktchan_recv(pr, &p, &got, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    CHECK_EQ_U(got, n);
    CHECK(p && memcmp(p, src, n) == 0);
    mcapi_pktchan_release(p, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
  }
  fini();
}

/* Three other nodes own MAX_EP endpoints each; this node sends to all of them
 * (more handles than the cache has entries, so entries are evicted and
 * refilled), then they receive and check. */
#define MAX_EP 32
static pthread_barrier_t bar;
#define FAR 3
static mcapi_endpoint_t far_ep[FAR][MAX_EP];
static unsigned far_n[FAR], far_bad[FAR];

static void *far_node(void *arg)
{
  unsigned k = (unsigned)(uintptr_t)arg;
  mcapi_param_t p;
  mcx_param_init(&p);
  p.compat = compat;
  mcapi_info_t info;
  mcapi_status_t st;
  mcapi_initialize(dom, 2 + k, NULL, &p, &info, &st);
  for (unsigned i = 0; st == MCAPI_SUCCESS && i < MAX_EP; i++) {
    far_ep[k][i] = mcapi_endpoint_create(100 + i, &st);
    if (st == MCAPI_SUCCESS)
      far_n[k] = i + 1;
  }
  pthread_barrier_wait(&bar); /* created */
  pthread_barrier_wait(&bar); /* sent */
  for (unsigned i = 0; i < far_n[k]; i++)
    for (unsigned round = 0; round < 3; round++) {
      unsigned v = ~0u;
      size_t n;
      mcapi_msg_recv(far_ep[k][i], &v, sizeof v, &n, &st);
      far_bad[k] += st != MCAPI_SUCCESS || v != (k * MAX_EP + i) * 10 + round;
    }
  mcapi_finalize(&st);
  return NULL;
}

TEST(more_endpoints_than_cache_entries)
{
  init();
  mcapi_status_t st;
  mcapi_endpoint_t a = mcapi_endpoint_create(1, &st);
  pthread_t th[FAR];
  pthread_barrier_init(&bar, NULL, FAR + 1);
  for (unsigned k = 0; k < FAR; k++)
    pthread_create(&th[k], NULL, far_node, (void *)(uintptr_t)k);
  pthread_barrier_wait(&bar);
  printf("  endpoints of the other nodes: %u %u %u\n", far_n[0], far_n[1], far_n[2]);
  CHECK(far_n[0] + far_n[1] + far_n[2] > 64);
  for (unsigned round = 0; round < 3; round++)
    for (unsigned k = 0; k < FAR; k++)
      for (unsigned i = 0; i < far_n[k]; i++) {
        unsigned v = (k * MAX_EP + i) * 10 + round;
        mcapi_msg_send(a, far_ep[k][i], &v, sizeof v, 1, &st);
        CHECK_STATUS(st, MCAPI_SUCCESS);
      }
  pthread_barrier_wait(&bar);
  for (unsigned k = 0; k < FAR; k++) {
    pthread_join(th[k], NULL);
    CHECK_EQ_U(far_bad[k], 0);
    far_n[k] = far_bad[k] = 0;
  }
  pthread_barrier_destroy(&bar);
  fini();
}

/* A receiver thread (its own node) re-sizes its endpoint between
 * receives while another node sends: the receiver's cached ring (the old
 * depth) must not serve the next receives, and every message arrives once,
 * in order. */
#define RESIZE_N 300
static pthread_barrier_t rs_bar;
static mcapi_endpoint_t rs_b;
static int rs_fail;

static void *resize_receiver(void *arg)
{
  (void)arg;
  mcapi_status_t st;
  rs_fail |= start_node(2) != MCAPI_SUCCESS;
  rs_b = mcapi_endpoint_create(2, &st);
  mcapi_uint_t depth = 4;
  mcapi_endpoint_set_attribute(rs_b, MCAPI_ENDP_ATTR_NUM_RECV_BUFFERS, &depth, sizeof depth, &st);
  rs_fail |= st != MCAPI_SUCCESS;
  pthread_barrier_wait(&rs_bar); /* ready */
  unsigned v;
  size_t n;
  for (unsigned i = 0; i < 3; i++) { /* the cache holds the depth-4 ring */
    mcapi_msg_recv(rs_b, &v, sizeof v, &n, &st);
    rs_fail |= st != MCAPI_SUCCESS || v != i;
  }
  depth = 64;
  mcapi_endpoint_set_attribute(rs_b, MCAPI_ENDP_ATTR_NUM_RECV_BUFFERS, &depth, sizeof depth, &st);
  rs_fail |= st != MCAPI_SUCCESS;
  pthread_barrier_wait(&rs_bar); /* re-sized */
  pthread_barrier_wait(&rs_bar); /* eight queued at the new depth */
  for (unsigned i = 0; i < RESIZE_N; i++) {
    mcapi_msg_recv(rs_b, &v, sizeof v, &n, &st);
    if (st != MCAPI_SUCCESS || v != i) {
      rs_fail = 1;
      break;
    }
  }
  mcapi_finalize(&st);
  return NULL;
}

TEST(endpoint_resized_by_its_receiver_thread)
{
  init();
  mcapi_status_t st;
  mcapi_endpoint_t a = mcapi_endpoint_create(1, &st);
  /* A full queue waits (the mca-2.0.3 profile's default is to fail). */
  mcapi_boolean_t fail = MCAPI_FALSE;
  mcapi_endpoint_set_attribute(a, MCAPI_ENDP_ATTR_FAIL_ON_MEM_LIMIT, &fail, sizeof fail, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  rs_fail = 0;
  pthread_barrier_init(&rs_bar, NULL, 2);
  pthread_t t;
  pthread_create(&t, NULL, resize_receiver, NULL);
  pthread_barrier_wait(&rs_bar);
  for (unsigned i = 0; i < 3; i++) {
    mcapi_msg_send(a, rs_b, &i, sizeof i, 1, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
  }
  pthread_barrier_wait(&rs_bar);
  for (unsigned i = 0; i < 8; i++) {
    mcapi_msg_send(a, rs_b, &i, sizeof i, 1, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
  }
  pthread_barrier_wait(&rs_bar);
  for (unsigned i = 8; i < RESIZE_N; i++) {
    mcapi_msg_send(a, rs_b, &i, sizeof i, 1, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
  }
  pthread_join(t, NULL);
  pthread_barrier_destroy(&rs_bar);
  CHECK(!rs_fail);
  fini();
}


/*
 * A blocking receive on a cached endpoint or channel whose ring is empty
 * first spins on the next slot (the slow paths' spin: msg.c for messages,
 * mcx__chan_poll_next for channels), then continues the same wait. With
 * a TIMEOUT of 0 it reports MCAPI_TIMEOUT at once; with a short one it
 * reports MCAPI_TIMEOUT after the spin and the full wait; and the entries
 * still serve the next calls. Messages, scalars and packets.
 */
static void set_timeout(mcapi_endpoint_t e, mcapi_uint32_t ms)
{
  mcapi_status_t st;
  mcapi_endpoint_set_attribute(e, MCAPI_ENDP_ATTR_TIMEOUT, &ms, sizeof ms, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
}

TEST(cached_receive_times_out_after_its_spin)
{
  init();
  mcapi_status_t st;
  mcapi_endpoint_t ep[6];
  create_eps(ep, 6);
  uint32_t ss, sr, ps, pr;
  mcx_test_open_chan(ep[2], ep[3], 0, &ss, &sr);
  mcx_test_open_chan(ep[4], ep[5], 1, &ps, &pr);
  static const mcapi_uint32_t timeouts[] = {0, 20, 0};
  for (unsigned k = 0; k < sizeof timeouts / sizeof timeouts[0]; k++) {
    set_timeout(ep[1], timeouts[k]);
    set_timeout(ep[3], timeouts[k]);
    set_timeout(ep[5], timeouts[k]);
    /* Entries filled (twice: the first call of a round may refill). */
    for (unsigned i = 0; i < 2; i++)
      one_of_each(ep[0], ep[1], ss, sr, ps, pr, k * 10 + i);
    /* Empty: each blocking receive times out, and takes nothing. */
    unsigned v = 7;
    size_t n = 99;
    mcapi_msg_recv(ep[1], &v, sizeof v, &n, &st);
    CHECK_STATUS(st, MCAPI_TIMEOUT);
    CHECK_EQ_U(v, 7);
    (void)mcapi_sclchan_recv_uint64(sr, &st);
    CHECK_STATUS(st, MCAPI_TIMEOUT);
    void *p = NULL;
    mcapi_pktchan_recv(pr, &p, &n, &st);
    CHECK_STATUS(st, MCAPI_TIMEOUT);
    CHECK(p == NULL);
    /* And the next calls are served as before. */
    roundtrip(ep[0], ep[1], 100 + k);
    mcapi_sclchan_send_uint64(ss, 100 + k, &st);
    CHECK_EQ_U(mcapi_sclchan_recv_uint64(sr, &st), 100 + k);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    mcapi_pktchan_send(ps, "again", 6, &st);
    mcapi_pktchan_recv(pr, &p, &n, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    CHECK(n == 6 && p && !strcmp(p, "again"));
    mcapi_pktchan_release(p, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
  }
  fini();
}

/*
 * A receiver blocked on a cached endpoint or channel gets what another node
 * sends while it waits: within its spin (the wait policy's spin phase made
 * long, the sender's pause short), and past it (no spin phase: the full
 * wait), on an endpoint with one ring in use (the fast receive's spin) and
 * on one with two (the middle tier's spin). Every item arrives once, and a
 * higher priority queued during the wait comes first. Messages, scalars
 * and packets, one of each per round.
 */
#define SPIN_N 1000
static pthread_barrier_t sp_bar;
static mcapi_endpoint_t sp_b, sp_b2, sp_rs, sp_rp, sp_ts, sp_tp;
static uint32_t sp_ss, sp_ps;
static volatile int sp_fail;

static void *spin_sender(void *arg)
{
  (void)arg;
  mcapi_status_t st;
  mcapi_request_t r;
  size_t n;
  sp_fail |= start_node(2) != MCAPI_SUCCESS;
  mcapi_endpoint_t a = mcapi_endpoint_create(7, &st);
  sp_ts = mcapi_endpoint_create(8, &st);
  sp_tp = mcapi_endpoint_create(9, &st);
  sp_fail |= st != MCAPI_SUCCESS;
  pthread_barrier_wait(&sp_bar); /* ready: the receiver connects */
  pthread_barrier_wait(&sp_bar); /* connected */
  mcapi_sclchan_send_open_i(&sp_ss, sp_ts, &r, &st);
  mcapi_wait(&r, &n, MCX_TEST_WAIT_MS, &st);
  sp_fail |= st != MCAPI_SUCCESS;
  mcapi_pktchan_send_open_i(&sp_ps, sp_tp, &r, &st);
  mcapi_wait(&r, &n, MCX_TEST_WAIT_MS, &st);
  sp_fail |= st != MCAPI_SUCCESS;
  pthread_barrier_wait(&sp_bar); /* open */
  for (unsigned i = 0; i < SPIN_N; i++) {
    pthread_barrier_wait(&sp_bar); /* the receiver is about to block */
    if (i % 3 == 1)
      usleep(300);
    else if (i % 3 == 2)
      for (volatile unsigned k = 0; k < 3000; k++)
        ;
    /* One message at priority 1 to sp_b (one ring in use: the fast
     * receive's spin); every second round to sp_b2, a message at priority
     * 0 first, then one at 1, both while the receiver waits there (two
     * rings in use: the middle tier's spin). */
    mcapi_msg_send(a, sp_b, &i, sizeof i, 1, &st);
    sp_fail |= st != MCAPI_SUCCESS;
    if (i % 2 == 1) {
      unsigned hi = 1000 + i;
      mcapi_msg_send(a, sp_b2, &hi, sizeof hi, 0, &st);
      sp_fail |= st != MCAPI_SUCCESS;
      mcapi_msg_send(a, sp_b2, &i, sizeof i, 1, &st);
      sp_fail |= st != MCAPI_SUCCESS;
    }
    mcapi_sclchan_send_uint64(sp_ss, 5000 + i, &st);
    sp_fail |= st != MCAPI_SUCCESS;
    unsigned pk = 9000 + i;
    mcapi_pktchan_send(sp_ps, &pk, sizeof pk, &st);
    sp_fail |= st != MCAPI_SUCCESS;
  }
  pthread_barrier_wait(&sp_bar); /* all taken */
  mcapi_finalize(&st);
  return NULL;
}

TEST(blocked_receive_gets_what_arrives_while_it_spins)
{
  init();
  mcapi_status_t st;
  mcapi_request_t r;
  size_t n;
  sp_b = mcapi_endpoint_create(2, &st);
  sp_b2 = mcapi_endpoint_create(5, &st);
  sp_rs = mcapi_endpoint_create(3, &st);
  sp_rp = mcapi_endpoint_create(4, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  /* A lost item fails the test instead of hanging it. */
  set_timeout(sp_b, 10000);
  set_timeout(sp_b2, 10000);
  set_timeout(sp_rs, 10000);
  set_timeout(sp_rp, 10000);
  sp_fail = 0;
  pthread_barrier_init(&sp_bar, NULL, 2);
  pthread_t t;
  pthread_create(&t, NULL, spin_sender, NULL);
  pthread_barrier_wait(&sp_bar);
  mcapi_sclchan_connect_i(sp_ts, sp_rs, &r, &st);
  mcapi_wait(&r, &n, MCX_TEST_WAIT_MS, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_pktchan_connect_i(sp_tp, sp_rp, &r, &st);
  mcapi_wait(&r, &n, MCX_TEST_WAIT_MS, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  pthread_barrier_wait(&sp_bar);
  uint32_t rs, rp;
  mcapi_sclchan_recv_open_i(&rs, sp_rs, &r, &st);
  mcapi_wait(&r, &n, MCX_TEST_WAIT_MS, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_pktchan_recv_open_i(&rp, sp_rp, &r, &st);
  mcapi_wait(&r, &n, MCX_TEST_WAIT_MS, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  pthread_barrier_wait(&sp_bar);
  unsigned bad = 0;
  for (unsigned i = 0; i < SPIN_N; i++) {
    /* First half: a spin phase longer than any pause of the sender's;
     * second half: none. */
    if (i == 0)
      mcx_set_wait_policy(1000000, 200);
    else if (i == SPIN_N / 2)
      mcx_set_wait_policy(0, 0);
    pthread_barrier_wait(&sp_bar);
    unsigned v = ~0u;
    n = 0;
    mcapi_msg_recv(sp_b, &v, sizeof v, &n, &st);
    bad += st != MCAPI_SUCCESS || n != sizeof v || v != i;
    if (i % 2 == 1) { /* the priority-0 one first, though sent in the same wait */
      mcapi_msg_recv(sp_b2, &v, sizeof v, &n, &st);
      bad += st != MCAPI_SUCCESS || n != sizeof v || v != 1000 + i;
      mcapi_msg_recv(sp_b2, &v, sizeof v, &n, &st);
      bad += st != MCAPI_SUCCESS || n != sizeof v || v != i;
    }
    uint64_t x = mcapi_sclchan_recv_uint64(rs, &st);
    bad += st != MCAPI_SUCCESS || x != 5000 + i;
    void *p = NULL;
    n = 0;
    mcapi_pktchan_recv(rp, &p, &n, &st);
    unsigned pk = ~0u;
    if (st == MCAPI_SUCCESS && p && n == sizeof pk)
      memcpy(&pk, p, sizeof pk);
    bad += st != MCAPI_SUCCESS || pk != 9000 + i;
    if (st == MCAPI_SUCCESS)
      mcapi_pktchan_release(p, &st);
    bad += st != MCAPI_SUCCESS;
  }
  mcx_set_wait_policy(128, 200); /* the defaults (wait.c) */
  pthread_barrier_wait(&sp_bar);
  pthread_join(t, NULL);
  pthread_barrier_destroy(&sp_bar);
  CHECK_EQ_U(bad, 0);
  CHECK(!sp_fail);
  CHECK_EQ_U(mcapi_msg_available(sp_b, &st), 0);
  CHECK_EQ_U(mcapi_msg_available(sp_b2, &st), 0);
  CHECK_EQ_U(mcapi_sclchan_available(rs, &st), 0);
  CHECK_EQ_U(mcapi_pktchan_available(rp, &st), 0);
  fini();
}

/*
 * A thread that is no node takes no fast path: before its node, after
 * finalize, and in a fork child (a copy of its parent's node, caches
 * included), every data call with any handle reports NODE_NOTINIT from the
 * full path and moves nothing. The fast paths do not test for a node: the
 * caches of such a thread are empty tables no handle hits, so this checks
 * that they are in place at each of those points. Forged handles on a node
 * (the empty entries' own value among them) get an error, not a crash.
 */
static const uint32_t forged[] = {0u, 1u, 0xffffffffu, 0x12345678u, 0xa0000001u};

/* The six fast data calls: how many did not report NODE_NOTINIT. */
static unsigned calls_not_notinit(uint32_t a, uint32_t b, uint32_t ss, uint32_t sr, uint32_t ps,
                                  uint32_t pr)
{
  mcapi_status_t st;
  unsigned bad = 0;
  char buf[8];
  size_t n;
  void *p;
  mcapi_msg_send(a, b, "x", 2, 1, &st);
  bad += st != MCAPI_ERR_NODE_NOTINIT;
  mcapi_msg_recv(b, buf, sizeof buf, &n, &st);
  bad += st != MCAPI_ERR_NODE_NOTINIT;
  mcapi_sclchan_send_uint64(ss, 7, &st);
  bad += st != MCAPI_ERR_NODE_NOTINIT;
  (void)mcapi_sclchan_recv_uint64(sr, &st);
  bad += st != MCAPI_ERR_NODE_NOTINIT;
  mcapi_pktchan_send(ps, "x", 2, &st);
  bad += st != MCAPI_ERR_NODE_NOTINIT;
  mcapi_pktchan_recv(pr, &p, &n, &st);
  bad += st != MCAPI_ERR_NODE_NOTINIT;
  return bad;
}

TEST(no_node_takes_no_fast_path)
{
  for (size_t i = 0; i < sizeof forged / sizeof forged[0]; i++) {
    uint32_t h = forged[i];
    CHECK_EQ_U(calls_not_notinit(h, h, h, h, h, h), 0);
  }
  init();
  mcapi_status_t st;
  mcapi_endpoint_t ep[6];
  create_eps(ep, 6);
  mcapi_endpoint_t a = ep[0], b = ep[1], c = ep[2], d = ep[3], e = ep[4], f = ep[5];
  uint32_t ss, sr, ps, pr;
  mcx_test_open_chan(c, d, 0, &ss, &sr);
  mcx_test_open_chan(e, f, 1, &ps, &pr);
  /* Every entry filled: a call of each kind, twice. */
  for (unsigned k = 0; k < 2; k++)
    one_of_each(a, b, ss, sr, ps, pr, k);
  /* Forged handles on a node: refused, nothing moves (0 and 1 name this
   * node's first endpoints in the mca-2.0.3 profile's encoding). */
  for (size_t i = compat == MCX_COMPAT_MCA203 ? 2 : 0; i < sizeof forged / sizeof forged[0]; i++) {
    uint32_t h = forged[i];
    char buf[8];
    size_t n;
    void *p;
    mcapi_msg_send(h, b, "x", 2, 1, &st);
    CHECK(st != MCAPI_SUCCESS);
    mcapi_msg_send(a, h, "x", 2, 1, &st);
    CHECK(st != MCAPI_SUCCESS);
    mcapi_msg_recv(h, buf, sizeof buf, &n, &st);
    CHECK(st != MCAPI_SUCCESS);
    mcapi_sclchan_send_uint64(h, 1, &st);
    CHECK(st != MCAPI_SUCCESS);
    (void)mcapi_sclchan_recv_uint64(h, &st);
    CHECK(st != MCAPI_SUCCESS);
    mcapi_pktchan_send(h, "x", 2, &st);
    CHECK(st != MCAPI_SUCCESS);
    mcapi_pktchan_recv(h, &p, &n, &st);
    CHECK(st != MCAPI_SUCCESS);
  }
#ifndef _WIN32
  /* The fork child has its parent's filled caches in its copy: none hits. */
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0)
    _exit((int)calls_not_notinit(a, b, ss, sr, ps, pr));
  int ws = 0;
  CHECK(waitpid(pid, &ws, 0) == pid);
  CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
#endif
  /* Nothing arrived from the child. */
  CHECK_EQ_U(mcapi_msg_available(b, &st), 0);
  CHECK_EQ_U(mcapi_sclchan_available(sr, &st), 0);
  CHECK_EQ_U(mcapi_pktchan_available(pr, &st), 0);
  roundtrip(a, b, 9); /* and the parent's own entries still serve it */
  fini();
  CHECK_EQ_U(calls_not_notinit(a, b, ss, sr, ps, pr), 0);
}

int main(void)
{
  for (unsigned m = 0; m < 2; m++) {
    compat = m ? MCX_COMPAT_MCA203 : MCX_COMPAT_SPEC;
    dom = 80 + m;
    printf("-- profile %s\n", m ? "mca-2.0.3" : "spec");
    RUN(endpoint_deleted_and_recreated);
    RUN(endpoint_resized);
    RUN(endpoint_resized_by_its_receiver_thread);
    RUN(channel_closed_and_reconnected);
    RUN(endpoint_connected_after_messages);
    RUN(every_inline_size_exact);
    RUN(queued_request_before_cached_receive);
    RUN(priority_out_of_range_when_cached);
    RUN(more_endpoints_than_cache_entries);
    RUN(cached_receive_times_out_after_its_spin);
    RUN(blocked_receive_gets_what_arrives_while_it_spins);
    RUN(no_node_takes_no_fast_path);
  }
  return mcx_test_report();
}
