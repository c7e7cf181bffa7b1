/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file mcx_test.h
 * @brief The tests' harness: CHECK macros that report file:line and keep going,
 * a case runner, and helpers for threads.
 *
 * Each test executable defines its cases with TEST(name) and lists them in
 * main() with RUN(name); the exit code is non-zero when any check failed.
 */
#ifndef MCX_TEST_H
#define MCX_TEST_H

#include <inttypes.h>
#include <stdatomic.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _WIN32
/* The POSIX calls the tests use that the Windows C runtime spells otherwise. */
static inline int setenv(const char *name, const char *value, int overwrite)
{
  if (!overwrite && getenv(name))
    return 0;
  return _putenv_s(name, value) == 0 ? 0 : -1;
}
static inline int unsetenv(const char *name) { return _putenv_s(name, "") == 0 ? 0 : -1; }
#endif
#ifdef __linux__
#include <sys/syscall.h>
#endif
#if defined(__unix__)
#include <unistd.h>
#endif

/* Checks may run on helper threads too. */
static atomic_int mcx_test_failures;
static atomic_int mcx_test_checks;
static const char *mcx_test_current = "";

#define CHECK(cond)                                                                       \
  do {                                                                                    \
    mcx_test_checks++;                                                                    \
    if (!(cond)) {                                                                        \
      mcx_test_failures++;                                                                \
      fprintf(stderr, "%s:%d: [%s] CHECK failed: %s\n", __FILE__, __LINE__, mcx_test_current, \
              #cond);                                                                     \
    }                                                                                     \
  } while (0)

#define CHECK_EQ_U(a, b)                                                                      \
  do {                                                                                        \
    unsigned long long va_ = (unsigned long long)(a), vb_ = (unsigned long long)(b);          \
    mcx_test_checks++;                                                                        \
    if (va_ != vb_) {                                                                         \
      mcx_test_failures++;                                                                    \
      fprintf(stderr, "%s:%d: [%s] CHECK failed: %s == %s (%llu != %llu)\n", __FILE__, __LINE__, \
              mcx_test_current, #a, #b, va_, vb_);                                            \
    }                                                                                         \
  } while (0)

/** Checks an MCAPI status against the expected one, printing both names. */
/* A non-blocking call started: SUCCESS when it completed at once, PENDING if not. */
#define CHECK_STARTED(st)                                                                   \
  do {                                                                                      \
    mcapi_status_t t_ = (st);                                                               \
    CHECK_STATUS(t_, t_ == MCAPI_SUCCESS ? MCAPI_SUCCESS : MCAPI_PENDING);                  \
  } while (0)

#define CHECK_STATUS(st, expected)                                                          \
  do {                                                                                      \
    mcapi_status_t s_ = (st), e_ = (expected);                                              \
    mcx_test_checks++;                                                                      \
    if (s_ != e_) {                                                                         \
      char b1_[64], b2_[64];                                                                \
      mcx_test_failures++;                                                                  \
      fprintf(stderr, "%s:%d: [%s] status %s, expected %s (%s)\n", __FILE__, __LINE__,      \
              mcx_test_current, mcapi_display_status(s_, b1_, sizeof b1_) ? b1_ : "?",      \
              mcapi_display_status(e_, b2_, sizeof b2_) ? b2_ : "?", #st);                  \
    }                                                                                       \
  } while (0)

/* Failures counted when the running case began. */
static int mcx_test_case_start;

#if defined(__unix__)
#include <signal.h>
/* A case that goes on after a failed check may use what it did not get (a
 * NULL packet, an endpoint never made) and crash: the test then ends as the
 * failure it is, naming the case, not with a crash that hides the first
 * report. A crash with no failed check before it stays the crash it is: the
 * handler puts back the one it replaced (a sanitizer's, the default) and the
 * faulting instruction runs again under it. */
static struct sigaction mcx_test_crash_old[2];
static void mcx_test_crash(int sig)
{
  if (mcx_test_failures != mcx_test_case_start) {
    static const char m[] = "stopped by a crash after a failed check in case ";
    (void)!write(2, m, sizeof m - 1);
    (void)!write(2, mcx_test_current, strlen(mcx_test_current));
    (void)!write(2, "\n", 1);
    _exit(1);
  }
  sigaction(sig, &mcx_test_crash_old[sig == SIGBUS], NULL);
}
static inline void mcx_test_crash_handler(void)
{
  static int installed;
  if (installed++)
    return;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = mcx_test_crash;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, &mcx_test_crash_old[0]);
  sigaction(SIGBUS, &sa, &mcx_test_crash_old[1]);
}
#else
static inline void mcx_test_crash_handler(void) { (void)mcx_test_case_start; }
#endif

#define TEST(name) static void test_##name(void)
#define RUN(name)                                                                           \
  do {                                                                                      \
    mcx_test_crash_handler();                                                               \
    mcx_test_case_start = mcx_test_failures;                                                \
    mcx_test_current = #name;                                                               \
    fflush(stdout); /* forked children must not inherit unflushed output */               \
    test_##name();                                                                          \
    printf("%-50s %s\n", #name, mcx_test_failures == mcx_test_case_start ? "ok" : "FAILED"); \
    fflush(stdout);                                                                         \
  } while (0)

static inline int mcx_test_report(void)
{
  printf("%d checks, %d failed\n", atomic_load(&mcx_test_checks), atomic_load(&mcx_test_failures));
  return mcx_test_failures ? 1 : 0;
}

/** Seconds a stress test runs: MCX_STRESS_SECONDS, default @p dflt. */
static inline double mcx_test_stress_seconds(double dflt)
{
  const char *s = getenv("MCX_STRESS_SECONDS");
  if (s && *s) {
    double v = atof(s);
    if (v > 0)
      return v;
  }
  return dflt;
}

static inline double mcx_test_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Waiting for an event. A test never fails because the machine is slow: it
 * polls for the event itself, under a ceiling that only a hang reaches, and a
 * call expected to succeed gets such a ceiling as its timeout (it returns as
 * soon as the event happens, so a generous one costs nothing). */

/** MCX_TEST_TIMEOUT_SCALE (> 0, fractional allowed), default 1: the factor on
 * every ceiling, for slow or loaded machines and sanitizer builds. */
static inline double mcx_test_timeout_scale(void)
{
  const char *s = getenv("MCX_TEST_TIMEOUT_SCALE");
  if (s && *s) {
    double v = atof(s);
    if (v > 0)
      return v;
  }
  return 1.0;
}

/** @p base_ms scaled by mcx_test_timeout_scale(), at least 1 ms, capped
 * below the MCAPI/MRAPI infinite timeout. */
static inline uint32_t mcx_test_ceiling_ms(double base_ms)
{
  double v = base_ms * mcx_test_timeout_scale();
  if (v < 1)
    return 1;
  if (v > 0x7fffffff)
    return 0x7fffffff;
  return (uint32_t)v;
}

/** The timeout of a wait, receive or lock that is expected to succeed. */
#define MCX_TEST_WAIT_MS mcx_test_ceiling_ms(30000)

/** Sleeps about @p ms milliseconds (a poll interval, never a wait for an event). */
static inline void mcx_test_sleep_ms(double ms)
{
  long long ns = (long long)(ms * 1e6);
  struct timespec ts = {(time_t)(ns / 1000000000), (long)(ns % 1000000000)};
  nanosleep(&ts, NULL);
}

/** Polls @p pred(@p arg) every millisecond or so until it holds or
 * @p ceiling_ms (already scaled: pass mcx_test_ceiling_ms(...)) passes.
 * @retval 1 the predicate held.
 * @retval 0 the ceiling passed first. */
static inline int mcx_test_wait_until(int (*pred)(void *), void *arg, uint32_t ceiling_ms)
{
  double end = mcx_test_now() + ceiling_ms / 1000.0;
  for (;;) {
    if (pred(arg))
      return 1;
    if (mcx_test_now() > end)
      return pred(arg);
    mcx_test_sleep_ms(1);
  }
}

/** Polls until the expression @p cond holds or the scaled 30 s ceiling
 * passes (a statement; check @p cond afterwards where it must hold). */
#define MCX_TEST_AWAIT(cond)                                                                \
  do {                                                                                      \
    double end_ = mcx_test_now() + mcx_test_ceiling_ms(30000) / 1000.0;                     \
    while (!(cond) && mcx_test_now() <= end_)                                               \
      mcx_test_sleep_ms(1);                                                                 \
  } while (0)

#ifdef __linux__
/** The calling thread's kernel id, for mcx_test_thread_asleep(). */
static inline long mcx_test_tid(void) { return (long)syscall(SYS_gettid); }

/* Whether the task whose stat file is @p path is asleep (state 'S'). */
static inline int mcx_test_asleep_(const char *path)
{
  char buf[512];
  FILE *f = fopen(path, "r");
  if (!f)
    return 0;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  const char *p = strrchr(buf, ')'); /* the name may hold spaces and parentheses */
  return p && p[1] == ' ' && p[2] == 'S';
}

/** Whether thread @p tid of this process is asleep (state 'S' in
 * /proc/self/task/<tid>/stat): blocked in a futex, a read, a sleep. A waiter
 * that shows 'S' once its caller has said it is about to block has reached
 * its blocking call (or is on its way out of it). */
static inline int mcx_test_thread_asleep(long tid)
{
  char path[64];
  snprintf(path, sizeof path, "/proc/self/task/%ld/stat", tid);
  return mcx_test_asleep_(path);
}

/** Whether process @p pid (single-threaded) is asleep: /proc/<pid>/stat. */
static inline int mcx_test_process_asleep(long pid)
{
  char path[64];
  snprintf(path, sizeof path, "/proc/%ld/stat", pid);
  return mcx_test_asleep_(path);
}

#else
/* Without /proc a thread's state is unknown: the polls for "asleep" do not
 * wait (the tests that use them hold either way). */
static inline long mcx_test_tid(void) { return 1; }
static inline int mcx_test_thread_asleep(long tid) { return (void)tid, 1; }
static inline int mcx_test_process_asleep(long pid) { return (void)pid, 1; }
#endif

#endif /* MCX_TEST_H */
