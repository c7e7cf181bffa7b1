/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A node of the bridge tests (tests/bridge/bridge_check.sh): standard MCAPI
 * calls only; the endpoint it sends to is in another domain, reached through
 * the bridges.
 *
 *   recv DOMAIN NODE PORT COUNT [loss] [pace] [GOFILE] [hold=K,...:PATH]  receives COUNT
 *                                        items, checks them (pace: at most about 20000 per
 *                                        second; GOFILE: reads nothing until that file exists;
 *                                        hold: after K items, each K listed, prints "held K" and
 *                                        reads nothing until the file PATH.K exists, so the
 *                                        stream stops there: its sender blocks, still running)
 *   send DOMAIN NODE RDOMAIN RNODE RPORT COUNT [FIRST [STEP]]  sends items FIRST..COUNT
 *                                        (prints "sent N" every STEP items); an item refused
 *                                        with MCAPI_ERR_TRANSMISSION (the peer is away) is
 *                                        sent again after a pause, and counted
 *   sendst DOMAIN NODE RDOMAIN RNODE RPORT  one blocking, one non-blocking and one
 *                                        FAIL_ON_MEM_LIMIT send: prints their statuses
 *   prio DOMAIN NODE RDOMAIN RNODE RPORT N      N items at priority 5, then N at 0
 *   precv DOMAIN NODE PORT N                    waits for 2N queued, checks 0s first
 *   get DOMAIN NODE RDOMAIN RNODE RPORT TIMEOUT prints the status of the get
 *   pktrecv DOMAIN NODE PORT COUNT [pace|stop|GOFILE]  opens a packet channel's receive side,
 *                                               checks COUNT packets, then the sender's close
 *                                               (stop: closes after COUNT, the sender still on;
 *                                               GOFILE: reads nothing until that file exists)
 *   pktsend DOMAIN NODE RDOMAIN RNODE RPORT COUNT [STEP]  connects a packet channel to the
 *                                               remote endpoint, sends COUNT packets (prints
 *                                               "sent N" every STEP), closes
 *   pktsendo DOMAIN NODE PORT COUNT             opens the send side of its endpoint PORT
 *                                               (a remote program connects it), sends COUNT, closes
 *   pktrecvc DOMAIN NODE PORT RDOMAIN RNODE RPORT COUNT [pace|stop]  connects the remote
 *                                               endpoint (the sender) to its endpoint PORT, then as
 *                                               pktrecv (stop: closes after COUNT, sender still on)
 *   sclsend DOMAIN NODE RDOMAIN RNODE RPORT COUNT [STEP]  connects a scalar channel to the
 *                                               remote endpoint, sends COUNT scalars of widths 8, 4,
 *                                               2, 1 in turn (progress every STEP, 100), closes
 *   sclrecv DOMAIN NODE PORT COUNT [GOFILE|stop]  opens a scalar channel's receive side (then,
 *                                               with GOFILE, waits for that file to exist), checks
 *                                               COUNT scalars and their widths (every 7th first
 *                                               with a wrong width: MCAPI_ERR_SCL_SIZE), then the close
 *                                               (stop: closes after COUNT, the sender still on)
 *   sclsendo DOMAIN NODE PORT COUNT [STEP]      opens the send side of its endpoint PORT (a
 *                                               remote program connects it), sends COUNT scalars
 *                                               as sclsend, closes
 *   sclrecvc DOMAIN NODE PORT RDOMAIN RNODE RPORT COUNT [GOFILE|stop]  connects the remote
 *                                               endpoint (the sender) to its endpoint PORT, then
 *                                               as sclrecv
 *   geti DOMAIN NODE RDOMAIN RNODE GOFILE COUNT  mcapi_endpoint_get_i of the remote ports
 *                                               40..45 at once (44 cancelled, a wait with timeout
 *                                               on 45, a get in the unconfigured domain 9); 42,
 *                                               43 and 45 are created only after GOFILE (which it
 *                                               makes once 40 and 41 completed and 42 and 43 did
 *                                               not); sends COUNT items to each handle got; then a
 *                                               get_i of port 99, which the test ends by killing
 *                                               the local bridge; checks every status itself
 *   getipeer DOMAIN NODE GOFILE COUNT [LATE_MS]  creates ports 40, 41, and 42, 43 once GOFILE
 *                                               exists, 45 LATE_MS after them; receives COUNT
 *                                               items on each, in order
 *   chsend DOMAIN NODE RDOMAIN RNODE RPORT COUNT pkt|scl  a channel through a bridge that is
 *                                               killed: connects, sends 1, 2, ... until a send
 *                                               fails (must be MCAPI_ERR_CHAN_NOTOPEN), closes;
 *                                               then gets the endpoint again, connects a new
 *                                               channel and sends COUNT (again while a send fails
 *                                               with MCAPI_ERR_CHAN_NOTOPEN before COUNT: the
 *                                               receiver had not closed yet), closes
 *   chrecv DOMAIN NODE PORT COUNT pkt|scl       its pair: receives until MCAPI_ERR_CHAN_NOTOPEN,
 *                                               each item in order from 1, intact (paced), closes,
 *                                               opens again and receives COUNT, then the close
 *
 * An item is {sender, sequence, priority, check} followed by a fill pattern
 * of the sequence. `recv` fails on a duplicate, a reorder, a torn payload,
 * and (unless "loss" is given) a gap; it prints what it saw. The sender
 * prints the sequence of every item a send refused (and carries on with the
 * next item after MCAPI_ERR_ENDP_INVALID/DELETED by getting the endpoint again).
 * A `recv` without "loss" thus checks that every item whose send succeeded
 * arrived once, in order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mcapi.h"
#include "../mcx_test.h"

#define FILL 200

typedef struct item {
  uint32_t sender, seq, prio, check;
  uint8_t fill[FILL];
} item_t;

static void die(const char *what, mcapi_status_t st)
{
  char m[MCAPI_MAX_STATUS_SIZE];
  fprintf(stderr, "bridge_node: %s: %s\n", what, mcapi_display_status(st, m, sizeof m));
  exit(1);
}

/* A ceiling of @p ms milliseconds times MCX_TEST_TIMEOUT_SCALE (a positive
 * number, 1.5 allowed; 1 when unset): a slow machine waits longer, it does
 * not fail. A value that is not a number stops the program with a message. */
static unsigned long scaled_ms(unsigned long ms)
{
  static double k;
  if (k == 0) {
    const char *v = getenv("MCX_TEST_TIMEOUT_SCALE");
    char *end = NULL;
    k = v && *v ? strtod(v, &end) : 1;
    if (v && *v && (*end || !(k > 0) || k > 1000)) {
      fprintf(stderr, "bridge_node: MCX_TEST_TIMEOUT_SCALE must be a positive number (like 2 or 1.5), not '%s'\n", v);
      exit(2);
    }
  }
  double t = (double)ms * k;
  return t > 4.0e9 ? 4000000000ul : (unsigned long)t;
}

static int file_exists(void *path) { return access(path, F_OK) == 0; }

/* Waits until the test script has made @p path (an event), at most @p ms
 * milliseconds (scaled); whether it exists. */
