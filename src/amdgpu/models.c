/*
 * models.c - PCI device ids to Instinct model names, and per-architecture
 * peak rates.
 *
 * Device ids are from the amdgpu PCI id table (amdgpu_drv.c) and AMD's
 * published product ids; the FP16 rates are AMD's published dense FP16
 * matrix peaks divided by CUs x peak engine clock (MI300X: 1307.4 TFLOPS /
 * (304 CUs x 2.1 GHz) = 2048 FLOPs per CU per clock).
 */
#include "amdgpu.h"

#include <stddef.h>

static const struct {
    uint32_t device_id;
    const char *model;
} models[] = {
    { 0x66a0, "MI50" }, /* Vega 20 */
    { 0x66a1, "MI50" },      { 0x66a2, "MI60" },
    { 0x738c, "MI100" },     { 0x738e, "MI100" },
    { 0x7408, "MI250X" },    { 0x740c, "MI250X" }, /* MI250X and MI250 share this id */
    { 0x740f, "MI210" },     { 0x7410, "MI210" },  /* VF */
    { 0x74a0, "MI300A" },    { 0x74a1, "MI300X" },
    { 0x74a2, "MI308X" },    { 0x74a5, "MI325X" },
    { 0x74a9, "MI300X-HF" }, { 0x74b5, "MI300X" }, /* VF */
    { 0x74b9, "MI325X" },                          /* VF */
    { 0x74bd, "MI300X-HF" }, { 0x75a0, "MI350X" },
    { 0x75a3, "MI355X" },    { 0x75b0, "MI350X" }, /* VF */
    { 0x75b3, "MI355X" },                          /* VF */
};

const char *amdgpu_model_name(uint32_t device_id)
{
    for (size_t i = 0; i < sizeof(models) / sizeof(*models); i++)
        if (models[i].device_id == device_id)
            return models[i].model;
    return NULL;
}

/* FP16 FLOPs per CU per clock, by gfx_target_version major*100+minor. */
static uint32_t fp16_flops_per_cu_clock(uint32_t gfx_target_version)
{
    uint32_t v = gfx_target_version;

    switch (v) {
    case 90008: /* gfx908, MI100: 184.6 TFLOPS / 120 CU / 1.502 GHz */
    case 90010: /* gfx90a, MI200: 383 TFLOPS / 220 CU / 1.7 GHz */ return 1024;
    case 90400:
    case 90401:
    case 90402: /* gfx942, MI300 */ return 2048;
    case 90500:
    case 90501: /* gfx950, MI350: 2.3 PFLOPS / 256 CU / 2.2 GHz */ return 4096;
    default:
        /* no matrix cores known: packed FP16 FMA on 64 lanes */
        return 256;
    }
}

double amdgpu_peak_tflops(uint32_t gfx_target_version, uint32_t compute_units,
                          uint32_t engine_clk_mhz)
{
    if (compute_units == 0 || engine_clk_mhz == 0)
        return 0.0;
    return (double)compute_units * (double)engine_clk_mhz * 1e6 *
           (double)fp16_flops_per_cu_clock(gfx_target_version) / 1e12;
}
