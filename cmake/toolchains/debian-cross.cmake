# SPDX-License-Identifier: BSD-3-Clause
# Cross-compiling with Debian's cross toolchains (gcc-<triple>, libc6-dev-<arch>-cross).
# Included by the per-target files beside it, which set MCA_CROSS_TRIPLE,
# CMAKE_SYSTEM_PROCESSOR and MCA_CROSS_QEMU. Test programs run under qemu-user
# (CMAKE_CROSSCOMPILING_EMULATOR) with the target's libraries from /usr/<triple>.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_C_COMPILER ${MCA_CROSS_TRIPLE}-gcc)
# Without g++-<triple> the compiler is set to NOTFOUND, so the optional C++
# parts are skipped instead of being built with the host's g++.
find_program(_mca_cross_cxx ${MCA_CROSS_TRIPLE}-g++)
set(CMAKE_CXX_COMPILER ${_mca_cross_cxx})
set(CMAKE_FIND_ROOT_PATH /usr/${MCA_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# pkg-config looks at the target's .pc files only (Debian multiarch and the
# cross prefix): the build machine's optional libraries (hwloc, ZeroMQ) are
# not the target's.
set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/${MCA_CROSS_TRIPLE}/pkgconfig:/usr/${MCA_CROSS_TRIPLE}/lib/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")
find_program(_mca_cross_qemu ${MCA_CROSS_QEMU})
if(_mca_cross_qemu)
  # MCX_TEST_EMULATOR lets the few tests that cannot work under qemu-user
  # (exec of another target program, per-process message-queue limits) skip with the reason.
  set(CMAKE_CROSSCOMPILING_EMULATOR env MCX_TEST_EMULATOR=${MCA_CROSS_QEMU} ${_mca_cross_qemu} -L /usr/${MCA_CROSS_TRIPLE})
endif()