static int await_file(const char *path, unsigned long ms)
{
  return mcx_test_wait_until(file_exists, (void *)path, (uint32_t)scaled_ms(ms));
}

static void init(unsigned long d, unsigned long n)
{
  mcapi_info_t info;
  mcapi_status_t st;
  mcapi_initialize((mcapi_domain_t)d, (mcapi_node_t)n, NULL, NULL, &info, &st);
  if (st != MCAPI_SUCCESS)
    die("initialize", st);
}

static void make(item_t *it, uint32_t seq, uint32_t prio)
{
  it->sender = 7;
  it->seq = seq;
  it->prio = prio;
  it->check = seq * 2654435761u;
  for (int i = 0; i < FILL; i++)
    it->fill[i] = (uint8_t)(seq + (uint32_t)i);
}

static int intact(const item_t *it)
{
  if (it->check != it->seq * 2654435761u || it->sender != 7)
    return 0;
  for (int i = 0; i < FILL; i++)
    if (it->fill[i] != (uint8_t)(it->seq + (uint32_t)i))
      return 0;
  return 1;
}

static mcapi_endpoint_t get_remote(unsigned long rd, unsigned long rn, unsigned long rp)
{
  mcapi_status_t st;
  mcapi_endpoint_t h = 0;
  /* The bridge may be restarting (MCAPI_ERR_DOMAIN_INVALID meanwhile): 30 s (scaled). */
  for (unsigned long i = 0; i < scaled_ms(30000) / 100; i++) {
    h = mcapi_endpoint_get((mcapi_domain_t)rd, (mcapi_node_t)rn, (mcapi_port_t)rp,
                           (mcapi_timeout_t)scaled_ms(30000), &st);
    if (st != MCAPI_ERR_DOMAIN_INVALID)
      break;
    struct timespec ts = {0, 100000000};
    nanosleep(&ts, NULL);
  }
  if (st != MCAPI_SUCCESS)
    die("endpoint_get of the remote endpoint", st);
  return h;
}

/* Scalar i: its width and value (the wider ones carry i: a reorder shows). */
static unsigned scl_width(unsigned long i) { return 8u >> (i % 4); }
static uint64_t scl_value(unsigned long i)
{
  switch (scl_width(i)) {
  case 8: return (uint64_t)i << 32 | (uint32_t)(i * 2654435761u);
  case 4: return (uint32_t)i;
  case 2: return (uint16_t)(i * 40503u);
  default: return (uint8_t)(i * 151u);
  }
}
static uint64_t scl_recv_w(mcapi_sclchan_recv_hndl_t h, unsigned w, mcapi_status_t *st)
{
  switch (w) {
  case 8: return mcapi_sclchan_recv_uint64(h, st);
  case 4: return mcapi_sclchan_recv_uint32(h, st);
  case 2: return mcapi_sclchan_recv_uint16(h, st);
  default: return mcapi_sclchan_recv_uint8(h, st);
  }
}

/* Checks COUNT scalars on an open channel (widths 8, 4, 2, 1 in turn, every
 * 7th first received with a wrong width), then the sender's close; @p arg
 * "stop": closes after COUNT instead; another: a file to wait for first. */
static int scl_check(const char *mode, mcapi_sclchan_recv_hndl_t rh, unsigned long count, const char *arg)
{
  mcapi_status_t st;
  mcapi_request_t req;
  size_t sz;
  int stop = arg && !strcmp(arg, "stop"); /* COUNT scalars, then close */
  if (arg && !stop) { /* hold: nothing is read until GOFILE exists */
    printf("holding\n");
    fflush(stdout);
    await_file(arg, 60000);
  }
  unsigned long refused = 0;
  char m[MCAPI_MAX_STATUS_SIZE];
  for (unsigned long i = 1; i <= count; i++) {
    unsigned w = scl_width(i);
    uint64_t v;
    if (i % 7 == 0) { /* a receive of another width: refused, the scalar stays */
      v = scl_recv_w(rh, w == 1 ? 8 : w / 2, &st);
      if (st != MCAPI_ERR_SCL_SIZE) {
        printf("%s: scalar %lu (width %u) received with width %u: %s\n", mode, i, w, w == 1 ? 8 : w / 2,
               mcapi_display_status(st, m, sizeof m));
        return 1;
      }
      refused++;
    }
    v = scl_recv_w(rh, w, &st);
    if (st != MCAPI_SUCCESS) {
      printf("%s: scalar %lu (width %u): %s\n", mode, i, w, mcapi_display_status(st, m, sizeof m));
      return 1;
    }
    if (v != scl_value(i)) {
      printf("%s: scalar %lu (width %u) is %#llx, expected %#llx\n", mode, i, w, (unsigned long long)v,
             (unsigned long long)scl_value(i));
      return 1;
    }
  }
  if (stop) {
    mcapi_sclchan_recv_close_i(rh, &req, &st);
    mcapi_wait(&req, &sz, (mcapi_timeout_t)scaled_ms(10000), &st);
    printf("%s: %lu scalars in order with their widths, closed: %s\n", mode, count,
           mcapi_display_status(st, m, sizeof m));
    mcapi_finalize(&st);
    return 0;
  }
  scl_recv_w(rh, 8, &st); /* the sender has closed: nothing more */
  printf("%s: %lu scalars in order with their widths, %lu wrong-width receives refused, then %s\n", mode, count,
         refused, mcapi_display_status(st, m, sizeof m));
  mcapi_sclchan_recv_close_i(rh, &req, &st);
  mcapi_wait(&req, &sz, (mcapi_timeout_t)scaled_ms(10000), &st);
  mcapi_finalize(&st);
  return 0;
}

/* Sends COUNT scalars of widths 8, 4, 2, 1 in turn (progress every STEP), closes. */
static int scl_send_all(const char *mode, mcapi_sclchan_send_hndl_t sh, unsigned long count, unsigned long step)
{
  mcapi_status_t st;
  mcapi_request_t req;
  size_t sz;
  char m[MCAPI_MAX_STATUS_SIZE];
  step = step ? step : 100;
  for (unsigned long i = 1; i <= count; i++) {
    uint64_t v = scl_value(i);
    switch (scl_width(i)) {
    case 8: mcapi_sclchan_send_uint64(sh, v, &st); break;
    case 4: mcapi_sclchan_send_uint32(sh, (mcapi_uint32_t)v, &st); break;
    case 2: mcapi_sclchan_send_uint16(sh, (mcapi_uint16_t)v, &st); break;
    default: mcapi_sclchan_send_uint8(sh, (mcapi_uint8_t)v, &st); break;
    }
    if (st != MCAPI_SUCCESS) { /* the remote receiver closed? */
      printf("%s: %lu scalars sent, then %s\n", mode, i - 1, mcapi_display_status(st, m, sizeof m));
      mcapi_finalize(&st);
      return 3;
    }
    if (i % step == 0) {
      printf("sent %lu\n", i);
      fflush(stdout);
    }
  }
  mcapi_sclchan_send_close_i(sh, &req, &st);
  mcapi_wait(&req, &sz, (mcapi_timeout_t)scaled_ms(30000), &st);
  printf("%s: %lu scalars sent, close: %s\n", mode, count, mcapi_display_status(st, m, sizeof m));
  mcapi_finalize(&st);
  return 0;
}

