/*
 * codeobj.h - the HIP fat-binary and AMDGPU code-object layer.
 *
 * What an unmodified hipcc-built program hands the runtime, decoded without
 * any ROCm library so that the proxy (which has no GPU and no ROCm) can:
 *   - take the pointer __hipRegisterFatBinary receives and find the image it
 *     names, and that image's size, from its headers alone;
 *   - list the per-target code objects of a clang offload bundle, plain or
 *     compressed ("CCOB"), and pick the one for a gfx target;
 *   - read an AMDGPU code object's NT_AMDGPU_METADATA note: every kernel's
 *     argument layout (offset, size, kind) and resource use.
 *
 * All parsers take (pointer, length), never read outside it, reject every
 * length they cannot verify, and leave out-params untouched on failure.
 * Errors come back as a negative hw_cob_status plus, when err is non-NULL, a
 * one-line message. See docs/codeobj.md for the formats and limits.
 */
#ifndef HIPWIRE_CODEOBJ_H
#define HIPWIRE_CODEOBJ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hw_cob_status {
    HW_COB_OK = 0,
    HW_COB_EINVAL = -1,  /* bad argument (NULL pointer...) */
    HW_COB_EFORMAT = -2, /* not the format, or inconsistent fields */
    HW_COB_ETRUNC = -3,  /* a header or length points past the input */
    HW_COB_ELIMIT = -4,  /* over one of the documented limits */
    HW_COB_ENOTSUP = -5, /* valid but not supported (codec not built...) */
    HW_COB_ENOMEM = -6,
    HW_COB_ENOTFOUND = -7 /* no such entry / note / kernel */
} hw_cob_status;

typedef struct hw_cob_err {
    char msg[256];
} hw_cob_err;

const char *hw_cob_strerror(int status);

/* ---- Limits (hostile input is refused with HW_COB_ELIMIT) ---- */
#define HW_COB_MAX_ENTRIES              4096         /* offload bundle entries */
#define HW_COB_MAX_TRIPLE               512          /* bytes of one bundle entry id */
#define HW_COB_DEFAULT_MAX_UNCOMPRESSED (1ull << 30) /* CCOB payload */
#define HW_COB_MAX_KERNELS              (1u << 20)
#define HW_COB_MAX_ARGS                 65536       /* per kernel */
#define HW_COB_MAX_NOTE                 (64u << 20) /* metadata note bytes */
#define HW_COB_MAX_SYMBOLS              (1u << 22)  /* ELF symbol table entries */

/* ---- The fat-binary wrapper (__hipRegisterFatBinary's argument) ---- */

/* clang's HIP fat binary wrapper magic, "HIPF" read as a little-endian u32,
 * and the byte-swapped spelling some producers use. */
#define HW_HIP_FATBIN_MAGIC     0x48495046u
#define HW_HIP_FATBIN_MAGIC_ALT 0x4B504948u
#define HW_HIP_FATBIN_VERSION   1u

/* The struct clang emits into .hipFatBinSegment (same layout as CUDA's
 * __fatBinC_Wrapper_t): magic, version, pointer to the image, unused. */
typedef struct hw_hip_fatbin_wrapper {
    uint32_t magic;
    uint32_t version;
    const void *binary;
    const void *dummy1;
} hw_hip_fatbin_wrapper;

/* Check the wrapper a program passed and return the image it points at.
 * The wrapper itself is trusted to be readable (the program handed it to
 * the runtime); its contents are checked. */
int hw_cob_wrapper_binary(const void *wrapper, const void **binary, hw_cob_err *err);

/* ---- Image kinds and sizing from an address ---- */

typedef enum hw_cob_kind {
    HW_COB_KIND_UNKNOWN = 0,
    HW_COB_KIND_BUNDLE,     /* "__CLANG_OFFLOAD_BUNDLE__" */
    HW_COB_KIND_COMPRESSED, /* "CCOB" compressed offload bundle */
    HW_COB_KIND_ELF         /* a bare code object (hipModuleLoadData) */
} hw_cob_kind;

/* Which of the kinds above starts at data (reads at most 24 bytes, fewer
 * when len is smaller). */
hw_cob_kind hw_cob_detect(const void *data, size_t len);

/* Total size in bytes of the image at data, computed from its headers only:
 * a bundle ends at its last entry, a CCOB v2/v3 records its size, an ELF
 * ends at its last header/section/segment. max bounds every read (pass
 * SIZE_MAX when only the address is known: the headers are then trusted to
 * be mapped, as the runtime does). CCOB v1 records no size: ENOTSUP. */
