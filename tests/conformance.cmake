# SPDX-License-Identifier: BSD-3-Clause
# Conformance programs (tests/conformance/conf_*.c): MCAPI applications written
# as for the reference implementation (mca-2.0.3), built against the public
# headers only and linked with libmca.a. Each runs in the spec profile; a name
# ending in _203 runs in the mca-2.0.3 profile instead; those listed below run
# in both (<name>_203, or conf_<topic>_spec for a _203 program). Every
# registration runs once more with MCX_LOCKING=global (<name>_global).
set(MCX_CONF_DIR ${CMAKE_CURRENT_SOURCE_DIR}/conformance)
set(MCX_CONF_INCLUDES ${PROJECT_SOURCE_DIR}/include ${PROJECT_BINARY_DIR}/include)
set(MCX_CONF_BOTH conf_headers conf_limits conf_param_uninit conf_i_success conf_recv_fifo conf_open_handle
  conf_close_held)
set(MCX_CONF_SPEC_TOO conf_pending_203 conf_scl_width_203 conf_mrapi_hooks_203
  conf_mrapi_reference_tree_203 conf_delete_connected_203)

# A cross build runs conf_headers' program under the emulator, as CMake runs
# the other test programs.
set(MCX_CONF_EMU_ENV "")
if(CMAKE_CROSSCOMPILING AND CMAKE_CROSSCOMPILING_EMULATOR)
  list(JOIN CMAKE_CROSSCOMPILING_EMULATOR " " _mcx_emu)
  set(MCX_CONF_EMU_ENV "MCX_CONF_EMULATOR=${_mcx_emu}")
endif()
set(MCX_CONF_LIBS "-pthread -lrt")
if(WIN32)
  set(MCX_CONF_LIBS "-static -pthread -lsynchronization -ladvapi32")
endif()

# The POSIX message-queue transport (MCA_WITH_PMQ): the programs whose
# behaviour does not depend on the transport's sizes run once more with
# MCX_TRANSPORT=pmq (<test>_pmq), one at a time (the per-user queue budget,
# RESOURCE_LOCK mqueue, as tests/pmq.cmake's) inside the pmq fixture. A
# program that needs deeper queues than fs.mqueue.msg_max gives is skipped
# with the reason (pmq_run.sh). Not on pmq: conf_headers (compiles headers).
set(MCX_CONF_PMQ_EXCLUDE conf_headers)
# <program>:<queue depth it needs>; the others need none in particular.
set(MCX_CONF_PMQ_DEPTH conf_param_uninit:64 conf_queue_full_203:64 conf_chan_queues_203:16
  conf_endpoints_max_203:64)
function(mcx_conf_register_pmq test prog env)
  if(NOT MCA_WITH_PMQ OR WIN32 OR CMAKE_CROSSCOMPILING OR prog IN_LIST MCX_CONF_PMQ_EXCLUDE)
    return()
  endif()
  set(need 1)
  foreach(entry ${MCX_CONF_PMQ_DEPTH})
    string(REPLACE ":" ";" parts ${entry})
    list(GET parts 0 p)
    if(p STREQUAL prog)
      list(GET parts 1 need)
    endif()
  endforeach()
  add_test(NAME ${test}_pmq COMMAND sh ${MCX_CONF_DIR}/pmq_run.sh ${need} $<TARGET_FILE:${prog}>)
  set_tests_properties(${test}_pmq PROPERTIES LABELS conformance TIMEOUT 120 SKIP_RETURN_CODE 77
    ENVIRONMENT "${env};MCX_TRANSPORT=pmq" RESOURCE_LOCK mqueue FIXTURES_REQUIRED pmq)
endfunction()

function(mcx_conf_register test cmd env)
  if(MCX_CONF_EMU_ENV)
    set(env "${env};${MCX_CONF_EMU_ENV}")
  endif()
  add_test(NAME ${test} COMMAND ${cmd})
  set_tests_properties(${test} PROPERTIES LABELS conformance TIMEOUT 60 ENVIRONMENT "${env}")
  add_test(NAME ${test}_global COMMAND ${cmd})
  set_tests_properties(${test}_global PROPERTIES LABELS conformance TIMEOUT 60
    ENVIRONMENT "${env};MCX_LOCKING=global")
endfunction()

