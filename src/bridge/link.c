/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The bridge's links to its peers (docs/bridge.md): the dialing and
 * reading threads (one link thread per peer), the keepers that decide when
 * a connection is lost, the I/O threads' hand-off of events to the node
 * thread and its idle wait, and the node thread's batched writes. Owns the
 * threads of the peers, b->listener, the event list, and each peer's
 * connection (conn, gen, state, the write and ping bookkeeping, the
 * streams handed over). The handshake is handshake.c's; accepting and the
 * listener's side of the handshake are preauth.c's.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bridge_internal.h"
#include "ports/mcx_port.h"

/* Set when the bridge stops: the I/O threads and keepers end (polled; no
 * data hangs on it). */
static mcx_atomic_u32 g_quit_io;

int mcx__br_quitting(void) { return (int)mcx_load_relaxed(&g_quit_io); }

/* ---- stream I/O (blocking, bounded) */
/* A write to @p s under @p p's wmtx whose aio the stream's reader (or the
 * handshake that replaces the stream) can abort: Debian's nng (ipc) does
 * not end a send stalled on a peer that was killed when the stream is
 * closed, which held wmtx, and with it the next connection's pings, for
 * the whole write timeout (the peer then dropped that live connection). */
static void track_write(peer_t *pr, nng_stream *s, nng_aio *aio)
{
  mcx__mutex_lock(&pr->mtx, 0);
  pr->w_aio = aio;
  pr->w_stream = s;
  mcx__mutex_unlock(&pr->mtx, 0);
}

/* Closes @p s, the peer's connection or an older stream of it; under mtx.
 * Debian's nng (1.5) never ends a send or a receive started on a stream
 * after its close (it is queued and nothing serves it: it waits for its
 * timeout, forever without one), so every read and write of a peer's
 * stream is started under mtx and only while the stream is p->conn and
 * not closed (stream_open_locked): a close under mtx comes either before
 * the start (refused) or after it (the close ends it). A stream that is no
 * longer p->conn was closed: link_up() closes the one it replaces, the
 * others are closed before p->conn lets go of them. A write under way is
 * aborted too (one queued before nng closed the stream itself). */
static void close_locked(peer_t *pr, nng_stream *s)
{
  nng_stream_close(s);
  if (pr->conn == s)
    pr->conn_closed = 1;
  if (pr->w_aio && pr->w_stream == s)
    nng_aio_abort(pr->w_aio, NNG_ECLOSED);
  if (pr->ping_stream == s)
    nng_aio_abort(pr->ping_aio, NNG_ECLOSED); /* ping_done() then gives wmtx back */
}

/* Whether a read or write of @p s may start: it is the peer's connection, not closed. Under mtx. */
static int stream_open_locked(const peer_t *pr, const nng_stream *s)
{
  return s && pr->conn == s && !pr->conn_closed;
}

void mcx__br_close_conn(peer_t *pr)
{
  mcx__mutex_lock(&pr->mtx, 0);
  if (pr->conn)
    close_locked(pr, pr->conn);
  mcx__mutex_unlock(&pr->mtx, 0);
}

/* The time left to @p end (nng_clock() ms), at least 1 ms; @p step when
 * that is shorter (NNG_DURATION_INFINITE: no step bound). */
static nng_duration left(uint64_t end, nng_duration step)
{
  if (end == UINT64_MAX)
    return step;
  uint64_t now = nng_clock(), t = end > now + 1 ? end - now : 1;
  return step != NNG_DURATION_INFINITE && (uint64_t)step < t ? step : (nng_duration)t;
}

/* One read (@p rx) or write of at most @p len bytes at @p p: 0 with *n the
 * bytes moved, or an nng error (NNG_ECLOSED when none moved). A read or
 * write of peer @p pr's connection starts only while it is open
 * (close_locked()). */
