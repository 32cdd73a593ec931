/*
 * libFuzzer harness for the amdgpu sysfs parsers (parse.h). Built when
 * HIPWIRE_FUZZ=ON with clang.
 */
#include "parse.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    kfd_properties_t p;
    gpu_metrics_summary_t g;
    char mode[8], list[64];
    uint64_t u;
    int64_t i;
    uint32_t a, b, c, d;

    parse_u64(s, size, &u);
    parse_i64(s, size, &i);
    parse_hex_u64(s, size, &u);
    parse_kfd_properties(s, size, &p);
    parse_partition_mode(s, size, mode);
    parse_partition_list(s, size, list, sizeof(list));
    parse_link_speed_gen(s, size, &a);
    parse_uevent_slot(s, size, &a, &b, &c, &d);
    parse_gpu_metrics(data, size, &g);
    return 0;
}
