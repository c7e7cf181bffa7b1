/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mca demo: two threads, each an MCAPI node, exchange messages. The sender
 * queues a batch at three priorities before the receiver looks; the receiver
 * prints the order it got them in (higher priority first, FIFO within a
 * priority). Then the two play ping-pong with 24-byte messages and the demo
 * prints round-trip times, in both locking modes.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cli.h"
#include "mca_tool.h"
#include "mcapi.h"
#include "mcx.h"

enum { NODE_A = 1, NODE_B = 2, PORT = 5, BATCH = 9, PINGS = 20000 };

struct demo {
  mcapi_domain_t domain;
  mcx_locking_t locking;
  int cpu_a, cpu_b;
  pthread_barrier_t batch_sent;
  /* what happened, for --json */
  char sent[BATCH][32], received[BATCH][32];
  uint64_t rtt_min, rtt_median, rtt_p99;
};

static void die(const char *what, mcapi_status_t st)
{
  char buf[MCAPI_MAX_STATUS_MSG_LEN];
  fprintf(stderr, "mca demo: %s: %s\n", what,
          mcapi_display_status(st, buf, sizeof buf) ? buf : "unknown status");
  exit(1);
}

static void node_up(const struct demo *d, mcapi_node_t node)
{
  mcapi_param_t p;
  mcapi_info_t info;
  mcapi_status_t st;
  mcx_param_init(&p);
  p.locking = d->locking;
  mcapi_initialize(d->domain, node, NULL, &p, &info, &st);
  if (st != MCAPI_SUCCESS)
    die("mcapi_initialize", st);
}

static void *node_b(void *arg)
{
  struct demo *d = arg;
  mcapi_status_t st;
  bench_pin(d->cpu_b);
  node_up(d, NODE_B);
  mcapi_endpoint_t me = mcapi_endpoint_create(PORT, &st);
  mcapi_endpoint_t peer = mcapi_endpoint_get(d->domain, NODE_A, PORT, MCAPI_TIMEOUT_INFINITE, &st);
  /* Batch: queued at three priorities before we look. */
  pthread_barrier_wait(&d->batch_sent);
  printf("  node %d received:", NODE_B);
  for (int i = 0; i < BATCH; i++) {
    char text[32];
    size_t n;
    mcapi_msg_recv(me, text, sizeof text, &n, &st);
    if (st != MCAPI_SUCCESS)
      die("mcapi_msg_recv", st);
    snprintf(d->received[i], sizeof d->received[i], "%.*s", (int)n, text);
    printf(" %s", d->received[i]);
  }
  printf("\n");
  fflush(stdout);
  pthread_barrier_wait(&d->batch_sent); /* batch drained: ping-pong may start */
  /* Ping-pong: echo every message back. */
  char buf[24];
  for (int i = 0; i < PINGS; i++) {
    size_t n;
    mcapi_msg_recv(me, buf, sizeof buf, &n, &st);
    mcapi_msg_send(me, peer, buf, n, 0, &st);
  }
  pthread_barrier_wait(&d->batch_sent); /* A is done with our endpoint */
  mcapi_finalize(&st);
  return NULL;
}

static void run(struct demo *d)
{
  mcapi_status_t st;
  pthread_t t;
  pthread_barrier_init(&d->batch_sent, NULL, 2);
  pthread_create(&t, NULL, node_b, d);
  bench_pin(d->cpu_a);
  node_up(d, NODE_A);
  mcapi_endpoint_t me = mcapi_endpoint_create(PORT, &st);
  mcapi_endpoint_t peer = mcapi_endpoint_get(d->domain, NODE_B, PORT, MCAPI_TIMEOUT_INFINITE, &st);
  printf("%s locking, node %d on cpu %d, node %d on cpu %d\n",
         d->locking == MCX_LOCKING_GLOBAL ? "global" : "lock-free", NODE_A, d->cpu_a, NODE_B,
         d->cpu_b);
  printf("  node %d sent:    ", NODE_A);
  for (int i = 0; i < BATCH; i++) {
    mcapi_priority_t prio = (mcapi_priority_t)(2 - i % 3);
    char text[32];
    int n = snprintf(text, sizeof text, "p%u#%d", prio, i);
    mcapi_msg_send(me, peer, text, (size_t)n, prio, &st);
    if (st != MCAPI_SUCCESS)
      die("mcapi_msg_send", st);
    snprintf(d->sent[i], sizeof d->sent[i], "%s", text);
    printf(" %s", text);
  }
  printf("\n");
  fflush(stdout);
  pthread_barrier_wait(&d->batch_sent);
  pthread_barrier_wait(&d->batch_sent);
  static uint64_t rtt[PINGS];
  char buf[24] = "24-byte ping-pong body.";
  for (int i = 0; i < PINGS; i++) {
    size_t n;
    uint64_t t0 = bench_now_ns();
    mcapi_msg_send(me, peer, buf, sizeof buf, 0, &st);
    mcapi_msg_recv(me, buf, sizeof buf, &n, &st);
    rtt[i] = bench_now_ns() - t0;
    if (st != MCAPI_SUCCESS || n != sizeof buf)
      die("ping-pong", st);
  }
  pthread_barrier_wait(&d->batch_sent);
  pthread_join(t, NULL);
  mcapi_finalize(&st);
  pthread_barrier_destroy(&d->batch_sent);
  qsort(rtt, PINGS, sizeof rtt[0], bench_cmp_u64);
  d->rtt_min = rtt[0];
  d->rtt_median = rtt[PINGS / 2];
  d->rtt_p99 = rtt[PINGS * 99 / 100];
  printf("  %d ping-pongs of 24-byte messages: round trip min %llu ns, median %llu ns, "
         "p99 %llu ns\n",
         PINGS, (unsigned long long)d->rtt_min, (unsigned long long)d->rtt_median,
         (unsigned long long)d->rtt_p99);
  fflush(stdout);
}

