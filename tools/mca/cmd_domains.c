/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mca domains: the MCAPI domain partitions of this user in /dev/shm — nodes
 * (pid, tid, alive), endpoints with their queue depth, high-water mark,
 * messages sent, received and dropped, channel state and waiting threads
 * — as a table, as JSON (--json), or refreshed like top
 * (--watch), with each bridge's peers (docs/bridge.md) from its status
 * file. --clean removes what dead processes left (partitions whose
 * nodes all died, invalid headers, message queues of partitions that are
 * gone) and names each thing it removed.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "mca_tool.h"
#include "mcapi.h"
#include "mcx_bridge.h"
#include "mcx_introspect.h"

enum { MAX_PARTS = 256, MAX_SHOWN_EPS = 1024, MAX_SHOWN_NODES = 256, MAX_SHOWN_PRIOS = 8 };

/* A bridge (docs/bridge.md): a live node holding the bridge's well-known
 * endpoint; its peers as its status file says. */
enum { MAX_SHOWN_BRIDGES = 4, MAX_SHOWN_PEERS = 16 };
typedef struct bridge_peer {
  uint32_t domain;
  char url[256], state[16], why[160];
  unsigned long long sent, acked, delivered, dropped;
} bridge_peer_t;

typedef struct bridge_info {
  uint32_t node, pid;
  char status[512]; /* "" when not found */
  int npeers;
  bridge_peer_t peers[MAX_SHOWN_PEERS];
} bridge_info_t;

/* A partition as the library reads it (mcx_introspect.h), with its bridges. */
typedef struct part_info {
  char name[MCX_PART_NAME_MAX];
  mcx_part_info_t s; /* state, why, totals; never MCX_PART_UNSIZED here (inspect judges it) */
  int nnodes, neps;  /* records shown: the first of s.nodes, s.endpoints */
  mcx_part_node_t nodes[MAX_SHOWN_NODES];
  mcx_part_endpoint_t eps[MAX_SHOWN_EPS];
  int nbridges;
  bridge_info_t bridges[MAX_SHOWN_BRIDGES];
} part_info_t;

/* The bridge process @p pid keeps its delivery records mapped
 * (state_dir/delivered-dA-from-dB): the status file is beside them. Found
 * through /proc/PID/maps, so a bridge started by any program is found, with
 * its state directory's absolute path. */
static int bridge_status_path(uint32_t pid, char *out, size_t n)
{
  char path[64], line[1024];
  snprintf(path, sizeof path, "/proc/%u/maps", pid);
  FILE *f = fopen(path, "r");
  if (!f)
    return -1;
  int found = -1;
  while (found && fgets(line, sizeof line, f)) {
    char *target = strchr(line, '/');
    if (!target)
      continue;
    target[strcspn(target, "\n")] = 0;
    char *slash = strrchr(target, '/');
    if (strncmp(slash, "/delivered-d", 12) || !strstr(slash, "-from-d"))
      continue;
    *slash = 0;
    found = (size_t)snprintf(out, n, "%s/status", target) < n ? 0 : -1;
  }
  fclose(f);
  return found;
}

static void read_bridge_status(bridge_info_t *b)
{
  FILE *f = fopen(b->status, "r");
  if (!f) {
    b->status[0] = 0;
    return;
  }
  char line[1024];
  while (fgets(line, sizeof line, f) && b->npeers < MAX_SHOWN_PEERS) {
    bridge_peer_t *q = &b->peers[b->npeers];
    if (sscanf(line,
               "peer domain %u url %255s state %15s attempts %*u sent %llu acked %llu "
               "delivered %llu dropped %llu",
               &q->domain, q->url, q->state, &q->sent, &q->acked, &q->delivered, &q->dropped) != 7)
      continue;
    const char *w = strstr(line, " why \"");
    snprintf(q->why, sizeof q->why, "%s", w ? w + 6 : "");
    char *end = strrchr(q->why, '"');
    if (end)
      *end = 0;
    b->npeers++;
  }
  fclose(f);
}

static void find_bridges(part_info_t *p)
{
  for (int i = 0; i < p->neps && p->nbridges < MAX_SHOWN_BRIDGES; i++) {
    if (p->eps[i].port != MCX_BRIDGE_PORT)
      continue;
    for (int k = 0; k < p->nnodes; k++) {
      if (p->nodes[k].node != p->eps[i].node || !p->nodes[k].alive)
        continue;
      bridge_info_t *b = &p->bridges[p->nbridges++];
      memset(b, 0, sizeof *b);
      b->node = p->nodes[k].node, b->pid = p->nodes[k].pid;
      if (bridge_status_path(b->pid, b->status, sizeof b->status) == 0)
        read_bridge_status(b);
      else
        b->status[0] = 0;
      break;
    }
  }
}

