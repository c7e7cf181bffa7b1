/* SPDX-License-Identifier: BSD-3-Clause */
/* Derived metrics, scaling, formatting and the monitor over the mock
 * backend: deterministic on any machine. */
#include "mcx_test.h"

#include <math.h>

#include "common/mcx_err.h"
#include "mcx_hpc.h"

#define MS 1000000ull

static int near(double a, double b) { return fabs(a - b) <= 1e-9 * (fabs(b) + 1.0); }

TEST(derived_metrics_from_scripted_values)
{
  static const mcx_hpc_mock_step_t steps[] = {
      {.t_ns = 0, .values = {0, 0, 0, 0, 0}},
      {.t_ns = 10 * MS, .values = {2000, 1000, 30, 20, 10 * MS}},
  };
  mcx_hpc_mock_t script = {.steps = steps, .nsteps = 2};
  mcx_hpc_group_t *g;
  CHECK(mcx_hpc_group_create_mock(&g, &script) == MCX_OK);
  mcx_hpc_status_t st;
  CHECK(mcx_hpc_group_add(g, "cycles", &st) == 0 && st == MCX_HPC_OK);
  CHECK(mcx_hpc_group_add(g, "instructions", &st) == 1);
  CHECK(mcx_hpc_group_add(g, "EXT_SNOOP.ALL_AGENTS.HITM", &st) == 2);
  CHECK(mcx_hpc_group_add(g, "ext_snoop.all_agents.hit", &st) == 3); /* names are case-insensitive */
  CHECK(mcx_hpc_group_add(g, "task-clock", &st) == 4);
  CHECK(mcx_hpc_group_enable(g) == MCX_OK);
  CHECK(mcx_hpc_group_add(g, "page-faults", &st) == MCX_EBUSY);
  mcx_hpc_sample_t a, b, d;
  CHECK(mcx_hpc_group_read(g, &a) == MCX_OK);
  CHECK(mcx_hpc_group_read(g, &b) == MCX_OK);
  mcx_hpc_sample_delta(&a, &b, &d);
  CHECK_EQ_U(d.t_ns, 10 * MS);
  mcx_hpc_derived_t x;
  CHECK(mcx_hpc_derive(g, &d, 100, 0, &x) == MCX_OK);
  CHECK(x.cpi.valid && near(x.cpi.value, 2.0));
  CHECK(x.coherence_pki.valid && near(x.coherence_pki.value, 50.0)); /* (30+20)/1000*1000 */
  CHECK(x.coherence_per_item.valid && near(x.coherence_per_item.value, 0.5));
  CHECK(x.per_item[0].valid && near(x.per_item[0].value, 20.0));
  CHECK(x.per_period[2].valid && near(x.per_period[2].value, 30.0)); /* dt is one period */
  CHECK(mcx_hpc_derive(g, &d, 0, 5 * MS, &x) == MCX_OK);
  CHECK(!x.per_item[0].valid);                                     /* 0 items: n/a */
  CHECK(x.per_period[2].valid && near(x.per_period[2].value, 15.0)); /* half the interval */
  char line[512];
  CHECK(mcx_hpc_format_per_item(g, &d, 10, line, sizeof line) > 0);
  CHECK(strstr(line, "cycles=200/item") != NULL);
  CHECK(strstr(line, "task-clock=1e+06 ns/item") != NULL);
  mcx_hpc_group_close(g);
}

