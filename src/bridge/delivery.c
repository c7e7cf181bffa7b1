/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reliable delivery over a peer's connections (docs/bridge.md), node
 * thread only: on the sending side the window of numbered data frames
 * (kept until acknowledged, written again after a reconnection) and the
 * control frames waiting for room in it; on the receiving side the
 * in-order delivery of data frames into local queues or channels, the
 * acknowledgements, and the delivery record (a file in the state directory
 * and the partition's receipt) that keeps a delivery from being repeated
 * after a restart; and what a new connection does to both sides
 * (mcx__br_peer_up).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "bridge_internal.h"
#include "ports/mcx_port.h"
#include "ports/mcx_port_file.h"

/* ---- delivery record: which data frames of the peer's incarnation are in
 * local queues. The file (statedir.c checks it) is written with pwrite,
 * once per pass of the node thread that delivered anything, before the
 * pass's acknowledgement is written: a file truncated under the bridge
 * cannot fault it (no mapping is accessed), and a kill between a delivery
 * and the write is covered by the partition's receipt (set in the step of
 * the delivery). The file stays marked in the memory map, never accessed,
 * so `mca domains` finds the state directory (docs/bridge.md: status). */
static int record_open(bridge_t *b, peer_t *p)
{
  char name[64], why[400];
  uint64_t v[2];
  snprintf(name, sizeof name, "delivered-d%u-from-d%u", b->cfg.domain, p->domain);
  if (mcx__br_record_file(b->state_fd, name, 1, &p->rec_fd, v, why, sizeof why)) {
    mcx__br_log(b, "state_dir %s: %s", b->cfg.state_dir, why);
    return -1;
  }
  p->rec_mark = mcx_port_file_mark(p->rec_fd, RECORD_LEN);
  p->rx_inc = p->rec_inc = v[0]; /* ours alone: the bridge runs once per domain */
  p->rx_delivered = p->rec_delivered = v[1];
  return 0;
}

/* The record as it is now, written when it changed. One pwrite of both
 * words: a new incarnation and its count go together. */
void mcx__br_record_flush(peer_t *p)
{
  if (p->rec_fd < 0)
    return;
  mcx__mutex_lock(&p->mtx, 0);
  uint64_t v[2] = {p->rx_inc, p->rx_delivered};
  mcx__mutex_unlock(&p->mtx, 0);
  if (v[0] == p->rec_inc && v[1] == p->rec_delivered)
    return;
  if (mcx__br_record_write(p->rec_fd, v)) {
    mcx__br_log(p->owner, "domain %u: the delivery record cannot be written (kept in the partition's receipt only)",
                p->domain);
    return;
  }
  p->rec_inc = v[0], p->rec_delivered = v[1];
}

void mcx__br_record_close(peer_t *p)
{
  mcx_port_file_unmark(p->rec_mark, RECORD_LEN);
  mcx_port_file_close(p->rec_fd);
  p->rec_mark = NULL;
  p->rec_fd = -1;
}

static void record_store(peer_t *p) { mcx__br_record_flush(p); }

/* The partition's side of the record: a delivery receipt per peer and
 * incarnation, which mcx_msg_send_receipted() sets in the step that queues
 * the message, so a kill -9 between a delivery and the file's store cannot
 * deliver it again: after a restart the receipt has the last delivery. */
static uint64_t rcpt_key(const peer_t *p, uint64_t inc)
{
  return UINT64_C(0x42) << 56 | (uint64_t)(p->domain & 0xffffu) << 40 | (inc & ((UINT64_C(1) << 40) - 1));
}

static void rcpt_open(bridge_t *b, peer_t *p, uint64_t inc, uint64_t *value)
{
  mcapi_status_t st;
  mca_uint64_t v = 0;
  p->rcpt = mcx_receipt_open(rcpt_key(p, inc), &v, &st);
  if (st != MCAPI_SUCCESS) {
    p->rcpt = 0;
    mcx__br_log(b, "no delivery receipt for domain %u (%s): a kill -9 right after a delivery can repeat it",
                p->domain, mcapi_display_status(st, (char[64]){0}, 64));
    return;
  }
  *value = v;
}

/* A new incarnation of the peer: its receipt is made (at 0) before the file
 * names the incarnation, and the old one deleted after, so whichever the
 * file names after a kill exists. */
static void rcpt_switch(bridge_t *b, peer_t *p, uint64_t old_inc, uint64_t new_inc)
{
  uint64_t v = 0;
  mcapi_status_t st;
  rcpt_open(b, p, new_inc, &v);
  if (p->rcpt && v)
    mcx_receipt_set(p->rcpt, 0, &st);
  record_store(p);
  if (rcpt_key(p, old_inc) != rcpt_key(p, new_inc))
    mcx_receipt_delete(rcpt_key(p, old_inc), &st);
}

/* The file's record, then the partition's receipt of the same incarnation,
 * which is never behind it (set in the step of the delivery, the file right
 * after); a partition made anew has none (0): the file then tells. */
int mcx__br_record_load(bridge_t *b, peer_t *p)
{
  if (record_open(b, p))
    return -1;
  uint64_t v = 0;
  rcpt_open(b, p, p->rx_inc, &v);
  if (v > p->rx_delivered) {
    mcx__br_log(b, "domain %u: data %" PRIu64 " was delivered before the restart (the record had %" PRIu64 ")",
                p->domain, v, p->rx_delivered);
    p->rx_delivered = v;
    record_store(p);
  }
  return 0;
}

/* ---- sending: the window */
int mcx__br_room(const bridge_t *b, const peer_t *p) { return p->up && p->next_seq - 1 - p->acked < b->window; }

/* The frame goes into the window and its journal slot (journal.c) before
 * it is written, and before the caller gives its message back to the
 * proxy's queue: a kill at any point leaves it in one of them. */
static int emit(bridge_t *b, peer_t *p, uint32_t node, uint32_t port, uint32_t kind, const void *data, size_t n,
                int at, uint32_t lport, uint64_t pos)
{
  uint32_t total;
  uint8_t *f = mcx__wire_data(p->next_seq, node, port, kind, data, n, &total);
  if (!f)
    return -1;
  uint64_t seq = p->next_seq++;
  out_frame_t *o = &p->win[seq % b->window];
  o->seq = seq, o->buf = f, o->len = total;
  o->at = at, o->lport = lport, o->prio = kind, o->pos = pos;
  mcx__br_journal_put(b, p, o, at, lport, kind, pos);
  p->sent_total++;
  mcx__br_peer_write(p, f, total);
  return 0;
}

int mcx__br_emit(bridge_t *b, peer_t *p, uint32_t node, uint32_t port, uint32_t kind, const void *data, size_t n)
{
  return emit(b, p, node, port, kind, data, n, 0, 0, 0);
}

int mcx__br_emit_at(bridge_t *b, peer_t *p, uint32_t node, uint32_t port, uint32_t kind, const void *data, size_t n,
                    uint32_t lport, uint64_t pos)
{
  return emit(b, p, node, port, kind, data, n, 1, lport, pos);
}

/* A control frame that may have to wait for room in the window (sent from
 * the delivery path, where the window may be full). */
void mcx__br_add_note(peer_t *p, uint32_t kind, uint32_t node, uint32_t port)
{
  note_t *n = calloc(1, sizeof *n);
  if (!n)
    return;
  n->kind = kind, n->node = node, n->port = port;
  if (p->notes_tail)
    p->notes_tail->next = n;
  else
    p->notes = n;
  p->notes_tail = n;
}

int mcx__br_flush_notes(bridge_t *b, peer_t *p)
{
  int busy = 0;
  while (p->notes && mcx__br_room(b, p)) {
    note_t *n = p->notes;
    if (mcx__br_emit(b, p, n->node, n->port, n->kind, NULL, 0))
      break;
    p->notes = n->next;
    if (!p->notes)
      p->notes_tail = NULL;
    free(n);
    busy = 1;
  }
  return busy;
}

void mcx__br_free_notes(peer_t *p)
{
  for (note_t *n = p->notes, *m; n; n = m)
    m = n->next, free(n);
  p->notes = p->notes_tail = NULL;
}

void mcx__br_acked(bridge_t *b, peer_t *p, uint64_t upto)
{
  while (p->acked < upto && p->acked + 1 < p->next_seq) {
    out_frame_t *o = &p->win[(p->acked + 1) % b->window];
    free(o->buf);
    o->buf = NULL;
    p->acked++;
  }
}

/* ---- receiving: in-order delivery */
/* One message into a local queue, the receipt set in the same step. */
static void deliver_msg(bridge_t *b, peer_t *p, mcapi_endpoint_t to, const mcx__wire_data_t *d, mcapi_status_t *st)
{
  mcx__br_fault_arm();
  if (p->rcpt)
    mcx_msg_send_receipted(b->send_ep, to, d->body, d->len, d->kind, p->rcpt, d->seq, st);
  else
    mcapi_msg_send(b->send_ep, to, d->body, d->len, d->kind, st);
}

/* One data frame that is next in order: 1 done (delivered or dropped, the
 * record moved on), 0 hold (nothing acknowledged: the destination is full). */
static int deliver_one(bridge_t *b, peer_t *p, const mcx__wire_data_t *d)
{
  uint32_t prio = d->kind;
  mcapi_endpoint_t to = 0;
  mcapi_status_t st = MCAPI_ERR_ENDP_INVALID;
  if (prio >= K_PKT) {
    int r = mcx__br_deliver_chan(b, (int)(p - b->peers), prio, d->node, d->port, d->body, d->len);
    if (r == 0)
      return 0; /* held: no acknowledgement */
    st = r > 0 ? MCAPI_SUCCESS : MCAPI_ERR_CHAN_INVALID;
  } else if ((to = mcx__br_dest_ep(b, d->node, d->port, 0)) != 0) {
    deliver_msg(b, p, to, d, &st);
  }
  if (prio < K_PKT && (st == MCAPI_ERR_ENDP_INVALID || st == MCAPI_ERR_ENDP_DELETED)) {
    to = mcx__br_dest_ep(b, d->node, d->port, 1); /* deleted and made again? */
    if (to)
      deliver_msg(b, p, to, d, &st);
  }
  if (st == MCAPI_ERR_MEM_LIMIT)
    return 0; /* full: no acknowledgement, the sender's window fills */
  /* A message that was queued set the receipt in the same step; the
   * rest (dropped, or through a channel) set it now. */
  if (p->rcpt && !(st == MCAPI_SUCCESS && prio < K_PKT)) {
    mcapi_status_t rs;
    mcx_receipt_set(p->rcpt, d->seq, &rs);
  }
  if (st == MCAPI_SUCCESS) {
    p->delivered_total++;
  } else {
    p->dropped_total++;
    if (prio != K_VOID) /* voided on purpose (end_channels): counted, not logged */
      mcx__br_log(b, "data %" PRIu64 " from domain %u for node %u port %u dropped: %s", d->seq, p->domain, d->node,
                  d->port, mcapi_display_status(st, (char[64]){0}, 64));
  }
  mcx__mutex_lock(&p->mtx, 0);
  p->rx_delivered = d->seq;
  p->rx_known = 1;
  mcx__mutex_unlock(&p->mtx, 0);
  return 1; /* the file follows at the end of the pass (mcx__br_deliver) */
}

/* Delivers the held data frames of @p p in order; stops at a full queue. */
int mcx__br_deliver(bridge_t *b, peer_t *p)
{
  int busy = 0;
  while (p->pend_head) {
    ev_t *e = p->pend_head;
    mcx__wire_data_t d;
    mcx__wire_data_get(e->body + 1, e->len - 1, &d); /* checked when it was queued */
    if (p->rx_known && d.seq <= p->rx_delivered) {
      p->force_ack = 1; /* sent again after a reconnect: already here */
    } else if (p->rx_known && d.seq != p->rx_delivered + 1) {
      /* A gap cannot happen on one ordered stream: drop the connection. */
      mcx__br_log(b, "peer domain %u: data %" PRIu64 " after %" PRIu64 ", reconnecting", p->domain, d.seq,
                  p->rx_delivered);
      mcx__br_close_conn(p);
      break;
    } else if (!deliver_one(b, p, &d)) {
      break;
    }
    busy = 1;
    p->pend_head = e->next;
    if (!p->pend_head)
      p->pend_tail = NULL;
    free(e->body);
    free(e);
  }
  if (busy)
    mcx__br_record_flush(p); /* before the acknowledgement below is written */
  if (p->up && (p->force_ack || p->rx_delivered != p->ack_sent)) {
    uint8_t m[ACK_LEN];
    mcx__wire_ack(m, p->rx_delivered);
    mcx__br_send_small(p, F_ACK, m, sizeof m);
    p->ack_sent = p->rx_delivered;
    p->force_ack = 0;
  }
  return busy;
}

void mcx__br_drop_pending(peer_t *p)
{
  while (p->pend_head) {
    ev_t *e = p->pend_head;
    p->pend_head = e->next;
    free(e->body);
    free(e);
  }
  p->pend_tail = NULL;
}

/* ---- a new connection */
void mcx__br_peer_up(bridge_t *b, int pi, uint32_t gen, const uint8_t *hello)
{
  peer_t *p = &b->peers[pi];
  int was_up = p->up;
  p->olen = 0; /* made for the former connection: the window goes again below */
  p->seen_gen = gen;
  p->up = 1;
  /* Receiving side: a new incarnation of the peer starts a new record; a
   * new run of it (a restart, which keeps its incarnation when its journal
   * survived: journal.c) has none of the channels through it. */
  uint64_t inc = mcx__wire_hello_inc(hello), run = mcx__wire_hello_run(hello);
  mcx__br_drop_pending(p); /* sent again by the peer, in order */
  if (inc != p->rx_inc || (p->rx_run && run != p->rx_run))
    mcx__br_end_channels(b, pi); /* before the window is sent again */
  p->rx_run = run;
  uint64_t old_inc = p->rx_inc;
  mcx__mutex_lock(&p->mtx, 0);
  if (inc != p->rx_inc) {
    p->rx_inc = inc;
    p->rx_delivered = 0;
    p->rx_known = 0;
  } else {
    p->rx_known = 1;
  }
  mcx__mutex_unlock(&p->mtx, 0);
  if (inc != old_inc)
    rcpt_switch(b, p, old_inc, inc); /* stores the record between its steps */
  else
    record_store(p);
  p->ack_sent = UINT64_MAX; /* tell the peer where we are */
  /* Sending side: what the peer's record says it has is acknowledged; the
   * rest goes again, in order. */
  if (mcx__wire_hello_rx_inc(hello) == b->inc)
    mcx__br_acked(b, p, mcx__wire_hello_rx_delivered(hello));
  for (uint64_t s = p->acked + 1; s < p->next_seq; s++) {
    out_frame_t *o = &p->win[s % b->window];
    if (o->buf && o->seq == s)
      mcx__br_peer_write(p, o->buf, o->len);
  }
  mcx__br_resend_resolves(b, pi);
  mcx__br_mark_proxies(b, pi, !was_up); /* after the handshake: sends go through again */
}

int mcx__br_on_data(peer_t *p, ev_t *e)
{
  mcx__wire_data_t d;
  if (mcx__wire_data_get(e->body + 1, e->len - 1, &d))
    return 0;
  /* The first data of a new incarnation sets the base. */
  if (!p->rx_known) {
    mcx__mutex_lock(&p->mtx, 0);
    p->rx_delivered = d.seq - 1;
    p->rx_known = 1;
    mcx__mutex_unlock(&p->mtx, 0);
  }
  e->next = NULL;
  if (p->pend_tail)
    p->pend_tail->next = e;
  else
    p->pend_head = e;
  p->pend_tail = e;
  return 1;
}
