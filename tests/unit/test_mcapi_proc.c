/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MCAPI across processes: nodes in forked children and in a separate
 * executable exchange messages with the parent through the domain's shared
 * partition, in both locking modes; crashes (a sender dying with a slot
 * reserved, a receiver dying while a sender waits for space, a process dying
 * with the global lock or the control-plane lock held, a run that never
 * finalized) are recovered; bad partitions (wrong magic, wrong version,
 * truncated, another owner) are refused; nothing is left in /dev/shm.
 */
#include <dirent.h>
#include <fcntl.h>
#include <mqueue.h>
#include <signal.h>
#include <errno.h>
#include <sys/mman.h>
#include <sys/sem.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mcapi.h"
#include "mcx.h"
#include "mcx_test.h"
#include "runtime/runtime.h"

static const char *self_exe;

static void part_name(char *out, size_t n, mcapi_domain_t dom)
{
  const char *ns = getenv("MCX_NAMESPACE");
  snprintf(out, n, "/mcx-%u-%s-d%u", (unsigned)geteuid(), ns && *ns ? ns : "default", dom);
}

static int part_exists(mcapi_domain_t dom)
{
  char name[80], path[100];
  part_name(name, sizeof name, dom);
  snprintf(path, sizeof path, "/dev/shm%s", name);
  return access(path, F_OK) == 0;
}

static mcapi_status_t init_node(mcapi_domain_t dom, mcapi_node_t node, mcx_locking_t lk)
{
  mcapi_param_t p;
  mcapi_info_t info;
  mcapi_status_t st;
  mcx_param_init(&p);
  p.locking = lk;
  mcapi_initialize(dom, node, NULL, &p, &info, &st);
  return st;
}

static int wait_child(pid_t pid)
{
  int ws = 0;
  waitpid(pid, &ws, 0);
  return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
}

typedef struct {
  uint32_t seq;
  uint32_t sender;
  uint32_t fill[4];
} item_t;

static item_t make_item(uint32_t sender, uint32_t seq)
{
  item_t it = {seq, sender, {seq * 3u, seq ^ 0xabcdu, sender + seq, ~seq}};
  return it;
}

static int item_ok(const item_t *it)
{
  item_t want = make_item(it->sender, it->seq);
  return memcmp(it, &want, sizeof want) == 0;
}

/* Child side of the ping-pong: node 2, echoes @p n items. Exit code 0 = ok. */
static int child_echo(mcapi_domain_t dom, mcx_locking_t lk, int n)
{
  if (init_node(dom, 2, lk) != MCAPI_SUCCESS)
    return 10;
  mcapi_status_t st;
  mcapi_endpoint_t me = mcapi_endpoint_create(1, &st);
  mcapi_endpoint_t peer = mcapi_endpoint_get(dom, 1, 1, MCX_TEST_WAIT_MS, &st);
  if (st != MCAPI_SUCCESS)
    return 11;
  for (int i = 0; i < n; i++) {
    item_t it;
    size_t sz;
    mcapi_msg_recv(me, &it, sizeof it, &sz, &st);
    if (st != MCAPI_SUCCESS || sz != sizeof it || !item_ok(&it) || it.seq != (uint32_t)i)
      return 12;
    it = make_item(2, it.seq);
    mcapi_msg_send(me, peer, &it, sizeof it, 1, &st);
    if (st != MCAPI_SUCCESS)
      return 13;
  }
  /* Wait for the parent's "done" before leaving (finalize deletes our endpoint). */
  item_t done;
  size_t sz;
  mcapi_msg_recv(me, &done, sizeof done, &sz, &st);
  mcapi_finalize(&st);
  return st == MCAPI_SUCCESS ? 0 : 14;
}

