/* Which compute/memory partition combinations a GPU accepts.
 *
 * The driver's available_*_partition lists say what the hardware offers;
 * on top of that: a GPU cannot have more memory partitions than compute
 * partitions (SPX+NPS4 is invalid), and on 8-XCC gfx942 parts (MI300X,
 * MI325X) AMD documents NPS4 only together with CPX. */
#ifndef HIPWIRE_CLI_PARTITION_RULES_H
#define HIPWIRE_CLI_PARTITION_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Normalises "cpx" -> "CPX". Returns 0 for a known compute mode
 * (SPX DPX TPX QPX CPX), else -1; out untouched on failure. */
int partition_compute_mode_parse(const char *in, char out[8]);
/* Same for NPS1 NPS2 NPS3 NPS4 NPS6 NPS8. */
int partition_memory_mode_parse(const char *in, char out[8]);

/* Logical devices a compute mode gives on a GPU with total_xcc XCCs
 * (CPX = one per XCC); 0 for an unknown mode. */
uint32_t partition_compute_count(const char *mode, uint32_t total_xcc);
/* NUMA memory partitions of NPSn: n; 0 for an unknown mode. */
uint32_t partition_memory_count(const char *mode);

/* Whether "SPX, DPX, QPX, CPX" lists mode (exact token match). */
bool partition_mode_listed(const char *list, const char *mode);

/* Checks the combination that would result (compute, memory) against the
 * GPU's lists and the rules above. Returns 0, or -1 with the reason in err. */
int partition_check_combination(const char *compute, const char *memory,
                                const char *available_compute, const char *available_memory,
                                uint32_t gfx_target_version, uint32_t total_xcc, char *err,
                                size_t err_size);

#endif
