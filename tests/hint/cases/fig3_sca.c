/* The sensor-controller-actuator example of the next-semaphore scheme
 * (EMERALDS, figure 3). The sensor (low priority) writes a reading into the
 * plant record under plant_lock and signals it; the controller (high
 * priority) waits for the signal, then locks plant_lock to turn the reading
 * into a command, which it hands to the actuator. Written the plain way:
 * `mca hint` rewrites the controller's wait into mcx_event_wait_then_lock
 * (fig3_sca.fixed.c), and tests/hint/fig3_driver.c runs both forms. */
#include <stdatomic.h>

#include <mcx_sem.h>

mcx_event_t sensor_ready;
mcx_pisem_t plant_lock;
struct plant {
  int reading;
  int command;
} plant;
int actuator_output;
atomic_int controller_rounds;

static int control_law(int reading) { return reading / 2 + 1; }
static void actuate(int command) { actuator_output = command; }

void sca_init(void)
{
  mcx_event_init(&sensor_ready, 0);
  mcx_pisem_init(&plant_lock, 0);
}

/* One sensor period: the reading is published while plant_lock is held. */
void sca_sensor_period(int sample)
{
  mcx_pisem_lock(&plant_lock, MCX_SEM_INFINITE);
  plant.reading = sample;
  mcx_event_post(&sensor_ready);
  mcx_pisem_unlock(&plant_lock);
}

/* The controller: one command per reading. */
void sca_controller(int periods)
{
  for (int n = 0; n < periods; n++) {
    mcx_event_wait(&sensor_ready, MCX_SEM_INFINITE);
    mcx_pisem_lock(&plant_lock, MCX_SEM_INFINITE);
    plant.command = control_law(plant.reading);
    mcx_pisem_unlock(&plant_lock);
    actuate(plant.command);
    atomic_store_explicit(&controller_rounds, n + 1, memory_order_release);
  }
}
