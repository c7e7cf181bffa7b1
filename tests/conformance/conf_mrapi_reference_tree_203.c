/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mca-2.0.3 profile: mrapi_resources_get gives the reference implementation's
 * example machine, as its metadata test program (resource_attributes)
 * expects it. Every filter finds its leaves (an 8-port crossbar, a DDR of
 * size 1024 at 0xfffff000, two cores with their ids and L1 / L2 sizes, an L3
 * cache of 1024 KB) with the reference's values and widths (2 or 4 bytes,
 * also through attribute_types / attribute_values); the cache's attribute 1
 * is a dynamic hits counter that only the test hook moves: 0 when started,
 * +n per mrapi_impl_increment_cache_hits (modulo 2^32, started or not),
 * kept across a stop and a start, 0 after a reset; mrapi_impl_trigger_rollover
 * runs its rollover callback before returning and leaves the count as it is.
 * Each tree is a copy of its own. A crossbar callback fires every
 * `frequency` ticks in the registering node, and so does a power-management
 * one (every event of that machine is a tick). MCX_MRAPI_RESOURCES=machine
 * gives this machine's tree in the profile.
 *
 * In the spec profile (conf_mrapi_reference_tree_spec) nothing of it shows:
 * the crossbar filter is empty, the processors are this machine's, whatever
 * MCX_MRAPI_RESOURCES says, and the hooks move nothing.
 */
#include <mrapi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
#include <windows.h>
#else
#include <time.h>
#endif

#define DOMAIN 1
#define NODE 4

static mrapi_status_t status;
static int rollovers;
static volatile sig_atomic_t crossbar_events, power_events, wrong_event;

static void on_rollover(void) { rollovers++; }

/* Signal context (the reference's too): flags only. */
static void on_crossbar(mrapi_event_t event)
{
  mrapi_status_t st;
  if (event != MRAPI_EVENT_CROSSBAR_BUFFER_OVER_80PERCENT || mrapi_node_id_get(&st) != NODE)
    wrong_event = 1;
  crossbar_events++;
}

static void on_power(mrapi_event_t event)
{
  if (event != MRAPI_EVENT_POWER_MANAGEMENT)
    wrong_event = 1;
  power_events++;
}

#include "conf_mrapi_check.h"

/* Sleeps 10 ms in a wait that lets a callback in (an APC on Windows). */
static void nap(void)
{
#ifdef _WIN32
  SleepEx(10, TRUE);
#else
  struct timespec ts = {0, 10000000};
  nanosleep(&ts, NULL);
#endif
}

/* Waits until *counter reaches @p n; 30 s (MCX_TEST_TIMEOUT_SCALE times) ends a hang. */
static int wait_count(volatile sig_atomic_t *counter, int n)
{
  const char *s = getenv("MCX_TEST_TIMEOUT_SCALE");
  double scale = s && atof(s) > 0 ? atof(s) : 1.0;
  for (long i = 0; i < (long)(3000 * scale) && *counter < n; i++)
    nap();
  return *counter >= n;
}

/* An attribute read in @p size bytes. */
static uint64_t get(mrapi_resource_t *r, mrapi_uint_t num, size_t size)
{
  uint64_t v = 0;
  mrapi_resource_get_attribute(r, num, &v, size, &status);
  return v;
}

/* Static attribute @p num of @p r: width @p width, value @p want, read as
 * the reference's programs read it (in its width) and through the tree. */
static void check_static(mrapi_resource_t *r, mrapi_uint_t num, uint32_t width, uint32_t want)
{
  EXPECT(num < r->number_of_attributes, "attribute number within the resource");
  EXPECT(*r->attribute_static[num] == MRAPI_ATTR_STATIC, "a static attribute");
  EXPECT(*r->attribute_started[num] == MRAPI_FALSE, "a static attribute is not started");
  EXPECT(*(const mrapi_uint32_t *)r->attribute_types[num] == width, "the attribute's width");
  const void *p = r->attribute_values[num];
  uint32_t through = width == 2 ? *(const uint16_t *)p : *(const uint32_t *)p;
  EXPECT(through == want, "the value attribute_values points at");
  if (width == 2) {
    uint16_t v = 0;
    mrapi_resource_get_attribute(r, num, &v, 2, &status);
    EXPECT_STATUS(MRAPI_SUCCESS, "reading a 16-bit attribute");
    EXPECT(v == want, "a 16-bit attribute's value");
  } else {
    uint32_t v = 0;
    mrapi_resource_get_attribute(r, num, &v, 4, &status);
    EXPECT_STATUS(MRAPI_SUCCESS, "reading a 32-bit attribute");
    EXPECT(v == want, "a 32-bit attribute's value");
  }
  EXPECT(get(r, num, 8) == want && status == MRAPI_SUCCESS, "the value read in 8 bytes");
}

