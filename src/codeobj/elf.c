/*
 * elf.c - AMDGPU code objects: ELF64 little-endian, e_machine EM_AMDGPU
 * (224), e_ident[EI_OSABI] ELFOSABI_AMDGPU_HSA (64), and
 * e_ident[EI_ABIVERSION] 1/2/3/4 for code object v3/v4/v5/v6. The kernel
 * metadata lives in a note of owner "AMDGPU", type NT_AMDGPU_METADATA (32),
 * whose descriptor is a MessagePack map (metadata.c decodes it).
 *
 * Notes are found through PT_NOTE program headers (linked code objects)
 * or, when there are none (relocatable objects), SHT_NOTE sections.
 */
#include "cob_internal.h"

#define EM_AMDGPU           224
#define ELFOSABI_AMDGPU_HSA 64
#define NT_AMDGPU_METADATA  32
#define PT_NOTE             4
#define SHT_NOTE            7
#define SHT_NOBITS          8
#define EHDR_SIZE           64
#define PHDR_SIZE           56
#define SHDR_SIZE           64

int cob_elf_open(const uint8_t *p, size_t len, cob_elf_view *v, bool need_amdgpu, hw_cob_err *err)
{
    if (len < EHDR_SIZE)
        return cob_fail(err, HW_COB_ETRUNC, "ELF: %zu bytes, header needs %d", len, EHDR_SIZE);
    if (memcmp(p,
               "\x7f"
               "ELF",
               4) != 0)
        return cob_fail(err, HW_COB_EFORMAT, "ELF: no \\x7fELF magic");
    if (p[4] != 2 || p[5] != 1)
        return cob_fail(err, HW_COB_EFORMAT, "ELF: class %u data %u, need 64-bit little-endian",
                        p[4], p[5]);
    uint16_t machine = le16(p + 18);
    if (need_amdgpu && machine != EM_AMDGPU)
        return cob_fail(err, HW_COB_EFORMAT, "ELF: e_machine %u is not EM_AMDGPU (224)", machine);
    v->p = p;
    v->len = len;
    v->phoff = le64(p + 32);
    v->shoff = le64(p + 40);
    v->flags = le32(p + 48);
    v->phentsize = le16(p + 54);
    v->phnum = le16(p + 56);
    v->shentsize = le16(p + 58);
    v->shnum = le16(p + 60);
    v->abiversion = p[8];
    if (v->phnum && v->phentsize < PHDR_SIZE)
        return cob_fail(err, HW_COB_EFORMAT, "ELF: e_phentsize %u < %d", v->phentsize, PHDR_SIZE);
    if (v->shnum && v->shentsize < SHDR_SIZE)
        return cob_fail(err, HW_COB_EFORMAT, "ELF: e_shentsize %u < %d", v->shentsize, SHDR_SIZE);
    if (v->shnum == 0 && v->shoff != 0 && need_amdgpu)
        return cob_fail(err, HW_COB_ENOTSUP, "ELF: extended section numbering not supported");
    /* Whole tables in range, computed in 64 bits (counts are 16-bit, so
     * count * entsize cannot overflow). */
    uint64_t ph_bytes = (uint64_t)v->phnum * v->phentsize;
    uint64_t sh_bytes = (uint64_t)v->shnum * v->shentsize;
    if (v->phnum && (v->phoff > len || ph_bytes > len - v->phoff))
        return cob_fail(err, HW_COB_ETRUNC, "ELF: program headers (%u at %llu) past %zu bytes",
                        v->phnum, (unsigned long long)v->phoff, len);
    if (v->shnum && (v->shoff > len || sh_bytes > len - v->shoff))
        return cob_fail(err, HW_COB_ETRUNC, "ELF: section headers (%u at %llu) past %zu bytes",
                        v->shnum, (unsigned long long)v->shoff, len);
    return HW_COB_OK;
}

