/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The MCAPI side of the DDS gateway's tests (tests/dds/dds_interop.py): a
 * node that sends to a gateway's proxy port, or receives what the gateway
 * delivers. A message's payload: its number (u64, from 0) and the priority
 * it was sent with (u32), then filler up to its size.
 *
 *   dds_node send DOMAIN NODE GW_NODE GW_PORT COUNT SIZE PRIOS [PACE_US [FIRST]]
 *     blocking sends, message i with priority i % PRIOS, one every PACE_US
 *     microseconds when not 0 (the pace of a stream), numbered from FIRST
 *     (default 0) in the payload; a send that fails
 *     (the gateway gone) asks for the proxy again and sends the same
 *     message again: prints "resend I STATUS".
 *   dds_node flood DOMAIN NODE GW_NODE GW_PORT COUNT SIZE
 *     non-blocking sends (FAIL_ON_MEM_LIMIT): the first MCAPI_ERR_MEM_LIMIT
 *     prints "full I", and "refused 1000 times at I" once it has been refused
 *     that often (about a second); each refused message is sent again
 *     until it goes.
 *   dds_node recv DOMAIN NODE PORT COUNT
 *     prints "got I PRIO LEN" per message (I, PRIO from the payload; LEN its
 *     size), "done" after COUNT. A line "stop" on stdin ends it early.
 * Every line is flushed at once; the script waits for them.
 */
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mcapi.h"

static unsigned long arg(char **v, int i) { return strtoul(v[i], NULL, 0); }

static void nap_us(long us)
{
  struct timespec t = {us / 1000000, (us % 1000000) * 1000};
  nanosleep(&t, NULL);
}

static mcapi_endpoint_t proxy(mcapi_domain_t d, mcapi_node_t n, mcapi_port_t p)
{
  mcapi_status_t st;
  mcapi_endpoint_t e = mcapi_endpoint_get(d, n, p, MCAPI_TIMEOUT_INFINITE, &st);
  if (st != MCAPI_SUCCESS) {
    printf("endpoint_get failed: %d\n", (int)st);
    exit(1);
  }
  return e;
}

int main(int argc, char **argv)
{
  if (argc < 6) {
    fprintf(stderr, "usage: see the comment at the top of dds_node.c\n");
    return 2;
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  const char *mode = argv[1];
  mcapi_domain_t dom = (mcapi_domain_t)arg(argv, 2);
  mcapi_node_t node = (mcapi_node_t)arg(argv, 3);
  mcapi_info_t info;
  mcapi_status_t st;
  mcapi_initialize(dom, node, NULL, NULL, &info, &st);
  if (st != MCAPI_SUCCESS) {
    printf("mcapi_initialize failed: %d\n", (int)st);
    return 1;
  }
  uint8_t buf[MCAPI_MAX_MSG_SIZE];
  memset(buf, 0xa5, sizeof buf);
  if (!strcmp(mode, "recv")) {
    mcapi_endpoint_t me = mcapi_endpoint_create((mcapi_port_t)arg(argv, 4), &st);
    unsigned long count = arg(argv, 5);
    printf("ready\n");
    mcapi_timeout_t t = 100; /* ms: stdin is looked at in between */
    mcapi_endpoint_set_attribute(me, MCAPI_ENDP_ATTR_TIMEOUT, &t, sizeof t, &st);
    for (unsigned long got = 0; got < count;) {
      size_t n = 0;
      mcapi_priority_t prio = 0;
      (void)prio;
      mcapi_msg_recv(me, buf, sizeof buf, &n, &st);
      if (st == MCAPI_TIMEOUT) {
        struct pollfd p = {0, POLLIN, 0};
        if (poll(&p, 1, 0) > 0) {
          char line[32];
          if (!fgets(line, sizeof line, stdin) || !strncmp(line, "stop", 4))
            break;
        }
        continue;
      }
      if (st != MCAPI_SUCCESS) {
        printf("recv failed: %d\n", (int)st);
        return 1;
      }
      uint64_t i = 0;
      uint32_t p = 0;
      if (n >= 12) {
        memcpy(&i, buf, 8);
        memcpy(&p, buf + 8, 4);
      }
      printf("got %llu %u %zu\n", (unsigned long long)i, p, n);
      got++;
    }
    printf("done\n");
    mcapi_finalize(&st);
    return 0;
  }
  if (argc < 8) {
    fprintf(stderr, "usage: see the comment at the top of dds_node.c\n");
    return 2;
  }
  mcapi_node_t gw = (mcapi_node_t)arg(argv, 4);
  mcapi_port_t gp = (mcapi_port_t)arg(argv, 5);
  unsigned long count = arg(argv, 6), size = arg(argv, 7);
  unsigned long prios = argc > 8 ? arg(argv, 8) : 1;
  long pace_us = argc > 9 ? (long)arg(argv, 9) : 0;
  unsigned long first = argc > 10 ? arg(argv, 10) : 0;
  if (size < 12 || size > MCAPI_MAX_MSG_SIZE || !prios || prios > MCAPI_MAX_PRIORITY + 1ul)
    return 2;
  mcapi_endpoint_t me = mcapi_endpoint_create(MCAPI_PORT_ANY, &st);
  int flood = !strcmp(mode, "flood");
  if (flood) {
    mcapi_boolean_t yes = MCAPI_TRUE;
    mcapi_endpoint_set_attribute(me, MCAPI_ENDP_ATTR_FAIL_ON_MEM_LIMIT, &yes, sizeof yes, &st);
  }
  mcapi_endpoint_t to = proxy(dom, gw, gp);
  printf("ready\n");
  int full = 0;
  for (unsigned long i = 0; i < count;) {
    uint64_t v = first + i;
    uint32_t p = (uint32_t)(i % prios);
    memcpy(buf, &v, 8);
    memcpy(buf + 8, &p, 4);
    mcapi_msg_send(me, to, buf, size, p, &st);
    if (st == MCAPI_SUCCESS) {
      i++;
      if (pace_us)
        nap_us(pace_us);
      continue;
    }
    if (flood && st == MCAPI_ERR_MEM_LIMIT) {
      if (!full++)
        printf("full %lu\n", i);
      if (full == 1000)
        printf("refused 1000 times at %lu\n", i);
      nap_us(1000);
      continue;
    }
    /* The gateway went away: its proxy endpoint with it. */
    printf("resend %lu %d\n", i, (int)st);
    to = proxy(dom, gw, gp);
  }
  printf("sent %lu\n", count);
  mcapi_finalize(&st);
  return 0;
}
