/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Channels across the bridge (docs/bridge.md), node thread only: the
 * channel ends this bridge holds for a peer's programs, and what a data
 * frame of a channel kind does. Owns b->rchans (the remote end of a channel
 * from a peer's sender: an endpoint of this node connected to the local
 * receiver, its send side fed from frames) and b->pulls (an endpoint of this
 * node connected to a local sender for a peer's receiver, drained by
 * proxy.c), the send side of a channel both they and proxies feed, and the
 * end of every channel through a peer that came back as a new incarnation.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bridge_internal.h"

const char *mcx__br_scl_refused(void)
{
  /* The bridge learns a scalar's width by receiving it: in this profile a
   * receive of the wrong width consumes the scalar (docs/compat.md). */
  return mcx_compat() == MCX_COMPAT_MCA203 ? "scalar channels do not cross the bridge in the mca-2.0.3 profile"
                                            : NULL;
}

/* An endpoint of the bridge's node for a channel end (ports from @p base). */
static mcapi_endpoint_t chan_ep(uint32_t base, mcapi_status_t *st)
{
  mcapi_endpoint_t ep = 0;
  for (uint32_t k = 0; k < 256; k++) {
    ep = mcapi_endpoint_create(base + k, st);
    if (*st != MCAPI_ERR_ENDP_EXISTS)
      break;
  }
  return *st == MCAPI_SUCCESS ? ep : 0;
}

/* Connects a packet or (@p scl) scalar channel from @p send to @p recv and
 * waits for it (at most 1 s: both ends are on this side). */
static void chan_connect(mcapi_endpoint_t send, mcapi_endpoint_t recv, int scl, mcapi_status_t *st)
{
  mcapi_request_t r;
  size_t sz;
  if (scl)
    mcapi_sclchan_connect_i(send, recv, &r, st);
  else
    mcapi_pktchan_connect_i(send, recv, &r, st);
  if (*st == MCAPI_SUCCESS || *st == MCAPI_PENDING)
    mcapi_wait(&r, &sz, 1000, st);
}

/* ---- the send side of a channel fed from data frames (a proxy's or an rchan's) */
/* Sends a scalar of @p width (8, 4, 2, 1) on @p h; MCAPI_ERR_SCL_SIZE for another width. */
static void scl_send(mcapi_sclchan_send_hndl_t h, unsigned width, uint64_t v, mcapi_status_t *st)
{
  switch (width) {
  case 8: mcapi_sclchan_send_uint64(h, v, st); break;
  case 4: mcapi_sclchan_send_uint32(h, (mcapi_uint32_t)v, st); break;
  case 2: mcapi_sclchan_send_uint16(h, (mcapi_uint16_t)v, st); break;
  case 1: mcapi_sclchan_send_uint8(h, (mcapi_uint8_t)v, st); break;
  default: *st = MCAPI_ERR_SCL_SIZE; break;
  }
}

/* A non-blocking packet send reads its buffer until it completes, and a
 * frame's body is freed when the connection is lost (the peer sends the
 * frame again): the packet is copied to the channel's own buffer first (one
 * send in progress per channel). NULL when it cannot be. */
static const uint8_t *chan_copy(uint8_t **buf, const uint8_t *data, size_t len)
{
  if (len > MCAPI_MAX_PKT_SIZE || (!*buf && !(*buf = malloc(MCAPI_MAX_PKT_SIZE))))
    return NULL;
  memcpy(*buf, data, len);
  return *buf;
}

int mcx__br_chan_sent(mcapi_request_t *req, int *sending, mcapi_status_t *st)
{
  size_t sz;
  if (!mcapi_test(req, &sz, st))
    return 0;
  *sending = 0;
  return *st == MCAPI_SUCCESS ? 1 : -2;
}

