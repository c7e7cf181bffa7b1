/* SPDX-License-Identifier: BSD-3-Clause */
/* The regular-expression subset `mca bench --only` uses where the C runtime
 * has no <regex.h> (tools/mca/ere_lite.h): what matches, what does not, what
 * it refuses; where <regex.h> exists, every answer is also POSIX's. */
#include <stdio.h>

#ifndef _WIN32
#include <regex.h>
#endif
#define regex_t lite_regex_t
#define regcomp lite_regcomp
#define regexec lite_regexec
#define regfree lite_regfree
#undef REG_EXTENDED
#undef REG_NOSUB
#include "tools/mca/ere_lite.h"
#undef regex_t
#undef regcomp
#undef regexec
#undef regfree

#include "mcx_test.h"

static const struct {
  const char *pat, *s;
  int match;
} cases[] = {
    {"msg\\.lockfree", "msg.lockfree.spread.in.shm.24B.copy", 1},
    {"msg\\.lockfree", "pkt.lockfree.spread.in.shm.24B.sum", 0},
    {"msg\\.lockfree\\.spread\\.in\\.shm\\.24B", "msg.lockfree.spread.in.shm.24B.copy", 1},
    {"peer\\.pipe|msg\\.global", "msg.global.none.cross.pmq.8192B.copy", 1},
    {"peer\\.pipe|msg\\.global", "peer.pipe.spread.24B.copy", 1},
    {"peer\\.pipe|msg\\.global", "msg.lockfree.none.in.shm.24B.copy", 0},
    {"^scale\\.", "scale.", 1},
    {"^scale\\.", "xscale.", 0},
    {"state\\.lockfree$", "state.lockfree", 1},
    {"state\\.lockfree$", "state.lockfree.x", 0},
    {"sweep\\..*\\.4096B", "sweep.pkt.lockfree.spread.4096B.sum", 1},
    {"sweep\\..*\\.4096B", "sweep.pkt.lockfree.spread.8192B.sum", 0},
    {"[mp][sk][gt]\\.lock", "pkt.lockfree", 1},
    {"[^.]+\\.copy$", "a.copy", 1},
    {"[^.]+\\.copy$", ".copy", 0},
    {"x+y?z*$", "axxzz", 1},
    {"^x+y?z$", "xxyyz", 0},
    {"msg.lock", "msg_lockfree", 1}, /* '.' is any character */
    {"^$", "", 1},
    {"^$", "a", 0},
};

TEST(matches_like_posix_extended)
{
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    lite_regex_t re;
    CHECK(lite_regcomp(&re, cases[i].pat, REG_EXTENDED | REG_NOSUB) == 0);
    int got = lite_regexec(&re, cases[i].s, 0, NULL, 0) == 0;
    if (got != cases[i].match)
      printf("  '%s' on '%s': %d, expected %d\n", cases[i].pat, cases[i].s, got, cases[i].match);
    CHECK(got == cases[i].match);
    lite_regfree(&re);
#ifndef _WIN32
    regex_t px;
    CHECK(regcomp(&px, cases[i].pat, REG_EXTENDED | REG_NOSUB) == 0);
    CHECK((regexec(&px, cases[i].s, 0, NULL, 0) == 0) == cases[i].match);
    regfree(&px);
#endif
  }
}

TEST(groups_intervals_and_bad_patterns_are_refused)
{
  static const char *const refused[] = {"24B\\.(copy)", "a{2}", "*a", "a|+b", "[abc", "x\\"};
  for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
    lite_regex_t re;
    CHECK(lite_regcomp(&re, refused[i], REG_EXTENDED | REG_NOSUB) != 0);
  }
}

int main(void)
{
  RUN(matches_like_posix_extended);
  RUN(groups_intervals_and_bad_patterns_are_refused);
  return mcx_test_report();
}
