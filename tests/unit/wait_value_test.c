/*
 * hw_wait_value_met (backend.h): HIP's four stream-wait comparisons, as
 * every backend evaluates them, at the edges the integration test cannot
 * reach cheaply: the word's width bounds every operand, the mask applies to
 * the word (and to the value for Nor), Gte is unsigned.
 */
#include "backend.h"
#include "testutil.h"

#define ALL32 UINT64_C(0xffffffff)
#define ALL64 UINT64_MAX

int main(void)
{
    /* Gte is unsigned: no cyclic comparison as in CUDA. */
    CHECK(hw_wait_value_met(0x80000000u, 1, ALL32, 4, HIPR_WAIT_VALUE_GTE));
    CHECK(!hw_wait_value_met(1, 0x80000000u, ALL32, 4, HIPR_WAIT_VALUE_GTE));
    CHECK(hw_wait_value_met(UINT64_MAX, UINT64_MAX, ALL64, 8, HIPR_WAIT_VALUE_GTE));
    CHECK(!hw_wait_value_met(0, 1, ALL64, 8, HIPR_WAIT_VALUE_GTE));
    /* A 4-byte word: bits above it never count (the worker reads 4 bytes,
     * but a value or mask may carry high bits). */
    CHECK(hw_wait_value_met(UINT64_C(0xAB00000005), 5, ALL64, 4, HIPR_WAIT_VALUE_EQ));
    CHECK(hw_wait_value_met(5, UINT64_C(0x100000005), ALL32, 4, HIPR_WAIT_VALUE_EQ));
    CHECK(!hw_wait_value_met(5, UINT64_C(0x100000005), ALL64, 8, HIPR_WAIT_VALUE_EQ));
    /* The mask hides bits of the word. */
    CHECK(hw_wait_value_met(0x1234, 0x34, 0xff, 4, HIPR_WAIT_VALUE_EQ));
    CHECK(!hw_wait_value_met(0x1234, 0x1234, 0xff, 4, HIPR_WAIT_VALUE_EQ));
    CHECK(!hw_wait_value_met(0x10f, 0x10, 0xf0, 4, HIPR_WAIT_VALUE_GTE));
    /* And: any common bit of the masked word and the value. */
    CHECK(hw_wait_value_met(0x4, 0x6, ALL32, 4, HIPR_WAIT_VALUE_AND));
    CHECK(!hw_wait_value_met(0x9, 0x6, ALL32, 4, HIPR_WAIT_VALUE_AND));
    CHECK(!hw_wait_value_met(0xff, 0xf0, 0x0f, 4, HIPR_WAIT_VALUE_AND));
    CHECK(!hw_wait_value_met(0xffff, 0, ALL32, 4, HIPR_WAIT_VALUE_AND)); /* never with 0 */
    /* Nor: some bit set in neither, within the width. */
    CHECK(!hw_wait_value_met(0xF0F0F0F0u, 0x0F0F0F0Fu, ALL32, 4, HIPR_WAIT_VALUE_NOR));
    CHECK(hw_wait_value_met(0xF0F0F0E0u, 0x0F0F0F0Fu, ALL32, 4, HIPR_WAIT_VALUE_NOR));
    CHECK(!hw_wait_value_met(UINT64_C(0xF0F0F0F0F0F0F0F0), UINT64_C(0x0F0F0F0F0F0F0F0F), ALL64, 8,
                             HIPR_WAIT_VALUE_NOR));
    CHECK(hw_wait_value_met(UINT64_C(0xF0F0F0F0F0F0F0F0), UINT64_C(0x0F0F0F0F0F0F0F0F), ALL64 >> 1,
                            8, HIPR_WAIT_VALUE_NOR)); /* the mask clears bit 63 */
    /* An unknown comparison is never met (the worker refuses it first). */
    CHECK(!hw_wait_value_met(0, 0, ALL64, 8, 4));
    puts("wait value comparisons: ok");
    return 0;
}