int cob_elf_image_size(const uint8_t *p, size_t max, uint64_t *size, hw_cob_err *err)
{
    /* Sizing from an address: read the ELF header, then the two header
     * tables it names, and take the furthest byte anything covers. */
    if (max < EHDR_SIZE)
        return cob_fail(err, HW_COB_ETRUNC, "ELF: header past the image");
    uint64_t phoff = le64(p + 32), shoff = le64(p + 40);
    uint16_t phentsize = le16(p + 54), phnum = le16(p + 56);
    uint16_t shentsize = le16(p + 58), shnum = le16(p + 60);
    uint64_t end = EHDR_SIZE;
    uint64_t ph_bytes = (uint64_t)phnum * phentsize;
    uint64_t sh_bytes = (uint64_t)shnum * shentsize;
    if (phnum) {
        if (phentsize < PHDR_SIZE || phoff > max || ph_bytes > max - phoff)
            return cob_fail(err, HW_COB_ETRUNC, "ELF: program headers out of range");
        if (phoff + ph_bytes > end)
            end = phoff + ph_bytes;
    }
    if (shnum) {
        if (shentsize < SHDR_SIZE || shoff > max || sh_bytes > max - shoff)
            return cob_fail(err, HW_COB_ETRUNC, "ELF: section headers out of range");
        if (shoff + sh_bytes > end)
            end = shoff + sh_bytes;
    }
    for (uint16_t k = 0; k < phnum; k++) {
        const uint8_t *ph = p + phoff + (uint64_t)k * phentsize;
        uint64_t off = le64(ph + 8), fsz = le64(ph + 32);
        if (off > UINT64_MAX - fsz)
            return cob_fail(err, HW_COB_EFORMAT, "ELF: segment %u overflows", k);
        if (fsz && off + fsz > end)
            end = off + fsz;
    }
    for (uint16_t k = 0; k < shnum; k++) {
        const uint8_t *sh = p + shoff + (uint64_t)k * shentsize;
        uint32_t type = le32(sh + 4);
        uint64_t off = le64(sh + 24), sz = le64(sh + 32);
        if (type == SHT_NOBITS || type == 0)
            continue;
        if (off > UINT64_MAX - sz)
            return cob_fail(err, HW_COB_EFORMAT, "ELF: section %u overflows", k);
        if (sz && off + sz > end)
            end = off + sz;
    }
    if (end > max)
        return cob_fail(err, HW_COB_ETRUNC, "ELF: contents end at %llu, past %zu bytes",
                        (unsigned long long)end, max);
    *size = end;
    return HW_COB_OK;
}

/* Scan one note area [off, off+sz) for the AMDGPU metadata note.
 * Returns OK with *desc set, ENOTFOUND, or an error for a malformed note. */
static int scan_notes(const cob_elf_view *v, uint64_t off, uint64_t sz, uint64_t align,
                      const uint8_t **desc, size_t *desc_len, hw_cob_err *err)
{
    if (off > v->len || sz > v->len - off)
        return cob_fail(err, HW_COB_ETRUNC, "ELF: note area (%llu bytes at %llu) past %zu bytes",
                        (unsigned long long)sz, (unsigned long long)off, v->len);
    /* Notes pad name and descriptor to 4 bytes, or 8 in 8-aligned areas. */
    uint64_t a = align == 8 ? 8 : 4;
    const uint8_t *p = v->p + off;
    uint64_t pos = 0;
    while (sz - pos >= 12) {
        uint32_t namesz = le32(p + pos), descsz = le32(p + pos + 4);
        uint32_t type = le32(p + pos + 8);
        uint64_t name_pad = ((uint64_t)namesz + a - 1) & ~(a - 1);
        uint64_t desc_pad = ((uint64_t)descsz + a - 1) & ~(a - 1);
        uint64_t rest = sz - pos - 12;
        if (name_pad > rest || descsz > rest - name_pad)
            return cob_fail(err, HW_COB_ETRUNC,
                            "ELF: note at %llu (name %u, desc %u bytes) runs "
                            "past its area",
                            (unsigned long long)(off + pos), namesz, descsz);
        const uint8_t *name = p + pos + 12;
        const uint8_t *d = name + name_pad;
        /* The owner is "AMDGPU" with its NUL (namesz 7). */
        if (type == NT_AMDGPU_METADATA && namesz == 7 && memcmp(name, "AMDGPU", 7) == 0) {
            if (descsz > HW_COB_MAX_NOTE)
                return cob_fail(err, HW_COB_ELIMIT, "ELF: metadata note of %u bytes (limit %u)",
                                descsz, HW_COB_MAX_NOTE);
            *desc = d;
            *desc_len = descsz;
            return HW_COB_OK;
        }
        /* The last note may omit its descriptor padding. */
        if (desc_pad > rest - name_pad)
            break;
        pos += 12 + name_pad + desc_pad;
    }
    return HW_COB_ENOTFOUND;
}

