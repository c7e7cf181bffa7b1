/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file regress_util.h
 * @brief Helpers of the regression programs: a second user for cross-user
 * cases, the namespace part of object names, a watchdog.
 */
#ifndef REGRESS_UTIL_H
#define REGRESS_UTIL_H

#include <errno.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* The second user: a uid no account uses (none is needed to own files). */
#define REGRESS_OTHER_UID 64999u

/** Whether cross-user cases can run; prints the reason when not. */
static inline int regress_can_switch_user(const char *what)
{
  if (geteuid() != 0) {
    printf("   SKIP %s: needs root to act as a second user (uid %u)\n", what, REGRESS_OTHER_UID);
    return 0;
  }
  return 1;
}

/** In a child: becomes the second user for good. Exits 99 when it cannot. */
static inline void regress_become_other_user(void)
{
  if (setgroups(0, NULL) != 0 || setresgid(REGRESS_OTHER_UID, REGRESS_OTHER_UID, REGRESS_OTHER_UID) != 0 ||
      setresuid(REGRESS_OTHER_UID, REGRESS_OTHER_UID, REGRESS_OTHER_UID) != 0)
    _exit(99);
}

/** Runs @p fn(arg) in a child process as the second user; returns its exit status (or -1). */
static inline int regress_as_other_user(int (*fn)(void *), void *arg)
{
  fflush(stdout);
  fflush(stderr);
  pid_t p = fork();
  if (p < 0)
    return -1;
  if (p == 0) {
    regress_become_other_user();
    _exit(fn(arg));
  }
  int st;
  while (waitpid(p, &st, 0) < 0 && errno == EINTR)
    ;
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/** The namespace part of partition and queue names, as the library cleans MCX_NAMESPACE. */
static inline const char *regress_name_space(void)
{
  static char clean[40];
  const char *ns = getenv("MCX_NAMESPACE");
  size_t k = 0;
  for (; ns && *ns && k < sizeof clean - 1; ns++)
    if ((*ns >= 'a' && *ns <= 'z') || (*ns >= 'A' && *ns <= 'Z') || (*ns >= '0' && *ns <= '9') ||
        *ns == '-' || *ns == '_')
      clean[k++] = *ns;
  clean[k] = 0;
  return k ? clean : "default";
}

static void regress_watchdog_fire(int sig)
{
  (void)sig;
  static const char m[] = "watchdog: the program did not finish in time (a hang)\n";
  if (write(2, m, sizeof m - 1) < 0) {
  }
  _exit(3);
}

/** Ends the process with a message after @p seconds (every regression is bounded). */
static inline void regress_watchdog(unsigned seconds)
{
  const char *sc = getenv("MCX_TEST_TIMEOUT_SCALE"); /* the ceiling's factor on slow machines */
  double scale = sc && atof(sc) > 0 ? atof(sc) : 1.0;
  signal(SIGALRM, regress_watchdog_fire);
  alarm((unsigned)(seconds * scale + 0.5));
}

#endif /* REGRESS_UTIL_H */
