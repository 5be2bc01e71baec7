#include "runner/common/status.hpp"

namespace bb {

const char* name_of(config_status s) {
  switch (s) {
  case config_status::ok: return "ok";
  case config_status::failed: return "failed";
  case config_status::wrong_result: return "wrong_result";
  case config_status::unsupported: return "unsupported";
  case config_status::skipped: return "skipped";
  case config_status::not_modelled: return "not_modelled";
  case config_status::unverified: return "unverified";
  }
  return "unknown"; // no status: the schema's check refuses it
}

std::optional<config_status> config_status_named(std::string_view name) {
  for (const auto s : k_config_statuses)
    if (name == name_of(s)) return s;
  return std::nullopt;
}

const char* name_of(run_status s) {
  switch (s) {
  case run_status::running: return "running";
  case run_status::completed: return "completed";
  case run_status::interrupted: return "interrupted";
  case run_status::failed: return "failed";
  }
  return "unknown";
}

std::optional<run_status> run_status_named(std::string_view name) {
  for (const auto s : k_run_statuses)
    if (name == name_of(s)) return s;
  return std::nullopt;
}

} // namespace bb
