/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mca stress TOPOLOGY.json: the declarative topology of seed 000. Nodes (one
 * thread each, or one process each), routes between them (message, packet or
 * scalar), item counts, priorities, and an affinity mode. Every item carries
 * its route and a transaction id 1..N plus a checksummed fill; receivers check
 * order, completeness and content. The run ends when every sender has sent N
 * and every receiver has seen id N. Any loss, duplicate, reorder or corruption
 * exits 1 with what and where; a topology this build cannot run (channels or
 * process nodes not available) exits 77; a bad file exits 2 naming the line.
 */
#include <stdarg.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "cli.h"
#include "json.h"
#include "mca_tool.h"
#include "mcapi.h"
#include "mcx.h"

#define MAX_NODES 32
#define MAX_ROUTES 64
#define HDR 24
#define MAGIC 0x5354524bu /* "STRK" */
#define EXIT_SKIP 77

enum { R_MSG = 'm', R_PKT = 'p', R_SCL = 's' };

typedef struct route {
  int type;
  int from, to; /* node indexes */
  uint64_t count;
  unsigned priority;
  size_t size;   /* message / packet bytes */
  unsigned width; /* scalar bits */
  unsigned port;  /* receive port (messages may share one) */
  int line;
} route_t;

typedef struct node {
  unsigned id;
  int process;
  int line;
} node_t;

typedef struct topo {
  char name[64];
  int affinity; /* 0 onecore, 1 none, 2 spread */
  unsigned domain;
  node_t nodes[MAX_NODES];
  int nnodes;
  route_t routes[MAX_ROUTES];
  int nroutes;
} topo_t;

/* Shared between every node (threads and processes): MAP_SHARED. */
typedef struct shared {
  atomic_uint barrier_count, barrier_gen;
  atomic_int failed;
  atomic_int skip; /* the build cannot run this topology */
  atomic_ullong sent[MAX_ROUTES], seen[MAX_ROUTES];
  atomic_int nerrors;
  /* when any node last moved an item (ns, bench_now_ns): --timeout is a stall detector */
  atomic_ullong last_progress_ns;
  char errors[8][240];
  char skip_reason[240];
} shared_t;

static const topo_t *T;
static shared_t *S;
static double timeout_s = 60;
/* --inject: a deliberate fault on route 0 at id count/2, to prove the checks catch it */
static enum { INJ_NONE, INJ_LOSS, INJ_DUP, INJ_CORRUPT } inject;
static uint64_t t_start;

/* ------------------------------------------------------------ reading the topology */
static const char *path_g;
static int bad(int line, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(int line, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "mca stress: %s:%d: ", path_g, line);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return -1;
}

static int check_keys(const json_t *o, const char *what, const char *const *allowed)
{
  for (int i = 0; i < o->n; i++) {
    int ok = 0;
    for (const char *const *a = allowed; *a; a++)
      if (!strcmp(o->keys[i], *a))
        ok = 1;
    if (!ok) {
      char list[256] = "";
      for (const char *const *a = allowed; *a; a++) {
        strncat(list, *a, sizeof list - strlen(list) - 1);
        if (a[1])
          strncat(list, ", ", sizeof list - strlen(list) - 1);
      }
      return bad(o->key_lines[i], "unknown member \"%s\" in %s (allowed: %s)", o->keys[i], what, list);
    }
  }
  return 0;
}

static int get_uint(const json_t *o, const char *key, uint64_t lo, uint64_t hi, uint64_t dflt,
                    uint64_t *out, const char *what)
{
  const json_t *v = json_get(o, key);
  if (!v) {
    if (dflt == UINT64_MAX)
      return bad(o->line, "%s needs \"%s\"", what, key);
    *out = dflt;
    return 0;
  }
  if (v->type != JSON_NUMBER || v->num != (double)(uint64_t)v->num)
    return bad(v->line, "\"%s\" of %s must be a whole number, not %s", key, what,
               v->type == JSON_NUMBER ? "a fraction" : json_type_name(v->type));
  if (v->num < (double)lo || v->num > (double)hi)
    return bad(v->line, "\"%s\" of %s is %.0f; it must be %llu..%llu", key, what, v->num,
               (unsigned long long)lo, (unsigned long long)hi);
  *out = (uint64_t)v->num;
  return 0;
}

static int node_index(const topo_t *t, uint64_t id)
{
  for (int i = 0; i < t->nnodes; i++)
    if (t->nodes[i].id == id)
      return i;
  return -1;
}

