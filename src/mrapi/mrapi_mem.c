/* SPDX-License-Identifier: BSD-3-Clause */
/* MRAPI runtime: shared memory and remote memory in use. Attaching and
 * detaching shared-memory segments (this process's mappings, one per
 * segment, shared by its nodes); attaching, detaching, checking and doing
 * remote-memory transfers. Creating and deleting either is in mrapi_obj.c;
 * the layout is in mrapi_part.h.
 *
 * Memory-order pairs:
 *   D-A1 acquire (the transfer's re-check of gen once it holds the transfer
 *        lock; mcx__mr_resolve in mrapi_part.h before that) pairs with D-R2
 *        (delete in mrapi_obj.c; reaping and finalize in mrapi_domain.c): a
 *        transfer never starts on memory deleted while it waited.
 *   The attached bits (shared memory) and held[] (remote memory: node i
 *   attached) are changed under the table lock, whose acquire/release
 *   (M-A1/M-R1 in mrapi_prim.c) orders them; node i reads its own held[i]
 *   relaxed without the lock. This process's mappings (seg_*) are changed
 *   under the process lock (mcx__mr_proc_enter).
 */
#include "mrapi/mrapi_domain.h"

#include <string.h>

#include "mrapi/mrapi_part.h"
#include "ports/mcx_port.h"
#include "ports/mcx_port_mrapi.h"
#include "ports/mcx_port_shm.h"
#include "sync/mrapi_prim.h"

/* ------------------------------------------------------------ shared memory */

int mcx__mr_shmem_attach(uint32_t hndl, void **addr)
{
  mcx__mr_slot_t *s;
  uint32_t k;
  int r = mcx__mr_resolve(MCX__MR_SHMEM, hndl, &s, &k);
  if (r != MCX_OK)
    return r;
  mcx__mr_proc_enter();
  mcx__mr_dom_t *d = mcx__mr_me.d;
  mcx__mr_part_t *p = d->p;
  uint32_t ni = mcx__mr_me.nidx;
  mcx__mr_table_lock(p);
  if (!s->used || (mcx_load_relaxed(&s->gen) & 0xffffu) != (hndl & 0xffffu)) {
    r = mcx__mr_closed(s);
  } else if (s->attached[ni / 64] & (1ull << (ni % 64))) {
    r = MCX_EMR_ATTACHED;
  } else {
    uint32_t g = mcx_load_relaxed(&s->gen);
    if (d->seg_addr[k] && d->seg_gen[k] != g) {
      /* A mapping of an earlier segment in this slot, left by a node that
       * never detached: drop it. */
      mcx_port_shm_unmap(d->seg_addr[k], d->seg_size[k]);
      d->seg_addr[k] = NULL;
      d->seg_refs[k] = 0;
    }
    if (!d->seg_addr[k]) {
      char name[MCX_PORT_SHM_NAME_MAX];
      mcx_port_shm_t shm;
      mcx__mr_segment_name(p->domain, s->shm_seq, name, sizeof name);
      r = mcx_port_shm_open(name, s->limit, &shm);
      if (r == MCX_OK) {
        d->seg_addr[k] = mcx_port_shm_map(&shm, s->limit);
        mcx_port_shm_close(&shm);
        if (!d->seg_addr[k])
          r = MCX_EIO;
      } else {
        r = MCX_EIO;
      }
      d->seg_size[k] = s->limit;
      d->seg_gen[k] = g;
      d->seg_refs[k] = 0;
    }
    if (r == MCX_OK) {
      d->seg_refs[k]++;
      s->attached[ni / 64] |= 1ull << (ni % 64);
      *addr = d->seg_addr[k];
    }
  }
  mcx__mr_table_unlock(p);
  mcx__mr_proc_leave();
  return r;
}

int mcx__mr_shmem_detach(uint32_t hndl)
{
  mcx__mr_slot_t *s;
  uint32_t k;
  int r = mcx__mr_resolve(MCX__MR_SHMEM, hndl, &s, &k);
  if (r != MCX_OK)
    return r;
  mcx__mr_proc_enter();
  mcx__mr_dom_t *d = mcx__mr_me.d;
  mcx__mr_part_t *p = d->p;
  uint32_t ni = mcx__mr_me.nidx;
  mcx__mr_table_lock(p);
  if (!(s->attached[ni / 64] & (1ull << (ni % 64)))) {
    r = MCX_EMR_NOTATTACHED;
  } else {
    s->attached[ni / 64] &= ~(1ull << (ni % 64));
    if (d->seg_refs[k] && --d->seg_refs[k] == 0) {
      mcx_port_shm_unmap(d->seg_addr[k], d->seg_size[k]);
      d->seg_addr[k] = NULL;
    }
  }
  mcx__mr_table_unlock(p);
  mcx__mr_proc_leave();
  return r;
}

/* ------------------------------------------------------------ remote memory */

int mcx__mr_rmem_info(uint32_t hndl, uint32_t *atype, uint32_t *size)
{
  mcx__mr_slot_t *s;
  int r = mcx__mr_resolve(MCX__MR_RMEM, hndl, &s, NULL);
  if (r != MCX_OK)
    return r;
  *atype = s->atype;
  *size = s->limit;
  return MCX_OK;
}

