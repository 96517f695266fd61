#include "runtime/run/RunLabels.h"

#include <algorithm>
#include <map>
#include <optional>

#include "runtime/run/ConfigKnobs.h"

namespace ps::runtime {
using trace::pathBaseName;
using trace::RunInfo;
using trace::runStatusName;
namespace {

std::optional<std::string> valueOf(const std::vector<ConfigKnob>& knobs, const std::string& key) {
  for (const auto& k : knobs)
    if (k.key == key) return k.value;
  return std::nullopt;
}

// The keys of every run in the group, in the order the first run that has each lists it.
std::vector<ConfigKnob> unionOfKnobs(const std::vector<std::vector<ConfigKnob>>& knobs) {
  std::vector<ConfigKnob> keys;
  for (const auto& run : knobs)
    for (const auto& k : run)
      if (std::none_of(keys.begin(), keys.end(),
                       [&](const ConfigKnob& s) { return s.key == k.key; }))
        keys.push_back(k);
  return keys;
}

std::vector<std::string> labelsWith(const std::string& name,
                                    const std::vector<std::vector<ConfigKnob>>& knobs,
                                    const std::vector<std::string>& keys) {
  std::vector<std::string> out;
  for (const auto& run : knobs) {
    std::string label = name;
    for (const auto& key : keys)
      for (const auto& k : run)
        if (k.key == key) label += " · " + k.label + " " + k.value;
    out.push_back(std::move(label));
  }
  return out;
}

bool allDistinct(std::vector<std::string> labels) {
  std::sort(labels.begin(), labels.end());
  return std::adjacent_find(labels.begin(), labels.end()) == labels.end();
}

// Labels for runs sharing one name: the name plus the knobs whose values differ in the group.
// Knobs every run has come first; a knob only some runs record (a file with runs from an older
// version) is named only when the others do not tell the runs apart.
void labelGroup(const std::vector<RunInfo>& runs, const std::vector<std::size_t>& members,
                const std::string& name, std::vector<std::string>& labels) {
  std::vector<std::vector<ConfigKnob>> knobs;
  for (std::size_t i : members)
    knobs.push_back(configKnobs(runs[i].config_json));
  std::vector<std::string> differing, partial;
  for (const auto& k : unionOfKnobs(knobs)) {
    bool everywhere = true, differs = false;
    const auto first = valueOf(knobs.front(), k.key);
    for (const auto& run : knobs) {
      const auto v = valueOf(run, k.key);
      everywhere = everywhere && v.has_value();
      differs = differs || v != first;
    }
    if (differs) (everywhere ? differing : partial).push_back(k.key);
  }
  if (!allDistinct(labelsWith(name, knobs, differing)))
    differing.insert(differing.end(), partial.begin(), partial.end());
  if (differing.size() > static_cast<std::size_t>(kMaxLabelKnobs)) differing.resize(kMaxLabelKnobs);
  const auto out = labelsWith(name, knobs, differing);
  // Still alike (the same config run twice, or a difference past the cap): the run's id.
  for (std::size_t g = 0; g < members.size(); ++g) {
    const bool alike = std::count(out.begin(), out.end(), out[g]) > 1;
    labels[members[g]] = alike ? out[g] + " · #" + std::to_string(runs[members[g]].id) : out[g];
  }
}

}  // namespace

std::string shortRunName(const std::string& name) {
  std::string out;
  std::size_t pos = 0;
  while (pos <= name.size()) {
    const std::size_t space = std::min(name.find(' ', pos), name.size());
    const std::string word = name.substr(pos, space - pos);
    const bool path = word.find_first_of("/\\") != std::string::npos;
    out += path ? pathBaseName(word) : word;
    if (space == name.size()) break;
    out += ' ';
    pos = space + 1;
  }
  return out;
}

std::vector<std::string> historyLabels(const std::vector<RunInfo>& runs) {
  std::vector<std::string> labels(runs.size());
  std::vector<std::string> names;
  std::map<std::string, std::vector<std::size_t>> byName;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    names.push_back(shortRunName(runs[i].name));
    byName[names.back()].push_back(i);
  }
  for (const auto& [name, members] : byName) {
    if (members.size() == 1)
      labels[members.front()] = name;
    else
      labelGroup(runs, members, name, labels);
  }
  return labels;
}

std::string configSummary(const RunInfo& run) {
  std::string out;
  for (const auto& k : configKnobs(run.config_json))
    out += k.label + ": " + k.value + '\n';
  out += "source: " + run.source + '\n';
  out += "status: " + std::string(runStatusName(run.status));
  if (!run.status_message.empty()) out += "\nmessage: " + run.status_message;
  return out;
}

}  // namespace ps::runtime
