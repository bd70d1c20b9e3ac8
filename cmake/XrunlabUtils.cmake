# SPDX-License-Identifier: GPL-2.0-or-later
# Small helpers shared by the targets.
function(xrunlab_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
                                           -Wno-sign-conversion)
  if(XRUNLAB_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

function(xrunlab_sanitize target)
  if(XRUNLAB_SANITIZE)
    target_compile_options(${target} PRIVATE -fsanitize=${XRUNLAB_SANITIZE} -fno-omit-frame-pointer)
    target_link_options(${target} PRIVATE -fsanitize=${XRUNLAB_SANITIZE})
  endif()
endfunction()

# One subsystem = one static library, xrunlab_<name> with the alias xrunlab::<name>.
#   xrunlab_library(<name> SOURCES a.cpp b.cpp DEPS xrunlab::base fmt::fmt ...)
# DEPS are PUBLIC: a subsystem's headers may name the types of the ones below it. The
# dependency picture (docs/development.md, "Layout") is kept one way: a library never lists one above it.
function(xrunlab_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(xrunlab_${name} STATIC ${ARG_SOURCES})
  add_library(xrunlab::${name} ALIAS xrunlab_${name})
  target_include_directories(xrunlab_${name} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(xrunlab_${name} PUBLIC ${ARG_DEPS})
  xrunlab_warnings(xrunlab_${name})
  xrunlab_sanitize(xrunlab_${name})
  xrunlab_use_pch(xrunlab_${name} xrunlab_pch_engine)
endfunction()

# XRUNLAB_FUZZ: every object of the build gets libFuzzer's coverage instrumentation and ASan +
# UBSan, every UBSan finding aborts (so the fuzzer keeps the input); the fuzz targets add
# -fsanitize=fuzzer at link time (tests/fuzz/CMakeLists.txt).
macro(xrunlab_fuzz_flags)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "XRUNLAB_FUZZ needs clang (configure with CXX=clang++-14; the "
                        "compiler is ${CMAKE_CXX_COMPILER_ID})")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endmacro()