/* Reads one partition into *p (a snapshot of live state). */
static void inspect(const char *name, part_info_t *p)
{
  memset(p, 0, sizeof *p);
  snprintf(p->name, sizeof p->name, "%s", name);
  mcx_part_info_t *s = &p->s;
  if (mcx_part_inspect(name, s, p->nodes, MAX_SHOWN_NODES, p->eps, MAX_SHOWN_EPS)) {
    s->state = MCX_PART_UNREADABLE;
    snprintf(s->why, sizeof s->why, "not a partition name");
    return;
  }
  if (s->state == MCX_PART_UNSIZED) {
    /* Created but never sized: its creator died between creating and sizing
     * it, unless that happened just now (a creator at work). */
    char path[320];
    struct stat st;
    snprintf(path, sizeof path, "/dev/shm%s", name);
    s->state = stat(path, &st) == 0 && time(NULL) - st.st_mtime < 2 ? MCX_PART_CREATING : MCX_PART_INVALID;
    if (s->state == MCX_PART_INVALID)
      snprintf(s->why, sizeof s->why, "not sized: its creator died before sizing it");
    return;
  }
  p->nnodes = s->nodes < MAX_SHOWN_NODES ? (int)s->nodes : MAX_SHOWN_NODES;
  p->neps = s->endpoints < MAX_SHOWN_EPS ? (int)s->endpoints : MAX_SHOWN_EPS;
  if (s->state == MCX_PART_OK)
    find_bridges(p);
}

static const char *chan_state(uint32_t s)
{
  if (!s)
    return "message endpoint";
  const char *side = (s & MCAPI_ENDP_STATUS_SEND_SIDE) ? "send side" : "receive side";
  static char buf[64];
  const char *st = (s & MCAPI_ENDP_STATUS_OPEN)            ? "open"
                   : (s & MCAPI_ENDP_STATUS_OPEN_PENDING)  ? "open pending"
                   : (s & MCAPI_ENDP_STATUS_CLOSE_PENDING) ? "close pending"
                   : (s & MCAPI_ENDP_STATUS_CONNECTED)     ? "connected, closed"
                                                           : "not connected";
  snprintf(buf, sizeof buf, "channel %s, %s", side, st);
  return buf;
}

static double mib(const mcx_part_info_t *s) { return (double)s->size / (1 << 20); }

static void print_text(FILE *o, const part_info_t *p)
{
  const mcx_part_info_t *s = &p->s;
  switch (s->state) {
  case MCX_PART_UNREADABLE: fprintf(o, "%s: %s\n", p->name, s->why); return;
  case MCX_PART_CREATING: fprintf(o, "%s: being created\n", p->name); return;
  case MCX_PART_INVALID:
    fprintf(o, "%s: %s (mca domains --clean removes it)\n", p->name, s->why);
    return;
  default: break;
  }
  fprintf(o, "%s: domain %u, %s locking, %s, %.1f MiB reserved, %u node(s) alive, %u dead\n", p->name, s->domain,
          s->locking_name, s->compat == MCX_COMPAT_MCA203 ? "mca-2.0.3 profile" : "spec profile", mib(s),
          s->nodes_alive, s->nodes - s->nodes_alive);
  for (int i = 0; i < p->nnodes; i++)
    fprintf(o, "  node %u: pid %u tid %u %s\n", p->nodes[i].node, p->nodes[i].pid, p->nodes[i].tid,
            p->nodes[i].alive ? "alive" : "DEAD");
  for (int i = 0; i < p->neps; i++) {
    const mcx_part_endpoint_t *e = &p->eps[i];
    char per[128] = "";
    size_t k = 0;
    for (uint32_t q = 0; q < s->priorities && q < MAX_SHOWN_PRIOS; q++)
      if (e->queued_per_priority[q] && k < sizeof per - 16)
        k += (size_t)snprintf(per + k, sizeof per - k, " p%u:%u", q, e->queued_per_priority[q]);
    fprintf(o, "  endpoint node %u port %u: %u queued (depth %u per priority, high-water %u)%s%s; %s; waiting: "
               "%u receiver(s), %u sender(s); messages sent %llu, received %llu, dropped %llu\n",
            e->node, e->port, e->queued, e->depth, e->high_water, *per ? " —" : "", per,
            chan_state(e->channel_status), e->waiting_receivers, e->waiting_senders,
            (unsigned long long)e->sent, (unsigned long long)e->received,
            (unsigned long long)e->dropped);
  }
  fprintf(o, "  %u of %u endpoints in use, %u messages queued, %u of %u message buffers in use\n",
          s->endpoints, s->max_endpoints, s->queued, s->msg_buffers_in_use, s->msg_buffers);
  for (int i = 0; i < p->nbridges; i++) {
    const bridge_info_t *b = &p->bridges[i];
    if (!b->status[0]) {
      fprintf(o, "  bridge node %u (pid %u): no status file found (no delivery record mapped in /proc/%u/maps)\n",
              b->node, b->pid, b->pid);
      continue;
    }
    fprintf(o, "  bridge node %u (pid %u): %d peer(s), status %s\n", b->node, b->pid, b->npeers, b->status);
    for (int k = 0; k < b->npeers; k++) {
      const bridge_peer_t *q = &b->peers[k];
      fprintf(o, "  bridge node %u peer domain %u url %s state %s sent %llu acked %llu delivered %llu dropped %llu "
                 "why \"%s\"\n",
              b->node, q->domain, q->url, q->state, q->sent, q->acked, q->delivered, q->dropped, q->why);
    }
  }
}

