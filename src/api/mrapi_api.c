/* SPDX-License-Identifier: BSD-3-Clause */
/* MRAPI 1.0 entry points: argument checks and the one mapping from internal
 * results (0 / MCX_E*) to mrapi_status_t. Contracts are in include/mrapi.h. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "mrapi.h"
#include "mca_utils.h"
#include "mrapi/mrapi_domain.h"
#include "mrapi/mrapi_req.h"
#include "mrapi/mrapi_rsrc.h"

#include "api/export.h"
#define API MCX_API

/* Per-kind status names for the same internal results. */
typedef struct kind_status {
  mrapi_status_t invalid, deleted, exists, id_invalid, limit, locked, notlocked, died;
} kind_status_t;

static const kind_status_t K_MUTEX = {MRAPI_ERR_MUTEX_INVALID, MRAPI_ERR_MUTEX_DELETED, MRAPI_ERR_MUTEX_EXISTS,
                                      MRAPI_ERR_MUTEX_ID_INVALID, MRAPI_ERR_MUTEX_LIMIT, MRAPI_ERR_MUTEX_LOCKED,
                                      MRAPI_ERR_MUTEX_NOTLOCKED, MRAPI_ERR_MUTEX_OWNER_DIED};
static const kind_status_t K_SEM = {MRAPI_ERR_SEM_INVALID, MRAPI_ERR_SEM_DELETED, MRAPI_ERR_SEM_EXISTS,
                                    MRAPI_ERR_SEM_ID_INVALID, MRAPI_ERR_SEM_LIMIT, MRAPI_ERR_SEM_LOCKED,
                                    MRAPI_ERR_SEM_NOTLOCKED, MRAPI_ERR_SEM_OWNER_DIED};
static const kind_status_t K_RWL = {MRAPI_ERR_RWL_INVALID, MRAPI_ERR_RWL_DELETED, MRAPI_ERR_RWL_EXISTS,
                                    MRAPI_ERR_RWL_ID_INVALID, MRAPI_ERR_RWL_LIMIT, MRAPI_ERR_RWL_LOCKED,
                                    MRAPI_ERR_RWL_NOTLOCKED, MRAPI_ERR_RWL_OWNER_DIED};
static const kind_status_t K_SHM = {MRAPI_ERR_SHM_INVALID, MRAPI_ERR_SHM_INVALID, MRAPI_ERR_SHM_EXISTS,
                                    MRAPI_ERR_SHM_ID_INVALID, MRAPI_ERR_MEM_LIMIT, MRAPI_ERR_SHM_ATTCH,
                                    MRAPI_ERR_SHM_NOTATTACHED, MRAPI_ERR_SHM_INVALID};

/* The one place internal results become statuses. */
static mrapi_status_t map(int r, const kind_status_t *k)
{
  switch (r) {
  case MCX_OK:
    return MRAPI_SUCCESS;
  case MCX_ENOENT:
    return MRAPI_ERR_NODE_NOTINIT;
  case MCX_EINVAL:
    return k->invalid;
  case MCX_ESTALE:
    return k->deleted;
  case MCX_EEXIST:
    return k->exists;
  case MCX_ENOMEM:
    return k->limit;
  case MCX_EBUSY:
    return k->locked;
  case MCX_EAGAIN:
    return k->locked;
  case MCX_EPERM:
    return k->notlocked;
  case MCX_ETIMEDOUT:
    return MRAPI_TIMEOUT;
  case MCX_EOWNERDEAD:
    return k->died;
  case MCX_EMR_LOCKLIMIT:
    return MRAPI_ERR_SEM_LOCKLIMIT;
  case MCX_EMR_KEY:
    return MRAPI_ERR_MUTEX_KEY;
  case MCX_EMR_LOCKORDER:
    return MRAPI_ERR_MUTEX_LOCKORDER;
  case MCX_EMR_ATTACHED:
    return MRAPI_ERR_SHM_ATTACHED;
  case MCX_EMR_NOTATTACHED:
    return MRAPI_ERR_SHM_NOTATTACHED;
  case MCX_EIO:
  default:
    return MRAPI_ERR_MEM_LIMIT;
  }
}

