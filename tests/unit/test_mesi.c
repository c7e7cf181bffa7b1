/* SPDX-License-Identifier: BSD-3-Clause */
/* The MESI model against hand-computed sequences: private data, false
 * sharing, true sharing, upgrades, capacity and conflict evictions. */
#include "mcx_test.h"

#include "common/mcx_err.h"
#include "hpc/mesi.h"

static mcx__mesi_t *model(unsigned cores, unsigned line, size_t cap, unsigned ways)
{
  mcx__mesi_config_t c = {.cores = cores, .line_size = line, .capacity = cap, .ways = ways};
  mcx__mesi_t *m = NULL;
  CHECK(mcx__mesi_create(&m, &c) == MCX_OK);
  return m;
}

TEST(bad_geometry_is_rejected)
{
  mcx__mesi_t *m;
  mcx__mesi_config_t c = {.cores = 2, .line_size = 48, .capacity = 4096, .ways = 4};
  CHECK(mcx__mesi_create(&m, &c) == MCX_EINVAL); /* line not a power of two */
  c.line_size = 64;
  c.capacity = 64 * 6;
  CHECK(mcx__mesi_create(&m, &c) == MCX_EINVAL); /* 6 lines in 4 ways */
  c.capacity = 4096;
  c.cores = 0;
  CHECK(mcx__mesi_create(&m, &c) == MCX_EINVAL);
  c.cores = MCX__MESI_MAX_CORES + 1;
  CHECK(mcx__mesi_create(&m, &c) == MCX_EINVAL);
}

TEST(private_data_only_clean_snoops)
{
  /* Core 0 writes lines 0..7, core 1 writes lines 100..107, twice each: 8
   * misses per core answered CLEAN, everything after is a hit, no HIT/HITM. */
  mcx__mesi_t *m = model(2, 64, 4096, 4);
  for (int pass = 0; pass < 2; pass++)
    for (uint64_t l = 0; l < 8; l++) {
      mcx__mesi_access(m, 0, l * 64, 1);
      mcx__mesi_access(m, 1, (100 + l) * 64 + 8, 1);
    }
  for (unsigned k = 0; k < 2; k++) {
    mcx__mesi_stats_t s;
    mcx__mesi_stats(m, k, &s);
    CHECK_EQ_U(s.misses, 8);
    CHECK_EQ_U(s.hits, 8);
    CHECK_EQ_U(s.snoop_clean, 8);
    CHECK_EQ_U(s.snoop_hit, 0);
    CHECK_EQ_U(s.snoop_hitm, 0);
    CHECK_EQ_U(s.invalidations_sent, 0);
  }
  CHECK(mcx__mesi_state(m, 0, 0) == MCX__MESI_M);
  CHECK(mcx__mesi_state(m, 1, 0) == MCX__MESI_I);
  mcx__mesi_destroy(m);
}

TEST(false_sharing_ping_pongs_with_hitm)
{
  /* Two cores write different words of one line, alternating, N times each:
   * the first write misses CLEAN, every later one misses HITM and
   * invalidates the other copy: 1 CLEAN, 2N-1 HITM, 2N-1 invalidations. */
  const unsigned n = 10;
  mcx__mesi_t *m = model(2, 64, 4096, 4);
  for (unsigned i = 0; i < n; i++) {
    mcx__mesi_access(m, 0, 0x1000, 1);
    mcx__mesi_access(m, 1, 0x1004, 1);
  }
  mcx__mesi_stats_t t;
  mcx__mesi_total(m, &t);
  CHECK_EQ_U(t.misses, 2 * n);
  CHECK_EQ_U(t.hits, 0);
  CHECK_EQ_U(t.snoop_clean, 1);
  CHECK_EQ_U(t.snoop_hitm, 2 * n - 1);
  CHECK_EQ_U(t.snoop_hit, 0);
  CHECK_EQ_U(t.invalidations_sent, 2 * n - 1);
  CHECK_EQ_U(t.invalidated, 2 * n - 1);
  CHECK(mcx__mesi_state(m, 1, 0x1000) == MCX__MESI_M);
  CHECK(mcx__mesi_state(m, 0, 0x1000) == MCX__MESI_I);
  /* Padding the words onto different lines removes all of it. */
  mcx__mesi_flush(m);
  for (unsigned i = 0; i < n; i++) {
    mcx__mesi_access(m, 0, 0x1000, 1);
    mcx__mesi_access(m, 1, 0x1040, 1);
  }
  mcx__mesi_total(m, &t);
  CHECK_EQ_U(t.snoop_hitm, 0);
  CHECK_EQ_U(t.snoop_clean, 2);
  CHECK_EQ_U(t.hits, 2 * n - 2);
  mcx__mesi_destroy(m);
}

