/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers shared by the MRAPI tests: status checks by name, unique domains,
 * nodes of the test's domain on this thread, on another thread and (POSIX)
 * in a child process, and a check that no shared-memory object of a domain
 * is left behind. */
#ifndef TEST_MRAPI_UTIL_H
#define TEST_MRAPI_UTIL_H

#include <dirent.h>
#include <pthread.h>
#include <unistd.h>
#ifndef _WIN32
#include <sys/wait.h>
#endif

#include "common/mcx_atomic.h"
#include "mcx_test.h"
#include "mrapi.h"
#include "mrapi/mrapi_domain.h"
#include "ports/mcx_port.h"

/* The harness's counters are plain ints, but these tests check from several
 * threads at once: count into atomics and fold them in between tests. */
static mcx_atomic_u32 mt_checks, mt_failures;
/* Failures folded before the current case: a fork()ed child reports only the
 * current case's (mt_failed_in_case), not those of earlier cases. */
static int mt_case_base;

static inline void mt_fold(void)
{
  mcx_test_checks += (int)mcx_exchange_acq_rel(&mt_checks, 0u);
  mcx_test_failures += (int)mcx_exchange_acq_rel(&mt_failures, 0u);
}

#undef CHECK
#define CHECK(cond)                                                                                    \
  do {                                                                                                 \
    mcx_fetch_add_relaxed(&mt_checks, 1u);                                                             \
    if (!(cond)) {                                                                                     \
      mcx_fetch_add_relaxed(&mt_failures, 1u);                                                         \
      fprintf(stderr, "%s:%d: [%s] CHECK failed: %s\n", __FILE__, __LINE__, mcx_test_current, #cond);  \
    }                                                                                                  \
  } while (0)

#undef CHECK_EQ_U
#define CHECK_EQ_U(a, b)                                                                               \
  do {                                                                                                 \
    unsigned long long va_ = (unsigned long long)(a), vb_ = (unsigned long long)(b);                   \
    mcx_fetch_add_relaxed(&mt_checks, 1u);                                                             \
    if (va_ != vb_) {                                                                                  \
      mcx_fetch_add_relaxed(&mt_failures, 1u);                                                         \
      fprintf(stderr, "%s:%d: [%s] CHECK failed: %s == %s (%llu != %llu)\n", __FILE__, __LINE__,       \
              mcx_test_current, #a, #b, va_, vb_);                                                     \
    }                                                                                                  \
  } while (0)

static inline int mt_failed_in_case(void)
{
  mt_fold();
  return mcx_test_failures != mt_case_base;
}

#undef RUN
#define RUN(name)                                                                                      \
  do {                                                                                                 \
    int before_ = mcx_test_failures;                                                                   \
    mt_case_base = before_;                                                                            \
    mcx_test_current = #name;                                                                          \
    test_##name();                                                                                     \
    mt_fold();                                                                                         \
    printf("%-50s %s\n", #name, mcx_test_failures == before_ ? "ok" : "FAILED");                      \
    fflush(stdout);                                                                                    \
  } while (0)

#define CHECK_MRAPI(st, expected)                                                                      \
  do {                                                                                                 \
    mrapi_status_t s_ = (st), e_ = (expected);                                                         \
    mcx_fetch_add_relaxed(&mt_checks, 1u);                                                             \
    if (s_ != e_) {                                                                                    \
      char b1_[64], b2_[64];                                                                           \
      mcx_fetch_add_relaxed(&mt_failures, 1u);                                                         \
      fprintf(stderr, "%s:%d: [%s] status %s, expected %s (%s)\n", __FILE__, __LINE__, mcx_test_current, \
              mrapi_display_status(s_, b1_, sizeof b1_) ? b1_ : "?",                                   \
              mrapi_display_status(e_, b2_, sizeof b2_) ? b2_ : "?", #st);                             \
    }                                                                                                  \
  } while (0)

/* The emulator the test runs under (MCX_TEST_EMULATOR, set by the cross
 * toolchains for qemu-user), or NULL natively. */
static inline const char *test_emulator(void)
{
  const char *e = getenv("MCX_TEST_EMULATOR");
  return e && *e ? e : NULL;
}

/* Whether @p st, the status of a copy from remote memory of another process,
 * is the "not supported" that is expected here: qemu-user does not emulate
 * process_vm_readv/writev. Natively the copy must work. */
static inline int rmem_cross_unsupported(mrapi_status_t st)
{
  return st == MRAPI_ERR_NOT_SUPPORTED && test_emulator() != NULL;
}

/* A domain id no other test process uses at the same time. */
static inline mrapi_domain_t test_domain(unsigned k)
{
  return 100000u + ((unsigned)getpid() % 100000u) * 16u + k;
}

/* The domain the test's nodes join (init_node); each test program sets it,
 * from test_domain(). */
static mrapi_domain_t dom;

/* The calling thread becomes node @p node of dom. */
static inline void init_node(mrapi_node_t node)
{
  mrapi_info_t info;
  mrapi_status_t st;
  mrapi_initialize(dom, node, 0, &info, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
}

static inline void fini_node(void)
{
  mrapi_status_t st;
  mrapi_finalize(&st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
}

/* A node on another thread: other_main(&o) makes the calling thread node
 * o.node, runs o.fn(o.arg) and leaves. */
typedef struct {
  mrapi_node_t node;
  void (*fn)(void *);
  void *arg;
} other_t;

static inline void *other_main(void *p)
{
  other_t *o = p;
  init_node(o->node);
  o->fn(o->arg);
  fini_node();
  return NULL;
}

/* Runs fn(arg) on a new thread that is node @p node of dom, and waits for it. */
static inline void on_other_node(mrapi_node_t node, void (*fn)(void *), void *arg)
{
  other_t o = {node, fn, arg};
  pthread_t t;
  pthread_create(&t, NULL, other_main, &o);
  pthread_join(t, NULL);
}

#ifndef _WIN32
/* Waits for a child; its exit status is its failure count (0 = all good),
 * 100 + the signal that ended it otherwise. */
static inline int wait_child(pid_t pid)
{
  int ws = 0;
  while (waitpid(pid, &ws, 0) < 0) {
  }
  return WIFEXITED(ws) ? WEXITSTATUS(ws) : 100 + (WIFSIGNALED(ws) ? WTERMSIG(ws) : 0);
}
#endif

/* Number of /dev/shm entries belonging to @p domain (partition and segments). */
#ifdef _WIN32
/* Windows has no directory of named mappings: the names the domain uses are
 * probed (the partition, and the segments the tests number below 256). */
#include "ports/mcx_port_shm.h"
static inline int shm_name_live(const char *name)
{
  mcx_port_shm_t shm;
  int r = mcx_port_shm_open(name, 0, &shm);
  if (r == 0)
    mcx_port_shm_close(&shm);
  return r != MCX_ENOENT && r != MCX_EINVAL;
}
static inline int shm_leftovers(mrapi_domain_t domain)
{
  char name[96], seg[112];
  mcx__mr_partition_name(domain, name, sizeof name); /* "/mcx-mrapi-<uid>-<namespace>-<domain>" */
  int n = shm_name_live(name);
  for (unsigned seq = 0; seq < 256; seq++) {
    snprintf(seg, sizeof seg, "%s-s%u", name, seq);
    n += shm_name_live(seg);
  }
  return n;
}
#else
static inline int shm_leftovers(mrapi_domain_t domain)
{
  char name[96], prefix_seg[100];
  mcx__mr_partition_name(domain, name, sizeof name); /* "/mcx-mrapi-<uid>-<namespace>-<domain>" */
  const char *prefix = name + 1;
  snprintf(prefix_seg, sizeof prefix_seg, "%s-", prefix);
  int n = 0;
  DIR *d = opendir("/dev/shm");
  if (!d)
    return 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL)
    if (!strcmp(e->d_name, prefix) || !strncmp(e->d_name, prefix_seg, strlen(prefix_seg)))
      n++;
  closedir(d);
  return n;
}
#endif

#endif
