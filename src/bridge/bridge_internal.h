/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The bridge's state and what its files call of each other; private to
 * src/bridge/ (the public face is include/mcx_bridge.h, the frame format
 * wire.h). docs/bridge.md describes the bridge.
 *
 * Threads: the calling thread of mcx_bridge_run() is the node and owns every
 * MCAPI object and every protocol state (windows, records, resolves). I/O
 * threads only dial, accept, do the handshake and read frames; they hand
 * what they read to the node thread through one locked event list. The node
 * thread writes frames itself (bounded by the window, so a write never waits
 * long), all it has for a peer in one write per pass of its loop. One keeper
 * thread per peer sends the pings and decides when a silent connection is
 * lost; it never waits for anything but its clock (docs/bridge.md:
 * keep-alive). Every thread is made at the start, a fixed number: per peer
 * a keeper and a link thread (its dialer, or the reader of the connections
 * it makes to this side), and one pre-auth thread that accepts connections
 * and runs the handshake of all of them at once, event-driven, in a bounded
 * pool (preauth.c); nothing an unauthenticated connection does makes a
 * thread or takes one from an authenticated link (docs/bridge.md:
 * security). Each call below says from which threads it may be called;
 * "node thread" means only there.
 *
 * Locks are libmca's own (sync/lock.h), not nng's: the test builds tell
 * ThreadSanitizer to ignore what libnng calls (tests/tsan.supp), which would
 * hide every hand-off made through an nng mutex.
 *
 * The files, one concern each: bridge.c (entry points, configuration, the
 * node thread's loop), wire.c (frame format), link.c (connections, I/O
 * threads, keep-alive, writing), preauth.c (accepting: the pre-auth pool),
 * handshake.c (hello, key proof, TLS), config.c (the checks of the
 * configuration and of the key and certificate files), statedir.c (the
 * state directory: its checks, the status file, the record files),
 * delivery.c (the window, in-order delivery and its record), resolve.c
 * (endpoints by address), proxy.c (proxy endpoints), chan.c (the channel
 * ends held for a peer's programs), fault.c (fault injection),
 * hmac_sha256.c (the key proof's HMAC).
 */
#ifndef MCX_BRIDGE_INTERNAL_H
#define MCX_BRIDGE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <nng/nng.h>
#include <nng/supplemental/tls/tls.h>
#include <nng/supplemental/util/platform.h>

#include "common/mcx_atomic.h"
#include "mcx.h"
#include "mcx_bridge.h"
#include "sync/lock.h"
#include "wire.h"

enum { EV_UP = 1, EV_DOWN = 2, EV_FRAME = 3 };
enum { PS_DOWN = 0, PS_UP = 1, PS_REFUSED = 2 };

#define IO_TIMEOUT_MS 5000
#define DIAL_TIMEOUT_MS 10000
/* The whole handshake of a connection this side dials, at least (a hello
 * that is slow under load is waited for, not refused); dead_after when that
 * is longer. An absolute deadline: bytes that trickle in do not extend it. */
#define HANDSHAKE_MIN_MS 30000
/* The pre-auth pool (preauth.c, docs/bridge.md: security): connections
 * accepted and not yet authenticated, at most PREAUTH_SLOTS at once and
 * PREAUTH_PER_SOURCE from one address (ipc: one user); each has
 * PREAUTH_DEADLINE_MS from its accept to its key proof (absolute), and a
 * frame before the proof is at most PREAUTH_FRAME_MAX bytes. A connection
 * that finds the pool (or its address's share) full takes the place of the
 * one that got least far, then the oldest, of the fullest address. */
#define PREAUTH_SLOTS 64
#define PREAUTH_PER_SOURCE 8
#define PREAUTH_DEADLINE_MS 10000
#define PREAUTH_FRAME_MAX 256
#define BACKOFF_MIN_MS 100
#define BACKOFF_MAX_MS 5000
#define MAX_PROXIES 64
#define PROXY_PORT_BASE 0x6d630c00u
#define KEEPALIVE_DEFAULT_MS 500
#define KEEPALIVE_MIN_MS 20
#define KEEPALIVE_MAX_MS 60000
/* A connection silent for 8 intervals of this process's own running time is
 * lost: the time this process was not scheduled is not counted (link.c:
 * keeper()). */
#define DEAD_AFTER_PINGS 8
/* The remote ends of bridged channels, and the pull endpoints (chan.c). */
#define MAX_RCHANS 16
#define RCHAN_PORT_BASE 0x6d630e00u

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
  /* Loaded from the journal (journal.c): the proxy port and ring position
   * of the message taken for it (at: set), or none. */
  int at;
  uint32_t lport, prio;
  uint64_t pos;
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

/* The delivery record's file (statedir.c, delivery.c): the peer's
 * incarnation and the last data frame delivered, two u64 in this host's
 * byte order, RECORD_LEN bytes exactly. */
#define RECORD_LEN 16

/* A stream authenticated by the pre-auth thread, waiting for its peer's
 * link thread to read it (under the peer's mtx). */
typedef struct handoff {
  struct handoff *next;
  nng_stream *s;
  uint32_t gen;
} handoff_t;

typedef struct peer {
  struct bridge *owner;
  uint32_t domain;
  char url[256];
  int dialer; /* we dial (our domain id is lower) */
  /* Shared with the I/O threads, under mtx. */
  mcx__mutex_t mtx;
  mcx__mutex_t wmtx; /* one writer of the stream at a time */
  nng_stream *conn;
  int conn_closed; /* conn was closed: no write starts on it (link.c: close_locked) */
  uint32_t gen;
  int state;
  unsigned attempts;
  char why[160];
  uint64_t rx_inc, rx_delivered; /* the delivery record (also on disk) */
  unsigned ka_ms; /* the keep-alive interval of the connection gen (0: off) */
  uint32_t ka_lost_gen; /* the connection the keeper found silent (its gen; 0: none) */
  nng_aio *w_aio;       /* the write under way (under wmtx), and its stream: under mtx */
  nng_aio *wr_aio;      /* the node thread's writes' aio, made at the start, reused */
  nng_stream *w_stream;
  nng_stream *ping_stream; /* the stream a ping is being written to (it holds wmtx) */
  /* Counters, no data hangs on them (relaxed): bytes read (by the reader),
   * nng_clock() of the last write (by whoever holds wmtx); both read by the keeper. */
  mcx_atomic_u64 rx_bytes, last_tx;
  /* The keeper's: its thread, its ping's aio, how much of the ping is written. */
  nng_thread *keeper;
  nng_aio *ping_aio;
  unsigned ping_off;
  /* The link thread: the dialer (dialer = 1), or the reader of the streams
   * the pre-auth thread hands over (hand_*, under mtx; hand_seq is bumped
   * with each and woken: the link thread sleeps on it). */
  nng_thread *link;
  handoff_t *hand_head, *hand_tail;
  mcx_atomic_u32 hand_seq;
  /* Node thread only. */
  uint32_t seen_gen;
  int up;
  uint64_t next_seq, acked; /* sent 1..next_seq-1; acknowledged 1..acked */
  out_frame_t *win;
  int rx_known;            /* rx_delivered is a base for rx_inc */
  uint64_t ack_sent;
  int force_ack;
  ev_t *pend_head, *pend_tail; /* DATA received, not yet delivered (destination full) */
  /* The delivery record's file (-1: none, kept in memory only), marked in
   * the memory map for `mca domains` (rec_mark, never accessed), and what
   * was last written to it. */
  int rec_fd;
  void *rec_mark;
  uint64_t rec_inc, rec_delivered;
  mcx_receipt_t rcpt; /* the same in the partition, set with each delivery (0: none) */
  uint64_t delivered_total, dropped_total, sent_total;
  note_t *notes, *notes_tail;
  /* The journal (journal.c): this side's unacknowledged data frames, a slot
   * per place in the window, written before the frame leaves (-1: none). */
  int jr_fd;
  uint8_t *jr_batch; /* the slots of this pass's frames, jr_first.., written at its end */
  uint64_t jr_first;
  unsigned jr_n;
  uint64_t rx_run; /* the peer's run seen last (0: none yet): a new one ends the channels */
  uint8_t *obuf; /* frames for the connection seen_gen, written at the end of the pass */
  size_t olen, ocap;
} peer_t;

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
  uint8_t *sbuf; /* PX_OUT: the packet of the send in progress (mcx__br_chan_put) */
  int rposted, sending;
  int noreq; /* a closing mode with no close request to wait for */
  unsigned width; /* of the last scalar taken (tried first) */
  uint32_t node, port, local_port;
} proxy_t;

/* The remote end of a bridged packet or scalar channel: an endpoint of the
 * bridge's node connected to the destination, its send side open. */
typedef struct rchan {
  int used, peer, open, sending, closing, failed;
  int noreq; /* closing with no close request to wait for */
  uint32_t type; /* MCAPI_PKT_CHAN or MCAPI_SCL_CHAN */
  uint32_t node, port;
  mcapi_endpoint_t ep;
  mcapi_pktchan_send_hndl_t sh;
  mcapi_request_t open_req, send_req, close_req;
  uint8_t *sbuf; /* the packet of the send in progress (mcx__br_chan_put); kept when the slot is reused */
} rchan_t;

typedef struct dest {
  uint32_t node, port;
  mcapi_endpoint_t ep;
} dest_t;

typedef struct bridge {
  mcx_bridge_config_t cfg;
  uint64_t inc; /* of the numbered stream: kept by a restart that finds the journal */
  uint64_t run; /* of this start: new each time */
  uint32_t jr_slot_len; /* a journal slot's size (journal.c) */
  /* The messages this pass took from the proxies, held in their slots until
   * the journal has them (mcx__br_journal_flush), in the order taken. */
  struct held_msg {
    mcapi_endpoint_t ep;
    uint32_t prio;
    uint64_t pos;
  } *held;
  unsigned nheld, held_cap;
  peer_t peers[MCX_BRIDGE_MAX_PEERS];
  mcx__mutex_t evmtx;
  ev_t *ev_head, *ev_tail;
  /* The node thread sleeps on ev_seq when idle; the I/O threads bump it
   * with each batch of events and wake it when it said it sleeps. Written
   * by the I/O threads (ev_seq) and the node thread (sleeping). */
  mcx_atomic_u32 ev_seq, sleeping;
  nng_stream_listener *listener;
  struct preauth *pa; /* preauth.c's */
  int state_fd;       /* the state directory, opened once (statedir.c); -1: none */
  /* The PEM files of the TLS configuration, read and checked at the start (config.c). */
  char *tls_cert_pem, *tls_ca_pem;
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

/* ---- bridge.c */
/** A line of the bridge's log (stderr). Any thread. */
void mcx__br_log(const bridge_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** The index of the configured peer of @p domain, -1 when none. Any thread. */
int mcx__br_find_peer(const bridge_t *b, uint32_t domain);
/**
 * @brief FAIL_ON_MEM_LIMIT of a bridge endpoint (on: a send to a full queue
 * or channel returns MCAPI_ERR_MEM_LIMIT at once). Node thread.
 * @retval 0 set.
 * @retval -1 not set (logged).
 */
int mcx__br_set_fail(const bridge_t *b, mcapi_endpoint_t ep, int fail);

/* ---- link.c */
/**
 * @brief Listens, starts the keepers, the pre-auth thread and a link thread
 * per peer (its dialer, or the reader of the streams it connects). Node
 * thread, once.
 * @retval 0 running.
 * @retval -1 not (logged); mcx__br_link_stop() undoes what was started.
 */
int mcx__br_link_start(bridge_t *b);
/** Closes every connection, joins every thread of link.c and preauth.c, frees the listener. Node thread. */
void mcx__br_link_stop(bridge_t *b);
/** Whether the bridge is stopping (the I/O threads end). Any thread. */
int mcx__br_quitting(void);
/** Sets a peer's state and its reason (status file). Any thread. */
void mcx__br_set_state(peer_t *p, int state, const char *why);
/** Closes the peer's connection, if any: its writes end, none starts on it again (link.c). Any thread. */
void mcx__br_close_conn(peer_t *p);
/**
 * @brief Makes the authenticated stream @p s the peer's connection: an
 * older one is closed (its reader ends), the keep-alive interval is
 * @p ka_ms, the node thread is told (EV_UP with a copy of @p hello, the
 * peer's). @p serve: a stream the listener accepted, handed to the peer's
 * link thread to read; else the caller (the dialer) reads it. I/O threads.
 * @retval 0 *gen is the connection's generation.
 * @retval -1 out of memory: nothing changed (the caller closes @p s).
 */
int mcx__br_link_up(bridge_t *b, int pi, nng_stream *s, unsigned ka_ms, const uint8_t *hello, int serve,
                    uint32_t *gen);
/**
 * @brief Reads one frame: its type and body, malloc'd (the caller frees it),
 * by @p end (nng_clock() ms, absolute: bytes that trickle in do not extend
 * it). I/O threads (the dialer's handshake).
 * @retval 0 *body, *len set.
 * @retval NNG_EPROTO a malformed length; NNG_ETIMEDOUT @p end passed; other nng errors of the stream.
 */
int mcx__br_read_frame(nng_stream *s, uint8_t **body, uint32_t *len, uint64_t end);
/** Writes one frame by @p end (as mcx__br_read_frame()): 0 or an nng error. I/O threads. */
int mcx__br_send_raw(nng_stream *s, uint8_t type, const void *body, uint32_t len, uint64_t end);
/** Hands an event to the node thread (@p body: malloc'd, taken). I/O threads. */
void mcx__br_push_ev(bridge_t *b, int type, int peer, uint32_t gen, uint8_t *body, uint32_t len);
/** The node thread's events, in order, taken from the I/O threads' list. Node thread. */
ev_t *mcx__br_take_evs(bridge_t *b);
/** The node thread's idle wait: until there are events or @p ns passed. Node thread. */
void mcx__br_node_sleep(bridge_t *b, uint64_t ns);
/** Adds a frame to what the peer is sent at the end of the pass. Node thread. */
void mcx__br_peer_write(peer_t *p, const uint8_t *f, uint32_t len);
/** A small unnumbered frame (ack, resolve) for the peer, as mcx__br_peer_write(). Node thread. */
void mcx__br_send_small(peer_t *p, uint8_t type, const uint8_t *body, uint32_t len);
/** Writes what the pass made for the peer, in one write. Node thread. */
void mcx__br_flush_out(peer_t *p);

/* ---- preauth.c */
/** Starts accepting on b->listener: the pool and the pre-auth thread. 0, or -1 (logged). Node thread. */
int mcx__br_preauth_start(bridge_t *b);
/** Joins the pre-auth thread and closes what it held; the listener is closed. Node thread. */
void mcx__br_preauth_stop(bridge_t *b);

/* ---- handshake.c */
/**
 * @brief The dialer's handshake on a new stream to peer @p pi: hellos, then
 * this side's key proof, then the listener's; on success the stream is the
 * peer's connection (mcx__br_link_up(), read by the caller). The peer's
 * state says why it failed. Its dialer thread.
 * @retval 0 up; *gen is the connection's generation.
 * @retval -1 refused or failed (the caller closes @p s).
 */
int mcx__br_handshake(bridge_t *b, nng_stream *s, int pi, uint32_t *gen);
/** This side's hello to peer @p pi (its delivery record of the peer's frames). Any thread. */
void mcx__br_hs_hello(bridge_t *b, int pi, uint8_t mine[HELLO_LEN]);
/**
 * @brief The configured peer a listener's connection claims to be (@p theirs:
 * its checked hello). Any thread.
 * @return the peer index; -1 (*why says why) when the domain is not a
 * configured peer, is this one, or is one this side dials.
 */
int mcx__br_hs_claim(const bridge_t *b, const uint8_t *theirs, char *why, size_t n);
/** The key proof of the hello @p from to @p to (HMAC-SHA256 of both under the key). Any thread. */
void mcx__br_hs_tag(const bridge_t *b, const uint8_t *from, const uint8_t *to, uint8_t tag[AUTH_LEN]);
/** Whether @p tag proves the key for @p theirs to @p mine (constant time). Any thread. */
int mcx__br_hs_tag_ok(const bridge_t *b, const uint8_t *theirs, const uint8_t *mine, const uint8_t *tag);
/** The keep-alive interval of a connection whose peer said @p theirs. Any thread. */
unsigned mcx__br_hs_keepalive(const bridge_t *b, const uint8_t *theirs);
/**
 * @brief A TLS configuration: a client's checking @p host, or (NULL) the
 * server's, from the PEM text read at the start. Fails when nng has no TLS
 * engine. Any thread (a dialer, or the node thread at the start).
 * @retval 0 *out set.
 * @retval an nng error.
 */
int mcx__br_make_tls(const bridge_t *b, nng_tls_config **out, const char *host);
/** The listener's TLS configuration (b->tls_server): 0, or -1 (logged). Node thread. */
int mcx__br_setup_tls(bridge_t *b);

/* ---- config.c (any thread; no state) */
/**
 * @brief Reads a PEM file of the TLS configuration (NUL-terminated, malloc'd:
 * the caller frees it). A regular file (never opened blocking: a FIFO or a
 * device is refused unread), of this user or root, not writable by group or
 * others, and for one holding a private key (@p secret) not readable by
 * them either; parsed by nng (@p secret: a certificate and its key, else a
 * CA chain) when nng has TLS.
 * @retval 0 *pem set.
 * @retval -1 refused: *why says why, naming the file.
 */
int mcx__br_read_pem(const char *what, const char *path, int secret, char **pem, char *why, size_t n);

/* ---- statedir.c (any thread; the bridge's own files) */
/**
 * @brief Opens the state directory: a directory (not a symbolic link to
 * one) owned by this user, not writable by group or others; each of its
 * ancestors root's or this user's, not writable by group or others unless
 * sticky (as OpenSSH's StrictModes).
 * @retval 0 *fd open.
 * @retval -1 refused: *why says why.
 */
int mcx__br_state_open(const char *path, int *fd, char *why, size_t n);
/**
 * @brief Replaces the file @p name of the state directory with @p len bytes
 * of @p text: written to NAME.tmp, made anew (O_EXCL, no link followed; a
 * stale one is removed first), then renamed over @p name.
 * @retval 0 written.
 * @retval -1 not (the old file stays).
 */
int mcx__br_state_write(int dirfd, const char *name, const void *text, size_t len);
/**
 * @brief Opens the delivery record file @p name of the state directory and
 * reads it (v[0]: incarnation, v[1]: delivered). A missing one is made
 * (@p create; 0600, zeros, in place at once by a rename); an existing one
 * must be a regular file of this user, not writable by group or others,
 * with one link and RECORD_LEN bytes (a shorter one is truncated: an error,
 * never a fault later).
 * @retval 0 *fd open (-1 when missing and not @p create), v set.
 * @retval -1 refused: *why says why.
 */
int mcx__br_record_file(int dirfd, const char *name, int create, int *fd, uint64_t v[2], char *why, size_t n);
/** Writes a record (v[0]: incarnation, v[1]: delivered) to its file: 0, or -1 (failed). */
int mcx__br_record_write(int fd, const uint64_t v[2]);

/**
 * @brief Reads the file @p name of the state directory whole (@p what names
 * it in *why): the checks of a record (a regular file of this user, not
 * writable by others, one link, no link followed), at most @p max bytes.
 * @retval 0 *buf (malloc'd) and *len set; *buf NULL when there is no such file.
 * @retval -1 refused: *why says why.
 */
int mcx__br_state_read(int dirfd, const char *what, const char *name, size_t max, void **buf, size_t *len, char *why,
                       size_t n);
/** Replaces @p name with @p len bytes (NAME.tmp of @p mode renamed over it); @p fd: then opened. 0, or -1. */
int mcx__br_state_replace(int dirfd, const char *name, const void *data, size_t len, unsigned mode, int *fd);

/* ---- journal.c (node thread) */
/**
 * @brief Reads the journals of every peer (what was sent and not known to be
 * acknowledged when the last run ended), keeps the stream's incarnation they
 * name (b->inc; a new one when there is none) and the larger window, and
 * writes each journal anew with the frames kept. Before the windows are used.
 * @retval 0 done (a journal refused is logged and left out).
 * @retval -1 a journal file refused by its checks (logged): the bridge does not start.
 */
int mcx__br_journal_start(bridge_t *b);
/** Adds the window's frame @p o to this pass's slots of the journal, with
 * the proxy port and ring position (@p at) of the message it carries;
 * written by mcx__br_journal_flush(). */
void mcx__br_journal_put(bridge_t *b, peer_t *p, const out_frame_t *o, int at, uint32_t lport, uint32_t prio,
                         uint64_t pos);
/** Writes this pass's slots, then gives the messages taken back to their
 * queues (in the order taken): before the pass's frames are written to the
 * connections. */
void mcx__br_journal_flush(bridge_t *b);
/** Messages held from the proxies before the journal is written and they
 * are given back: one write for that many, and the rest of a proxy's
 * queue stays free for its senders meanwhile. */
#define JR_BATCH 16
/** Priorities a journal position is kept for (MCAPI_MAX_PRIORITY + 1 at most). */
#define MCX_JR_PRIOS 16
/** The ring position of the newest journaled message of proxy @p lport per
 * priority (loaded at the start; UINT64_MAX: none). */
void mcx__br_journal_last(const bridge_t *b, uint32_t lport, uint64_t upto[MCX_JR_PRIOS]);
/** Closes the journal. */
void mcx__br_journal_close(peer_t *p);

/* ---- delivery.c (node thread) */
/** Loads the peer's delivery record (file and partition receipt): 0, or -1 when its file is refused (logged). */
int mcx__br_record_load(bridge_t *b, peer_t *p);
/** Writes the record to its file when it changed (before the acknowledgement leaves). */
void mcx__br_record_flush(peer_t *p);
/** Closes the record's file. */
void mcx__br_record_close(peer_t *p);
/**
 * @brief A new connection of peer @p pi is up (EV_UP, @p hello: the peer's):
 * the record follows the peer's incarnation (a new one ends the channels
 * through it), what the peer's record has is acknowledged and the rest of
 * the window written again, the resolves sent again, the proxies marked.
 */
void mcx__br_peer_up(bridge_t *b, int pi, uint32_t gen, const uint8_t *hello);
/**
 * @brief A data frame read from the peer (@p e, EV_FRAME of type F_DATA):
 * queued for mcx__br_deliver().
 * @retval 1 taken (@p e is the queue's).
 * @retval 0 malformed: the caller frees @p e.
 */
int mcx__br_on_data(peer_t *p, ev_t *e);
/** Whether the peer is up and its window has room for a data frame. */
int mcx__br_room(const bridge_t *b, const peer_t *p);
/** Numbers a data frame, keeps it in the window and writes it; the caller
 * checked mcx__br_room(). 0, or -1 (out of memory: nothing sent). */
int mcx__br_emit(bridge_t *b, peer_t *p, uint32_t node, uint32_t port, uint32_t kind, const void *data,
                 size_t n);
/** mcx__br_emit() of a message taken from proxy @p lport at ring (@p prio, @p pos): the journal names them. */
int mcx__br_emit_at(bridge_t *b, peer_t *p, uint32_t node, uint32_t port, uint32_t kind, const void *data, size_t n,
                    uint32_t lport, uint64_t pos);
/** A control frame sent when the window has room (mcx__br_flush_notes()). */
void mcx__br_add_note(peer_t *p, uint32_t kind, uint32_t node, uint32_t port);
int mcx__br_flush_notes(bridge_t *b, peer_t *p);
void mcx__br_free_notes(peer_t *p);
/** The peer acknowledged the data frames up to @p upto: they leave the window. */
void mcx__br_acked(bridge_t *b, peer_t *p, uint64_t upto);
/** Delivers the peer's held data frames in order; 1 when it did anything. */
int mcx__br_deliver(bridge_t *b, peer_t *p);
/** Frees the peer's held data frames (sent again by the peer). */
void mcx__br_drop_pending(peer_t *p);

/* ---- resolve.c (node thread) */
/** The local endpoint (node, port) a frame goes to, cached; @p fresh: looked up again. */
mcapi_endpoint_t mcx__br_dest_ep(bridge_t *b, uint32_t node, uint32_t port, int fresh);
/** Takes the local programs' requests for remote endpoints; 1 when there were any. */
int mcx__br_poll_requests(bridge_t *b);
/** Answers remote resolves that found their endpoint or ran out of time, and local ones whose answer did not come. */
void mcx__br_tick_resolves(bridge_t *b);
/** F_RESOLVE, F_RESOLVED from peer @p pi (@p m, @p n: the body). */
void mcx__br_on_resolve(bridge_t *b, int pi, const uint8_t *m, uint32_t n);
void mcx__br_on_resolved(bridge_t *b, int pi, const uint8_t *m, uint32_t n);
/** Sends the local resolves waiting for peer @p pi again (it is back). */
void mcx__br_resend_resolves(bridge_t *b, int pi);

/* ---- proxy.c (node thread) */
/** The proxy of (node, port) of peer @p pi, made when there is none; NULL when none can be. */
proxy_t *mcx__br_proxy_for(bridge_t *b, int pi, uint32_t node, uint32_t port);
/**
 * @brief Adopts the proxies of the last run that its death left (their
 * queues kept; the file proxies-d<domain> of the state directory names
 * them): they forward again from where that run stopped. At the start,
 * after the journals.
 */
void mcx__br_proxy_adopt(bridge_t *b);
/**
 * @brief A clean stop (SIGTERM): the message proxies are left to the
 * restart as a kill -9 leaves them (runtime/adopt.h: orphaned with their
 * queues, sends refused with MCAPI_ERR_TRANSMISSION), not deleted with the
 * node. Before mcapi_finalize().
 */
void mcx__br_proxy_leave(bridge_t *b);
/** The proxy of (node, port) of peer @p pi, NULL when there is none. */
proxy_t *mcx__br_proxy_find(bridge_t *b, int pi, uint32_t node, uint32_t port);
/** Marks the peer's proxies reachable or not as the peer is up; logs it when @p changed. */
void mcx__br_mark_proxies(bridge_t *b, int pi, int changed);
/** Takes what the proxies and pull endpoints have into the windows; 1 when it did anything. */
int mcx__br_drain_proxies(bridge_t *b, uint8_t *buf, size_t cap);
/** Closes a proxy's or pull's open receive side (PX_PKT, PX_SCL modes). */
void mcx__br_recv_close(proxy_t *x);
/** K_CHAN_STOP: the remote receiver of a local sender's channel closed. Returns 1. */
int mcx__br_proxy_stop(bridge_t *b, int pi, uint32_t node, uint32_t port);
/** Starts closing the send side of a proxy's channel (PX_OUT modes). */
void mcx__br_proxy_out_close(proxy_t *x);
/** K_RPKT, K_RSCL, K_RCLOSE, K_RFAIL for a proxy's send side: 1 done, 0 hold, -1 dropped. */
int mcx__br_proxy_out(bridge_t *b, int pi, uint32_t kind, uint32_t node, uint32_t port, const uint8_t *data,
                      size_t len);

/* ---- chan.c (node thread) */
/** The mca-2.0.3 profile's refusal of scalar channels across the bridge (a reason), or NULL. */
const char *mcx__br_scl_refused(void);
/**
 * @brief A packet send under way on a channel's send side (*@p sending).
 * @retval 0 still under way (hold).
 * @retval 1 it went out.
 * @retval -2 the channel refused it (*st says why).
 */
int mcx__br_chan_sent(mcapi_request_t *req, int *sending, mcapi_status_t *st);
/**
 * @brief Puts a data frame's item into a channel's send side @p h: a scalar
 * (@p scl; SCL_ITEM_LEN bytes) or a packet (copied to *@p sbuf, sent with
 * @p req; *@p sending while it is under way).
 * @retval 1 sent.
 * @retval 0 hold: the channel is full (this frame waits, so do the ones after it).
 * @retval -1 dropped: malformed, or a scalar of a width the channel refused.
 * @retval -2 the channel refused it (*st says why).
 */
int mcx__br_chan_put(mcapi_pktchan_send_hndl_t h, int scl, const uint8_t *data, size_t len, uint8_t **sbuf,
                     mcapi_request_t *req, int *sending, mcapi_status_t *st);
/** A data frame of a channel kind (K_CHAN_OPEN..) for (node, port): 1 done, 0 hold, -1 dropped. */
int mcx__br_deliver_chan(bridge_t *b, int pi, uint32_t kind, uint32_t node, uint32_t port, const uint8_t *data,
                         size_t len);
/** Frees the channel ends whose close completed. */
void mcx__br_tick_rchans(bridge_t *b);
/** The peer came back as a new incarnation: every channel through it ends. */
void mcx__br_end_channels(bridge_t *b, int pi);

/* ---- fault.c */
/** Counts a message delivery; the one MCX_BRIDGE_FAULT names kills this process. Node thread. */
void mcx__br_fault_arm(void);
/** Step @p step of @p n takes from a proxy (0: taken held, 1: journaled, not
 * given back); MCX_BRIDGE_TAKE_FAULT=K:S kills this process at step S of the
 * K-th take. Node thread. */
void mcx__br_fault_take(int step, unsigned n);
/** Reads MCX_BRIDGE_IO_FAULT=read:K,write:K. At the start, before the I/O threads. */
void mcx__br_fault_init(void);
/** Counts a read (@p write 0: the link threads') or a write (1: the node
 * thread's) of a peer's connection: 1 when it is the one
 * MCX_BRIDGE_IO_FAULT names (the caller closes the connection first). */
int mcx__br_fault_io(int write);

#endif
