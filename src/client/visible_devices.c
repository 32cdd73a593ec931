/*
 * visible_devices.c - HIP_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES and
 * CUDA_VISIBLE_DEVICES, read from the application's environment when the
 * connection is made, choose and order the worker's devices the
 * application sees, as AMD's runtime does:
 *  - ROCR_VISIBLE_DEVICES filters the worker's devices first (ROCr's level);
 *    HIP_VISIBLE_DEVICES, or CUDA_VISIBLE_DEVICES when it is unset or
 *    empty, then picks from what is left (clr's level);
 *  - a list is comma-separated indices (exact decimal numbers) or UUIDs
 *    ("GPU-" and a prefix of the device's UUID in hex); the first entry
 *    that names no device ends it, so "0,-1,1" is "0" and "-1,0" is no
 *    device at all (hipGetDeviceCount then fails with hipErrorNoDevice);
 *    a repeated device counts once;
 *  - a variable that is set but empty filters nothing (clr cannot tell it
 *    from unset, and hip-tests expect all devices).
 * The client then speaks of devices by the application's ordinals; every
 * message that names a device carries hw_wire_device()'s translation.
 */
#include <stdlib.h>
#include <string.h>

#include "hw_alloc.h"
#include "client.h"
#include "hw_log.h"

/* Application ordinal -> worker ordinal, while a filter is in force. */
static int wire_of[HIPR_CAP_DEVICES];
static int visible = -1; /* -1: no filter */

int hw_wire_device(int dev)
{
    if (visible < 0)
        return dev;
    /* A device the application cannot see must not reach a hidden one. */
    return dev >= 0 && dev < visible ? wire_of[dev] : -1;
}

static int hex_value(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

/* Whether the hex digits of id (dashes ignored) begin the device's UUID. */
static int uuid_matches(const char *id, size_t len, const uint8_t uuid[16])
{
    size_t nibble = 0;
    for (size_t i = 0; i < len; i++) {
        if (id[i] == '-')
            continue;
        int v = hex_value(id[i]);
        if (v < 0 || nibble >= 32)
            return 0;
        int want = nibble % 2 ? uuid[nibble / 2] & 0xf : uuid[nibble / 2] >> 4;
        if (v != want)
            return 0;
        nibble++;
    }
    return nibble > 0;
}

/* The position in idx[0..n) that entry [s, s+len) names, or -1. */
static int resolve(const char *s, size_t len, const struct hipr_devinfo *devs, const int *idx,
                   int n)
{
    if (len > 4 && strncmp(s, "GPU-", 4) == 0) {
        for (int p = 0; p < n; p++)
            if (uuid_matches(s + 4, len - 4, devs[idx[p]].uuid))
                return p;
        return -1;
    }
    /* Exactly a decimal number: "01", "+1", "1x" and "" name nothing. */
    if (len == 0 || len > 9 || (s[0] == '0' && len > 1))
        return -1;
    int v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v < n ? v : -1;
}

/* Applies one list to idx[0..n) (worker ordinals); the new length. */
static int apply_list(const char *list, const struct hipr_devinfo *devs, int *idx, int n)
{
    int out[HIPR_CAP_DEVICES], k = 0;
    const char *s = list;
    for (;;) {
        size_t len = strcspn(s, ",");
        int p = resolve(s, len, devs, idx, n);
        if (p < 0)
            break;
        int dup = 0;
        for (int i = 0; i < k; i++)
            dup |= out[i] == idx[p];
        if (!dup)
            out[k++] = idx[p];
        if (s[len] != ',')
            break;
        s += len + 1;
    }
    memcpy(idx, out, (size_t)k * sizeof *idx);
    return k;
}

hipError_t hw_visible_devices_apply(struct hw_conn *c)
{
    int idx[HIPR_CAP_DEVICES], n = c->device_count;
    for (int i = 0; i < n; i++)
        idx[i] = i;
    const char *rocr = getenv("ROCR_VISIBLE_DEVICES");
    const char *hip = getenv("HIP_VISIBLE_DEVICES");
    if (!hip || !*hip)
        hip = getenv("CUDA_VISIBLE_DEVICES");
    int any = 0;
    if (rocr && *rocr) {
        n = apply_list(rocr, c->devs, idx, n);
        any = 1;
    }
    if (hip && *hip) {
        n = apply_list(hip, c->devs, idx, n);
        any = 1;
    }
    visible = -1;
    if (!any)
        return hipSuccess;
    /* Keep the chosen descriptions, in the chosen order. */
    struct hipr_devinfo *devs = hw_calloc(n ? (size_t)n : 1, sizeof *devs);
    hipDeviceProp_t *props = hw_calloc(n ? (size_t)n : 1, sizeof *props);
    if (!devs || !props) {
        free(devs);
        free(props);
        return hipErrorOutOfMemory;
    }
    for (int i = 0; i < n; i++) {
        devs[i] = c->devs[idx[i]];
        props[i] = c->props[idx[i]];
        wire_of[i] = idx[i];
    }
    free(c->devs);
    free(c->props);
    c->devs = devs;
    c->props = props;
    c->device_count = n;
    visible = n;
    hw_debug("visible devices: %d of the worker's", n);
    return hipSuccess;
}
