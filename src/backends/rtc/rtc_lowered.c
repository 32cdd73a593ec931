/*
 * rtc_lowered.c - lowered (mangled) names of name expressions, read from the
 * compiled code object (AMDGPU, or the CPU device's host shared object), and
 * the kernels a host object defines.
 *
 * For name expression i the compile appends a device variable
 * __hipwire_name_expr_<i> initialised with the expression's address. In the
 * linked code object that variable carries a dynamic relocation: either
 * against the entity's symbol (R_AMDGPU_ABS64) or, for a symbol defined in
 * the object, R_AMDGPU_RELATIVE64 whose addend is the entity's address. The
 * symbol there is the entity the compiler itself chose, so no demangling or
 * guessing from spelling is involved. A host .so has the same two forms
 * (R_X86_64_64 / R_X86_64_RELATIVE, R_AARCH64_ABS64 / R_AARCH64_RELATIVE).
 */
#include <stdlib.h>
#include <string.h>

#include "hw_alloc.h"
#include "rtc_compile.h"

#define SHT_SYMTAB 2
#define SHT_RELA   4
#define SHT_DYNSYM 11
#define STT_OBJECT 1
#define STT_FUNC   2
#define STB_LOCAL  0
#define EM_X86_64  62
#define EM_AARCH64 183
#define EM_AMDGPU  224

struct elf {
    const uint8_t *p;
    size_t len;
    uint64_t shoff;
    uint16_t shnum;
};

struct sect {
    uint32_t name, type, link, info;
    uint64_t offset, size, entsize;
};

struct sym {
    const char *name;
    uint8_t type, bind;
    uint16_t shndx;
    uint64_t value;
};

static uint16_t u16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}
static uint32_t u32(const uint8_t *p)
{
    return (uint32_t)u16(p) | (uint32_t)u16(p + 2) << 16;
}
static uint64_t u64(const uint8_t *p)
{
    return (uint64_t)u32(p) | (uint64_t)u32(p + 4) << 32;
}

/* A range of the file, checked without overflow. */
static int in_file(const struct elf *e, uint64_t off, uint64_t n)
{
    return off <= e->len && n <= e->len - off;
}

static int section(const struct elf *e, uint32_t i, struct sect *s)
{
    if (i >= e->shnum)
        return -1;
    const uint8_t *h = e->p + e->shoff + (uint64_t)i * 64;
    s->name = u32(h);
    s->type = u32(h + 4);
    s->offset = u64(h + 24);
    s->size = u64(h + 32);
    s->link = u32(h + 40);
    s->info = u32(h + 44);
    s->entsize = u64(h + 56);
    return in_file(e, s->offset, s->size) ? 0 : -1;
}

/* Symbol k of symbol table section st (its strings in st.link). */
static int symbol(const struct elf *e, const struct sect *st, uint64_t k, struct sym *out)
{
    struct sect strs;
    if (st->entsize != 24 || k >= st->size / 24 || section(e, st->link, &strs) < 0)
        return -1;
    const uint8_t *s = e->p + st->offset + k * 24;
    uint32_t name = u32(s);
    if (name >= strs.size || !memchr(e->p + strs.offset + name, '\0', strs.size - name))
        return -1;
    out->name = (const char *)e->p + strs.offset + name;
    out->type = s[4] & 0xf;
    out->bind = s[4] >> 4;
    out->shndx = u16(s + 6);
    out->value = u64(s + 8);
    return 0;
}

/* The relocation at address `at`: its type, symbol index and addend. In a
 * relocatable object (in_section != 0) addresses are per section, so only
 * the relocations of that section count. */
static int relocation_at(const struct elf *e, uint64_t at, uint32_t in_section, uint32_t *type,
                         uint32_t *symidx, int64_t *addend, struct sect *symtab)
{
    for (uint32_t i = 0; i < e->shnum; i++) {
        struct sect rs;
        if (section(e, i, &rs) < 0 || rs.type != SHT_RELA || rs.entsize != 24 ||
            (in_section && rs.info != in_section))
            continue;
        for (uint64_t k = 0; k < rs.size / 24; k++) {
            const uint8_t *r = e->p + rs.offset + k * 24;
            if (u64(r) != at)
                continue;
            uint64_t info = u64(r + 8);
            *type = (uint32_t)info;
            *symidx = (uint32_t)(info >> 32);
            *addend = (int64_t)u64(r + 16);
            if (*symidx && section(e, rs.link, symtab) < 0)
                return -1;
            return 0;
        }
    }
    return -1;
}

static int is_probe(const char *name)
{
    return strncmp(name, RTC_NAME_PROBE, sizeof RTC_NAME_PROBE - 1) == 0;
}

/* The entity at address v: a function first (a kernel's entry), else data. */
static const char *symbol_at(const struct elf *e, const struct sect *st, uint64_t v)
{
    const char *data = NULL;
    struct sym s;
    for (uint64_t k = 1; symbol(e, st, k, &s) == 0; k++) {
        if (s.value != v || s.bind == STB_LOCAL || is_probe(s.name) || !*s.name)
            continue;
        size_t n = strlen(s.name);
        if (n > 3 && strcmp(s.name + n - 3, ".kd") == 0)
            continue;
        if (s.type == STT_FUNC)
            return s.name;
        if (s.type == STT_OBJECT && !data)
            data = s.name;
    }
    return data;
}

