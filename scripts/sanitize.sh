#!/usr/bin/env bash
# The core library and its tests under sanitizers (clang; builds of their own beside build/,
# configured by scripts/sanitizer_builds.sh, without the GUI):
#   build-asan: AddressSanitizer + UndefinedBehaviorSanitizer (leaks included), every core test,
#               grapple-cli's test and the replay of the fuzz targets' inputs;
#   build-tsan: ThreadSanitizer on the threaded code: test_sim_runner (the GUI's worker thread
#               against the GUI thread) and test_threads (the parallel manipulability maps, and the
#               background analyses run at once as the panels run them).
# Qt is not built with ThreadSanitizer. The threaded code under test synchronizes only through
# the C++ library (std::thread, std::mutex, std::condition_variable, std::atomic, std::future),
# which ThreadSanitizer sees; Qt runs in the main thread only (QtTest's checks), so it needs no
# suppressions. The GUI's panels hand their jobs to std::async with copies of the model: the same
# jobs, on threads at once, are what test_threads runs.
# Any report fails the script.
#
#   scripts/sanitize.sh           # both
#   scripts/sanitize.sh asan      # one of them (asan | tsan)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/sanitizer_builds.sh

which=${1:-all}
jobs=$(nproc)

if [ "$which" = all ] || [ "$which" = asan ]; then
  configure_asan
  cmake --build build-asan -j "$jobs"
  (cd build-asan && ctest --output-on-failure -j "$jobs")
fi

if [ "$which" = all ] || [ "$which" = tsan ]; then
  configure_tsan
  cmake --build build-tsan -j "$jobs" --target test_sim_runner test_threads
  export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}
  (cd build-tsan && ctest --output-on-failure -j 1 -R '^(test_sim_runner|test_threads)$')
fi
