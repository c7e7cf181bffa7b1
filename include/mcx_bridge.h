/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file mcx_bridge.h
 * @brief Domains on different hosts: the bridge (libmca_bridge, built when
 * nng is installed) and the two calls of the core library it relies on.
 *
 * A bridge is a node of its local domain (node MCX_BRIDGE_NODE unless its
 * configuration says otherwise) with a well-known endpoint (MCX_BRIDGE_PORT).
 * mcapi_endpoint_get() for a domain other than the caller's asks that
 * endpoint; the bridge resolves the endpoint with the remote domain's bridge
 * and answers with a proxy endpoint of its own node, whose queue it drains
 * and forwards. See docs/bridge.md.
 */
#ifndef MCX_BRIDGE_H
#define MCX_BRIDGE_H

#include <stddef.h>
#include <stdint.h>

#include "mcapi.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Node id of a domain's bridge unless the environment's MCX_BRIDGE_NODE says otherwise. */
#define MCX_BRIDGE_NODE 16000u
/** Port of the bridge's request endpoint. */
#define MCX_BRIDGE_PORT 0x6d630b01u

/* The local request a foreign mcapi_endpoint_get sends to the bridge, and
 * its answer (host byte order: both ends share the machine). */
#define MCX_BRIDGE_REQ_MAGIC 0x4d435847u /* "MCXG" */
#define MCX_BRIDGE_REP_MAGIC 0x4d435852u /* "MCXR" */
typedef struct mcx_bridge_req {
  uint32_t magic, domain, node, port, timeout_ms, reply_node, reply_port, pad;
  uint64_t token;
} mcx_bridge_req_t;
typedef struct mcx_bridge_rep {
  uint32_t magic, status, proxy_node, proxy_port;
  uint64_t token;
} mcx_bridge_rep_t;

/**
 * @brief Takes one message from @p endpoint without waiting, and tells its
 * priority (a bridge forwards it with the same priority).
 * @return the message's size.
 * @retval MCAPI_SUCCESS a message was taken; *priority is set.
 * @retval MCAPI_ERR_MEM_LIMIT the queue is empty (nothing taken).
 * @retval MCAPI_ERR_MSG_TRUNCATED it was larger than @p size (truncated, taken).
 * @retval MCAPI_ERR_ENDP_INVALID stale or forged handle.
 * @retval MCAPI_ERR_ENDP_REMOTE not the caller's endpoint.
 * @retval MCAPI_ERR_PARAMETER a NULL pointer, or a domain whose transport is
 *         not shared memory (the bridge needs MCX_TRANSPORT=shm).
 * @retval MCAPI_ERR_NODE_NOTINIT this thread is not a node.
 */
size_t mcx_msg_try_recv_prio(mcapi_endpoint_t endpoint, void *buffer, size_t size,
                             mcapi_priority_t *priority, mcapi_status_t *mcapi_status);

/** The bridge node id local programs ask (MCX_BRIDGE_NODE or the environment's). */
mcapi_node_t mcx_bridge_node(void);

/* ---- libmca_bridge ---------------------------------------------------- */

#define MCX_BRIDGE_MAX_PEERS 16

typedef struct mcx_bridge_peer {
  uint32_t domain; /**< the remote domain id */
  char url[256];   /**< its bridge's listen URL (tcp://host:port, tls+tcp://host:port, ipc:///path) */
} mcx_bridge_peer_t;

typedef struct mcx_bridge_config {
  uint32_t domain;      /**< the local domain (must match MCX_DOMAIN of the nodes) */
  uint32_t node;        /**< the bridge's node id (0: mcx_bridge_node()) */
  char listen[256];     /**< URL the bridge listens on for peers of lower domain id */
  unsigned npeers;
  mcx_bridge_peer_t peers[MCX_BRIDGE_MAX_PEERS];
  uint8_t key[64];      /**< pre-shared key (bytes of the key file) */
  unsigned key_len;     /**< at least 16 */
  char state_dir[256];  /**< delivery records and status file (must exist) */
  unsigned window;      /**< data frames in flight per connection (0: 64) */
  /** For tls+tcp:// URLs (nng's TLS, mutual): a PEM file with this bridge's
   * certificate and private key, and the PEM file of the CA both sides'
   * certificates must be signed by. Empty: no TLS. */
  char tls_cert_key[256];
  char tls_ca[256];
  /** Keep-alive: the interval of pings on an idle connection, 20..60000 ms
   * (0: 500; MCX_BRIDGE_KEEPALIVE_OFF: off); a connection on which nothing
   * arrived for 4 intervals is lost. Last, so existing code is unchanged. */
  unsigned keepalive_ms;
} mcx_bridge_config_t;

/** mcx_bridge_config_t.keepalive_ms: no keep-alive. */
#define MCX_BRIDGE_KEEPALIVE_OFF 0xffffffffu

/**
 * @brief Runs a bridge until mcx_bridge_stop(); one at a time per process
 * (its state is static). Makes the calling thread node
 * @p cfg->node of domain @p cfg->domain (it finalizes it before returning).
 * @retval 0 stopped
 * @retval -1 it could not start (the reason is logged)
 */
int mcx_bridge_run(const mcx_bridge_config_t *cfg);

/** @brief Asks a running mcx_bridge_run() to return. Async-signal-safe. */
void mcx_bridge_stop(void);

/* ---- checks of a configuration (docs/bridge.md: security). Each fills
 * @p why (@p n bytes) with what is wrong, naming the file, key or line; a
 * file is opened without waiting, and only a regular file is read (a FIFO,
 * a device or a directory is refused unread). MT-safe. */

/**
 * @brief Checks the text of a configuration file before a JSON parser
 * reads it: a regular file of at most 1 MiB whose strings are valid UTF-8
 * and hold no NUL (raw, or as the escape backslash-u-0000), so no value is
 * cut short unseen.
 * @retval 0 fine.
 * @retval -1 refused (*why names the line and the key).
 */
int mcx_bridge_check_config_text(const char *path, char *why, size_t n);

/**
 * @brief Reads the key file @p path into @p cfg->key and @p cfg->key_len: a
 * regular file of this user (or root), neither readable nor writable by
 * group or others, of 16 to 64 bytes (trailing blanks and newlines dropped).
 * @retval 0 read.
 * @retval -1 refused.
 */
int mcx_bridge_read_key(const char *path, mcx_bridge_config_t *cfg, char *why, size_t n);

/**
 * @brief Checks the files @p cfg names, as mcx_bridge_run() will take them:
 * the state directory (a directory, not a symbolic link, of this user, not
 * writable by group or others) and the delivery records in it (regular
 * files of this user, not writable by others, whole), and the TLS files
 * (regular; cert_key of this user or root and private to it, ca not
 * writable by others; both parsed by nng when it has TLS).
 * @retval 0 fine.
 * @retval -1 refused.
 */
int mcx_bridge_check_files(const mcx_bridge_config_t *cfg, char *why, size_t n);

/** HMAC-SHA256 of @p msg under @p key (RFC 2104 over FIPS 180-4). */
void mcx_hmac_sha256(const void *key, size_t key_len, const void *msg, size_t len, uint8_t out[32]);

#ifdef __cplusplus
}
#endif

#endif