/* Parent side: node 1; pings @p n items to node 2 and checks the echoes. */
static void parent_ping(mcapi_domain_t dom, mcx_locking_t lk, int n, pid_t child)
{
  CHECK_STATUS(init_node(dom, 1, lk), MCAPI_SUCCESS);
  mcapi_status_t st;
  mcapi_endpoint_t me = mcapi_endpoint_create(1, &st);
  mcapi_endpoint_t peer = mcapi_endpoint_get(dom, 2, 1, MCX_TEST_WAIT_MS, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  int good = 0;
  for (int i = 0; i < n && st == MCAPI_SUCCESS; i++) {
    item_t it = make_item(1, (uint32_t)i);
    mcapi_msg_send(me, peer, &it, sizeof it, 1, &st);
    size_t sz;
    mcapi_msg_recv(me, &it, sizeof it, &sz, &st);
    good += st == MCAPI_SUCCESS && item_ok(&it) && it.sender == 2 && it.seq == (uint32_t)i;
  }
  CHECK_EQ_U(good, n);
  item_t done = make_item(1, 0xffffffffu);
  mcapi_msg_send(me, peer, &done, sizeof done, 0, &st);
  CHECK_EQ_U(wait_child(child), 0);
  mcapi_finalize(&st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
}

static void fork_pingpong(mcapi_domain_t dom, mcx_locking_t lk)
{
  pid_t pid = fork();
  if (pid == 0)
    _exit(child_echo(dom, lk, 2000));
  parent_ping(dom, lk, 2000, pid);
  CHECK(!part_exists(dom));
}

TEST(forked_child_exchanges_messages_lockfree) { fork_pingpong(11, MCX_LOCKING_LOCKFREE); }
TEST(forked_child_exchanges_messages_global) { fork_pingpong(12, MCX_LOCKING_GLOBAL); }
TEST(forked_child_exchanges_messages_kernel) { fork_pingpong(26, MCX_LOCKING_KERNEL); }

TEST(separate_executable_exchanges_messages)
{
  if (getenv("MCX_TEST_EMULATOR")) { /* set by the cross toolchains' CMAKE_CROSSCOMPILING_EMULATOR */
    printf("   SKIP under %s: exec of a target program needs binfmt_misc\n", getenv("MCX_TEST_EMULATOR"));
    return;
  }
  pid_t pid = fork();
  if (pid == 0) {
    execl(self_exe, self_exe, "--echo", "13", NULL);
    _exit(99);
  }
  parent_ping(13, MCX_LOCKING_DEFAULT, 1000, pid);
  CHECK(!part_exists(13));
}

TEST(fork_child_of_a_node_is_not_a_node)
{
  CHECK_STATUS(init_node(14, 1, MCX_LOCKING_DEFAULT), MCAPI_SUCCESS);
  mcapi_status_t st;
  mcapi_endpoint_t me = mcapi_endpoint_create(1, &st);
  pid_t pid = fork();
  if (pid == 0) {
    mcapi_status_t s;
    mcapi_node_id_get(&s);
    if (s != MCAPI_ERR_NODE_NOTINIT)
      _exit(1);
    /* It can become a node of its own and talk to its parent. */
    if (init_node(14, 7, MCX_LOCKING_DEFAULT) != MCAPI_SUCCESS)
      _exit(2);
    mcapi_endpoint_t mine = mcapi_endpoint_create(1, &s);
    mcapi_endpoint_t parent = mcapi_endpoint_get(14, 1, 1, MCX_TEST_WAIT_MS, &s);
    mcapi_msg_send(mine, parent, "hi", 3, 0, &s);
    if (s != MCAPI_SUCCESS)
      _exit(3);
    mcapi_finalize(&s);
    _exit(s == MCAPI_SUCCESS ? 0 : 4);
  }
  char buf[8];
  size_t n;
  mcapi_msg_recv(me, buf, sizeof buf, &n, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(n == 3 && !strcmp(buf, "hi"));
  CHECK_EQ_U(wait_child(pid), 0);
  mcapi_finalize(&st);
  CHECK(!part_exists(14));
}

/*
 * A sender that dies between winning the reservation and publishing the
 * message would block the ring for good. The child does exactly that (the
 * two steps of the enqueue, by hand) and dies; the receiver must get the
 * messages queued behind that slot, from a second sender, all of them.
 */
TEST(sender_dying_with_a_reserved_slot_does_not_block_the_ring)
{
  mcapi_domain_t dom = 15;
  CHECK_STATUS(init_node(dom, 1, MCX_LOCKING_DEFAULT), MCAPI_SUCCESS);
  mcapi_status_t st;
  mcapi_endpoint_t me = mcapi_endpoint_create(1, &st);
  pid_t pid = fork();
  if (pid == 0) {
    if (init_node(dom, 2, MCX_LOCKING_DEFAULT) != MCAPI_SUCCESS)
      _exit(1);
    mcapi_status_t s;
    mcapi_endpoint_t mine = mcapi_endpoint_create(1, &s);
    mcapi_endpoint_t to = mcapi_endpoint_get(dom, 1, 1, MCX_TEST_WAIT_MS, &s);
    item_t it = make_item(2, 0);
    mcapi_msg_send(mine, to, &it, sizeof it, 0, &s); /* one real message */
    /* Reserve the next slot of priority 0 and die before publishing. */
    mcx__domain_t *d = mcx__self.dom;
    uint32_t idx = mcx__handle_idx(to);
    mcx__endpoint_t *e = &mcx__eps(d)[idx];
    mcx__ring_view_t v = mcx__ring_of(d, idx, 0, mcx_load_relaxed(&e->depth));
    uint64_t t = mcx_load_acquire(&v.ring->tail);
    uint64_t pos = t & MCX_RING_POS_MASK;
    mcx_store_relaxed(&mcx__nodes(d)[mcx__self.node_slot].inflight,
                      ((uint64_t)idx * d->hdr->nprio + 0 + 1) << 48 | pos);
    if (!mcx_cas_acq_rel(&v.ring->tail, &t, t + 1))
      _exit(2);
    _exit(0); /* no finalize, no publish */
  }
  CHECK_EQ_U(wait_child(pid), 0);
  /* A second sender (thread of this process would do; use another child). */
  pid_t pid2 = fork();
  if (pid2 == 0) {
    if (init_node(dom, 3, MCX_LOCKING_DEFAULT) != MCAPI_SUCCESS)
      _exit(1);
    mcapi_status_t s;
    mcapi_endpoint_t mine = mcapi_endpoint_create(1, &s);
    mcapi_endpoint_t to = mcapi_endpoint_get(dom, 1, 1, MCX_TEST_WAIT_MS, &s);
    for (uint32_t i = 0; i < 100; i++) {
      item_t it = make_item(3, i);
      mcapi_msg_send(mine, to, &it, sizeof it, 0, &s);
      if (s != MCAPI_SUCCESS)
        _exit(3);
    }
    mcapi_endpoint_t back = mcapi_endpoint_create(2, &s);
    char c;
    size_t n;
    mcapi_msg_recv(back, &c, 1, &n, &s); /* stay until the parent has read */
    mcapi_finalize(&s);
    _exit(0);
  }
  /* The dead sender's real message, then all 100 of the second one. */
  int from2 = 0, from3 = 0, bad = 0;
  mcapi_timeout_t to = MCX_TEST_WAIT_MS;
  mcapi_endpoint_set_attribute(me, MCAPI_ENDP_ATTR_TIMEOUT, &to, sizeof to, &st);
  for (int k = 0; k < 101; k++) {
    item_t it;
    size_t n;
    mcapi_msg_recv(me, &it, sizeof it, &n, &st);
    if (st != MCAPI_SUCCESS)
      break;
    if (!item_ok(&it))
      bad++;
    else if (it.sender == 2)
      from2++;
    else if (it.sender == 3 && it.seq == (uint32_t)from3)
      from3++;
    else
      bad++;
  }
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK_EQ_U(from2, 1);
  CHECK_EQ_U(from3, 100);
  CHECK_EQ_U(bad, 0);
  mcapi_endpoint_t back = mcapi_endpoint_get(dom, 3, 2, MCX_TEST_WAIT_MS, &st);
  mcapi_msg_send(me, back, "x", 1, 0, &st);
  CHECK_EQ_U(wait_child(pid2), 0);
  CHECK_EQ_U(mcapi_msg_available(me, &st), 0);
  mcapi_finalize(&st);
  CHECK(!part_exists(dom));
}

/* A sender blocked on a full queue learns that the receiver's process died. */
TEST(sender_blocked_on_a_dead_receiver_returns)
{
  mcapi_domain_t dom = 16;
  int ready[2];
  CHECK(pipe(ready) == 0);
  pid_t pid = fork();
  if (pid == 0) {
    if (init_node(dom, 2, MCX_LOCKING_DEFAULT) != MCAPI_SUCCESS)
      _exit(1);
    mcapi_status_t s;
    mcapi_endpoint_t me = mcapi_endpoint_create(1, &s);
    mcapi_uint_t depth = 2;
    mcapi_endpoint_set_attribute(me, MCAPI_ENDP_ATTR_NUM_RECV_BUFFERS, &depth, sizeof depth, &s);
    if (write(ready[1], "r", 1) != 1)
      _exit(2);
    pause(); /* never receives; killed by the parent */
    _exit(0);
  }
  char c;
  CHECK(read(ready[0], &c, 1) == 1);
  CHECK_STATUS(init_node(dom, 1, MCX_LOCKING_DEFAULT), MCAPI_SUCCESS);
  mcapi_status_t st;
  mcapi_endpoint_t me = mcapi_endpoint_create(1, &st);
  mcapi_endpoint_t to = mcapi_endpoint_get(dom, 2, 1, MCX_TEST_WAIT_MS, &st);
  item_t it = make_item(1, 0);
  mcapi_msg_send(me, to, &it, sizeof it, 0, &st);
  mcapi_msg_send(me, to, &it, sizeof it, 0, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  kill(pid, SIGKILL);
  mcapi_msg_send(me, to, &it, sizeof it, 0, &st); /* blocks: full, receiver dead */
  CHECK_STATUS(st, MCAPI_ERR_ENDP_DELETED);
  wait_child(pid);
  mcapi_finalize(&st);
  CHECK(!part_exists(dom));
  close(ready[0]);
  close(ready[1]);
}

/* A process dies holding the global lock, or the control-plane lock. */
static void die_holding(mcapi_domain_t dom, mcx_locking_t lk, int admin)
{
  CHECK_STATUS(init_node(dom, 1, lk), MCAPI_SUCCESS);
  mcapi_status_t st;
  mcapi_endpoint_t me = mcapi_endpoint_create(1, &st);
  pid_t pid = fork();
  if (pid == 0) {
    if (init_node(dom, 2, lk) != MCAPI_SUCCESS)
      _exit(1);
    if (admin)
      mcx__admin_lock(mcx__self.dom);
    else
      mcx__glock(mcx__self.dom);
    _exit(0);
  }
  CHECK_EQ_U(wait_child(pid), 0);
  mcapi_msg_send(me, me, "ok", 3, 0, &st); /* global mode: needs the lock */
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_endpoint_create(2, &st); /* needs the control-plane lock */
  CHECK_STATUS(st, MCAPI_SUCCESS);
  char buf[4];
  size_t n;
  mcapi_msg_recv(me, buf, sizeof buf, &n, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_finalize(&st);
  CHECK(!part_exists(dom));
}

TEST(global_lock_of_a_dead_process_is_recovered) { die_holding(17, MCX_LOCKING_GLOBAL, 0); }
TEST(kernel_lock_of_a_dead_process_is_released) { die_holding(27, MCX_LOCKING_KERNEL, 0); }

/* The kernel mode's semaphore lives as long as the partition, not longer. */
TEST(kernel_semaphore_is_removed_with_the_partition)
{
  CHECK_STATUS(init_node(28, 1, MCX_LOCKING_KERNEL), MCAPI_SUCCESS);
  CHECK_EQ_U(mcx_locking(), MCX_LOCKING_KERNEL);
  int id = mcx__self.dom->hdr->kernel_sem;
  CHECK(id >= 0);
  CHECK(semctl(id, 0, GETVAL) == 1); /* free between operations */
  mcapi_status_t st;
  mcapi_finalize(&st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(!part_exists(28));
  errno = 0;
  CHECK(semctl(id, 0, GETVAL) < 0 && (errno == EINVAL || errno == EIDRM));
}
TEST(control_lock_of_a_dead_process_is_recovered) { die_holding(18, MCX_LOCKING_LOCKFREE, 1); }

/* A run that died without finalizing leaves a partition; the next initialize recovers. */
TEST(stale_partition_of_a_crashed_run_is_recovered)
{
  mcapi_domain_t dom = 19;
  pid_t pid = fork();
  if (pid == 0) {
    if (init_node(dom, 1, MCX_LOCKING_DEFAULT) != MCAPI_SUCCESS)
      _exit(1);
    mcapi_status_t s;
    mcapi_endpoint_t e = mcapi_endpoint_create(5, &s);
    mcapi_msg_send(e, e, "old", 4, 0, &s);
    _exit(0);
  }
  CHECK_EQ_U(wait_child(pid), 0);
  CHECK(part_exists(dom));
  CHECK_STATUS(init_node(dom, 1, MCX_LOCKING_DEFAULT), MCAPI_SUCCESS); /* same id: free again */
  mcapi_status_t st;
  mcapi_endpoint_t e = mcapi_endpoint_create(5, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK_EQ_U(mcapi_msg_available(e, &st), 0); /* the old message is gone with its run */
  mcapi_finalize(&st);
  CHECK(!part_exists(dom));
}

/* regress: a creator killed between shm_open(O_CREAT) and ftruncate left a
 * 0-byte partition that made every later mcapi_initialize of the domain fail. */
TEST(zero_byte_partition_of_a_dead_creator_is_replaced)
{
  mcapi_domain_t dom = 26;
  char name[80];
  part_name(name, sizeof name, dom);
  int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600); /* as the dead creator left it */
  CHECK(fd >= 0);
  if (fd >= 0)
    close(fd);
  CHECK_STATUS(init_node(dom, 1, MCX_LOCKING_DEFAULT), MCAPI_SUCCESS);
  mcapi_status_t st;
  mcapi_endpoint_t e = mcapi_endpoint_create(5, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_msg_send(e, e, "new", 4, 0, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_finalize(&st);
  CHECK(!part_exists(dom));
}

/* A child process that is node @p node of @p dom until it is killed; back
 * once its init finished. */
static pid_t hold_node(mcapi_domain_t dom, mcapi_node_t node)
{
  int ready[2];
  CHECK(pipe(ready) == 0);
  pid_t pid = fork();
  if (pid == 0) {
    if (init_node(dom, node, MCX_LOCKING_DEFAULT) != MCAPI_SUCCESS)
      _exit(1);
    char one = 1;
    if (write(ready[1], &one, 1) != 1)
      _exit(1);
    pause();
    _exit(0);
  }
  close(ready[1]);
  char got = 0;
  CHECK(read(ready[0], &got, 1) == 1 && got == 1);
  close(ready[0]);
  return pid;
}

/* Writes a partition-like object by hand and expects initialize to refuse it. */
static void refuse(mcapi_domain_t dom, void (*spoil)(int fd, size_t size))
{
  /* Start from a real partition's header, spoiled by @p spoil once its
   * creator has finished it (the child says so: a spoil during creation
   * would be overwritten). */
  pid_t pid = hold_node(dom, 1);
  char name[80];
  part_name(name, sizeof name, dom);
  int fd = shm_open(name, O_RDWR, 0);
  CHECK(fd >= 0);
  struct stat sb;
  fstat(fd, &sb);
  spoil(fd, (size_t)sb.st_size);
  mcapi_status_t st = init_node(dom, 2, MCX_LOCKING_DEFAULT);
  CHECK_STATUS(st, MCAPI_ERR_NODE_INITFAILED);
  if (st == MCAPI_SUCCESS)
    mcapi_finalize(&st);
  kill(pid, SIGKILL);
  wait_child(pid);
  close(fd);
  shm_unlink(name);
}

/* A node id a live process holds: INITFAILED, and the log says which
 * process holds it (read from this process's stderr, captured around the
 * call). */
TEST(taken_node_id_is_refused_naming_its_holder)
{
  const mcapi_domain_t dom = 29;
  pid_t pid = hold_node(dom, 1);
  FILE *log = tmpfile();
  CHECK(log != NULL);
  fflush(stderr);
  int saved = dup(2);
  CHECK(saved >= 0 && dup2(fileno(log), 2) == 2);
  mcapi_status_t st = init_node(dom, 1, MCX_LOCKING_DEFAULT);
  fflush(stderr);
  CHECK(dup2(saved, 2) == 2);
  close(saved);
  CHECK_STATUS(st, MCAPI_ERR_NODE_INITFAILED);
  if (st == MCAPI_SUCCESS)
    mcapi_finalize(&st);
  char text[2048] = {0}, want[96];
  rewind(log);
  size_t n = fread(text, 1, sizeof text - 1, log);
  text[n] = 0;
  fclose(log);
  snprintf(want, sizeof want, "node 1 of domain %u is held by process %u", (unsigned)dom,
           (unsigned)pid);
  if (!strstr(text, want))
    fprintf(stderr, "  log was: %s\n", text);
  CHECK(strstr(text, want) != NULL);
  kill(pid, SIGKILL);
  wait_child(pid);
}

static void spoil_magic(int fd, size_t size)
{
  uint64_t bad = 0x1234;
  CHECK(pwrite(fd, &bad, sizeof bad, 0) == sizeof bad);
}
static void spoil_version(int fd, size_t size)
{
  uint32_t v = MCX_PART_VERSION + 7;
  CHECK(pwrite(fd, &v, sizeof v, offsetof(mcx__part_hdr_t, version)) == sizeof v);
}
static void spoil_size(int fd, size_t size) { CHECK(ftruncate(fd, (off_t)(size / 2)) == 0); }
static void spoil_offsets(int fd, size_t size)
{
  uint64_t off = 12345;
  CHECK(pwrite(fd, &off, sizeof off, offsetof(mcx__part_hdr_t, off_slots)) == sizeof off);
}
static void spoil_owner(int fd, size_t size)
{
  if (geteuid() != 0) {
    printf("   (not root: the foreign-owner case makes the object world-readable instead)\n");
    CHECK(fchmod(fd, 0644) == 0);
    return;
  }
  CHECK(fchown(fd, 65534, 65534) == 0);
}

TEST(partition_with_wrong_magic_is_refused) { refuse(20, spoil_magic); }
TEST(partition_with_wrong_version_is_refused) { refuse(21, spoil_version); }
TEST(truncated_partition_is_refused) { refuse(22, spoil_size); }
TEST(partition_with_corrupt_offsets_is_refused) { refuse(23, spoil_offsets); }
/* A partition of another owner under our name is never joined: when not
 * root, it is a too-open one of ours (refused); as root the object really
 * belongs to another user, and the domain moves to a private name
 * (docs/processes.md): the node initializes, and the other partition's node
 * is not in its domain. */
TEST(partition_of_another_owner_is_refused)
{
  if (geteuid() != 0) {
    refuse(24, spoil_owner);
    return;
  }
  char dir[] = "/tmp/mcx-proc-XXXXXX", cmd[64];
  CHECK(mkdtemp(dir) != NULL);
  const char *old = getenv("XDG_RUNTIME_DIR");
  char *saved = old ? strdup(old) : NULL;
  setenv("XDG_RUNTIME_DIR", dir, 1); /* the private name's record goes there */
  int ready[2];
  CHECK(pipe(ready) == 0);
  pid_t pid = fork();
  if (pid == 0) {
    mcapi_status_t s;
    if (init_node(24, 1, MCX_LOCKING_DEFAULT) != MCAPI_SUCCESS)
      _exit(1);
    mcapi_endpoint_create(7, &s);
    char one = 1;
    if (write(ready[1], &one, 1) != 1)
      _exit(1);
    pause();
    _exit(0);
  }
  close(ready[1]);
  char got = 0;
  CHECK(read(ready[0], &got, 1) == 1 && got == 1); /* event: the child's node and endpoint exist */
  close(ready[0]);
  char name[80];
  part_name(name, sizeof name, 24);
  int fd = shm_open(name, O_RDWR, 0);
  CHECK(fd >= 0);
  spoil_owner(fd, 0);
  mcapi_status_t st = init_node(24, 2, MCX_LOCKING_DEFAULT);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  if (st == MCAPI_SUCCESS) {
    mcapi_endpoint_get(24, 1, 7, 0, &st);
    CHECK_STATUS(st, MCAPI_TIMEOUT); /* not the other partition's domain */
    mcapi_finalize(&st);
  }
  kill(pid, SIGKILL);
  wait_child(pid);
  close(fd);
  shm_unlink(name);
  /* pmq: the killed node's queue belongs to a partition nobody joins again. */
  char prefix[120], qn[300];
  snprintf(prefix, sizeof prefix, "%s-p%d-", name + 1, (int)pid);
  DIR *mq = opendir("/dev/mqueue");
  struct dirent *de;
  while (mq && (de = readdir(mq)) != NULL)
    if (!strncmp(de->d_name, prefix, strlen(prefix))) {
      snprintf(qn, sizeof qn, "/%s", de->d_name);
      mq_unlink(qn);
    }
  if (mq)
    closedir(mq);
  if (saved) {
    setenv("XDG_RUNTIME_DIR", saved, 1);
    free(saved);
  } else {
    unsetenv("XDG_RUNTIME_DIR");
  }
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  CHECK(system(cmd) == 0);
}

TEST(partition_mode_is_0600_by_default_and_settable)
{
  char name[80], path[100];
  struct stat sb;
  part_name(name, sizeof name, 25);
  snprintf(path, sizeof path, "/dev/shm%s", name);
  CHECK_STATUS(init_node(25, 1, MCX_LOCKING_DEFAULT), MCAPI_SUCCESS);
  CHECK(stat(path, &sb) == 0 && (sb.st_mode & 0777) == 0600);
  mcapi_status_t st;
  mcapi_finalize(&st);
  mcapi_param_t p;
  mcapi_info_t info;
  mcx_param_init(&p);
  p.shm_mode = 0640;
  mcapi_initialize(25, 1, NULL, &p, &info, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(stat(path, &sb) == 0 && (sb.st_mode & 0777) == 0640);
  mcapi_finalize(&st);
  p.shm_mode = 0700; /* execute bits make no sense; owner rw is required */
  mcapi_initialize(25, 1, NULL, &p, &info, &st);
  CHECK_STATUS(st, MCAPI_ERR_PARAMETER);
  p.shm_mode = 0066;
  mcapi_initialize(25, 1, NULL, &p, &info, &st);
  CHECK_STATUS(st, MCAPI_ERR_PARAMETER);
  /* regress: 0666 was accepted silently; any local user could then truncate
   * the partition and kill the domain's processes with SIGBUS. Group or
   * other write needs the explicit opt-in. */
  p.shm_mode = 0666;
  mcapi_initialize(25, 1, NULL, &p, &info, &st);
  CHECK_STATUS(st, MCAPI_ERR_PARAMETER);
  p.shm_mode = 0620;
  mcapi_initialize(25, 1, NULL, &p, &info, &st);
  CHECK_STATUS(st, MCAPI_ERR_PARAMETER);
  p.shm_mode = 0666;
  p.shm_allow_foreign_write = 1;
  mcapi_initialize(25, 1, NULL, &p, &info, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(stat(path, &sb) == 0 && (sb.st_mode & 0777) == 0666);
  mcapi_finalize(&st);
}

TEST(nothing_left_in_dev_shm)
{
  for (mcapi_domain_t d = 11; d <= 25; d++)
    CHECK(!part_exists(d));
}

int main(int argc, char **argv)
{
  self_exe = argv[0];
  if (!getenv("MCX_NAMESPACE"))
    setenv("MCX_NAMESPACE", "test_mcapi_proc", 1);
  if (argc == 3 && !strcmp(argv[1], "--leave-stale")) {
    /* For the `mca domains` test: a node that queues a message and dies. */
    if (init_node((mcapi_domain_t)atoi(argv[2]), 1, MCX_LOCKING_DEFAULT) != MCAPI_SUCCESS)
      return 1;
    mcapi_status_t s;
    mcapi_endpoint_t e = mcapi_endpoint_create(5, &s);
    mcapi_msg_send(e, e, "stale", 6, 3, &s);
    if (s != MCAPI_SUCCESS)
      _exit(2);
    /* Port 6's counters: sends to itself that fail at once on a full queue
     * until the first refusal (one dropped), then receives and sends. */
    mcapi_endpoint_t c = mcapi_endpoint_create(6, &s);
    mcapi_boolean_t yes = MCAPI_TRUE;
    mcapi_endpoint_set_attribute(c, MCAPI_ENDP_ATTR_FAIL_ON_MEM_LIMIT, &yes, sizeof yes, &s);
    if (s != MCAPI_SUCCESS)
      _exit(3);
    unsigned cap = 0;
    for (; cap < 100000; cap++) {
      mcapi_msg_send(c, c, "c", 2, 1, &s);
      if (s != MCAPI_SUCCESS)
        break;
    }
    if (s != MCAPI_ERR_MEM_LIMIT || cap < 40)
      _exit(4);
    /* 40 received, 40 sent (full again), 40 received: 80 in all. */
    char buf[8];
    size_t n;
    for (int round = 0; round < 3; round++)
      for (int i = 0; i < 40; i++) {
        if (round == 1)
          mcapi_msg_send(c, c, "c", 2, 1, &s);
        else
          mcapi_msg_recv(c, buf, sizeof buf, &n, &s);
        if (s != MCAPI_SUCCESS)
          _exit(5);
      }
    /* Port 7: one message larger than a slot's inline bytes, queued: one
     * buffer of the message pool in use. */
    mcapi_endpoint_t g = mcapi_endpoint_create(7, &s);
    char big[300];
    memset(big, 'g', sizeof big);
    mcapi_msg_send(g, g, big, sizeof big, 2, &s);
    if (s != MCAPI_SUCCESS)
      _exit(6);
    printf("%u\n", cap); /* the queue's capacity */
    fflush(stdout);
    _exit(0);
  }
  if (argc == 3 && !strcmp(argv[1], "--echo"))
    return child_echo((mcapi_domain_t)atoi(argv[2]), MCX_LOCKING_DEFAULT, 1000);
  RUN(forked_child_exchanges_messages_lockfree);
  RUN(forked_child_exchanges_messages_global);
  RUN(forked_child_exchanges_messages_kernel);
  RUN(separate_executable_exchanges_messages);
  RUN(fork_child_of_a_node_is_not_a_node);
  RUN(sender_dying_with_a_reserved_slot_does_not_block_the_ring);
  RUN(sender_blocked_on_a_dead_receiver_returns);
  RUN(global_lock_of_a_dead_process_is_recovered);
  RUN(kernel_lock_of_a_dead_process_is_released);
  RUN(kernel_semaphore_is_removed_with_the_partition);
  RUN(control_lock_of_a_dead_process_is_recovered);
  RUN(stale_partition_of_a_crashed_run_is_recovered);
  RUN(zero_byte_partition_of_a_dead_creator_is_replaced);
  RUN(taken_node_id_is_refused_naming_its_holder);
  RUN(partition_with_wrong_magic_is_refused);
  RUN(partition_with_wrong_version_is_refused);
  RUN(truncated_partition_is_refused);
  RUN(partition_with_corrupt_offsets_is_refused);
  RUN(partition_of_another_owner_is_refused);
  RUN(partition_mode_is_0600_by_default_and_settable);
  RUN(nothing_left_in_dev_shm);
  return mcx_test_report();
}
