/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What every conformance program does on a wrong outcome: print one FAIL line
 * and exit non-zero (CHECK for a status, EXPECT for data), and a watchdog
 * that ends a program which hangs. Included by the programs only.
 */
#ifndef CONF_CHECK_H
#define CONF_CHECK_H

#include <mcapi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char *status_name(mcapi_status_t status, char *buf, size_t size)
{
  const char *name = mcapi_display_status(status, buf, size);
  return name ? name : "(not a status code)";
}

/* Any wrong status ends the program with a FAIL line. */
static void check_status(mcapi_status_t got, mcapi_status_t want, const char *what, int line)
{
  if (got != want) {
    char g[MCAPI_MAX_STATUS_SIZE], w[MCAPI_MAX_STATUS_SIZE];
    printf("FAIL %s (line %d): status %s, expected %s\n", what, line, status_name(got, g, sizeof g),
           status_name(want, w, sizeof w));
    fflush(stdout);
    exit(1);
  }
}
#define CHECK(status, want, what) check_status((status), (want), (what), __LINE__)

/* Any wrong data ends the program with a FAIL line. */
#define EXPECT(cond, ...)                                                                          \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      printf("FAIL line %d: ", __LINE__);                                                          \
      printf(__VA_ARGS__);                                                                         \
      printf("\n");                                                                                \
      fflush(stdout);                                                                              \
      exit(1);                                                                                     \
    }                                                                                              \
  } while (0)

/* MCX_TEST_TIMEOUT_SCALE (> 0), default 1: the factor on every ceiling below,
 * for slow or loaded machines and sanitizer builds. */
static inline double conf_timeout_scale(void)
{
  const char *s = getenv("MCX_TEST_TIMEOUT_SCALE");
  double v = s ? atof(s) : 0;
  return v > 0 ? v : 1.0;
}

/* The timeout of a wait expected to succeed: it returns when the request
 * completes, so the ceiling (30 s scaled) only ends a hang. */
#define CONF_WAIT_MS ((mcapi_timeout_t)(30000 * conf_timeout_scale()))

/* The watchdog's delay: longer than any wait a program makes. */
#define CONF_WATCHDOG_S ((unsigned)(120 * conf_timeout_scale()))

#ifdef _WIN32
/* No SIGALRM on Windows: a thread that sleeps the watchdog's delay, then ends the program. */
#include <windows.h>
static DWORD WINAPI watchdog_thread(LPVOID arg)
{
  static const char msg[] = "FAIL watchdog: the program did not finish (hung)\n";
  (void)arg;
  Sleep(CONF_WATCHDOG_S * 1000u);
  fwrite(msg, 1, sizeof msg - 1, stdout);
  fflush(stdout);
  _exit(2);
}
static void start_watchdog(void)
{
  HANDLE t = CreateThread(NULL, 0, watchdog_thread, NULL, 0, NULL);
  if (t)
    CloseHandle(t);
}
#define START_WATCHDOG() start_watchdog()
#else
static void watchdog(int sig)
{
  static const char msg[] = "FAIL watchdog: the program did not finish (hung)\n";
  (void)sig;
  if (write(1, msg, sizeof msg - 1) < 0)
    _exit(3);
  _exit(2);
}
#define START_WATCHDOG() (signal(SIGALRM, watchdog), alarm(CONF_WATCHDOG_S))
#endif

#endif
