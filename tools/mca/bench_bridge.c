/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mca bridge --bench: what crossing a bridge costs. Two domains on this
 * machine, each with its bridge process, joined over ipc:// (or tcp:// on
 * 127.0.0.1); beside them raw nng over the same transport, timed the same
 * way: round trip (req/rep vs message to a remote echo node and back) and
 * throughput (push/pull vs messages to a remote sink, both ending when the
 * receiver's "done" comes back).
 */
#ifdef MCA_HAVE_BRIDGE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <nng/nng.h>
#include <nng/protocol/pair1/pair.h>
#include <nng/protocol/pipeline0/pull.h>
#include <nng/protocol/pipeline0/push.h>
#include <nng/protocol/reqrep0/rep.h>
#include <nng/protocol/reqrep0/req.h>
#include <nng/supplemental/util/platform.h>

#include "cli.h"
#include "mcapi.h"
#include "mcx_bridge.h"

int mca_bridge_bench(int argc, char **argv);
int mca_bridge_load_config(const char *path, mcx_bridge_config_t *c);

enum { K_ECHO = 1, K_SINK = 2, K_DONE = 3 };

static uint64_t now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

typedef struct stats {
  double p10, p50, p90;
} stats_t;

static stats_t summarize(uint64_t *v, size_t n)
{
  qsort(v, n, sizeof *v, cmp_u64);
  stats_t s = {(double)v[n / 10], (double)v[n / 2], (double)v[n * 9 / 10]};
  return s;
}

static void on_term(int sig)
{
  (void)sig;
  mcx_bridge_stop();
}

static pid_t run_bridge(const char *conf)
{
  pid_t p = fork();
  if (p == 0) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_term;
    sigaction(SIGTERM, &sa, NULL);
    mcx_bridge_config_t c;
    if (mca_bridge_load_config(conf, &c))
      _exit(1);
    if (!freopen("/dev/null", "w", stderr))
      _exit(1);
    _exit(mcx_bridge_run(&c) ? 1 : 0);
  }
  return p;
}

static int wait_up(const char *status, unsigned seconds)
{
  for (unsigned i = 0; i < seconds * 20; i++) {
    FILE *f = fopen(status, "r");
    char line[512];
    int up = 0;
    while (f && fgets(line, sizeof line, f))
      up |= strstr(line, " state up ") != NULL;
    if (f)
      fclose(f);
    if (up)
      return 0;
    usleep(50000);
  }
  return -1;
}

/* The remote node of domain 2: echoes K_ECHO to (1, 1, 11), counts K_SINK,
 * answers K_DONE with the count. */
static void echo_node(size_t size)
{
  mcapi_info_t info;
  mcapi_status_t st;
  mcapi_initialize(2, 2, NULL, NULL, &info, &st);
  if (st != MCAPI_SUCCESS)
    _exit(1);
  mcapi_endpoint_t me = mcapi_endpoint_create(10, &st);
  mcapi_endpoint_t back = mcapi_endpoint_get(1, 1, 11, 30000, &st);
  if (st != MCAPI_SUCCESS)
    _exit(1);
  uint8_t *buf = malloc(size < 16 ? 16 : size);
  uint32_t count = 0;
  for (;;) {
    size_t n;
    mcapi_msg_recv(me, buf, size < 16 ? 16 : size, &n, &st);
    if (st != MCAPI_SUCCESS)
      _exit(1);
    uint32_t kind;
    memcpy(&kind, buf, 4);
    if (kind == K_SINK) {
      count++;
      continue;
    }
    if (kind == K_DONE) {
      memcpy(buf + 4, &count, 4);
      count = 0;
    }
    if (kind == 0)
      _exit(0);
    mcapi_msg_send(me, back, buf, n, 1, &st);
  }
}

typedef struct result {
  stats_t rtt;        /* ns */
  stats_t rate;       /* messages/s over rounds */
  int ok;
} result_t;

static stats_t rate_stats(double *r, int n)
{
  uint64_t v[64];
  for (int i = 0; i < n; i++)
    v[i] = (uint64_t)r[i];
  qsort(v, (size_t)n, sizeof *v, cmp_u64);
  stats_t s = {(double)v[0], (double)v[n / 2], (double)v[n - 1]}; /* min, median, max */
  return s;
}

