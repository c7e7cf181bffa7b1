/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The journal (docs/bridge.md: adoption), node thread only: per peer, a file
 * of the state directory that holds the window's data frames, a slot per
 * place in the window, each written (one pwrite) before its frame leaves
 * and before the message it carries is given back to its proxy's queue
 * (proxy.c). A bridge killed with frames unacknowledged starts again with
 * them: it keeps the stream's incarnation the journal names and sends them
 * again under their numbers, so the peer's delivery record skips what it
 * had (nothing repeated) and delivers the rest (nothing lost). Channel
 * frames go in as K_VOID frames: the channels died with the run.
 *
 * The file: a header (magic, version, window, slot size, incarnation) and
 * window slots (seq, proxy port, priority, ring position, frame length,
 * flags, the frame), in this host's byte order, read with pread and
 * written with pwrite (a file truncated under the bridge is an error,
 * never a fault). What is read is input: every length, number and frame is
 * checked, and a slot that fails is left out.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bridge_internal.h"
#include "ports/mcx_port_file.h"
#include "runtime/adopt.h"

#define JR_MAGIC 0x4a58434du /* "MCXJ" */
#define JR_VERSION 1u
#define JR_HEAD 32
#define JR_SLOT_HEAD 32
#define JR_MAX_WINDOW 65536u
#define JR_FLAG_AT 1u

typedef struct jr_head {
  uint32_t magic, version, window, slot;
  uint64_t inc, zero;
} jr_head_t;

typedef struct jr_slot {
  uint64_t seq;
  uint32_t lport, prio_flags; /* priority | flags << 16 */
  uint64_t pos;
  uint32_t flen, sum; /* sum: FNV-1a of the slot's head (sum 0) and frame: a torn write fails it */
} jr_slot_t;

static uint32_t fnv1a(uint32_t h, const uint8_t *p, size_t n)
{
  for (size_t i = 0; i < n; i++)
    h = (h ^ p[i]) * 16777619u;
  return h;
}

static uint32_t slot_sum(jr_slot_t js, const uint8_t *frame)
{
  js.sum = 0;
  return fnv1a(fnv1a(2166136261u, (const uint8_t *)&js, sizeof js), frame, js.flen);
}

_Static_assert(sizeof(jr_head_t) == JR_HEAD && sizeof(jr_slot_t) == JR_SLOT_HEAD, "journal layout");

static void jr_name(const bridge_t *b, const peer_t *p, char *name, size_t n)
{
  snprintf(name, n, "sent-d%u-to-d%u", b->cfg.domain, p->domain);
}

/* What one peer's journal holds: its header and the frames of its valid slots. */
typedef struct jr_loaded {
  jr_head_t h;
  out_frame_t *f;
  unsigned n;
} jr_loaded_t;

/* The valid slots of @p img (@p len bytes, its header checked). */
static void jr_parse(const uint8_t *img, size_t len, jr_loaded_t *l)
{
  const jr_head_t *h = &l->h;
  l->f = calloc(h->window, sizeof *l->f);
  if (!l->f)
    return;
  for (uint32_t i = 0; i < h->window; i++) {
    size_t off = JR_HEAD + (size_t)i * h->slot;
    if (off + h->slot > len)
      break;
    jr_slot_t s;
    memcpy(&s, img + off, sizeof s);
    const uint8_t *f = img + off + JR_SLOT_HEAD;
    uint32_t flen;
    mcx__wire_data_t d;
    if (!s.seq || s.seq % h->window != i || s.flen < WIRE_HEAD || s.flen > h->slot - JR_SLOT_HEAD ||
        slot_sum(s, f) != s.sum || mcx__wire_frame_len(f, &flen) || flen != s.flen - WIRE_PREFIX ||
        f[WIRE_PREFIX] != F_DATA || mcx__wire_data_get(f + WIRE_HEAD, s.flen - WIRE_HEAD, &d) || d.seq != s.seq)
      continue; /* never written, or not whole */
    uint8_t *buf = malloc(s.flen);
    if (!buf)
      continue;
    memcpy(buf, f, s.flen);
    out_frame_t *o = &l->f[l->n++];
    o->seq = s.seq, o->buf = buf, o->len = s.flen;
    o->at = ((s.prio_flags >> 16) & JR_FLAG_AT) != 0, o->lport = s.lport, o->prio = s.prio_flags & 0xffffu;
    o->pos = s.pos;
  }
}

