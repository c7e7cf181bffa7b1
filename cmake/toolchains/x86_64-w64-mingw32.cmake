# SPDX-License-Identifier: BSD-3-Clause
# 64-bit Windows with MinGW-w64 (Debian: apt install gcc-mingw-w64-x86-64-posix
# wine; scripts/deps.sh windows). Test programs run under Wine
# (CMAKE_CROSSCOMPILING_EMULATOR); scripts/wine-test.sh sets up its prefix.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(MCA_CROSS_TRIPLE x86_64-w64-mingw32)
# The posix thread model: winpthreads for the test programs and the mca
# command (the library itself calls Windows only).
find_program(_mca_mingw_cc NAMES ${MCA_CROSS_TRIPLE}-gcc-posix ${MCA_CROSS_TRIPLE}-gcc REQUIRED)
set(CMAKE_C_COMPILER ${_mca_mingw_cc})
find_program(_mca_mingw_cxx NAMES ${MCA_CROSS_TRIPLE}-g++-posix)
set(CMAKE_CXX_COMPILER ${_mca_mingw_cxx})
set(CMAKE_RC_COMPILER ${MCA_CROSS_TRIPLE}-windres)
set(CMAKE_FIND_ROOT_PATH /usr/${MCA_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# The build machine's optional libraries (hwloc, ZeroMQ) are not the target's.
set(ENV{PKG_CONFIG_LIBDIR} "/usr/${MCA_CROSS_TRIPLE}/lib/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")
# Programs link the MinGW runtime statically: they run without DLLs beside them.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
find_program(_mca_wine NAMES wine wine64)
if(_mca_wine)
  # MCX_TEST_EMULATOR lets the tests that cannot work under Wine (fork, exec of
  # another program through a POSIX shell, message queues) skip with the reason.
  set(CMAKE_CROSSCOMPILING_EMULATOR env MCX_TEST_EMULATOR=wine WINEDEBUG=-all ${_mca_wine})
endif()
