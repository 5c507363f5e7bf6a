#include "reducelab/views.hpp"

namespace rl {

namespace {
// viewInfo() indexes the table by the enum: each row sits at its own id.
constexpr bool rowsInEnumOrder() {
  for (std::size_t i = 0; i < kViews.size(); ++i)
    if (kViews[i].id != ViewId(i)) return false;
  return true;
}
static_assert(rowsInEnumOrder(), "kViews: one row per ViewId, in the enum's order");
}  // namespace

const ViewInfo* findView(std::string_view name) {
  for (const ViewInfo& v : kViews)
    if (v.name == name) return &v;
  return nullptr;
}

std::string viewNames() {
  std::string out;
  for (const ViewInfo& v : kViews) out += (out.empty() ? "" : ", ") + std::string(v.name);
  return out;
}

}  // namespace rl