/* A timed lock that could not wait reports a timeout, as the spec's lock does. */
static mrapi_status_t map_timed(int r, const kind_status_t *k)
{
  return r == MCX_EAGAIN ? MRAPI_TIMEOUT : map(r, k);
}

/* ------------------------------------------------------------ general */

static const char *const status_names[] = {
    "MRAPI_SUCCESS", "MRAPI_TIMEOUT", "MRAPI_INCOMPLETE", "MRAPI_ERR_ATTR_NUM", "MRAPI_ERR_ATTR_READONLY",
    "MRAPI_ERR_ATTR_SIZE", "MRAPI_ERR_DOMAIN_INVALID", "MRAPI_ERR_DOMAIN_NOTSHARED", "MRAPI_ERR_MEM_LIMIT",
    "MRAPI_ERR_MUTEX_DELETED", "MRAPI_ERR_MUTEX_EXISTS", "MRAPI_ERR_MUTEX_ID_INVALID", "MRAPI_ERR_MUTEX_INVALID",
    "MRAPI_ERR_MUTEX_KEY", "MRAPI_ERR_MUTEX_LIMIT", "MRAPI_ERR_MUTEX_LOCKED", "MRAPI_ERR_MUTEX_LOCKORDER",
    "MRAPI_ERR_MUTEX_NOTLOCKED", "MRAPI_ERR_MUTEX_NOTVALID", "MRAPI_ERR_NODE_INITFAILED",
    "MRAPI_ERR_NODE_FINALFAILED", "MRAPI_ERR_NODE_INITIALIZED", "MRAPI_ERR_NODE_INVALID", "MRAPI_ERR_NODE_NOTINIT",
    "MRAPI_ERR_NOT_SUPPORTED", "MRAPI_ERR_PARAMETER", "MRAPI_ERR_REQUEST_CANCELED", "MRAPI_ERR_REQUEST_INVALID",
    "MRAPI_ERR_REQUEST_LIMIT", "MRAPI_ERR_RMEM_ID_INVALID", "MRAPI_ERR_RMEM_ATTACH", "MRAPI_ERR_RMEM_ATTACHED",
    "MRAPI_ERR_RMEM_ATYPE", "MRAPI_ERR_RMEM_ATYPE_NOTVALID", "MRAPI_ERR_RMEM_BLOCKED",
    "MRAPI_ERR_RMEM_BUFF_OVERRUN", "MRAPI_ERR_RMEM_CONFLICT", "MRAPI_ERR_RMEM_EXISTS", "MRAPI_ERR_RMEM_INVALID",
    "MRAPI_ERR_RMEM_NOTATTACHED", "MRAPI_ERR_RMEM_NOTOWNER", "MRAPI_ERR_RMEM_STRIDE",
    "MRAPI_ERR_RMEM_TYPENOTVALID", "MRAPI_ERR_RSRC_COUNTER_INUSE", "MRAPI_ERR_RSRC_INVALID",
    "MRAPI_ERR_RSRC_INVALID_CALLBACK", "MRAPI_ERR_RSRC_INVALID_EVENT", "MRAPI_ERR_RSRC_INVALID_SUBSYSTEM",
    "MRAPI_ERR_RSRC_INVALID_TREE", "MRAPI_ERR_RSRC_NOTDYNAMIC", "MRAPI_ERR_RSRC_NOTOWNER",
    "MRAPI_ERR_RSRC_NOTSTARTED", "MRAPI_ERR_RSRC_STARTED", "MRAPI_ERR_RWL_DELETED", "MRAPI_ERR_RWL_EXISTS",
    "MRAPI_ERR_RWL_ID_INVALID", "MRAPI_ERR_RWL_INVALID", "MRAPI_ERR_RWL_LIMIT", "MRAPI_ERR_RWL_LOCKED",
    "MRAPI_ERR_RWL_NOTLOCKED", "MRAPI_ERR_SEM_DELETED", "MRAPI_ERR_SEM_EXISTS", "MRAPI_ERR_SEM_ID_INVALID",
    "MRAPI_ERR_SEM_INVALID", "MRAPI_ERR_SEM_LIMIT", "MRAPI_ERR_SEM_LOCKED", "MRAPI_ERR_SEM_LOCKLIMIT",
    "MRAPI_ERR_SEM_NOTLOCKED", "MRAPI_ERR_SHM_ATTACHED", "MRAPI_ERR_SHM_ATTCH", "MRAPI_ERR_SHM_EXISTS",
    "MRAPI_ERR_SHM_ID_INVALID", "MRAPI_ERR_SHM_INVALID", "MRAPI_ERR_SHM_NODES_INCOMPAT",
    "MRAPI_ERR_SHM_NODE_NOTSHARED", "MRAPI_ERR_SHM_NOTATTACHED", "MRAPI_ERR_ATOM_INVALID_ARG",
    "MRAPI_ERR_ATOM_OP_FAILED", "MRAPI_ERR_ATOM_OP_NOFORWARD", "MRAPI_ERR_MUTEX_OWNER_DIED",
    "MRAPI_ERR_SEM_OWNER_DIED", "MRAPI_ERR_RWL_OWNER_DIED",
};
_Static_assert(sizeof status_names / sizeof status_names[0] == MRAPI_ERR_RWL_OWNER_DIED + 1,
               "a name for every status");

