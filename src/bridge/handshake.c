/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The handshake of a new connection (docs/bridge.md: security): hellos
 * (wire version, domain, incarnation, delivery record, keep-alive), the
 * proof of the pre-shared key each side gives (HMAC-SHA256 over both
 * hellos), and the TLS configurations. Runs on the I/O threads; a stream
 * that passes becomes the peer's connection.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bridge_internal.h"

static void make_hello(bridge_t *b, int pi, uint8_t out[HELLO_LEN])
{
  uint64_t rx_inc = 0, rx_delivered = 0;
  if (pi >= 0) {
    peer_t *p = &b->peers[pi];
    mcx__mutex_lock(&p->mtx, 0);
    rx_inc = p->rx_inc;
    rx_delivered = p->rx_delivered;
    mcx__mutex_unlock(&p->mtx, 0);
  }
  mcx__wire_hello(out, b->cfg.domain, b->inc, rx_inc, rx_delivered, b->keepalive_ms);
}

/* The keep-alive interval of a connection: the smaller of both sides'; off
 * when either side has it off. Both sides compute the same value. */
static unsigned conn_keepalive(const bridge_t *b, const uint8_t *theirs)
{
  unsigned t = mcx__wire_hello_keepalive(theirs), m = b->keepalive_ms;
  if (t && t < KEEPALIVE_MIN_MS)
    t = KEEPALIVE_MIN_MS;
  return t && m ? (t < m ? t : m) : 0;
}

static void auth_tag(const bridge_t *b, const uint8_t *hello_from, const uint8_t *hello_to, uint8_t tag[AUTH_LEN])
{
  uint8_t m[9 + 2 * HELLO_LEN];
  memcpy(m, "mcxb-auth", 9);
  memcpy(m + 9, hello_from, HELLO_LEN);
  memcpy(m + 9 + HELLO_LEN, hello_to, HELLO_LEN);
  mcx_hmac_sha256(b->cfg.key, b->cfg.key_len, m, sizeof m, tag);
}

/* Reads the peer's hello; NNG_ENOTSUP when it is a bridge's hello of another
 * wire version (*version says which), before its length is checked. */
static int recv_hello(nng_stream *s, uint8_t out[HELLO_LEN], uint32_t *version, nng_duration timeout)
{
  uint8_t *body;
  uint32_t n;
  int rv = mcx__br_read_frame(s, &body, &n, timeout);
  if (rv)
    return rv;
  rv = mcx__wire_hello_check(body, n, version);
  rv = rv == 0 ? 0 : rv == -2 ? NNG_ENOTSUP : NNG_EPROTO;
  if (!rv)
    memcpy(out, body + 1, HELLO_LEN);
  free(body);
  return rv;
}

static int recv_typed(nng_stream *s, uint8_t type, uint8_t *out, uint32_t len, nng_duration timeout)
{
  uint8_t *body;
  uint32_t n;
  int rv = mcx__br_read_frame(s, &body, &n, timeout);
  if (rv)
    return rv;
  rv = mcx__wire_is(body, n, type, len) ? 0 : NNG_EPROTO;
  if (!rv)
    memcpy(out, body + 1, len);
  free(body);
  return rv;
}

static int ct_eq(const uint8_t *a, const uint8_t *c, size_t n)
{
  uint8_t d = 0;
  for (size_t i = 0; i < n; i++)
    d |= a[i] ^ c[i];
  return d == 0;
}

/* The handshake's time left (its deadline: @p end, nng_clock()), at least 1 ms. */
static nng_duration left(uint64_t end)
{
  uint64_t now = nng_clock();
  return end > now + 1 ? (nng_duration)(end - now) : 1;
}

