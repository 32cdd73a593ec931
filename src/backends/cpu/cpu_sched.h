/*
 * cpu_sched.h - the block scheduler that runs ABI 2 (fiber) kernels:
 * blocks spread over a pool of threads, the threads of a block as fibers of
 * one of them (docs/hip-source.md).
 */
#ifndef CPU_SCHED_H
#define CPU_SCHED_H

#include <stdint.h>

#include "hipwire/cpu_kernel.h"

/* Runs a whole launch and returns when every block has finished. A kernel
 * that faults ends the session process (with a log line); one that runs past
 * HIPWIRE_CPU_KERNEL_TIMEOUT seconds (the worker's environment) too. 0, or
 * -1 when the pool or the fibers cannot be made. */
/* owner names the backend (session) the launch belongs to. */
int cpu_sched_launch(const struct hipwire_cpu_kernel *k, const uint32_t grid[3],
                     const uint32_t block[3], uint32_t shared_mem, const void *args,
                     const void *owner);

/* At the end of owner's session: a launch of owner's still running after a
 * short grace ends the process there, as nothing can stop a kernel that
 * never yields; with shared set (other sessions live in this process,
 * --isolation shared) it is waited for instead, and only its own: a
 * launch of another session is no reason to wait or to end. */
void cpu_sched_session_end(const void *owner, int shared);

/* The number of pool threads (blocks that run at once): the cores, or
 * HIPWIRE_CPU_THREADS. */
int cpu_sched_threads(void);

#endif
