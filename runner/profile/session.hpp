#pragma once
/// CUPTI Range Profiler session, one range per kernel launch: profile() uses auto ranges and kernel
/// replay, profile_group() user ranges and bankbench's own passes (user replay). Set up once per
/// device and metric list; each configuration reuses the config image.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

struct CUctx_st;

namespace bb::profile {

struct metric_info {
  std::string name;
  std::string unit; ///< CUPTI's dimension unit, e.g. "nsecond"; "" for plain counts
  std::string description;
};

/// Values of one range (one kernel launch), by metric name.
using range_values = std::map<std::string, double>;

class session {
public:
  /// Initialises CUPTI for `device` (already selected, context current), checks that profiling is
  /// supported and permitted, validates every metric against the chip, and builds the config
  /// image. Throws environment_error (no permission, another profiler attached, unsupported
  /// device) or usage_error (a metric this chip does not know, naming the chip).
  static std::unique_ptr<session> create(int device, const std::vector<std::string>& metrics);
  /// As above, on the context `ctx` of `device` (an injected library profiles the program's own).
  static std::unique_ptr<session> create(int device, CUctx_st* ctx, const std::vector<std::string>& metrics);
  ~session();
  session(const session&) = delete;
  session& operator=(const session&) = delete;

  [[nodiscard]] const std::string& chip() const { return m_chip; }
  [[nodiscard]] std::size_t passes() const { return m_passes; }
  [[nodiscard]] const std::vector<metric_info>& metrics() const { return m_metrics; }
  /// Counters of the requested list this chip does not have (only chip-optional ones; see
  /// metrics::is_chip_optional), left out of the session.
  [[nodiscard]] const std::vector<std::string>& absent() const { return m_absent; }

  /// Profiles what `launch` enqueues: every kernel launch becomes one range, replayed as many
  /// passes as the metrics need with memory restored between passes. Returns one entry per range.
  std::vector<range_values> profile(const std::function<void()>& launch, std::size_t max_ranges);

  /// One configuration of a group: launch() enqueues one launch of its kernel, `launches` times.
  struct group_item {
    std::function<void()> launch;
    std::size_t launches = 1;
  };
  /// Profiles a group of configurations in one CUPTI session with bankbench's own passes (user
  /// replay) and one user range per launch: every pass calls `before_each(i)` and then item i's
  /// launches, for each item in order, so the session's set-up and first-pass cost (about 3 ms on
  /// an H200) is paid once per group rather than once per configuration. What `before_each`
  /// launches is outside every range and not counted. A range covers every kernel its launch
  /// enqueues. Memory is not restored between passes. Returns each item's ranges, in order.
  std::vector<std::vector<range_values>> profile_group(const std::vector<group_item>& items,
                                                       const std::function<void(std::size_t item)>& before_each);

  /// A launch made by someone else (an attached program): begin_launch() before it is enqueued,
  /// end_launch() after, on the same thread; the launch is one auto range, replayed as many passes
  /// as the metrics need with memory restored between passes. end_launch() waits for the device
  /// and returns the ranges between the two calls.
  void begin_launch();
  std::vector<range_values> end_launch();
  /// With a one-pass metric list, begin_launch() uses user replay (one Start/Stop, no replay)
  /// rather than kernel replay. Measured in docs/attach.md.
  void set_single_pass_user_replay(bool on) { m_single_pass_user_replay = on; }

  /// The ranges a session's counter data image holds unless a call needs more. The default suite
  /// on an H100 (counters alone, 666 configurations): 3.48 ms of counter pass per configuration
  /// with 64 (groups of 17 on average, most of them ending at their experiment), 3.25 ms with 16,
  /// the range profiler's last Stop costing about 0.12 ms per range of capacity.
  static constexpr std::size_t k_capacity = 16;

  /// Where the last profile() or profile_group() call spent its time, for `-v`: set-up, then per
  /// pass the Start and the launches enqueued, the wait for the device and the Stop, then the
  /// decode and evaluation, e.g. "setup 0.40 ms, start+enqueue 1.10 ms, wait 2.00 ms, stop 0.05 ms,
  /// ..., decode+evaluate 0.90 ms (decode 0.30 ms)".
  [[nodiscard]] const std::string& last_breakdown() const { return m_last_breakdown; }

private:
  session() = default;
  void reset_counter_data();
  /// The passes of one session, then the values of every range. Grouped: CUPTI user replay and
  /// user ranges, Start, pass(), Stop until every pass is submitted. Otherwise: kernel replay and
  /// auto ranges, one Start, pass(), Stop.
  std::vector<range_values> collect(const std::function<void()>& pass, std::size_t max_ranges, bool grouped);
  /// Enables the range profiler (with at least `max_ranges` of capacity) and sets its config.
  void arm(std::size_t max_ranges, bool grouped);
  void start();
  /// Stops the pass; `checked`: throws on failure and says whether every pass was submitted.
  bool stop(bool checked);
  /// Decodes the counter data and evaluates every range.
  std::vector<range_values> read_ranges();
  void enable();
  void disable() noexcept;
  static session* s_active; ///< the session whose range profiler is enabled, if any

  std::string m_chip;
  std::size_t m_passes = 0;
  std::vector<metric_info> m_metrics;
  std::vector<std::string> m_names;
  std::vector<std::string> m_absent;
  std::vector<const char*> m_name_ptrs;
  std::vector<std::uint8_t> m_availability;
  std::vector<std::uint8_t> m_config;
  std::vector<std::uint8_t> m_counter_data;
  std::size_t m_max_ranges = 0;
  bool m_single_pass_user_replay = false;
  bool m_grouped = false; ///< whether the enabled range profiler was set up for user ranges and user replay
  std::string m_last_breakdown;
  double m_decode_ms = 0;                               ///< the last read_ranges()'s cuptiRangeProfilerDecodeData
  std::chrono::steady_clock::time_point m_launch_watch; ///< begin_launch/end_launch's laps
  struct impl;
  std::unique_ptr<impl> m_impl;
};

/// The chip name CUPTI uses for `device` (e.g. "GH100"); needs a device but no profiling session.
std::string chip_name(int device);

} // namespace bb::profile
