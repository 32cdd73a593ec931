/*
 * api_rtc.c - hiprtc: programs are kept in the client, compiled on the
 * worker (docs/hiprtc.md).
 *
 * Creating a program, adding name expressions and reading results are local;
 * hiprtcCompileProgram sends everything in one RTC_COMPILE request and keeps
 * the code object, the log and the lowered names that come back. The same
 * functions are what libhiprtc.so forwards to (hipwire_hiprtc_function), so
 * a process that uses both libraries still has one connection.
 */
#include <stdlib.h>
#include <string.h>

#include <hip/hiprtc.h>

#include "hw_alloc.h"
#include "api_unsupported.h"
#include "abi_spelling.h"
#include "client.h"
#include "rtc_compile.h"

struct rtc_name {
    char *expr;
    char *lowered; /* NULL until compiled, or when the compiler did not have it */
};

struct _hiprtcProgram {
    char *name;
    char *source;
    int header_count;
    char **header_names;
    char **headers;
    int name_count, name_cap;
    struct rtc_name *names;
    int compiled; /* a compile ran (successfully or not) */
    uint8_t *code;
    size_t code_size;
    char *log;       /* NUL-terminated; never NULL after a compile */
    size_t log_size; /* without the NUL */
};

static char *dup_or_null(const char *s)
{
    return s ? hw_strdup(s) : NULL;
}

static void program_free(struct _hiprtcProgram *p)
{
    if (!p)
        return;
    free(p->name);
    free(p->source);
    for (int i = 0; i < p->header_count; i++) {
        free(p->header_names ? p->header_names[i] : NULL);
        free(p->headers ? p->headers[i] : NULL);
    }
    free(p->header_names);
    free(p->headers);
    for (int i = 0; i < p->name_count; i++) {
        free(p->names[i].expr);
        free(p->names[i].lowered);
    }
    free(p->names);
    free(p->code);
    free(p->log);
    free(p);
}

HW_EXPORT hiprtcResult hiprtcCreateProgram(hiprtcProgram *prog, const char *src, const char *name,
                                           int numHeaders, HW_RTC_STRINGS headers,
                                           HW_RTC_STRINGS includeNames)
{
    if (!prog || !src || numHeaders < 0 || (numHeaders > 0 && (!headers || !includeNames)))
        return HIPRTC_ERROR_INVALID_INPUT;
    for (int i = 0; i < numHeaders; i++)
        if (!headers[i] || !includeNames[i])
            return HIPRTC_ERROR_INVALID_INPUT;
    struct _hiprtcProgram *p = hw_calloc(1, sizeof *p);
    if (!p)
        return HIPRTC_ERROR_OUT_OF_MEMORY;
    p->name = hw_strdup(name ? name : "default_program");
    p->source = hw_strdup(src);
    p->header_count = numHeaders;
    p->header_names = hw_calloc(numHeaders ? (size_t)numHeaders : 1, sizeof *p->header_names);
    p->headers = hw_calloc(numHeaders ? (size_t)numHeaders : 1, sizeof *p->headers);
    int ok = p->name && p->source && p->header_names && p->headers;
    for (int i = 0; ok && i < numHeaders; i++) {
        p->header_names[i] = dup_or_null(includeNames[i]);
        p->headers[i] = dup_or_null(headers[i]);
        ok = p->header_names[i] && p->headers[i];
    }
    if (!ok) {
        program_free(p);
        return HIPRTC_ERROR_OUT_OF_MEMORY;
    }
    *prog = p;
    return HIPRTC_SUCCESS;
}

HW_EXPORT hiprtcResult hiprtcDestroyProgram(hiprtcProgram *prog)
{
    if (!prog || !*prog)
        return HIPRTC_ERROR_INVALID_PROGRAM;
    program_free(*prog);
    *prog = NULL;
    return HIPRTC_SUCCESS;
}

HW_EXPORT hiprtcResult hiprtcAddNameExpression(hiprtcProgram prog, const char *name_expression)
{
    if (!prog)
        return HIPRTC_ERROR_INVALID_PROGRAM;
    if (!name_expression || !*name_expression)
        return HIPRTC_ERROR_INVALID_INPUT;
    if (prog->compiled)
        return HIPRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION;
    for (int i = 0; i < prog->name_count; i++)
        if (strcmp(prog->names[i].expr, name_expression) == 0)
            return HIPRTC_SUCCESS;
    if (prog->name_count == prog->name_cap) {
        int cap = prog->name_cap ? 2 * prog->name_cap : 8;
        struct rtc_name *n = hw_realloc(prog->names, (size_t)cap * sizeof *n);
        if (!n)
            return HIPRTC_ERROR_OUT_OF_MEMORY;
        prog->names = n;
        prog->name_cap = cap;
    }
    char *e = hw_strdup(name_expression);
    if (!e)
        return HIPRTC_ERROR_OUT_OF_MEMORY;
    prog->names[prog->name_count++] = (struct rtc_name){ e, NULL };
    return HIPRTC_SUCCESS;
}

