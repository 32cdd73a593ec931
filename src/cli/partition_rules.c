#include "partition_rules.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static const char *const compute_modes[] = { "SPX", "DPX", "TPX", "QPX", "CPX" };
static const char *const memory_modes[] = { "NPS1", "NPS2", "NPS3", "NPS4", "NPS6", "NPS8" };

static int parse_mode(const char *in, char out[8], const char *const *modes, size_t n)
{
    if (!in)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (strcasecmp(in, modes[i]) == 0) {
            memcpy(out, modes[i], strlen(modes[i]) + 1);
            return 0;
        }
    }
    return -1;
}

int partition_compute_mode_parse(const char *in, char out[8])
{
    return parse_mode(in, out, compute_modes, sizeof(compute_modes) / sizeof(compute_modes[0]));
}

int partition_memory_mode_parse(const char *in, char out[8])
{
    return parse_mode(in, out, memory_modes, sizeof(memory_modes) / sizeof(memory_modes[0]));
}

uint32_t partition_compute_count(const char *mode, uint32_t total_xcc)
{
    if (strcmp(mode, "SPX") == 0)
        return 1;
    if (strcmp(mode, "DPX") == 0)
        return 2;
    if (strcmp(mode, "TPX") == 0)
        return 3;
    if (strcmp(mode, "QPX") == 0)
        return 4;
    if (strcmp(mode, "CPX") == 0)
        return total_xcc;
    return 0;
}

uint32_t partition_memory_count(const char *mode)
{
    char norm[8];
    if (partition_memory_mode_parse(mode, norm) < 0)
        return 0;
    return (uint32_t)(norm[3] - '0');
}

bool partition_mode_listed(const char *list, const char *mode)
{
    size_t ml = strlen(mode);
    if (ml == 0)
        return false;
    for (const char *p = list; (p = strstr(p, mode)) != NULL; p += ml) {
        bool start = p == list || p[-1] == ' ' || p[-1] == ',';
        bool end = p[ml] == '\0' || p[ml] == ',' || p[ml] == ' ';
        if (start && end)
            return true;
    }
    return false;
}

int partition_check_combination(const char *compute, const char *memory,
                                const char *available_compute, const char *available_memory,
                                uint32_t gfx_target_version, uint32_t total_xcc, char *err,
                                size_t err_size)
{
    if (!available_compute || !available_compute[0]) {
        snprintf(err, err_size, "the GPU does not support compute partitioning");
        return -1;
    }
    if (!partition_mode_listed(available_compute, compute)) {
        snprintf(err, err_size, "compute mode %s is not available (the GPU offers: %s)", compute,
                 available_compute);
        return -1;
    }
    if (memory && memory[0]) {
        /* A GPU that offers one NPS mode has no available list; its current
         * mode is the only valid one, which the caller passes through. */
        if (available_memory && available_memory[0] &&
            !partition_mode_listed(available_memory, memory)) {
            snprintf(err, err_size, "memory mode %s is not available (the GPU offers: %s)", memory,
                     available_memory);
            return -1;
        }
        uint32_t cparts = partition_compute_count(compute, total_xcc);
        uint32_t mparts = partition_memory_count(memory);
        if (mparts == 0) {
            snprintf(err, err_size, "unknown memory mode %s", memory);
            return -1;
        }
        if (cparts != 0 && mparts > cparts) {
            snprintf(err, err_size,
                     "%s with %s is invalid: %u memory partitions need at least as many compute "
                     "partitions (%s gives %u)",
                     compute, memory, mparts, compute, cparts);
            return -1;
        }
        bool gfx942_8xcc =
            gfx_target_version / 100 == 904 && gfx_target_version % 100 == 2 && total_xcc == 8;
        if (gfx942_8xcc && mparts == 4 && strcmp(compute, "CPX") != 0) {
            snprintf(err, err_size, "%s with %s is not supported on MI300X/MI325X: NPS4 needs CPX",
                     compute, memory);
            return -1;
        }
    }
    return 0;
}