static int io_step(nng_stream *s, nng_aio *aio, void *p, size_t len, int rx, nng_duration timeout, size_t *n,
                   peer_t *pr)
{
  nng_iov iov = {.iov_buf = p, .iov_len = len};
  nng_aio_set_iov(aio, 1, &iov);
  nng_aio_set_timeout(aio, timeout);
  if (pr) {
    mcx__mutex_lock(&pr->mtx, 0);
    if (mcx__br_fault_io(!rx) && pr->conn == s)
      close_locked(pr, s); /* a test's: as another thread's close landing here */
    int open = stream_open_locked(pr, s);
    if (open && rx)
      nng_stream_recv(s, aio); /* only queues it: nng completes it elsewhere */
    else if (open)
      nng_stream_send(s, aio);
    mcx__mutex_unlock(&pr->mtx, 0);
    if (!open)
      return NNG_ECLOSED;
  } else if (rx) {
    nng_stream_recv(s, aio);
  } else {
    nng_stream_send(s, aio);
  }
  nng_aio_wait(aio);
  int rv = nng_aio_result(aio);
  if (rv)
    return rv;
  *n = nng_aio_count(aio);
  return *n ? 0 : NNG_ECLOSED;
}

/* All @p len bytes, each step bounded by @p step and all of them by @p end
 * (absolute, UINT64_MAX: none): a peer that trickles bytes does not extend
 * @p end. */
static int io_all_tracked(nng_stream *s, void *buf, size_t len, int rx, nng_duration step, uint64_t end, peer_t *pr)
{
  /* The node thread's writes reuse the peer's aio: an nng aio's making
   * costs a getrandom() system call (Debian's nng 1.5), once per pass. */
  nng_aio *aio = pr ? pr->wr_aio : NULL;
  int rv = aio ? 0 : nng_aio_alloc(&aio, NULL, NULL);
  if (rv)
    return rv;
  if (pr)
    track_write(pr, s, aio);
  uint8_t *p = buf;
  while (len) {
    size_t n;
    if ((rv = io_step(s, aio, p, len, rx, left(end, step), &n, pr)) != 0)
      break;
    p += n;
    len -= n;
  }
  if (pr)
    track_write(pr, NULL, NULL); /* before the free: close_locked() aborts it under mtx */
  if (!pr || aio != pr->wr_aio)
    nng_aio_free(aio);
  return rv;
}

static int io_all(nng_stream *s, void *buf, size_t len, int rx, uint64_t end)
{
  return io_all_tracked(s, buf, len, rx, NNG_DURATION_INFINITE, end, NULL);
}

int mcx__br_read_frame(nng_stream *s, uint8_t **body, uint32_t *len, uint64_t end)
{
  uint8_t h[WIRE_PREFIX];
  uint32_t n;
  int rv = io_all(s, h, sizeof h, 1, end);
  if (rv)
    return rv;
  if (mcx__wire_frame_len(h, &n))
    return NNG_EPROTO;
  uint8_t *b = malloc(n);
  if (!b)
    return NNG_ENOMEM;
  if ((rv = io_all(s, b, n, 1, end)) != 0) {
    free(b);
    return rv;
  }
  *body = b;
  *len = n;
  return 0;
}

int mcx__br_send_raw(nng_stream *s, uint8_t type, const void *body, uint32_t len, uint64_t end)
{
  uint32_t total;
  uint8_t *f = mcx__wire_frame(type, body, len, &total);
  if (!f)
    return NNG_ENOMEM;
  int rv = io_all(s, f, total, 0, end);
  free(f);
  return rv;
}

/* ---- events: I/O threads to the node thread */
static ev_t *new_ev(int type, int peer, uint32_t gen, uint8_t *body, uint32_t len)
{
  ev_t *e = calloc(1, sizeof *e);
  if (!e) {
    free(body);
    return NULL;
  }
  e->type = type, e->peer = peer, e->gen = gen, e->body = body, e->len = len;
  return e;
}