static void print_json(FILE *o, const part_info_t *p, int first)
{
  static const char *const states[] = {[MCX_PART_OK] = "ok", [MCX_PART_CREATING] = "being created",
                                       [MCX_PART_INVALID] = "invalid header", [MCX_PART_UNREADABLE] = "unreadable"};
  const mcx_part_info_t *s = &p->s;
  fprintf(o, "%s\n  {\"name\": ", first ? "" : ",");
  mca_json_str(o, p->name + 1);
  fprintf(o, ", \"state\": \"%s\"", states[s->state]);
  if (s->state != MCX_PART_OK) {
    fputs("}", o);
    return;
  }
  fprintf(o, ", \"domain\": %u, \"locking\": \"%s\", \"profile\": \"%s\", \"reserved_mib\": %.2f, "
             "\"nodes_alive\": %u, \"nodes_dead\": %u, \"endpoints_max\": %u, \"queued\": %u, "
             "\"msg_buffers\": %u, \"msg_buffers_in_use\": %u,\n   \"nodes\": [",
          s->domain, s->locking_name, s->compat == MCX_COMPAT_MCA203 ? "mca-2.0.3" : "spec", mib(s),
          s->nodes_alive, s->nodes - s->nodes_alive, s->max_endpoints, s->queued, s->msg_buffers,
          s->msg_buffers_in_use);
  for (int i = 0; i < p->nnodes; i++)
    fprintf(o, "%s{\"node\": %u, \"pid\": %u, \"tid\": %u, \"alive\": %s}", i ? ", " : "", p->nodes[i].node,
            p->nodes[i].pid, p->nodes[i].tid, p->nodes[i].alive ? "true" : "false");
  fputs("],\n   \"endpoints\": [", o);
  for (int i = 0; i < p->neps; i++) {
    const mcx_part_endpoint_t *e = &p->eps[i];
    fprintf(o, "%s\n    {\"node\": %u, \"port\": %u, \"queued\": %u, \"depth\": %u, \"queued_per_priority\": [",
            i ? "," : "", e->node, e->port, e->queued, e->depth);
    for (uint32_t q = 0; q < s->priorities && q < MAX_SHOWN_PRIOS; q++)
      fprintf(o, "%s%u", q ? ", " : "", e->queued_per_priority[q]);
    fprintf(o,
            "], \"high_water\": %u, \"sent\": %llu, \"received\": %llu, \"dropped\": %llu, \"channel\": \"%s\", "
            "\"waiting_receivers\": %u, \"waiting_senders\": %u}",
            e->high_water, (unsigned long long)e->sent, (unsigned long long)e->received,
            (unsigned long long)e->dropped, chan_state(e->channel_status), e->waiting_receivers, e->waiting_senders);
  }
  fputs("],\n   \"bridges\": [", o);
  for (int i = 0; i < p->nbridges; i++) {
    const bridge_info_t *b = &p->bridges[i];
    fprintf(o, "%s\n    {\"node\": %u, \"pid\": %u, \"status_file\": ", i ? "," : "", b->node, b->pid);
    if (b->status[0])
      mca_json_str(o, b->status);
    else
      fputs("null", o);
    fputs(", \"peers\": [", o);
    for (int k = 0; k < b->npeers; k++) {
      const bridge_peer_t *q = &b->peers[k];
      fprintf(o, "%s{\"domain\": %u, \"url\": ", k ? ", " : "", q->domain);
      mca_json_str(o, q->url);
      fputs(", \"state\": ", o);
      mca_json_str(o, q->state);
      fprintf(o, ", \"sent\": %llu, \"acked\": %llu, \"delivered\": %llu, \"dropped\": %llu, \"why\": ", q->sent,
              q->acked, q->delivered, q->dropped);
      mca_json_str(o, q->why);
      fputs("}", o);
    }
    fputs("]}", o);
  }
  fputs("]}", o);
}

