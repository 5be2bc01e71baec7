#pragma once
/// The "file:" URI that opens a database strictly read-only. Private to the store.
#include <string>

namespace bb::store {

/// `path` as a URI with mode=ro; with immutable=1 as well when no -wal file lies beside it (then
/// the file holds everything, and SQLite creates no -shm or -wal next to it), or when
/// `immutable_always` (a folder that cannot be written, where SQLite could create neither).
std::string read_only_uri(const std::string& path, bool immutable_always = false);

} // namespace bb::store