int mcx__br_handshake(bridge_t *b, nng_stream *s, int expect)
{
  uint8_t mine[HELLO_LEN], theirs[HELLO_LEN], tag[AUTH_LEN], want[AUTH_LEN];
  int pi = expect, rv;
  uint32_t version = 0;
  char why[160];
  /* Generous: a peer slow under load is waited for, not refused. */
  unsigned hs_ms = b->keepalive_ms * DEAD_AFTER_PINGS > HANDSHAKE_MIN_MS ? b->keepalive_ms * DEAD_AFTER_PINGS
                                                                       : HANDSHAKE_MIN_MS;
  uint64_t end = nng_clock() + hs_ms;
  if (expect >= 0) {
    make_hello(b, pi, mine);
    rv = mcx__br_send_raw(s, F_HELLO, mine, HELLO_LEN, left(end));
    if (!rv)
      rv = recv_hello(s, theirs, &version, left(end));
    if (rv == NNG_ENOTSUP) {
      snprintf(why, sizeof why, "refused: %s speaks wire version %u, this bridge %u (update both)", b->peers[pi].url,
               version, WIRE_VERSION);
      mcx__br_log(b, "%s", why);
      mcx__br_set_state(&b->peers[pi], PS_REFUSED, why);
      return -1;
    }
    if (rv == NNG_ETIMEDOUT) {
      snprintf(why, sizeof why, "handshake: no hello from the peer within %u ms (dialing again)", hs_ms);
      mcx__br_set_state(&b->peers[pi], PS_DOWN, why);
      return -1;
    }
    if (rv) {
      snprintf(why, sizeof why, "handshake: no hello from the peer (closed: refused, or a bridge of another wire version?)");
      mcx__br_set_state(&b->peers[pi], PS_DOWN, why);
      return -1;
    }
  } else if ((rv = recv_hello(s, theirs, &version, left(end))) != 0) {
    /* Only a hello that is not one is refused; a slow or missing one is
     * not the peer's fault as far as this side can tell. */
    if (rv == NNG_ENOTSUP)
      mcx__br_log(b, "refused a connection: a bridge of wire version %u, this one speaks %u (update both)", version,
                  WIRE_VERSION);
    else if (rv == NNG_EPROTO)
      mcx__br_log(b, "refused a connection: no valid hello (not a bridge, or a bridge of another wire version)");
    else if (rv == NNG_ETIMEDOUT)
      mcx__br_log(b, "a connection sent no hello within %u ms: closed (its dialer tries again)", hs_ms);
    else
      mcx__br_log(b, "a connection ended before its hello: %s (a failed TLS handshake, or its dialer gave up)",
                  nng_strerror(rv));
    return -1;
  }
  uint32_t dom = mcx__wire_hello_domain(theirs);
  if (expect >= 0 && dom != b->peers[pi].domain) {
    snprintf(why, sizeof why, "refused: %s is domain %u, not %u", b->peers[pi].url, dom, b->peers[pi].domain);
    mcx__br_log(b, "%s", why);
    mcx__br_set_state(&b->peers[pi], PS_REFUSED, why);
    return -1;
  }
  if (expect < 0) {
    pi = mcx__br_find_peer(b, dom);
    if (pi < 0 || dom == b->cfg.domain) {
      mcx__br_log(b, "refused a connection from domain %u: not a configured peer", dom);
      return -1;
    }
    make_hello(b, pi, mine);
    if (mcx__br_send_raw(s, F_HELLO, mine, HELLO_LEN, left(end)))
      return -1;
  }
  peer_t *p = &b->peers[pi];
  /* The dialer proves the key first; the listener answers only a good proof. */
  if (expect >= 0) {
    auth_tag(b, mine, theirs, tag);
    if ((rv = mcx__br_send_raw(s, F_AUTH, tag, AUTH_LEN, left(end))) == 0)
      rv = recv_typed(s, F_AUTH, tag, AUTH_LEN, left(end));
    if (rv == NNG_ETIMEDOUT) {
      snprintf(why, sizeof why, "handshake: no key proof from domain %u within %u ms (dialing again)", dom, hs_ms);
      mcx__br_set_state(p, PS_DOWN, why);
      return -1;
    }
    if (rv) {
      snprintf(why, sizeof why, "refused by domain %u (wrong key?)", dom);
      mcx__br_log(b, "%s", why);
      mcx__br_set_state(p, PS_REFUSED, why);
      return -1;
    }
  } else if ((rv = recv_typed(s, F_AUTH, tag, AUTH_LEN, left(end))) != 0) {
    if (rv == NNG_ETIMEDOUT)
      mcx__br_log(b, "domain %u sent no key proof within %u ms: closed (it dials again)", dom, hs_ms);
    else
      mcx__br_log(b, "refused domain %u: no key proof", dom);
    return -1;
  }
  /* Either side checks the other's proof the same way. */
  auth_tag(b, theirs, mine, want);
  if (!ct_eq(tag, want, AUTH_LEN)) {
    snprintf(why, sizeof why, "refused domain %u: wrong key", dom);
    mcx__br_log(b, "%s", why);
    mcx__br_set_state(p, PS_REFUSED, why);
    return -1;
  }
  if (expect < 0) {
    auth_tag(b, mine, theirs, tag);
    if (mcx__br_send_raw(s, F_AUTH, tag, AUTH_LEN, left(end)))
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
    mcx__br_abort_write(p, old);
  }
  uint8_t *h = malloc(HELLO_LEN);
  if (h)
    memcpy(h, theirs, HELLO_LEN);
  mcx__br_push_ev(b, EV_UP, pi, gen, h, HELLO_LEN);
  mcx__br_log(b, "peer domain %u (%s): up", dom, p->url);
  return pi;
}

/* Mutual TLS: each side shows a certificate signed by the CA; a dialer
 * checks the listener's name (@p host). */
int mcx__br_make_tls(const bridge_t *b, nng_tls_config **out, const char *host)
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

int mcx__br_setup_tls(bridge_t *b)
{
  int rv = mcx__br_make_tls(b, &b->tls_server, NULL);
  if (rv)
    mcx__br_log(b, "TLS (%s, %s): %s%s", b->cfg.tls_cert_key, b->cfg.tls_ca, nng_strerror(rv),
                rv == NNG_ENOTSUP ? " (this nng was built without TLS)" : "");
  else
    mcx__br_log(b, "TLS: %s", nng_tls_engine_description());
  return rv ? -1 : 0;
}
