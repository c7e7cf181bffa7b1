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
#include "ports/mcx_port_shm.h"
#include "runtime/chan.h"
#include "runtime/runtime.h"

enum { MAX_PARTS = 256, MAX_SHOWN_EPS = 1024, MAX_SHOWN_NODES = 256 };

typedef struct ep_info {
  uint32_t node, port, queued, depth, prios, recv_waiters, send_waiters, status, hwm;
  uint32_t per_prio[8];
  uint64_t sent, received, dropped;
} ep_info_t;

typedef struct node_info {
  uint32_t node, pid, tid;
  int alive;
} node_info_t;

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

typedef struct part_info {
  char name[300];
  enum { P_OK, P_CREATING, P_INVALID, P_UNREADABLE } state;
  const char *why;
  char whybuf[700];
  uint32_t domain, max_eps, nprio;
  const char *locking;
  int compat203;
  double mib;
  int alive, dead, neps, nnodes, total_queued;
  uint32_t msg_bufs, msg_bufs_used; /* the message payload pool: buffers, and those not free */
  node_info_t nodes[MAX_SHOWN_NODES];
  ep_info_t eps[MAX_SHOWN_EPS];
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

/* Reads one partition into *p (a snapshot: relaxed reads of live state). */
static void inspect(const char *name, part_info_t *p)
{
  memset(p, 0, sizeof *p);
  snprintf(p->name, sizeof p->name, "%s", name);
  mcx_port_shm_t shm;
  int r = mcx_port_shm_open(name, sizeof(mcx__part_hdr_t), &shm);
  uint32_t uid;
  unsigned mode;
  size_t osize;
  if (r == MCX_EPERM && mcx_port_shm_stat(name, &uid, &mode, &osize) == MCX_OK &&
      uid != mcx_port_uid()) {
    /* Another user made an object under our name: never joined, never
     * removed; libmca uses a private name for the domain instead. */
    char rec[96], where[512] = "";
    p->state = P_UNREADABLE;
    if (mcx_port_name_record(name + 1, NULL, rec, sizeof rec, where, sizeof where) == MCX_OK)
      snprintf(p->whybuf, sizeof p->whybuf,
               "belongs to another user (uid %u, mode %03o), not ours: never joined or removed; "
               "the domain uses the private name %s (recorded in %s)",
               uid, mode, rec, where);
    else
      snprintf(p->whybuf, sizeof p->whybuf,
               "belongs to another user (uid %u, mode %03o), not ours: never joined or removed; "
               "the domain will use a private name",
               uid, mode);
    p->why = p->whybuf;
    return;
  }
  if (r == MCX_EAGAIN) {
    /* Created but never sized: its creator died between creating and sizing
     * it, unless that happened just now (a creator at work). */
    char path[320];
    struct stat st;
    snprintf(path, sizeof path, "/dev/shm%s", name);
    if (stat(path, &st) == 0 && time(NULL) - st.st_mtime < 2) {
      p->state = P_CREATING;
      return;
    }
    p->state = P_INVALID;
    p->why = "not sized: its creator died before sizing it";
    return;
  }
  if (r) {
    p->state = P_UNREADABLE;
    p->why = r == MCX_EPERM ? "too open" : "cannot open";
    return;
  }
  uint8_t *base = mcx_port_shm_map(&shm, shm.size);
  size_t size = shm.size;
  mcx_port_shm_close(&shm);
  if (!base) {
    p->state = P_UNREADABLE;
    p->why = "cannot map";
    return;
  }
  p->mib = (double)size / (1 << 20);
  /* acquire: pairs with the creator's release of magic after the header is written */
  if (size >= sizeof(mcx__part_hdr_t) && mcx_load_acquire(&((mcx__part_hdr_t *)base)->magic) == 0) {
    p->state = P_CREATING;
    mcx_port_shm_unmap(base, size);
    return;
  }
  if (mcx__part_check(name, base, size)) {
    p->state = P_INVALID;
    mcx_port_shm_unmap(base, size);
    return;
  }
  mcx__domain_t d = {.base = base, .size = size, .hdr = (mcx__part_hdr_t *)base};
  if (mcx__take_geometry(&d) != MCX_OK) { /* sizes that do not give its layout */
    p->state = P_INVALID;
    mcx_port_shm_unmap(base, size);
    return;
  }
  mcx__chan_attach(&d);
  const mcx__part_hdr_t *h = d.hdr;
  p->domain = h->domain_id;
  p->locking = mcx__locking_name(h->locking);
  p->compat203 = h->compat == MCX_COMPAT_MCA203_;
  p->max_eps = h->max_endpoints;
  p->nprio = h->nprio;
  mcx__msg_attach(&d);
  p->msg_bufs = d.mpool.pool.n;
  p->msg_bufs_used = 0;
  for (uint32_t b = 0; b < d.mpool.pool.n; b++) /* relaxed: a statistic */
    p->msg_bufs_used += mcx_load_relaxed(&d.mpool.state[b]) != 0;
  mcx__node_t *nodes = mcx__nodes(&d);
  for (uint32_t i = 0; i < h->max_nodes; i++) {
    /* acquire: pairs with the release that publishes a node slot (join) */
    if (mcx_load_acquire(&nodes[i].state) != NODE_ACTIVE)
      continue;
    int alive = mcx_port_tid_alive(mcx_load_relaxed(&nodes[i].tid));
    alive ? p->alive++ : p->dead++;
    if (p->nnodes < MAX_SHOWN_NODES)
      p->nodes[p->nnodes++] = (node_info_t){mcx_load_relaxed(&nodes[i].node_id), mcx_load_relaxed(&nodes[i].pid),
                                            mcx_load_relaxed(&nodes[i].tid), alive};
  }
  mcx__endpoint_t *eps = mcx__eps(&d);
  for (uint32_t i = 0; i < h->max_endpoints && p->neps < MAX_SHOWN_EPS; i++) {
    /* acquire: pairs with the release that publishes an endpoint (create) */
    uint32_t st = mcx_load_acquire(&eps[i].state);
    if ((st & 0xff) == EP_FREE)
      continue;
    ep_info_t *e = &p->eps[p->neps++];
    e->node = mcx_load_relaxed(&eps[i].node_id);
    e->port = mcx_load_relaxed(&eps[i].port);
    e->depth = mcx_load_relaxed(&eps[i].depth);
    e->prios = h->nprio;
    for (uint32_t q = 0; q < h->nprio; q++) {
      mcx__ring_view_t v = mcx__ring_of(&d, i, q, e->depth);
      uint32_t n = mcx__mpsc_count(&v);
      if (q < 8)
        e->per_prio[q] = n;
      e->queued += n;
    }
    /* The owner's counters (relaxed: statistics). The high-water mark is
     * sampled by the receiver, so at least what is queued now. */
    e->sent = mcx_load_relaxed(&eps[i].n_sent);
    e->received = mcx_load_relaxed(&eps[i].n_received);
    e->dropped = mcx_load_relaxed(&eps[i].n_dropped);
    e->hwm = mcx_load_relaxed(&eps[i].hwm);
    for (uint32_t q = 0; q < h->nprio; q++) { /* the rings' own counts (zero on pmq) */
      mcx__ring_view_t v = mcx__ring_of(&d, i, q, e->depth);
      e->received += mcx_load_relaxed(&v.ring->head);
      uint32_t w = mcx_load_relaxed(&v.ring->hwm);
      if (w > e->hwm)
        e->hwm = w;
    }
    if (e->hwm < e->queued)
      e->hwm = e->queued;
    e->recv_waiters = mcx_load_relaxed(&eps[i].recv_wp.sleepers);
    e->send_waiters = mcx_load_relaxed(&eps[i].space_wp.sleepers);
    e->status = mcx__chan_ep_status(&d, mcx_load_relaxed(&eps[i].chan));
    p->total_queued += (int)e->queued;
  }
  mcx_port_shm_unmap(base, size);
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

static void print_text(FILE *o, const part_info_t *p)
{
  switch (p->state) {
  case P_UNREADABLE: fprintf(o, "%s: %s\n", p->name, p->why); return;
  case P_CREATING: fprintf(o, "%s: being created\n", p->name); return;
  case P_INVALID:
    fprintf(o, "%s: %s (mca domains --clean removes it)\n", p->name, p->why ? p->why : "invalid header");
    return;
  default: break;
  }
  fprintf(o, "%s: domain %u, %s locking, %s, %.1f MiB reserved, %d node(s) alive, %d dead\n", p->name, p->domain,
          p->locking, p->compat203 ? "mca-2.0.3 profile" : "spec profile", p->mib, p->alive, p->dead);
  for (int i = 0; i < p->nnodes; i++)
    fprintf(o, "  node %u: pid %u tid %u %s\n", p->nodes[i].node, p->nodes[i].pid, p->nodes[i].tid,
            p->nodes[i].alive ? "alive" : "DEAD");
  for (int i = 0; i < p->neps; i++) {
    const ep_info_t *e = &p->eps[i];
    char per[128] = "";
    size_t k = 0;
    for (uint32_t q = 0; q < e->prios && q < 8; q++)
      if (e->per_prio[q] && k < sizeof per - 16)
        k += (size_t)snprintf(per + k, sizeof per - k, " p%u:%u", q, e->per_prio[q]);
    fprintf(o, "  endpoint node %u port %u: %u queued (depth %u per priority, high-water %u)%s%s; %s; waiting: "
               "%u receiver(s), %u sender(s); messages sent %llu, received %llu, dropped %llu\n",
            e->node, e->port, e->queued, e->depth, e->hwm, *per ? " —" : "", per, chan_state(e->status),
            e->recv_waiters, e->send_waiters, (unsigned long long)e->sent, (unsigned long long)e->received,
            (unsigned long long)e->dropped);
  }
  fprintf(o, "  %d of %u endpoints in use, %d messages queued, %u of %u message buffers in use\n",
          p->neps, p->max_eps, p->total_queued, p->msg_bufs_used, p->msg_bufs);
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
  static const char *const states[] = {"ok", "being created", "invalid header", "unreadable"};
  fprintf(o, "%s\n  {\"name\": ", first ? "" : ",");
  mca_json_str(o, p->name + 1);
  fprintf(o, ", \"state\": \"%s\"", states[p->state]);
  if (p->state != P_OK) {
    fputs("}", o);
    return;
  }
  fprintf(o, ", \"domain\": %u, \"locking\": \"%s\", \"profile\": \"%s\", \"reserved_mib\": %.2f, "
             "\"nodes_alive\": %d, \"nodes_dead\": %d, \"endpoints_max\": %u, \"queued\": %d, "
             "\"msg_buffers\": %u, \"msg_buffers_in_use\": %u,\n   \"nodes\": [",
          p->domain, p->locking, p->compat203 ? "mca-2.0.3" : "spec", p->mib, p->alive, p->dead, p->max_eps,
          p->total_queued, p->msg_bufs, p->msg_bufs_used);
  for (int i = 0; i < p->nnodes; i++)
    fprintf(o, "%s{\"node\": %u, \"pid\": %u, \"tid\": %u, \"alive\": %s}", i ? ", " : "", p->nodes[i].node,
            p->nodes[i].pid, p->nodes[i].tid, p->nodes[i].alive ? "true" : "false");
  fputs("],\n   \"endpoints\": [", o);
  for (int i = 0; i < p->neps; i++) {
    const ep_info_t *e = &p->eps[i];
    fprintf(o, "%s\n    {\"node\": %u, \"port\": %u, \"queued\": %u, \"depth\": %u, \"queued_per_priority\": [",
            i ? "," : "", e->node, e->port, e->queued, e->depth);
    for (uint32_t q = 0; q < e->prios && q < 8; q++)
      fprintf(o, "%s%u", q ? ", " : "", e->per_prio[q]);
    fprintf(o,
            "], \"high_water\": %u, \"sent\": %llu, \"received\": %llu, \"dropped\": %llu, \"channel\": \"%s\", "
            "\"waiting_receivers\": %u, \"waiting_senders\": %u}",
            e->hwm, (unsigned long long)e->sent, (unsigned long long)e->received, (unsigned long long)e->dropped,
            chan_state(e->status), e->recv_waiters, e->send_waiters);
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

/* Lists partition names ("/mcx-<uid>-...-d<N>") with @p prefix. */
static int list_parts(const char *prefix, char names[][300], int cap)
{
  DIR *dir = opendir("/dev/shm");
  if (!dir)
    return -1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(dir)) && n < cap) {
    if (strncmp(e->d_name, prefix, strlen(prefix)) || !strstr(e->d_name, "-d"))
      continue;
    snprintf(names[n++], 300, "/%s", e->d_name);
  }
  closedir(dir);
  return n;
}

static char (*part_names)[300];

int mca_domains_remove_owned(const int *pids, int npids, FILE *log)
{
  char prefix[64];
  snprintf(prefix, sizeof prefix, "mcx-%u-", mcx_port_uid());
  if (!part_names && !(part_names = calloc(MAX_PARTS, sizeof *part_names)))
    return 0;
  int n = list_parts(prefix, part_names, MAX_PARTS), removed = 0;
  part_info_t *p = malloc(sizeof *p);
  if (!p)
    return 0;
  for (int i = 0; i < n; i++) {
    inspect(part_names[i], p);
    if (p->state != P_OK || !p->nnodes)
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
    if (mcx_port_shm_unlink(part_names[i]) == 0) {
      if (log)
        fprintf(log, "  removed partition %s (domain %u)\n", part_names[i], p->domain);
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
    int gone = p->state == P_INVALID || (p->state == P_OK && p->alive == 0 && p->dead > 0);
    if (!gone)
      continue;
    unsigned user = p->state == P_INVALID ? mapped_by(part_names[i]) : 0;
    if (user) { /* a header this release cannot read, in use: not ours to judge */
      fprintf(log, "left partition %s: %s, but process %u maps it\n", part_names[i],
              p->why ? p->why : "invalid header", user);
      continue;
    }
    if (mcx_port_shm_unlink(part_names[i]) == 0) {
      fprintf(log, "removed partition %s: %s\n", part_names[i],
              p->state == P_INVALID ? (p->why ? p->why : "invalid header") : "every node dead");
      for (int k = 0; k < p->nnodes; k++)
        fprintf(log, "  node %u: pid %u tid %u dead\n", p->nodes[k].node, p->nodes[k].pid, p->nodes[k].tid);
      if (p->total_queued)
        fprintf(log, "  %d queued message(s) dropped\n", p->total_queued);
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
    fprintf(log, "nothing to remove: every partition of uid %u has a live node\n", mcx_port_uid());
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
            mcx_port_uid());
  }
  for (int i = 0; i < n; i++) {
    inspect(part_names[i], p);
    bad |= p->state == P_UNREADABLE;
    json ? print_json(o, p, i == 0) : print_text(o, p);
  }
  if (json)
    fputs("\n]\n}\n", o);
  else if (!n)
    fprintf(o, "no MCAPI domain partitions of uid %u in /dev/shm\n", mcx_port_uid());
  free(p);
  return bad;
}

static volatile sig_atomic_t stop_watch;
static void on_stop(int sig) { stop_watch = sig; }

static int usage(FILE *o)
{
  fprintf(o, "usage: mca domains [--json FILE|-] [--watch [SECONDS]] [--count N] [--clean] [--namespace NS]\n\n"
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
  return o == stderr ? MCA_EXIT_USAGE : MCA_EXIT_OK;
}

int mca_cmd_domains(int argc, char **argv)
{
  int do_clean = 0, watch = 0;
  double period = 1;
  long long count = 0;
  const char *ns = NULL, *json = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--clean")) {
      do_clean = 1;
    } else if (!strcmp(a, "--namespace")) {
      if (!(ns = mca_opt_value("domains", argc, argv, &i)))
        return MCA_EXIT_USAGE;
    } else if (!strcmp(a, "--json")) {
      if (!(json = mca_opt_value("domains", argc, argv, &i)))
        return MCA_EXIT_USAGE;
    } else if (!strcmp(a, "--watch")) {
      watch = 1;
      if (i + 1 < argc && argv[i + 1][0] != '-' &&
          mca_parse_num("domains", "--watch", argv[++i], 0.1, 3600, &period))
        return MCA_EXIT_USAGE;
    } else if (!strcmp(a, "--count")) {
      const char *v = mca_opt_value("domains", argc, argv, &i);
      if (!v || mca_parse_int("domains", "--count", v, 1, 1000000000, &count))
        return MCA_EXIT_USAGE;
    } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      return usage(stdout);
    } else {
      fprintf(stderr, "mca domains: unknown option '%s'\n", a);
      return usage(stderr);
    }
  }
  if (ns && (!*ns || strlen(ns) > 35)) {
    fprintf(stderr, "mca domains: --namespace: expected 1 to 35 characters, got '%s'\n", ns);
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
  char prefix[96];
  if (ns)
    snprintf(prefix, sizeof prefix, "mcx-%u-%s-d", mcx_port_uid(), ns);
  else
    snprintf(prefix, sizeof prefix, "mcx-%u-", mcx_port_uid());
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
