/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mca-2.0.3 profile: the reference implementation's MRAPI test hooks, used as
 * its metadata test program uses them. A dynamic attribute is started with a
 * rollover callback; mrapi_impl_increment_cache_hits() moves its value by
 * the increment, mrapi_impl_trigger_rollover(0) rolls the first started
 * attribute over (its low 32 bits start again) and runs the callback before
 * it returns; reset, stop and their bad arguments behave as without the
 * hooks. In the spec profile (conf_mrapi_hooks_spec) the hooks change
 * nothing.
 *
 * The machine's counters are live (this thread's context switches, or a
 * cache's misses where the processor counts them), so the values are
 * compared with bounds, not equality: the increment is far larger than
 * anything counted between two reads. The program asks for this machine's
 * tree (MCX_MRAPI_RESOURCES=machine): the mca-2.0.3 profile's own is the
 * reference's example machine, whose hits counter conf_mrapi_reference_tree_203
 * checks.
 */
#include <mrapi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* As the reference's program declares them. */
extern void mrapi_impl_increment_cache_hits(mrapi_resource_t *resource, int increment);
extern void mrapi_impl_trigger_rollover(uint16_t index);

#define DOMAIN 1
#define NODE 2
#define BUMP 1000000000 /* far above what a counter gains between two reads */

static mrapi_status_t status;
static int rollovers;

static void on_rollover(void) { rollovers++; }

#include "conf_mrapi_check.h"

static uint64_t read64(mrapi_resource_t *r, mrapi_uint_t attr)
{
  uint64_t v = 0;
  mrapi_resource_get_attribute(r, attr, &v, sizeof v, &status);
  EXPECT(status == MRAPI_SUCCESS, "reading the started attribute");
  return v;
}

/* Starts the first dynamic attribute of @p r that this machine counts. */
static int start_one(mrapi_resource_t *r, mrapi_uint_t *attr)
{
  for (mrapi_uint_t a = 0; a < r->number_of_attributes; a++) {
    if (*r->attribute_static[a] != MRAPI_ATTR_DYNAMIC)
      continue;
    mrapi_dynamic_attribute_start(r, a, on_rollover, &status);
    if (status == MRAPI_SUCCESS) {
      *attr = a;
      return 1;
    }
    EXPECT(status == MRAPI_ERR_NOT_SUPPORTED, "starting a dynamic attribute");
  }
  return 0;
}

/* A resource (caches first, as the reference's program uses its cache) with
 * a dynamic attribute started, and its first static attribute. */
static mrapi_resource_t *pick(mrapi_resource_t **root, mrapi_uint_t *dyn, mrapi_uint_t *stat)
{
  static const mrapi_rsrc_filter_t filters[] = {MRAPI_RSRC_CACHE, MRAPI_RSRC_CPU, MRAPI_RSRC_MEM};
  for (size_t f = 0; f < sizeof filters / sizeof filters[0]; f++) {
    *root = mrapi_resources_get(filters[f], &status);
    EXPECT(status == MRAPI_SUCCESS && *root, "mrapi_resources_get");
    for (mrapi_uint_t c = 0; c < (*root)->number_of_children; c++) {
      mrapi_resource_t *r = (*root)->children[c];
      if (start_one(r, dyn)) {
        for (*stat = 0; *r->attribute_static[*stat] != MRAPI_ATTR_STATIC; ++*stat)
          ;
        return r;
      }
    }
    mrapi_resource_tree_free(root, &status);
    EXPECT(status == MRAPI_SUCCESS, "mrapi_resource_tree_free");
  }
  return NULL;
}