TEST(true_sharing_read_then_write)
{
  mcx__mesi_t *m = model(2, 64, 4096, 4);
  mcx__mesi_stats_t s0, s1;
  mcx__mesi_access(m, 0, 0x2000, 0); /* miss, CLEAN, E */
  CHECK(mcx__mesi_state(m, 0, 0x2000) == MCX__MESI_E);
  mcx__mesi_access(m, 1, 0x2000, 0); /* miss, HIT, both S */
  CHECK(mcx__mesi_state(m, 0, 0x2000) == MCX__MESI_S);
  CHECK(mcx__mesi_state(m, 1, 0x2000) == MCX__MESI_S);
  mcx__mesi_access(m, 0, 0x2000, 0); /* hit, no bus */
  mcx__mesi_access(m, 0, 0x2000, 1); /* hit on S: upgrade, HIT, invalidates core 1 */
  CHECK(mcx__mesi_state(m, 0, 0x2000) == MCX__MESI_M);
  CHECK(mcx__mesi_state(m, 1, 0x2000) == MCX__MESI_I);
  mcx__mesi_access(m, 1, 0x2000, 0); /* miss, HITM, core 0 M -> S */
  CHECK(mcx__mesi_state(m, 0, 0x2000) == MCX__MESI_S);
  CHECK(mcx__mesi_state(m, 1, 0x2000) == MCX__MESI_S);
  mcx__mesi_stats(m, 0, &s0);
  mcx__mesi_stats(m, 1, &s1);
  CHECK_EQ_U(s0.reads, 2);
  CHECK_EQ_U(s0.writes, 1);
  CHECK_EQ_U(s0.hits, 2);
  CHECK_EQ_U(s0.misses, 1);
  CHECK_EQ_U(s0.snoop_clean, 1);
  CHECK_EQ_U(s0.snoop_hit, 1); /* the upgrade's response */
  CHECK_EQ_U(s0.upgrades, 1);
  CHECK_EQ_U(s0.invalidations_sent, 1);
  CHECK_EQ_U(s1.misses, 2);
  CHECK_EQ_U(s1.snoop_hit, 1);
  CHECK_EQ_U(s1.snoop_hitm, 1);
  CHECK_EQ_U(s1.invalidated, 1);
  /* An E line is written silently: no upgrade, no snoop. */
  mcx__mesi_access(m, 0, 0x3000, 0);
  mcx__mesi_access(m, 0, 0x3000, 1);
  mcx__mesi_stats(m, 0, &s0);
  CHECK_EQ_U(s0.upgrades, 1);
  CHECK(mcx__mesi_state(m, 0, 0x3000) == MCX__MESI_M);
  mcx__mesi_destroy(m);
}

TEST(capacity_evicts_lru_and_writes_back)
{
  /* A fully associative 2-line cache: A, B, C evicts A (LRU). */
  mcx__mesi_t *m = model(2, 64, 128, 0);
  const uint64_t A = 0, B = 64, C = 128;
  mcx__mesi_access(m, 0, A, 1); /* A modified */
  mcx__mesi_access(m, 0, B, 0);
  mcx__mesi_access(m, 0, A, 0); /* A most recent: B is LRU now */
  mcx__mesi_access(m, 0, C, 0); /* evicts B (clean) */
  CHECK(mcx__mesi_state(m, 0, B) == MCX__MESI_I);
  CHECK(mcx__mesi_state(m, 0, A) == MCX__MESI_M);
  mcx__mesi_access(m, 0, B, 0); /* evicts A (modified): write-back */
  mcx__mesi_stats_t s;
  mcx__mesi_stats(m, 0, &s);
  CHECK_EQ_U(s.evictions, 2);
  CHECK_EQ_U(s.writebacks, 1);
  CHECK_EQ_U(s.misses, 4);
  CHECK_EQ_U(s.hits, 1);
  /* A left core 0, so core 1's read finds nobody: CLEAN, Exclusive. */
  mcx__mesi_access(m, 1, A, 0);
  mcx__mesi_stats(m, 1, &s);
  CHECK_EQ_U(s.snoop_clean, 1);
  CHECK(mcx__mesi_state(m, 1, A) == MCX__MESI_E);
  mcx__mesi_destroy(m);
}

TEST(set_conflicts_in_a_direct_mapped_cache)
{
  /* 4 sets x 1 way, 64-byte lines: addresses 256 bytes apart share a set. */
  mcx__mesi_t *m = model(1, 64, 256, 1);
  for (int i = 0; i < 4; i++) {
    mcx__mesi_access(m, 0, 0, 0);
    mcx__mesi_access(m, 0, 256, 0);
  }
  mcx__mesi_stats_t s;
  mcx__mesi_stats(m, 0, &s);
  CHECK_EQ_U(s.misses, 8);
  CHECK_EQ_U(s.evictions, 7);
  mcx__mesi_access(m, 0, 64, 0); /* another set: no eviction */
  mcx__mesi_stats(m, 0, &s);
  CHECK_EQ_U(s.evictions, 7);
  mcx__mesi_destroy(m);
}

TEST(three_cores_combined_response)
{
  /* Cores 0 and 1 share a line; core 2 writes it: one HIT response, two
   * invalidations. */
  mcx__mesi_t *m = model(3, 64, 1024, 2);
  mcx__mesi_access(m, 0, 0x40, 0);
  mcx__mesi_access(m, 1, 0x40, 0);
  mcx__mesi_access(m, 2, 0x40, 1);
  mcx__mesi_stats_t s;
  mcx__mesi_stats(m, 2, &s);
  CHECK_EQ_U(s.snoop_hit, 1);
  CHECK_EQ_U(s.snoop_hitm, 0);
  CHECK_EQ_U(s.invalidations_sent, 2);
  CHECK(mcx__mesi_state(m, 0, 0x40) == MCX__MESI_I);
  CHECK(mcx__mesi_state(m, 1, 0x40) == MCX__MESI_I);
  mcx__mesi_destroy(m);
}

int main(void)
{
  RUN(bad_geometry_is_rejected);
  RUN(private_data_only_clean_snoops);
  RUN(false_sharing_ping_pongs_with_hitm);
  RUN(true_sharing_read_then_write);
  RUN(capacity_evicts_lru_and_writes_back);
  RUN(set_conflicts_in_a_direct_mapped_cache);
  RUN(three_cores_combined_response);
  return mcx_test_report();
}
