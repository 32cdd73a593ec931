/*
 * test_hostile_pointers - forged pointers, lengths and handles against a real
 * worker, spoken in raw HIPR (no proxy in between to sanitise anything).
 *
 * The CPU device's "device memory" is the session process's own heap, so a
 * pointer the worker failed to check would be dereferenced for real: it
 * would crash the session (EOF instead of an error status) or silently
 * change the bytes of a neighbouring allocation, which the pattern checks
 * at the end catch.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostile_ops.h"
#include "hw_status.h"

/* Not a multiple of the CPU backend's 256-byte rounding, so the bytes right
 * after each allocation are real, mapped heap the client does not own. */
#define ALLOC_SIZE 4000u

struct fixture {
    struct raw_conn c;
    uint64_t a, b;  /* live allocations with known patterns */
    uint64_t freed; /* allocated, then freed */
    uint8_t pattern_a[ALLOC_SIZE], pattern_b[ALLOC_SIZE];
};

/* --isolation shared (the argument "shared"): a kernel fault ends every session. */
static int shared_mode;

static int inside(uint64_t p, uint64_t base, uint64_t size)
{
    return p >= base && p - base < size;
}

/* Pointers the client does not own: never allocated, freed, in the rounding
 * pad after an allocation, right before the neighbour, near the top. */
static size_t forged_pointers(const struct fixture *f, uint64_t *out)
{
    const uint64_t candidates[] = {
        0x1000,
        UINT64_C(0xdeadbeef000),
        f->freed,
        f->freed + 64,
        f->a + ALLOC_SIZE,      /* one past the end: the pad, mapped but not the client's */
        f->a + ALLOC_SIZE + 95, /* last byte of the pad */
        f->b - 1,               /* just before the neighbour */
        UINT64_MAX - 7,
    };
    size_t n = 0;
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++)
        if (!inside(candidates[i], f->a, ALLOC_SIZE) && !inside(candidates[i], f->b, ALLOC_SIZE))
            out[n++] = candidates[i];
    return n;
}

static void expect_rejected(int status, const char *what, uint64_t ptr)
{
    EXPECT(status > 0, "%s at 0x%llx: got %d (%s), expected an error status", what,
           (unsigned long long)ptr, status,
           status == 0         ? "accepted"
           : status == RAW_EOF ? "session died: memory was touched?"
                               : "no valid reply");
}

static void expect_status(int status, int want, const char *what)
{
    EXPECT(status == want, "%s: got status %d, expected %d%s", what, status, want,
           status == RAW_EOF ? " (session died)" : "");
}

static void fill_pattern(uint8_t *p, size_t n, uint8_t seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(seed + i * 7);
}

static void setup(struct fixture *f)
{
    raw_begin("setup: session with two patterned allocations and a freed one");
    EXPECT(raw_connect(&f->c) == 0, "cannot connect");
    EXPECT(raw_hello(&f->c) == 0, "HELLO failed");
    EXPECT(raw_malloc(&f->c, ALLOC_SIZE, &f->a) == 0, "MALLOC a failed");
    EXPECT(raw_malloc(&f->c, ALLOC_SIZE, &f->b) == 0, "MALLOC b failed");
    EXPECT(raw_malloc(&f->c, ALLOC_SIZE, &f->freed) == 0, "MALLOC failed");
    expect_status(op_free(&f->c, f->freed), HW_OK, "FREE");
    fill_pattern(f->pattern_a, ALLOC_SIZE, 0x11);
    fill_pattern(f->pattern_b, ALLOC_SIZE, 0x77);
    expect_status(op_h2d(&f->c, f->a, DEFAULT_STREAM, f->pattern_a, ALLOC_SIZE), HW_OK, "H2D a");
    expect_status(op_h2d(&f->c, f->b, DEFAULT_STREAM, f->pattern_b, ALLOC_SIZE), HW_OK, "H2D b");
    raw_pass();
}

/* The live allocations still hold exactly what the client wrote. */
static void expect_patterns_intact(struct fixture *f, const char *after)
{
    static uint8_t got[ALLOC_SIZE];
    expect_status(op_d2h(&f->c, f->a, ALLOC_SIZE, DEFAULT_STREAM, got, sizeof got), HW_OK, "D2H a");
    EXPECT(memcmp(got, f->pattern_a, ALLOC_SIZE) == 0, "allocation a changed after %s", after);
    expect_status(op_d2h(&f->c, f->b, ALLOC_SIZE, DEFAULT_STREAM, got, sizeof got), HW_OK, "D2H b");
    EXPECT(memcmp(got, f->pattern_b, ALLOC_SIZE) == 0, "allocation b changed after %s", after);
}

