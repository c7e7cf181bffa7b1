/* SPDX-License-Identifier: BSD-3-Clause */
/* Real counters through perf_event_open: software events must work on any
 * Linux; hardware events are checked only where the probe says OK, and skip
 * with a message otherwise (e.g. a VM without a PMU). */
#include "mcx_test.h"

#include <unistd.h>

#include "common/mcx_err.h"
#include "mcx_hpc.h"
#include "ports/mcx_port.h"

static void sleep_ms(long ms)
{
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

TEST(event_names_and_codes_give_clear_errors)
{
  mcx_hpc_event_t ev;
  char name[64], err[256];
  CHECK(mcx_hpc_event_parse("no-such-event", &ev, name, sizeof name, err, sizeof err) == MCX_ENOENT);
  CHECK(strstr(err, "unknown event 'no-such-event'") != NULL);
  CHECK(mcx_hpc_event_parse("raw:0xZZ", &ev, name, sizeof name, err, sizeof err) == MCX_EINVAL);
  CHECK(strstr(err, "not a hexadecimal number") != NULL);
  CHECK(mcx_hpc_event_parse("raw:", &ev, name, sizeof name, err, sizeof err) == MCX_EINVAL);
  CHECK(strstr(err, "malformed") != NULL);
  CHECK(mcx_hpc_event_parse("raw:0x0", &ev, name, sizeof name, err, sizeof err) == MCX_EINVAL);
  CHECK(strstr(err, "zero") != NULL);
  CHECK(mcx_hpc_event_parse("raw:0x11112222333344445", &ev, name, sizeof name, err, sizeof err) ==
        MCX_EINVAL);
  CHECK(strstr(err, "64 bits") != NULL);
  CHECK(mcx_hpc_event_parse("raw:0x2877", &ev, name, sizeof name, err, sizeof err) == MCX_OK);
  CHECK(ev.type == MCX_HPC_TYPE_RAW && ev.config == 0x2877 && !strcmp(ev.name, "raw:0x2877"));
  CHECK(mcx_hpc_event_parse("r4378", &ev, name, sizeof name, NULL, 0) == MCX_OK && ev.config == 0x4378);
  CHECK(mcx_hpc_event_parse("cs", &ev, name, sizeof name, NULL, 0) == MCX_OK &&
        !strcmp(ev.name, "context-switches"));
  CHECK(mcx_hpc_event_parse("ls_any_fills_from_sys.near_cache", &ev, name, sizeof name, NULL, 0) ==
            MCX_OK &&
        ev.config == 0x0444 && ev.uarch == MCX_HPC_UARCH_AMD_ZEN4);
  mcx_hpc_group_t *g;
  CHECK(mcx_hpc_group_create(&g, 0, -1) == MCX_OK);
  mcx_hpc_status_t st = MCX_HPC_OK;
  CHECK(mcx_hpc_group_add(g, "bogus", &st) == MCX_ENOENT && st == MCX_HPC_INVALID);
  CHECK(mcx_hpc_group_add(g, "raw:0xG1", &st) == MCX_EINVAL && st == MCX_HPC_INVALID);
  CHECK(mcx_hpc_group_size(g) == 0);
  mcx_hpc_group_close(g);
  CHECK(mcx_hpc_group_create(&g, -1, -1) == MCX_EINVAL); /* all threads needs a CPU */
  CHECK(mcx_hpc_probe("bogus", 0, -1) == MCX_HPC_INVALID);
}

TEST(cpu_and_tables)
{
  mcx_hpc_cpu_t cpu;
  int rc = mcx_hpc_cpu_detect(&cpu);
  printf("  cpu: %s family 0x%x model 0x%x (%s)%s\n", cpu.vendor, cpu.family, cpu.model,
         mcx_hpc_uarch_name(cpu.uarch), cpu.hypervisor ? ", virtual machine" : "");
  CHECK(rc == MCX_OK || rc == MCX_ENOSYS);
  for (int u = 0; u < MCX_HPC_UARCH_COUNT; u++) {
    size_t n;
    const mcx_hpc_event_t *t = mcx_hpc_event_table((mcx_hpc_uarch_t)u, &n);
    CHECK(t && n > 0);
    for (size_t i = 0; i < n; i++)
      CHECK(t[i].name && t[i].source && t[i].description && strlen(t[i].name) < MCX_HPC_NAME_MAX);
  }
  /* A coherence event of another family is never opened here. */
  const char *foreign = cpu.uarch == MCX_HPC_UARCH_INTEL_CORE2 ? "ls_any_fills_from_sys.near_cache"
                                                               : "EXT_SNOOP.ALL_AGENTS.HITM";
  CHECK(mcx_hpc_probe(foreign, 0, -1) == MCX_HPC_NOT_SUPPORTED);
}

TEST(software_events_probe_ok)
{
  static const char *const sw[] = {"task-clock", "context-switches", "cpu-migrations", "page-faults"};
  for (size_t i = 0; i < 4; i++) {
    mcx_hpc_status_t st = mcx_hpc_probe(sw[i], 0, -1);
    if (st != MCX_HPC_OK)
      printf("  %s: %s\n", sw[i], mcx_hpc_status_name(st));
    CHECK(st == MCX_HPC_OK);
  }
}

TEST(context_switches_of_a_sleeping_thread)
{
  mcx_hpc_group_t *g;
  CHECK(mcx_hpc_group_create(&g, 0, -1) == MCX_OK);
  mcx_hpc_status_t st;
  int cs = mcx_hpc_group_add(g, "context-switches", &st);
  int tc = mcx_hpc_group_add(g, "task-clock", &st);
  CHECK(cs == 0 && tc == 1);
  CHECK(!mcx_hpc_group_user_only(g, 0)); /* kernel-mode counting, or it counts nothing */
  CHECK(mcx_hpc_group_enable(g) == MCX_OK);
  for (int i = 0; i < 5; i++)
    sleep_ms(1); /* each sleep blocks: one voluntary switch at least */
  mcx_hpc_sample_t s;
  CHECK(mcx_hpc_group_read(g, &s) == MCX_OK);
  CHECK(s.v[0].valid && s.v[0].raw >= 5);
  CHECK(s.v[1].valid && s.v[1].raw > 0);
  CHECK(mcx_hpc_group_disable(g) == MCX_OK);
  CHECK(mcx_hpc_group_reset(g) == MCX_OK);
  CHECK(mcx_hpc_group_read(g, &s) == MCX_OK);
  CHECK_EQ_U(s.v[0].raw, 0);
  mcx_hpc_group_close(g);
}

typedef struct sleeper {
  mcx_atomic_u32 tid;
  mcx_atomic_u32 go, done, quit;
} sleeper_t;

static void *sleeper_main(void *p)
{
  sleeper_t *s = p;
  mcx_store_release(&s->tid, mcx_port_tid());
  while (!mcx_load_acquire(&s->go))
    sleep_ms(1);
  for (int i = 0; i < 3; i++)
    sleep_ms(1);
  mcx_store_release(&s->done, 1u);
  while (!mcx_load_acquire(&s->quit))
    sleep_ms(1);
  return NULL;
}

TEST(counting_another_thread)
{
  sleeper_t s = {0};
  pthread_t th;
  CHECK(pthread_create(&th, NULL, sleeper_main, &s) == 0);
  while (!mcx_load_acquire(&s.tid))
    sleep_ms(1);
  mcx_hpc_group_t *g;
  CHECK(mcx_hpc_group_create(&g, (int32_t)mcx_load_acquire(&s.tid), -1) == MCX_OK);
  mcx_hpc_status_t st;
  CHECK(mcx_hpc_group_add(g, "context-switches", &st) == 0 && st == MCX_HPC_OK);
  CHECK(mcx_hpc_group_enable(g) == MCX_OK);
  mcx_store_release(&s.go, 1u);
  while (!mcx_load_acquire(&s.done))
    sleep_ms(1);
  mcx_hpc_sample_t smp;
  CHECK(mcx_hpc_group_read(g, &smp) == MCX_OK);
  CHECK(smp.v[0].valid && smp.v[0].raw >= 3);
  CHECK(!strcmp(mcx_hpc_group_read_path(g), "read")); /* another thread: never rdpmc */
  mcx_store_release(&s.quit, 1u);
  pthread_join(th, NULL);
  mcx_hpc_group_close(g);
  /* A thread that does not exist. */
  CHECK(mcx_hpc_group_create(&g, 0x7ffffff0, -1) == MCX_OK);
  CHECK(mcx_hpc_group_add(g, "task-clock", &st) == 0 && st == MCX_HPC_INVALID);
  mcx_hpc_group_close(g);
}

TEST(page_faults_of_a_fresh_buffer)
{
  const size_t pages = 64;
  long psz = sysconf(_SC_PAGESIZE);
  mcx_hpc_group_t *g;
  CHECK(mcx_hpc_group_create(&g, 0, -1) == MCX_OK);
  mcx_hpc_status_t st;
  CHECK(mcx_hpc_group_add(g, "page-faults", &st) == 0 && st == MCX_HPC_OK);
  unsigned char *buf = mcx_port_map_anon(pages * (size_t)psz);
  CHECK(buf != NULL);
  mcx_hpc_sample_t a, b, d;
  CHECK(mcx_hpc_group_enable(g) == MCX_OK);
  CHECK(mcx_hpc_group_read_fast(g, &a) == MCX_OK);
  for (size_t i = 0; i < pages; i++)
    buf[i * (size_t)psz] = 1; /* first touch of each page */
  CHECK(mcx_hpc_group_read_fast(g, &b) == MCX_OK);
  mcx_hpc_sample_delta(&a, &b, &d);
  CHECK(d.v[0].valid && d.v[0].raw >= pages);
  mcx_port_unmap(buf, pages * (size_t)psz);
  mcx_hpc_group_close(g);
}

TEST(hardware_events_or_skip)
{
  mcx_hpc_status_t st = mcx_hpc_probe("instructions", 0, -1);
  if (st != MCX_HPC_OK) {
    printf("  SKIP hardware counters: instructions is %s here (no usable PMU)\n",
           mcx_hpc_status_name(st));
    CHECK(st == MCX_HPC_NOT_SUPPORTED || st == MCX_HPC_NO_PERMISSION);
    return;
  }
  mcx_hpc_group_t *g;
  CHECK(mcx_hpc_group_create(&g, 0, -1) == MCX_OK);
  mcx_hpc_group_add(g, "instructions", NULL);
  mcx_hpc_group_add(g, "cycles", NULL);
  mcx_hpc_group_enable(g);
  volatile unsigned x = 0;
  for (unsigned i = 0; i < 100000; i++)
    x += i;
  mcx_hpc_sample_t s;
  CHECK(mcx_hpc_group_read_fast(g, &s) == MCX_OK);
  CHECK(s.v[0].valid && s.v[0].raw >= 100000);
  printf("  read path: %s\n", mcx_hpc_group_read_path(g));
  mcx_hpc_group_close(g);
}

TEST(default_group_keeps_what_opens)
{
  mcx_hpc_group_t *g;
  CHECK(mcx_hpc_group_open_default(&g, 0) == MCX_OK);
  unsigned n = mcx_hpc_group_size(g);
  CHECK(n >= 4); /* the software events at least */
  for (unsigned i = 0; i < n; i++)
    CHECK(mcx_hpc_group_status(g, i) == MCX_HPC_OK);
  CHECK(mcx_hpc_group_find(g, "task-clock") >= 0);
  const char *name;
  mcx_hpc_status_t st;
  for (unsigned i = 0; mcx_hpc_group_skipped(g, i, &name, &st) == MCX_OK; i++) {
    printf("  left out: %-40s %s\n", name, mcx_hpc_status_name(st));
    CHECK(st != MCX_HPC_OK);
  }
  mcx_hpc_group_enable(g);
  mcx_hpc_sample_t a, b, d;
  mcx_hpc_group_read(g, &a);
  sleep_ms(2);
  mcx_hpc_group_read(g, &b);
  mcx_hpc_sample_delta(&a, &b, &d);
  char line[1024];
  CHECK(mcx_hpc_format_per_item(g, &d, 1, line, sizeof line) > 0);
  printf("  per item: %s\n", line);
  mcx_hpc_group_close(g);
}

TEST(cost_is_measured)
{
  mcx_hpc_cost_t c;
  CHECK(mcx_hpc_measure_cost(100, &c) == MCX_OK);
  CHECK(c.events > 0 && c.fast_path != NULL);
  CHECK(c.read_ns > 0 && c.open_ns > 0);
}

int main(void)
{
  RUN(event_names_and_codes_give_clear_errors);
  RUN(cpu_and_tables);
  /* No perf_event_open at all (a kernel without perf events, a seccomp
   * filter, or qemu-user, which does not emulate it): nothing to count. */
  if (mcx_hpc_probe("task-clock", 0, -1) == MCX_HPC_NOT_SUPPORTED &&
      mcx_hpc_probe("page-faults", 0, -1) == MCX_HPC_NOT_SUPPORTED) {
    printf("SKIP counting tests: perf_event_open is not supported here (software events too)\n");
    return mcx_test_report();
  }
  RUN(software_events_probe_ok);
  RUN(context_switches_of_a_sleeping_thread);
  RUN(counting_another_thread);
  RUN(page_faults_of_a_fresh_buffer);
  RUN(hardware_events_or_skip);
  RUN(default_group_keeps_what_opens);
  RUN(cost_is_measured);
  return mcx_test_report();
}
