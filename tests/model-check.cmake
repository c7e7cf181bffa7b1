# SPDX-License-Identifier: BSD-3-Clause
# Weak-memory model checking of the protocols that carry data and wake-ups
# (tests/model-check/, docs/memory-model.md): each model must verify, and each
# deliberately weakened variant must fail. Needs Debian's spin.
# The models do not depend on the build: sanitizer builds leave them to the default one.
find_program(MCA_SPIN spin)
if(MCA_SPIN AND NOT CMAKE_C_FLAGS MATCHES "-fsanitize")
  set(_mc ${CMAKE_CURRENT_SOURCE_DIR}/model-check)
  foreach(entry spsc_ring:pass: spsc_ring:fail:-DWEAK mpsc_ring:pass: mpsc_ring:fail:-DWEAK
                nbw:pass: nbw:fail:-DWEAK nbw:fail:-DWEAK_READER wakeup:pass: wakeup:fail:-DWEAK
                pkt_slots:pass: pkt_slots:fail:-DWEAK pkt_slots:fail:-DWEAK_RK
                pkt_slots:fail:-DWEAK_MARK pkt_slots:fail:-DWEAK_EAGER)
    string(REPLACE ":" ";" parts "${entry}")
    list(GET parts 0 model)
    list(GET parts 1 want)
    list(LENGTH parts _n)
    set(def "")
    set(name modelcheck_${model})
    if(_n GREATER 2)
      list(GET parts 2 def)
    endif()
    if(def)
      string(REPLACE "-D" "" _d "${def}")
      string(TOLOWER "${_d}" _d)
      set(name ${name}_${_d}_must_fail)
    endif()
    add_test(NAME ${name} COMMAND ${_mc}/check.sh ${_mc}/${model}.pml ${want} ${def})
    set_tests_properties(${name} PROPERTIES LABELS "unit;model-check" TIMEOUT 300 SKIP_RETURN_CODE 77)
  endforeach()
  # The asymmetric wake-up (membarrier on the sleeper's side, no fence on the notifier's).
  add_test(NAME modelcheck_wakeup_asym COMMAND ${_mc}/check.sh ${_mc}/wakeup.pml pass -DASYM)
  add_test(NAME modelcheck_wakeup_asym_no_heavy_must_fail
           COMMAND ${_mc}/check.sh ${_mc}/wakeup.pml fail -DASYM -DNOHEAVY)
  set_tests_properties(modelcheck_wakeup_asym modelcheck_wakeup_asym_no_heavy_must_fail PROPERTIES
    LABELS "unit;model-check" TIMEOUT 300 SKIP_RETURN_CODE 77)
else()
  message(STATUS "model checking: spin not found; tests/model-check is skipped (scripts/deps.sh ship)")
endif()