/* The tree of @p filter: a SYSTEM root with @p n leaves of @p type. */
static mrapi_resource_t *tree(mrapi_rsrc_filter_t filter, mrapi_resource_type type, uint32_t n)
{
  mrapi_resource_t *root = mrapi_resources_get(filter, &status);
  EXPECT_STATUS(MRAPI_SUCCESS, "mrapi_resources_get");
  EXPECT(root && root->resource_type == SYSTEM && root->number_of_attributes == 0, "a SYSTEM root");
  EXPECT(root->number_of_children == n, "the number of leaves");
  for (uint32_t i = 0; i < n; i++) {
    mrapi_resource_t *c = root->children[i];
    EXPECT(c->resource_type == type && c->number_of_children == 0, "a leaf of the filter's type");
  }
  return root;
}

static void free_tree(mrapi_resource_t **root)
{
  mrapi_resource_tree_free(root, &status);
  EXPECT_STATUS(MRAPI_SUCCESS, "mrapi_resource_tree_free");
  EXPECT(*root == NULL, "the freed root is cleared");
}

static void reference_machine(void)
{
  mrapi_resource_t *root, *c;

  root = tree(MRAPI_RSRC_CROSSBAR, CROSSBAR, 1);
  c = root->children[0];
  EXPECT(strcmp(c->name, "Crossbar") == 0 && c->number_of_attributes == 1, "the crossbar");
  check_static(c, 0, 2, 8);
  free_tree(&root);

  root = tree(MRAPI_RSRC_MEM, MEM, 1);
  c = root->children[0];
  EXPECT(strcmp(c->name, "DDR") == 0 && c->number_of_attributes == 2, "the DDR");
  mrapi_resource_get_attribute(c, 1000, NULL, 2, &status);
  EXPECT_STATUS(MRAPI_ERR_ATTR_NUM, "attribute 1000 (the number is checked before the buffer)");
  check_static(c, 0, 2, 1024);
  check_static(c, 1, 4, 0xfffff000u);
  free_tree(&root);

  root = tree(MRAPI_RSRC_CPU, CPU, 2);
  static const uint32_t ids[2] = {200000001u, 400000002u}, l1[2] = {32, 64}, l2[2] = {128, 256};
  for (int k = 0; k < 2; k++) {
    c = root->children[k];
    char name[16];
    snprintf(name, sizeof name, "Core %d", k);
    EXPECT(strcmp(c->name, name) == 0 && c->number_of_attributes == 3, "a core");
    check_static(c, 0, 4, ids[k]);
    check_static(c, 1, 2, l1[k]);
    check_static(c, 2, 2, l2[k]);
  }
  mrapi_dynamic_attribute_start(c, 0, on_rollover, &status);
  EXPECT_STATUS(MRAPI_ERR_RSRC_NOTDYNAMIC, "a core has nothing to start");
  free_tree(&root);

  root = mrapi_resources_get(MRAPI_RSRC_DMA, &status);
  EXPECT_STATUS(MRAPI_SUCCESS, "the DMA filter");
  EXPECT(root == NULL, "no DMA engine in the reference's machine either");
}

