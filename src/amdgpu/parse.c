/*
 * parse.c - pure parsers for amdgpu/amdkfd sysfs contents.
 *
 * Formats are the ones the driver prints (kfd_topology.c node_show,
 * amdgpu_gfx.c / amdgpu_gmc.c partition attributes, PCI core link
 * attributes, kgd_pp_interface.h gpu_metrics tables).
 */
#include "parse.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Trim [*b, *e) of surrounding whitespace and NULs. */
static void trim(const char **b, const char **e)
{
    while (*b < *e && (is_space(**b) || **b == '\0'))
        (*b)++;
    while (*e > *b && (is_space((*e)[-1]) || (*e)[-1] == '\0'))
        (*e)--;
}

static int digits_u64(const char *b, const char *e, unsigned base, uint64_t *out)
{
    uint64_t v = 0;

    if (b == e)
        return -1;
    for (; b < e; b++) {
        unsigned d;
        char c = *b;
        if (c >= '0' && c <= '9')
            d = (unsigned)(c - '0');
        else if (base == 16 && c >= 'a' && c <= 'f')
            d = (unsigned)(c - 'a' + 10);
        else if (base == 16 && c >= 'A' && c <= 'F')
            d = (unsigned)(c - 'A' + 10);
        else
            return -1;
        if (v > (UINT64_MAX - d) / base)
            return -1; /* overflow */
        v = v * base + d;
    }
    *out = v;
    return 0;
}

int parse_u64(const char *buf, size_t len, uint64_t *out)
{
    const char *b = buf, *e = buf + len;

    if (buf == NULL)
        return -1;
    trim(&b, &e);
    return digits_u64(b, e, 10, out);
}

int parse_i64(const char *buf, size_t len, int64_t *out)
{
    const char *b = buf, *e = buf + len;
    bool neg = false;
    uint64_t v;

    if (buf == NULL)
        return -1;
    trim(&b, &e);
    if (b < e && (*b == '-' || *b == '+')) {
        neg = *b == '-';
        b++;
    }
    if (digits_u64(b, e, 10, &v) != 0)
        return -1;
    if (!neg && v > (uint64_t)INT64_MAX)
        return -1;
    if (neg && v > (uint64_t)INT64_MAX + 1)
        return -1;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return 0;
}

int parse_hex_u64(const char *buf, size_t len, uint64_t *out)
{
    const char *b = buf, *e = buf + len;

    if (buf == NULL)
        return -1;
    trim(&b, &e);
    if (e - b > 2 && b[0] == '0' && (b[1] == 'x' || b[1] == 'X'))
        b += 2;
    return digits_u64(b, e, 16, out);
}

static const char *const kfd_key_names[KFD_KEY_COUNT] = {
    [KFD_SIMD_COUNT] = "simd_count",
    [KFD_SIMD_PER_CU] = "simd_per_cu",
    [KFD_GFX_TARGET_VERSION] = "gfx_target_version",
    [KFD_VENDOR_ID] = "vendor_id",
    [KFD_DEVICE_ID] = "device_id",
    [KFD_LOCATION_ID] = "location_id",
    [KFD_DOMAIN] = "domain",
    [KFD_DRM_RENDER_MINOR] = "drm_render_minor",
    [KFD_HIVE_ID] = "hive_id",
    [KFD_UNIQUE_ID] = "unique_id",
    [KFD_NUM_XCC] = "num_xcc",
    [KFD_MAX_ENGINE_CLK_FCOMPUTE] = "max_engine_clk_fcompute",
    [KFD_LOCAL_MEM_SIZE] = "local_mem_size",
    [KFD_CPU_CORES_COUNT] = "cpu_cores_count",
    [KFD_TYPE] = "type",
    [KFD_NODE_FROM] = "node_from",
    [KFD_NODE_TO] = "node_to",
    [KFD_WEIGHT] = "weight",
    [KFD_MAX_BANDWIDTH] = "max_bandwidth",
    [KFD_SIZE_IN_BYTES] = "size_in_bytes",
};

