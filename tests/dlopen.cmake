# SPDX-License-Identifier: BSD-3-Clause
# libmca.so opened with dlopen() after start-up, without GLIBC_TUNABLES (as
# Python's cffi opens it): its initial-exec TLS must fit glibc's reserve.
if(TARGET mca_shared AND NOT WIN32 AND NOT APPLE AND NOT CMAKE_C_FLAGS MATCHES "-fsanitize")
  add_executable(dlopen_tls ${CMAKE_CURRENT_SOURCE_DIR}/dlopen/dlopen_tls.c)
  target_include_directories(dlopen_tls PRIVATE ${PROJECT_SOURCE_DIR}/include ${PROJECT_BINARY_DIR}/include)
  target_link_libraries(dlopen_tls PRIVATE ${CMAKE_DL_LIBS} Threads::Threads)
  add_test(NAME dlopen_tls COMMAND dlopen_tls $<TARGET_FILE:mca_shared>)
  set_tests_properties(dlopen_tls PROPERTIES LABELS unit TIMEOUT 60
    ENVIRONMENT "GLIBC_TUNABLES=" PASS_REGULAR_EXPRESSION "^ok: dlopen")
endif()
