#include "runner/common/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <streambuf>
#include <string>

#include "runner/common/error.hpp"
#include "runner/common/path_text.hpp"

namespace bb {

namespace {

/// BB_TEST_WRITE_LIMIT=N: writes to output files fail with ENOSPC after N bytes, as on a full
/// disk. Only the tests set it; a tmpfs of a few KiB needs root.
long long injected_limit() {
  const char* v = std::getenv("BB_TEST_WRITE_LIMIT");
  if (v == nullptr || *v == '\0') return -1;
  return std::atoll(v);
}

/// An ostream buffer over a file descriptor that remembers the first write error.
class fd_buffer final : public std::streambuf {
public:
  explicit fd_buffer(int fd) : m_fd(fd), m_limit(injected_limit()) { setp(m_buf.data(), m_buf.data() + m_buf.size()); }
  [[nodiscard]] int error() const { return m_errno; }
  bool drain() {
    const char* p = pbase();
    std::size_t left = static_cast<std::size_t>(pptr() - pbase());
    while (left > 0 && m_errno == 0) {
      std::size_t chunk = left;
      if (m_limit >= 0) {
        if (m_written >= m_limit) {
          m_errno = ENOSPC;
          break;
        }
        chunk = std::min<std::size_t>(chunk, static_cast<std::size_t>(m_limit - m_written));
      }
      const ssize_t n = ::write(m_fd, p, chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        m_errno = n < 0 ? errno : EIO;
        break;
      }
      p += n;
      left -= static_cast<std::size_t>(n);
      m_written += n;
    }
    setp(m_buf.data(), m_buf.data() + m_buf.size());
    return m_errno == 0;
  }

protected:
  int_type overflow(int_type c) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) sputc(traits_type::to_char_type(c));
    return traits_type::not_eof(c);
  }
  int sync() override { return drain() ? 0 : -1; }

private:
  int m_fd;
  long long m_limit;
  long long m_written = 0;
  int m_errno = 0;
  std::array<char, 1 << 16> m_buf{};
};

[[noreturn]] void fail(const std::filesystem::path& file, const std::string& what, int err) {
  throw output_error(shown_path(file.string()) + ": " + what + ": " + std::strerror(err) +
                     (err == ENOSPC ? " (free some space and run the command again)" : "") +
                     "; the previous file, if any, is unchanged");
}

/// The process's umask, read without changing it. umask() reads it only by setting it: while one
/// thread held it at 0, another one writing a file (the compile cache is written from several
/// threads) made its folder 0777, or restored 0 for good. Linux shows it in /proc/self/status
/// (since 4.7); elsewhere the set-and-restore pair runs under a lock.
mode_t current_umask() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("Umask:", 0) == 0) return static_cast<mode_t>(std::strtoul(line.c_str() + 6, nullptr, 8));
  static std::mutex mutex;
  const std::lock_guard<std::mutex> lock(mutex);
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return mask;
}

} // namespace

namespace {

/// A target that exists and is not a regular file (/dev/null, /dev/full, a FIFO, /dev/stdout) is
/// written in place: renaming a temporary file over it would replace the device with a file.
void write_in_place(const std::filesystem::path& file, const std::function<void(std::ostream&)>& write) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) fail(file, "cannot open for writing", errno);
  int err = 0;
  try {
    fd_buffer buf(fd);
    std::ostream out(&buf);
    write(out);
    out.flush();
    if (buf.error() != 0 || !out) err = buf.error() != 0 ? buf.error() : EIO;
  } catch (...) {
    ::close(fd);
    throw;
  }
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0)
    throw output_error(shown_path(file.string()) + ": write failed: " + std::strerror(err) +
                       (err == ENOSPC ? " (free some space and run the command again)" : ""));
}

} // namespace

void write_file_atomically(const std::filesystem::path& file, const std::function<void(std::ostream&)>& write,
                           file_kind kind) {
  struct stat target {};
  if (::stat(file.c_str(), &target) == 0 && !S_ISREG(target.st_mode)) {
    if (S_ISDIR(target.st_mode))
      throw output_error(shown_path(file.string()) + ": is a folder; name a file to write (e.g. " +
                         shown_path((file / "out").string()) + ")");
    write_in_place(file, write);
    return;
  }
  const auto folder = file.has_parent_path() ? file.parent_path() : std::filesystem::path(".");
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  if (ec) fail(file, "cannot create the folder " + folder.string(), ec.value());
  std::string name = ".";
  name += file.filename().string();
  name += ".XXXXXX";
  std::string tmp = (folder / name).string();
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) fail(file, "cannot create a temporary file in " + folder.string(), errno);
  int err = 0;
  std::string what;
  try {
    fd_buffer buf(fd);
    std::ostream out(&buf);
    write(out);
    out.flush();
    if (buf.error() != 0 || !out) {
      err = buf.error() != 0 ? buf.error() : EIO;
      what = "write failed";
    }
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  if (err == 0 && ::fsync(fd) != 0) {
    err = errno;
    what = "fsync failed";
  }
  // An existing file keeps its permissions; a new one gets the usual 0666 less the umask.
  struct stat st {};
  mode_t mode = 0;
  if (::stat(file.c_str(), &st) == 0) {
    mode = st.st_mode & 07777;
  } else {
    mode = 0666 & ~current_umask();
  }
  if (kind == file_kind::script) mode |= (mode & 0444) >> 2; // x where r is
  if (err == 0 && ::fchmod(fd, mode) != 0) {
    err = errno;
    what = "cannot set permissions";
  }
  if (::close(fd) != 0 && err == 0) {
    err = errno;
    what = "close failed";
  }
  if (err == 0 && ::rename(tmp.c_str(), file.c_str()) != 0) {
    err = errno;
    what = "cannot replace the file";
  }
  if (err != 0) {
    ::unlink(tmp.c_str());
    fail(file, what, err);
  }
  // The rename itself is durable once the folder is.
  if (const int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY); dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
}

void write_file_atomically(const std::filesystem::path& file, const std::string& contents, file_kind kind) {
  write_file_atomically(
      file, [&](std::ostream& out) { out << contents; }, kind);
}

bool read_whole_file(const std::filesystem::path& file, std::string& out) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return static_cast<bool>(in) || in.eof();
}

} // namespace bb