static void check_forged_pointers(struct fixture *f)
{
    uint64_t forged[16];
    size_t n = forged_pointers(f, forged);
    uint8_t junk[64];
    memset(junk, 0xEE, sizeof junk);

    raw_begin("forged pointers in MEMCPY_H2D are rejected");
    for (size_t i = 0; i < n; i++)
        expect_rejected(op_h2d(&f->c, forged[i], DEFAULT_STREAM, junk, 1), "H2D dst", forged[i]);
    raw_pass();

    raw_begin("forged pointers in MEMCPY_D2H are rejected and return no data");
    for (size_t i = 0; i < n; i++)
        expect_rejected(op_d2h(&f->c, forged[i], 1, DEFAULT_STREAM, junk, sizeof junk), "D2H src",
                        forged[i]);
    raw_pass();

    raw_begin("forged pointers in MEMCPY_D2D (either side) are rejected");
    for (size_t i = 0; i < n; i++) {
        expect_rejected(op_d2d(&f->c, forged[i], f->a, 1, DEFAULT_STREAM), "D2D dst", forged[i]);
        expect_rejected(op_d2d(&f->c, f->b, forged[i], 1, DEFAULT_STREAM), "D2D src", forged[i]);
    }
    raw_pass();

    raw_begin("forged pointers in MEMSET are rejected");
    for (size_t i = 0; i < n; i++)
        expect_rejected(op_memset(&f->c, forged[i], 1, 0xAB, 1, DEFAULT_STREAM), "MEMSET dst",
                        forged[i]);
    raw_pass();

    raw_begin("forged pointers in 2D copies are rejected");
    for (size_t i = 0; i < n; i++) {
        expect_rejected(op_2d_h2d(&f->c, forged[i], 8, 4, 2, junk, 8), "2D H2D dst", forged[i]);
        expect_rejected(op_2d_d2h(&f->c, forged[i], 8, 4, 2), "2D D2H src", forged[i]);
        expect_rejected(op_2d_d2d(&f->c, f->a, 8, forged[i], 8, 4, 2), "2D D2D src", forged[i]);
    }
    raw_pass();

    raw_begin("FREE of never-allocated, freed (double free) and interior pointers is rejected");
    for (size_t i = 0; i < n; i++)
        expect_rejected(op_free(&f->c, forged[i]), "FREE", forged[i]);
    expect_rejected(op_free(&f->c, f->a + 16), "FREE interior", f->a + 16);
    expect_rejected(op_free(&f->c, f->b + ALLOC_SIZE - 1), "FREE last byte", f->b + ALLOC_SIZE - 1);
    raw_pass();

    raw_begin("memory is untouched after all forged-pointer requests");
    expect_patterns_intact(f, "forged-pointer requests");
    raw_pass();
}

