/* SPDX-License-Identifier: BSD-3-Clause */
/* mca sync --compare: reads the "results" of earlier `mca sync --json` runs.
 * The writer puts one result object per line with a fixed key order; this
 * reader only relies on the keys, not on their order, within one line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mca_sync_compare_load(const char *path, void (*add)(void *ctx, const char *tech, const char *impl, int cores,
                                                         double median),
                          void *ctx);

/* Copies the string value of "key" in @p line into @p out. */
static int str_field(const char *line, const char *key, char *out, size_t n)
{
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\": \"", key);
  const char *p = strstr(line, pat);
  if (!p)
    return 0;
  p += strlen(pat);
  const char *e = strchr(p, '"');
  if (!e || (size_t)(e - p) >= n)
    return 0;
  memcpy(out, p, (size_t)(e - p));
  out[e - p] = '\0';
  return 1;
}

static int num_field(const char *line, const char *key, double *out)
{
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\": ", key);
  const char *p = strstr(line, pat);
  if (!p)
    return 0;
  *out = strtod(p + strlen(pat), NULL);
  return 1;
}

int mca_sync_compare_load(const char *path, void (*add)(void *ctx, const char *tech, const char *impl, int cores,
                                                         double median),
                          void *ctx)
{
  FILE *f = fopen(path, "r");
  if (!f)
    return -1;
  char line[1024];
  int found = 0, schema = 0;
  while (fgets(line, sizeof line, f)) {
    if (strstr(line, "\"schema\": \"mca-sync/1\""))
      schema = 1;
    char tech[64], impl[64];
    double cores, med;
    if (str_field(line, "technique", tech, sizeof tech) && str_field(line, "impl", impl, sizeof impl) &&
        num_field(line, "cores", &cores) && num_field(line, "median_ns", &med)) {
      add(ctx, tech, impl, (int)cores, med);
      found++;
    }
  }
  fclose(f);
  return schema && found ? 0 : -1;
}