/* Replaces the program's log with text (a local refusal, said like a compile error). */
static hiprtcResult local_failure(hiprtcProgram prog, hiprtcResult result, const char *text)
{
    char *log = hw_strdup(text);
    if (!log)
        return HIPRTC_ERROR_OUT_OF_MEMORY;
    free(prog->log);
    prog->log = log;
    prog->log_size = strlen(log);
    prog->compiled = 1;
    return result;
}

/* Appends s and its NUL to the request tail. */
static uint8_t *put_string(uint8_t *p, const char *s)
{
    size_t n = strlen(s) + 1;
    memcpy(p, s, n);
    return p + n;
}

/* The reply's tail: code, log, then one NUL-terminated lowered name per
 * name expression. Everything is checked against what was asked. */
static hiprtcResult take_reply(hiprtcProgram prog, const struct hipr_rtc_compile_rep *r,
                               const uint8_t *tail, uint64_t tail_len)
{
    if ((int)r->name_count != prog->name_count || r->code_size > tail_len ||
        r->log_size > tail_len - r->code_size)
        return HIPRTC_ERROR_INTERNAL_ERROR;
    const uint8_t *names = tail + r->code_size + r->log_size;
    uint64_t left = tail_len - r->code_size - r->log_size;
    char **lowered = hw_calloc(prog->name_count ? (size_t)prog->name_count : 1, sizeof *lowered);
    uint8_t *code = hw_malloc(r->code_size ? r->code_size : 1);
    char *log = hw_malloc(r->log_size + 1);
    int ok = lowered && code && log;
    for (int i = 0; ok && i < prog->name_count; i++) {
        const uint8_t *nul = memchr(names, '\0', left);
        if (!nul) {
            ok = 0;
            break;
        }
        size_t n = (size_t)(nul - names);
        if (n && !(lowered[i] = hw_strdup((const char *)names)))
            ok = 0;
        names = nul + 1;
        left -= n + 1;
    }
    if (!ok || left != 0) {
        for (int i = 0; lowered && i < prog->name_count; i++)
            free(lowered[i]);
        free(lowered);
        free(code);
        free(log);
        return ok ? HIPRTC_ERROR_INTERNAL_ERROR : HIPRTC_ERROR_OUT_OF_MEMORY;
    }
    memcpy(code, tail, r->code_size);
    memcpy(log, tail + r->code_size, r->log_size);
    log[r->log_size] = '\0';
    free(prog->code);
    free(prog->log);
    prog->code = r->code_size ? code : NULL;
    if (!r->code_size)
        free(code);
    prog->code_size = r->code_size;
    prog->log = log;
    prog->log_size = r->log_size;
    for (int i = 0; i < prog->name_count; i++) {
        free(prog->names[i].lowered);
        prog->names[i].lowered = lowered[i];
    }
    free(lowered);
    prog->compiled = 1;
    return (hiprtcResult)r->result;
}

