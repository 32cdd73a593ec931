/*
 * foreign_module.h - an AMD code object that no device of this worker runs.
 *
 * A program registers every fat binary it contains whatever the device, and
 * expects its variables and kernel handles to exist (HIP gives them to it;
 * only launches need the device to run the code). So a code object whose
 * target the device does not have (a CPU or NVIDIA device, or another gfx)
 * is still loaded, as this: kernels resolve with their argument layouts and
 * resource use from the code object's metadata; __device__/__constant__
 * variables are backend allocations on the module's device, sized and
 * initialised from the code object's ELF symbols on first lookup; launches
 * fail with hipErrorNoBinaryForGpu (module.c).
 */
#ifndef FOREIGN_MODULE_H
#define FOREIGN_MODULE_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"

struct foreign_module;

/* Parses the AMDGPU ELF at co (n bytes, copied) for device dev. HW_EIMAGE,
 * with the parser's reason logged, when it is not a code object with
 * metadata. */
int foreign_module_open(const void *co, size_t n, int dev, struct foreign_module **out);

/* Frees the variables' device memory (the caller has drained the device)
 * and the module. */
void foreign_module_close(const struct hw_backend_ops *ops, struct hw_backend *be,
                          struct foreign_module *fm);

/* A kernel by name. The layout in *info lives as long as the module.
 * dynamic_shared_limit is the device's shared memory per block. */
int foreign_module_function(struct foreign_module *fm, const char *name,
                            int32_t dynamic_shared_limit, struct hw_func_info *info);

/* A variable by name, allocated and initialised on first lookup; one larger
 * than max_bytes is refused with HW_ENOMEM. */
int foreign_module_global(const struct hw_backend_ops *ops, struct hw_backend *be,
                          struct foreign_module *fm, const char *name, uint64_t max_bytes,
                          uint64_t *dptr, uint64_t *size);

/* For logs: kernels in the metadata, and the code object's target ID. */
uint32_t foreign_module_kernel_count(const struct foreign_module *fm);
const char *foreign_module_target(const struct foreign_module *fm);

#endif