static void check_one_byte_past_end(struct fixture *f)
{
    static uint8_t buf[ALLOC_SIZE + 1];
    memset(buf, 0x5A, sizeof buf);

    raw_begin("ranges running 1 byte past the end of an allocation are rejected");
    expect_rejected(op_h2d(&f->c, f->a, DEFAULT_STREAM, buf, ALLOC_SIZE + 1), "H2D 4001 B", f->a);
    expect_rejected(op_h2d(&f->c, f->a + 1, DEFAULT_STREAM, buf, ALLOC_SIZE), "H2D a+1, 4000 B",
                    f->a + 1);
    expect_rejected(op_h2d(&f->c, f->a + ALLOC_SIZE - 1, DEFAULT_STREAM, buf, 2),
                    "H2D last byte + 1", f->a + ALLOC_SIZE - 1);
    expect_rejected(op_d2h(&f->c, f->a, ALLOC_SIZE + 1, DEFAULT_STREAM, buf, sizeof buf),
                    "D2H 4001 B", f->a);
    expect_rejected(op_d2d(&f->c, f->b, f->a, ALLOC_SIZE + 1, DEFAULT_STREAM), "D2D 4001 B", f->a);
    expect_rejected(op_d2d(&f->c, f->a + 1, f->b, ALLOC_SIZE, DEFAULT_STREAM),
                    "D2D dst a+1, 4000 B", f->a + 1);
    expect_rejected(op_memset(&f->c, f->a, ALLOC_SIZE + 1, 0, 1, DEFAULT_STREAM), "MEMSET 4001 x 1",
                    f->a);
    expect_rejected(op_memset(&f->c, f->a, ALLOC_SIZE / 2 + 1, 0, 2, DEFAULT_STREAM),
                    "MEMSET 2001 x 2", f->a);
    expect_rejected(op_memset(&f->c, f->a + 1, ALLOC_SIZE / 4, 0, 4, DEFAULT_STREAM),
                    "MEMSET a+1, 1000 x 4", f->a + 1);
    /* 40 rows of 100 bytes fill the 4000 exactly; starting 1 byte later or
     * with a pitch of 101 ends past it. */
    expect_rejected(op_2d_h2d(&f->c, f->a + 1, 100, 100, 40, buf, 4000), "2D H2D a+1", f->a + 1);
    expect_rejected(op_2d_h2d(&f->c, f->a, 101, 100, 40, buf, 4000), "2D H2D pitch 101", f->a);
    expect_rejected(op_2d_d2h(&f->c, f->a + 1, 100, 100, 40), "2D D2H a+1", f->a + 1);
    expect_rejected(op_2d_d2d(&f->c, f->a, 100, f->b + 1, 100, 100, 40), "2D D2D src b+1",
                    f->b + 1);
    raw_pass();

    raw_begin("exact-fit ranges are accepted (the checks above are not blanket refusals)");
    expect_status(op_memset(&f->c, f->a, ALLOC_SIZE / 4, 0x01020304, 4, DEFAULT_STREAM), HW_OK,
                  "MEMSET 1000 x 4");
    expect_status(op_2d_d2h(&f->c, f->a, 100, 100, 40), HW_OK, "2D D2H 40 x 100");
    expect_status(op_d2d(&f->c, f->a, f->b, ALLOC_SIZE, DEFAULT_STREAM), HW_OK, "D2D 4000 B");
    expect_status(op_h2d(&f->c, f->a, DEFAULT_STREAM, f->pattern_a, ALLOC_SIZE), HW_OK,
                  "H2D 4000 B");
    expect_patterns_intact(f, "exact-fit copies");
    raw_pass();
}

