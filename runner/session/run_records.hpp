#pragma once
/// Turns what the executor measured into the rows the store keeps, with the outcomes of the
/// expectations (judged by config::judge_expectations).
#include "runner/config/experiment.hpp"
#include "runner/launch/device.hpp"
#include "runner/launch/executor.hpp"
#include "runner/profile/session.hpp"
#include "runner/store/database.hpp"

namespace bb::session {

store::gpu_record gpu_record_of(const launch::device_info& d);

/// Per-launch raw and derived metric rows (each launch's metrics derived once), the timing
/// summary and the expectation outcomes.
store::configuration_record configuration_record_of(const config::experiment& exp, const config::configuration& cfg,
                                                    const launch::config_result& r, const profile::session* counters,
                                                    int sm_clock_max_mhz);

/// Mean of `metric` (raw or derived) over the record's launches, as configuration_record_of
/// stored them; nullopt when not measured.
std::optional<double> observed_value(const store::configuration_record& rec, const std::string& metric);

} // namespace bb::session
