/*
 * occupancy_model.h - resident blocks per compute unit/SM for a kernel's
 * resources on a device, the basis of the hipOccupancy* answers.
 */
#ifndef HW_OCCUPANCY_MODEL_H
#define HW_OCCUPANCY_MODEL_H

#include <stdint.h>

#include "hipr.h"

/* Blocks of block_size threads that fit on one CU/SM at once; 0 when not
 * even one does (more threads than the kernel or device allows, or more
 * shared memory than a block may have). */
int hw_resident_blocks(const struct hipr_devinfo *d, const struct hipr_function_rep *f,
                       int block_size, uint64_t dyn_shared);

#endif
