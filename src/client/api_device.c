/*
 * api_device.c - devices and versions. Everything but synchronize, reset
 * and memory info is answered from what the worker sent at connect.
 */
#include <stdio.h>
#include <string.h>

#include "client.h"

static hipError_t check_device(struct hw_conn *c, int dev)
{
    return dev >= 0 && dev < c->device_count ? hipSuccess : hipErrorInvalidDevice;
}

/* The common start of a device query: an out-param that must not be NULL, a
 * connection, a valid device. NULL with the error to return otherwise. */
static struct hw_conn *enter_device(const void *out, int dev, hipError_t *err)
{
    struct hw_conn *c = hw_conn_get(err);
    if (!out) {
        *err = hipErrorInvalidValue;
        return NULL;
    }
    if (!c)
        return NULL;
    if ((*err = check_device(c, dev)) != hipSuccess)
        return NULL;
    return c;
}

HW_EXPORT hipError_t hipInit(unsigned int flags)
{
    hipError_t err;
    if (flags != 0)
        return hw_ret(hipErrorInvalidValue);
    return hw_conn_get(&err) ? hipSuccess : hw_ret(err);
}

HW_EXPORT hipError_t hipDriverGetVersion(int *version)
{
    hipError_t err;
    struct hw_conn *c = hw_conn_get(&err);
    if (!version)
        return hw_ret(hipErrorInvalidValue);
    if (!c)
        return hw_ret(err);
    /* The worker's runtime version, when it has one, else this header's. */
    *version = c->driver_version ? c->driver_version : HIP_VERSION;
    return hipSuccess;
}

HW_EXPORT hipError_t hipRuntimeGetVersion(int *version)
{
    if (!version)
        return hw_ret(hipErrorInvalidValue);
    /* The API this library implements is the one of the headers it was
     * built against, whatever the worker runs. */
    *version = HIP_VERSION;
    return hipSuccess;
}

HW_EXPORT hipError_t hipGetDeviceCount(int *count)
{
    hipError_t err;
    struct hw_conn *c = hw_conn_get(&err);
    if (!count)
        return hw_ret(hipErrorInvalidValue);
    if (!c)
        return hw_ret(err);
    *count = c->device_count;
    return c->device_count ? hipSuccess : hw_ret(hipErrorNoDevice);
}

HW_EXPORT hipError_t hipGetDevice(int *device)
{
    if (!device)
        return hw_ret(hipErrorInvalidValue);
    /* Without a worker the answer is the thread's choice; with one that
     * shows the application no device (HIP_VISIBLE_DEVICES), there is none
     * to be current, as AMD says. */
    hipError_t err;
    struct hw_conn *c = hw_conn_get(&err);
    if (c && c->device_count == 0)
        return hw_ret(hipErrorNoDevice);
    *device = hw_current_device();
    return hipSuccess;
}

HW_EXPORT hipError_t hipSetDevice(int device)
{
    hipError_t err;
    struct hw_conn *c = hw_conn_get(&err);
    if (!c)
        return hw_ret(err);
    if (c->device_count == 0)
        return hw_ret(hipErrorNoDevice); /* AMD: no device to choose from */
    if ((err = check_device(c, device)) != hipSuccess)
        return hw_ret(err);
    hw_set_current_device(device);
    return hipSuccess;
}

HW_EXPORT hipError_t hipDeviceGet(hipDevice_t *device, int ordinal)
{
    hipError_t err;
    struct hw_conn *c = enter_device(device, ordinal, &err);
    if (!c)
        return hw_ret(err);
    *device = ordinal;
    return hipSuccess;
}

/* HIP 6 changed hipDeviceProp_t (R0600) and made hipGetDeviceProperties a
 * macro for hipGetDevicePropertiesR0600; the library keeps the old layout
 * as hipGetDevicePropertiesR0000 (and under the plain name, which the
 * generated table forwards to it). Each build fills the layouts its headers
 * declare. */
#if HIP_VERSION_MAJOR >= 6
HW_EXPORT hipError_t hipGetDevicePropertiesR0600(hipDeviceProp_tR0600 *prop, int device)
{
    hipError_t err;
    struct hipr_devattr e;
    struct hw_conn *c = enter_device(prop, device, &err);
    if (!c)
        return hw_ret(err);
    if ((err = hw_device_attrs(c, device, &e)) != hipSuccess)
        return hw_ret(err);
    *prop = c->props[device];
    hw_props_add_devattr(&e, prop);
    return hipSuccess;
}

