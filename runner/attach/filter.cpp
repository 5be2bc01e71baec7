#include "runner/attach/filter.hpp"

#include <cxxabi.h>
#include <fnmatch.h>

#include <cstdlib>

#include "runner/common/error.hpp"

namespace bb::attach {

std::string demangle(const std::string& symbol) {
  int status = 0;
  char* text = abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status);
  if (status != 0 || text == nullptr) return symbol;
  std::string out = text;
  std::free(text);
  return out;
}

std::string base_name(const std::string& demangled) {
  std::string s = demangled;
  // The parameter list: the last top-level "(...)".
  if (!s.empty() && s.back() == ')') {
    int depth = 0;
    for (std::size_t i = s.size(); i-- > 0;) {
      if (s[i] == ')') ++depth;
      if (s[i] == '(' && --depth == 0) {
        s.erase(i);
        break;
      }
    }
  }
  // A template's return type: whatever stands before the last top-level space.
  int depth = 0;
  for (std::size_t i = s.size(); i-- > 0;) {
    const char c = s[i];
    if (c == '>' || c == ')') ++depth;
    if (c == '<' || c == '(') --depth;
    if (c == ' ' && depth == 0) return s.substr(i + 1);
  }
  return s;
}

std::string function_name(const std::string& base) {
  // Cut the template arguments of the last component: the first '<' at depth 0 after the last
  // top-level "::".
  std::size_t start = 0;
  int depth = 0;
  for (std::size_t i = 0; i < base.size(); ++i) {
    const char c = base[i];
    if (c == '<' || c == '(') ++depth;
    if (c == '>' || c == ')') --depth;
    if (depth == 0 && c == ':' && i + 1 < base.size() && base[i + 1] == ':') start = i + 2;
  }
  std::string name = base.substr(start);
  if (const auto angle = name.find('<'); angle != std::string::npos && angle > 0) name.erase(angle);
  return name;
}

kernel_filter::kernel_filter(const std::string& regex) {
  if (regex.empty()) return;
  try {
    m_regex = std::regex(regex, std::regex::ECMAScript);
    m_all = false;
  } catch (const std::regex_error& e) {
    throw usage_error("--kernel-name '" + regex + "' is not a regular expression (" + e.what() +
                      "); for example --kernel-name 'transpose' or --kernel-name '^gemm_.*_kernel$'");
  }
}

bool kernel_filter::matches(const std::string& base) const {
  return m_all || std::regex_search(base, m_regex) || std::regex_search(function_name(base), m_regex);
}

nvtx_rule nvtx_rule::parse(const std::string& text) {
  nvtx_rule r;
  const auto at = text.find('@');
  if (at != std::string::npos) {
    r.domain = text.substr(0, at);
    r.range = text.substr(at + 1);
    if (r.domain.empty())
      throw usage_error("--nvtx-include '" + text + "' names no domain before '@'; write RANGE or DOMAIN@RANGE");
  } else {
    r.range = text;
  }
  if (r.range.empty())
    throw usage_error("--nvtx-include '" + text +
                      "' names no range; write RANGE or DOMAIN@RANGE, e.g. forward or "
                      "mylib@step*");
  return r;
}

void nvtx_ranges::push(std::uint64_t thread, const std::string& domain, const std::string& message) {
  const std::lock_guard lock(m_mutex);
  m_stacks[thread].push_back({domain, message});
}

void nvtx_ranges::pop(std::uint64_t thread, const std::string& domain) {
  const std::lock_guard lock(m_mutex);
  auto& stack = m_stacks[thread];
  // Ranges of one domain nest; a pop closes that domain's innermost range.
  for (std::size_t i = stack.size(); i-- > 0;)
    if (stack[i].domain == domain) {
      stack.erase(stack.begin() + static_cast<std::ptrdiff_t>(i));
      return;
    }
}

void nvtx_ranges::start(std::uint64_t id, const std::string& domain, const std::string& message) {
  const std::lock_guard lock(m_mutex);
  m_started[id] = {domain, message};
}

void nvtx_ranges::end(std::uint64_t id) {
  const std::lock_guard lock(m_mutex);
  m_started.erase(id);
}

namespace {
bool satisfies(const std::string& domain, const std::string& message, const nvtx_rule& rule) {
  if (!rule.domain.empty() && rule.domain != domain) return false;
  return fnmatch(rule.range.c_str(), message.c_str(), 0) == 0;
}
} // namespace

bool nvtx_ranges::selected(std::uint64_t thread, const std::vector<nvtx_rule>& rules) const {
  if (rules.empty()) return true;
  const std::lock_guard lock(m_mutex);
  for (const auto& rule : rules) {
    if (const auto it = m_stacks.find(thread); it != m_stacks.end())
      for (const auto& r : it->second)
        if (satisfies(r.domain, r.message, rule)) return true;
    for (const auto& [id, r] : m_started)
      if (satisfies(r.domain, r.message, rule)) return true;
  }
  return false;
}

launch_quota::answer launch_quota::ask() {
  ++m_asked;
  answer a;
  if (m_asked > m_skip && (m_count == 0 || m_granted < m_count)) {
    a.profile = true;
    ++m_granted;
  }
  a.more = m_count == 0 || m_granted < m_count;
  return a;
}

} // namespace bb::attach
