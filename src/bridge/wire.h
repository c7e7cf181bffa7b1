/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The bridge's wire format (docs/bridge.md), private to src/bridge/. Only
 * wire.c reads or writes a field of a frame: the rest of the bridge makes
 * and takes frames through these calls, and every length check of what a
 * peer sent is made here.
 *
 * A frame: u32 length (of what follows), u8 type, body; every field is
 * little-endian. All calls are pure (no I/O, no lock): MT-safe.
 */
#ifndef MCX_BRIDGE_WIRE_H
#define MCX_BRIDGE_WIRE_H

#include <stddef.h>
#include <stdint.h>

enum { F_HELLO = 1, F_AUTH = 2, F_DATA = 3, F_ACK = 4, F_RESOLVE = 5, F_RESOLVED = 6, F_PING = 7 };

#define HELLO_MAGIC 0x4258434du /* "MCXB" */
/* 2: the hello carries the keep-alive interval, F_PING exists (a version 1
 * bridge sends no pings, so a version 2 one would take it for lost).
 * 3: the hello carries the run (a new one at each start) apart from the
 * incarnation of the numbered stream, which a restart keeps (its unacknowledged
 * frames are sent again under their numbers): channels end on a new run. */
#define WIRE_VERSION 3u
#define MAX_FRAME (1u << 20)
#define WIRE_PREFIX 4 /* the length field */
#define WIRE_HEAD 5   /* the length field and the type */
#define HELLO_LEN 80 /* magic, version, domain, incarnation, nonce[32], record (incarnation, delivered), keep-alive ms, run */
#define AUTH_LEN 32     /* F_AUTH: the key proof (HMAC-SHA256) */
#define ACK_LEN 8       /* F_ACK: delivered up to */
#define RESOLVE_LEN 28  /* F_RESOLVE: id, node, port, time left (ms), 0 */
#define RESOLVED_LEN 12 /* F_RESOLVED: id, status (0: found) */
#define SCL_ITEM_LEN 9  /* a scalar of a K_SCL or K_RSCL frame: width, value */

/* What a data frame carries (its kind, the priority field of a message):
 * a message of that priority, or a channel's open, item or close.
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

/**
 * @brief The length field of a frame.
 * @param prefix the frame's first WIRE_PREFIX bytes.
 * @retval 0 *len is the length of its type and body.
 * @retval -1 malformed (0, or over MAX_FRAME): the stream is not a bridge's.
 */
int mcx__wire_frame_len(const uint8_t *prefix, uint32_t *len);

/**
 * @brief A frame of @p type with a body of @p len bytes, malloc'd (the
 * caller frees it).
 * @param body copied in; NULL leaves the body (at WIRE_HEAD) to the caller.
 * @param total set to the frame's whole size.
 * @return the frame; NULL when out of memory.
 */
uint8_t *mcx__wire_frame(uint8_t type, const void *body, uint32_t len, uint32_t *total);

/** The ping frame (no body): WIRE_HEAD bytes, sent as they are. */
extern const uint8_t mcx__wire_ping[WIRE_HEAD];

/**
 * @brief The hello this side sends: magic, wire version, @p domain,
 * incarnation @p inc, a fresh nonce, its delivery record of the peer's
 * frames (@p rx_inc, @p rx_delivered; 0, 0 when it has none) and its
 * keep-alive interval (0: off), and its @p run (a new value at each start).
 */
void mcx__wire_hello(uint8_t out[HELLO_LEN], uint32_t domain, uint64_t inc, uint64_t rx_inc,
                     uint64_t rx_delivered, uint32_t keepalive_ms, uint64_t run);

/**
 * @brief Checks a received frame (@p n bytes: type and body) for a hello;
 * the wire version is looked at before the length.
 * @retval 0 a hello of this wire version: its HELLO_LEN bytes are at @p frame + 1.
 * @retval -1 not a hello.
 * @retval -2 a bridge's hello of another wire version (*version says which).
 */
int mcx__wire_hello_check(const uint8_t *frame, uint32_t n, uint32_t *version);

/* The fields of a checked hello (@p h: its HELLO_LEN bytes). */
uint32_t mcx__wire_hello_domain(const uint8_t *h);
uint64_t mcx__wire_hello_inc(const uint8_t *h);
/** The sender's record of the receiver's frames: their incarnation, and up to where delivered. */
uint64_t mcx__wire_hello_rx_inc(const uint8_t *h);
uint64_t mcx__wire_hello_rx_delivered(const uint8_t *h);
uint32_t mcx__wire_hello_keepalive(const uint8_t *h);
/** The sender's run: a new one means its channels are gone (it restarted). */
uint64_t mcx__wire_hello_run(const uint8_t *h);

/** Whether @p frame (@p n bytes: type and body) is of @p type with a body of exactly @p len bytes. */
int mcx__wire_is(const uint8_t *frame, uint32_t n, uint8_t type, uint32_t len);

/** A data frame's header fields and its payload (inside the frame it was read from). */
typedef struct mcx__wire_data {
  uint64_t seq;
  uint32_t node, port, kind; /* kind: a message's priority, or K_* */
  const uint8_t *body;
  uint32_t len;
} mcx__wire_data_t;

/**
 * @brief A data frame (F_DATA) numbered @p seq for (@p node, @p port), of
 * @p kind, with @p n bytes of @p body; malloc'd, *total its whole size.
 * @return the frame; NULL when out of memory.
 */
uint8_t *mcx__wire_data(uint64_t seq, uint32_t node, uint32_t port, uint32_t kind, const void *body,
                        size_t n, uint32_t *total);

/**
 * @brief Reads a data frame's body (@p m, @p n bytes: after the type byte).
 * @retval 0 *d is set.
 * @retval -1 shorter than its header.
 */
int mcx__wire_data_get(const uint8_t *m, uint32_t n, mcx__wire_data_t *d);

/** The kind of a whole frame made by mcx__wire_data(), and its change (K_VOID). */
uint32_t mcx__wire_data_kind(const uint8_t *frame);
void mcx__wire_data_set_kind(uint8_t *frame, uint32_t kind);

/* Bodies of the small frames; each _get returns -1 when @p n is too short. */
void mcx__wire_ack(uint8_t m[ACK_LEN], uint64_t upto);
int mcx__wire_ack_get(const uint8_t *m, uint32_t n, uint64_t *upto);
/** @p left_ms: the resolve's time left, UINT32_MAX for none. */
void mcx__wire_resolve(uint8_t m[RESOLVE_LEN], uint64_t id, uint32_t node, uint32_t port,
                       uint32_t left_ms);
int mcx__wire_resolve_get(const uint8_t *m, uint32_t n, uint64_t *id, uint32_t *node, uint32_t *port,
                          uint32_t *left_ms);
void mcx__wire_resolved(uint8_t m[RESOLVED_LEN], uint64_t id, uint32_t status);
int mcx__wire_resolved_get(const uint8_t *m, uint32_t n, uint64_t *id, uint32_t *status);

/* A scalar item: its width (8, 4, 2, 1: not checked here) and value; _get
 * returns -1 unless @p n is SCL_ITEM_LEN. */
void mcx__wire_scl(uint8_t m[SCL_ITEM_LEN], unsigned width, uint64_t v);
int mcx__wire_scl_get(const uint8_t *m, size_t n, unsigned *width, uint64_t *v);

#endif
