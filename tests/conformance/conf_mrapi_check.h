/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the MRAPI conformance programs do on a wrong outcome: print one FAIL
 * line naming the program's last status (its global `status`) and exit
 * non-zero. Included by the programs only, after they declare `status`.
 */
#ifndef CONF_MRAPI_CHECK_H
#define CONF_MRAPI_CHECK_H

#include <mrapi.h>
#include <stdio.h>
#include <stdlib.h>

static void conf_mrapi_fail(int line, const char *what, mrapi_status_t st)
{
  char b[MRAPI_MAX_STATUS_SIZE];
  printf("FAIL line %d: %s (status %s)\n", line, what, mrapi_display_status(st, b, sizeof b));
  fflush(stdout);
  exit(1);
}
#define EXPECT(cond, what)                                                                         \
  do {                                                                                             \
    if (!(cond))                                                                                   \
      conf_mrapi_fail(__LINE__, what, status);                                                     \
  } while (0)
#define EXPECT_STATUS(want, what) EXPECT(status == (want), what)

#endif
