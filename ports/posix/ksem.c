/* SPDX-License-Identifier: BSD-3-Clause */
/* The kernel locking mode's lock: one System V semaphore per domain. */
#include <errno.h>
#include <sys/ipc.h>
#include <sys/sem.h>

#include "common/mcx_err.h"
#include "ports/mcx_port_ksem.h"

/* Linux wants the caller to define it (see semctl(2)). */
union ksem_arg {
  int val;
  struct semid_ds *buf;
  unsigned short *array;
};

int mcx_port_ksem_create(int32_t *id)
{
  int s = semget(IPC_PRIVATE, 1, IPC_CREAT | IPC_EXCL | 0600);
  if (s < 0)
    return errno == ENOSPC || errno == ENOMEM ? MCX_ENOMEM : MCX_EIO;
  union ksem_arg a = {.val = 1};
  if (semctl(s, 0, SETVAL, a) < 0) {
    semctl(s, 0, IPC_RMID);
    return MCX_EIO;
  }
  *id = s;
  return MCX_OK;
}

static _Thread_local uint64_t semop_calls;
uint64_t mcx_port_ksem_calls(void) { return semop_calls; }

static void op(int32_t id, short delta)
{
  semop_calls++;
  /* SEM_UNDO: the kernel gives the semaphore back when the holder's process exits. */
  struct sembuf b = {.sem_num = 0, .sem_op = delta, .sem_flg = SEM_UNDO};
  while (semop(id, &b, 1) < 0 && errno == EINTR) {
  }
}

void mcx_port_ksem_lock(int32_t id) { op(id, -1); }
void mcx_port_ksem_unlock(int32_t id) { op(id, 1); }

void mcx_port_ksem_destroy(int32_t id)
{
  if (id >= 0)
    semctl(id, 0, IPC_RMID);
}
