/* The worker's allocation table and handle map: the structures every
 * pointer check and handle lookup goes through. */
#include <string.h>

#include "alloc_table.h"
#include "handle_map.h"
#include "testutil.h"

static void allocs(void)
{
    struct alloc_table t;
    struct alloc_range r, out;
    alloc_table_init(&t);
    for (uint64_t i = 0; i < 1000; i++) {
        r = (struct alloc_range){ 0x10000 + i * 0x1000, 0x800, 0, ALLOC_MALLOC, 0 };
        CHECK_EQ(alloc_table_insert(&t, &r), 0);
    }
    CHECK_EQ(t.malloc_bytes, 1000 * 0x800);
    r = (struct alloc_range){ 0x10400, 0x10, 0, ALLOC_MALLOC, 0 };
    CHECK_EQ(alloc_table_insert(&t, &r), -1); /* overlaps */
    CHECK(alloc_table_find(&t, 0x10000, 0x800) != NULL);
    CHECK(alloc_table_find(&t, 0x10000, 0x801) == NULL); /* one past the end */
    CHECK(alloc_table_find(&t, 0x10800, 1) == NULL);     /* in the gap */
    CHECK(alloc_table_find(&t, 0x107ff, 1) != NULL);
    CHECK(alloc_table_find(&t, 0x107ff, UINT64_MAX) == NULL); /* no wrap */
    CHECK(alloc_table_find(&t, 0xffff, 2) == NULL);
    CHECK(alloc_table_find(&t, UINT64_MAX, 1) == NULL);
    CHECK_EQ(alloc_table_remove(&t, 0x10001, &out), -1); /* not a base */
    CHECK_EQ(alloc_table_remove(&t, 0x11000, &out), 0);
    CHECK_EQ(out.size, 0x800);
    CHECK(alloc_table_find(&t, 0x11000, 1) == NULL);
    r = (struct alloc_range){ UINT64_MAX - 8, 16, 0, ALLOC_MALLOC, 0 };
    CHECK_EQ(alloc_table_insert(&t, &r), -1); /* wraps */
    alloc_table_free(&t);
}

static void handles(void)
{
    struct handle_map m;
    int vals[5000];
    handle_map_init(&m);
    for (int i = 0; i < 5000; i++)
        CHECK_EQ(handle_map_put(&m, (uint64_t)i * 7919 + 1, &vals[i]), 0);
    CHECK_EQ(handle_map_put(&m, 1, &vals[0]), -1); /* duplicate */
    CHECK_EQ(handle_map_put(&m, 0, &vals[0]), -1);
    for (int i = 0; i < 5000; i += 2)
        CHECK(handle_map_del(&m, (uint64_t)i * 7919 + 1) == &vals[i]);
    for (int i = 0; i < 5000; i++)
        CHECK(handle_map_get(&m, (uint64_t)i * 7919 + 1) == (i % 2 ? &vals[i] : NULL));
    CHECK(handle_map_get(&m, 123456789) == NULL);
    size_t pos = 0, n = 0;
    uint64_t k;
    void *v;
    while (handle_map_next(&m, &pos, &k, &v))
        n++;
    CHECK_EQ(n, 2500);
    CHECK_EQ(m.len, 2500);
    handle_map_free(&m);
}

int main(void)
{
    allocs();
    handles();
    printf("alloc table, handle map: ok\n");
    return 0;
}
