/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The packet release finds a buffer's index from its address with a
 * multiplication instead of a division (mcx__recip_of / mcx__recip_index in
 * transport/buf_pool.h). Checked against the division for every buffer start
 * and the bytes around it, over strides of whole lines (the pool's colouring
 * gives odd numbers of lines) and odd ones, at the largest span each accepts;
 * a stride or span it cannot serve exactly must fall back to the division.
 */
#include <stdint.h>
#include <stdio.h>

#include "mcx_test.h"
#include "transport/buf_pool.h"

/* Mismatches with the division over every buffer start of a pool of
 * @p nbufs buffers and the bytes after and before it. */
static unsigned mismatches(uint32_t stride, uint32_t nbufs)
{
  uint64_t span = (uint64_t)nbufs * stride;
  mcx__recip_t m = mcx__recip_of(stride, span);
  unsigned bad = 0;
  for (uint32_t q = 0; q < nbufs; q++) {
    uint64_t off = (uint64_t)q * stride;
    bad += mcx__recip_index(off, m, stride) != q;
    if (stride > 1) {
      bad += mcx__recip_index(off + 1, m, stride) != UINT32_MAX;
      bad += mcx__recip_index(off + stride - 1, m, stride) != UINT32_MAX;
    }
  }
  return bad;
}

static void check_stride(uint32_t stride, uint32_t nbufs)
{
  unsigned bad = mismatches(stride, nbufs);
  if (bad)
    fprintf(stderr, "stride %u, %u buffers: %u wrong indices\n", stride, nbufs, bad);
  CHECK(bad == 0);
}

TEST(every_start_and_its_neighbours)
{
  int fast = 0;
  for (uint32_t lines = 1; lines <= 1100; lines++) {
    uint32_t stride = lines * 64;
    check_stride(stride, 4096);
    fast += mcx__recip_of(stride, (uint64_t)4096 * stride).m != 0;
  }
  for (uint32_t stride = 2; stride < 3000; stride += 7)
    check_stride(stride, 512);
  /* The multiplication serves every one of these pools (1 to 1100 lines
   * of 4096 buffers): a test that fell back would check nothing new. */
  CHECK(fast == 1100);
}

TEST(spans_it_cannot_serve_divide)
{
  CHECK(mcx__recip_of(0, 64).m == 0);
  CHECK(mcx__recip_of(1, 64).m == 0);
  CHECK(mcx__recip_of(1088, 0).m == 0);
  CHECK(mcx__recip_of(1088, UINT64_C(1) << 32).m == 0);
  /* The division it falls back to gives the same answers. */
  mcx__recip_t none = {0, 0};
  CHECK(mcx__recip_index((uint64_t)1088 * 1000, none, 1088) == 1000);
  CHECK(mcx__recip_index((uint64_t)1088 * 1000 + 64, none, 1088) == UINT32_MAX);
  /* The largest spans it serves: the last buffers of a 4 GiB-1 pool. */
  uint32_t stride = 65 * 64;
  uint64_t span = ((UINT64_C(1) << 32) - 1) / stride * stride;
  mcx__recip_t r = mcx__recip_of(stride, span);
  if (r.m) {
    unsigned bad = 0;
    for (uint64_t off = span - (uint64_t)stride * 4096; off < span; off += stride)
      bad += mcx__recip_index(off, r, stride) != off / stride ||
             mcx__recip_index(off + 1, r, stride) != UINT32_MAX;
    CHECK(bad == 0);
  }
}

int main(void)
{
  RUN(every_start_and_its_neighbours);
  RUN(spans_it_cannot_serve_divide);
  return mcx_test_report();
}
