/* SPDX-License-Identifier: BSD-3-Clause */
/* mca dds: MCAPI endpoints on DDS topics through Eclipse Cyclone DDS
 * (docs/dds.md); --bench measures the gateway beside raw Cyclone DDS. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "json.h"
#include "mca_tool.h"
#include "mcapi.h"

#define BENCH_MAX_ROUNDS 16

typedef struct dds_bench_opts {
  long long size, count, rtts, rounds, timeout_s, dds_domain;
  const char *json;
} dds_bench_opts_t;

static int usage(FILE *f)
{
  fprintf(f, "usage: mca dds --config FILE\n"
             "       mca dds --check FILE\n"
             "       mca dds --bench [--count N] [--rtts N] [--rounds N] [--size BYTES]\n"
             "                       [--dds-domain ID] [--timeout SECONDS] [--json FILE|-]\n\n"
             "A gateway between this machine's MCAPI domain and a DDS domain (Eclipse Cyclone\n"
             "DDS): a node of its domain (node 16100 unless the configuration says otherwise)\n"
             "whose outbound ports publish every message sent to them as one sample of a topic\n"
             "(type mcx::dds::Message, idl/mcx_dds_msg.idl), and whose inbound routes send\n"
             "every sample of a topic to an MCAPI endpoint. Reliable, keep-all; a DDS writer\n"
             "that must wait makes the MCAPI senders wait (a full queue). Stop it with SIGINT\n"
             "or SIGTERM. CYCLONEDDS_URI configures Cyclone DDS (network, discovery).\n\n"
             "  --config FILE  run with the JSON configuration FILE (docs/dds.md):\n"
             "                 {\"domain\": 1, \"node\": 16100, \"dds_domain\": 0,\n"
             "                  \"outbound\": [{\"port\": 100, \"topic\": \"mcx/out\",\n"
             "                                \"sender\": {\"node\": 5, \"port\": 7},\n"
             "                                \"durability\": \"volatile\"}],\n"
             "                  \"inbound\": [{\"topic\": \"mcx/in\", \"node\": 5, \"port\": 8,\n"
             "                               \"durability\": \"transient-local\"}]}\n"
             "                 an outbound route's \"min_readers\": publish only while that many\n"
             "                 DDS readers are matched (default 0: at once)\n"
             "                 optional: \"block_ms\" (1), \"reader_depth\" (256),\n"
             "                 \"history_depth\" (1000)\n"
             "  --check FILE   only read and check the configuration\n"
             "  --bench        round trip and throughput MCAPI -> DDS -> MCAPI through a gateway\n"
             "                 in this process, beside the same pair written directly with the\n"
             "                 Cyclone DDS C API, rounds alternating; the gateway's cost as ratios\n"
             "  --count N      messages per throughput round (default 20000)\n"
             "  --rtts N       timed round trips, spread over the rounds (default 2000)\n"
             "  --rounds N     rounds (default 5, at most 16)\n"
             "  --size BYTES   message size (default 64)\n"
             "  --dds-domain D the DDS domain of the run (default 0)\n"
             "  --timeout S    the whole run is stopped after S seconds (default 600)\n"
             "  --json FILE    with --bench: also write the figures as JSON (schema\n"
             "                 mca-dds-bench/1, docs/dds.md); '-': the JSON to stdout, the\n"
             "                 table to stderr\n"
             "Exit status: 0 done, 1 the configuration was refused or the gateway or a\n"
             "measurement failed, 2 usage error.\n");
#ifndef MCA_HAVE_DDS
  fprintf(f, "\nNot built here: Cyclone DDS was not found at build time (Debian: cyclonedds-dev "
             "cyclonedds-tools; CMake option MCX_WITH_DDS).\n");
#endif
  return f == stderr ? 2 : 0;
}

typedef struct dds_args {
  mca_run_opts_t r;
  long long dds_domain; /* --bench: the DDS domain of the run */
} dds_args_t;

