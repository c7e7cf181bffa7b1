// SPDX-License-Identifier: BSD-3-Clause
// Boost.Lockfree spsc_queue loops for the instruction-count driver.
#include <boost/lockfree/spsc_queue.hpp>
#include <cstdint>
#include <cstring>

namespace {
struct item24 {
  unsigned char b[24];
};
boost::lockfree::spsc_queue<item24, boost::lockfree::capacity<64>> *q24;
boost::lockfree::spsc_queue<std::uint64_t, boost::lockfree::capacity<64>> *q64;
} // namespace

extern "C" void mca_instr_boost_setup(void)
{
  q24 = new boost::lockfree::spsc_queue<item24, boost::lockfree::capacity<64>>;
  q64 = new boost::lockfree::spsc_queue<std::uint64_t, boost::lockfree::capacity<64>>;
}

extern "C" void mca_instr_boost_msg24(long n, const void *src, void *dst)
{
  item24 in, out;
  std::memcpy(&in, src, sizeof in);
  for (long i = 0; i < n; i++) {
    q24->push(in);
    q24->pop(out);
  }
  std::memcpy(dst, &out, sizeof out);
}

extern "C" std::uint64_t mca_instr_boost_scl64(long n)
{
  std::uint64_t sum = 0, v = 0;
  for (long i = 0; i < n; i++) {
    q64->push(static_cast<std::uint64_t>(i));
    q64->pop(v);
    sum += v;
  }
  return sum;
}
