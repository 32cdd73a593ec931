/*
 * metadata.c - decode the amdhsa metadata map of an AMDGPU code object
 * (code object v3+; the same schema in v4 and v5, v5 adding hidden
 * argument kinds). Field names are those of the AMDGPU backend's
 * documented "AMDHSA Code Object V3+ Metadata Map":
 *
 *   { "amdhsa.version": [major, minor],
 *     "amdhsa.target": "amdgcn-amd-amdhsa--gfx90a",
 *     "amdhsa.kernels": [ { ".name", ".symbol", ".kernarg_segment_size",
 *         ..., ".args": [ { ".offset", ".size", ".value_kind", ... } ] } ] }
 *
 * Unknown keys are skipped (bounded), known keys with the wrong type are
 * errors naming the path. All strings are copied into one pool sized from
 * the input (each copied string is a distinct input range, so the pool
 * can never overflow), which keeps the error paths to one free.
 */
#include "hw_alloc.h"
#include "cob_internal.h"
#include "msgpack.h"

#include <stdlib.h>

typedef struct dec {
    hw_mp_reader r;
    char *pool;
    size_t pool_used, pool_size;
    hw_cob_err *err;
    char path[96];
} dec;

static int mp_fail(dec *d, int mprc)
{
    return cob_fail(d->err,
                    mprc == HW_MP_ECOUNT || mprc == HW_MP_EDEPTH ? HW_COB_ELIMIT
                    : mprc == HW_MP_ETRUNC                       ? HW_COB_ETRUNC
                                                                 : HW_COB_EFORMAT,
                    "metadata %s: %s", d->path, hw_mp_strerror(mprc));
}

static int rd(dec *d, hw_mp_obj *o)
{
    int rc = hw_mp_read(&d->r, o);
    return rc ? mp_fail(d, rc) : HW_COB_OK;
}

static int skip(dec *d, unsigned depth_used)
{
    int rc = hw_mp_skip(&d->r, HW_MP_MAX_DEPTH - depth_used);
    return rc ? mp_fail(d, rc) : HW_COB_OK;
}

static int want(dec *d, const hw_mp_obj *o, hw_mp_type t)
{
    if (o->type == t)
        return HW_COB_OK;
    return cob_fail(d->err, HW_COB_EFORMAT, "metadata %s: expected %s, got %s", d->path,
                    hw_mp_type_name(t), hw_mp_type_name(o->type));
}

static int rd_u32(dec *d, uint32_t *v)
{
    hw_mp_obj o;
    int rc = rd(d, &o);
    if (!rc)
        rc = want(d, &o, HW_MP_UINT);
    if (rc)
        return rc;
    if (o.u > UINT32_MAX)
        return cob_fail(d->err, HW_COB_ELIMIT, "metadata %s: %llu does not fit 32 bits", d->path,
                        (unsigned long long)o.u);
    *v = (uint32_t)o.u;
    return HW_COB_OK;
}

static int rd_str(dec *d, const char **s)
{
    hw_mp_obj o;
    int rc = rd(d, &o);
    if (!rc)
        rc = want(d, &o, HW_MP_STR);
    if (rc)
        return rc;
    if (memchr(o.data, 0, o.len))
        return cob_fail(d->err, HW_COB_EFORMAT, "metadata %s: string holds a NUL byte", d->path);
    if (d->pool_size - d->pool_used < (size_t)o.len + 1)
        return cob_fail(d->err, HW_COB_EFORMAT,
                        "metadata %s: string pool "
                        "exhausted (cannot happen)",
                        d->path);
    char *dst = d->pool + d->pool_used;
    memcpy(dst, o.data, o.len);
    dst[o.len] = '\0';
    d->pool_used += (size_t)o.len + 1;
    *s = dst;
    return HW_COB_OK;
}

/* Error paths name where in the map a problem is: kernel ki, argument ai
 * (or -1 for none), and the key being read (or NULL). */
