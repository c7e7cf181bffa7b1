/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Accepting (docs/bridge.md: security): every connection the listener
 * accepts waits in the pre-auth pool until it has proved the key; only then
 * is it handed to its peer's link thread (mcx__br_link_up). Anyone who can
 * reach the port can open connections, so nothing here grows with them:
 *
 * - one thread, the pre-auth thread, runs the listener's side of every
 *   handshake at once; the reads and writes are nng aios whose callbacks
 *   only flag their slot and wake it. A connection that sends nothing, or
 *   one byte at a time, holds a slot, never a thread;
 * - at most PREAUTH_SLOTS connections, PREAUTH_PER_SOURCE from one address
 *   (an IPv6 /64; ipc: one user). A new connection is always taken: when
 *   its address has its share, it replaces that address's connection that
 *   got least far (then the oldest); when the pool is full, the one that got
 *   least far, of the address with most, oldest first. A peer that sends
 *   its hello at once therefore outlasts connections that send nothing or
 *   trickle, and one address cannot hold the pool;
 * - each connection has PREAUTH_DEADLINE_MS from its accept to its key
 *   proof, an absolute deadline (each read or write gets what is left of
 *   it: bytes that trickle in do not extend it), and a frame before the
 *   proof is at most PREAUTH_FRAME_MAX bytes;
 * - a connection that fails is closed at once, and it changes no peer's
 *   state (only the log says why, at most LOG_LINES lines per LOG_WINDOW_MS,
 *   then one line that counts the rest).
 * The threads of authenticated links (keepers, link threads) are made at
 * the start and never shared with this one.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bridge_internal.h"
#include "ports/mcx_port.h"

#define LOG_WINDOW_MS 10000
#define LOG_LINES 20
#define ACCEPT_PAUSE_MS 100 /* after a failed accept (out of descriptors): the next one */

/* A slot's state; the stage a connection got to is 0 (its hello not read
 * yet), 1 (hello read, key proof not) or 2 (proved: never replaced). */
enum { PA_FREE = 0, PA_HELLO, PA_SEND_HELLO, PA_AUTH, PA_SEND_AUTH };

typedef struct pa_source {
  uint8_t fam; /* 0: unknown, 4: IPv4, 6: IPv6 (its /64), 'u': an ipc peer's uid */
  uint8_t a[16];
} pa_source_t;

typedef struct pa_slot {
  struct preauth *pa;
  nng_aio *aio;          /* for the whole run; one operation at a time */
  mcx_atomic_u32 ready;  /* set by io_done(), taken by the pre-auth thread */
  /* The pre-auth thread's alone. */
  int state;
  nng_stream *s;
  uint64_t deadline, order; /* nng_clock() ms; the admission order */
  pa_source_t src;
  int pi;
  size_t have, want; /* in buf: bytes moved, to move */
  uint8_t mine[HELLO_LEN], theirs[HELLO_LEN];
  uint8_t buf[WIRE_PREFIX + PREAUTH_FRAME_MAX];
} pa_slot_t;

struct preauth {
  bridge_t *b;
  pa_slot_t slots[PREAUTH_SLOTS];
  nng_aio *acc;             /* the accept, or the pause after a failed one (acc_pause) */
  mcx_atomic_u32 acc_ready; /* set by acc_done() */
  mcx_atomic_u32 seq;       /* bumped by every completion: the thread sleeps on it */
  nng_thread *thread;
  /* The pre-auth thread's alone. */
  int acc_pause;
  uint64_t next_order;
  uint64_t log_start;
  unsigned log_lines, unlogged, evicted;
};

