/* SPDX-License-Identifier: BSD-3-Clause */
/* The version is one number everywhere: the header's macros, the library's
 * mcx_version(), and the project version CMake read from the header. */
#include <stdio.h>
#include <string.h>

#include "mcx.h"
#include "mcx_version.h"

int main(void)
{
  char want[32];
  snprintf(want, sizeof want, "%d.%d.%d", MCX_VERSION_MAJOR, MCX_VERSION_MINOR, MCX_VERSION_PATCH);
  if (strcmp(want, MCX_VERSION_STRING)) {
    fprintf(stderr, "MCX_VERSION_STRING %s != %s\n", MCX_VERSION_STRING, want);
    return 1;
  }
  if (strcmp(mcx_version(), MCX_VERSION_STRING)) {
    fprintf(stderr, "mcx_version() %s != headers %s\n", mcx_version(), MCX_VERSION_STRING);
    return 1;
  }
#ifdef MCA_EXPECT_VERSION
  if (strcmp(mcx_version(), MCA_EXPECT_VERSION)) {
    fprintf(stderr, "mcx_version() %s != project version %s\n", mcx_version(), MCA_EXPECT_VERSION);
    return 1;
  }
#endif
  if (MCX_VERSION_NUMBER != MCX_VERSION_MAJOR * 10000 + MCX_VERSION_MINOR * 100 + MCX_VERSION_PATCH)
    return 1;
  printf("libmca %s\n", mcx_version());
  return 0;
}