static void set_path(dec *d, unsigned ki, long ai, const hw_mp_obj *key)
{
    int kl = key && key->type == HW_MP_STR ? (int)(key->len < 40 ? key->len : 40) : 0;
    const char *ks = kl ? (const char *)key->data : "";
    if (ai < 0)
        snprintf(d->path, sizeof d->path, "amdhsa.kernels[%u]%.*s", ki, kl, ks);
    else
        snprintf(d->path, sizeof d->path, "amdhsa.kernels[%u].args[%ld]%.*s", ki, ai, kl, ks);
}

static hw_cob_arg_kind arg_kind(const char *vk)
{
    static const struct {
        const char *s;
        hw_cob_arg_kind k;
    } kinds[] = {
        { "by_value", HW_COB_ARG_BY_VALUE },
        { "global_buffer", HW_COB_ARG_GLOBAL_BUFFER },
        { "dynamic_shared_pointer", HW_COB_ARG_DYNAMIC_SHARED_POINTER },
        { "image", HW_COB_ARG_IMAGE },
        { "sampler", HW_COB_ARG_SAMPLER },
        { "pipe", HW_COB_ARG_PIPE },
        { "queue", HW_COB_ARG_QUEUE },
    };
    if (strncmp(vk, "hidden_", 7) == 0)
        return HW_COB_ARG_HIDDEN;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        if (strcmp(vk, kinds[k].s) == 0)
            return kinds[k].k;
    return HW_COB_ARG_OTHER;
}

enum { HAVE_OFFSET = 1, HAVE_SIZE = 2, HAVE_KIND = 4 };

/* One element of .args; depth_used counts the containers around it. */
static int dec_arg(dec *d, unsigned ki, unsigned ai, hw_cob_arg *a)
{
    hw_mp_obj o;
    set_path(d, ki, ai, NULL);
    int rc = rd(d, &o);
    if (!rc)
        rc = want(d, &o, HW_MP_MAP);
    if (rc)
        return rc;
    unsigned have = 0;
    memset(a, 0, sizeof *a);
    for (uint32_t k = 0; k < o.len; k++) {
        hw_mp_obj key;
        set_path(d, ki, ai, NULL);
        if ((rc = rd(d, &key)) || (rc = want(d, &key, HW_MP_STR)))
            return rc;
        set_path(d, ki, ai, &key);
        if (hw_mp_str_eq(&key, ".offset")) {
            rc = rd_u32(d, &a->offset);
            have |= HAVE_OFFSET;
        } else if (hw_mp_str_eq(&key, ".size")) {
            rc = rd_u32(d, &a->size);
            have |= HAVE_SIZE;
        } else if (hw_mp_str_eq(&key, ".value_kind")) {
            rc = rd_str(d, &a->value_kind);
            have |= HAVE_KIND;
        } else if (hw_mp_str_eq(&key, ".name")) {
            rc = rd_str(d, &a->name);
        } else if (hw_mp_str_eq(&key, ".type_name")) {
            rc = rd_str(d, &a->type_name);
        } else if (hw_mp_str_eq(&key, ".address_space")) {
            rc = rd_str(d, &a->address_space);
        } else {
            rc = skip(d, 5);
        }
        if (rc)
            return rc;
    }
    if ((have & (HAVE_OFFSET | HAVE_SIZE | HAVE_KIND)) != (HAVE_OFFSET | HAVE_SIZE | HAVE_KIND))
        return cob_fail(d->err, HW_COB_EFORMAT, "metadata amdhsa.kernels[%u].args[%u]: missing %s",
                        ki, ai,
                        !(have & HAVE_OFFSET) ? ".offset"
                        : !(have & HAVE_SIZE) ? ".size"
                                              : ".value_kind");
    a->kind = arg_kind(a->value_kind);
    return HW_COB_OK;
}