static void cache_hits(void)
{
  mrapi_resource_t *root = tree(MRAPI_RSRC_CACHE, CACHE, 1);
  mrapi_resource_t *l3 = root->children[0];
  EXPECT(strcmp(l3->name, "L3 Cache") == 0 && l3->number_of_attributes == 2, "the L3 cache");
  check_static(l3, 0, 2, 1024);
  EXPECT(*l3->attribute_static[1] == MRAPI_ATTR_DYNAMIC, "its hits are dynamic");
  EXPECT(*(const mrapi_uint32_t *)l3->attribute_types[1] == 4, "its hits are 32 bits");

  uint32_t hits = 7;
  mrapi_resource_get_attribute(l3, 1, &hits, 4, &status);
  EXPECT_STATUS(MRAPI_ERR_RSRC_NOTSTARTED, "hits before the start");
  mrapi_dynamic_attribute_start(l3, 1, on_rollover, &status);
  EXPECT_STATUS(MRAPI_SUCCESS, "start");
  EXPECT(*l3->attribute_started[1] == MRAPI_TRUE, "attribute_started says so");
  mrapi_dynamic_attribute_start(l3, 1, on_rollover, &status);
  EXPECT_STATUS(MRAPI_ERR_RSRC_STARTED, "a second start");
  EXPECT(get(l3, 1, 4) == 0 && status == MRAPI_SUCCESS, "no hit counted yet");

  mrapi_impl_increment_cache_hits(l3, 100);
  EXPECT(get(l3, 1, 4) == 100 && status == MRAPI_SUCCESS, "the hook counts 100 hits");
  EXPECT(*(const uint32_t *)l3->attribute_values[1] == 100, "attribute_values points at the count");
  mrapi_impl_increment_cache_hits(l3, -101);
  EXPECT(get(l3, 1, 8) == 0xffffffffu, "a 32-bit count: 100 - 101 wraps");
  mrapi_impl_increment_cache_hits(l3, 101);
  EXPECT(get(l3, 1, 4) == 100, "and back");

  /* A tree of its own: its counter is not this one. */
  mrapi_resource_t *other = tree(MRAPI_RSRC_CACHE, CACHE, 1);
  mrapi_resource_get_attribute(other->children[0], 1, &hits, 4, &status);
  EXPECT_STATUS(MRAPI_ERR_RSRC_NOTSTARTED, "another tree's hits are not started");
  EXPECT(*(const uint32_t *)other->children[0]->attribute_values[1] == 0, "another tree counts from 0");
  free_tree(&other);

  /* The rollover hook: the callback has run when it returns; the count stays. */
  EXPECT(rollovers == 0, "no rollover before the hook");
  mrapi_impl_trigger_rollover(0);
  EXPECT(rollovers == 1, "the rollover callback ran once, before the hook returned");
  EXPECT(get(l3, 1, 4) == 100, "the hook leaves the count as it was");
  mrapi_impl_trigger_rollover(1);
  EXPECT(rollovers == 1, "index 1 names no started attribute");

  mrapi_dynamic_attribute_reset(l3, 100000, &status);
  EXPECT_STATUS(MRAPI_ERR_ATTR_NUM, "reset of attribute 100000");
  mrapi_dynamic_attribute_reset(l3, 0, &status);
  EXPECT_STATUS(MRAPI_ERR_RSRC_NOTDYNAMIC, "reset of the size");
  mrapi_dynamic_attribute_reset(l3, 1, &status);
  EXPECT_STATUS(MRAPI_SUCCESS, "reset");
  EXPECT(get(l3, 1, 4) == 0, "reset to 0");

  mrapi_dynamic_attribute_stop(l3, 100000, &status);
  EXPECT_STATUS(MRAPI_ERR_ATTR_NUM, "stop of attribute 100000");
  mrapi_dynamic_attribute_stop(l3, 0, &status);
  EXPECT_STATUS(MRAPI_ERR_RSRC_NOTDYNAMIC, "stop of the size");
  mrapi_impl_increment_cache_hits(l3, 100);
  mrapi_dynamic_attribute_stop(l3, 1, &status);
  EXPECT_STATUS(MRAPI_SUCCESS, "stop");
  mrapi_resource_get_attribute(l3, 1, &hits, 4, &status);
  EXPECT_STATUS(MRAPI_ERR_RSRC_NOTSTARTED, "hits after the stop");
  mrapi_dynamic_attribute_stop(l3, 1, &status);
  EXPECT_STATUS(MRAPI_ERR_RSRC_NOTSTARTED, "a second stop");

  /* Stopped, the hook still counts (the reference's does); a start goes on
   * from the count it had, and is the first started again (index 0). */
  mrapi_impl_increment_cache_hits(l3, 5);
  mrapi_dynamic_attribute_start(l3, 1, on_rollover, &status);
  EXPECT_STATUS(MRAPI_SUCCESS, "start again");
  EXPECT(get(l3, 1, 4) == 105, "a restart keeps the count");
  mrapi_impl_trigger_rollover(0);
  EXPECT(rollovers == 2, "the restarted attribute is index 0");
  free_tree(&root); /* stops it */
  mrapi_impl_trigger_rollover(0);
  EXPECT(rollovers == 2, "a freed tree's attribute does not roll over");
}

