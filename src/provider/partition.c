/*
 * partition.c - AssignPartition/RemovePartition on MI300-class GPUs.
 *
 * A template names a mode ("cpx_nps1"); assigning hands out a free logical
 * device of a GPU that is in that mode, with ROCR_VISIBLE_DEVICES selecting
 * it. Modes are not changed here (that is `hipwire partition`'s job).
 * Assignments are kept in a small state file, rewritten atomically (temp
 * file, fsync, rename), so they survive a hypervisor restart.
 */
#include "partition.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_STATE_PATH "/var/lib/hipwire/accelerator_amd.state"

static const char *state_path(void)
{
    const char *p = getenv("HIPWIRE_PROVIDER_STATE");
    return (p && *p) ? p : DEFAULT_STATE_PATH;
}

const assignment_t *provider_find_assignment(const char *partition_uuid)
{
    for (size_t i = 0; i < g_provider.assignment_count; i++)
        if (strcasecmp(g_provider.assignments[i].partition_uuid, partition_uuid) == 0)
            return &g_provider.assignments[i];
    return NULL;
}

static int state_save(void)
{
    const char *path = state_path();
    char tmp[1024];
    FILE *f = NULL;
    int fd = -1;

    if (snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof(tmp))
        goto fail;
    /* create the parent directory once; ignore EEXIST */
    char dir[1024];
    provider_copy(dir, sizeof(dir), path);
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir) {
        *slash = '\0';
        if (mkdir(dir, 0755) != 0 && errno != EEXIST)
            goto fail;
    }
    fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        goto fail;
    f = fdopen(fd, "w");
    if (f == NULL)
        goto fail;
    fd = -1;
    fprintf(f, "# hipwire AMD provider partition assignments v1\n");
    for (size_t i = 0; i < g_provider.assignment_count; i++) {
        const assignment_t *a = &g_provider.assignments[i];
        fprintf(f, "%s %s %s\n", a->partition_uuid, a->gpu_uuid, a->template_id);
    }
    if (fflush(f) != 0 || fsync(fileno(f)) != 0)
        goto fail;
    if (fclose(f) != 0) {
        f = NULL;
        goto fail;
    }
    f = NULL;
    if (rename(tmp, path) != 0)
        goto fail;
    return 0;
fail:
    provider_log("WARN",
                 "cannot save partition assignments to %s: %s "
                 "(kept in memory only)",
                 path, strerror(errno));
    if (f)
        fclose(f);
    if (fd >= 0)
        close(fd);
    unlink(tmp);
    return -1;
}

static int valid_token(const char *s, size_t max)
{
    size_t n = strlen(s);
    if (n == 0 || n >= max)
        return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_')
            return 0;
    return 1;
}

void provider_state_load(void)
{
    const char *path = state_path();
    char line[512];
    FILE *f = fopen(path, "r");

    g_provider.assignment_count = 0;
    if (f == NULL) {
        if (errno != ENOENT)
            provider_log("WARN", "cannot read %s: %s", path, strerror(errno));
        return;
    }
    while (fgets(line, sizeof(line), f) != NULL &&
           g_provider.assignment_count < PROVIDER_MAX_ASSIGNMENTS) {
        char part[128], gpu[128], tmpl[128];
        if (line[0] == '#' || sscanf(line, "%127s %127s %127s", part, gpu, tmpl) != 3)
            continue;
        if (!valid_token(part, AMDGPU_UUID_LEN) || !valid_token(gpu, AMDGPU_UUID_LEN) ||
            !valid_token(tmpl, 32)) {
            provider_log("WARN", "%s: ignoring a malformed line", path);
            continue;
        }
        const amdgpu_partition_t *p = NULL;
        const amdgpu_gpu_t *g = amdgpu_find_uuid(g_provider.sys, part, &p);
        if (g == NULL || p == NULL || strcasecmp(g->uuid, gpu) != 0) {
            provider_log("WARN",
                         "dropping assignment of %s: no such "
                         "partition now (mode changed?)",
                         part);
            continue;
        }
        if (provider_find_assignment(part) != NULL)
            continue;
        assignment_t *a = &g_provider.assignments[g_provider.assignment_count++];
        provider_copy(a->partition_uuid, sizeof(a->partition_uuid), part);
        provider_copy(a->gpu_uuid, sizeof(a->gpu_uuid), gpu);
        provider_copy(a->template_id, sizeof(a->template_id), tmpl);
    }
    fclose(f);
    if (g_provider.assignment_count)
        provider_log("INFO", "restored %zu partition assignment(s) from %s",
                     g_provider.assignment_count, path);
}

