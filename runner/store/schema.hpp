#pragma once
/// The schema's identity and its versions: recognising our databases and bringing older ones up
/// to date. Private to the store; database::open is the way in.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

struct sqlite3;

namespace bb::store::schema {

/// PRAGMA application_id of every bankbench database: 0x42424E4B, "BBNK".
inline constexpr std::int32_t k_application_id = 0x42424E4B;
/// The PRAGMA user_version this build writes; schemas/store.sql sets the same number.
inline constexpr int k_version = 9;

/// A script that takes a database from version - 1 to `version`.
struct migration {
  int version = 0;
  std::string_view sql;
};

/// How to reach a version: `create` makes an empty database at `version` in one step;
/// `migrations` bring a database of any older version forward one version at a time.
struct plan {
  int version = 0;
  std::string_view create;
  std::vector<migration> migrations;
};

/// This build's plan: schemas/store.sql creates version 2; schemas/migrations/2.sql takes a
/// version-1 database there.
const plan& current();

/// Reads the header and refuses a file that is not SQLite, not ours, or newer than
/// `known_version`, with a message naming `path`. Only reads: a refused file is left as it was.
void check(sqlite3* db, const std::string& path, int known_version);

/// Applies what `p` needs, in one IMMEDIATE transaction (all of it or nothing), re-checking the
/// version inside it so two processes opening one new database at once create it only once.
void upgrade(sqlite3* db, const std::string& path, const plan& p);

/// Refuses a database of this build's version that lacks one of the tables its schema makes
/// (dropped by hand, or a damaged copy), naming them, before anything is written into it.
void check_tables(sqlite3* db, const std::string& path);

} // namespace bb::store::schema