TEST(unsupported_events_give_na_not_zero)
{
  static const char *const nosup[] = {"cycles", NULL};
  static const char *const noperm[] = {"EXT_SNOOP.ALL_AGENTS.HITM", NULL};
  static const mcx_hpc_mock_step_t steps[] = {
      {.t_ns = 0},
      {.t_ns = 10 * MS, .values = {0, 1000, 0, 7}},
  };
  mcx_hpc_mock_t script = {.steps = steps, .nsteps = 2, .not_supported = nosup, .no_permission = noperm};
  mcx_hpc_group_t *g;
  CHECK(mcx_hpc_group_create_mock(&g, &script) == MCX_OK);
  mcx_hpc_status_t st;
  CHECK(mcx_hpc_group_add(g, "cycles", &st) == 0 && st == MCX_HPC_NOT_SUPPORTED);
  CHECK(mcx_hpc_group_add(g, "instructions", &st) == 1 && st == MCX_HPC_OK);
  CHECK(mcx_hpc_group_add(g, "EXT_SNOOP.ALL_AGENTS.HITM", &st) == 2 && st == MCX_HPC_NO_PERMISSION);
  CHECK(mcx_hpc_group_add(g, "context-switches", &st) == 3 && st == MCX_HPC_OK);
  mcx_hpc_sample_t a, b, d;
  mcx_hpc_group_read(g, &a);
  mcx_hpc_group_read(g, &b);
  mcx_hpc_sample_delta(&a, &b, &d);
  CHECK(!d.v[0].valid && !d.v[2].valid && d.v[1].valid);
  mcx_hpc_derived_t x;
  mcx_hpc_derive(g, &d, 10, 0, &x);
  CHECK(!x.cpi.valid);           /* cycles missing */
  CHECK(!x.coherence_pki.valid); /* no coherence event counted */
  CHECK(!x.coherence_per_item.valid);
  char buf[64], line[512];
  CHECK(!strcmp(mcx_hpc_format_metric(x.cpi, buf, sizeof buf), "n/a"));
  mcx_hpc_format_per_item(g, &d, 10, line, sizeof line);
  CHECK(strstr(line, "cycles=n/a(NOT_SUPPORTED)") != NULL);
  CHECK(strstr(line, "EXT_SNOOP.ALL_AGENTS.HITM=n/a(NO_PERMISSION)") != NULL);
  CHECK(strstr(line, "context-switches=0.7/item") != NULL);
  /* A short buffer truncates without overflowing. */
  char tiny[16];
  CHECK(mcx_hpc_format_per_item(g, &d, 10, tiny, sizeof tiny) == (int)sizeof tiny - 1);
  CHECK(strlen(tiny) == sizeof tiny - 1);
  mcx_hpc_group_close(g);
}

TEST(multiplexed_values_are_scaled)
{
  static const mcx_hpc_mock_step_t steps[] = {
      {.t_ns = 10 * MS, .values = {100}, .enabled_ns = 2 * MS, .running_ns = 1 * MS},
      {.t_ns = 20 * MS, .values = {100}, .enabled_ns = 4 * MS, .running_ns = 0},
  };
  mcx_hpc_mock_t script = {.steps = steps, .nsteps = 2};
  mcx_hpc_group_t *g;
  CHECK(mcx_hpc_group_create_mock(&g, &script) == MCX_OK);
  mcx_hpc_group_add(g, "instructions", NULL);
  mcx_hpc_sample_t s;
  mcx_hpc_group_read(g, &s);
  CHECK(s.v[0].valid && s.v[0].raw == 100 && near(s.v[0].scaled, 200.0));
  mcx_hpc_group_read(g, &s); /* never on a counter: no value */
  CHECK(!s.v[0].valid);
  mcx_hpc_group_close(g);
}

typedef struct alerts {
  unsigned n;
  uint64_t period[8];
  int rising[8];
  double value[8];
} alerts_t;

static void record(const mcx_hpc_alert_t *a, void *user)
{
  alerts_t *r = user;
  if (r->n < 8) {
    r->period[r->n] = a->period;
    r->rising[r->n] = a->rising;
    r->value[r->n] = a->value;
  }
  r->n++;
}

TEST(monitor_fires_on_threshold_crossings)
{
  /* Per-period increments 5, 50, 60, 10, 80 against a threshold of 40: up at
   * period 2, down at 4, up at 5. Period 3's tick came 20 ms late (one
   * 30 ms interval): 60 events in 30 ms is 20 per 10 ms, below the line. */
  static const mcx_hpc_mock_step_t steps[] = {
      {.t_ns = 0, .values = {0, 0}},
      {.t_ns = 10 * MS, .values = {5, 1}},
      {.t_ns = 20 * MS, .values = {55, 2}},
      {.t_ns = 50 * MS, .values = {115, 3}},
      {.t_ns = 60 * MS, .values = {125, 4}},
      {.t_ns = 70 * MS, .values = {205, 5}},
  };
  mcx_hpc_mock_t script = {.steps = steps, .nsteps = 6};
  mcx_hpc_group_t *g;
  CHECK(mcx_hpc_group_create_mock(&g, &script) == MCX_OK);
  mcx_hpc_group_add(g, "EXT_SNOOP.ALL_AGENTS.HITM", NULL);
  mcx_hpc_group_add(g, "context-switches", NULL);
  alerts_t r = {0};
  mcx_hpc_threshold_t thr = {.event = 0, .per_period = 40.0};
  mcx_hpc_monitor_config_t cfg = {.thresholds = &thr, .nthresholds = 1, .on_alert = record, .user = &r};
  mcx_hpc_monitor_t *m;
  CHECK(mcx_hpc_monitor_create(&m, g, &cfg) == MCX_OK);
  for (int i = 0; i < 5; i++)
    CHECK(mcx_hpc_monitor_step(m) == MCX_OK);
  CHECK_EQ_U(mcx_hpc_monitor_periods(m), 5);
  CHECK_EQ_U(r.n, 3);
  CHECK_EQ_U(mcx_hpc_monitor_alerts(m), 3);
  CHECK(r.period[0] == 2 && r.rising[0] == 1 && near(r.value[0], 50.0));
  CHECK(r.period[1] == 3 && r.rising[1] == 0 && near(r.value[1], 20.0));
  CHECK(r.period[2] == 5 && r.rising[2] == 1 && near(r.value[2], 80.0));
  mcx_hpc_monitor_destroy(m);
  mcx_hpc_group_close(g);
}

