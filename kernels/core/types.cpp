#include "reducelab/types.hpp"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>

namespace rl {
namespace {

template <class E, size_t N>
std::optional<E> lookup(std::string_view s, const std::array<std::pair<std::string_view, E>, N>& t) {
  for (const auto& [k, v] : t)
    if (k == s) return v;
  return std::nullopt;
}

constexpr std::array<std::pair<std::string_view, ElemType>, 8> kTypes{{{"int32", ElemType::Int32},
                                                                       {"int", ElemType::Int32},
                                                                       {"int64", ElemType::Int64},
                                                                       {"long", ElemType::Int64},
                                                                       {"float32", ElemType::Float32},
                                                                       {"float", ElemType::Float32},
                                                                       {"float64", ElemType::Float64},
                                                                       {"double", ElemType::Float64}}};

}  // namespace

std::string_view name(ElemType t) {
  switch (t) {
    case ElemType::Int32: return "int32";
    case ElemType::Int64: return "int64";
    case ElemType::Float32: return "float32";
    case ElemType::Float64: return "float64";
  }
  return "?";
}
std::string_view name(Op o) {
  switch (o) {
    case Op::Sum: return "sum";
    case Op::Min: return "min";
    case Op::Max: return "max";
  }
  return "?";
}
std::string_view name(Accumulate a) { return a == Accumulate::Same ? "same" : "wide"; }
std::string_view name(FinalStage f) {
  switch (f) {
    case FinalStage::Default: return "default";
    case FinalStage::Cpu: return "cpu";
    case FinalStage::Gpu: return "gpu";
    case FinalStage::Atomic: return "atomic";
    case FinalStage::LastBlock: return "lastblock";
  }
  return "?";
}
std::string_view name(DataPattern d) {
  switch (d) {
    case DataPattern::Uniform: return "uniform";
    case DataPattern::IntRange: return "int-range";
    case DataPattern::Ones: return "ones";
    case DataPattern::IllConditioned: return "ill-conditioned";
  }
  return "?";
}

std::optional<ElemType> parseElemType(std::string_view s) { return lookup(s, kTypes); }
std::optional<Op> parseOp(std::string_view s) {
  return lookup(s, std::array<std::pair<std::string_view, Op>, 3>{
                       {{"sum", Op::Sum}, {"min", Op::Min}, {"max", Op::Max}}});
}
std::optional<Accumulate> parseAccumulate(std::string_view s) {
  return lookup(s, std::array<std::pair<std::string_view, Accumulate>, 2>{
                       {{"same", Accumulate::Same}, {"wide", Accumulate::Wide}}});
}
std::optional<FinalStage> parseFinalStage(std::string_view s) {
  return lookup(s, std::array<std::pair<std::string_view, FinalStage>, 5>{
                       {{"default", FinalStage::Default},
                        {"cpu", FinalStage::Cpu},
                        {"gpu", FinalStage::Gpu},
                        {"atomic", FinalStage::Atomic},
                        {"lastblock", FinalStage::LastBlock}}});
}
std::string_view name(TimingMode m) {
  switch (m) {
    case TimingMode::Blocked: return "blocked";
    case TimingMode::Events: return "events";
    case TimingMode::Graph: return "graph";
  }
  return "?";
}
const char* timingModeMeaning(TimingMode m) {
  switch (m) {
    case TimingMode::Blocked:
      return "a kernel holds the stream until every launch is enqueued, then the start event: GPU time only";
    case TimingMode::Events: return "events around the launches as the host enqueues them: host enqueue cost can sit inside";
    case TimingMode::Graph: return "the reduction captured once as a CUDA graph, one replay between the events, after the blocking kernel";
  }
  return "?";
}
std::optional<bool> parseOnOff(std::string_view s) {
  return lookup(s, std::array<std::pair<std::string_view, bool>, 2>{{{"on", true}, {"off", false}}});
}

std::optional<TimingMode> parseTimingMode(std::string_view s) {
  return lookup(s, std::array<std::pair<std::string_view, TimingMode>, 3>{
                       {{"blocked", TimingMode::Blocked}, {"events", TimingMode::Events}, {"graph", TimingMode::Graph}}});
}
std::optional<DataPattern> parseDataPattern(std::string_view s) {
  return lookup(s, std::array<std::pair<std::string_view, DataPattern>, 4>{
                       {{"uniform", DataPattern::Uniform},
                        {"int-range", DataPattern::IntRange},
                        {"ones", DataPattern::Ones},
                        {"ill-conditioned", DataPattern::IllConditioned}}});
}

size_t elemBytes(ElemType t) {
  return (t == ElemType::Int32 || t == ElemType::Float32) ? 4 : 8;
}
bool isFloat(ElemType t) { return t == ElemType::Float32 || t == ElemType::Float64; }
ElemType accumulatorType(ElemType input, Accumulate a) {
  if (a == Accumulate::Same) return input;
  if (input == ElemType::Int32) return ElemType::Int64;
  if (input == ElemType::Float32) return ElemType::Float64;
  return input;  // int64 and float64 are already the widest
}

std::optional<uint64_t> parseCount(std::string_view text, std::string* error) {
  auto fail = [&](const std::string& why) -> std::optional<uint64_t> {
    if (error) *error = "N '" + std::string(text) + "' " + why;
    return std::nullopt;
  };
  constexpr uint64_t kMax = uint64_t(1) << 40;
  if (text.empty()) return fail("is empty");
  std::string s(text);
  uint64_t value = 0;
  if (auto caret = s.find('^'); caret != std::string::npos) {
    uint64_t base = 0, exp = 0;
    auto r1 = std::from_chars(s.data(), s.data() + caret, base);
    auto r2 = std::from_chars(s.data() + caret + 1, s.data() + s.size(), exp);
    if (r1.ec != std::errc() || r1.ptr != s.data() + caret || r2.ec != std::errc() ||
        r2.ptr != s.data() + s.size() || base < 2 || exp > 64)
      return fail("is not of the form 2^24");
    long double v = std::pow((long double)base, (long double)exp);
    if (v > (long double)kMax) return fail("is above the largest supported N (2^40)");
    value = uint64_t(v);
  } else if (s.find_first_of("eE") != std::string::npos &&
             s.find_first_not_of("0123456789.eE+") == std::string::npos) {
    char* end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size() || !(v >= 1) || v != std::floor(v))
      return fail("is not a whole number");
    if (v > double(kMax)) return fail("is above the largest supported N (2^40)");
    value = uint64_t(v);
  } else {
    size_t digits = 0;
    while (digits < s.size() && std::isdigit((unsigned char)s[digits])) ++digits;
    if (digits == 0) return fail("does not start with a number (try 16M, 2^24 or 16777216)");
    auto r = std::from_chars(s.data(), s.data() + digits, value);
    if (r.ec != std::errc()) return fail("is too large");
    std::string suffix = s.substr(digits);
    uint64_t mult = 1;
    if (suffix.empty()) mult = 1;
    else if (suffix == "K" || suffix == "k" || suffix == "Ki") mult = uint64_t(1) << 10;
    else if (suffix == "M" || suffix == "Mi") mult = uint64_t(1) << 20;
    else if (suffix == "G" || suffix == "Gi") mult = uint64_t(1) << 30;
    else return fail("has an unknown suffix '" + suffix + "' (use K, M or G: powers of 1024)");
    if (value > kMax / mult) return fail("is above the largest supported N (2^40)");
    value *= mult;
  }
  if (value == 0) return fail("must be at least 1");
  if (value > kMax) return fail("is above the largest supported N (2^40)");
  return value;
}

