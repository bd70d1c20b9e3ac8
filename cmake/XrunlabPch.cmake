# SPDX-License-Identifier: GPL-2.0-or-later
# Precompiled headers for the heavy third-party headers (XRUNLAB_PCH, on by default): each set
# is compiled once, by a holder target, and the many targets of its kind take it from there
# (REUSE_FROM) instead of compiling one each.
#   xrunlab_pch_engine (CMakeLists.txt): nlohmann/json, fmt and a few standard headers, for
#     every xrunlab_library (the engine's and the clients' libraries) and the fuzz targets
#   xrunlab_pch_tests (tests/CMakeLists.txt): the same and GoogleTest, for the test programs
# A PCH is only taken by a compile with the flags that made it (GCC refuses it otherwise:
# -Winvalid-pch, an error under XRUNLAB_WERROR), hence one holder per set of flags: the build
# type's optimization for the libraries, -O0 for the tests; the warnings and sanitizer flags of
# both come from xrunlab_warnings and xrunlab_sanitize. A target with other flags (the card
# plug-in: -fno-exceptions; the benchmarks; the stand-alone programs) compiles without one.
# Each user links the libraries whose headers are in the PCH, so their definitions (fmt's
# FMT_SHARED, GoogleTest's GTEST_HAS_PTHREAD) are those the PCH was made with.
# A header a file uses must still be included by that file: the build without the PCH
# (-DXRUNLAB_PCH=OFF) and scripts/tidy.sh (which drops the PCH from its compile commands) see
# a missing include.
option(XRUNLAB_PCH "Precompiled headers for nlohmann/json, fmt and GoogleTest" ON)

# xrunlab_pch_holder(<name> HEADERS <header>... LIBS <library>...): the target that makes the
# PCH of HEADERS, compiled against LIBS. Nothing when XRUNLAB_PCH is off.
function(xrunlab_pch_holder name)
  cmake_parse_arguments(ARG "" "" "HEADERS;LIBS" ${ARGN})
  if(NOT XRUNLAB_PCH)
    return()
  endif()
  set(source ${CMAKE_CURRENT_BINARY_DIR}/${name}.cpp)
  file(CONFIGURE OUTPUT ${source}
       CONTENT "// The PCH holder ${name} has no code of its own (cmake/XrunlabPch.cmake).\n")
  add_library(${name} OBJECT ${source})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS})
  target_precompile_headers(${name} PRIVATE ${ARG_HEADERS})
  set_target_properties(${name} PROPERTIES XRUNLAB_PCH_LIBS "${ARG_LIBS}")
  xrunlab_warnings(${name})
  xrunlab_sanitize(${name})
  # clang writes the headers' times into a PCH unless told not to; ccache needs it not to.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    target_compile_options(${name} PRIVATE "SHELL:-Xclang -fno-pch-timestamp")
  endif()
endfunction()

# xrunlab_use_pch(<target> <holder>): <target> compiles with <holder>'s PCH (when there is one).
function(xrunlab_use_pch target holder)
  if(NOT TARGET ${holder})
    return()
  endif()
  get_target_property(libs ${holder} XRUNLAB_PCH_LIBS)
  target_link_libraries(${target} PRIVATE ${libs})
  target_precompile_headers(${target} REUSE_FROM ${holder})
endfunction()