hiprtcResult hw_rtc_compile(hiprtcProgram prog, int device, int numOptions, const char **options)
{
    if (!prog)
        return HIPRTC_ERROR_INVALID_PROGRAM;
    if (numOptions < 0 || (numOptions > 0 && !options))
        return HIPRTC_ERROR_INVALID_INPUT;
    for (int i = 0; i < numOptions; i++)
        if (!options[i])
            return HIPRTC_ERROR_INVALID_INPUT;
    if (prog->header_count > (int)HIPR_CAP_RTC_HEADERS || numOptions > (int)HIPR_CAP_RTC_OPTIONS ||
        prog->name_count > (int)HIPR_CAP_RTC_NAMES)
        return local_failure(prog, HIPRTC_ERROR_INVALID_INPUT,
                             "hipwire: a remote compile takes at most 256 headers, 256 options "
                             "and 1024 name expressions\n");
    /* The size is known before anything is allocated for the request. */
    uint64_t len = strlen(prog->name) + 1 + strlen(prog->source) + 1;
    for (int i = 0; i < prog->header_count; i++)
        len += strlen(prog->header_names[i]) + 1 + strlen(prog->headers[i]) + 1;
    for (int i = 0; i < numOptions; i++)
        len += strlen(options[i]) + 1;
    for (int i = 0; i < prog->name_count; i++)
        len += strlen(prog->names[i].expr) + 1;
    if (len > HIPR_CAP_RTC_INPUT)
        return local_failure(prog, HIPRTC_ERROR_INVALID_INPUT,
                             "hipwire: the program's source, headers, options and name "
                             "expressions are larger than a remote compile takes (16 MiB)\n");
    hipError_t err;
    struct hw_conn *c = hw_conn_get(&err);
    if (!c)
        return local_failure(prog, HIPRTC_ERROR_INTERNAL_ERROR,
                             "hipwire: no hip-worker to compile on (see the message on stderr)\n");
    uint8_t *req = hw_malloc(len);
    /* Sized for the largest reply the protocol allows: untouched pages of a
     * malloc this large are never backed, so only what arrives costs memory. */
    uint8_t *tail = hw_malloc(HIPR_CAP_RTC_REPLY);
    if (!req || !tail) {
        free(req);
        free(tail);
        return HIPRTC_ERROR_OUT_OF_MEMORY;
    }
    uint8_t *p = put_string(req, prog->name);
    p = put_string(p, prog->source);
    for (int i = 0; i < prog->header_count; i++) {
        p = put_string(p, prog->header_names[i]);
        p = put_string(p, prog->headers[i]);
    }
    for (int i = 0; i < numOptions; i++)
        p = put_string(p, options[i]);
    for (int i = 0; i < prog->name_count; i++)
        p = put_string(p, prog->names[i].expr);

    struct hipr_rtc_compile_req m = { .device = hw_wire_device(device),
                                      .header_count = (uint32_t)prog->header_count,
                                      .option_count = (uint32_t)numOptions,
                                      .name_count = (uint32_t)prog->name_count };
    uint8_t fixed[HIPR_rtc_compile_req_SIZE], body[HIPR_rtc_compile_rep_SIZE];
    uint64_t got = 0;
    hipr_rtc_compile_req_encode(fixed, &m);
    err = hw_call(c, HIPR_OP_RTC_COMPILE, fixed, sizeof fixed, req, len, body, sizeof body, tail,
                  HIPR_CAP_RTC_REPLY, &got);
    free(req);
    hiprtcResult res;
    if (err == hipSuccess) {
        struct hipr_rtc_compile_rep r;
        hipr_rtc_compile_rep_decode(body, sizeof body, &r);
        res = take_reply(prog, &r, tail, got);
    } else if (err == hipErrorNotSupported) {
        res = local_failure(prog, HIPRTC_ERROR_INTERNAL_ERROR,
                            "hipwire: the worker does not know run-time compilation (an older "
                            "hip-worker)\n");
    } else if (err == hipErrorOutOfMemory) {
        res = HIPRTC_ERROR_OUT_OF_MEMORY;
    } else {
        res = local_failure(prog, HIPRTC_ERROR_INTERNAL_ERROR,
                            err == hipErrorInvalidDevice
                                ? "hipwire: the current device is not one of the worker's\n"
                                : "hipwire: the worker refused the compile request or the "
                                  "connection failed\n");
    }
    free(tail);
    return res;
}

HW_EXPORT hiprtcResult hiprtcCompileProgram(hiprtcProgram prog, int numOptions,
                                            HW_RTC_STRINGS options)
{
    return hw_rtc_compile(prog, hw_current_device(), numOptions, (const char **)options);
}

HW_EXPORT hiprtcResult hiprtcGetCodeSize(hiprtcProgram prog, size_t *codeSizeRet)
{
    if (!prog)
        return HIPRTC_ERROR_INVALID_PROGRAM;
    if (!codeSizeRet)
        return HIPRTC_ERROR_INVALID_INPUT;
    *codeSizeRet = prog->code_size;
    return HIPRTC_SUCCESS;
}

HW_EXPORT hiprtcResult hiprtcGetCode(hiprtcProgram prog, char *code)
{
    if (!prog)
        return HIPRTC_ERROR_INVALID_PROGRAM;
    if (!code)
        return HIPRTC_ERROR_INVALID_INPUT;
    if (prog->code_size)
        memcpy(code, prog->code, prog->code_size);
    return HIPRTC_SUCCESS;
}