/* "cpx_nps1" -> "CPX", "NPS1". */
static int parse_template(const char *t, char compute[8], char memory[8])
{
    static const char *const cm[] = { "SPX", "DPX", "TPX", "QPX", "CPX" };
    static const char *const mm[] = { "NPS1", "NPS2", "NPS4", "NPS8" };
    char up[16];
    size_t n = strlen(t);

    if (n < 8 || n > 9)
        return -1;
    for (size_t i = 0; i <= n; i++)
        up[i] = (char)toupper((unsigned char)t[i]);
    if (up[3] != '_')
        return -1;
    int okc = 0, okm = 0;
    for (size_t i = 0; i < 5; i++)
        okc |= strncmp(up, cm[i], 3) == 0;
    for (size_t i = 0; i < 4; i++)
        okm |= strcmp(up + 4, mm[i]) == 0;
    if (!okc || !okm)
        return -1;
    memcpy(compute, up, 3);
    compute[3] = '\0';
    /* up + 4 matched one of mm[], so it fits: at most "NPS8" and its NUL. */
    memcpy(memory, up + 4, strlen(up + 4) + 1);
    return 0;
}

/* ROCr numbers GPU agents in KFD node order, across all GPUs. */
static uint32_t rocr_index(const amdgpu_system_t *sys, uint32_t kfd_node)
{
    uint32_t idx = 0;
    for (uint32_t i = 0; i < sys->gpu_count; i++)
        for (uint32_t p = 0; p < sys->gpus[i].partition_count; p++)
            idx += sys->gpus[i].partitions[p].kfd_node < kfd_node;
    return idx;
}