/* Appends the list @p head .. @p tail to the node thread's events. */
static void push_evs(bridge_t *b, ev_t *head, ev_t *tail)
{
  if (!head)
    return;
  mcx__mutex_lock(&b->evmtx, 0);
  if (b->ev_tail)
    b->ev_tail->next = head;
  else
    b->ev_head = head;
  b->ev_tail = tail;
  mcx__mutex_unlock(&b->evmtx, 0);
  /* S1 — seq_cst: the bump is ordered before the load of sleeping; pairs
   * with S2 in mcx__br_node_sleep() (its store of sleeping before its futex
   * check of ev_seq): one of the two sees the other, so a sleep is never missed. */
  mcx_fetch_add_seq_cst(&b->ev_seq, 1);
  if (mcx_load_seq_cst(&b->sleeping))
    mcx_port_futex_wake(&b->ev_seq, 1, 0);
}

void mcx__br_push_ev(bridge_t *b, int type, int peer, uint32_t gen, uint8_t *body, uint32_t len)
{
  ev_t *e = new_ev(type, peer, gen, body, len);
  push_evs(b, e, e);
}

ev_t *mcx__br_take_evs(bridge_t *b)
{
  mcx__mutex_lock(&b->evmtx, 0);
  ev_t *e = b->ev_head;
  b->ev_head = b->ev_tail = NULL;
  mcx__mutex_unlock(&b->evmtx, 0);
  return e;
}

/* Until an I/O thread has events for it or @p ns passed (the local MCAPI
 * queues cannot wake it, so it looks again then). A sleeping thread that is
 * woken is scheduled soon on a loaded machine; one that yields in a loop
 * waits a whole time slice per look. */
void mcx__br_node_sleep(bridge_t *b, uint64_t ns)
{
  uint32_t seen = mcx_load_relaxed(&b->ev_seq); /* compared again by the futex */
  mcx_store_seq_cst(&b->sleeping, 1); /* S2 — pairs with S1 in push_evs() */
  if (!mcx__mutex_trylock(&b->evmtx)) { /* nothing queued since the pass looked? */
    int none = b->ev_head == NULL;
    mcx__mutex_unlock(&b->evmtx, 0);
    if (none)
      mcx_port_futex_wait(&b->ev_seq, seen, mcx_port_now_ns() + ns, 0);
  }
  mcx_store_relaxed(&b->sleeping, 0); /* only spares push_evs() a wake-up */
}

void mcx__br_set_state(peer_t *p, int state, const char *why)
{
  mcx__mutex_lock(&p->mtx, 0);
  p->state = state;
  snprintf(p->why, sizeof p->why, "%s", why);
  mcx__mutex_unlock(&p->mtx, 0);
}

/* Sleeps @p ms in short steps, so a stop is not held up. */
static void nap(unsigned ms)
{
  for (unsigned t = 0; t < ms && !mcx_load_relaxed(&g_quit_io); t += 20)
    nng_msleep(ms - t < 20 ? ms - t : 20);
}

/* ---- keep-alive (docs/bridge.md)
 * One keeper thread per peer, for the whole run, started by
 * mcx__br_link_start() (every thread is: none is made for a connection). It never
 * waits for a lock held across I/O or for a queue:
 * - a ping is written when nothing was for the interval, asynchronously:
 *   the keeper takes wmtx only if it is free (a write under way carries
 *   bytes too), starts the write and goes on; ping_done() finishes it and
 *   gives wmtx back;
 * - every read counts (the reader adds up the bytes: data, acks, pings,
 *   anything); a connection is lost when nothing came for DEAD_AFTER_PINGS
 *   intervals of this process's own running time: when the keeper's own
 *   wake-up comes much later than it asked, this process was not scheduled
 *   (a loaded or stolen CPU, SIGSTOP), and that time is not counted against
 *   the peer, which could not have been heard meanwhile.
 * The keeper closes a lost connection; its reader then reports it down. */
