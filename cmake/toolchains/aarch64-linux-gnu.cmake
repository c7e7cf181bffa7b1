# SPDX-License-Identifier: BSD-3-Clause
# 64-bit ARM (ARMv8-A): apt install gcc-aarch64-linux-gnu qemu-user
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(MCA_CROSS_TRIPLE aarch64-linux-gnu)
set(MCA_CROSS_QEMU qemu-aarch64)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
