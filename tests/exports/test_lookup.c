/* exports_lookup: dlopen the proxy and resolve every export listed in
 * symbols.txt through the proxy's own table (hipwire_get_proc_address).
 * Each must also be a dynamic symbol under its version node, at the same
 * address, so table lookups and the dynamic linker agree. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dlvsym, dladdr */
#endif
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef void *(*lookup_fn)(const char *name);

static int failures;

#define CHECK(cond, ...)                           \
    do {                                           \
        if (!(cond)) {                             \
            fprintf(stderr, "FAIL: " __VA_ARGS__); \
            fputc('\n', stderr);                   \
            failures++;                            \
        }                                          \
    } while (0)

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s PROXY.so SYMBOLS.txt\n", argv[0]);
        return 2;
    }
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        fprintf(stderr, "FAIL: dlopen %s: %s\n", argv[1], dlerror());
        return 1;
    }
    lookup_fn lookup;
    void *sym = dlsym(h, "hipwire_get_proc_address");
    if (sym == NULL) {
        fprintf(stderr, "FAIL: proxy lacks hipwire_get_proc_address\n");
        return 1;
    }
    memcpy(&lookup, &sym, sizeof(lookup));

    FILE *f = fopen(argv[2], "r");
    if (f == NULL) {
        perror(argv[2]);
        return 1;
    }
    char line[512], name[400], node[64], kind[16], origin[16];
    int n = 0;
    while (fgets(line, sizeof(line), f) != NULL) {
        if (line[0] == '#' || sscanf(line, "%399s %63s %15s %15s", name, node, kind, origin) != 4)
            continue;
        n++;
        void *via_table = lookup(name);
        void *via_ld = dlvsym(h, name, node);
        CHECK(via_table != NULL, "%s not in the export table", name);
        CHECK(via_ld != NULL, "%s@%s not exported: %s", name, node, dlerror());
        CHECK(via_table == via_ld, "%s: table %p, dynamic symbol %p", name, via_table, via_ld);
        Dl_info info;
        if (via_ld != NULL && dladdr(via_ld, &info) != 0)
            CHECK(info.dli_sname != NULL && strcmp(info.dli_sname, name) == 0, "%s resolves to %s",
                  name, info.dli_sname ? info.dli_sname : "?");
    }
    fclose(f);
    CHECK(n > 300, "only %d exports listed in %s", n, argv[2]);
    CHECK(lookup("hipNoSuchFunction") == NULL, "unknown name found");
    CHECK(lookup("") == NULL, "empty name found");
    CHECK(lookup(NULL) == NULL, "NULL name found");

    /* One behaviour check through the table: the half helpers are real. */
    uint16_t (*f2h)(float);
    float (*h2f)(uint16_t);
    void *pf = lookup("__gnu_f2h_ieee"), *ph = lookup("__gnu_h2f_ieee");
    if (pf != NULL && ph != NULL) {
        memcpy(&f2h, &pf, sizeof(pf));
        memcpy(&h2f, &ph, sizeof(ph));
        CHECK(f2h(1.0f) == 0x3c00, "f2h(1.0)=%#x", f2h(1.0f));
        CHECK(f2h(-2.5f) == 0xc100, "f2h(-2.5)=%#x", f2h(-2.5f));
        CHECK(f2h(65504.0f) == 0x7bff, "f2h(max)");
        CHECK(f2h(65520.0f) == 0x7c00, "f2h rounds to inf");
        CHECK(f2h(5.9604645e-08f) == 0x0001, "f2h(min subnormal)");
        CHECK(f2h(1.0f + 1.0f / 2048) == 0x3c00, "f2h ties to even");
        CHECK(h2f(0x3555) > 0.333f && h2f(0x3555) < 0.334f, "h2f(0x3555)");
        CHECK(h2f(0x0001) == 5.9604645e-08f, "h2f(min subnormal)");
        CHECK(h2f(0xfc00) < -1e38f, "h2f(-inf)");
        CHECK(h2f(0x7e00) != h2f(0x7e00), "h2f(nan)");
        for (uint32_t v = 0; v < 0x10000; v++)
            if ((v & 0x7c00) != 0x7c00 || (v & 0x3ff) == 0)
                CHECK(f2h(h2f((uint16_t)v)) == v, "round trip %#x", v);
    }
    dlclose(h);
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("%d exports resolve through the table and the dynamic linker\n", n);
    return 0;
}
