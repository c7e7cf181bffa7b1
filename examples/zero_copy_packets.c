/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * zero_copy_packets: a packet channel between two nodes (threads). The
 * receiver gets a pointer into the channel's own buffer, works on the packet
 * where it lies, and hands the buffer back with mcapi_pktchan_release, after
 * which the sender can fill it again. Nothing is copied on the receiving side.
 *
 * Shows: connecting and opening both sides (requests), mcapi_pktchan_send,
 * mcapi_pktchan_recv returning a buffer pointer, mcapi_pktchan_release,
 * closing both sides.
 *
 *   example_zero_copy_packets [packets]     (default 2000; exit 0 when every packet checks)
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mcapi.h>

enum { DOMAIN = 3, TX = 1, RX = 2, TX_PORT = 5, RX_PORT = 6, WORDS = 64 };

static long packets = 2000;

static uint32_t checksum(const uint32_t *w, size_t n)
{
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++)
    h = (h ^ w[i]) * 16777619u;
  return h;
}

static void *receiver(void *arg)
{
  mcapi_status_t st;
  mcapi_info_t info;
  mcapi_request_t r;
  size_t n;
  mcapi_initialize(DOMAIN, RX, NULL, NULL, &info, &st);
  mcapi_endpoint_t me = mcapi_endpoint_create(RX_PORT, &st);
  mcapi_pktchan_recv_hndl_t rh;
  mcapi_pktchan_recv_open_i(&rh, me, &r, &st);
  mcapi_wait(&r, &n, 10000, &st);
  long good = 0;
  for (long i = 0; i < packets && st == MCAPI_SUCCESS; i++) {
    void *p;
    mcapi_pktchan_recv(rh, &p, &n, &st); /* p points into the channel buffer */
    if (st != MCAPI_SUCCESS)
      break;
    uint32_t *w = p;
    /* Word 0 carries the checksum of the rest, computed by the sender. */
    good += n == WORDS * sizeof(uint32_t) && w[1] == (uint32_t)i && w[0] == checksum(w + 1, WORDS - 1);
    mcapi_pktchan_release(p, &st); /* the buffer goes back to the sender */
  }
  mcapi_pktchan_recv_close_i(rh, &r, &st);
  mcapi_wait(&r, &n, 10000, &st);
  printf("zero_copy_packets: %ld of %ld packets received in place and intact\n", good, packets);
  mcapi_finalize(&st);
  return (void *)(intptr_t)(good == packets ? 0 : 1);
}

int main(int argc, char **argv)
{
  if (argc > 1)
    packets = atol(argv[1]);
  pthread_t t;
  pthread_create(&t, NULL, receiver, NULL);

  mcapi_status_t st;
  mcapi_info_t info;
  mcapi_request_t r;
  size_t n;
  mcapi_initialize(DOMAIN, TX, NULL, NULL, &info, &st);
  mcapi_endpoint_t me = mcapi_endpoint_create(TX_PORT, &st);
  mcapi_endpoint_t peer = mcapi_endpoint_get(DOMAIN, RX, RX_PORT, MCAPI_TIMEOUT_INFINITE, &st);
  /* Either side (or a third node) may connect; the sender does it here. */
  mcapi_pktchan_connect_i(me, peer, &r, &st);
  mcapi_wait(&r, &n, 10000, &st);
  mcapi_pktchan_send_hndl_t sh;
  mcapi_pktchan_send_open_i(&sh, me, &r, &st);
  mcapi_wait(&r, &n, 10000, &st);
  if (st != MCAPI_SUCCESS) {
    fprintf(stderr, "zero_copy_packets: open failed (%d)\n", (int)st);
    return 1;
  }
  uint32_t w[WORDS];
  for (long i = 0; i < packets && st == MCAPI_SUCCESS; i++) {
    w[1] = (uint32_t)i;
    for (int k = 2; k < WORDS; k++)
      w[k] = (uint32_t)(i * k);
    w[0] = checksum(w + 1, WORDS - 1);
    /* Copies into a free channel buffer; waits while the receiver holds them all. */
    mcapi_pktchan_send(sh, w, sizeof w, &st);
  }
  int send_ok = st == MCAPI_SUCCESS;
  mcapi_pktchan_send_close_i(sh, &r, &st);
  mcapi_wait(&r, &n, 10000, &st);
  void *rx_bad;
  pthread_join(t, &rx_bad);
  mcapi_finalize(&st);
  return send_ok && !rx_bad ? 0 : 1;
}