HW_EXPORT hiprtcResult hiprtcGetProgramLogSize(hiprtcProgram prog, size_t *logSizeRet)
{
    if (!prog)
        return HIPRTC_ERROR_INVALID_PROGRAM;
    if (!logSizeRet)
        return HIPRTC_ERROR_INVALID_INPUT;
    *logSizeRet = prog->log_size + 1;
    return HIPRTC_SUCCESS;
}

HW_EXPORT hiprtcResult hiprtcGetProgramLog(hiprtcProgram prog, char *log)
{
    if (!prog)
        return HIPRTC_ERROR_INVALID_PROGRAM;
    if (!log)
        return HIPRTC_ERROR_INVALID_INPUT;
    if (prog->log_size)
        memcpy(log, prog->log, prog->log_size);
    log[prog->log_size] = '\0';
    return HIPRTC_SUCCESS;
}

HW_EXPORT hiprtcResult hiprtcGetLoweredName(hiprtcProgram prog, const char *name_expression,
                                            const char **lowered_name)
{
    if (!prog)
        return HIPRTC_ERROR_INVALID_PROGRAM;
    if (!name_expression || !lowered_name)
        return HIPRTC_ERROR_INVALID_INPUT;
    if (!prog->compiled)
        return HIPRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION;
    for (int i = 0; i < prog->name_count; i++)
        if (strcmp(prog->names[i].expr, name_expression) == 0) {
            if (!prog->names[i].lowered)
                break;
            *lowered_name = prog->names[i].lowered;
            return HIPRTC_SUCCESS;
        }
    return HIPRTC_ERROR_NAME_EXPRESSION_NOT_VALID;
}

HW_EXPORT const char *hiprtcGetErrorString(hiprtcResult result)
{
    switch (result) {
    case HIPRTC_SUCCESS: return "HIPRTC_SUCCESS";
    case HIPRTC_ERROR_OUT_OF_MEMORY: return "HIPRTC_ERROR_OUT_OF_MEMORY";
    case HIPRTC_ERROR_PROGRAM_CREATION_FAILURE: return "HIPRTC_ERROR_PROGRAM_CREATION_FAILURE";
    case HIPRTC_ERROR_INVALID_INPUT: return "HIPRTC_ERROR_INVALID_INPUT";
    case HIPRTC_ERROR_INVALID_PROGRAM: return "HIPRTC_ERROR_INVALID_PROGRAM";
    case HIPRTC_ERROR_INVALID_OPTION: return "HIPRTC_ERROR_INVALID_OPTION";
    case HIPRTC_ERROR_COMPILATION: return "HIPRTC_ERROR_COMPILATION";
    case HIPRTC_ERROR_BUILTIN_OPERATION_FAILURE: return "HIPRTC_ERROR_BUILTIN_OPERATION_FAILURE";
    case HIPRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION:
        return "HIPRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION";
    case HIPRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION:
        return "HIPRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION";
    case HIPRTC_ERROR_NAME_EXPRESSION_NOT_VALID: return "HIPRTC_ERROR_NAME_EXPRESSION_NOT_VALID";
    case HIPRTC_ERROR_INTERNAL_ERROR: return "HIPRTC_ERROR_INTERNAL_ERROR";
#if HIP_VERSION_MAJOR >= 6
    case HIPRTC_ERROR_LINKING: return "HIPRTC_ERROR_LINKING";
#endif
    default: return "Invalid HIPRTC error code";
    }
}

HW_EXPORT hiprtcResult hiprtcVersion(int *major, int *minor)
{
    if (!major || !minor)
        return HIPRTC_ERROR_INVALID_INPUT;
    *major = HIP_VERSION_MAJOR;
    *minor = HIP_VERSION_MINOR;
    return HIPRTC_SUCCESS;
}

#if HIP_VERSION_MAJOR >= 6
/* Programs are never compiled to bitcode here (-fgpu-rdc is not among the
 * worker's options), which is what ROCm answers for such a program. */
HW_EXPORT hiprtcResult hiprtcGetBitcodeSize(hiprtcProgram prog, size_t *bitcode_size)
{
    if (!prog)
        return HIPRTC_ERROR_INVALID_PROGRAM;
    return bitcode_size ? HIPRTC_ERROR_INVALID_PROGRAM : HIPRTC_ERROR_INVALID_INPUT;
}

HW_EXPORT hiprtcResult hiprtcGetBitcode(hiprtcProgram prog, char *bitcode)
{
    if (!prog)
        return HIPRTC_ERROR_INVALID_PROGRAM;
    return bitcode ? HIPRTC_ERROR_INVALID_PROGRAM : HIPRTC_ERROR_INVALID_INPUT;
}

