/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Partitions seen from outside (mcx_introspect.h): every bad argument is
 * refused; a domain in use is read with its node, endpoints, queued
 * messages per priority and counters, in each locking mode, and lists
 * shorter than the tables still get the totals; a partition being created,
 * one never sized and one with a header of garbage are told apart; only
 * this user's names are removed.
 */
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mcapi.h"
#include "mcx.h"
#include "mcx_introspect.h"
#include "mcx_test.h"

static const char *name_space(void)
{
  const char *ns = getenv("MCX_NAMESPACE");
  return ns && *ns ? ns : "default";
}

/* "/mcx-<uid>-<namespace>-d<dom>" */
static void part_name(char *out, size_t n, mcapi_domain_t dom)
{
  char prefix[96];
  CHECK(mcx_part_prefix(name_space(), prefix, sizeof prefix) == 0);
  snprintf(out, n, "/%s%u", prefix, dom);
}

TEST(bad_arguments_refused)
{
  char out[96], want[96], longname[MCX_PART_NAME_MAX + 1];
  CHECK(mcx_part_prefix(NULL, NULL, sizeof out) == -1);
  CHECK(mcx_part_prefix(NULL, out, 4) == -1);
  CHECK(mcx_part_prefix("", out, sizeof out) == -1);
  CHECK(mcx_part_prefix("a.b", out, sizeof out) == -1);
  CHECK(mcx_part_prefix("a/b", out, sizeof out) == -1);
  CHECK(mcx_part_prefix("abcdefghijklmnopqrstuvwxyz0123456789", out, sizeof out) == -1); /* 36 */
  CHECK(mcx_part_prefix("ok_ns-1", out, sizeof out) == 0);
  snprintf(want, sizeof want, "mcx-%u-ok_ns-1-d", (unsigned)geteuid());
  CHECK(!strcmp(out, want));
  CHECK(mcx_part_prefix(NULL, out, sizeof out) == 0);
  snprintf(want, sizeof want, "mcx-%u-", (unsigned)geteuid());
  CHECK(!strcmp(out, want));

  mcx_part_info_t info;
  mcx_part_node_t node;
  mcx_part_endpoint_t ep;
  memset(longname, 'x', sizeof longname - 1);
  longname[0] = '/';
  longname[sizeof longname - 1] = 0;
  CHECK(mcx_part_inspect(NULL, &info, NULL, 0, NULL, 0) == -1);
  CHECK(mcx_part_inspect("/mcx-0-x-d1", NULL, NULL, 0, NULL, 0) == -1);
  CHECK(mcx_part_inspect("mcx-0-x-d1", &info, NULL, 0, NULL, 0) == -1);
  CHECK(mcx_part_inspect(longname, &info, NULL, 0, NULL, 0) == -1);
  CHECK(mcx_part_inspect("/mcx-0-x-d1", &info, NULL, 1, &ep, 1) == -1);
  CHECK(mcx_part_inspect("/mcx-0-x-d1", &info, &node, 1, NULL, 1) == -1);

  char name[128];
  part_name(name, sizeof name, 93); /* never created */
  CHECK(mcx_part_inspect(name, &info, &node, 1, &ep, 1) == 0);
  CHECK_EQ_U(info.state, MCX_PART_UNREADABLE);
  CHECK(!strcmp(info.why, "cannot open"));
  CHECK_EQ_U(info.nodes + info.endpoints + info.domain, 0);

  CHECK(mcx_part_remove(NULL) == -1);
  CHECK(mcx_part_remove("/not-a-partition") == -1);
  CHECK(mcx_part_remove(want) == -1); /* no leading '/' */
  snprintf(name, sizeof name, "/mcx-%u-x-d1", (unsigned)geteuid() + 1);
  CHECK(mcx_part_remove(name) == -1); /* another user's name */
  part_name(name, sizeof name, 93);
  CHECK(mcx_part_remove(name) == -2); /* ours, but not there */
}

static const mcx_part_endpoint_t *by_port(const mcx_part_endpoint_t *eps, uint32_t n, uint32_t port)
{
  for (uint32_t i = 0; i < n; i++)
    if (eps[i].port == port)
      return &eps[i];
  return NULL;
}