API char *mrapi_display_status(mrapi_status_t status, char *status_message, size_t size)
{
  if (!status_message || size == 0)
    return NULL;
  const char *name = status < sizeof status_names / sizeof status_names[0] ? status_names[status] : "MRAPI_UNKNOWN";
  if (strlen(name) >= size)
    return NULL;
  strcpy(status_message, name);
  return status_message;
}

API void mrapi_initialize(mrapi_domain_t domain_id, mrapi_node_t node_id, mrapi_parameters_t init_parameters,
                          mrapi_info_t *mrapi_info, mrapi_status_t *status)
{
  if (!status)
    return;
  if (!mrapi_info) {
    *status = MRAPI_ERR_PARAMETER;
    return;
  }
  if (node_id == MRAPI_NONE) {
    *status = MRAPI_ERR_NODE_INVALID;
    return;
  }
  if (domain_id == MRAPI_NONE) {
    *status = MRAPI_ERR_DOMAIN_INVALID;
    return;
  }
  int r = mcx__mr_initialize(domain_id, node_id);
  if (r == MCX_OK) {
    snprintf(mrapi_info->mrapi_version, sizeof mrapi_info->mrapi_version, "%s", MRAPI_VERSION);
    *status = MRAPI_SUCCESS;
  } else {
    *status = r == MCX_EEXIST ? MRAPI_ERR_NODE_INITIALIZED : MRAPI_ERR_NODE_INITFAILED;
  }
}

API void mrapi_set_debug_level(int d) { mcx__mr_set_debug(d); }

API void mca_set_debug_level(int d) { mcx__mr_set_debug(d); }

API void mca_dprintf(int level, const char *format, ...)
{
  if (!format || level > mcx__mr_debug())
    return;
  char line[512];
  va_list ap;
  va_start(ap, format);
  vsnprintf(line, sizeof line, format, ap);
  va_end(ap);
  fprintf(stderr, "%s%s", line, (*line && line[strlen(line) - 1] == '\n') ? "" : "\n");
}

