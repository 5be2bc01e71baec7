#include "runner/source/track.hpp"

#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <spdlog/spdlog.h>

#include "runner/common/atomic_file.hpp"
#include "runner/common/error.hpp"
#include "runner/common/path_text.hpp"
#include "runner/common/sha256.hpp"
#include "runner/source/compile.hpp"

namespace bb::source {

namespace fs = std::filesystem;

namespace {

// What the manifest remembers of a file or folder. A folder that does not exist is kept too
// (mtime -1): one created later may shadow a header.
struct file_stamp {
  std::int64_t size = -1, mtime_ns = -1, ctime_ns = -1, inode = -1;
  bool operator==(const file_stamp&) const = default;
};

file_stamp stamp_of(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return {};
  return {static_cast<std::int64_t>(st.st_size),
          static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec,
          static_cast<std::int64_t>(st.st_ctim.tv_sec) * 1'000'000'000 + st.st_ctim.tv_nsec,
          static_cast<std::int64_t>(st.st_ino)};
}

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

struct scan_state {
  std::vector<std::string> dirs;                          ///< the include folders, the source's first
  std::vector<std::pair<std::string, std::string>> files; ///< path, text: the source, then each header
  std::vector<file_stamp> stamps;                         ///< of each of `files`, taken before it was read
  std::set<std::string> seen;
  std::map<std::string, file_stamp> folders; ///< every folder searched
};

// The name in `#include <name>` or `#include "name"` at the start of `line`, and whether it was
// quoted; false when the line is not an #include.
bool include_of(std::string_view line, std::string_view& name, bool& quoted) {
  std::size_t i = line.find_first_not_of(" \t");
  if (i == std::string_view::npos || line[i] != '#') return false;
  i = line.find_first_not_of(" \t", i + 1);
  if (i == std::string_view::npos || line.compare(i, 7, "include") != 0) return false;
  i = line.find_first_not_of(" \t", i + 7);
  if (i == std::string_view::npos || (line[i] != '<' && line[i] != '"')) return false;
  quoted = line[i] == '"';
  const std::size_t end = line.find(quoted ? '"' : '>', i + 1);
  if (end == std::string_view::npos || end == i + 1) return false;
  name = line.substr(i + 1, end - i - 1);
  return true;
}

void scan(const std::string& file, const std::string& text, scan_state& st) {
  std::string_view rest(text);
  const std::string folder = fs::path(file).parent_path().string();
  while (!rest.empty()) {
    const std::size_t eol = rest.find('\n');
    const std::string_view line = rest.substr(0, eol);
    rest = eol == std::string_view::npos ? std::string_view() : rest.substr(eol + 1);
    std::string_view name;
    bool quoted = false;
    if (!include_of(line, name, quoted)) continue;
    std::vector<fs::path> candidates;
    if (quoted) candidates.push_back(fs::path(folder.empty() ? "." : folder) / name);
    for (const auto& d : st.dirs) candidates.push_back(fs::path(d) / name);
    for (const auto& c : candidates) {
      const std::string path = c.lexically_normal().string();
      const std::string parent = c.parent_path().lexically_normal().string();
      if (!st.folders.count(parent)) st.folders.emplace(parent, stamp_of(parent));
      const file_stamp s = stamp_of(path);
      if (s.size < 0) continue;
      std::error_code ec;
      if (!fs::is_regular_file(path, ec)) continue;
      if (!st.seen.insert(fs::absolute(path, ec).lexically_normal().string()).second) break;
      std::string header;
      if (!read_whole_file(path, header)) break;
      st.files.emplace_back(path, header);
      st.stamps.push_back(s);
      scan(path, st.files.back().second, st);
      break;
    }
  }
}

std::string hash_of(const scan_state& st) {
  std::string all = "source\n" + st.files.front().second;
  for (std::size_t i = 1; i < st.files.size(); ++i) {
    const auto& [path, body] = st.files[i];
    all.append("\nheader ").append(fs::path(path).filename().string()).append(" ");
    all.append(std::to_string(body.size())).append("\n").append(body);
  }
  return sha256_hex(all);
}

// The manifest: "bankbench-manifest 1", "hash H", "written NS", then "f SIZE MTIME CTIME INODE
// PATH" for the source and each header (in order) and "d MTIME CTIME INODE PATH" for each folder
// searched. The change time catches a rewrite that kept the size and reset the modification time.
constexpr const char* k_manifest_magic = "bankbench-manifest 1";

std::string manifest_path(const std::string& dir, const std::string& source, const std::vector<std::string>& dirs) {
  std::error_code ec;
  std::string id = fs::absolute(source, ec).lexically_normal().string();
  for (const auto& d : dirs) id.append("\n").append(fs::absolute(d, ec).lexically_normal().string());
  return (fs::path(dir) / "manifests" / (sha256_hex(id) + ".txt")).string();
}

// A file changed within this long before the manifest was written may change again without its
// time moving (coarse file-system clocks): such a manifest is not trusted.
constexpr std::int64_t k_settle_ns = 2'000'000'000;

bool read_manifest(const std::string& path, tracked_source& out) {
  std::ifstream in(path);
  std::string line;
  if (!std::getline(in, line) || line != k_manifest_magic) return false;
  std::string word;
  std::int64_t written = 0;
  if (!(in >> word >> out.hash) || word != "hash" || out.hash.size() != 64) return false;
  if (!(in >> word >> written) || word != "written") return false;
  bool first = true;
  while (in >> word) {
    file_stamp want;
    if (word == "f") {
      if (!(in >> want.size >> want.mtime_ns >> want.ctime_ns >> want.inode)) return false;
    } else if (word == "d") {
      if (!(in >> want.mtime_ns >> want.ctime_ns >> want.inode)) return false;
    } else {
      return false;
    }
    in.get();
    std::string p;
    if (!std::getline(in, p) || p.empty()) return false;
    file_stamp now = stamp_of(p);
    if (word == "d") now.size = want.size = 0;
    if (!(now == want) || (word == "f" && now.mtime_ns + k_settle_ns > written)) return false;
    if (word == "f" && !first) out.headers.push_back(p);
    if (word == "f") first = false;
  }
  return !first;
}

void write_manifest(const std::string& path, const scan_state& st, const std::string& hash) {
  try {
    std::error_code ec;
    fs::create_directories(fs::path(path).parent_path(), ec);
    write_file_atomically(path, [&](std::ostream& out) {
      out << k_manifest_magic << "\nhash " << hash << "\nwritten " << now_ns() << "\n";
      for (std::size_t i = 0; i < st.files.size(); ++i)
        out << "f " << st.stamps[i].size << ' ' << st.stamps[i].mtime_ns << ' ' << st.stamps[i].ctime_ns << ' '
            << st.stamps[i].inode << ' ' << fs::absolute(st.files[i].first, ec).lexically_normal().string() << "\n";
      for (const auto& [folder, s] : st.folders)
        out << "d " << s.mtime_ns << ' ' << s.ctime_ns << ' ' << s.inode << ' '
            << fs::absolute(folder, ec).lexically_normal().string() << "\n";
    });
  } catch (const error& e) {
    spdlog::debug("compile cache: {}", e.what());
  }
}

} // namespace

std::string read_source(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec))
    throw compile_error(shown_path(path) +
                        ": cannot read the kernel source: no such file (the path is relative to the experiment file)");
  if (fs::is_directory(path, ec))
    throw compile_error(shown_path(path) + ": cannot read the kernel source: it is a folder");
  std::string text;
  if (!read_whole_file(path, text)) throw compile_error(shown_path(path) + ": cannot read the kernel source");
  return text;
}

