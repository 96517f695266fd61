#include "trace/analysis/OpSearch.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>

#include "trace/analysis/WideTime.h"

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
  return findOps(run, query, nullptr);
}

std::vector<OpRef> findOps(const RunTrace& run, const OpQuery& query,
                           const std::atomic<bool>* cancel) {
  const auto cancelled = [cancel] { return cancel && cancel->load(std::memory_order_relaxed); };
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
      if (cancelled()) return {};
      for (std::size_t i = 0; i < c.size(); ++i) {
        if ((i & 0xffff) == 0xffff && cancelled()) return {};
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
  if (cancelled()) return {};
  if (segments.size() <= 2) return hits;

  // Into time order: a counting sort by start into about one bucket per four hits, then each
  // bucket sorted by (start, position), so ties stay in (rank, lane, index) order. About linear;
  // a heap merge of the lanes took twice as long on 64 ranks whose ops interleave (10M hits:
  // ~1 s, mostly cache misses either way).
  const std::size_t n = hits.size();
  std::vector<std::int64_t> starts(n);
  std::int64_t lo = std::numeric_limits<std::int64_t>::max();
  std::int64_t hi = std::numeric_limits<std::int64_t>::min();
  for (std::size_t k = 0; k < n; ++k) {
    starts[k] = run.ranks[hits[k].rank].lane(hits[k].lane).start[hits[k].index];
    lo = std::min(lo, starts[k]);
    hi = std::max(hi, starts[k]);
  }
  const std::size_t buckets = std::max<std::size_t>(1, n / 4);
  // Monotonic in t (rounding never reorders), which is all the buckets need.
  const double scale = static_cast<double>(buckets) / (differenceOf(hi, lo) + 1.0);
  const auto bucketOf = [&](std::int64_t t) {
    return std::min(buckets - 1, static_cast<std::size_t>(differenceOf(t, lo) * scale));
  };
  std::vector<std::size_t> first(buckets + 1, 0);
  for (std::size_t k = 0; k < n; ++k)
    ++first[bucketOf(starts[k]) + 1];
  for (std::size_t b = 0; b < buckets; ++b)
    first[b + 1] += first[b];
  std::vector<std::size_t> order(n), fill(first.begin(), first.end() - 1);
  for (std::size_t k = 0; k < n; ++k)
    order[fill[bucketOf(starts[k])]++] = k;
  const auto earlier = [&starts](std::size_t a, std::size_t b) {
    return starts[a] != starts[b] ? starts[a] < starts[b] : a < b;
  };
  for (std::size_t b = 0; b < buckets; ++b)
    if (first[b + 1] - first[b] > 1)
      std::sort(order.begin() + first[b], order.begin() + first[b + 1], earlier);
  std::vector<OpRef> merged(n);
  for (std::size_t k = 0; k < n; ++k)
    merged[k] = hits[order[k]];
  return merged;
}

Result<std::vector<OpRef>> searchOps(const RunTrace& run, std::string_view text) {
  auto q = parseOpQuery(text);
  if (!q) return std::move(q).takeError();
  return findOps(run, *q);
}

}  // namespace ps::trace
