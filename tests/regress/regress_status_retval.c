/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Symptom: statuses that the headers' @retval lists did not name: a completed
 * msg_send_i whose receiver was deleted reported ENDP_INVALID (documented:
 * ENDP_DELETED); MCAPI_PORT_ANY with a full table gave ENDP_NOPORTS
 * (documented: ENDP_LIMIT); on pmq, endpoint_create at the per-user queue
 * limit gave MEM_LIMIT
 * (undocumented); initialize accepted max_msg_size 2^25 and 0xffffffff on
 * pmq (shm refuses); pending message requests completed with CHAN_CONNECTED
 * when the endpoint was connected meanwhile (undocumented).
 *
 * The program reads include/mcapi.h: for each function the statuses of its
 * @retval lines and those its "On completion the request reports" sentence
 * names. Then it calls every function in the error situations the header
 * documents (and the cases above, with their exact status) and checks each
 * status it gets is in that function's list; completions are checked
 * against the starting call's completion list. On shm and on pmq.
 */
#include <sys/resource.h>
#include <sys/stat.h>

#include "mcapi.h"
#include "mcx.h"
#include "mcx_test.h"
#include "regress/regress_util.h"

/* ---- the header's lists */

#define MAXFN 96
static struct fn {
  char name[48];
  uint64_t retval, completion; /* bit per status */
} fns[MAXFN];
static int nfns;

static int status_of(const char *p, size_t n)
{
  char b[64];
  for (int s = MCAPI_SUCCESS; s < MCAPI_STATUSCODE_END; s++)
    if (mcapi_display_status((mcapi_status_t)s, b, sizeof b) && strlen(b) == n && !strncmp(b, p, n))
      return s;
  /* the other spellings of the same codes */
  if (n == 18 && !strncmp(p, "MCAPI_ERR_MSG_LIMIT", n))
    return MCAPI_ERR_MSG_SIZE;
  return -1;
}

static uint64_t statuses_in(const char *p, const char *end)
{
  uint64_t m = 0;
  while ((p = strstr(p, "MCAPI_")) && p < end) {
    size_t n = strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_");
    int s = status_of(p, n);
    if (s > 0)
      m |= 1ull << s;
    p += n;
  }
  return m;
}

static void parse_header(const char *path)
{
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "cannot read %s\n", path);
    exit(2);
  }
  static char text[1 << 18];
  size_t len = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[len] = 0;
  const char *p = text;
  while ((p = strstr(p, "/**"))) {
    const char *cend = strstr(p, "*/");
    if (!cend)
      break;
    const char *next = strstr(cend, "/**");
    if (!next)
      next = text + len;
    uint64_t rv = 0, comp = 0;
    for (const char *q = p; (q = strstr(q, "@retval ")) && q < cend; q += 8) {
      const char *eol = strchr(q, '\n');
      const char *tok = q + 8;
      size_t n = strspn(tok, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_");
      int s = status_of(tok, n);
      if (s > 0)
        rv |= 1ull << s;
      (void)eol;
    }
    const char *oc = strstr(p, "On completion");
    if (oc && oc < cend)
      comp = statuses_in(oc, cend);
    /* "statuses as mcapi_x()": the lists of x, documented above. */
    const char *as = strstr(p, "statuses as mcapi_");
    if (!rv && !comp && as && as < cend) {
      size_t n = strspn(as + 12, "abcdefghijklmnopqrstuvwxyz0123456789_");
      for (int i = 0; i < nfns; i++)
        if (strlen(fns[i].name) == n && !strncmp(fns[i].name, as + 12, n)) {
          rv = fns[i].retval;
          comp = fns[i].completion;
        }
    }
    /* Every declaration up to the next comment shares it. */
    for (const char *d = cend; (d = strstr(d, "mcapi_")) && d < next;) {
      size_t n = strspn(d, "abcdefghijklmnopqrstuvwxyz0123456789_");
      if (d[n] == '(' && n < sizeof fns[0].name && nfns < MAXFN && (rv || comp)) {
        memcpy(fns[nfns].name, d, n);
        fns[nfns].name[n] = 0;
        fns[nfns].retval = rv;
        fns[nfns].completion = comp;
        nfns++;
      }
      d += n;
    }
    p = cend;
  }
}

static struct fn *fn_of(const char *name)
{
  for (int i = 0; i < nfns; i++)
    if (!strcmp(fns[i].name, name))
      return &fns[i];
  fprintf(stderr, "%s: not documented in mcapi.h\n", name);
  mcx_test_failures++;
  return NULL;
}

static int calls_checked;

static void in_list(const char *fname, mcapi_status_t st, int completion, int line)
{
  struct fn *f = fn_of(fname);
  mcx_test_checks++;
  calls_checked++;
  if (!f)
    return;
  uint64_t m = completion ? f->completion | 1ull << MCAPI_SUCCESS : f->retval;
  if (st >= 64 || !(m >> st & 1)) {
    char b[64];
    mcx_test_failures++;
    fprintf(stderr, "%s:%d: [%s] %s %s %s, which its header does not list\n", __FILE__, line,
            mcx_test_current, fname, completion ? "completed with" : "returned",
            mcapi_display_status(st, b, sizeof b) ? b : "?");
  }
}

