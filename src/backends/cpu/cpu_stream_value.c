/*
 * cpu_stream_value.c - hipStreamWriteValue* and hipStreamWaitValue* on the
 * CPU device.
 *
 * Both are ops of the stream's queue, run by the stream's own thread. A wait
 * polls the word there: only its stream stops, the device's other streams
 * (whose threads may be the ones to write the word) run on. Polling backs off
 * from a yield to sleeps of about 0.1 ms, so a long wait costs little CPU
 * and a short one little latency.
 */
#include <sched.h>
#include <stdlib.h>
#include <time.h>

#include "cpu_internal.h"

#define POLL_SLEEP_MAX_NS 100000L

static int queue_value_op(struct hw_bstream *s, enum cpu_op_kind kind, uint64_t dptr,
                          uint64_t value, uint64_t mask, uint32_t width, uint32_t op,
                          const int *cancel)
{
    if (width != 4 && width != 8)
        return HW_EINVAL;
    struct cpu_op *o = cpu_op_new(kind, 0);
    if (!o)
        return HW_ENOMEM;
    o->u.value.addr = (void *)(uintptr_t)dptr;
    o->u.value.value = value;
    o->u.value.mask = mask;
    o->u.value.width = width;
    o->u.value.op = op;
    o->u.value.cancel = cancel;
    return cpu_stream_submit(s, o);
}

int cpu_stream_write_value(struct hw_backend *be, struct hw_bstream *s, uint64_t dptr,
                           uint64_t value, uint32_t width)
{
    (void)be;
    return queue_value_op(s, CPU_OP_WRITE_VALUE, dptr, value, 0, width, 0, NULL);
}

int cpu_stream_wait_value(struct hw_backend *be, struct hw_bstream *s, uint64_t dptr,
                          uint64_t value, uint64_t mask, uint32_t width, uint32_t op,
                          const int *cancel)
{
    (void)be;
    if (op > HIPR_WAIT_VALUE_NOR)
        return HW_EINVAL;
    return queue_value_op(s, CPU_OP_WAIT_VALUE, dptr, value, mask, width, op, cancel);
}

/* The word is read and written atomically: a kernel or another stream's
 * write may touch it at any moment. */
static uint64_t load_word(const struct cpu_op *op)
{
    if (op->u.value.width == 4)
        return __atomic_load_n((uint32_t *)op->u.value.addr, __ATOMIC_ACQUIRE);
    return __atomic_load_n((uint64_t *)op->u.value.addr, __ATOMIC_ACQUIRE);
}

void cpu_run_value_op(const struct cpu_op *op)
{
    if (op->kind == CPU_OP_WRITE_VALUE) {
        if (op->u.value.width == 4)
            __atomic_store_n((uint32_t *)op->u.value.addr, (uint32_t)op->u.value.value,
                             __ATOMIC_RELEASE);
        else
            __atomic_store_n((uint64_t *)op->u.value.addr, op->u.value.value, __ATOMIC_RELEASE);
        return;
    }
    long sleep_ns = 0;
    while (!hw_wait_value_met(load_word(op), op->u.value.value, op->u.value.mask, op->u.value.width,
                              op->u.value.op)) {
        if (op->u.value.cancel && __atomic_load_n(op->u.value.cancel, __ATOMIC_ACQUIRE))
            return;
        if (sleep_ns == 0) {
            sched_yield();
            sleep_ns = 1000;
            continue;
        }
        struct timespec ts = { 0, sleep_ns };
        nanosleep(&ts, NULL);
        if (sleep_ns < POLL_SLEEP_MAX_NS)
            sleep_ns *= 2;
    }
}