/* Receives COUNT packets on an open channel, checks each, then the close. */
static int pkt_check(const char *mode, mcapi_pktchan_recv_hndl_t rh, unsigned long count, int pace, const char *go)
{
  mcapi_status_t st;
  size_t sz;
  if (go) { /* hold: nothing is read until GOFILE exists (at most 120 s) */
    printf("holding\n");
    fflush(stdout);
    await_file(go, 120000);
  }
  for (unsigned long i = 1; i <= count; i++) {
    item_t *it;
    mcapi_pktchan_recv(rh, (void **)&it, &sz, &st);
    if (st != MCAPI_SUCCESS)
      die("pktchan_recv", st);
    if (sz != sizeof *it || !intact(it) || it->seq != i) {
      printf("%s: packet %lu is seq %u (size %zu, %s)\n", mode, i, it->seq, sz, intact(it) ? "intact" : "TORN");
      return 1;
    }
    mcapi_pktchan_release(it, &st);
    if (pace && i % 20 == 0) { /* slower than the sender: its channel fills */
      struct timespec ts = {0, 1000000};
      nanosleep(&ts, NULL);
    }
  }
  void *more;
  mcapi_pktchan_recv(rh, &more, &sz, &st); /* the sender has closed: nothing more */
  char m[MCAPI_MAX_STATUS_SIZE];
  printf("%s: %lu packets in order, then %s\n", mode, count, mcapi_display_status(st, m, sizeof m));
  mcapi_request_t req;
  mcapi_pktchan_recv_close_i(rh, &req, &st);
  mcapi_wait(&req, &sz, (mcapi_timeout_t)scaled_ms(10000), &st);
  mcapi_finalize(&st);
  return 0;
}

/* Receives COUNT packets, then closes while the sender still sends. */
static int pkt_stop(const char *mode, mcapi_pktchan_recv_hndl_t rh, unsigned long count)
{
  mcapi_status_t st;
  mcapi_request_t req;
  size_t sz;
  for (unsigned long i = 1; i <= count; i++) {
    item_t *it;
    mcapi_pktchan_recv(rh, (void **)&it, &sz, &st);
    if (st != MCAPI_SUCCESS)
      die("pktchan_recv", st);
    if (sz != sizeof *it || !intact(it) || it->seq != i) {
      printf("%s: packet %lu is seq %u\n", mode, i, it->seq);
      return 1;
    }
    mcapi_pktchan_release(it, &st);
  }
  mcapi_pktchan_recv_close_i(rh, &req, &st);
  mcapi_wait(&req, &sz, (mcapi_timeout_t)scaled_ms(10000), &st);
  char m[MCAPI_MAX_STATUS_SIZE];
  printf("%s: %lu packets in order, closed: %s\n", mode, count, mcapi_display_status(st, m, sizeof m));
  mcapi_finalize(&st);
  return 0;
}

/* chsend / chrecv (a bridge killed while the channel is open): one item. */
static void ch_send(int scl, mcapi_pktchan_send_hndl_t ph, mcapi_sclchan_send_hndl_t sh, uint32_t i,
                    mcapi_status_t *st)
{
  if (scl) {
    mcapi_sclchan_send_uint64(sh, scl_value(4 * (unsigned long)i), st); /* i << 34 | check */
    return;
  }
  item_t it;
  make(&it, i, 0);
  mcapi_pktchan_send(ph, &it, sizeof it, st);
}

/* Receives one item; its sequence number, 0 when it is torn. */
static uint32_t ch_recv(int scl, mcapi_pktchan_recv_hndl_t ph, mcapi_sclchan_recv_hndl_t sh, mcapi_status_t *st)
{
  if (scl) {
    uint64_t v = mcapi_sclchan_recv_uint64(sh, st);
    uint32_t i = (uint32_t)(v >> 34);
    return *st != MCAPI_SUCCESS || v != scl_value(4 * (unsigned long)i) ? 0 : i;
  }
  item_t *it;
  size_t sz;
  mcapi_pktchan_recv(ph, (void **)&it, &sz, st);
  if (*st != MCAPI_SUCCESS)
    return 0;
  uint32_t i = sz == sizeof *it && intact(it) ? it->seq : 0;
  mcapi_status_t r;
  mcapi_pktchan_release(it, &r);
  return i;
}

static int ch_sender(int scl, unsigned long rd, unsigned long rn, unsigned long rp, unsigned long count)
{
  mcapi_status_t st;
  mcapi_request_t req;
  size_t sz;
  char m[MCAPI_MAX_STATUS_SIZE];
  const char *k = scl ? "scl" : "pkt";
  mcapi_endpoint_t me = mcapi_endpoint_create(MCAPI_PORT_ANY, &st);
  if (st != MCAPI_SUCCESS)
    die("endpoint_create", st);
  mcapi_timeout_t t = (mcapi_timeout_t)scaled_ms(60000);
  mcapi_endpoint_set_attribute(me, MCAPI_ENDP_ATTR_TIMEOUT, &t, sizeof t, &st);
  for (int phase = 1, attempt = 0; phase <= 2; attempt++) {
    if (attempt > 50) {
      printf("chsend %s: no working channel after 50 attempts\n", k);
      return 1;
    }
    mcapi_endpoint_t to = get_remote(rd, rn, rp);
    mcapi_pktchan_send_hndl_t ph = 0;
    mcapi_sclchan_send_hndl_t sh = 0;
    if (scl)
      mcapi_sclchan_connect_i(me, to, &req, &st);
    else
      mcapi_pktchan_connect_i(me, to, &req, &st);
    mcapi_wait(&req, &sz, (mcapi_timeout_t)scaled_ms(10000), &st);
    if (st != MCAPI_SUCCESS) { /* the proxy went with its bridge meanwhile */
      printf("chsend %s: connect: %s\n", k, mcapi_display_status(st, m, sizeof m));
      struct timespec ts = {0, 100000000};
      nanosleep(&ts, NULL);
      continue;
    }
    if (scl)
      mcapi_sclchan_send_open_i(&sh, me, &req, &st);
    else
      mcapi_pktchan_send_open_i(&ph, me, &req, &st);
    mcapi_wait(&req, &sz, (mcapi_timeout_t)scaled_ms(30000), &st);
    if (st != MCAPI_SUCCESS)
      die("chan send open", st);
    uint32_t i = 1;
    for (; phase == 1 || i <= count; i++) {
      ch_send(scl, ph, sh, i, &st);
      if (st != MCAPI_SUCCESS)
        break;
      if (i % 1000 == 0) {
        printf("sent %u\n", i);
        fflush(stdout);
      }
    }
    printf("chsend %s phase %d: %u sent, then %s\n", k, phase, i - 1,
           st == MCAPI_SUCCESS ? "done" : mcapi_display_status(st, m, sizeof m));
    fflush(stdout);
    if (st != MCAPI_SUCCESS && st != MCAPI_ERR_CHAN_NOTOPEN)
      return 1; /* a channel ends with MCAPI_ERR_CHAN_NOTOPEN, nothing else */
    if (scl)
      mcapi_sclchan_send_close_i(sh, &req, &st);
    else
      mcapi_pktchan_send_close_i(ph, &req, &st);
    mcapi_wait(&req, &sz, (mcapi_timeout_t)scaled_ms(30000), &st);
    printf("chsend %s phase %d: close %s\n", k, phase, mcapi_display_status(st, m, sizeof m));
    fflush(stdout);
    if (phase == 2 && i > count)
      break;
    phase = 2; /* after the end of phase 1, or an attempt of phase 2 the receiver did not take yet */
  }
  printf("chsend %s: %lu sent on the new channel, closed\n", k, count);
  mcapi_finalize(&st);
  return 0;
}