TEST(monitor_rejects_bad_config)
{
  mcx_hpc_mock_t script = {0};
  mcx_hpc_group_t *g;
  CHECK(mcx_hpc_group_create_mock(&g, &script) == MCX_OK);
  mcx_hpc_group_add(g, "cycles", NULL);
  mcx_hpc_threshold_t thr = {.event = 1, .per_period = 1};
  mcx_hpc_monitor_config_t cfg = {.thresholds = &thr, .nthresholds = 1};
  mcx_hpc_monitor_t *m;
  CHECK(mcx_hpc_monitor_create(&m, g, &cfg) == MCX_EINVAL); /* no event 1 */
  cfg.nthresholds = 1;
  cfg.thresholds = NULL;
  CHECK(mcx_hpc_monitor_create(&m, g, &cfg) == MCX_EINVAL);
  mcx_hpc_group_close(g);
}

TEST(monitor_thread_samples_periodically)
{
  /* A jump at the first period, then the script repeats its last step (no
   * new events): one rising and one falling alert, whatever the timing. */
  static const mcx_hpc_mock_step_t steps[] = {
      {.t_ns = 0, .values = {0}},
      {.t_ns = 10 * MS, .values = {1000}},
      {.t_ns = 20 * MS, .values = {1000}},
  };
  mcx_hpc_mock_t script = {.steps = steps, .nsteps = 3};
  mcx_hpc_group_t *g;
  CHECK(mcx_hpc_group_create_mock(&g, &script) == MCX_OK);
  mcx_hpc_group_add(g, "context-switches", NULL);
  alerts_t r = {0};
  mcx_hpc_threshold_t thr = {.event = 0, .per_period = 10.0};
  mcx_hpc_monitor_config_t cfg = {.period_ns = 1 * MS, .thresholds = &thr, .nthresholds = 1,
                                  .on_alert = record, .user = &r};
  mcx_hpc_monitor_t *m;
  CHECK(mcx_hpc_monitor_create(&m, g, &cfg) == MCX_OK);
  CHECK(mcx_hpc_monitor_start(m) == MCX_OK);
  CHECK(mcx_hpc_monitor_start(m) == MCX_EBUSY);
  double deadline = mcx_test_now() + mcx_test_ceiling_ms(20000) / 1000.0; /* a bound against hangs */
  while (mcx_hpc_monitor_periods(m) < 4 && mcx_test_now() < deadline) {
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
  }
  mcx_hpc_monitor_stop(m);
  CHECK(mcx_hpc_monitor_periods(m) >= 4);
  CHECK_EQ_U(r.n, 2);
  CHECK(r.rising[0] == 1 && r.period[0] == 1);
  CHECK(r.rising[1] == 0 && r.period[1] == 2);
  mcx_hpc_monitor_destroy(m);
  mcx_hpc_group_close(g);
}

int main(void)
{
  RUN(derived_metrics_from_scripted_values);
  RUN(unsupported_events_give_na_not_zero);
  RUN(multiplexed_values_are_scaled);
  RUN(monitor_fires_on_threshold_crossings);
  RUN(monitor_rejects_bad_config);
  RUN(monitor_thread_samples_periodically);
  return mcx_test_report();
}