static void ping_done(void *arg)
{
  peer_t *p = arg;
  int rv = nng_aio_result(p->ping_aio);
  mcx__mutex_lock(&p->mtx, 0);
  if (rv == 0 && (p->ping_off += (unsigned)nng_aio_count(p->ping_aio)) < sizeof mcx__wire_ping) {
    if (stream_open_locked(p, p->ping_stream)) {
      nng_iov iov = {.iov_buf = (void *)(mcx__wire_ping + p->ping_off),
                     .iov_len = sizeof mcx__wire_ping - p->ping_off};
      nng_aio_set_iov(p->ping_aio, 1, &iov);
      nng_stream_send(p->ping_stream, p->ping_aio); /* the rest (a partial write) */
      mcx__mutex_unlock(&p->mtx, 0);
      return;
    }
    rv = NNG_ECLOSED; /* closed meanwhile: its reader reports it */
  }
  if (rv)
    close_locked(p, p->ping_stream); /* its reader reports the peer down */
  p->ping_stream = NULL;
  mcx__mutex_unlock(&p->mtx, 0);
  if (!rv)
    mcx_store_relaxed(&p->last_tx, nng_clock()); /* a counter (see peer_t) */
  mcx__mutex_unlock(&p->wmtx, 0); /* taken by keeper() when it started the ping */
}

static void keeper(void *arg)
{
  peer_t *p = arg;
  uint32_t gen = 0;
  uint64_t rx_seen = 0, quiet = 0;
  uint64_t t = nng_clock();
  while (!mcx_load_relaxed(&g_quit_io)) {
    mcx__mutex_lock(&p->mtx, 0);
    nng_stream *s = p->conn;
    unsigned ka = s ? p->ka_ms : 0;
    uint32_t g = p->gen;
    mcx__mutex_unlock(&p->mtx, 0);
    unsigned tick = ka ? ka / 4 : 100; /* a frame at least every 1.25 intervals */
    nap(tick);
    uint64_t now = nng_clock(), slept = now - t;
    t = now;
    /* Asked for tick ms: later than a whole interval past that, this
     * process was not running; that time is not the peer's silence. */
    uint64_t late = slept > tick ? slept - tick : 0, counted = slept;
    if (ka && late > ka) {
      counted = tick;
      mcx__br_log(p->owner, "peer domain %u: this process was not scheduled for %" PRIu64
                            " ms; not counted as the peer's silence", p->domain, late);
    }
    uint64_t rx = mcx_load_relaxed(&p->rx_bytes); /* a counter (see peer_t) */
    if (!ka || g != gen || rx != rx_seen) {
      gen = g, rx_seen = rx, quiet = 0;
      continue;
    }
    quiet += counted;
    if (quiet >= (uint64_t)ka * DEAD_AFTER_PINGS) {
      mcx__mutex_lock(&p->mtx, 0);
      if (p->conn == s && p->gen == g) {
        p->ka_lost_gen = g;
        close_locked(p, s); /* its reader reports the peer down */
      }
      mcx__mutex_unlock(&p->mtx, 0);
      quiet = 0;
      continue;
    }
    if (now - mcx_load_relaxed(&p->last_tx) < ka || mcx__mutex_trylock(&p->wmtx))
      continue; /* written to lately, or a write is under way */
    /* Started under mtx while the stream is open (close_locked()); the
     * reader frees it only under wmtx. */
    mcx__mutex_lock(&p->mtx, 0);
    int ok = p->gen == g && stream_open_locked(p, s);
    if (ok) {
      p->ping_stream = s;
      p->ping_off = 0;
      nng_iov iov = {.iov_buf = (void *)mcx__wire_ping, .iov_len = sizeof mcx__wire_ping};
      nng_aio_set_iov(p->ping_aio, 1, &iov);
      nng_aio_set_timeout(p->ping_aio, NNG_DURATION_INFINITE); /* ended by a close (the keeper's or the reader's) */
      nng_stream_send(s, p->ping_aio); /* ping_done() gives wmtx back */
    }
    mcx__mutex_unlock(&p->mtx, 0);
    if (!ok)
      mcx__mutex_unlock(&p->wmtx, 0);
  }
}

/* ---- reading */
#define READ_SLICE_MS 250

/* Reads frames until the stream fails or the keeper closes it (silent);
 * then the peer is down (if this stream is still its connection). Frees the
 * stream. Each read takes whatever has come, as much as fits, and hands
 * every whole frame in it to the node thread at once: one wake-up for a
 * burst of frames, not two for each. */