namespace {

// A whole decimal number with an optional sign, nothing else (no spaces, no "0x", no "1e3").
template <class Int>
bool parseWhole(std::string_view s, Int* v) {
  if (s.empty()) return false;
  const char* b = s.data();
  const char* e = s.data() + s.size();
  if (*b == '+') {  // from_chars takes '-' but not '+'; one sign at most
    ++b;
    if (b == e || *b == '-') return false;
  }
  Int x{};
  auto r = std::from_chars(b, e, x);
  if (r.ec != std::errc() || r.ptr != e) return false;
  *v = x;
  return true;
}

}  // namespace

std::string parseIntRange(std::string_view text, int64_t* lo, int64_t* hi) {
  const std::string quoted = "'" + std::string(text) + "'";
  const size_t comma = text.find(',');
  int64_t a = 0, b = 0;
  if (comma == std::string_view::npos || !parseWhole(text.substr(0, comma), &a) ||
      !parseWhole(text.substr(comma + 1), &b))
    return quoted + " is not of the form lo,hi (two 64-bit integers, e.g. -1000,1000)";
  if (a > b) return quoted + " is empty (low > high)";
  *lo = a;
  *hi = b;
  return {};
}

bool parseSize(std::string_view text, int* width, int* height) {
  const size_t x = text.find('x');
  int w = 0, h = 0;
  if (x == std::string_view::npos || x == 0 || x > 5 || text.size() - x - 1 > 5 || text.size() - x - 1 == 0)
    return false;
  for (char c : text.substr(0, x)) if (c < '0' || c > '9') return false;
  for (char c : text.substr(x + 1)) if (c < '0' || c > '9') return false;
  if (!parseWhole(text.substr(0, x), &w) || !parseWhole(text.substr(x + 1), &h)) return false;
  if (w < 64 || h < 64 || w > 16384 || h > 16384) return false;
  *width = w;
  *height = h;
  return true;
}

std::string formatCount(uint64_t n) {
  if (n >= 1024 && (n & (n - 1)) == 0) {
    int e = 0;
    while ((uint64_t(1) << e) < n) ++e;
    return "2^" + std::to_string(e);
  }
  return std::to_string(n);
}

}  // namespace rl
