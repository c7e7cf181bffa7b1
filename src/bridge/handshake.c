/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The handshake of a new connection (docs/bridge.md: security): hellos
 * (wire version, domain, incarnation, delivery record, keep-alive), the
 * proof of the pre-shared key each side gives (HMAC-SHA256 over both
 * hellos), and the TLS configurations. The dialer's side runs here, on its
 * link thread; the listener's steps are made by preauth.c with the pieces
 * below. A stream that passes becomes the peer's connection.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bridge_internal.h"

void mcx__br_hs_hello(bridge_t *b, int pi, uint8_t out[HELLO_LEN])
{
  uint64_t rx_inc = 0, rx_delivered = 0;
  if (pi >= 0) {
    peer_t *p = &b->peers[pi];
    mcx__mutex_lock(&p->mtx, 0);
    rx_inc = p->rx_inc;
    rx_delivered = p->rx_delivered;
    mcx__mutex_unlock(&p->mtx, 0);
  }
  mcx__wire_hello(out, b->cfg.domain, b->inc, rx_inc, rx_delivered, b->keepalive_ms, b->run);
}

/* The keep-alive interval of a connection: the smaller of both sides'; off
 * when either side has it off. Both sides compute the same value. */
unsigned mcx__br_hs_keepalive(const bridge_t *b, const uint8_t *theirs)
{
  unsigned t = mcx__wire_hello_keepalive(theirs), m = b->keepalive_ms;
  if (t && t < KEEPALIVE_MIN_MS)
    t = KEEPALIVE_MIN_MS;
  return t && m ? (t < m ? t : m) : 0;
}

void mcx__br_hs_tag(const bridge_t *b, const uint8_t *hello_from, const uint8_t *hello_to, uint8_t tag[AUTH_LEN])
{
  uint8_t m[9 + 2 * HELLO_LEN];
  memcpy(m, "mcxb-auth", 9);
  memcpy(m + 9, hello_from, HELLO_LEN);
  memcpy(m + 9 + HELLO_LEN, hello_to, HELLO_LEN);
  mcx_hmac_sha256(b->cfg.key, b->cfg.key_len, m, sizeof m, tag);
}

int mcx__br_hs_tag_ok(const bridge_t *b, const uint8_t *theirs, const uint8_t *mine, const uint8_t *tag)
{
  uint8_t want[AUTH_LEN], d = 0;
  mcx__br_hs_tag(b, theirs, mine, want);
  for (size_t i = 0; i < AUTH_LEN; i++)
    d |= tag[i] ^ want[i];
  return d == 0;
}

/* Only a configured peer of a higher domain id dials this side (the lower
 * one dials); the rest is refused before any key proof. */
int mcx__br_hs_claim(const bridge_t *b, const uint8_t *theirs, char *why, size_t n)
{
  uint32_t dom = mcx__wire_hello_domain(theirs);
  int pi = mcx__br_find_peer(b, dom);
  if (pi < 0 || dom == b->cfg.domain)
    snprintf(why, n, "refused a connection from domain %u: not a configured peer", dom);
  else if (b->peers[pi].dialer)
    snprintf(why, n, "refused a connection from domain %u: this bridge dials it (the lower domain id dials)", dom);
  else
    return pi;
  return -1;
}

/* Reads the peer's hello; NNG_ENOTSUP when it is a bridge's hello of another
 * wire version (*version says which), before its length is checked. */
static int recv_hello(nng_stream *s, uint8_t out[HELLO_LEN], uint32_t *version, uint64_t end)
{
  uint8_t *body;
  uint32_t n;
  int rv = mcx__br_read_frame(s, &body, &n, end);
  if (rv)
    return rv;
  rv = mcx__wire_hello_check(body, n, version);
  rv = rv == 0 ? 0 : rv == -2 ? NNG_ENOTSUP : NNG_EPROTO;
  if (!rv)
    memcpy(out, body + 1, HELLO_LEN);
  free(body);
  return rv;
}

static int recv_typed(nng_stream *s, uint8_t type, uint8_t *out, uint32_t len, uint64_t end)
{
  uint8_t *body;
  uint32_t n;
  int rv = mcx__br_read_frame(s, &body, &n, end);
  if (rv)
    return rv;
  rv = mcx__wire_is(body, n, type, len) ? 0 : NNG_EPROTO;
  if (!rv)
    memcpy(out, body + 1, len);
  free(body);
  return rv;
}

/* The dialer's side. The listener's is preauth.c's, event-driven: it never
 * gives a peer state to a connection that has not proved the key; this side
 * dialed the configured URL itself, so what it finds is that peer's state. */
