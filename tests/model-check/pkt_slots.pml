/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The packet ring's slots and skip marks (src/transport/pkt_ring.h,
 * pkt_ring.c; the receive and release paths in src/runtime/chan_pkt.c): one
 * producer, one consumer, every packet small enough to travel in its slot
 * (value KEEP, meta its size). Capacity 2, four packets (-DCAP=3, -DN=
 * for more): slots are reused for two laps, the look-ahead passes a held
 * slot, and a slot released after it was passed over is taken again once
 * its mark is passed.
 *
 * Producer (a send: mcx__pkt_send_slow): mcx__pkt_reserve (A1 on the tail's
 * slot: FREE for the tail takes it), else mcx__pkt_reserve_slow: look ahead
 * within a lap, writing nothing, over held slots (RECEIVED of an earlier
 * lap) and slots released after they were passed over (FREE of an earlier
 * lap, marked); a mark still to be passed (A-S2 on head) or any other word
 * is FULL; at the first slot it may take, the held slots before it get
 * their skip marks (R-S1) and the tail moves. Then the RESERVED hint, the
 * bytes, meta (the size) and R1. A FULL send changes nothing; the sender
 * then retries or gives up for good (it closes).
 * Consumer: mcx__pkt_take (A2, else mcx__pkt_pass_marks: A2 again, A-S1 on
 * meta, R-S2 per mark passed), meta, R-T, R-S2; take_packet hands out the
 * slot's bytes (read here). Every received slot is held; any held slot may
 * be released at any time, in any order (kept_slot_of reads the word,
 * mcx__pkt_free_kept stores R2-K a lap later), after the holder's last read
 * of its bytes.
 *
 * Checked:
 *  (1) every packet is received once, in send order, with the size and the
 *      bytes its send wrote (a stale or next-lap value fails); once the
 *      sender has stopped and its stores are visible, a receive that finds
 *      nothing has had every packet sent;
 *  (2) a held slot's bytes and word are never written while held (ghost
 *      check at the producer's write) and read the same at the release;
 *  (3) a send fails only while the receiver holds a slot or has a packet to
 *      take (a send into a ring the receiver has fully drained and released
 *      succeeds), and a sender that gives up on a FULL ring leaves a ring
 *      the receiver drains to a valid end state.
 *
 * Weakened variants, each must fail:
 * -DWEAK: R1 made relaxed (the consumer reads stale bytes or size).
 * -DWEAK_RK: R2-K made relaxed; the holder's last read of the bytes may then
 *  be performed after its release store, which the model allows explicitly.
 * -DWEAK_MARK: no A-S2 check: the producer overwrites a mark the consumer
 *  has not passed (the consumer stops at it: packets are stranded).
 * -DWEAK_EAGER: the look-ahead writes each mark as it passes a held slot and
 *  keeps them when the send fails (the consumer passes marks of positions
 *  the producer will fill later).
 *
 * Abstracted: positions do not wrap (after30 is >, 30-bit wrap is not
 * modelled); no pool packets (value is KEEP throughout, so the value word
 * and R2 are left out); mcx__pkt_take_kept (the fast receive: the same
 * loads and stores as mcx__pkt_take on an ALLOCATED slot) and
 * mcx__pkt_send_fast (no RESERVED hint) are covered by the paths modelled;
 * the global lock, wake-ups, close and reconnect are not modelled.
 */
#define NT 2
#define K 4
#ifndef CAP
#define CAP 2
#endif
#ifndef N
#define N 4
#endif
#define NA (1 + 3 * CAP)
#define SB_FOLD
#define PT 0 /* producer thread */
#define CT 1 /* consumer thread */
/* A failed attempt that wrote nothing is retried only once a store of the
 * other side has reached memory since it started (before that a retry
 * reads the same values): ghost flags, set at each commit. */
bool pchg, cchg;
#define SB_ON_COMMIT(T) if :: T == PT -> pchg = 1 :: else -> cchg = 1 fi
#include "sb.pml"

#define HEAD 0
#define W(s) (1 + (s))           /* slot word: pos << 2 | state */
#define M(s) (1 + CAP + (s))     /* meta: size, or SKIP + pos */
#define D(s) (1 + 2 * CAP + (s)) /* the slot's bytes (one word here) */
#define FREE 0
#define RESERVED 1
#define ALLOCATED 2
#define RECEIVED 3
#define SKIP 128

