/* SPDX-License-Identifier: BSD-3-Clause */
/* mca bridge: joins this machine's domain to domains on other hosts
 * (docs/bridge.md); --bench measures what the bridge costs beside raw nng. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "json.h"
#include "mca_tool.h"
#include "mcapi.h"

static int usage(FILE *f)
{
  fprintf(f, "usage: mca bridge --config FILE\n"
             "       mca bridge --check FILE\n"
             "       mca bridge --bench [--transport ipc|tcp] [--netns] [--count N] [--rtts N] [--rounds N]\n"
             "                          [--size BYTES] [--timeout SECONDS] [--json FILE|-]\n\n"
             "Joins this machine's MCAPI domain to the domains of other hosts: the bridge is a\n"
             "node of its domain (node 16000 unless the configuration says otherwise) and holds\n"
             "nng connections to the other domains' bridges. mcapi_endpoint_get() of a\n"
             "(domain, node, port) of a configured domain then returns a proxy endpoint whose\n"
             "messages reach the remote one. Stop it with SIGINT or SIGTERM.\n\n"
             "  --config FILE  run with the JSON configuration FILE (docs/bridge.md):\n"
             "                 {\"domain\": 1, \"listen\": \"tcp://0.0.0.0:7301\",\n"
             "                  \"peers\": {\"2\": \"tcp://hostb:7302\"}, \"key_file\": \"/etc/mca/key\",\n"
             "                  \"state_dir\": \"/var/lib/mca-bridge\"}\n"
             "                 tls+tcp:// URLs add \"tls\": {\"cert_key\": PEM, \"ca\": PEM} (mutual TLS)\n"
             "                 \"keepalive_ms\": 20..60000 or \"off\" (default 500): pings on idle\n"
             "                 connections; one silent for 4 intervals is lost\n"
             "                 state_dir/status shows each peer's state (up, down, refused).\n"
             "  --check FILE   only read and check the configuration\n"
             "  --bench        message round trip and throughput between two domains bridged\n"
             "                 on this machine, beside raw nng req/rep and push/pull over the\n"
             "                 same transport, rounds alternating; the bridge's cost as ratios\n"
             "  --transport T  ipc (default) or tcp (127.0.0.1; with --netns over a veth pair)\n"
             "  --netns        each domain's side (bridge, node, nng peer) in a network namespace\n"
             "                 of its own, joined by a veth pair (10.78.0.1 - 10.78.0.2); needs\n"
             "                 root; the namespaces are made for the run and always removed\n"
             "  --count N      messages per throughput round (default 20000)\n"
             "  --rtts N       timed round trips, spread over the rounds (default 2000)\n"
             "  --rounds N     rounds (default 5, at most 16)\n"
             "  --size BYTES   message size (default 64)\n"
             "  --timeout S    the whole run is stopped after S seconds (default 600)\n"
             "  --json FILE    with --bench: also write the figures as JSON (schema\n"
             "                 mca-bridge-bench/1, docs/json.md); '-': the JSON to stdout, the\n"
             "                 table to stderr\n"
             "Exit status: 0 done, 1 the configuration was refused or the bridge or a\n"
             "measurement failed, 2 usage error.\n");
#ifndef MCA_HAVE_BRIDGE
  fprintf(f, "\nNot built here: nng was not found at build time (Debian: libnng-dev; CMake option MCX_BRIDGE).\n");
#endif
  return f == stderr ? 2 : 0;
}

/* What the command line asks for: run a bridge, check a configuration, or measure. */
typedef struct bridge_args {
  mca_run_opts_t r;
  const char *transport; /* --bench: "ipc" or "tcp" */
  int netns;
} bridge_args_t;

/* 0; 1: --help was asked for; -1 after a usage error (one line on stderr). */
static int parse_args(int argc, char **argv, bridge_args_t *a)
{
  static const mca_opt_t table[] = {
      MCA_RUN_OPTS, {"--transport", MCA_OPT_VALUE, 't'}, {"--netns", MCA_OPT_FLAG, 'n'}, {NULL, 0, 0}};
  mca_run_opts_init(&a->r);
  a->transport = "ipc";
  a->netns = 0;
  mca_opts_t s;
  mca_opts_init(&s, "bridge", argc, argv);
  for (int k; (k = mca_opts_next(&s, table)) != MCA_OPTS_END;) {
    int taken = mca_run_opt(&s, k, &a->r, MCA_BRIDGE_BENCH_MAX_ROUNDS);
    if (taken < 0)
      return -1;
    if (taken)
      continue;
    switch (k) {
    case 't':
      if (strcmp(s.value, "ipc") && strcmp(s.value, "tcp")) {
        mca_usage_error("bridge", "--transport: expected ipc or tcp, got '%s'", s.value);
        return -1;
      }
      a->transport = s.value;
      break;
    case 'n': a->netns = 1; break;
    case MCA_OPTS_HELP: return 1;
    case MCA_OPTS_OPERAND: mca_usage_error("bridge", "unexpected argument '%s'", s.value); return -1;
    default: return -1;
    }
  }
  return mca_run_opts_done(&s, &a->r, "bridges");
}

