/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mca domains [--clean]: lists the MCAPI domain partitions of this user in
 * /dev/shm — nodes (alive or dead), endpoints, queue depths, slot usage — and
 * with --clean removes the ones nobody alive uses (crashed runs) or whose
 * header is invalid.
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mca_tool.h"
#include "ports/mcx_port_shm.h"
#include "runtime/runtime.h"

static int show(const char *name, int clean)
{
  mcx_port_shm_t shm;
  int r = mcx_port_shm_open(name, sizeof(mcx__part_hdr_t), &shm);
  uint32_t uid;
  unsigned mode;
  size_t osize;
  if (r == MCX_EPERM && mcx_port_shm_stat(name, &uid, &mode, &osize) == MCX_OK &&
      uid != mcx_port_uid()) {
    /* Another user made an object under our name: never joined, never
     * removed; libmca uses a private name for the domain instead. */
    char rec[96], where[512] = "";
    if (mcx_port_name_record(name + 1, NULL, rec, sizeof rec, where, sizeof where) == MCX_OK)
      printf("%s: belongs to another user (uid %u, mode %03o), not ours: never joined or removed; "
             "the domain uses the private name %s (recorded in %s)\n",
             name, uid, mode, rec, where);
    else
      printf("%s: belongs to another user (uid %u, mode %03o), not ours: never joined or removed; "
             "the domain will use a private name\n",
             name, uid, mode);
    return 0;
  }
  if (r == MCX_EAGAIN) {
    /* Created but never sized: its creator died between creating and sizing
     * it, unless that happened just now (a creator at work). */
    char path[320];
    struct stat st;
    snprintf(path, sizeof path, "/dev/shm%s", name);
    if (stat(path, &st) == 0 && time(NULL) - st.st_mtime < 2) {
      printf("%s: being created\n", name);
      return 0;
    }
    printf("%s: not sized: its creator died before sizing it%s\n", name,
           clean ? " -> removed" : " (mca domains --clean removes it)");
    if (clean)
      mcx_port_shm_unlink(name);
    return 0;
  }
  if (r) {
    printf("%s: cannot open (%s)\n", name, r == MCX_EPERM ? "too open" : "error");
    return 1;
  }
  uint8_t *base = mcx_port_shm_map(&shm, shm.size);
  size_t size = shm.size;
  mcx_port_shm_close(&shm);
  if (!base) {
    printf("%s: cannot map\n", name);
    return 1;
  }
  if (size >= sizeof(mcx__part_hdr_t) &&
      mcx_load_acquire(&((mcx__part_hdr_t *)base)->magic) == 0) {
    printf("%s: being created\n", name); /* its creator has not finished the header */
    mcx_port_shm_unmap(base, size);
    return 0;
  }
  if (mcx__part_check(name, base, size)) {
    printf("%s: invalid header%s\n", name, clean ? " -> removed" : " (mca domains --clean removes it)");
    if (clean)
      mcx_port_shm_unlink(name);
    mcx_port_shm_unmap(base, size);
    return 0;
  }
  mcx__domain_t d = {.base = base, .size = size, .hdr = (mcx__part_hdr_t *)base};
  const mcx__part_hdr_t *h = d.hdr;
  mcx__node_t *nodes = mcx__nodes(&d);
  uint32_t alive = 0, dead = 0;
  for (uint32_t i = 0; i < h->max_nodes; i++)
    if (mcx_load_acquire(&nodes[i].state) == NODE_ACTIVE) {
      if (mcx_port_tid_alive(mcx_load_relaxed(&nodes[i].tid)))
        alive++;
      else
        dead++;
    }
  printf("%s: domain %u, %s locking, %s, %.1f MiB reserved, %u node(s) alive, %u dead\n", name,
         h->domain_id, mcx__locking_name(h->locking),
         h->compat == MCX_COMPAT_MCA203_ ? "mca-2.0.3 profile" : "spec profile",
         (double)size / (1 << 20), alive, dead);
  for (uint32_t i = 0; i < h->max_nodes; i++)
    if (mcx_load_acquire(&nodes[i].state) == NODE_ACTIVE)
      printf("  node %u: pid %u tid %u %s\n", mcx_load_relaxed(&nodes[i].node_id),
             mcx_load_relaxed(&nodes[i].pid), mcx_load_relaxed(&nodes[i].tid),
             mcx_port_tid_alive(mcx_load_relaxed(&nodes[i].tid)) ? "alive" : "DEAD");
  mcx__endpoint_t *eps = mcx__eps(&d);
  uint32_t total = 0, used_eps = 0;
  for (uint32_t i = 0; i < h->max_endpoints; i++) {
    uint32_t st = mcx_load_acquire(&eps[i].state);
    if ((st & 0xff) == EP_FREE)
      continue;
    used_eps++;
    uint32_t depth = mcx_load_relaxed(&eps[i].depth), queued = 0;
    char per[128] = "";
    size_t k = 0;
    for (uint32_t p = 0; p < h->nprio; p++) {
      mcx__ring_view_t v = mcx__ring_of(&d, i, p, depth);
      uint32_t q = mcx__mpsc_count(&v);
      if (q && k < sizeof per - 16)
        k += (size_t)snprintf(per + k, sizeof per - k, " p%u:%u", p, q);
      queued += q;
    }
    total += queued;
    printf("  endpoint node %u port %u: %u queued (depth %u per priority)%s%s\n",
           mcx_load_relaxed(&eps[i].node_id), mcx_load_relaxed(&eps[i].port), queued, depth,
           *per ? " —" : "", per);
  }
  printf("  %u of %u endpoints in use, %u messages queued\n", used_eps, h->max_endpoints, total);
  if (clean && alive == 0 && dead > 0) {
    mcx_port_shm_unlink(name);
    printf("  -> removed (no live node)\n");
  }
  mcx_port_shm_unmap(base, size);
  return 0;
}

int mca_cmd_domains(int argc, char **argv)
{
  int clean = 0;
  const char *ns = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--clean"))
      clean = 1;
    else if (!strcmp(argv[i], "--namespace") && i + 1 < argc)
      ns = argv[++i];
    else {
      printf("usage: mca domains [--clean] [--namespace NS]\n\nLists this user's MCAPI domain "
             "partitions in /dev/shm (nodes, endpoints, queue depths);\n--clean removes those "
             "whose nodes all died and those with an invalid header;\n--namespace limits both "
             "to one MCX_NAMESPACE.\n");
      return strcmp(argv[i], "--help") && strcmp(argv[i], "-h") ? 2 : 0;
    }
  }
  char prefix[96];
  if (ns)
    snprintf(prefix, sizeof prefix, "mcx-%u-%s-d", mcx_port_uid(), ns);
  else
    snprintf(prefix, sizeof prefix, "mcx-%u-", mcx_port_uid());
  DIR *dir = opendir("/dev/shm");
  if (!dir) {
    perror("mca domains: /dev/shm");
    return 1;
  }
  int n = 0, bad = 0;
  struct dirent *e;
  while ((e = readdir(dir))) {
    if (strncmp(e->d_name, prefix, strlen(prefix)) || !strstr(e->d_name, "-d"))
      continue;
    char name[300];
    snprintf(name, sizeof name, "/%s", e->d_name);
    bad |= show(name, clean);
    n++;
  }
  closedir(dir);
  if (!n)
    printf("no MCAPI domain partitions of uid %u in /dev/shm\n", mcx_port_uid());
  return bad;
}
