# SPDX-License-Identifier: BSD-3-Clause
# 64-bit RISC-V (RV64GC): apt install gcc-riscv64-linux-gnu qemu-user
set(CMAKE_SYSTEM_PROCESSOR riscv64)
set(MCA_CROSS_TRIPLE riscv64-linux-gnu)
set(MCA_CROSS_QEMU qemu-riscv64)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