int main(void)
{
  const char *compat = getenv("MCX_COMPAT");
  int reference = compat && strcmp(compat, "mca-2.0.3") == 0;
  mrapi_info_t version;
  mrapi_resource_t *root, *r;
  mrapi_uint_t dyn, stat;

  putenv("MCX_MRAPI_RESOURCES=machine");
  mrapi_initialize(DOMAIN, NODE, 0, &version, &status);
  EXPECT(status == MRAPI_SUCCESS, "mrapi_initialize");
  r = pick(&root, &dyn, &stat);
  if (!r) {
    /* No counter can be started here (perf events refused): the hooks have nothing to move. */
    printf("no dynamic attribute can be started on this machine: the hooks' effect was not checked\n");
    mrapi_finalize(&status);
    return 0;
  }
  printf("profile %s: resource %s, dynamic attribute %u\n", reference ? "mca-2.0.3" : "spec", r->name,
         (unsigned)dyn);

  /* The increment shows in the value read. */
  uint64_t before = read64(r, dyn);
  mrapi_impl_increment_cache_hits(r, BUMP);
  uint64_t after = read64(r, dyn);
  if (reference)
    EXPECT(after - before >= BUMP && after - before < 2ull * BUMP, "the increment is read back");
  else
    EXPECT(after - before < BUMP, "spec: the increment hook changes nothing");

  /* A rollover: the callback has run when the hook returns, the value has
   * reached the next multiple of 2^32 (its low half starts again). */
  EXPECT(rollovers == 0, "no rollover before the hook");
  mrapi_impl_trigger_rollover(0);
  if (reference) {
    EXPECT(rollovers == 1, "the rollover callback ran once");
    EXPECT(read64(r, dyn) >= (1ull << 32), "the counter rolled over");
    uint32_t low = 0;
    mrapi_resource_get_attribute(r, dyn, &low, sizeof low, &status);
    EXPECT(status == MRAPI_SUCCESS && low < BUMP, "the low 32 bits start again");
  } else {
    EXPECT(rollovers == 0, "spec: the rollover hook changes nothing");
  }
  /* No attribute was started second: nothing happens. */
  mrapi_impl_trigger_rollover(1);
  EXPECT(rollovers == (reference ? 1 : 0), "index 1 names no started attribute");

  /* Reset: bad numbers first, then the counter is back near 0. */
  mrapi_dynamic_attribute_reset(r, 100000, &status);
  EXPECT(status == MRAPI_ERR_ATTR_NUM, "reset of attribute 100000");
  mrapi_dynamic_attribute_reset(r, stat, &status);
  EXPECT(status == MRAPI_ERR_RSRC_NOTDYNAMIC, "reset of a static attribute");
  mrapi_dynamic_attribute_reset(r, dyn, &status);
  EXPECT(status == MRAPI_SUCCESS, "reset");
  EXPECT(read64(r, dyn) < BUMP, "the reset value");

  /* Stop: bad numbers first; an increment on the way changes nothing. */
  mrapi_dynamic_attribute_stop(r, 100000, &status);
  EXPECT(status == MRAPI_ERR_ATTR_NUM, "stop of attribute 100000");
  mrapi_dynamic_attribute_stop(r, stat, &status);
  EXPECT(status == MRAPI_ERR_RSRC_NOTDYNAMIC, "stop of a static attribute");
  mrapi_impl_increment_cache_hits(r, 100);
  mrapi_dynamic_attribute_stop(r, dyn, &status);
  EXPECT(status == MRAPI_SUCCESS, "stop");
  uint64_t v;
  mrapi_resource_get_attribute(r, dyn, &v, sizeof v, &status);
  EXPECT(status == MRAPI_ERR_RSRC_NOTSTARTED, "a stopped attribute");
  mrapi_impl_increment_cache_hits(r, 100); /* nothing started: nothing to move */
  mrapi_impl_trigger_rollover(0);
  EXPECT(rollovers == (reference ? 1 : 0), "a stopped attribute does not roll over");

  mrapi_resource_tree_free(&root, &status);
  EXPECT(status == MRAPI_SUCCESS, "mrapi_resource_tree_free");
  mrapi_finalize(&status);
  EXPECT(status == MRAPI_SUCCESS, "mrapi_finalize");
  printf("PASSED\n");
  return 0;
}
