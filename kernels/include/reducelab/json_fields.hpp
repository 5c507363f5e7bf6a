#pragma once
// Reading the fields of a JSON message from another process (the remote protocol, a check's
// events): each read checks presence, type and range; the first problem is kept and later reads
// return defaults, so a decoder reads everything and then asks `error` once.
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace rl {

// Reads fields of one message; the first problem is kept (later reads return defaults).
struct JsonFields {
  const nlohmann::json& j;
  std::string error;

  const nlohmann::json* at(const char* key) {
    if (!error.empty()) return nullptr;
    const auto it = j.find(key);
    if (it == j.end()) {
      error = std::string("field '") + key + "' is missing";
      return nullptr;
    }
    return &*it;
  }
  std::string text(const char* key, size_t maxBytes = 4096) {
    const nlohmann::json* v = at(key);
    if (!v) return {};
    if (!v->is_string()) return error = std::string("field '") + key + "' is not text", std::string();
    const std::string& s = v->get_ref<const std::string&>();
    if (s.size() > maxBytes) return error = std::string("field '") + key + "' is too long", std::string();
    return s;
  }
  int64_t integer(const char* key, int64_t lo, int64_t hi) {
    const nlohmann::json* v = at(key);
    if (!v) return lo;
    if (!v->is_number_integer()) return error = std::string("field '") + key + "' is not an integer", lo;
    if (v->is_number_unsigned() && v->get<uint64_t>() > uint64_t(hi))
      return error = std::string("field '") + key + "' is out of range", lo;
    const int64_t x = v->get<int64_t>();
    if (x < lo || x > hi) return error = std::string("field '") + key + "' is out of range", lo;
    return x;
  }
  uint64_t unsignedInteger(const char* key, uint64_t hi) {
    const nlohmann::json* v = at(key);
    if (!v) return 0;
    if (!v->is_number_unsigned() && !(v->is_number_integer() && v->get<int64_t>() >= 0))
      return error = std::string("field '") + key + "' is not a non-negative integer", 0;
    const uint64_t x = v->get<uint64_t>();
    if (x > hi) return error = std::string("field '") + key + "' is out of range", 0;
    return x;
  }
  double number(const char* key, double lo, double hi) {
    const nlohmann::json* v = at(key);
    if (!v) return 0;
    if (!v->is_number()) return error = std::string("field '") + key + "' is not a number", 0.0;
    const double x = v->get<double>();
    if (!std::isfinite(x) || x < lo || x > hi) return error = std::string("field '") + key + "' is out of range", 0.0;
    return x;
  }
  bool boolean(const char* key) {
    const nlohmann::json* v = at(key);
    if (!v) return false;
    if (!v->is_boolean()) return error = std::string("field '") + key + "' is not true or false", false;
    return v->get<bool>();
  }
  const nlohmann::json* object(const char* key) {
    const nlohmann::json* v = at(key);
    if (v && !v->is_object()) return error = std::string("field '") + key + "' is not an object", nullptr;
    return v;
  }
};

}  // namespace rl
