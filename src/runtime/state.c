/* SPDX-License-Identifier: BSD-3-Clause */
/* State channels: one writer, many readers, newest value only (transport/nbw.h). */
#include "runtime/domain.h"
#include "runtime/endpoint.h"
#include "runtime/state.h"
#include "transport/nbw.h"

static mcx__state_t *states(const mcx__domain_t *d)
{
  return (mcx__state_t *)(d->base + d->g.off_states);
}

static mcx__nbw_view_t view_of(const mcx__domain_t *d, uint32_t idx)
{
  mcx__state_t *s = &states(d)[idx];
  mcx__nbw_view_t v;
  v.ccf = &s->ccf;
  v.bufs = (mcx_atomic_u64 *)(d->base + d->g.off_state_bufs) +
           (size_t)idx * MCX_STATE_MAX_BUFFERS * MCX_STATE_STRIDE_WORDS;
  v.nbuf = mcx_load_relaxed(&s->nbuf);
  v.stride = MCX_STATE_STRIDE_WORDS;
  return v;
}

static int resolve(const mcx__domain_t *d, uint32_t h, mcx__state_t **out)
{
  uint32_t idx = mcx__handle_idx(h), gen = mcx__handle_gen(h);
  if (h == 0 || idx >= MCX_STATE_CHANNELS || gen == 0)
    return MCX_EINVAL;
  mcx__state_t *s = &states(d)[idx];
  /* A-S1 — acquire: the channel's fields are set once it reads active;
   * pairs with R-S1 in mcx__state_create. */
  uint32_t st = mcx_load_acquire(&s->state);
  if (st != (gen << 8 | EP_ACTIVE))
    return (st >> 8) != gen ? MCX_ESTALE : MCX_EINVAL;
  *out = s;
  return MCX_OK;
}

int mcx__state_create(uint32_t port, uint32_t max_size, uint32_t nbuf, uint32_t *handle)
{
  mcx__domain_t *d = mcx__self.dom;
  if (max_size == 0 || max_size > MCX_STATE_MAX_SIZE || nbuf < 2 || nbuf > MCX_STATE_MAX_BUFFERS)
    return MCX_EINVAL;
  mcx__state_t *tab = states(d);
  int r = MCX_OK, slot = -1;
  mcx__admin_lock(d);
  for (uint32_t i = 0; i < MCX_STATE_CHANNELS; i++) {
    uint32_t st = mcx_load_relaxed(&tab[i].state); /* under admin */
    if ((st & 0xff) == EP_FREE) {
      if (slot < 0)
        slot = (int)i;
    } else if (mcx_load_relaxed(&tab[i].node_id) == mcx__self.node_id &&
               mcx_load_relaxed(&tab[i].port) == port) {
      r = MCX_EEXIST;
    }
  }
  if (!r && slot < 0)
    r = MCX_ENOMEM;
  if (!r) {
    mcx__state_t *s = &tab[slot];
    uint32_t gen = ((mcx_load_relaxed(&s->state) >> 8) + 1) & 0x7fffu;
    if (!gen)
      gen = 1;
    mcx_store_relaxed(&s->node_id, mcx__self.node_id);
    mcx_store_relaxed(&s->port, port);
    mcx_store_relaxed(&s->owner_slot, mcx__self.node_slot);
    mcx_store_relaxed(&s->max_size, max_size);
    mcx_store_relaxed(&s->nbuf, nbuf);
    mcx_store_relaxed(&s->ccf, 0);
    /* R-S1 — release: pairs with A-S1 (resolve) and A-S2 (lookup). */
    mcx_store_release(&s->state, gen << 8 | EP_ACTIVE);
    *handle = mcx__handle((uint32_t)slot, gen);
  }
  mcx__admin_unlock(d);
  if (!r)
    mcx__wp_broadcast(&d->hdr->ep_created, d->shared);
  return r;
}

static int lookup(const mcx__domain_t *d, uint32_t node_id, uint32_t port, uint32_t *handle)
{
  mcx__state_t *tab = states(d);
  for (uint32_t i = 0; i < MCX_STATE_CHANNELS; i++) {
    uint32_t st = mcx_load_acquire(&tab[i].state); /* A-S2: pairs with R-S1 */
    if ((st & 0xff) != EP_ACTIVE)
      continue;
    uint32_t n = mcx_load_relaxed(&tab[i].node_id), p = mcx_load_relaxed(&tab[i].port);
    mcx_fence_acquire(); /* the field loads before the re-check (seqlock style) */
    if (mcx_load_relaxed(&tab[i].state) == st && n == node_id && p == port) {
      *handle = mcx__handle(i, st >> 8);
      return MCX_OK;
    }
  }
  return MCX_ENOENT;
}

struct open_ctx {
  const mcx__domain_t *d;
  uint32_t node_id, port, *handle;
};

static int try_open(void *arg)
{
  struct open_ctx *o = arg;
  return lookup(o->d, o->node_id, o->port, o->handle);
}