static void events(void)
{
  mrapi_resource_register_callback(MRAPI_EVENT_CROSSBAR_BUFFER_OVER_80PERCENT, 3, on_crossbar, &status);
  EXPECT_STATUS(MRAPI_SUCCESS, "register the crossbar callback");
  mrapi_resource_register_callback(MRAPI_EVENT_POWER_MANAGEMENT, 1, on_power, &status);
  EXPECT_STATUS(MRAPI_SUCCESS, "register the power-management callback");
  EXPECT(wait_count(&crossbar_events, 1), "the crossbar callback fired");
  EXPECT(wait_count(&power_events, 3), "the power-management callback fired on every tick");
  EXPECT(!wrong_event, "each callback got its event, in the registering node");
  mrapi_resource_unregister_callback(MRAPI_EVENT_CROSSBAR_BUFFER_OVER_80PERCENT, on_crossbar, &status);
  EXPECT_STATUS(MRAPI_SUCCESS, "unregister the crossbar callback");
  mrapi_resource_unregister_callback(MRAPI_EVENT_POWER_MANAGEMENT, on_power, &status);
  EXPECT_STATUS(MRAPI_SUCCESS, "unregister the power-management callback");
}

/* This machine's tree: no crossbar, its own processors. */
static void this_machine(void)
{
  mrapi_resource_t *root = mrapi_resources_get(MRAPI_RSRC_CROSSBAR, &status);
  EXPECT_STATUS(MRAPI_SUCCESS, "the crossbar filter");
  EXPECT(root == NULL, "a PC has no crossbar");
  root = mrapi_resources_get(MRAPI_RSRC_CPU, &status);
  EXPECT_STATUS(MRAPI_SUCCESS, "the processors");
  EXPECT(root && root->number_of_children >= 1, "at least one processor");
  for (uint32_t i = 0; i < root->number_of_children; i++)
    EXPECT(strncmp(root->children[i]->name, "Core ", 5) != 0, "this machine's processors");
  mrapi_resource_t *cpu0 = root->children[0];
  EXPECT(cpu0->number_of_attributes > 3, "this machine's processor attributes");
  free_tree(&root);

  /* The hooks move nothing of this machine's unless started (spec: never). */
  root = mrapi_resources_get(MRAPI_RSRC_CACHE, &status);
  EXPECT_STATUS(MRAPI_SUCCESS, "the caches");
  for (uint32_t i = 0; root && i < root->number_of_children; i++)
    EXPECT(strcmp(root->children[i]->name, "L3 Cache") != 0, "this machine's caches");
  if (root)
    free_tree(&root);
  int before = rollovers;
  mrapi_impl_trigger_rollover(0);
  EXPECT(rollovers == before, "nothing started: nothing rolls over");
}

int main(void)
{
  const char *compat = getenv("MCX_COMPAT");
  int reference = compat && strcmp(compat, "mca-2.0.3") == 0;
  mrapi_info_t version;

  mrapi_initialize(DOMAIN, NODE, 0, &version, &status);
  EXPECT_STATUS(MRAPI_SUCCESS, "mrapi_initialize");
  if (reference) {
    reference_machine();
    cache_hits();
    events();
    putenv("MCX_MRAPI_RESOURCES=machine");
    this_machine();
    putenv("MCX_MRAPI_RESOURCES=reference");
    mrapi_resource_t *root = tree(MRAPI_RSRC_CROSSBAR, CROSSBAR, 1);
    free_tree(&root);
  } else {
    /* Asking for the reference's machine changes nothing in this profile. */
    putenv("MCX_MRAPI_RESOURCES=reference");
    this_machine();
    mrapi_resource_t *root = mrapi_resources_get(MRAPI_RSRC_MEM, &status);
    EXPECT_STATUS(MRAPI_SUCCESS, "the memory");
    EXPECT(root && strcmp(root->children[0]->name, "DDR") != 0, "this machine's memory");
    free_tree(&root);
  }
  mrapi_finalize(&status);
  EXPECT_STATUS(MRAPI_SUCCESS, "mrapi_finalize");
  printf("PASSED (%s profile)\n", reference ? "mca-2.0.3" : "spec");
  return 0;
}
