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

#define TEST(name) static void test_##name(void)
#define RUN(name)                                                                           \
  do {                                                                                      \
    int before_ = mcx_test_failures;                                                        \
    mcx_test_current = #name;                                                               \
    fflush(stdout); /* forked children must not inherit unflushed output */               \
    test_##name();                                                                          \
    printf("%-50s %s\n", #name, mcx_test_failures == before_ ? "ok" : "FAILED");           \
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

#endif /* MCX_TEST_H */