API void mrapi_finalize(mrapi_status_t *status)
{
  if (!status)
    return;
  uint32_t d, n;
  if (mcx__mr_whoami(&d, &n) == MCX_OK) {
    mcx__mr_req_drain(0);      /* the DMA engine acts for this node: let it finish first */
    mcx__mr_rsrc_node_gone(); /* its resource callbacks end with it */
  }
  *status = mcx__mr_finalize() == MCX_OK ? MRAPI_SUCCESS : MRAPI_ERR_NODE_NOTINIT;
}

API mrapi_domain_t mrapi_domain_id_get(mrapi_status_t *status)
{
  uint32_t d, n;
  if (!status)
    return MRAPI_NONE;
  if (mcx__mr_whoami(&d, &n) != MCX_OK) {
    *status = MRAPI_ERR_NODE_NOTINIT;
    return MRAPI_NONE;
  }
  *status = MRAPI_SUCCESS;
  return d;
}

API mrapi_node_t mrapi_node_id_get(mrapi_status_t *status)
{
  uint32_t d, n;
  if (!status)
    return MRAPI_NONE;
  if (mcx__mr_whoami(&d, &n) != MCX_OK) {
    *status = MRAPI_ERR_NODE_NOTINIT;
    return MRAPI_NONE;
  }
  *status = MRAPI_SUCCESS;
  return n;
}

/* ------------------------------------------------------------ attributes */

/* Shared by the four kinds: boolean attributes stored in the caller's struct. */
static mrapi_status_t set_bool(mca_boolean_t *field, const void *attribute, size_t attr_size)
{
  if (attr_size != sizeof(mrapi_boolean_t))
    return MRAPI_ERR_ATTR_SIZE;
  *field = *(const mrapi_boolean_t *)attribute ? MRAPI_TRUE : MRAPI_FALSE;
  return MRAPI_SUCCESS;
}

/* Reads an attribute of an existing object. */
static mrapi_status_t get_attr(mcx__mr_kind_t kind, uint32_t h, mrapi_uint_t num, void *attribute, size_t size,
                               const kind_status_t *k)
{
  mcx__mr_attrs_t a;
  int r = mcx__mr_attrs_of(kind, h, &a);
  if (r != MCX_OK)
    return map(r, k);
  if (!attribute)
    return MRAPI_ERR_PARAMETER;
  mca_boolean_t b;
  switch (num) {
  case MRAPI_MUTEX_RECURSIVE:
    if (kind != MCX__MR_MUTEX)
      return MRAPI_ERR_ATTR_NUM;
    b = (mca_boolean_t)a.recursive;
    break;
  case MRAPI_ERROR_EXT:
    b = (mca_boolean_t)a.error_ext;
    break;
  case MRAPI_DOMAIN_SHARED:
    b = (mca_boolean_t)a.domain_shared;
    break;
  case MRAPI_SHMEM_SIZE:
    if (kind != MCX__MR_SHMEM)
      return MRAPI_ERR_ATTR_NUM;
    if (size != sizeof(mrapi_uint_t))
      return MRAPI_ERR_ATTR_SIZE;
    *(mrapi_uint_t *)attribute = a.limit;
    return MRAPI_SUCCESS;
  default:
    return MRAPI_ERR_ATTR_NUM;
  }
  if (size != sizeof(mrapi_boolean_t))
    return MRAPI_ERR_ATTR_SIZE;
  *(mrapi_boolean_t *)attribute = b;
  return MRAPI_SUCCESS;
}

/* ------------------------------------------------------------ mutexes */

API void mrapi_mutex_init_attributes(mrapi_mutex_attributes_t *attributes, mrapi_status_t *status)
{
  if (!status)
    return;
  if (!attributes) {
    *status = MRAPI_ERR_PARAMETER;
    return;
  }
  memset(attributes, 0, sizeof *attributes);
  *status = MRAPI_SUCCESS;
}