static int open_elf(struct elf *e, const uint8_t *image, size_t len)
{
    *e = (struct elf){ image, len, 0, 0 };
    if (len < 64 ||
        memcmp(image,
               "\x7f"
               "ELF",
               4) != 0 ||
        image[4] != 2 || image[5] != 1)
        return -1;
    e->shoff = u64(image + 40);
    e->shnum = u16(image + 60);
    if (u16(image + 58) != 64 || !in_file(e, e->shoff, (uint64_t)e->shnum * 64))
        return -1;
    return 0;
}

/* The absolute and relative 64-bit relocation types of the object's machine. */
static int reloc_types(const uint8_t *image, uint32_t *abs64, uint32_t *rel64)
{
    switch (u16(image + 18)) {
    case EM_AMDGPU:
        *abs64 = 3;
        *rel64 = 13;
        return 0;
    case EM_X86_64:
        *abs64 = 1;
        *rel64 = 8;
        return 0;
    case EM_AARCH64:
        *abs64 = 257;
        *rel64 = 1027;
        return 0;
    default: return -1;
    }
}

int rtc_lowered_names(const uint8_t *image, size_t len, uint32_t count, char **out)
{
    struct elf e;
    struct sect symtab = { 0 }, st;
    int have = 0;
    uint32_t abs64, rel64;
    if (open_elf(&e, image, len) < 0 || reloc_types(image, &abs64, &rel64) < 0)
        return -1;
    /* The full symbol table when there is one, else the dynamic one. */
    for (uint32_t i = 0; i < e.shnum; i++)
        if (section(&e, i, &st) == 0 &&
            (st.type == SHT_SYMTAB || (st.type == SHT_DYNSYM && !have))) {
            symtab = st;
            have = 1;
        }
    if (!have)
        return -1;
    struct sym s;
    for (uint64_t k = 1; symbol(&e, &symtab, k, &s) == 0; k++) {
        if (!is_probe(s.name) || s.type != STT_OBJECT)
            continue;
        char *end;
        unsigned long i = strtoul(s.name + sizeof RTC_NAME_PROBE - 1, &end, 10);
        if (*end || i >= count || out[i])
            continue;
        uint32_t type, symidx;
        int64_t addend;
        struct sect rsyms;
        const char *target = NULL;
        struct sym t;
        uint32_t in_section = u16(image + 16) == 1 /* ET_REL */ ? s.shndx : 0;
        if (relocation_at(&e, s.value, in_section, &type, &symidx, &addend, &rsyms) < 0)
            continue;
        if (type == abs64 && symidx && addend == 0 && symbol(&e, &rsyms, symidx, &t) == 0)
            target = t.name;
        else if (type == rel64 && !symidx)
            target = symbol_at(&e, &symtab, (uint64_t)addend);
        if (target && *target)
            out[i] = hw_strdup(target);
    }
    return 0;
}

int rtc_kernel_symbols(const uint8_t *image, size_t len, const char *section_name,
                       char ***names_out, uint32_t *count_out)
{
    struct elf e;
    struct sect shstr, st, symtab = { 0 };
    int have = 0;
    if (open_elf(&e, image, len) < 0 || section(&e, u16(image + 62), &shstr) < 0)
        return -1;
    /* Sections of that name (one per COMDAT group for templates). */
    uint8_t *wanted = hw_calloc(e.shnum ? e.shnum : 1, 1);
    if (!wanted)
        return -1;
    size_t want_len = strlen(section_name);
    for (uint32_t i = 0; i < e.shnum; i++) {
        if (section(&e, i, &st) < 0)
            continue;
        if (st.type == SHT_SYMTAB) {
            symtab = st;
            have = 1;
        }
        if (st.name < shstr.size && shstr.size - st.name > want_len &&
            memcmp(e.p + shstr.offset + st.name, section_name, want_len + 1) == 0)
            wanted[i] = 1;
    }
    char **names = NULL;
    uint32_t n = 0;
    struct sym s;
    for (uint64_t k = 1; have && symbol(&e, &symtab, k, &s) == 0; k++) {
        uint16_t shndx = u16(e.p + symtab.offset + k * 24 + 6);
        if (s.type != STT_FUNC || s.bind == STB_LOCAL || shndx >= e.shnum || !wanted[shndx] ||
            !*s.name)
            continue;
        char **grown = hw_realloc(names, (n + 1) * sizeof *names);
        if (!grown || !(grown[n] = hw_strdup(s.name))) {
            names = grown ? grown : names;
            goto fail;
        }
        names = grown;
        n++;
    }
    free(wanted);
    *names_out = names;
    *count_out = n;
    return 0;
fail:
    for (uint32_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    free(wanted);
    return -1;
}
