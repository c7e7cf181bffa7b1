#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Installs what building, testing and benchmarking libmca need on Debian, if
# it is missing: a C toolchain, CMake >= 3.25, Ninja, and for the tools the
# peer baselines (Boost.Lockfree, Concurrency Kit), libclang for `mca hint`,
# peer baselines (Boost.Lockfree, Concurrency Kit, ZeroMQ, nng, iceoryx),
# Eclipse Cyclone DDS and its Python binding for `mca dds` and its tests,
# Jinja2 and plotly.js for `mca report`, Chromium to check the report in the
# test suite, and SimPy.
# Safe to run again: it only installs what is absent.
set -euo pipefail

need_apt=()
command -v cmake >/dev/null || need_apt+=(cmake)
command -v ninja >/dev/null || need_apt+=(ninja-build)
command -v gcc >/dev/null || need_apt+=(gcc)
command -v g++ >/dev/null || need_apt+=(g++)
command -v pkg-config >/dev/null || need_apt+=(pkg-config)
command -v python3 >/dev/null || need_apt+=(python3 python3-pip)
[ -f /usr/include/boost/lockfree/spsc_queue.hpp ] || need_apt+=(libboost-dev)
[ -f /usr/include/ck_ring.h ] || need_apt+=(libck-dev)
# valgrind: `mca bench --instr` (callgrind) and `mca model --count` (lackey).
command -v valgrind >/dev/null || need_apt+=(valgrind)
# libclang and its Python binding for `mca hint` (Debian's, under /usr/lib/python3)
[ -f /usr/lib/python3/dist-packages/clang/cindex.py ] || need_apt+=(python3-clang libclang-dev)
# hwloc: the machine topology for MRAPI metadata (optional: MCX_WITH_HWLOC; /sys otherwise).
[ -f /usr/include/hwloc.h ] || need_apt+=(libhwloc-dev)
# Messaging peers of `mca bench` (each optional; a peer that is absent is skipped).
[ -f /usr/include/zmq.h ] || need_apt+=(libzmq3-dev)
# nng is also the transport of `mca bridge` (optional: MCX_BRIDGE); its TLS test makes certificates with openssl.
[ -f /usr/include/nng/nng.h ] || need_apt+=(libnng-dev)
command -v openssl >/dev/null || need_apt+=(openssl)
# Eclipse Cyclone DDS: the transport of `mca dds` (optional: MCX_WITH_DDS); idlc
# (cyclonedds-tools) generates the sample's C type; its tests use the Python
# binding, installed below into a venv (python3-venv).
[ -f /usr/include/dds/dds.h ] || need_apt+=(cyclonedds-dev)
command -v idlc >/dev/null || need_apt+=(cyclonedds-tools)
/usr/bin/python3 -c 'import ensurepip' 2>/dev/null || need_apt+=(python3-venv)
# Whether Debian has iceoryx is asked of apt's package lists. A machine with
# none yet (a fresh container) reads them first, so the first run decides as
# every later one: otherwise the next run (scripts/run.sh after
# scripts/test.sh) installs iceoryx, and its configure rebuilds the benchmark
# and relinks the mca command.
apt_updated=0
if [ ! -f /usr/include/iceoryx_binding_c/publisher.h ] && [ -z "$(ls -d /usr/include/iceoryx/*/iceoryx_binding_c 2>/dev/null)" ]; then
  if ! compgen -G "/var/lib/apt/lists/*_Packages*" >/dev/null; then
    if [ "$(id -u)" -eq 0 ]; then
      apt-get update -qq && apt_updated=1
    elif command -v sudo >/dev/null; then
      sudo apt-get update -qq && apt_updated=1
    fi
  fi
  if apt-cache show libiceoryx-binding-c-dev >/dev/null 2>&1; then
    need_apt+=(iceoryx libiceoryx-binding-c-dev)
  fi
fi

# `mca report`: HTML from templates (Jinja2) with Plotly figures (plotly.js
# from Debian's python3-plotly, embedded into the page); the test suite renders
# the page in headless Chromium (that test is skipped without it).
python3 -c 'import jinja2' 2>/dev/null || [ -d /usr/lib/python3/dist-packages/jinja2 ] || need_apt+=(python3-jinja2)
[ -f /usr/share/python3-plotly/plotly.js ] || python3 -c 'import plotly' 2>/dev/null || need_apt+=(python3-plotly)
command -v chromium >/dev/null || command -v chromium-browser >/dev/null || need_apt+=(chromium)
# cffi and pytest: the mcapi Python package (python/) and its tests (skipped without them).
/usr/bin/python3 -c 'import cffi' 2>/dev/null || need_apt+=(python3-cffi)
/usr/bin/python3 -c 'import pytest' 2>/dev/null || need_apt+=(python3-pytest)
# help2man: the man pages of mca, built and installed with the tool.
command -v help2man >/dev/null || need_apt+=(help2man)
# stress-ng: the CPU hogs of scripts/under-load.sh (CI runs the suite once more under load).
command -v stress-ng >/dev/null || need_apt+=(stress-ng)

