/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The state buffer (src/transport/nbw.h, Kopetz's non-blocking write): one
 * writer, one reader, two buffers of two words. Write w stores ccf = 2w-1,
 * a release fence (N1), the buffer w % 2, then ccf = 2w by a seq_cst
 * exchange (N2). The reader loads ccf (N4, acquire), copies buffer w % 2 of
 * the newest complete write w, an acquire fence (N3), re-reads ccf and keeps
 * the copy unless write w + 2 has started (ccf >= 2(w+2) - 1).
 * Three writes, so the writer laps a reader, and two reads.
 *
 * Checked: a kept copy is whole and is write w's (both words equal w).
 * -DWEAK: N1 removed (the buffer may change before the odd ccf is visible).
 * -DWEAK_READER: N3 removed; without it the re-read of ccf may be performed
 *  before the copy's loads, which the model then allows. Both must fail.
 */
#define NT 2
#define K 4
#define NA 5
#include "sb.pml"

#define CCF 0
#define BUF(b, j) (1 + (b) * 2 + (j))
#define NBUF 2
#define WRITES 3

proctype writer() {
  byte c, w, old;
  do
  :: c / 2 < WRITES ->
    ld(0, CCF, c); /* only the writer writes ccf */
    w = c / 2 + 1;
    st_relaxed(0, CCF, 2 * w - 1);
#ifndef WEAK
    fence_rel(0); /* N1, pairs with N3 */
#endif
    st_relaxed(0, BUF(w % NBUF, 0), w);
    st_relaxed(0, BUF(w % NBUF, 1), w);
    xchg_sc(0, CCF, 2 * w, old); /* N2, pairs with N4 */
    c = 2 * w
  :: else -> break
  od
}

proctype reader() {
  byte n = 0, c1, c2, w, x0, x1;
  do
  :: n < 2 ->
    ld(1, CCF, c1); /* N4 */
    w = c1 / 2;
    if
    :: w == 0 -> skip /* nothing written yet */
    :: else ->
#ifdef WEAK_READER
      /* no N3: the re-read of ccf may be performed before either copy load */
      if
      :: ld(1, CCF, c2); ld(1, BUF(w % NBUF, 0), x0); ld(1, BUF(w % NBUF, 1), x1)
      :: ld(1, BUF(w % NBUF, 0), x0); ld(1, CCF, c2); ld(1, BUF(w % NBUF, 1), x1)
      :: ld(1, BUF(w % NBUF, 0), x0); ld(1, BUF(w % NBUF, 1), x1); ld(1, CCF, c2)
      fi;
#else
      ld(1, BUF(w % NBUF, 0), x0);
      ld(1, BUF(w % NBUF, 1), x1);
      /* N3: acquire fence; the copy's loads are performed before the re-read */
      ld(1, CCF, c2);
#endif
      if
      :: c2 >= 2 * (w + NBUF) - 1 -> skip /* lapped: the copy is discarded */
      :: else -> assert(x0 == w && x1 == w)
      fi
    fi;
    n++
  :: else -> break
  od
}

init {
  atomic { run drain(0); run drain(1); run writer(); run reader() }
}
