/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The C node of the Python tests (tests/python/test_mcapi_python.py): it
 * shares one domain with a Python node in another process.
 *
 *   py_peer exchange DOMAIN NODE PYNODE   messages both ways (echo, with
 *       priorities), then packets and scalars of every width to the Python
 *       node; exits 0 when the Python node's final message has the right sum.
 *   py_peer hold DOMAIN NODE PYNODE       connects and opens a packet channel
 *       to the Python node, says "ready" by message and on stdout, and waits
 *       for ever (the test kills it with SIGKILL).
 *   py_peer loop DOMAIN NODE COUNT        COUNT mcapi_msg_send + mcapi_msg_recv
 *       pairs of 24 bytes between two endpoints of this node: the C loop
 *       `mca bench --python --instr` subtracts from the Python one.
 *   py_peer echo DOMAIN NODE PYNODE       sends every message back as it came
 *       (the round trip of `mca bench --python`) until an empty one; says
 *       "ready" on stdout once its endpoint exists.
 *   py_peer echo-poll DOMAIN NODE PYNODE  the same, polling (mcapi_msg_available,
 *       sched_yield between checks, at most 100000 of them) before each
 *       receive instead of sleeping in it.
 *
 * Ports: this node's message endpoint 10, packet sender 11, scalar sender 12;
 * the Python node's message endpoint 20, packet receiver 21, scalar receiver 22.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mcapi.h"
#include "mcx_test.h"

#define FAIL(what, st)                                                                  \
  do {                                                                                  \
    char name_[MCAPI_MAX_STATUS_MSG_LEN];                                               \
    fprintf(stderr, "py_peer: %s: %s\n", what, mcapi_display_status(st, name_, sizeof name_)); \
    exit(1);                                                                            \
  } while (0)
#define OK(what)                                                                        \
  do {                                                                                  \
    if (st != MCAPI_SUCCESS) FAIL(what, st);                                            \
  } while (0)

static mcapi_status_t st;
static size_t n;

static void wait_req(mcapi_request_t *r, const char *what)
{
  if (st != MCAPI_SUCCESS && st != MCAPI_PENDING) FAIL(what, st);
  mcapi_wait(r, &n, MCX_TEST_WAIT_MS, &st);
  OK(what);
}