/* Reads peer @p p's journal: 0 (l->n frames, maybe none), -1 refused by the file's checks. */
static int jr_load(bridge_t *b, peer_t *p, jr_loaded_t *l)
{
  char name[64], why[400];
  void *img;
  size_t len;
  memset(l, 0, sizeof *l);
  jr_name(b, p, name, sizeof name);
  size_t max = JR_HEAD + (size_t)JR_MAX_WINDOW * (JR_SLOT_HEAD + 25 + (size_t)MCAPI_MAX_MSG_SIZE * 64);
  if (mcx__br_state_read(b->state_fd, "journal", name, max, &img, &len, why, sizeof why)) {
    mcx__br_log(b, "state_dir %s: %s", b->cfg.state_dir, why);
    return -1;
  }
  if (!img)
    return 0;
  if (len >= JR_HEAD)
    memcpy(&l->h, img, JR_HEAD);
  const jr_head_t *h = &l->h;
  if (len < JR_HEAD || h->magic != JR_MAGIC || h->version != JR_VERSION || !h->window ||
      h->window > JR_MAX_WINDOW || h->slot < JR_SLOT_HEAD + WIRE_HEAD || h->slot > max ||
      len != JR_HEAD + (size_t)h->window * h->slot || !h->inc) {
    mcx__br_log(b, "journal %s is not one of this bridge's (%zu bytes): started without it", name, len);
    memset(l, 0, sizeof *l);
  } else {
    jr_parse(img, len, l);
  }
  free(img);
  return 0;
}

/* The frames of @p l that follow on from its newest one, into the window
 * (b->window places): the numbers go on after them, what the peer's
 * record has is acknowledged at the connection (mcx__br_peer_up). */
static void jr_install(bridge_t *b, peer_t *p, jr_loaded_t *l)
{
  uint64_t top = 0;
  for (unsigned i = 0; i < l->n; i++)
    top = l->f[i].seq > top ? l->f[i].seq : top;
  /* The frames by their journal slot (a slot holds one number of its
   * residue: the newest written to it); the run down from the newest. */
  uint64_t low = top + 1;
  const out_frame_t **at = calloc(l->h.window, sizeof *at);
  if (at) {
    for (unsigned i = 0; i < l->n; i++)
      at[l->f[i].seq % l->h.window] = &l->f[i];
    while (low > 1 && top - low + 1 < b->window) {
      const out_frame_t *o = at[(low - 1) % l->h.window];
      if (!o || o->seq != low - 1)
        break;
      low--;
    }
    free(at);
  }
  unsigned kept = 0, voided = 0;
  for (unsigned i = 0; i < l->n; i++) {
    out_frame_t *o = &l->f[i];
    if (o->seq < low || !top) {
      free(o->buf);
      continue;
    }
    uint32_t kind = mcx__wire_data_kind(o->buf);
    if (kind >= K_PKT && kind != K_VOID) { /* a channel of the run that died */
      mcx__wire_data_set_kind(o->buf, K_VOID);
      voided++;
    }
    p->win[o->seq % b->window] = *o;
    kept++;
  }
  if (top) {
    p->next_seq = top + 1;
    p->acked = low - 1;
  }
  if (kept)
    mcx__br_log(b, "peer domain %u: %u data frame(s) %" PRIu64 "..%" PRIu64 " of the last run not known to be "
                   "acknowledged: sent again at the connection (%u of channels, voided)",
                p->domain, kept, low, top, voided);
}

