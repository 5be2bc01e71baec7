#pragma once
/// Sessions: one `bankbench run` invocation and the runs it wrote.
#include <cstdint>
#include <map>
#include <string>

#include "runner/store/database.hpp"

namespace bb::store {

/// What a session stored, for `bankbench run`'s closing line.
struct session_counts {
  int runs = 0;
  std::map<std::string, int> by_status; ///< configurations per status
  int failed_expectations = 0;
  [[nodiscard]] int configurations() const;
};

session_counts count_session(const database& db, std::int64_t session_id);

} // namespace bb::store