API void mrapi_mutex_set_attribute(mrapi_mutex_attributes_t *attributes, mrapi_uint_t attribute_num,
                                   const void *attribute, size_t attr_size, mrapi_status_t *status)
{
  if (!status)
    return;
  if (!attributes || !attribute) {
    *status = MRAPI_ERR_PARAMETER;
    return;
  }
  switch (attribute_num) {
  case MRAPI_MUTEX_RECURSIVE:
    *status = set_bool(&attributes->recursive, attribute, attr_size);
    break;
  case MRAPI_ERROR_EXT:
    *status = set_bool(&attributes->error_ext, attribute, attr_size);
    break;
  case MRAPI_DOMAIN_SHARED:
    *status = set_bool(&attributes->domain_shared, attribute, attr_size);
    break;
  default:
    *status = MRAPI_ERR_ATTR_NUM;
  }
}

API void mrapi_mutex_get_attribute(mrapi_mutex_hndl_t mutex, mrapi_uint_t attribute_num, void *attribute,
                                   size_t attribute_size, mrapi_status_t *status)
{
  if (status)
    *status = get_attr(MCX__MR_MUTEX, mutex, attribute_num, attribute, attribute_size, &K_MUTEX);
}

API mrapi_mutex_hndl_t mrapi_mutex_create(mrapi_mutex_id_t mutex_id, const mrapi_mutex_attributes_t *attributes,
                                          mrapi_status_t *status)
{
  uint32_t h = 0;
  if (!status)
    return 0;
  mcx__mr_attrs_t a = {0};
  if (attributes) {
    a.recursive = attributes->recursive;
    a.error_ext = attributes->error_ext;
    a.domain_shared = attributes->domain_shared;
  }
  *status = map(mcx__mr_create(MCX__MR_MUTEX, (uint32_t)mutex_id, &a, &h), &K_MUTEX);
  return *status == MRAPI_SUCCESS ? h : 0;
}

API mrapi_mutex_hndl_t mrapi_mutex_get(mrapi_mutex_id_t mutex_id, mrapi_status_t *status)
{
  uint32_t h = 0;
  if (!status)
    return 0;
  int r = mcx__mr_get(MCX__MR_MUTEX, (uint32_t)mutex_id, &h);
  *status = r == MCX_EINVAL ? MRAPI_ERR_MUTEX_ID_INVALID : map(r, &K_MUTEX);
  return h;
}

API void mrapi_mutex_delete(mrapi_mutex_hndl_t mutex, mrapi_status_t *status)
{
  if (status)
    *status = map(mcx__mr_delete(MCX__MR_MUTEX, mutex), &K_MUTEX);
}

API void mrapi_mutex_lock(mrapi_mutex_hndl_t mutex, mrapi_key_t *lock_key, mrapi_timeout_t timeout,
                          mrapi_status_t *status)
{
  if (!status)
    return;
  if (!lock_key) {
    *status = MRAPI_ERR_PARAMETER;
    return;
  }
  int32_t key = 0;
  int r = mcx__mr_mutex_lock(mutex, timeout, &key);
  if (r == MCX_OK || r == MCX_EOWNERDEAD)
    *lock_key = key;
  *status = map_timed(r, &K_MUTEX);
}

API mrapi_boolean_t mrapi_mutex_trylock(mrapi_mutex_hndl_t mutex, mrapi_key_t *lock_key, mrapi_status_t *status)
{
  if (!status)
    return MRAPI_FALSE;
  if (!lock_key) {
    *status = MRAPI_ERR_PARAMETER;
    return MRAPI_FALSE;
  }
  int32_t key = 0;
  int r = mcx__mr_mutex_lock(mutex, 0, &key);
  *status = map(r, &K_MUTEX);
  if (r == MCX_OK || r == MCX_EOWNERDEAD) {
    *lock_key = key;
    return MRAPI_TRUE;
  }
  return MRAPI_FALSE;
}

API void mrapi_mutex_unlock(mrapi_mutex_hndl_t mutex, const mrapi_key_t *lock_key, mrapi_status_t *status)
{
  if (!status)
    return;
  if (!lock_key) {
    *status = MRAPI_ERR_PARAMETER;
    return;
  }
  *status = map(mcx__mr_mutex_unlock(mutex, *lock_key), &K_MUTEX);
}

