# What `cmake --install` puts where, and the Debian packages CPack makes of it
# (docs/deploy.md). Included last, when every target exists. A binary or proxy
# another change adds is one line below; a named target that does not exist
# (yet) is skipped, so installing never depends on it.
include(GNUInstallDirs)

# The proxy libraries never go over a real ROCm's libamdhip64: they get a
# directory of their own. The provider goes where TensorFusion's own Makefile
# installs providers.
set(HIPWIRE_PROXY_DIR lib/hipwire)
set(HIPWIRE_PROVIDER_DIR lib/tensor-fusion)
set(HIPWIRE_SYSCONF_DIR /etc/hipwire)
set(HIPWIRE_COMPONENTS "")

macro(_hipwire_component c)
  if(NOT "${c}" IN_LIST HIPWIRE_COMPONENTS)
    list(APPEND HIPWIRE_COMPONENTS ${c})
  endif()
endmacro()

# A program, its package, and its man page when docs/man/<name>.<section>.in
# exists (generated from the program's --help at build time).
macro(hipwire_install_program target component section)
  if(TARGET ${target})
    # A program linked against the proxy finds it in its private directory.
    # Only those: hip-worker's hip backend dlopens the real libamdhip64, and a
    # RUNPATH would hand it the proxy instead.
    get_target_property(_libs ${target} LINK_LIBRARIES)
    if(_libs AND "amdhip64_proxy" IN_LIST _libs)
      set_target_properties(${target} PROPERTIES INSTALL_RPATH "$ORIGIN/../${HIPWIRE_PROXY_DIR}")
      set(HIPWIRE_PROXY_USERS_${component} ON)
    endif()
    install(TARGETS ${target} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT ${component})
    set(_src ${CMAKE_SOURCE_DIR}/docs/man/${target}.${section}.in)
    if(EXISTS ${_src})
      set(_out ${CMAKE_BINARY_DIR}/man/${target}.${section})
      add_custom_command(OUTPUT ${_out}
        COMMAND ${CMAKE_COMMAND} -DBIN=$<TARGET_FILE:${target}> -DIN=${_src} -DOUT=${_out}
                -DVERSION=${PROJECT_VERSION} -P ${CMAKE_SOURCE_DIR}/cmake/man_page.cmake
        DEPENDS ${target} ${_src} ${CMAKE_SOURCE_DIR}/cmake/man_page.cmake VERBATIM)
      add_custom_target(man_${target} ALL DEPENDS ${_out})
      install(FILES ${_out} DESTINATION ${CMAKE_INSTALL_MANDIR}/man${section}
              COMPONENT ${component})
    endif()
    _hipwire_component(${component})
  endif()
endmacro()

# A proxy library (libamdhip64.so.N, libhiprtc.so.N): only its SONAME file,
# so nothing links against it by accident; $ORIGIN finds its siblings.
macro(hipwire_install_proxy target)
  if(TARGET ${target})
    set_target_properties(${target} PROPERTIES INSTALL_RPATH "$ORIGIN")
    install(TARGETS ${target} LIBRARY DESTINATION ${HIPWIRE_PROXY_DIR} COMPONENT client
            NAMELINK_SKIP)
    _hipwire_component(client)
  endif()
endmacro()

# A systemd unit (deploy/systemd/<file>.in, with the install paths filled
# in), installed with its program's package when that program is.
macro(hipwire_install_unit file program component)
  if(TARGET ${program})
    configure_file(${CMAKE_SOURCE_DIR}/deploy/systemd/${file}.in ${CMAKE_BINARY_DIR}/systemd/${file} @ONLY)
    install(FILES ${CMAKE_BINARY_DIR}/systemd/${file}
            DESTINATION lib/systemd/system COMPONENT ${component})
  endif()
endmacro()

hipwire_install_program(hip-worker worker 8)
hipwire_install_program(hipwire tools 1)
hipwire_install_program(hipwire-cc tools 1)
hipwire_install_program(hipwire-service service 8)
hipwire_install_program(hipwire-runner service 8)

# One build makes the proxy of one HIP major (its HIP_ROOT's headers); a
# build that makes more names each target here.
hipwire_install_proxy(amdhip64_proxy)
hipwire_install_proxy(hiprtc_proxy)

hipwire_install_unit(hip-worker.service hip-worker worker)
hipwire_install_unit(hipwire-service.service hipwire-service service)

if(TARGET accelerator_amd)
  install(TARGETS accelerator_amd LIBRARY DESTINATION ${HIPWIRE_PROVIDER_DIR} COMPONENT provider)
  install(FILES ${CMAKE_SOURCE_DIR}/src/provider/accelerator.h
          ${CMAKE_SOURCE_DIR}/src/provider/accel_upstream.h
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tensor-fusion COMPONENT provider)
  _hipwire_component(provider)
endif()

# The worker's configuration, user and token. The config file is a conffile
# in the package (dpkg keeps local edits).
install(FILES ${CMAKE_SOURCE_DIR}/deploy/etc/hip-worker.conf
        DESTINATION ${HIPWIRE_SYSCONF_DIR} COMPONENT worker)
install(FILES ${CMAKE_SOURCE_DIR}/deploy/systemd/hipwire.sysusers
        DESTINATION lib/sysusers.d RENAME hipwire.conf COMPONENT worker)

# Headers (the CPU-device kernel ABI) and the pkg-config file.
install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/hipwire
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT client)
file(RELATIVE_PATH HIPWIRE_PC_UP /x/${CMAKE_INSTALL_LIBDIR}/pkgconfig /x)
configure_file(${CMAKE_SOURCE_DIR}/cmake/hipwire.pc.in ${CMAKE_BINARY_DIR}/hipwire.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/hipwire.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT client)

# Bash completion, one file per command (bash-completion loads them by name).
install(FILES ${CMAKE_SOURCE_DIR}/deploy/completion/hipwire.bash
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME hipwire
        COMPONENT tools)
install(FILES ${CMAKE_SOURCE_DIR}/deploy/completion/hipwire.bash
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME hip-worker
        COMPONENT worker)

include(HipwirePackaging)