/* Linking (of bitcode) is not built: each call says so (TF_DEBUG=1) and
 * fails as a link does. */
HW_EXPORT hiprtcResult hiprtcLinkCreate(unsigned int num_options, hiprtcJIT_option *option_ptr,
                                        void **option_vals_pptr,
                                        hiprtcLinkState *hip_link_state_ptr)
{
    (void)num_options, (void)option_ptr, (void)option_vals_pptr, (void)hip_link_state_ptr;
    (void)hw_api_unsupported("hiprtcLinkCreate");
    return HIPRTC_ERROR_LINKING;
}

HW_EXPORT hiprtcResult hiprtcLinkAddFile(hiprtcLinkState hip_link_state,
                                         hiprtcJITInputType input_type, const char *file_path,
                                         unsigned int num_options, hiprtcJIT_option *options_ptr,
                                         void **option_values)
{
    (void)hip_link_state, (void)input_type, (void)file_path, (void)num_options;
    (void)options_ptr, (void)option_values;
    (void)hw_api_unsupported("hiprtcLinkAddFile");
    return HIPRTC_ERROR_LINKING;
}

HW_EXPORT hiprtcResult hiprtcLinkAddData(hiprtcLinkState hip_link_state,
                                         hiprtcJITInputType input_type, void *image,
                                         size_t image_size, const char *name,
                                         unsigned int num_options, hiprtcJIT_option *options_ptr,
                                         void **option_values)
{
    (void)hip_link_state, (void)input_type, (void)image, (void)image_size, (void)name;
    (void)num_options, (void)options_ptr, (void)option_values;
    (void)hw_api_unsupported("hiprtcLinkAddData");
    return HIPRTC_ERROR_LINKING;
}

HW_EXPORT hiprtcResult hiprtcLinkComplete(hiprtcLinkState hip_link_state, void **bin_out,
                                          size_t *size_out)
{
    (void)hip_link_state, (void)bin_out, (void)size_out;
    (void)hw_api_unsupported("hiprtcLinkComplete");
    return HIPRTC_ERROR_LINKING;
}

HW_EXPORT hiprtcResult hiprtcLinkDestroy(hiprtcLinkState hip_link_state)
{
    (void)hip_link_state;
    (void)hw_api_unsupported("hiprtcLinkDestroy");
    return HIPRTC_ERROR_LINKING;
}
#define RTC_API_6(X)        \
    X(hiprtcGetBitcode)     \
    X(hiprtcGetBitcodeSize) \
    X(hiprtcLinkCreate)     \
    X(hiprtcLinkAddFile)    \
    X(hiprtcLinkAddData)    \
    X(hiprtcLinkComplete)   \
    X(hiprtcLinkDestroy)
#else
#define RTC_API_6(X)
#endif

#define RTC_API(X)             \
    X(hiprtcCreateProgram)     \
    X(hiprtcDestroyProgram)    \
    X(hiprtcAddNameExpression) \
    X(hiprtcCompileProgram)    \
    X(hiprtcGetCodeSize)       \
    X(hiprtcGetCode)           \
    X(hiprtcGetProgramLogSize) \
    X(hiprtcGetProgramLog)     \
    X(hiprtcGetLoweredName)    \
    X(hiprtcGetErrorString) X(hiprtcVersion) RTC_API_6(X)

/* Hidden aliases: their addresses are this library's functions even when
 * libhiprtc.so, whose functions have the same names, was loaded first and
 * so comes first in a lookup by name (which would make it call itself). */
#define RTC_LOCAL_(name) \
    extern __typeof__(name) local_##name __attribute__((alias(#name))) HW_HIDDEN;
RTC_API(RTC_LOCAL_)
#undef RTC_LOCAL_

/* libhiprtc.so's way in: the proxy's own hiprtc function `name`, or NULL. */
HW_EXPORT void *hipwire_hiprtc_function(const char *name)
{
    static const struct {
        const char *name;
        void (*fn)(void);
    } table[] = {
#define RTC_ENTRY_(name) { #name, (void (*)(void))local_##name },
        RTC_API(RTC_ENTRY_)
#undef RTC_ENTRY_
    };
    void *p = NULL;
    for (size_t i = 0; name && i < sizeof table / sizeof table[0]; i++)
        if (strcmp(table[i].name, name) == 0) {
            /* Function to object pointer: POSIX makes the bits the same. */
            memcpy(&p, &table[i].fn, sizeof p);
            break;
        }
    return p;
}
