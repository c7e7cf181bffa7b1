/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The bridge's wire format (wire.h): the layout of every frame, its
 * encoding and decoding, and the length checks of what a peer sent. Owns
 * every offset into a frame; no I/O here.
 */
#include <stdlib.h>
#include <string.h>

#include <nng/nng.h>
#include <nng/supplemental/util/platform.h>

#include "wire.h"

/* The offsets of a data frame's fields in its body (after the type byte). */
enum { D_SEQ = 0, D_NODE = 8, D_PORT = 12, D_KIND = 16, D_BODY = 20 };
/* ... and of a hello's. */
enum { H_MAGIC = 0, H_VERSION = 4, H_DOMAIN = 8, H_INC = 12, H_NONCE = 20, H_RX_INC = 52,
       H_RX_DELIVERED = 60, H_KEEPALIVE = 68, H_RUN = 72 };

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

/* ---- frames */
int mcx__wire_frame_len(const uint8_t *prefix, uint32_t *len)
{
  uint32_t n = get32(prefix);
  if (n == 0 || n > MAX_FRAME)
    return -1;
  *len = n;
  return 0;
}

uint8_t *mcx__wire_frame(uint8_t type, const void *body, uint32_t len, uint32_t *total)
{
  uint8_t *f = malloc(WIRE_HEAD + (size_t)len);
  if (!f)
    return NULL;
  put32(f, len + 1);
  f[WIRE_PREFIX] = type;
  if (body)
    memcpy(f + WIRE_HEAD, body, len);
  *total = WIRE_HEAD + len;
  return f;
}

const uint8_t mcx__wire_ping[WIRE_HEAD] = {1, 0, 0, 0, F_PING}; /* length 1, type, no body */

int mcx__wire_is(const uint8_t *frame, uint32_t n, uint8_t type, uint32_t len)
{
  return n == len + 1 && frame[0] == type;
}

/* ---- hello */
void mcx__wire_hello(uint8_t out[HELLO_LEN], uint32_t domain, uint64_t inc, uint64_t rx_inc,
                     uint64_t rx_delivered, uint32_t keepalive_ms, uint64_t run)
{
  memset(out, 0, HELLO_LEN);
  put32(out + H_MAGIC, HELLO_MAGIC);
  put32(out + H_VERSION, WIRE_VERSION);
  put32(out + H_DOMAIN, domain);
  put64(out + H_INC, inc);
  for (int i = 0; i < 8; i++)
    put32(out + H_NONCE + 4 * i, nng_random()); /* nonce, 32 bytes */
  put64(out + H_RX_INC, rx_inc);
  put64(out + H_RX_DELIVERED, rx_delivered);
  put32(out + H_KEEPALIVE, keepalive_ms);
  put64(out + H_RUN, run);
}

int mcx__wire_hello_check(const uint8_t *frame, uint32_t n, uint32_t *version)
{
  if (n < 9 || frame[0] != F_HELLO || get32(frame + 1 + H_MAGIC) != HELLO_MAGIC)
    return -1;
  *version = get32(frame + 1 + H_VERSION);
  if (*version != WIRE_VERSION)
    return -2;
  return n == HELLO_LEN + 1 ? 0 : -1;
}

uint32_t mcx__wire_hello_domain(const uint8_t *h) { return get32(h + H_DOMAIN); }
uint64_t mcx__wire_hello_inc(const uint8_t *h) { return get64(h + H_INC); }
uint64_t mcx__wire_hello_rx_inc(const uint8_t *h) { return get64(h + H_RX_INC); }
uint64_t mcx__wire_hello_rx_delivered(const uint8_t *h) { return get64(h + H_RX_DELIVERED); }
uint32_t mcx__wire_hello_keepalive(const uint8_t *h) { return get32(h + H_KEEPALIVE); }
uint64_t mcx__wire_hello_run(const uint8_t *h) { return get64(h + H_RUN); }

/* ---- data */
uint8_t *mcx__wire_data(uint64_t seq, uint32_t node, uint32_t port, uint32_t kind, const void *body,
                        size_t n, uint32_t *total)
{
  uint8_t *f = mcx__wire_frame(F_DATA, NULL, D_BODY + (uint32_t)n, total);
  if (!f)
    return NULL;
  uint8_t *m = f + WIRE_HEAD;
  put64(m + D_SEQ, seq);
  put32(m + D_NODE, node);
  put32(m + D_PORT, port);
  put32(m + D_KIND, kind);
  if (n)
    memcpy(m + D_BODY, body, n);
  return f;
}

int mcx__wire_data_get(const uint8_t *m, uint32_t n, mcx__wire_data_t *d)
{
  if (n < D_BODY)
    return -1;
  d->seq = get64(m + D_SEQ);
  d->node = get32(m + D_NODE);
  d->port = get32(m + D_PORT);
  d->kind = get32(m + D_KIND);
  d->body = m + D_BODY;
  d->len = n - D_BODY;
  return 0;
}

uint32_t mcx__wire_data_kind(const uint8_t *frame) { return get32(frame + WIRE_HEAD + D_KIND); }
void mcx__wire_data_set_kind(uint8_t *frame, uint32_t kind) { put32(frame + WIRE_HEAD + D_KIND, kind); }

/* ---- the small frames */
void mcx__wire_ack(uint8_t m[ACK_LEN], uint64_t upto) { put64(m, upto); }

int mcx__wire_ack_get(const uint8_t *m, uint32_t n, uint64_t *upto)
{
  if (n < ACK_LEN)
    return -1;
  *upto = get64(m);
  return 0;
}

void mcx__wire_resolve(uint8_t m[RESOLVE_LEN], uint64_t id, uint32_t node, uint32_t port,
                       uint32_t left_ms)
{
  put64(m, id);
  put32(m + 8, node);
  put32(m + 12, port);
  put32(m + 16, left_ms);
  put64(m + 20, 0);
}

int mcx__wire_resolve_get(const uint8_t *m, uint32_t n, uint64_t *id, uint32_t *node, uint32_t *port,
                          uint32_t *left_ms)
{
  if (n < 20) /* the last 8 bytes are not read */
    return -1;
  *id = get64(m);
  *node = get32(m + 8);
  *port = get32(m + 12);
  *left_ms = get32(m + 16);
  return 0;
}

void mcx__wire_resolved(uint8_t m[RESOLVED_LEN], uint64_t id, uint32_t status)
{
  put64(m, id);
  put32(m + 8, status);
}

int mcx__wire_resolved_get(const uint8_t *m, uint32_t n, uint64_t *id, uint32_t *status)
{
  if (n < RESOLVED_LEN)
    return -1;
  *id = get64(m);
  *status = get32(m + 8);
  return 0;
}

void mcx__wire_scl(uint8_t m[SCL_ITEM_LEN], unsigned width, uint64_t v)
{
  m[0] = (uint8_t)width;
  put64(m + 1, v);
}

int mcx__wire_scl_get(const uint8_t *m, size_t n, unsigned *width, uint64_t *v)
{
  if (n != SCL_ITEM_LEN)
    return -1;
  *width = m[0];
  *v = get64(m + 1);
  return 0;
}
