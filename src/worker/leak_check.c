/* leak_check.c - see leak_check.h. */
#include "leak_check.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HW_LSAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define HW_LSAN 1
#endif

#ifdef HW_LSAN
#include <sanitizer/lsan_interface.h>

int leak_check_session_exit(int rc)
{
    return __lsan_do_recoverable_leak_check() ? LEAK_CHECK_EXIT : rc;
}
#else
int leak_check_session_exit(int rc)
{
    return rc;
}
#endif
