#include "common/status.hpp"

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

} // namespace bb
