# Debian packages the build and the tests need. When the build runs as root
# they are installed if missing; otherwise configuration stops with the
# exact apt-get line. -DHIPWIRE_INSTALL_DEPS=OFF skips this (machines without
# apt, e.g. a GPU box where HIP headers are supplied through -DHIP_ROOT).
option(HIPWIRE_INSTALL_DEPS "Install missing Debian packages at configure time" ON)
# What building the shipped binaries needs, and what only the tests need
# (-DBUILD_TESTING=OFF asks for the first list only).
set(HIPWIRE_BUILD_PACKAGES libamdhip64-dev libssl-dev libzstd-dev zlib1g-dev libcurl4-openssl-dev
    libmicrohttpd-dev pkg-config libsqlite3-dev libjansson-dev libffi-dev libseccomp-dev)
set(HIPWIRE_TEST_PACKAGES hipcc python3 clang libclang-rt-14-dev openssl llvm-15 lld-15 clang-format)
set(HIPWIRE_DEBIAN_PACKAGES ${HIPWIRE_BUILD_PACKAGES})
if(BUILD_TESTING)
  list(APPEND HIPWIRE_DEBIAN_PACKAGES ${HIPWIRE_TEST_PACKAGES})
endif()
if(WIN32)
  # The Windows client (cmake/mingw-w64.cmake) needs only the HIP headers;
  # its compiler and wine are scripts/test.sh's (test-only) packages.
  set(HIPWIRE_DEBIAN_PACKAGES libamdhip64-dev)
endif()

function(hipwire_missing_packages out)
  set(missing "")
  foreach(pkg ${HIPWIRE_DEBIAN_PACKAGES})
    execute_process(COMMAND dpkg-query -W -f=\${Status} ${pkg}
      OUTPUT_VARIABLE st ERROR_QUIET RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0 OR NOT st MATCHES "install ok installed")
      list(APPEND missing ${pkg})
    endif()
  endforeach()
  set(${out} "${missing}" PARENT_SCOPE)
endfunction()

find_program(DPKG_QUERY dpkg-query)
if(HIPWIRE_INSTALL_DEPS AND DPKG_QUERY)
  hipwire_missing_packages(HIPWIRE_MISSING)
  if(HIPWIRE_MISSING)
    string(REPLACE ";" " " pkgs "${HIPWIRE_MISSING}")
    execute_process(COMMAND id -u OUTPUT_VARIABLE uid OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(uid STREQUAL "0")
      message(STATUS "hipwire: installing missing Debian packages: ${pkgs}")
      execute_process(COMMAND apt-get update -qq)
      execute_process(COMMAND env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ${HIPWIRE_MISSING}
        RESULT_VARIABLE rc)
      if(NOT rc EQUAL 0)
        message(FATAL_ERROR "hipwire: apt-get install ${pkgs} failed")
      endif()
    else()
      message(FATAL_ERROR "hipwire: missing Debian packages. Run:\n  sudo apt-get install -y ${pkgs}")
    endif()
  endif()
endif()

# The HIP headers the proxy is built against (Debian's HIP 5.2 by default).
set(HIP_ROOT "/usr" CACHE PATH "Prefix holding include/hip/hip_runtime_api.h")
set(HIP_INCLUDE_DIR "${HIP_ROOT}/include")
if(NOT EXISTS "${HIP_INCLUDE_DIR}/hip/hip_runtime_api.h")
  message(FATAL_ERROR "hipwire: no HIP headers under ${HIP_ROOT} (install libamdhip64-dev or set -DHIP_ROOT=)")
endif()
file(STRINGS "${HIP_INCLUDE_DIR}/hip/hip_version.h" _hv REGEX "#define HIP_VERSION_MAJOR")
string(REGEX MATCH "[0-9]+" HIP_VERSION_MAJOR "${_hv}")
message(STATUS "hipwire: HIP headers ${HIP_INCLUDE_DIR}, major ${HIP_VERSION_MAJOR}")

# TLS (OpenSSL) is on when OpenSSL is found; -DHIPWIRE_TLS=OFF builds without
# it (the proxy and worker then refuse TLS settings with a clear message).
# Found here, at the top level, so its imported targets are visible to every
# directory (the fuzz harness links them too).
find_package(OpenSSL QUIET)
option(HIPWIRE_TLS "TLS between the proxy and hip-worker (needs OpenSSL)" ${OPENSSL_FOUND})
if(HIPWIRE_TLS AND NOT OPENSSL_FOUND)
  message(FATAL_ERROR "hipwire: HIPWIRE_TLS=ON but OpenSSL was not found (apt-get install libssl-dev)")
endif()
message(STATUS "hipwire: TLS ${HIPWIRE_TLS}")
