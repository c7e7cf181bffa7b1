/* SPDX-License-Identifier: BSD-3-Clause */
/* State-channel calls (mcx.h). */
#include "api/api.h"

_Static_assert(MCX_STATE_MAX_PAYLOAD == MCX_STATE_MAX_SIZE, "public and internal limits agree");
_Static_assert(MCX_STATE_MAX_NBUF == MCX_STATE_MAX_BUFFERS, "public and internal limits agree");
_Static_assert(MCX_STATE_MAX_CHANNELS == MCX_STATE_CHANNELS, "public and internal limits agree");

static mcx_atomic_u32 read_retries = 64;

static mcapi_status_t handle_status(int r)
{
  if (r == MCX_EINVAL || r == MCX_ESTALE)
    return MCAPI_ERR_ENDP_INVALID;
  return mcx__status(r, CTX_SEND);
}

MCX_API mcx_state_t mcx_state_create(mcapi_port_t port, size_t max_size, unsigned nbuf,
                                     mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return 0;
  REQUIRE_NODE(0);
  if (max_size == 0 || max_size > MCX_STATE_MAX_PAYLOAD || nbuf < 2 || nbuf > MCX_STATE_MAX_NBUF) {
    SET(MCAPI_ERR_PARAMETER);
    return 0;
  }
  uint32_t h = 0;
  int r = mcx__state_create(port, (uint32_t)max_size, nbuf, &h);
  SET(r == MCX_EEXIST ? MCAPI_ERR_ENDP_EXISTS
                      : r == MCX_ENOMEM ? MCAPI_ERR_ENDP_LIMIT : mcx__status(r, CTX_ENDPOINT));
  return h;
}

MCX_API mcx_state_t mcx_state_open(mcapi_domain_t domain, mcapi_node_t node, mcapi_port_t port,
                                   mcapi_timeout_t timeout, mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return 0;
  REQUIRE_NODE(0);
  if (domain != mcx__self.dom->domain_id) {
    SET(MCAPI_ERR_DOMAIN_INVALID);
    return 0;
  }
  uint32_t h = 0;
  int r = mcx__state_open(node, port, timeout, &h);
  SET(mcx__status(r, CTX_ENDPOINT));
  return r ? 0 : h;
}

MCX_API void mcx_state_close(mcx_state_t state, mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return;
  REQUIRE_NODE();
  SET(handle_status(mcx__state_close(state)));
}

MCX_API void mcx_state_write(mcx_state_t state, const void *buffer, size_t size,
                             mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return;
  REQUIRE_NODE();
  if (!buffer && size) {
    SET(MCAPI_ERR_PARAMETER);
    return;
  }
  int r = mcx__state_write(state, buffer, size);
  SET(r == MCX_EPERM ? MCAPI_ERR_ENDP_REMOTE : handle_status(r));
}

MCX_API size_t mcx_state_read(mcx_state_t state, void *buffer, size_t size, mca_uint64_t *version,
                              mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return 0;
  REQUIRE_NODE(0);
  if (!buffer) {
    SET(MCAPI_ERR_PARAMETER);
    return 0;
  }
  size_t got = 0;
  uint64_t v = 0;
  int r = mcx__state_read(state, buffer, size, &got, &v, mcx_load_relaxed(&read_retries));
  if (version)
    *version = v;
  SET(r == MCX_EAGAIN ? MCAPI_ERR_TRANSMISSION : handle_status(r));
  return got;
}

MCX_API mca_uint64_t mcx_state_wait_newer(mcx_state_t state, mca_uint64_t version,
                                          mcapi_timeout_t timeout, mcapi_status_t *mcapi_status)
{
  if (!mcapi_status)
    return version;
  REQUIRE_NODE(version);
  uint64_t v = version;
  int r = mcx__state_wait_newer(state, version, timeout, &v);
  SET(handle_status(r));
  return r ? version : v;
}

MCX_API void mcx_state_set_read_retries(unsigned retries)
{
  mcx_store_relaxed(&read_retries, retries); /* a knob */
}
