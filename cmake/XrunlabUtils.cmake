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
# dependency picture (README, "Layout") is kept one way: a library never lists one above it.
function(xrunlab_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(xrunlab_${name} STATIC ${ARG_SOURCES})
  add_library(xrunlab::${name} ALIAS xrunlab_${name})
  target_include_directories(xrunlab_${name} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(xrunlab_${name} PUBLIC ${ARG_DEPS})
  xrunlab_warnings(xrunlab_${name})
  xrunlab_sanitize(xrunlab_${name})
endfunction()
