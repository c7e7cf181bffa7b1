/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scalar_irq: a producer that behaves like an interrupt handler feeds a
 * consumer thread through a scalar channel. The "interrupt" fires on a timer,
 * reads a sample (here: a counter), and must never wait: its endpoint's
 * TIMEOUT attribute is 0, so a full channel returns MCAPI_TIMEOUT at once and
 * the handler counts the sample as dropped instead of blocking.
 *
 * Shows: scalar channels (32-bit), the TIMEOUT endpoint attribute, a
 * non-blocking producer, a blocking consumer, accounting that adds up:
 * received + dropped == produced, received samples strictly increasing.
 *
 *   example_scalar_irq [samples]     (default 20000; exit 0 when the accounting adds up)
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <mcapi.h>

enum { DOMAIN = 4, IRQ = 1, CONSUMER = 2, IRQ_PORT = 1, CONSUMER_PORT = 2 };

static long samples = 20000;
static atomic_long dropped;

/* The "interrupt handler": called once per tick; never waits. */
static void on_tick(mcapi_sclchan_send_hndl_t sh, uint32_t sample)
{
  mcapi_status_t st;
  mcapi_sclchan_send_uint32(sh, sample, &st);
  if (st == MCAPI_TIMEOUT) /* the channel is full: drop, do not wait */
    atomic_fetch_add(&dropped, 1);
}

static void *irq_source(void *arg)
{
  mcapi_status_t st;
  mcapi_info_t info;
  mcapi_request_t r;
  size_t n;
  mcapi_initialize(DOMAIN, IRQ, NULL, NULL, &info, &st);
  mcapi_endpoint_t me = mcapi_endpoint_create(IRQ_PORT, &st);
  mcapi_timeout_t zero = 0; /* sends from this endpoint never wait */
  mcapi_endpoint_set_attribute(me, MCAPI_ENDP_ATTR_TIMEOUT, &zero, sizeof zero, &st);
  mcapi_endpoint_t peer = mcapi_endpoint_get(DOMAIN, CONSUMER, CONSUMER_PORT, MCAPI_TIMEOUT_INFINITE, &st);
  mcapi_sclchan_connect_i(me, peer, &r, &st);
  mcapi_wait(&r, &n, 10000, &st);
  mcapi_sclchan_send_hndl_t sh;
  mcapi_sclchan_send_open_i(&sh, me, &r, &st);
  mcapi_wait(&r, &n, 10000, &st);
  struct timespec tick = {0, 20000}; /* 20 us between interrupts */
  for (long i = 1; i <= samples; i++) {
    if (i % 64 == 0)
      nanosleep(&tick, NULL);
    on_tick(sh, (uint32_t)i);
  }
  /* Closing ends the stream: the consumer drains what is queued, then sees NOTOPEN. */
  mcapi_sclchan_send_close_i(sh, &r, &st);
  mcapi_wait(&r, &n, 10000, &st);
  mcapi_finalize(&st);
  return NULL;
}

int main(int argc, char **argv)
{
  if (argc > 1)
    samples = atol(argv[1]);
  mcapi_status_t st;
  mcapi_info_t info;
  mcapi_request_t r;
  size_t n;
  mcapi_initialize(DOMAIN, CONSUMER, NULL, NULL, &info, &st);
  mcapi_endpoint_t me = mcapi_endpoint_create(CONSUMER_PORT, &st);
  pthread_t t;
  pthread_create(&t, NULL, irq_source, NULL);
  mcapi_sclchan_recv_hndl_t rh;
  mcapi_sclchan_recv_open_i(&rh, me, &r, &st);
  mcapi_wait(&r, &n, 10000, &st);
  long received = 0;
  uint32_t last = 0;
  int ordered = 1;
  for (;;) {
    uint32_t v = mcapi_sclchan_recv_uint32(rh, &st);
    if (st != MCAPI_SUCCESS) /* MCAPI_ERR_CHAN_NOTOPEN: the source closed and the channel is empty */
      break;
    ordered &= v > last;
    last = v;
    received++;
  }
  pthread_join(t, NULL);
  mcapi_sclchan_recv_close_i(rh, &r, &st);
  mcapi_wait(&r, &n, 10000, &st);
  mcapi_finalize(&st);
  long d = atomic_load(&dropped);
  printf("scalar_irq: %ld samples: %ld received in order, %ld dropped while the channel was full\n",
         samples, received, d);
  return ordered && received + d == samples && received > 0 ? 0 : 1;
}
