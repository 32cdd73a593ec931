/*
 * partition.h - partition assignments (partition.c), above discovery.
 * Every function here expects g_provider.lock held.
 */
#ifndef HIPWIRE_PROVIDER_PARTITION_H
#define HIPWIRE_PROVIDER_PARTITION_H

#include "discovery.h"

const assignment_t *provider_find_assignment(const char *partition_uuid);
void provider_state_load(void);
int provider_assign(const char *template_id, const char *gpu_uuid, char partition_uuid[64],
                    EnvVar *envs, size_t *env_count, char render_node[64]);
int provider_remove(const char *partition_uuid);

#endif
