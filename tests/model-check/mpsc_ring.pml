/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The message ring (src/transport/mpsc_ring.h): two producers, one consumer,
 * per-slot sequence words. A producer claims position pos by a CAS on tail
 * (seq of slot pos must read pos), writes the payload, and publishes with
 * R1 (seq = pos + 1, a seq_cst exchange); the consumer waits for seq ==
 * head + 1 (A2), copies the payload, and frees the slot for the next lap
 * with R2 (seq = head + cap). Capacity 2, two messages per producer: slots
 * are reused and producers race for positions.
 *
 * Checked: every message arrives once, complete (the payload its producer
 * wrote for it), in each producer's order.
 * -DWEAK: R1 made a relaxed store; the model must then fail.
 */
#define NT 3
#define K 4
#define NA 5
#include "sb.pml"

#define CAP 2
#define PER 2
#define TAIL 0
#define SEQ(s) (1 + (s))
#define DATA(s) (3 + (s))

proctype producer(byte T) {
  byte k = 0, t, pos, s, seq, old, ok;
  do
  :: k < PER ->
    ld(T, TAIL, t); /* A0 */
    do
    :: pos = t; s = pos % CAP;
       ld(T, SEQ(s), seq); /* A1 */
       if
       :: seq == pos -> cas_sc(T, TAIL, t, pos + 1, ok); if :: ok -> break :: else -> skip fi
       :: seq < pos -> ld(T, TAIL, t) /* FULL: back off, retry */
       :: seq > pos -> ld(T, TAIL, t) /* another producer took pos */
       fi
    od;
    st_relaxed(T, DATA(s), T * 8 + k + 1); /* payload */
#ifdef WEAK
    st_relaxed(T, SEQ(s), pos + 1);
#else
    xchg_sc(T, SEQ(s), pos + 1, old); /* R1, pairs with A2 */
#endif
    k++
  :: else -> break
  od
}

byte next[2];

proctype consumer() {
  byte h = 0, s, seq, v, old, p;
  do
  :: h < 2 * PER ->
    s = h % CAP;
    do
    :: ld(2, SEQ(s), seq); if :: seq == h + 1 -> break :: else -> skip fi /* A2 */
    od;
    ld(2, DATA(s), v);
    assert(v >= 1 && v <= 8 + PER);
    p = v / 8;
    assert(v % 8 == next[p] + 1); /* complete, once, in the producer's order */
    next[p]++;
    xchg_sc(2, SEQ(s), h + CAP, old); /* R2, pairs with A1 */
    h++
  :: else -> break
  od;
  assert(next[0] == PER && next[1] == PER)
}

init {
  atomic {
    mem[SEQ(0)] = 0;
    mem[SEQ(1)] = 1;
    run drain(0); run drain(1); run drain(2);
    run producer(0); run producer(1); run consumer()
  }
}