/* ------------------------------------------------------------ semaphores, rwls, shmem attributes */

#define DEFINE_ATTR_FUNCS(prefix, type, kind, ks)                                                               \
  API void prefix##_init_attributes(type *attributes, mrapi_status_t *status)                                    \
  {                                                                                                              \
    if (!status)                                                                                                 \
      return;                                                                                                    \
    if (!attributes) {                                                                                           \
      *status = MRAPI_ERR_PARAMETER;                                                                             \
      return;                                                                                                    \
    }                                                                                                            \
    memset(attributes, 0, sizeof *attributes);                                                                   \
    *status = MRAPI_SUCCESS;                                                                                     \
  }                                                                                                              \
  API void prefix##_set_attribute(type *attributes, mrapi_uint_t attribute_num, const void *attribute,          \
                                  size_t attr_size, mrapi_status_t *status)                                      \
  {                                                                                                              \
    if (!status)                                                                                                 \
      return;                                                                                                    \
    if (!attributes || !attribute) {                                                                             \
      *status = MRAPI_ERR_PARAMETER;                                                                             \
      return;                                                                                                    \
    }                                                                                                            \
    if (attribute_num == MRAPI_ERROR_EXT)                                                                        \
      *status = set_bool(&attributes->error_ext, attribute, attr_size);                                          \
    else if (attribute_num == MRAPI_DOMAIN_SHARED)                                                               \
      *status = set_bool(&attributes->domain_shared, attribute, attr_size);                                      \
    else if (kind == MCX__MR_SHMEM && attribute_num == MRAPI_SHMEM_SIZE)                                         \
      *status = MRAPI_ERR_ATTR_READONLY;                                                                         \
    else                                                                                                         \
      *status = MRAPI_ERR_ATTR_NUM;                                                                              \
  }

DEFINE_ATTR_FUNCS(mrapi_sem, mrapi_sem_attributes_t, MCX__MR_SEM, K_SEM)
DEFINE_ATTR_FUNCS(mrapi_rwl, mrapi_rwl_attributes_t, MCX__MR_RWL, K_RWL)
DEFINE_ATTR_FUNCS(mrapi_shmem, mrapi_shmem_attributes_t, MCX__MR_SHMEM, K_SHM)

API void mrapi_sem_get_attribute(mrapi_sem_hndl_t sem, mrapi_uint_t attribute_num, void *attribute,
                                 size_t attribute_size, mrapi_status_t *status)
{
  if (status)
    *status = get_attr(MCX__MR_SEM, sem, attribute_num, attribute, attribute_size, &K_SEM);
}

API void mrapi_rwl_get_attribute(mrapi_rwl_hndl_t rwl, mrapi_uint_t attribute_num, void *attribute,
                                 size_t attribute_size, mrapi_status_t *status)
{
  if (status)
    *status = get_attr(MCX__MR_RWL, rwl, attribute_num, attribute, attribute_size, &K_RWL);
}

API void mrapi_shmem_get_attribute(mrapi_shmem_hndl_t shmem, mrapi_uint_t attribute_num, void *attribute,
                                   size_t attribute_size, mrapi_status_t *status)
{
  if (status)
    *status = get_attr(MCX__MR_SHMEM, shmem, attribute_num, attribute, attribute_size, &K_SHM);
}

/* ------------------------------------------------------------ semaphores */

