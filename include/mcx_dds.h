/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file mcx_dds.h
 * @brief The DDS gateway (libmca_dds, built when Eclipse Cyclone DDS is
 * installed): MCAPI messages become DDS samples and DDS samples MCAPI
 * messages. See docs/dds.md.
 *
 * A gateway is a node of its local domain. Each outbound route is an
 * endpoint of that node (a proxy port): every message an MCAPI program
 * sends to it is published as one sample of the route's topic (type
 * mcx::dds::Message, idl/mcx_dds_msg.idl). Each inbound route subscribes
 * to a topic and sends every sample to a configured MCAPI endpoint, in the
 * order each DDS writer wrote them.
 */
#ifndef MCX_DDS_H
#define MCX_DDS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Node id of a gateway whose configuration names none. */
#define MCX_DDS_NODE 16100u
#define MCX_DDS_MAX_ROUTES 32
#define MCX_DDS_TOPIC_MAX 128

/** Durability of a route's writer and reader. */
enum { MCX_DDS_VOLATILE = 0, MCX_DDS_TRANSIENT_LOCAL = 1 };

/** MCAPI -> DDS: messages sent to local port @p port are published on @p topic. */
typedef struct mcx_dds_out {
  uint32_t port;                 /**< the proxy endpoint's port on the gateway's node */
  char topic[MCX_DDS_TOPIC_MAX]; /**< the DDS topic */
  /** The sender put in every sample (MCAPI messages do not carry theirs):
   * the domain is the gateway's; node and port as configured (0 when not). */
  uint32_t sender_node, sender_port;
  int durability;                /**< MCX_DDS_VOLATILE or MCX_DDS_TRANSIENT_LOCAL */
  /** Nothing is taken from the port while fewer DDS readers than this are
   * matched (0: publish at once, with or without readers). A volatile
   * sample written before a reader is matched never reaches it. */
  uint32_t min_readers;
} mcx_dds_out_t;

/** DDS -> MCAPI: samples of @p topic are sent to (node, port) of the gateway's domain. */
typedef struct mcx_dds_in {
  char topic[MCX_DDS_TOPIC_MAX];
  uint32_t node, port; /**< the receiving MCAPI endpoint */
  int durability;
} mcx_dds_in_t;

typedef struct mcx_dds_config {
  uint32_t domain;         /**< the MCAPI domain (must match MCX_DOMAIN of the nodes) */
  uint32_t node;           /**< the gateway's node id (0: MCX_DDS_NODE) */
  uint32_t dds_domain;     /**< the DDS domain id (0..230) */
  uint32_t block_ms;       /**< a write waits at most this long before it is retried (0: 1) */
  uint32_t reader_depth;   /**< samples an inbound reader holds before its writers wait (0: 256) */
  uint32_t history_depth;  /**< transient-local: samples a writer keeps for late joiners (0: 1000) */
  unsigned nout, nin;
  mcx_dds_out_t out[MCX_DDS_MAX_ROUTES];
  mcx_dds_in_t in[MCX_DDS_MAX_ROUTES];
} mcx_dds_config_t;

/** What a run did (mcx_dds_run's @p stats; totals over all routes). */
typedef struct mcx_dds_stats {
  uint64_t published;  /**< MCAPI messages written as samples */
  uint64_t delivered;  /**< samples sent into MCAPI endpoints */
  uint64_t refused;    /**< samples that could not become a message (too large), logged */
  uint64_t blocked;    /**< writes that timed out (back-pressure) and were retried */
} mcx_dds_stats_t;

/**
 * @brief Checks a configuration as mcx_dds_run() will take it.
 * @retval 0 fine
 * @retval -1 refused (@p why, @p n bytes, says why)
 */
int mcx_dds_check(const mcx_dds_config_t *cfg, char *why, unsigned n);

/**
 * @brief Runs a gateway until mcx_dds_stop(); one at a time per process.
 * Makes the calling thread node @p cfg->node of domain @p cfg->domain (it
 * finalizes it before returning). Prints "ready" to the log (stderr) once
 * every route is set up. @p stats (may be NULL) gets the totals.
 * @retval 0 stopped
 * @retval -1 it could not start (the reason is logged)
 */
int mcx_dds_run(const mcx_dds_config_t *cfg, mcx_dds_stats_t *stats);

/** @brief Asks a running mcx_dds_run() to return. Async-signal-safe. */
void mcx_dds_stop(void);

#ifdef __cplusplus
}
#endif

#endif