static void check_overflowing_lengths(struct fixture *f)
{
    const uint64_t wrap_from_a = UINT64_MAX - f->a + 2; /* a + len == 1 (mod 2^64) */
    uint8_t tiny[8] = { 0 };

    raw_begin("lengths where ptr + len wraps around 2^64 are rejected");
    expect_rejected(op_d2h(&f->c, f->a, wrap_from_a, DEFAULT_STREAM, NULL, 0), "D2H wrap", f->a);
    expect_rejected(op_d2d(&f->c, f->a, f->b, wrap_from_a, DEFAULT_STREAM), "D2D wrap", f->a);
    expect_rejected(op_d2d(&f->c, f->b, f->a, UINT64_MAX, DEFAULT_STREAM), "D2D UINT64_MAX", f->a);
    expect_rejected(op_memset(&f->c, f->a, wrap_from_a, 0, 1, DEFAULT_STREAM), "MEMSET wrap", f->a);
    raw_pass();

    raw_begin("MEMSET count * elem_size overflowing 64 bits is rejected");
    /* 2^62 * 4 == 0 and (2^63 + 1) * 2 == 2 (mod 2^64): a wrapped product would
     * pass a naive range check. */
    expect_rejected(op_memset(&f->c, f->a, UINT64_C(1) << 62, 0, 4, DEFAULT_STREAM),
                    "MEMSET 2^62 x 4", f->a);
    expect_rejected(op_memset(&f->c, f->a, (UINT64_C(1) << 63) + 1, 0, 2, DEFAULT_STREAM),
                    "MEMSET (2^63+1) x 2", f->a);
    expect_rejected(op_memset(&f->c, f->a, (UINT64_C(1) << 62) + 1, 0, 4, DEFAULT_STREAM),
                    "MEMSET (2^62+1) x 4", f->a);
    expect_rejected(op_memset(&f->c, f->a, 1, 0, 3, DEFAULT_STREAM), "MEMSET elem_size 3", f->a);
    expect_rejected(op_memset(&f->c, f->a, 1, 0, 0, DEFAULT_STREAM), "MEMSET elem_size 0", f->a);
    raw_pass();

    raw_begin("2D copies whose width * height or pitch * height overflow are rejected");
    /* 2^32 x 2^32 == 0 (mod 2^64): matches an empty tail if multiplied naively. */
    expect_rejected(
        op_2d_h2d(&f->c, f->a, UINT64_C(1) << 32, UINT64_C(1) << 32, UINT64_C(1) << 32, NULL, 0),
        "2D H2D 2^32 x 2^32", f->a);
    expect_rejected(op_2d_h2d(&f->c, f->a, UINT64_C(1) << 63, UINT64_C(1) << 63, 2, NULL, 0),
                    "2D H2D 2^63 x 2", f->a);
    expect_rejected(op_2d_d2h(&f->c, f->a, UINT64_C(1) << 32, UINT64_C(1) << 32, UINT64_C(1) << 32),
                    "2D D2H 2^32 x 2^32", f->a);
    expect_rejected(op_2d_d2h(&f->c, f->a, UINT64_C(1) << 63, 4, 3), "2D D2H pitch 2^63 x 3", f->a);
    /* (3 - 1) * 2^63 == 0: the last row would land back on a. */
    expect_rejected(op_2d_d2d(&f->c, f->a, UINT64_C(1) << 63, f->b, 8, 4, 3),
                    "2D D2D dpitch 2^63 x 3", f->a);
    expect_rejected(op_2d_d2d(&f->c, f->a, 8, f->b, UINT64_C(1) << 63, 4, 3),
                    "2D D2D spitch 2^63 x 3", f->b);
    expect_rejected(op_2d_d2d(&f->c, f->a, 4, f->b, 8, 8, 2), "2D D2D width > dpitch", f->a);
    expect_rejected(op_2d_h2d(&f->c, f->a, 4, 8, 1, tiny, 4), "2D H2D tail != width*height", f->a);
    raw_pass();

    raw_begin("a D2H over the per-message cap is rejected without a reply body");
    expect_rejected(op_d2h(&f->c, f->a, HIPR_CAP_COPY_CHUNK + 1, DEFAULT_STREAM, NULL, 0),
                    "D2H cap + 1", f->a);
    raw_pass();

    raw_begin("memory is untouched after the overflow requests");
    expect_patterns_intact(f, "overflow requests");
    raw_pass();
}