static void reader(bridge_t *b, int pi, nng_stream *s, uint32_t gen)
{
  peer_t *p = &b->peers[pi];
  mcx__mutex_lock(&p->mtx, 0);
  unsigned ka = p->ka_ms;
  mcx__mutex_unlock(&p->mtx, 0);
  size_t cap = 1u << 16, have = 0;
  uint8_t *buf = malloc(cap);
  nng_aio *aio = NULL;
  int rv = buf ? nng_aio_alloc(&aio, NULL, NULL) : NNG_ENOMEM;
  while (!rv) {
    size_t n;
    /* The keeper closes a silent connection. The slice only bounds a read
     * started after nng closed the stream itself (a reset seen by a write):
     * that write's failure closes it here too (close_locked()), and the
     * next slice sees it. */
    rv = io_step(s, aio, buf + have, cap - have, 1, READ_SLICE_MS, &n, p);
    if (rv == NNG_ETIMEDOUT) {
      rv = 0;
      continue;
    }
    if (rv)
      break;
    mcx_fetch_add_relaxed(&p->rx_bytes, n); /* a counter: no data hangs on it (keeper()) */
    have += n;
    ev_t *head = NULL, *tail = NULL;
    size_t off = 0, need = 0;
    while (have - off >= WIRE_PREFIX) {
      uint32_t len;
      if (mcx__wire_frame_len(buf + off, &len)) {
        rv = NNG_EPROTO;
        break;
      }
      if (have - off - WIRE_PREFIX < len) {
        need = WIRE_PREFIX + (size_t)len;
        break;
      }
      uint8_t *body = malloc(len);
      ev_t *e = body ? new_ev(EV_FRAME, pi, gen, body, len) : NULL;
      if (!e) {
        rv = NNG_ENOMEM;
        break;
      }
      memcpy(body, buf + off + WIRE_PREFIX, len);
      if (tail)
        tail->next = e;
      else
        head = e;
      tail = e;
      off += WIRE_PREFIX + (size_t)len;
    }
    push_evs(b, head, tail);
    memmove(buf, buf + off, have - off);
    have -= off;
    if (need > cap) { /* a frame larger than the buffer */
      uint8_t *nb = realloc(buf, need);
      if (!nb)
        rv = NNG_ENOMEM;
      else
        buf = nb, cap = need;
    }
  }
  if (aio)
    nng_aio_free(aio);
  free(buf);
  mcx__mutex_lock(&p->mtx, 0);
  unsigned dead_after = p->ka_lost_gen == gen ? ka * DEAD_AFTER_PINGS : 0;
  mcx__mutex_unlock(&p->mtx, 0);
  char cause[80];
  if (dead_after)
    snprintf(cause, sizeof cause, "nothing received for %u ms: keep-alive", dead_after);
  else
    snprintf(cause, sizeof cause, "%s", nng_strerror(rv));
  mcx__mutex_lock(&p->mtx, 0);
  close_locked(p, s); /* no write starts on it from here on */
  mcx__mutex_unlock(&p->mtx, 0);
  mcx__mutex_lock(&p->wmtx, 0); /* the node thread is not writing to it */
  mcx__mutex_lock(&p->mtx, 0);
  int mine = p->conn == s;
  if (mine) {
    p->conn = NULL;
    p->state = PS_DOWN;
    snprintf(p->why, sizeof p->why, "connection lost: %s", cause);
  }
  mcx__mutex_unlock(&p->mtx, 0);
  mcx__mutex_unlock(&p->wmtx, 0);
  nng_stream_free(s);
  if (mine) {
    mcx__br_push_ev(b, EV_DOWN, pi, gen, NULL, 0);
    if (!mcx_load_relaxed(&g_quit_io))
      mcx__br_log(b, "peer domain %u: down (%s)", p->domain, cause);
  }
}

