// BackgroundJob: a computation on its own thread that a panel polls from the GUI thread (the GUI
// never waits on it). It holds the future, the stop flag and the fraction done that the work's
// progress callback shares, and a timer calling `poll` on the GUI thread while the job is running.
// The Tuning panel's closed-loop analysis, synthesis and μ-certification are three of them.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <utility>

#include <QObject>
#include <QTimer>

namespace grapple::ui {

template <class T>
class BackgroundJob {
 public:
  // What the work calls with the fraction done; it returns false when the job is cancelled.
  using Progress = std::function<bool(double)>;

  // The timer is a child of `owner`; `poll` runs every interval_ms while a job is running.
  BackgroundJob(QObject* owner, int interval_ms, std::function<void()> poll) : timer_(new QTimer(owner)) {
    timer_->setInterval(interval_ms);
    QObject::connect(timer_, &QTimer::timeout, owner, [this, poll = std::move(poll)] {
      if (!running()) {
        timer_->stop();
        return;
      }
      poll();
    });
  }
  BackgroundJob(const BackgroundJob&) = delete;
  BackgroundJob& operator=(const BackgroundJob&) = delete;
  // Cancels and waits: the work must not outlive what it reads.
  ~BackgroundJob() {
    cancel();
    wait();
  }

  // Starts work(progress) on a new thread (the previous job, if any, must have been taken).
  void start(std::function<T(const Progress&)> work) {
    stop_ = std::make_shared<std::atomic<bool>>(false);
    done_ = std::make_shared<std::atomic<double>>(0.0);
    Progress progress = [stop = stop_, done = done_](double f) {
      *done = f;
      return !*stop;
    };
    future_ = std::async(std::launch::async, [work = std::move(work), progress] { return work(progress); });
    timer_->start();
  }
  bool running() const { return future_.valid(); }
  bool finished() const { return running() && future_.wait_for(std::chrono::seconds(0)) == std::future_status::ready; }
  double progress() const { return done_ ? done_->load() : 0.0; }
  void cancel() {
    if (stop_) *stop_ = true;
  }
  void wait() const {
    if (future_.valid()) future_.wait();
  }
  // The result of a finished job (waits if it is not; rethrows what the work threw); the job is
  // then no longer running.
  T take() {
    timer_->stop();
    std::future<T> f = std::move(future_);
    return f.get();
  }
  // Waits for the job and drops its result.
  void discard() {
    wait();
    timer_->stop();
    future_ = {};
  }

 private:
  QTimer* timer_;
  std::future<T> future_;
  std::shared_ptr<std::atomic<bool>> stop_;
  std::shared_ptr<std::atomic<double>> done_;
};

}  // namespace grapple::ui