static void json_words(FILE *f, const char (*w)[32])
{
  fputc('[', f);
  for (int i = 0; i < BATCH; i++) {
    fputs(i ? ", " : "", f);
    mca_json_str(f, w[i]);
  }
  fputc(']', f);
}

/* --json: the envelope (docs/json.md), then one run per locking mode. */
static int write_json(const char *path, const struct demo *runs, int n)
{
  FILE *f = mca_output_open("demo", path);
  if (!f)
    return -1;
  mca_json_envelope(f, "mca-demo/1");
  fprintf(f, "\"config\": {\"batch\": %d, \"pingpongs\": %d, \"size\": 24},\n\"runs\": [", BATCH, PINGS);
  for (int k = 0; k < n; k++) {
    const struct demo *d = &runs[k];
    fprintf(f, "%s\n  {\"locking\": \"%s\", \"cpus\": [%d, %d], \"sent\": ", k ? "," : "",
            d->locking == MCX_LOCKING_GLOBAL ? "global" : "lockfree", d->cpu_a, d->cpu_b);
    json_words(f, d->sent);
    fputs(", \"received\": ", f);
    json_words(f, d->received);
    fprintf(f, ", \"rtt_ns\": {\"min\": %llu, \"median\": %llu, \"p99\": %llu}}",
            (unsigned long long)d->rtt_min, (unsigned long long)d->rtt_median, (unsigned long long)d->rtt_p99);
  }
  fputs("\n]\n}\n", f);
  return mca_output_close(f);
}

static int usage(void)
{
  printf("usage: mca demo [--json FILE|-]\n\n"
         "Two threads exchange MCAPI messages (priorities, then a ping-pong),\n"
         "once with lock-free queues and once under the global lock.\n\n"
         "  --json FILE  also write what each run sent, received and measured as JSON\n"
         "               (schema mca-demo/1, docs/json.md); '-': the JSON to stdout,\n"
         "               the demo's lines to stderr\n"
         "Exit status: 0 done, 1 a call failed or the JSON could not be written, 2 usage error.\n");
  return MCA_EXIT_OK;
}

int mca_cmd_demo(int argc, char **argv)
{
  static const mca_opt_t table[] = {{"--json", MCA_OPT_VALUE, 'j'}, {NULL, 0, 0}};
  const char *json = NULL;
  mca_opts_t s;
  mca_opts_init(&s, "demo", argc, argv);
  for (int k; (k = mca_opts_next(&s, table)) != MCA_OPTS_END;) {
    if (k == 'j')
      json = s.value;
    else if (k == MCA_OPTS_HELP)
      return usage();
    else if (k == MCA_OPTS_OPERAND)
      return mca_usage_error("demo", "unexpected argument '%s' (the demo takes no operand)", s.value);
    else
      return MCA_EXIT_USAGE;
  }
  if (json && mca_check_output("demo", "--json", json))
    return MCA_EXIT_USAGE;
  if (json && !strcmp(json, "-"))
    mca_json_to_stdout();
  /* The first two CPUs the process may run on (one: both nodes on it). */
  static struct demo runs[2];
  for (int k = 0; k < 2; k++) {
    struct demo *d = &runs[k];
    d->cpu_a = bench_cpu(0);
    d->cpu_b = bench_cpu(bench_ncpus() > 1 ? 1 : 0);
    d->domain = (mcapi_domain_t)(k + 1);
    d->locking = k ? MCX_LOCKING_GLOBAL : MCX_LOCKING_LOCKFREE;
    run(d);
  }
  if (json && write_json(json, runs, 2)) {
    fprintf(stderr, "mca demo: writing %s failed\n", json);
    return MCA_EXIT_FAIL;
  }
  return MCA_EXIT_OK;
}