/* The status of a call is one its @retval lines name; with EXACT also the one expected. */
#define IN(fname, st) in_list(#fname, (st), 0, __LINE__)
#define EXACT(fname, st, want)                                                                   \
  do {                                                                                           \
    mcapi_status_t e__ = (st);                                                                   \
    IN(fname, e__);                                                                              \
    CHECK_STATUS(e__, want);                                                                     \
  } while (0)
/* A request started by fname: its completion is in fname's completion list. */
#define DONE_IN(fname, req)                                                                      \
  do {                                                                                           \
    mcapi_status_t w__;                                                                          \
    size_t n__;                                                                                  \
    mcapi_wait((req), &n__, MCX_TEST_WAIT_MS, &w__);                                                         \
    in_list(#fname, w__, 1, __LINE__);                                                           \
    last_done = w__;                                                                             \
  } while (0)
static mcapi_status_t last_done;

static mcx_transport_t transport;
static mcapi_domain_t dom;

static mcapi_status_t init_with(mcapi_node_t node, uint32_t max_msg, uint32_t max_eps)
{
  mcapi_param_t p;
  mcapi_info_t info;
  mcapi_status_t st;
  mcx_param_init(&p);
  p.transport = transport;
  p.max_msg_size = max_msg;
  p.max_endpoints = max_eps;
  mcapi_initialize(dom, node, NULL, &p, &info, &st);
  return st;
}

/* ---- not a node: every call that needs one */
TEST(not_a_node)
{
  mcapi_status_t st;
  mcapi_request_t r;
  mcapi_request_t *rs[1] = {&r};
  size_t n;
  void *buf;
  char b[8];
  mcapi_endpoint_attributes_t *unused = NULL;
  (void)unused;
  mcapi_finalize(&st); EXACT(mcapi_finalize, st, MCAPI_ERR_NODE_NOTINIT);
  mcapi_domain_id_get(&st); EXACT(mcapi_domain_id_get, st, MCAPI_ERR_NODE_NOTINIT);
  mcapi_node_id_get(&st); EXACT(mcapi_node_id_get, st, MCAPI_ERR_NODE_NOTINIT);
  mcapi_endpoint_create(1, &st); EXACT(mcapi_endpoint_create, st, MCAPI_ERR_NODE_NOTINIT);
  mcapi_endpoint_t ep;
  mcapi_endpoint_get_i(dom, 1, 1, &ep, &r, &st);
  EXACT(mcapi_endpoint_get_i, st, MCAPI_ERR_NODE_NOTINIT);
  mcapi_endpoint_get(dom, 1, 1, 0, &st); EXACT(mcapi_endpoint_get, st, MCAPI_ERR_NODE_NOTINIT);
  mcapi_endpoint_delete(1, &st); EXACT(mcapi_endpoint_delete, st, MCAPI_ERR_NODE_NOTINIT);
  mcapi_endpoint_release(1, &st); EXACT(mcapi_endpoint_release, st, MCAPI_ERR_NODE_NOTINIT);
  mcapi_uint_t v;
  mcapi_endpoint_get_attribute(1, MCAPI_ENDP_ATTR_TYPE, &v, sizeof v, &st);
  EXACT(mcapi_endpoint_get_attribute, st, MCAPI_ERR_NODE_NOTINIT);
  mcapi_endpoint_set_attribute(1, MCAPI_ENDP_ATTR_TIMEOUT, &v, sizeof v, &st);
  EXACT(mcapi_endpoint_set_attribute, st, MCAPI_ERR_NODE_NOTINIT);
  mcapi_msg_send_i(1, 2, b, 1, 1, &r, &st); EXACT(mcapi_msg_send_i, st, MCAPI_ERR_NODE_NOTINIT);
  mcapi_msg_send(1, 2, b, 1, 1, &st); EXACT(mcapi_msg_send, st, MCAPI_ERR_NODE_NOTINIT);
  mcapi_msg_recv_i(1, b, 1, &r, &st); EXACT(mcapi_msg_recv_i, st, MCAPI_ERR_NODE_NOTINIT);
  mcapi_msg_recv(1, b, 1, &n, &st); EXACT(mcapi_msg_recv, st, MCAPI_ERR_NODE_NOTINIT);
  mcapi_msg_available(1, &st); EXACT(mcapi_msg_available, st, MCAPI_ERR_NODE_NOTINIT);
  mcapi_pktchan_connect_i(1, 2, &r, &st); EXACT(mcapi_pktchan_connect_i, st, MCAPI_ERR_NODE_NOTINIT);
  mcapi_pktchan_recv_hndl_t rh;
  mcapi_pktchan_send_hndl_t sh;
  mcapi_pktchan_recv_open_i(&rh, 1, &r, &st); EXACT(mcapi_pktchan_recv_open_i, st, MCAPI_ERR_NODE_NOTINIT);
  mcapi_pktchan_send_open_i(&sh, 1, &r, &st); EXACT(mcapi_pktchan_send_open_i, st, MCAPI_ERR_NODE_NOTINIT);
  mcapi_pktchan_send_i(1, b, 1, &r, &st); EXACT(mcapi_pktchan_send_i, st, MCAPI_ERR_NODE_NOTINIT);
  mcapi_pktchan_send(1, b, 1, &st); EXACT(mcapi_pktchan_send, st, MCAPI_ERR_NODE_NOTINIT);
  mcapi_pktchan_recv_i(1, &buf, &r, &st); EXACT(mcapi_pktchan_recv_i, st, MCAPI_ERR_NODE_NOTINIT);
  mcapi_pktchan_recv(1, &buf, &n, &st); EXACT(mcapi_pktchan_recv, st, MCAPI_ERR_NODE_NOTINIT);
  mcapi_pktchan_available(1, &st); EXACT(mcapi_pktchan_available, st, MCAPI_ERR_NODE_NOTINIT);
  mcapi_pktchan_release(b, &st); EXACT(mcapi_pktchan_release, st, MCAPI_ERR_NODE_NOTINIT);
  mcapi_pktchan_release_test(b, &st); EXACT(mcapi_pktchan_release_test, st, MCAPI_ERR_NODE_NOTINIT);
  mcapi_pktchan_recv_close_i(1, &r, &st); EXACT(mcapi_pktchan_recv_close_i, st, MCAPI_ERR_NODE_NOTINIT);
  mcapi_pktchan_send_close_i(1, &r, &st); EXACT(mcapi_pktchan_send_close_i, st, MCAPI_ERR_NODE_NOTINIT);
  mcapi_sclchan_connect_i(1, 2, &r, &st); EXACT(mcapi_sclchan_connect_i, st, MCAPI_ERR_NODE_NOTINIT);
  mcapi_sclchan_recv_hndl_t srh;
  mcapi_sclchan_send_hndl_t ssh;
  mcapi_sclchan_recv_open_i(&srh, 1, &r, &st); EXACT(mcapi_sclchan_recv_open_i, st, MCAPI_ERR_NODE_NOTINIT);
  mcapi_sclchan_send_open_i(&ssh, 1, &r, &st); EXACT(mcapi_sclchan_send_open_i, st, MCAPI_ERR_NODE_NOTINIT);
  mcapi_sclchan_send_uint64(1, 1, &st); EXACT(mcapi_sclchan_send_uint64, st, MCAPI_ERR_NODE_NOTINIT);
  mcapi_sclchan_send_uint8(1, 1, &st); EXACT(mcapi_sclchan_send_uint8, st, MCAPI_ERR_NODE_NOTINIT);
  mcapi_sclchan_recv_uint32(1, &st); EXACT(mcapi_sclchan_recv_uint32, st, MCAPI_ERR_NODE_NOTINIT);
  mcapi_sclchan_available(1, &st); EXACT(mcapi_sclchan_available, st, MCAPI_ERR_NODE_NOTINIT);
  mcapi_sclchan_recv_close_i(1, &r, &st); EXACT(mcapi_sclchan_recv_close_i, st, MCAPI_ERR_NODE_NOTINIT);
  mcapi_sclchan_send_close_i(1, &r, &st); EXACT(mcapi_sclchan_send_close_i, st, MCAPI_ERR_NODE_NOTINIT);
  mcapi_test(&r, &n, &st); EXACT(mcapi_test, st, MCAPI_ERR_NODE_NOTINIT);
  mcapi_wait(&r, &n, 0, &st); EXACT(mcapi_wait, st, MCAPI_ERR_NODE_NOTINIT);
  mcapi_wait_any(1, rs, &n, 0, &st); EXACT(mcapi_wait_any, st, MCAPI_ERR_NODE_NOTINIT);
  mcapi_cancel(&r, &st); EXACT(mcapi_cancel, st, MCAPI_ERR_NODE_NOTINIT);
}

TEST(initialize)
{
  mcapi_status_t st;
  mcapi_info_t info;
  mcapi_initialize(dom, 1, NULL, NULL, NULL, &st);
  EXACT(mcapi_initialize, st, MCAPI_ERR_PARAMETER);
  mcapi_initialize(MCAPI_DOMAIN_INVALID, 1, NULL, NULL, &info, &st);
  EXACT(mcapi_initialize, st, MCAPI_ERR_DOMAIN_INVALID);
  mcapi_initialize(dom, MCAPI_NODE_INVALID, NULL, NULL, &info, &st);
  EXACT(mcapi_initialize, st, MCAPI_ERR_NODE_INVALID);
  /* Message sizes beyond what any transport carries: refused on both. */
  EXACT(mcapi_initialize, init_with(1, 1u << 25, 0), MCAPI_ERR_PARAMETER);
  EXACT(mcapi_initialize, init_with(1, 0xffffffffu, 0), MCAPI_ERR_PARAMETER);
  EXACT(mcapi_initialize, init_with(1, 0, 0), MCAPI_SUCCESS);
  EXACT(mcapi_initialize, init_with(2, 0, 0), MCAPI_ERR_NODE_INITIALIZED);
  mcapi_finalize(&st);
  EXACT(mcapi_finalize, st, MCAPI_SUCCESS);
}

TEST(endpoints)
{
  mcapi_status_t st;
  EXACT(mcapi_initialize, init_with(1, 0, 3), MCAPI_SUCCESS);
  mcapi_endpoint_t a = mcapi_endpoint_create(1, &st);
  EXACT(mcapi_endpoint_create, st, MCAPI_SUCCESS);
  mcapi_endpoint_create(1, &st);
  EXACT(mcapi_endpoint_create, st, MCAPI_ERR_ENDP_EXISTS);
  mcapi_endpoint_create(2, &st);
  mcapi_endpoint_t c = mcapi_endpoint_create(3, &st);
  EXACT(mcapi_endpoint_create, st, MCAPI_SUCCESS);
  mcapi_endpoint_create(4, &st);
  EXACT(mcapi_endpoint_create, st, MCAPI_ERR_ENDP_LIMIT);
  mcapi_endpoint_create(MCAPI_PORT_ANY, &st); /* a full table, whatever the port */
  EXACT(mcapi_endpoint_create, st, MCAPI_ERR_ENDP_LIMIT);
  mcapi_endpoint_get(dom + 1, 1, 1, 0, &st);
  EXACT(mcapi_endpoint_get, st, MCAPI_ERR_DOMAIN_INVALID);
  mcapi_endpoint_get(dom, MCAPI_NODE_INVALID, 1, 0, &st);
  IN(mcapi_endpoint_get, st);
  mcapi_endpoint_get(dom, 1, MCAPI_PORT_ANY, 0, &st);
  EXACT(mcapi_endpoint_get, st, MCAPI_ERR_PORT_INVALID);
  mcapi_endpoint_get(dom, 1, 9, 0, &st);
  EXACT(mcapi_endpoint_get, st, MCAPI_TIMEOUT);
  mcapi_request_t r;
  mcapi_endpoint_t got;
  mcapi_endpoint_get_i(dom, 1, 9, &got, &r, &st);
  IN(mcapi_endpoint_get_i, st);
  mcapi_cancel(&r, &st);
  EXACT(mcapi_cancel, st, MCAPI_SUCCESS);
  mcapi_cancel(&r, &st);
  IN(mcapi_cancel, st);
  size_t n;
  mcapi_test(&r, &n, &st);
  IN(mcapi_test, st);
  mcapi_endpoint_delete(0x7777u, &st);
  EXACT(mcapi_endpoint_delete, st, MCAPI_ERR_ENDP_INVALID);
  mcapi_endpoint_release(a, &st);
  IN(mcapi_endpoint_release, st);
  mcapi_uint_t v = 0;
  mcapi_endpoint_get_attribute(a, 99, &v, sizeof v, &st);
  EXACT(mcapi_endpoint_get_attribute, st, MCAPI_ERR_ATTR_NUM);
  mcapi_endpoint_get_attribute(a, MCAPI_ENDP_ATTR_TYPE, &v, 1, &st);
  EXACT(mcapi_endpoint_get_attribute, st, MCAPI_ERR_ATTR_SIZE);
  mcapi_endpoint_get_attribute(a, MCAPI_ENDP_ATTR_TYPE, NULL, sizeof v, &st);
  EXACT(mcapi_endpoint_get_attribute, st, MCAPI_ERR_PARAMETER);
  mcapi_endpoint_set_attribute(a, MCAPI_ENDP_ATTR_TYPE, &v, sizeof v, &st);
  EXACT(mcapi_endpoint_set_attribute, st, MCAPI_ERR_ATTR_READONLY);
  v = 3;
  mcapi_endpoint_set_attribute(a, MCAPI_ENDP_ATTR_NUM_RECV_BUFFERS, &v, sizeof v, &st);
  EXACT(mcapi_endpoint_set_attribute, st, MCAPI_ERR_ATTR_VALUE);
  mcapi_endpoint_set_attribute(a, MCAPI_ENDP_ATTR_GET_SOURCE, &v, sizeof v, &st);
  IN(mcapi_endpoint_set_attribute, st);
  mcapi_endpoint_delete(c, &st);
  EXACT(mcapi_endpoint_delete, st, MCAPI_SUCCESS);
  mcapi_endpoint_delete(c, &st);
  EXACT(mcapi_endpoint_delete, st, MCAPI_ERR_ENDP_INVALID);
  mcapi_finalize(&st);
}

TEST(messages)
{
  mcapi_status_t st;
  EXACT(mcapi_initialize, init_with(1, 0, 0), MCAPI_SUCCESS);
  mcapi_endpoint_t a = mcapi_endpoint_create(1, &st);
  mcapi_endpoint_t b = mcapi_endpoint_create(2, &st);
  mcapi_endpoint_t c = mcapi_endpoint_create(3, &st);
  char buf[64] = "hello";
  size_t n;
  mcapi_request_t r;
  mcapi_msg_send(a, 0x7777u, buf, 6, 1, &st);
  EXACT(mcapi_msg_send, st, MCAPI_ERR_ENDP_INVALID);
  mcapi_msg_send(a, b, buf, 6, MCAPI_MAX_PRIORITY + 1, &st);
  EXACT(mcapi_msg_send, st, MCAPI_ERR_PRIORITY);
  mcapi_msg_send(a, b, NULL, 6, 1, &st);
  EXACT(mcapi_msg_send, st, MCAPI_ERR_PARAMETER);
  static char big[(1u << 16) + 1];
  size_t max = 0;
  mcapi_endpoint_get_attribute(b, MCAPI_ENDP_ATTR_MAX_PAYLOAD_SIZE, &max, sizeof max, &st);
  if (max < sizeof big) {
    mcapi_msg_send(a, b, big, max + 1, 1, &st);
    EXACT(mcapi_msg_send, st, MCAPI_ERR_MSG_SIZE);
  }
  mcapi_msg_send_i(a, b, buf, 6, 1, NULL, &st);
  EXACT(mcapi_msg_send_i, st, MCAPI_ERR_PARAMETER);
  mcapi_msg_send(a, b, buf, 6, 1, &st);
  EXACT(mcapi_msg_send, st, MCAPI_SUCCESS);
  mcapi_msg_recv(b, buf, 2, &n, &st);
  EXACT(mcapi_msg_recv, st, MCAPI_ERR_MSG_TRUNCATED);
  mcapi_msg_recv(b, NULL, 2, &n, &st);
  EXACT(mcapi_msg_recv, st, MCAPI_ERR_PARAMETER);
  mcapi_timeout_t t = 0;
  mcapi_endpoint_set_attribute(b, MCAPI_ENDP_ATTR_TIMEOUT, &t, sizeof t, &st);
  mcapi_msg_recv(b, buf, sizeof buf, &n, &st);
  EXACT(mcapi_msg_recv, st, MCAPI_TIMEOUT);
  mcapi_msg_available(0x7777u, &st);
  EXACT(mcapi_msg_available, st, MCAPI_ERR_ENDP_INVALID);
  /* Fill c's queue: FAIL_ON_MEM_LIMIT, then TIMEOUT with a 0 ms timeout. */
  mcapi_boolean_t fail = MCAPI_TRUE;
  mcapi_endpoint_set_attribute(a, MCAPI_ENDP_ATTR_FAIL_ON_MEM_LIMIT, &fail, sizeof fail, &st);
  for (int i = 0; i < 100000; i++) {
    mcapi_msg_send(a, c, buf, 6, 1, &st);
    if (st != MCAPI_SUCCESS)
      break;
  }
  EXACT(mcapi_msg_send, st, MCAPI_ERR_MEM_LIMIT);
  mcapi_msg_send_i(a, c, buf, 6, 1, &r, &st);
  EXACT(mcapi_msg_send_i, st, MCAPI_ERR_MEM_LIMIT);
  fail = MCAPI_FALSE;
  mcapi_endpoint_set_attribute(a, MCAPI_ENDP_ATTR_FAIL_ON_MEM_LIMIT, &fail, sizeof fail, &st);
  mcapi_endpoint_set_attribute(a, MCAPI_ENDP_ATTR_TIMEOUT, &t, sizeof t, &st);
  mcapi_msg_send(a, c, buf, 6, 1, &st);
  EXACT(mcapi_msg_send, st, MCAPI_TIMEOUT);
  /* A send pending on the full queue, its receiver deleted: ENDP_DELETED. */
  mcapi_msg_send_i(a, c, buf, 6, 1, &r, &st);
  EXACT(mcapi_msg_send_i, st, MCAPI_PENDING);
  mcapi_endpoint_delete(c, &st);
  EXACT(mcapi_endpoint_delete, st, MCAPI_SUCCESS);
  DONE_IN(mcapi_msg_send_i, &r);
  CHECK_STATUS(last_done, MCAPI_ERR_ENDP_DELETED);
  /* A receive pending on b, b connected to a channel meanwhile. */
  mcapi_msg_recv_i(b, buf, sizeof buf, &r, &st);
  EXACT(mcapi_msg_recv_i, st, MCAPI_PENDING);
  mcapi_request_t cr;
  mcapi_sclchan_connect_i(a, b, &cr, &st);
  IN(mcapi_sclchan_connect_i, st);
  DONE_IN(mcapi_sclchan_connect_i, &cr);
  DONE_IN(mcapi_msg_recv_i, &r);
  mcapi_msg_send(a, b, buf, 6, 1, &st);
  EXACT(mcapi_msg_send, st, MCAPI_ERR_CHAN_CONNECTED);
  mcapi_msg_recv_i(b, buf, sizeof buf, &r, &st);
  EXACT(mcapi_msg_recv_i, st, MCAPI_ERR_CHAN_CONNECTED);
  mcapi_sclchan_recv_hndl_t rh;
  mcapi_sclchan_recv_open_i(&rh, b, &r, &st);
  IN(mcapi_sclchan_recv_open_i, st);
  mcapi_endpoint_delete(b, &st); /* its side is open, or its open pending */
  EXACT(mcapi_endpoint_delete, st, MCAPI_ERR_CHAN_OPEN);
  mcapi_finalize(&st);
}

TEST(packet_channels)
{
  mcapi_status_t st;
  EXACT(mcapi_initialize, init_with(1, 0, 0), MCAPI_SUCCESS);
  mcapi_endpoint_t a = mcapi_endpoint_create(1, &st);
  mcapi_endpoint_t b = mcapi_endpoint_create(2, &st);
  mcapi_request_t r, r2;
  size_t n;
  void *buf;
  char data[16] = "pkt";
  mcapi_pktchan_connect_i(a, a, &r, &st);
  EXACT(mcapi_pktchan_connect_i, st, MCAPI_ERR_ENDP_INVALID);
  mcapi_pktchan_connect_i(a, b, NULL, &st);
  EXACT(mcapi_pktchan_connect_i, st, MCAPI_ERR_PARAMETER);
  mcapi_pktchan_connect_i(a, b, &r, &st);
  IN(mcapi_pktchan_connect_i, st);
  DONE_IN(mcapi_pktchan_connect_i, &r);
  mcapi_pktchan_connect_i(a, b, &r, &st);
  EXACT(mcapi_pktchan_connect_i, st, MCAPI_ERR_CHAN_CONNECTED);
  mcapi_sclchan_recv_hndl_t srh;
  mcapi_sclchan_recv_open_i(&srh, b, &r, &st);
  EXACT(mcapi_sclchan_recv_open_i, st, MCAPI_ERR_CHAN_TYPE);
  mcapi_pktchan_recv_hndl_t rh;
  mcapi_pktchan_send_hndl_t sh;
  mcapi_pktchan_recv_open_i(&rh, a, &r, &st);
  EXACT(mcapi_pktchan_recv_open_i, st, MCAPI_ERR_CHAN_DIRECTION);
  mcapi_pktchan_recv_open_i(&rh, b, &r, &st);
  IN(mcapi_pktchan_recv_open_i, st);
  mcapi_pktchan_recv_open_i(&rh, b, &r2, &st);
  EXACT(mcapi_pktchan_recv_open_i, st, MCAPI_ERR_CHAN_OPENPENDING);
  mcapi_pktchan_send_open_i(&sh, a, &r2, &st);
  IN(mcapi_pktchan_send_open_i, st);
  DONE_IN(mcapi_pktchan_send_open_i, &r2);
  DONE_IN(mcapi_pktchan_recv_open_i, &r);
  mcapi_pktchan_send_open_i(&sh, a, &r2, &st);
  EXACT(mcapi_pktchan_send_open_i, st, MCAPI_ERR_CHAN_OPEN);
  mcapi_pktchan_send(rh, data, 4, &st);
  IN(mcapi_pktchan_send, st);
  mcapi_pktchan_send(0x7777u, data, 4, &st);
  EXACT(mcapi_pktchan_send, st, MCAPI_ERR_CHAN_INVALID);
  mcapi_pktchan_send(sh, data, (size_t)MCAPI_MAX_PKT_SIZE + 1, &st);
  EXACT(mcapi_pktchan_send, st, MCAPI_ERR_PKT_SIZE);
  mcapi_pktchan_send(sh, NULL, 4, &st);
  EXACT(mcapi_pktchan_send, st, MCAPI_ERR_PARAMETER);
  mcapi_pktchan_send_i(sh, data, 4, &r, &st);
  IN(mcapi_pktchan_send_i, st);
  DONE_IN(mcapi_pktchan_send_i, &r);
  mcapi_pktchan_recv(sh, &buf, &n, &st);
  IN(mcapi_pktchan_recv, st);
  mcapi_pktchan_available(rh, &st);
  EXACT(mcapi_pktchan_available, st, MCAPI_SUCCESS);
  mcapi_pktchan_available(sh, &st);
  IN(mcapi_pktchan_available, st);
  mcapi_pktchan_recv_i(rh, &buf, &r, &st);
  IN(mcapi_pktchan_recv_i, st);
  DONE_IN(mcapi_pktchan_recv_i, &r);
  void *held = buf;
  mcapi_pktchan_release(data, &st);
  EXACT(mcapi_pktchan_release, st, MCAPI_ERR_BUF_INVALID);
  mcapi_pktchan_release_test(data, &st);
  EXACT(mcapi_pktchan_release_test, st, MCAPI_ERR_BUF_INVALID);
  mcapi_pktchan_release_test(held, &st);
  IN(mcapi_pktchan_release_test, st);
  mcapi_pktchan_release(held, &st);
  EXACT(mcapi_pktchan_release, st, MCAPI_SUCCESS);
  mcapi_pktchan_release(held, &st);
  EXACT(mcapi_pktchan_release, st, MCAPI_ERR_BUF_INVALID);
  /* A receiver holding many packets (on pmq as on shm, up to
   * MCAPI_MAX_BUFFERS counting the queued ones): each status documented. */
  int got = 0;
  void *hold[128];
  mcapi_timeout_t t = 0;
  mcapi_endpoint_set_attribute(a, MCAPI_ENDP_ATTR_TIMEOUT, &t, sizeof t, &st);
  mcapi_endpoint_set_attribute(b, MCAPI_ENDP_ATTR_TIMEOUT, &t, sizeof t, &st);
  for (int i = 0; i < 128; i++) {
    mcapi_pktchan_send(sh, data, 4, &st);
    IN(mcapi_pktchan_send, st);
    if (st != MCAPI_SUCCESS)
      break;
    mcapi_pktchan_recv(rh, &hold[got], &n, &st);
    IN(mcapi_pktchan_recv, st);
    if (st != MCAPI_SUCCESS)
      break;
    got++;
  }
  for (int i = 0; i < got; i++)
    mcapi_pktchan_release(hold[i], &st);
  mcapi_pktchan_send_close_i(sh, &r, &st);
  IN(mcapi_pktchan_send_close_i, st);
  DONE_IN(mcapi_pktchan_send_close_i, &r);
  mcapi_pktchan_send_close_i(sh, &r, &st);
  IN(mcapi_pktchan_send_close_i, st);
  for (int i = 0; i < 8; i++) { /* what is still queued, then the close */
    mcapi_pktchan_recv(rh, &buf, &n, &st);
    IN(mcapi_pktchan_recv, st);
    if (st != MCAPI_SUCCESS)
      break;
    mcapi_pktchan_release(buf, &st);
  }
  mcapi_pktchan_recv(rh, &buf, &n, &st);
  EXACT(mcapi_pktchan_recv, st, MCAPI_ERR_CHAN_NOTOPEN);
  mcapi_pktchan_recv_close_i(rh, NULL, &st);
  EXACT(mcapi_pktchan_recv_close_i, st, MCAPI_ERR_PARAMETER);
  mcapi_pktchan_recv_close_i(rh, &r, &st);
  IN(mcapi_pktchan_recv_close_i, st);
  DONE_IN(mcapi_pktchan_recv_close_i, &r);
  mcapi_pktchan_recv_close_i(rh, &r, &st);
  IN(mcapi_pktchan_recv_close_i, st);
  mcapi_finalize(&st);
}

TEST(scalar_channels)
{
  mcapi_status_t st;
  EXACT(mcapi_initialize, init_with(1, 0, 0), MCAPI_SUCCESS);
  mcapi_endpoint_t a = mcapi_endpoint_create(1, &st);
  mcapi_endpoint_t b = mcapi_endpoint_create(2, &st);
  mcapi_request_t r, r2;
  mcapi_sclchan_connect_i(a, b, &r, &st);
  DONE_IN(mcapi_sclchan_connect_i, &r);
  mcapi_sclchan_recv_hndl_t rh;
  mcapi_sclchan_send_hndl_t sh;
  mcapi_sclchan_recv_open_i(&rh, b, &r, &st);
  IN(mcapi_sclchan_recv_open_i, st);
  mcapi_sclchan_send_open_i(&sh, a, &r2, &st);
  IN(mcapi_sclchan_send_open_i, st);
  DONE_IN(mcapi_sclchan_send_open_i, &r2);
  DONE_IN(mcapi_sclchan_recv_open_i, &r);
  mcapi_sclchan_send_uint32(sh, 7, &st);
  EXACT(mcapi_sclchan_send_uint32, st, MCAPI_SUCCESS);
  mcapi_sclchan_recv_uint8(rh, &st);
  EXACT(mcapi_sclchan_recv_uint8, st, MCAPI_ERR_SCL_SIZE);
  mcapi_sclchan_recv_uint32(rh, &st);
  EXACT(mcapi_sclchan_recv_uint32, st, MCAPI_SUCCESS);
  mcapi_sclchan_send_uint16(rh, 1, &st);
  IN(mcapi_sclchan_send_uint16, st);
  mcapi_sclchan_recv_uint64(0x7777u, &st);
  IN(mcapi_sclchan_recv_uint64, st);
  mcapi_sclchan_available(sh, &st);
  IN(mcapi_sclchan_available, st);
  mcapi_timeout_t t = 0;
  mcapi_endpoint_set_attribute(b, MCAPI_ENDP_ATTR_TIMEOUT, &t, sizeof t, &st);
  mcapi_sclchan_recv_uint16(rh, &st);
  EXACT(mcapi_sclchan_recv_uint16, st, MCAPI_TIMEOUT);
  mcapi_sclchan_send_close_i(sh, &r, &st);
  DONE_IN(mcapi_sclchan_send_close_i, &r);
  mcapi_sclchan_send_uint8(sh, 1, &st);
  IN(mcapi_sclchan_send_uint8, st);
  mcapi_sclchan_recv_close_i(rh, &r, &st);
  DONE_IN(mcapi_sclchan_recv_close_i, &r);
  mcapi_finalize(&st);
}

TEST(requests)
{
  mcapi_status_t st;
  EXACT(mcapi_initialize, init_with(1, 0, 0), MCAPI_SUCCESS);
  mcapi_endpoint_t a = mcapi_endpoint_create(1, &st);
  size_t n;
  mcapi_test(NULL, &n, &st);
  EXACT(mcapi_test, st, MCAPI_ERR_PARAMETER);
  mcapi_request_t forged = {0};
  memset(&forged, 0x5a, sizeof forged);
  mcapi_test(&forged, &n, &st);
  EXACT(mcapi_test, st, MCAPI_ERR_REQUEST_INVALID);
  mcapi_wait(&forged, &n, 0, &st);
  EXACT(mcapi_wait, st, MCAPI_ERR_REQUEST_INVALID);
  mcapi_wait_any(0, NULL, &n, 0, &st);
  EXACT(mcapi_wait_any, st, MCAPI_ERR_PARAMETER);
  mcapi_cancel(&forged, &st);
  EXACT(mcapi_cancel, st, MCAPI_ERR_REQUEST_INVALID);
  char buf[8];
  mcapi_request_t r;
  mcapi_msg_recv_i(a, buf, sizeof buf, &r, &st);
  EXACT(mcapi_msg_recv_i, st, MCAPI_PENDING);
  mcapi_wait(&r, &n, 0, &st);
  EXACT(mcapi_wait, st, MCAPI_TIMEOUT);
  mcapi_request_t *rs[1] = {&r};
  mcapi_wait_any(1, rs, &n, 0, &st);
  EXACT(mcapi_wait_any, st, MCAPI_TIMEOUT);
  mcapi_test(&r, &n, &st);
  EXACT(mcapi_test, st, MCAPI_PENDING);
  mcapi_cancel(&r, &st);
  EXACT(mcapi_cancel, st, MCAPI_SUCCESS);
  mcapi_wait(&r, &n, 0, &st);
  EXACT(mcapi_wait, st, MCAPI_ERR_REQUEST_CANCELLED);
  mcapi_finalize(&st);
}

/* pmq: endpoint create at the per-user queue budget (RLIMIT_MSGQUEUE). */
TEST(pmq_queue_budget)
{
  mcapi_status_t st;
  fflush(stdout);
  pid_t c = fork();
  if (c == 0) {
    if (init_with(1, 0, 0) != MCAPI_SUCCESS)
      _exit(2);
    struct rlimit rl = {0, 0};
    setrlimit(RLIMIT_MSGQUEUE, &rl); /* queues made from now on exceed it */
    mcapi_endpoint_create(5, &st);
    mcapi_finalize(&(mcapi_status_t){0});
    _exit(st);
  }
  int ws;
  waitpid(c, &ws, 0);
  CHECK(WIFEXITED(ws));
  st = (mcapi_status_t)WEXITSTATUS(ws);
  EXACT(mcapi_endpoint_create, st, MCAPI_ERR_MEM_LIMIT);
}

static void run_all(void)
{
  RUN(not_a_node);
  RUN(initialize);
  RUN(endpoints);
  RUN(messages);
  RUN(packet_channels);
  RUN(scalar_channels);
  RUN(requests);
}

int main(void)
{
  regress_watchdog(110);
  parse_header(MCX_MCAPI_H);
  printf("   %d functions documented in mcapi.h\n", nfns);
  CHECK(nfns >= 45);
  transport = MCX_TRANSPORT_SHM;
  dom = 60;
  run_all();
  struct stat sb;
  if (stat("/dev/mqueue", &sb) == 0) {
    transport = MCX_TRANSPORT_PMQ;
    dom = 61;
    run_all();
    RUN(pmq_queue_budget);
  } else {
    printf("   SKIP pmq cases: /dev/mqueue is not mounted\n");
  }
  printf("   %d statuses checked against the header\n", calls_checked);
  return mcx_test_report();
}
