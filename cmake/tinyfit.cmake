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

# tinyfit_layer(NAME DEPS <libs...>)
# One library per folder under src/ (TINYFIT_LIBRARY_TYPE): every *.cc in the folder (and its
# subfolders) except *_test.cc. Each *_test.cc becomes a unit test linked to the
# layer. Sources are globbed so that parallel work on one layer never fights over
# a hand-kept list; CONFIGURE_DEPENDS re-globs on every build.
function(tinyfit_layer name)
  cmake_parse_arguments(ARG "" "" "DEPS;TEST_DEPS" ${ARGN})
  file(GLOB_RECURSE srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cc)
  file(GLOB_RECURSE tests CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*_test.cc)
  if(tests)
    list(REMOVE_ITEM srcs ${tests})
  endif()
  add_library(tinyfit_${name} ${TINYFIT_LIBRARY_TYPE} ${srcs})
  target_include_directories(tinyfit_${name} PUBLIC ${PROJECT_SOURCE_DIR}/src)
  target_compile_options(tinyfit_${name} PRIVATE ${TINYFIT_WARNINGS})
  target_link_libraries(tinyfit_${name} PUBLIC ${ARG_DEPS})
  foreach(test_src ${tests})
    get_filename_component(test_name ${test_src} NAME_WE)
    tinyfit_test(${name}_${test_name} SOURCES ${test_src} DEPS tinyfit_${name} ${ARG_TEST_DEPS} LABEL unit)
  endforeach()
endfunction()

# tinyfit_test(NAME SOURCES <files> DEPS <libs> LABEL <label>)
function(tinyfit_test name)
  cmake_parse_arguments(ARG "" "LABEL" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_compile_options(${name} PRIVATE ${TINYFIT_WARNINGS})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} tinyfit_test_support GTest::gtest GTest::gtest_main)
  target_compile_definitions(${name} PRIVATE
      TINYFIT_MODELS_DIR="${TINYFIT_MODELS_DIR}"
      TINYFIT_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
      TINYFIT_PYTHON="${Python3_EXECUTABLE}")
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES LABELS "${ARG_LABEL}")
  # Per label, for targets that build one suite only (sanitizer_suite).
  set_property(GLOBAL APPEND PROPERTY TINYFIT_TEST_TARGETS_${ARG_LABEL} ${name})
endfunction()
