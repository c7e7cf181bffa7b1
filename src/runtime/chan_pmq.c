/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The channels' data calls over the pmq transport (transport/pmq.c,
 * docs/pmq.md): a connection's scalars or packets travel in one POSIX
 * message queue (made by connect, unlinked at tear-down: chan_conn.c), and
 * a receiver copies packets out of it into a process-local pool of
 * PMQ_CHAN_BUFS buffers, whose states are the record's `buf` words. Here:
 * one try of a send or a receive, the count, a packet's release. The
 * waiting around them is the shm transport's (chan_wait.c).
 */
#include <string.h>

#include "runtime/chan.h"
#include "runtime/domain.h"

int mcx__chan_pmq_send(const mcx__domain_t *d, mcx__chan_t *ch, int pkt, const mcx__xfer_t *a)
{
  /* The receiver holding every buffer of its pool: only its releases help
   * (MEM_LIMIT), as on shm. A-B2: pairs with R-B2 in release. */
  if (pkt && mcx_load_acquire(&ch->held) >= mcx_load_relaxed(&ch->nbuf))
    return MCX_ENOMEM;
  mcx__pmq_chan_t c = mcx__chan_pmq(d, ch, mcx_load_acquire(&ch->state)); /* A-C1 */
  int r = pkt ? mcx__pmq_chan_put(d->pmq, &c, a->src, a->size)
              : mcx__pmq_scl_put(d->pmq, &c, a->width, a->value);
  if (r == MCX_OK)
    mcx__wp_notify(&ch->recv_wp, d->shared);
  return r;
}

uint32_t mcx__chan_pmq_count(mcx__domain_t *d, mcx__chan_t *ch)
{
  mcx__pmq_chan_t c = mcx__chan_pmq(d, ch, mcx_load_acquire(&ch->state)); /* A-C1 */
  uint32_t n = 0;
  return mcx__pmq_chan_count(d->pmq, &c, &n) == MCX_OK ? n : 0;
}

/* One try of a scalar or a packet (into free buffer @p b of the local pool)
 * from the queue. */
static int pmq_get(const mcx__domain_t *d, const mcx__pmq_chan_t *c, int pkt, uint32_t nbuf,
                   uint32_t b, mcx__xfer_t *a)
{
  return pkt ? mcx__pmq_pkt_get(d->pmq, c, nbuf, b, &a->out, &a->size)
             : mcx__pmq_scl_get(d->pmq, c, a->width, &a->value);
}

int mcx__chan_pmq_recv(const mcx__domain_t *d, mcx__chan_t *ch, int pkt, mcx__xfer_t *a)
{
  mcx__pmq_chan_t c = mcx__chan_pmq(d, ch, mcx_load_acquire(&ch->state)); /* A-C1 */
  uint32_t nbuf = mcx_load_relaxed(&ch->nbuf), b = 0;
  if (pkt) { /* a free buffer of the local pool (receiver-owned words) */
    while (b < nbuf && mcx_load_relaxed(&ch->buf[b]) == B_HELD)
      b++;
    if (b == nbuf)
      return MCX_ENOMEM;
  }
  int r = pmq_get(d, &c, pkt, nbuf, b, a);
  if (r == MCX_EAGAIN) {
    /* Empty: wait while the sender is open; once it has closed or gone,
     * one more look (as mcx__chan_get_or_closed), then ENOTOPEN. */
    if (mcx__chan_peer_alive(ch, MCX_CHAN_RECV))
      return MCX_EAGAIN;
    /* Its last item, sent before its close, is in the queue by now. */
    r = pmq_get(d, &c, pkt, nbuf, b, a);
    if (r == MCX_EAGAIN)
      return MCX_ENOTOPEN;
  }
  if (r != MCX_OK)
    return r;
  if (pkt) {
    mcx_store_relaxed(&ch->buf[b], B_HELD);
    mcx_store_relaxed(&ch->held, mcx_load_relaxed(&ch->held) + 1);
  }
  mcx__wp_notify(&ch->space_wp, d->shared); /* room in the queue */
  return MCX_OK;
}

/* A pointer into this process's local pool: its record and index. */
static int buffer_of(const mcx__domain_t *d, const void *p, mcx__chan_t **out, uint32_t *b)
{
  uint32_t rec, idx;
  if (mcx__pmq_pkt_locate(d->pmq, p, &rec, &idx) != MCX_OK)
    return MCX_EBADBUF;
  mcx__chan_t *ch = mcx__chan_at(d, rec);
  /* Not necessarily LIVE: a buffer held across its connection's tear-down
   * is released as before (the record is not reused while any is held:
   * mcx__chan_holds_kept). */
  (void)mcx_load_acquire(&ch->state); /* A-C1 */
  if (mcx_load_relaxed(&ch->type) != MCAPI_PKT_CHAN ||
      idx >= mcx_load_relaxed(&ch->nbuf) ||
      mcx_load_relaxed(&ch->owner[MCX_CHAN_RECV]) != mcx__self.node_slot)
    return MCX_EBADBUF;
  *out = ch;
  *b = idx;
  return MCX_OK;
}

int mcx__chan_pmq_release(mcx__domain_t *d, void *buf)
{
  mcx__chan_t *ch;
  uint32_t b;
  int r = buffer_of(d, buf, &ch, &b);
  if (r)
    return r;
  uint32_t expect = B_HELD;
  /* Only a held buffer can be released, once. */
  if (!mcx_cas_relaxed(&ch->buf[b], &expect, B_FREE)) /* receiver-owned word */
    return MCX_EBADBUF;
  if (mcx__ref())
    memset(buf, 0, mcx__pmq_pkt_size(d->pmq)); /* the reference hands back zeroed buffers */
  /* R-B2 — release: held drops after the user's last use of the buffer; pairs
   * with A-B2 (mcx__chan_pmq_send). */
  mcx_store_release(&ch->held, mcx_load_relaxed(&ch->held) - 1);
  mcx__wp_notify(&ch->space_wp, d->shared);
  return MCX_OK;
}

int mcx__chan_pmq_release_test(mcx__domain_t *d, void *buf)
{
  mcx__chan_t *ch;
  uint32_t b;
  int r = buffer_of(d, buf, &ch, &b);
  if (r)
    return r;
  return mcx_load_relaxed(&ch->buf[b]) != B_HELD; /* receiver-owned word */
}