int hw_cob_image_size(const void *data, size_t max, uint64_t *size, hw_cob_err *err);

/* ---- Clang offload bundles ---- */

typedef struct hw_cob_ccob_header {
    uint16_t version;     /* 1, 2 or 3 */
    uint16_t method;      /* HW_COB_CCOB_ZLIB / HW_COB_CCOB_ZSTD */
    uint32_t header_size; /* bytes before the compressed payload */
    uint64_t total_size;  /* whole compressed bundle; 0 in v1 */
    uint64_t uncompressed_size;
    uint64_t hash; /* producer's hash of the uncompressed bundle
                                (reported, not verified) */
} hw_cob_ccob_header;

#define HW_COB_CCOB_ZLIB 0
#define HW_COB_CCOB_ZSTD 1

int hw_cob_ccob_header_parse(const void *data, size_t len, hw_cob_ccob_header *out,
                             hw_cob_err *err);
/* Whether this build can decompress the method (zlib/zstd found at build). */
bool hw_cob_ccob_method_supported(uint16_t method);

typedef struct hw_cob_entry {
    uint64_t offset; /* into the (uncompressed) bundle */
    uint64_t size;
    char triple[HW_COB_MAX_TRIPLE + 1]; /* e.g. hipv4-amdgcn-amd-amdhsa--gfx90a */
    const char *target_id;              /* inside triple: "gfx90a:xnack+", or "" */
    bool is_host;                       /* "host-..." entry (empty in HIP bundles) */
    bool is_amdgcn;                     /* hip*-amdgcn-amd-amdhsa-- entry */
} hw_cob_entry;

typedef struct hw_cob_bundle {
    const uint8_t *data; /* the uncompressed bundle */
    uint64_t size;       /* its size: end of its last entry */
    uint64_t image_size; /* bytes the image occupied at its address
                                (compressed size for a CCOB) */
    bool compressed;
    hw_cob_ccob_header ccob; /* valid when compressed */
    uint32_t nentries;
    hw_cob_entry *entries;
    uint8_t *owned; /* decompressed copy, freed by close */
} hw_cob_bundle;

/* Open a bundle, plain or compressed. len bounds all reads. A compressed
 * bundle is decompressed into memory owned by *out (refused above
 * max_uncompressed bytes; 0 means HW_COB_DEFAULT_MAX_UNCOMPRESSED). Plain
 * bundles are referenced in place: data must outlive *out. */
int hw_cob_bundle_open(const void *data, size_t len, uint64_t max_uncompressed, hw_cob_bundle *out,
                       hw_cob_err *err);
void hw_cob_bundle_close(hw_cob_bundle *b);

/* The amdgcn entry whose target ID suits the device's target ID (e.g.
 * "gfx90a" or "gfx90a:sramecc+:xnack-"): same processor, and no feature set
 * one way in the entry and the other way in the query. Among several, the
 * one matching most features exactly. NULL when none. */
const hw_cob_entry *hw_cob_bundle_find(const hw_cob_bundle *b, const char *target_id);

/* Whether a code object built for code_object_target (a target ID such as
 * "gfx90a:xnack+") runs on a device whose target ID is device_target: the
 * rule hw_cob_bundle_find applies to each entry. *score (may be NULL) ranks
 * several matches: higher is closer. */
bool hw_cob_target_match(const char *code_object_target, const char *device_target, int *score);

/* The target ID inside an AMDGPU triple ("amdgcn-amd-amdhsa--gfx90a:xnack-",
 * "hipv4-amdgcn-amd-amdhsa--gfx90a"), pointing into triple; NULL when the
 * triple is not amdgcn-amd-amdhsa. */
const char *hw_cob_target_id(const char *triple);

/* The ISA version a target ID's processor names, as ROCm reads it:
 * "gfx90a" is 9.0 (stepping a), "gfx1030" 10.3, "gfx942" 9.4. Accepts a
 * target ID or a triple holding one. False when there is no gfx processor. */
bool hw_cob_isa_version(const char *target, unsigned *major, unsigned *minor);

/* Pointer to an entry's bytes (bounds were checked at open). */
const uint8_t *hw_cob_entry_data(const hw_cob_bundle *b, const hw_cob_entry *e);

/* ---- AMDGPU code object metadata ---- */