int hw_cob_elf_find_metadata_note(const void *elf, size_t len, const uint8_t **desc,
                                  size_t *desc_len, hw_cob_err *err)
{
    if (!elf || !desc || !desc_len)
        return cob_fail(err, HW_COB_EINVAL, "ELF: NULL argument");
    cob_elf_view v = { 0 };
    int rc = cob_elf_open(elf, len, &v, true, err);
    if (rc)
        return rc;
    const uint8_t *d = NULL;
    size_t dl = 0;
    rc = HW_COB_ENOTFOUND;
    for (uint16_t k = 0; k < v.phnum && rc == HW_COB_ENOTFOUND; k++) {
        const uint8_t *ph = v.p + v.phoff + (uint64_t)k * v.phentsize;
        if (le32(ph) != PT_NOTE)
            continue;
        rc = scan_notes(&v, le64(ph + 8), le64(ph + 32), le64(ph + 48), &d, &dl, err);
    }
    for (uint16_t k = 0; k < v.shnum && rc == HW_COB_ENOTFOUND; k++) {
        const uint8_t *sh = v.p + v.shoff + (uint64_t)k * v.shentsize;
        if (le32(sh + 4) != SHT_NOTE)
            continue;
        rc = scan_notes(&v, le64(sh + 24), le64(sh + 32), le64(sh + 48), &d, &dl, err);
    }
    if (rc == HW_COB_ENOTFOUND)
        return cob_fail(err, HW_COB_ENOTFOUND,
                        "ELF: no NT_AMDGPU_METADATA note (owner AMDGPU, type "
                        "32); code object v2 and older are not supported");
    if (rc)
        return rc;
    *desc = d;
    *desc_len = dl;
    return HW_COB_OK;
}

int hw_cob_elf_metadata(const void *elf, size_t len, hw_cob_metadata *out, hw_cob_err *err)
{
    if (!elf || !out)
        return cob_fail(err, HW_COB_EINVAL, "ELF: NULL argument");
    cob_elf_view v = { 0 };
    int rc = cob_elf_open(elf, len, &v, true, err);
    if (rc)
        return rc;
    if (((const uint8_t *)elf)[7] != ELFOSABI_AMDGPU_HSA)
        return cob_fail(err, HW_COB_ENOTSUP, "ELF: OS/ABI %u is not AMDGPU HSA (64)",
                        ((const uint8_t *)elf)[7]);
    const uint8_t *d;
    size_t dl;
    rc = hw_cob_elf_find_metadata_note(elf, len, &d, &dl, err);
    if (rc)
        return rc;
    hw_cob_metadata m;
    rc = hw_cob_metadata_decode(d, dl, &m, err);
    if (rc)
        return rc;
    /* EI_ABIVERSION 1..4 = code object v3..v6. */
    m.code_object_version = v.abiversion >= 1 && v.abiversion <= 4 ? v.abiversion + 2u : 0;
    m.e_flags = v.flags;
    *out = m;
    return HW_COB_OK;
}
