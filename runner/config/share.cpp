#include "runner/config/share.hpp"

#include <algorithm>
#include <charconv>
#include <map>

#include "runner/common/error.hpp"

namespace bb::config {

namespace {

[[noreturn]] void bad(const std::string& option, const std::string& text, const std::string& why) {
  throw usage_error(option + " '" + text + "': " + why +
                    "; expected I/N with 0 <= I < N (e.g. 0/4), optionally followed by :variant");
}

share parse_one(const std::string& part, const std::string& option, const std::string& whole) {
  share s;
  if (part.empty()) bad(option, whole, "an empty share next to a ','");
  std::string body = part;
  if (const auto colon = part.find(':'); colon != std::string::npos) {
    const std::string unit = part.substr(colon + 1);
    if (unit == "variant")
      s.unit = share_unit::variant;
    else if (unit != "configuration")
      bad(option, whole, "unknown unit '" + unit + "' (configuration or variant)");
    body = part.substr(0, colon);
  }
  const auto slash = body.find('/');
  if (slash == std::string::npos) bad(option, whole, "no '/'");
  auto number = [&](const std::string& digits, int& out) {
    const auto* end = digits.data() + digits.size();
    const auto [p, ec] = std::from_chars(digits.data(), end, out);
    if (digits.empty() || ec != std::errc() || p != end) bad(option, whole, "'" + digits + "' is not a whole number");
  };
  number(body.substr(0, slash), s.index);
  number(body.substr(slash + 1), s.count);
  if (s.count < 1) bad(option, whole, "N must be at least 1");
  if (s.index < 0 || s.index >= s.count) bad(option, whole, "I must be between 0 and N-1");
  return s;
}

} // namespace

std::uint64_t fnv1a_64(const std::string& text) {
  std::uint64_t h = 14695981039346656037ULL;
  for (const unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

std::vector<share> parse_shares(const std::string& text, const std::string& option) {
  std::vector<share> chain;
  if (text.empty()) return chain;
  std::size_t at = 0;
  for (;;) {
    const auto comma = text.find(',', at);
    chain.push_back(
        parse_one(text.substr(at, comma == std::string::npos ? std::string::npos : comma - at), option, text));
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return chain;
}

std::string share_text(const std::vector<share>& chain) {
  std::string s;
  for (const auto& p : chain) {
    if (!s.empty()) s += ',';
    s += std::to_string(p.index) + "/" + std::to_string(p.count);
    if (p.unit == share_unit::variant) s += ":variant";
  }
  return s;
}

std::vector<share> then(std::vector<share> chain, const share& next) {
  chain.push_back(next);
  return chain;
}

std::vector<std::size_t> configurations_in_share(const experiment& e, const std::vector<configuration>& configs,
                                                 const std::vector<share>& chain) {
  std::vector<std::size_t> kept;
  for (const auto& c : configs) kept.push_back(c.index);
  for (const auto& s : chain) {
    const auto offset = static_cast<std::size_t>(fnv1a_64(e.name) % static_cast<std::uint64_t>(s.count));
    std::map<std::string, std::size_t> variant_unit; // variant -> its unit, in order of first appearance
    std::vector<std::size_t> next;
    for (std::size_t k = 0; k < kept.size(); ++k) {
      std::size_t unit = k;
      if (s.unit == share_unit::variant) {
        const auto& v = configs.at(kept[k]).variant;
        unit = variant_unit.emplace(v, variant_unit.size()).first->second;
      }
      if ((unit + offset) % static_cast<std::size_t>(s.count) == static_cast<std::size_t>(s.index))
        next.push_back(kept[k]);
    }
    kept = std::move(next);
  }
  return kept;
}

} // namespace bb::config