typedef enum hw_cob_arg_kind {
    HW_COB_ARG_BY_VALUE,
    HW_COB_ARG_GLOBAL_BUFFER,
    HW_COB_ARG_DYNAMIC_SHARED_POINTER,
    HW_COB_ARG_IMAGE,
    HW_COB_ARG_SAMPLER,
    HW_COB_ARG_PIPE,
    HW_COB_ARG_QUEUE,
    HW_COB_ARG_HIDDEN, /* any hidden_*; see value_kind for which */
    HW_COB_ARG_OTHER   /* a kind this parser does not know */
} hw_cob_arg_kind;

typedef struct hw_cob_arg {
    uint32_t offset; /* in the kernarg segment */
    uint32_t size;
    hw_cob_arg_kind kind;
    const char *value_kind;    /* as written: "by_value", "hidden_block_count_x" */
    const char *name;          /* NULL when absent */
    const char *type_name;     /* NULL when absent */
    const char *address_space; /* "global", "local"...; NULL when absent */
} hw_cob_arg;

typedef struct hw_cob_kernel {
    const char *name;   /* .name */
    const char *symbol; /* .symbol (the kernel descriptor, "...kd") */
    uint32_t kernarg_segment_size;
    uint32_t kernarg_segment_align;
    uint32_t group_segment_fixed_size;
    uint32_t private_segment_fixed_size;
    uint32_t sgpr_count, vgpr_count, agpr_count;
    uint32_t max_flat_workgroup_size;
    uint32_t wavefront_size;
    /* The arguments a HIP caller passes (kernelParams order)... */
    uint32_t nargs;
    hw_cob_arg *args; /* owned; hidden follows it in one block */
    /* ...and those the runtime fills in (hidden_*), in metadata order. */
    uint32_t nhidden;
    hw_cob_arg *hidden;
    /* End of the last visible argument: bytes a launch must supply. */
    uint32_t explicit_size;
} hw_cob_kernel;

typedef struct hw_cob_metadata {
    uint32_t version_major, version_minor; /* amdhsa.version */
    const char *target;                    /* amdhsa.target, NULL when absent */
    /* From the ELF header, when parsed from ELF (0 otherwise): */
    uint32_t code_object_version; /* 3, 4, 5, 6 from EI_ABIVERSION */
    uint32_t e_flags;
    uint32_t nkernels;
    hw_cob_kernel *kernels;
    char *pool; /* all strings; owned */
} hw_cob_metadata;

/* Decode an amdhsa metadata map (the note's descriptor). */
int hw_cob_metadata_decode(const void *msgpack, size_t len, hw_cob_metadata *out, hw_cob_err *err);

/* Find the NT_AMDGPU_METADATA note in an AMDGPU ELF (EM_AMDGPU, 64-bit
 * little-endian; program headers, else section headers) and decode it. */
int hw_cob_elf_metadata(const void *elf, size_t len, hw_cob_metadata *out, hw_cob_err *err);

/* Locate the note's descriptor without decoding it. */
int hw_cob_elf_find_metadata_note(const void *elf, size_t len, const uint8_t **desc,
                                  size_t *desc_len, hw_cob_err *err);

void hw_cob_metadata_free(hw_cob_metadata *m);

/* ---- AMDGPU code object symbols ---- */

#define HW_COB_STT_OBJECT 1
#define HW_COB_STT_FUNC   2

typedef struct hw_cob_symbol {
    const char *name;   /* in the image's string table */
    uint64_t value;     /* st_value */
    uint64_t size;      /* st_size */
    uint8_t type, bind; /* STT_*, STB_* */
    /* The object's size initial bytes inside the image; NULL when it lives
     * in zero-filled memory (.bss) or has no size. */
    const uint8_t *init;
} hw_cob_symbol;

/* Returns nonzero to stop the walk. */
typedef int (*hw_cob_symbol_fn)(void *arg, const hw_cob_symbol *sym);

/* Calls fn for each defined, named symbol of an AMDGPU ELF's symbol table
 * (.symtab, else .dynsym), in table order. A symbol whose bytes would lie
 * outside its section fails the walk (EFORMAT). */
int hw_cob_elf_symbols(const void *elf, size_t len, hw_cob_symbol_fn fn, void *arg,
                       hw_cob_err *err);

/* The data object (STT_OBJECT, size > 0) called name: a __device__ or
 * __constant__ variable. ENOTFOUND when there is none. */
int hw_cob_elf_find_object(const void *elf, size_t len, const char *name, hw_cob_symbol *out,
                           hw_cob_err *err);

/* Kernel by .name, or by .symbol with or without its ".kd" suffix. */
const hw_cob_kernel *hw_cob_find_kernel(const hw_cob_metadata *m, const char *name);

#ifdef __cplusplus
}
#endif

#endif /* HIPWIRE_CODEOBJ_H */