static int ch_receiver(int scl, unsigned long port, unsigned long count)
{
  mcapi_status_t st;
  mcapi_request_t req;
  size_t sz;
  char m[MCAPI_MAX_STATUS_SIZE];
  const char *k = scl ? "scl" : "pkt";
  mcapi_endpoint_t ep = mcapi_endpoint_create((mcapi_port_t)port, &st);
  if (st != MCAPI_SUCCESS)
    die("endpoint_create", st);
  mcapi_timeout_t t = (mcapi_timeout_t)scaled_ms(60000); /* bounded: a channel that never ends fails the test */
  mcapi_endpoint_set_attribute(ep, MCAPI_ENDP_ATTR_TIMEOUT, &t, sizeof t, &st);
  for (int phase = 1; phase <= 2; phase++) {
    mcapi_pktchan_recv_hndl_t ph = 0;
    mcapi_sclchan_recv_hndl_t sh = 0;
    if (scl)
      mcapi_sclchan_recv_open_i(&sh, ep, &req, &st);
    else
      mcapi_pktchan_recv_open_i(&ph, ep, &req, &st);
    printf("ready %d\n", phase);
    fflush(stdout);
    mcapi_wait(&req, &sz, (mcapi_timeout_t)scaled_ms(60000), &st);
    if (st != MCAPI_SUCCESS)
      die("chan recv open", st);
    uint32_t last = 0;
    for (;;) {
      uint32_t i = ch_recv(scl, ph, sh, &st);
      if (st != MCAPI_SUCCESS)
        break;
      if (i != last + 1) { /* a duplicate, a reorder, a gap or a torn item */
        printf("chrecv %s phase %d: item %u after %u%s\n", k, phase, i, last, i ? "" : " (torn)");
        return 1;
      }
      last = i;
      if (i % 1000 == 0) {
        printf("progress %u\n", i);
        fflush(stdout);
      }
      if (phase == 1 && i % 20 == 0) { /* slower than the sender: its channel and the window fill */
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
      }
    }
    printf("chrecv %s phase %d: items 1..%u in order, intact, then %s\n", k, phase, last,
           mcapi_display_status(st, m, sizeof m));
    fflush(stdout);
    if (st != MCAPI_ERR_CHAN_NOTOPEN || (phase == 2 && last != count))
      return 1;
    if (scl)
      mcapi_sclchan_recv_close_i(sh, &req, &st);
    else
      mcapi_pktchan_recv_close_i(ph, &req, &st);
    mcapi_wait(&req, &sz, (mcapi_timeout_t)scaled_ms(10000), &st);
    printf("chrecv %s phase %d: close %s\n", k, phase, mcapi_display_status(st, m, sizeof m));
    fflush(stdout);
  }
  mcapi_finalize(&st);
  return 0;
}

/* geti: checks one status, says which call gave what. */
static int failures;
static void expect(const char *what, mcapi_status_t got, mcapi_status_t want)
{
  char g[MCAPI_MAX_STATUS_SIZE], w[MCAPI_MAX_STATUS_SIZE];
  mcapi_display_status(got, g, sizeof g);
  printf("geti: %s: %s", what, g);
  if (got != want) {
    printf(", expected %s: FAIL", mcapi_display_status(want, w, sizeof w));
    failures++;
  }
  printf("\n");
  fflush(stdout);
}

