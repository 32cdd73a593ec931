/* The handle registry: kinds are told apart, a second remove fails, bogus
 * addresses are unknown, and 8 threads adding and removing concurrently
 * leave exactly their own live handles. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "handle_registry.h"

#define CHECK(c)                                                    \
    do {                                                            \
        if (!(c)) {                                                 \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #c); \
            exit(1);                                                \
        }                                                           \
    } while (0)

enum { PER_THREAD = 4000, THREADS = 8 };
static char objects[THREADS][PER_THREAD];

static void *churn(void *arg)
{
    char *mine = arg;
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < PER_THREAD; i++)
            CHECK(hw_handle_add(HW_HANDLE_EVENT, &mine[i]) == 0);
        for (int i = 0; i < PER_THREAD; i += 2)
            CHECK(hw_handle_remove(HW_HANDLE_EVENT, &mine[i]) == 1);
        for (int i = 0; i < PER_THREAD; i++)
            CHECK(hw_handle_valid(HW_HANDLE_EVENT, &mine[i]) == (i % 2));
        for (int i = 1; i < PER_THREAD; i += 2)
            CHECK(hw_handle_remove(HW_HANDLE_EVENT, &mine[i]) == 1);
    }
    return NULL;
}

int main(void)
{
    int a, b;
    CHECK(hw_handle_add(HW_HANDLE_STREAM, NULL) == -1);
    CHECK(hw_handle_add(HW_HANDLE_STREAM, &a) == 0);
    CHECK(hw_handle_add(HW_HANDLE_MODULE, &b) == 0);
    CHECK(hw_handle_valid(HW_HANDLE_STREAM, &a));
    CHECK(!hw_handle_valid(HW_HANDLE_EVENT, &a)); /* wrong kind */
    CHECK(!hw_handle_valid(HW_HANDLE_STREAM, (void *)0xFFFF));
    CHECK(!hw_handle_valid(HW_HANDLE_STREAM, NULL));
    CHECK(hw_handle_remove(HW_HANDLE_EVENT, &a) == 0); /* wrong kind: kept */
    CHECK(hw_handle_valid(HW_HANDLE_STREAM, &a));
    CHECK(hw_handle_remove(HW_HANDLE_STREAM, &a) == 1);
    CHECK(hw_handle_remove(HW_HANDLE_STREAM, &a) == 0); /* destroyed twice */
    CHECK(!hw_handle_valid(HW_HANDLE_STREAM, &a));
    CHECK(hw_handle_valid(HW_HANDLE_MODULE, &b));

    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        CHECK(pthread_create(&t[i], NULL, churn, objects[i]) == 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < THREADS; i++)
        for (int j = 0; j < PER_THREAD; j++)
            CHECK(!hw_handle_valid(HW_HANDLE_EVENT, &objects[i][j]));
    printf("handle registry: ok\n");
    return 0;
}