static result_t bench_bridge(const char *dir, const char *kind, size_t size, unsigned rtts, unsigned count,
                             int rounds)
{
  result_t res = {0};
  char conf1[300], conf2[300], status[300], key[300];
  snprintf(key, sizeof key, "%s/key", dir);
  FILE *k = fopen(key, "w");
  if (!k)
    return res;
  fprintf(k, "bench-key-%08x%08x\n", (unsigned)rand(), (unsigned)rand());
  fclose(k);
  chmod(key, 0600);
  char u1[200], u2[200];
  if (!strcmp(kind, "tcp")) {
    unsigned base = 20000 + (unsigned)(getpid() % 20000);
    snprintf(u1, sizeof u1, "tcp://127.0.0.1:%u", base);
    snprintf(u2, sizeof u2, "tcp://127.0.0.1:%u", base + 1);
  } else {
    snprintf(u1, sizeof u1, "ipc://%s/d1.sock", dir);
    snprintf(u2, sizeof u2, "ipc://%s/d2.sock", dir);
  }
  for (int d = 1; d <= 2; d++) {
    char sd[300];
    snprintf(sd, sizeof sd, "%s/s%d", dir, d);
    mkdir(sd, 0700);
    snprintf(d == 1 ? conf1 : conf2, sizeof conf1, "%s/b%d.json", dir, d);
    FILE *f = fopen(d == 1 ? conf1 : conf2, "w");
    if (!f)
      return res;
    fprintf(f, "{\"domain\": %d, \"listen\": \"%s\", \"peers\": {\"%d\": \"%s\"}, \"key_file\": \"%s\", "
               "\"state_dir\": \"%s\"}\n",
            d, d == 1 ? u1 : u2, 3 - d, d == 1 ? u2 : u1, key, sd);
    fclose(f);
  }
  pid_t b1 = run_bridge(conf1), b2 = run_bridge(conf2), echo = -1;
  snprintf(status, sizeof status, "%s/s1/status", dir);
  mcapi_info_t info;
  mcapi_status_t st;
  int inited = 0;
  if (wait_up(status, 20)) {
    fprintf(stderr, "mca bridge --bench: the bridges did not connect\n");
    goto out;
  }
  mcapi_initialize(1, 1, NULL, NULL, &info, &st);
  if (st != MCAPI_SUCCESS)
    goto out;
  inited = 1;
  mcapi_endpoint_t me = mcapi_endpoint_create(11, &st);
  echo = fork();
  if (echo == 0)
    echo_node(size);
  mcapi_endpoint_t to = mcapi_endpoint_get(2, 2, 10, 30000, &st);
  if (st != MCAPI_SUCCESS) {
    fprintf(stderr, "mca bridge --bench: remote endpoint: %d\n", (int)st);
    goto out;
  }
  uint8_t *buf = calloc(1, size < 16 ? 16 : size);
  uint64_t *lat = calloc(rtts, sizeof *lat);
  size_t n;
  uint32_t kind_v;
  for (unsigned i = 0; i < rtts + rtts / 10; i++) { /* the first tenth warms up */
    kind_v = K_ECHO;
    memcpy(buf, &kind_v, 4);
    uint64_t t0 = now_ns();
    mcapi_msg_send(me, to, buf, size, 1, &st);
    mcapi_msg_recv(me, buf, size < 16 ? 16 : size, &n, &st);
    if (st != MCAPI_SUCCESS)
      goto out;
    if (i >= rtts / 10)
      lat[i - rtts / 10] = now_ns() - t0;
  }
  res.rtt = summarize(lat, rtts);
  double rates[64];
  for (int r = 0; r < rounds; r++) {
    uint64_t t0 = now_ns();
    kind_v = K_SINK;
    memcpy(buf, &kind_v, 4);
    for (unsigned i = 0; i < count; i++)
      mcapi_msg_send(me, to, buf, size, 1, &st);
    kind_v = K_DONE;
    memcpy(buf, &kind_v, 4);
    mcapi_msg_send(me, to, buf, size, 1, &st);
    mcapi_msg_recv(me, buf, size < 16 ? 16 : size, &n, &st);
    uint32_t got;
    memcpy(&got, buf + 4, 4);
    if (st != MCAPI_SUCCESS || got != count) {
      fprintf(stderr, "mca bridge --bench: the sink counted %u of %u\n", got, count);
      goto out;
    }
    rates[r] = count / ((now_ns() - t0) / 1e9);
  }
  res.rate = rate_stats(rates, rounds);
  res.ok = 1;
  kind_v = 0;
  memcpy(buf, &kind_v, 4);
  mcapi_msg_send(me, to, buf, size, 1, &st);
  free(buf);
  free(lat);
out:
  if (echo > 0) {
    int s;
    for (int i = 0; i < 40 && waitpid(echo, &s, WNOHANG) == 0; i++)
      usleep(50000);
    kill(echo, SIGKILL);
    waitpid(echo, &s, 0);
  }
  if (inited)
    mcapi_finalize(&st);
  kill(b1, SIGTERM);
  kill(b2, SIGTERM);
  waitpid(b1, NULL, 0);
  waitpid(b2, NULL, 0);
  return res;
}

