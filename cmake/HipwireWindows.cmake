# Settings of the Windows client build (cmake/mingw-w64.cmake, docs/windows.md).

# The HIP headers alone: ${HIP_ROOT}/include is /usr/include on Debian, whose
# glibc headers must not shadow mingw's, so only its hip/ directory is staged.
set(HIPWIRE_WIN_HIP_INCLUDE ${CMAKE_BINARY_DIR}/hip-include)
file(MAKE_DIRECTORY ${HIPWIRE_WIN_HIP_INCLUDE})
file(CREATE_LINK ${HIP_INCLUDE_DIR}/hip ${HIPWIRE_WIN_HIP_INCLUDE}/hip SYMBOLIC)
set(HIP_INCLUDE_DIR ${HIPWIRE_WIN_HIP_INCLUDE})
file(STRINGS "${HIP_INCLUDE_DIR}/hip/hip_version.h" _hv REGEX "#define HIP_VERSION_MINOR")
string(REGEX MATCH "[0-9]+" HIP_VERSION_MINOR "${_hv}")

# The names AMD's Windows installs give the DLLs: amdhip64.dll up to HIP 5,
# amdhip64_<major>.dll from HIP 6 (HIP SDK 6.x, TheRock's amdhip64_7.dll);
# hiprtc<MMmm>.dll (hiprtc0507.dll, hiprtc0602.dll, hiprtc0701.dll).
if(HIP_VERSION_MAJOR LESS 6)
  set(HIPWIRE_WIN_HIP_DLL amdhip64)
else()
  set(HIPWIRE_WIN_HIP_DLL amdhip64_${HIP_VERSION_MAJOR})
endif()
if(HIP_VERSION_MAJOR LESS 7)
  set(HIPWIRE_WIN_HIP_IMPLIB amdhip64)
else()
  set(HIPWIRE_WIN_HIP_IMPLIB amdhip64_${HIP_VERSION_MAJOR})
endif()
string(LENGTH "${HIP_VERSION_MINOR}" _l)
set(_minor "${HIP_VERSION_MINOR}")
if(_l LESS 2)
  set(_minor "0${_minor}")
endif()
set(HIPWIRE_WIN_HIPRTC_DLL hiprtc0${HIP_VERSION_MAJOR}${_minor})
message(STATUS "hipwire: Windows DLLs ${HIPWIRE_WIN_HIP_DLL}.dll, ${HIPWIRE_WIN_HIPRTC_DLL}.dll")

# No DLL of mingw's runtime (libgcc, winpthread) beside the proxy: a program
# needs only the proxy's own DLLs.
add_link_options(-static-libgcc -static)

# MSVC-format import libraries (short import members, what MSVC's link.exe
# and lld-link read), made from the .def the linker writes with llvm-dlltool
# (Debian: llvm-15). mingw's own GNU-format ones are lib<name>.dll.a.
find_program(HIPWIRE_DLLTOOL NAMES llvm-dlltool llvm-dlltool-15 llvm-dlltool-16 llvm-dlltool-14)
if(NOT HIPWIRE_DLLTOOL)
  message(STATUS "hipwire: no llvm-dlltool (apt-get install llvm-15): no MSVC import libraries")
endif()
# hipwire_win_implib(target dll_name lib_name): after target links (with
# -Wl,--output-def,lib/<dll_name>.def), lib/<lib_name>.lib for MSVC.
function(hipwire_win_implib target dll lib)
  set(def ${CMAKE_BINARY_DIR}/lib/${dll}.def)
  target_link_options(${target} PRIVATE -Wl,--output-def,${def})
  set_target_properties(${target} PROPERTIES IMPORT_PREFIX lib IMPORT_SUFFIX .dll.a)
  if(HIPWIRE_DLLTOOL)
    add_custom_command(TARGET ${target} POST_BUILD
      COMMAND ${HIPWIRE_DLLTOOL} -m i386:x86-64 -d ${def} -D ${dll}.dll
              -l ${CMAKE_BINARY_DIR}/lib/${lib}.lib
      COMMENT "MSVC import library ${lib}.lib for ${dll}.dll" VERBATIM)
    install(FILES ${CMAKE_BINARY_DIR}/lib/${lib}.lib DESTINATION lib COMPONENT client)
  endif()
  install(TARGETS ${target} RUNTIME DESTINATION bin COMPONENT client
          ARCHIVE DESTINATION lib COMPONENT client)
endfunction()