static int geti(mcapi_domain_t rd, mcapi_node_t rn, const char *go, unsigned long count)
{
  /* mca-2.0.3 reports a pending request's call and test as MCAPI_SUCCESS. */
  const char *c = getenv("MCX_COMPAT");
  int ref = c && !strcmp(c, "mca-2.0.3");
  mcapi_status_t pending = ref ? MCAPI_SUCCESS : MCAPI_PENDING, st;
  static const mcapi_port_t ports[] = {40, 41, 42, 43, 44, 45};
  mcapi_endpoint_t h[6] = {0}, hu = 0;
  mcapi_request_t rq[6], ru;
  size_t sz;
  char what[80];
  for (int i = 0; i < 6; i++) {
    mcapi_endpoint_get_i(rd, rn, ports[i], &h[i], &rq[i], &st);
    snprintf(what, sizeof what, "get_i of port %u returns", ports[i]);
    expect(what, st, pending);
  }
  mcapi_endpoint_get_i(9, rn, 40, &hu, &ru, &st);
  expect("get_i in the unconfigured domain 9 returns", st, pending);
  mcapi_wait(&ru, &sz, 20000, &st);
  expect("its wait", st, MCAPI_ERR_DOMAIN_INVALID);
  /* Port 45 does not exist yet: the wait times out, the request stays. */
  mcapi_boolean_t done = mcapi_wait(&rq[5], &sz, 300, &st);
  expect("wait(300 ms) of port 45 (not created yet)", st, MCAPI_TIMEOUT);
  done |= mcapi_test(&rq[5], &sz, &st);
  expect("then its test", st, pending);
  if (done) {
    printf("geti: the request of port 45 completed before the port existed: FAIL\n");
    failures++;
  }
  mcapi_cancel(&rq[4], &st);
  expect("cancel of port 44", st, MCAPI_SUCCESS);
  mcapi_wait(&rq[4], &sz, 1000, &st);
  expect("its wait", st, MCAPI_ERR_REQUEST_CANCELLED);
  /* 40 and 41 exist: both complete, whichever comes first. */
  mcapi_request_t *two[2] = {&rq[0], &rq[1]};
  mcapi_uint_t i = mcapi_wait_any(2, two, &sz, 20000, &st);
  expect("wait_any of ports 40, 41", st, MCAPI_SUCCESS);
  if (i >= 2)
    return 1;
  mcapi_wait(two[1 - i], &sz, 20000, &st); /* the other one */
  expect("wait of the other", st, MCAPI_SUCCESS);
  /* 42 and 43 do not exist yet: still pending. */
  for (int i = 2; i < 4; i++) {
    if (mcapi_test(&rq[i], &sz, &st)) {
      printf("geti: the request of port %u completed before the port existed: FAIL\n", ports[i]);
      failures++;
    }
    snprintf(what, sizeof what, "test of port %u (not created yet)", ports[i]);
    expect(what, st, pending);
  }
  FILE *f = fopen(go, "w"); /* the remote program creates 42, 43, 45 now */
  if (f)
    fclose(f);
  mcapi_request_t *three[3] = {&rq[2], &rq[3], &rq[5]};
  int left = 3;
  while (left > 0) {
    mcapi_request_t *live[3];
    int map[3], n = 0;
    for (int i = 0; i < 3; i++)
      if (three[i])
        map[n] = i, live[n++] = three[i];
    i = mcapi_wait_any((size_t)n, live, &sz, 20000, &st);
    expect("wait_any of ports 42, 43, 45 (created later)", st, MCAPI_SUCCESS);
    if (st != MCAPI_SUCCESS || i >= (mcapi_uint_t)n)
      return 1;
    three[map[i]] = NULL;
    left--;
  }
  /* Each request wrote its own handle: five different proxies. */
  static const int got[] = {0, 1, 2, 3, 5};
  for (int a = 0; a < 5; a++)
    for (int b = 0; b < a; b++)
      if (!h[got[a]] || h[got[a]] == h[got[b]]) {
        printf("geti: handles of ports %u and %u: %#x %#x: FAIL\n", ports[got[a]], ports[got[b]],
               (unsigned)h[got[a]], (unsigned)h[got[b]]);
        failures++;
      }
  mcapi_endpoint_t me = mcapi_endpoint_create(MCAPI_PORT_ANY, &st);
  if (st != MCAPI_SUCCESS)
    die("endpoint_create", st);
  mcapi_timeout_t t = (mcapi_timeout_t)scaled_ms(60000);
  mcapi_endpoint_set_attribute(me, MCAPI_ENDP_ATTR_TIMEOUT, &t, sizeof t, &st);
  for (unsigned long k = 1; k <= count; k++)
    for (int a = 0; a < 5; a++) {
      item_t it;
      make(&it, (uint32_t)k, ports[got[a]]);
      for (int tries = 0;; tries++) { /* mca-2.0.3: a full queue refuses at once */
        mcapi_msg_send(me, h[got[a]], &it, sizeof it, 1, &st);
        if (st != MCAPI_ERR_MEM_LIMIT || tries == 6000)
          break;
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
      }
      if (st != MCAPI_SUCCESS)
        die("msg_send to a handle got with get_i", st);
    }
  printf("geti: sent %lu items to each of the 5 handles\n", count);
  /* The local bridge dies while a get_i waits: the request completes with
   * the status of the blocking get, MCAPI_ERR_DOMAIN_INVALID. */
  mcapi_endpoint_t h99 = 0;
  mcapi_request_t r99;
  mcapi_endpoint_get_i(rd, rn, 99, &h99, &r99, &st);
  expect("get_i of port 99 (never created) returns", st, pending);
  printf("pending 99\n");
  fflush(stdout);
  mcapi_wait(&r99, &sz, (mcapi_timeout_t)scaled_ms(60000), &st);
  expect("its wait, the local bridge killed meanwhile", st, MCAPI_ERR_DOMAIN_INVALID);
  /* No bridge now: the call itself says so (mca-2.0.3: and its request). */
  mcapi_endpoint_get_i(rd, rn, 40, &h99, &r99, &st);
  expect("get_i without a bridge returns", st, MCAPI_ERR_DOMAIN_INVALID);
  if (ref) {
    mcapi_wait(&r99, &sz, 1000, &st);
    expect("its wait (mca-2.0.3: a completed request carries the error)", st, MCAPI_ERR_DOMAIN_INVALID);
  }
  mcapi_finalize(&st);
  printf("geti: %d failure(s)\n", failures);
  return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
  if (argc < 4)
    return 2;
  const char *mode = argv[1];
  unsigned long d = strtoul(argv[2], NULL, 10), n = strtoul(argv[3], NULL, 10);
  mcapi_status_t st;
  init(d, n);
  if (!strcmp(mode, "chsend") && argc >= 9)
    return ch_sender(!strcmp(argv[8], "scl"), strtoul(argv[4], NULL, 10), strtoul(argv[5], NULL, 10),
                     strtoul(argv[6], NULL, 10), strtoul(argv[7], NULL, 10));
  if (!strcmp(mode, "chrecv") && argc >= 7)
    return ch_receiver(!strcmp(argv[6], "scl"), strtoul(argv[4], NULL, 10), strtoul(argv[5], NULL, 10));
  if (!strcmp(mode, "pktrecv")) {
    unsigned long port = strtoul(argv[4], NULL, 10), count = strtoul(argv[5], NULL, 10);
    mcapi_endpoint_t ep = mcapi_endpoint_create((mcapi_port_t)port, &st);
    if (st != MCAPI_SUCCESS)
      die("endpoint_create", st);
    mcapi_timeout_t t = (mcapi_timeout_t)scaled_ms(60000);
    mcapi_endpoint_set_attribute(ep, MCAPI_ENDP_ATTR_TIMEOUT, &t, sizeof t, &st);
    mcapi_pktchan_recv_hndl_t rh;
    mcapi_request_t req;
    size_t sz;
    mcapi_pktchan_recv_open_i(&rh, ep, &req, &st);
    printf("ready\n");
    fflush(stdout);
    mcapi_wait(&req, &sz, (mcapi_timeout_t)scaled_ms(60000), &st);
    if (st != MCAPI_SUCCESS)
      die("pktchan_recv_open", st);
    if (argc > 6 && !strcmp(argv[6], "stop"))
      return pkt_stop("pktrecv", rh, count);
    return pkt_check("pktrecv", rh, count, argc > 6 && !strcmp(argv[6], "pace"),
                     argc > 6 && argv[6][0] == '/' ? argv[6] : NULL);
  }
  if (!strcmp(mode, "pktrecvc") && argc >= 9) {
    unsigned long port = strtoul(argv[4], NULL, 10), rd = strtoul(argv[5], NULL, 10),
                  rn = strtoul(argv[6], NULL, 10), rp = strtoul(argv[7], NULL, 10),
                  count = strtoul(argv[8], NULL, 10);
    mcapi_endpoint_t ep = mcapi_endpoint_create((mcapi_port_t)port, &st);
    if (st != MCAPI_SUCCESS)
      die("endpoint_create", st);
    mcapi_timeout_t t = (mcapi_timeout_t)scaled_ms(60000);
    mcapi_endpoint_set_attribute(ep, MCAPI_ENDP_ATTR_TIMEOUT, &t, sizeof t, &st);
    mcapi_endpoint_t from = get_remote(rd, rn, rp);
    mcapi_request_t req;
    size_t sz;
    mcapi_pktchan_connect_i(from, ep, &req, &st); /* the remote endpoint sends */
    mcapi_wait(&req, &sz, (mcapi_timeout_t)scaled_ms(10000), &st);
    if (st != MCAPI_SUCCESS)
      die("pktchan_connect (remote sender)", st);
    mcapi_pktchan_recv_hndl_t rh;
    mcapi_pktchan_recv_open_i(&rh, ep, &req, &st);
    mcapi_wait(&req, &sz, (mcapi_timeout_t)scaled_ms(60000), &st);
    if (st != MCAPI_SUCCESS)
      die("pktchan_recv_open", st);
    printf("ready\n");
    fflush(stdout);
    if (argc > 9 && !strcmp(argv[9], "stop"))
      return pkt_stop("pktrecvc", rh, count);
    return pkt_check("pktrecvc", rh, count, argc > 9 && !strcmp(argv[9], "pace"), NULL);
  }
  if (!strcmp(mode, "pktsendo") && argc >= 6) {
    unsigned long port = strtoul(argv[4], NULL, 10), count = strtoul(argv[5], NULL, 10);
    mcapi_endpoint_t me = mcapi_endpoint_create((mcapi_port_t)port, &st);
    if (st != MCAPI_SUCCESS)
      die("endpoint_create", st);
    mcapi_timeout_t t = (mcapi_timeout_t)scaled_ms(60000);
    mcapi_endpoint_set_attribute(me, MCAPI_ENDP_ATTR_TIMEOUT, &t, sizeof t, &st);
    mcapi_pktchan_send_hndl_t sh;
    mcapi_request_t req;
    size_t sz;
    /* Not connected yet: the open completes once a remote program has connected it. */
    mcapi_pktchan_send_open_i(&sh, me, &req, &st);
    printf("ready\n");
    fflush(stdout);
    mcapi_wait(&req, &sz, (mcapi_timeout_t)scaled_ms(60000), &st);
    if (st != MCAPI_SUCCESS)
      die("pktchan_send_open", st);
    char m[MCAPI_MAX_STATUS_SIZE];
    for (unsigned long i = 1; i <= count; i++) {
      item_t it;
      make(&it, (uint32_t)i, 0);
      mcapi_pktchan_send(sh, &it, sizeof it, &st);
      if (st != MCAPI_SUCCESS) { /* the remote receiver closed? */
        printf("pktsendo: %lu packets sent, then %s\n", i - 1, mcapi_display_status(st, m, sizeof m));
        mcapi_finalize(&st);
        return 3;
      }
    }
    mcapi_pktchan_send_close_i(sh, &req, &st);
    mcapi_wait(&req, &sz, (mcapi_timeout_t)scaled_ms(30000), &st);
    printf("pktsendo: %lu packets sent, close: %s\n", count, mcapi_display_status(st, m, sizeof m));
    mcapi_finalize(&st);
    return 0;
  }
  if (!strcmp(mode, "sclrecv") && argc >= 6) {
    unsigned long port = strtoul(argv[4], NULL, 10), count = strtoul(argv[5], NULL, 10);
    mcapi_endpoint_t ep = mcapi_endpoint_create((mcapi_port_t)port, &st);
    if (st != MCAPI_SUCCESS)
      die("endpoint_create", st);
    mcapi_timeout_t t = (mcapi_timeout_t)scaled_ms(60000);
    mcapi_endpoint_set_attribute(ep, MCAPI_ENDP_ATTR_TIMEOUT, &t, sizeof t, &st);
    mcapi_sclchan_recv_hndl_t rh;
    mcapi_request_t req;
    size_t sz;
    mcapi_sclchan_recv_open_i(&rh, ep, &req, &st);
    printf("ready\n");
    fflush(stdout);
    mcapi_wait(&req, &sz, (mcapi_timeout_t)scaled_ms(60000), &st);
    if (st != MCAPI_SUCCESS)
      die("sclchan_recv_open", st);
    return scl_check("sclrecv", rh, count, argc > 6 ? argv[6] : NULL);
  }
  if (!strcmp(mode, "sclrecvc") && argc >= 9) {
    unsigned long port = strtoul(argv[4], NULL, 10), rd = strtoul(argv[5], NULL, 10),
                  rn = strtoul(argv[6], NULL, 10), rp = strtoul(argv[7], NULL, 10),
                  count = strtoul(argv[8], NULL, 10);
    mcapi_endpoint_t ep = mcapi_endpoint_create((mcapi_port_t)port, &st);
    if (st != MCAPI_SUCCESS)
      die("endpoint_create", st);
    mcapi_timeout_t t = (mcapi_timeout_t)scaled_ms(60000);
    mcapi_endpoint_set_attribute(ep, MCAPI_ENDP_ATTR_TIMEOUT, &t, sizeof t, &st);
    mcapi_endpoint_t from = get_remote(rd, rn, rp);
    mcapi_request_t req;
    size_t sz;
    mcapi_sclchan_connect_i(from, ep, &req, &st); /* the remote endpoint sends */
    mcapi_wait(&req, &sz, (mcapi_timeout_t)scaled_ms(10000), &st);
    if (st != MCAPI_SUCCESS)
      die("sclchan_connect (remote sender)", st);
    mcapi_sclchan_recv_hndl_t rh;
    mcapi_sclchan_recv_open_i(&rh, ep, &req, &st);
    mcapi_wait(&req, &sz, (mcapi_timeout_t)scaled_ms(60000), &st);
    if (st != MCAPI_SUCCESS)
      die("sclchan_recv_open", st);
    printf("ready\n");
    fflush(stdout);
    return scl_check("sclrecvc", rh, count, argc > 9 ? argv[9] : NULL);
  }
  if (!strcmp(mode, "sclsendo") && argc >= 6) {
    unsigned long port = strtoul(argv[4], NULL, 10), count = strtoul(argv[5], NULL, 10);
    unsigned long step = argc > 6 ? strtoul(argv[6], NULL, 10) : 100;
    mcapi_endpoint_t me = mcapi_endpoint_create((mcapi_port_t)port, &st);
    if (st != MCAPI_SUCCESS)
      die("endpoint_create", st);
    mcapi_timeout_t t = (mcapi_timeout_t)scaled_ms(60000);
    mcapi_endpoint_set_attribute(me, MCAPI_ENDP_ATTR_TIMEOUT, &t, sizeof t, &st);
    mcapi_sclchan_send_hndl_t sh;
    mcapi_request_t req;
    size_t sz;
    /* Not connected yet: the open completes once a remote program has connected it. */
    mcapi_sclchan_send_open_i(&sh, me, &req, &st);
    printf("ready\n");
    fflush(stdout);
    mcapi_wait(&req, &sz, (mcapi_timeout_t)scaled_ms(60000), &st);
    if (st != MCAPI_SUCCESS)
      die("sclchan_send_open", st);
    return scl_send_all("sclsendo", sh, count, step);
  }
  if (!strcmp(mode, "getipeer") && argc >= 6) {
    const char *go = argv[4];
    unsigned long count = strtoul(argv[5], NULL, 10), late_ms = argc > 6 ? strtoul(argv[6], NULL, 10) : 0;
    static const mcapi_port_t ports[] = {40, 41, 42, 43, 45};
    mcapi_endpoint_t ep[5];
    for (int i = 0; i < 5; i++) {
      if (i == 2) { /* the others only once the remote program asked for them */
        printf("ready\n");
        fflush(stdout);
        if (!await_file(go, 60000)) {
          printf("getipeer: no %s after 60 s\n", go);
          return 1;
        }
      }
      if (i == 4 && late_ms) { /* longer than one query of the bridge: asked again */
        struct timespec ts = {(time_t)(late_ms / 1000), (long)(late_ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
      }
      ep[i] = mcapi_endpoint_create(ports[i], &st);
      if (st != MCAPI_SUCCESS)
        die("endpoint_create", st);
      mcapi_timeout_t t = (mcapi_timeout_t)scaled_ms(60000); /* bounded */
      mcapi_endpoint_set_attribute(ep[i], MCAPI_ENDP_ATTR_TIMEOUT, &t, sizeof t, &st);
    }
    for (int i = 0; i < 5; i++)
      for (unsigned long k = 1; k <= count; k++) {
        item_t it;
        size_t sz;
        mcapi_msg_recv(ep[i], &it, sizeof it, &sz, &st);
        if (st != MCAPI_SUCCESS)
          die("msg_recv", st);
        if (sz != sizeof it || !intact(&it) || it.seq != k || it.prio != ports[i]) {
          printf("getipeer: port %u: item %lu is seq %u for port %u\n", ports[i], k, it.seq, it.prio);
          return 1;
        }
      }
    printf("getipeer: 5 endpoints, %lu items each, in order, each at the port it was sent to\n", count);
    mcapi_finalize(&st);
    return 0;
  }
  if (!strcmp(mode, "recv") || !strcmp(mode, "precv")) {
    unsigned long port = strtoul(argv[4], NULL, 10), count = strtoul(argv[5], NULL, 10);
    int loss = 0, pace = 0;
    const char *go = NULL, *hold = NULL;
    unsigned long holds[16];
    unsigned nholds = 0, next_hold = 0;
    for (int a = 6; a < argc; a++) {
      loss |= !strcmp(argv[a], "loss");
      pace |= !strcmp(argv[a], "pace");
      if (argv[a][0] == '/')
        go = argv[a];
      if (!strncmp(argv[a], "hold=", 5)) { /* hold=K,...:PATH */
        char *s = argv[a] + 5;
        for (;;) {
          holds[nholds++] = strtoul(s, &s, 10);
          if (*s != ',' || nholds == sizeof holds / sizeof holds[0])
            break;
          s++;
        }
        if (*s != ':' || !s[1]) {
          fprintf(stderr, "bridge_node: recv: hold=K,...:PATH, not %s\n", argv[a]);
          return 2;
        }
        hold = s + 1;
      }
    }
    mcapi_endpoint_t ep = mcapi_endpoint_create((mcapi_port_t)port, &st);
    if (st != MCAPI_SUCCESS)
      die("endpoint_create", st);
    mcapi_timeout_t t = (mcapi_timeout_t)scaled_ms(60000); /* bounded: a lost item ends the test */
    mcapi_endpoint_set_attribute(ep, MCAPI_ENDP_ATTR_TIMEOUT, &t, sizeof t, &st);
    printf("ready\n");
    fflush(stdout);
    if (!strcmp(mode, "precv")) {
      /* Wait until all 2N are queued, then the priority-0 ones must come first. */
      mcapi_uint_t avail = 0;
      for (unsigned long i = 0; i < scaled_ms(60000) / 10 && avail < 2 * count; i++) {
        avail = mcapi_msg_available(ep, &st);
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
      }
      if (avail != 2 * count) {
        printf("precv: %u of %lu items arrived\n", (unsigned)avail, 2 * count);
        return 1;
      }
      for (unsigned long i = 0; i < 2 * count; i++) {
        item_t it;
        size_t sz;
        mcapi_msg_recv(ep, &it, sizeof it, &sz, &st);
        if (st != MCAPI_SUCCESS)
          die("msg_recv", st);
        uint32_t want_prio = i < count ? 0 : 5, want_seq = (uint32_t)(i < count ? count + i + 1 : i - count + 1);
        if (sz != sizeof it || !intact(&it) || it.prio != want_prio || it.seq != want_seq) {
          printf("precv: item %lu is seq %u prio %u, expected seq %u prio %u\n", i, it.seq, it.prio, want_seq,
                 want_prio);
          return 1;
        }
      }
      printf("precv: %lu priority-0 items before %lu priority-5 items, each in order\n", count, count);
      mcapi_finalize(&st);
      return 0;
    }
    if (go) { /* hold: nothing is read until GOFILE exists (at most 120 s) */
      printf("holding\n");
      fflush(stdout);
      await_file(go, 120000);
    }
    uint32_t last = 0;
    unsigned long got = 0, gaps = 0;
    while (last < count) {
      item_t it;
      size_t sz;
      mcapi_msg_recv(ep, &it, sizeof it, &sz, &st);
      if (st != MCAPI_SUCCESS) {
        printf("recv: after seq %u (%lu items): %d\n", last, got, (int)st);
        die("msg_recv", st);
      }
      if (sz != sizeof it || !intact(&it)) {
        printf("recv: torn item after seq %u\n", last);
        return 1;
      }
      if (it.seq <= last) {
        printf("recv: DUPLICATE or REORDER: seq %u after %u\n", it.seq, last);
        return 1;
      }
      if (it.seq != last + 1) {
        gaps += it.seq - last - 1;
        if (!loss) {
          printf("recv: LOSS: seq %u after %u\n", it.seq, last);
          return 1;
        }
      }
      last = it.seq;
      got++;
      if (got % 1000 == 0) { /* the test acts on progress, not on time */
        printf("progress %lu\n", got);
        fflush(stdout);
      }
      if (next_hold < nholds && got == holds[next_hold]) {
        /* The stream stops here until the script has acted: the sender is
         * held by back-pressure, however long the script takes. */
        char path[512];
        snprintf(path, sizeof path, "%s.%lu", hold, got);
        printf("held %lu\n", got);
        fflush(stdout);
        if (!await_file(path, 300000)) {
          printf("recv: held at %lu: no %s within 300 s (scaled)\n", got, path);
          return 1;
        }
        next_hold++;
      }
      if (pace && got % 20 == 0) { /* at most ~20000 items/s: a stream long enough to act on */
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
      }
    }
    printf("recv: %lu items, in order, no duplicate, %lu lost\n", got, gaps);
    mcapi_finalize(&st);
    return 0;
  }
  if (argc < 7 || (argc < 8 && strcmp(mode, "sendst")))
    return 2;
  unsigned long rd = strtoul(argv[4], NULL, 10), rn = strtoul(argv[5], NULL, 10),
                rp = strtoul(argv[6], NULL, 10), count = argc > 7 ? strtoul(argv[7], NULL, 10) : 0;
  if (!strcmp(mode, "geti"))
    return geti((mcapi_domain_t)rd, (mcapi_node_t)rn, argv[6], count);
  if (!strcmp(mode, "get")) {
    mcapi_endpoint_get((mcapi_domain_t)rd, (mcapi_node_t)rn, (mcapi_port_t)rp, (mcapi_timeout_t)count, &st);
    char m[MCAPI_MAX_STATUS_SIZE];
    printf("get: %s\n", mcapi_display_status(st, m, sizeof m));
    mcapi_finalize(&st);
    return 0;
  }
  mcapi_endpoint_t me = mcapi_endpoint_create(MCAPI_PORT_ANY, &st);
  if (st != MCAPI_SUCCESS)
    die("endpoint_create", st);
  mcapi_timeout_t t = (mcapi_timeout_t)scaled_ms(60000);
  mcapi_endpoint_set_attribute(me, MCAPI_ENDP_ATTR_TIMEOUT, &t, sizeof t, &st);
  mcapi_endpoint_t to = get_remote(rd, rn, rp);
  if (!strcmp(mode, "pktsend")) {
    unsigned long step = argc > 8 ? strtoul(argv[8], NULL, 10) : 0;
    mcapi_request_t req;
    size_t sz;
    mcapi_pktchan_connect_i(me, to, &req, &st);
    mcapi_wait(&req, &sz, (mcapi_timeout_t)scaled_ms(10000), &st);
    if (st != MCAPI_SUCCESS)
      die("pktchan_connect", st);
    mcapi_pktchan_send_hndl_t sh;
    mcapi_pktchan_send_open_i(&sh, me, &req, &st);
    mcapi_wait(&req, &sz, (mcapi_timeout_t)scaled_ms(30000), &st);
    if (st != MCAPI_SUCCESS)
      die("pktchan_send_open", st);
    char m[MCAPI_MAX_STATUS_SIZE];
    for (unsigned long i = 1; i <= count; i++) {
      item_t it;
      make(&it, (uint32_t)i, 0);
      mcapi_pktchan_send(sh, &it, sizeof it, &st);
      if (st != MCAPI_SUCCESS) { /* the remote receiver closed? */
        printf("pktsend: %lu packets sent, then %s\n", i - 1, mcapi_display_status(st, m, sizeof m));
        mcapi_finalize(&st);
        return 3;
      }
      if (step && i % step == 0) {
        printf("sent %lu\n", i);
        fflush(stdout);
      }
    }
    mcapi_pktchan_send_close_i(sh, &req, &st);
    mcapi_wait(&req, &sz, (mcapi_timeout_t)scaled_ms(30000), &st);
    printf("pktsend: %lu packets sent, close: %s\n", count, mcapi_display_status(st, m, sizeof m));
    mcapi_finalize(&st);
    return 0;
  }
  if (!strcmp(mode, "sclsend")) {
    unsigned long step = argc > 8 ? strtoul(argv[8], NULL, 10) : 100;
    step = step ? step : 100;
    mcapi_request_t req;
    size_t sz;
    mcapi_sclchan_connect_i(me, to, &req, &st);
    mcapi_wait(&req, &sz, (mcapi_timeout_t)scaled_ms(10000), &st);
    if (st != MCAPI_SUCCESS)
      die("sclchan_connect", st);
    mcapi_sclchan_send_hndl_t sh;
    mcapi_sclchan_send_open_i(&sh, me, &req, &st);
    mcapi_wait(&req, &sz, (mcapi_timeout_t)scaled_ms(30000), &st);
    if (st != MCAPI_SUCCESS)
      die("sclchan_send_open", st);
    return scl_send_all("sclsend", sh, count, step);
  }
  if (!strcmp(mode, "prio")) {
    for (unsigned long i = 1; i <= 2 * count; i++) {
      item_t it;
      make(&it, (uint32_t)i, i <= count ? 5 : 0);
      mcapi_msg_send(me, to, &it, sizeof it, i <= count ? 5 : 0, &st);
      if (st != MCAPI_SUCCESS)
        die("msg_send", st);
    }
    printf("prio: sent %lu at priority 5, then %lu at priority 0\n", count, count);
    mcapi_finalize(&st);
    return 0;
  }
  if (!strcmp(mode, "sendst")) {
    /* The remote endpoint's peer is away: each kind of send says so. */
    char m1[MCAPI_MAX_STATUS_SIZE], m2[MCAPI_MAX_STATUS_SIZE], m3[MCAPI_MAX_STATUS_SIZE];
    item_t it;
    make(&it, 1, 1);
    mcapi_status_t s1, s2, s3;
    mcapi_msg_send(me, to, &it, sizeof it, 1, &s1);
    mcapi_request_t req;
    size_t sz;
    mcapi_msg_send_i(me, to, &it, sizeof it, 1, &req, &s2);
    if (s2 == MCAPI_PENDING)
      mcapi_wait(&req, &sz, (mcapi_timeout_t)scaled_ms(10000), &s2);
    mcapi_boolean_t yes = MCAPI_TRUE;
    mcapi_endpoint_set_attribute(me, MCAPI_ENDP_ATTR_FAIL_ON_MEM_LIMIT, &yes, sizeof yes, &st);
    if (st != MCAPI_SUCCESS)
      die("set FAIL_ON_MEM_LIMIT", st);
    mcapi_msg_send(me, to, &it, sizeof it, 1, &s3);
    printf("sendst: blocking %s, non-blocking %s, fail-on-mem-limit %s\n", mcapi_display_status(s1, m1, sizeof m1),
           mcapi_display_status(s2, m2, sizeof m2), mcapi_display_status(s3, m3, sizeof m3));
    mcapi_finalize(&st);
    return 0;
  }
  unsigned long first = argc > 8 ? strtoul(argv[8], NULL, 10) : 1, refused = 0, away = 0;
  unsigned long step = argc > 9 ? strtoul(argv[9], NULL, 10) : 0;
  for (unsigned long i = first, tries = 0; i <= count; i++) {
    item_t it;
    make(&it, (uint32_t)i, 1);
    mcapi_msg_send(me, to, &it, sizeof it, 1, &st);
    if (st == MCAPI_ERR_TRANSMISSION) {
      /* The peer is away (link or its bridge down): this item was not
       * taken; send it again after a pause, for at most 60 s. */
      if (tries == 0) {
        printf("send: seq %lu: MCAPI_ERR_TRANSMISSION, sending it again\n", i);
        fflush(stdout);
      }
      away++;
      if (++tries > 3000)
        die("msg_send (the peer stayed away)", st);
      struct timespec ts = {0, 20000000};
      nanosleep(&ts, NULL);
      i--;
      continue;
    }
    tries = 0;
    if (st == MCAPI_ERR_ENDP_INVALID || st == MCAPI_ERR_ENDP_DELETED) {
      /* The proxy went with its bridge: this item is lost; get it again. */
      char m[MCAPI_MAX_STATUS_SIZE];
      printf("send: seq %lu refused: %s; getting the endpoint again\n", i, mcapi_display_status(st, m, sizeof m));
      fflush(stdout);
      refused++;
      to = get_remote(rd, rn, rp);
      continue;
    }
    if (st != MCAPI_SUCCESS)
      die("msg_send", st);
    if (step && i % step == 0) {
      printf("sent %lu\n", i);
      fflush(stdout);
    }
  }
  printf("send: %lu items sent, %lu refused, %lu sends refused with MCAPI_ERR_TRANSMISSION and made again\n",
         count - first + 1 - refused, refused, away);
  mcapi_finalize(&st);
  return 0;
}