static void check_invalid_handles(struct fixture *f)
{
    const uint64_t bogus[] = { 0x5, 0x100, 0x1234, UINT64_C(0xdeadbeefcafe), UINT64_MAX };
    uint8_t byte = 0;

    raw_begin("invalid stream handles are rejected by every stream-taking request");
    for (size_t i = 0; i < sizeof bogus / sizeof bogus[0]; i++) {
        uint64_t s = bogus[i];
        expect_status(op_h2d(&f->c, f->a, s, &byte, 1), HW_EHANDLE, "H2D bad stream");
        expect_status(op_d2h(&f->c, f->a, 1, s, NULL, 0), HW_EHANDLE, "D2H bad stream");
        expect_status(op_d2d(&f->c, f->a, f->b, 1, s), HW_EHANDLE, "D2D bad stream");
        expect_status(op_memset(&f->c, f->a, 1, 0, 1, s), HW_EHANDLE, "MEMSET bad stream");
        expect_status(op_handle(&f->c, HIPR_OP_STREAM_SYNCHRONIZE, s), HW_EHANDLE,
                      "STREAM_SYNCHRONIZE");
        expect_status(op_handle(&f->c, HIPR_OP_STREAM_QUERY, s), HW_EHANDLE, "STREAM_QUERY");
        expect_status(op_handle(&f->c, HIPR_OP_STREAM_DESTROY, s), HW_EHANDLE, "STREAM_DESTROY");
    }
    expect_status(op_stream_create(&f->c, 0x42, 0), HW_EHANDLE, "STREAM_CREATE id < 0x100");
    expect_status(op_stream_create(&f->c, 0x200, 7), HW_EDEVICE, "STREAM_CREATE device 7");
    expect_status(op_stream_create(&f->c, 0x200, -1), HW_EDEVICE, "STREAM_CREATE device -1");
    expect_status(op_stream_create(&f->c, 0x200, 0), HW_OK, "STREAM_CREATE");
    expect_status(op_stream_create(&f->c, 0x200, 0), HW_EHANDLE, "STREAM_CREATE duplicate id");
    expect_status(op_handle(&f->c, HIPR_OP_STREAM_DESTROY, 0x200), HW_OK, "STREAM_DESTROY");
    expect_status(op_h2d(&f->c, f->a, 0x200, &byte, 1), HW_EHANDLE, "H2D on destroyed stream");
    expect_status(op_handle(&f->c, HIPR_OP_STREAM_DESTROY, 0x200), HW_EHANDLE,
                  "double STREAM_DESTROY");
    raw_pass();

    raw_begin("invalid event handles are rejected");
    for (size_t i = 0; i < sizeof bogus / sizeof bogus[0]; i++) {
        uint64_t e = bogus[i];
        expect_status(op_handle(&f->c, HIPR_OP_EVENT_SYNCHRONIZE, e), HW_EHANDLE,
                      "EVENT_SYNCHRONIZE");
        expect_status(op_handle(&f->c, HIPR_OP_EVENT_QUERY, e), HW_EHANDLE, "EVENT_QUERY");
        expect_status(op_handle(&f->c, HIPR_OP_EVENT_DESTROY, e), HW_EHANDLE, "EVENT_DESTROY");
        expect_status(op_event_record(&f->c, e, DEFAULT_STREAM), HW_EHANDLE, "EVENT_RECORD");
        expect_status(op_event_elapsed(&f->c, e, e), HW_EHANDLE, "EVENT_ELAPSED");
        expect_status(op_stream_wait_event(&f->c, DEFAULT_STREAM, e), HW_EHANDLE,
                      "STREAM_WAIT_EVENT");
    }
    expect_status(op_event_create(&f->c, 0, 0), HW_EHANDLE, "EVENT_CREATE id 0");
    expect_status(op_event_create(&f->c, 0x77, 3), HW_EDEVICE, "EVENT_CREATE device 3");
    expect_status(op_event_create(&f->c, 0x77, 0), HW_OK, "EVENT_CREATE");
    expect_status(op_event_record(&f->c, 0x77, 0x999), HW_EHANDLE, "EVENT_RECORD bad stream");
    expect_status(op_handle(&f->c, HIPR_OP_EVENT_DESTROY, 0x77), HW_OK, "EVENT_DESTROY");
    expect_status(op_handle(&f->c, HIPR_OP_EVENT_QUERY, 0x77), HW_EHANDLE, "EVENT_QUERY destroyed");
    raw_pass();

    raw_begin("invalid module and function handles are rejected");
    for (size_t i = 0; i < sizeof bogus / sizeof bogus[0]; i++) {
        uint64_t func, m = bogus[i];
        uint32_t args_size;
        expect_status(op_get_function(&f->c, m, "vadd", &func, &args_size), HW_EHANDLE,
                      "MODULE_GET_FUNCTION bad module");
        expect_status(op_get_global(&f->c, m, "hw_global_table"), HW_EHANDLE,
                      "MODULE_GET_GLOBAL bad module");
        expect_status(op_handle(&f->c, HIPR_OP_MODULE_UNLOAD, m), HW_EHANDLE, "MODULE_UNLOAD");
        expect_status(op_launch(&f->c, m, DEFAULT_STREAM, 0, 0, 1, 1, NULL, 0), HW_EHANDLE,
                      "LAUNCH bad function");
    }
    raw_pass();

    raw_begin("garbage module images are refused, not loaded");
    {
        uint8_t image[256];
        uint64_t module = 0;
        uint64_t rng = 0x1234;
        for (size_t i = 0; i < sizeof image; i++)
            image[i] = (uint8_t)raw_rand(&rng);
        int rc = op_module_load(&f->c, image, sizeof image, &module);
        EXPECT(rc > 0, "MODULE_LOAD of random bytes: status %d", rc);
        memcpy(image, "\177ELF", 4); /* an ELF magic alone is not an image */
        rc = op_module_load(&f->c, image, sizeof image, &module);
        EXPECT(rc > 0, "MODULE_LOAD of ELF magic + garbage: status %d", rc);
    }
    raw_pass();

    raw_begin("invalid device indices are rejected");
    expect_status(op_device(&f->c, HIPR_OP_DEVICE_SYNCHRONIZE, 99), HW_EDEVICE,
                  "DEVICE_SYNCHRONIZE 99");
    expect_status(op_device(&f->c, HIPR_OP_MEM_GET_INFO, -1), HW_EDEVICE, "MEM_GET_INFO -1");
    expect_status(op_device(&f->c, HIPR_OP_DEVICE_RESET, 1), HW_EDEVICE, "DEVICE_RESET 1");
    raw_pass();
}