/* The message queues of partition @p name (pmq transport): "/name-p..." in /dev/mqueue. */
static int remove_queues(const char *name, FILE *log)
{
  DIR *d = opendir("/dev/mqueue");
  if (!d)
    return 0;
  char prefix[320];
  snprintf(prefix, sizeof prefix, "%s-p", name + 1);
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)))
    if (!strncmp(e->d_name, prefix, strlen(prefix))) {
      char path[600];
      snprintf(path, sizeof path, "/dev/mqueue/%s", e->d_name);
      if (unlink(path) == 0) {
        if (log)
          fprintf(log, "  removed message queue /%s\n", e->d_name);
        n++;
      }
    }
  closedir(d);
  return n;
}

/* Lists partition names ("/mcx-<uid>-...-d<N>") with @p prefix (mcx_part_prefix). */
static int list_parts(const char *prefix, char names[][MCX_PART_NAME_MAX], int cap)
{
  DIR *dir = opendir("/dev/shm");
  if (!dir)
    return -1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(dir)) && n < cap) {
    if (strncmp(e->d_name, prefix, strlen(prefix)) || !strstr(e->d_name, "-d") ||
        strlen(e->d_name) >= MCX_PART_NAME_MAX - 1)
      continue;
    snprintf(names[n++], MCX_PART_NAME_MAX, "/%s", e->d_name);
  }
  closedir(dir);
  return n;
}

static char (*part_names)[MCX_PART_NAME_MAX];

int mca_domains_remove_owned(const int *pids, int npids, FILE *log)
{
  char prefix[64];
  if (mcx_part_prefix(NULL, prefix, sizeof prefix))
    return 0;
  if (!part_names && !(part_names = calloc(MAX_PARTS, sizeof *part_names)))
    return 0;
  int n = list_parts(prefix, part_names, MAX_PARTS), removed = 0;
  part_info_t *p = malloc(sizeof *p);
  if (!p)
    return 0;
  for (int i = 0; i < n; i++) {
    inspect(part_names[i], p);
    if (p->s.state != MCX_PART_OK || !p->nnodes)
      continue;
    int ours = 0, foreign = 0;
    for (int k = 0; k < p->nnodes; k++) {
      int mine = 0;
      for (int j = 0; j < npids; j++)
        mine |= (int)p->nodes[k].pid == pids[j];
      ours |= mine;
      foreign |= !mine && p->nodes[k].alive;
    }
    if (!ours || foreign)
      continue;
    if (mcx_part_remove(part_names[i]) == 0) {
      if (log)
        fprintf(log, "  removed partition %s (domain %u)\n", part_names[i], p->s.domain);
      removed++;
    }
    remove_queues(part_names[i], log);
  }
  free(p);
  return removed;
}

/* The pid of a live process that maps /dev/shm/@p name (another libmca
 * release, whose header this one cannot read, or a creator still writing
 * it), or 0. Scans /proc/<pid>/maps. */
static unsigned mapped_by(const char *name)
{
  DIR *d = opendir("/proc");
  if (!d)
    return 0;
  char want[320];
  snprintf(want, sizeof want, "/dev/shm%s%s", name[0] == '/' ? "" : "/", name);
  size_t wl = strlen(want);
  unsigned found = 0;
  struct dirent *e;
  while (!found && (e = readdir(d))) {
    char *end;
    unsigned long pid = strtoul(e->d_name, &end, 10);
    if (!pid || *end || pid == (unsigned long)getpid())
      continue;
    char path[64], line[1024];
    snprintf(path, sizeof path, "/proc/%lu/maps", pid);
    FILE *f = fopen(path, "r");
    if (!f)
      continue;
    while (fgets(line, sizeof line, f)) {
      char *at = strstr(line, want);
      if (at && (at[wl] == '\n' || at[wl] == ' ' || at[wl] == 0)) {
        found = (unsigned)pid;
        break;
      }
    }
    fclose(f);
  }
  closedir(d);
  return found;
}

