#pragma once
// A check's report as JSON (the autograder's `check --format json`) and read back, and a check
// that runs on a remote GPU (docs/remote.md: the "check" request and its "check_event" replies).
// The writers are the only ones of this format; the readers accept what the writers wrote and
// refuse, with one sentence, anything else: a remote server's JSON is read, never trusted.
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "reducelab/remote_protocol.hpp"
#include "reducelab/usercode/battery.hpp"

namespace rl::usercode {

nlohmann::json diagnosticsJson(const std::vector<Diagnostic>& list);  // `compile` and `check` write them alike
// One build's kernel: its names and resources (`compile` adds its occupancy per block).
nlohmann::json kernelBuildJson(const KernelBuild& k);
nlohmann::json caseResultJson(const CaseResult& c);
nlohmann::json hazardCheckJson(const HazardCheck& h);   // without its trace bytes
nlohmann::json timingCheckJson(const TimingCheck& t);
nlohmann::json failureTraceJson(const FailureTrace& f);  // without its trace bytes

// "" or why the JSON is not one the writers above wrote.
std::string caseResultFromJson(const nlohmann::json& j, CaseResult* out);
std::string hazardCheckFromJson(const nlohmann::json& j, HazardCheck* out);
std::string timingCheckFromJson(const nlohmann::json& j, TimingCheck* out);
// What a reader of the report needs (status, cases, summary, hazards, timing, failure trace,
// diagnostics); not the builds, the contract nor the device, which the remote event carries apart.
std::string checkReportFromJson(const nlohmann::json& j, CheckReport* out);

// ---- a check on a remote GPU ----
// One step of a check, as the hooks of runCheck see it.
struct CheckEvent {
  enum class Kind { Compiled, Case, Hazards, Timing, Done };
  Kind kind = Kind::Done;
  int total = 0;                        // Compiled: the cases to come
  std::string device;                   // Compiled: the GPU that runs them
  std::vector<Diagnostic> diagnostics;  // Compiled
  CaseResult caseResult;                // Case
  HazardCheck hazards;                  // Hazards (its trace in the frame's payload)
  TimingCheck timing;                   // Timing
  CheckReport report;                   // Done (the failure trace in the payload)
  nlohmann::json reportJson;            // Done: the server's JSON of it, as check --format json prints it
};

// The request (client -> server) and its reader; `timeoutSeconds` is the watchdog's.
nlohmann::json checkRequestMessage(const CheckRequest& q, double timeoutSeconds);
std::string decodeCheckRequest(const remote::Frame& f, CheckRequest* q, double* timeoutSeconds);
// An event (server -> client): the frame's bytes, and its reader (which checks the payload's trace).
std::string encodeCheckEvent(const CheckEvent& e);
std::string decodeCheckEvent(const remote::Frame& f, CheckEvent* e);

}  // namespace rl::usercode
