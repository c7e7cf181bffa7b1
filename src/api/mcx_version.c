/* SPDX-License-Identifier: BSD-3-Clause */
/* mcx_version(): the version this library was built as (include/mcx_version.h). */
#include "mcx_version.h"

#include "api/api.h"

MCX_API const char *mcx_version(void) { return MCX_VERSION_STRING; }