/* --clean: partitions with no live node or an invalid header, and queues whose partition is gone. */
static int clean(const char *prefix, int json_out)
{
  int n = list_parts(prefix, part_names, MAX_PARTS), removed = 0, queues = 0;
  FILE *log = json_out ? stderr : stdout;
  part_info_t *p = malloc(sizeof *p);
  if (!p || n < 0) {
    free(p);
    fprintf(stderr, "mca domains: cannot list /dev/shm\n");
    return 1;
  }
  for (int i = 0; i < n; i++) {
    inspect(part_names[i], p);
    const mcx_part_info_t *s = &p->s;
    int gone = s->state == MCX_PART_INVALID || (s->state == MCX_PART_OK && s->nodes_alive == 0 && s->nodes > 0);
    if (!gone)
      continue;
    unsigned user = s->state == MCX_PART_INVALID ? mapped_by(part_names[i]) : 0;
    if (user) { /* a header this release cannot read, in use: not ours to judge */
      fprintf(log, "left partition %s: %s, but process %u maps it\n", part_names[i],
              s->why, user);
      continue;
    }
    if (mcx_part_remove(part_names[i]) == 0) {
      fprintf(log, "removed partition %s: %s\n", part_names[i],
              s->state == MCX_PART_INVALID ? s->why : "every node dead");
      for (int k = 0; k < p->nnodes; k++)
        fprintf(log, "  node %u: pid %u tid %u dead\n", p->nodes[k].node, p->nodes[k].pid, p->nodes[k].tid);
      if (s->queued)
        fprintf(log, "  %u queued message(s) dropped\n", s->queued);
      removed++;
    }
    queues += remove_queues(part_names[i], log);
  }
  /* message queues whose partition no longer exists */
  DIR *d = opendir("/dev/mqueue");
  if (d) {
    struct dirent *e;
    while ((e = readdir(d))) {
      if (strncmp(e->d_name, prefix, strlen(prefix)))
        continue;
      char part[300], path[600];
      snprintf(part, sizeof part, "/dev/shm/%s", e->d_name);
      char *cut = strstr(part + 9 + strlen(prefix), "-p");
      if (!cut)
        continue;
      *cut = 0;
      if (access(part, F_OK) == 0)
        continue;
      snprintf(path, sizeof path, "/dev/mqueue/%s", e->d_name);
      if (unlink(path) == 0) {
        fprintf(log, "removed message queue /%s: its partition is gone\n", e->d_name);
        queues++;
      }
    }
    closedir(d);
  }
  free(p);
  if (!removed && !queues)
    fprintf(log, "nothing to remove: every partition of uid %u has a live node\n", (unsigned)geteuid());
  else
    fprintf(log, "removed %d partition(s) and %d message queue(s)\n", removed, queues);
  return 0;
}

static int show(const char *prefix, FILE *o, int json)
{
  int n = list_parts(prefix, part_names, MAX_PARTS);
  if (n < 0) {
    fprintf(stderr, "mca domains: cannot list /dev/shm: %s\n", strerror(errno));
    return 1;
  }
  part_info_t *p = malloc(sizeof *p);
  if (!p)
    return 1;
  int bad = 0;
  if (json) {
    mca_json_envelope(o, "mca-domains/1");
    fprintf(o, "\"uid\": %u,\n\"partitions\": [",
            (unsigned)geteuid());
  }
  for (int i = 0; i < n; i++) {
    inspect(part_names[i], p);
    bad |= p->s.state == MCX_PART_UNREADABLE;
    json ? print_json(o, p, i == 0) : print_text(o, p);
  }
  if (json)
    fputs("\n]\n}\n", o);
  else if (!n)
    fprintf(o, "no MCAPI domain partitions of uid %u in /dev/shm\n", (unsigned)geteuid());
  free(p);
  return bad;
}

static volatile sig_atomic_t stop_watch;
static void on_stop(int sig) { stop_watch = sig; }