#ifdef MCA_HAVE_BRIDGE
#include "mcx_bridge.h"

static void on_signal(int sig)
{
  (void)sig;
  mcx_bridge_stop();
}

static int fail(const char *path, const json_t *v, const char *what)
{
  return json_cfg_fail("bridge", path, v, what);
}

static int get_u32(const char *path, const json_t *o, const char *key, int required, uint32_t *out)
{
  return json_cfg_u32("bridge", path, o, key, required, 4294967294.0, out);
}

static int get_str(const char *path, const json_t *o, const char *key, char *out, size_t cap)
{
  const json_t *v = json_get(o, key);
  char m[128];
  if (!v || v->type != JSON_STRING || !*v->str || strlen(v->str) >= cap) {
    snprintf(m, sizeof m, "\"%s\" must be a non-empty string (shorter than %zu)", key, cap);
    return fail(path, v ? v : o, m);
  }
  snprintf(out, cap, "%s", v->str);
  return 0;
}

static int url_ok(const char *u)
{
  return !strncmp(u, "tcp://", 6) || !strncmp(u, "ipc://", 6) || !strncmp(u, "tls+tcp://", 10);
}

/* Reads the configuration (docs/bridge.md: config format). */
int mca_bridge_load_config(const char *path, mcx_bridge_config_t *c);
int mca_bridge_load_config(const char *path, mcx_bridge_config_t *c)
{
  char err[512];
  memset(c, 0, sizeof *c);
  /* Before the parser: a regular file (never waited on), strings valid UTF-8 without NUL. */
  if (mcx_bridge_check_config_text(path, err, sizeof err)) {
    fprintf(stderr, "mca bridge: %s: %s\n", path, err);
    return -1;
  }
  json_t *root = json_parse_file(path, err, sizeof err);
  if (!root) {
    fprintf(stderr, "mca bridge: %s\n", err);
    return -1;
  }
  int rc = -1;
  char keyfile[256];
  const json_t *peers = json_get(root, "peers");
  if (root->type != JSON_OBJECT) {
    fail(path, root, "the configuration must be a JSON object");
    goto out;
  }
  static const char *known[] = {"domain", "node", "listen", "peers", "key_file", "state_dir", "window", "tls",
                                "keepalive_ms"};
  for (int i = 0; i < root->n; i++) {
    int ok = 0;
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
      ok |= !strcmp(root->keys[i], known[k]);
    if (!ok) {
      char m[160];
      snprintf(m, sizeof m, "unknown key \"%s\"", root->keys[i]);
      fail(path, root->items[i], m);
      goto out;
    }
  }
  if (get_u32(path, root, "domain", 1, &c->domain) || get_u32(path, root, "node", 0, &c->node) ||
      get_u32(path, root, "window", 0, &c->window) ||
      get_str(path, root, "listen", c->listen, sizeof c->listen) ||
      get_str(path, root, "key_file", keyfile, sizeof keyfile) ||
      get_str(path, root, "state_dir", c->state_dir, sizeof c->state_dir))
    goto out;
  /* Keep-alive (docs/bridge.md): an interval in ms, or "off". */
  const json_t *ka = json_get(root, "keepalive_ms");
  if (ka && ka->type == JSON_STRING && !strcmp(ka->str, "off")) {
    c->keepalive_ms = MCX_BRIDGE_KEEPALIVE_OFF;
  } else if (ka && (ka->type != JSON_NUMBER || ka->num < 20 || ka->num > 60000 ||
                    ka->num != (double)(uint32_t)ka->num)) {
    fail(path, ka, "\"keepalive_ms\" must be a whole number from 20 to 60000, or \"off\"");
    goto out;
  } else if (ka) {
    c->keepalive_ms = (uint32_t)ka->num;
  }
  if (c->window > 4096) {
    fail(path, json_get(root, "window"), "\"window\" must be at most 4096");
    goto out;
  }
  if (!peers || peers->type != JSON_OBJECT) {
    fail(path, peers ? peers : root, "\"peers\" must be an object: domain id -> URL");
    goto out;
  }
  if (peers->n > MCX_BRIDGE_MAX_PEERS) {
    fail(path, peers, "too many peers");
    goto out;
  }
  for (int i = 0; i < peers->n; i++) {
    char *end;
    errno = 0;
    unsigned long d = strtoul(peers->keys[i], &end, 10);
    const json_t *u = peers->items[i];
    if (!*peers->keys[i] || *end || errno || d > 4294967294ul || d == c->domain) {
      fail(path, u, "a peer's key must be a domain id other than the local one");
      goto out;
    }
    if (u->type != JSON_STRING || strlen(u->str) >= sizeof c->peers[0].url ||
        !url_ok(u->str)) {
      fail(path, u, "a peer's URL must be tcp://host:port, tls+tcp://host:port or ipc:///path");
      goto out;
    }
    for (unsigned k = 0; k < c->npeers; k++)
      if (c->peers[k].domain == d) {
        fail(path, u, "the same domain twice");
        goto out;
      }
    c->peers[c->npeers].domain = (uint32_t)d;
    snprintf(c->peers[c->npeers].url, sizeof c->peers[0].url, "%s", u->str);
    c->npeers++;
  }
  if (!url_ok(c->listen)) {
    fail(path, json_get(root, "listen"), "\"listen\" must be tcp://host:port, tls+tcp://host:port or ipc:///path");
    goto out;
  }
  const json_t *tls = json_get(root, "tls");
  int wants_tls = !strncmp(c->listen, "tls+", 4);
  for (unsigned k = 0; k < c->npeers; k++)
    wants_tls |= !strncmp(c->peers[k].url, "tls+", 4);
  if (tls && (tls->type != JSON_OBJECT || get_str(path, tls, "cert_key", c->tls_cert_key, sizeof c->tls_cert_key) ||
              get_str(path, tls, "ca", c->tls_ca, sizeof c->tls_ca)))
    goto out;
  if (wants_tls && !tls) {
    fail(path, root, "tls+tcp:// needs \"tls\": {\"cert_key\": PEM file, \"ca\": PEM file}");
    goto out;
  }
  /* The key, the state directory, the TLS files (docs/bridge.md: security). */
  if (mcx_bridge_read_key(keyfile, c, err, sizeof err) || mcx_bridge_check_files(c, err, sizeof err)) {
    fprintf(stderr, "mca bridge: %s: %s\n", path, err);
    goto out;
  }
  rc = 0;
out:
  json_free(root);
  return rc;
}

