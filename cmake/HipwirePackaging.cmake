# Debian packages: `cpack -G DEB` in the build tree makes one package per
# install component (HipwireInstall.cmake): hipwire-worker, hipwire-client,
# hipwire-provider, hipwire-tools, and hipwire-service once that binary exists.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME hipwire)
set(CPACK_PACKAGE_VENDOR hipwire)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "hipwire maintainers <hipwire@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "HIP over the network")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL ${HIPWIRE_COMPONENTS})
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# No shlibs file: nothing should link against the proxies or the provider.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS OFF)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://github.com/hipwire/hipwire")
set(CPACK_STRIP_FILES ON)
# A package with a program linked against the proxy (HipwireInstall.cmake)
# cannot use dpkg-shlibdeps: it maps the SONAME libamdhip64.so.5 to Debian's
# real libamdhip64-5 whatever directory the file is found in. Such a package
# depends on hipwire-client plus HIPWIRE_DEB_DEPENDS_<component>.
# hipwire-service's list is what dpkg-shlibdeps gave for its two binaries.
set(HIPWIRE_DEB_DEPENDS_service "libc6 (>= 2.34), libcurl4 (>= 7.16.2), libffi8 (>= 3.4), \
libjansson4 (>= 2.14), libmicrohttpd12 (>= 0.9.50), libseccomp2, libsqlite3-0 (>= 3.5.9), \
libssl3 (>= 3.0.0)")

set(_deb ${CMAKE_SOURCE_DIR}/deploy/debian)
set(CPACK_DEBIAN_WORKER_DESCRIPTION "hipwire worker: runs HIP calls from remote clients
 hip-worker serves the hipwire proxy libamdhip64 over TCP (port 18515) on AMD
 GPUs (hip backend), NVIDIA GPUs (cuda) or a software CPU device. Ships the
 hardened hip-worker.service, /etc/hipwire/hip-worker.conf and its user.")
set(CPACK_DEBIAN_WORKER_PACKAGE_RECOMMENDS "g++")
set(CPACK_DEBIAN_WORKER_PACKAGE_SUGGESTS "hipcc")
set(CPACK_DEBIAN_WORKER_PACKAGE_CONTROL_EXTRA
    ${_deb}/worker/conffiles ${_deb}/worker/postinst ${_deb}/worker/prerm ${_deb}/worker/postrm)
set(CPACK_DEBIAN_WORKER_PACKAGE_CONTROL_STRICT_PERMISSION ON)

set(CPACK_DEBIAN_CLIENT_DESCRIPTION "hipwire client: the proxy HIP runtime
 libamdhip64.so.N and libhiprtc.so.N in /usr/lib/hipwire (never over a real
 ROCm's): with that directory in LD_LIBRARY_PATH an unmodified HIP program
 runs its HIP calls on a hip-worker (TF_WORKER_HOST). Also the CPU-device
 kernel header and hipwire.pc.")
set(CPACK_DEBIAN_PROVIDER_DESCRIPTION "hipwire AMD provider for TensorFusion
 libaccelerator_amd.so in /usr/lib/tensor-fusion: device discovery, metrics,
 processes, partitions and mounts from amdgpu sysfs and KFD.")
set(CPACK_DEBIAN_TOOLS_DESCRIPTION "hipwire command: node checks, labels, partitions, status
 hipwire node check|setup|labels, hipwire partition show|set|reset,
 hipwire devices and hipwire status.")
set(CPACK_DEBIAN_SERVICE_DESCRIPTION "hipwire kernel service
 hipwire-service: submit, compile, check and benchmark HIP kernels over HTTP;
 hipwire-runner runs each submission, confined.")
# It runs hipwire-runner (same package) and compiles with hipwire-cc (tools).
set(CPACK_DEBIAN_SERVICE_PACKAGE_DEPENDS
    "hipwire-worker (= ${PROJECT_VERSION}), hipwire-tools (= ${PROJECT_VERSION})")

foreach(c ${HIPWIRE_COMPONENTS})
  if(HIPWIRE_PROXY_USERS_${c})
    string(TOUPPER ${c} C)
    if(CPACK_DEBIAN_${C}_PACKAGE_DEPENDS)
      string(APPEND CPACK_DEBIAN_${C}_PACKAGE_DEPENDS ", ")
    endif()
    string(APPEND CPACK_DEBIAN_${C}_PACKAGE_DEPENDS "hipwire-client (= ${PROJECT_VERSION})")
    if(HIPWIRE_DEB_DEPENDS_${c})
      string(APPEND CPACK_DEBIAN_${C}_PACKAGE_DEPENDS ", ${HIPWIRE_DEB_DEPENDS_${c}}")
    endif()
    set(CPACK_DEBIAN_${C}_PACKAGE_SHLIBDEPS OFF)
  endif()
endforeach()

include(CPack)