static int usage(void)
{
  printf("usage: mca domains [--json FILE|-] [--watch [SECONDS]] [--count N] [--clean] [--namespace NS]\n\n"
             "Lists this user's MCAPI domain partitions in /dev/shm: per domain its nodes (pid, tid,\n"
             "alive or dead), its endpoints with the messages queued per priority and the queue depth,\n"
             "the channel state, the threads waiting to receive or for space, and its message\n"
             "counters: sent from it, received on it, sends refused for want of space (dropped),\n"
             "and its queue's high-water mark (sampled every 64 receives while a backlog is seen,\n"
             "every 1024 while none is, and at least what is queued).\n\n"
             "  --json FILE       write the listing as JSON (schema mca-domains/1, docs/json.md); '-': stdout\n"
             "  --watch [S]       refresh every S seconds (default 1) like top, until Ctrl-C\n"
             "  --count N         with --watch: stop after N refreshes\n"
             "  --clean           remove what dead processes left: partitions whose nodes all died,\n"
             "                    partitions with an invalid header, message queues whose partition\n"
             "                    is gone; names each thing removed\n"
             "  --namespace NS    only the partitions of MCX_NAMESPACE=NS\n"
             "Exit status: 0, 1 a partition could not be read, 2 usage error.\n");
  return MCA_EXIT_OK;
}

int mca_cmd_domains(int argc, char **argv)
{
  int do_clean = 0, watch = 0;
  double period = 1;
  long long count = 0;
  const char *ns = NULL, *json = NULL;
  static const mca_opt_t table[] = {{"--clean", MCA_OPT_FLAG, 'c'},     {"--namespace", MCA_OPT_VALUE, 'n'},
                                     {"--json", MCA_OPT_VALUE, 'j'},     {"--watch", MCA_OPT_MAYBE, 'w'},
                                     {"--count", MCA_OPT_VALUE, 'k'},    {NULL, 0, 0}};
  mca_opts_t s;
  mca_opts_init(&s, "domains", argc, argv);
  for (int k; (k = mca_opts_next(&s, table)) != MCA_OPTS_END;) {
    switch (k) {
    case 'c': do_clean = 1; break;
    case 'n': ns = s.value; break;
    case 'j': json = s.value; break;
    case 'w':
      watch = 1;
      if (s.value && mca_parse_num("domains", "--watch", s.value, 0.1, 3600, &period))
        return MCA_EXIT_USAGE;
      break;
    case 'k':
      if (mca_parse_int("domains", "--count", s.value, 1, 1000000000, &count))
        return MCA_EXIT_USAGE;
      break;
    case MCA_OPTS_HELP: return usage();
    case MCA_OPTS_OPERAND: return mca_usage_error("domains", "unexpected argument '%s'", s.value);
    default: return MCA_EXIT_USAGE;
    }
  }
  char prefix[96];
  if (mcx_part_prefix(ns, prefix, sizeof prefix)) {
    fprintf(stderr, "mca domains: --namespace: expected 1 to 35 of A-Z a-z 0-9 - _, got '%s'\n", ns);
    return MCA_EXIT_USAGE;
  }
  if (count && !watch) {
    fprintf(stderr, "mca domains: --count needs --watch\n");
    return MCA_EXIT_USAGE;
  }
  if (json && mca_check_output("domains", "--json", json))
    return MCA_EXIT_USAGE;
  if (json && watch && strcmp(json, "-")) {
    fprintf(stderr, "mca domains: --watch with --json writes to standard output only (--json -)\n");
    return MCA_EXIT_USAGE;
  }
  if (!(part_names = calloc(MAX_PARTS, sizeof *part_names)))
    return 1;
  if (do_clean)
    return clean(prefix, json != NULL);
  if (!watch) {
    FILE *o = json ? mca_output_open("domains", json) : stdout;
    if (!o)
      return MCA_EXIT_USAGE;
    int rc = show(prefix, o, json != NULL);
    if (json && mca_output_close(o)) {
      fprintf(stderr, "mca domains: writing %s failed\n", json);
      return 1;
    }
    return rc;
  }
  signal(SIGINT, on_stop);
  signal(SIGTERM, on_stop);
  int tty = isatty(1) && !json;
  for (long long k = 0; !stop_watch && (!count || k < count); k++) {
    if (tty)
      fputs("\033[H\033[2J", stdout);
    time_t t = time(NULL);
    char when[32];
    strftime(when, sizeof when, "%H:%M:%S", localtime(&t));
    if (!json)
      printf("mca domains --watch: %s, every %g s (Ctrl-C stops)\n\n", when, period);
    show(prefix, stdout, json != NULL);
    fflush(stdout);
    if (count && k + 1 >= count)
      break;
    struct timespec ts = {(time_t)period, (long)((period - (double)(time_t)period) * 1e9)};
    while (nanosleep(&ts, &ts) && errno == EINTR && !stop_watch) {
    }
  }
  return 0;
}