int mca_cmd_bridge(int argc, char **argv)
{
  bridge_args_t a;
  int prc = parse_args(argc, argv, &a);
  if (prc)
    return prc > 0 ? usage(stdout) : MCA_EXIT_USAGE;
  if (a.r.bench) {
    if (a.r.json && !strcmp(a.r.json, "-"))
      mca_json_to_stdout();
    mca_bridge_bench_opts_t b = {a.transport, a.netns, a.r.size, a.r.count, a.r.rtts, a.r.rounds, a.r.timeout_s,
                                 a.r.json};
    return mca_bridge_bench(&b);
  }
  const char *config = a.r.config;
  int check = a.r.check;
  mcx_bridge_config_t c;
  if (mca_bridge_load_config(config, &c))
    return 1;
  if (check) {
    printf("mca bridge: %s: domain %u, listen %s, %u peer(s), keep-alive ", config, c.domain, c.listen, c.npeers);
    if (c.keepalive_ms == MCX_BRIDGE_KEEPALIVE_OFF)
      printf("off\n");
    else
      printf("%u ms\n", c.keepalive_ms ? c.keepalive_ms : 500u);
    return 0;
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);
  return mcx_bridge_run(&c) == 0 ? 0 : 1;
}

#else

int mca_cmd_bridge(int argc, char **argv)
{
  bridge_args_t a;
  int prc = parse_args(argc, argv, &a);
  if (prc)
    return prc > 0 ? usage(stdout) : MCA_EXIT_USAGE;
  fprintf(stderr, "mca bridge: not built: nng was not found at build time (Debian: libnng-dev; "
                  "CMake option MCX_BRIDGE)\n");
  return 2;
}

#endif
