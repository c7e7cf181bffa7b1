/* SPDX-License-Identifier: BSD-3-Clause */
/* MRAPI beyond the locks, in one process: the reference implementation's
 * names, semaphore lock limits, the delete rules of both profiles, *_DELETED
 * for a second delete, remote memory (DUMMY and the DMA engine) with its
 * requests, and the resource tree with its attributes and callbacks. */
#include <stdlib.h>
#include <string.h>

#include "test_mrapi_util.h"
#include "mca_utils.h"
#include "ports/mcx_port_topo.h"

static unsigned next_dom = 1;

static char run_compat[32]; /* the profile this run was started with (MCX_COMPAT) */

/* A fresh domain created under profile @p compat ("spec", "mca-2.0.3"), or
 * under the run's profile (NULL). */
static void fresh_domain(const char *compat)
{
  if (compat)
    setenv("MCX_COMPAT", compat, 1);
  else if (run_compat[0])
    setenv("MCX_COMPAT", run_compat, 1);
  else
    unsetenv("MCX_COMPAT");
  dom = test_domain(next_dom++);
}

/* ------------------------------------------------------------ names */

TEST(reference_names_are_provided)
{
  /* mrapi.h pulls in what the reference's header includes. */
  pthread_t self = pthread_self();
  CHECK(pthread_equal(self, pthread_self()));
#ifndef _WIN32 /* System V IPC is POSIX only (mrapi_impl_spec.h) */
  struct sembuf sb = {0, 1, 0};
  CHECK(sb.sem_op == 1);
#endif
  errno = 0;
  assert(MRAPI_MAX_SHARED_LOCKS >= 1);
  CHECK(sched_yield() == 0);
  CHECK(MRAPI_MAX_SHARED_LOCKS == 32);
  CHECK(MTAPI_MAX_TASKS > 0);
  CHECK(MCA_WITH_DEBUG == 1);
  CHECK(MRAPI_RMEM_DEFAULT == MRAPI_RMEM_DUMMY);
  CHECK(MRAPI_MAX_RMEMS >= 10 && MRAPI_MAX_CALLBACKS == 10);
  lock_type lt = SEM;
  mrapi_resource_type rt = CACHE;
  mrapi_impl_attributes_t ia;
  memset(&ia, 0, sizeof ia);
  attributes an = MRAPI_SHMEM_SIZE;
  CHECK(lt == SEM && rt == CACHE && an == MRAPI_SHMEM_SIZE && ia.recursive == 0);
  static TLS int per_thread = 1;
  CHECK(per_thread == 1);
  mrapi_set_debug_level(0);
  mca_set_debug_level(0);
  mca_dprintf(1, "not printed at level 0 (%d)", 1);
  CHECK(MRAPI_NODE_INVALID == 0xffffffffu && MRAPI_RETURN_VALUE_INVALID == 0xffffffffu);
}

/* ------------------------------------------------------------ limits, deletes */