/* The journal written anew from the window, and opened. */
static int jr_write_all(bridge_t *b, peer_t *p)
{
  char name[64];
  jr_name(b, p, name, sizeof name);
  size_t len = JR_HEAD + (size_t)b->window * b->jr_slot_len;
  uint8_t *img = calloc(1, len);
  if (!img)
    return -1;
  jr_head_t h = {JR_MAGIC, JR_VERSION, b->window, b->jr_slot_len, b->inc, 0};
  memcpy(img, &h, sizeof h);
  for (uint64_t s = p->acked + 1; s < p->next_seq; s++) {
    out_frame_t *o = &p->win[s % b->window];
    if (!o->buf || o->seq != s || o->len > b->jr_slot_len - JR_SLOT_HEAD)
      continue;
    jr_slot_t js = {s, o->lport, (o->prio & 0xffffu) | (o->at ? JR_FLAG_AT : 0) << 16, o->pos, o->len, 0};
    js.sum = slot_sum(js, o->buf);
    uint8_t *at = img + JR_HEAD + (s % b->window) * b->jr_slot_len;
    memcpy(at, &js, sizeof js);
    memcpy(at + JR_SLOT_HEAD, o->buf, o->len);
  }
  int rc = mcx__br_state_replace(b->state_fd, name, img, len, 0600, &p->jr_fd);
  free(img);
  return rc;
}

int mcx__br_journal_start(bridge_t *b)
{
  jr_loaded_t l[MCX_BRIDGE_MAX_PEERS];
  int rc = 0;
  uint64_t inc = 0;
  uint32_t window = b->window;
  for (unsigned i = 0; i < b->cfg.npeers; i++) {
    if (jr_load(b, &b->peers[i], &l[i]))
      rc = -1;
    if (!inc && l[i].n)
      inc = l[i].h.inc;
  }
  if (inc) { /* the stream goes on: the peers' records of it stay good */
    b->inc = inc;
    for (unsigned i = 0; i < b->cfg.npeers; i++)
      if (l[i].n && l[i].h.inc == inc && l[i].h.window > window)
        window = l[i].h.window; /* its frames need their places */
    if (window != b->window)
      mcx__br_log(b, "window %u for the frames of the last run (configured: %u)", window, b->window);
    b->window = window;
  }
  for (unsigned i = 0; i < b->cfg.npeers; i++) {
    peer_t *p = &b->peers[i];
    p->win = calloc(b->window, sizeof *p->win);
    p->jr_batch = calloc(b->window, b->jr_slot_len);
    if (!p->win || !p->jr_batch)
      rc = -1;
    b->held_cap += b->window; /* a pass takes at most a window's room per peer */
    if (!rc && l[i].n && l[i].h.inc == b->inc) {
      jr_install(b, p, &l[i]);
    } else {
      if (l[i].n)
        mcx__br_log(b, "journal of peer domain %u names another incarnation: left out", p->domain);
      for (unsigned k = 0; k < l[i].n; k++)
        free(l[i].f[k].buf);
    }
    free(l[i].f);
    if (!rc && jr_write_all(b, p)) {
      mcx__br_log(b, "state_dir %s: the journal of peer domain %u cannot be written: a kill -9 may lose what "
                     "the window holds",
                  b->cfg.state_dir, p->domain);
      p->jr_fd = -1;
    }
  }
  b->held = calloc(b->held_cap ? b->held_cap : 1, sizeof *b->held);
  if (!b->held)
    rc = -1;
  return rc;
}

