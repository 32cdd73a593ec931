/*
 * mounts.h - the library mounts a container needs (mounts.c).
 */
#ifndef HIPWIRE_PROVIDER_MOUNTS_H
#define HIPWIRE_PROVIDER_MOUNTS_H

#include <stddef.h>

#include "provider.h"

size_t provider_mounts(Mount *out, size_t max);

#endif
