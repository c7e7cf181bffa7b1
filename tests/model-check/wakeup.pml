/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The announce-then-recheck wake-up (src/sync/wait.h): a waiter that finds
 * nothing reads the wait point's seq (A-W1), announces itself (seq_cst
 * increment of sleepers, then F-W1, a seq_cst fence), re-checks its
 * condition and only then sleeps with FUTEX_WAIT(seq, key), which returns at
 * once when seq moved. A notifier publishes the condition, then reads
 * sleepers and, if there is one, bumps seq (R-W1) and calls FUTEX_WAKE.
 * Both ways of publishing are checked: a seq_cst read-modify-write followed
 * by a seq_cst load (mcx__wp_notify_after_rmw, the data path) and a plain
 * store followed by F-W2 (mcx__wp_notify, the control paths).
 *
 * -DASYM: the asymmetric form (Linux membarrier): the notifier's F-W2 is a
 * compiler barrier only, and the waiter, after F-W1, issues the heavy barrier
 * H-W1, which makes the notifier execute a full barrier at some point while
 * it runs: modelled as "the notifier's buffered stores have all reached
 * memory" (its loads already run in program order). Every publish here is a
 * plain release store (the data path's R1/R2 are release stores).
 *
 * Checked: no lost wake-up: the waiter always ends (a waiter asleep forever
 * is an invalid end state).
 * -DWEAK: the control-path notifier without F-W2; the model must then fail.
 * -DASYM -DNOHEAVY: the asymmetric form without H-W1; it must fail too.
 */
#define NT 2
#define K 4
#define NA 3
#include "sb.pml"

#define FLAG 0
#define SEQ 1
#define SLEEPERS 2

bool asleep; /* the waiter is queued in the kernel on SEQ */

proctype waiter() {
  byte f, key, old;
  do
  :: ld(0, FLAG, f);
     if
     :: f -> break
     :: else ->
       ld(0, SEQ, key);                 /* A-W1 */
       fadd_sc(0, SLEEPERS, 1, old);
       fence_sc(0);                     /* F-W1 */
#if defined(ASYM) && !defined(NOHEAVY)
       (bn[1] == 0);                    /* H-W1: membarrier */
#endif
       ld(0, FLAG, f);                  /* re-check */
       if
       :: f -> fadd_sc(0, SLEEPERS, 255, old); break /* cancel */
       :: else ->
         /* FUTEX_WAIT: the kernel compares and queues atomically */
         atomic { if :: mem[SEQ] == key -> asleep = true :: else -> skip fi };
         !asleep;
         fadd_sc(0, SLEEPERS, 255, old)
       fi
     fi
  od
}

proctype notifier() {
  byte s, old;
#ifdef ASYM
  st_release(1, FLAG, 1);               /* R1: a release store */
  ld(1, SLEEPERS, s);                   /* F-W2 light: program order only */
#else
  if
  :: xchg_sc(1, FLAG, 1, old);          /* the publish is a seq_cst RMW */
     ld(1, SLEEPERS, s)                 /* seq_cst load */
  :: st_release(1, FLAG, 1);            /* a plain publish */
#ifndef WEAK
     fence_sc(1);                       /* F-W2 */
#endif
     ld(1, SLEEPERS, s)
  fi;
#endif
  if
  :: s != 0 ->
     fadd_sc(1, SEQ, 1, old);           /* R-W1 */
     atomic { asleep = false }          /* FUTEX_WAKE */
  :: else -> skip
  fi
}

init {
  atomic { run drain(0); run drain(1); run waiter(); run notifier() }
}