/* Launch checks with the real CPU test kernels (HIPWIRE_KERNELS). */
static void check_launch(struct fixture *f)
{
    const char *path = getenv("HIPWIRE_KERNELS");
    size_t len = 0;
    void *image = path ? read_file(path, &len) : NULL;
    uint64_t module = 0, vadd = 0, poke = 0;
    uint32_t vadd_args = 0, poke_args = 0;
    uint8_t args[64];
    memset(args, 0, sizeof args);

    raw_begin("LAUNCH with a real function but invalid stream/event/config is rejected");
    EXPECT(image != NULL, "cannot read HIPWIRE_KERNELS=%s", path ? path : "(unset)");
    expect_status(op_module_load(&f->c, image, len, &module), HW_OK, "MODULE_LOAD test kernels");
    expect_status(op_get_function(&f->c, module, "vadd", &vadd, &vadd_args), HW_OK, "get vadd");
    expect_status(op_get_function(&f->c, module, "poke", &poke, &poke_args), HW_OK, "get poke");
    EXPECT(vadd_args > 0 && vadd_args <= sizeof args, "vadd args_size %u", vadd_args);
    expect_status(op_launch(&f->c, vadd, 0x4444, 0, 0, 1, 1, args, vadd_args), HW_EHANDLE,
                  "LAUNCH bad stream");
    expect_status(op_launch(&f->c, vadd, DEFAULT_STREAM, 0x4545, 0, 1, 1, args, vadd_args),
                  HW_EHANDLE, "LAUNCH bad start event");
    expect_status(op_launch(&f->c, vadd, DEFAULT_STREAM, 0, 0x4646, 1, 1, args, vadd_args),
                  HW_EHANDLE, "LAUNCH bad stop event");
    expect_status(op_launch(&f->c, vadd, DEFAULT_STREAM, 0, 0, 1, 1, args, vadd_args - 1),
                  HW_EINVAL, "LAUNCH args shorter than the kernel's");
    expect_status(op_launch(&f->c, vadd, DEFAULT_STREAM, 0, 0, 0, 1, args, vadd_args), HW_ECONFIG,
                  "LAUNCH grid 0");
    expect_status(op_launch(&f->c, vadd, DEFAULT_STREAM, 0, 0, 1, 4096, args, vadd_args),
                  HW_ECONFIG, "LAUNCH block over max threads");
    expect_status(op_get_function(&f->c, module, "no_such_kernel", &vadd, &vadd_args), HW_ENOTFOUND,
                  "unknown kernel name");
    raw_pass();

    raw_begin("functions of an unloaded module are invalid handles");
    expect_status(op_handle(&f->c, HIPR_OP_MODULE_UNLOAD, module), HW_OK, "MODULE_UNLOAD");
    expect_status(op_launch(&f->c, poke, DEFAULT_STREAM, 0, 0, 1, 1, args, poke_args), HW_EHANDLE,
                  "LAUNCH after unload");
    expect_status(op_handle(&f->c, HIPR_OP_MODULE_UNLOAD, module), HW_EHANDLE,
                  "double MODULE_UNLOAD");
    expect_patterns_intact(f, "launch checks");
    raw_pass();

    /*
     * Kernel arguments are opaque bytes to the worker (it knows offsets and
     * sizes, not which are pointers), so a forged pointer inside them cannot
     * be refused up front. What must hold is isolation: the faulting kernel
     * takes down only its own session process, whose memory the supervisor
     * reclaims, and the worker keeps serving.
     */
    raw_begin("a kernel dereferencing a forged pointer arg kills only its own session");
    {
        struct raw_conn v;
        struct raw_worker_status st;
        uint64_t vmod = 0, vpoke = 0, buf = 0;
        uint32_t vargs = 0;
        EXPECT(raw_connect(&v) == 0 && raw_hello(&v) == 0, "victim HELLO");
        EXPECT(raw_malloc(&v, 1 << 20, &buf) == 0, "victim MALLOC");
        expect_status(op_module_load(&v, image, len, &vmod), HW_OK, "victim MODULE_LOAD");
        expect_status(op_get_function(&v, vmod, "poke", &vpoke, &vargs), HW_OK, "get poke");
        EXPECT(vargs == 8, "poke args_size %u", vargs);
        hipr_put_u64(args, 0x10); /* unmapped: the first page is never mapped */
        int rc = op_launch(&v, vpoke, DEFAULT_STREAM, 0, 0, 1, 1, args, vargs);
        /* The launch is queued and acknowledged, then faults on the stream. */
        EXPECT(rc == HW_OK || rc == RAW_EOF, "poke launch: status %d", rc);
        EXPECT(raw_wait_closed(&v, 5000), "victim session still open after its kernel faulted");
        raw_close(&v);
        if (shared_mode) {
            /* --isolation shared: one device process, so the fault ends
             * every session of it (docs/worker.md, "Isolation modes"), and
             * a fresh device process serves the next client. */
            uint64_t p = 0;
            struct raw_conn n;
            EXPECT(raw_wait_closed(&f->c, 5000),
                   "the other session outlived a fault in their shared device process");
            EXPECT(raw_wait_worker_idle(0, 0, 10000, &st) == 0,
                   "worker still lists %u sessions after its device process died", st.sessions);
            EXPECT(raw_connect(&n) == 0 && raw_hello(&n) == 0,
                   "HELLO after the device process died");
            EXPECT(raw_malloc(&n, 4096, &p) == 0, "MALLOC on the fresh device process");
            raw_close(&n);
        } else {
            EXPECT(op_ping(&f->c, NULL) == HW_OK, "the other session stopped answering");
            EXPECT(raw_wait_worker_idle(1, UINT64_MAX, 5000, &st) == 0,
                   "worker still lists %u sessions after the victim died", st.sessions);
            for (uint32_t i = 0; i < st.entries; i++)
                EXPECT(st.entry[i].session_id != v.session_id, "victim session still listed");
        }
    }
    raw_pass();
    free(image);
}

