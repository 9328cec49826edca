#!/usr/bin/env bash
# The core library and its tests under sanitizers (clang; builds of their own beside build/,
# configured by scripts/sanitizer_builds.sh, without the GUI):
#   build-asan: AddressSanitizer + UndefinedBehaviorSanitizer (leaks included);
#   build-tsan: ThreadSanitizer on the threaded code: test_sim_runner (the GUI's worker thread
#               against the GUI thread) and test_threads (the parallel manipulability maps, and the
#               background analyses run at once as the panels run them).
# Qt is not built with ThreadSanitizer. The threaded code under test synchronizes only through
# the C++ library (std::thread, std::mutex, std::condition_variable, std::atomic, std::future),
# which ThreadSanitizer sees; Qt runs in the main thread only (QtTest's checks), except QtTest's
# own watchdog thread, whose QWaitCondition scripts/tsan.supp suppresses (see there why). The
# GUI's panels hand their jobs to std::async with copies of the model: the same jobs, on threads
# at once, are what test_threads runs.
# Each stage builds only the tests it runs. Any report fails the script.
#
#   scripts/sanitize.sh ci        # CI's stage (scripts/test.sh): ASan + UBSan, a few minutes
#   scripts/sanitize.sh asan      # ASan + UBSan on every core test (about an hour on 2 cores)
#   scripts/sanitize.sh tsan      # ThreadSanitizer (CI's stage too)
#   scripts/sanitize.sh           # asan and tsan
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/sanitizer_builds.sh

which=${1:-all}
jobs=$(nproc)

# CI's stage. ASan and UBSan at -O1 make the numerical code 10 to 40 times slower than the Release
# build, so CI runs the core tests that take seconds whole (test_flexible up to a minute), and of
# the long ones (minutes of simulation each) the functions that reach their code in seconds:
ci_tests=(test_math test_dynamics test_manipulability test_closed_loop test_io test_urdf test_flex_modes
          test_flexible test_debris test_ode test_scenario test_capture_planner test_numerical_faults test_campaign
          test_collision test_scenario_schema test_scenario_document test_channels
          test_derivatives test_control_dynamics)
ci_functions=(
  # The thesis' energy-balance runs (Table 5.1) are left out (over 10 min under ASan): the coupled
  # modes of the flexible chaser reach the same flexible dynamics.
  "test_flexible_cases Chaser_CoupledFrequenciesNearIsolated"
  # The missions (capture, grasp, the published cases) and the long integrator comparisons are
  # left out: one to several minutes each under ASan.
  # The quasi-static integrator's model (locked modes, the flexible mass-matrix solve, the static
  # deflection); its mission comparisons against rk43 are minutes under ASan.
  "test_quasi_static LockedModes_AreTheFullModelRestricted SolveMassMatrix_Flexible_MatchesDenseSolve Cantilever_StaticDeflectionMatchesClosedForm WholeModes_KeptModelHasNoModeAboveTheCutoff"
  # The camera and its filters, the occlusion and the replan tests; left out: the false-alarm
  # Monte Carlo of the replan test (100 seeds, about a minute under ASan) and the two whole
  # missions flown on the estimate (CaptureFromEstimate, Replan_InTheLoopStillGrasps: 20 s to a
  # minute each), whose code the functions kept reach.
  "test_estimation Pinhole_MatchesEquation93 Camera_SeededNoiseAndFieldOfView Jacobians_MatchFiniteDifferences ZeroNoise_ConvergesToTruth Nees_WithinChiSquareBounds Delay_HandledBeatsIgnored LateImages_InsertedInPlace Occlusion_HandComputedCases Occlusion_MatchesSampling Occlusion_FaceTurnsAwayAndBack ChiSquare_MatchesTables PartingTest_DetectsRealPartingsAndTheReplanMeets"
  "test_sensing GraspOnTheEstimate BenchCase Seeded CovarianceAndAttitudeChannels_AreTheFilters Loader_NamesFileLineAndExpectation"
  # The capture window's path shaping on one plan (the envelope's runs are minutes under ASan).
  "test_envelope Shaping_LowersTheBusTorqueOfAPlan"
  "test_simulation DrivenRigid_MomentumZeroAndWorkEqualsEnergy Debris_RotationalEnergyConstant BlowUp_EndsWithAnEvent UrdfRobot_Runs DefaultEndEffector_IsTheDeepestBody OverlappingPaths_Rejected Grasp_ImpactConservesMomentum SampledControl_TracksCloseToContinuous"
)
# Left out of CI's stage, with `scripts/sanitize.sh asan` running them (test_no_alloc excepted):
#   test_no_alloc: counts heap allocations by interposing malloc, which ASan's allocator replaces
#     (it runs in no sanitizer build);
#   test_fuzz_regressions: scripts/fuzz.sh replays the same inputs under the same sanitizers;
#   test_cli, test_campaign_engines, test_campaign_slurm: grapple-cli in subprocesses, whose code
#     the fuzz targets and the core tests reach (and a build of grapple-cli more);
#   test_hinf, test_synthesis: H-infinity norms and the controller synthesis over hundreds of
#     frequency sweeps (minutes under ASan; SLICOT is Fortran, not instrumented);
#   test_environment: orbital environment over long runs (tens of seconds under ASan, no code
#     the others miss but the environment models);
#   test_envelope but its shaping of one plan: about 100 capture runs;
#   test_conservation: long free-floating runs (its shortest check takes 1 to 2 min under ASan);
#     test_dynamics and test_simulation's functions reach the same free-floating dynamics;
#   test_threads, test_sim_runner: ThreadSanitizer's (tsan, CI's next stage);
#   test_knowledge, test_chaser_sensing: two more test builds under ASan do not fit CI's time; the
#     scenario fuzz target reaches their loaders and set-up.

if [ "$which" = ci ]; then
  configure_asan
  targets=("${ci_tests[@]}")
  for f in "${ci_functions[@]}"; do targets+=("${f%% *}"); done
  cmake --build build-asan -j "$jobs" --target "${targets[@]}"
  regex=$(IFS='|'; echo "${ci_tests[*]}")
  (cd build-asan && ctest --output-on-failure -j "$jobs" -R "^($regex)\$")
  for f in "${ci_functions[@]}"; do
    read -r -a words <<<"$f"
    echo "sanitize: ${words[0]} ${words[*]:1}"
    QT_QPA_PLATFORM=offscreen "build-asan/tests/${words[0]}" "${words[@]:1}" >"build-asan/${words[0]}.log" 2>&1 ||
      { cat "build-asan/${words[0]}.log"; echo "sanitize: ${words[0]} FAILED"; exit 1; }
    grep -E '^Totals' "build-asan/${words[0]}.log"
  done
fi

if [ "$which" = all ] || [ "$which" = asan ]; then
  configure_asan
  cmake --build build-asan -j "$jobs"
  # (Minutes per test function under ASan: QtTest's and CTest's time limits raised.)
  (cd build-asan && QTEST_FUNCTION_TIMEOUT=7200000 ctest --output-on-failure -j "$jobs" --timeout 7200 -E '^test_no_alloc$')
fi

if [ "$which" = all ] || [ "$which" = tsan ]; then
  configure_tsan
  cmake --build build-tsan -j "$jobs" --target test_sim_runner test_threads
  export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1:suppressions=$PWD/scripts/tsan.supp}
  (cd build-tsan && ctest --output-on-failure -j 1 -R '^(test_sim_runner|test_threads)$')
fi