enum { HAVE_NAME = 1, HAVE_SYMBOL = 2, HAVE_KASIZE = 4 };

static int dec_kernel(dec *d, unsigned ki, hw_cob_kernel *kn)
{
    hw_mp_obj o;
    set_path(d, ki, -1, NULL);
    int rc = rd(d, &o);
    if (!rc)
        rc = want(d, &o, HW_MP_MAP);
    if (rc)
        return rc;
    unsigned have = 0;
    uint32_t total = 0;
    for (uint32_t k = 0; k < o.len; k++) {
        hw_mp_obj key;
        set_path(d, ki, -1, NULL);
        if ((rc = rd(d, &key)) || (rc = want(d, &key, HW_MP_STR)))
            return rc;
        set_path(d, ki, -1, &key);
        if (hw_mp_str_eq(&key, ".name")) {
            rc = rd_str(d, &kn->name);
            have |= HAVE_NAME;
        } else if (hw_mp_str_eq(&key, ".symbol")) {
            rc = rd_str(d, &kn->symbol);
            have |= HAVE_SYMBOL;
        } else if (hw_mp_str_eq(&key, ".kernarg_segment_size")) {
            rc = rd_u32(d, &kn->kernarg_segment_size);
            have |= HAVE_KASIZE;
        } else if (hw_mp_str_eq(&key, ".kernarg_segment_align")) {
            rc = rd_u32(d, &kn->kernarg_segment_align);
        } else if (hw_mp_str_eq(&key, ".group_segment_fixed_size")) {
            rc = rd_u32(d, &kn->group_segment_fixed_size);
        } else if (hw_mp_str_eq(&key, ".private_segment_fixed_size")) {
            rc = rd_u32(d, &kn->private_segment_fixed_size);
        } else if (hw_mp_str_eq(&key, ".sgpr_count")) {
            rc = rd_u32(d, &kn->sgpr_count);
        } else if (hw_mp_str_eq(&key, ".vgpr_count")) {
            rc = rd_u32(d, &kn->vgpr_count);
        } else if (hw_mp_str_eq(&key, ".agpr_count")) {
            rc = rd_u32(d, &kn->agpr_count);
        } else if (hw_mp_str_eq(&key, ".max_flat_workgroup_size")) {
            rc = rd_u32(d, &kn->max_flat_workgroup_size);
        } else if (hw_mp_str_eq(&key, ".wavefront_size")) {
            rc = rd_u32(d, &kn->wavefront_size);
        } else if (hw_mp_str_eq(&key, ".args")) {
            hw_mp_obj arr;
            if (kn->args)
                return cob_fail(d->err, HW_COB_EFORMAT, "metadata %s: given twice", d->path);
            if ((rc = rd(d, &arr)) || (rc = want(d, &arr, HW_MP_ARRAY)))
                return rc;
            if (arr.len > HW_COB_MAX_ARGS)
                return cob_fail(d->err, HW_COB_ELIMIT, "metadata %s: %u arguments (limit %u)",
                                d->path, arr.len, HW_COB_MAX_ARGS);
            /* hw_calloc(0) may return NULL; one spare slot keeps args non-NULL
             * as the "seen" marker. */
            kn->args = hw_calloc((size_t)arr.len + 1, sizeof *kn->args);
            if (!kn->args)
                return cob_fail(d->err, HW_COB_ENOMEM, "metadata: out of memory");
            total = arr.len;
            for (uint32_t ai = 0; ai < arr.len; ai++)
                if ((rc = dec_arg(d, ki, ai, &kn->args[ai])))
                    return rc;
        } else {
            rc = skip(d, 3);
        }
        if (rc)
            return rc;
    }
    if ((have & (HAVE_NAME | HAVE_SYMBOL | HAVE_KASIZE)) != (HAVE_NAME | HAVE_SYMBOL | HAVE_KASIZE))
        return cob_fail(d->err, HW_COB_EFORMAT, "metadata amdhsa.kernels[%u]: missing %s", ki,
                        !(have & HAVE_NAME)     ? ".name"
                        : !(have & HAVE_SYMBOL) ? ".symbol"
                                                : ".kernarg_segment_size");
    if (!kn->args) {
        kn->args = hw_calloc(1, sizeof *kn->args);
        if (!kn->args)
            return cob_fail(d->err, HW_COB_ENOMEM, "metadata: out of memory");
    }
    /* Every argument must lie inside the kernarg segment: the proxy copies
     * caller data to these offsets. */
    for (uint32_t ai = 0; ai < total; ai++) {
        const hw_cob_arg *a = &kn->args[ai];
        if ((uint64_t)a->offset + a->size > kn->kernarg_segment_size)
            return cob_fail(d->err, HW_COB_EFORMAT,
                            "metadata amdhsa.kernels[%u] (%s).args[%u]: "
                            "offset %u + size %u past kernarg_segment_size %u",
                            ki, kn->name, ai, a->offset, a->size, kn->kernarg_segment_size);
    }
    /* Stable partition: HIP-visible arguments first, hidden after. */
    hw_cob_arg *tmp = hw_malloc(((size_t)total + 1) * sizeof *tmp);
    if (!tmp)
        return cob_fail(d->err, HW_COB_ENOMEM, "metadata: out of memory");
    uint32_t nv = 0, nh = 0;
    for (uint32_t ai = 0; ai < total; ai++)
        if (kn->args[ai].kind != HW_COB_ARG_HIDDEN)
            tmp[nv++] = kn->args[ai];
    for (uint32_t ai = 0; ai < total; ai++)
        if (kn->args[ai].kind == HW_COB_ARG_HIDDEN)
            tmp[nv + nh++] = kn->args[ai];
    memcpy(kn->args, tmp, (size_t)total * sizeof *tmp);
    free(tmp);
    kn->nargs = nv;
    kn->nhidden = nh;
    kn->hidden = kn->args + nv;
    kn->explicit_size = 0;
    for (uint32_t ai = 0; ai < nv; ai++)
        if (kn->args[ai].offset + kn->args[ai].size > kn->explicit_size)
            kn->explicit_size = kn->args[ai].offset + kn->args[ai].size;
    return HW_COB_OK;
}