# conf_headers checks header names: the build compiles it with a plain
# compiler line (the public headers only) and goes on when that fails; its
# test then fails with the compiler's output (compile_run.sh).
separate_arguments(MCX_CONF_CFLAGS UNIX_COMMAND "${CMAKE_C_FLAGS}")
set(MCX_CONF_HEADERS_BIN ${CMAKE_CURRENT_BINARY_DIR}/conf_headers_prog)
add_custom_command(OUTPUT ${MCX_CONF_HEADERS_BIN}.stamp
  COMMAND sh ${MCX_CONF_DIR}/compile_run.sh build ${MCX_CONF_HEADERS_BIN} ${CMAKE_C_COMPILER}
    $<TARGET_FILE:mca_static> "${MCX_CONF_LIBS}" -std=gnu11 -Wall -Wextra
    -I${PROJECT_SOURCE_DIR}/include -I${PROJECT_BINARY_DIR}/include ${MCX_CONF_CFLAGS}
    ${MCX_CONF_DIR}/conf_headers.c
  COMMAND ${CMAKE_COMMAND} -E touch ${MCX_CONF_HEADERS_BIN}.stamp
  DEPENDS ${MCX_CONF_DIR}/conf_headers.c ${MCX_CONF_DIR}/compile_run.sh mca_static
    ${PROJECT_BINARY_DIR}/include/mca_config.h ${MCX_PUBLIC_HEADERS}
  COMMENT "conformance: conf_headers (a compile error fails its test, not the build)" VERBATIM)
add_custom_target(conf_headers_prog ALL DEPENDS ${MCX_CONF_HEADERS_BIN}.stamp)

# Every installed header compiles alone: C99 and C11 (strict), C++11 and C++17.
set(_mcx_conf_cxx -)
if(CMAKE_CXX_COMPILER)
  set(_mcx_conf_cxx ${CMAKE_CXX_COMPILER})
endif()
add_test(NAME conf_headers_alone COMMAND sh ${MCX_CONF_DIR}/headers_alone.sh ${CMAKE_C_COMPILER} ${_mcx_conf_cxx}
  ${MCX_PUBLIC_HEADERS} ${PROJECT_BINARY_DIR}/include/mca_config.h)
set_tests_properties(conf_headers_alone PROPERTIES LABELS conformance TIMEOUT 120)

file(GLOB MCX_CONF_SOURCES CONFIGURE_DEPENDS ${MCX_CONF_DIR}/conf_*.c)
foreach(src ${MCX_CONF_SOURCES})
  get_filename_component(n ${src} NAME_WE)
  if(n STREQUAL "conf_headers")
    set(cmd sh ${MCX_CONF_DIR}/compile_run.sh run ${MCX_CONF_HEADERS_BIN})
  else()
    add_executable(${n} ${src})
    target_include_directories(${n} PRIVATE ${MCX_CONF_INCLUDES})
    target_compile_options(${n} PRIVATE -Wall -Wextra -Wno-unused-parameter)
    target_link_libraries(${n} PRIVATE mca_static)
    # gnu11: programs are built with the compiler's defaults, not strict ISO C.
    set_target_properties(${n} PROPERTIES C_EXTENSIONS ON)
    set(cmd ${n})
  endif()
  if(n MATCHES "_203$")
    mcx_conf_register(${n} "${cmd}" "MCX_COMPAT=mca-2.0.3")
    mcx_conf_register_pmq(${n} ${n} "MCX_COMPAT=mca-2.0.3")
    if(n IN_LIST MCX_CONF_SPEC_TOO)
      string(REGEX REPLACE "_203$" "_spec" spec_name ${n})
      mcx_conf_register(${spec_name} "${cmd}" "MCX_COMPAT=spec")
      mcx_conf_register_pmq(${spec_name} ${n} "MCX_COMPAT=spec")
    endif()
  else()
    mcx_conf_register(${n} "${cmd}" "MCX_COMPAT=spec")
    mcx_conf_register_pmq(${n} ${n} "MCX_COMPAT=spec")
    if(n IN_LIST MCX_CONF_BOTH)
      mcx_conf_register(${n}_203 "${cmd}" "MCX_COMPAT=mca-2.0.3")
      mcx_conf_register_pmq(${n}_203 ${n} "MCX_COMPAT=mca-2.0.3")
    endif()
  endif()
endforeach()