static int load_topology(const char *path, topo_t *t, uint64_t count_override)
{
  path_g = path;
  char err[512];
  json_t *root = json_parse_file(path, err, sizeof err);
  if (!root) {
    /* "path: line L, column C: ..." -> "path:L: column C: ..." */
    const char *l = strstr(err, ": line ");
    if (l)
      fprintf(stderr, "mca stress: %s:%d:%s\n", path, atoi(l + 7), strchr(l + 7, ',') + 1);
    else
      fprintf(stderr, "mca stress: %s\n", err);
    return -1;
  }
  int rc = -1;
  memset(t, 0, sizeof *t);
  static const char *const top_keys[] = {"name", "affinity", "domain", "count", "nodes", "routes",
                                         "description", NULL};
  static const char *const node_keys[] = {"id", "kind", NULL};
  static const char *const route_keys[] = {"type", "from", "to", "count", "priority", "size",
                                           "width", "port", NULL};
  if (root->type != JSON_OBJECT) {
    bad(root->line, "a topology is a JSON object, not %s", json_type_name(root->type));
    goto out;
  }
  if (check_keys(root, "the topology", top_keys))
    goto out;
  const json_t *v = json_get(root, "name");
  snprintf(t->name, sizeof t->name, "%s", v && v->type == JSON_STRING ? v->str : path);
  v = json_get(root, "affinity");
  t->affinity = 2;
  if (v) {
    if (v->type != JSON_STRING || (strcmp(v->str, "onecore") && strcmp(v->str, "none") && strcmp(v->str, "spread"))) {
      bad(v->line, "\"affinity\" must be \"onecore\", \"none\" or \"spread\"");
      goto out;
    }
    t->affinity = !strcmp(v->str, "onecore") ? 0 : !strcmp(v->str, "none") ? 1 : 2;
  }
  uint64_t dom, count;
  if (get_uint(root, "domain", 0, 0xfffffffe, 0x20000000u + ((uint64_t)getpid() & 0xfffffff), &dom, "the topology") ||
      get_uint(root, "count", 1, 1ull << 40, 10000, &count, "the topology"))
    goto out;
  t->domain = (unsigned)dom;
  const json_t *nodes = json_get(root, "nodes");
  if (!nodes || nodes->type != JSON_ARRAY || nodes->n == 0) {
    bad(nodes ? nodes->line : root->line, "\"nodes\" must be a non-empty array of {\"id\": N}");
    goto out;
  }
  if (nodes->n > MAX_NODES) {
    bad(nodes->line, "at most %d nodes", MAX_NODES);
    goto out;
  }
  for (int i = 0; i < nodes->n; i++) {
    const json_t *n = nodes->items[i];
    if (n->type != JSON_OBJECT) {
      bad(n->line, "a node is an object like {\"id\": 1}, not %s", json_type_name(n->type));
      goto out;
    }
    if (check_keys(n, "a node", node_keys))
      goto out;
    uint64_t id;
    if (get_uint(n, "id", 0, 1000000, UINT64_MAX, &id, "a node"))
      goto out;
    if (node_index(t, id) >= 0) {
      bad(n->line, "node id %llu is declared twice (first on line %d)", (unsigned long long)id,
          t->nodes[node_index(t, id)].line);
      goto out;
    }
    node_t *nd = &t->nodes[t->nnodes++];
    nd->id = (unsigned)id;
    nd->line = n->line;
    const json_t *k = json_get(n, "kind");
    if (k) {
      if (k->type != JSON_STRING || (strcmp(k->str, "thread") && strcmp(k->str, "process"))) {
        bad(k->line, "\"kind\" of a node must be \"thread\" or \"process\"");
        goto out;
      }
      nd->process = !strcmp(k->str, "process");
    }
  }
  const json_t *routes = json_get(root, "routes");
  if (!routes || routes->type != JSON_ARRAY || routes->n == 0) {
    bad(routes ? routes->line : root->line, "\"routes\" must be a non-empty array");
    goto out;
  }
  if (routes->n > MAX_ROUTES) {
    bad(routes->line, "at most %d routes", MAX_ROUTES);
    goto out;
  }
  for (int i = 0; i < routes->n; i++) {
    const json_t *r = routes->items[i];
    if (r->type != JSON_OBJECT) {
      bad(r->line, "a route is an object, not %s", json_type_name(r->type));
      goto out;
    }
    if (check_keys(r, "a route", route_keys))
      goto out;
    route_t *rt = &t->routes[t->nroutes++];
    rt->line = r->line;
    const json_t *ty = json_get(r, "type");
    if (!ty || ty->type != JSON_STRING ||
        (strcmp(ty->str, "message") && strcmp(ty->str, "packet") && strcmp(ty->str, "scalar"))) {
      bad(ty ? ty->line : r->line, "a route needs \"type\": \"message\", \"packet\" or \"scalar\"");
      goto out;
    }
    rt->type = ty->str[0] == 'm' ? R_MSG : ty->str[0] == 'p' ? R_PKT : R_SCL;
    uint64_t from, to, cnt, prio, size, width, port;
    if (get_uint(r, "from", 0, 1000000, UINT64_MAX, &from, "a route") ||
        get_uint(r, "to", 0, 1000000, UINT64_MAX, &to, "a route") ||
        get_uint(r, "count", 1, 1ull << 40, count, &cnt, "a route") ||
        get_uint(r, "priority", 0, MCAPI_MAX_PRIORITY, 1, &prio, "a route") ||
        get_uint(r, "size", HDR, rt->type == R_PKT ? MCAPI_MAX_PKT_SIZE : MCAPI_MAX_MSG_SIZE, 64, &size, "a route") ||
        get_uint(r, "width", 8, 64, 64, &width, "a route") ||
        get_uint(r, "port", 1, 999, 100 + (uint64_t)i, &port, "a route"))
      goto out;
    if (node_index(t, from) < 0 || node_index(t, to) < 0) {
      bad(r->line, "route %d goes from node %llu to node %llu, but node %llu is not declared in \"nodes\"",
          i, (unsigned long long)from, (unsigned long long)to,
          (unsigned long long)(node_index(t, from) < 0 ? from : to));
      goto out;
    }
    if (from == to) {
      bad(r->line, "route %d goes from node %llu to itself", i, (unsigned long long)from);
      goto out;
    }
    if (width != 8 && width != 16 && width != 32 && width != 64) {
      bad(json_get(r, "width")->line, "\"width\" of a scalar route must be 8, 16, 32 or 64");
      goto out;
    }
    if (rt->type != R_MSG && (json_get(r, "port") || json_get(r, "priority"))) {
      bad(r->line, "\"port\" and \"priority\" apply to message routes only (channels are 1:1)");
      goto out;
    }
    rt->from = node_index(t, from);
    rt->to = node_index(t, to);
    rt->count = count_override ? count_override : cnt;
    rt->priority = (unsigned)prio;
    rt->size = size;
    rt->width = (unsigned)width;
    rt->port = (unsigned)port;
  }
  /* a receive port is one endpoint: all routes to it must be messages to the same node */
  for (int i = 0; i < t->nroutes; i++)
    for (int j = 0; j < i; j++)
      if (t->routes[i].type == R_MSG && t->routes[j].type == R_MSG &&
          t->routes[i].to == t->routes[j].to && t->routes[i].port == t->routes[j].port &&
          t->routes[i].from == t->routes[j].from && t->routes[i].priority == t->routes[j].priority) {
        bad(t->routes[i].line, "route %d repeats route %d (same sender, receiver, port and priority); "
                               "raise \"count\" instead", i, j);
        goto out;
      }
  rc = 0;
out:
  json_free(root);
  return rc;
}