void hw_cob_metadata_free(hw_cob_metadata *m)
{
    if (!m)
        return;
    for (uint32_t k = 0; m->kernels && k < m->nkernels; k++)
        free(m->kernels[k].args);
    free(m->kernels);
    free(m->pool);
    memset(m, 0, sizeof *m);
}

int hw_cob_metadata_decode(const void *msgpack, size_t len, hw_cob_metadata *out, hw_cob_err *err)
{
    if (!msgpack || !out)
        return cob_fail(err, HW_COB_EINVAL, "metadata: NULL argument");
    if (len > HW_COB_MAX_NOTE)
        return cob_fail(err, HW_COB_ELIMIT, "metadata: %zu bytes (limit %u)", len, HW_COB_MAX_NOTE);
    hw_cob_metadata m;
    memset(&m, 0, sizeof m);
    dec d;
    memset(&d, 0, sizeof d);
    hw_mp_init(&d.r, msgpack, len);
    d.err = err;
    snprintf(d.path, sizeof d.path, "root");
    /* Strings total at most len bytes plus one NUL each (at most len). */
    d.pool_size = 2 * len + 1;
    d.pool = hw_malloc(d.pool_size);
    int rc = HW_COB_OK;
    bool have_kernels = false, have_version = false;
    if (!d.pool) {
        rc = cob_fail(err, HW_COB_ENOMEM, "metadata: out of memory");
        goto fail;
    }
    m.pool = d.pool;
    hw_mp_obj o;
    if ((rc = rd(&d, &o)) || (rc = want(&d, &o, HW_MP_MAP)))
        goto fail;
    for (uint32_t k = 0; k < o.len; k++) {
        hw_mp_obj key;
        snprintf(d.path, sizeof d.path, "root key");
        if ((rc = rd(&d, &key)) || (rc = want(&d, &key, HW_MP_STR)))
            goto fail;
        snprintf(d.path, sizeof d.path, "%.*s", (int)(key.len < 40 ? key.len : 40),
                 (const char *)key.data);
        if (hw_mp_str_eq(&key, "amdhsa.version")) {
            hw_mp_obj arr;
            if ((rc = rd(&d, &arr)) || (rc = want(&d, &arr, HW_MP_ARRAY)))
                goto fail;
            if (arr.len < 2) {
                rc = cob_fail(err, HW_COB_EFORMAT, "metadata amdhsa.version: %u elements, need 2",
                              arr.len);
                goto fail;
            }
            if ((rc = rd_u32(&d, &m.version_major)) || (rc = rd_u32(&d, &m.version_minor)))
                goto fail;
            for (uint32_t j = 2; j < arr.len; j++)
                if ((rc = skip(&d, 2)))
                    goto fail;
            have_version = true;
        } else if (hw_mp_str_eq(&key, "amdhsa.target")) {
            if ((rc = rd_str(&d, &m.target)))
                goto fail;
        } else if (hw_mp_str_eq(&key, "amdhsa.kernels")) {
            hw_mp_obj arr;
            if (have_kernels) {
                rc = cob_fail(err, HW_COB_EFORMAT, "metadata amdhsa.kernels: given twice");
                goto fail;
            }
            if ((rc = rd(&d, &arr)) || (rc = want(&d, &arr, HW_MP_ARRAY)))
                goto fail;
            if (arr.len > HW_COB_MAX_KERNELS) {
                rc = cob_fail(err, HW_COB_ELIMIT, "metadata amdhsa.kernels: %u kernels (limit %u)",
                              arr.len, HW_COB_MAX_KERNELS);
                goto fail;
            }
            have_kernels = true;
            m.kernels = hw_calloc((size_t)arr.len + 1, sizeof *m.kernels);
            if (!m.kernels) {
                rc = cob_fail(err, HW_COB_ENOMEM, "metadata: out of memory");
                goto fail;
            }
            for (uint32_t ki = 0; ki < arr.len; ki++) {
                /* Counted before decoding so that free sees its args. */
                m.nkernels = ki + 1;
                if ((rc = dec_kernel(&d, ki, &m.kernels[ki])))
                    goto fail;
            }
        } else {
            if ((rc = skip(&d, 1)))
                goto fail;
        }
    }
    if (!have_version) {
        rc = cob_fail(err, HW_COB_EFORMAT, "metadata: no amdhsa.version");
        goto fail;
    }
    if (!have_kernels) {
        /* A code object without kernels is legal (device libraries). */
        m.kernels = hw_calloc(1, sizeof *m.kernels);
        if (!m.kernels) {
            rc = cob_fail(err, HW_COB_ENOMEM, "metadata: out of memory");
            goto fail;
        }
    }
    *out = m;
    return HW_COB_OK;

fail:
    hw_cob_metadata_free(&m);
    return rc;
}

const hw_cob_kernel *hw_cob_find_kernel(const hw_cob_metadata *m, const char *name)
{
    if (!m || !name)
        return NULL;
    size_t n = strlen(name);
    for (uint32_t k = 0; k < m->nkernels; k++) {
        const hw_cob_kernel *kn = &m->kernels[k];
        if (strcmp(kn->name, name) == 0 || strcmp(kn->symbol, name) == 0)
            return kn;
        /* "foo" finds the kernel whose descriptor symbol is "foo.kd". */
        if (strncmp(kn->symbol, name, n) == 0 && strcmp(kn->symbol + n, ".kd") == 0)
            return kn;
    }
    return NULL;
}