/* ---- the log (the pre-auth thread's) */
static void pa_log(struct preauth *pa, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void pa_log(struct preauth *pa, const char *fmt, ...)
{
  if (pa->log_lines >= LOG_LINES) {
    pa->unlogged++;
    return;
  }
  pa->log_lines++;
  char line[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  mcx__br_log(pa->b, "%s", line);
}

/* At the end of each window: what was not logged, counted. */
static void log_tick(struct preauth *pa)
{
  uint64_t now = nng_clock();
  if (now - pa->log_start < LOG_WINDOW_MS)
    return;
  if (pa->unlogged || pa->evicted)
    mcx__br_log(pa->b,
                "pre-auth: in the last %u s, %u more connection(s) closed before their key proof (not logged one "
                "by one), %u replaced by newer ones (pool %u, %u per address)",
                (unsigned)((now - pa->log_start) / 1000), pa->unlogged, pa->evicted, PREAUTH_SLOTS,
                PREAUTH_PER_SOURCE);
  pa->log_start = now;
  pa->log_lines = pa->unlogged = pa->evicted = 0;
}

/* ---- sources */
static void source_of(nng_stream *s, pa_source_t *src)
{
  nng_sockaddr sa;
  uint64_t uid;
  memset(src, 0, sizeof *src);
  if (nng_stream_get_addr(s, NNG_OPT_REMADDR, &sa) != 0)
    sa.s_family = NNG_AF_UNSPEC;
  if (sa.s_family == NNG_AF_INET) {
    src->fam = 4;
    memcpy(src->a, &sa.s_in.sa_addr, 4); /* network order: a.b.c.d */
  } else if (sa.s_family == NNG_AF_INET6) {
    static const uint8_t v4mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (!memcmp(sa.s_in6.sa_addr, v4mapped, 12)) {
      src->fam = 4;
      memcpy(src->a, sa.s_in6.sa_addr + 12, 4);
    } else {
      src->fam = 6; /* one host owns a whole /64 */
      memcpy(src->a, sa.s_in6.sa_addr, 8);
    }
  } else if (nng_stream_get_uint64(s, NNG_OPT_IPC_PEER_UID, &uid) == 0) {
    src->fam = 'u';
    memcpy(src->a, &uid, sizeof uid);
  }
}

static int same_source(const pa_source_t *x, const pa_source_t *y) { return !memcmp(x, y, sizeof *x); }

/* For the log: " [from ADDRESS]". */
static const char *from(const pa_source_t *s, char *out, size_t n)
{
  const uint8_t *a = s->a;
  uint64_t uid;
  if (s->fam == 4)
    snprintf(out, n, " [from %u.%u.%u.%u]", a[0], a[1], a[2], a[3]);
  else if (s->fam == 6)
    snprintf(out, n, " [from %x:%x:%x:%x::/64]", a[0] << 8 | a[1], a[2] << 8 | a[3], a[4] << 8 | a[5],
             a[6] << 8 | a[7]);
  else if (s->fam == 'u')
    memcpy(&uid, a, sizeof uid), snprintf(out, n, " [from uid %llu]", (unsigned long long)uid);
  else
    snprintf(out, n, "%s", "");
  return out;
}

/* ---- completions: nng's threads flag, the pre-auth thread acts */
static void wake(struct preauth *pa)
{
  /* P1 — seq_cst: the flag set before it (io_done, acc_done) and this bump
   * against P2 in pa_thread(), which loads seq before it takes the flags:
   * either it takes the flag, or its futex wait sees the new seq. */
  mcx_fetch_add_seq_cst(&pa->seq, 1);
  mcx_port_futex_wake(&pa->seq, 1, 0);
}

static void io_done(void *arg)
{
  pa_slot_t *x = arg;
  mcx_store_seq_cst(&x->ready, 1); /* P1 */
  wake(x->pa);
}

static void acc_done(void *arg)
{
  struct preauth *pa = arg;
  mcx_store_seq_cst(&pa->acc_ready, 1); /* P1 */
  wake(pa);
}

/* ---- slots */
/* Closes the slot's connection and frees the slot; its aio is idle after. */
static void drop(pa_slot_t *x)
{
  nng_stream_close(x->s);
  nng_aio_abort(x->aio, NNG_ECLOSED);
  nng_aio_wait(x->aio); /* its callback has run: the flag below is its last */
  mcx_store_relaxed(&x->ready, 0); /* only this thread reads it now */
  nng_stream_free(x->s);
  x->s = NULL;
  x->state = PA_FREE;
}

static int stage(const pa_slot_t *x) { return x->state == PA_HELLO ? 0 : x->state == PA_SEND_AUTH ? 2 : 1; }

static unsigned count_source(const struct preauth *pa, const pa_source_t *src)
{
  unsigned n = 0;
  for (unsigned i = 0; i < PREAUTH_SLOTS; i++)
    n += pa->slots[i].state != PA_FREE && same_source(&pa->slots[i].src, src);
  return n;
}

/* The connection a newcomer replaces: of @p src (NULL: any), the one that
 * got least far, then (any source) of the address with most, then the
 * oldest. NULL when every one has proved the key. */
static pa_slot_t *victim(struct preauth *pa, const pa_source_t *src)
{
  pa_slot_t *v = NULL;
  unsigned vn = 0;
  for (unsigned i = 0; i < PREAUTH_SLOTS; i++) {
    pa_slot_t *x = &pa->slots[i];
    if (x->state == PA_FREE || stage(x) == 2 || (src && !same_source(&x->src, src)))
      continue;
    unsigned n = src ? 0 : count_source(pa, &x->src);
    if (!v || stage(x) < stage(v) || (stage(x) == stage(v) && (n > vn || (n == vn && x->order < v->order))))
      v = x, vn = n;
  }
  return v;
}

/* Starts the slot's next read (PA_HELLO, PA_AUTH) or write of buf[have..want)
 * with what is left of its deadline. */
static void io_next(pa_slot_t *x)
{
  uint64_t now = nng_clock();
  nng_iov iov = {.iov_buf = x->buf + x->have, .iov_len = x->want - x->have};
  nng_aio_set_iov(x->aio, 1, &iov);
  nng_aio_set_timeout(x->aio, x->deadline > now + 1 ? (nng_duration)(x->deadline - now) : 1);
  if (x->state == PA_HELLO || x->state == PA_AUTH)
    nng_stream_recv(x->s, x->aio);
  else
    nng_stream_send(x->s, x->aio);
}

/* A frame of this side's into buf, written next (state @p st). */
static int put_frame(pa_slot_t *x, int st, uint8_t type, const uint8_t *body, uint32_t len)
{
  uint32_t total;
  uint8_t *f = mcx__wire_frame(type, body, len, &total);
  if (!f || total > sizeof x->buf) {
    free(f);
    return -1;
  }
  memcpy(x->buf, f, total);
  free(f);
  x->state = st, x->have = 0, x->want = total;
  io_next(x);
  return 0;
}

static void admit(struct preauth *pa, nng_stream *s)
{
  pa_source_t src;
  char fa[64];
  source_of(s, &src);
  pa_slot_t *x = NULL;
  for (unsigned i = 0; i < PREAUTH_SLOTS && !x; i++)
    if (pa->slots[i].state == PA_FREE)
      x = &pa->slots[i];
  pa_slot_t *v = NULL;
  int share = count_source(pa, &src) >= PREAUTH_PER_SOURCE;
  if (share)
    v = victim(pa, &src);
  if (!v && !x)
    v = victim(pa, NULL);
  if (v) {
    pa_log(pa, "pre-auth: a connection replaced by a newer one (%s; it had %s)%s",
           share && same_source(&v->src, &src) ? "its address has its share of the pool" : "the pool is full",
           stage(v) ? "sent its hello, no key proof yet" : "sent no hello yet", from(&v->src, fa, sizeof fa));
    pa->evicted++;
    drop(v);
    x = v;
  }
  if (!x) { /* every slot is a proved connection finishing: this one waits for its dialer's next try */
    pa_log(pa, "pre-auth: no room for a connection: closed%s", from(&src, fa, sizeof fa));
    nng_stream_close(s);
    nng_stream_free(s);
    return;
  }
  x->s = s;
  x->src = src;
  x->order = ++pa->next_order;
  x->deadline = nng_clock() + PREAUTH_DEADLINE_MS;
  x->pi = -1;
  x->state = PA_HELLO, x->have = 0, x->want = WIRE_PREFIX;
  io_next(x);
}

/* A read or write of the slot failed (or the deadline passed): why, logged. */
static void failed(struct preauth *pa, pa_slot_t *x, int rv)
{
  bridge_t *b = pa->b;
  char fa[64];
  from(&x->src, fa, sizeof fa);
  uint32_t dom = x->pi >= 0 ? b->peers[x->pi].domain : 0;
  if (x->state == PA_HELLO && rv == NNG_ETIMEDOUT)
    pa_log(pa, "a connection sent no hello within %u ms: closed (its dialer tries again)%s", PREAUTH_DEADLINE_MS, fa);
  else if (x->state == PA_HELLO)
    pa_log(pa, "a connection ended before its hello: %s (a failed TLS handshake, or its dialer gave up)%s",
           nng_strerror(rv), fa);
  else if (x->state == PA_AUTH && rv == NNG_ETIMEDOUT)
    pa_log(pa, "domain %u sent no key proof within %u ms: closed (it dials again)%s", dom, PREAUTH_DEADLINE_MS, fa);
  else if (x->state == PA_AUTH)
    pa_log(pa, "refused domain %u: no key proof%s", dom, fa);
  else
    pa_log(pa, "a connection of domain %u ended in the handshake: %s%s", dom, nng_strerror(rv), fa);
  drop(x);
}

static void refuse(struct preauth *pa, pa_slot_t *x, const char *why)
{
  char fa[64];
  pa_log(pa, "%s%s", why, from(&x->src, fa, sizeof fa));
  drop(x);
}

/* The whole hello is in buf: which peer it claims; this side's hello back. */
static void on_hello(struct preauth *pa, pa_slot_t *x)
{
  bridge_t *b = pa->b;
  char why[160];
  uint32_t version = 0, len = (uint32_t)(x->want - WIRE_PREFIX);
  int rv = mcx__wire_hello_check(x->buf + WIRE_PREFIX, len, &version);
  if (rv == -2) {
    snprintf(why, sizeof why, "refused a connection: a bridge of wire version %u, this one speaks %u (update both)",
             version, WIRE_VERSION);
    refuse(pa, x, why);
    return;
  }
  if (rv) {
    refuse(pa, x, "refused a connection: no valid hello (not a bridge, or a bridge of another wire version)");
    return;
  }
  memcpy(x->theirs, x->buf + WIRE_PREFIX + 1, HELLO_LEN);
  if ((x->pi = mcx__br_hs_claim(b, x->theirs, why, sizeof why)) < 0) {
    refuse(pa, x, why);
    return;
  }
  mcx__br_hs_hello(b, x->pi, x->mine);
  if (put_frame(x, PA_SEND_HELLO, F_HELLO, x->mine, HELLO_LEN))
    failed(pa, x, NNG_ENOMEM);
}

/* The whole key proof is in buf: checked; this side's proof back. A wrong
 * one is logged and closed; the peer's state stays what it was (the
 * connection proved nothing, so it speaks for no peer). */
static void on_auth(struct preauth *pa, pa_slot_t *x)
{
  bridge_t *b = pa->b;
  char why[160];
  uint32_t dom = b->peers[x->pi].domain;
  if (!mcx__wire_is(x->buf + WIRE_PREFIX, (uint32_t)(x->want - WIRE_PREFIX), F_AUTH, AUTH_LEN)) {
    snprintf(why, sizeof why, "refused domain %u: no key proof", dom);
    refuse(pa, x, why);
    return;
  }
  if (!mcx__br_hs_tag_ok(b, x->theirs, x->mine, x->buf + WIRE_HEAD)) {
    snprintf(why, sizeof why, "refused domain %u: wrong key", dom);
    refuse(pa, x, why);
    return;
  }
  uint8_t tag[AUTH_LEN];
  mcx__br_hs_tag(b, x->mine, x->theirs, tag);
  if (put_frame(x, PA_SEND_AUTH, F_AUTH, tag, AUTH_LEN))
    failed(pa, x, NNG_ENOMEM);
}

/* This side's proof is written: the stream is the peer's connection now. */
static void on_proved(struct preauth *pa, pa_slot_t *x)
{
  bridge_t *b = pa->b;
  peer_t *p = &b->peers[x->pi];
  uint32_t gen;
  if (mcx__br_link_up(b, x->pi, x->s, mcx__br_hs_keepalive(b, x->theirs), x->theirs, 1, &gen)) {
    failed(pa, x, NNG_ENOMEM);
    return;
  }
  mcx__br_log(b, "peer domain %u (%s): up", p->domain, p->url);
  x->s = NULL; /* the link thread's now */
  x->state = PA_FREE;
}

/* A completed read or write of the slot. */
static void step(struct preauth *pa, pa_slot_t *x)
{
  int rv = nng_aio_result(x->aio);
  size_t n = rv ? 0 : nng_aio_count(x->aio);
  if (!rv && !n)
    rv = NNG_ECLOSED;
  if (rv) {
    failed(pa, x, rv);
    return;
  }
  x->have += n;
  if (x->have < x->want) {
    io_next(x);
    return;
  }
  uint32_t len;
  switch (x->state) {
  case PA_HELLO:
  case PA_AUTH:
    if (x->want == WIRE_PREFIX) { /* the length: then the frame */
      if (mcx__wire_frame_len(x->buf, &len) || len > PREAUTH_FRAME_MAX ||
          (x->state == PA_AUTH && len != 1 + AUTH_LEN)) {
        char why[160];
        if (x->state == PA_AUTH)
          snprintf(why, sizeof why, "refused domain %u: no key proof", pa->b->peers[x->pi].domain);
        refuse(pa, x,
               x->state == PA_HELLO
                   ? "refused a connection: no valid hello (not a bridge, or a bridge of another wire version)"
                   : why);
        return;
      }
      x->want = WIRE_PREFIX + (size_t)len;
      io_next(x);
    } else if (x->state == PA_HELLO) {
      on_hello(pa, x);
    } else {
      on_auth(pa, x);
    }
    break;
  case PA_SEND_HELLO:
    x->state = PA_AUTH, x->have = 0, x->want = WIRE_PREFIX;
    io_next(x);
    break;
  case PA_SEND_AUTH: on_proved(pa, x); break;
  default: break;
  }
}

static void start_accept(struct preauth *pa) { nng_stream_listener_accept(pa->b->listener, pa->acc); }

static void on_accept(struct preauth *pa)
{
  nng_aio_wait(pa->acc); /* its callback has run */
  int rv = nng_aio_result(pa->acc);
  if (pa->acc_pause) {
    pa->acc_pause = 0;
    start_accept(pa);
    return;
  }
  if (rv == NNG_ECLOSED || mcx__br_quitting())
    return; /* the listener is closed: the bridge stops */
  if (rv) {
    /* Out of descriptors, say: a pause, not a busy loop of failures. */
    pa_log(pa, "accept failed: %s (accepting again in %u ms)", nng_strerror(rv), ACCEPT_PAUSE_MS);
    pa->acc_pause = 1;
    nng_sleep_aio(ACCEPT_PAUSE_MS, pa->acc);
    return;
  }
  nng_stream *s = nng_aio_get_output(pa->acc, 0);
  start_accept(pa); /* the next one is accepted while this one waits for its hello */
  admit(pa, s);
}

static void pa_thread(void *arg)
{
  struct preauth *pa = arg;
  pa->log_start = nng_clock();
  start_accept(pa);
  while (!mcx__br_quitting()) {
    uint32_t seen = mcx_load_seq_cst(&pa->seq); /* P2 — pairs with P1 (wake()) */
    int any = 0;
    if (mcx_exchange_seq_cst(&pa->acc_ready, 0)) {
      on_accept(pa);
      any = 1;
    }
    for (unsigned i = 0; i < PREAUTH_SLOTS; i++) {
      pa_slot_t *x = &pa->slots[i];
      if (x->state != PA_FREE && mcx_exchange_seq_cst(&x->ready, 0)) {
        nng_aio_wait(x->aio); /* its callback has run */
        step(pa, x);
        any = 1;
      }
    }
    log_tick(pa);
    if (!any) /* until a completion, or a second for the log's window */
      mcx_port_futex_wait(&pa->seq, seen, mcx_port_now_ns() + 1000000000u, 0);
  }
  for (unsigned i = 0; i < PREAUTH_SLOTS; i++)
    if (pa->slots[i].state != PA_FREE)
      drop(&pa->slots[i]);
}

int mcx__br_preauth_start(bridge_t *b)
{
  struct preauth *pa = calloc(1, sizeof *pa);
  if (!pa) {
    mcx__br_log(b, "cannot start accepting: out of memory");
    return -1;
  }
  b->pa = pa;
  pa->b = b;
  int rv = nng_aio_alloc(&pa->acc, acc_done, pa);
  for (unsigned i = 0; i < PREAUTH_SLOTS && !rv; i++) {
    pa->slots[i].pa = pa;
    rv = nng_aio_alloc(&pa->slots[i].aio, io_done, &pa->slots[i]);
  }
  if (!rv)
    rv = nng_thread_create(&pa->thread, pa_thread, pa);
  if (rv) {
    mcx__br_log(b, "cannot start accepting: %s", nng_strerror(rv));
    return -1;
  }
  return 0;
}

void mcx__br_preauth_stop(bridge_t *b)
{
  struct preauth *pa = b->pa;
  if (!pa)
    return;
  wake(pa); /* mcx__br_quitting() is set: the thread ends */
  if (pa->thread)
    nng_thread_destroy(pa->thread); /* joins; it closed what it held */
  if (pa->acc) {
    nng_aio_stop(pa->acc); /* the listener is closed: the accept has ended */
    nng_aio_free(pa->acc);
  }
  for (unsigned i = 0; i < PREAUTH_SLOTS; i++)
    if (pa->slots[i].aio)
      nng_aio_free(pa->slots[i].aio);
  free(pa);
  b->pa = NULL;
}
