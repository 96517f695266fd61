#include "runtime/schedules/ClosedFormFill.h"

#include <cctype>
#include <cstdio>

#include "runtime/schedules/ClosedForms.h"

namespace ps::runtime {
namespace {

constexpr std::string_view kDot = "\xC2\xB7";  // "·"

// A recursive-descent reading of the filled text: sums of products of numbers and brackets.
class Arithmetic {
 public:
  explicit Arithmetic(std::string_view text) : s_(text) {}
  std::optional<long> sum() {
    auto value = product();
    while (value && i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) {
      const char op = s_[i_++];
      const auto rhs = product();
      if (!rhs) return std::nullopt;
      *value = op == '+' ? *value + *rhs : *value - *rhs;
    }
    return value;
  }
  bool done() const { return i_ == s_.size(); }
  bool take(char c) {
    if (i_ < s_.size() && s_[i_] == c) return ++i_, true;
    return false;
  }

 private:
  std::optional<long> product() {
    auto value = factor();
    while (value && s_.substr(i_, kDot.size()) == kDot) {
      i_ += kDot.size();
      const auto rhs = factor();
      if (!rhs) return std::nullopt;
      *value *= *rhs;
    }
    return value;
  }
  std::optional<long> factor() {
    if (take('(')) {
      const auto value = sum();
      return value && take(')') ? value : std::nullopt;
    }
    if (i_ >= s_.size() || !std::isdigit(static_cast<unsigned char>(s_[i_]))) return std::nullopt;
    long value = 0;
    while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_])))
      value = value * 10 + (s_[i_++] - '0');
    return value;
  }
  std::string_view s_;
  std::size_t i_ = 0;
};

long gcd(long a, long b) {
  while (b != 0) {
    const long t = a % b;
    a = b;
    b = t;
  }
  return a < 0 ? -a : a;
}

}  // namespace

std::optional<FilledBubble> fillBubbleFormula(std::string_view schedule, int p, int m, int v) {
  const auto analytic = analyticBubble(schedule, p, m, v);
  if (!analytic) return std::nullopt;
  FilledBubble out;
  out.formula = analytic->formula;
  out.value = analytic->value;
  // Each letter becomes its number; a number written before a letter ("3m") is a product.
  const std::string& f = out.formula;
  for (std::size_t k = 0; k < f.size(); ++k) {
    const char c = f[k];
    const int* n = c == 'p' ? &p : c == 'm' ? &m : c == 'v' ? &v : nullptr;
    if (!n) {
      out.filled += c;
      continue;
    }
    if (k > 0 && std::isdigit(static_cast<unsigned char>(f[k - 1]))) out.filled += kDot;
    out.filled += std::to_string(*n);
  }
  Arithmetic top(out.filled);
  const auto num = top.sum();
  const bool slash = num && top.take('/');
  const auto den = slash ? top.sum() : std::nullopt;
  if (num && den && top.done() && *den > 0) {
    const long g = gcd(*num, *den);
    out.numerator = *num;
    out.denominator = *den;
    out.lowestNumerator = g > 0 ? *num / g : *num;
    out.lowestDenominator = g > 0 ? *den / g : *den;
  }
  out.meaning =
      "the paper's idle share of one step: fill and drain with F = t, B = 2t (I = W = t when "
      "split), equal stages, free links";
  return out;
}

std::string filledBubbleText(const FilledBubble& bubble) {
  char percent[32];
  std::snprintf(percent, sizeof percent, "%.2f %%", bubble.value * 100.0);
  std::string text = bubble.filled;
  auto fraction = [](long n, long d) { return std::to_string(n) + "/" + std::to_string(d); };
  if (bubble.denominator > 0) text += " = " + fraction(bubble.numerator, bubble.denominator);
  if (bubble.lowestDenominator > 0 && bubble.lowestDenominator != bubble.denominator)
    text += " = " + fraction(bubble.lowestNumerator, bubble.lowestDenominator);
  return text + " = " + percent;
}

}  // namespace ps::runtime
