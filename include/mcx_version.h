/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file mcx_version.h
 * @brief The libmca version: the one place it is written. CMake reads the
 * three numbers from here (project version, SONAME, pkg-config and CMake
 * package versions), so a build without CMake sees the same version.
 *
 * Versions follow semantic versioning: MAJOR changes when the ABI breaks
 * (and with it the SONAME libmca.so.MAJOR), MINOR when functions are added,
 * PATCH for fixes only. docs/versioning.md states the rule.
 */
#ifndef MCX_VERSION_H
#define MCX_VERSION_H

#define MCX_VERSION_MAJOR 0 /**< changes when the ABI breaks; the SONAME is libmca.so.MAJOR */
#define MCX_VERSION_MINOR 1 /**< changes when interfaces are added */
#define MCX_VERSION_PATCH 0 /**< changes for fixes that add no interface */

#define MCX_VERSION_STR_(x) #x
#define MCX_VERSION_STR(x) MCX_VERSION_STR_(x)
/** "MAJOR.MINOR.PATCH" of these headers. */
#define MCX_VERSION_STRING                                                                          \
  MCX_VERSION_STR(MCX_VERSION_MAJOR) "." MCX_VERSION_STR(MCX_VERSION_MINOR) "." MCX_VERSION_STR(MCX_VERSION_PATCH)
/** One comparable number: MAJOR * 10000 + MINOR * 100 + PATCH. */
#define MCX_VERSION_NUMBER (MCX_VERSION_MAJOR * 10000 + MCX_VERSION_MINOR * 100 + MCX_VERSION_PATCH)

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief The version of the library the program runs with, "MAJOR.MINOR.PATCH".
 *
 * It may differ from #MCX_VERSION_STRING (the headers the program was compiled
 * with) when a newer libmca.so of the same major version is installed.
 * Any thread, any time, node or not.
 * @return a static string; never NULL
 */
const char *mcx_version(void);

#ifdef __cplusplus
}
#endif

#endif /* MCX_VERSION_H */