int parse_kfd_properties(const char *buf, size_t len, kfd_properties_t *out)
{
    kfd_properties_t p;
    const char *line = buf, *end = buf + len;

    if (buf == NULL)
        return -1;
    memset(&p, 0, sizeof(p));
    while (line < end) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        const char *le = nl ? nl : end;
        const char *b = line, *e = le, *sp;

        trim(&b, &e);
        line = nl ? nl + 1 : end;
        if (b == e)
            continue;
        sp = memchr(b, ' ', (size_t)(e - b));
        if (sp == NULL || sp == b)
            return -1;
        uint64_t v;
        if (parse_u64(sp + 1, (size_t)(e - sp - 1), &v) != 0) {
            /* some kernels print signed values (e.g. -1); keep going but
             * never record them */
            int64_t sv;
            if (parse_i64(sp + 1, (size_t)(e - sp - 1), &sv) != 0)
                return -1;
            continue;
        }
        size_t klen = (size_t)(sp - b);
        for (int k = 0; k < KFD_KEY_COUNT; k++) {
            if (strlen(kfd_key_names[k]) == klen && memcmp(kfd_key_names[k], b, klen) == 0) {
                p.value[k] = v;
                p.present |= 1u << k;
                break;
            }
        }
    }
    *out = p;
    return 0;
}

static const char *const partition_modes[] = {
    "SPX", "DPX", "TPX", "QPX", "CPX", "NPS1", "NPS2", "NPS3", "NPS4", "NPS6", "NPS8",
};

/* Upper-cased token [b, e) if it is a known mode. */
static int known_mode(const char *b, const char *e, char out[8])
{
    char tok[8];
    size_t n = (size_t)(e - b);

    if (n == 0 || n >= sizeof(tok))
        return -1;
    for (size_t i = 0; i < n; i++)
        tok[i] = (char)toupper((unsigned char)b[i]);
    tok[n] = '\0';
    for (size_t i = 0; i < sizeof(partition_modes) / sizeof(*partition_modes); i++) {
        if (strcmp(tok, partition_modes[i]) == 0) {
            memcpy(out, tok, n + 1);
            return 0;
        }
    }
    return -1;
}

int parse_partition_mode(const char *buf, size_t len, char out[8])
{
    const char *b = buf, *e = buf + len, *t;

    if (buf == NULL)
        return -1;
    trim(&b, &e);
    for (t = b; t < e && !is_space(*t) && *t != ','; t++)
        ;
    return known_mode(b, t, out);
}

int parse_partition_list(const char *buf, size_t len, char *out, size_t outlen)
{
    const char *b = buf, *e = buf + len;
    size_t used = 0;

    if (buf == NULL || out == NULL || outlen == 0)
        return -1;
    trim(&b, &e);
    /* collect first so out stays untouched on failure */
    char acc[128];
    acc[0] = '\0';
    while (b < e) {
        const char *t = b;
        char mode[8];
        while (t < e && *t != ',' && !is_space(*t))
            t++;
        if (known_mode(b, t, mode) == 0) {
            size_t ml = strlen(mode);
            size_t need = used + (used ? 2 : 0) + ml;
            if (need + 1 > sizeof(acc))
                return -1;
            if (used) {
                memcpy(acc + used, ", ", 2);
                used += 2;
            }
            memcpy(acc + used, mode, ml + 1);
            used += ml;
        }
        b = t;
        while (b < e && (*b == ',' || is_space(*b)))
            b++;
    }
    if (used + 1 > outlen)
        return -1;
    memcpy(out, acc, used + 1);
    return 0;
}

int parse_link_speed_gen(const char *buf, size_t len, uint32_t *gen)
{
    static const struct {
        const char *speed;
        uint32_t gen;
    } table[] = {
        { "2.5", 1 }, { "5.0", 2 },  { "5", 2 },  { "8.0", 3 },  { "8", 3 },  { "16.0", 4 },
        { "16", 4 },  { "32.0", 5 }, { "32", 5 }, { "64.0", 6 }, { "64", 6 },
    };
    const char *b = buf, *e = buf + len, *t;

    if (buf == NULL)
        return -1;
    trim(&b, &e);
    for (t = b; t < e && !is_space(*t); t++)
        ;
    /* the unit must follow: "GT/s" */
    const char *u = t;
    while (u < e && is_space(*u))
        u++;
    if ((size_t)(e - u) < 4 || memcmp(u, "GT/s", 4) != 0)
        return -1;
    for (size_t i = 0; i < sizeof(table) / sizeof(*table); i++) {
        size_t n = strlen(table[i].speed);
        if ((size_t)(t - b) == n && memcmp(b, table[i].speed, n) == 0) {
            *gen = table[i].gen;
            return 0;
        }
    }
    return -1;
}

