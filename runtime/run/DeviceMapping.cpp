#include "runtime/run/DeviceMapping.h"

#include <charconv>

namespace ps::runtime {

Result<Plan> replicatePipeline(const Plan& one, int groups) {
  const std::string flag = "--dp " + std::to_string(groups) + ": ";
  if (groups < 1) return Error{flag + "needs at least 1 replica"};
  if (groups == 1) return one;
  if (one.numReplicas() != 1)
    return Error{flag + one.schedule + " already runs " + std::to_string(one.numReplicas()) +
                 " replicas of its pipeline (drop --dp)"};
  if (one.versioning != WeightVersioning::Synchronous)
    return Error{flag + one.schedule +
                 " is asynchronous: its replicas' weights would drift apart (use a synchronous "
                 "schedule)"};
  Plan out = one;
  const int P = one.numRanks, M = one.numMicrobatches();
  out.numRanks = P * groups;
  out.placement.assign(static_cast<std::size_t>(groups), one.placement[0]);
  out.microbatches.clear();
  out.programs.clear();
  out.extraEdges.clear();
  for (int k = 0; k < groups; ++k) {
    for (StagePlacement& st : out.placement[k])
      st.rank += k * P;
    for (MicrobatchSpec mb : one.microbatches) {
      mb.replica = k;
      if (mb.sliceOf >= 0) mb.sliceOf += k * M;
      out.microbatches.push_back(mb);
    }
    for (std::vector<Action> program : one.programs) {
      for (Action& a : program) {
        if (a.microbatch >= 0) a.microbatch += k * M;
        if (a.peer >= 0) a.peer += k * P;
      }
      out.programs.push_back(std::move(program));
    }
    for (ExtraEdge e : one.extraEdges) {
      for (ActionRef* ref : {&e.before, &e.after})
        if (ref->microbatch >= 0) ref->microbatch += k * M;
      out.extraEdges.push_back(e);
    }
  }
  return out;
}

Plan placeOnDevices(const Plan& plan, const std::vector<int>& deviceOf) {
  if (isRankOrder(deviceOf)) return plan;
  Plan out = plan;
  for (auto& replica : out.placement)
    for (StagePlacement& st : replica)
      st.rank = deviceOf[st.rank];
  for (int r = 0; r < plan.numRanks; ++r) {
    std::vector<Action> program = plan.programs[r];
    for (Action& a : program)
      if (a.peer >= 0) a.peer = deviceOf[a.peer];
    out.programs[deviceOf[r]] = std::move(program);
  }
  return out;
}

Result<std::vector<int>> parseDeviceOrder(const std::string& text, int ranks) {
  const std::string flag = "--mapping " + text + ": ";
  std::vector<int> order;
  std::vector<bool> seen(static_cast<std::size_t>(ranks), false);
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t comma = std::min(text.find(',', pos), text.size());
    const std::string item = text.substr(pos, comma - pos);
    int device = -1;
    auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), device);
    if (item.empty() || ec != std::errc{} || end != item.data() + item.size())
      return Error{flag + "'" + item + "' is not a device number (give 'auto' or a list like " +
                   "0,1,2,3)"};
    if (device < 0 || device >= ranks)
      return Error{flag + "device " + item + " is outside 0.." + std::to_string(ranks - 1)};
    if (seen[device]) return Error{flag + "device " + item + " is named twice"};
    seen[device] = true;
    order.push_back(device);
    pos = comma + 1;
  }
  if (static_cast<int>(order.size()) != ranks)
    return Error{flag + std::to_string(order.size()) + " device(s) for " + std::to_string(ranks) +
                 " ranks (name every device once)"};
  return order;
}

std::string deviceOrderText(const std::vector<int>& deviceOf) {
  std::string text;
  for (int d : deviceOf)
    text += (text.empty() ? "" : ",") + std::to_string(d);
  return text;
}

bool isRankOrder(const std::vector<int>& deviceOf) {
  for (std::size_t r = 0; r < deviceOf.size(); ++r)
    if (deviceOf[r] != static_cast<int>(r)) return false;
  return true;
}

Result<NodeShape> parseTopology(const std::string& text) {
  NodeShape shape;
  const auto number = [](const std::string& s, int& out) {
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return !s.empty() && ec == std::errc{} && end == s.data() + s.size() && out >= 1 && out <= 4096;
  };
  const Error bad{"--topology " + text +
                  ": expected NxG, N nodes of G devices each (1..4096), e.g. 2x4, or the nodes' "
                  "sizes joined by +, e.g. 4+2+2"};
  if (text.find('+') != std::string::npos) {
    std::size_t from = 0;
    while (from <= text.size()) {
      const std::size_t plus = std::min(text.find('+', from), text.size());
      int size = 0;
      if (!number(text.substr(from, plus - from), size) || shape.sizes.size() >= 4096) return bad;
      shape.sizes.push_back(size);
      from = plus + 1;
    }
    shape.nodes = static_cast<int>(shape.sizes.size());
    return shape;
  }
  const std::size_t x = text.find('x');
  if (x == std::string::npos || !number(text.substr(0, x), shape.nodes) ||
      !number(text.substr(x + 1), shape.gpusPerNode))
    return bad;
  return shape;
}

long NodeShape::devices() const {
  long n = static_cast<long>(nodes) * gpusPerNode;
  for (int s : sizes)
    n += s;
  return n;
}

std::vector<int> NodeShape::nodeSizes() const {
  return sizes.empty() ? std::vector<int>(static_cast<std::size_t>(nodes), gpusPerNode) : sizes;
}

}  // namespace ps::runtime