/* Raw nng over the same transport: req/rep round trips, push/pull streams
 * whose end a pair socket reports back. */
static result_t bench_nng(const char *dir, const char *kind, size_t size, unsigned rtts, unsigned count,
                          int rounds)
{
  result_t res = {0};
  char u_rr[300], u_pp[300], u_done[300];
  if (!strcmp(kind, "tcp")) {
    unsigned base = 40000 + (unsigned)(getpid() % 20000);
    snprintf(u_rr, sizeof u_rr, "tcp://127.0.0.1:%u", base);
    snprintf(u_pp, sizeof u_pp, "tcp://127.0.0.1:%u", base + 1);
    snprintf(u_done, sizeof u_done, "tcp://127.0.0.1:%u", base + 2);
  } else {
    snprintf(u_rr, sizeof u_rr, "ipc://%s/rr.sock", dir);
    snprintf(u_pp, sizeof u_pp, "ipc://%s/pp.sock", dir);
    snprintf(u_done, sizeof u_done, "ipc://%s/done.sock", dir);
  }
  pid_t child = fork();
  if (child == 0) {
    nng_socket rep, pull, done;
    if (nng_rep0_open(&rep) || nng_listen(rep, u_rr, NULL, 0) || nng_pull0_open(&pull) ||
        nng_listen(pull, u_pp, NULL, 0) || nng_pair1_open(&done) || nng_listen(done, u_done, NULL, 0))
      _exit(1);
    uint8_t *buf = malloc(size + 16);
    for (unsigned i = 0; i < rtts + rtts / 10; i++) {
      size_t n = size + 16;
      if (nng_recv(rep, buf, &n, 0) || nng_send(rep, buf, n, 0))
        _exit(1);
    }
    for (int r = 0; r < rounds; r++) {
      for (unsigned i = 0; i < count; i++) {
        size_t n = size + 16;
        if (nng_recv(pull, buf, &n, 0))
          _exit(1);
      }
      if (nng_send(done, buf, 4, 0))
        _exit(1);
    }
    nng_msleep(200);
    _exit(0);
  }
  nng_socket req, push, done;
  nng_msleep(200);
  if (nng_req0_open(&req) || nng_dial(req, u_rr, NULL, 0) || nng_push0_open(&push) ||
      nng_dial(push, u_pp, NULL, 0) || nng_pair1_open(&done) || nng_dial(done, u_done, NULL, 0)) {
    fprintf(stderr, "mca bridge --bench: nng peers did not connect\n");
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    return res;
  }
  uint8_t *buf = calloc(1, size + 16);
  uint64_t *lat = calloc(rtts, sizeof *lat);
  for (unsigned i = 0; i < rtts + rtts / 10; i++) {
    uint64_t t0 = now_ns();
    size_t n = size + 16;
    if (nng_send(req, buf, size, 0) || nng_recv(req, buf, &n, 0))
      goto out;
    if (i >= rtts / 10)
      lat[i - rtts / 10] = now_ns() - t0;
  }
  res.rtt = summarize(lat, rtts);
  double rates[64];
  for (int r = 0; r < rounds; r++) {
    uint64_t t0 = now_ns();
    for (unsigned i = 0; i < count; i++)
      if (nng_send(push, buf, size, 0))
        goto out;
    size_t n = size + 16;
    if (nng_recv(done, buf, &n, 0))
      goto out;
    rates[r] = count / ((now_ns() - t0) / 1e9);
  }
  res.rate = rate_stats(rates, rounds);
  res.ok = 1;
out:
  free(buf);
  free(lat);
  nng_close(req);
  nng_close(push);
  nng_close(done);
  kill(child, SIGKILL);
  waitpid(child, NULL, 0);
  return res;
}

