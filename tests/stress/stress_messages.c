/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stress: N sender threads to one receiver through a tiny queue (indices wrap
 * constantly), in both locking modes. Payloads carry {sender, sequence,
 * priority, fill pattern, checksum} and vary in size (inline and big-buffer
 * slots). The receiver checks per-sender FIFO order within each priority, no
 * loss, no duplicate, no torn payload; the final tally must match exactly.
 * A second phase mixes blocking and non-blocking calls (send_i / recv_i /
 * wait_any). Bounded by MCX_STRESS_SECONDS (default 3 per phase).
 */
#include <stdatomic.h>
#include <unistd.h>

#include "mcapi.h"
#include "mcx.h"
#include "mcx_test.h"

#define SENDERS 3
#define RECV_PORT 100
#define MAX_PAYLOAD 200

typedef struct msg {
  uint32_t sender;
  uint32_t prio;
  uint64_t seq;
  uint32_t len; /* total bytes */
  uint32_t sum; /* checksum of the fill */
  uint8_t fill[MAX_PAYLOAD - 24];
} msg_t;

struct ctx {
  mcapi_domain_t dom;
  mcx_locking_t lk;
  double seconds;
  int nonblocking;
  atomic_int stop;
  atomic_ullong sent[SENDERS];
  atomic_int senders_done;
};

static uint32_t checksum(const uint8_t *p, size_t n)
{
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++)
    h = (h ^ p[i]) * 16777619u;
  return h;
}

static void init_node(struct ctx *c, mcapi_node_t node)
{
  mcapi_param_t p;
  mcapi_info_t info;
  mcapi_status_t st;
  mcx_param_init(&p);
  p.locking = c->lk;
  p.queue_elements = 4;
  mcapi_initialize(c->dom, node, NULL, &p, &info, &st);
  if (st != MCAPI_SUCCESS) {
    fprintf(stderr, "initialize failed: %u\n", st);
    exit(2);
  }
}

struct sender_arg {
  struct ctx *c;
  uint32_t id;
};

static void *sender(void *arg)
{
  struct sender_arg *a = arg;
  struct ctx *c = a->c;
  mcapi_status_t st;
  init_node(c, 10 + a->id);
  mcapi_endpoint_t me = mcapi_endpoint_create(1, &st);
  mcapi_endpoint_t to = mcapi_endpoint_get(c->dom, 1, RECV_PORT, MCAPI_TIMEOUT_INFINITE, &st);
  uint64_t seq[MCAPI_MAX_PRIORITY + 1] = {0};
  uint32_t rnd = a->id * 2654435761u + 1;
  msg_t m;
  double end = mcx_test_now() + c->seconds;
  uint64_t n = 0;
  while (mcx_test_now() < end) {
    for (int k = 0; k < 64; k++) {
      rnd = rnd * 1103515245u + 12345u;
      uint32_t prio = (rnd >> 8) % 3; /* priorities 0..2 */
      uint32_t len = 24 + (rnd >> 16) % (sizeof m.fill);
      m.sender = a->id;
      m.prio = prio;
      m.seq = seq[prio]++;
      m.len = len;
      for (uint32_t i = 0; i < len - 24; i++)
        m.fill[i] = (uint8_t)(m.seq * 31 + i + a->id);
      m.sum = checksum(m.fill, len - 24);
      if (c->nonblocking && (rnd & 1)) {
        mcapi_request_t r;
        size_t sz;
        mcapi_msg_send_i(me, to, &m, len, prio, &r, &st);
        if (st == MCAPI_PENDING || st == MCAPI_SUCCESS) /* SUCCESS: completed at once, the request reports it */
          mcapi_wait(&r, &sz, MCAPI_TIMEOUT_INFINITE, &st);
      } else {
        mcapi_msg_send(me, to, &m, len, prio, &st);
      }
      if (st != MCAPI_SUCCESS) {
        fprintf(stderr, "sender %u: send failed with %u\n", a->id, st);
        exit(3);
      }
      n++;
    }
  }
  atomic_store(&c->sent[a->id], n);
  atomic_fetch_add(&c->senders_done, 1);
  /* Stay a node until the receiver is done (finalize would delete our endpoint). */
  while (!atomic_load(&c->stop))
    usleep(1000);
  mcapi_finalize(&st);
  return NULL;
}