static void check_worker_still_serves(struct fixture *f)
{
    struct raw_worker_status st;
    static uint8_t data[1 << 16], got[1 << 16];
    struct raw_conn c;
    uint64_t p = 0;

    raw_begin("after everything, a session ends cleanly and the worker holds no memory");
    expect_patterns_intact(f, "all checks");
    expect_status(op_free(&f->c, f->a), HW_OK, "FREE a");
    expect_status(op_free(&f->c, f->b), HW_OK, "FREE b");
    raw_close(&f->c);
    EXPECT(raw_wait_worker_idle(0, 0, 5000, &st) == 0,
           "worker reports %u sessions, %llu bytes in use", st.sessions,
           (unsigned long long)st.bytes_in_use);
    raw_pass();

    raw_begin("a new session works end to end");
    EXPECT(raw_connect(&c) == 0 && raw_hello(&c) == 0, "HELLO");
    EXPECT(raw_malloc(&c, sizeof data, &p) == 0, "MALLOC");
    fill_pattern(data, sizeof data, 0x3C);
    expect_status(op_h2d(&c, p, DEFAULT_STREAM, data, sizeof data), HW_OK, "H2D");
    expect_status(op_d2h(&c, p, sizeof got, DEFAULT_STREAM, got, sizeof got), HW_OK, "D2H");
    EXPECT(memcmp(data, got, sizeof data) == 0, "round trip corrupted");
    raw_close(&c); /* without FREE: teardown must reclaim it */
    EXPECT(raw_wait_worker_idle(0, 0, 5000, &st) == 0,
           "worker reports %u sessions, %llu bytes in use after a client left without FREE",
           st.sessions, (unsigned long long)st.bytes_in_use);
    raw_pass();
}

int main(int argc, char **argv)
{
    static struct fixture f;
    shared_mode = argc > 1 && strcmp(argv[1], "shared") == 0;
    signal(SIGPIPE, SIG_IGN);
    setup(&f);
    check_forged_pointers(&f);
    check_one_byte_past_end(&f);
    check_overflowing_lengths(&f);
    check_invalid_handles(&f);
    check_launch(&f);
    if (!shared_mode) /* there the fixture's session ended with the device process */
        check_worker_still_serves(&f);
    printf("all hostile pointer checks passed\n");
    return 0;
}
