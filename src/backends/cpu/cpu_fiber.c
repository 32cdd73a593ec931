/*
 * cpu_fiber.c - fiber context switch for x86-64 (System V) and AArch64
 * (AAPCS64): only the callee-saved registers cross a call, so only they are
 * saved. Floating-point control state (MXCSR, FPCR) is shared by all fibers
 * of a thread, as kernels do not change it.
 */
#include <stdint.h>
#include <sys/mman.h>

#include "cpu_fiber.h"

#if defined(__x86_64__)
/* Frame: r15 r14 r13 r12 rbx rbp, then the return address. A new fiber
 * "returns" into fiber_entry with r12 = arg and r13 = fn. */
__asm__(".text\n"
        ".globl hw_fiber_switch\n"
        ".hidden hw_fiber_switch\n"
        ".type hw_fiber_switch,@function\n"
        "hw_fiber_switch:\n"
        "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
        "  movq %rsp, (%rdi)\n"
        "  movq %rsi, %rsp\n"
        "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbx\n  popq %rbp\n"
        "  ret\n"
        ".size hw_fiber_switch, .-hw_fiber_switch\n"
        ".type hw_fiber_entry,@function\n"
        "hw_fiber_entry:\n"
        "  movq %r12, %rdi\n"
        "  callq *%r13\n"
        "  ud2\n"
        ".size hw_fiber_entry, .-hw_fiber_entry\n");
#define FRAME_WORDS 7

void *hw_fiber_prepare(void *top, void (*fn)(void *), void *arg)
{
    extern char hw_fiber_entry[] __attribute__((visibility("hidden")));
    /* After the six pops and ret, rsp is top: 16-byte aligned before the call. */
    uintptr_t *sp = (uintptr_t *)((uintptr_t)top & ~(uintptr_t)15) - FRAME_WORDS;
    sp[0] = 0;              /* r15 */
    sp[1] = 0;              /* r14 */
    sp[2] = (uintptr_t)fn;  /* r13 */
    sp[3] = (uintptr_t)arg; /* r12 */
    sp[4] = 0;              /* rbx */
    sp[5] = 0;              /* rbp: the end of the frame chain */
    sp[6] = (uintptr_t)hw_fiber_entry;
    return sp;
}
#elif defined(__aarch64__)
/* Frame (176 bytes): x19..x30 then d8..d15. A new fiber "returns" (x30)
 * into fiber_entry with x19 = arg and x20 = fn. */
__asm__(".text\n"
        ".globl hw_fiber_switch\n"
        ".hidden hw_fiber_switch\n"
        ".type hw_fiber_switch,%function\n"
        "hw_fiber_switch:\n"
        "  sub sp, sp, #176\n"
        "  stp x19, x20, [sp, #0]\n  stp x21, x22, [sp, #16]\n  stp x23, x24, [sp, #32]\n"
        "  stp x25, x26, [sp, #48]\n  stp x27, x28, [sp, #64]\n  stp x29, x30, [sp, #80]\n"
        "  stp d8, d9, [sp, #96]\n  stp d10, d11, [sp, #112]\n"
        "  stp d12, d13, [sp, #128]\n  stp d14, d15, [sp, #144]\n"
        "  mov x2, sp\n  str x2, [x0]\n  mov sp, x1\n"
        "  ldp x19, x20, [sp, #0]\n  ldp x21, x22, [sp, #16]\n  ldp x23, x24, [sp, #32]\n"
        "  ldp x25, x26, [sp, #48]\n  ldp x27, x28, [sp, #64]\n  ldp x29, x30, [sp, #80]\n"
        "  ldp d8, d9, [sp, #96]\n  ldp d10, d11, [sp, #112]\n"
        "  ldp d12, d13, [sp, #128]\n  ldp d14, d15, [sp, #144]\n"
        "  add sp, sp, #176\n"
        "  ret\n"
        ".size hw_fiber_switch, .-hw_fiber_switch\n"
        ".type hw_fiber_entry,%function\n"
        "hw_fiber_entry:\n"
        "  mov x0, x19\n"
        "  blr x20\n"
        "  brk #0\n"
        ".size hw_fiber_entry, .-hw_fiber_entry\n");

void *hw_fiber_prepare(void *top, void (*fn)(void *), void *arg)
{
    extern char hw_fiber_entry[] __attribute__((visibility("hidden")));
    uint64_t *sp = (uint64_t *)(((uintptr_t)top & ~(uintptr_t)15) - 176);
    for (int i = 0; i < 22; i++)
        sp[i] = 0;
    sp[0] = (uint64_t)(uintptr_t)arg;             /* x19 */
    sp[1] = (uint64_t)(uintptr_t)fn;              /* x20 */
    sp[11] = (uint64_t)(uintptr_t)hw_fiber_entry; /* x30 */
    return sp;
}
#else
#error "the CPU device's fibers need x86-64 or AArch64 (src/backends/cpu/cpu_fiber.c)"
#endif

void *hw_fiber_stack_alloc(size_t size)
{
    /* Twice the size, then trim, for alignment to the size. */
    char *p = mmap(NULL, 2 * size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    char *base = (char *)(((uintptr_t)p + size - 1) & ~(uintptr_t)(size - 1));
    if (base > p)
        munmap(p, (size_t)(base - p));
    if (base + size < p + 2 * size)
        munmap(base + size, (size_t)(p + 2 * size - (base + size)));
    if (mprotect(base, 4096, PROT_NONE) < 0) {
        munmap(base, size);
        return NULL;
    }
    return base;
}

void hw_fiber_stack_free(void *base, size_t size)
{
    munmap(base, size);
}
