#include "hip_api.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int hw_hip_api_load(struct hw_hip_api *api, char *why, size_t why_len)
{
    static const char *const names[] = { "libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5",
                                         "libamdhip64.so" };
    const char *forced = getenv("HIPWIRE_HIP_LIBRARY");
    memset(api, 0, sizeof *api);
    if (forced && *forced) {
        api->dl = dlopen(forced, RTLD_NOW | RTLD_LOCAL);
    } else {
        for (size_t i = 0; i < sizeof names / sizeof names[0] && !api->dl; i++)
            api->dl = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    }
    if (!api->dl) {
        snprintf(why, why_len, "no HIP runtime (libamdhip64) could be loaded");
        return -1;
    }
    /* Stringified after expansion: HIP 6 headers make some names macros
     * (hipGetDeviceProperties -> hipGetDevicePropertiesR0600), and the
     * symbol must be the one whose ABI this file was compiled against. */
#define HW_HIP_STR_(x) #x
#define HW_HIP_STR(x)  HW_HIP_STR_(x)
#define HW_HIP_RESOLVE_(name)                                                 \
    *(void **)&api->name = dlsym(api->dl, HW_HIP_STR(name));                  \
    if (!api->name) {                                                         \
        snprintf(why, why_len, "the HIP runtime lacks %s", HW_HIP_STR(name)); \
        goto fail;                                                            \
    }
    HW_HIP_FUNCS(HW_HIP_RESOLVE_)
#undef HW_HIP_RESOLVE_
    *(void **)&api->hipwire_function_params = dlsym(api->dl, "hipwire_function_params");
    *(void **)&api->hipwire_module_launch_kernel = dlsym(api->dl, "hipwire_module_launch_kernel");
    return 0;
fail:
    dlclose(api->dl);
    api->dl = NULL;
    return -1;
}

void hw_hip_api_unload(struct hw_hip_api *api)
{
    /* The HIP runtime does not support being unloaded and loaded again in
     * one process; a session process ends soon after anyway. */
    (void)api;
}
