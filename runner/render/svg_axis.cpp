#include "runner/render/svg_axis.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace bb::render::svg {

namespace {

// 1, 2 or 5 times a power of ten, at least `raw`.
double nice_step(double raw) {
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double m : {1.0, 2.0, 5.0, 10.0})
    if (m * power >= raw * 0.999) return m * power;
  return 10 * power;
}

} // namespace

axis::axis(const std::vector<double>& values, double pixel_low, double pixel_high, bool log, bool from_zero)
    : m_pixel_low(pixel_low), m_pixel_high(pixel_high), m_log(log) {
  std::vector<double> used;
  for (const double v : values)
    if (std::isfinite(v) && (!log || v > 0)) used.push_back(v);
  if (used.empty()) {
    m_low = log ? 1 : 0;
    m_high = log ? 10 : 1;
    return;
  }
  const auto [lo, hi] = std::minmax_element(used.begin(), used.end());
  if (log) {
    m_low = std::pow(10.0, std::floor(std::log10(*lo) + 1e-9));
    m_high = std::pow(10.0, std::ceil(std::log10(*hi) - 1e-9));
    if (m_high <= m_low) m_high = m_low * 10;
    return;
  }
  double low = from_zero ? std::min(0.0, *lo) : *lo, high = from_zero ? std::max(0.0, *hi) : *hi;
  if (high == low) { // one value: a range around it
    const double pad = low == 0 ? 1 : std::abs(low) * 0.1;
    low -= from_zero && low >= 0 ? 0 : pad;
    high += pad;
  }
  const double step = nice_step((high - low) / 5);
  m_low = std::floor(low / step + 1e-9) * step;
  m_high = std::ceil(high / step - 1e-9) * step;
}

double axis::to_pixel(double value) const {
  double t = 0;
  if (m_log)
    t = (std::log10(std::max(value, 1e-300)) - std::log10(m_low)) / (std::log10(m_high) - std::log10(m_low));
  else
    t = (value - m_low) / (m_high - m_low);
  return m_pixel_low + t * (m_pixel_high - m_pixel_low);
}

std::vector<double> axis::ticks() const {
  std::vector<double> out;
  if (m_log) {
    const int decades = static_cast<int>(std::round(std::log10(m_high / m_low)));
    for (double v = m_low; v <= m_high * 1.0001; v *= 10) {
      out.push_back(v);
      if (decades <= 2)
        for (const double m : {2.0, 5.0})
          if (v * m < m_high * 0.9999) out.push_back(v * m);
    }
    std::sort(out.begin(), out.end());
    return out;
  }
  const double step = nice_step((m_high - m_low) / 5);
  for (double v = m_low; v <= m_high + step * 1e-6; v += step) out.push_back(std::abs(v) < step * 1e-9 ? 0 : v);
  return out;
}

std::string tick_label(double value) {
  const double a = std::abs(value);
  if (a != 0 && (a >= 1e6 || a < 1e-3)) return fmt::format("{:.3g}", value);
  if (value == std::round(value)) return fmt::format("{:.0f}", value);
  return fmt::format("{:.4g}", value);
}

} // namespace bb::render::svg