/* ---- connections up */
int mcx__br_link_up(bridge_t *b, int pi, nng_stream *s, unsigned ka_ms, const uint8_t *hello, int serve,
                    uint32_t *gen)
{
  peer_t *p = &b->peers[pi];
  uint8_t *h = malloc(HELLO_LEN);
  handoff_t *ho = serve ? malloc(sizeof *ho) : NULL;
  if (!h || (serve && !ho)) {
    free(h);
    free(ho);
    return -1;
  }
  memcpy(h, hello, HELLO_LEN);
  /* This stream replaces any older one. The order matters: the node thread
   * writes to p->conn only while p->gen is the gen of the last EV_UP it
   * took, and drops frames read for another gen than that; so the
   * connection is installed before EV_UP is pushed, and EV_UP before
   * anything can be read from it (the dialer reads after this returns; a
   * listener's stream is handed to its reader only now). */
  mcx__mutex_lock(&p->mtx, 0);
  if (p->conn)
    close_locked(p, p->conn); /* its reader ends and frees it */
  p->conn = s;
  p->conn_closed = 0;
  *gen = ++p->gen;
  p->ka_ms = ka_ms; /* the keeper watches it from its next tick */
  p->state = PS_UP;
  snprintf(p->why, sizeof p->why, "connected");
  mcx__mutex_unlock(&p->mtx, 0);
  mcx__br_push_ev(b, EV_UP, pi, *gen, h, HELLO_LEN);
  if (ho) {
    ho->next = NULL, ho->s = s, ho->gen = *gen;
    mcx__mutex_lock(&p->mtx, 0);
    if (p->hand_tail)
      p->hand_tail->next = ho;
    else
      p->hand_head = ho;
    p->hand_tail = ho;
    mcx__mutex_unlock(&p->mtx, 0);
    /* H1 — the hand-off is under mtx; the bump only wakes the link thread,
     * which looks under mtx again (serve()). */
    mcx_fetch_add_relaxed(&p->hand_seq, 1);
    mcx_port_futex_wake(&p->hand_seq, 1, 0);
  }
  return 0;
}

/* The link thread of a peer that dials this side: reads each stream the
 * pre-auth thread authenticated, in order (one replaced before it was read
 * is closed already: its read ends at once, and frees it). */
static void serve(void *arg)
{
  peer_t *p = arg;
  bridge_t *b = p->owner;
  int pi = (int)(p - b->peers);
  while (!mcx_load_relaxed(&g_quit_io)) {
    uint32_t seen = mcx_load_relaxed(&p->hand_seq); /* compared again by the futex; H1 */
    mcx__mutex_lock(&p->mtx, 0);
    handoff_t *h = p->hand_head;
    if (h && !(p->hand_head = h->next))
      p->hand_tail = NULL;
    mcx__mutex_unlock(&p->mtx, 0);
    if (!h) {
      /* Woken by a hand-off or the stop; the bound only keeps a missed
       * wake-up from mattering. */
      mcx_port_futex_wait(&p->hand_seq, seen, mcx_port_now_ns() + 1000000000u, 0);
      continue;
    }
    reader(b, pi, h->s, h->gen);
    free(h);
  }
}

