#include "trace/analysis/OpSearch.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <queue>

namespace ps::trace {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// One whitespace-separated term; double quotes group spaces and are dropped.
struct Token {
  std::string text;      // as typed, for error messages
  std::string unquoted;  // quotes removed
  bool leadingQuote = false;
};

Result<std::vector<Token>> tokenize(std::string_view q) {
  std::vector<Token> out;
  std::size_t i = 0;
  while (i < q.size()) {
    while (i < q.size() && std::isspace(static_cast<unsigned char>(q[i])))
      ++i;
    if (i == q.size()) break;
    Token t;
    t.leadingQuote = q[i] == '"';
    bool quoted = false;
    const std::size_t begin = i;
    for (; i < q.size() && (quoted || !std::isspace(static_cast<unsigned char>(q[i]))); ++i) {
      if (q[i] == '"')
        quoted = !quoted;
      else
        t.unquoted += q[i];
    }
    t.text = std::string(q.substr(begin, i - begin));
    if (quoted) return Error{t.text + ": missing closing quote"};
    out.push_back(std::move(t));
  }
  return out;
}

Result<std::int64_t> parseNumber(std::string_view s, const std::string& term) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc::result_out_of_range || (ec == std::errc() && v > INT32_MAX))
    return Error{term + ": number too large"};
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || v < 0)
    return Error{term + ": not a number"};
  return v;
}