API mrapi_sem_hndl_t mrapi_sem_create(mrapi_sem_id_t sem_id, const mrapi_sem_attributes_t *attributes,
                                      mrapi_uint_t shared_lock_limit, mrapi_status_t *status)
{
  uint32_t h = 0;
  if (!status)
    return 0;
  if (shared_lock_limit == 0 || shared_lock_limit > MRAPI_MAX_SHARED_LOCKS) {
    *status = MRAPI_ERR_SEM_LOCKLIMIT;
    return 0;
  }
  mcx__mr_attrs_t a = {0};
  if (attributes) {
    a.error_ext = attributes->error_ext;
    a.domain_shared = attributes->domain_shared;
  }
  a.limit = shared_lock_limit;
  *status = map(mcx__mr_create(MCX__MR_SEM, (uint32_t)sem_id, &a, &h), &K_SEM);
  return *status == MRAPI_SUCCESS ? h : 0;
}

API mrapi_sem_hndl_t mrapi_sem_get(mrapi_sem_id_t sem_id, mrapi_status_t *status)
{
  uint32_t h = 0;
  if (!status)
    return 0;
  int r = mcx__mr_get(MCX__MR_SEM, (uint32_t)sem_id, &h);
  *status = r == MCX_EINVAL ? MRAPI_ERR_SEM_ID_INVALID : map(r, &K_SEM);
  return h;
}

API void mrapi_sem_delete(mrapi_sem_hndl_t sem, mrapi_status_t *status)
{
  if (status)
    *status = map(mcx__mr_delete(MCX__MR_SEM, sem), &K_SEM);
}

API void mrapi_sem_lock(mrapi_sem_hndl_t sem, mrapi_timeout_t timeout, mrapi_status_t *status)
{
  if (status)
    *status = map_timed(mcx__mr_sem_lock(sem, timeout), &K_SEM);
}

API mrapi_boolean_t mrapi_sem_trylock(mrapi_sem_hndl_t sem, mrapi_status_t *status)
{
  if (!status)
    return MRAPI_FALSE;
  *status = map(mcx__mr_sem_lock(sem, 0), &K_SEM);
  return *status == MRAPI_SUCCESS || *status == MRAPI_ERR_SEM_OWNER_DIED;
}

API void mrapi_sem_unlock(mrapi_sem_hndl_t sem, mrapi_status_t *status)
{
  if (status)
    *status = map(mcx__mr_sem_unlock(sem), &K_SEM);
}

/* ------------------------------------------------------------ reader/writer locks */

API mrapi_rwl_hndl_t mrapi_rwl_create(mrapi_rwl_id_t rwl_id, const mrapi_rwl_attributes_t *attributes,
                                      mrapi_uint_t reader_lock_limit, mrapi_status_t *status)
{
  uint32_t h = 0;
  if (!status)
    return 0;
  if (reader_lock_limit > MRAPI_MAX_READERS) {
    *status = MRAPI_ERR_PARAMETER;
    return 0;
  }
  mcx__mr_attrs_t a = {0};
  if (attributes) {
    a.error_ext = attributes->error_ext;
    a.domain_shared = attributes->domain_shared;
  }
  a.limit = reader_lock_limit ? reader_lock_limit : MRAPI_MAX_READERS;
  *status = map(mcx__mr_create(MCX__MR_RWL, (uint32_t)rwl_id, &a, &h), &K_RWL);
  return *status == MRAPI_SUCCESS ? h : 0;
}

API mrapi_rwl_hndl_t mrapi_rwl_get(mrapi_rwl_id_t rwl_id, mrapi_status_t *status)
{
  uint32_t h = 0;
  if (!status)
    return 0;
  int r = mcx__mr_get(MCX__MR_RWL, (uint32_t)rwl_id, &h);
  *status = r == MCX_EINVAL ? MRAPI_ERR_RWL_ID_INVALID : map(r, &K_RWL);
  return h;
}

API void mrapi_rwl_delete(mrapi_rwl_hndl_t rwl, mrapi_status_t *status)
{
  if (status)
    *status = map(mcx__mr_delete(MCX__MR_RWL, rwl), &K_RWL);
}

static int mode_ok(mrapi_rwl_mode_t mode) { return mode == MRAPI_RWL_READER || mode == MRAPI_RWL_WRITER; }

