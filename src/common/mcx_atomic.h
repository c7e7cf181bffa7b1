/**
 * @file mcx_atomic.h
 * @brief The only door to atomics in libmca: every name carries its order.
 *
 * Call sites label each acquire/release and name the partner operation
 * ("R1 ... pairs with A1"); docs/memory-model.md lists the pairs. Relaxed
 * accesses say in a comment why no ordering is needed.
 */
#ifndef MCX_ATOMIC_H
#define MCX_ATOMIC_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

typedef _Atomic uint32_t mcx_atomic_u32;
typedef _Atomic uint64_t mcx_atomic_u64;

#define mcx_load_relaxed(p) atomic_load_explicit((p), memory_order_relaxed)
#define mcx_load_acquire(p) atomic_load_explicit((p), memory_order_acquire)
#define mcx_load_seq_cst(p) atomic_load_explicit((p), memory_order_seq_cst)
#define mcx_store_relaxed(p, v) atomic_store_explicit((p), (v), memory_order_relaxed)
#define mcx_store_release(p, v) atomic_store_explicit((p), (v), memory_order_release)
#define mcx_store_seq_cst(p, v) atomic_store_explicit((p), (v), memory_order_seq_cst)

#define mcx_fetch_add_relaxed(p, v) atomic_fetch_add_explicit((p), (v), memory_order_relaxed)
#define mcx_fetch_add_acq_rel(p, v) atomic_fetch_add_explicit((p), (v), memory_order_acq_rel)
#define mcx_fetch_add_release(p, v) atomic_fetch_add_explicit((p), (v), memory_order_release)
#define mcx_fetch_add_seq_cst(p, v) atomic_fetch_add_explicit((p), (v), memory_order_seq_cst)
#define mcx_fetch_sub_relaxed(p, v) atomic_fetch_sub_explicit((p), (v), memory_order_relaxed)
#define mcx_fetch_sub_release(p, v) atomic_fetch_sub_explicit((p), (v), memory_order_release)
#define mcx_fetch_sub_acq_rel(p, v) atomic_fetch_sub_explicit((p), (v), memory_order_acq_rel)
#define mcx_fetch_or_relaxed(p, v) atomic_fetch_or_explicit((p), (v), memory_order_relaxed)
#define mcx_fetch_or_acq_rel(p, v) atomic_fetch_or_explicit((p), (v), memory_order_acq_rel)
#define mcx_fetch_or_seq_cst(p, v) atomic_fetch_or_explicit((p), (v), memory_order_seq_cst)
#define mcx_fetch_and_relaxed(p, v) atomic_fetch_and_explicit((p), (v), memory_order_relaxed)
#define mcx_fetch_and_acq_rel(p, v) atomic_fetch_and_explicit((p), (v), memory_order_acq_rel)
#define mcx_fetch_and_release(p, v) atomic_fetch_and_explicit((p), (v), memory_order_release)
#define mcx_fetch_xor_acq_rel(p, v) atomic_fetch_xor_explicit((p), (v), memory_order_acq_rel)
#define mcx_exchange_acq_rel(p, v) atomic_exchange_explicit((p), (v), memory_order_acq_rel)
#define mcx_exchange_acquire(p, v) atomic_exchange_explicit((p), (v), memory_order_acquire)
#define mcx_exchange_release(p, v) atomic_exchange_explicit((p), (v), memory_order_release)
#define mcx_exchange_seq_cst(p, v) atomic_exchange_explicit((p), (v), memory_order_seq_cst)

/** CAS; on failure *expected is updated with what was seen (relaxed). */
#define mcx_cas_relaxed(p, expected, desired)                                              \
  atomic_compare_exchange_strong_explicit((p), (expected), (desired), memory_order_relaxed, \
                                          memory_order_relaxed)
#define mcx_cas_acquire(p, expected, desired)                                              \
  atomic_compare_exchange_strong_explicit((p), (expected), (desired), memory_order_acquire, \
                                          memory_order_acquire)
#define mcx_cas_release(p, expected, desired)                                              \
  atomic_compare_exchange_strong_explicit((p), (expected), (desired), memory_order_release, \
                                          memory_order_relaxed)
#define mcx_cas_acq_rel(p, expected, desired)                                              \
  atomic_compare_exchange_strong_explicit((p), (expected), (desired), memory_order_acq_rel, \
                                          memory_order_acquire)
#define mcx_cas_seq_cst(p, expected, desired)                                              \
  atomic_compare_exchange_strong_explicit((p), (expected), (desired), memory_order_seq_cst, \
                                          memory_order_seq_cst)

/** Full fence: orders earlier stores before later loads (Dekker-style flag checks). */
#define mcx_fence_seq_cst() atomic_thread_fence(memory_order_seq_cst)
#define mcx_fence_acquire() atomic_thread_fence(memory_order_acquire)
#define mcx_fence_release() atomic_thread_fence(memory_order_release)

/** Cache-line alignment for fields written by different threads. */
#define MCX_CACHELINE 64
#define MCX_ALIGNED_LINE _Alignas(MCX_CACHELINE)

#endif /* MCX_ATOMIC_H */
