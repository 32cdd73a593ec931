/* One map from handle address to kind under one lock: the checks are a
 * hash probe each, cheap beside any call that then goes to the worker. */
#include "handle_registry.h"

#include <pthread.h>
#include <stdint.h>

#include "ptr_map.h"

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ptr_map registry;

static void *kind_value(enum hw_handle_kind k)
{
    return (void *)(uintptr_t)k;
}

int hw_handle_add(enum hw_handle_kind k, const void *h)
{
    if (h == NULL || k <= 0 || k >= HW_HANDLE_KIND_END)
        return -1;
    pthread_mutex_lock(&registry_lock);
    int rc = ptr_map_put(&registry, h, kind_value(k));
    pthread_mutex_unlock(&registry_lock);
    return rc;
}

int hw_handle_valid(enum hw_handle_kind k, const void *h)
{
    if (h == NULL)
        return 0;
    pthread_mutex_lock(&registry_lock);
    int ok = ptr_map_get(&registry, h) == kind_value(k);
    pthread_mutex_unlock(&registry_lock);
    return ok;
}

int hw_handle_remove(enum hw_handle_kind k, const void *h)
{
    if (h == NULL)
        return 0;
    pthread_mutex_lock(&registry_lock);
    int ok = ptr_map_get(&registry, h) == kind_value(k);
    if (ok)
        ptr_map_del(&registry, h, kind_value(k));
    pthread_mutex_unlock(&registry_lock);
    return ok;
}
