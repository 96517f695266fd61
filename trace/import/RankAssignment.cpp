#include "trace/import/RankAssignment.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>

namespace ps::trace::import {
namespace {

__extension__ typedef __int128 Wide;  // times plus clock bases, past int64 on corrupt input

std::string_view baseName(std::string_view path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The number right after `word` (allowing one '-', '_' or '.' between), if any.
std::optional<int> numberAfter(const std::string& name, std::string_view word) {
  for (auto pos = name.find(word); pos != std::string::npos; pos = name.find(word, pos + 1)) {
    std::size_t i = pos + word.size();
    if (i < name.size() && (name[i] == '-' || name[i] == '_' || name[i] == '.')) ++i;
    int value = 0;
    const auto [end, ec] = std::from_chars(name.data() + i, name.data() + name.size(), value);
    if (ec == std::errc{} && end != name.data() + i) return value;
  }
  return std::nullopt;
}

}  // namespace

std::optional<int> rankFromFileName(std::string_view path) {
  const std::string name = lower(baseName(path));
  for (std::string_view word : {"rank", "worker"})
    if (auto n = numberAfter(name, word)) return n;
  return std::nullopt;
}

Result<std::vector<RankSource>> assignRanks(const std::vector<RawRankTrace>& traces,
                                            const std::map<std::string, int>& explicitRanks) {
  std::vector<RankSource> out(traces.size());
  std::map<std::string, std::size_t> profilesOfFile;
  for (const auto& t : traces)
    ++profilesOfFile[t.file];
  const auto& files = profilesOfFile;
  std::map<std::string, int> nextInFile;  // consecutive ranks for several profiles per file
  for (std::size_t i = 0; i < traces.size(); ++i) {
    const RawRankTrace& t = traces[i];
    RankSource& s = out[i];
    const auto mapped = explicitRanks.find(t.file);
    const bool sharedFile = profilesOfFile[t.file] > 1;
    std::optional<int> base;
    if (mapped != explicitRanks.end()) {
      base = mapped->second;
      s.how = "--rank";
    } else if (t.rank) {
      s.originalRank = *t.rank;
      s.how = "metadata";
    } else if (auto fromName = rankFromFileName(t.file)) {
      base = *fromName;
      s.how = "file name";
    } else if (files.size() == 1) {
      base = 0;
      s.how = sharedFile ? "process order" : "only file";
    } else {
      return Error{t.file +
                   ": cannot tell which rank this file is (no rank in its metadata or its name); "
                   "pass --rank " +
                   t.file + "=N"};
    }
    if (base) {
      if (sharedFile && !(mapped == explicitRanks.end() && t.rank)) {
        s.originalRank = *base + nextInFile[t.file]++;
        if (s.how != "process order") s.how += " + process order";
      } else {
        s.originalRank = *base;
      }
    }
    if (s.originalRank < 0)
      return Error{t.file + ": rank " + std::to_string(s.originalRank) + " is negative"};
  }
  // Clashes and world sizes, the first pair (i, j) in file order that is wrong, as a pairwise
  // scan would find it, in linear time: threads as ranks makes thousands of ranks of one file.
  using Pair = std::pair<std::size_t, std::size_t>;
  std::optional<Pair> clash;
  std::map<int, std::size_t> firstWithRank;
  for (std::size_t j = 0; j < traces.size(); ++j) {
    const auto [it, fresh] = firstWithRank.try_emplace(out[j].originalRank, j);
    if (!fresh && (!clash || it->second < clash->first)) clash = Pair{it->second, j};
    if (!fresh) it->second = traces.size();  // only its first repeat counts
  }
  std::optional<Pair> worlds;
  const auto firstWorld = std::find_if(
      traces.begin(), traces.end(), [](const RawRankTrace& t) { return t.worldSize.has_value(); });
  if (firstWorld != traces.end()) {
    const auto i = static_cast<std::size_t>(firstWorld - traces.begin());
    for (std::size_t j = i + 1; j < traces.size() && !worlds; ++j)
      if (traces[j].worldSize && *traces[j].worldSize != *traces[i].worldSize) worlds = Pair{i, j};
  }
  if (clash && (!worlds || *clash <= *worlds)) {
    const auto [i, j] = *clash;
    return Error{"ranks clash: " + traces[i].file + " and " + traces[j].file + " are both rank " +
                 std::to_string(out[i].originalRank) + " (" + out[i].how + ", " + out[j].how +
                 "); pass --rank FILE=N"};
  }
  if (worlds) {
    const auto [i, j] = *worlds;
    return Error{traces[i].file + " (world size " + std::to_string(*traces[i].worldSize) +
                 ") and " + traces[j].file + " (world size " +
                 std::to_string(*traces[j].worldSize) + ") are files of different runs"};
  }
  std::vector<std::size_t> order(traces.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return out[a].originalRank < out[b].originalRank;
  });
  for (std::size_t k = 0; k < order.size(); ++k)
    out[order[k]].storedRank = static_cast<int>(k);
  return out;
}

Status checkSameRun(const std::vector<RawRankTrace>& traces) {
  // Profiles of one job start within minutes of each other; an hour apart is another run.
  // Compared on UTC start times: local time origins differ by format.
  constexpr std::int64_t kApartNs = 3600LL * 1'000'000'000LL;
  const RawRankTrace* first = nullptr;
  Wide firstStart = 0;
  for (const auto& t : traces) {
    if (!t.wallClockOffsetNs || t.events.empty()) continue;
    std::int64_t earliest = INT64_MAX;
    for (const auto& e : t.events)
      earliest = std::min(earliest, e.start_ns);
    // Wide: a corrupt base or timestamp must not wrap into "the same hour" (issue 30, item 9).
    const Wide start = static_cast<Wide>(earliest) + *t.wallClockOffsetNs;
    if (!first) {
      first = &t;
      firstStart = start;
      continue;
    }
    const Wide apart = start > firstStart ? start - firstStart : firstStart - start;
    if (apart > kApartNs) {
      char hours[32];
      std::snprintf(hours, sizeof hours, "%.1f", static_cast<double>(apart) / 3.6e12);
      return Error{t.file + " and " + first->file + " were recorded " + hours +
                   " h apart: files of different runs? (import them separately)"};
    }
  }
  return {};
}

}  // namespace ps::trace::import
