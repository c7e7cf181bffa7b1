/* SPDX-License-Identifier: BSD-3-Clause */
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

/** Hides @p x's value from the optimizer (no instruction): keeps two tests
 * of it from being merged into one that needs another register. */
#define MCX_OPAQUE(x) __asm__("" : "+r"(x))

/**
 * Call before a 32-bit CAS whose expected value was narrowed from a wider
 * variable. GCC before 14 on RV64 compares the expected value of a 32-bit
 * CAS (lr.w, which sign-extends) against the full register without
 * sign-extending it first: a value with bit 31 set that was narrowed from a
 * 64-bit variable never matches, and the CAS reports success without storing.
 * The empty asm makes the compiler keep the value in memory and load it again
 * with lw, which sign-extends. A compiler barrier only; no instruction.
 */
#if defined(__riscv) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 14
#define mcx_cas_operand_barrier(expected_ptr) __asm__("" : : "r"(expected_ptr) : "memory")
#else
#define mcx_cas_operand_barrier(expected_ptr) ((void)(expected_ptr))
#endif

/** Full fence: orders earlier stores before later loads (Dekker-style flag checks). */
#define mcx_fence_seq_cst() atomic_thread_fence(memory_order_seq_cst)
/* Orders for the compiler only: the light side of an asymmetric barrier. */
#define mcx_fence_compiler() atomic_signal_fence(memory_order_seq_cst)
#define mcx_fence_acquire() atomic_thread_fence(memory_order_acquire)
#define mcx_fence_release() atomic_thread_fence(memory_order_release)

/**
 * Adds @p n to a counter only the calling thread writes (readers load it
 * relaxed and need no ordering): a relaxed load and a relaxed store, which
 * x86-64 does as one `add` to memory, not locked. Its store is one aligned
 * 8-byte write, so a reader sees the old or the new count, as with the two
 * C11 accesses; the compiler forms that instruction only for plain objects,
 * hence the asm. ThreadSanitizer builds keep the C11 accesses so it sees
 * the write.
 */
#if defined(__SANITIZE_THREAD__)
#define MCX_TSAN_ 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define MCX_TSAN_ 1
#endif
#endif
#if defined(__x86_64__) && defined(__GNUC__) && !defined(MCX_TSAN_)
#define mcx_owner_add_u64(p, n)                                                          \
  __asm__ __volatile__("addq %1, %0" : "+m"(*(p)) : "er"((uint64_t)(n)))
#else
#define mcx_owner_add_u64(p, n)                                                          \
  mcx_store_relaxed((p), mcx_load_relaxed(p) + (uint64_t)(n))
#endif

/**
 * Whether a 32-bit word loaded relaxed is not zero, for a test whose value
 * is not used further: one `cmp` with memory on x86-64, where GCC does not
 * fold an atomic load into the compare (a relaxed load is a plain load
 * there). Volatile, so it is read every time, as an atomic load is.
 */
#if defined(__x86_64__) && defined(__GCC_ASM_FLAG_OUTPUTS__) && !defined(MCX_TSAN_)
static inline bool mcx_nonzero_relaxed_u32(const mcx_atomic_u32 *p)
{
  bool r;
  __asm__ __volatile__("cmpl $0, %1" : "=@ccne"(r) : "m"(*p));
  return r;
}
#else
#define mcx_nonzero_relaxed_u32(p) (mcx_load_relaxed(p) != 0)
#endif

/**
 * Whether a 64-bit word loaded with acquire equals @p v, for a test whose
 * loaded value is not used further: one `cmp` with memory on x86-64 (an
 * acquire load is a plain load there; the "memory" clobber keeps the
 * compiler from moving later accesses above it, as the acquire does).
 */
#if defined(__x86_64__) && defined(__GCC_ASM_FLAG_OUTPUTS__) && !defined(MCX_TSAN_)
static inline bool mcx_eq_acquire_u64(const mcx_atomic_u64 *p, uint64_t v)
{
  bool r;
  __asm__ __volatile__("cmpq %2, %1" : "=@cce"(r) : "m"(*p), "r"(v) : "memory");
  return r;
}
#else
#define mcx_eq_acquire_u64(p, v) (mcx_load_acquire(p) == (v))
#endif

/** Cache-line alignment for fields written by different threads. */
#define MCX_CACHELINE 64
#define MCX_ALIGNED_LINE _Alignas(MCX_CACHELINE)

#endif /* MCX_ATOMIC_H */
