/* Compute/memory partition combinations: the documented MI300X table plus
 * the driver's available lists. */
#include <stdio.h>
#include <string.h>

#include "partition_rules.h"

#define MI300X_COMPUTE "SPX, DPX, QPX, CPX"
#define MI300X_MEMORY  "NPS1, NPS4"
#define GFX942         90402u
#define GFX950         90500u

static int failures;

static void expect(const char *compute, const char *memory, const char *avail_c,
                   const char *avail_m, unsigned gfx, unsigned xcc, int ok, const char *why)
{
    char err[256] = "";
    int rc =
        partition_check_combination(compute, memory, avail_c, avail_m, gfx, xcc, err, sizeof(err));
    if ((rc == 0) != ok || (!ok && why && !strstr(err, why))) {
        fprintf(stderr, "%s+%s: rc=%d err=\"%s\", want %s%s\n", compute, memory ? memory : "-", rc,
                err, ok ? "accepted" : "refused with ", why ? why : "");
        failures++;
    }
    if (!ok && !err[0]) {
        fprintf(stderr, "%s+%s refused without a reason\n", compute, memory ? memory : "-");
        failures++;
    }
}

int main(void)
{
    /* MI300X (8 XCC): SPX/DPX/QPX/CPX with NPS1, NPS4 only with CPX. */
    expect("SPX", "NPS1", MI300X_COMPUTE, MI300X_MEMORY, GFX942, 8, 1, NULL);
    expect("DPX", "NPS1", MI300X_COMPUTE, MI300X_MEMORY, GFX942, 8, 1, NULL);
    expect("QPX", "NPS1", MI300X_COMPUTE, MI300X_MEMORY, GFX942, 8, 1, NULL);
    expect("CPX", "NPS1", MI300X_COMPUTE, MI300X_MEMORY, GFX942, 8, 1, NULL);
    expect("CPX", "NPS4", MI300X_COMPUTE, MI300X_MEMORY, GFX942, 8, 1, NULL);
    expect("SPX", "NPS4", MI300X_COMPUTE, MI300X_MEMORY, GFX942, 8, 0, "invalid");
    expect("DPX", "NPS4", MI300X_COMPUTE, MI300X_MEMORY, GFX942, 8, 0, "invalid");
    expect("QPX", "NPS4", MI300X_COMPUTE, MI300X_MEMORY, GFX942, 8, 0, "NPS4 needs CPX");
    /* Not in the GPU's lists. */
    expect("TPX", "NPS1", MI300X_COMPUTE, MI300X_MEMORY, GFX942, 8, 0, "not available");
    expect("CPX", "NPS2", MI300X_COMPUTE, MI300X_MEMORY, GFX942, 8, 0, "not available");
    expect("CPX", "NPS8", MI300X_COMPUTE, MI300X_MEMORY, GFX942, 8, 0, "not available");
    /* No partition support at all (MI210). */
    expect("SPX", NULL, "", "", 90010, 1, 0, "does not support");
    /* Keeping the current memory mode (NULL / "") only checks the compute mode. */
    expect("DPX", NULL, MI300X_COMPUTE, MI300X_MEMORY, GFX942, 8, 1, NULL);
    /* The MI300X-only rule does not bind another generation: QPX+NPS4 on a
     * gfx950 part that lists both is left to the driver. */
    expect("QPX", "NPS4", MI300X_COMPUTE, MI300X_MEMORY, GFX950, 8, 1, NULL);
    /* MI300A (6 XCC): TPX with NPS1; CPX has 6 partitions. */
    expect("TPX", "NPS1", "SPX, TPX, CPX", "", 90402, 6, 1, NULL);

    char m[8] = "keep";
    if (partition_compute_mode_parse("cpx", m) != 0 || strcmp(m, "CPX") != 0)
        failures++;
    strcpy(m, "keep");
    if (partition_compute_mode_parse("XPX", m) == 0 || strcmp(m, "keep") != 0)
        failures++;
    if (partition_memory_mode_parse("nps4", m) != 0 || strcmp(m, "NPS4") != 0)
        failures++;
    if (partition_memory_mode_parse("NPS5", m) == 0)
        failures++;
    if (partition_compute_mode_parse("", m) == 0 ||
        partition_compute_mode_parse("SPXSPXSPX", m) == 0)
        failures++;
    if (partition_compute_count("CPX", 8) != 8 || partition_compute_count("QPX", 8) != 4 ||
        partition_compute_count("SPX", 8) != 1 || partition_compute_count("XPX", 8) != 0)
        failures++;
    if (partition_memory_count("NPS4") != 4 || partition_memory_count("NPSX") != 0)
        failures++;
    if (!partition_mode_listed("SPX, DPX, QPX, CPX", "QPX") ||
        partition_mode_listed("NPS1, NPS4", "NPS") || partition_mode_listed("", "SPX"))
        failures++;

    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    puts("ok: partition rules");
    return 0;
}