HW_EXPORT hipError_t hipGetDevicePropertiesR0000(hipDeviceProp_tR0000 *prop, int device)
{
    hipError_t err;
    struct hipr_devattr e;
    struct hw_conn *c = enter_device(prop, device, &err);
    if (!c)
        return hw_ret(err);
    if ((err = hw_device_attrs(c, device, &e)) != hipSuccess)
        return hw_ret(err);
    hw_props_r0000_from_devinfo(&c->devs[device], &e, prop);
    return hipSuccess;
}
#else
HW_EXPORT hipError_t hipGetDeviceProperties(hipDeviceProp_t *prop, int device)
{
    hipError_t err;
    struct hipr_devattr e;
    struct hw_conn *c = enter_device(prop, device, &err);
    if (!c)
        return hw_ret(err);
    if ((err = hw_device_attrs(c, device, &e)) != hipSuccess)
        return hw_ret(err);
    *prop = c->props[device];
    hw_props_add_devattr(&e, prop);
    return hipSuccess;
}
#endif

HW_EXPORT hipError_t hipDeviceGetAttribute(int *value, hipDeviceAttribute_t attr, int device)
{
    hipError_t err;
    struct hw_conn *c = enter_device(value, device, &err);
    if (!c)
        return hw_ret(err);
    return hw_ret(hw_device_attribute(c, device, attr, value));
}

HW_EXPORT hipError_t hipDeviceGetName(char *name, int len, hipDevice_t device)
{
    hipError_t err;
    struct hw_conn *c = hw_conn_get(&err);
    if (!name || len <= 0)
        return hw_ret(hipErrorInvalidValue);
    if (!c)
        return hw_ret(err);
    if ((err = check_device(c, device)) != hipSuccess)
        return hw_ret(err);
    strncpy(name, c->props[device].name, (size_t)len - 1);
    name[len - 1] = '\0';
    return hipSuccess;
}

HW_EXPORT hipError_t hipDeviceTotalMem(size_t *bytes, hipDevice_t device)
{
    hipError_t err;
    struct hw_conn *c = enter_device(bytes, device, &err);
    if (!c)
        return hw_ret(err);
    *bytes = c->props[device].totalGlobalMem;
    return hipSuccess;
}

HW_EXPORT hipError_t hipDeviceComputeCapability(int *major, int *minor, hipDevice_t device)
{
    hipError_t err;
    struct hw_conn *c = hw_conn_get(&err);
    if (!major || !minor)
        return hw_ret(hipErrorInvalidValue);
    if (!c)
        return hw_ret(err);
    if ((err = check_device(c, device)) != hipSuccess)
        return hw_ret(err);
    *major = c->props[device].major;
    *minor = c->props[device].minor;
    return hipSuccess;
}

HW_EXPORT hipError_t hipDeviceCanAccessPeer(int *can, int device, int peer)
{
    hipError_t err;
    struct hw_conn *c = hw_conn_get(&err);
    if (!can)
        return hw_ret(hipErrorInvalidValue);
    if (!c)
        return hw_ret(err);
    if (check_device(c, device) != hipSuccess || check_device(c, peer) != hipSuccess)
        return hw_ret(hipErrorInvalidDevice);
    /* Peer copies are not forwarded yet; answer honestly. */
    *can = 0;
    return hipSuccess;
}

/* hipDeviceCanAccessPeer says no for every pair, so there is no peer access
 * to turn on (copies between devices still work: hipMemcpyPeer). */
HW_EXPORT hipError_t hipDeviceEnablePeerAccess(int peer, unsigned int flags)
{
    hipError_t err;
    struct hw_conn *c = hw_conn_get(&err);
    if (!c)
        return hw_ret(err);
    if (check_device(c, peer) != hipSuccess)
        return hw_ret(hipErrorInvalidDevice);
    /* AMD checks the flags before refusing the current device as its own
     * peer: (current, -1) is hipErrorInvalidValue. */
    if (flags != 0)
        return hw_ret(hipErrorInvalidValue);
    if (peer == hw_current_device())
        return hw_ret(hipErrorInvalidDevice);
    return hw_ret(hipErrorPeerAccessUnsupported);
}