static int check_msg(const msg_t *m, size_t n, uint64_t expect[SENDERS][MCAPI_MAX_PRIORITY + 1])
{
  if (n < 24 || n != m->len || m->sender >= SENDERS || m->prio > 2) {
    fprintf(stderr, "bad header: size %zu len %u sender %u prio %u\n", n, m->len, m->sender,
            m->prio);
    return 0;
  }
  if (m->seq != expect[m->sender][m->prio]) {
    fprintf(stderr, "sender %u prio %u: got seq %llu, expected %llu (%s)\n", m->sender, m->prio,
            (unsigned long long)m->seq, (unsigned long long)expect[m->sender][m->prio],
            m->seq < expect[m->sender][m->prio] ? "duplicate/reorder" : "loss");
    return 0;
  }
  for (uint32_t i = 0; i < m->len - 24; i++)
    if (m->fill[i] != (uint8_t)(m->seq * 31 + i + m->sender)) {
      fprintf(stderr, "torn payload at byte %u\n", i);
      return 0;
    }
  if (checksum(m->fill, m->len - 24) != m->sum) {
    fprintf(stderr, "checksum mismatch\n");
    return 0;
  }
  expect[m->sender][m->prio]++;
  return 1;
}

static void run(struct ctx *c)
{
  mcapi_status_t st;
  init_node(c, 1);
  mcapi_endpoint_t me = mcapi_endpoint_create(RECV_PORT, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  pthread_t t[SENDERS];
  struct sender_arg args[SENDERS];
  for (uint32_t i = 0; i < SENDERS; i++) {
    args[i] = (struct sender_arg){c, i};
    atomic_store(&c->sent[i], 0);
    pthread_create(&t[i], NULL, sender, &args[i]);
  }
  static uint64_t expect[SENDERS][MCAPI_MAX_PRIORITY + 1];
  memset(expect, 0, sizeof expect);
  uint64_t received = 0, total = 0, prio_inversions_possible = 0;
  int ok = 1;
  msg_t m;
  for (;;) {
    size_t n = 0;
    if (c->nonblocking && (received & 1)) {
      mcapi_request_t r;
      mcapi_request_t *rs[1] = {&r};
      mcapi_msg_recv_i(me, &m, sizeof m, &r, &st);
      mcapi_wait_any(1, rs, &n, 50, &st);
      if (st == MCAPI_TIMEOUT) {
        mcapi_cancel(&r, &st);
        size_t dummy;
        mcapi_test(&r, &dummy, &st);
        if (st == MCAPI_SUCCESS) { /* completed just before the cancel */
          ok &= check_msg(&m, dummy, expect);
          received++;
        }
        st = MCAPI_TIMEOUT;
      }
    } else {
      mcapi_timeout_t to = 50;
      mcapi_endpoint_set_attribute(me, MCAPI_ENDP_ATTR_TIMEOUT, &to, sizeof to, &st);
      mcapi_msg_recv(me, &m, sizeof m, &n, &st);
    }
    if (st == MCAPI_SUCCESS) {
      ok &= check_msg(&m, n, expect);
      received++;
      if (!ok)
        break;
      continue;
    }
    CHECK(st == MCAPI_TIMEOUT);
    if (st != MCAPI_TIMEOUT)
      break;
    if (atomic_load(&c->senders_done) == SENDERS) {
      total = 0;
      for (int i = 0; i < SENDERS; i++)
        total += atomic_load(&c->sent[i]);
      if (received >= total)
        break;
    }
  }
  CHECK(ok);
  CHECK_EQ_U(received, total);
  CHECK_EQ_U(mcapi_msg_available(me, &st), 0);
  (void)prio_inversions_possible;
  atomic_store(&c->stop, 1);
  for (int i = 0; i < SENDERS; i++)
    pthread_join(t[i], NULL);
  mcapi_finalize(&st);
  printf("   %s, %s: %llu messages from %d senders checked\n",
         c->lk == MCX_LOCKING_GLOBAL ? "global" : c->lk == MCX_LOCKING_KERNEL ? "kernel" : "lock-free",
         c->nonblocking ? "blocking + non-blocking calls" : "blocking calls",
         (unsigned long long)received, SENDERS);
}

static struct ctx ctx;

static void phase(mcapi_domain_t dom, mcx_locking_t lk, int nonblocking)
{
  memset(&ctx, 0, sizeof ctx);
  ctx.dom = dom;
  ctx.lk = lk;
  ctx.nonblocking = nonblocking;
  ctx.seconds = mcx_test_stress_seconds(3.0) / 4;
  run(&ctx);
}

TEST(many_senders_one_receiver_lockfree) { phase(1, MCX_LOCKING_LOCKFREE, 0); }
TEST(many_senders_one_receiver_global) { phase(2, MCX_LOCKING_GLOBAL, 0); }
TEST(nonblocking_mix_lockfree) { phase(3, MCX_LOCKING_LOCKFREE, 1); }
TEST(nonblocking_mix_global) { phase(4, MCX_LOCKING_GLOBAL, 1); }
TEST(many_senders_one_receiver_kernel) { phase(6, MCX_LOCKING_KERNEL, 0); }

/* Priority: with everything queued before the receiver looks, it must see
 * all priority-0 messages before any priority-1 message, and so on. The
 * queue is filled to capacity: NUM_RECV_BUFFERS per priority on shm, in all
 * on pmq (one mq per endpoint; docs/pmq.md), so there the priorities cycle
 * from the lowest up and each gets what fits. */
TEST(priorities_observed_under_load)
{
  mcapi_status_t st;
  mcapi_info_t info;
  mcapi_initialize(5, 1, NULL, NULL, &info, &st);
  mcapi_endpoint_t a = mcapi_endpoint_create(1, &st);
  mcapi_endpoint_t b = mcapi_endpoint_create(2, &st);
  mcapi_uint_t depth = 0;
  mcapi_endpoint_get_attribute(b, MCAPI_ENDP_ATTR_NUM_RECV_BUFFERS, &depth, sizeof depth, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  uint32_t nprio = MCAPI_MAX_PRIORITY + 1, per_prio = depth, used_prios = nprio;
  if (mcx_transport() == MCX_TRANSPORT_PMQ) {
    per_prio = depth / nprio ? depth / nprio : 1;
    used_prios = depth < nprio ? depth : nprio;
  }
  uint32_t total = per_prio * used_prios;
  CHECK(total >= 2);
  for (uint32_t i = 0; i < per_prio; i++)
    for (uint32_t k = 0; k < used_prios; k++) {
      uint32_t p = MCAPI_MAX_PRIORITY - k; /* lowest first, so the order must change */
      uint32_t v[2] = {p, i};
      mcapi_msg_send(a, b, v, sizeof v, p, &st);
      CHECK_STATUS(st, MCAPI_SUCCESS);
    }
  uint32_t last[2] = {0, 0};
  int first = 1;
  for (uint32_t k = 0; k < total; k++) {
    uint32_t v[2];
    size_t n;
    mcapi_msg_recv(b, v, sizeof v, &n, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    if (!first)
      CHECK(v[0] > last[0] || (v[0] == last[0] && v[1] == last[1] + 1));
    first = 0;
    memcpy(last, v, sizeof v);
  }
  mcapi_finalize(&st);
}

int main(void)
{
  RUN(many_senders_one_receiver_lockfree);
  RUN(many_senders_one_receiver_global);
  RUN(many_senders_one_receiver_kernel);
  RUN(nonblocking_mix_lockfree);
  RUN(nonblocking_mix_global);
  RUN(priorities_observed_under_load);
  return mcx_test_report();
}
