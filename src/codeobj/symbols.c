/*
 * symbols.c - the symbol table of an AMDGPU code object.
 *
 * A device's __device__ and __constant__ variables are ELF data objects of
 * the code object (STT_OBJECT, defined in .data/.rodata/.bss). A worker that
 * cannot run the code object still gives a program those variables: their
 * sizes and initial bytes come from here.
 *
 * The full symbol table (.symtab) is read when present, else the dynamic one
 * (.dynsym); both list the variables in linked HIP code objects. Every
 * index, offset and name is checked against the image before it is used.
 */
#include "cob_internal.h"

#define SHT_SYMTAB    2
#define SHT_STRTAB    3
#define SHT_NOBITS    8
#define SHT_DYNSYM    11
#define SHN_LORESERVE 0xff00u
#define SYM_SIZE      24

typedef struct sym_table {
    const uint8_t *syms; /* first entry */
    uint64_t count, entsize;
    const char *strtab;
    uint64_t strsize;
} sym_table;

static const uint8_t *section(const cob_elf_view *v, uint32_t k)
{
    return v->p + v->shoff + (uint64_t)k * v->shentsize;
}

/* The section's file bytes, checked to lie in the image. */
static int section_bytes(const cob_elf_view *v, uint32_t k, uint64_t *off, uint64_t *size,
                         hw_cob_err *err)
{
    const uint8_t *sh = section(v, k);
    uint64_t o = le64(sh + 24), sz = le64(sh + 32);
    if (o > v->len || sz > v->len - o)
        return cob_fail(err, HW_COB_ETRUNC, "ELF: section %u (%llu bytes at %llu) past %zu bytes",
                        k, (unsigned long long)sz, (unsigned long long)o, v->len);
    *off = o;
    *size = sz;
    return HW_COB_OK;
}

static int find_table(const cob_elf_view *v, sym_table *t, hw_cob_err *err)
{
    uint32_t pick = 0;
    bool found = false;
    for (int pass = 0; pass < 2 && !found; pass++) {
        uint32_t want = pass == 0 ? SHT_SYMTAB : SHT_DYNSYM;
        for (uint32_t k = 0; k < v->shnum && !found; k++)
            if (le32(section(v, k) + 4) == want) {
                pick = k;
                found = true;
            }
    }
    if (!found)
        return cob_fail(err, HW_COB_ENOTFOUND, "ELF: no symbol table");
    const uint8_t *sh = section(v, pick);
    uint64_t off, size, soff, ssize;
    int rc = section_bytes(v, pick, &off, &size, err);
    if (rc)
        return rc;
    uint64_t entsize = le64(sh + 56);
    if (entsize < SYM_SIZE)
        return cob_fail(err, HW_COB_EFORMAT, "ELF: symbol entry size %llu < %d",
                        (unsigned long long)entsize, SYM_SIZE);
    uint32_t link = le32(sh + 40);
    if (link == 0 || link >= v->shnum || le32(section(v, link) + 4) != SHT_STRTAB)
        return cob_fail(err, HW_COB_EFORMAT,
                        "ELF: symbol table links section %u, not a string table", link);
    rc = section_bytes(v, link, &soff, &ssize, err);
    if (rc)
        return rc;
    if (ssize == 0 || v->p[soff + ssize - 1] != '\0')
        return cob_fail(err, HW_COB_EFORMAT, "ELF: string table does not end in NUL");
    t->syms = v->p + off;
    t->count = size / entsize;
    t->entsize = entsize;
    t->strtab = (const char *)v->p + soff;
    t->strsize = ssize;
    return HW_COB_OK;
}

/* Entry k as a hw_cob_symbol; ENOTFOUND for undefined, special-section and
 * nameless entries (nothing a program can look up). */
