/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file chan_outcome.h
 * @brief Outcomes of the single-producer single-consumer channel rings
 * (spsc_ring.h, and the NBB layout of examples/ring_layouts/nbb_ring.h):
 * the four of the non-blocking buffer (NBB) of Kim et al., plus success and
 * a width mismatch seen without consuming.
 *
 * Callers retry the *_BUT_* outcomes at once a bounded number of times (the
 * other side is inside a short copy) and back off on FULL / EMPTY.
 */
#ifndef MCX_TRANSPORT_CHAN_OUTCOME_H
#define MCX_TRANSPORT_CHAN_OUTCOME_H

typedef enum mcx__q_outcome {
  MCX_Q_OK = 0,
  MCX_Q_FULL,                         /**< no free slot; the consumer is not reading */
  MCX_Q_FULL_BUT_CONSUMER_READING,    /**< no free slot; the consumer is freeing one now */
  MCX_Q_EMPTY,                        /**< nothing published; no producer inside */
  MCX_Q_EMPTY_BUT_PRODUCER_INSERTING, /**< nothing published; the producer is writing one now */
  MCX_Q_MISMATCH,                     /**< the head item's meta differs from the expected one; not consumed */
  MCX_Q_LIMIT,                        /**< (scalars) the producer is at the limit it last read: mcx__spsc_put1_refill */
  MCX_Q_LINE,                         /**< (scalars) free slots only in the line the consumer is reading: mcx__spsc_put1_refill */
} mcx__q_outcome_t;

#endif
