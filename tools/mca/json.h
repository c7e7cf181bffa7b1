/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A small JSON reader for the tools (topologies, result files). Every value
 * remembers the line and column where it starts, so callers can say where a
 * problem is; parse errors name the line, the column and what was expected.
 */
#ifndef MCA_JSON_H
#define MCA_JSON_H

#include <stddef.h>
#include <stdint.h>

typedef enum json_type { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT } json_type_t;

typedef struct json {
  json_type_t type;
  int line, col;
  double num;          /* JSON_NUMBER; JSON_BOOL: 0 or 1 */
  char *str;           /* JSON_STRING */
  int n;               /* JSON_ARRAY / JSON_OBJECT: number of items */
  struct json **items; /* values */
  char **keys;         /* JSON_OBJECT: keys, in file order */
  int *key_lines;      /* JSON_OBJECT: line of each key */
} json_t;

/**
 * Parses @p text (NUL-terminated). On failure returns NULL and writes
 * "line L, column C: problem" into @p err.
 */
json_t *json_parse(const char *text, char *err, size_t errn);
/** Reads and parses a file; errors are prefixed with the path. */
json_t *json_parse_file(const char *path, char *err, size_t errn);
void json_free(json_t *v);
/** The member @p key of object @p o, or NULL (also when @p o is not an object). */
const json_t *json_get(const json_t *o, const char *key);
const char *json_type_name(json_type_t t);

/* ---- a subcommand's configuration file (mca bridge, mca dds) */
/** Prints "mca SUB: PATH: line L: WHAT" (the line of @p v, when there is
 * one) and returns -1. */
int json_cfg_fail(const char *sub, const char *path, const json_t *v, const char *what);
/** The whole number in [0, @p max] at @p key of object @p o in *@p out: 0;
 * absent: 0, *@p out unchanged, unless @p required (then an error); anything
 * else: json_cfg_fail's -1. */
int json_cfg_u32(const char *sub, const char *path, const json_t *o, const char *key,
                 int required, double max, uint32_t *out);

#endif
