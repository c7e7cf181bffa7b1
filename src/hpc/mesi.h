/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file mesi.h
 * @brief A MESI model of per-core private caches (internal).
 *
 * Replays a stream of (core, address, read/write) through one private,
 * set-associative, LRU cache per core kept coherent by a snooping MESI
 * protocol, and counts what a PMU would: snoop responses HIT (another core
 * had a clean copy), HITM (another core had it modified), CLEAN (nobody had
 * it), upgrades (write to a Shared line), invalidations, evictions and
 * write-backs. Used by `mca coherence --simulate` on machines without a PMU.
 *
 * Responses are counted once per bus transaction, on the requesting core, as
 * combined snoop results: HITM if any other cache held the line Modified,
 * else HIT if any held it, else CLEAN.
 *
 * Concurrency: a model is used by one thread.
 */
#ifndef MCX_HPC_MESI_H
#define MCX_HPC_MESI_H

#include <stddef.h>
#include <stdint.h>

#define MCX__MESI_MAX_CORES 16

typedef enum mcx__mesi_state {
  MCX__MESI_I = 0,
  MCX__MESI_S = 1,
  MCX__MESI_E = 2,
  MCX__MESI_M = 3,
} mcx__mesi_state_t;

typedef struct mcx__mesi_config {
  unsigned cores;     /**< 1 .. MCX__MESI_MAX_CORES */
  unsigned line_size; /**< bytes, power of two >= 4 */
  size_t capacity;    /**< bytes per core, a multiple of line_size * ways */
  unsigned ways;      /**< associativity; 0 = fully associative */
} mcx__mesi_config_t;

typedef struct mcx__mesi_stats {
  uint64_t reads, writes;
  uint64_t hits, misses;
  uint64_t snoop_hit;          /**< requests answered HIT (clean copy elsewhere) */
  uint64_t snoop_hitm;         /**< requests answered HITM (modified copy elsewhere) */
  uint64_t snoop_clean;        /**< requests answered CLEAN (no copy elsewhere) */
  uint64_t upgrades;           /**< writes to a Shared line (invalidate-only request) */
  uint64_t invalidations_sent; /**< lines this core's writes invalidated elsewhere */
  uint64_t invalidated;        /**< lines other cores' writes took from this core */
  uint64_t evictions;          /**< valid lines replaced for capacity/conflict */
  uint64_t writebacks;         /**< Modified lines evicted */
} mcx__mesi_stats_t;

typedef struct mcx__mesi mcx__mesi_t;

/** @retval 0 @retval MCX_EINVAL bad geometry @retval MCX_ENOMEM */
int mcx__mesi_create(mcx__mesi_t **m, const mcx__mesi_config_t *cfg);
void mcx__mesi_destroy(mcx__mesi_t *m);
/** One access of @p core to the byte at @p addr. @pre core < cores */
void mcx__mesi_access(mcx__mesi_t *m, unsigned core, uint64_t addr, int write);
/** State of the line holding @p addr in @p core's cache. */
mcx__mesi_state_t mcx__mesi_state(const mcx__mesi_t *m, unsigned core, uint64_t addr);
/** Counters of one core. */
void mcx__mesi_stats(const mcx__mesi_t *m, unsigned core, mcx__mesi_stats_t *out);
/** Counters summed over all cores. */
void mcx__mesi_total(const mcx__mesi_t *m, mcx__mesi_stats_t *out);
/** Zeroes the counters, keeps the caches' contents. */
void mcx__mesi_reset_stats(mcx__mesi_t *m);
/** Empties every cache and zeroes the counters. */
void mcx__mesi_flush(mcx__mesi_t *m);

#endif