byte sent;      /* packets published (R1 issued); packet k has size and bytes k + 1 */
byte got;       /* packets received */
byte held;      /* ghost: slots the consumer holds (bit per slot) */
bool releasing; /* ghost: a release is under way */
bool pdone;     /* the producer has stopped */
/* Nothing for the consumer to do: a send must then succeed. */
#define QUIET (held == 0 && !releasing && bn[CT] == 0 && got == sent)

/*
 * Steps: each load of a location the other side writes is a step of its
 * own; the local work after it, loads of the thread's own locations (the
 * producer's meta, the consumer's head and held words) and the issue of
 * its stores into the thread's buffer join that step (the other side sees
 * a store only when the drainer commits it).
 */
proctype producer() {
  byte tail = 0, pos, s, w, m, head, j, k;
  bool ok, go, hr, marked, older, kept, freed, quiet0;
  do
  :: atomic {
      sent < N ->
      quiet0 = QUIET; /* stays so until this send changes something */
      cchg = 0;
      ok = 0; go = 1; j = 0; hr = 0
    }
    /* mcx__pkt_reserve (A1 on the tail's slot: FREE for the tail) and
     * mcx__pkt_reserve_slow, which loads that word again and looks ahead
     * within a lap, writing nothing: the loop's first load stands for both
     * (a fast path that does not find FREE has no effect). */
    do
    :: go && j < CAP ->
      atomic {
        pos = tail + j; s = pos % CAP;
        ld(PT, W(s), w); /* A1 */
        if
        :: w == pos * 4 + FREE -> ok = 1; go = 0
        :: else ->
          ld(PT, M(s), m); /* our own last size or mark */
          marked = m >= SKIP;
          older = pos > w / 4 && (pos - w / 4) % CAP == 0;
          kept = w % 4 == RECEIVED && older;
          freed = w % 4 == FREE && marked && older;
          if
          :: !kept && !freed -> go = 0 /* FULL */
          :: else -> skip
          fi
        fi
      }
#ifndef WEAK_MARK
      /* A-S2: a mark is overwritten only once the consumer has passed it */
      if
      :: go && marked && !hr -> atomic { ld(PT, HEAD, head); hr = 1 }
      :: else -> skip
      fi;
      if
      :: go && marked && head <= m - SKIP -> go = 0 /* FULL */
      :: else -> skip
      fi;
#endif
      if
      :: go && kept ->
#ifdef WEAK_EAGER
        st_release(PT, M(s), SKIP + pos);
#endif
        j++ /* held: passed over if a slot further on is free */
      :: go && !kept -> ok = 1; go = 0 /* freed: released after it was passed over */
      :: else -> skip
      fi
    :: go && j == CAP -> go = 0 /* every slot held: FULL */
    :: !go -> break
    od;
    if
    :: ok ->
      atomic {
#ifndef WEAK_EAGER
        k = 0;
        do
        :: k < j -> st_release(PT, M((tail + k) % CAP), SKIP + tail + k); k++ /* R-S1 */
        :: else -> break
        od;
#endif
        tail = tail + j;
        s = tail % CAP;
        assert(!(held & (1 << s))); /* (2): a held slot is not written */
        /* The RESERVED hint is left out (as in mcx__pkt_send_fast): neither
         * side's decisions tell it from the word before it. */
        st_relaxed(PT, D(s), sent + 1); /* the bytes */
        st_relaxed(PT, M(s), sent + 1); /* meta: the size (value: KEEP) */
#ifdef WEAK
        st_relaxed(PT, W(s), tail * 4 + ALLOCATED);
#else
        st_release(PT, W(s), tail * 4 + ALLOCATED); /* R1 */
#endif
        sent++; tail++;
        pos = 0; s = 0; w = 0; m = 0; head = 0; j = 0; k = 0;
        ok = 0; hr = 0; marked = 0; older = 0; kept = 0; freed = 0; quiet0 = 0
      }
    :: else ->
      assert(!quiet0); /* (3): FULL only while the consumer holds or has work */
      d_step {
        pos = 0; s = 0; w = 0; m = 0; head = 0; j = 0;
        hr = 0; marked = 0; older = 0; kept = 0; freed = 0; quiet0 = 0
      }
      if
      :: break  /* the send fails; the sender gives up */
      :: cchg   /* or tries again once the consumer has changed something */
      fi
    fi
  :: else -> break
  od;
  pdone = 1
}