/* 0; 1: --help was asked for; -1 after a usage error (one line on stderr). */
static int parse_args(int argc, char **argv, dds_args_t *a)
{
  static const mca_opt_t table[] = {MCA_RUN_OPTS, {"--dds-domain", MCA_OPT_VALUE, 'D'}, {NULL, 0, 0}};
  mca_run_opts_init(&a->r);
  a->dds_domain = 0;
  mca_opts_t s;
  mca_opts_init(&s, "dds", argc, argv);
  for (int k; (k = mca_opts_next(&s, table)) != MCA_OPTS_END;) {
    int taken = mca_run_opt(&s, k, &a->r, BENCH_MAX_ROUNDS);
    if (taken < 0)
      return -1;
    if (taken)
      continue;
    switch (k) {
    case 'D':
      if (mca_parse_int("dds", "--dds-domain", s.value, 0, 230, &a->dds_domain))
        return -1;
      break;
    case MCA_OPTS_HELP: return 1;
    case MCA_OPTS_OPERAND: mca_usage_error("dds", "unexpected argument '%s'", s.value); return -1;
    default: return -1;
    }
  }
  return mca_run_opts_done(&s, &a->r, "a gateway");
}

#ifdef MCA_HAVE_DDS
#include <dds/dds.h>

#include "mcx_dds.h"
#include "mcx_dds_msg.h"

static void on_signal(int sig)
{
  (void)sig;
  mcx_dds_stop();
}

static int fail(const char *path, const json_t *v, const char *what)
{
  return json_cfg_fail("dds", path, v, what);
}

/* A whole number in [0, max] at @p key of @p o; absent: left as it is unless @p required. */
static int get_u32(const char *path, const json_t *o, const char *key, int required, double max, uint32_t *out)
{
  return json_cfg_u32("dds", path, o, key, required, max, out);
}

static int only_keys(const char *path, const json_t *o, const char *const *known, size_t n)
{
  for (int i = 0; i < o->n; i++) {
    int ok = 0;
    for (size_t k = 0; k < n; k++)
      ok |= !strcmp(o->keys[i], known[k]);
    if (!ok) {
      char m[200];
      snprintf(m, sizeof m, "unknown key \"%.100s\"", o->keys[i]);
      return fail(path, o->items[i], m);
    }
  }
  return 0;
}

static int get_topic(const char *path, const json_t *o, char *out)
{
  const json_t *v = json_get(o, "topic");
  if (!v || v->type != JSON_STRING || !*v->str || strlen(v->str) >= MCX_DDS_TOPIC_MAX)
    return fail(path, v ? v : o, "\"topic\" must be a non-empty string of at most 127 characters");
  snprintf(out, MCX_DDS_TOPIC_MAX, "%s", v->str);
  return 0;
}

static int get_durability(const char *path, const json_t *o, int *out)
{
  const json_t *v = json_get(o, "durability");
  *out = MCX_DDS_VOLATILE;
  if (!v)
    return 0;
  if (v->type == JSON_STRING && !strcmp(v->str, "volatile"))
    return 0;
  if (v->type == JSON_STRING && !strcmp(v->str, "transient-local")) {
    *out = MCX_DDS_TRANSIENT_LOCAL;
    return 0;
  }
  return fail(path, v, "\"durability\" must be \"volatile\" or \"transient-local\"");
}

/* The configuration's text: a regular file (opened without waiting, so a
 * FIFO or a device is refused unread) of at most 1 MiB, without a NUL byte or
 * a NUL escape (a string would be cut short unseen). NULL after one line. */
static char *read_config_text(const char *path)
{
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  struct stat sb;
  if (fd < 0 || fstat(fd, &sb) || !S_ISREG(sb.st_mode) || sb.st_size > (1 << 20)) {
    fprintf(stderr, "mca dds: %s: %s\n", path,
            fd < 0 ? strerror(errno) : !S_ISREG(sb.st_mode) ? "not a regular file" : "larger than 1 MiB");
    if (fd >= 0)
      close(fd);
    return NULL;
  }
  char *text = malloc((size_t)sb.st_size + 1);
  size_t got = 0;
  ssize_t n = 1;
  while (text && got < (size_t)sb.st_size && (n = read(fd, text + got, (size_t)sb.st_size - got)) > 0)
    got += (size_t)n;
  close(fd);
  if (!text || n < 0) {
    fprintf(stderr, "mca dds: %s: cannot be read\n", path);
    free(text);
    return NULL;
  }
  text[got] = 0;
  int line = 1;
  for (size_t i = 0; i < got; i++) {
    line += text[i] == '\n';
    if (!text[i] || (text[i] == '\\' && i + 5 < got && (text[i + 1] == 'u' || text[i + 1] == 'U') &&
                     !strncmp(text + i + 2, "0000", 4))) {
      fprintf(stderr, "mca dds: %s: line %d: a NUL character\n", path, line);
      free(text);
      return NULL;
    }
    if (text[i] == '\\' && i + 1 < got)
      i++; /* an escaped character: "\\u0000" is not an escape of NUL */
  }
  return text;
}

