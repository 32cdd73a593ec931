/*
 * devices.h - device records (devices.c), above discovery.
 */
#ifndef HIPWIRE_PROVIDER_DEVICES_H
#define HIPWIRE_PROVIDER_DEVICES_H

#include <stdint.h>

#include "amdgpu.h"
#include "provider.h"

/* Fill one #511 device record for sys->gpus[i]. */
void provider_fill_device(const amdgpu_system_t *sys, uint32_t i, ExtendedDeviceInfo *out);

#endif
