/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mca bridge --bench: what crossing a bridge costs. Two domains, each with
 * its bridge process, joined over ipc:// or tcp:// (127.0.0.1, or a veth
 * pair between two network namespaces with --netns); beside them raw nng
 * over the same transport, timed the same way: round trip (req/rep vs
 * message to a remote echo node and back) and throughput (push/pull vs
 * messages to a remote sink, both ending when the receiver's "done" comes
 * back). Bridge and nng rounds alternate, so each round gives a ratio.
 *
 * Processes: this one makes (and always removes) the namespaces and runs
 * the measurement in a child of its own process group, which it kills when
 * the time bound passes. With --netns side a (bridge 1, the measuring node,
 * the nng dialer) runs in one namespace, side b (bridge 2, the echo node,
 * the nng listener) in the other: each process enters its namespace with
 * setns() right after its fork.
 */
#ifdef MCA_HAVE_BRIDGE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
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
#include "mca_tool.h"
#include "mcapi.h"
#include "mcx_bridge.h"

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


#define MAX_ROUNDS MCA_BRIDGE_BENCH_MAX_ROUNDS
#define NETNS_A_ADDR "10.78.0.1"
#define NETNS_B_ADDR "10.78.0.2"

static void on_term(int sig)
{
  (void)sig;
  mcx_bridge_stop();
}

/* A forked process enters the network namespace @p fd (-1: stays where it is). */
static void enter_ns(int fd)
{
  if (fd >= 0 && setns(fd, CLONE_NEWNET) != 0) {
    fprintf(stderr, "mca bridge --bench: setns: %s\n", strerror(errno));
    _exit(1);
  }
}

