# Runs `hipwire-bench --quick --spawn-worker` and checks that it finished and
# printed every section. Speeds are never checked: a loaded CI machine must
# not fail this test.
execute_process(
  COMMAND ${BENCH} --quick --spawn-worker ${WORKER} --kernels ${KERNELS} --json ${JSON}
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
message("${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "hipwire-bench exited with ${rc}:\n${err}")
endif()
foreach(expected
    "== 1. Synchronous call round trip"
    "raw TCP echo, 24 B"
    "hipStreamQuery(NULL)"
    "hipMemGetInfo"
    "hipGetDevice (local)"
    "== 2. Fire-and-forget kernel launches"
    "enqueue rate (launches/s)"
    "completion rate (launches/s)"
    "spin_ns(5000)"
    "== 4. hipMalloc + hipFree"
    "pairs per second"
    "== 3. Copy bandwidth"
    "16 MiB"
    "== Targets ==")
  string(FIND "${out}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "hipwire-bench output lacks \"${expected}\"")
  endif()
endforeach()
if(out MATCHES "\\(failed\\)")
  message(FATAL_ERROR "a measurement failed:\n${err}")
endif()
if(NOT EXISTS ${JSON})
  message(FATAL_ERROR "hipwire-bench did not write ${JSON}")
endif()
file(READ ${JSON} json)
if(NOT json MATCHES "\"targets\"")
  message(FATAL_ERROR "${JSON} lacks the targets")
endif()
