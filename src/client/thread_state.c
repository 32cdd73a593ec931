/*
 * thread_state.c - what HIP keeps per thread: the current device and the
 * last error. Never shared, never sent anywhere.
 */
#include "client.h"

static _Thread_local int tls_device;
static _Thread_local hipError_t tls_last_error;

int hw_current_device(void)
{
    return tls_device;
}

void hw_set_current_device(int dev)
{
    tls_device = dev;
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
