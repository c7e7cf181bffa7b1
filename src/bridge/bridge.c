/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The bridge (docs/bridge.md): a node of its local domain that joins it to
 * the bridges of other domains over nng byte streams (tcp://, ipc://).
 *
 * This file has the public entry points (mcx_bridge_run, mcx_bridge_stop),
 * the configuration and the start and stop of a run, the node thread's loop
 * and its dispatch of the I/O threads' events, the status file, and the
 * log. bridge_internal.h says which file owns what else.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bridge_internal.h"
#include "ports/mcx_port.h"
#include "ports/mcx_port_file.h"

static mcx_atomic_u32 g_stop;
/* MCX_BRIDGE_DEBUG set (not "0"): each log line starts with the UTC time of day. */
static int g_debug;

void mcx_bridge_stop(void) { mcx_store_relaxed(&g_stop, 1); /* polled by the loop; no data hangs on it */ }

void mcx__br_log(const bridge_t *b, const char *fmt, ...)
{
  char line[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  struct timespec ts;
  if (g_debug && timespec_get(&ts, TIME_UTC)) {
    long t = (long)(ts.tv_sec % 86400);
    fprintf(stderr, "%02ld:%02ld:%02ld.%03ld mca bridge d%u: %s\n", t / 3600, t / 60 % 60, t % 60,
            (long)ts.tv_nsec / 1000000, b->cfg.domain, line);
  } else {
    fprintf(stderr, "mca bridge d%u: %s\n", b->cfg.domain, line);
  }
  fflush(stderr);
}

int mcx__br_find_peer(const bridge_t *b, uint32_t domain)
{
  for (unsigned i = 0; i < b->cfg.npeers; i++)
    if (b->peers[i].domain == domain)
      return (int)i;
  return -1;
}

/* The node thread must never wait in a send (nothing else would run
 * meanwhile), so a failure is logged. The attribute is an mcapi_boolean_t:
 * a value of another size is refused (MCAPI_ERR_ATTR_SIZE) and leaves it
 * unchanged. */
int mcx__br_set_fail(const bridge_t *b, mcapi_endpoint_t ep, int fail)
{
  mcapi_status_t st;
  mcapi_boolean_t v = fail ? MCAPI_TRUE : MCAPI_FALSE;
  mcapi_endpoint_set_attribute(ep, MCAPI_ENDP_ATTR_FAIL_ON_MEM_LIMIT, &v, sizeof v, &st);
  if (st == MCAPI_SUCCESS)
    return 0;
  mcx__br_log(b, "cannot set FAIL_ON_MEM_LIMIT of a bridge endpoint: %s",
              mcapi_display_status(st, (char[64]){0}, 64));
  return -1;
}

/* What the I/O threads handed over, in order. */
static int process_events(bridge_t *b)
{
  ev_t *e = mcx__br_take_evs(b);
  int busy = e != NULL;
  while (e) {
    ev_t *next = e->next;
    peer_t *p = &b->peers[e->peer];
    int keep = 0;
    if (e->type == EV_UP) {
      mcx__br_peer_up(b, e->peer, e->gen, e->body);
    } else if (e->type == EV_DOWN) {
      if (e->gen == p->seen_gen && p->up) {
        p->up = 0;
        mcx__br_mark_proxies(b, e->peer, 1);
      }
    } else if (e->gen == p->seen_gen && e->len >= 1) {
      const uint8_t *m = e->body + 1;
      uint32_t n = e->len - 1;
      uint64_t upto;
      switch (e->body[0]) {
      case F_DATA: keep = mcx__br_on_data(p, e); break;
      case F_ACK:
        if (!mcx__wire_ack_get(m, n, &upto))
          mcx__br_acked(b, p, upto);
        break;
      case F_RESOLVE: mcx__br_on_resolve(b, e->peer, m, n); break;
      case F_RESOLVED: mcx__br_on_resolved(b, e->peer, m, n); break;
      default: break;
      }
    }
    if (!keep) {
      free(e->body);
      free(e);
    }
    e = next;
  }
  return busy;
}

/* The status file (docs/bridge.md: status), replaced whole through the
 * state directory's descriptor (statedir.c). */
static void write_status(bridge_t *b)
{
  if (b->state_fd < 0)
    return;
  /* A line per peer: at most about 600 bytes (url 255, why 159). */
  char text[256 + MCX_BRIDGE_MAX_PEERS * 640];
  size_t len = (size_t)snprintf(text, sizeof text, "bridge domain %u node %u listen %s proxies %u\n", b->cfg.domain,
                                b->cfg.node, b->cfg.listen, b->nproxies);
  for (unsigned i = 0; i < b->cfg.npeers && len < sizeof text; i++) {
    peer_t *p = &b->peers[i];
    mcx__mutex_lock(&p->mtx, 0);
    static const char *names[] = {"down", "up", "refused"};
    len += (size_t)snprintf(text + len, sizeof text - len,
                            "peer domain %u url %s state %s attempts %u sent %" PRIu64 " acked %" PRIu64
                            " delivered %" PRIu64 " dropped %" PRIu64 " why \"%s\"\n",
                            p->domain, p->url, names[p->state], p->attempts, p->sent_total, p->acked,
                            p->delivered_total, p->dropped_total, p->why);
    mcx__mutex_unlock(&p->mtx, 0);
  }
  mcx__br_state_write(b->state_fd, "status", text, len < sizeof text ? len : sizeof text - 1);
}

/* The keep-alive interval of this side (0: off); -1 when the configuration's is out of bounds. */
static int keepalive_of(const bridge_t *b, const mcx_bridge_config_t *cfg)
{
  if (cfg->keepalive_ms == MCX_BRIDGE_KEEPALIVE_OFF)
    return 0;
  if (cfg->keepalive_ms == 0)
    return KEEPALIVE_DEFAULT_MS;
  if (cfg->keepalive_ms < KEEPALIVE_MIN_MS || cfg->keepalive_ms > KEEPALIVE_MAX_MS) {
    mcx__br_log(b, "keepalive_ms must be from %u to %u (or off), not %u", KEEPALIVE_MIN_MS, KEEPALIVE_MAX_MS,
                cfg->keepalive_ms);
    return -1;
  }
  return (int)cfg->keepalive_ms;
}

/* The node thread's loop, until mcx_bridge_stop(). */
static void node_loop(bridge_t *b)
{
  size_t cap = 25 + (size_t)MCAPI_MAX_MSG_SIZE * 64;
  uint8_t *buf = malloc(cap);
  uint64_t last_status = 0, last_tick = 0;
  unsigned idle = 0;
  while (buf && !mcx_load_relaxed(&g_stop)) {
    int busy = mcx__br_poll_requests(b);
    busy |= process_events(b);
    for (unsigned i = 0; i < b->cfg.npeers; i++)
      busy |= mcx__br_deliver(b, &b->peers[i]);
    busy |= mcx__br_drain_proxies(b, buf, cap);
    for (unsigned i = 0; i < b->cfg.npeers; i++)
      mcx__br_flush_out(&b->peers[i]);
    uint64_t now = nng_clock();
    if (now - last_tick >= 2) {
      mcx__br_tick_resolves(b);
      mcx__br_tick_rchans(b);
      last_tick = now;
    }
    if (now - last_status >= 250) {
      write_status(b);
      last_status = now;
    }
    /* Spin, yield a little, then sleep until the I/O threads have events
     * or a short while passed (MCAPI queues cannot wake this thread). */
    if (busy)
      idle = 0;
    else if (++idle < 64)
      mcx_port_cpu_relax();
    else if (idle < 80)
      mcx_port_yield();
    else
      mcx__br_node_sleep(b, idle < 2000 ? 20000 : idle < 10000 ? 200000 : 1000000);
  }
  free(buf);
}

int mcx_bridge_run(const mcx_bridge_config_t *cfg)
{
  static bridge_t bs;
  bridge_t *b = &bs;
  memset(b, 0, sizeof *b);
  b->cfg = *cfg;
  b->state_fd = -1;
  for (unsigned i = 0; i < MCX_BRIDGE_MAX_PEERS; i++)
    b->peers[i].rec_fd = b->peers[i].jr_fd = -1;
  if (!b->cfg.node)
    b->cfg.node = mcx_bridge_node();
  b->window = cfg->window ? cfg->window : 64;
  int ka = keepalive_of(b, cfg);
  if (ka < 0)
    return -1;
  b->keepalive_ms = (unsigned)ka;
  mcx_store_relaxed(&g_stop, 0);
  const char *dbg = getenv("MCX_BRIDGE_DEBUG");
  g_debug = dbg && *dbg && strcmp(dbg, "0");
  if (b->cfg.key_len < 16) {
    mcx__br_log(b, "the key must be at least 16 bytes");
    return -1;
  }
  /* The state directory first: refused, nothing else is started. */
  char why[512];
  if (mcx__br_state_open(b->cfg.state_dir, &b->state_fd, why, sizeof why)) {
    mcx__br_log(b, "%s", why);
    return -1;
  }
  /* The stream's incarnation, unless the journals name the last run's (journal.c). */
  b->inc = (uint64_t)nng_random() << 32 | nng_random();
  if (!b->inc)
    b->inc = 1;
  b->run = (uint64_t)nng_random() << 32 | nng_random();
  if (!b->run)
    b->run = 1;
  mcapi_info_t info;
  mcapi_status_t st;
  mcapi_initialize(b->cfg.domain, b->cfg.node, NULL, NULL, &info, &st);
  if (st != MCAPI_SUCCESS) {
    mcx__br_log(b, "cannot join domain %u as node %u: %s", b->cfg.domain, b->cfg.node,
                mcapi_display_status(st, (char[64]){0}, 64));
    mcx_port_file_close(b->state_fd);
    return -1;
  }
  int rc = -1;
  if (mcx_transport() != MCX_TRANSPORT_SHM) {
    mcx__br_log(b, "domain %u uses another transport than shared memory (MCX_TRANSPORT=shm is needed)",
                b->cfg.domain);
    goto fin;
  }
  b->req_ep = mcapi_endpoint_create(MCX_BRIDGE_PORT, &st);
  if (st == MCAPI_SUCCESS)
    b->send_ep = mcapi_endpoint_create(MCX_BRIDGE_PORT + 1, &st);
  if (st != MCAPI_SUCCESS) {
    mcx__br_log(b, "cannot create the bridge endpoints: %s (is another bridge running?)",
                mcapi_display_status(st, (char[64]){0}, 64));
    goto fin;
  }
  /* Deliveries and answers must never wait for a full queue (docs/bridge.md: keep-alive). */
  if (mcx__br_set_fail(b, b->send_ep, 1) || mcx__br_set_fail(b, b->req_ep, 1))
    goto stop;
  if (b->cfg.tls_cert_key[0] && mcx__br_setup_tls(b))
    goto stop;
  for (unsigned i = 0; i < b->cfg.npeers; i++) {
    peer_t *p = &b->peers[i];
    p->owner = b;
    p->domain = cfg->peers[i].domain;
    snprintf(p->url, sizeof p->url, "%s", cfg->peers[i].url);
    p->dialer = b->cfg.domain < p->domain;
    p->next_seq = 1;
    p->seen_gen = UINT32_MAX;
    snprintf(p->why, sizeof p->why, p->dialer ? "dialing" : "waiting for it to dial");
    if (mcx__br_record_load(b, p))
      goto stop;
  }
  /* A journal slot holds a data frame of the largest message of this domain. */
  size_t max_msg = MCAPI_MAX_MSG_SIZE;
  mcapi_endpoint_get_attribute(b->send_ep, MCAPI_ENDP_ATTR_MAX_PAYLOAD_SIZE, &max_msg, sizeof max_msg, &st);
  if (st != MCAPI_SUCCESS || max_msg > (size_t)MCAPI_MAX_MSG_SIZE * 64)
    max_msg = MCAPI_MAX_MSG_SIZE;
  b->jr_slot_len = (uint32_t)((32 + 25 + max_msg + 7) & ~(size_t)7);
  /* The journals, then the proxies the last run's death left (their queues
   * and the journal's last taken message go together: proxy.c). */
  if (mcx__br_journal_start(b))
    goto stop;
  mcx__br_proxy_adopt(b);
  mcx__br_fault_init();
  if (mcx__br_link_start(b) == 0) {
    node_loop(b);
    rc = 0;
  }
stop:
  mcx__br_proxy_leave(b); /* kept for the restart, as at a kill -9 (docs/bridge.md: adoption) */
  mcx__br_link_stop(b);
  write_status(b);
  for (unsigned i = 0; i < b->cfg.npeers; i++) {
    peer_t *p = &b->peers[i];
    mcx__br_record_flush(p);
    mcx__br_record_close(p);
    mcx__br_journal_close(p);
    mcx__br_drop_pending(p);
    mcx__br_free_notes(p);
    for (unsigned k = 0; p->win && k < b->window; k++)
      free(p->win[k].buf);
    free(p->win);
    free(p->obuf);
  }
  for (unsigned i = 0; i < MAX_RCHANS; i++)
    free(b->rchans[i].sbuf);
  for (unsigned i = 0; i < b->nproxies; i++)
    free(b->proxies[i].sbuf);
  free(b->held);
  for (resolve_t *r = b->local_res, *n; r; r = n)
    n = r->next, free(r);
  for (resolve_t *r = b->remote_res, *n; r; r = n)
    n = r->next, free(r);
  for (ev_t *e = b->ev_head, *n; e; e = n)
    n = e->next, free(e->body), free(e);
  if (b->tls_server)
    nng_tls_config_free(b->tls_server);
  free(b->tls_cert_pem);
  free(b->tls_ca_pem);
fin:
  mcapi_finalize(&st);
  mcx_port_file_close(b->state_fd);
  mcx__br_log(b, "stopped");
  return rc;
}
