#pragma once
/// Whether a process of this host is still there, for runs left `running` by a process that died.
#include <cstdint>

namespace bb {

/// True while process `pid` exists and is not a zombie (a killed process whose parent has not
/// reaped it yet is gone for our purposes). A pid that is not ours to signal counts as alive.
bool process_alive(std::int64_t pid);

} // namespace bb
