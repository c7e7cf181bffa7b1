/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file mrapi_rsrc.h
 * @brief MRAPI metadata: the machine's resource tree (from /sys), static and
 * dynamic attributes (dynamic ones counted by the HPC layer's counters),
 * resource callbacks fired from the HPC ticker; in the mca-2.0.3 profile the
 * reference implementation's example machine instead (MCX_MRAPI_RESOURCES=
 * machine keeps this machine's). Results are 0 or MCX_E* /
 * the MCX_EMR_RSRC_* codes below; src/api maps them.
 */
#ifndef MCX_MRAPI_RSRC_H
#define MCX_MRAPI_RSRC_H

#include <stddef.h>
#include <stdint.h>

#include "mrapi.h"

#define MCX_EMR_RSRC_SUBSYS (-80)     /**< no such filter */
#define MCX_EMR_RSRC_INVALID (-81)    /**< not a resource of a live tree */
#define MCX_EMR_RSRC_TREE (-82)       /**< not a tree root */
#define MCX_EMR_ATTR_NUM (-83)        /**< no such attribute */
#define MCX_EMR_ATTR_SIZE (-84)       /**< unusable size */
#define MCX_EMR_NOTDYNAMIC (-85)      /**< a static attribute */
#define MCX_EMR_NOTSTARTED (-86)
#define MCX_EMR_STARTED (-87)
#define MCX_EMR_NOTSUP (-88)          /**< the machine does not provide it */
#define MCX_EMR_EVENT (-89)           /**< no such event */
#define MCX_EMR_CALLBACK (-90)        /**< bad or unknown callback */

int mcx__mr_rsrc_get(int filter, mrapi_resource_t **root);
int mcx__mr_rsrc_free(mrapi_resource_t *root);
int mcx__mr_rsrc_attr(const mrapi_resource_t *r, uint32_t num, void *out, size_t size);
int mcx__mr_rsrc_start(const mrapi_resource_t *r, uint32_t num, void (*rollover)(void));
int mcx__mr_rsrc_reset(const mrapi_resource_t *r, uint32_t num);
int mcx__mr_rsrc_stop(const mrapi_resource_t *r, uint32_t num);
int mcx__mr_rsrc_register(int event, unsigned frequency, void (*fn)(mrapi_event_t));
int mcx__mr_rsrc_unregister(int event, void (*fn)(mrapi_event_t));
/** The reference's test hooks (mca-2.0.3 profile; src/api checks the profile).
 * bump: adds @p by to the first started dynamic attribute of @p r (in attribute order);
 * on the reference's machine to its cache's hits, started or not (modulo 2^32).
 * @retval 0 @retval MCX_ENOENT not a node @retval MCX_EMR_RSRC_INVALID @retval MCX_EMR_NOTSTARTED none started */
int mcx__mr_rsrc_bump(const mrapi_resource_t *r, int64_t by);
/** Rolls the started dynamic attribute @p seq (its place in the order of
 * starts, counted from 0 since none was started) over to the next multiple
 * of 2^32 and calls its rollover callback in the caller's thread. The
 * reference's cache hits keep their value: only the callback runs, as with
 * the reference's hook.
 * @retval 0 @retval MCX_ENOENT not a node @retval MCX_EMR_NOTSTARTED no such attribute */
int mcx__mr_rsrc_rollover(uint32_t seq);
/** Drops the calling node's callbacks (at finalize). */
void mcx__mr_rsrc_node_gone(void);

#endif /* MCX_MRAPI_RSRC_H */