API void mrapi_rwl_lock(mrapi_rwl_hndl_t rwl, mrapi_rwl_mode_t mode, mrapi_timeout_t timeout, mrapi_status_t *status)
{
  if (!status)
    return;
  if (!mode_ok(mode)) {
    *status = MRAPI_ERR_PARAMETER;
    return;
  }
  *status = map_timed(mcx__mr_rwl_lock(rwl, mode == MRAPI_RWL_WRITER, timeout), &K_RWL);
}

API mrapi_boolean_t mrapi_rwl_trylock(mrapi_rwl_hndl_t rwl, mrapi_rwl_mode_t mode, mrapi_status_t *status)
{
  if (!status)
    return MRAPI_FALSE;
  if (!mode_ok(mode)) {
    *status = MRAPI_ERR_PARAMETER;
    return MRAPI_FALSE;
  }
  *status = map(mcx__mr_rwl_lock(rwl, mode == MRAPI_RWL_WRITER, 0), &K_RWL);
  return *status == MRAPI_SUCCESS || *status == MRAPI_ERR_RWL_OWNER_DIED;
}

API void mrapi_rwl_unlock(mrapi_rwl_hndl_t rwl, mrapi_rwl_mode_t mode, mrapi_status_t *status)
{
  if (!status)
    return;
  if (!mode_ok(mode)) {
    *status = MRAPI_ERR_PARAMETER;
    return;
  }
  *status = map(mcx__mr_rwl_unlock(rwl, mode == MRAPI_RWL_WRITER), &K_RWL);
}

/* ------------------------------------------------------------ shared memory */

API mrapi_shmem_hndl_t mrapi_shmem_create(mrapi_shmem_id_t shmem_id, mrapi_uint_t size, const mrapi_node_t *nodes,
                                          mrapi_uint_t nodes_size, const mrapi_shmem_attributes_t *attributes,
                                          mrapi_uint_t attr_size, mrapi_status_t *status)
{
  uint32_t h = 0;
  if (!status)
    return 0;
  if (size == 0) {
    *status = MRAPI_ERR_PARAMETER;
    return 0;
  }
  if (size > MRAPI_MAX_SHMEM_SIZE) {
    *status = MRAPI_ERR_MEM_LIMIT;
    return 0;
  }
  mcx__mr_attrs_t a = {0};
  if (attributes) {
    a.error_ext = attributes->error_ext;
    a.domain_shared = attributes->domain_shared;
  }
  a.limit = size;
  *status = map(mcx__mr_create(MCX__MR_SHMEM, (uint32_t)shmem_id, &a, &h), &K_SHM);
  return *status == MRAPI_SUCCESS ? h : 0;
}

API mrapi_shmem_hndl_t mrapi_shmem_get(mrapi_shmem_id_t shmem_id, mrapi_status_t *status)
{
  uint32_t h = 0;
  if (!status)
    return 0;
  int r = mcx__mr_get(MCX__MR_SHMEM, (uint32_t)shmem_id, &h);
  *status = r == MCX_EINVAL ? MRAPI_ERR_SHM_ID_INVALID : map(r, &K_SHM);
  return h;
}

API void *mrapi_shmem_attach(mrapi_shmem_hndl_t shmem, mrapi_status_t *status)
{
  void *addr = NULL;
  if (!status)
    return NULL;
  *status = map(mcx__mr_shmem_attach(shmem, &addr), &K_SHM);
  return *status == MRAPI_SUCCESS ? addr : NULL;
}

API void mrapi_shmem_detach(mrapi_shmem_hndl_t shmem, mrapi_status_t *status)
{
  if (status)
    *status = map(mcx__mr_shmem_detach(shmem), &K_SHM);
}

API void mrapi_shmem_delete(mrapi_shmem_hndl_t shmem, mrapi_status_t *status)
{
  if (status)
    *status = map(mcx__mr_delete(MCX__MR_SHMEM, shmem), &K_SHM);
}