HW_EXPORT hipError_t hipDeviceDisablePeerAccess(int peer)
{
    hipError_t err;
    struct hw_conn *c = hw_conn_get(&err);
    if (!c)
        return hw_ret(err);
    if (check_device(c, peer) != hipSuccess)
        return hw_ret(hipErrorInvalidDevice);
    return hw_ret(hipErrorPeerAccessNotEnabled);
}

HW_EXPORT hipError_t hipDeviceGetStreamPriorityRange(int *least, int *greatest)
{
    hipError_t err;
    struct hw_conn *c = hw_conn_get(&err);
    if (!c)
        return hw_ret(err);
    const struct hipr_devinfo *d = &c->devs[hw_current_device()];
    if (least)
        *least = d->stream_priority_low;
    if (greatest)
        *greatest = d->stream_priority_high;
    return hipSuccess;
}

/* PCI location "dddd:bb:dd.f", AMD's format; the function is always 0. */
HW_EXPORT hipError_t hipDeviceGetPCIBusId(char *pciBusId, int len, int device)
{
    hipError_t err;
    struct hw_conn *c = hw_conn_get(&err);
    if (!c)
        return hw_ret(err);
    if ((err = check_device(c, device)) != hipSuccess)
        return hw_ret(err);
    if (!pciBusId || len <= 0)
        return hw_ret(hipErrorInvalidValue);
    const struct hipr_devinfo *d = &c->devs[device];
    snprintf(pciBusId, (size_t)len, "%04x:%02x:%02x.%01x", (unsigned)d->pci_domain_id,
             (unsigned)d->pci_bus_id, (unsigned)d->pci_device_id, 0u);
    /* As AMD: a buffer that cannot hold the whole id gets what fits, and
     * the call fails. */
    return len <= 12 ? hw_ret(hipErrorInvalidValue) : hipSuccess;
}

HW_EXPORT hipError_t hipDeviceGetByPCIBusId(int *device, const char *pciBusId)
{
    hipError_t err;
    struct hw_conn *c = hw_conn_get(&err);
    if (!device || !pciBusId)
        return hw_ret(hipErrorInvalidValue);
    if (!c)
        return hw_ret(err);
    unsigned dom, bus, dev, fn;
    if (sscanf(pciBusId, "%04x:%02x:%02x.%01x", &dom, &bus, &dev, &fn) != 4 || fn != 0)
        return hw_ret(hipErrorInvalidValue);
    for (int i = 0; i < c->device_count; i++) {
        const struct hipr_devinfo *d = &c->devs[i];
        if ((unsigned)d->pci_domain_id == dom && (unsigned)d->pci_bus_id == bus &&
            (unsigned)d->pci_device_id == dev) {
            *device = i;
            return hipSuccess;
        }
    }
    return hw_ret(hipErrorInvalidValue);
}

HW_EXPORT hipError_t hipDeviceGetUuid(hipUUID *uuid, hipDevice_t device)
{
    hipError_t err;
    struct hw_conn *c = hw_conn_get(&err);
    if (!c)
        return hw_ret(err);
    if ((err = check_device(c, device)) != hipSuccess)
        return hw_ret(err);
    if (!uuid)
        return hw_ret(hipErrorInvalidValue);
    _Static_assert(sizeof uuid->bytes == sizeof c->devs[0].uuid, "uuid size");
    memcpy(uuid->bytes, c->devs[device].uuid, sizeof uuid->bytes);
    return hipSuccess;
}

/* No peer path between a worker's devices is forwarded (see
 * hipDeviceCanAccessPeer), so every attribute of a pair says so. */
HW_EXPORT hipError_t hipDeviceGetP2PAttribute(int *value, hipDeviceP2PAttr attr, int srcDevice,
                                              int dstDevice)
{
    hipError_t err;
    struct hw_conn *c = hw_conn_get(&err);
    if (!value)
        return hw_ret(hipErrorInvalidValue);
    if (!c)
        return hw_ret(err);
    if (srcDevice == dstDevice || check_device(c, srcDevice) != hipSuccess ||
        check_device(c, dstDevice) != hipSuccess)
        return hw_ret(hipErrorInvalidDevice);
    switch (attr) {
    case hipDevP2PAttrPerformanceRank:
    case hipDevP2PAttrAccessSupported:
    case hipDevP2PAttrNativeAtomicSupported:
    case hipDevP2PAttrHipArrayAccessSupported: *value = 0; return hipSuccess;
    default: return hw_ret(hipErrorInvalidValue);
    }
}