int mcx__br_handshake(bridge_t *b, nng_stream *s, int pi, uint32_t *gen)
{
  uint8_t mine[HELLO_LEN], theirs[HELLO_LEN], tag[AUTH_LEN];
  int rv;
  uint32_t version = 0;
  char why[160];
  peer_t *p = &b->peers[pi];
  /* Generous: a peer slow under load is waited for, not refused. */
  unsigned hs_ms = b->keepalive_ms * DEAD_AFTER_PINGS > HANDSHAKE_MIN_MS ? b->keepalive_ms * DEAD_AFTER_PINGS
                                                                       : HANDSHAKE_MIN_MS;
  uint64_t end = nng_clock() + hs_ms;
  mcx__br_hs_hello(b, pi, mine);
  rv = mcx__br_send_raw(s, F_HELLO, mine, HELLO_LEN, end);
  if (!rv)
    rv = recv_hello(s, theirs, &version, end);
  if (rv == NNG_ENOTSUP) {
    snprintf(why, sizeof why, "refused: %s speaks wire version %u, this bridge %u (update both)", p->url, version,
             WIRE_VERSION);
    mcx__br_log(b, "%s", why);
    mcx__br_set_state(p, PS_REFUSED, why);
    return -1;
  }
  if (rv == NNG_ETIMEDOUT) {
    snprintf(why, sizeof why, "handshake: no hello from the peer within %u ms (dialing again)", hs_ms);
    mcx__br_set_state(p, PS_DOWN, why);
    return -1;
  }
  if (rv) {
    snprintf(why, sizeof why, "handshake: no hello from the peer (closed: refused, or a bridge of another wire version?)");
    mcx__br_set_state(p, PS_DOWN, why);
    return -1;
  }
  uint32_t dom = mcx__wire_hello_domain(theirs);
  if (dom != p->domain) {
    snprintf(why, sizeof why, "refused: %s is domain %u, not %u", p->url, dom, p->domain);
    mcx__br_log(b, "%s", why);
    mcx__br_set_state(p, PS_REFUSED, why);
    return -1;
  }
  /* The dialer proves the key first; the listener answers only a good proof. */
  mcx__br_hs_tag(b, mine, theirs, tag);
  if ((rv = mcx__br_send_raw(s, F_AUTH, tag, AUTH_LEN, end)) == 0)
    rv = recv_typed(s, F_AUTH, tag, AUTH_LEN, end);
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
  if (!mcx__br_hs_tag_ok(b, theirs, mine, tag)) {
    snprintf(why, sizeof why, "refused domain %u: wrong key", dom);
    mcx__br_log(b, "%s", why);
    mcx__br_set_state(p, PS_REFUSED, why);
    return -1;
  }
  if (mcx__br_link_up(b, pi, s, mcx__br_hs_keepalive(b, theirs), theirs, 0, gen))
    return -1;
  mcx__br_log(b, "peer domain %u (%s): up", dom, p->url);
  return 0;
}

/* Mutual TLS: each side shows a certificate signed by the CA; a dialer
 * checks the listener's name (@p host). The PEM text was read (and its
 * files checked) at the start: no file is opened here. */
int mcx__br_make_tls(const bridge_t *b, nng_tls_config **out, const char *host)
{
  if (!b->tls_cert_pem || !b->tls_ca_pem)
    return NNG_ENOTSUP;
  int rv = nng_tls_config_alloc(out, host ? NNG_TLS_MODE_CLIENT : NNG_TLS_MODE_SERVER);
  if (!rv)
    rv = nng_tls_config_auth_mode(*out, NNG_TLS_AUTH_MODE_REQUIRED);
  if (!rv)
    rv = nng_tls_config_ca_chain(*out, b->tls_ca_pem, NULL);
  if (!rv)
    rv = nng_tls_config_own_cert(*out, b->tls_cert_pem, b->tls_cert_pem, NULL);
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
  char why[400];
  if (mcx__br_read_pem("TLS cert_key", b->cfg.tls_cert_key, 1, &b->tls_cert_pem, why, sizeof why) ||
      mcx__br_read_pem("TLS ca", b->cfg.tls_ca, 0, &b->tls_ca_pem, why, sizeof why)) {
    mcx__br_log(b, "%s", why);
    return -1;
  }
  int rv = mcx__br_make_tls(b, &b->tls_server, NULL);
  if (rv)
    mcx__br_log(b, "TLS (%s, %s): %s%s", b->cfg.tls_cert_key, b->cfg.tls_ca, nng_strerror(rv),
                rv == NNG_ENOTSUP ? " (this nng was built without TLS)" : "");
  else
    mcx__br_log(b, "TLS: %s", nng_tls_engine_description());
  return rv ? -1 : 0;
}
