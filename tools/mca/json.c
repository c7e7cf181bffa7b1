/* SPDX-License-Identifier: BSD-3-Clause */
/* A small JSON reader with line tracking (RFC 8259, UTF-8 passed through). */
#include "json.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct parser {
  const char *s;
  size_t pos;
  int line, col;
  char *err;
  size_t errn;
  int failed;
  int depth;
} parser_t;

static void fail(parser_t *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(parser_t *p, const char *fmt, ...)
{
  if (p->failed)
    return;
  p->failed = 1;
  int k = snprintf(p->err, p->errn, "line %d, column %d: ", p->line, p->col);
  if (k < 0 || (size_t)k >= p->errn)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(p->err + k, p->errn - (size_t)k, fmt, ap);
  va_end(ap);
}

static int peek(parser_t *p) { return (unsigned char)p->s[p->pos]; }
static int next(parser_t *p)
{
  int c = (unsigned char)p->s[p->pos];
  if (!c)
    return 0;
  p->pos++;
  if (c == '\n') {
    p->line++;
    p->col = 1;
  } else {
    p->col++;
  }
  return c;
}

static void skip_ws(parser_t *p)
{
  for (;;) {
    int c = peek(p);
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
      next(p);
    else
      return;
  }
}

static json_t *new_value(parser_t *p, json_type_t t)
{
  json_t *v = calloc(1, sizeof *v);
  v->type = t;
  v->line = p->line;
  v->col = p->col;
  return v;
}

static json_t *parse_value(parser_t *p);

static void describe(int c, char *b, size_t n)
{
  if (!c)
    snprintf(b, n, "end of file");
  else if (isprint(c))
    snprintf(b, n, "'%c'", c);
  else
    snprintf(b, n, "byte 0x%02x", c);
}

static char *parse_string_raw(parser_t *p)
{
  next(p); /* opening quote */
  size_t cap = 16, len = 0;
  char *out = malloc(cap);
  for (;;) {
    int c = next(p);
    if (!c) {
      fail(p, "unterminated string");
      free(out);
      return NULL;
    }
    if (c == '"')
      break;
    if (c < 0x20) {
      fail(p, "control character in string (newline inside quotes?)");
      free(out);
      return NULL;
    }
    if (len + 8 >= cap)
      out = realloc(out, cap *= 2);
    if (c != '\\') {
      out[len++] = (char)c;
      continue;
    }
    c = next(p);
    switch (c) {
    case '"': case '\\': case '/': out[len++] = (char)c; break;
    case 'b': out[len++] = '\b'; break;
    case 'f': out[len++] = '\f'; break;
    case 'n': out[len++] = '\n'; break;
    case 'r': out[len++] = '\r'; break;
    case 't': out[len++] = '\t'; break;
    case 'u': {
      unsigned u = 0;
      for (int i = 0; i < 4; i++) {
        int h = next(p);
        if (!isxdigit(h)) {
          fail(p, "bad \\u escape");
          free(out);
          return NULL;
        }
        u = u * 16 + (unsigned)(isdigit(h) ? h - '0' : (tolower(h) - 'a' + 10));
      }
      if (u < 0x80) {
        out[len++] = (char)u;
      } else if (u < 0x800) {
        out[len++] = (char)(0xc0 | (u >> 6));
        out[len++] = (char)(0x80 | (u & 0x3f));
      } else {
        out[len++] = (char)(0xe0 | (u >> 12));
        out[len++] = (char)(0x80 | ((u >> 6) & 0x3f));
        out[len++] = (char)(0x80 | (u & 0x3f));
      }
      break;
    }
    default:
      fail(p, "unknown escape '\\%c' in string", c ? c : '0');
      free(out);
      return NULL;
    }
  }
  out[len] = 0;
  return out;
}

static json_t *parse_number(parser_t *p)
{
  json_t *v = new_value(p, JSON_NUMBER);
  const char *start = p->s + p->pos;
  size_t k = 0;
  if (start[k] == '-')
    k++;
  if (!isdigit((unsigned char)start[k])) {
    fail(p, "expected a digit");
    free(v);
    return NULL;
  }
  if (start[k] == '0' && isdigit((unsigned char)start[k + 1])) {
    fail(p, "numbers may not have leading zeros");
    free(v);
    return NULL;
  }
  while (isdigit((unsigned char)start[k]))
    k++;
  if (start[k] == '.') {
    k++;
    if (!isdigit((unsigned char)start[k])) {
      fail(p, "expected a digit after '.'");
      free(v);
      return NULL;
    }
    while (isdigit((unsigned char)start[k]))
      k++;
  }
  if (start[k] == 'e' || start[k] == 'E') {
    k++;
    if (start[k] == '+' || start[k] == '-')
      k++;
    if (!isdigit((unsigned char)start[k])) {
      fail(p, "expected a digit in the exponent");
      free(v);
      return NULL;
    }
    while (isdigit((unsigned char)start[k]))
      k++;
  }
  char buf[64];
  size_t n = k < sizeof buf - 1 ? k : sizeof buf - 1;
  memcpy(buf, start, n);
  buf[n] = 0;
  v->num = strtod(buf, NULL);
  for (size_t i = 0; i < k; i++)
    next(p);
  return v;
}

static int literal(parser_t *p, const char *word)
{
  size_t n = strlen(word);
  if (strncmp(p->s + p->pos, word, n))
    return 0;
  for (size_t i = 0; i < n; i++)
    next(p);
  return 1;
}

static void push(json_t *v, json_t *item, char *key, int key_line)
{
  v->items = realloc(v->items, (size_t)(v->n + 1) * sizeof *v->items);
  v->items[v->n] = item;
  if (v->type == JSON_OBJECT) {
    v->keys = realloc(v->keys, (size_t)(v->n + 1) * sizeof *v->keys);
    v->key_lines = realloc(v->key_lines, (size_t)(v->n + 1) * sizeof *v->key_lines);
    v->keys[v->n] = key;
    v->key_lines[v->n] = key_line;
  }
  v->n++;
}

static json_t *parse_container(parser_t *p, int obj)
{
  json_t *v = new_value(p, obj ? JSON_OBJECT : JSON_ARRAY);
  if (++p->depth > 200) {
    fail(p, "nested too deeply");
    return v;
  }
  next(p);
  skip_ws(p);
  if (peek(p) == (obj ? '}' : ']')) {
    next(p);
    p->depth--;
    return v;
  }
  for (;;) {
    char *key = NULL;
    int key_line = 0;
    skip_ws(p);
    if (obj) {
      if (peek(p) != '"') {
        char d[32];
        describe(peek(p), d, sizeof d);
        fail(p, "expected a quoted member name, found %s", d);
        return v;
      }
      key_line = p->line;
      key = parse_string_raw(p);
      if (!key)
        return v;
      for (int i = 0; i < v->n; i++)
        if (!strcmp(v->keys[i], key)) {
          fail(p, "duplicate member \"%s\" (first on line %d)", key, v->key_lines[i]);
          free(key);
          return v;
        }
      skip_ws(p);
      if (peek(p) != ':') {
        char d[32];
        describe(peek(p), d, sizeof d);
        fail(p, "expected ':' after \"%s\", found %s", key, d);
        free(key);
        return v;
      }
      next(p);
    }
    skip_ws(p);
    json_t *item = parse_value(p);
    if (!item) {
      free(key);
      return v;
    }
    push(v, item, key, key_line);
    skip_ws(p);
    int c = peek(p);
    if (c == ',') {
      next(p);
      skip_ws(p);
      if (peek(p) == (obj ? '}' : ']')) {
        fail(p, "trailing comma before '%c'", obj ? '}' : ']');
        return v;
      }
      continue;
    }
    if (c == (obj ? '}' : ']')) {
      next(p);
      p->depth--;
      return v;
    }
    char d[32];
    describe(c, d, sizeof d);
    fail(p, "expected ',' or '%c', found %s%s", obj ? '}' : ']', d,
         c == '"' || c == '{' || c == '[' ? " (missing comma?)" : "");
    return v;
  }
}

static json_t *parse_value(parser_t *p)
{
  skip_ws(p);
  int c = peek(p);
  if (c == '{' || c == '[')
    return parse_container(p, c == '{');
  if (c == '"') {
    json_t *v = new_value(p, JSON_STRING);
    v->str = parse_string_raw(p);
    if (!v->str) {
      free(v);
      return NULL;
    }
    return v;
  }
  if (c == '-' || isdigit(c))
    return parse_number(p);
  json_t *v = new_value(p, JSON_NULL);
  if (literal(p, "true")) {
    v->type = JSON_BOOL;
    v->num = 1;
    return v;
  }
  if (literal(p, "false")) {
    v->type = JSON_BOOL;
    return v;
  }
  if (literal(p, "null"))
    return v;
  free(v);
  char d[32];
  describe(c, d, sizeof d);
  fail(p, "expected a value, found %s", d);
  return NULL;
}

json_t *json_parse(const char *text, char *err, size_t errn)
{
  parser_t p = {text, 0, 1, 1, err, errn, 0, 0};
  if (errn)
    err[0] = 0;
  json_t *v = parse_value(&p);
  if (!p.failed) {
    skip_ws(&p);
    if (peek(&p)) {
      char d[32];
      describe(peek(&p), d, sizeof d);
      fail(&p, "unexpected %s after the document", d);
    }
  }
  if (p.failed) {
    json_free(v);
    return NULL;
  }
  return v;
}

json_t *json_parse_file(const char *path, char *err, size_t errn)
{
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(err, errn, "%s: %s", path, strerror(errno));
    return NULL;
  }
  size_t cap = 4096, len = 0;
  char *buf = malloc(cap);
  size_t k;
  while ((k = fread(buf + len, 1, cap - len - 1, f)) > 0) {
    len += k;
    if (len + 1 == cap)
      buf = realloc(buf, cap *= 2);
  }
  fclose(f);
  buf[len] = 0;
  if (strlen(buf) != len) {
    snprintf(err, errn, "%s: contains a NUL byte", path);
    free(buf);
    return NULL;
  }
  char e[256];
  json_t *v = json_parse(buf, e, sizeof e);
  free(buf);
  if (!v)
    snprintf(err, errn, "%s: %s", path, e);
  return v;
}