/* HSA's link type for PCIe (hsa_amd_link_info_type_t). */
#define HW_LINK_TYPE_PCIE 2u

/* The worker reports no topology; its devices reach each other through the
 * host (hipMemcpyPeer is a copy in the worker), which is one PCIe hop for
 * GPUs and the same for the CPU device's memory. */
HW_EXPORT hipError_t hipExtGetLinkTypeAndHopCount(int device1, int device2, uint32_t *linktype,
                                                  uint32_t *hopcount)
{
    hipError_t err;
    struct hw_conn *c = hw_conn_get(&err);
    if (!linktype || !hopcount || device1 == device2 || device1 < 0 || device2 < 0)
        return hw_ret(hipErrorInvalidValue);
    if (!c)
        return hw_ret(err);
    if (check_device(c, device1) != hipSuccess || check_device(c, device2) != hipSuccess)
        return hw_ret(hipErrorInvalidDevice);
    *linktype = HW_LINK_TYPE_PCIE;
    *hopcount = 1;
    return hipSuccess;
}

/* Synchronising calls also surface errors of earlier asynchronous work. */
static hipError_t finish_sync(struct hw_conn *c, hipError_t err)
{
    if (err == hipSuccess)
        err = hw_take_async_error(c);
    return hw_ret(err);
}

HW_EXPORT hipError_t hipDeviceSynchronize(void)
{
    hipError_t err;
    struct hw_conn *c = hw_conn_get(&err);
    if (!c)
        return hw_ret(err);
    if ((err = hw_capture_device_sync()) != hipSuccess)
        return hw_ret(err); /* nothing may wait for a device that captures */
    struct hipr_device m = { .device = hw_wire_device(hw_current_device()) };
    uint8_t buf[HIPR_device_SIZE];
    hipr_device_encode(buf, &m);
    err = hw_call(c, HIPR_OP_DEVICE_SYNCHRONIZE, buf, sizeof buf, NULL, 0, NULL, 0, NULL, 0, NULL);
    return finish_sync(c, err);
}

HW_EXPORT hipError_t hipDeviceReset(void)
{
    hipError_t err;
    struct hw_conn *c = hw_conn_get(&err);
    if (!c)
        return hw_ret(err);
    int dev = hw_current_device();
    struct hipr_device m = { .device = hw_wire_device(dev) };
    uint8_t buf[HIPR_device_SIZE];
    hipr_device_encode(buf, &m);
    err = hw_call(c, HIPR_OP_DEVICE_RESET, buf, sizeof buf, NULL, 0, NULL, 0, NULL, 0, NULL);
    if (err == hipSuccess) {
        hw_device_config_reset(dev);
        /* The worker freed the device's allocations; forget them here too. */
        struct hw_mem_range r;
        for (;;) {
            uint64_t victim = 0;
            if (!hw_mem_first_of_device(dev, &victim))
                break;
            hw_mem_remove(victim, &r);
        }
    }
    return finish_sync(c, err);
}

HW_EXPORT hipError_t hipMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
    hipError_t err;
    struct hw_conn *c = hw_conn_get(&err);
    if (!c)
        return hw_ret(err);
    struct hipr_device m = { .device = hw_wire_device(hw_current_device()) };
    uint8_t buf[HIPR_device_SIZE], body[HIPR_mem_info_rep_SIZE];
    hipr_device_encode(buf, &m);
    err = hw_call(c, HIPR_OP_MEM_GET_INFO, buf, sizeof buf, NULL, 0, body, sizeof body, NULL, 0,
                  NULL);
    if (err != hipSuccess)
        return hw_ret(err);
    struct hipr_mem_info_rep r;
    hipr_mem_info_rep_decode(body, sizeof body, &r);
    if (free_bytes)
        *free_bytes = (size_t)r.free;
    if (total_bytes)
        *total_bytes = (size_t)r.total;
    return hipSuccess;
}