/* Reads the configuration (docs/dds.md: configuration). */
static int load_config(const char *path, mcx_dds_config_t *c)
{
  char err[512];
  memset(c, 0, sizeof *c);
  char *text = read_config_text(path);
  if (!text)
    return -1;
  json_t *root = json_parse(text, err, sizeof err);
  free(text);
  if (!root) {
    fprintf(stderr, "mca dds: %s: %s\n", path, err);
    return -1;
  }
  int rc = -1;
  static const char *const known[] = {"domain",       "node",          "dds_domain", "block_ms",
                                      "reader_depth", "history_depth", "outbound",   "inbound"};
  static const char *const out_keys[] = {"port", "topic", "sender", "durability", "min_readers"};
  static const char *const in_keys[] = {"topic", "node", "port", "durability"};
  static const char *const sender_keys[] = {"node", "port"};
  if (root->type != JSON_OBJECT) {
    fail(path, root, "the configuration must be a JSON object");
    goto out;
  }
  if (only_keys(path, root, known, 8) || get_u32(path, root, "domain", 1, 4294967294.0, &c->domain) ||
      get_u32(path, root, "node", 0, 4294967294.0, &c->node) ||
      get_u32(path, root, "dds_domain", 0, 230, &c->dds_domain) ||
      get_u32(path, root, "block_ms", 0, 60000, &c->block_ms) ||
      get_u32(path, root, "reader_depth", 0, 1000000, &c->reader_depth) ||
      get_u32(path, root, "history_depth", 0, 1000000, &c->history_depth))
    goto out;
  const json_t *outs = json_get(root, "outbound"), *ins = json_get(root, "inbound");
  if ((outs && outs->type != JSON_ARRAY) || (ins && ins->type != JSON_ARRAY)) {
    fail(path, outs && outs->type != JSON_ARRAY ? outs : ins, "\"outbound\" and \"inbound\" are arrays of routes");
    goto out;
  }
  if ((outs && outs->n > MCX_DDS_MAX_ROUTES) || (ins && ins->n > MCX_DDS_MAX_ROUTES)) {
    fail(path, root, "at most 32 routes each way");
    goto out;
  }
  for (int i = 0; outs && i < outs->n; i++) {
    const json_t *r = outs->items[i];
    mcx_dds_out_t *o = &c->out[c->nout++];
    if (r->type != JSON_OBJECT) {
      fail(path, r, "a route is an object");
      goto out;
    }
    const json_t *snd = json_get(r, "sender");
    if (only_keys(path, r, out_keys, 5) || get_u32(path, r, "port", 1, 4294967294.0, &o->port) ||
        get_u32(path, r, "min_readers", 0, 1000, &o->min_readers) ||
        get_topic(path, r, o->topic) || get_durability(path, r, &o->durability))
      goto out;
    if (snd && (snd->type != JSON_OBJECT || only_keys(path, snd, sender_keys, 2) ||
                get_u32(path, snd, "node", 1, 4294967294.0, &o->sender_node) ||
                get_u32(path, snd, "port", 1, 4294967294.0, &o->sender_port))) {
      if (snd->type != JSON_OBJECT)
        fail(path, snd, "\"sender\" is {\"node\": N, \"port\": P}");
      goto out;
    }
  }
  for (int i = 0; ins && i < ins->n; i++) {
    const json_t *r = ins->items[i];
    mcx_dds_in_t *o = &c->in[c->nin++];
    if (r->type != JSON_OBJECT) {
      fail(path, r, "a route is an object");
      goto out;
    }
    if (only_keys(path, r, in_keys, 4) || get_topic(path, r, o->topic) ||
        get_u32(path, r, "node", 1, 4294967294.0, &o->node) || get_u32(path, r, "port", 1, 4294967294.0, &o->port) ||
        get_durability(path, r, &o->durability))
      goto out;
  }
  if (mcx_dds_check(c, err, sizeof err)) {
    fprintf(stderr, "mca dds: %s: %s\n", path, err);
    goto out;
  }
  rc = 0;
out:
  json_free(root);
  return rc;
}