int mcx__br_chan_put(mcapi_pktchan_send_hndl_t h, int scl, const uint8_t *data, size_t len, uint8_t **sbuf,
                     mcapi_request_t *req, int *sending, mcapi_status_t *st)
{
  size_t sz;
  if (scl) {
    unsigned w;
    uint64_t v;
    if (mcx__wire_scl_get(data, len, &w, &v))
      return -1;
    scl_send(h, w, v, st);
    if (*st == MCAPI_ERR_SCL_SIZE)
      return -1;
    if (*st == MCAPI_ERR_MEM_LIMIT)
      return 0; /* full (FAIL_ON_MEM_LIMIT): this frame waits, so do the ones after it */
    return *st == MCAPI_SUCCESS ? 1 : -2;
  }
  const uint8_t *pkt = chan_copy(sbuf, data, len);
  if (!pkt)
    return -1;
  mcapi_pktchan_send_i(h, pkt, len, req, st);
  if (*st == MCAPI_SUCCESS || *st == MCAPI_PENDING) { /* started: the request has the outcome */
    if (!mcapi_test(req, &sz, st)) {
      *sending = 1; /* the channel is full: this frame waits, so do the ones after it */
      return 0;
    }
  }
  return *st == MCAPI_SUCCESS ? 1 : -2;
}

/* ---- the remote end of a peer's sender's channel */
static rchan_t *rchan_find(bridge_t *b, int pi, uint32_t node, uint32_t port)
{
  for (unsigned i = 0; i < MAX_RCHANS; i++) {
    rchan_t *c = &b->rchans[i];
    if (c->used && !c->closing && c->peer == pi && c->node == node && c->port == port)
      return c;
  }
  return NULL;
}

/* K_CHAN_OPEN / K_SCL_OPEN: an endpoint of the bridge connected to the
 * destination, its send side opened (completes when the receiver opens). */
static int rchan_open(bridge_t *b, int pi, uint32_t type, uint32_t node, uint32_t port)
{
  mcapi_status_t st;
  rchan_t *c = NULL;
  for (unsigned i = 0; i < MAX_RCHANS && !c; i++)
    if (!b->rchans[i].used)
      c = &b->rchans[i];
  mcapi_endpoint_t to = mcx__br_dest_ep(b, node, port, 1);
  const char *what = type == MCAPI_SCL_CHAN ? "scalar" : "packet";
  if (!c || !to) {
    mcx__br_log(b, "%s channel to node %u port %u: %s", what, node, port,
                c ? "no such endpoint" : "too many channels");
    return -1;
  }
  uint8_t *sbuf = c->sbuf;
  memset(c, 0, sizeof *c);
  c->sbuf = sbuf;
  if (!(c->ep = chan_ep(RCHAN_PORT_BASE, &st)))
    return -1;
  /* Scalar sends have no non-blocking form: a full channel must refuse
   * (MCAPI_ERR_MEM_LIMIT, the frame is held) instead of stopping the node thread. */
  if (type == MCAPI_SCL_CHAN)
    mcx__br_set_fail(b, c->ep, 1);
  chan_connect(c->ep, to, type == MCAPI_SCL_CHAN, &st);
  if (st == MCAPI_SUCCESS) {
    if (type == MCAPI_SCL_CHAN)
      mcapi_sclchan_send_open_i(&c->sh, c->ep, &c->open_req, &st);
    else
      mcapi_pktchan_send_open_i(&c->sh, c->ep, &c->open_req, &st);
  }
  if (st != MCAPI_SUCCESS && st != MCAPI_PENDING) {
    mcx__br_log(b, "%s channel to node %u port %u: %s", what, node, port,
                mcapi_display_status(st, (char[64]){0}, 64));
    mcapi_endpoint_delete(c->ep, &st);
    return -1;
  }
  c->used = 1, c->peer = pi, c->node = node, c->port = port, c->type = type;
  return 1;
}

/* Starts closing the channel's send side. */
static void rchan_close(rchan_t *c)
{
  mcapi_status_t st;
  if (c->type == MCAPI_SCL_CHAN)
    mcapi_sclchan_send_close_i(c->sh, &c->close_req, &st);
  else
    mcapi_pktchan_send_close_i(c->sh, &c->close_req, &st);
  c->noreq = st != MCAPI_SUCCESS && st != MCAPI_PENDING;
  c->closing = 1;
}