int parse_uevent_slot(const char *buf, size_t len, uint32_t *domain, uint32_t *bus, uint32_t *dev,
                      uint32_t *fn)
{
    static const char key[] = "PCI_SLOT_NAME=";
    const char *line = buf, *end = buf + len;

    if (buf == NULL)
        return -1;
    while (line < end) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        const char *le = nl ? nl : end;
        size_t kl = sizeof(key) - 1;
        if ((size_t)(le - line) > kl && memcmp(line, key, kl) == 0) {
            const char *s = line + kl;
            /* dddd:bb:dd.f: fixed positions, hex */
            uint64_t d, b, v, f;
            if (le - s != 12 || s[4] != ':' || s[7] != ':' || s[10] != '.')
                return -1;
            if (parse_hex_u64(s, 4, &d) || parse_hex_u64(s + 5, 2, &b) ||
                parse_hex_u64(s + 8, 2, &v) || parse_hex_u64(s + 11, 1, &f))
                return -1;
            if (v > 31 || f > 7)
                return -1;
            *domain = (uint32_t)d;
            *bus = (uint32_t)b;
            *dev = (uint32_t)v;
            *fn = (uint32_t)f;
            return 0;
        }
        line = nl ? nl + 1 : end;
    }
    return -1;
}

static uint16_t le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}

int parse_gpu_metrics(const uint8_t *buf, size_t len, gpu_metrics_summary_t *out)
{
    gpu_metrics_summary_t m;
    size_t size;

    if (buf == NULL || len < 4)
        return -1;
    memset(&m, 0, sizeof(m));
    size = le16(buf);
    m.format_revision = buf[2];
    m.content_revision = buf[3];
    if (size < 4 || size > len || m.format_revision != 1)
        return -1;

    /* Offsets of struct gpu_metrics_v1_1..v1_3 (edge first) and of
     * v1_4 and later (MI300: no edge sensor, current socket power). */
    if (m.content_revision >= 1 && m.content_revision <= 3) {
        if (size < 24)
            return -1;
        uint16_t edge = le16(buf + 4), hot = le16(buf + 6), mem = le16(buf + 8),
                 act = le16(buf + 16), pwr = le16(buf + 22);
        if (edge != UINT16_MAX) {
            m.temp_edge_c = edge;
            m.have_edge = 1;
        }
        if (hot != UINT16_MAX) {
            m.temp_hotspot_c = hot;
            m.have_hotspot = 1;
        }
        if (mem != UINT16_MAX) {
            m.temp_mem_c = mem;
            m.have_mem = 1;
        }
        if (act != UINT16_MAX) {
            m.gfx_activity = act;
            m.have_activity = 1;
        }
        if (pwr != UINT16_MAX) {
            m.socket_power_w = pwr;
            m.have_power = 1;
        }
    } else if (m.content_revision >= 4) {
        if (size < 16)
            return -1;
        uint16_t hot = le16(buf + 4), mem = le16(buf + 6), pwr = le16(buf + 10),
                 act = le16(buf + 12);
        if (hot != UINT16_MAX) {
            m.temp_hotspot_c = hot;
            m.have_hotspot = 1;
        }
        if (mem != UINT16_MAX) {
            m.temp_mem_c = mem;
            m.have_mem = 1;
        }
        if (pwr != UINT16_MAX) {
            m.socket_power_w = pwr;
            m.have_power = 1;
        }
        if (act != UINT16_MAX) {
            m.gfx_activity = act;
            m.have_activity = 1;
        }
    } else {
        return -1;
    }
    *out = m;
    return 0;
}
