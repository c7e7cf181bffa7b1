/* Helpers shared by the MRAPI tests: status checks by name, unique domains,
 * and a check that no shared-memory object of a domain is left behind. */
#ifndef TEST_MRAPI_UTIL_H
#define TEST_MRAPI_UTIL_H

#include <dirent.h>
#include <unistd.h>

#include "mcx_test.h"
#include "mrapi.h"
#include "ports/mcx_port.h"

#define CHECK_MRAPI(st, expected)                                                                      \
  do {                                                                                                 \
    mrapi_status_t s_ = (st), e_ = (expected);                                                         \
    mcx_test_checks++;                                                                                 \
    if (s_ != e_) {                                                                                    \
      char b1_[64], b2_[64];                                                                           \
      mcx_test_failures++;                                                                             \
      fprintf(stderr, "%s:%d: [%s] status %s, expected %s (%s)\n", __FILE__, __LINE__, mcx_test_current, \
              mrapi_display_status(s_, b1_, sizeof b1_) ? b1_ : "?",                                   \
              mrapi_display_status(e_, b2_, sizeof b2_) ? b2_ : "?", #st);                             \
    }                                                                                                  \
  } while (0)

/* A domain id no other test process uses at the same time. */
static inline mrapi_domain_t test_domain(unsigned k)
{
  return 100000u + ((unsigned)getpid() % 100000u) * 16u + k;
}

/* Number of /dev/shm entries belonging to @p domain (partition and segments). */
static inline int shm_leftovers(mrapi_domain_t domain)
{
  char prefix[64], prefix_seg[80];
  snprintf(prefix, sizeof prefix, "mcx-mrapi-%u-%u", (unsigned)geteuid(), (unsigned)domain);
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