/* A send into the destination's channel failed: its receiver closed. The
 * bridge closes its side and the sender's bridge is told (K_CHAN_STOP), once;
 * what comes meanwhile is dropped. Returns -1 (this frame dropped). */
static int rchan_stop(bridge_t *b, rchan_t *c, mcapi_status_t why)
{
  mcx__br_log(b, "%s channel to node %u port %u: %s; the sender is stopped",
              c->type == MCAPI_SCL_CHAN ? "scalar" : "packet", c->node, c->port,
              mcapi_display_status(why, (char[64]){0}, 64));
  rchan_close(c);
  mcx__br_add_note(&b->peers[c->peer], K_CHAN_STOP, c->node, c->port);
  return -1;
}

/* An item for a channel of rchan_open(): 1 done, 0 hold, -1 dropped. */
static int rchan_item(bridge_t *b, rchan_t *c, uint32_t kind, const uint8_t *data, size_t len)
{
  mcapi_status_t st;
  size_t sz;
  if (kind == K_CHAN_CLOSE && c->failed) {
    c->closing = 1; /* nothing to close: mcx__br_tick_rchans() frees it */
    c->noreq = 1;
    return 1;
  }
  if (c->failed)
    return -1;
  if (!c->open) { /* the receiver has not opened its side yet: hold */
    if (!mcapi_test(&c->open_req, &sz, &st))
      return 0;
    if (st != MCAPI_SUCCESS) {
      c->failed = 1;
      return rchan_item(b, c, kind, data, len);
    }
    c->open = 1;
  }
  int r;
  if (c->sending) { /* the packet of this frame went out when this completes */
    r = mcx__br_chan_sent(&c->send_req, &c->sending, &st);
  } else if (kind == K_CHAN_CLOSE) {
    rchan_close(c);
    return 1;
  } else if ((kind == K_SCL) != (c->type == MCAPI_SCL_CHAN)) {
    return -1;
  } else {
    r = mcx__br_chan_put(c->sh, c->type == MCAPI_SCL_CHAN, data, len, &c->sbuf, &c->send_req, &c->sending, &st);
  }
  return r != -2 ? r : st == MCAPI_ERR_CHAN_NOTOPEN ? rchan_stop(b, c, st) : -1;
}

/* ---- pull endpoints: a local sender's channel to a peer's receiver */
static proxy_t *pull_find(bridge_t *b, int pi, uint32_t node, uint32_t port)
{
  for (unsigned i = 0; i < MAX_RCHANS; i++) {
    proxy_t *x = &b->pulls[i];
    if (x->reverse && x->mode != PX_FREE && x->peer == pi && x->node == node && x->port == port)
      return x;
  }
  return NULL;
}

/* K_RCONNECT / K_RSCONNECT: a program of the peer's domain connected a local
 * endpoint (node, port) as the sender of a packet (scalar) channel to one of
 * its own. The bridge connects it to an endpoint of its own node and takes
 * its packets (scalars) (a pull: drained like a proxy, frames K_RPKT or
 * K_RSCL, then K_RCLOSE). The program's send open completes once the bridge
 * has opened the receive side. */
