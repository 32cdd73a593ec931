# Cross-compiles hipwire's client side (the amdhip64 DLL, the hiprtc DLL and
# the client test programs) for 64-bit Windows with Debian's mingw-w64
# (docs/windows.md):
#   cmake -S . -B build-win -DCMAKE_TOOLCHAIN_FILE=cmake/mingw-w64.cmake
# The posix flavour of the compiler is preferred: its runtime has
# winpthreads, which the client's threads and mutexes use.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(_hw_triple x86_64-w64-mingw32)

find_program(_hw_mingw_cc NAMES ${_hw_triple}-gcc-posix ${_hw_triple}-gcc)
if(NOT _hw_mingw_cc)
  message(FATAL_ERROR "hipwire: no mingw-w64 compiler (apt-get install gcc-mingw-w64-x86-64)")
endif()
set(CMAKE_C_COMPILER ${_hw_mingw_cc})
set(CMAKE_RC_COMPILER ${_hw_triple}-windres)

set(CMAKE_FIND_ROOT_PATH /usr/${_hw_triple})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
