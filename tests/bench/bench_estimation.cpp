// The debris filter's cost: one camera image applied (prediction over the 50 ms since the last
// one, then the update) and a prediction alone; and the rigid capture mission with the camera
// and filter against the same mission on the true debris (Scenario_CaptureRigid). The bus
// attitude filter's: one gyro sample (a propagation), and one control step at 50 Hz with a star
// tracker at 10 Hz 0.1 s late (on average a gyro propagation plus a fifth of an update with its
// five re-propagations).
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "core/estimation/bus_attitude_filter.hpp"
#include "core/estimation/debris_filter.hpp"
#include "core/io/scenario_yaml.hpp"
#include "core/math/rotation.hpp"
#include "core/sim/simulation.hpp"

using namespace grapple::core;

namespace {

// The thesis' bench target (a 50 kg cylinder at 11 °/s) 2 m in front of the camera.
struct Bench {
  DebrisProperties debris;
  DebrisState truth;
  CameraSettings camera;
  DebrisEstimate prior;
  Bench() {
    debris.mass = 50;
    debris.inertia = Vector3(16.40625, 16.40625, 14.0625).asDiagonal();
    debris.target_B = Vector3(0.2, 0, 0.75);
    truth.r_W = Vector3(0.05, -0.1, 2.75);
    truth.Q_WB = quatExp(Vector3(M_PI, 0, 0));
    truth.w_B = Vector3(0.3, 0.5, 1).normalized() * (11 * M_PI / 180);
    prior.state = truth;
    prior.P = Matrix12::Identity() * 1e-4;
  }
};

void Estimation_FilterImage(benchmark::State& state) {
  const Bench b;
  Camera camera(b.camera);
  std::vector<CameraMeasurement> images;
  DebrisState x = b.truth;
  for (int k = 0; k < 2000; ++k) {  // 100 s at 20 Hz
    images.push_back(*camera.capture(k * 0.05, b.debris, x, Transform{}));
    x = stepDebris(b.debris, x, 0.05);
  }
  DebrisFilter filter(b.debris, b.camera, DebrisFilterSettings{}, b.prior);
  std::size_t k = 0;
  for (auto _ : state) {
    if (k == images.size()) {
      state.PauseTiming();
      filter = DebrisFilter(b.debris, b.camera, DebrisFilterSettings{}, b.prior);
      k = 0;
      state.ResumeTiming();
    }
    filter.addMeasurement(images[k++]);
    benchmark::DoNotOptimize(filter.posterior().P(0, 0));
  }
}

void Estimation_Predict50ms(benchmark::State& state) {
  const Bench b;
  const DebrisFilterSettings settings;
  for (auto _ : state) {
    DebrisEstimate e = b.prior;
    predictDebris(b.debris, settings, e, 0.05);
    benchmark::DoNotOptimize(e.P(0, 0));
  }
}

void Estimation_BusGyroSample(benchmark::State& state) {
  BusAttitudeEstimate prior;
  prior.P = Matrix6::Identity() * 1e-8;
  BusAttitudeFilter filter(BusAttitudeFilterSettings{}, prior);
  long k = 0;
  for (auto _ : state) {
    filter.addGyro({++k * 0.02, Vector3(0.01, -0.02, 0.03)});
    benchmark::DoNotOptimize(filter.posterior().P(0, 0));
  }
}

void Estimation_BusStep50HzStar10HzLate(benchmark::State& state) {
  BusAttitudeEstimate prior;
  prior.P = Matrix6::Identity() * 1e-8;
  BusAttitudeFilter filter(BusAttitudeFilterSettings{}, prior);
  const Vector3 w(0.01, -0.02, 0.03);
  long k = 0;
  for (auto _ : state) {
    const double t = ++k * 0.02;
    filter.addGyro({t, w});
    if (k % 5 == 0) filter.addStarTracker({t - 0.1, quatExp(w * (t - 0.1))});
    benchmark::DoNotOptimize(filter.posterior().P(0, 0));
  }
}

// Whole missions: the scenario flown to its end per iteration, simulated seconds per second.
void flyScenario(benchmark::State& state, const LoadedScenario& loaded) {
  double simulated = 0;
  for (auto _ : state) {
    Simulation sim(loaded.scenario, loaded.model);
    sim.run();
    simulated += sim.time();
    benchmark::DoNotOptimize(sim.recorder().rows());
  }
  state.counters["sim_s_per_s"] = benchmark::Counter(simulated, benchmark::Counter::kIsRate);
}

void Scenario_CaptureRigidCamera(benchmark::State& state) {
  flyScenario(state, loadScenario(std::string(GRAPPLE_SOURCE_DIR) + "/scenarios/capture_rigid_camera.yaml"));
}

// The rigid capture flown on the chaser's default sensors (encoders, gyro, star tracker).
void Scenario_CaptureRigidChaserSensors(benchmark::State& state) {
  const LoadedScenario loaded = loadScenario(std::string(GRAPPLE_SOURCE_DIR) + "/scenarios/capture_rigid.yaml",
                                             {{"sensors", "{encoders: {}, gyro: {}, star_tracker: {}}"}});
  flyScenario(state, loaded);
}

}  // namespace

BENCHMARK(Estimation_FilterImage)->Unit(benchmark::kMicrosecond);
BENCHMARK(Estimation_Predict50ms)->Unit(benchmark::kMicrosecond);
BENCHMARK(Estimation_BusGyroSample)->Unit(benchmark::kMicrosecond);
BENCHMARK(Estimation_BusStep50HzStar10HzLate)->Unit(benchmark::kMicrosecond);
BENCHMARK(Scenario_CaptureRigidCamera)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(Scenario_CaptureRigidChaserSensors)->Unit(benchmark::kMillisecond)->UseRealTime();
