/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A store-buffer memory model for the protocols' Promela models.
 *
 * Every thread T has a buffer of pending stores (entries in program order).
 * A store goes into the buffer; a drainer process commits entries to memory
 * one at a time, in any order that C11 allows for the orders the code uses:
 *  - stores to the same address commit in program order (coherence);
 *  - a release (a fence_release, or the release half of a store_release)
 *    is a barrier entry: no store after it commits before every store before
 *    it has committed; stores after it may commit in any order;
 *  - relaxed stores with no barrier between them commit in any order.
 * A load reads the thread's own newest buffered store to that address, or
 * memory. Read-modify-writes and seq_cst fences drain the buffer first and
 * then act on memory at once (a seq_cst RMW is in the single total order).
 * Loads are performed in program order; where the code's correctness rests
 * on an acquire ordering loads (NBW's N3), the model says so and lets the
 * unordered variant perform them out of order explicitly.
 *
 * Use: #define NT (threads), K (entries per buffer), NA (addresses) before
 * including; start one drainer per thread: run drain(T). A model may define
 * SB_ON_COMMIT(T) (a ghost step run when a store of thread T reaches memory),
 * and SB_FOLD: a barrier with nothing before it is dropped at once (when
 * issued into an empty buffer, or when the entries before it have
 * committed), which removes steps that change nothing a thread can see.
 */
#define NONE 255
byte mem[NA];
byte ba[NT * K];   /* address, or NONE for a barrier */
byte bv[NT * K];   /* value */
byte bn[NT];       /* entries in use: ba[T*K .. T*K+bn[T]-1] */

/* Entry I of thread T may commit: no barrier and no store to its address before it. */
#define FREE_OF(T, I, J) (J >= I || (ba[T*K+J] != NONE && ba[T*K+J] != ba[T*K+I]))
#define ELIGIBLE(T, I) (I < bn[T] && (ba[T*K+I] != NONE || I == 0) && \
  FREE_OF(T, I, 0) && FREE_OF(T, I, 1) && FREE_OF(T, I, 2) && FREE_OF(T, I, 3))

inline sb_remove(T, I) {
  byte sb_j = I;
  do
  :: sb_j + 1 < bn[T] -> ba[T*K+sb_j] = ba[T*K+sb_j+1]; bv[T*K+sb_j] = bv[T*K+sb_j+1]; sb_j++
  :: else -> break
  od;
  bn[T]--;
  ba[T*K+bn[T]] = 0; bv[T*K+bn[T]] = 0
}

inline sb_commit(T, I) {
  if
  :: ba[T*K+I] != NONE -> mem[ba[T*K+I]] = bv[T*K+I]
#ifdef SB_ON_COMMIT
     ; SB_ON_COMMIT(T)
#endif
  :: else -> skip
  fi;
  sb_remove(T, I)
#ifdef SB_FOLD
  ; do
  :: bn[T] > 0 && ba[T*K+0] == NONE -> sb_remove(T, 0)
  :: else -> break
  od
#endif
}

proctype drain(byte T) {
end:
  do
  :: atomic { ELIGIBLE(T, 0) -> sb_commit(T, 0) }
  :: atomic { ELIGIBLE(T, 1) -> sb_commit(T, 1) }
  :: atomic { ELIGIBLE(T, 2) -> sb_commit(T, 2) }
  :: atomic { ELIGIBLE(T, 3) -> sb_commit(T, 3) }
  od
}

/* A relaxed (or plain) store. */
inline st_relaxed(T, A, V) {
  atomic { bn[T] < K -> ba[T*K+bn[T]] = A; bv[T*K+bn[T]] = V; bn[T]++ }
}
/* fence_release: a barrier entry. */
inline fence_rel(T) {
#ifdef SB_FOLD
  atomic { bn[T] < K -> if :: bn[T] > 0 -> ba[T*K+bn[T]] = NONE; bn[T]++ :: else -> skip fi }
#else
  atomic { bn[T] < K -> ba[T*K+bn[T]] = NONE; bn[T]++ }
#endif
}
/* store_release = barrier, then the store (later stores may pass it, earlier ones may not). */
inline st_release(T, A, V) {
  fence_rel(T);
  st_relaxed(T, A, V)
}
/* A load: own newest buffered store to A, else memory. Acquire and relaxed
 * loads are the same here (loads run in program order). */
inline ld(T, A, R) {
  d_step {
    R = mem[A];
    if :: bn[T] > 0 && ba[T*K+0] == A -> R = bv[T*K+0] :: else -> skip fi;
    if :: bn[T] > 1 && ba[T*K+1] == A -> R = bv[T*K+1] :: else -> skip fi;
    if :: bn[T] > 2 && ba[T*K+2] == A -> R = bv[T*K+2] :: else -> skip fi;
    if :: bn[T] > 3 && ba[T*K+3] == A -> R = bv[T*K+3] :: else -> skip fi
  }
}
/* fence_seq_cst: wait until the buffer is drained. */
inline fence_sc(T) { bn[T] == 0 }
/* seq_cst / acq_rel read-modify-writes: drained buffer, then one atomic step on memory. */
inline xchg_sc(T, A, V, OLD) { atomic { bn[T] == 0 -> OLD = mem[A]; mem[A] = V } }
inline fadd_sc(T, A, V, OLD) { atomic { bn[T] == 0 -> OLD = mem[A]; mem[A] = mem[A] + V } }
inline cas_sc(T, A, EXP, V, OK) {
  atomic { bn[T] == 0 -> if :: mem[A] == EXP -> mem[A] = V; OK = 1 :: else -> EXP = mem[A]; OK = 0 fi }
}