/* ---- --bench ------------------------------------------------------------
 * One process: a gateway thread (domain D, node 16100) with outbound ports
 * PING and PONG and inbound routes ping -> node 2 and pong -> node 1; node 1
 * (this thread) sends to PING and waits for the echo, node 2 echoes into
 * PONG. The raw pair: a participant of its own, writer and reader per
 * direction, the echo in a thread of its own, waitsets for both waits. The
 * same type (mcx::dds::Message), QoS (reliable, keep-all, volatile) and size. */
enum { B_ECHO = 0, B_SINK = 1, B_LAST = 2, B_QUIT = 3 };
#define PING_PORT 100u
#define PONG_PORT 101u
#define GW_NODE 16100u

static uint64_t now_ns(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

typedef struct bench {
  const dds_bench_opts_t *o;
  uint32_t domain;
  char ping[64], pong[64], rping[64], rpong[64];
  mcx_dds_config_t gw;
  volatile int node2_fail;
} bench_t;

static void *gw_thread(void *arg)
{
  bench_t *b = arg;
  if (mcx_dds_run(&b->gw, NULL))
    b->node2_fail = 1;
  return NULL;
}

/* Node 2: echoes what asks for it; B_LAST is echoed too (the end of a stream). */
static void *echo_thread(void *arg)
{
  bench_t *b = arg;
  mcapi_info_t info;
  mcapi_status_t st;
  mcapi_initialize(b->domain, 2, NULL, NULL, &info, &st);
  if (st != MCAPI_SUCCESS) {
    b->node2_fail = 1;
    return NULL;
  }
  mcapi_endpoint_t me = mcapi_endpoint_create(10, &st);
  mcapi_endpoint_t pong = mcapi_endpoint_get(b->domain, GW_NODE, PONG_PORT, MCAPI_TIMEOUT_INFINITE, &st);
  uint8_t *buf = malloc(MCAPI_MAX_MSG_SIZE);
  for (;;) {
    size_t n;
    mcapi_msg_recv(me, buf, MCAPI_MAX_MSG_SIZE, &n, &st);
    if (st != MCAPI_SUCCESS || !n || buf[0] == B_QUIT)
      break;
    if (buf[0] == B_ECHO || buf[0] == B_LAST)
      mcapi_msg_send(me, pong, buf, n, 1, &st);
  }
  free(buf);
  mcapi_finalize(&st);
  return NULL;
}

typedef struct raw {
  dds_entity_t pp, wping, rping, wpong, rpong, ws_ping, ws_pong;
  size_t size;
} raw_t;

static int raw_take(dds_entity_t rd, dds_entity_t ws, uint8_t *kind)
{
  for (;;) {
    void *s[1] = {NULL};
    dds_sample_info_t in[1];
    dds_return_t n = dds_take(rd, s, in, 1, 1);
    if (n < 0)
      return -1;
    if (n == 1) {
      const mcx_dds_Message *m = s[0];
      int valid = in[0].valid_data;
      *kind = valid && m->payload._length ? m->payload._buffer[0] : B_SINK;
      dds_return_loan(rd, s, n);
      if (valid)
        return 0;
      continue;
    }
    if (dds_waitset_wait(ws, NULL, 0, DDS_SECS(10)) <= 0)
      return -1;
  }
}

static void *raw_echo(void *arg)
{
  raw_t *r = arg;
  mcx_dds_Message m;
  memset(&m, 0, sizeof m);
  m.payload._buffer = calloc(1, r->size);
  m.payload._length = m.payload._maximum = (uint32_t)r->size;
  uint8_t kind;
  while (!raw_take(r->rping, r->ws_ping, &kind) && kind != B_QUIT)
    if (kind == B_ECHO || kind == B_LAST) {
      m.payload._buffer[0] = kind;
      dds_write(r->wpong, &m);
    }
  free(m.payload._buffer);
  return NULL;
}

static int raw_setup(raw_t *r, const bench_t *b)
{
  r->pp = dds_create_participant((dds_domainid_t)b->o->dds_domain, NULL, NULL);
  if (r->pp < 0)
    return -1;
  dds_qos_t *q = dds_create_qos();
  dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_SECS(10));
  dds_qset_history(q, DDS_HISTORY_KEEP_ALL, 0);
  dds_entity_t tping = dds_create_topic(r->pp, &mcx_dds_Message_desc, b->rping, NULL, NULL);
  dds_entity_t tpong = dds_create_topic(r->pp, &mcx_dds_Message_desc, b->rpong, NULL, NULL);
  r->wping = dds_create_writer(r->pp, tping, q, NULL);
  r->rping = dds_create_reader(r->pp, tping, q, NULL);
  r->wpong = dds_create_writer(r->pp, tpong, q, NULL);
  r->rpong = dds_create_reader(r->pp, tpong, q, NULL);
  dds_delete_qos(q);
  r->ws_ping = dds_create_waitset(r->pp);
  r->ws_pong = dds_create_waitset(r->pp);
  if (r->wping < 0 || r->rping < 0 || r->wpong < 0 || r->rpong < 0 || r->ws_ping < 0 || r->ws_pong < 0)
    return -1;
  dds_waitset_attach(r->ws_ping, dds_create_readcondition(r->rping, DDS_ANY_STATE), 0);
  dds_waitset_attach(r->ws_pong, dds_create_readcondition(r->rpong, DDS_ANY_STATE), 0);
  return 0;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double pct(double *v, int n, double p) /* v sorted */
{
  int i = (int)lround(p * (n - 1));
  return v[i];
}

static double median_of(const double *v, int n)
{
  double s[BENCH_MAX_ROUNDS];
  memcpy(s, v, (size_t)n * sizeof *s);
  qsort(s, (size_t)n, sizeof *s, cmp_double);
  return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

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

static void json_rounds(FILE *f, const double *v, int n, double div)
{
  fputc('[', f);
  for (int i = 0; i < n; i++)
    fprintf(f, "%s%.4g", i ? ", " : "", v[i] / div);
  fputc(']', f);
}

static void on_alarm(int sig)
{
  (void)sig;
  static const char m[] = "mca dds --bench: --timeout reached; stopped\n";
  if (write(2, m, sizeof m - 1) < 0) {
  }
  _exit(1);
}

static int dds_bench(const dds_bench_opts_t *o)
{
  static bench_t b;
  memset(&b, 0, sizeof b);
  b.o = o;
  b.domain = 3000u + (uint32_t)getpid() % 1000u;
  unsigned tag = (unsigned)getpid();
  snprintf(b.ping, sizeof b.ping, "mcxbench/ping/%u", tag);
  snprintf(b.pong, sizeof b.pong, "mcxbench/pong/%u", tag);
  snprintf(b.rping, sizeof b.rping, "mcxbench/rawping/%u", tag);
  snprintf(b.rpong, sizeof b.rpong, "mcxbench/rawpong/%u", tag);
  signal(SIGALRM, on_alarm);
  alarm((unsigned)o->timeout_s);
  mca_cleanup_on_interrupt("dds");
  mcx_dds_config_t *g = &b.gw;
  g->domain = b.domain, g->node = GW_NODE, g->dds_domain = (uint32_t)o->dds_domain;
  g->nout = 2, g->nin = 2;
  /* The raw pair's readers hold whatever comes (keep-all, no limit): the
   * gateway's may hold a whole stream too. */
  g->reader_depth = o->count + 64 < 1000000 ? (uint32_t)o->count + 64 : 1000000;
  g->out[0] = (mcx_dds_out_t){PING_PORT, "", 1, 10, MCX_DDS_VOLATILE, 1};
  g->out[1] = (mcx_dds_out_t){PONG_PORT, "", 2, 10, MCX_DDS_VOLATILE, 1};
  snprintf(g->out[0].topic, MCX_DDS_TOPIC_MAX, "%s", b.ping);
  snprintf(g->out[1].topic, MCX_DDS_TOPIC_MAX, "%s", b.pong);
  g->in[0] = (mcx_dds_in_t){"", 2, 10, MCX_DDS_VOLATILE};
  g->in[1] = (mcx_dds_in_t){"", 1, 10, MCX_DDS_VOLATILE};
  snprintf(g->in[0].topic, MCX_DDS_TOPIC_MAX, "%s", b.ping);
  snprintf(g->in[1].topic, MCX_DDS_TOPIC_MAX, "%s", b.pong);
  pthread_t gt, et, rt;
  if (pthread_create(&gt, NULL, gw_thread, &b) || pthread_create(&et, NULL, echo_thread, &b)) {
    fprintf(stderr, "mca dds --bench: no threads\n");
    return 1;
  }
  mcapi_info_t info;
  mcapi_status_t st;
  mcapi_initialize(b.domain, 1, NULL, NULL, &info, &st);
  if (st != MCAPI_SUCCESS) {
    fprintf(stderr, "mca dds --bench: mcapi_initialize: %s\n", mcapi_display_status(st, (char[64]){0}, 64));
    return 1;
  }
  mcapi_endpoint_t me = mcapi_endpoint_create(10, &st);
  mcapi_endpoint_t ping = mcapi_endpoint_get(b.domain, GW_NODE, PING_PORT, MCAPI_TIMEOUT_INFINITE, &st);
  raw_t raw = {.size = (size_t)o->size};
  if (raw_setup(&raw, &b) || pthread_create(&rt, NULL, raw_echo, &raw)) {
    fprintf(stderr, "mca dds --bench: the raw Cyclone DDS pair could not be made\n");
    return 1;
  }
  int rounds = (int)o->rounds, per = (int)(o->rtts / o->rounds), total = per * rounds;
  double *gw_all = calloc((size_t)total, sizeof(double)), *raw_all = calloc((size_t)total, sizeof(double));
  double *one = calloc((size_t)per, sizeof(double));
  double gw_med[BENCH_MAX_ROUNDS], raw_med[BENCH_MAX_ROUNDS], gw_rate[BENCH_MAX_ROUNDS], raw_rate[BENCH_MAX_ROUNDS];
  uint8_t *buf = calloc(1, MCAPI_MAX_MSG_SIZE);
  mcx_dds_Message m;
  memset(&m, 0, sizeof m);
  m.payload._buffer = calloc(1, (size_t)o->size);
  m.payload._length = m.payload._maximum = (uint32_t)o->size;
  size_t n;
  uint8_t kind;
  int rc = 1;
  /* Warm-up, which also waits until both paths carry messages. */
  for (int i = 0; i < 50; i++) {
    buf[0] = B_ECHO;
    mcapi_msg_send(me, ping, buf, (size_t)o->size, 1, &st);
    mcapi_msg_recv(me, buf, MCAPI_MAX_MSG_SIZE, &n, &st);
    m.payload._buffer[0] = B_ECHO;
    dds_write(raw.wping, &m);
    if (raw_take(raw.rpong, raw.ws_pong, &kind)) {
      fprintf(stderr, "mca dds --bench: a raw warm-up round trip failed\n");
      goto out;
    }
  }
  for (int r = 0; r < rounds; r++) {
    for (int i = 0; i < per; i++) { /* the gateway's round trips */
      uint64_t t0 = now_ns();
      buf[0] = B_ECHO;
      mcapi_msg_send(me, ping, buf, (size_t)o->size, 1, &st);
      if (st == MCAPI_SUCCESS)
        mcapi_msg_recv(me, buf, MCAPI_MAX_MSG_SIZE, &n, &st);
      if (st != MCAPI_SUCCESS) {
        fprintf(stderr, "mca dds --bench: a round trip failed: %s\n", mcapi_display_status(st, (char[64]){0}, 64));
        goto out;
      }
      one[i] = gw_all[r * per + i] = (double)(now_ns() - t0);
    }
    qsort(one, (size_t)per, sizeof *one, cmp_double);
    gw_med[r] = pct(one, per, 0.5);
    for (int i = 0; i < per; i++) { /* raw Cyclone DDS round trips */
      uint64_t t0 = now_ns();
      m.payload._buffer[0] = B_ECHO;
      if (dds_write(raw.wping, &m) < 0 || raw_take(raw.rpong, raw.ws_pong, &kind)) {
        fprintf(stderr, "mca dds --bench: a raw round trip failed\n");
        goto out;
      }
      one[i] = raw_all[r * per + i] = (double)(now_ns() - t0);
    }
    qsort(one, (size_t)per, sizeof *one, cmp_double);
    raw_med[r] = pct(one, per, 0.5);
    /* Throughput: count messages, the last one echoed. */
    uint64_t t0 = now_ns();
    for (long long i = 0; i < o->count; i++) {
      buf[0] = i + 1 == o->count ? B_LAST : B_SINK;
      mcapi_msg_send(me, ping, buf, (size_t)o->size, 1, &st);
      if (st != MCAPI_SUCCESS)
        goto out;
    }
    mcapi_msg_recv(me, buf, MCAPI_MAX_MSG_SIZE, &n, &st);
    if (st != MCAPI_SUCCESS || buf[0] != B_LAST) {
      fprintf(stderr, "mca dds --bench: a stream through the gateway failed\n");
      goto out;
    }
    gw_rate[r] = (double)o->count * 1e9 / (double)(now_ns() - t0);
    t0 = now_ns();
    for (long long i = 0; i < o->count; i++) {
      m.payload._buffer[0] = i + 1 == o->count ? B_LAST : B_SINK;
      if (dds_write(raw.wping, &m) < 0)
        goto out;
    }
    if (raw_take(raw.rpong, raw.ws_pong, &kind) || kind != B_LAST) {
      fprintf(stderr, "mca dds --bench: a raw stream failed\n");
      goto out;
    }
    raw_rate[r] = (double)o->count * 1e9 / (double)(now_ns() - t0);
  }
  qsort(gw_all, (size_t)total, sizeof *gw_all, cmp_double);
  qsort(raw_all, (size_t)total, sizeof *raw_all, cmp_double);
  double rr[BENCH_MAX_ROUNDS], tr[BENCH_MAX_ROUNDS];
  for (int i = 0; i < rounds; i++) {
    rr[i] = gw_med[i] / raw_med[i];
    tr[i] = raw_rate[i] / gw_rate[i];
  }
  char a1[64], a2[64];
  printf("mca dds --bench: %d rounds, %d round trips and %lld messages of %lld bytes per round, DDS domain %lld\n",
         rounds, per, o->count, o->size, o->dds_domain);
  printf("%-40s %10s  %-24s %s\n", "round trip, us", "median", "(min..max of rounds)", "p10..p90 of all");
  printf("%-40s %10.1f  %-24s %.1f..%.1f\n", "MCAPI -> gateway -> DDS -> gateway -> MCAPI", pct(gw_all, total, 0.5) / 1e3,
         range(a1, sizeof a1, gw_med, rounds, 1e3, 1), pct(gw_all, total, 0.1) / 1e3, pct(gw_all, total, 0.9) / 1e3);
  printf("%-40s %10.1f  %-24s %.1f..%.1f\n", "raw Cyclone DDS write/take", pct(raw_all, total, 0.5) / 1e3,
         range(a2, sizeof a2, raw_med, rounds, 1e3, 1), pct(raw_all, total, 0.1) / 1e3, pct(raw_all, total, 0.9) / 1e3);
  printf("%-40s %9.2fx  %s\n\n", "gateway / raw (per round)", median_of(rr, rounds), range(a1, sizeof a1, rr, rounds, 1, 2));
  printf("%-40s %10s  %s\n", "throughput, msgs/s", "median", "(min..max of rounds)");
  printf("%-40s %10.0f  %s\n", "MCAPI -> gateway -> DDS -> gateway -> MCAPI", median_of(gw_rate, rounds),
         range(a1, sizeof a1, gw_rate, rounds, 1, 0));
  printf("%-40s %10.0f  %s\n", "raw Cyclone DDS write/take", median_of(raw_rate, rounds),
         range(a2, sizeof a2, raw_rate, rounds, 1, 0));
  printf("%-40s %9.2fx  %s\n", "raw / gateway (per round)", median_of(tr, rounds), range(a1, sizeof a1, tr, rounds, 1, 2));
  rc = 0;
  if (o->json) {
    FILE *f = mca_output_open("dds", o->json);
    if (!f) {
      rc = 2;
      goto out;
    }
    mca_json_envelope(f, "mca-dds-bench/1");
    fprintf(f, "\"config\": {\"size\": %lld, \"count\": %lld, \"rtts\": %lld, \"rounds\": %d, \"dds_domain\": %lld},\n",
            o->size, o->count, o->rtts, rounds, o->dds_domain);
    fprintf(f, "\"round_trip_us\": {\"gateway\": {\"p10\": %.4g, \"p50\": %.4g, \"p90\": %.4g, \"rounds\": ",
            pct(gw_all, total, 0.1) / 1e3, pct(gw_all, total, 0.5) / 1e3, pct(gw_all, total, 0.9) / 1e3);
    json_rounds(f, gw_med, rounds, 1e3);
    fprintf(f, "},\n  \"raw\": {\"p10\": %.4g, \"p50\": %.4g, \"p90\": %.4g, \"rounds\": ", pct(raw_all, total, 0.1) / 1e3,
            pct(raw_all, total, 0.5) / 1e3, pct(raw_all, total, 0.9) / 1e3);
    json_rounds(f, raw_med, rounds, 1e3);
    fprintf(f, "},\n  \"gateway_over_raw\": {\"median\": %.4g, \"rounds\": ", median_of(rr, rounds));
    json_rounds(f, rr, rounds, 1);
    fprintf(f, "}},\n\"throughput_msgs_per_s\": {\"gateway\": {\"median\": %.6g, \"rounds\": ", median_of(gw_rate, rounds));
    json_rounds(f, gw_rate, rounds, 1);
    fprintf(f, "},\n  \"raw\": {\"median\": %.6g, \"rounds\": ", median_of(raw_rate, rounds));
    json_rounds(f, raw_rate, rounds, 1);
    fprintf(f, "},\n  \"raw_over_gateway\": {\"median\": %.4g, \"rounds\": ", median_of(tr, rounds));
    json_rounds(f, tr, rounds, 1);
    fprintf(f, "}}\n}\n");
    if (mca_output_close(f))
      rc = 2;
  }
out:
  /* Stop: the echoes, the gateway, the raw pair. */
  buf[0] = B_QUIT;
  mcapi_msg_send(me, mcapi_endpoint_get(b.domain, 2, 10, 1000, &st), buf, 1, 1, &st);
  m.payload._buffer[0] = B_QUIT;
  dds_write(raw.wping, &m);
  pthread_join(et, NULL);
  pthread_join(rt, NULL);
  mcx_dds_stop();
  pthread_join(gt, NULL);
  mcapi_finalize(&st);
  dds_delete(raw.pp);
  free(gw_all), free(raw_all), free(one), free(buf), free(m.payload._buffer);
  return rc;
}

int mca_cmd_dds(int argc, char **argv)
{
  dds_args_t a;
  int prc = parse_args(argc, argv, &a);
  if (prc)
    return prc > 0 ? usage(stdout) : MCA_EXIT_USAGE;
  if (a.r.bench) {
    if (a.r.json && !strcmp(a.r.json, "-"))
      mca_json_to_stdout();
    dds_bench_opts_t b = {a.r.size, a.r.count, a.r.rtts, a.r.rounds, a.r.timeout_s, a.dds_domain, a.r.json};
    return dds_bench(&b);
  }
  mcx_dds_config_t c;
  if (load_config(a.r.config, &c))
    return 1;
  if (a.r.check) {
    printf("mca dds: %s: domain %u, DDS domain %u, %u outbound and %u inbound route(s)\n", a.r.config, c.domain,
           c.dds_domain, c.nout, c.nin);
    return 0;
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  return mcx_dds_run(&c, NULL) == 0 ? 0 : 1;
}

#else

int mca_cmd_dds(int argc, char **argv)
{
  dds_args_t a;
  int prc = parse_args(argc, argv, &a);
  if (prc)
    return prc > 0 ? usage(stdout) : MCA_EXIT_USAGE;
  fprintf(stderr, "mca dds: not built: Cyclone DDS was not found at build time (Debian: cyclonedds-dev "
                  "cyclonedds-tools; CMake option MCX_WITH_DDS)\n");
  return 2;
}

#endif
