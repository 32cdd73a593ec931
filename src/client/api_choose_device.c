/*
 * api_choose_device.c - hipChooseDevice: the device that best matches the
 * fields the caller set in a hipDeviceProp_t, from the properties cached at
 * connect.
 *
 * A zero field means "don't care" (callers memset the struct and fill what
 * they need). A device scores one point for each set field it satisfies:
 * capacities at least what is asked (memory, shared memory, threads, compute
 * units, clock), the compute capability at least major.minor, the name or
 * gcnArchName as a prefix. The highest score wins; ties go to the lowest
 * ordinal, so the choice is stable.
 */
#include <string.h>

#include "client.h"

static int at_least(long long have, long long want)
{
    return want != 0 && have >= want;
}

static int prefix(const char *have, const char *want)
{
    return want[0] != '\0' && strncmp(have, want, strnlen(want, 256)) == 0;
}

static int score(const struct hipr_devinfo *d, const hipDeviceProp_t *p)
{
    int s = 0;
    s += at_least((long long)d->total_global_mem, (long long)p->totalGlobalMem);
    s += at_least((long long)d->shared_mem_per_block, (long long)p->sharedMemPerBlock);
    s += at_least(d->max_threads_per_block, p->maxThreadsPerBlock);
    s += at_least(d->multiprocessor_count, p->multiProcessorCount);
    s += at_least(d->clock_rate_khz, p->clockRate);
    s += at_least(d->regs_per_block, p->regsPerBlock);
    if (p->major != 0 && (d->major > p->major || (d->major == p->major && d->minor >= p->minor)))
        s++;
    s += prefix(d->name, p->name);
    s += prefix(d->arch_name, p->gcnArchName);
    return s;
}

static hipError_t choose(int *device, const hipDeviceProp_t *prop)
{
    hipError_t err;
    struct hw_conn *c = hw_conn_get(&err);
    if (!device || !prop)
        return hipErrorInvalidValue;
    if (!c)
        return err;
    if (c->device_count == 0)
        return hipErrorNoDevice;
    int best = 0, best_score = -1;
    for (int i = 0; i < c->device_count; i++) {
        int s = score(&c->devs[i], prop);
        if (s > best_score) {
            best = i;
            best_score = s;
        }
    }
    *device = best;
    return hipSuccess;
}

#if HIP_VERSION_MAJOR >= 6
/* HIP 6 maps hipChooseDevice to the R0600 layout; R0000 (and the plain
 * name, which the generated table forwards to it) takes the old one. Both
 * carry the fields scored above under the same names. */
HW_EXPORT hipError_t hipChooseDeviceR0600(int *device, const hipDeviceProp_tR0600 *prop)
{
    return hw_ret(choose(device, prop));
}

HW_EXPORT hipError_t hipChooseDeviceR0000(int *device, const hipDeviceProp_tR0000 *prop)
{
    if (!prop)
        return hw_ret(hipErrorInvalidValue);
    hipDeviceProp_tR0600 p;
    memset(&p, 0, sizeof p);
    memcpy(p.name, prop->name,
           sizeof p.name < sizeof prop->name ? sizeof p.name : sizeof prop->name);
    p.name[sizeof p.name - 1] = '\0';
    memcpy(p.gcnArchName, prop->gcnArchName,
           sizeof p.gcnArchName < sizeof prop->gcnArchName ? sizeof p.gcnArchName
                                                           : sizeof prop->gcnArchName);
    p.gcnArchName[sizeof p.gcnArchName - 1] = '\0';
    p.totalGlobalMem = prop->totalGlobalMem;
    p.sharedMemPerBlock = prop->sharedMemPerBlock;
    p.maxThreadsPerBlock = prop->maxThreadsPerBlock;
    p.multiProcessorCount = prop->multiProcessorCount;
    p.clockRate = prop->clockRate;
    p.regsPerBlock = prop->regsPerBlock;
    p.major = prop->major;
    p.minor = prop->minor;
    return hw_ret(choose(device, &p));
}
#else
HW_EXPORT hipError_t hipChooseDevice(int *device, const hipDeviceProp_t *prop)
{
    return hw_ret(choose(device, prop));
}
#endif
