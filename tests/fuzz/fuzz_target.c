/*
 * fuzz_target.c - libFuzzer entry point for the worker's request path
 * (fuzz_session.h describes the input format).
 */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_session.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_session_run(data, size);
}
