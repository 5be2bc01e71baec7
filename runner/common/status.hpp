#pragma once
/// What became of one configuration (configurations.status) and of a run or a session
/// (runs.status, sessions.status): the values schemas/store.sql checks, shared by the engine, the
/// store and the queries.
#include <array>
#include <optional>
#include <string_view>

namespace bb {

enum class config_status {
  ok,           ///< ran, verified (or predicted) and measured
  failed,       ///< an error of the configuration itself, or of the worker running it
  wrong_result, ///< ran, and its output did not match the check
  unsupported,  ///< the parameters do not fit the variant or the device
  skipped,      ///< nothing ran: the configuration does not fit in device memory
  not_modelled, ///< the bank model has no access plan for the variant
  unverified,   ///< ran and measured, but the variant has no check
};

/// Every status, in the order of the schema's check.
inline constexpr std::array<config_status, 7> k_config_statuses = {
    config_status::ok,      config_status::failed,       config_status::wrong_result, config_status::unsupported,
    config_status::skipped, config_status::not_modelled, config_status::unverified};

/// The name stored in the database: "ok", "failed", "wrong_result", ...
const char* name_of(config_status s);

/// The status named `name`; nullopt for any other text.
std::optional<config_status> config_status_named(std::string_view name);

/// Where a run or a session stands.
enum class run_status {
  running,     ///< going, or ended without a word (killed): `list runs` tells which
  completed,   ///< every configuration it was given ran, whatever became of them
  interrupted, ///< stopped by a signal or a lost GPU context; resumable
  failed,      ///< stopped by an error of bankbench or its environment
};

inline constexpr std::array<run_status, 4> k_run_statuses = {run_status::running, run_status::completed,
                                                             run_status::interrupted, run_status::failed};

/// "running", "completed", "interrupted" or "failed".
const char* name_of(run_status s);

/// The status named `name`; nullopt for any other text.
std::optional<run_status> run_status_named(std::string_view name);

} // namespace bb