int provider_assign(const char *template_id, const char *gpu_uuid, char partition_uuid[64],
                    EnvVar *envs, size_t *env_count, char render_node[64])
{
    char want_c[8], want_m[8], cur_c[8], cur_m[8], err[AMDGPU_ERR_LEN];
    const amdgpu_partition_t *sub = NULL;

    if (parse_template(template_id, want_c, want_m) != 0) {
        provider_log("ERROR",
                     "AssignPartition: unknown template '%s' "
                     "(expected spx_nps1, dpx_nps1, qpx_nps1, cpx_nps1, "
                     "cpx_nps4, ...)",
                     template_id);
        return -1;
    }
    if (provider_discover(0) != 0)
        return -1;
    const amdgpu_gpu_t *g = amdgpu_find_uuid(g_provider.sys, gpu_uuid, &sub);
    if (g == NULL || sub != NULL) {
        provider_log("ERROR",
                     "AssignPartition: %s is not a GPU of this "
                     "node",
                     gpu_uuid);
        return -1;
    }
    if (g->available_compute_partitions[0] == '\0') {
        provider_log("ERROR",
                     "AssignPartition: GPU %s (%s) has no compute "
                     "partition support",
                     g->bdf, g->model);
        return -1;
    }
    /* the mode on the device now, not at discovery */
    if (amdgpu_partition_modes_read(g, cur_c, cur_m, err, sizeof(err)) != 0) {
        provider_log("ERROR", "AssignPartition: %s", err);
        return -1;
    }
    if (strcmp(cur_c, want_c) != 0 || strcmp(cur_m, want_m) != 0) {
        provider_log("ERROR",
                     "AssignPartition: GPU %s is in %s/%s, template "
                     "%s needs %s/%s (change it with `hipwire partition`)",
                     g->bdf, cur_c, cur_m, template_id, want_c, want_m);
        return -1;
    }
    if (strcmp(cur_c, g->compute_partition) != 0) {
        provider_log("ERROR",
                     "AssignPartition: GPU %s changed mode since "
                     "discovery; rediscover first",
                     g->bdf);
        return -1;
    }
    if (g_provider.assignment_count >= PROVIDER_MAX_ASSIGNMENTS)
        return -1;
    for (uint32_t k = 0; k < g->partition_count; k++) {
        const amdgpu_partition_t *p = &g->partitions[k];
        if (provider_find_assignment(p->uuid) != NULL)
            continue;
        assignment_t *a = &g_provider.assignments[g_provider.assignment_count++];
        provider_copy(a->partition_uuid, sizeof(a->partition_uuid), p->uuid);
        provider_copy(a->gpu_uuid, sizeof(a->gpu_uuid), g->uuid);
        provider_copy(a->template_id, sizeof(a->template_id), template_id);
        for (char *s = a->template_id; *s; s++)
            *s = (char)tolower((unsigned char)*s);
        state_save();
        provider_copy(partition_uuid, 64, p->uuid);
        provider_copy(envs[0].key, sizeof(envs[0].key), "ROCR_VISIBLE_DEVICES");
        snprintf(envs[0].value, sizeof(envs[0].value), "%" PRIu32,
                 rocr_index(g_provider.sys, p->kfd_node));
        *env_count = 1;
        if (render_node) {
            if (p->render_minor >= 0)
                snprintf(render_node, 64, "/dev/dri/renderD%d", p->render_minor);
            else
                render_node[0] = '\0';
        }
        provider_log("INFO", "assigned %s (%s, renderD%d) of GPU %s", p->uuid, template_id,
                     p->render_minor, g->bdf);
        return 0;
    }
    provider_log("ERROR",
                 "AssignPartition: all %" PRIu32 " %s partitions "
                 "of GPU %s are assigned",
                 g->partition_count, cur_c, g->bdf);
    return -1;
}

int provider_remove(const char *partition_uuid)
{
    for (size_t i = 0; i < g_provider.assignment_count; i++) {
        if (strcasecmp(g_provider.assignments[i].partition_uuid, partition_uuid) != 0)
            continue;
        g_provider.assignments[i] = g_provider.assignments[--g_provider.assignment_count];
        state_save();
        provider_log("INFO", "released partition %s", partition_uuid);
        return 0;
    }
    provider_log("WARN", "RemovePartition: %s is not assigned", partition_uuid);
    return -1;
}

PROVIDER_API bool AssignPartition(PartitionAssignment *assignment)
{
    char uuid[64], tmpl[64], dev[64];
    EnvVar env[1];
    size_t env_count = 0;
    int rc;

    if (assignment == NULL)
        return false;
    /* the fields are fixed arrays that may lack a terminator */
    memcpy(tmpl, assignment->templateId, sizeof(tmpl));
    memcpy(dev, assignment->deviceUUID, sizeof(dev));
    tmpl[63] = dev[63] = '\0';
    if (tmpl[0] == '\0' || dev[0] == '\0')
        return false;
    memset(env, 0, sizeof(env));
    pthread_mutex_lock(&g_provider.lock);
    rc = provider_assign(tmpl, dev, uuid, env, &env_count, NULL);
    pthread_mutex_unlock(&g_provider.lock);
    if (rc != 0)
        return false;
    memcpy(assignment->partitionUUID, uuid, sizeof(uuid));
    memset(assignment->envVars, 0, sizeof(assignment->envVars));
    memcpy(assignment->envVars, env, env_count * sizeof(EnvVar));
    assignment->envVarCount = env_count;
    return true;
}

/* The hypervisor passes (partitionUUID, parentUUID) despite the names. */
PROVIDER_API bool RemovePartition(const char *templateId, const char *deviceUUID)
{
    int rc;

    (void)deviceUUID;
    if (templateId == NULL || templateId[0] == '\0')
        return false;
    pthread_mutex_lock(&g_provider.lock);
    rc = provider_remove(templateId);
    pthread_mutex_unlock(&g_provider.lock);
    return rc == 0;
}