/* Domain @p dom in locking mode @p mode (MCX_LOCKING), as mcx_part_inspect names it. */
static void reads_domain(mcapi_domain_t dom, const char *mode, mcx_locking_t lk, const char *lk_name)
{
  mcapi_status_t st;
  mcapi_info_t mi;
  setenv("MCX_LOCKING", mode, 1);
  mcapi_initialize(dom, 3, NULL, NULL, &mi, &st);
  unsetenv("MCX_LOCKING");
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_endpoint_t in = mcapi_endpoint_create(5, &st), out = mcapi_endpoint_create(6, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_msg_send(out, in, "a", 2, 0, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_msg_send(out, in, "b", 2, 1, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);

  char name[128];
  part_name(name, sizeof name, dom);
  mcx_part_info_t info;
  mcx_part_node_t nodes[4];
  mcx_part_endpoint_t eps[8];
  CHECK(mcx_part_inspect(name, &info, nodes, 4, eps, 8) == 0);
  CHECK_EQ_U(info.state, MCX_PART_OK);
  CHECK(!strcmp(info.why, ""));
  CHECK_EQ_U(info.domain, dom);
  CHECK_EQ_U(info.locking, lk);
  CHECK(!strcmp(info.locking_name, lk_name));
  CHECK_EQ_U(info.compat, mcx_compat());
  CHECK_EQ_U(info.priorities, MCAPI_MAX_PRIORITY + 1);
  CHECK(info.size > 0 && info.max_endpoints >= 2);
  CHECK_EQ_U(info.nodes, 1);
  CHECK_EQ_U(info.nodes_alive, 1);
  CHECK_EQ_U(nodes[0].node, 3);
  CHECK_EQ_U(nodes[0].pid, (unsigned)getpid());
  CHECK_EQ_U(nodes[0].tid, (unsigned)mcx_test_tid());
  CHECK_EQ_U(nodes[0].alive, 1);
  CHECK_EQ_U(info.endpoints, 2);
  CHECK_EQ_U(info.queued, 2);
  CHECK(info.msg_buffers >= info.msg_buffers_in_use);
  const mcx_part_endpoint_t *r = by_port(eps, 2, 5), *s = by_port(eps, 2, 6);
  CHECK(r && s);
  if (r && s) {
    CHECK_EQ_U(r->node, 3);
    CHECK_EQ_U(r->queued, 2);
    CHECK_EQ_U(r->queued_per_priority[0], 1);
    CHECK_EQ_U(r->queued_per_priority[1], 1);
    CHECK(r->high_water >= 2 && r->depth >= 1);
    CHECK_EQ_U(r->received, 0);
    CHECK_EQ_U(r->channel_status, 0);
    CHECK_EQ_U(r->waiting_receivers + r->waiting_senders + r->dropped, 0);
    CHECK_EQ_U(s->sent, 2);
    CHECK_EQ_U(s->queued, 0);
  }

  /* Shorter lists: the totals still count everything. */
  mcx_part_info_t few;
  mcx_part_endpoint_t one[2] = {{0}, {.port = 0xdead}};
  CHECK(mcx_part_inspect(name, &few, NULL, 0, one, 1) == 0);
  CHECK_EQ_U(few.state, MCX_PART_OK);
  CHECK_EQ_U(few.nodes, 1);
  CHECK_EQ_U(few.endpoints, 2);
  CHECK_EQ_U(few.queued, 2);
  CHECK(one[0].port == 5 || one[0].port == 6);
  CHECK_EQ_U(one[1].port, 0xdead);

  char buf[8];
  size_t n;
  mcapi_msg_recv(in, buf, sizeof buf, &n, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(mcx_part_inspect(name, &info, nodes, 4, eps, 8) == 0);
  r = by_port(eps, info.endpoints, 5);
  CHECK(r && r->queued == 1 && r->received == 1);
  CHECK_EQ_U(info.queued, 1);
  mcapi_finalize(&st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
}

TEST(reads_a_domain_in_use)
{
  reads_domain(61, "lockfree", MCX_LOCKING_LOCKFREE, "lock-free");
  reads_domain(62, "global", MCX_LOCKING_GLOBAL, "global");
  reads_domain(63, "kernel", MCX_LOCKING_KERNEL, "kernel");
}

/* An object of ours under a partition's name, @p size bytes of @p fill. */
static void make_object(const char *name, size_t size, unsigned char fill)
{
  int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
  CHECK(fd >= 0);
  if (fd < 0)
    return;
  if (size) {
    CHECK(ftruncate(fd, (off_t)size) == 0);
    void *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    CHECK(m != MAP_FAILED);
    if (m != MAP_FAILED) {
      memset(m, fill, size);
      munmap(m, size);
    }
  }
  close(fd);
}

TEST(unfinished_and_invalid_partitions)
{
  char name[128];
  mcx_part_info_t info;
  part_name(name, sizeof name, 94);
  shm_unlink(name);

  make_object(name, 0, 0); /* created, not sized */
  CHECK(mcx_part_inspect(name, &info, NULL, 0, NULL, 0) == 0);
  CHECK_EQ_U(info.state, MCX_PART_UNSIZED);
  CHECK(mcx_part_remove(name) == 0);

  make_object(name, 1 << 20, 0); /* sized, its header not published (magic 0) */
  CHECK(mcx_part_inspect(name, &info, NULL, 0, NULL, 0) == 0);
  CHECK_EQ_U(info.state, MCX_PART_CREATING);
  CHECK(mcx_part_remove(name) == 0);

  make_object(name, 1 << 20, 0xa5); /* garbage */
  CHECK(mcx_part_inspect(name, &info, NULL, 0, NULL, 0) == 0);
  CHECK_EQ_U(info.state, MCX_PART_INVALID);
  CHECK(!strcmp(info.why, "invalid header"));
  CHECK_EQ_U(info.domain, 0);
  CHECK(mcx_part_remove(name) == 0);
  CHECK(mcx_part_remove(name) == -2);
}

int main(void)
{
  RUN(bad_arguments_refused);
  RUN(reads_a_domain_in_use);
  RUN(unfinished_and_invalid_partitions);
  return mcx_test_report();
}