// "4", "2-5", "0,3,7-9".
Result<OpQuery::Alternatives> parseAlternatives(std::string_view value, const std::string& term) {
  OpQuery::Alternatives out;
  while (true) {
    const std::size_t comma = value.find(',');
    const std::string_view part = value.substr(0, comma);
    const std::size_t dash = part.find('-', 1);  // a leading '-' is a sign: "not a number"
    auto lo = parseNumber(part.substr(0, dash), term);
    if (!lo) return std::move(lo).takeError();
    std::int64_t hi = *lo;
    if (dash != std::string_view::npos) {
      auto h = parseNumber(part.substr(dash + 1), term);
      if (!h) return std::move(h).takeError();
      hi = *h;
      if (hi < *lo)
        return Error{term + ": empty range (" + std::to_string(*lo) + " > " + std::to_string(hi) +
                     ")"};
    }
    out.push_back({*lo, hi});
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
  return out;
}

Result<std::uint32_t> parseKinds(std::string_view value, const std::string& term) {
  std::uint32_t mask = 0;
  while (true) {
    const std::size_t comma = value.find(',');
    std::string upper(value.substr(0, comma));
    for (char& c : upper)
      c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    const auto kind = parseOpKind(upper);
    if (!kind) {
      std::string known;
      for (int k = 0; k < kOpKindCount; ++k)
        known += (k ? " " : "") + std::string(opKindName(static_cast<OpKind>(k)));
      return Error{term + ": unknown kind '" + std::string(value.substr(0, comma)) + "' (one of " +
                   known + ")"};
    }
    mask |= 1u << static_cast<int>(*kind);
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
  return mask;
}

Status addTerm(OpQuery& q, const Token& t) {
  const std::size_t colon = t.unquoted.find(':');
  if (t.leadingQuote || colon == std::string::npos) {
    if (!t.unquoted.empty()) q.words.push_back(lower(t.unquoted));
    return {};
  }
  const std::string key = lower(t.unquoted.substr(0, colon));
  const std::string_view value = std::string_view(t.unquoted).substr(colon + 1);
  auto field = [&](OpQuery::Field f) -> Status {
    if (value.empty()) return Error{t.text + ": no value"};
    auto alts = parseAlternatives(value, t.text);
    if (!alts) return std::move(alts).takeError();
    q.fields[f].push_back(std::move(*alts));
    return {};
  };
  if (key == "rank") return field(OpQuery::Rank);
  if (key == "stage") return field(OpQuery::Stage);
  if (key == "mb" || key == "microbatch") return field(OpQuery::Microbatch);
  if (key == "step") return field(OpQuery::Step);
  if (key == "kind") {
    if (value.empty()) return Error{t.text + ": no value"};
    auto mask = parseKinds(value, t.text);
    if (!mask) return std::move(mask).takeError();
    q.kindMask &= *mask;
    return {};
  }
  if (key == "name") {
    if (value.empty()) return Error{t.text + ": no value"};
    q.nameWords.push_back(lower(value));
    return {};
  }
  // Imported names are full of "::" (aten::mm): a plain word, not a mistyped field.
  if (t.unquoted.find("::") != std::string::npos) {
    q.words.push_back(lower(t.unquoted));
    return {};
  }
  return Error{t.text + ": unknown field '" + key +
               "' (kind, rank, stage, mb, step, name); put a name with a colon in quotes"};
}

bool inAll(const std::vector<OpQuery::Alternatives>& terms, std::int64_t v) {
  for (const auto& alts : terms) {
    bool any = false;
    for (const auto& r : alts)
      any |= v >= r.lo && v <= r.hi;
    if (!any) return false;
  }
  return true;
}

// A word's verdict per kind (bit mask) and per interned name, decided once per search.
struct WordTable {
  std::uint32_t kinds = 0;
  std::vector<char> names;
};

WordTable tableFor(const std::string& word, const std::vector<std::string>& lowerNames,
                   bool matchKinds) {
  WordTable t;
  if (matchKinds)
    for (int k = 0; k < kOpKindCount; ++k)
      if (lower(opKindName(static_cast<OpKind>(k))).find(word) != std::string::npos)
        t.kinds |= 1u << k;
  t.names.resize(lowerNames.size());
  for (std::size_t n = 0; n < lowerNames.size(); ++n)
    t.names[n] = lowerNames[n].find(word) != std::string::npos;
  return t;
}

}  // namespace

bool OpQuery::empty() const {
  if (!words.empty() || !nameWords.empty() || kindMask != ~0u) return false;
  for (const auto& f : fields)
    if (!f.empty()) return false;
  return true;
}

Result<OpQuery> parseOpQuery(std::string_view text) {
  auto tokens = tokenize(text);
  if (!tokens) return std::move(tokens).takeError();
  OpQuery q;
  for (const Token& t : *tokens)
    PS_TRY(addTerm(q, t));
  return q;
}

std::vector<OpRef> findOps(const RunTrace& run, const OpQuery& query) {
  std::vector<std::string> lowerNames;
  if (!query.words.empty() || !query.nameWords.empty()) {
    lowerNames.reserve(run.names.size());
    for (const auto& n : run.names)
      lowerNames.push_back(lower(n));
  }
  std::vector<WordTable> tables;
  for (const auto& w : query.words)
    tables.push_back(tableFor(w, lowerNames, true));
  for (const auto& w : query.nameWords)
    tables.push_back(tableFor(w, lowerNames, false));

  // Matches lane by lane (each sorted by start), then merged into time order.
  std::vector<OpRef> hits;
  std::vector<std::size_t> segments{0};
  for (std::size_t r = 0; r < run.ranks.size(); ++r) {
    if (!inAll(query.fields[OpQuery::Rank], static_cast<std::int64_t>(r))) continue;
    for (int l = 0; l < kLaneCount; ++l) {
      const OpColumns& c = run.ranks[r].lanes[l];
      for (std::size_t i = 0; i < c.size(); ++i) {
        const int kind = static_cast<int>(c.kind[i]);
        if (!(query.kindMask >> kind & 1u)) continue;
        if (!inAll(query.fields[OpQuery::Stage], c.stage[i]) ||
            !inAll(query.fields[OpQuery::Microbatch], c.microbatch[i]) ||
            !inAll(query.fields[OpQuery::Step], c.step[i]))
          continue;
        const std::int32_t nm = c.name[i];
        const bool hasName = nm >= 0 && static_cast<std::size_t>(nm) < lowerNames.size();
        bool all = true;
        for (const WordTable& t : tables)
          if (!(t.kinds >> kind & 1u) && !(hasName && t.names[nm])) {
            all = false;
            break;
          }
        if (all) hits.push_back({static_cast<int>(r), static_cast<Lane>(l), i});
      }
      if (hits.size() > segments.back()) segments.push_back(hits.size());
    }
  }
  if (segments.size() <= 2) return hits;

  const auto startOf = [&run](const OpRef& o) {
    return run.ranks[o.rank].lane(o.lane).start[o.index];
  };
  // Heap of (segment cursor), earliest start first; ties by segment order = (rank, lane).
  using Cursor = std::pair<std::size_t, std::size_t>;  // position, segment end
  const auto later = [&](const Cursor& a, const Cursor& b) {
    const std::int64_t sa = startOf(hits[a.first]), sb = startOf(hits[b.first]);
    return sa != sb ? sa > sb : a.first > b.first;
  };
  std::priority_queue<Cursor, std::vector<Cursor>, decltype(later)> heap(later);
  for (std::size_t s = 0; s + 1 < segments.size(); ++s)
    heap.push({segments[s], segments[s + 1]});
  std::vector<OpRef> merged;
  merged.reserve(hits.size());
  while (!heap.empty()) {
    Cursor c = heap.top();
    heap.pop();
    merged.push_back(hits[c.first]);
    if (++c.first < c.second) heap.push(c);
  }
  return merged;
}

Result<std::vector<OpRef>> searchOps(const RunTrace& run, std::string_view text) {
  auto q = parseOpQuery(text);
  if (!q) return std::move(q).takeError();
  return findOps(run, *q);
}

}  // namespace ps::trace
