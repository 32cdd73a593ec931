/*
 * cpu_fiber.h - the context switch of the CPU device's block scheduler.
 *
 * A fiber is a stack and a saved stack pointer; switching saves the
 * callee-saved registers on the old stack and restores them from the new
 * one, which is all a call boundary needs (ucontext also saves the signal
 * mask with a system call, ~1 us a switch).
 */
#ifndef CPU_FIBER_H
#define CPU_FIBER_H

#include <stddef.h>

/* Saves the current context in *save_sp and resumes the one at to_sp. */
void hw_fiber_switch(void **save_sp, void *to_sp);

/* A stack pointer that, switched to, calls fn(arg) on the stack below top
 * (16-byte aligned). fn must never return: it switches away for good. */
void *hw_fiber_prepare(void *top, void (*fn)(void *), void *arg);

/* size bytes aligned to size (a power of two), with a guard page at the
 * low end so an overflow faults instead of writing the next stack. NULL on
 * failure. */
void *hw_fiber_stack_alloc(size_t size);
void hw_fiber_stack_free(void *base, size_t size);

#endif
