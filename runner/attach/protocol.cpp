#include "runner/attach/protocol.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include <nlohmann/json.hpp>

#include "runner/common/error.hpp"

namespace bb::attach {

std::string settings::to_json() const {
  nlohmann::json j;
  j["metrics"] = metrics;
  j["kernel_regex"] = kernel_regex;
  j["nvtx_include"] = nvtx_include;
  j["application_only"] = application_only;
  j["flush_l2"] = flush_l2;
  return j.dump();
}

settings settings::from_json(const std::string& text) {
  try {
    const auto j = nlohmann::json::parse(text);
    settings s;
    s.metrics = j.at("metrics").get<std::vector<std::string>>();
    s.kernel_regex = j.at("kernel_regex").get<std::string>();
    s.nvtx_include = j.at("nvtx_include").get<std::vector<std::string>>();
    s.application_only = j.at("application_only").get<bool>();
    s.flush_l2 = j.at("flush_l2").get<bool>();
    return s;
  } catch (const nlohmann::json::exception& e) {
    throw usage_error(std::string(k_env_settings) + " is not bankbench's attach settings: " + e.what());
  }
}

channel::~channel() {
  if (m_fd >= 0) ::close(m_fd);
}

bool channel::send(const nlohmann::json& message) const {
  const std::string line = message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  std::size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::send(m_fd, line.data() + done, line.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

bool channel::fill() {
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(m_fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    m_buffer.append(buf, static_cast<std::size_t>(n));
    return true;
  }
}

std::optional<nlohmann::json> channel::next() {
  const auto end = m_buffer.find('\n');
  if (end == std::string::npos) return std::nullopt;
  std::string line = m_buffer.substr(0, end);
  m_buffer.erase(0, end + 1);
  auto parsed = nlohmann::json::parse(line, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object()) return nlohmann::json(std::move(line));
  return parsed;
}

std::optional<nlohmann::json> channel::receive() {
  for (;;) {
    if (auto message = next()) {
      if (!message->is_object()) return std::nullopt;
      return message;
    }
    if (!fill()) return std::nullopt;
  }
}

} // namespace bb::attach