static pid_t run_bridge(const char *conf, int ns)
{
  pid_t p = fork();
  if (p == 0) {
    enter_ns(ns);
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

/* Where each side listens. */
typedef struct urls {
  char b1[200], b2[200], rr[200], pp[200], done[200];
} urls_t;

static void make_urls(urls_t *u, const char *dir, const char *kind, int netns)
{
  if (!strcmp(kind, "ipc")) { /* a path: the same file in both namespaces */
    snprintf(u->b1, sizeof u->b1, "ipc://%s/d1.sock", dir);
    snprintf(u->b2, sizeof u->b2, "ipc://%s/d2.sock", dir);
    snprintf(u->rr, sizeof u->rr, "ipc://%s/rr.sock", dir);
    snprintf(u->pp, sizeof u->pp, "ipc://%s/pp.sock", dir);
    snprintf(u->done, sizeof u->done, "ipc://%s/done.sock", dir);
  } else if (netns) { /* fresh namespaces: the ports are free */
    snprintf(u->b1, sizeof u->b1, "tcp://%s:7301", NETNS_A_ADDR);
    snprintf(u->b2, sizeof u->b2, "tcp://%s:7302", NETNS_B_ADDR);
    snprintf(u->rr, sizeof u->rr, "tcp://%s:7401", NETNS_B_ADDR);
    snprintf(u->pp, sizeof u->pp, "tcp://%s:7402", NETNS_B_ADDR);
    snprintf(u->done, sizeof u->done, "tcp://%s:7403", NETNS_B_ADDR);
  } else {
    unsigned base = 20000 + (unsigned)(getpid() % 20000);
    snprintf(u->b1, sizeof u->b1, "tcp://127.0.0.1:%u", base);
    snprintf(u->b2, sizeof u->b2, "tcp://127.0.0.1:%u", base + 1);
    snprintf(u->rr, sizeof u->rr, "tcp://127.0.0.1:%u", base + 2);
    snprintf(u->pp, sizeof u->pp, "tcp://127.0.0.1:%u", base + 3);
    snprintf(u->done, sizeof u->done, "tcp://127.0.0.1:%u", base + 4);
  }
}

/* ---- through the bridges: domain 1 here (side a), domain 2 on side b */
typedef struct bside {
  pid_t b1, b2, echo;
  int inited;
  mcapi_endpoint_t me, to;
  uint8_t *buf;
  size_t size, cap;
} bside_t;

static int bridge_setup(bside_t *s, const char *dir, const urls_t *u, size_t size, int ns_b, char *why,
                        size_t wn)
{
  memset(s, 0, sizeof *s);
  s->b1 = s->b2 = s->echo = -1;
  s->size = size;
  s->cap = size < 16 ? 16 : size;
  char conf[2][300], status[300], key[300];
  snprintf(key, sizeof key, "%s/key", dir);
  FILE *k = fopen(key, "w");
  if (!k)
    return snprintf(why, wn, "%.120s: %s", key, strerror(errno)), -1;
  fprintf(k, "bench-key-%08x%08x\n", (unsigned)rand(), (unsigned)rand());
  fclose(k);
  chmod(key, 0600);
  for (int d = 1; d <= 2; d++) {
    char sd[300];
    snprintf(sd, sizeof sd, "%s/s%d", dir, d);
    mkdir(sd, 0700);
    snprintf(conf[d - 1], sizeof conf[0], "%s/b%d.json", dir, d);
    FILE *f = fopen(conf[d - 1], "w");
    if (!f)
      return snprintf(why, wn, "%.120s: %s", conf[d - 1], strerror(errno)), -1;
    fprintf(f, "{\"domain\": %d, \"listen\": \"%s\", \"peers\": {\"%d\": \"%s\"}, \"key_file\": \"%s\", "
               "\"state_dir\": \"%s\"}\n",
            d, d == 1 ? u->b1 : u->b2, 3 - d, d == 1 ? u->b2 : u->b1, key, sd);
    fclose(f);
  }
  s->b1 = run_bridge(conf[0], -1);
  s->b2 = run_bridge(conf[1], ns_b);
  snprintf(status, sizeof status, "%s/s1/status", dir);
  if (wait_up(status, 20))
    return snprintf(why, wn, "the bridges did not connect in 20 s"), -1;
  mcapi_info_t info;
  mcapi_status_t st;
  mcapi_initialize(1, 1, NULL, NULL, &info, &st);
  if (st != MCAPI_SUCCESS)
    return snprintf(why, wn, "mcapi_initialize: %d", (int)st), -1;
  s->inited = 1;
  s->me = mcapi_endpoint_create(11, &st);
  s->echo = fork();
  if (s->echo == 0) {
    enter_ns(ns_b);
    echo_node(size);
  }
  s->to = mcapi_endpoint_get(2, 2, 10, 30000, &st);
  if (st != MCAPI_SUCCESS)
    return snprintf(why, wn, "the remote endpoint: %d", (int)st), -1;
  s->buf = calloc(1, s->cap);
  return s->buf ? 0 : -1;
}

static int bridge_rtt(bside_t *s, unsigned n, uint64_t *lat)
{
  uint32_t kind = K_ECHO;
  mcapi_status_t st;
  size_t got;
  for (unsigned i = 0; i < n; i++) {
    memcpy(s->buf, &kind, 4);
    uint64_t t0 = now_ns();
    mcapi_msg_send(s->me, s->to, s->buf, s->size, 1, &st);
    if (st != MCAPI_SUCCESS)
      return -1;
    mcapi_msg_recv(s->me, s->buf, s->cap, &got, &st);
    if (st != MCAPI_SUCCESS)
      return -1;
    if (lat)
      lat[i] = now_ns() - t0;
  }
  return 0;
}

static int bridge_tput(bside_t *s, unsigned count, double *rate)
{
  mcapi_status_t st;
  size_t n;
  uint32_t kind = K_SINK, got = 0;
  uint64_t t0 = now_ns();
  memcpy(s->buf, &kind, 4);
  for (unsigned i = 0; i < count; i++)
    mcapi_msg_send(s->me, s->to, s->buf, s->size, 1, &st);
  kind = K_DONE;
  memcpy(s->buf, &kind, 4);
  mcapi_msg_send(s->me, s->to, s->buf, s->size, 1, &st);
  mcapi_msg_recv(s->me, s->buf, s->cap, &n, &st);
  memcpy(&got, s->buf + 4, 4);
  if (st != MCAPI_SUCCESS || got != count) {
    fprintf(stderr, "mca bridge --bench: the sink counted %u of %u\n", got, count);
    return -1;
  }
  *rate = count / ((now_ns() - t0) / 1e9);
  return 0;
}

static void bridge_teardown(bside_t *s)
{
  mcapi_status_t st;
  if (s->buf && s->to) {
    uint32_t kind = 0;
    memcpy(s->buf, &kind, 4);
    mcapi_msg_send(s->me, s->to, s->buf, s->size, 1, &st);
  }
  if (s->echo > 0) {
    int w;
    for (int i = 0; i < 40 && waitpid(s->echo, &w, WNOHANG) == 0; i++)
      usleep(50000);
    kill(s->echo, SIGKILL);
    waitpid(s->echo, &w, 0);
  }
  if (s->inited)
    mcapi_finalize(&st);
  for (int i = 0; i < 2; i++) {
    pid_t p = i ? s->b2 : s->b1;
    if (p > 0) {
      kill(p, SIGTERM);
      waitpid(p, NULL, 0);
    }
  }
  free(s->buf);
}

/* ---- raw nng over the same transport: req/rep round trips, push/pull
 * streams whose end a pair socket reports back; the listener on side b. */
typedef struct nside {
  pid_t child;
  nng_socket req, push, done;
  uint8_t *buf;
  size_t size;
} nside_t;

static int dial_retry(nng_socket s, const char *url)
{
  int r = NNG_ECONNREFUSED;
  for (int i = 0; i < 200 && r; i++) { /* the listener may not be up yet: 10 s */
    r = nng_dial(s, url, NULL, 0);
    if (r)
      nng_msleep(50);
  }
  return r;
}

static int nng_setup(nside_t *s, const urls_t *u, size_t size, int ns_b, unsigned warm, unsigned per,
                     int rounds, unsigned count, char *why, size_t wn)
{
  memset(s, 0, sizeof *s);
  s->size = size;
  s->child = fork();
  if (s->child == 0) {
    enter_ns(ns_b);
    nng_socket rep, pull, done;
    if (nng_rep0_open(&rep) || nng_listen(rep, u->rr, NULL, 0) || nng_pull0_open(&pull) ||
        nng_listen(pull, u->pp, NULL, 0) || nng_pair1_open(&done) || nng_listen(done, u->done, NULL, 0))
      _exit(1);
    uint8_t *buf = malloc(size + 16);
    for (int r = -1; r < rounds; r++) { /* -1: the warm-up */
      for (unsigned i = 0; i < (r < 0 ? warm : per); i++) {
        size_t n = size + 16;
        if (nng_recv(rep, buf, &n, 0) || nng_send(rep, buf, n, 0))
          _exit(1);
      }
      if (r < 0)
        continue;
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
  if (nng_req0_open(&s->req) || dial_retry(s->req, u->rr) || nng_push0_open(&s->push) ||
      dial_retry(s->push, u->pp) || nng_pair1_open(&s->done) || dial_retry(s->done, u->done))
    return snprintf(why, wn, "the nng peers did not connect"), -1;
  s->buf = calloc(1, size + 16);
  return s->buf ? 0 : -1;
}

static int nng_rtt(nside_t *s, unsigned n, uint64_t *lat)
{
  for (unsigned i = 0; i < n; i++) {
    uint64_t t0 = now_ns();
    size_t got = s->size + 16;
    if (nng_send(s->req, s->buf, s->size, 0) || nng_recv(s->req, s->buf, &got, 0))
      return -1;
    if (lat)
      lat[i] = now_ns() - t0;
  }
  return 0;
}

static int nng_tput(nside_t *s, unsigned count, double *rate)
{
  uint64_t t0 = now_ns();
  for (unsigned i = 0; i < count; i++)
    if (nng_send(s->push, s->buf, s->size, 0))
      return -1;
  size_t n = s->size + 16;
  if (nng_recv(s->done, s->buf, &n, 0))
    return -1;
  *rate = count / ((now_ns() - t0) / 1e9);
  return 0;
}

static void nng_teardown(nside_t *s)
{
  nng_close(s->req);
  nng_close(s->push);
  nng_close(s->done);
  if (s->child > 0) {
    kill(s->child, SIGKILL);
    waitpid(s->child, NULL, 0);
  }
  free(s->buf);
}

/* What the measuring process hands back (through a pipe). */
typedef struct results {
  int ok, rounds;
  double b_p10, b_p50, b_p90, n_p10, n_p50, n_p90; /* every round trip, ns */
  double b_med[MAX_ROUNDS], n_med[MAX_ROUNDS];     /* each round's median round trip */
  double b_rate[MAX_ROUNDS], n_rate[MAX_ROUNDS];   /* each round's messages/s */
  char why[200];
} results_t;

static double pct(uint64_t *v, size_t n, unsigned p)
{
  qsort(v, n, sizeof *v, cmp_u64);
  return (double)v[n * p / 100 < n ? n * p / 100 : n - 1];
}

/* Side a's process: sets both systems up, then alternates their rounds. */
static void measure(results_t *res, const char *dir, const urls_t *u, size_t size, unsigned rtts, unsigned count,
                    int rounds, int ns_b)
{
  unsigned per = rtts / (unsigned)rounds, warm = rtts / 10 < 10 ? 10 : rtts / 10;
  bside_t b;
  nside_t n;
  uint64_t *lb = calloc((size_t)per * (size_t)rounds, sizeof *lb), *ln = calloc((size_t)per * (size_t)rounds, sizeof *ln);
  uint64_t *tmp = calloc(per, sizeof *tmp);
  res->rounds = rounds;
  int okb = bridge_setup(&b, dir, u, size, ns_b, res->why, sizeof res->why) == 0;
  int okn = okb && nng_setup(&n, u, size, ns_b, warm, per, rounds, count, res->why, sizeof res->why) == 0;
  if (!okb || !okn || !lb || !ln || !tmp)
    goto out;
  if (bridge_rtt(&b, warm, NULL) || nng_rtt(&n, warm, NULL)) {
    snprintf(res->why, sizeof res->why, "a warm-up round trip failed");
    goto out;
  }
  for (int r = 0; r < rounds; r++) {
    uint64_t *xb = lb + (size_t)r * per, *xn = ln + (size_t)r * per;
    if (bridge_rtt(&b, per, xb) || nng_rtt(&n, per, xn)) {
      snprintf(res->why, sizeof res->why, "a round trip failed in round %d", r + 1);
      goto out;
    }
    memcpy(tmp, xb, per * sizeof *tmp);
    res->b_med[r] = pct(tmp, per, 50);
    memcpy(tmp, xn, per * sizeof *tmp);
    res->n_med[r] = pct(tmp, per, 50);
    if (bridge_tput(&b, count, &res->b_rate[r]) || nng_tput(&n, count, &res->n_rate[r])) {
      snprintf(res->why, sizeof res->why, "a stream failed in round %d", r + 1);
      goto out;
    }
  }
  size_t all = (size_t)per * (size_t)rounds;
  res->b_p10 = pct(lb, all, 10), res->b_p50 = pct(lb, all, 50), res->b_p90 = pct(lb, all, 90);
  res->n_p10 = pct(ln, all, 10), res->n_p50 = pct(ln, all, 50), res->n_p90 = pct(ln, all, 90);
  res->ok = 1;
out:
  if (okn)
    nng_teardown(&n);
  bridge_teardown(&b);
  free(lb);
  free(ln);
  free(tmp);
}

/* ---- network namespaces */

/* Runs a command (no shell), at most 10 s. @return its exit status, -1 when it could not run or was killed. */
static int run_cmd(char *const argv[], int quiet)
{
  pid_t p = fork();
  if (p == 0) {
    if (quiet && !freopen("/dev/null", "w", stderr))
      _exit(127);
    execvp(argv[0], argv);
    _exit(127);
  }
  if (p < 0)
    return -1;
  int w = 0;
  for (int i = 0; i < 1000; i++) {
    pid_t q = waitpid(p, &w, WNOHANG);
    if (q == p)
      return WIFEXITED(w) ? WEXITSTATUS(w) : -1;
    if (q < 0 && errno != EINTR)
      return -1;
    usleep(10000);
  }
  kill(p, SIGKILL);
  waitpid(p, &w, 0);
  return -1;
}

/* ip ARGS... (NULL-terminated), at most 10 s. */
static int ipv(const char *first, ...)
{
  char *argv[16];
  int n = 0;
  argv[n++] = "ip";
  va_list ap;
  va_start(ap, first);
  for (const char *a = first; a && n < 15; a = va_arg(ap, const char *))
    argv[n++] = (char *)a;
  va_end(ap);
  argv[n] = NULL;
  return run_cmd(argv, 0);
}

static void netns_remove(const char *na, const char *nb)
{
  char *del_a[] = {"ip", "netns", "del", (char *)na, NULL}, *del_b[] = {"ip", "netns", "del", (char *)nb, NULL};
  int a = run_cmd(del_a, 1), b = run_cmd(del_b, 1);
  printf("network namespaces %s, %s: %s\n", na, nb,
         a == 0 && b == 0 ? "removed" : "removed what existed (see ip netns list)");
}

/* Two namespaces joined by a veth pair: side a NETNS_A_ADDR, side b NETNS_B_ADDR. */
static int netns_make(const char *na, const char *nb, const char *va, const char *vb)
{
  if (ipv("netns", "add", na, NULL) || ipv("netns", "add", nb, NULL) ||
      ipv("link", "add", va, "type", "veth", "peer", "name", vb, NULL) || ipv("link", "set", va, "netns", na, NULL) ||
      ipv("link", "set", vb, "netns", nb, NULL))
    return -1;
  if (ipv("-n", na, "addr", "add", NETNS_A_ADDR "/24", "dev", va, NULL) ||
      ipv("-n", na, "link", "set", va, "up", NULL) || ipv("-n", na, "link", "set", "lo", "up", NULL) ||
      ipv("-n", nb, "addr", "add", NETNS_B_ADDR "/24", "dev", vb, NULL) ||
      ipv("-n", nb, "link", "set", vb, "up", NULL) || ipv("-n", nb, "link", "set", "lo", "up", NULL))
    return -1;
  return 0;
}

static volatile sig_atomic_t stop_sig;
static void on_stop(int sig) { stop_sig = sig; }

static double median_of(const double *v, int n)
{
  double s[MAX_ROUNDS];
  memcpy(s, v, (size_t)n * sizeof *s);
  for (int i = 1; i < n; i++) /* insertion sort: a handful of values */
    for (int j = i; j > 0 && s[j - 1] > s[j]; j--) {
      double t = s[j];
      s[j] = s[j - 1];
      s[j - 1] = t;
    }
  return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/* "lo..hi" of @p v, each divided by @p div, with @p prec decimals. */
static const char *range(char *out, size_t cap, const double *v, int n, double div, int prec)
{
  double lo = v[0], hi = v[0];
  for (int i = 1; i < n; i++) {
    lo = v[i] < lo ? v[i] : lo;
    hi = v[i] > hi ? v[i] : hi;
  }
  snprintf(out, cap, "%.*f..%.*f", prec, lo / div, prec, hi / div);
  return out;
}

static void print_results(const results_t *r)
{
  int n = r->rounds;
  double rr[MAX_ROUNDS], tr[MAX_ROUNDS];
  char a[64], b[64];
  for (int i = 0; i < n; i++) {
    rr[i] = r->b_med[i] / r->n_med[i];   /* round trip: bridge / raw */
    tr[i] = r->n_rate[i] / r->b_rate[i]; /* throughput: raw / bridge */
  }
  printf("%-36s %10s  %-24s %s\n", "round trip, us", "median", "(min..max of rounds)", "p10..p90 of all");
  printf("%-36s %10.1f  %-24s %.1f..%.1f\n", "MCAPI message through two bridges", r->b_p50 / 1e3,
         range(a, sizeof a, r->b_med, n, 1e3, 1), r->b_p10 / 1e3, r->b_p90 / 1e3);
  printf("%-36s %10.1f  %-24s %.1f..%.1f\n", "raw nng req/rep", r->n_p50 / 1e3,
         range(b, sizeof b, r->n_med, n, 1e3, 1), r->n_p10 / 1e3, r->n_p90 / 1e3);
  printf("%-36s %9.2fx  %s\n\n", "bridge / raw (per round)", median_of(rr, n), range(a, sizeof a, rr, n, 1, 2));
  printf("%-36s %10s  %s\n", "throughput, msgs/s", "median", "(min..max of rounds)");
  printf("%-36s %10.0f  %s\n", "MCAPI messages through two bridges", median_of(r->b_rate, n),
         range(a, sizeof a, r->b_rate, n, 1, 0));
  printf("%-36s %10.0f  %s\n", "raw nng push/pull", median_of(r->n_rate, n), range(b, sizeof b, r->n_rate, n, 1, 0));
  printf("%-36s %9.2fx  %s\n", "raw / bridge (per round)", median_of(tr, n), range(a, sizeof a, tr, n, 1, 2));
}

static void json_rounds(FILE *f, const double *v, int n, double div)
{
  fputc('[', f);
  for (int i = 0; i < n; i++)
    fprintf(f, "%s%.4g", i ? ", " : "", v[i] / div);
  fputc(']', f);
}

/* --json: the envelope (docs/json.md), the configuration, the figures print_results shows. */
static int write_json(const char *path, const mca_bridge_bench_opts_t *o, const results_t *r)
{
  FILE *f = mca_output_open("bridge", path);
  if (!f)
    return -1;
  int n = r->rounds;
  double rr[MAX_ROUNDS], tr[MAX_ROUNDS];
  for (int i = 0; i < n; i++) {
    rr[i] = r->b_med[i] / r->n_med[i];
    tr[i] = r->n_rate[i] / r->b_rate[i];
  }
  mca_json_envelope(f, "mca-bridge-bench/1");
  fprintf(f, "\"config\": {\"transport\": \"%s\", \"netns\": %s, \"size\": %lld, \"count\": %lld, "
             "\"rtts\": %lld, \"rounds\": %d},\n",
          o->transport, o->netns ? "true" : "false", o->size, o->count, o->rtts, n);
  fprintf(f, "\"round_trip_us\": {\"bridge\": {\"p10\": %.4g, \"p50\": %.4g, \"p90\": %.4g, \"rounds\": ",
          r->b_p10 / 1e3, r->b_p50 / 1e3, r->b_p90 / 1e3);
  json_rounds(f, r->b_med, n, 1e3);
  fprintf(f, "},\n  \"nng\": {\"p10\": %.4g, \"p50\": %.4g, \"p90\": %.4g, \"rounds\": ", r->n_p10 / 1e3,
          r->n_p50 / 1e3, r->n_p90 / 1e3);
  json_rounds(f, r->n_med, n, 1e3);
  fprintf(f, "},\n  \"bridge_over_nng\": {\"median\": %.4g, \"rounds\": ", median_of(rr, n));
  json_rounds(f, rr, n, 1);
  fprintf(f, "}},\n\"throughput_msgs_per_s\": {\"bridge\": {\"median\": %.6g, \"rounds\": ",
          median_of(r->b_rate, n));
  json_rounds(f, r->b_rate, n, 1);
  fprintf(f, "},\n  \"nng\": {\"median\": %.6g, \"rounds\": ", median_of(r->n_rate, n));
  json_rounds(f, r->n_rate, n, 1);
  fprintf(f, "},\n  \"nng_over_bridge\": {\"median\": %.4g, \"rounds\": ", median_of(tr, n));
  json_rounds(f, tr, n, 1);
  fputs("}}\n}\n", f);
  return mca_output_close(f);
}

int mca_bridge_bench(const mca_bridge_bench_opts_t *o)
{
  const char *kind = o->transport;
  long long size = o->size, count = o->count, rtts = o->rtts, rounds = o->rounds, limit = o->timeout_s;
  int netns = o->netns;
  if (netns && geteuid() != 0) {
    fprintf(stderr, "mca bridge --bench --netns: needs root: it creates two network namespaces and a veth pair "
                    "(ip netns add, ip link add); run it as root, or without --netns\n");
    return 1;
  }
  char dir[] = "/tmp/mca-bridge-bench.XXXXXX";
  if (!mkdtemp(dir)) {
    fprintf(stderr, "mca bridge --bench: %s\n", strerror(errno));
    return 1;
  }
  char ns[64], na[32], nb[32], va[16], vb[16];
  snprintf(ns, sizeof ns, "bridgebench%d", (int)getpid());
  setenv("MCX_NAMESPACE", ns, 1);
  snprintf(na, sizeof na, "mcxbench%da", (int)getpid());
  snprintf(nb, sizeof nb, "mcxbench%db", (int)getpid());
  snprintf(va, sizeof va, "mcxb%da", (int)getpid() % 10000000);
  snprintf(vb, sizeof vb, "mcxb%db", (int)getpid() % 10000000);
  signal(SIGPIPE, SIG_IGN);
  /* Stopped by a signal: the namespaces are removed all the same. */
  struct sigaction sa, old_int, old_term, old_hup;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop; /* no SA_RESTART: poll() returns */
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  sigaction(SIGHUP, &sa, &old_hup);
  int rc = 1, fd_a = -1, fd_b = -1, made = 0;
  results_t res;
  memset(&res, 0, sizeof res);
  if (netns) {
    made = 1;
    if (netns_make(na, nb, va, vb)) {
      fprintf(stderr, "mca bridge --bench --netns: could not set up the namespaces (the ip command's message above)\n");
      goto out;
    }
    char path[96];
    snprintf(path, sizeof path, "/run/netns/%s", na);
    fd_a = open(path, O_RDONLY | O_CLOEXEC);
    snprintf(path, sizeof path, "/run/netns/%s", nb);
    fd_b = open(path, O_RDONLY | O_CLOEXEC);
    if (fd_a < 0 || fd_b < 0) {
      fprintf(stderr, "mca bridge --bench --netns: /run/netns: %s\n", strerror(errno));
      goto out;
    }
  }
  printf("mca bridge --bench: %s%s, %lld-byte messages, %lld rounds of %lld round trips and %lld messages each\n", kind,
         !netns                  ? (!strcmp(kind, "tcp") ? " on 127.0.0.1" : " on this machine")
         : !strcmp(kind, "tcp") ? " between two network namespaces over a veth pair (" NETNS_A_ADDR " - " NETNS_B_ADDR ")"
                                 : " between two network namespaces (the same socket files)",
         size, rounds, rtts / rounds, count);
  if (netns)
    printf("side a, namespace %s: bridge of domain 1, the measuring node, the nng dialer\n"
           "side b, namespace %s: bridge of domain 2, the echo/sink node, the nng listener\n",
           na, nb);
  printf("bridge and raw nng rounds alternate; timing: CLOCK_MONOTONIC around each round trip; throughput per\n"
         "round from the first send to the receiver's reply after the last item; ratios per round\n\n");
  fflush(stdout);
  urls_t u;
  make_urls(&u, dir, kind, netns);
  int pfd[2];
  if (pipe(pfd)) {
    fprintf(stderr, "mca bridge --bench: pipe: %s\n", strerror(errno));
    goto out;
  }
  pid_t runner = fork();
  if (runner == 0) {
    setpgid(0, 0); /* its own group: killed as a whole when the time is up */
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    close(pfd[0]);
    enter_ns(fd_a);
    measure(&res, dir, &u, (size_t)size, (unsigned)rtts, (unsigned)count, (int)rounds, fd_b);
    ssize_t w = write(pfd[1], &res, sizeof res);
    _exit(w == (ssize_t)sizeof res ? 0 : 1);
  }
  close(pfd[1]);
  if (runner > 0)
    setpgid(runner, runner);
  size_t got = 0;
  uint64_t deadline = now_ns() + (uint64_t)limit * 1000000000u;
  while (runner > 0 && got < sizeof res && !stop_sig && now_ns() < deadline) {
    struct pollfd p = {pfd[0], POLLIN, 0};
    if (poll(&p, 1, 200) <= 0)
      continue;
    ssize_t r = read(pfd[0], (char *)&res + got, sizeof res - got);
    if (r <= 0)
      break; /* it died without a result */
    got += (size_t)r;
  }
  close(pfd[0]);
  if (runner > 0) {
    if (got < sizeof res)
      fprintf(stderr, "mca bridge --bench: %s\n",
              stop_sig                   ? "stopped by a signal"
              : now_ns() >= deadline     ? "the time bound (--timeout) passed: stopped"
                                         : "the measuring process ended without a result");
    kill(-runner, SIGKILL); /* whatever is left of it, its bridges and peers */
    waitpid(runner, NULL, 0);
  }
  if (got == sizeof res && !res.ok)
    fprintf(stderr, "mca bridge --bench: %s\n", res.why[0] ? res.why : "a run failed");
  rc = got == sizeof res && res.ok ? 0 : 1;
out:
  if (fd_a >= 0)
    close(fd_a);
  if (fd_b >= 0)
    close(fd_b);
  if (made) {
    char *del_v[] = {"ip", "link", "del", va, NULL}; /* when it was never moved */
    run_cmd(del_v, 1);
    netns_remove(na, nb);
  }
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0)
    fprintf(stderr, "mca bridge --bench: could not remove %s\n", dir);
  sigaction(SIGINT, &old_int, NULL);
  sigaction(SIGTERM, &old_term, NULL);
  sigaction(SIGHUP, &old_hup, NULL);
  if (rc == 0)
    print_results(&res);
  if (rc == 0 && o->json && write_json(o->json, o, &res)) {
    fprintf(stderr, "mca bridge --bench: writing %s failed\n", o->json);
    rc = 1;
  }
  return stop_sig ? 128 + stop_sig : rc;
}
#endif
