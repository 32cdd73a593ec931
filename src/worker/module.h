/*
 * module.h - what MODULE_LOAD turns an image into, and everything done with
 * a module afterwards.
 *
 * Images arrive as HIP fat binaries' offload bundles (plain or compressed),
 * bare AMDGPU code objects, or whatever else the backend loads (CPU-device
 * shared objects, CUDA images). A bundle is opened here and the entry for
 * the device's target ID handed to the backend. An AMD code object for a
 * target the device does not report is still offered to the backend (a
 * relay's runtime forwards it; a real runtime refuses it); when the backend
 * refuses, it is loaded as a foreign module (foreign_module.h) instead of
 * failing, so that registration and variables work and only launches fail.
 */
#ifndef MODULE_H
#define MODULE_H

#include "session.h"

/* Loads image (n bytes, not kept: the caller may hand it to the module's
 * image field) for device dev. */
int module_load(struct session *s, int dev, const void *image, size_t n, struct s_module **out);

/* Frees the module; the caller has drained the devices and dropped its
 * functions and global ranges. */
void module_unload(struct session *s, struct s_module *m);

int module_function(struct session *s, struct s_module *m, const char *name, struct s_function *fn);
int module_global(struct session *s, struct s_module *m, const char *name, uint64_t *dptr,
                  uint64_t *size);

/* A migrated module's global `name`, which the client knows at want: the
 * device's own address is made the same memory as want (mem_alias) and
 * MODULE_GET_GLOBAL answers want from now on. */
int module_global_at(struct session *s, struct s_module *m, const char *name, uint64_t want,
                     uint64_t want_size);

/* HW_OK when the module's kernels can run on its device, else the status a
 * launch answers (hipErrorNoBinaryForGpu). */
int module_runnable(const struct s_module *m);

int module_launch(struct session *s, struct s_function *fn, struct hw_bstream *bs,
                  const uint32_t grid[3], const uint32_t block[3], uint32_t shared_mem,
                  const void *args, uint32_t args_size, uint32_t flags);

#endif
