# Sourced by scripts/fuzz.sh and scripts/sanitize.sh: configures the clang builds they use, each
# in its own folder beside build/, without the GUI (render/, ui/, Qt widgets, OSG): only the core
# library, grapple-cli, the core tests and the fuzz targets, so they stay small.
#   build-asan: AddressSanitizer + UndefinedBehaviorSanitizer, with libFuzzer's coverage
#               instrumentation (-fsanitize=fuzzer-no-link), so one compilation of the core serves
#               the core tests and the fuzz targets alike. -O1 and assertions on (Eigen's bounds
#               checks included).
#   build-tsan: ThreadSanitizer, for the threaded code (the GUI's worker, the parallel analyses).

configure_sanitizer_build() {  # folder, sanitizer flags, fuzz targets ON|OFF
  local dir=$1 flags=$2 fuzz=$3
  cmake -S . -B "$dir" -G Ninja -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
    -DCMAKE_CXX_FLAGS="$flags -fno-omit-frame-pointer" \
    -DGRAPPLE_BUILD_GUI=OFF -DGRAPPLE_BUILD_BENCH=OFF -DGRAPPLE_BUILD_FUZZ="$fuzz" >/dev/null
}

configure_asan() {
  configure_sanitizer_build build-asan \
    "-fsanitize=address,undefined -fno-sanitize-recover=all -fsanitize=fuzzer-no-link" ON
}

configure_tsan() {
  configure_sanitizer_build build-tsan "-fsanitize=thread" OFF
}

# Sanitizer reports stop the program with a non-zero status.
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1:strict_string_checks=1:check_initialization_order=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
