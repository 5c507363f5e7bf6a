#pragma once
// The vocabulary of a run: element type, operation, accumulator, final stage, input data.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rl {

enum class ElemType { Int32, Int64, Float32, Float64 };
enum class Op { Sum, Min, Max };
enum class Accumulate { Same, Wide };  // wide: int32 -> int64, float32 -> float64
// How the per-block partial results become one value.
enum class FinalStage { Default, Cpu, Gpu, Atomic, LastBlock };
enum class DataPattern { Uniform, IntRange, Ones, IllConditioned };
// How a repetition is timed. Blocked (nvbench's method, the default): a kernel holds the stream
// until the host has enqueued the timed work, then the start event; Events: events around the
// launches as the host enqueues them (host enqueue cost can sit inside); Graph: the reduction
// captured once into a CUDA graph, one replay between the events (after the blocking kernel).
enum class TimingMode { Blocked, Events, Graph };

std::string_view name(ElemType t);
std::string_view name(Op o);
std::string_view name(Accumulate a);
std::string_view name(FinalStage f);
std::string_view name(DataPattern d);
std::string_view name(TimingMode m);
// One sentence: what the interval of a repetition holds in this mode.
const char* timingModeMeaning(TimingMode m);

std::optional<ElemType> parseElemType(std::string_view s);
std::optional<Op> parseOp(std::string_view s);
std::optional<Accumulate> parseAccumulate(std::string_view s);
std::optional<FinalStage> parseFinalStage(std::string_view s);
std::optional<DataPattern> parseDataPattern(std::string_view s);
std::optional<TimingMode> parseTimingMode(std::string_view s);
// "on" -> true, "off" -> false (switches such as --pdl), anything else nullopt.
std::optional<bool> parseOnOff(std::string_view s);
inline const char* onOff(bool v) { return v ? "on" : "off"; }

size_t elemBytes(ElemType t);
bool isFloat(ElemType t);
// The type partial results are kept in: same as the input, or the wide type.
ElemType accumulatorType(ElemType input, Accumulate a);

// Parses N: "16777216", "16M" / "16Mi" (binary: K=2^10, M=2^20, G=2^30), "2^24", "1e6".
// Returns nullopt and fills *error for anything else, zero, or above 2^40.
std::optional<uint64_t> parseCount(std::string_view text, std::string* error);
// Parses an integer range "lo,hi": two signed 64-bit integers, lo <= hi, nothing else.
// "" or a one-line error quoting the text.
std::string parseIntRange(std::string_view text, int64_t* lo, int64_t* hi);
// Parses a window size "WIDTHxHEIGHT", each 64..16384.
bool parseSize(std::string_view text, int* width, int* height);
// "2^24" when N is a power of two, "16777216" otherwise; human form "16.8 M" for tables.
std::string formatCount(uint64_t n);

}  // namespace rl
