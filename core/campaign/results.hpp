// A campaign's results: each run's summary.json (runs/NNNNNN/ under the campaign's folder) merged
// into runs.csv (one row per run: its drawn values, outcome and every metric) and campaign.json
// (success rate with its Wilson 95 % interval, percentiles of every metric, the runs that failed
// and why). Tolerant of missing runs (listed) and failed ones (counted as not successful).
#pragma once

#include <string>
#include <vector>

namespace grapple::core::campaign {

// The folder of run i inside a campaign's output folder: "runs/000042".
std::string runFolder(long run);

// What a run's summary says, as far as a campaign cares.
struct RunRecord {
  long run = -1;
  std::string outcome;  // captured, captured_out_of_spec, aborted, missed, failed
  bool success = false; // outcome == captured
  std::string error;    // why it failed (empty otherwise)
};
// Reads runs/NNNNNN/summary.json; throws std::runtime_error naming the file if it cannot.
RunRecord readRunRecord(const std::string& summary_path);

// Wilson score interval of a binomial proportion (successes out of n) at the normal quantile z
// (1.96: 95 %). n = 0 gives [0, 1].
struct Interval {
  double low = 0, high = 1;
};
Interval wilsonInterval(long successes, long n, double z = 1.959963984540054);

// The p-quantile (0 <= p <= 1) of sorted values, by linear interpolation between order statistics
// (Hyndman & Fan's type 7, the default of R and NumPy). NaN for no values.
double percentile(const std::vector<double>& sorted, double p);

struct MergeReport {
  long runs = 0;        // in the campaign
  long completed = 0;   // with a summary (failed ones included)
  long failed = 0;      // outcome failed
  long successes = 0;
  std::vector<long> missing;
  double success_rate = 0;  // successes / completed
  Interval wilson;
};

// The campaign folder's manifest.json (written by `campaign run`): its runs and value columns.
struct Manifest {
  std::string name, campaign_file;
  long runs = 0;
  unsigned long long seed = 0;
  std::vector<std::string> columns;
};
Manifest readManifest(const std::string& dir);
void writeManifest(const std::string& dir, const Manifest& m);

// Writes dir/runs.csv and dir/campaign.json (atomically). Throws std::runtime_error if the folder
// has no manifest or a summary cannot be read.
MergeReport mergeCampaign(const std::string& dir);
// Counts only (no files written): what `campaign status` prints.
MergeReport campaignStatus(const std::string& dir);

}  // namespace grapple::core::campaign
