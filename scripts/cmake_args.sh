# Sourced by setup_and_run.sh and test_all.sh: the CMake arguments of the two
# builds, in one place so both scripts configure build/ the same way.
#
# release_args: RelWithDebInfo (-O2 -g), the project default. With
#   TINYFIT_DEBUG_INFO=0 (CI sets it) the same -O2 code without -g: debug info
#   costs about a third of the compile time and most of the link time of ~100
#   test executables, and CI never reads it.
# asan_args: ASan + UBSan at -O1 -g1, as the AddressSanitizer documentation
#   recommends: line tables for symbolised reports, half the compile time of -O2 -g.
# Both: TINYFIT_UNITY_BUILD (cmake/tinyfit.cmake), the C++ libraries compiled
#   eight sources at a time: at 3fa5f12 on this machine kind the sanitizer
#   tree's sanitizer_suite took 11.4 min without it and 8.3 min with it, the
#   release tree's release_suite 5.5 and 3.6 min.
release_args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DPython3_EXECUTABLE=/usr/bin/python3 -DTINYFIT_UNITY_BUILD=ON)
if [[ ${TINYFIT_DEBUG_INFO:-1} == 0 ]]; then
  release_args+=("-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -DNDEBUG" "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -DNDEBUG")
fi
asan_args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DTINYFIT_SANITIZE=ON -DPython3_EXECUTABLE=/usr/bin/python3 -DTINYFIT_UNITY_BUILD=ON
           "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG")
# A compiler launcher (ccache) when the developer has one configured.
if [[ -n ${TINYFIT_COMPILER_LAUNCHER:-} ]]; then
  release_args+=(-DCMAKE_CXX_COMPILER_LAUNCHER="$TINYFIT_COMPILER_LAUNCHER" -DCMAKE_C_COMPILER_LAUNCHER="$TINYFIT_COMPILER_LAUNCHER")
  asan_args+=(-DCMAKE_CXX_COMPILER_LAUNCHER="$TINYFIT_COMPILER_LAUNCHER" -DCMAKE_C_COMPILER_LAUNCHER="$TINYFIT_COMPILER_LAUNCHER")
fi
