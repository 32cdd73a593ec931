/*
 * thread_state.c - what HIP keeps per thread: the current device, the last
 * error and the context stack. Never shared, never sent anywhere.
 */
#include "client.h"

static _Thread_local int tls_device;
static _Thread_local hipError_t tls_last_error;
/* Contexts are devices (as in AMD's runtime), so the stack holds ordinals. */
static _Thread_local int tls_ctx_stack[HW_CTX_STACK_MAX];
static _Thread_local int tls_ctx_depth;

int hw_current_device(void)
{
    return tls_device;
}

void hw_set_current_device(int dev)
{
    tls_device = dev;
}

int hw_ctx_push(int dev)
{
    if (tls_ctx_depth == HW_CTX_STACK_MAX)
        return -1;
    tls_ctx_stack[tls_ctx_depth++] = dev;
    return 0;
}

int hw_ctx_pop(int *dev)
{
    if (tls_ctx_depth == 0)
        return -1;
    *dev = tls_ctx_stack[--tls_ctx_depth];
    return 0;
}

int hw_ctx_top(int *dev)
{
    if (tls_ctx_depth == 0)
        return -1;
    *dev = tls_ctx_stack[tls_ctx_depth - 1];
    return 0;
}

hipError_t hw_ret(hipError_t err)
{
    if (err != hipSuccess)
        tls_last_error = err;
    return err;
}

/* HIP: returns the last error of this thread (or a deferred asynchronous
 * error the worker reported) and resets it. */
HW_EXPORT hipError_t hipGetLastError(void)
{
    hipError_t e = tls_last_error;
    tls_last_error = hipSuccess;
    if (e == hipSuccess) {
        hipError_t cerr;
        struct hw_conn *c = hw_conn_get(&cerr);
        if (c)
            e = hw_take_async_error(c);
    }
    return e;
}

HW_EXPORT hipError_t hipPeekAtLastError(void)
{
    hipError_t e = tls_last_error;
    if (e == hipSuccess) {
        hipError_t cerr;
        struct hw_conn *c = hw_conn_get(&cerr);
        if (c)
            e = (hipError_t)__atomic_load_n(&c->async_error, __ATOMIC_ACQUIRE);
    }
    return e;
}