static void dial_thread(void *arg)
{
  peer_t *p = arg;
  bridge_t *b = p->owner;
  int pi = (int)(p - b->peers);
  unsigned backoff = BACKOFF_MIN_MS;
  nng_stream_dialer *dialer = NULL;
  nng_aio *aio = NULL;
  nng_tls_config *tls = NULL;
  int rv = nng_stream_dialer_alloc(&dialer, p->url);
  if (rv == 0 && strstr(p->url, "tcp://"))
    rv = nng_stream_dialer_set_bool(dialer, NNG_OPT_TCP_NODELAY, true); /* frames are small: no Nagle */
  if (rv == 0 && !strncmp(p->url, "tls+", 4)) {
    /* The peer's certificate must name the host dialled. */
    char host[256];
    const char *h = p->url + strlen("tls+tcp://");
    size_t n = strcspn(h, ":/");
    snprintf(host, sizeof host, "%.*s", (int)n, h);
    rv = b->cfg.tls_cert_key[0] ? mcx__br_make_tls(b, &tls, host) : NNG_ENOTSUP;
    if (rv == 0)
      rv = nng_stream_dialer_set_ptr(dialer, NNG_OPT_TLS_CONFIG, tls);
  }
  if (rv == 0)
    rv = nng_aio_alloc(&aio, NULL, NULL);
  if (rv) {
    char why[400];
    snprintf(why, sizeof why, "cannot dial %s: %s", p->url, nng_strerror(rv));
    mcx__br_log(b, "%s", why);
    mcx__br_set_state(p, PS_REFUSED, why);
    goto out;
  }
  while (!mcx_load_relaxed(&g_quit_io)) {
    mcx__mutex_lock(&p->mtx, 0);
    p->attempts++;
    mcx__mutex_unlock(&p->mtx, 0);
    nng_aio_set_timeout(aio, DIAL_TIMEOUT_MS);
    nng_stream_dialer_dial(dialer, aio);
    nng_aio_wait(aio);
    rv = nng_aio_result(aio);
    if (rv == 0) {
      nng_stream *s = nng_aio_get_output(aio, 0);
      uint32_t gen;
      if (mcx__br_handshake(b, s, pi, &gen) == 0) {
        backoff = BACKOFF_MIN_MS;
        reader(b, pi, s, gen);
        nap(BACKOFF_MIN_MS);
        continue;
      }
      nng_stream_close(s);
      nng_stream_free(s);
    } else {
      char why[150];
      snprintf(why, sizeof why, "down: %s (retry in %u ms)", nng_strerror(rv), backoff);
      mcx__mutex_lock(&p->mtx, 0);
      unsigned attempts = p->attempts;
      snprintf(p->why, sizeof p->why, "%s", why);
      if (p->state != PS_REFUSED)
        p->state = PS_DOWN;
      mcx__mutex_unlock(&p->mtx, 0);
      /* Each step of the backoff is logged, then one attempt in 20. */
      if (backoff < BACKOFF_MAX_MS || attempts % 20 == 0)
        mcx__br_log(b, "peer domain %u (%s): %s", p->domain, p->url, why);
    }
    nap(backoff);
    backoff = backoff * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : backoff * 2;
  }
out:
  if (aio)
    nng_aio_free(aio);
  if (dialer) {
    nng_stream_dialer_close(dialer);
    nng_stream_dialer_free(dialer);
  }
  if (tls)
    nng_tls_config_free(tls);
}

int mcx__br_link_start(bridge_t *b)
{
  mcx_store_relaxed(&g_quit_io, 0);
  int rv = nng_stream_listener_alloc(&b->listener, b->cfg.listen);
  if (rv == 0 && strstr(b->cfg.listen, "tcp://"))
    rv = nng_stream_listener_set_bool(b->listener, NNG_OPT_TCP_NODELAY, true);
  if (rv == 0 && !strncmp(b->cfg.listen, "tls+", 4))
    rv = b->tls_server ? nng_stream_listener_set_ptr(b->listener, NNG_OPT_TLS_CONFIG, b->tls_server) : NNG_ENOTSUP;
  if (rv == 0)
    rv = nng_stream_listener_listen(b->listener);
  if (rv) {
    mcx__br_log(b, "cannot listen on %s: %s", b->cfg.listen, nng_strerror(rv));
    return -1;
  }
  mcx__br_log(b, "node %u of domain %u, listening on %s, %u peer(s)", b->cfg.node, b->cfg.domain, b->cfg.listen,
              b->cfg.npeers);
  /* Every thread now, a fixed number: per peer a keeper and a link thread. */
  for (unsigned i = 0; i < b->cfg.npeers; i++) {
    peer_t *p = &b->peers[i];
    if (nng_aio_alloc(&p->ping_aio, ping_done, p) || nng_aio_alloc(&p->wr_aio, NULL, NULL) ||
        nng_thread_create(&p->keeper, keeper, p) ||
        nng_thread_create(&p->link, p->dialer ? dial_thread : serve, p)) {
      mcx__br_log(b, "cannot start the threads of peer domain %u", p->domain);
      return -1;
    }
  }
  return mcx__br_preauth_start(b);
}

