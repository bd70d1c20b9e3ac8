# SPDX-License-Identifier: GPL-2.0-or-later
# ccache in front of the C++ compiler when it is installed (Debian's ccache; scripts/setup.sh
# installs it): a wiped build folder, a second folder with the same flags, or a branch switched
# back compiles from the cache instead of again. -DXRUNLAB_CCACHE=OFF turns it off; a
# CMAKE_CXX_COMPILER_LAUNCHER given on the command line is kept as it is.
#
# The sloppiness is what precompiled headers need (ccache's manual, "Precompiled headers"):
# through a PCH ccache cannot see #defines or __DATE__/__TIME__ (pch_defines, time_macros; no
# source uses the time macros), and the PCH is written just before the files that include it
# (include_file_mtime, include_file_ctime: without them ccache distrusts a header newer than
# the compile's start and caches nothing for that file). Set through the environment of each
# compile, so the user's own ccache configuration stays as it is.
option(XRUNLAB_CCACHE "Compile through ccache when it is installed" ON)
if(XRUNLAB_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  find_program(XRUNLAB_CCACHE_PROGRAM ccache)
  find_program(XRUNLAB_ENV_PROGRAM env)
  if(XRUNLAB_CCACHE_PROGRAM AND XRUNLAB_ENV_PROGRAM)
    set(CMAKE_CXX_COMPILER_LAUNCHER
        ${XRUNLAB_ENV_PROGRAM}
        CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
        ${XRUNLAB_CCACHE_PROGRAM})
    message(STATUS "ccache: ${XRUNLAB_CCACHE_PROGRAM} (XRUNLAB_CCACHE=OFF to compile without)")
  else()
    message(STATUS "ccache not found: every build compiles in full (apt-get install ccache)")
  endif()
endif()