void json_free(json_t *v)
{
  if (!v)
    return;
  for (int i = 0; i < v->n; i++) {
    json_free(v->items[i]);
    if (v->keys)
      free(v->keys[i]);
  }
  free(v->items);
  free(v->keys);
  free(v->key_lines);
  free(v->str);
  free(v);
}

const json_t *json_get(const json_t *o, const char *key)
{
  if (!o || o->type != JSON_OBJECT)
    return NULL;
  for (int i = 0; i < o->n; i++)
    if (!strcmp(o->keys[i], key))
      return o->items[i];
  return NULL;
}

const char *json_type_name(json_type_t t)
{
  static const char *const n[] = {"null", "boolean", "number", "string", "array", "object"};
  return n[t];
}

int json_cfg_fail(const char *sub, const char *path, const json_t *v, const char *what)
{
  if (v)
    fprintf(stderr, "mca %s: %s: line %d: %s\n", sub, path, v->line, what);
  else
    fprintf(stderr, "mca %s: %s: %s\n", sub, path, what);
  return -1;
}

int json_cfg_u32(const char *sub, const char *path, const json_t *o, const char *key,
                 int required, double max, uint32_t *out)
{
  const json_t *v = json_get(o, key);
  char m[160];
  if (!v) {
    snprintf(m, sizeof m, "\"%s\" is required", key);
    return required ? json_cfg_fail(sub, path, o, m) : 0;
  }
  if (v->type != JSON_NUMBER || v->num < 0 || v->num > max || v->num != (double)(uint32_t)v->num) {
    snprintf(m, sizeof m, "\"%s\" must be a whole number from 0 to %.0f", key, max);
    return json_cfg_fail(sub, path, v, m);
  }
  *out = (uint32_t)v->num;
  return 0;
}
