# SPDX-License-Identifier: BSD-3-Clause
# 32-bit ARM, hard float (ARMv7-A): apt install gcc-arm-linux-gnueabihf qemu-user
set(CMAKE_SYSTEM_PROCESSOR armv7l)
set(MCA_CROSS_TRIPLE arm-linux-gnueabihf)
set(MCA_CROSS_QEMU qemu-arm)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