int mcx__mr_rmem_attach(uint32_t hndl, uint32_t atype)
{
  mcx__mr_slot_t *s;
  int r = mcx__mr_resolve(MCX__MR_RMEM, hndl, &s, NULL);
  if (r != MCX_OK)
    return r;
  mcx__mr_part_t *p = mcx__mr_me.d->p;
  uint32_t ni = mcx__mr_me.nidx;
  mcx__mr_table_lock(p);
  if (!s->used || (mcx_load_relaxed(&s->gen) & 0xffffu) != (hndl & 0xffffu))
    r = mcx__mr_closed(s);
  else if (s->atype != atype)
    r = MCX_EMR_ATYPE;
  else if (mcx_load_relaxed(&s->held[ni]))
    r = MCX_EMR_ATTACHED;
  else
    mcx_store_relaxed(&s->held[ni], 1u); /* rmem: held[i] = node i attached; read by node i without the lock */
  mcx__mr_table_unlock(p);
  return r;
}

int mcx__mr_rmem_detach(uint32_t hndl)
{
  mcx__mr_slot_t *s;
  int r = mcx__mr_resolve(MCX__MR_RMEM, hndl, &s, NULL);
  if (r != MCX_OK)
    return r;
  mcx__mr_part_t *p = mcx__mr_me.d->p;
  uint32_t ni = mcx__mr_me.nidx;
  mcx__mr_table_lock(p);
  if (!mcx_load_relaxed(&s->held[ni]))
    r = MCX_EMR_NOTATTACHED;
  else
    mcx_store_relaxed(&s->held[ni], 0u);
  mcx__mr_table_unlock(p);
  return r;
}

static int rmem_args(const mcx__mr_slot_t *s, uint32_t rmem_off, uint32_t bpa, uint32_t n, uint32_t rstride,
                     uint32_t lstride)
{
  /* The reference checks the strides of every transfer, single blocks too. */
  if (rstride < bpa || lstride < bpa)
    return MCX_EMR_STRIDE;
  uint64_t end = (uint64_t)rmem_off + (uint64_t)(n - 1) * rstride + bpa;
  if (end > s->limit)
    return MCX_EMR_OVERRUN;
  return MCX_OK;
}

int mcx__mr_rmem_check(uint32_t hndl, uint32_t rmem_off, uint32_t bpa, uint32_t nstrides, uint32_t rstride,
                       uint32_t lstride)
{
  mcx__mr_slot_t *s;
  int r = mcx__mr_resolve(MCX__MR_RMEM, hndl, &s, NULL);
  if (r != MCX_OK)
    return r;
  /* Strides first, as the reference checks them. */
  if (rstride < bpa || lstride < bpa)
    return MCX_EMR_STRIDE;
  /* Relaxed, without the table lock: only this node attaches and detaches
   * itself (others clear it only when it is gone or the object deleted). */
  if (!mcx_load_relaxed(&s->held[mcx__mr_me.nidx]))
    return MCX_EMR_NOTATTACHED;
  return rmem_args(s, rmem_off, bpa, nstrides, rstride, lstride);
}

int mcx__mr_rmem_transfer(uint32_t hndl, int write, uint32_t rmem_off, void *local, uint32_t local_off,
                          uint32_t bpa, uint32_t nstrides, uint32_t rstride, uint32_t lstride, size_t *bytes)
{
  mcx__mr_slot_t *s;
  int r = mcx__mr_resolve(MCX__MR_RMEM, hndl, &s, NULL);
  if (r != MCX_OK)
    return r;
  r = rmem_args(s, rmem_off, bpa, nstrides, rstride, lstride);
  if (r != MCX_OK)
    return r;
  /* Transfers on one object are serialized by its transfer lock (robust: a
   * node that dies in a transfer does not block the others). */
  uint32_t depth;
  r = mcx__rmutex_lock(&s->u.mutex, mcx__mr_me.tid, MCX_NO_DEADLINE, 1, &depth);
  if (r == MCX_ECLOSED)
    return mcx__mr_closed(s);
  if (r != MCX_OK && r != MCX_EOWNERDEAD)
    return r;
  /* The generation again: deleted while we waited for the lock? */
  if ((mcx_load_acquire(&s->gen) & 0xffffu) != (hndl & 0xffffu)) { /* D-A1 */
    mcx__rmutex_unlock(&s->u.mutex, mcx__mr_me.tid, 1);
    return mcx__mr_closed(s);
  }
  r = MCX_OK;
  char *remote = (char *)(uintptr_t)s->addr;
  char *loc = (char *)local + local_off;
  int same = s->owner_pid == mcx__mr_me.pid;
  for (uint32_t k = 0; k < nstrides && r >= 0; k++) {
    char *rp = remote + rmem_off + (size_t)k * rstride;
    char *lp = loc + (size_t)k * lstride;
    if (same)
      memcpy(write ? rp : lp, write ? lp : rp, bpa);
    else if ((r = mcx_port_vm_copy(s->owner_pid, lp, rp, bpa, write)) != MCX_OK)
      /* the system cannot, or the creator refused / is gone */
      r = r == MCX_ENOSYS ? MCX_ENOSYS : MCX_EMR_CONFLICT;
  }
  mcx__rmutex_unlock(&s->u.mutex, mcx__mr_me.tid, 1);
  if (r >= 0) {
    *bytes = (size_t)bpa * nstrides;
    r = MCX_OK;
  }
  return r;
}
