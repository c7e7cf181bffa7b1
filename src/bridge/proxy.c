/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Proxy endpoints (docs/bridge.md), node thread only: the endpoint of the
 * bridge's node that stands for a remote endpoint. Owns b->proxies: their
 * making, their reachability mark, and what they forward: messages, and the
 * channels a local program connects to them, either side (the receive side
 * of a local sender's channel, drained into the window like the messages;
 * the send side of a local receiver's channel, fed from data frames). The
 * pull endpoints of chan.c are drained here too.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bridge_internal.h"
#include "common/mcx_err.h"
#include "runtime/adopt.h"

proxy_t *mcx__br_proxy_find(bridge_t *b, int pi, uint32_t node, uint32_t port)
{
  for (unsigned i = 0; i < b->nproxies; i++)
    if (b->proxies[i].peer == pi && b->proxies[i].node == node && b->proxies[i].port == port)
      return &b->proxies[i];
  return NULL;
}

/* Sends to a peer's proxies: refused with MCAPI_ERR_TRANSMISSION while the
 * peer is away (senders blocked on a full proxy queue are woken with it),
 * accepted again once it is back. What the proxies hold stays and goes on
 * after the reconnection. Only message sends check the flag. */
static void proxy_mark(const bridge_t *b, const proxy_t *x)
{
  mcapi_status_t st;
  mcx_endpoint_set_reachable(x->ep, b->peers[x->peer].up ? MCAPI_TRUE : MCAPI_FALSE, &st);
}

/* ---- adoption (docs/bridge.md: adoption): the proxies are kept through the
 * bridge's death, their queues and all (runtime/adopt.h), and the file
 * proxies-d<domain> of the state directory says what each stands for:
 * a line "peer-domain node port proxy-port" per proxy. */
#define PROXIES_MAX_BYTES (MAX_PROXIES * 64)

static void proxies_name(const bridge_t *b, char *name, size_t n)
{
  snprintf(name, n, "proxies-d%u", b->cfg.domain);
}

/* The file written anew with every proxy that can be adopted (message mode). */
static void proxies_save(bridge_t *b)
{
  if (b->state_fd < 0)
    return;
  char text[PROXIES_MAX_BYTES], name[64];
  size_t len = 0;
  for (unsigned i = 0; i < b->nproxies && len < sizeof text; i++) {
    const proxy_t *x = &b->proxies[i];
    len += (size_t)snprintf(text + len, sizeof text - len, "%u %u %u %u\n", b->peers[x->peer].domain, x->node,
                            x->port, x->local_port);
  }
  proxies_name(b, name, sizeof name);
  if (len >= sizeof text || mcx__br_state_replace(b->state_fd, name, text, len, 0600, NULL))
    mcx__br_log(b, "state_dir %s: %s cannot be written: a restart after a kill -9 cannot adopt the proxies",
                b->cfg.state_dir, name);
}

void mcx__br_proxy_adopt(bridge_t *b)
{
  char name[64], why[400];
  void *img;
  size_t len;
  proxies_name(b, name, sizeof name);
  if (mcx__br_state_read(b->state_fd, "proxy list", name, PROXIES_MAX_BYTES, &img, &len, why, sizeof why)) {
    mcx__br_log(b, "state_dir %s: %s (no proxy adopted)", b->cfg.state_dir, why);
    return;
  }
  if (!img)
    return;
  char *text = realloc(img, len + 1);
  if (!text) {
    free(img);
    return;
  }
  text[len] = 0;
  /* Input: each line's four numbers checked (a configured peer, a proxy
   * port, no port twice); what does not fit is left out. */
  for (char *line = text, *next; line && *line && b->nproxies < MAX_PROXIES; line = next) {
    next = strchr(line, '\n');
    if (next)
      *next++ = 0;
    unsigned dom, node, port, lport;
    char extra;
    if (sscanf(line, "%u %u %u %u %c", &dom, &node, &port, &lport, &extra) != 4)
      continue;
    int pi = mcx__br_find_peer(b, dom);
    if (pi < 0 || lport < PROXY_PORT_BASE || lport >= PROXY_PORT_BASE + 4096 || mcx__br_proxy_find(b, pi, node, port))
      continue;
    int dup = 0;
    for (unsigned i = 0; i < b->nproxies; i++)
      dup |= b->proxies[i].local_port == lport;
    uint32_t h = 0, dropped = 0;
    uint64_t upto[MCX_JR_PRIOS];
    mcx__br_journal_last(b, lport, upto);
    if (dup || mcx__ep_adopt(lport, upto, MCX_JR_PRIOS, &h, &dropped) != MCX_OK)
      continue; /* deleted meanwhile (or never left by a death) */
    proxy_t *x = &b->proxies[b->nproxies++];
    memset(x, 0, sizeof *x);
    x->ep = h, x->peer = pi, x->node = node, x->port = port, x->local_port = lport, x->mode = PX_MSG;
    mcapi_status_t st;
    mcapi_uint_t queued = mcapi_msg_available(x->ep, &st);
    mcx__br_log(b, "proxy port %#x adopted: stands for domain %u node %u port %u again, %lu message(s) queued%s",
                lport, dom, node, port, (unsigned long)(st == MCAPI_SUCCESS ? queued : 0),
                dropped ? " (and the journal's, taken by the last run and not given back: discarded)" : "");
    if (dropped)
      mcx__br_log(b, "proxy port %#x: %u message(s) the journal has discarded from its queue", lport, dropped);
  }
  free(text);
  proxies_save(b);
}

void mcx__br_proxy_leave(bridge_t *b)
{
  mcx__br_journal_flush(b); /* nothing held: every message taken is journaled and given back */
  unsigned kept = 0, left = 0;
  unsigned long queued = 0;
  for (unsigned i = 0; i < b->nproxies; i++) {
    proxy_t *x = &b->proxies[i];
    if (x->mode != PX_MSG)
      continue; /* a channel's: it ends with the bridge, as at a kill */
    mcapi_status_t st;
    mcapi_uint_t q = mcapi_msg_available(x->ep, &st);
    int r = mcx__ep_leave(x->ep);
    if (r == MCX_OK) {
      kept++;
      queued += st == MCAPI_SUCCESS ? q : 0;
    } else if (r != MCX_ENOSYS) {
      left++;
      mcx__br_log(b, "proxy port %#x cannot be left for the restart (%d): deleted with the node", x->local_port, r);
    }
  }
  if (kept || left)
    mcx__br_log(b, "%u prox%s left for the restart to adopt, %lu message(s) queued%s", kept, kept == 1 ? "y" : "ies",
                queued, left ? "; others deleted" : "");
}

proxy_t *mcx__br_proxy_for(bridge_t *b, int pi, uint32_t node, uint32_t port)
{
  proxy_t *x = mcx__br_proxy_find(b, pi, node, port);
  if (x || b->nproxies == MAX_PROXIES)
    return x;
  for (uint32_t k = 0; k < 4096; k++) {
    mcapi_status_t st;
    mcapi_endpoint_t ep = mcapi_endpoint_create(PROXY_PORT_BASE + k, &st);
    if (st == MCAPI_ERR_ENDP_EXISTS)
      continue;
    if (st != MCAPI_SUCCESS) {
      mcx__br_log(b, "no proxy endpoint for d%u n%u p%u: %s", b->peers[pi].domain, node, port,
                  mcapi_display_status(st, (char[64]){0}, 64));
      return NULL;
    }
    x = &b->proxies[b->nproxies++];
    x->ep = ep, x->peer = pi, x->node = node, x->port = port, x->local_port = PROXY_PORT_BASE + k;
    mcx__br_log(b, "proxy port %#x stands for domain %u node %u port %u", x->local_port, b->peers[pi].domain,
                node, port);
    int kr = mcx__ep_keep(ep); /* kept through a kill -9, for the restart to adopt */
    if (kr != MCX_OK && kr != MCX_ENOSYS)
      mcx__br_log(b, "proxy port %#x cannot be kept through a restart (%d)", x->local_port, kr);
    proxies_save(b);
    if (!b->peers[pi].up) /* gone since it answered */
      proxy_mark(b, x);
    return x;
  }
  return NULL;
}

void mcx__br_mark_proxies(bridge_t *b, int pi, int changed)
{
  unsigned n = 0;
  for (unsigned i = 0; i < b->nproxies; i++)
    if (b->proxies[i].peer == pi) {
      proxy_mark(b, &b->proxies[i]);
      n++;
    }
  if (n && changed)
    mcx__br_log(b, "peer domain %u %s: sends to its %u prox%s %s", b->peers[pi].domain,
                b->peers[pi].up ? "up" : "away", n, n == 1 ? "y" : "ies",
                b->peers[pi].up ? "go through again" : "give MCAPI_ERR_TRANSMISSION");
}

static int emit(bridge_t *b, peer_t *p, const proxy_t *x, uint32_t kind, const void *data, size_t n)
{
  return mcx__br_emit(b, p, x->node, x->port, kind, data, n);
}

/* The proxy's side of a channel is being opened (@p st: the open's status):
 * it takes @p mode and the peer is told (@p kind). 0 when the open failed. */
static int proxy_opened(bridge_t *b, peer_t *p, proxy_t *x, mcapi_status_t st, int mode, uint32_t kind, int scl)
{
  if (st != MCAPI_SUCCESS && st != MCAPI_PENDING)
    return 0;
  x->mode = mode;
  x->width = 0;
  x->sending = 0;
  x->scl = scl;
  emit(b, p, x, kind, NULL, 0);
  mcx__br_log(b, "proxy port %#x: %s channel %s domain %u node %u port %u", x->local_port,
              scl ? "scalar" : "packet", mode == PX_OUT_OPENING ? "from" : "to", p->domain, x->node, x->port);
  return 1;
}

/* A receive on a message proxy failed: a local program connected a channel
 * to it. A packet or scalar channel whose receive side the proxy is: the
 * bridge opens that side and tells the peer (the remote bridge connects the
 * real endpoint). A channel whose send side the proxy is: the bridge opens
 * that side and asks the peer to connect the remote endpoint (the sender) to
 * an endpoint of its bridge, whose packets or scalars then come here. */
static void proxy_check_chan(bridge_t *b, peer_t *p, proxy_t *x, mcapi_status_t why)
{
  mcapi_status_t st;
  mcapi_uint_t status = 0, type = 0;
  const char *reason = "not a message endpoint";
  mcapi_endpoint_get_attribute(x->ep, MCAPI_ENDP_ATTR_STATUS, &status, sizeof status, &st);
  mcapi_endpoint_get_attribute(x->ep, MCAPI_ENDP_ATTR_TYPE, &type, sizeof type, &st);
  int chan = (status & MCAPI_ENDP_STATUS_CONNECTED) && (type == MCAPI_PKT_CHAN || type == MCAPI_SCL_CHAN);
  int scl = type == MCAPI_SCL_CHAN;
  if (chan && (status & MCAPI_ENDP_STATUS_RECV_SIDE) && scl && mcx__br_scl_refused()) {
    reason = mcx__br_scl_refused();
  } else if (chan && (status & MCAPI_ENDP_STATUS_RECV_SIDE)) {
    if (scl) {
      /* Receives on the proxy must not wait: an empty channel says MCAPI_TIMEOUT. */
      mcapi_timeout_t zero = 0;
      mcapi_endpoint_set_attribute(x->ep, MCAPI_ENDP_ATTR_TIMEOUT, &zero, sizeof zero, &st);
      mcapi_sclchan_recv_open_i(&x->srh, x->ep, &x->req, &st);
    } else {
      mcapi_pktchan_recv_open_i(&x->rh, x->ep, &x->req, &st);
    }
    if (proxy_opened(b, p, x, st, scl ? PX_SCL_OPENING : PX_PKT_OPENING, scl ? K_SCL_OPEN : K_CHAN_OPEN, scl))
      return;
    why = st;
  } else if (chan && (status & MCAPI_ENDP_STATUS_SEND_SIDE)) {
    /* A full packet channel makes the send request wait. Scalar sends have
     * no non-blocking form: a full channel must refuse (MCAPI_ERR_MEM_LIMIT,
     * the frame is held) instead of stopping the node thread. */
    mcx__br_set_fail(b, x->ep, scl);
    if (scl)
      mcapi_sclchan_send_open_i(&x->ssh, x->ep, &x->req, &st);
    else
      mcapi_pktchan_send_open_i(&x->sh, x->ep, &x->req, &st);
    if (proxy_opened(b, p, x, st, PX_OUT_OPENING, scl ? K_RSCONNECT : K_RCONNECT, scl))
      return;
    why = st;
  }
  mcx__br_log(b, "proxy port %#x: %s; it no longer forwards (%s)", x->local_port,
              mcapi_display_status(why, (char[64]){0}, 64), reason);
  x->mode = PX_BROKEN;
}

/* One scalar from the proxy's channel, of whatever width it was sent with:
 * a receive of another width leaves it in place (MCAPI_ERR_SCL_SIZE), so the
 * widths are tried in turn, the last one seen first. */
static uint64_t scl_take(proxy_t *x, unsigned *width, mcapi_status_t *st)
{
  static const unsigned order[4] = {8, 4, 2, 1};
  unsigned w = x->width ? x->width : 8;
  for (int i = -1; i < 4; i++) {
    if (i >= 0 && (w = order[i]) == x->width)
      continue;
    uint64_t v;
    switch (w) {
    case 8: v = mcapi_sclchan_recv_uint64(x->srh, st); break;
    case 4: v = mcapi_sclchan_recv_uint32(x->srh, st); break;
    case 2: v = mcapi_sclchan_recv_uint16(x->srh, st); break;
    default: v = mcapi_sclchan_recv_uint8(x->srh, st); break;
    }
    if (*st != MCAPI_ERR_SCL_SIZE) {
      *width = x->width = w;
      return v;
    }
  }
  return 0;
}

void mcx__br_recv_close(proxy_t *x)
{
  mcapi_status_t st;
  size_t sz;
  if (x->mode == PX_SCL || x->mode == PX_SCL_OPENING) {
    mcapi_sclchan_recv_close_i(x->srh, &x->req, &st);
    x->mode = PX_SCL_CLOSING;
  } else {
    if (x->rposted) {
      mcapi_cancel(&x->rreq, &st);
      if (st != MCAPI_SUCCESS && mcapi_test(&x->rreq, &sz, &st) && st == MCAPI_SUCCESS)
        mcapi_pktchan_release(x->rbuf, &st);
      x->rposted = 0;
    }
    mcapi_pktchan_recv_close_i(x->rh, &x->req, &st);
    x->mode = PX_PKT_CLOSING;
  }
  x->noreq = st != MCAPI_SUCCESS && st != MCAPI_PENDING; /* already closed: nothing to wait for */
}

/* Takes what one proxy (or pull endpoint) has into the window. */
static int drain_one(bridge_t *b, proxy_t *x, uint8_t *buf, size_t cap)
{
  int busy = 0;
  peer_t *p = &b->peers[x->peer];
  mcapi_status_t st;
  size_t sz;
  if ((x->mode == PX_PKT_OPENING || x->mode == PX_SCL_OPENING) && mcapi_test(&x->req, &sz, &st)) {
    if (st == MCAPI_SUCCESS) {
      x->mode = x->mode == PX_PKT_OPENING ? PX_PKT : PX_SCL;
    } else {
      x->mode = x->reverse ? PX_PKT_CLOSING : PX_BROKEN;
      x->noreq = 1;
    }
  }
  if ((x->mode == PX_PKT_CLOSING || x->mode == PX_SCL_CLOSING || x->mode == PX_OUT_CLOSING) &&
      (x->noreq || mcapi_test(&x->req, &sz, &st))) {
    x->noreq = 0;
    if (x->reverse) { /* a pull endpoint goes when its channel is closed */
      mcapi_endpoint_delete(x->ep, &st);
      x->mode = PX_FREE;
      return 1;
    }
    x->mode = PX_DETACH;
  }
  if (x->mode == PX_DETACH) {
    /* A closed side still looks connected until the other side closes too;
     * noticed again then, it would be taken for a new channel. */
    mcapi_uint_t status = 0;
    mcapi_endpoint_get_attribute(x->ep, MCAPI_ENDP_ATTR_STATUS, &status, sizeof status, &st);
    if (st == MCAPI_SUCCESS && (status & MCAPI_ENDP_STATUS_CONNECTED))
      return 0;
    x->mode = PX_MSG; /* the connection is gone: a message endpoint again */
    proxy_mark(b, x);
  }
  /* Nothing is taken while the peer is away or the window is full: the
   * proxy's queue fills and its senders feel the back-pressure. */
  while ((x->mode == PX_MSG || x->mode == PX_PKT || x->mode == PX_SCL) && mcx__br_room(b, p)) {
    if (x->mode == PX_PKT) {
      /* One receive request kept posted: it completes with a packet, or
       * with an error once the sender has closed and all was taken. */
      size_t n = 0;
      if (!x->rposted) {
        mcapi_pktchan_recv_i(x->rh, &x->rbuf, &x->rreq, &st);
        if (st != MCAPI_SUCCESS && st != MCAPI_PENDING)
          x->rbuf = NULL;
        x->rposted = st == MCAPI_SUCCESS || st == MCAPI_PENDING;
      }
      if (x->rposted && !mcapi_test(&x->rreq, &n, &st))
        break;
      x->rposted = 0;
      void *pkt = x->rbuf;
      if (st != MCAPI_SUCCESS) { /* the sender closed and all was taken */
        mcx__br_recv_close(x);
        emit(b, p, x, x->reverse ? K_RCLOSE : K_CHAN_CLOSE, NULL, 0);
        busy = 1;
        break;
      }
      int rc = emit(b, p, x, x->reverse ? K_RPKT : K_PKT, pkt, n);
      mcapi_pktchan_release(pkt, &st);
      busy = 1;
      if (rc)
        break;
      continue;
    }
    if (x->mode == PX_SCL) {
      unsigned w = 0;
      uint64_t v = scl_take(x, &w, &st);
      if (st == MCAPI_TIMEOUT)
        break; /* empty, the sender still open */
      busy = 1;
      if (st != MCAPI_SUCCESS) { /* the sender closed and all was taken */
        mcx__br_recv_close(x);
        emit(b, p, x, x->reverse ? K_RCLOSE : K_CHAN_CLOSE, NULL, 0);
        break;
      }
      uint8_t item[SCL_ITEM_LEN];
      mcx__wire_scl(item, w, v);
      if (emit(b, p, x, x->reverse ? K_RSCL : K_SCL, item, sizeof item))
        break;
      continue;
    }
    /* The message stays held in its slot until its frame is in the window
     * and the journal, written at the end of the pass (one write for all
     * its frames): a kill before that puts it back in the queue for the
     * restart, one after finds it in the journal (adopt.h). */
    uint32_t hp;
    uint64_t pos;
    size_t n;
    if (b->nheld == b->held_cap)
      break; /* the rest next pass */
    int tr = mcx__msg_take_held(x->ep, buf, cap, &n, &hp, &pos);
    if (tr == MCX_OK) {
      busy = 1;
      mcx__br_fault_take(0, 1);
      int rc = mcx__br_emit_at(b, p, x->node, x->port, hp, buf, n, x->local_port, pos);
      /* Given back once the journal has its frame (mcx__br_journal_flush);
       * one that could not be framed (out of memory) is lost. */
      b->held[b->nheld++] = (struct held_msg){x->ep, hp, pos};
      if (rc)
        break;
      if (b->nheld >= JR_BATCH)
        mcx__br_journal_flush(b); /* the queue gets its slots back while the sender goes on */
      continue;
    }
    if (tr == MCX_EAGAIN)
      break;
    if (tr != MCX_ENOSYS) {
      proxy_check_chan(b, p, x, MCAPI_ERR_ENDP_INVALID);
      continue;
    }
    /* No held receive here (the mca-2.0.3 profile): a copy, as before adoption. */
    mcapi_priority_t prio;
    n = mcx_msg_try_recv_prio(x->ep, buf, cap, &prio, &st);
    if (st == MCAPI_ERR_MEM_LIMIT)
      break;
    if (st != MCAPI_SUCCESS) {
      proxy_check_chan(b, p, x, st);
      continue;
    }
    busy = 1;
    if (emit(b, p, x, prio, buf, n))
      break;
  }
  return busy;
}

int mcx__br_drain_proxies(bridge_t *b, uint8_t *buf, size_t cap)
{
  int busy = 0;
  for (unsigned i = 0; i < b->cfg.npeers; i++)
    busy |= mcx__br_flush_notes(b, &b->peers[i]);
  /* Round robin: with a window kept full by one busy proxy (a paced
   * receiver), the room a frame's acknowledgement frees goes to each proxy
   * in turn, so another proxy's channel connect or messages are not starved. */
  unsigned n = b->nproxies, first = n ? b->drain_next++ % n : 0;
  for (unsigned k = 0; k < n; k++)
    busy |= drain_one(b, &b->proxies[(first + k) % n], buf, cap);
  for (unsigned i = 0; i < MAX_RCHANS; i++)
    if (b->pulls[i].reverse && b->pulls[i].mode != PX_FREE)
      busy |= drain_one(b, &b->pulls[i], buf, cap);
  mcx__br_journal_flush(b); /* the pass's frames journaled, the messages given back */
  return busy;
}

/* K_CHAN_STOP: the remote receiver of a channel from a local sender closed:
 * the proxy's receive side closes, the sender's next send gets
 * MCAPI_ERR_CHAN_NOTOPEN (as with a local receiver that closes). */
int mcx__br_proxy_stop(bridge_t *b, int pi, uint32_t node, uint32_t port)
{
  proxy_t *x = mcx__br_proxy_find(b, pi, node, port);
  mcapi_status_t st;
  size_t sz;
  if (x && (x->mode == PX_PKT_OPENING || x->mode == PX_SCL_OPENING) && mcapi_test(&x->req, &sz, &st) &&
      st == MCAPI_SUCCESS)
    x->mode = x->mode == PX_PKT_OPENING ? PX_PKT : PX_SCL; /* opened meanwhile: stopped below */
  if (!x || (x->mode != PX_PKT && x->mode != PX_SCL))
    return 1; /* not open (yet, or any more): nothing to stop */
  mcx__br_recv_close(x);
  return 1;
}

void mcx__br_proxy_out_close(proxy_t *x)
{
  mcapi_status_t st;
  if (x->scl)
    mcapi_sclchan_send_close_i(x->ssh, &x->req, &st);
  else
    mcapi_pktchan_send_close_i(x->sh, &x->req, &st);
  x->noreq = st != MCAPI_SUCCESS && st != MCAPI_PENDING;
  x->mode = PX_OUT_CLOSING;
}

/* A send into the local receiver's channel failed: the receiver closed its
 * side. The proxy closes its side and the remote sender is told (K_RSTOP),
 * once; what it sent meanwhile is dropped. Returns -1 (this frame dropped). */
static int proxy_out_stop(bridge_t *b, int pi, proxy_t *x, mcapi_status_t why)
{
  mcx__br_log(b, "%s channel from domain %u node %u port %u: %s; the sender is stopped",
              x->scl ? "scalar" : "packet", b->peers[pi].domain, x->node, x->port,
              mcapi_display_status(why, (char[64]){0}, 64));
  mcx__br_proxy_out_close(x);
  mcx__br_add_note(&b->peers[pi], K_RSTOP, x->node, x->port);
  return -1;
}

/* The proxy of the remote sender (node, port) is the send side of a local
 * packet or scalar channel. */
int mcx__br_proxy_out(bridge_t *b, int pi, uint32_t kind, uint32_t node, uint32_t port, const uint8_t *data,
                      size_t len)
{
  mcapi_status_t st;
  size_t sz;
  proxy_t *x = mcx__br_proxy_find(b, pi, node, port);
  if (!x || (x->mode != PX_OUT_OPENING && x->mode != PX_OUT))
    return -1;
  if (x->mode == PX_OUT_OPENING) {
    if (!mcapi_test(&x->req, &sz, &st)) {
      if (kind != K_RFAIL)
        return 0; /* the local receiver has not opened its side yet: hold */
      mcapi_cancel(&x->req, &st); /* the side never opened: nothing to close */
      st = MCAPI_ERR_CHAN_NOTOPEN;
    }
    if (st != MCAPI_SUCCESS) {
      x->mode = PX_OUT_CLOSING;
      x->noreq = 1;
      return kind == K_RFAIL ? 1 : -1;
    }
    x->mode = PX_OUT;
  }
  int r;
  if (x->sending) { /* the packet of this frame went out when this completes */
    r = mcx__br_chan_sent(&x->sreq, &x->sending, &st);
  } else if (kind == K_RCLOSE || kind == K_RFAIL) {
    mcx__br_proxy_out_close(x);
    return 1;
  } else if ((kind == K_RSCL) != (x->scl != 0)) {
    return -1;
  } else {
    r = mcx__br_chan_put(x->scl ? x->ssh : x->sh, x->scl, data, len, &x->sbuf, &x->sreq, &x->sending, &st);
  }
  return r == -2 ? proxy_out_stop(b, pi, x, st) : r;
}
