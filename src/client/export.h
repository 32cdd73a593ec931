/* Marks a function the proxy exports.  The library is built with
 * -fvisibility=hidden, so only HW_EXPORT definitions (and the generated
 * stubs) reach the dynamic symbol table; the version script then assigns
 * each one the version node the real libamdhip64 uses.
 * tools/gen_hip_exports.py finds hand-written API by scanning for
 * HW_EXPORT at the start of a definition line, so keep it there. */
#ifndef HIPWIRE_CLIENT_EXPORT_H
#define HIPWIRE_CLIENT_EXPORT_H

#ifdef _WIN32
/* The DLL's export table is exactly the HW_EXPORT definitions (docs/windows.md). */
#define HW_EXPORT __declspec(dllexport)
/* A DLL's calls to its own functions never bind elsewhere. */
#define HW_HIDDEN
#else
#define HW_EXPORT __attribute__((visibility("default")))
/* For a library's own alias of an export, which no other library may
 * interpose. */
#define HW_HIDDEN __attribute__((visibility("hidden")))
#endif

#endif