/* ------------------------------------------------------------ payload */
static uint32_t fnv(const unsigned char *p, size_t n)
{
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++)
    h = (h ^ p[i]) * 16777619u;
  return h;
}

static void fill(unsigned char *b, int route, uint64_t seq, size_t size)
{
  uint32_t m = MAGIC, r = (uint32_t)route, len = (uint32_t)size;
  memcpy(b, &m, 4);
  memcpy(b + 4, &r, 4);
  memcpy(b + 8, &seq, 8);
  memcpy(b + 16, &len, 4);
  uint64_t x = seq * 0x9e3779b97f4a7c15ull + (uint64_t)route;
  for (size_t i = HDR; i < size; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    b[i] = (unsigned char)x;
  }
  uint32_t sum = fnv(b + HDR, size - HDR);
  memcpy(b + 20, &sum, 4);
}

static void report(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void report(const char *fmt, ...)
{
  /* after the first problem, peers tearing down make follow-on errors: keep the first cause */
  if (atomic_exchange(&S->failed, 1) && strstr(fmt, "completed with"))
    return;
  int k = atomic_fetch_add(&S->nerrors, 1);
  if (k >= 8)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(S->errors[k], sizeof S->errors[k], fmt, ap);
  va_end(ap);
}

static const char *tn(int t) { return t == R_MSG ? "message" : t == R_PKT ? "packet" : "scalar"; }

static void route_name(int r, char *b, size_t n)
{
  const route_t *rt = &T->routes[r];
  snprintf(b, n, "route %d (%s %u->%u%s, line %d)", r, tn(rt->type), T->nodes[rt->from].id,
           T->nodes[rt->to].id, rt->type == R_MSG ? "" : " channel", rt->line);
}

/* Checks one received item of route r against what it expects next. */
static int check_item(int r, uint64_t *expect, const unsigned char *b, size_t got)
{
  char rn[128];
  route_name(r, rn, sizeof rn);
  const route_t *rt = &T->routes[r];
  uint32_t magic, rid, len, sum;
  uint64_t seq;
  memcpy(&magic, b, 4);
  memcpy(&rid, b + 4, 4);
  memcpy(&seq, b + 8, 8);
  memcpy(&len, b + 16, 4);
  memcpy(&sum, b + 20, 4);
  if (magic != MAGIC || got < HDR) {
    report("%s: corrupt item after id %llu: bad header (magic %08x, %zu bytes)", rn,
           (unsigned long long)*expect - 1, magic, got);
    return -1;
  }
  if ((int)rid != r) {
    report("%s: item of route %u delivered here (id %llu): misrouted", rn, rid, (unsigned long long)seq);
    return -1;
  }
  if (len != got || got != rt->size) {
    report("%s: item id %llu has %zu bytes, sent %u, route size %zu: truncated or torn", rn,
           (unsigned long long)seq, got, len, rt->size);
    return -1;
  }
  if (fnv(b + HDR, got - HDR) != sum) {
    report("%s: item id %llu: payload checksum mismatch (corrupted)", rn, (unsigned long long)seq);
    return -1;
  }
  if (seq != *expect) {
    if (seq < *expect)
      report("%s: id %llu after id %llu: duplicate or reorder", rn, (unsigned long long)seq,
             (unsigned long long)*expect - 1);
    else
      report("%s: expected id %llu, got %llu: %llu item(s) lost or reordered", rn,
             (unsigned long long)*expect, (unsigned long long)seq, (unsigned long long)(seq - *expect));
    return -1;
  }
  ++*expect;
  return 0;
}

static int check_scalar(int r, uint64_t *expect, uint64_t v)
{
  const route_t *rt = &T->routes[r];
  uint64_t mask = rt->width == 64 ? ~0ull : (1ull << rt->width) - 1;
  uint64_t want = rt->width == 64 ? ((uint64_t)r << 48 | *expect) : *expect;
  if (v != (want & mask)) {
    char rn[128];
    route_name(r, rn, sizeof rn);
    report("%s: expected scalar id %llu (0x%llx), got 0x%llx: loss, duplicate or corruption", rn,
           (unsigned long long)*expect, (unsigned long long)(want & mask), (unsigned long long)v);
    return -1;
  }
  ++*expect;
  return 0;
}

/* ------------------------------------------------------------ node */
static int barrier(int parties)
{
  unsigned gen = atomic_load(&S->barrier_gen);
  if (atomic_fetch_add(&S->barrier_count, 1) == (unsigned)parties - 1) {
    atomic_store(&S->barrier_count, 0);
    atomic_fetch_add(&S->barrier_gen, 1);
    return atomic_load(&S->failed);
  }
  uint64_t deadline = bench_now_ns() + (uint64_t)(timeout_s * 1e9);
  unsigned k = 0;
  while (atomic_load(&S->barrier_gen) == gen) {
    if (atomic_load(&S->failed))
      return 1;
    if (bench_now_ns() > deadline) {
      report("a node did not reach the start line within %.0f s", timeout_s);
      return 1;
    }
    bench_relax(&k);
  }
  return atomic_load(&S->failed);
}

typedef struct out_route {
  int r;
  mcapi_endpoint_t me, dest;
  mcapi_pktchan_send_hndl_t ph;
  mcapi_sclchan_send_hndl_t sh;
  mcapi_request_t req;
  int pending;
  uint64_t next; /* next id to send */
  unsigned char *buf;
} out_route_t;

typedef struct in_route {
  int r;
  mcapi_endpoint_t ep;
  mcapi_pktchan_recv_hndl_t ph;
  mcapi_sclchan_recv_hndl_t sh;
} in_route_t;

static mcapi_endpoint_t recv_ep_for(int node, unsigned port, mcapi_endpoint_t *eps, unsigned *ports, int *n,
                                    mcapi_status_t *st)
{
  for (int i = 0; i < *n; i++)
    if (ports[i] == port) {
      *st = MCAPI_SUCCESS;
      return eps[i];
    }
  mcapi_endpoint_t e = mcapi_endpoint_create(port, st);
  if (*st == MCAPI_SUCCESS) {
    eps[*n] = e;
    ports[(*n)++] = port;
  }
  return e;
}

static const char *sn(mcapi_status_t st)
{
  static _Thread_local char b[MCAPI_MAX_STATUS_MSG_LEN];
  return mcapi_display_status(st, b, sizeof b) ? b : "?";
}

static int run_node(int ni)
{
  const node_t *nd = &T->nodes[ni];
  int parties = T->nnodes;
  if (T->affinity == 0)
    bench_pin(bench_cpu(0));
  else if (T->affinity == 2)
    bench_pin(bench_cpu(ni));
  mcapi_status_t st;
  mcapi_info_t info;
  mcapi_initialize(T->domain, nd->id, NULL, NULL, &info, &st);
  if (st != MCAPI_SUCCESS) {
    report("node %u: mcapi_initialize: %s", nd->id, sn(st));
    barrier(parties);
    return 1;
  }
  out_route_t outs[MAX_ROUTES];
  in_route_t ins[MAX_ROUTES];
  int nout = 0, nin = 0, nrecv_eps = 0;
  mcapi_endpoint_t recv_eps[MAX_ROUTES];
  unsigned recv_ports[MAX_ROUTES];
  uint64_t expect[MAX_ROUTES];
  /* 1. endpoints */
  for (int r = 0; r < T->nroutes && !atomic_load(&S->failed); r++) {
    const route_t *rt = &T->routes[r];
    expect[r] = 1;
    if (rt->to == ni) {
      in_route_t *in = &ins[nin++];
      memset(in, 0, sizeof *in);
      in->r = r;
      if (rt->type == R_MSG)
        in->ep = recv_ep_for(ni, rt->port, recv_eps, recv_ports, &nrecv_eps, &st);
      else
        in->ep = mcapi_endpoint_create(2000 + (unsigned)r, &st);
      if (st != MCAPI_SUCCESS)
        report("node %u: endpoint for route %d: %s", nd->id, r, sn(st));
    }
    if (rt->from == ni) {
      out_route_t *o = &outs[nout++];
      memset(o, 0, sizeof *o);
      o->r = r;
      o->next = 1;
      o->buf = malloc(rt->size > 64 ? rt->size : 64);
      o->me = mcapi_endpoint_create(1000 + (unsigned)r, &st);
      if (st != MCAPI_SUCCESS)
        report("node %u: endpoint for route %d: %s", nd->id, r, sn(st));
    }
  }
  if (barrier(parties))
    goto done;
  /* 2. find the receivers; connect and open channels */
  for (int i = 0; i < nout && !atomic_load(&S->failed); i++) {
    const route_t *rt = &T->routes[outs[i].r];
    unsigned port = rt->type == R_MSG ? rt->port : 2000 + (unsigned)outs[i].r;
    outs[i].dest = mcapi_endpoint_get(T->domain, T->nodes[rt->to].id, port, 3000, &st);
    if (st == MCAPI_TIMEOUT && (T->nodes[rt->to].process || nd->process)) {
      snprintf(S->skip_reason, sizeof S->skip_reason,
               "node %u cannot see node %u's endpoint from another process within 3 s: "
               "cross-process domains are not available in this build", nd->id, T->nodes[rt->to].id);
      atomic_store(&S->skip, 1);
      atomic_store(&S->failed, 1);
      break;
    }
    if (st != MCAPI_SUCCESS) {
      report("node %u: mcapi_endpoint_get(node %u, port %u): %s", nd->id, T->nodes[rt->to].id, port, sn(st));
      break;
    }
    if (rt->type != R_MSG) {
      mcapi_request_t req;
      size_t sz;
      if (rt->type == R_PKT)
        mcapi_pktchan_connect_i(outs[i].me, outs[i].dest, &req, &st);
      else
        mcapi_sclchan_connect_i(outs[i].me, outs[i].dest, &req, &st);
      if (st == MCAPI_PENDING || st == MCAPI_SUCCESS) /* SUCCESS: completed at once, the request reports it */
        mcapi_wait(&req, &sz, 10000, &st);
      if (st != MCAPI_SUCCESS) {
        report("node %u: connect route %d: %s", nd->id, outs[i].r, sn(st));
        break;
      }
    }
  }
  {
    mcapi_request_t reqs[2 * MAX_ROUTES];
    int nreq = 0;
    for (int i = 0; i < nout && !atomic_load(&S->failed); i++) {
      const route_t *rt = &T->routes[outs[i].r];
      if (rt->type == R_PKT)
        mcapi_pktchan_send_open_i(&outs[i].ph, outs[i].me, &reqs[nreq], &st);
      else if (rt->type == R_SCL)
        mcapi_sclchan_send_open_i(&outs[i].sh, outs[i].me, &reqs[nreq], &st);
      else
        continue;
      if (st != MCAPI_PENDING && st != MCAPI_SUCCESS)
        report("node %u: open send side of route %d: %s", nd->id, outs[i].r, sn(st));
      else
        nreq++;
    }
    for (int i = 0; i < nin && !atomic_load(&S->failed); i++) {
      const route_t *rt = &T->routes[ins[i].r];
      if (rt->type == R_PKT)
        mcapi_pktchan_recv_open_i(&ins[i].ph, ins[i].ep, &reqs[nreq], &st);
      else if (rt->type == R_SCL)
        mcapi_sclchan_recv_open_i(&ins[i].sh, ins[i].ep, &reqs[nreq], &st);
      else
        continue;
      if (st != MCAPI_PENDING && st != MCAPI_SUCCESS)
        report("node %u: open receive side of route %d: %s", nd->id, ins[i].r, sn(st));
      else
        nreq++;
    }
    for (int i = 0; i < nreq && !atomic_load(&S->failed); i++) {
      size_t sz;
      mcapi_wait(&reqs[i], &sz, 10000, &st);
      if (st != MCAPI_SUCCESS)
        report("node %u: channel open did not complete: %s", nd->id, sn(st));
    }
  }
  if (barrier(parties))
    goto done;
  /* 3. traffic */
  {
    unsigned char *rbuf = malloc(MCAPI_MAX_MSG_SIZE > MCAPI_MAX_PKT_SIZE ? MCAPI_MAX_MSG_SIZE : MCAPI_MAX_PKT_SIZE);
    uint64_t stall_ns = (uint64_t)(timeout_s * 1e9), last_seen = bench_now_ns();
    for (;;) {
      int progress = 0, busy = 0;
      for (int i = 0; i < nout; i++) {
        out_route_t *o = &outs[i];
        const route_t *rt = &T->routes[o->r];
        if (o->pending) {
          size_t sz;
          if (!mcapi_test(&o->req, &sz, &st))
            {
              busy = 1;
              continue;
            }
          if (st != MCAPI_SUCCESS) {
            report("route %d: send of id %llu completed with %s", o->r, (unsigned long long)o->next, sn(st));
            break;
          }
          o->pending = 0;
          atomic_store(&S->sent[o->r], o->next);
          o->next++;
          progress = 1;
        }
        for (int burst = 0; burst < 16 && o->next <= rt->count && !o->pending; burst++) {
          busy = 1;
          if (rt->type == R_SCL) {
            uint64_t v = rt->width == 64 ? ((uint64_t)o->r << 48 | o->next) : o->next;
            switch (rt->width) {
            case 64: mcapi_sclchan_send_uint64(o->sh, v, &st); break;
            case 32: mcapi_sclchan_send_uint32(o->sh, (uint32_t)v, &st); break;
            case 16: mcapi_sclchan_send_uint16(o->sh, (uint16_t)v, &st); break;
            default: mcapi_sclchan_send_uint8(o->sh, (uint8_t)v, &st); break;
            }
            if (st != MCAPI_SUCCESS) {
              report("route %d: scalar send of id %llu: %s", o->r, (unsigned long long)o->next, sn(st));
              break;
            }
            atomic_store(&S->sent[o->r], o->next);
            o->next++;
            progress = 1;
            continue;
          }
          fill(o->buf, o->r, o->next, rt->size);
          if (o->r == 0 && inject && o->next == rt->count / 2 + 1) { /* only route 0's sender touches inject */
            if (inject == INJ_LOSS) { /* skip this id entirely */
              fill(o->buf, o->r, ++o->next, rt->size);
            } else if (inject == INJ_CORRUPT) {
              o->buf[rt->size - 1] ^= 0x40;
            } else { /* send the previous id again */
              fill(o->buf, o->r, o->next - 1, rt->size);
              inject = INJ_NONE;
              o->next--;
            }
            if (inject != INJ_NONE)
              inject = INJ_NONE;
          }
          if (rt->type == R_MSG)
            mcapi_msg_send_i(o->me, o->dest, o->buf, rt->size, rt->priority, &o->req, &st);
          else
            mcapi_pktchan_send_i(o->ph, o->buf, rt->size, &o->req, &st);
          if (st != MCAPI_PENDING && st != MCAPI_SUCCESS) {
            report("route %d: send of id %llu: %s", o->r, (unsigned long long)o->next, sn(st));
            break;
          }
          o->pending = 1;
          size_t sz;
          if (mcapi_test(&o->req, &sz, &st)) {
            if (st != MCAPI_SUCCESS) {
              report("route %d: send of id %llu completed with %s", o->r, (unsigned long long)o->next, sn(st));
              break;
            }
            o->pending = 0;
            atomic_store(&S->sent[o->r], o->next);
            o->next++;
            progress = 1;
          }
        }
      }
      /* receive: message endpoints may carry several routes */
      for (int e = 0; e < nrecv_eps; e++) {
        for (int burst = 0; burst < 64; burst++) {
          if (!mcapi_msg_available(recv_eps[e], &st))
            break;
          size_t got;
          mcapi_msg_recv(recv_eps[e], rbuf, MCAPI_MAX_MSG_SIZE, &got, &st);
          if (st != MCAPI_SUCCESS) {
            report("node %u: mcapi_msg_recv on port %u: %s", nd->id, recv_ports[e], sn(st));
            break;
          }
          uint32_t rid = 0;
          if (got >= 8)
            memcpy(&rid, rbuf + 4, 4);
          if (rid >= (uint32_t)T->nroutes || T->routes[rid].to != ni || T->routes[rid].type != R_MSG) {
            report("node %u port %u: item with unknown route %u (%zu bytes): corrupt or misrouted", nd->id,
                   recv_ports[e], rid, got);
            break;
          }
          if (check_item((int)rid, &expect[rid], rbuf, got))
            break;
          atomic_store(&S->seen[rid], expect[rid] - 1);
          progress = 1;
        }
      }
      for (int i = 0; i < nin; i++) {
        const route_t *rt = &T->routes[ins[i].r];
        int r = ins[i].r;
        if (rt->type == R_MSG)
          continue;
        for (int burst = 0; burst < 64 && expect[r] <= rt->count; burst++) {
          if (rt->type == R_PKT) {
            if (!mcapi_pktchan_available(ins[i].ph, &st))
              break;
            void *p;
            size_t got;
            mcapi_pktchan_recv(ins[i].ph, &p, &got, &st);
            if (st != MCAPI_SUCCESS) {
              report("route %d: mcapi_pktchan_recv: %s", r, sn(st));
              break;
            }
            int bad_item = check_item(r, &expect[r], p, got);
            mcapi_pktchan_release(p, &st);
            if (bad_item)
              break;
          } else {
            if (!mcapi_sclchan_available(ins[i].sh, &st))
              break;
            uint64_t v;
            switch (rt->width) {
            case 64: v = mcapi_sclchan_recv_uint64(ins[i].sh, &st); break;
            case 32: v = mcapi_sclchan_recv_uint32(ins[i].sh, &st); break;
            case 16: v = mcapi_sclchan_recv_uint16(ins[i].sh, &st); break;
            default: v = mcapi_sclchan_recv_uint8(ins[i].sh, &st); break;
            }
            if (st != MCAPI_SUCCESS) {
              report("route %d: scalar receive: %s", r, sn(st));
              break;
            }
            if (check_scalar(r, &expect[r], v))
              break;
          }
          atomic_store(&S->seen[r], expect[r] - 1);
          progress = 1;
        }
      }
      int done_all = 1;
      for (int i = 0; i < nout; i++)
        if (outs[i].next <= T->routes[outs[i].r].count || outs[i].pending)
          done_all = 0;
      for (int i = 0; i < nin; i++)
        if (expect[ins[i].r] <= T->routes[ins[i].r].count)
          done_all = 0;
      if (done_all || atomic_load(&S->failed))
        break;
      uint64_t now = bench_now_ns();
      if (progress) {
        /* a relaxed stamp: only its age matters, read by the other nodes' stall checks */
        atomic_store_explicit(&S->last_progress_ns, now, memory_order_relaxed);
        last_seen = now;
      } else {
        uint64_t last = atomic_load_explicit(&S->last_progress_ns, memory_order_relaxed);
        if (last > last_seen)
          last_seen = last;
        if (now > last_seen + stall_ns) {
          report("node %u: stalled: no item moved on any route for %.0f s (see the per-route tally)", nd->id,
                 timeout_s);
          break;
        }
      }
      if (!progress)
        sched_yield();
      (void)busy;
    }
    /* anything extra that arrives before everyone is done is a duplicate */
    free(rbuf);
  }
  barrier(parties);
  for (int e = 0; e < nrecv_eps; e++) {
    if (mcapi_msg_available(recv_eps[e], &st) && !atomic_load(&S->failed))
      report("node %u port %u: %u item(s) left over after every id was seen: duplicates", nd->id,
             recv_ports[e], (unsigned)mcapi_msg_available(recv_eps[e], &st));
  }
  barrier(parties);
done:
  for (int i = 0; i < nout; i++) {
    const route_t *rt = &T->routes[outs[i].r];
    mcapi_request_t req;
    size_t sz;
    st = MCAPI_ERR_CHAN_INVALID; /* no channel on this route: nothing to close */
    if (rt->type == R_PKT && outs[i].ph)
      mcapi_pktchan_send_close_i(outs[i].ph, &req, &st);
    else if (rt->type == R_SCL && outs[i].sh)
      mcapi_sclchan_send_close_i(outs[i].sh, &req, &st);
    if (st == MCAPI_PENDING || st == MCAPI_SUCCESS) /* SUCCESS: completed at once, the request reports it */
      mcapi_wait(&req, &sz, 5000, &st);
    free(outs[i].buf);
  }
  for (int i = 0; i < nin; i++) {
    const route_t *rt = &T->routes[ins[i].r];
    mcapi_request_t req;
    size_t sz;
    st = MCAPI_ERR_CHAN_INVALID; /* no channel on this route: nothing to close */
    if (rt->type == R_PKT && ins[i].ph)
      mcapi_pktchan_recv_close_i(ins[i].ph, &req, &st);
    else if (rt->type == R_SCL && ins[i].sh)
      mcapi_sclchan_recv_close_i(ins[i].sh, &req, &st);
    if (st == MCAPI_PENDING || st == MCAPI_SUCCESS) /* SUCCESS: completed at once, the request reports it */
      mcapi_wait(&req, &sz, 5000, &st);
  }
  mcapi_finalize(&st);
  return atomic_load(&S->failed) ? 1 : 0;
}

static void *node_thread(void *arg)
{
  run_node((int)(intptr_t)arg);
  return NULL;
}

/* ------------------------------------------------------------ command */
static void usage(FILE *o)
{
  fprintf(o, "usage: mca stress [--count N] [--timeout S] [--cpus LIST] [--prio N] [--json FILE|-]\n"
             "                  [--inject K] TOPOLOGY.json\n\n"
             "Runs the topology (nodes, routes of messages, packets and scalars) and checks\n"
             "every item: order, loss, duplicates, corruption. Exit 0: all verified; 1: a\n"
             "check failed (what and where on stderr); 2: usage error or bad topology\n"
             "(file:line: problem); 77: this build cannot run the topology (channels or\n"
             "process nodes unavailable).\n"
             "  --count N    items per route, overriding the file (1 or more)\n"
             "  --timeout S  stall detector: fail when no item moves on any route for S seconds\n"
             "               (default 60); a long run that keeps moving is never cut short\n"
             "  --cpus LIST  CPUs the nodes are pinned to, e.g. 0,1 or 0-3 (default: every CPU\n"
             "               this process may run on); affinity onecore uses the first, spread\n"
             "               places node i on the i-th CPU of the list, none does not pin\n"
             "  --prio N     run the nodes under SCHED_FIFO priority N (1-99; default: the normal\n"
             "               scheduler)\n"
             "  --json FILE  write the result as JSON (schema mca-stress/1, docs/json.md); '-': stdout\n"
             "  --inject K   deliberately break route 0 at id N/2 (K: loss, dup, corrupt) to\n"
             "               check that the verification catches it (must exit 1)\n"
             "Ctrl-C stops the process nodes and removes the partition and queues of the run.\n"
             "Example topologies (*.json): %s; format: docs/benchmarks.md.\n",
          mca_tool_topology_dir());
}

/* --json: the envelope, the topology, every route's tally, the verdict. */
static int write_json(const char *path, const char *file, const char *status, double secs)
{
  FILE *f = mca_output_open("stress", path);
  if (!f)
    return -1;
  int procs = 0;
  for (int i = 0; i < T->nnodes; i++)
    procs += T->nodes[i].process;
  mca_json_envelope(f, "mca-stress/1");
  fputs("\"topology\": {\"name\": ", f);
  mca_json_str(f, T->name);
  fputs(", \"file\": ", f);
  mca_json_str(f, file);
  fprintf(f, ", \"nodes\": %d, \"processes\": %d, \"affinity\": \"%s\"},\n\"config\": {\"timeout_s\": %g, "
             "\"inject\": \"%s\"},\n\"routes\": [",
          T->nnodes, procs, (const char *[]){"onecore", "none", "spread"}[T->affinity], timeout_s,
          (const char *[]){"none", "loss", "dup", "corrupt"}[inject]);
  int failed = atomic_load(&S->failed) && strcmp(status, "skipped");
  for (int r = 0; r < T->nroutes; r++) {
    const route_t *rt = &T->routes[r];
    uint64_t seen = atomic_load(&S->seen[r]);
    fprintf(f, "%s\n  {\"route\": %d, \"type\": \"%s\", \"from\": %u, \"to\": %u, \"size\": %zu, \"count\": %llu, "
               "\"sent\": %llu, \"verified\": %llu, \"problems\": %d, \"line\": %d}",
            r ? "," : "", r, tn(rt->type), T->nodes[rt->from].id, T->nodes[rt->to].id,
            rt->type == R_SCL ? (size_t)rt->width / 8 : rt->size, (unsigned long long)rt->count,
            (unsigned long long)atomic_load(&S->sent[r]), (unsigned long long)seen,
            failed && seen != rt->count ? 1 : 0, rt->line);
  }
  int n = atomic_load(&S->nerrors);
  fprintf(f, "\n],\n\"result\": {\"status\": \"%s\", \"verified\": %s, \"elapsed_s\": %.3f, \"problems\": [", status,
          strcmp(status, "ok") ? "false" : "true", secs);
  for (int i = 0; i < n && i < 8; i++) {
    fputs(i ? ", " : "", f);
    mca_json_str(f, S->errors[i]);
  }
  if (!strcmp(status, "skipped")) {
    fputs(n ? ", " : "", f);
    mca_json_str(f, S->skip_reason);
  }
  fputs("]}\n}\n", f);
  return mca_output_close(f);
}

int mca_cmd_stress(int argc, char **argv)
{
  static const mca_opt_t table[] = {{"--count", MCA_OPT_VALUE, 'c'}, {"--timeout", MCA_OPT_VALUE, 't'},
                                     {"--inject", MCA_OPT_VALUE, 'i'}, {"--cpus", MCA_OPT_VALUE, 'C'},
                                     {"--prio", MCA_OPT_VALUE, 'p'},   {"--json", MCA_OPT_VALUE, 'j'},
                                     {NULL, 0, 0}};
  uint64_t count = 0;
  int prio = 0;
  const char *json = NULL, *file = NULL;
  mca_opts_t s;
  mca_opts_init(&s, "stress", argc, argv);
  for (int k; (k = mca_opts_next(&s, table)) != MCA_OPTS_END;) {
    switch (k) {
    case 'c': {
      long long v;
      if (mca_parse_int("stress", "--count", s.value, 1, 1000000000000LL, &v))
        return MCA_EXIT_USAGE;
      count = (uint64_t)v;
      break;
    }
    case 't':
      if (mca_parse_num("stress", "--timeout", s.value, 0.001, 1e6, &timeout_s))
        return MCA_EXIT_USAGE;
      break;
    case 'C':
      if (mca_parse_cpus("stress", s.value))
        return MCA_EXIT_USAGE;
      break;
    case 'p':
      if (mca_parse_prio("stress", s.value, &prio))
        return MCA_EXIT_USAGE;
      break;
    case 'j': json = s.value; break;
    case 'i':
      inject = !strcmp(s.value, "loss") ? INJ_LOSS : !strcmp(s.value, "dup") ? INJ_DUP
             : !strcmp(s.value, "corrupt") ? INJ_CORRUPT : INJ_NONE;
      if (inject == INJ_NONE)
        return mca_usage_error("stress", "--inject: expected loss, dup or corrupt, got '%s'", s.value);
      break;
    case MCA_OPTS_OPERAND:
      if (file)
        return mca_usage_error("stress", "one TOPOLOGY.json at a time, got '%s' and '%s'", file, s.value);
      file = s.value;
      break;
    case MCA_OPTS_HELP: usage(stdout); return 0;
    default: return MCA_EXIT_USAGE;
    }
  }
  if (!file)
    return mca_usage_error("stress", "expected a TOPOLOGY.json (mca stress --help; examples in %s)",
                           mca_tool_topology_dir());
  if (json && mca_check_output("stress", "--json", json))
    return MCA_EXIT_USAGE;
  if (json && !strcmp(json, "-"))
    mca_json_to_stdout();
  static topo_t topo;
  if (load_topology(file, &topo, count))
    return 2;
  T = &topo;
  if (prio && mca_set_prio("stress", prio))
    return MCA_EXIT_USAGE;
  mca_cleanup_on_interrupt("stress");
  /* what the build provides */
  int needs_pkt = 0, needs_scl = 0, procs = 0;
  for (int r = 0; r < topo.nroutes; r++) {
    needs_pkt |= topo.routes[r].type == R_PKT;
    needs_scl |= topo.routes[r].type == R_SCL;
  }
  for (int i = 0; i < topo.nnodes; i++)
    procs += topo.nodes[i].process;
  char why[200] = "";
  int have = bench_probe_channels(why, sizeof why);
  if ((needs_pkt && !(have & 1)) || (needs_scl && !(have & 2))) {
    printf("mca stress: %s: SKIPPED: uses %s%s%s channels, which this build does not provide (%s)\n",
           topo.name, needs_pkt ? "packet" : "", needs_pkt && needs_scl ? " and " : "",
           needs_scl ? "scalar" : "", why);
    return EXIT_SKIP;
  }
  S = bench_shared_alloc(sizeof *S);
  if (!S) {
    fprintf(stderr, "mca stress: out of memory\n");
    return 1;
  }
  printf("mca stress: %s: %d nodes (%d processes), %d routes, affinity %s\n", topo.name, topo.nnodes,
         procs, topo.nroutes, (const char *[]){"onecore", "none", "spread"}[topo.affinity]);
  fflush(stdout);
  t_start = bench_now_ns();
  pthread_t th[MAX_NODES];
  pid_t pids[MAX_NODES];
  for (int i = 0; i < topo.nnodes; i++) {
    pids[i] = 0;
    if (topo.nodes[i].process) {
      pids[i] = fork();
      if (pids[i] == 0)
        _exit(run_node(i));
    } else {
      pthread_create(&th[i], NULL, node_thread, (void *)(intptr_t)i);
    }
  }
  for (int i = 0; i < topo.nnodes; i++) {
    if (topo.nodes[i].process) {
      int st;
      waitpid(pids[i], &st, 0);
      if (WIFSIGNALED(st))
        report("node %u (process %d) died of signal %d", topo.nodes[i].id, (int)pids[i], WTERMSIG(st));
    } else {
      pthread_join(th[i], NULL);
    }
  }
  double secs = (double)(bench_now_ns() - t_start) / 1e9;
  if (atomic_load(&S->skip)) {
    printf("mca stress: %s: SKIPPED: %s\n", topo.name, S->skip_reason);
    if (json)
      write_json(json, file, "skipped", secs);
    return EXIT_SKIP;
  }
  uint64_t total = 0;
  int failed = atomic_load(&S->failed);
  for (int r = 0; r < topo.nroutes; r++) {
    char rn[128];
    route_name(r, rn, sizeof rn);
    uint64_t seen = atomic_load(&S->seen[r]);
    total += seen;
    if (failed || seen != topo.routes[r].count)
      fprintf(stderr, "  %-44s sent %llu, verified %llu of %llu\n", rn,
              (unsigned long long)atomic_load(&S->sent[r]), (unsigned long long)seen,
              (unsigned long long)topo.routes[r].count);
    if (!failed && seen != topo.routes[r].count) {
      report("%s: %llu of %llu items verified", rn, (unsigned long long)seen,
             (unsigned long long)topo.routes[r].count);
      failed = 1;
    }
  }
  if (failed) {
    int n = atomic_load(&S->nerrors);
    fprintf(stderr, "mca stress: %s: FAILED (%d problem%s):\n", topo.name, n, n == 1 ? "" : "s");
    for (int i = 0; i < n && i < 8; i++)
      fprintf(stderr, "  %s\n", S->errors[i]);
    if (json)
      write_json(json, file, "failed", secs);
    return 1;
  }
  if (json && write_json(json, file, "ok", secs))
    return 1;
  printf("mca stress: %s: OK: %llu items on %d routes verified in order, complete and intact in %.2f s (%.0f items/s)\n",
         topo.name, (unsigned long long)total, topo.nroutes, secs, (double)total / secs);
  return 0;
}