static int pull_open(bridge_t *b, int pi, uint32_t node, uint32_t port, int scl)
{
  mcapi_status_t st;
  proxy_t *x = pull_find(b, pi, node, port);
  if (x)
    return 1;
  for (unsigned i = 0; i < MAX_RCHANS && !x; i++)
    if (!b->pulls[i].reverse || b->pulls[i].mode == PX_FREE)
      x = &b->pulls[i];
  mcapi_endpoint_t from = mcx__br_dest_ep(b, node, port, 1);
  const char *why = !x ? "too many channels" : !from ? "no such endpoint" : NULL;
  if (!why && scl)
    why = mcx__br_scl_refused();
  char sbuf[64];
  if (!why) {
    memset(x, 0, sizeof *x);
    x->ep = chan_ep(RCHAN_PORT_BASE + 256, &st);
    if (x->ep) {
      if (scl) {
        mcapi_timeout_t zero = 0; /* receives must not wait: an empty channel says MCAPI_TIMEOUT */
        mcapi_endpoint_set_attribute(x->ep, MCAPI_ENDP_ATTR_TIMEOUT, &zero, sizeof zero, &st);
      }
      chan_connect(from, x->ep, scl, &st);
      if (st == MCAPI_SUCCESS && scl)
        mcapi_sclchan_recv_open_i(&x->srh, x->ep, &x->req, &st);
      else if (st == MCAPI_SUCCESS)
        mcapi_pktchan_recv_open_i(&x->rh, x->ep, &x->req, &st);
      if (st != MCAPI_SUCCESS && st != MCAPI_PENDING)
        mcapi_endpoint_delete(x->ep, (mcapi_status_t[1]){0});
    }
    if (st != MCAPI_SUCCESS && st != MCAPI_PENDING)
      why = mcapi_display_status(st, sbuf, sizeof sbuf);
  }
  if (why) {
    mcx__br_log(b, "%s channel from node %u port %u to domain %u: %s", scl ? "scalar" : "packet", node, port,
                b->peers[pi].domain, why);
    mcx__br_add_note(&b->peers[pi], K_RFAIL, node, port); /* the remote receiver's channel closes */
    return -1;
  }
  x->reverse = 1, x->peer = pi, x->node = node, x->port = port, x->mode = scl ? PX_SCL_OPENING : PX_PKT_OPENING;
  x->scl = scl;
  mcx__br_log(b, "%s channel from node %u port %u to domain %u", scl ? "scalar" : "packet", node, port,
              b->peers[pi].domain);
  return 1;
}

/* K_RSTOP: the remote receiver closed: the pull's receive side closes, the
 * local sender's next send gets MCAPI_ERR_CHAN_NOTOPEN. */
static int pull_stop(bridge_t *b, int pi, uint32_t node, uint32_t port)
{
  proxy_t *x = pull_find(b, pi, node, port);
  mcapi_status_t st;
  if (!x || (x->mode != PX_PKT && x->mode != PX_PKT_OPENING && x->mode != PX_SCL && x->mode != PX_SCL_OPENING))
    return 1;
  if (x->mode == PX_PKT_OPENING || x->mode == PX_SCL_OPENING)
    mcapi_cancel(&x->req, &st);
  mcx__br_recv_close(x);
  return 1;
}

int mcx__br_deliver_chan(bridge_t *b, int pi, uint32_t kind, uint32_t node, uint32_t port, const uint8_t *data,
                         size_t len)
{
  switch (kind) {
  case K_CHAN_OPEN:
  case K_SCL_OPEN:
    if (rchan_find(b, pi, node, port))
      return 1;
    if (rchan_open(b, pi, kind == K_SCL_OPEN ? MCAPI_SCL_CHAN : MCAPI_PKT_CHAN, node, port) > 0)
      return 1;
    /* Not opened (no such endpoint, it is still connected to an older
     * channel, too many channels): the sender's side is closed, so its sends
     * get MCAPI_ERR_CHAN_NOTOPEN instead of going nowhere. */
    mcx__br_add_note(&b->peers[pi], K_CHAN_STOP, node, port);
    return -1;
  case K_PKT:
  case K_SCL:
  case K_CHAN_CLOSE: {
    rchan_t *c = rchan_find(b, pi, node, port);
    return c ? rchan_item(b, c, kind, data, len) : -1;
  }
  case K_CHAN_STOP: return mcx__br_proxy_stop(b, pi, node, port);
  case K_RCONNECT:
  case K_RSCONNECT: return pull_open(b, pi, node, port, kind == K_RSCONNECT);
  case K_RSTOP: return pull_stop(b, pi, node, port);
  case K_RPKT:
  case K_RSCL:
  case K_RCLOSE:
  case K_RFAIL: return mcx__br_proxy_out(b, pi, kind, node, port, data, len);
  case K_VOID: return -1;
  default: return -1;
  }
}

void mcx__br_tick_rchans(bridge_t *b)
{
  for (unsigned i = 0; i < MAX_RCHANS; i++) {
    rchan_t *c = &b->rchans[i];
    mcapi_status_t st;
    size_t sz;
    if (c->used && c->closing && (c->noreq || mcapi_test(&c->close_req, &sz, &st))) {
      mcapi_endpoint_delete(c->ep, &st);
      c->used = 0;
    }
  }
}