void mcx__br_link_stop(bridge_t *b)
{
  mcx_store_relaxed(&g_quit_io, 1);
  if (b->listener)
    nng_stream_listener_close(b->listener);
  mcx__br_preauth_stop(b); /* joins the pre-auth thread: no hand-off after this */
  for (unsigned i = 0; i < b->cfg.npeers; i++) {
    peer_t *p = &b->peers[i];
    mcx__br_close_conn(p);
    mcx_fetch_add_relaxed(&p->hand_seq, 1); /* only a wake-up (serve() polls g_quit_io) */
    mcx_port_futex_wake(&p->hand_seq, 1, 0);
  }
  for (unsigned i = 0; i < b->cfg.npeers; i++) {
    peer_t *p = &b->peers[i];
    if (p->link)
      nng_thread_destroy(p->link); /* joins */
    if (p->keeper)
      nng_thread_destroy(p->keeper); /* joins */
    if (p->ping_aio) {
      nng_aio_stop(p->ping_aio); /* its stream was closed above: ping_done() has run */
      nng_aio_free(p->ping_aio);
    }
    if (p->wr_aio)
      nng_aio_free(p->wr_aio); /* the node thread's: it writes no more */
    p->wr_aio = NULL;
    /* Streams handed over and never read (their link thread stopped first). */
    for (handoff_t *h = p->hand_head, *n; h; h = n) {
      n = h->next;
      if (p->conn == h->s)
        p->conn = NULL;
      nng_stream_close(h->s);
      nng_stream_free(h->s);
      free(h);
    }
    p->hand_head = p->hand_tail = NULL;
    p->link = p->keeper = NULL;
    p->ping_aio = NULL;
  }
  if (b->listener)
    nng_stream_listener_free(b->listener);
  b->listener = NULL;
}

/* ---- writing (node thread) */
/* Frames are gathered per peer and written by mcx__br_flush_out() at the
 * end of the node thread's pass: one system call (and one TCP segment,
 * NODELAY) for what a pass made, not one per frame. */
void mcx__br_peer_write(peer_t *p, const uint8_t *f, uint32_t len)
{
  if (p->olen + len > p->ocap) {
    size_t cap = p->ocap ? p->ocap : 1u << 16;
    while (cap < p->olen + len)
      cap *= 2;
    uint8_t *nb = realloc(p->obuf, cap);
    if (!nb)
      return; /* as a failed write: a data frame goes again after the reconnection */
    p->obuf = nb, p->ocap = cap;
  }
  memcpy(p->obuf + p->olen, f, len);
  p->olen += len;
}

/* Writes what mcx__br_peer_write() gathered to the connection it was made
 * for. A write waits for a ping under way (wmtx). A write that does not
 * finish for long is the keeper's business (it closes a silent connection,
 * which aborts the write); the timeout here is only a backstop. */
void mcx__br_flush_out(peer_t *p)
{
  if (!p->olen)
    return;
  mcx__mutex_lock(&p->wmtx, 0);
  mcx__mutex_lock(&p->mtx, 0);
  nng_stream *s = p->gen == p->seen_gen && stream_open_locked(p, p->conn) ? p->conn : NULL;
  unsigned ka = p->ka_ms;
  mcx__mutex_unlock(&p->mtx, 0);
  if (s) {
    nng_duration t = ka ? (nng_duration)ka * DEAD_AFTER_PINGS * 4 : IO_TIMEOUT_MS;
    int rv = io_all_tracked(s, p->obuf, p->olen, 0, t, UINT64_MAX, p);
    if (rv) {
      mcx__mutex_lock(&p->mtx, 0);
      close_locked(p, s); /* its reader reports the peer down */
      mcx__mutex_unlock(&p->mtx, 0);
      if (!mcx__br_quitting())
        mcx__br_log(p->owner, "peer domain %u: a write of %zu bytes failed (%s): the connection is closed", p->domain,
                    p->olen, nng_strerror(rv));
    } else
      mcx_store_relaxed(&p->last_tx, nng_clock()); /* a counter (see peer_t) */
  }
  mcx__mutex_unlock(&p->wmtx, 0);
  p->olen = 0;
}

void mcx__br_send_small(peer_t *p, uint8_t type, const uint8_t *body, uint32_t len)
{
  uint32_t total;
  uint8_t *f = mcx__wire_frame(type, body, len, &total);
  if (!f)
    return;
  mcx__br_peer_write(p, f, total);
  free(f);
}
