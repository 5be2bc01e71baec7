#pragma once
/// One numeric chart axis for svg.cpp: its range, ticks and mapping to pixels, linear or log.
#include <string>
#include <vector>

namespace bb::render::svg {

class axis {
public:
  /// Spans `values` with a little room; `from_zero` starts a linear axis at 0 (bars). A log axis
  /// ignores values that are not positive. No values: 0 to 1.
  axis(const std::vector<double>& values, double pixel_low, double pixel_high, bool log, bool from_zero);

  [[nodiscard]] double to_pixel(double value) const;
  [[nodiscard]] bool shows(double value) const { return !m_log || value > 0; }
  [[nodiscard]] std::vector<double> ticks() const;
  [[nodiscard]] double lowest() const { return m_low; }
  [[nodiscard]] double highest() const { return m_high; }

private:
  double m_low = 0, m_high = 1, m_pixel_low, m_pixel_high;
  bool m_log;
};

/// A tick or value as a reader wants it: "1024", "0.125", "2.5e+06".
std::string tick_label(double value);

} // namespace bb::render::svg
