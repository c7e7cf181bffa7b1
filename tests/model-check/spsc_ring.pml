/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The channel ring (src/transport/spsc_ring.h): one producer, one consumer,
 * a slot-state word pos << 2 | state per slot, the item (meta and value,
 * folded into one word here) beside it. Capacity 2, four items: every slot
 * is reused, so last lap's reads and this lap's writes meet.
 *
 * Checked: the consumer takes the items in order, each with the value the
 * producer wrote for it (a stale or next-lap value fails the assertion).
 * -DWEAK: R1 (the ALLOCATED store-release in mcx__spsc_commit) made relaxed;
 * the model must then fail.
 */
#define NT 2
#define K 4
#define NA 4
#include "sb.pml"

#define CAP 2
#define N 4
#define W(s) (s)
#define V(s) (2 + (s))
#define FREE 0
#define RESERVED 1
#define ALLOCATED 2
#define RECEIVED 3

proctype producer() {
  byte pos = 0, s, w;
  do
  :: pos < N ->
    s = pos % CAP;
    /* A1: load-acquire of the slot word; retry while FULL */
    do
    :: ld(0, W(s), w); if :: w == pos * 4 + FREE -> break :: else -> skip fi
    od;
    st_relaxed(0, W(s), pos * 4 + RESERVED); /* hint */
    st_relaxed(0, V(s), pos + 1);            /* meta and value */
#ifdef WEAK
    st_relaxed(0, W(s), pos * 4 + ALLOCATED);
#else
    st_release(0, W(s), pos * 4 + ALLOCATED); /* R1, pairs with A2 */
#endif
    pos++
  :: else -> break
  od
}

proctype consumer() {
  byte pos = 0, s, w, v;
  do
  :: pos < N ->
    s = pos % CAP;
    /* A2: load-acquire of the slot word; retry while EMPTY */
    do
    :: ld(1, W(s), w); if :: w == pos * 4 + ALLOCATED -> break :: else -> skip fi
    od;
    st_relaxed(1, W(s), pos * 4 + RECEIVED); /* hint */
    ld(1, V(s), v);
    assert(v == pos + 1);
    st_release(1, W(s), (pos + CAP) * 4 + FREE); /* R2, pairs with A1 */
    pos++
  :: else -> break
  od
}

init {
  atomic {
    mem[W(0)] = 0 * 4 + FREE;
    mem[W(1)] = 1 * 4 + FREE;
    run drain(0); run drain(1);
    run producer(); run consumer()
  }
}