int mca_bridge_bench(int argc, char **argv)
{
  const char *kind = "ipc";
  long long size = 64, count = 20000, rtts = 2000;
  int rounds = 5;
  for (int i = 1; i < argc; i++) {
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(argv[i], "--transport") && v && (!strcmp(v, "ipc") || !strcmp(v, "tcp"))) {
      kind = argv[++i];
    } else if (!strcmp(argv[i], "--size") && v) {
      if (mca_parse_int("bridge", "--size", argv[++i], 16, MCAPI_MAX_MSG_SIZE, &size))
        return 2;
    } else if (!strcmp(argv[i], "--count") && v) {
      if (mca_parse_int("bridge", "--count", argv[++i], 100, 10000000, &count))
        return 2;
    } else if (!strcmp(argv[i], "--rtts") && v) {
      if (mca_parse_int("bridge", "--rtts", argv[++i], 100, 10000000, &rtts))
        return 2;
    } else {
      fprintf(stderr, "mca bridge --bench: unknown option or missing value '%s' (mca help bridge)\n", argv[i]);
      return 2;
    }
  }
  char dir[] = "/tmp/mca-bridge-bench.XXXXXX";
  if (!mkdtemp(dir)) {
    fprintf(stderr, "mca bridge --bench: %s\n", strerror(errno));
    return 1;
  }
  char ns[64];
  snprintf(ns, sizeof ns, "bridgebench%d", (int)getpid());
  setenv("MCX_NAMESPACE", ns, 1);
  signal(SIGPIPE, SIG_IGN);
  printf("mca bridge --bench: %s, %lld-byte messages, %lld round trips, %d rounds of %lld messages\n", kind, size,
         rtts, rounds, count);
  printf("timing: CLOCK_MONOTONIC around each round trip (median, p10..p90); throughput per round from the\n"
         "first send to the receiver's reply after the last item (median, min..max over rounds)\n\n");
  fflush(stdout);
  result_t rb = bench_bridge(dir, kind, (size_t)size, (unsigned)rtts, (unsigned)count, rounds);
  result_t rn = bench_nng(dir, kind, (size_t)size, (unsigned)rtts, (unsigned)count, rounds);
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0)
    fprintf(stderr, "mca bridge --bench: could not remove %s\n", dir);
  if (!rb.ok || !rn.ok) {
    fprintf(stderr, "mca bridge --bench: a run failed (bridge %s, nng %s)\n", rb.ok ? "ok" : "failed",
            rn.ok ? "ok" : "failed");
    return 1;
  }
  printf("%-34s %12s %22s\n", "", "round trip", "(p10..p90) us");
  printf("%-34s %12.1f %10.1f..%-10.1f\n", "MCAPI message through two bridges", rb.rtt.p50 / 1e3, rb.rtt.p10 / 1e3,
         rb.rtt.p90 / 1e3);
  printf("%-34s %12.1f %10.1f..%-10.1f\n", "raw nng req/rep", rn.rtt.p50 / 1e3, rn.rtt.p10 / 1e3,
         rn.rtt.p90 / 1e3);
  printf("%-34s %12.2fx\n\n", "bridge / raw (median)", rb.rtt.p50 / rn.rtt.p50);
  printf("%-34s %12s %22s\n", "", "msgs/s", "(min..max)");
  printf("%-34s %12.0f %10.0f..%-10.0f\n", "MCAPI messages through two bridges", rb.rate.p50, rb.rate.p10,
         rb.rate.p90);
  printf("%-34s %12.0f %10.0f..%-10.0f\n", "raw nng push/pull", rn.rate.p50, rn.rate.p10, rn.rate.p90);
  printf("%-34s %12.2fx\n", "raw / bridge (median)", rn.rate.p50 / rb.rate.p50);
  return 0;
}
#endif
