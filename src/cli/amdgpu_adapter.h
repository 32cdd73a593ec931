/* What the CLI needs on top of src/amdgpu/amdgpu.h, built from its data:
 * VF recognition in a guest (no physfn link there), the node-labeller
 * family name, the ROCR_VISIBLE_DEVICES order, and KFD processes whose GPU
 * cannot be told (kernels or fixtures without nodes/N/gpu_id). */
#ifndef HIPWIRE_CLI_AMDGPU_ADAPTER_H
#define HIPWIRE_CLI_AMDGPU_ADAPTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "amdgpu.h"

/* SR-IOV virtual-function device ids of Instinct parts. */
bool amd_device_is_vf(uint32_t device_id);

/* Model for a PCI device id, "unknown" when not in amdgpu's table. */
const char *amd_model_or_unknown(uint32_t device_id);

/* The node labeller's family name for a gfx target ("AI", "NV",
 * "GC_11_0_0", ...), NULL when unknown. */
const char *amd_family_name(uint32_t gfx_target_version);

/* ROCR_VISIBLE_DEVICES index of a logical device: its rank among all KFD
 * GPU nodes of the system, which is the order ROCr enumerates agents in. */
int amd_rocr_index(const amdgpu_system_t *sys, uint32_t kfd_node);

/* Sum of num_xcc over a GPU's logical devices (at least 1). */
uint32_t amd_gpu_xcc_count(const amdgpu_gpu_t *gpu);

/* GPUs with KFD processes: busy[i] for sys->gpus[i]. When a process uses a
 * gpu_id that matches no GPU (gpu_id files unavailable) every GPU counts as
 * busy, because a partition change would tear that process down too.
 * Returns the number of processes seen, or -1 with err. */
int amd_busy_gpus(const amdgpu_system_t *sys, bool busy[AMDGPU_MAX_GPUS], char *err,
                  size_t err_size);

#endif
