/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Delivery receipts (mcx_receipt_open, mcx_msg_send_receipted): 64-bit
 * words in the partition, named by a caller's key, that a send sets in the
 * same step as it queues its message. A forwarder (mca bridge) keeps in one
 * the sequence number of the last item it delivered, so after it is killed
 * and started again it knows exactly which items are in the destination's
 * queues: none twice, none missing. The ring does the setting
 * (mcx__mpsc_enqueue), the dead-node sweep settles a send cut short
 * (recovery.c); here are the table's control operations.
 */
#include "runtime/domain.h"
#include "runtime/receipt.h"

#define RC_IDX_BITS 8u

void (*mcx__receipt_test_hook)(int step);

static uint32_t rc_handle(uint32_t idx, uint32_t gen) { return gen << RC_IDX_BITS | (idx + 1); }

mcx__receipt_t *mcx__receipt_get(mcx__domain_t *d, uint32_t handle)
{
  uint32_t idx = (handle & ((1u << RC_IDX_BITS) - 1)) - 1;
  if (idx >= MCX_RECEIPTS) /* also handle 0 (idx wraps) */
    return NULL;
  mcx__receipt_t *r = &d->hdr->receipts[idx];
  /* Relaxed: the generation and key were set under the admin lock by the
   * open that gave the handle, in this process or before it attached. */
  if (!mcx_load_relaxed(&r->key) || (mcx_load_relaxed(&r->gen) & 0xffffffu) != handle >> RC_IDX_BITS)
    return NULL;
  return r;
}

int mcx__receipt_open(uint64_t key, uint32_t *handle, uint64_t *value)
{
  mcx__domain_t *d = mcx__self.dom;
  if (!key)
    return MCX_EINVAL;
  if (mcx__admin_lock_bounded(d) != MCX_OK)
    return MCX_EIO;
  /* A dead previous user's send under way is settled first. */
  mcx__sweep_dead_locked(d);
  int r = MCX_ENOMEM;
  uint32_t idx = MCX_RECEIPTS;
  for (uint32_t i = 0; i < MCX_RECEIPTS; i++) {
    uint64_t k = mcx_load_relaxed(&d->hdr->receipts[i].key);
    if (k == key) {
      idx = i;
      break;
    }
    if (!k && idx == MCX_RECEIPTS)
      idx = i; /* the first free one, unless the key is further on */
  }
  if (idx < MCX_RECEIPTS) {
    mcx__receipt_t *rc = &d->hdr->receipts[idx];
    if (mcx_load_relaxed(&rc->key) != key) {
      mcx_store_relaxed(&rc->done, 0);
      mcx_store_relaxed(&rc->pend_rec, 0);
      mcx_store_relaxed(&rc->gen, (mcx_load_relaxed(&rc->gen) + 1) & 0xffffffu);
      mcx_store_relaxed(&rc->key, key); /* published to others by the admin unlock */
    }
    *handle = rc_handle(idx, mcx_load_relaxed(&rc->gen) & 0xffffffu);
    *value = mcx_load_relaxed(&rc->done);
    r = MCX_OK;
  }
  mcx__admin_unlock(d);
  return r;
}

int mcx__receipt_set(uint32_t handle, uint64_t value)
{
  mcx__receipt_t *r = mcx__receipt_get(mcx__self.dom, handle);
  if (!r)
    return MCX_ESTALE;
  /* Relaxed: the receipt's one sender; readers take the admin lock (open). */
  mcx_store_relaxed(&r->done, value);
  return MCX_OK;
}

int mcx__receipt_delete(uint64_t key)
{
  mcx__domain_t *d = mcx__self.dom;
  if (!key)
    return MCX_EINVAL;
  if (mcx__admin_lock_bounded(d) != MCX_OK)
    return MCX_EIO;
  int r = MCX_ENOENT;
  for (uint32_t i = 0; i < MCX_RECEIPTS; i++) {
    mcx__receipt_t *rc = &d->hdr->receipts[i];
    if (mcx_load_relaxed(&rc->key) == key) {
      mcx_store_relaxed(&rc->gen, (mcx_load_relaxed(&rc->gen) + 1) & 0xffffffu);
      mcx_store_relaxed(&rc->key, 0);
      r = MCX_OK;
    }
  }
  mcx__admin_unlock(d);
  return r;
}
