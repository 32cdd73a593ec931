/*
 * devices.h - device records (devices.c), above discovery.
 */
#ifndef HIPWIRE_PROVIDER_DEVICES_H
#define HIPWIRE_PROVIDER_DEVICES_H

#include <stdint.h>

#include "amdgpu.h"
#include "provider.h"

/* "/dev/kfd,/dev/dri/renderD<m>,..." - every node a container needs for
 * the whole GPU (the KFD node and each of its partitions' render nodes). */
void provider_device_nodes(const amdgpu_gpu_t *g, char *out, size_t outlen);

/* Fill one #511 device record for sys->gpus[i]. */
void provider_fill_device(const amdgpu_system_t *sys, uint32_t i, ExtendedDeviceInfo *out);

#endif
