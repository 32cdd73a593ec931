/* backend_registry.c - the backends compiled into this worker. */
#include <string.h>

#include "backend.h"

static const struct hw_backend_ops *const registry[] = {
    &hw_hip_backend_ops,
    &hw_cuda_backend_ops,
    &hw_cpu_backend_ops,
};

const struct hw_backend_ops *hw_backend_find(const char *name)
{
    for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++)
        if (strcmp(registry[i]->name, name) == 0)
            return registry[i];
    return NULL;
}