static int read_symbol(const cob_elf_view *v, const sym_table *t, uint64_t k, hw_cob_symbol *out,
                       hw_cob_err *err)
{
    const uint8_t *s = t->syms + k * t->entsize;
    uint32_t name = le32(s);
    uint16_t shndx = le16(s + 6);
    if (name >= t->strsize)
        return cob_fail(err, HW_COB_EFORMAT,
                        "ELF: symbol %llu names offset %u past "
                        "the string table",
                        (unsigned long long)k, name);
    if (name == 0 || shndx == 0 || shndx >= SHN_LORESERVE)
        return HW_COB_ENOTFOUND;
    if (shndx >= v->shnum)
        return cob_fail(err, HW_COB_EFORMAT, "ELF: symbol %llu in section %u of %u",
                        (unsigned long long)k, shndx, v->shnum);
    hw_cob_symbol sym;
    sym.name = t->strtab + name; /* NUL-terminated: the table ends in NUL */
    sym.type = s[4] & 0xf;
    sym.bind = s[4] >> 4;
    sym.value = le64(s + 8);
    sym.size = le64(s + 16);
    sym.init = NULL;
    const uint8_t *sh = section(v, shndx);
    if (sym.size && le32(sh + 4) != SHT_NOBITS) {
        /* st_value is an address (linked objects) or a section offset
         * (relocatable ones, whose sh_addr is 0): either way relative to
         * sh_addr, and the whole object must lie in the section's bytes. */
        uint64_t addr = le64(sh + 16), off, size;
        int rc = section_bytes(v, shndx, &off, &size, err);
        if (rc)
            return rc;
        if (sym.value < addr || sym.value - addr > size || sym.size > size - (sym.value - addr))
            return cob_fail(err, HW_COB_EFORMAT,
                            "ELF: symbol %s (%llu bytes at %#llx) outside its section %u", sym.name,
                            (unsigned long long)sym.size, (unsigned long long)sym.value, shndx);
        sym.init = v->p + off + (sym.value - addr);
    }
    *out = sym;
    return HW_COB_OK;
}

int hw_cob_elf_symbols(const void *elf, size_t len, hw_cob_symbol_fn fn, void *arg, hw_cob_err *err)
{
    if (!elf || !fn)
        return cob_fail(err, HW_COB_EINVAL, "ELF: NULL argument");
    cob_elf_view v = { 0 };
    sym_table t = { 0 };
    int rc = cob_elf_open(elf, len, &v, true, err);
    if (rc == HW_COB_OK)
        rc = find_table(&v, &t, err);
    if (rc)
        return rc;
    if (t.count > HW_COB_MAX_SYMBOLS)
        return cob_fail(err, HW_COB_ELIMIT, "ELF: %llu symbols (limit %u)",
                        (unsigned long long)t.count, HW_COB_MAX_SYMBOLS);
    for (uint64_t k = 1; k < t.count; k++) {
        hw_cob_symbol sym;
        rc = read_symbol(&v, &t, k, &sym, err);
        if (rc == HW_COB_ENOTFOUND)
            continue;
        if (rc)
            return rc;
        if (fn(arg, &sym))
            break;
    }
    return HW_COB_OK;
}

struct find_arg {
    const char *name;
    hw_cob_symbol sym;
    bool found;
};

static int match_object(void *arg, const hw_cob_symbol *sym)
{
    struct find_arg *f = arg;
    if (sym->type != HW_COB_STT_OBJECT || sym->size == 0 || strcmp(sym->name, f->name) != 0)
        return 0;
    f->sym = *sym;
    f->found = true;
    return 1;
}

int hw_cob_elf_find_object(const void *elf, size_t len, const char *name, hw_cob_symbol *out,
                           hw_cob_err *err)
{
    if (!name || !out)
        return cob_fail(err, HW_COB_EINVAL, "ELF: NULL argument");
    struct find_arg f = { .name = name };
    int rc = hw_cob_elf_symbols(elf, len, match_object, &f, err);
    if (rc)
        return rc;
    if (!f.found)
        return cob_fail(err, HW_COB_ENOTFOUND, "ELF: no data object named %s", name);
    *out = f.sym;
    return HW_COB_OK;
}