void mcx__br_journal_put(bridge_t *b, peer_t *p, const out_frame_t *o, int at, uint32_t lport, uint32_t prio,
                         uint64_t pos)
{
  if (p->jr_fd < 0)
    return;
  if (p->jr_n && o->seq != p->jr_first + p->jr_n)
    mcx__br_journal_flush(b); /* not the next number: not expected, but the batch is contiguous */
  if (!p->jr_n)
    p->jr_first = o->seq;
  const uint8_t *f = o->buf;
  uint32_t len = o->len;
  uint8_t *vbuf = NULL;
  if (len > b->jr_slot_len - JR_SLOT_HEAD || mcx__wire_data_kind(f) >= K_PKT) {
    /* A channel's frame (or one too long): its number only, as a void
     * frame: a restart has none of the channels. */
    mcx__wire_data_t d;
    mcx__wire_data_get(f + WIRE_HEAD, len - WIRE_HEAD, &d);
    vbuf = mcx__wire_data(o->seq, d.node, d.port, K_VOID, NULL, 0, &len);
    if (!vbuf) {
      len = 0; /* the slot stays empty: it fails the check at the start */
    } else {
      f = vbuf;
    }
    at = 0;
  }
  uint8_t *slot = p->jr_batch + (size_t)p->jr_n++ * b->jr_slot_len;
  jr_slot_t js = {o->seq, lport, (prio & 0xffffu) | (at ? JR_FLAG_AT : 0) << 16, pos, len, 0};
  if (len)
    js.sum = slot_sum(js, f);
  else
    js.seq = 0;
  memcpy(slot, &js, sizeof js);
  memcpy(slot + JR_SLOT_HEAD, f, len);
  free(vbuf);
  if (p->jr_n == b->window)
    mcx__br_journal_flush(b);
}

/* The batch of slots jr_first.. of peer @p p, in at most two writes (the
 * slots wrap round the window): in order, so a kill leaves a prefix. */
static void jr_write_batch(bridge_t *b, peer_t *p)
{
  uint32_t w = b->window, first = (uint32_t)(p->jr_first % w), n = p->jr_n;
  uint32_t n1 = first + n > w ? w - first : n;
  size_t sl = b->jr_slot_len;
  int rc = mcx_port_file_pwrite(p->jr_fd, p->jr_batch, n1 * sl, JR_HEAD + (uint64_t)first * sl);
  if (!rc && n1 < n)
    rc = mcx_port_file_pwrite(p->jr_fd, p->jr_batch + n1 * sl, (n - n1) * sl, JR_HEAD);
  p->jr_n = 0;
  if (rc) {
    mcx__br_log(b, "peer domain %u: the journal cannot be written (a kill -9 may now lose the window)", p->domain);
    mcx_port_file_close(p->jr_fd);
    p->jr_fd = -1;
  }
}

void mcx__br_journal_flush(bridge_t *b)
{
  for (unsigned i = 0; i < b->cfg.npeers; i++)
    if (b->peers[i].jr_n)
      jr_write_batch(b, &b->peers[i]);
  if (b->nheld)
    mcx__br_fault_take(1, b->nheld);
  /* Written: the messages they carry leave their queues, in the order taken. */
  for (unsigned i = 0; i < b->nheld; i++)
    mcx__msg_give_held(b->held[i].ep, b->held[i].prio, b->held[i].pos);
  b->nheld = 0;
}

void mcx__br_journal_last(const bridge_t *b, uint32_t lport, uint64_t upto[MCX_JR_PRIOS])
{
  for (unsigned k = 0; k < MCX_JR_PRIOS; k++)
    upto[k] = UINT64_MAX;
  uint64_t best[MCX_JR_PRIOS] = {0};
  for (unsigned i = 0; i < b->cfg.npeers; i++) {
    const peer_t *p = &b->peers[i];
    for (uint64_t s = p->acked + 1; s < p->next_seq; s++) {
      const out_frame_t *o = &p->win[s % b->window];
      if (o->buf && o->seq == s && o->at && o->lport == lport && o->prio < MCX_JR_PRIOS && s > best[o->prio])
        best[o->prio] = s, upto[o->prio] = o->pos;
    }
  }
}

void mcx__br_journal_close(peer_t *p)
{
  if (p->jr_fd >= 0)
    mcx_port_file_close(p->jr_fd);
  p->jr_fd = -1;
  free(p->jr_batch);
  p->jr_batch = NULL;
  p->jr_n = 0;
}
