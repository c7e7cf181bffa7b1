/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The bridge (docs/bridge.md): a node of its local domain that joins it to
 * the bridges of other domains over nng byte streams (tcp://, ipc://).
 *
 * Threads: the calling thread is the node and owns every MCAPI object and
 * every protocol state (windows, records, resolves). I/O threads only dial,
 * accept, do the handshake and read frames; they hand what they read to the
 * node thread through one locked event list. The node thread writes frames
 * itself (bounded by the window, so a write never waits long), all it has
 * for a peer in one write per pass of its loop. One keeper thread per peer
 * sends the pings and decides when a silent connection is lost; it never
 * waits for anything but its clock (docs/bridge.md: keep-alive).
 *
 * Locks are libmca's own (sync/lock.h), not nng's: the test builds tell
 * ThreadSanitizer to ignore what libnng calls (tests/tsan.supp), which would
 * hide every hand-off made through an nng mutex.
 *
 * Frames: u32 length (of what follows, little-endian), u8 type, body.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nng/nng.h>
#include <nng/supplemental/tls/tls.h>
#include <nng/supplemental/util/platform.h>

#include "common/mcx_atomic.h"
#include "mcx.h"
#include "mcx_bridge.h"
#include "ports/mcx_port.h"
#include "ports/mcx_port_shm.h"
#include "runtime/receipt_hook.h"
#include "sync/lock.h"

enum { F_HELLO = 1, F_AUTH = 2, F_DATA = 3, F_ACK = 4, F_RESOLVE = 5, F_RESOLVED = 6, F_PING = 7 };
enum { EV_UP = 1, EV_DOWN = 2, EV_FRAME = 3 };
enum { PS_DOWN = 0, PS_UP = 1, PS_REFUSED = 2 };

#define HELLO_MAGIC 0x4258434du /* "MCXB" */
/* 2: the hello carries the keep-alive interval, F_PING exists (a version 1
 * bridge sends no pings, so a version 2 one would take it for lost). */
#define WIRE_VERSION 2u
#define MAX_FRAME (1u << 20)
#define IO_TIMEOUT_MS 5000
#define DIAL_TIMEOUT_MS 10000
/* The whole handshake of a connection, at least (a hello that is slow under
 * load is waited for, not refused); dead_after when that is longer. */
#define HANDSHAKE_MIN_MS 30000
#define BACKOFF_MIN_MS 100
#define BACKOFF_MAX_MS 5000
#define MAX_PROXIES 64
#define PROXY_PORT_BASE 0x6d630c00u
#define HELLO_LEN 72 /* magic, version, domain, incarnation, nonce[32], record (incarnation, delivered), keep-alive ms */
#define KEEPALIVE_DEFAULT_MS 500
#define KEEPALIVE_MIN_MS 20
#define KEEPALIVE_MAX_MS 60000
/* A connection silent for 8 intervals of this process's own running time is
 * lost: the time this process was not scheduled is not counted (keeper()). */
#define DEAD_AFTER_PINGS 8

typedef struct ev {
  struct ev *next;
  int type, peer;
  uint32_t gen;
  uint8_t *body; /* EV_FRAME: type byte + body; EV_UP: the peer's hello */
  uint32_t len;
} ev_t;

typedef struct out_frame {
  uint64_t seq;
  uint8_t *buf; /* the whole frame, length prefix included */
  uint32_t len;
} out_frame_t;

typedef struct resolve {
  struct resolve *next;
  uint64_t id;
  int peer;
  uint32_t node, port;
  uint64_t deadline; /* ms (nng_clock), UINT64_MAX: never */
  uint32_t timeout_ms;
  /* local side: who asked */
  uint32_t reply_node, reply_port;
  uint64_t token;
} resolve_t;

/* A numbered control frame waiting for room in the window. */
typedef struct note {
  struct note *next;
  uint32_t kind, node, port;
} note_t;

typedef struct peer {
  struct bridge *owner;
  uint32_t domain;
  char url[256];
  int dialer; /* we dial (our domain id is lower) */
  /* Shared with the I/O threads, under mtx. */
  mcx__mutex_t mtx;
  mcx__mutex_t wmtx; /* one writer of the stream at a time */
  nng_stream *conn;
  uint32_t gen;
  int state;
  unsigned attempts;
  char why[160];
  uint64_t rx_inc, rx_delivered; /* the delivery record (also on disk) */
  unsigned ka_ms; /* the keep-alive interval of the connection gen (0: off) */
  uint32_t ka_lost_gen; /* the connection the keeper found silent (its gen; 0: none) */
  nng_aio *w_aio;       /* the write under way (under wmtx), and its stream: under mtx */
  nng_stream *w_stream;
  nng_stream *ping_stream; /* the stream a ping is being written to (it holds wmtx) */
  /* Counters, no data hangs on them (relaxed): bytes read (by the reader),
   * nng_clock() of the last write (by whoever holds wmtx); both read by the keeper. */
  mcx_atomic_u64 rx_bytes, last_tx;
  /* The keeper's: its thread, its ping's aio, how much of the ping is written. */
  nng_thread *keeper;
  nng_aio *ping_aio;
  unsigned ping_off;
  /* Node thread only. */
  uint32_t seen_gen;
  int up;
  uint64_t next_seq, acked; /* sent 1..next_seq-1; acknowledged 1..acked */
  out_frame_t *win;
  int rx_known;            /* rx_delivered is a base for rx_inc */
  uint64_t ack_sent;
  int force_ack;
  ev_t *pend_head, *pend_tail; /* DATA received, not yet delivered (destination full) */
  struct record *rec; /* the delivery record, a mapped file (record_open) */
  mcx_receipt_t rcpt; /* the same in the partition, set with each delivery (0: none) */
  uint64_t delivered_total, dropped_total, sent_total;
  note_t *notes, *notes_tail;
  uint8_t *obuf; /* frames for the connection seen_gen, written at the end of the pass */
  size_t olen, ocap;
} peer_t;

/* What a data frame carries (its priority field): a message of that
 * priority, or a channel's open, item or close (docs/bridge.md).
 * Channels from a local sender to a remote receiver, (node, port) naming the
 * receiver: K_CHAN_OPEN / K_SCL_OPEN, K_PKT / K_SCL, K_CHAN_CLOSE, and back
 * K_CHAN_STOP (the receiver closed: the proxy's side closes).
 * Channels a remote program connected from an endpoint of this side (its
 * sender) to one of its own, (node, port) naming the sender: K_RCONNECT
 * (connect it to a bridge endpoint here), K_RPKT, K_RCLOSE (the sender
 * closed), K_RFAIL (the connect failed here), K_RSTOP (the receiver closed).
 * Scalar channels of that kind: K_RSCONNECT and K_RSCL instead of K_RCONNECT
 * and K_RPKT, the rest alike. */
enum {
  K_PKT = 0x100, K_CHAN_OPEN = 0x101, K_CHAN_CLOSE = 0x102, K_SCL_OPEN = 0x103, K_SCL = 0x104,
  K_RCONNECT = 0x105, K_RPKT = 0x106, K_RCLOSE = 0x107, K_RFAIL = 0x108, K_RSTOP = 0x109,
  K_CHAN_STOP = 0x10a, K_RSCONNECT = 0x10b, K_RSCL = 0x10c,
  K_VOID = 0x10d /* a channel frame of a peer's former incarnation, voided: skipped (dropped) */
};
/* A proxy's mode: messages; the receive side of a packet or scalar channel a
 * local sender connected to it (opening, open, closing); out of use; the send
 * side of a packet channel a local receiver connected it to (opening, open,
 * closing) or of a scalar channel (the same modes, scl = 1); its side
 * closed, the other side not yet (detach). A bridge endpoint taking a local
 * sender's packets or scalars for a remote receiver (a "pull", reverse = 1)
 * uses the PX_PKT or PX_SCL modes, then PX_FREE. */
enum {
  PX_MSG = 0, PX_PKT_OPENING, PX_PKT, PX_PKT_CLOSING, PX_BROKEN, PX_SCL_OPENING, PX_SCL, PX_SCL_CLOSING,
  PX_OUT_OPENING, PX_OUT, PX_OUT_CLOSING, PX_FREE, PX_DETACH
};

typedef struct proxy {
  mcapi_endpoint_t ep;
  int peer;
  int mode; /* PX_* */
  int reverse; /* a pull endpoint, not a proxy: its frames are K_RPKT or K_RSCL, K_RCLOSE */
  int scl; /* PX_OUT modes: the send side of a scalar channel */
  mcapi_pktchan_recv_hndl_t rh;
  mcapi_sclchan_recv_hndl_t srh;
  mcapi_pktchan_send_hndl_t sh;
  mcapi_sclchan_send_hndl_t ssh;
  mcapi_request_t req, rreq, sreq;
  void *rbuf;
  uint8_t *sbuf; /* PX_OUT: the packet of the send in progress (chan_copy) */
  int rposted, sending;
  int noreq; /* a closing mode with no close request to wait for */
  unsigned width; /* of the last scalar taken (tried first) */
  uint32_t node, port, local_port;
} proxy_t;


/* The remote end of a bridged packet channel: an endpoint of the bridge's
 * node connected to the destination, its send side open. */
#define MAX_RCHANS 16
#define RCHAN_PORT_BASE 0x6d630e00u
typedef struct rchan {
  int used, peer, open, sending, closing, failed;
  int noreq; /* closing with no close request to wait for */
  uint32_t type; /* MCAPI_PKT_CHAN or MCAPI_SCL_CHAN */
  uint32_t node, port;
  mcapi_endpoint_t ep;
  mcapi_pktchan_send_hndl_t sh;
  mcapi_request_t open_req, send_req, close_req;
  uint8_t *sbuf; /* the packet of the send in progress (chan_copy); kept when the slot is reused */
} rchan_t;

typedef struct dest {
  uint32_t node, port;
  mcapi_endpoint_t ep;
} dest_t;

typedef struct bridge {
  mcx_bridge_config_t cfg;
  uint64_t inc;
  peer_t peers[MCX_BRIDGE_MAX_PEERS];
  mcx__mutex_t evmtx;
  ev_t *ev_head, *ev_tail;
  /* The node thread sleeps on ev_seq when idle; the I/O threads bump it
   * with each batch of events and wake it when it said it sleeps. Written
   * by the I/O threads (ev_seq) and the node thread (sleeping). */
  mcx_atomic_u32 ev_seq, sleeping;
  nng_stream_listener *listener;
  struct thr {
    nng_thread *t;
    mcx_atomic_u32 done; /* set by the thread as its last act; joined by spawn() or at the end */
    void (*fn)(void *);
    void *arg;
  } threads[64];
  mcx__mutex_t thmtx;
  mcapi_endpoint_t req_ep, send_ep;
  proxy_t proxies[MAX_PROXIES];
  unsigned nproxies;
  unsigned drain_next; /* drain_proxies: the proxy served first next time (round robin) */
  dest_t dests[MAX_PROXIES];
  unsigned ndests;
  resolve_t *remote_res, *local_res;
  uint64_t next_res_id;
  unsigned window;
  unsigned keepalive_ms; /* this side's (0: off) */
  nng_tls_config *tls_server;
  rchan_t rchans[MAX_RCHANS];
  proxy_t pulls[MAX_RCHANS];
} bridge_t;

static int make_tls(const bridge_t *b, nng_tls_config **out, const char *host);
static mcapi_endpoint_t dest_ep(bridge_t *b, uint32_t node, uint32_t port, int fresh);
static int set_fail(const bridge_t *b, mcapi_endpoint_t ep, int fail);
static void proxy_mark(const bridge_t *b, const proxy_t *x);

static mcx_atomic_u32 g_stop;
static mcx_atomic_u32 g_quit_io;
static int spawn(bridge_t *b, void (*fn)(void *), void *arg);
static void nap(unsigned ms);
static int io_all(nng_stream *s, void *buf, size_t len, int rx, nng_duration timeout);
static int io_all_tracked(nng_stream *s, void *buf, size_t len, int rx, nng_duration timeout,
                          struct peer *pr);

void mcx_bridge_stop(void) { mcx_store_relaxed(&g_stop, 1); /* polled by the loop; no data hangs on it */ }

static void blog(const bridge_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void blog(const bridge_t *b, const char *fmt, ...)
{
  char line[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  fprintf(stderr, "mca bridge d%u: %s\n", b->cfg.domain, line);
  fflush(stderr);
}

/* ---- little-endian fields */
static void put32(uint8_t *p, uint32_t v)
{
  for (int i = 0; i < 4; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}
static void put64(uint8_t *p, uint64_t v)
{
  for (int i = 0; i < 8; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}
static uint32_t get32(const uint8_t *p)
{
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t get64(const uint8_t *p) { return get32(p) | (uint64_t)get32(p + 4) << 32; }

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

/* Aborts a write to @p s in progress (the caller has closed @p s); under mtx. */
static void abort_write_locked(peer_t *pr, nng_stream *s)
{
  if (pr->w_aio && pr->w_stream == s)
    nng_aio_abort(pr->w_aio, NNG_ECLOSED);
  if (pr->ping_stream == s)
    nng_aio_abort(pr->ping_aio, NNG_ECLOSED); /* ping_done() then gives wmtx back */
}

static void abort_write(peer_t *pr, nng_stream *s)
{
  mcx__mutex_lock(&pr->mtx, 0);
  abort_write_locked(pr, s);
  mcx__mutex_unlock(&pr->mtx, 0);
}

static int io_all_tracked(nng_stream *s, void *buf, size_t len, int rx, nng_duration timeout, peer_t *pr)
{
  nng_aio *aio;
  int rv = nng_aio_alloc(&aio, NULL, NULL);
  if (rv)
    return rv;
  if (pr)
    track_write(pr, s, aio);
  uint8_t *p = buf;
  while (len) {
    nng_iov iov = {.iov_buf = p, .iov_len = len};
    nng_aio_set_iov(aio, 1, &iov);
    nng_aio_set_timeout(aio, timeout);
    if (rx)
      nng_stream_recv(s, aio);
    else
      nng_stream_send(s, aio);
    nng_aio_wait(aio);
    if ((rv = nng_aio_result(aio)) != 0)
      break;
    size_t n = nng_aio_count(aio);
    if (n == 0) {
      rv = NNG_ECLOSED;
      break;
    }
    p += n;
    len -= n;
  }
  if (pr)
    track_write(pr, NULL, NULL); /* before the free: abort_write holds mtx */
  nng_aio_free(aio);
  return rv;
}

static int io_all(nng_stream *s, void *buf, size_t len, int rx, nng_duration timeout)
{
  return io_all_tracked(s, buf, len, rx, timeout, NULL);
}

/* Reads one frame: *type, body malloc'd (freed by the caller). */
static int read_frame(nng_stream *s, uint8_t **body, uint32_t *len, nng_duration timeout)
{
  uint8_t h[4];
  int rv = io_all(s, h, 4, 1, timeout);
  if (rv)
    return rv;
  uint32_t n = get32(h);
  if (n == 0 || n > MAX_FRAME)
    return NNG_EPROTO;
  uint8_t *b = malloc(n);
  if (!b)
    return NNG_ENOMEM;
  if ((rv = io_all(s, b, n, 1, timeout)) != 0) {
    free(b);
    return rv;
  }
  *body = b;
  *len = n;
  return 0;
}

static uint8_t *frame_new(uint8_t type, uint32_t body_len, uint32_t *total)
{
  uint8_t *f = malloc(5 + (size_t)body_len);
  if (!f)
    return NULL;
  put32(f, body_len + 1);
  f[4] = type;
  *total = 5 + body_len;
  return f;
}

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
   * with S2 in node_sleep() (its store of sleeping before its futex check
   * of ev_seq): one of the two sees the other, so a sleep is never missed. */
  mcx_fetch_add_seq_cst(&b->ev_seq, 1);
  if (mcx_load_seq_cst(&b->sleeping))
    mcx_port_futex_wake(&b->ev_seq, 1, 0);
}

/* The node thread's idle wait: until an I/O thread has events for it or
 * @p ns passed (the local MCAPI queues cannot wake it, so it looks again
 * then). A sleeping thread that is woken is scheduled soon on a loaded
 * machine; one that yields in a loop waits a whole time slice per look. */
static void node_sleep(bridge_t *b, uint64_t ns)
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

static void push_ev(bridge_t *b, int type, int peer, uint32_t gen, uint8_t *body, uint32_t len)
{
  ev_t *e = new_ev(type, peer, gen, body, len);
  push_evs(b, e, e);
}

/* ---- handshake (docs/bridge.md: security) */
static void make_hello(bridge_t *b, int pi, uint8_t out[HELLO_LEN])
{
  memset(out, 0, HELLO_LEN);
  put32(out, HELLO_MAGIC);
  put32(out + 4, WIRE_VERSION);
  put32(out + 8, b->cfg.domain);
  put64(out + 12, b->inc);
  for (int i = 0; i < 8; i++)
    put32(out + 20 + 4 * i, nng_random()); /* nonce, 32 bytes */
  if (pi >= 0) {
    peer_t *p = &b->peers[pi];
    mcx__mutex_lock(&p->mtx, 0);
    put64(out + 52, p->rx_inc);
    put64(out + 60, p->rx_delivered);
    mcx__mutex_unlock(&p->mtx, 0);
  }
  put32(out + 68, b->keepalive_ms);
}

/* The keep-alive interval of a connection: the smaller of both sides'; off
 * when either side has it off. Both sides compute the same value. */
static unsigned conn_keepalive(const bridge_t *b, const uint8_t *theirs)
{
  unsigned t = get32(theirs + 68), m = b->keepalive_ms;
  if (t && t < KEEPALIVE_MIN_MS)
    t = KEEPALIVE_MIN_MS;
  return t && m ? (t < m ? t : m) : 0;
}
static uint64_t hello_rx_delivered(const uint8_t *h)
{
  return get64(h + 60);
}

static void auth_tag(const bridge_t *b, const uint8_t *hello_from, const uint8_t *hello_to, uint8_t tag[32])
{
  uint8_t m[9 + 2 * HELLO_LEN];
  memcpy(m, "mcxb-auth", 9);
  memcpy(m + 9, hello_from, HELLO_LEN);
  memcpy(m + 9 + HELLO_LEN, hello_to, HELLO_LEN);
  mcx_hmac_sha256(b->cfg.key, b->cfg.key_len, m, sizeof m, tag);
}

static int send_raw(nng_stream *s, uint8_t type, const void *body, uint32_t len, nng_duration timeout)
{
  uint32_t total;
  uint8_t *f = frame_new(type, len, &total);
  if (!f)
    return NNG_ENOMEM;
  memcpy(f + 5, body, len);
  int rv = io_all(s, f, total, 0, timeout);
  free(f);
  return rv;
}

/* Reads the peer's hello; NNG_ENOTSUP when it is a bridge's hello of another
 * wire version (*version says which), before its length is checked. */
static int recv_hello(nng_stream *s, uint8_t out[HELLO_LEN], uint32_t *version, nng_duration timeout)
{
  uint8_t *body;
  uint32_t n;
  int rv = read_frame(s, &body, &n, timeout);
  if (rv)
    return rv;
  rv = NNG_EPROTO;
  if (n >= 9 && body[0] == F_HELLO && get32(body + 1) == HELLO_MAGIC) {
    *version = get32(body + 5);
    if (*version != WIRE_VERSION)
      rv = NNG_ENOTSUP;
    else if (n == HELLO_LEN + 1)
      rv = 0;
  }
  if (!rv)
    memcpy(out, body + 1, HELLO_LEN);
  free(body);
  return rv;
}

static int recv_typed(nng_stream *s, uint8_t type, uint8_t *out, uint32_t len, nng_duration timeout)
{
  uint8_t *body;
  uint32_t n;
  int rv = read_frame(s, &body, &n, timeout);
  if (rv)
    return rv;
  rv = (n == len + 1 && body[0] == type) ? 0 : NNG_EPROTO;
  if (!rv)
    memcpy(out, body + 1, len);
  free(body);
  return rv;
}

static int find_peer(const bridge_t *b, uint32_t domain)
{
  for (unsigned i = 0; i < b->cfg.npeers; i++)
    if (b->peers[i].domain == domain)
      return (int)i;
  return -1;
}

static int ct_eq(const uint8_t *a, const uint8_t *c, size_t n)
{
  uint8_t d = 0;
  for (size_t i = 0; i < n; i++)
    d |= a[i] ^ c[i];
  return d == 0;
}

static void set_state(peer_t *p, int state, const char *why)
{
  mcx__mutex_lock(&p->mtx, 0);
  p->state = state;
  snprintf(p->why, sizeof p->why, "%s", why);
  mcx__mutex_unlock(&p->mtx, 0);
}

/* Keep-alive (docs/bridge.md). One keeper thread per peer, for the whole
 * run, started by mcx_bridge_run() itself (not from the shared thread
 * table). It never waits for a lock held across I/O or for a queue:
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
static const uint8_t ping[5] = {1, 0, 0, 0, F_PING}; /* length 1, type, no body */

static void ping_done(void *arg)
{
  peer_t *p = arg;
  int rv = nng_aio_result(p->ping_aio);
  if (rv == 0 && (p->ping_off += (unsigned)nng_aio_count(p->ping_aio)) < sizeof ping) {
    nng_iov iov = {.iov_buf = (void *)(ping + p->ping_off), .iov_len = sizeof ping - p->ping_off};
    nng_aio_set_iov(p->ping_aio, 1, &iov);
    nng_stream_send(p->ping_stream, p->ping_aio); /* the rest (a partial write) */
    return;
  }
  mcx__mutex_lock(&p->mtx, 0);
  if (rv)
    nng_stream_close(p->ping_stream); /* its reader reports the peer down */
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
      blog(p->owner, "peer domain %u: this process was not scheduled for %" PRIu64
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
        nng_stream_close(s); /* its reader reports the peer down */
        abort_write_locked(p, s);
      }
      mcx__mutex_unlock(&p->mtx, 0);
      quiet = 0;
      continue;
    }
    if (now - mcx_load_relaxed(&p->last_tx) < ka || mcx__mutex_trylock(&p->wmtx))
      continue; /* written to lately, or a write is under way */
    mcx__mutex_lock(&p->mtx, 0);
    int ok = p->conn == s && p->gen == g; /* the reader frees it only under wmtx */
    if (ok)
      p->ping_stream = s;
    mcx__mutex_unlock(&p->mtx, 0);
    if (!ok) {
      mcx__mutex_unlock(&p->wmtx, 0);
      continue;
    }
    p->ping_off = 0;
    nng_iov iov = {.iov_buf = (void *)ping, .iov_len = sizeof ping};
    nng_aio_set_iov(p->ping_aio, 1, &iov);
    nng_aio_set_timeout(p->ping_aio, NNG_DURATION_INFINITE); /* ended by a close (the keeper's or the reader's) */
    nng_stream_send(s, p->ping_aio); /* ping_done() gives wmtx back */
  }
}

/* Runs the handshake on a new stream; @p expect is the peer index a dialer
 * expects, -1 on the listening side. Returns the peer index or -1 (closed). */
/* The handshake's time left (its deadline: @p end, nng_clock()), at least 1 ms. */
static nng_duration left(uint64_t end)
{
  uint64_t now = nng_clock();
  return end > now + 1 ? (nng_duration)(end - now) : 1;
}

static int handshake(bridge_t *b, nng_stream *s, int expect)
{
  uint8_t mine[HELLO_LEN], theirs[HELLO_LEN], tag[32], want[32];
  int pi = expect, rv;
  uint32_t version = 0;
  char why[160];
  /* Generous: a peer slow under load is waited for, not refused. */
  unsigned hs_ms = b->keepalive_ms * DEAD_AFTER_PINGS > HANDSHAKE_MIN_MS ? b->keepalive_ms * DEAD_AFTER_PINGS
                                                                       : HANDSHAKE_MIN_MS;
  uint64_t end = nng_clock() + hs_ms;
  if (expect >= 0) {
    make_hello(b, pi, mine);
    rv = send_raw(s, F_HELLO, mine, HELLO_LEN, left(end));
    if (!rv)
      rv = recv_hello(s, theirs, &version, left(end));
    if (rv == NNG_ENOTSUP) {
      snprintf(why, sizeof why, "refused: %s speaks wire version %u, this bridge %u (update both)", b->peers[pi].url,
               version, WIRE_VERSION);
      blog(b, "%s", why);
      set_state(&b->peers[pi], PS_REFUSED, why);
      return -1;
    }
    if (rv == NNG_ETIMEDOUT) {
      snprintf(why, sizeof why, "handshake: no hello from the peer within %u ms (dialing again)", hs_ms);
      set_state(&b->peers[pi], PS_DOWN, why);
      return -1;
    }
    if (rv) {
      snprintf(why, sizeof why, "handshake: no hello from the peer (closed: refused, or a bridge of another wire version?)");
      set_state(&b->peers[pi], PS_DOWN, why);
      return -1;
    }
  } else if ((rv = recv_hello(s, theirs, &version, left(end))) != 0) {
    /* Only a hello that is not one is refused; a slow or missing one is
     * not the peer's fault as far as this side can tell. */
    if (rv == NNG_ENOTSUP)
      blog(b, "refused a connection: a bridge of wire version %u, this one speaks %u (update both)", version,
           WIRE_VERSION);
    else if (rv == NNG_EPROTO)
      blog(b, "refused a connection: no valid hello (not a bridge, or a bridge of another wire version)");
    else if (rv == NNG_ETIMEDOUT)
      blog(b, "a connection sent no hello within %u ms: closed (its dialer tries again)", hs_ms);
    else
      blog(b, "a connection ended before its hello: %s (a failed TLS handshake, or its dialer gave up)",
           nng_strerror(rv));
    return -1;
  }
  uint32_t dom = get32(theirs + 8);
  if (expect >= 0 && dom != b->peers[pi].domain) {
    snprintf(why, sizeof why, "refused: %s is domain %u, not %u", b->peers[pi].url, dom, b->peers[pi].domain);
    blog(b, "%s", why);
    set_state(&b->peers[pi], PS_REFUSED, why);
    return -1;
  }
  if (expect < 0) {
    pi = find_peer(b, dom);
    if (pi < 0 || dom == b->cfg.domain) {
      blog(b, "refused a connection from domain %u: not a configured peer", dom);
      return -1;
    }
    make_hello(b, pi, mine);
    if (send_raw(s, F_HELLO, mine, HELLO_LEN, left(end)))
      return -1;
  }
  peer_t *p = &b->peers[pi];
  /* The dialer proves the key first; the listener answers only a good proof. */
  if (expect >= 0) {
    auth_tag(b, mine, theirs, tag);
    if ((rv = send_raw(s, F_AUTH, tag, 32, left(end))) == 0)
      rv = recv_typed(s, F_AUTH, tag, 32, left(end));
    if (rv == NNG_ETIMEDOUT) {
      snprintf(why, sizeof why, "handshake: no key proof from domain %u within %u ms (dialing again)", dom, hs_ms);
      set_state(p, PS_DOWN, why);
      return -1;
    }
    if (rv) {
      snprintf(why, sizeof why, "refused by domain %u (wrong key?)", dom);
      blog(b, "%s", why);
      set_state(p, PS_REFUSED, why);
      return -1;
    }
    auth_tag(b, theirs, mine, want);
    if (!ct_eq(tag, want, 32)) {
      snprintf(why, sizeof why, "refused domain %u: wrong key", dom);
      blog(b, "%s", why);
      set_state(p, PS_REFUSED, why);
      return -1;
    }
  } else {
    if ((rv = recv_typed(s, F_AUTH, tag, 32, left(end))) != 0) {
      if (rv == NNG_ETIMEDOUT)
        blog(b, "domain %u sent no key proof within %u ms: closed (it dials again)", dom, hs_ms);
      else
        blog(b, "refused domain %u: no key proof", dom);
      return -1;
    }
    auth_tag(b, theirs, mine, want);
    if (!ct_eq(tag, want, 32)) {
      snprintf(why, sizeof why, "refused domain %u: wrong key", dom);
      blog(b, "%s", why);
      set_state(p, PS_REFUSED, why);
      return -1;
    }
    auth_tag(b, mine, theirs, tag);
    if (send_raw(s, F_AUTH, tag, 32, left(end)))
      return -1;
  }
  /* Up: this stream replaces any older one. */
  nng_stream *old;
  uint32_t gen;
  mcx__mutex_lock(&p->mtx, 0);
  old = p->conn;
  p->conn = s;
  gen = ++p->gen;
  p->ka_ms = conn_keepalive(b, theirs); /* the keeper watches it from its next tick */
  p->state = PS_UP;
  snprintf(p->why, sizeof p->why, "connected");
  mcx__mutex_unlock(&p->mtx, 0);
  if (old) {
    nng_stream_close(old); /* its reader ends and frees it */
    abort_write(p, old);
  }
  uint8_t *h = malloc(HELLO_LEN);
  if (h)
    memcpy(h, theirs, HELLO_LEN);
  push_ev(b, EV_UP, pi, gen, h, HELLO_LEN);
  blog(b, "peer domain %u (%s): up", dom, p->url);
  return pi;
}

/* Reads frames until the stream fails or the keeper closes it (silent);
 * then the peer is down (if this stream is still its connection). Frees the
 * stream. Each read takes whatever has come, as much as fits, and hands
 * every whole frame in it to the node thread at once: one wake-up for a
 * burst of frames, not two for each. */
static void reader(bridge_t *b, int pi, nng_stream *s)
{
  peer_t *p = &b->peers[pi];
  mcx__mutex_lock(&p->mtx, 0);
  uint32_t gen = p->gen;
  unsigned ka = p->ka_ms;
  mcx__mutex_unlock(&p->mtx, 0);
  size_t cap = 1u << 16, have = 0;
  uint8_t *buf = malloc(cap);
  nng_aio *aio = NULL;
  int rv = buf ? nng_aio_alloc(&aio, NULL, NULL) : NNG_ENOMEM;
  while (!rv) {
    nng_iov iov = {.iov_buf = buf + have, .iov_len = cap - have};
    nng_aio_set_iov(aio, 1, &iov);
    nng_aio_set_timeout(aio, NNG_DURATION_INFINITE); /* the keeper closes a silent connection */
    nng_stream_recv(s, aio);
    nng_aio_wait(aio);
    if ((rv = nng_aio_result(aio)) != 0)
      break;
    size_t n = nng_aio_count(aio);
    if (n == 0) {
      rv = NNG_ECLOSED;
      break;
    }
    mcx_fetch_add_relaxed(&p->rx_bytes, n); /* a counter: no data hangs on it (keeper()) */
    have += n;
    ev_t *head = NULL, *tail = NULL;
    size_t off = 0, need = 0;
    while (have - off >= 4) {
      uint32_t len = get32(buf + off);
      if (len == 0 || len > MAX_FRAME) {
        rv = NNG_EPROTO;
        break;
      }
      if (have - off - 4 < len) {
        need = 4 + (size_t)len;
        break;
      }
      uint8_t *body = malloc(len);
      ev_t *e = body ? new_ev(EV_FRAME, pi, gen, body, len) : NULL;
      if (!e) {
        rv = NNG_ENOMEM;
        break;
      }
      memcpy(body, buf + off + 4, len);
      if (tail)
        tail->next = e;
      else
        head = e;
      tail = e;
      off += 4 + (size_t)len;
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
  nng_stream_close(s);
  abort_write(p, s);
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
    push_ev(b, EV_DOWN, pi, gen, NULL, 0);
    if (!mcx_load_relaxed(&g_quit_io))
      blog(b, "peer domain %u: down (%s)", p->domain, cause);
  }
}

typedef struct accepted {
  bridge_t *b;
  nng_stream *s;
} accepted_t;

static void conn_thread(void *arg)
{
  accepted_t *a = arg;
  int pi = handshake(a->b, a->s, -1);
  if (pi < 0) {
    nng_stream_close(a->s);
    nng_stream_free(a->s);
  } else {
    reader(a->b, pi, a->s);
  }
  free(a);
}

static void thread_main(void *arg)
{
  struct thr *t = arg;
  t->fn(t->arg);
  mcx_store_release(&t->done, 1); /* R-T1: pairs with A-T1 in spawn() (only a flag: the join orders the rest) */
}

/* Starts @p fn on a free slot, joining finished threads first; frees @p arg
 * when no thread could be started (then 0). */
static int spawn(bridge_t *b, void (*fn)(void *), void *arg)
{
  int ok = 0;
  mcx__mutex_lock(&b->thmtx, 0);
  for (unsigned i = 0; i < sizeof b->threads / sizeof b->threads[0] && !ok; i++) {
    struct thr *t = &b->threads[i];
    if (t->t && mcx_load_acquire(&t->done)) { /* A-T1: pairs with R-T1 */
      nng_thread_destroy(t->t);
      t->t = NULL;
    }
    if (t->t)
      continue;
    mcx_store_relaxed(&t->done, 0);
    t->fn = fn, t->arg = arg;
    ok = nng_thread_create(&t->t, thread_main, t) == 0;
    if (!ok)
      t->t = NULL;
  }
  mcx__mutex_unlock(&b->thmtx, 0);
  if (!ok && arg != b)
    free(arg);
  return ok;
}

static void listen_thread(void *arg)
{
  bridge_t *b = arg;
  nng_aio *aio;
  if (nng_aio_alloc(&aio, NULL, NULL))
    return;
  while (!mcx_load_relaxed(&g_quit_io)) {
    nng_stream_listener_accept(b->listener, aio);
    nng_aio_wait(aio);
    if (nng_aio_result(aio) == NNG_ECLOSED)
      break;
    if (nng_aio_result(aio))
      continue;
    accepted_t *a = malloc(sizeof *a);
    nng_stream *s = nng_aio_get_output(aio, 0);
    if (!a) {
      nng_stream_free(s);
      continue;
    }
    a->b = b, a->s = s;
    if (!spawn(b, conn_thread, a)) { /* no thread for it: its dialer tries again */
      blog(b, "no thread for an incoming connection: closed");
      nng_stream_close(s);
      nng_stream_free(s);
    }
  }
  nng_aio_free(aio);
}

typedef struct dial_arg {
  bridge_t *b;
  int pi;
} dial_arg_t;

/* Sleeps @p ms in short steps, so a stop is not held up. */
static void nap(unsigned ms)
{
  for (unsigned t = 0; t < ms && !mcx_load_relaxed(&g_quit_io); t += 20)
    nng_msleep(ms - t < 20 ? ms - t : 20);
}

static void dial_thread(void *arg)
{
  dial_arg_t *d = arg;
  bridge_t *b = d->b;
  peer_t *p = &b->peers[d->pi];
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
    rv = b->cfg.tls_cert_key[0] ? make_tls(b, &tls, host) : NNG_ENOTSUP;
    if (rv == 0)
      rv = nng_stream_dialer_set_ptr(dialer, NNG_OPT_TLS_CONFIG, tls);
  }
  if (rv == 0)
    rv = nng_aio_alloc(&aio, NULL, NULL);
  if (rv) {
    char why[150];
    snprintf(why, sizeof why, "cannot dial %s: %s", p->url, nng_strerror(rv));
    blog(b, "%s", why);
    set_state(p, PS_REFUSED, why);
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
      if (handshake(b, s, d->pi) >= 0) {
        backoff = BACKOFF_MIN_MS;
        reader(b, d->pi, s);
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
        blog(b, "peer domain %u (%s): %s", p->domain, p->url, why);
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
  free(d);
}

/* ---- writing (node thread) */
/* Frames are gathered per peer and written by flush_out() at the end of the
 * node thread's pass: one system call (and one TCP segment, NODELAY) for
 * what a pass made, not one per frame. */
static void peer_write(peer_t *p, const uint8_t *f, uint32_t len)
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

/* Writes what peer_write() gathered to the connection it was made for. A
 * write waits for a ping under way (wmtx). A write that does not finish for
 * long is the keeper's business (it closes a silent connection, which
 * aborts the write); the timeout here is only a backstop. */
static void flush_out(peer_t *p)
{
  if (!p->olen)
    return;
  mcx__mutex_lock(&p->wmtx, 0);
  mcx__mutex_lock(&p->mtx, 0);
  nng_stream *s = p->gen == p->seen_gen ? p->conn : NULL;
  unsigned ka = p->ka_ms;
  mcx__mutex_unlock(&p->mtx, 0);
  if (s) {
    nng_duration t = ka ? (nng_duration)ka * DEAD_AFTER_PINGS * 4 : IO_TIMEOUT_MS;
    if (io_all_tracked(s, p->obuf, p->olen, 0, t, p))
      nng_stream_close(s); /* its reader reports the peer down */
    else
      mcx_store_relaxed(&p->last_tx, nng_clock()); /* a counter (see peer_t) */
  }
  mcx__mutex_unlock(&p->wmtx, 0);
  p->olen = 0;
}

static void send_small(peer_t *p, uint8_t type, const uint8_t *body, uint32_t len)
{
  uint32_t total;
  uint8_t *f = frame_new(type, len, &total);
  if (!f)
    return;
  memcpy(f + 5, body, len);
  peer_write(p, f, total);
  free(f);
}

/* ---- delivery record: which data frames of the peer's incarnation are in
 * local queues. Written after each delivery, before its acknowledgement. */
/* The file is mapped: a delivery is recorded by one store right after the
 * send returns (no system call), which outlives a kill -9 at once. */
struct record {
  mcx_atomic_u64 inc, delivered;
};

static void record_open(bridge_t *b, peer_t *p)
{
  char path[400];
  snprintf(path, sizeof path, "%s/delivered-d%u-from-d%u", b->cfg.state_dir, b->cfg.domain, p->domain);
  p->rec = mcx_port_map_file(path, sizeof *p->rec);
  if (!p->rec) {
    blog(b, "cannot map %s: delivery record kept in memory only", path);
    return;
  }
  p->rx_inc = mcx_load_relaxed(&p->rec->inc); /* ours alone: the bridge runs once per domain */
  p->rx_delivered = mcx_load_relaxed(&p->rec->delivered);
}


/* A new incarnation: the count is reset before the incarnation changes, so
 * a kill in between leaves the old incarnation with 0 (a fresh start). */
static void record_store(peer_t *p)
{
  if (!p->rec)
    return;
  mcx__mutex_lock(&p->mtx, 0);
  uint64_t inc = p->rx_inc, delivered = p->rx_delivered;
  mcx__mutex_unlock(&p->mtx, 0);
  if (mcx_load_relaxed(&p->rec->inc) != inc) {
    mcx_store_relaxed(&p->rec->delivered, 0);
    mcx_store_relaxed(&p->rec->inc, inc);
  }
  mcx_store_relaxed(&p->rec->delivered, delivered);
}

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
    blog(b, "no delivery receipt for domain %u (%s): a kill -9 right after a delivery can repeat it", p->domain,
         mcapi_display_status(st, (char[64]){0}, 64));
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
static void record_load(bridge_t *b, peer_t *p)
{
  record_open(b, p);
  uint64_t v = 0;
  rcpt_open(b, p, p->rx_inc, &v);
  if (v > p->rx_delivered) {
    blog(b, "domain %u: data %" PRIu64 " was delivered before the restart (the record had %" PRIu64 ")", p->domain,
         v, p->rx_delivered);
    p->rx_delivered = v;
    record_store(p);
  }
}

/* ---- local MCAPI side (node thread) */
static mcapi_endpoint_t local_get(bridge_t *b, uint32_t node, uint32_t port)
{
  mcapi_status_t st;
  mcapi_endpoint_t h = mcapi_endpoint_get(b->cfg.domain, node, port, 0, &st);
  return st == MCAPI_SUCCESS ? h : 0;
}

static void reply_local(bridge_t *b, uint32_t node, uint32_t port, uint64_t token, mcapi_status_t status,
                        uint32_t proxy_port)
{
  mcapi_endpoint_t to = local_get(b, node, port);
  if (!to)
    return; /* the caller gave up */
  mcx_bridge_rep_t r = {.magic = MCX_BRIDGE_REP_MAGIC, .status = (uint32_t)status,
                        .proxy_node = b->cfg.node, .proxy_port = proxy_port, .token = token};
  mcapi_status_t st;
  mcapi_msg_send(b->req_ep, to, &r, sizeof r, 0, &st);
}

static proxy_t *proxy_for(bridge_t *b, int pi, uint32_t node, uint32_t port)
{
  for (unsigned i = 0; i < b->nproxies; i++)
    if (b->proxies[i].peer == pi && b->proxies[i].node == node && b->proxies[i].port == port)
      return &b->proxies[i];
  if (b->nproxies == MAX_PROXIES)
    return NULL;
  for (uint32_t k = 0; k < 4096; k++) {
    mcapi_status_t st;
    mcapi_endpoint_t ep = mcapi_endpoint_create(PROXY_PORT_BASE + k, &st);
    if (st == MCAPI_ERR_ENDP_EXISTS)
      continue;
    if (st != MCAPI_SUCCESS) {
      blog(b, "no proxy endpoint for d%u n%u p%u: %s", b->peers[pi].domain, node, port,
           mcapi_display_status(st, (char[64]){0}, 64));
      return NULL;
    }
    proxy_t *x = &b->proxies[b->nproxies++];
    x->ep = ep, x->peer = pi, x->node = node, x->port = port, x->local_port = PROXY_PORT_BASE + k;
    blog(b, "proxy port %#x stands for domain %u node %u port %u", x->local_port, b->peers[pi].domain, node,
         port);
    if (!b->peers[pi].up) /* gone since it answered */
      proxy_mark(b, x);
    return x;
  }
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

static void mark_proxies(bridge_t *b, int pi, int changed)
{
  unsigned n = 0;
  for (unsigned i = 0; i < b->nproxies; i++)
    if (b->proxies[i].peer == pi) {
      proxy_mark(b, &b->proxies[i]);
      n++;
    }
  if (n && changed)
    blog(b, "peer domain %u %s: sends to its %u prox%s %s", b->peers[pi].domain, b->peers[pi].up ? "up" : "away",
         n, n == 1 ? "y" : "ies", b->peers[pi].up ? "go through again" : "give MCAPI_ERR_TRANSMISSION");
}

static void send_resolve(bridge_t *b, resolve_t *r)
{
  uint8_t m[28];
  uint64_t now = nng_clock();
  uint32_t left = r->deadline == UINT64_MAX ? UINT32_MAX
                  : r->deadline > now       ? (uint32_t)(r->deadline - now)
                                            : 0;
  put64(m, r->id);
  put32(m + 8, r->node);
  put32(m + 12, r->port);
  put32(m + 16, left);
  put64(m + 20, 0);
  if (b->peers[r->peer].up)
    send_small(&b->peers[r->peer], F_RESOLVE, m, sizeof m);
}

static int poll_requests(bridge_t *b)
{
  int busy = 0;
  for (int i = 0; i < 16; i++) {
    mcx_bridge_req_t q;
    mcapi_priority_t prio;
    mcapi_status_t st;
    size_t n = mcx_msg_try_recv_prio(b->req_ep, &q, sizeof q, &prio, &st);
    if (st == MCAPI_ERR_MEM_LIMIT)
      break;
    busy = 1;
    if (st != MCAPI_SUCCESS || n != sizeof q || q.magic != MCX_BRIDGE_REQ_MAGIC)
      continue; /* not a request: dropped */
    int pi = find_peer(b, q.domain);
    if (pi < 0) {
      reply_local(b, q.reply_node, q.reply_port, q.token, MCAPI_ERR_DOMAIN_INVALID, 0);
      continue;
    }
    /* Known already and the peer away: its proxy at once (sends are held
     * until the peer is back). With the peer up, asked again: the remote
     * endpoint may have been deleted since. */
    for (unsigned k = 0; !b->peers[pi].up && k < b->nproxies; k++)
      if (b->proxies[k].peer == pi && b->proxies[k].node == q.node && b->proxies[k].port == q.port) {
        reply_local(b, q.reply_node, q.reply_port, q.token, MCAPI_SUCCESS, b->proxies[k].local_port);
        pi = -1;
        break;
      }
    if (pi < 0)
      continue;
    resolve_t *r = calloc(1, sizeof *r);
    if (!r) {
      reply_local(b, q.reply_node, q.reply_port, q.token, MCAPI_ERR_MEM_LIMIT, 0);
      continue;
    }
    r->id = ++b->next_res_id, r->peer = pi, r->node = q.node, r->port = q.port;
    r->deadline = q.timeout_ms == MCAPI_TIMEOUT_INFINITE ? UINT64_MAX : nng_clock() + q.timeout_ms;
    r->reply_node = q.reply_node, r->reply_port = q.reply_port, r->token = q.token;
    r->next = b->local_res;
    b->local_res = r;
    send_resolve(b, r);
  }
  return busy;
}

/* Remote resolves: answered when the endpoint exists or the time is up. */
static void tick_resolves(bridge_t *b)
{
  uint64_t now = nng_clock();
  for (resolve_t **pp = &b->remote_res; *pp;) {
    resolve_t *r = *pp;
    int found = local_get(b, r->node, r->port) != 0;
    if (found || now >= r->deadline) {
      uint8_t m[12];
      put64(m, r->id);
      put32(m + 8, found ? 0 : 1);
      if (b->peers[r->peer].up)
        send_small(&b->peers[r->peer], F_RESOLVED, m, sizeof m);
      *pp = r->next;
      free(r);
      continue;
    }
    pp = &r->next;
  }
  /* Local ones whose answer did not come in time (the peer is down). */
  for (resolve_t **pp = &b->local_res; *pp;) {
    resolve_t *r = *pp;
    if (r->deadline != UINT64_MAX && now >= r->deadline + 500) {
      reply_local(b, r->reply_node, r->reply_port, r->token, MCAPI_TIMEOUT, 0);
      *pp = r->next;
      free(r);
      continue;
    }
    pp = &r->next;
  }
}

static void on_resolved(bridge_t *b, int pi, const uint8_t *m, uint32_t len)
{
  if (len < 12)
    return;
  uint64_t id = get64(m);
  uint32_t status = get32(m + 8);
  for (resolve_t **pp = &b->local_res; *pp; pp = &(*pp)->next) {
    resolve_t *r = *pp;
    if (r->id != id || r->peer != pi)
      continue;
    proxy_t *x = status == 0 ? proxy_for(b, pi, r->node, r->port) : NULL;
    reply_local(b, r->reply_node, r->reply_port, r->token,
                status != 0 ? MCAPI_TIMEOUT : x ? MCAPI_SUCCESS : MCAPI_ERR_ENDP_LIMIT, x ? x->local_port : 0);
    *pp = r->next;
    free(r);
    return;
  }
}

static void on_resolve(bridge_t *b, int pi, const uint8_t *m, uint32_t len)
{
  if (len < 20)
    return;
  resolve_t *r = calloc(1, sizeof *r);
  if (!r)
    return;
  r->id = get64(m), r->peer = pi, r->node = get32(m + 8), r->port = get32(m + 12);
  uint32_t t = get32(m + 16);
  r->deadline = t == UINT32_MAX ? UINT64_MAX : nng_clock() + t;
  r->next = b->remote_res;
  b->remote_res = r;
}

/* ---- data: drain proxies into the window */
static int room(const bridge_t *b, const peer_t *p) { return p->up && p->next_seq - 1 - p->acked < b->window; }

/* Numbers a data frame, keeps it in the window and writes it. The caller
 * checked room(). */
static int emit_at(bridge_t *b, peer_t *p, uint32_t node, uint32_t port, uint32_t kind, const void *data, size_t n)
{
  uint32_t body = 20 + (uint32_t)n, total;
  uint8_t *f = frame_new(F_DATA, body, &total);
  if (!f)
    return -1;
  uint64_t seq = p->next_seq++;
  put64(f + 5, seq);
  put32(f + 13, node);
  put32(f + 17, port);
  put32(f + 21, kind);
  if (n)
    memcpy(f + 25, data, n);
  out_frame_t *o = &p->win[seq % b->window];
  o->seq = seq, o->buf = f, o->len = total;
  p->sent_total++;
  peer_write(p, f, total);
  return 0;
}

static int emit(bridge_t *b, peer_t *p, const proxy_t *x, uint32_t kind, const void *data, size_t n)
{
  return emit_at(b, p, x->node, x->port, kind, data, n);
}

/* A control frame that may have to wait for room in the window (sent from
 * the delivery path, where the window may be full). */
static void add_note(peer_t *p, uint32_t kind, uint32_t node, uint32_t port)
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

static int flush_notes(bridge_t *b, peer_t *p)
{
  int busy = 0;
  while (p->notes && room(b, p)) {
    note_t *n = p->notes;
    if (emit_at(b, p, n->node, n->port, n->kind, NULL, 0))
      break;
    p->notes = n->next;
    if (!p->notes)
      p->notes_tail = NULL;
    free(n);
    busy = 1;
  }
  return busy;
}

static void free_notes(peer_t *p)
{
  for (note_t *n = p->notes, *m; n; n = m)
    m = n->next, free(n);
  p->notes = p->notes_tail = NULL;
}

/* A receive on a message proxy failed: a local program connected a channel
 * to it. A packet or scalar channel whose receive side the proxy is: the
 * bridge opens that side and tells the peer (the remote bridge connects the
 * real endpoint). A packet channel whose send side the proxy is: the bridge
 * opens that side and asks the peer to connect the remote endpoint (the
 * sender) to an endpoint of its bridge, whose packets then come here. */
static void proxy_check_chan(bridge_t *b, peer_t *p, proxy_t *x, mcapi_status_t why)
{
  mcapi_status_t st;
  mcapi_uint_t status = 0, type = 0;
  const char *reason = "not a message endpoint";
  mcapi_endpoint_get_attribute(x->ep, MCAPI_ENDP_ATTR_STATUS, &status, sizeof status, &st);
  mcapi_endpoint_get_attribute(x->ep, MCAPI_ENDP_ATTR_TYPE, &type, sizeof type, &st);
  int recv_side = (status & MCAPI_ENDP_STATUS_CONNECTED) && (status & MCAPI_ENDP_STATUS_RECV_SIDE);
  int send_side = (status & MCAPI_ENDP_STATUS_CONNECTED) && (status & MCAPI_ENDP_STATUS_SEND_SIDE);
  if (recv_side && type == MCAPI_PKT_CHAN) {
    mcapi_pktchan_recv_open_i(&x->rh, x->ep, &x->req, &st);
    if (st == MCAPI_SUCCESS || st == MCAPI_PENDING) {
      x->mode = PX_PKT_OPENING;
      emit(b, p, x, K_CHAN_OPEN, NULL, 0);
      blog(b, "proxy port %#x: packet channel to domain %u node %u port %u", x->local_port, p->domain, x->node,
           x->port);
      return;
    }
    why = st;
  } else if (recv_side && type == MCAPI_SCL_CHAN && mcx_compat() == MCX_COMPAT_MCA203) {
    /* The bridge learns a scalar's width by receiving it: in this profile a
     * receive of the wrong width consumes the scalar (docs/compat.md). */
    reason = "scalar channels do not cross the bridge in the mca-2.0.3 profile";
  } else if (recv_side && type == MCAPI_SCL_CHAN) {
    /* Receives on the proxy must not wait: an empty channel says MCAPI_TIMEOUT. */
    mcapi_timeout_t zero = 0;
    mcapi_endpoint_set_attribute(x->ep, MCAPI_ENDP_ATTR_TIMEOUT, &zero, sizeof zero, &st);
    mcapi_sclchan_recv_open_i(&x->srh, x->ep, &x->req, &st);
    if (st == MCAPI_SUCCESS || st == MCAPI_PENDING) {
      x->mode = PX_SCL_OPENING;
      x->width = 0;
      emit(b, p, x, K_SCL_OPEN, NULL, 0);
      blog(b, "proxy port %#x: scalar channel to domain %u node %u port %u", x->local_port, p->domain, x->node,
           x->port);
      return;
    }
    why = st;
  } else if (send_side && type == MCAPI_PKT_CHAN) {
    set_fail(b, x->ep, 0); /* a full channel: the send request waits */
    mcapi_pktchan_send_open_i(&x->sh, x->ep, &x->req, &st);
    if (st == MCAPI_SUCCESS || st == MCAPI_PENDING) {
      x->mode = PX_OUT_OPENING;
      x->sending = 0;
      x->scl = 0;
      emit(b, p, x, K_RCONNECT, NULL, 0);
      blog(b, "proxy port %#x: packet channel from domain %u node %u port %u", x->local_port, p->domain, x->node,
           x->port);
      return;
    }
    why = st;
  } else if (send_side && type == MCAPI_SCL_CHAN) {
    /* Scalar sends have no non-blocking form: a full channel must refuse
     * (MCAPI_ERR_MEM_LIMIT, the frame is held) instead of stopping the node thread. */
    set_fail(b, x->ep, 1);
    mcapi_sclchan_send_open_i(&x->ssh, x->ep, &x->req, &st);
    if (st == MCAPI_SUCCESS || st == MCAPI_PENDING) {
      x->mode = PX_OUT_OPENING;
      x->sending = 0;
      x->scl = 1;
      emit(b, p, x, K_RSCONNECT, NULL, 0);
      blog(b, "proxy port %#x: scalar channel from domain %u node %u port %u", x->local_port, p->domain, x->node,
           x->port);
      return;
    }
    why = st;
  }
  blog(b, "proxy port %#x: %s; it no longer forwards (%s)", x->local_port,
       mcapi_display_status(why, (char[64]){0}, 64), reason);
  x->mode = PX_BROKEN;
}

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
  while ((x->mode == PX_MSG || x->mode == PX_PKT || x->mode == PX_SCL) && room(b, p)) {
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
        mcapi_pktchan_recv_close_i(x->rh, &x->req, &st);
        x->noreq = st != MCAPI_SUCCESS && st != MCAPI_PENDING; /* already closed (K_RSTOP) */
        x->mode = PX_PKT_CLOSING;
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
        mcapi_sclchan_recv_close_i(x->srh, &x->req, &st);
        x->noreq = st != MCAPI_SUCCESS && st != MCAPI_PENDING;
        x->mode = PX_SCL_CLOSING;
        emit(b, p, x, x->reverse ? K_RCLOSE : K_CHAN_CLOSE, NULL, 0);
        break;
      }
      uint8_t item[9];
      item[0] = (uint8_t)w;
      put64(item + 1, v);
      if (emit(b, p, x, x->reverse ? K_RSCL : K_SCL, item, sizeof item))
        break;
      continue;
    }
    mcapi_priority_t prio;
    size_t n = mcx_msg_try_recv_prio(x->ep, buf, cap, &prio, &st);
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

static int drain_proxies(bridge_t *b, uint8_t *buf, size_t cap)
{
  int busy = 0;
  for (unsigned i = 0; i < b->cfg.npeers; i++)
    busy |= flush_notes(b, &b->peers[i]);
  /* Round robin: with a window kept full by one busy proxy (a paced
   * receiver), the room a frame's acknowledgement frees goes to each proxy
   * in turn, so another proxy's channel connect or messages are not starved. */
  unsigned n = b->nproxies, first = n ? b->drain_next++ % n : 0;
  for (unsigned k = 0; k < n; k++)
    busy |= drain_one(b, &b->proxies[(first + k) % n], buf, cap);
  for (unsigned i = 0; i < MAX_RCHANS; i++)
    if (b->pulls[i].reverse && b->pulls[i].mode != PX_FREE)
      busy |= drain_one(b, &b->pulls[i], buf, cap);
  return busy;
}

/* ---- the remote end of channels (node thread) */
static rchan_t *rchan_find(bridge_t *b, int pi, uint32_t node, uint32_t port)
{
  for (unsigned i = 0; i < MAX_RCHANS; i++) {
    rchan_t *c = &b->rchans[i];
    if (c->used && !c->closing && c->peer == pi && c->node == node && c->port == port)
      return c;
  }
  return NULL;
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

/* K_CHAN_OPEN / K_SCL_OPEN: an endpoint of the bridge connected to the
 * destination, its send side opened (completes when the receiver opens). */
static int rchan_open(bridge_t *b, int pi, uint32_t type, uint32_t node, uint32_t port)
{
  mcapi_status_t st;
  size_t sz;
  rchan_t *c = NULL;
  for (unsigned i = 0; i < MAX_RCHANS && !c; i++)
    if (!b->rchans[i].used)
      c = &b->rchans[i];
  mcapi_endpoint_t to = dest_ep(b, node, port, 1);
  const char *what = type == MCAPI_SCL_CHAN ? "scalar" : "packet";
  if (!c || !to) {
    blog(b, "%s channel to node %u port %u: %s", what, node, port, c ? "no such endpoint" : "too many channels");
    return -1;
  }
  uint8_t *sbuf = c->sbuf;
  memset(c, 0, sizeof *c);
  c->sbuf = sbuf;
  if (!(c->ep = chan_ep(RCHAN_PORT_BASE, &st)))
    return -1;
  mcapi_request_t r;
  if (type == MCAPI_SCL_CHAN) {
    /* Scalar sends have no non-blocking form: a full channel must refuse
     * (MCAPI_ERR_MEM_LIMIT, the frame is held) instead of stopping the node thread. */
    set_fail(b, c->ep, 1);
    mcapi_sclchan_connect_i(c->ep, to, &r, &st);
  } else {
    mcapi_pktchan_connect_i(c->ep, to, &r, &st);
  }
  if (st == MCAPI_SUCCESS || st == MCAPI_PENDING)
    mcapi_wait(&r, &sz, 1000, &st);
  if (st == MCAPI_SUCCESS) {
    if (type == MCAPI_SCL_CHAN)
      mcapi_sclchan_send_open_i(&c->sh, c->ep, &c->open_req, &st);
    else
      mcapi_pktchan_send_open_i(&c->sh, c->ep, &c->open_req, &st);
  }
  if (st != MCAPI_SUCCESS && st != MCAPI_PENDING) {
    blog(b, "%s channel to node %u port %u: %s", what, node, port, mcapi_display_status(st, (char[64]){0}, 64));
    mcapi_endpoint_delete(c->ep, &st);
    return -1;
  }
  c->used = 1, c->peer = pi, c->node = node, c->port = port, c->type = type;
  return 1;
}

/* A send into the destination's channel failed: its receiver closed. The
 * bridge closes its side and the sender's bridge is told (K_CHAN_STOP), once;
 * what comes meanwhile is dropped. Returns -1 (this frame dropped). */
static int rchan_stop(bridge_t *b, rchan_t *c, mcapi_status_t why)
{
  mcapi_status_t st;
  blog(b, "%s channel to node %u port %u: %s; the sender is stopped", c->type == MCAPI_SCL_CHAN ? "scalar" : "packet",
       c->node, c->port, mcapi_display_status(why, (char[64]){0}, 64));
  if (c->type == MCAPI_SCL_CHAN)
    mcapi_sclchan_send_close_i(c->sh, &c->close_req, &st);
  else
    mcapi_pktchan_send_close_i(c->sh, &c->close_req, &st);
  c->noreq = st != MCAPI_SUCCESS && st != MCAPI_PENDING;
  c->closing = 1;
  add_note(&b->peers[c->peer], K_CHAN_STOP, c->node, c->port);
  return -1;
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

/* An item for a channel of rchan_open(): 1 done, 0 hold, -1 dropped. */
static int rchan_item(bridge_t *b, rchan_t *c, uint32_t kind, const uint8_t *data, size_t len)
{
  mcapi_status_t st;
  size_t sz;
  if (kind == K_CHAN_CLOSE && c->failed) {
    c->closing = 1; /* nothing to close: tick_rchans() frees it */
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
  if (c->sending) { /* the packet of this frame went out when this completes */
    if (!mcapi_test(&c->send_req, &sz, &st))
      return 0;
    c->sending = 0;
    return st == MCAPI_SUCCESS ? 1 : st == MCAPI_ERR_CHAN_NOTOPEN ? rchan_stop(b, c, st) : -1;
  }
  if (kind == K_CHAN_CLOSE) {
    if (c->type == MCAPI_SCL_CHAN)
      mcapi_sclchan_send_close_i(c->sh, &c->close_req, &st);
    else
      mcapi_pktchan_send_close_i(c->sh, &c->close_req, &st);
    c->closing = 1;
    c->noreq = st != MCAPI_SUCCESS && st != MCAPI_PENDING;
    return 1;
  }
  if ((kind == K_SCL) != (c->type == MCAPI_SCL_CHAN))
    return -1;
  if (kind == K_SCL) {
    if (len != 9)
      return -1;
    scl_send(c->sh, data[0], get64(data + 1), &st);
    if (st == MCAPI_ERR_SCL_SIZE)
      return -1;
    if (st == MCAPI_ERR_MEM_LIMIT)
      return 0; /* full (FAIL_ON_MEM_LIMIT): this frame waits, so do the ones after it */
    return st == MCAPI_SUCCESS ? 1 : st == MCAPI_ERR_CHAN_NOTOPEN ? rchan_stop(b, c, st) : -1;
  }
  const uint8_t *pkt = chan_copy(&c->sbuf, data, len);
  if (!pkt)
    return -1;
  mcapi_pktchan_send_i(c->sh, pkt, len, &c->send_req, &st);
  if (st == MCAPI_SUCCESS || st == MCAPI_PENDING) { /* started: the request has the outcome */
    if (!mcapi_test(&c->send_req, &sz, &st)) {
      c->sending = 1; /* the channel is full: this frame waits, so do the ones after it */
      return 0;
    }
  }
  return st == MCAPI_SUCCESS ? 1 : st == MCAPI_ERR_CHAN_NOTOPEN ? rchan_stop(b, c, st) : -1;
}

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
  size_t sz;
  proxy_t *x = pull_find(b, pi, node, port);
  if (x)
    return 1;
  for (unsigned i = 0; i < MAX_RCHANS && !x; i++)
    if (!b->pulls[i].reverse || b->pulls[i].mode == PX_FREE)
      x = &b->pulls[i];
  mcapi_endpoint_t from = dest_ep(b, node, port, 1);
  const char *why = !x ? "too many channels" : !from ? "no such endpoint" : NULL;
  /* The bridge learns a scalar's width by receiving it: in this profile a
   * receive of the wrong width consumes the scalar (docs/compat.md). */
  if (!why && scl && mcx_compat() == MCX_COMPAT_MCA203)
    why = "scalar channels do not cross the bridge in the mca-2.0.3 profile";
  char sbuf[64];
  if (!why) {
    memset(x, 0, sizeof *x);
    x->ep = chan_ep(RCHAN_PORT_BASE + 256, &st);
    if (x->ep) {
      mcapi_request_t r;
      if (scl) {
        mcapi_timeout_t zero = 0; /* receives must not wait: an empty channel says MCAPI_TIMEOUT */
        mcapi_endpoint_set_attribute(x->ep, MCAPI_ENDP_ATTR_TIMEOUT, &zero, sizeof zero, &st);
        mcapi_sclchan_connect_i(from, x->ep, &r, &st);
      } else {
        mcapi_pktchan_connect_i(from, x->ep, &r, &st);
      }
      if (st == MCAPI_SUCCESS || st == MCAPI_PENDING)
        mcapi_wait(&r, &sz, 1000, &st);
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
    blog(b, "%s channel from node %u port %u to domain %u: %s", scl ? "scalar" : "packet", node, port,
         b->peers[pi].domain, why);
    add_note(&b->peers[pi], K_RFAIL, node, port); /* the remote receiver's channel closes */
    return -1;
  }
  x->reverse = 1, x->peer = pi, x->node = node, x->port = port, x->mode = scl ? PX_SCL_OPENING : PX_PKT_OPENING;
  x->scl = scl;
  blog(b, "%s channel from node %u port %u to domain %u", scl ? "scalar" : "packet", node, port,
       b->peers[pi].domain);
  return 1;
}

/* K_RSTOP: the remote receiver closed: the pull's receive side closes, the
 * local sender's next send gets MCAPI_ERR_CHAN_NOTOPEN. */
static int pull_stop(bridge_t *b, int pi, uint32_t node, uint32_t port)
{
  proxy_t *x = pull_find(b, pi, node, port);
  mcapi_status_t st;
  size_t sz;
  if (x && (x->mode == PX_SCL || x->mode == PX_SCL_OPENING)) {
    if (x->mode == PX_SCL_OPENING)
      mcapi_cancel(&x->req, &st);
    mcapi_sclchan_recv_close_i(x->srh, &x->req, &st);
    x->noreq = st != MCAPI_SUCCESS && st != MCAPI_PENDING;
    x->mode = PX_SCL_CLOSING;
    return 1;
  }
  if (!x || (x->mode != PX_PKT && x->mode != PX_PKT_OPENING))
    return 1;
  if (x->mode == PX_PKT_OPENING)
    mcapi_cancel(&x->req, &st);
  if (x->rposted) {
    mcapi_cancel(&x->rreq, &st);
    if (st != MCAPI_SUCCESS && mcapi_test(&x->rreq, &sz, &st) && st == MCAPI_SUCCESS)
      mcapi_pktchan_release(x->rbuf, &st);
    x->rposted = 0;
  }
  mcapi_pktchan_recv_close_i(x->rh, &x->req, &st);
  x->noreq = st != MCAPI_SUCCESS && st != MCAPI_PENDING;
  x->mode = PX_PKT_CLOSING;
  return 1;
}

static proxy_t *proxy_find(bridge_t *b, int pi, uint32_t node, uint32_t port)
{
  for (unsigned i = 0; i < b->nproxies; i++)
    if (b->proxies[i].peer == pi && b->proxies[i].node == node && b->proxies[i].port == port)
      return &b->proxies[i];
  return NULL;
}

/* K_CHAN_STOP: the remote receiver of a channel from a local sender closed:
 * the proxy's receive side closes, the sender's next send gets
 * MCAPI_ERR_CHAN_NOTOPEN (as with a local receiver that closes). */
static int proxy_stop(bridge_t *b, int pi, uint32_t node, uint32_t port)
{
  proxy_t *x = proxy_find(b, pi, node, port);
  mcapi_status_t st;
  size_t sz;
  if (x && (x->mode == PX_PKT_OPENING || x->mode == PX_SCL_OPENING) && mcapi_test(&x->req, &sz, &st) &&
      st == MCAPI_SUCCESS)
    x->mode = x->mode == PX_PKT_OPENING ? PX_PKT : PX_SCL; /* opened meanwhile: stopped below */
  if (!x || (x->mode != PX_PKT && x->mode != PX_SCL))
    return 1; /* not open (yet, or any more): nothing to stop */
  if (x->mode == PX_SCL) {
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
  x->noreq = st != MCAPI_SUCCESS && st != MCAPI_PENDING;
  return 1;
}

/* A send into the local receiver's channel failed: the receiver closed its
 * side. The proxy closes its side and the remote sender is told (K_RSTOP),
 * once; what it sent meanwhile is dropped. Returns -1 (this frame dropped). */
/* Starts closing the send side of a proxy's outgoing channel. */
static void proxy_out_close(proxy_t *x)
{
  mcapi_status_t st;
  if (x->scl)
    mcapi_sclchan_send_close_i(x->ssh, &x->req, &st);
  else
    mcapi_pktchan_send_close_i(x->sh, &x->req, &st);
  x->noreq = st != MCAPI_SUCCESS && st != MCAPI_PENDING;
  x->mode = PX_OUT_CLOSING;
}

static int proxy_out_stop(bridge_t *b, int pi, proxy_t *x, mcapi_status_t why)
{
  blog(b, "%s channel from domain %u node %u port %u: %s; the sender is stopped", x->scl ? "scalar" : "packet",
       b->peers[pi].domain, x->node, x->port, mcapi_display_status(why, (char[64]){0}, 64));
  proxy_out_close(x);
  add_note(&b->peers[pi], K_RSTOP, x->node, x->port);
  return -1;
}

/* K_RPKT or K_RSCL / K_RCLOSE / K_RFAIL for the proxy of the remote sender
 * (node, port), the send side of a local packet or scalar channel: 1 done,
 * 0 hold, -1 dropped. */
static int proxy_out(bridge_t *b, int pi, uint32_t kind, uint32_t node, uint32_t port, const uint8_t *data,
                     size_t len)
{
  mcapi_status_t st;
  size_t sz;
  proxy_t *x = proxy_find(b, pi, node, port);
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
  if (x->sending) {
    if (!mcapi_test(&x->sreq, &sz, &st))
      return 0;
    x->sending = 0;
    return st == MCAPI_SUCCESS ? 1 : proxy_out_stop(b, pi, x, st);
  }
  if (kind == K_RCLOSE || kind == K_RFAIL) {
    if (x->scl)
      mcapi_sclchan_send_close_i(x->ssh, &x->req, &st);
    else
      mcapi_pktchan_send_close_i(x->sh, &x->req, &st);
    x->noreq = st != MCAPI_SUCCESS && st != MCAPI_PENDING;
    x->mode = PX_OUT_CLOSING;
    return 1;
  }
  if ((kind == K_RSCL) != (x->scl != 0))
    return -1;
  if (kind == K_RSCL) {
    if (len != 9)
      return -1;
    scl_send(x->ssh, data[0], get64(data + 1), &st);
    if (st == MCAPI_ERR_SCL_SIZE)
      return -1;
    if (st == MCAPI_ERR_MEM_LIMIT)
      return 0; /* full (FAIL_ON_MEM_LIMIT): this frame waits, so do the ones after it */
    return st == MCAPI_SUCCESS ? 1 : proxy_out_stop(b, pi, x, st);
  }
  const uint8_t *pkt = chan_copy(&x->sbuf, data, len);
  if (!pkt)
    return -1;
  mcapi_pktchan_send_i(x->sh, pkt, len, &x->sreq, &st);
  if (st == MCAPI_SUCCESS || st == MCAPI_PENDING) { /* started: the request has the outcome */
    if (!mcapi_test(&x->sreq, &sz, &st)) {
      x->sending = 1; /* the channel is full: this frame waits, so do the ones after it */
      return 0;
    }
  }
  return st == MCAPI_SUCCESS ? 1 : proxy_out_stop(b, pi, x, st);
}

/* Data frame of kind @p kind for (node, port): 1 done, 0 hold (try again
 * later, nothing acknowledged), -1 dropped (logged). */
static int deliver_chan(bridge_t *b, int pi, uint32_t kind, uint32_t node, uint32_t port, const uint8_t *data,
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
    add_note(&b->peers[pi], K_CHAN_STOP, node, port);
    return -1;
  case K_PKT:
  case K_SCL:
  case K_CHAN_CLOSE: {
    rchan_t *c = rchan_find(b, pi, node, port);
    return c ? rchan_item(b, c, kind, data, len) : -1;
  }
  case K_CHAN_STOP: return proxy_stop(b, pi, node, port);
  case K_RCONNECT:
  case K_RSCONNECT: return pull_open(b, pi, node, port, kind == K_RSCONNECT);
  case K_RSTOP: return pull_stop(b, pi, node, port);
  case K_RPKT:
  case K_RSCL:
  case K_RCLOSE:
  case K_RFAIL: return proxy_out(b, pi, kind, node, port, data, len);
  case K_VOID: return -1;
  default: return -1;
  }
}

/* Channels whose close completed: their endpoint goes. */
static void tick_rchans(bridge_t *b)
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

static void on_ack(bridge_t *b, peer_t *p, const uint8_t *m, uint32_t len)
{
  if (len < 8)
    return;
  uint64_t upto = get64(m);
  while (p->acked < upto && p->acked + 1 < p->next_seq) {
    out_frame_t *o = &p->win[(p->acked + 1) % b->window];
    free(o->buf);
    o->buf = NULL;
    p->acked++;
  }
}

static mcapi_endpoint_t dest_ep(bridge_t *b, uint32_t node, uint32_t port, int fresh)
{
  for (unsigned i = 0; i < b->ndests; i++)
    if (b->dests[i].node == node && b->dests[i].port == port) {
      if (fresh)
        b->dests[i].ep = local_get(b, node, port);
      return b->dests[i].ep;
    }
  mcapi_endpoint_t ep = local_get(b, node, port);
  if (ep && b->ndests < MAX_PROXIES)
    b->dests[b->ndests++] = (dest_t){node, port, ep};
  return ep;
}

/* Fault injection for the tests (docs/bridge.md): MCX_BRIDGE_FAULT=K:S kills
 * this process with SIGKILL at step S (0..4, see mcx__mpsc_commit_t) of its
 * K-th message delivery. */
static int fault_step;
static void fault_kill(int step)
{
  if (step != fault_step)
    return;
  mcx_port_kill_self();
}

static void fault_arm(void)
{
  static long count, at = -1;
  if (at < 0) {
    const char *f = getenv("MCX_BRIDGE_FAULT");
    at = 0;
    if (f && sscanf(f, "%ld:%d", &at, &fault_step) != 2)
      at = 0;
  }
  if (at > 0 && ++count == at) {
    fprintf(stderr, "mca bridge: MCX_BRIDGE_FAULT: killed at step %d of delivery %ld\n", fault_step, count);
    fflush(stderr);
    mcx__receipt_test_hook = fault_kill;
  }
}

/* One message into a local queue, the receipt set in the same step. */
static void deliver_msg(bridge_t *b, peer_t *p, mcapi_endpoint_t to, const void *data, size_t len, uint32_t prio,
                        uint64_t seq, mcapi_status_t *st)
{
  fault_arm();
  if (p->rcpt)
    mcx_msg_send_receipted(b->send_ep, to, data, len, prio, p->rcpt, seq, st);
  else
    mcapi_msg_send(b->send_ep, to, data, len, prio, st);
}

/* Delivers the held data frames of @p p in order; stops at a full queue. */
static int deliver(bridge_t *b, peer_t *p)
{
  int busy = 0;
  while (p->pend_head) {
    ev_t *e = p->pend_head;
    const uint8_t *m = e->body + 1;
    uint64_t seq = get64(m);
    if (p->rx_known && seq <= p->rx_delivered) {
      p->force_ack = 1; /* sent again after a reconnect: already here */
    } else if (p->rx_known && seq != p->rx_delivered + 1) {
      /* A gap cannot happen on one ordered stream: drop the connection. */
      blog(b, "peer domain %u: data %" PRIu64 " after %" PRIu64 ", reconnecting", p->domain, seq, p->rx_delivered);
      mcx__mutex_lock(&p->mtx, 0);
      if (p->conn)
        nng_stream_close(p->conn);
      mcx__mutex_unlock(&p->mtx, 0);
      break;
    } else {
      uint32_t node = get32(m + 8), port = get32(m + 12), prio = get32(m + 16);
      mcapi_endpoint_t to = 0;
      mcapi_status_t st = MCAPI_ERR_ENDP_INVALID;
      if (prio >= K_PKT) {
        int r = deliver_chan(b, (int)(p - b->peers), prio, node, port, m + 20, e->len - 21);
        if (r == 0)
          break; /* held: no acknowledgement */
        st = r > 0 ? MCAPI_SUCCESS : MCAPI_ERR_CHAN_INVALID;
      } else if ((to = dest_ep(b, node, port, 0)) != 0) {
        deliver_msg(b, p, to, m + 20, e->len - 21, prio, seq, &st);
      }
      if (prio < K_PKT && (st == MCAPI_ERR_ENDP_INVALID || st == MCAPI_ERR_ENDP_DELETED)) {
        to = dest_ep(b, node, port, 1); /* deleted and made again? */
        if (to)
          deliver_msg(b, p, to, m + 20, e->len - 21, prio, seq, &st);
      }
      if (st == MCAPI_ERR_MEM_LIMIT)
        break; /* full: no acknowledgement, the sender's window fills */
      /* A message that was queued set the receipt in the same step; the
       * rest (dropped, or through a channel) set it now. */
      if (p->rcpt && !(st == MCAPI_SUCCESS && prio < K_PKT)) {
        mcapi_status_t rs;
        mcx_receipt_set(p->rcpt, seq, &rs);
      }
      if (p->rec) /* the file follows (the receipt is the one a restart trusts) */
        mcx_store_relaxed(&p->rec->delivered, seq);
      if (st == MCAPI_SUCCESS) {
        p->delivered_total++;
      } else {
        p->dropped_total++;
        if (prio != K_VOID) /* voided on purpose (end_channels): counted, not logged */
          blog(b, "data %" PRIu64 " from domain %u for node %u port %u dropped: %s", seq, p->domain, node, port,
               mcapi_display_status(st, (char[64]){0}, 64));
      }
      mcx__mutex_lock(&p->mtx, 0);
      p->rx_delivered = seq;
      p->rx_known = 1;
      mcx__mutex_unlock(&p->mtx, 0);
      record_store(p);
    }
    busy = 1;
    p->pend_head = e->next;
    if (!p->pend_head)
      p->pend_tail = NULL;
    free(e->body);
    free(e);
  }
  if (p->up && (p->force_ack || p->rx_delivered != p->ack_sent)) {
    uint8_t m[8];
    put64(m, p->rx_delivered);
    send_small(p, F_ACK, m, 8);
    p->ack_sent = p->rx_delivered;
    p->force_ack = 0;
  }
  return busy;
}

static void drop_pending(peer_t *p)
{
  while (p->pend_head) {
    ev_t *e = p->pend_head;
    p->pend_head = e->next;
    free(e->body);
    free(e);
  }
  p->pend_tail = NULL;
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
static void end_channels(bridge_t *b, int pi)
{
  peer_t *p = &b->peers[pi];
  mcapi_status_t st;
  size_t sz;
  unsigned n = 0;
  for (unsigned i = 0; i < b->nproxies; i++) {
    proxy_t *x = &b->proxies[i];
    if (x->peer != pi)
      continue;
    if (x->mode == PX_PKT || x->mode == PX_SCL || x->mode == PX_PKT_OPENING || x->mode == PX_SCL_OPENING) {
      proxy_stop(b, pi, x->node, x->port);
      n++;
    } else if (x->mode == PX_OUT || x->mode == PX_OUT_OPENING) {
      if (x->sending && !mcapi_test(&x->sreq, &sz, &st))
        mcapi_cancel(&x->sreq, &st);
      x->sending = 0;
      if (x->mode == PX_OUT_OPENING && !(mcapi_test(&x->req, &sz, &st) && st == MCAPI_SUCCESS)) {
        mcapi_cancel(&x->req, &st); /* never opened: nothing to close */
        x->noreq = 1;
        x->mode = PX_OUT_CLOSING;
      } else {
        proxy_out_close(x);
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
    if (c->sending && !mcapi_test(&c->send_req, &sz, &st))
      mcapi_cancel(&c->send_req, &st);
    c->sending = 0;
    c->closing = 1;
    if (!c->failed && !c->open && !(mcapi_test(&c->open_req, &sz, &st) && st == MCAPI_SUCCESS)) {
      mcapi_cancel(&c->open_req, &st); /* the receiver never opened: nothing to close */
      c->noreq = 1;
      continue;
    }
    if (c->failed) {
      c->noreq = 1;
      continue;
    }
    if (c->type == MCAPI_SCL_CHAN)
      mcapi_sclchan_send_close_i(c->sh, &c->close_req, &st);
    else
      mcapi_pktchan_send_close_i(c->sh, &c->close_req, &st);
    c->noreq = st != MCAPI_SUCCESS && st != MCAPI_PENDING;
  }
  free_notes(p); /* they concern channels of the former incarnation */
  unsigned voided = 0;
  for (uint64_t s = p->acked + 1; s < p->next_seq; s++) {
    out_frame_t *o = &p->win[s % b->window];
    if (o->buf && o->seq == s && get32(o->buf + 21) >= K_PKT) {
      put32(o->buf + 21, K_VOID);
      voided++;
    }
  }
  if (n || voided)
    blog(b, "peer domain %u restarted: %u channel(s) through it ended, %u channel frame(s) not sent again", p->domain,
         n, voided);
}

static void on_up(bridge_t *b, int pi, uint32_t gen, const uint8_t *hello)
{
  peer_t *p = &b->peers[pi];
  int was_up = p->up;
  p->olen = 0; /* made for the former connection: the window goes again below */
  p->seen_gen = gen;
  p->up = 1;
  /* Receiving side: a new incarnation of the peer starts a new record. */
  uint64_t inc = get64(hello + 12);
  drop_pending(p); /* sent again by the peer, in order */
  if (inc != p->rx_inc)
    end_channels(b, pi); /* before the window is sent again */
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
  if (get64(hello + 52) == b->inc) {
    uint8_t m[8];
    put64(m, hello_rx_delivered(hello));
    on_ack(b, p, m, 8);
  }
  for (uint64_t s = p->acked + 1; s < p->next_seq; s++) {
    out_frame_t *o = &p->win[s % b->window];
    if (o->buf && o->seq == s)
      peer_write(p, o->buf, o->len);
  }
  for (resolve_t *r = b->local_res; r; r = r->next)
    if (r->peer == pi)
      send_resolve(b, r);
  mark_proxies(b, pi, !was_up); /* after the handshake: sends go through again */
}

static int process_events(bridge_t *b)
{
  mcx__mutex_lock(&b->evmtx, 0);
  ev_t *e = b->ev_head;
  b->ev_head = b->ev_tail = NULL;
  mcx__mutex_unlock(&b->evmtx, 0);
  int busy = e != NULL;
  while (e) {
    ev_t *next = e->next;
    peer_t *p = &b->peers[e->peer];
    int keep = 0;
    if (e->type == EV_UP) {
      on_up(b, e->peer, e->gen, e->body);
    } else if (e->type == EV_DOWN) {
      if (e->gen == p->seen_gen && p->up) {
        p->up = 0;
        mark_proxies(b, e->peer, 1);
      }
    } else if (e->gen == p->seen_gen && e->len >= 1) {
      const uint8_t *m = e->body + 1;
      uint32_t n = e->len - 1;
      switch (e->body[0]) {
      case F_DATA:
        if (n >= 20) {
          /* The first data of a new incarnation sets the base. */
          if (!p->rx_known) {
            mcx__mutex_lock(&p->mtx, 0);
            p->rx_delivered = get64(m) - 1;
            p->rx_known = 1;
            mcx__mutex_unlock(&p->mtx, 0);
          }
          e->next = NULL;
          if (p->pend_tail)
            p->pend_tail->next = e;
          else
            p->pend_head = e;
          p->pend_tail = e;
          keep = 1;
        }
        break;
      case F_ACK: on_ack(b, p, m, n); break;
      case F_RESOLVE: on_resolve(b, e->peer, m, n); break;
      case F_RESOLVED: on_resolved(b, e->peer, m, n); break;
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

static void write_status(bridge_t *b)
{
  char path[400], tmp[420];
  snprintf(path, sizeof path, "%s/status", b->cfg.state_dir);
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  if (!f)
    return;
  fprintf(f, "bridge domain %u node %u listen %s proxies %u\n", b->cfg.domain, b->cfg.node, b->cfg.listen,
          b->nproxies);
  for (unsigned i = 0; i < b->cfg.npeers; i++) {
    peer_t *p = &b->peers[i];
    mcx__mutex_lock(&p->mtx, 0);
    static const char *names[] = {"down", "up", "refused"};
    fprintf(f,
            "peer domain %u url %s state %s attempts %u sent %" PRIu64 " acked %" PRIu64
            " delivered %" PRIu64 " dropped %" PRIu64 " why \"%s\"\n",
            p->domain, p->url, names[p->state], p->attempts, p->sent_total, p->acked, p->delivered_total,
            p->dropped_total, p->why);
    mcx__mutex_unlock(&p->mtx, 0);
  }
  fclose(f);
  rename(tmp, path);
}

/* FAIL_ON_MEM_LIMIT of a bridge endpoint: on, a send to a full queue or
 * channel returns MCAPI_ERR_MEM_LIMIT at once instead of waiting. The node
 * thread must never wait in a send (nothing else would run meanwhile), so a
 * failure is logged; -1 then. The attribute is an mcapi_boolean_t: a value of
 * another size is refused (MCAPI_ERR_ATTR_SIZE) and leaves it unchanged. */
static int set_fail(const bridge_t *b, mcapi_endpoint_t ep, int fail)
{
  mcapi_status_t st;
  mcapi_boolean_t v = fail ? MCAPI_TRUE : MCAPI_FALSE;
  mcapi_endpoint_set_attribute(ep, MCAPI_ENDP_ATTR_FAIL_ON_MEM_LIMIT, &v, sizeof v, &st);
  if (st == MCAPI_SUCCESS)
    return 0;
  blog(b, "cannot set FAIL_ON_MEM_LIMIT of a bridge endpoint: %s", mcapi_display_status(st, (char[64]){0}, 64));
  return -1;
}

/* Mutual TLS: each side shows a certificate signed by the CA; a dialer
 * checks the listener's name (@p host). Fails when nng has no TLS engine. */
static int make_tls(const bridge_t *b, nng_tls_config **out, const char *host)
{
  int rv = nng_tls_config_alloc(out, host ? NNG_TLS_MODE_CLIENT : NNG_TLS_MODE_SERVER);
  if (!rv)
    rv = nng_tls_config_auth_mode(*out, NNG_TLS_AUTH_MODE_REQUIRED);
  if (!rv)
    rv = nng_tls_config_ca_file(*out, b->cfg.tls_ca);
  if (!rv)
    rv = nng_tls_config_cert_key_file(*out, b->cfg.tls_cert_key, NULL);
  if (!rv && host)
    rv = nng_tls_config_server_name(*out, host);
  if (rv && *out) {
    nng_tls_config_free(*out);
    *out = NULL;
  }
  return rv;
}

static int setup_tls(bridge_t *b)
{
  int rv = make_tls(b, &b->tls_server, NULL);
  if (rv)
    blog(b, "TLS (%s, %s): %s%s", b->cfg.tls_cert_key, b->cfg.tls_ca, nng_strerror(rv),
         rv == NNG_ENOTSUP ? " (this nng was built without TLS)" : "");
  else
    blog(b, "TLS: %s", nng_tls_engine_description());
  return rv ? -1 : 0;
}

int mcx_bridge_run(const mcx_bridge_config_t *cfg)
{
  static bridge_t bs;
  bridge_t *b = &bs;
  memset(b, 0, sizeof *b);
  b->cfg = *cfg;
  if (!b->cfg.node)
    b->cfg.node = mcx_bridge_node();
  b->window = cfg->window ? cfg->window : 64;
  if (cfg->keepalive_ms == MCX_BRIDGE_KEEPALIVE_OFF)
    b->keepalive_ms = 0;
  else if (cfg->keepalive_ms == 0)
    b->keepalive_ms = KEEPALIVE_DEFAULT_MS;
  else if (cfg->keepalive_ms < KEEPALIVE_MIN_MS || cfg->keepalive_ms > KEEPALIVE_MAX_MS) {
    blog(b, "keepalive_ms must be from %u to %u (or off), not %u", KEEPALIVE_MIN_MS, KEEPALIVE_MAX_MS,
         cfg->keepalive_ms);
    return -1;
  } else
    b->keepalive_ms = cfg->keepalive_ms;
  mcx_store_relaxed(&g_stop, 0);
  mcx_store_relaxed(&g_quit_io, 0);
  if (b->cfg.key_len < 16) {
    blog(b, "the key must be at least 16 bytes");
    return -1;
  }
  b->inc = (uint64_t)nng_random() << 32 | nng_random();
  if (!b->inc)
    b->inc = 1;
  mcapi_info_t info;
  mcapi_status_t st;
  mcapi_initialize(b->cfg.domain, b->cfg.node, NULL, NULL, &info, &st);
  if (st != MCAPI_SUCCESS) {
    blog(b, "cannot join domain %u as node %u: %s", b->cfg.domain, b->cfg.node,
         mcapi_display_status(st, (char[64]){0}, 64));
    return -1;
  }
  int rc = -1;
  if (mcx_transport() != MCX_TRANSPORT_SHM) {
    blog(b, "domain %u uses another transport than shared memory (MCX_TRANSPORT=shm is needed)", b->cfg.domain);
    goto fin;
  }
  b->req_ep = mcapi_endpoint_create(MCX_BRIDGE_PORT, &st);
  if (st == MCAPI_SUCCESS)
    b->send_ep = mcapi_endpoint_create(MCX_BRIDGE_PORT + 1, &st);
  if (st != MCAPI_SUCCESS) {
    blog(b, "cannot create the bridge endpoints: %s (is another bridge running?)",
         mcapi_display_status(st, (char[64]){0}, 64));
    goto fin;
  }
  /* Deliveries and answers must never wait for a full queue (docs/bridge.md: keep-alive). */
  if (set_fail(b, b->send_ep, 1) || set_fail(b, b->req_ep, 1))
    goto stop;
  if (b->cfg.tls_cert_key[0] && setup_tls(b))
    goto stop;
  for (unsigned i = 0; i < b->cfg.npeers; i++) {
    peer_t *p = &b->peers[i];
    p->owner = b;
    p->domain = cfg->peers[i].domain;
    snprintf(p->url, sizeof p->url, "%s", cfg->peers[i].url);
    p->dialer = b->cfg.domain < p->domain;
    p->win = calloc(b->window, sizeof *p->win);
    p->next_seq = 1;
    p->seen_gen = UINT32_MAX;
    snprintf(p->why, sizeof p->why, p->dialer ? "dialing" : "waiting for it to dial");
    record_load(b, p);
  }
  int rv = nng_stream_listener_alloc(&b->listener, b->cfg.listen);
  if (rv == 0 && strstr(b->cfg.listen, "tcp://"))
    rv = nng_stream_listener_set_bool(b->listener, NNG_OPT_TCP_NODELAY, true);
  if (rv == 0 && !strncmp(b->cfg.listen, "tls+", 4))
    rv = b->tls_server ? nng_stream_listener_set_ptr(b->listener, NNG_OPT_TLS_CONFIG, b->tls_server) : NNG_ENOTSUP;
  if (rv == 0)
    rv = nng_stream_listener_listen(b->listener);
  if (rv) {
    blog(b, "cannot listen on %s: %s", b->cfg.listen, nng_strerror(rv));
    goto stop;
  }
  blog(b, "node %u of domain %u, listening on %s, %u peer(s)", b->cfg.node, b->cfg.domain, b->cfg.listen,
       b->cfg.npeers);
  for (unsigned i = 0; i < b->cfg.npeers; i++) {
    peer_t *p = &b->peers[i];
    if (nng_aio_alloc(&p->ping_aio, ping_done, p) || nng_thread_create(&p->keeper, keeper, p)) {
      blog(b, "cannot start the keep-alive of peer domain %u", p->domain);
      goto stop;
    }
  }
  spawn(b, listen_thread, b);
  for (unsigned i = 0; i < b->cfg.npeers; i++)
    if (b->peers[i].dialer) {
      dial_arg_t *d = malloc(sizeof *d);
      if (d) {
        d->b = b, d->pi = (int)i;
        spawn(b, dial_thread, d);
      }
    }
  size_t cap = 25 + (size_t)MCAPI_MAX_MSG_SIZE * 64;
  uint8_t *buf = malloc(cap);
  uint64_t last_status = 0, last_tick = 0;
  unsigned idle = 0;
  while (buf && !mcx_load_relaxed(&g_stop)) {
    int busy = poll_requests(b);
    busy |= process_events(b);
    for (unsigned i = 0; i < b->cfg.npeers; i++)
      busy |= deliver(b, &b->peers[i]);
    busy |= drain_proxies(b, buf, cap);
    for (unsigned i = 0; i < b->cfg.npeers; i++)
      flush_out(&b->peers[i]);
    uint64_t now = nng_clock();
    if (now - last_tick >= 2) {
      tick_resolves(b);
      tick_rchans(b);
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
      node_sleep(b, idle < 2000 ? 20000 : idle < 10000 ? 200000 : 1000000);
  }
  free(buf);
  rc = 0;
stop:
  mcx_store_relaxed(&g_quit_io, 1);
  if (b->listener)
    nng_stream_listener_close(b->listener);
  for (unsigned i = 0; i < b->cfg.npeers; i++) {
    peer_t *p = &b->peers[i];
    mcx__mutex_lock(&p->mtx, 0);
    if (p->conn)
      nng_stream_close(p->conn);
    mcx__mutex_unlock(&p->mtx, 0);
  }
  for (unsigned i = 0; i < sizeof b->threads / sizeof b->threads[0]; i++)
    if (b->threads[i].t)
      nng_thread_destroy(b->threads[i].t); /* joins */
  for (unsigned i = 0; i < b->cfg.npeers; i++) {
    peer_t *p = &b->peers[i];
    if (p->keeper)
      nng_thread_destroy(p->keeper); /* joins */
    if (p->ping_aio) {
      nng_aio_stop(p->ping_aio); /* its stream was closed above: ping_done() has run */
      nng_aio_free(p->ping_aio);
    }
  }
  write_status(b);
  if (b->listener)
    nng_stream_listener_free(b->listener);
  for (unsigned i = 0; i < b->cfg.npeers; i++) {
    peer_t *p = &b->peers[i];
    drop_pending(p);
    free_notes(p);
    for (unsigned k = 0; p->win && k < b->window; k++)
      free(p->win[k].buf);
    free(p->win);
    free(p->obuf);
    if (p->rec)
      mcx_port_shm_unmap(p->rec, sizeof *p->rec);
  }
  for (unsigned i = 0; i < MAX_RCHANS; i++)
    free(b->rchans[i].sbuf);
  for (unsigned i = 0; i < b->nproxies; i++)
    free(b->proxies[i].sbuf);
  for (resolve_t *r = b->local_res, *n; r; r = n)
    n = r->next, free(r);
  for (resolve_t *r = b->remote_res, *n; r; r = n)
    n = r->next, free(r);
  for (ev_t *e = b->ev_head, *n; e; e = n)
    n = e->next, free(e->body), free(e);
  if (b->tls_server)
    nng_tls_config_free(b->tls_server);
fin:
  mcapi_finalize(&st);
  blog(b, "stopped");
  return rc;
}