std::string source_dir(const std::string& path) {
  const std::string dir = fs::path(path).parent_path().lexically_normal().string();
  return dir.empty() ? "." : dir;
}

tracked_source track_source(const std::string& source_path, const std::vector<std::string>& include_dirs,
                            const std::string& manifest_dir) {
  // -I<the file's folder> comes first on the compiler's command line: <x.h> may name a header there too.
  scan_state st;
  st.dirs.push_back(source_dir(source_path));
  st.dirs.insert(st.dirs.end(), include_dirs.begin(), include_dirs.end());
  const std::string manifest = manifest_dir.empty() ? "" : manifest_path(manifest_dir, source_path, st.dirs);
  tracked_source out;
  if (!manifest.empty() && read_manifest(manifest, out)) {
    out.from_manifest = true;
    return out;
  }
  out = {};
  const file_stamp s = stamp_of(source_path);
  st.files.emplace_back(source_path, read_source(source_path));
  st.stamps.push_back(s);
  st.seen.insert(fs::absolute(source_path).lexically_normal().string());
  scan(source_path, st.files.front().second, st);
  out.hash = hash_of(st);
  for (std::size_t i = 1; i < st.files.size(); ++i) out.headers.push_back(st.files[i].first);
  if (!manifest.empty()) write_manifest(manifest, st, out.hash);
  return out;
}

} // namespace bb::source