/* A channel end goes with its peer's former incarnation: the packet send
 * under way on it (*@p sending) is cancelled. */
static void send_cancel(mcapi_request_t *req, int *sending)
{
  mcapi_status_t st;
  size_t sz;
  if (*sending && !mcapi_test(req, &sz, &st))
    mcapi_cancel(req, &st);
  *sending = 0;
}

/* Whether the open of a side (@p req) completed; cancelled when not (then
 * there is nothing to close). */
static int open_done(mcapi_request_t *req)
{
  mcapi_status_t st;
  size_t sz;
  if (mcapi_test(req, &sz, &st) && st == MCAPI_SUCCESS)
    return 1;
  mcapi_cancel(req, &st);
  return 0;
}

/* The peer's bridge came back as a new incarnation (it was restarted): the
 * channel ends it held are gone (their endpoints were swept with its node),
 * so every channel through it ends here too, the way a closing peer ends
 * it (docs/bridge.md: a bridge killed while channels are open):
 * - a local sender's channel (a proxy's receive side, or a pull for a
 *   remote receiver): that side closes, the sender's next or blocked send
 *   gets MCAPI_ERR_CHAN_NOTOPEN;
 * - a local receiver's channel (the send side of a proxy or of an endpoint
 *   of this bridge): that side closes, the receiver takes what is queued,
 *   then gets MCAPI_ERR_CHAN_NOTOPEN.
 * The channel frames still in the window for the former incarnation are
 * voided (K_VOID): sent again, they would open or feed channels of the new
 * one. Messages are not touched. */
void mcx__br_end_channels(bridge_t *b, int pi)
{
  peer_t *p = &b->peers[pi];
  unsigned n = 0;
  for (unsigned i = 0; i < b->nproxies; i++) {
    proxy_t *x = &b->proxies[i];
    if (x->peer != pi)
      continue;
    if (x->mode == PX_PKT || x->mode == PX_SCL || x->mode == PX_PKT_OPENING || x->mode == PX_SCL_OPENING) {
      mcx__br_proxy_stop(b, pi, x->node, x->port);
      n++;
    } else if (x->mode == PX_OUT || x->mode == PX_OUT_OPENING) {
      send_cancel(&x->sreq, &x->sending);
      if (x->mode == PX_OUT || open_done(&x->req)) {
        mcx__br_proxy_out_close(x);
      } else { /* never opened: nothing to close */
        x->noreq = 1;
        x->mode = PX_OUT_CLOSING;
      }
      n++;
    }
  }
  for (unsigned i = 0; i < MAX_RCHANS; i++) {
    proxy_t *x = &b->pulls[i];
    if (x->reverse && x->mode != PX_FREE && x->peer == pi && x->mode != PX_PKT_CLOSING &&
        x->mode != PX_SCL_CLOSING) {
      pull_stop(b, pi, x->node, x->port);
      n++;
    }
    rchan_t *c = &b->rchans[i];
    if (!c->used || c->closing || c->peer != pi)
      continue;
    n++;
    send_cancel(&c->send_req, &c->sending);
    c->closing = 1;
    if (c->failed || !(c->open || open_done(&c->open_req))) {
      c->noreq = 1; /* the receiver never opened: nothing to close */
      continue;
    }
    rchan_close(c);
  }
  mcx__br_free_notes(p); /* they concern channels of the former incarnation */
  unsigned voided = 0;
  for (uint64_t s = p->acked + 1; s < p->next_seq; s++) {
    out_frame_t *o = &p->win[s % b->window];
    if (o->buf && o->seq == s && mcx__wire_data_kind(o->buf) >= K_PKT) {
      mcx__wire_data_set_kind(o->buf, K_VOID);
      voided++;
    }
  }
  if (n || voided)
    mcx__br_log(b, "peer domain %u restarted: %u channel(s) through it ended, %u channel frame(s) not sent again",
                p->domain, n, voided);
}
