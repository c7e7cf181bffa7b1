/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The part of POSIX extended regular expressions `mca bench --only` needs,
 * for C runtimes without <regex.h> (Windows): alternatives (a|b), '.',
 * bracket expressions ([a-z], [^.]), '*', '+', '?', anchors '^' and '$', and
 * '\' before a character that stands for itself. Groups and intervals are
 * refused by regcomp (the caller reports the pattern as not supported here).
 * Matching is a search (anywhere in the string), as regexec's.
 */
#ifndef MCA_ERE_LITE_H
#define MCA_ERE_LITE_H

#include <stdlib.h>
#include <string.h>

#define REG_EXTENDED 1
#define REG_NOSUB 4
typedef struct {
  char *pat;
} regex_t;

/* Length of the atom at p (a character, an escape, a bracket expression); 0: malformed. */
static inline size_t ere_atom_len(const char *p)
{
  if (*p == '\\')
    return p[1] ? 2 : 0;
  if (*p != '[')
    return 1;
  const char *q = p + 1;
  if (*q == '^')
    q++;
  if (*q == ']')
    q++;
  while (*q && *q != ']')
    q++;
  return *q ? (size_t)(q - p) + 1 : 0;
}

static inline int ere_atom_match(const char *p, char c)
{
  if (!c)
    return 0;
  if (*p == '.')
    return 1;
  if (*p == '\\')
    return p[1] == c;
  if (*p != '[')
    return *p == c;
  const char *q = p + 1;
  int neg = *q == '^', in = 0;
  if (neg)
    q++;
  int first = 1;
  for (; *q && (*q != ']' || first); q++, first = 0) {
    if (q[1] == '-' && q[2] && q[2] != ']') {
      if (c >= q[0] && c <= q[2])
        in = 1;
      q += 2;
    } else if (*q == c) {
      in = 1;
    }
  }
  return in != neg;
}

static inline int ere_here(const char *p, const char *pe, const char *s)
{
  if (p == pe)
    return 1;
  if (*p == '$' && p + 1 == pe)
    return *s == 0;
  size_t n = ere_atom_len(p);
  const char *q = p + n;
  if (q < pe && (*q == '*' || *q == '+' || *q == '?')) {
    size_t max = 0, min = *q == '+' ? 1 : 0;
    while (s[max] && ere_atom_match(p, s[max]) && (*q != '?' || max < 1))
      max++;
    for (size_t k = max + 1; k-- > min;)
      if (ere_here(q + 1, pe, s + k))
        return 1;
    return 0;
  }
  return ere_atom_match(p, *s) && ere_here(q, pe, s + 1);
}

static inline int regcomp(regex_t *re, const char *pat, int flags)
{
  (void)flags;
  re->pat = NULL;
  for (const char *p = pat; *p;) {
    if (*p == '(' || *p == ')' || *p == '{' || *p == '}')
      return 1; /* groups, intervals: not in this subset */
    if (*p == '|') {
      p++;
      continue;
    }
    if (*p == '^' || *p == '$') {
      p++;
      continue;
    }
    if (*p == '*' || *p == '+' || *p == '?')
      return 1; /* nothing to repeat here (the atom's own repeat is skipped below) */
    size_t n = ere_atom_len(p);
    if (!n)
      return 1;
    p += n;
    if (*p == '*' || *p == '+' || *p == '?')
      p++;
  }
  re->pat = strdup(pat);
  return re->pat ? 0 : 1;
}

static inline int regexec(const regex_t *re, const char *s, size_t nmatch, void *pmatch, int flags)
{
  (void)nmatch, (void)pmatch, (void)flags;
  for (const char *a = re->pat;;) {
    const char *b = a;
    while (*b && *b != '|') {
      size_t n = ere_atom_len(b);
      b += n ? n : 1;
    }
    if (*a == '^') {
      if (ere_here(a + 1, b, s))
        return 0;
    } else {
      for (const char *t = s;; t++) {
        if (ere_here(a, b, t))
          return 0;
        if (!*t)
          break;
      }
    }
    if (!*b)
      return 1; /* REG_NOMATCH */
    a = b + 1;
  }
}

static inline void regfree(regex_t *re)
{
  free(re->pat);
  re->pat = NULL;
}

#endif
