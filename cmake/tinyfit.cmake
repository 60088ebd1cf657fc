# Helpers shared by every layer: warnings as errors, sanitizers, one library per
# layer, unit tests beside their code with a CTest label.

set(TINYFIT_WARNINGS -Wall -Wextra -Wpedantic -Werror -Wshadow -Wnon-virtual-dtor
    -Wno-error=deprecated-declarations
    # GCC 12 at -O3 reports a false -Wrestrict in libstdc++ string code (seen in
    # src/ir/op_decl_test.cc); keep it a warning rather than a build failure.
    -Wno-error=restrict)
if(TINYFIT_SANITIZE)
  set(TINYFIT_SANITIZE_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=all
      -fno-omit-frame-pointer)
  add_compile_options(${TINYFIT_SANITIZE_FLAGS})
  add_link_options(${TINYFIT_SANITIZE_FLAGS})
endif()

# The layers are static libraries, except in sanitizer builds: there each of the
# ~100 test executables would carry its own instrumented copy of every layer it
# uses (10-40 MB each, over 1 GB in all), which filled a CI machine's disk.
# Shared there, they are built once. Every library is position independent so
# that the static helpers (runtime, CLI, test harnesses) can join either kind.
if(TINYFIT_SANITIZE)
  set(TINYFIT_LIBRARY_TYPE SHARED)
  set(CMAKE_POSITION_INDEPENDENT_CODE ON)
else()
  set(TINYFIT_LIBRARY_TYPE STATIC)
endif()

# TINYFIT_UNITY_BUILD (scripts/cmake_args.sh turns it on, so CI and the README's
# commands build this way): the C++ libraries - the layers and the command
# line's - are compiled eight sources to a translation unit. Most of a layer
# source's compile time is its headers (the standard library, tl::expected,
# the IR), parsed once per batch instead of once per file; under the
# sanitizers, where CI compiled about 1,300 s of CPU, it roughly halves the
# libraries' share. Off by default, so that editing one file rebuilds one file.
# A file-local name (anonymous namespace, static function) must then be
# unique within its layer.
option(TINYFIT_UNITY_BUILD "Compile the C++ libraries in batches of eight sources" OFF)
# Files whose siblings define the same file-local names by design (one
# operator's declaration per file, one zoo network per file) stay out of the
# batches: tinyfit_layer's UNITY_SKIP, globs relative to the layer's folder.
function(tinyfit_unity_build target)
  cmake_parse_arguments(ARG "" "" "SKIP" ${ARGN})
  if(NOT TINYFIT_UNITY_BUILD)
    return()
  endif()
  set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 8)
  foreach(pattern ${ARG_SKIP})
    file(GLOB skipped CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${pattern})
    set_source_files_properties(${skipped} TARGET_DIRECTORY ${target} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
  endforeach()
endfunction()

# tinyfit_layer(NAME DEPS <libs...> [TEST_DEPS <libs...>] [UNITY_SKIP <globs...>])
# One library per folder under src/ (TINYFIT_LIBRARY_TYPE): every *.cc in the folder (and its
# subfolders) except *_test.cc. Each *_test.cc becomes a unit test linked to the
# layer. Sources are globbed so that parallel work on one layer never fights over
# a hand-kept list; CONFIGURE_DEPENDS re-globs on every build.
function(tinyfit_layer name)
  cmake_parse_arguments(ARG "" "" "DEPS;TEST_DEPS;UNITY_SKIP" ${ARGN})
  file(GLOB_RECURSE srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cc)
  file(GLOB_RECURSE tests CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*_test.cc)
  if(tests)
    list(REMOVE_ITEM srcs ${tests})
  endif()
  add_library(tinyfit_${name} ${TINYFIT_LIBRARY_TYPE} ${srcs})
  target_include_directories(tinyfit_${name} PUBLIC ${PROJECT_SOURCE_DIR}/src)
  target_compile_options(tinyfit_${name} PRIVATE ${TINYFIT_WARNINGS})
  target_link_libraries(tinyfit_${name} PUBLIC ${ARG_DEPS})
  tinyfit_unity_build(tinyfit_${name} SKIP ${ARG_UNITY_SKIP})
  foreach(test_src ${tests})
    get_filename_component(test_name ${test_src} NAME_WE)
    tinyfit_test(${name}_${test_name} SOURCES ${test_src} DEPS tinyfit_${name} ${ARG_TEST_DEPS} LABEL unit)
  endforeach()
endfunction()

# The longest tests, with the seconds they took on CI's machine kind (2
# cores; release build for the property, models and mcu ones, sanitizer build
# for the unit ones; 2026-11-29). ctest -j2 starts the costliest tests first,
# but a fresh machine has no CTestCostData.txt to tell it which: in number
# order the suites ended on one of these alone for minutes.
set(TINYFIT_LONG_TEST_SECONDS
    property_device_rows_property_test=190 property_compile_budget_property_test=145
    mcu_emitted_c_one_node_test=140 models_emitted_c_host_test=135 models_zoo_nas_import_test=105
    mcu_emitted_c_models_test=90 plan_place_best_test=100 driver_motes_nas_chain_test=97
    driver_compile_pipeline_test=45 fuzz_mutation=43 plan_build_plan_test=37 plan_select_primitives_test=25)

# tinyfit_test(NAME SOURCES <files> DEPS <libs> LABEL <label>)
function(tinyfit_test name)
  cmake_parse_arguments(ARG "" "LABEL" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_compile_options(${name} PRIVATE ${TINYFIT_WARNINGS})
  # Under the sanitizers a test's own sources are built without their
  # instrumentation: the layers, tests/support and the tinyfit binary keep it,
  # so every call a test makes into them is checked, but instrumenting the
  # test bodies (GoogleTest's templates, mostly) made each compile 2-3x slower
  # (compile_pipeline_test.cc 9.2 -> 21.3 s, place_best_test.cc 3.5 -> 8.0 s)
  # for checks of test code only, and CI builds about 115 of them.
  if(TINYFIT_SANITIZE)
    set_source_files_properties(${ARG_SOURCES} PROPERTIES COMPILE_OPTIONS -fno-sanitize=all)
  endif()
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} tinyfit_test_support GTest::gtest GTest::gtest_main)
  target_compile_definitions(${name} PRIVATE
      TINYFIT_MODELS_DIR="${TINYFIT_MODELS_DIR}"
      TINYFIT_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
      TINYFIT_PYTHON="${Python3_EXECUTABLE}")
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES LABELS "${ARG_LABEL}")
  foreach(entry ${TINYFIT_LONG_TEST_SECONDS})
    if(entry MATCHES "^${name}=([0-9]+)$")
      set_tests_properties(${name} PROPERTIES COST ${CMAKE_MATCH_1})
    endif()
  endforeach()
  # Per label, for targets that build one suite only (sanitizer_suite).
  set_property(GLOBAL APPEND PROPERTY TINYFIT_TEST_TARGETS_${ARG_LABEL} ${name})
endfunction()