int mcx__state_open(uint32_t node_id, uint32_t port, uint32_t timeout_ms, uint32_t *handle)
{
  mcx__domain_t *d = mcx__self.dom;
  struct open_ctx o = {d, node_id, port, handle};
  return mcx__wait_until(d, &d->hdr->ep_created, timeout_ms, try_open, &o);
}

static void delete_locked(mcx__domain_t *d, mcx__state_t *s)
{
  uint32_t st = mcx_load_relaxed(&s->state);
  mcx_store_release(&s->state, (st & ~0xffu) | EP_FREE); /* A-S1 then fails */
  mcx__wp_broadcast(&s->wp, d->shared);                   /* waiters see it gone */
}

int mcx__state_close(uint32_t handle)
{
  mcx__domain_t *d = mcx__self.dom;
  mcx__state_t *s;
  int r = resolve(d, handle, &s);
  if (r)
    return r;
  if (mcx_load_relaxed(&s->owner_slot) != mcx__self.node_slot)
    return MCX_OK; /* a reader's close: it holds nothing */
  mcx__admin_lock(d);
  if (resolve(d, handle, &s) == MCX_OK)
    delete_locked(d, s);
  mcx__admin_unlock(d);
  return MCX_OK;
}

void mcx__state_delete_of_node_locked(mcx__domain_t *d, uint32_t node_slot)
{
  mcx__state_t *tab = states(d);
  for (uint32_t i = 0; i < MCX_STATE_CHANNELS; i++)
    if ((mcx_load_relaxed(&tab[i].state) & 0xff) == EP_ACTIVE &&
        mcx_load_relaxed(&tab[i].owner_slot) == node_slot)
      delete_locked(d, &tab[i]);
}

int mcx__state_write(uint32_t handle, const void *buf, size_t size)
{
  mcx__domain_t *d = mcx__self.dom;
  mcx__state_t *s;
  int r = resolve(d, handle, &s);
  if (r)
    return r;
  if (mcx_load_relaxed(&s->owner_slot) != mcx__self.node_slot)
    return MCX_EPERM;
  if (size > mcx_load_relaxed(&s->max_size))
    return MCX_EMSGSIZE;
  mcx__nbw_view_t v = view_of(d, mcx__handle_idx(handle));
  mcx__glock(d);
  mcx__nbw_write(&v, buf, size);
  mcx__gunlock(d);
  mcx__wp_notify_after_rmw(&s->wp, d->shared); /* N2 was the seq_cst RMW */
  return MCX_OK;
}

int mcx__state_read(uint32_t handle, void *buf, size_t cap, size_t *size, uint64_t *version,
                    uint32_t retries)
{
  mcx__domain_t *d = mcx__self.dom;
  mcx__state_t *s;
  int r = resolve(d, handle, &s);
  if (r)
    return r;
  mcx__nbw_view_t v = view_of(d, mcx__handle_idx(handle));
  for (uint32_t i = 0; i <= retries; i++) {
    mcx__glock(d);
    int ok = mcx__nbw_try_read(&v, buf, cap, size, version);
    mcx__gunlock(d);
    if (ok)
      return *size > cap ? MCX_ETRUNC : MCX_OK;
  }
  return MCX_EAGAIN;
}

int mcx__state_wait_newer(uint32_t handle, uint64_t known, uint32_t timeout_ms, uint64_t *version)
{
  mcx__domain_t *d = mcx__self.dom;
  mcx__state_t *s;
  int r = resolve(d, handle, &s);
  if (r)
    return r;
  mcx__nbw_view_t v = view_of(d, mcx__handle_idx(handle));
  uint64_t deadline = mcx_port_deadline_ms(timeout_ms);
  mcx__backoff_t b;
  mcx__backoff_begin(&b);
  for (;;) {
    uint64_t now_v = mcx__nbw_version(&v);
    if (now_v > known) {
      *version = now_v;
      return MCX_OK;
    }
    if (timeout_ms == 0 || mcx_port_now_ns() >= deadline)
      return MCX_ETIMEDOUT;
    if (!mcx__backoff_step(&b))
      continue;
    uint32_t key = mcx__wp_prepare(&s->wp);
    if (mcx__nbw_version(&v) > known || resolve(d, handle, &s)) {
      mcx__wp_cancel(&s->wp);
      if (resolve(d, handle, &s))
        return MCX_ECLOSED;
      continue;
    }
    /* Slices: a writer that died never writes again; its channel is reclaimed by a sweep. */
    uint64_t slice = mcx_port_now_ns() + 50000000ull;
    mcx__wp_sleep(&s->wp, key, slice < deadline ? slice : deadline, d->shared);
    if (resolve(d, handle, &s))
      return MCX_ECLOSED;
    if (!mcx__node_alive(d, mcx_load_relaxed(&s->owner_slot)))
      mcx__sweep_dead(d);
  }
}