# Optional parts, on request:
#   deps.sh cross ARCH   cross compiler and qemu-user (scripts/cross-test.sh; ARCH aarch64|armhf|riscv64)
#   deps.sh ship         spin (model checking), doxygen (API docs), and what
#                        deps.sh windows installs (CI's Windows step)
#   deps.sh windows      MinGW-w64 (posix threads) and Wine (scripts/wine-test.sh)
windows_deps() {
  command -v x86_64-w64-mingw32-gcc-posix >/dev/null || need_apt+=(gcc-mingw-w64-x86-64-posix)
  # wine: the loader; wine64: the 64-bit Windows runtime it runs programs with.
  { command -v wine >/dev/null && [ -e /usr/lib/wine/wine64 ]; } || need_apt+=(wine wine64)
}
case "${1:-}" in
  windows)
    windows_deps
    ;;
  cross)
    case "${2:-}" in
      aarch64) t=aarch64-linux-gnu; a=arm64 ;;
      armhf) t=arm-linux-gnueabihf; a=armhf ;;
      riscv64) t=riscv64-linux-gnu; a=riscv64 ;;
      *) echo "deps: cross needs ARCH (aarch64, armhf, riscv64)" >&2; exit 2 ;;
    esac
    command -v "$t-gcc" >/dev/null || need_apt+=("gcc-$t")
    [ -f "/usr/$t/include/stdio.h" ] || need_apt+=("libc6-dev-$a-cross")
    command -v "qemu-${2/armhf/arm}" >/dev/null || need_apt+=(qemu-user)
    ;;
  ship)
    command -v spin >/dev/null || need_apt+=(spin)
    command -v doxygen >/dev/null || need_apt+=(doxygen)
    windows_deps
    ;;
esac

if ((${#need_apt[@]})); then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null; then SUDO="sudo"; else
      echo "deps: missing ${need_apt[*]} and not root; install them and re-run" >&2
      exit 1
    fi
  fi
  echo "deps: installing ${need_apt[*]}"
  export DEBIAN_FRONTEND=noninteractive
  [ "$apt_updated" -eq 1 ] || $SUDO apt-get update -qq || true
  $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

# SimPy for `mca model` (the discrete-event simulation beside the closed form).
if ! python3 -c 'import simpy' 2>/dev/null; then
  echo "deps: installing simpy for $(command -v python3)"
  python3 -m pip install -q simpy 2>/dev/null ||
    python3 -m pip install -q --break-system-packages simpy
fi

# The Python binding of Cyclone DDS (PyPI cyclonedds, the version of the C
# library) for the tests of `mca dds` (tests/dds.cmake finds build/dds-venv).
# It is built against Debian's libddsc, whose files are not laid out as its
# setup.py looks for them: CYCLONEDDS_HOME is a directory of links.
root=$(cd "$(dirname "$0")/.." && pwd)
if [ -f /usr/include/dds/dds.h ] && ! "$root/build/dds-venv/bin/python" -c 'import cyclonedds' 2>/dev/null; then
  ver=$(dpkg-query -W -f '${Version}' cyclonedds-dev 2>/dev/null | sed 's/-.*//')
  home="$root/build/cyclone-home"
  mkdir -p "$home/lib"
  ln -sfn /usr/include "$home/include"
  ln -sfn /usr/bin "$home/bin"
  for f in /usr/lib/*-linux-gnu/libddsc.so* /usr/lib/*-linux-gnu/libcycloneddsidl.so*; do
    [ -e "$f" ] && ln -sf "$f" "$home/lib/"
  done
  echo "deps: installing cyclonedds==${ver:-0.10.2} into $root/build/dds-venv"
  /usr/bin/python3 -m venv "$root/build/dds-venv" &&
    CYCLONEDDS_HOME="$home" "$root/build/dds-venv/bin/pip" install -q "cyclonedds==${ver:-0.10.2}" ||
    echo "deps: the Python binding of Cyclone DDS could not be installed; the dds_* tests will be skipped" >&2
fi