int main(int argc, char **argv)
{
  if (argc != 5) {
    fprintf(stderr, "usage: py_peer exchange|hold|echo|echo-poll DOMAIN NODE PYNODE | loop DOMAIN NODE COUNT\n");
    return 2;
  }
  mcapi_domain_t dom = (mcapi_domain_t)atoi(argv[2]);
  mcapi_node_t me = (mcapi_node_t)atoi(argv[3]), py = (mcapi_node_t)atoi(argv[4]);
  mcapi_info_t info;
  mcapi_request_t r;
  mcapi_initialize(dom, me, NULL, NULL, &info, &st);
  OK("mcapi_initialize");
  mcapi_endpoint_t msg = mcapi_endpoint_create(10, &st);
  OK("create 10");
  if (strcmp(argv[1], "loop") == 0) {
    mcapi_endpoint_t to = mcapi_endpoint_create(13, &st);
    OK("create 13");
    static const char out[24] = "xxxxxxxxxxxxxxxxxxxxxxx";
    char in[64];
    for (long i = atol(argv[4]); i > 0; i--) {
      mcapi_msg_send(msg, to, out, sizeof out, 0, &st);
      OK("mcapi_msg_send");
      mcapi_msg_recv(to, in, sizeof in, &n, &st);
      OK("mcapi_msg_recv");
    }
    mcapi_finalize(&st);
    OK("mcapi_finalize");
    return 0;
  }
  if (strncmp(argv[1], "echo", 4) == 0) {
    int poll = strcmp(argv[1], "echo-poll") == 0;
    mcapi_endpoint_t back = mcapi_endpoint_get(dom, py, 20, MCX_TEST_WAIT_MS, &st);
    OK("get 20");
    mcapi_endpoint_set_attribute(msg, MCAPI_ENDP_ATTR_TIMEOUT, &(mcapi_timeout_t){MCX_TEST_WAIT_MS},
                                 sizeof(mcapi_timeout_t), &st);
    OK("timeout attribute");
    printf("ready\n");
    fflush(stdout);
    static char ebuf[MCAPI_MAX_MSG_SIZE];
    for (;;) {
      for (unsigned spin = 0; poll && spin < 100000 && !mcapi_msg_available(msg, &st); spin++)
        sched_yield();
      mcapi_msg_recv(msg, ebuf, sizeof ebuf, &n, &st);
      OK("mcapi_msg_recv");
      if (n == 0)
        break;
      mcapi_msg_send(msg, back, ebuf, n, 0, &st);
      OK("mcapi_msg_send");
    }
    mcapi_finalize(&st);
    OK("mcapi_finalize");
    return 0;
  }
  mcapi_endpoint_t pkt = mcapi_endpoint_create(11, &st);
  OK("create 11");
  mcapi_endpoint_t scl = mcapi_endpoint_create(12, &st);
  OK("create 12");
  mcapi_endpoint_t py_msg = mcapi_endpoint_get(dom, py, 20, MCX_TEST_WAIT_MS, &st);
  OK("get 20");
  mcapi_endpoint_t py_pkt = mcapi_endpoint_get(dom, py, 21, MCX_TEST_WAIT_MS, &st);
  OK("get 21");
  mcapi_endpoint_t py_scl = mcapi_endpoint_get(dom, py, 22, MCX_TEST_WAIT_MS, &st);
  OK("get 22");
  mcapi_endpoint_set_attribute(msg, MCAPI_ENDP_ATTR_TIMEOUT, &(mcapi_timeout_t){MCX_TEST_WAIT_MS},
                               sizeof(mcapi_timeout_t), &st);
  OK("timeout attribute");

  mcapi_pktchan_connect_i(pkt, py_pkt, &r, &st);
  wait_req(&r, "mcapi_pktchan_connect_i");
  mcapi_pktchan_send_hndl_t ph;
  mcapi_pktchan_send_open_i(&ph, pkt, &r, &st);
  wait_req(&r, "mcapi_pktchan_send_open_i");

  if (strcmp(argv[1], "hold") == 0) {
    mcapi_msg_send(msg, py_msg, "ready", 5, 0, &st);
    OK("send ready");
    printf("ready\n");
    fflush(stdout);
    for (;;)
      pause();
  }

  /* Messages: each one the Python node sends comes back with "echo:" before it,
   * at the priority it came with (its first byte, a digit). */
  char buf[MCAPI_MAX_MSG_SIZE + 8];
  for (;;) {
    mcapi_msg_recv(msg, buf, MCAPI_MAX_MSG_SIZE, &n, &st);
    OK("mcapi_msg_recv");
    if (n == 3 && memcmp(buf, "end", 3) == 0)
      break;
    char out[MCAPI_MAX_MSG_SIZE + 8] = "echo:";
    memcpy(out + 5, buf, n);
    mcapi_msg_send(msg, py_msg, out, n + 5, (mcapi_priority_t)(buf[0] - '0'), &st);
    OK("mcapi_msg_send");
  }

  /* Packets: three, their sizes 1, 100 and 1000 bytes, filled with their index. */
  static const size_t sizes[] = {1, 100, 1000};
  for (unsigned i = 0; i < 3; i++) {
    memset(buf, 'a' + (int)i, sizes[i]);
    mcapi_pktchan_send(ph, buf, sizes[i], &st);
    OK("mcapi_pktchan_send");
  }

  /* Scalars: one of each width, the width's largest value less the width. */
  mcapi_sclchan_connect_i(scl, py_scl, &r, &st);
  wait_req(&r, "mcapi_sclchan_connect_i");
  mcapi_sclchan_send_hndl_t sh;
  mcapi_sclchan_send_open_i(&sh, scl, &r, &st);
  wait_req(&r, "mcapi_sclchan_send_open_i");
  mcapi_sclchan_send_uint8(sh, UINT8_MAX - 8, &st);
  OK("send uint8");
  mcapi_sclchan_send_uint16(sh, UINT16_MAX - 16, &st);
  OK("send uint16");
  mcapi_sclchan_send_uint32(sh, UINT32_MAX - 32, &st);
  OK("send uint32");
  mcapi_sclchan_send_uint64(sh, UINT64_MAX - 64, &st);
  OK("send uint64");

  /* The Python node's verdict: "sum=" and the sum of the packets' sizes. */
  mcapi_msg_recv(msg, buf, MCAPI_MAX_MSG_SIZE, &n, &st);
  OK("mcapi_msg_recv verdict");
  buf[n] = 0;
  if (strcmp(buf, "sum=1101") != 0) {
    fprintf(stderr, "py_peer: verdict '%s'\n", buf);
    return 1;
  }
  mcapi_pktchan_send_close_i(ph, &r, &st);
  wait_req(&r, "mcapi_pktchan_send_close_i");
  mcapi_sclchan_send_close_i(sh, &r, &st);
  wait_req(&r, "mcapi_sclchan_send_close_i");
  mcapi_finalize(&st);
  OK("mcapi_finalize");
  return 0;
}