/* Consumer: releases held slot S (mcx__pkt_release: kept_slot_of, R2-K). */
inline release(S) {
#ifdef WEAK_RK
  /* R2-K relaxed: the last read of the bytes may be performed after it */
  if
  :: atomic {
       releasing = 1;
       ld(CT, W(S), w); /* kept_slot_of: the holder's own word */
       ld(CT, D(S), d); assert(d == hv[S]); held = held - (1 << S);
       st_relaxed(CT, W(S), (w / 4 + CAP) * 4 + FREE)
     }
  :: atomic {
       releasing = 1;
       ld(CT, W(S), w);
       st_relaxed(CT, W(S), (w / 4 + CAP) * 4 + FREE)
     }
     atomic { ld(CT, D(S), d); assert(d == hv[S]); held = held - (1 << S) }
  fi;
#else
  atomic {
    releasing = 1;
    ld(CT, W(S), w); /* kept_slot_of: the holder's own word */
    assert(w % 4 == RECEIVED);
    ld(CT, D(S), d);    /* the holder's last read of the bytes */
    assert(d == hv[S]); /* (2) */
    held = held - (1 << S);
    st_release(CT, W(S), (w / 4 + CAP) * 4 + FREE) /* R2-K */
  }
#endif
  d_step { hv[S] = 0; s = 0; w = 0; d = 0; releasing = 0 }
}

proctype consumer() {
  byte head = 0, pos, s, w, m, d, n;
  byte hv[CAP]; /* the bytes of each held slot, as received */
  bool ok, go, fin, cwait;
  do
  :: atomic {
      !cwait || pchg || (pdone && bn[PT] == 0) ->
      /* a receive: mcx__pkt_take */
      fin = pdone && bn[PT] == 0; /* the sender has stopped, its stores visible */
      pchg = 0; cwait = 0;
      pos = head; ok = 0; go = 1; n = 0
    }
    /* mcx__pkt_take (A2 on the head's slot: ALLOCATED for the head) and
     * mcx__pkt_pass_marks, which loads that word again: the loop's first
     * load stands for both (a take that does not find ALLOCATED there has
     * no effect before it). */
    do
    :: go && n <= CAP ->
      atomic {
        s = pos % CAP;
        ld(CT, W(s), w); /* A2 */
        if
        :: w == pos * 4 + ALLOCATED -> ok = 1; go = 0
        :: else -> skip
        fi
      }
      if
      :: go ->
        atomic {
          ld(CT, M(s), m); /* A-S1 */
          if
          :: m != SKIP + pos -> go = 0 /* EMPTY */
          :: else -> pos++; st_release(CT, HEAD, pos); head = pos; n++ /* R-S2 */
          fi
        }
      :: else -> skip
      fi
    :: go && n > CAP -> go = 0
    :: !go -> break
    od;
    if
    :: ok ->
      atomic {
        s = pos % CAP;
        ld(CT, M(s), m); /* relaxed (the value, KEEP, beside it) */
        st_release(CT, W(s), pos * 4 + RECEIVED); /* R-T */
        st_release(CT, HEAD, pos + 1);            /* R-S2 */
        head = pos + 1;
        /* take_packet: the slot's bytes handed out (read here, and again
         * at the release) */
        ld(CT, D(s), d);
        assert(m == got + 1 && d == got + 1); /* (1): once, in order, its own */
        got++; held = held | (1 << s); hv[s] = d;
        pos = 0; s = 0; w = 0; m = 0; d = 0; n = 0; ok = 0; fin = 0
      }
    :: else ->
      assert(!fin || got == sent); /* (1): nothing stranded */
      if
      :: fin -> break
      :: else -> d_step { pos = 0; s = 0; w = 0; m = 0; n = 0; fin = 0; cwait = 1 }
      fi
    fi
  :: held & 1 -> release(0)
  :: held & 2 -> release(1)
#if CAP > 2
  :: held & 4 -> release(2)
#endif
  od;
  /* the receiver lets go of what it still holds */
  do
  :: held & 1 -> release(0)
  :: held & 2 -> release(1)
#if CAP > 2
  :: held & 4 -> release(2)
#endif
  :: held == 0 -> break
  od
}

init {
  byte i = 0;
  atomic {
    do
    :: i < CAP -> mem[W(i)] = i * 4 + FREE; i++
    :: else -> break
    od;
    run drain(PT); run drain(CT);
    run producer(); run consumer()
  }
}
