/*
 * ops_rtc.c - runtime compilation (the work is rtc.c's).
 */
#include <stdlib.h>
#include <string.h>

#include "hw_alloc.h"
#include "hw_log.h"
#include "ops.h"
#include "rtc.h"

HANDLER(RTC_COMPILE)
{
    return rtc_handle_compile(s, h, fixed);
}