TEST(semaphore_lock_limits)
{
  fresh_domain(NULL);
  init_node(1);
  mrapi_status_t st;
  mrapi_sem_create(1, NULL, 0, &st);
  CHECK_MRAPI(st, MRAPI_ERR_SEM_LOCKLIMIT);
  mrapi_sem_create(1, NULL, MRAPI_MAX_SHARED_LOCKS + 1, &st);
  CHECK_MRAPI(st, MRAPI_ERR_SEM_LOCKLIMIT);
  mrapi_sem_create(1, NULL, 0xffff0000u, &st);
  CHECK_MRAPI(st, MRAPI_ERR_SEM_LOCKLIMIT);
  mrapi_sem_hndl_t s = mrapi_sem_create(1, NULL, MRAPI_MAX_SHARED_LOCKS, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  for (int i = 0; i < MRAPI_MAX_SHARED_LOCKS; i++) {
    CHECK(mrapi_sem_trylock(s, &st));
    CHECK_MRAPI(st, MRAPI_SUCCESS);
  }
  CHECK(!mrapi_sem_trylock(s, &st));
  CHECK_MRAPI(st, MRAPI_ERR_SEM_LOCKED);
  for (int i = 0; i < MRAPI_MAX_SHARED_LOCKS - 1; i++)
    mrapi_sem_unlock(s, &st);
  if (mcx__mr_profile() == MCX__MR_PROFILE_SPEC)
    mrapi_sem_unlock(s, &st); /* spec: only a free semaphore is deleted; mca-2.0.3: only a held one */
  mrapi_sem_delete(s, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  fini_node();
}

static void ext_attrs(mrapi_mutex_attributes_t *ma, mrapi_sem_attributes_t *sa, mrapi_rwl_attributes_t *ra)
{
  mrapi_status_t st;
  mrapi_boolean_t yes = MRAPI_TRUE;
  mrapi_mutex_init_attributes(ma, &st);
  mrapi_mutex_set_attribute(ma, MRAPI_ERROR_EXT, &yes, sizeof yes, &st);
  mrapi_sem_init_attributes(sa, &st);
  mrapi_sem_set_attribute(sa, MRAPI_ERROR_EXT, &yes, sizeof yes, &st);
  mrapi_rwl_init_attributes(ra, &st);
  mrapi_rwl_set_attribute(ra, MRAPI_ERROR_EXT, &yes, sizeof yes, &st);
}

/* Spec: only a free object can be deleted; a second delete is *_DELETED
 * with the extended errors, *_INVALID without. */
TEST(delete_rules_spec_profile)
{
  fresh_domain("spec");
  init_node(1);
  mrapi_status_t st;
  mrapi_key_t key;
  mrapi_mutex_attributes_t ma;
  mrapi_sem_attributes_t sa;
  mrapi_rwl_attributes_t ra;
  ext_attrs(&ma, &sa, &ra);
  mrapi_mutex_hndl_t m = mrapi_mutex_create(10, &ma, &st);
  mrapi_sem_hndl_t s = mrapi_sem_create(11, &sa, 2, &st);
  mrapi_rwl_hndl_t l = mrapi_rwl_create(12, &ra, 0, &st);
  mrapi_mutex_lock(m, &key, MRAPI_TIMEOUT_INFINITE, &st);
  mrapi_mutex_delete(m, &st);
  CHECK_MRAPI(st, MRAPI_ERR_MUTEX_LOCKED);
  mrapi_mutex_unlock(m, &key, &st);
  mrapi_mutex_delete(m, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  mrapi_mutex_delete(m, &st);
  CHECK_MRAPI(st, MRAPI_ERR_MUTEX_DELETED);
  mrapi_sem_lock(s, MRAPI_TIMEOUT_INFINITE, &st);
  mrapi_sem_delete(s, &st);
  CHECK_MRAPI(st, MRAPI_ERR_SEM_LOCKED);
  mrapi_sem_unlock(s, &st);
  mrapi_sem_delete(s, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  mrapi_sem_delete(s, &st);
  CHECK_MRAPI(st, MRAPI_ERR_SEM_DELETED);
  mrapi_rwl_lock(l, MRAPI_RWL_READER, MRAPI_TIMEOUT_INFINITE, &st);
  mrapi_rwl_delete(l, &st);
  CHECK_MRAPI(st, MRAPI_ERR_RWL_LOCKED);
  mrapi_rwl_unlock(l, MRAPI_RWL_READER, &st);
  mrapi_rwl_delete(l, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  mrapi_rwl_delete(l, &st);
  CHECK_MRAPI(st, MRAPI_ERR_RWL_DELETED);
  /* Without the extended errors a second delete is an invalid handle. */
  m = mrapi_mutex_create(13, NULL, &st);
  mrapi_mutex_delete(m, &st);
  mrapi_mutex_delete(m, &st);
  CHECK_MRAPI(st, MRAPI_ERR_MUTEX_INVALID);
  fini_node();
}

typedef struct {
  mrapi_sem_hndl_t s;
  mrapi_rwl_hndl_t l;
  mrapi_mutex_hndl_t m;
} objs_t;

/* Another node tries to delete what it does not hold (mca-2.0.3 refuses). */
static void delete_unheld(void *p)
{
  objs_t *o = p;
  mrapi_status_t st;
  mrapi_mutex_delete(o->m, &st);
  CHECK_MRAPI(st, MRAPI_ERR_MUTEX_LOCKED);
  mrapi_sem_delete(o->s, &st);
  CHECK_MRAPI(st, MRAPI_ERR_SEM_LOCKED);
  mrapi_rwl_delete(o->l, &st);
  CHECK_MRAPI(st, MRAPI_ERR_RWL_LOCKED);
}

/* mca-2.0.3: the caller must hold the object to delete it. */
TEST(delete_rules_mca203_profile)
{
  fresh_domain("mca-2.0.3");
  init_node(1);
  mrapi_status_t st;
  mrapi_key_t key;
  mrapi_mutex_attributes_t ma;
  mrapi_sem_attributes_t sa;
  mrapi_rwl_attributes_t ra;
  ext_attrs(&ma, &sa, &ra);
  objs_t o;
  o.m = mrapi_mutex_create(20, &ma, &st);
  o.s = mrapi_sem_create(21, &sa, 3, &st);
  o.l = mrapi_rwl_create(22, &ra, 0, &st);
  /* Free objects: not held by the caller, so refused. */
  mrapi_mutex_delete(o.m, &st);
  CHECK_MRAPI(st, MRAPI_ERR_MUTEX_LOCKED);
  mrapi_sem_delete(o.s, &st);
  CHECK_MRAPI(st, MRAPI_ERR_SEM_LOCKED);
  mrapi_rwl_delete(o.l, &st);
  CHECK_MRAPI(st, MRAPI_ERR_RWL_LOCKED);
  /* Held by this node: another node may not delete them. */
  mrapi_mutex_lock(o.m, &key, MRAPI_TIMEOUT_INFINITE, &st);
  mrapi_sem_lock(o.s, MRAPI_TIMEOUT_INFINITE, &st);
  mrapi_rwl_lock(o.l, MRAPI_RWL_READER, MRAPI_TIMEOUT_INFINITE, &st);
  on_other_node(2, delete_unheld, &o);
  /* The holder deletes them. */
  mrapi_mutex_delete(o.m, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  mrapi_sem_delete(o.s, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  mrapi_rwl_delete(o.l, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  /* A second delete, and any use, is *_DELETED. */
  mrapi_mutex_delete(o.m, &st);
  CHECK_MRAPI(st, MRAPI_ERR_MUTEX_DELETED);
  mrapi_sem_delete(o.s, &st);
  CHECK_MRAPI(st, MRAPI_ERR_SEM_DELETED);
  mrapi_sem_unlock(o.s, &st);
  CHECK_MRAPI(st, MRAPI_ERR_SEM_DELETED);
  mrapi_rwl_delete(o.l, &st);
  CHECK_MRAPI(st, MRAPI_ERR_RWL_DELETED);
  /* A writer deletes the rwlock it holds too. */
  mrapi_rwl_hndl_t w = mrapi_rwl_create(23, &ra, 0, &st);
  mrapi_rwl_lock(w, MRAPI_RWL_WRITER, MRAPI_TIMEOUT_INFINITE, &st);
  mrapi_rwl_delete(w, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  fini_node();
}

/* ------------------------------------------------------------ remote memory */

static char rbuf[4096];

typedef struct {
  mrapi_rmem_hndl_t h;
  mrapi_rmem_atype_t t;
} rmem_arg_t;

static void rmem_other_node(void *p)
{
  rmem_arg_t *a = p;
  mrapi_status_t st;
  mrapi_rmem_hndl_t h = mrapi_rmem_get(0x77, a->t, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  CHECK(h == a->h);
  char buf[64];
  mrapi_rmem_read(h, 0, buf, 0, 4, 1, 4, 4, &st);
  CHECK_MRAPI(st, MRAPI_ERR_RMEM_NOTATTACHED);
  mrapi_rmem_attach(h, a->t, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  mrapi_rmem_write(h, 100, "other node", 0, 11, 1, 11, 11, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  if (mcx__mr_profile() == MCX__MR_PROFILE_SPEC) {
    mrapi_rmem_delete(h, &st); /* spec: only its creator deletes it */
    CHECK_MRAPI(st, MRAPI_ERR_RMEM_NOTOWNER);
  }
  mrapi_rmem_detach(h, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
}

/* Node 3 attaches and stays attached until told; under mca-2.0.3 a delete
 * by another node detaches it (its detach then finds no object). */
typedef struct {
  mrapi_rmem_hndl_t h;
  mcx_atomic_u32 ready, done;
} attached_arg_t;

static void *stay_attached(void *p)
{
  attached_arg_t *a = p;
  mrapi_status_t st;
  init_node(3);
  mrapi_rmem_attach(a->h, MRAPI_RMEM_DUMMY, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  mcx_store_release(&a->ready, 1u); /* pairs with the test's acquire */
  while (!mcx_load_acquire(&a->done)) /* pairs with the test's release */
    mcx_port_yield();
  mrapi_rmem_detach(a->h, &st);
  CHECK_MRAPI(st, mcx__mr_profile() == MCX__MR_PROFILE_SPEC ? MRAPI_SUCCESS : MRAPI_ERR_RMEM_INVALID);
  fini_node();
  return NULL;
}

TEST(remote_memory_statuses_and_strides)
{
  fresh_domain(NULL);
  mrapi_status_t st;
  mrapi_rmem_create(0x77, rbuf, MRAPI_RMEM_DUMMY, NULL, sizeof rbuf, &st);
  CHECK_MRAPI(st, MRAPI_ERR_NODE_NOTINIT);
  init_node(1);
  mrapi_rmem_create(0x77, rbuf, (mrapi_rmem_atype_t)42, NULL, sizeof rbuf, &st);
  CHECK_MRAPI(st, MRAPI_ERR_RMEM_TYPENOTVALID);
  mrapi_rmem_create(0x77, rbuf, MRAPI_RMEM_SWCACHE, NULL, sizeof rbuf, &st);
  CHECK_MRAPI(st, MRAPI_ERR_RMEM_ATYPE_NOTVALID);
  mrapi_rmem_create(0x77, NULL, MRAPI_RMEM_DUMMY, NULL, sizeof rbuf, &st);
  CHECK_MRAPI(st, MRAPI_ERR_PARAMETER);
  mrapi_rmem_get(0x77, MRAPI_RMEM_DUMMY, &st);
  CHECK_MRAPI(st, MRAPI_ERR_RMEM_ID_INVALID);
  memset(rbuf, 0, sizeof rbuf);
  mrapi_rmem_hndl_t h = mrapi_rmem_create(0x77, rbuf, MRAPI_RMEM_DUMMY, NULL, sizeof rbuf, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  mrapi_rmem_create(0x77, rbuf, MRAPI_RMEM_DUMMY, NULL, sizeof rbuf, &st);
  CHECK_MRAPI(st, MRAPI_ERR_RMEM_EXISTS);
  mrapi_rmem_get(0x77, MRAPI_RMEM_DMA, &st);
  CHECK_MRAPI(st, MRAPI_ERR_RMEM_ATYPE);
  mrapi_rmem_attach(h, MRAPI_RMEM_DMA, &st);
  CHECK_MRAPI(st, MRAPI_ERR_RMEM_ATYPE);
  mrapi_rmem_attach(h, MRAPI_RMEM_DUMMY, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  mrapi_rmem_attach(h, MRAPI_RMEM_DUMMY, &st);
  CHECK_MRAPI(st, MRAPI_ERR_RMEM_ATTACHED);
  mrapi_uint_t size = 0;
  mrapi_rmem_get_attribute(h, MRAPI_SHMEM_SIZE, &size, sizeof size, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  CHECK_EQ_U(size, sizeof rbuf);
  /* Scatter: every other byte of the remote buffer from consecutive bytes. */
  const char *msg = "abcdefgh";
  mrapi_rmem_write(h, 10, msg, 0, 1, 8, 2, 1, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  CHECK(rbuf[10] == 'a' && rbuf[11] == 0 && rbuf[12] == 'b' && rbuf[24] == 'h');
  /* Gather them back, two bytes per block into a 3-byte-strided buffer. */
  char back[32];
  memset(back, '.', sizeof back);
  mrapi_rmem_read(h, 10, back, 1, 2, 4, 4, 3, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  CHECK(back[0] == '.' && back[1] == 'a' && back[2] == 0 && back[3] == '.' && back[4] == 'c' && back[10] == 'g');
  /* Stride smaller than a block, past the end. */
  mrapi_rmem_read(h, 0, back, 0, 4, 2, 3, 4, &st);
  CHECK_MRAPI(st, MRAPI_ERR_RMEM_STRIDE);
  mrapi_rmem_write(h, 0, back, 0, 4, 1, 4, 2, &st);
  CHECK_MRAPI(st, MRAPI_ERR_RMEM_STRIDE);
  mrapi_rmem_read(h, sizeof rbuf - 2, back, 0, 4, 1, 4, 4, &st);
  CHECK_MRAPI(st, MRAPI_ERR_RMEM_BUFF_OVERRUN);
  mrapi_rmem_read(h, 0, NULL, 0, 4, 1, 4, 4, &st);
  CHECK_MRAPI(st, MRAPI_ERR_PARAMETER);
  rmem_arg_t a = {h, MRAPI_RMEM_DUMMY};
  on_other_node(2, rmem_other_node, &a);
  CHECK(strcmp(rbuf + 100, "other node") == 0);
  /* Delete while another node is attached: spec refuses (RMEM_ATTACH),
   * mca-2.0.3 lets any node delete (the other node does it here). */
  mrapi_rmem_hndl_t h2 = mrapi_rmem_create(0x79, rbuf, MRAPI_RMEM_DUMMY, NULL, 64, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  attached_arg_t b = {h2, 0, 0};
  pthread_t t;
  pthread_create(&t, NULL, stay_attached, &b);
  while (!mcx_load_acquire(&b.ready)) /* pairs with the release in stay_attached */
    mcx_port_yield();
  mrapi_rmem_delete(h2, &st);
  CHECK_MRAPI(st, mcx__mr_profile() == MCX__MR_PROFILE_SPEC ? MRAPI_ERR_RMEM_ATTACH : MRAPI_SUCCESS);
  mcx_store_release(&b.done, 1u); /* pairs with the acquire in stay_attached */
  pthread_join(t, NULL);
  if (mcx__mr_profile() == MCX__MR_PROFILE_SPEC) {
    mrapi_rmem_delete(h2, &st);
    CHECK_MRAPI(st, MRAPI_SUCCESS);
  }
  mrapi_rmem_detach(h, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  mrapi_rmem_detach(h, &st);
  CHECK_MRAPI(st, MRAPI_ERR_RMEM_NOTATTACHED);
  mrapi_rmem_delete(h, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  mrapi_rmem_delete(h, &st);
  CHECK_MRAPI(st, MRAPI_ERR_RMEM_INVALID);
  mrapi_rmem_read(h, 0, back, 0, 4, 1, 4, 4, &st);
  CHECK_MRAPI(st, MRAPI_ERR_RMEM_INVALID);
  fini_node();
}

#define NREQ 32
#define CHUNK 1024
static char dma_remote[NREQ * CHUNK];

TEST(dma_engine_requests)
{
  fresh_domain(NULL);
  init_node(1);
  mrapi_status_t st;
  memset(dma_remote, 0, sizeof dma_remote);
  mrapi_rmem_hndl_t h = mrapi_rmem_create(0x78, dma_remote, MRAPI_RMEM_DMA, NULL, sizeof dma_remote, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  mrapi_rmem_attach(h, MRAPI_RMEM_DMA, &st);
  static char src[NREQ][CHUNK], dst[NREQ][CHUNK];
  mrapi_request_t w[NREQ], r[NREQ];
  for (int i = 0; i < NREQ; i++) {
    memset(src[i], 'A' + i, CHUNK);
    mrapi_rmem_write_i(h, (mrapi_uint32_t)(i * CHUNK), src[i], 0, CHUNK, 1, CHUNK, CHUNK, &w[i], &st);
    CHECK_MRAPI(st, MRAPI_SUCCESS);
  }
  size_t size = 0;
  for (int i = 0; i < NREQ; i++) {
    CHECK(mrapi_wait(&w[i], &size, MRAPI_TIMEOUT_INFINITE, &st));
    CHECK_MRAPI(st, MRAPI_SUCCESS);
    CHECK_EQ_U(size, CHUNK);
    /* Reported: the handle is stale now. */
    mrapi_test(&w[i], &size, &st);
    CHECK_MRAPI(st, MRAPI_ERR_REQUEST_INVALID);
  }
  for (int i = 0; i < NREQ; i++)
    CHECK(dma_remote[i * CHUNK] == 'A' + i && dma_remote[i * CHUNK + CHUNK - 1] == 'A' + i);
  /* Reads, completed through wait_any and test. */
  for (int i = 0; i < NREQ; i++) {
    mrapi_rmem_read_i(h, (mrapi_uint32_t)(i * CHUNK), dst[i], 0, CHUNK, 1, CHUNK, CHUNK, &r[i], &st);
    CHECK_MRAPI(st, MRAPI_SUCCESS);
  }
  int done[NREQ] = {0};
  for (int k = 0; k < NREQ; k++) {
    mrapi_uint_t i = mrapi_wait_any(NREQ, r, &size, MRAPI_TIMEOUT_INFINITE, &st);
    CHECK_MRAPI(st, MRAPI_SUCCESS);
    CHECK(i < NREQ && !done[i]);
    if (i < NREQ) {
      done[i] = 1;
      CHECK(dst[i][0] == 'A' + (int)i && dst[i][CHUNK - 1] == 'A' + (int)i);
    }
  }
  mrapi_wait_any(NREQ, r, &size, 0, &st);
  CHECK_MRAPI(st, MRAPI_ERR_REQUEST_INVALID);
  /* Cancel: a queued request is cancelled and copies nothing; one the
   * engine took completes. Either way the bytes agree with the outcome. */
  for (int i = 0; i < NREQ; i++) {
    memset(src[i], 'a' + i, CHUNK);
    mrapi_rmem_write_i(h, (mrapi_uint32_t)(i * CHUNK), src[i], 0, CHUNK, 1, CHUNK, CHUNK, &w[i], &st);
  }
  for (int i = NREQ - 1; i >= 0; i--) {
    mrapi_cancel(&w[i], &st);
    CHECK_MRAPI(st, MRAPI_SUCCESS);
  }
  for (int i = 0; i < NREQ; i++) {
    mrapi_boolean_t fin = mrapi_wait(&w[i], &size, MRAPI_TIMEOUT_INFINITE, &st);
    CHECK(fin);
    CHECK(st == MRAPI_SUCCESS || st == MRAPI_ERR_REQUEST_CANCELED);
    char expect = st == MRAPI_SUCCESS ? (char)('a' + i) : (char)('A' + i);
    CHECK(dma_remote[i * CHUNK] == expect && dma_remote[i * CHUNK + CHUNK - 1] == expect);
    mrapi_cancel(&w[i], &st);
    CHECK_MRAPI(st, MRAPI_ERR_REQUEST_INVALID);
  }
  mrapi_test(NULL, &size, &st);
  CHECK_MRAPI(st, MRAPI_ERR_REQUEST_INVALID);
  mrapi_rmem_flush(h, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  mrapi_rmem_synch(h, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  /* A failing transfer reports its error when issued. */
  mrapi_request_t bad;
  mrapi_rmem_read_i(h, sizeof dma_remote, dst[0], 0, 1, 1, 1, 1, &bad, &st);
  CHECK_MRAPI(st, MRAPI_ERR_RMEM_BUFF_OVERRUN);
  mrapi_rmem_detach(h, &st);
  mrapi_rmem_delete(h, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  fini_node();
}

/* ------------------------------------------------------------ resources */

static int count_online(void)
{
#ifdef _WIN32
  long n = mcx_port_ncpus(); /* GetActiveProcessorCount */
#else
  long n = sysconf(_SC_NPROCESSORS_ONLN);
#endif
  return n > 64 ? 64 : (int)n;
}

static void check_cache_nesting(mrapi_resource_t *r, uint32_t parent_level)
{
  mrapi_status_t st;
  uint32_t level = 0, line = 0;
  mrapi_resource_get_attribute(r, MRAPI_RSRC_CACHE_LEVEL, &level, sizeof level, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  CHECK(level >= 1 && level < parent_level);
  mrapi_resource_get_attribute(r, MRAPI_RSRC_CACHE_LINE_SIZE, &line, sizeof line, &st);
  if (st == MRAPI_SUCCESS)
    CHECK(line >= 16 && (line & (line - 1)) == 0);
  else
    CHECK_MRAPI(st, MRAPI_ERR_NOT_SUPPORTED);
  CHECK(r->resource_type == CACHE && r->name != NULL);
  for (uint32_t i = 0; i < r->number_of_children; i++)
    check_cache_nesting(r->children[i], level);
}

TEST(resource_tree_and_static_attributes)
{
  fresh_domain(NULL);
  mrapi_status_t st;
  mrapi_resources_get(MRAPI_RSRC_CPU, &st);
  CHECK_MRAPI(st, MRAPI_ERR_NODE_NOTINIT);
  init_node(1);
  mrapi_resource_t *root = mrapi_resources_get((mrapi_rsrc_filter_t)10000, &st);
  CHECK_MRAPI(st, MRAPI_ERR_RSRC_INVALID_SUBSYSTEM);
  CHECK(root == NULL);
  root = mrapi_resources_get(MRAPI_RSRC_DMA, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  CHECK(root == NULL);
  root = mrapi_resources_get(MRAPI_RSRC_CPU, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  CHECK(root && root->resource_type == SYSTEM);
  CHECK_EQ_U(root->number_of_children, count_online());
  for (uint32_t i = 0; i < root->number_of_children; i++) {
    mrapi_resource_t *c = root->children[i];
    CHECK(c->resource_type == CPU && c->number_of_attributes == 6);
    uint32_t id = 999;
    mrapi_resource_get_attribute(c, MRAPI_RSRC_CPU_ID, &id, sizeof id, &st);
    CHECK_MRAPI(st, MRAPI_SUCCESS);
    CHECK(id < 64);
    CHECK(*c->attribute_static[MRAPI_RSRC_CPU_ID] == MRAPI_ATTR_STATIC);
    CHECK(*c->attribute_static[MRAPI_RSRC_CPU_CONTEXT_SWITCHES] == MRAPI_ATTR_DYNAMIC);
    char type[64];
    mrapi_resource_get_attribute(c, MRAPI_RSRC_CPU_TYPE, type, sizeof type, &st);
    CHECK(st == MRAPI_SUCCESS || st == MRAPI_ERR_NOT_SUPPORTED);
    mrapi_resource_get_attribute(c, MRAPI_RSRC_CPU_TYPE, type, 1, &st);
    CHECK(st == MRAPI_ERR_ATTR_SIZE || st == MRAPI_ERR_NOT_SUPPORTED);
  }
  mrapi_resource_get_attribute(root->children[0], 1000, &st, sizeof st, &st);
  CHECK_MRAPI(st, MRAPI_ERR_ATTR_NUM);
  mrapi_resource_tree_free(&root, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  CHECK(root == NULL);
  mrapi_resource_tree_free(&root, &st);
  CHECK_MRAPI(st, MRAPI_ERR_RSRC_INVALID_TREE);

  root = mrapi_resources_get(MRAPI_RSRC_MEM, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  CHECK(root && root->number_of_children >= 1);
  mrapi_resource_t *mem = root->children[0];
  uint32_t ws = 0;
  uint64_t words = 0;
  mrapi_resource_get_attribute(mem, MRAPI_RSRC_MEM_WORDSIZE, &ws, sizeof ws, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  CHECK_EQ_U(ws, sizeof(void *));
  mrapi_resource_get_attribute(mem, MRAPI_RSRC_MEM_NUMWORDS, &words, sizeof words, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  CHECK(words > 1000);
  uint64_t base = 1;
  mrapi_resource_get_attribute(mem, MRAPI_RSRC_MEM_BASEADDR, &base, sizeof base, &st);
  if (st == MRAPI_SUCCESS)
    CHECK(base % 4096 == 0); /* a memory block boundary */
  else
    CHECK_MRAPI(st, MRAPI_ERR_NOT_SUPPORTED);
  mrapi_resource_t *freed = mem;
  mrapi_resource_tree_free(&root, &st);
  mrapi_resource_get_attribute(freed, MRAPI_RSRC_MEM_WORDSIZE, &ws, sizeof ws, &st);
  CHECK_MRAPI(st, MRAPI_ERR_RSRC_INVALID);

  root = mrapi_resources_get(MRAPI_RSRC_CACHE, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  if (root) {
    for (uint32_t i = 0; i < root->number_of_children; i++)
      check_cache_nesting(root->children[i], 100);
    mrapi_resource_tree_free(&root, &st);
  }
  fini_node();
}

TEST(dynamic_attributes)
{
  fresh_domain(NULL);
  init_node(1);
  mrapi_status_t st;
  mrapi_resource_t *root = mrapi_resources_get(MRAPI_RSRC_CPU, &st);
  CHECK(root != NULL);
  mrapi_resource_t *c = root->children[0];
  uint64_t v;
  mrapi_dynamic_attribute_start(c, MRAPI_RSRC_CPU_ID, NULL, &st);
  CHECK_MRAPI(st, MRAPI_ERR_RSRC_NOTDYNAMIC);
  mrapi_dynamic_attribute_reset(c, 100000, &st);
  CHECK_MRAPI(st, MRAPI_ERR_ATTR_NUM);
  mrapi_resource_get_attribute(c, MRAPI_RSRC_CPU_CONTEXT_SWITCHES, &v, sizeof v, &st);
  CHECK(st == MRAPI_ERR_RSRC_NOTSTARTED);
  mrapi_dynamic_attribute_stop(c, MRAPI_RSRC_CPU_CONTEXT_SWITCHES, &st);
  CHECK_MRAPI(st, MRAPI_ERR_RSRC_NOTSTARTED);
  mrapi_dynamic_attribute_start(c, MRAPI_RSRC_CPU_CONTEXT_SWITCHES, NULL, &st);
  if (st == MRAPI_ERR_NOT_SUPPORTED) {
    printf("  (context-switch counting not available here: perf events refused)\n");
  } else {
    CHECK_MRAPI(st, MRAPI_SUCCESS);
    mrapi_dynamic_attribute_start(c, MRAPI_RSRC_CPU_CONTEXT_SWITCHES, NULL, &st);
    CHECK_MRAPI(st, MRAPI_ERR_RSRC_STARTED);
    for (int i = 0; i < 20; i++)
      mcx_port_sleep_ns(100000); /* each sleep is a context switch of this thread */
    mrapi_resource_get_attribute(c, MRAPI_RSRC_CPU_CONTEXT_SWITCHES, &v, sizeof v, &st);
    CHECK_MRAPI(st, MRAPI_SUCCESS);
    CHECK(v >= 20);
    mrapi_dynamic_attribute_reset(c, MRAPI_RSRC_CPU_CONTEXT_SWITCHES, &st);
    CHECK_MRAPI(st, MRAPI_SUCCESS);
    uint32_t small = 12345;
    mrapi_resource_get_attribute(c, MRAPI_RSRC_CPU_CONTEXT_SWITCHES, &small, sizeof small, &st);
    CHECK_MRAPI(st, MRAPI_SUCCESS);
    CHECK(small < 20);
    mrapi_dynamic_attribute_stop(c, MRAPI_RSRC_CPU_CONTEXT_SWITCHES, &st);
    CHECK_MRAPI(st, MRAPI_SUCCESS);
    mrapi_resource_get_attribute(c, MRAPI_RSRC_CPU_CONTEXT_SWITCHES, &v, sizeof v, &st);
    CHECK_MRAPI(st, MRAPI_ERR_RSRC_NOTSTARTED);
  }
  /* A counter still started when its tree is freed is stopped with it. */
  mrapi_dynamic_attribute_start(c, MRAPI_RSRC_CPU_MIGRATIONS, NULL, &st);
  CHECK(st == MRAPI_SUCCESS || st == MRAPI_ERR_NOT_SUPPORTED);
  mrapi_resource_tree_free(&root, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  fini_node();
}

/* hwloc (when built in) and /sys describe the same caches and memory. */
TEST(topology_sources_agree)
{
  static mcx_port_topo_t a, b;
  CHECK(mcx_port_topo_read(&a) == 0);
  CHECK(mcx_port_topo_read_sys(&b) == 0);
  printf("  (topology from %s)\n", a.source);
  CHECK(a.cpus != 0 && (a.cpus & b.cpus) == a.cpus);
  CHECK(a.nmem >= 1 && a.mem[0].bytes > 0);
  CHECK_EQ_U(a.ncaches, b.ncaches);
  for (int i = 0; i < a.ncaches; i++) {
    int found = 0;
    for (int j = 0; j < b.ncaches && !found; j++)
      found = a.caches[i].level == b.caches[j].level && a.caches[i].type == b.caches[j].type &&
              a.caches[i].size == b.caches[j].size && a.caches[i].cpus == b.caches[j].cpus;
    CHECK(found);
  }
}

static mcx_atomic_u32 cb_calls, cb_wrong_node;
static mrapi_node_t cb_expected_node;

static void on_event(mrapi_event_t ev)
{
  mrapi_status_t st;
  if (mrapi_node_id_get(&st) != cb_expected_node || ev != MRAPI_EVENT_CROSSBAR_BUFFER_OVER_80PERCENT)
    mcx_fetch_add_relaxed(&cb_wrong_node, 1u);
  mcx_fetch_add_relaxed(&cb_calls, 1u);
}

TEST(callbacks_fire_in_the_registering_node)
{
  fresh_domain(NULL);
  init_node(7);
  cb_expected_node = 7;
  mrapi_status_t st;
  mrapi_resource_register_callback((mrapi_event_t)99, 1, on_event, &st);
  CHECK_MRAPI(st, MRAPI_ERR_RSRC_INVALID_EVENT);
  mrapi_resource_register_callback(MRAPI_EVENT_CROSSBAR_BUFFER_OVER_80PERCENT, 1, NULL, &st);
  CHECK_MRAPI(st, MRAPI_ERR_RSRC_INVALID_CALLBACK);
  mrapi_resource_register_callback(MRAPI_EVENT_CROSSBAR_BUFFER_OVER_80PERCENT, 0, on_event, &st);
  CHECK_MRAPI(st, MRAPI_ERR_RSRC_INVALID_CALLBACK);
  mrapi_resource_register_callback(MRAPI_EVENT_CROSSBAR_BUFFER_OVER_80PERCENT, 1, on_event, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  /* Event: two ticks of the one-second timer. The wait sleeps with the
   * port's sleep: on Windows the callback is an APC, which runs only while
   * its thread waits alertably, as mcx_port_sleep_ns does. */
  double end = mcx_test_now() + mcx_test_ceiling_ms(30000) / 1000.0;
  while (mcx_load_relaxed(&cb_calls) < 2 && mcx_test_now() <= end)
    mcx_port_sleep_ns(10000000);
  CHECK(mcx_load_relaxed(&cb_calls) >= 2);
  CHECK_EQ_U(mcx_load_relaxed(&cb_wrong_node), 0);
  mrapi_resource_unregister_callback(MRAPI_EVENT_CROSSBAR_BUFFER_OVER_80PERCENT, on_event, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  mrapi_resource_unregister_callback(MRAPI_EVENT_CROSSBAR_BUFFER_OVER_80PERCENT, on_event, &st);
  CHECK_MRAPI(st, MRAPI_ERR_RSRC_INVALID_CALLBACK);
  fini_node();
}

int main(void)
{
  const char *c = getenv("MCX_COMPAT");
  snprintf(run_compat, sizeof run_compat, "%s", c ? c : "");
  /* The resource tests check this machine's tree, also in the mca-2.0.3
   * profile (whose default is the reference's example machine). */
  setenv("MCX_MRAPI_RESOURCES", "machine", 1);
  RUN(reference_names_are_provided);
  RUN(semaphore_lock_limits);
  RUN(delete_rules_spec_profile);
  RUN(delete_rules_mca203_profile);
  RUN(remote_memory_statuses_and_strides);
  RUN(dma_engine_requests);
  RUN(topology_sources_agree);
  RUN(resource_tree_and_static_attributes);
  RUN(dynamic_attributes);
  RUN(callbacks_fire_in_the_registering_node);
  for (unsigned k = 1; k < next_dom; k++)
    CHECK_EQ_U(shm_leftovers(test_domain(k)), 0);
  mt_fold();
  return mcx_test_report();
}
