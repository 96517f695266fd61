#include "runtime/mpi/RecordCodec.h"

#include <cstring>
#include <optional>
#include <string>
#include <type_traits>

namespace ps::runtime::mpi {
namespace {

class Writer {
 public:
  template <typename T>
  void put(T v) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto* p = reinterpret_cast<const char*>(&v);
    out_.insert(out_.end(), p, p + sizeof(T));
  }
  // Optional ints and strings: a presence byte, then the value.
  template <typename T>
  void putOptional(const std::optional<T>& v) {
    put<std::uint8_t>(v.has_value());
    if (v) put(*v);
  }
  void putOptional(const std::optional<std::string>& v) {
    put<std::uint8_t>(v.has_value());
    if (!v) return;
    put<std::uint32_t>(static_cast<std::uint32_t>(v->size()));
    out_.insert(out_.end(), v->begin(), v->end());
  }
  std::vector<char> take() { return std::move(out_); }

 private:
  std::vector<char> out_;
};

class Reader {
 public:
  explicit Reader(std::span<const char> in) : in_(in) {}
  bool failed() const { return failed_; }
  bool atEnd() const { return pos_ == in_.size(); }

  template <typename T>
  T get() {
    T v{};
    if (pos_ + sizeof(T) > in_.size()) {
      failed_ = true;
      return v;
    }
    std::memcpy(&v, in_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }
  template <typename T>
  std::optional<T> getOptional() {
    if (!get<std::uint8_t>()) return std::nullopt;
    return get<T>();
  }
  std::optional<std::string> getOptionalString() {
    if (!get<std::uint8_t>()) return std::nullopt;
    const auto n = get<std::uint32_t>();
    if (failed_ || pos_ + n > in_.size()) {
      failed_ = true;
      return std::nullopt;
    }
    std::string s(in_.data() + pos_, n);
    pos_ += n;
    return s;
  }
  // A count that cannot exceed what is left (each element takes at least `minBytes`).
  std::uint32_t getCount(std::size_t minBytes) {
    const auto n = get<std::uint32_t>();
    if (static_cast<std::size_t>(n) * minBytes > in_.size() - pos_) failed_ = true;
    return failed_ ? 0 : n;
  }

 private:
  std::span<const char> in_;
  std::size_t pos_ = 0;
  bool failed_ = false;
};

}  // namespace

std::vector<char> encodeRecords(const RankRecords& records, std::int64_t clockOffsetNs) {
  Writer w;
  w.put<std::int32_t>(records.rank);
  w.put<std::uint8_t>(records.end);
  w.put<std::int32_t>(records.doneStep);
  w.put<std::uint32_t>(static_cast<std::uint32_t>(records.steps.size()));
  for (const auto& [step, batch] : records.steps) {
    w.put<std::int32_t>(step);
    w.put<std::uint32_t>(static_cast<std::uint32_t>(batch.ops.size()));
    for (const auto& op : batch.ops) {
      w.put<std::int32_t>(op.rank);
      w.put<std::uint8_t>(static_cast<std::uint8_t>(op.kind));
      w.putOptional(op.stage);
      w.putOptional(op.microbatch);
      w.put<std::int32_t>(op.step);
      w.put<std::int64_t>(op.start_ns + clockOffsetNs);
      w.put<std::int64_t>(op.end_ns + clockOffsetNs);
      w.putOptional(op.peer_rank);
      w.putOptional(op.bytes);
      w.putOptional(op.name);
    }
    w.put<std::uint32_t>(static_cast<std::uint32_t>(batch.memory.size()));
    for (const auto& m : batch.memory) {
      w.put<std::int32_t>(m.rank);
      w.put<std::int64_t>(m.t_ns + clockOffsetNs);
      w.put<std::int64_t>(m.bytes);
    }
    w.put<std::uint32_t>(static_cast<std::uint32_t>(batch.metrics.size()));
    for (const auto& m : batch.metrics) {
      w.put<std::int32_t>(m.step);
      w.putOptional(m.rank);
      w.putOptional(std::optional<std::string>(m.name));
      w.put<double>(m.value);
    }
  }
  w.put<std::uint32_t>(static_cast<std::uint32_t>(records.losses.size()));
  for (const auto& [step, losses] : records.losses) {
    w.put<std::int32_t>(step);
    w.put<std::uint32_t>(static_cast<std::uint32_t>(losses.size()));
    for (double l : losses)
      w.put<double>(l);
  }
  return w.take();
}

Result<RankRecords> decodeRecords(std::span<const char> bytes) {
  Reader r(bytes);
  RankRecords out;
  out.rank = r.get<std::int32_t>();
  out.end = r.get<std::uint8_t>() != 0;
  out.doneStep = r.get<std::int32_t>();
  const auto steps = r.getCount(12);
  for (std::uint32_t i = 0; i < steps && !r.failed(); ++i) {
    auto& batch = out.steps[r.get<std::int32_t>()];
    const auto ops = r.getCount(30);
    for (std::uint32_t k = 0; k < ops && !r.failed(); ++k) {
      trace::OpRecord op;
      op.rank = r.get<std::int32_t>();
      op.kind = static_cast<trace::OpKind>(r.get<std::uint8_t>());
      op.stage = r.getOptional<int>();
      op.microbatch = r.getOptional<int>();
      op.step = r.get<std::int32_t>();
      op.start_ns = r.get<std::int64_t>();
      op.end_ns = r.get<std::int64_t>();
      op.peer_rank = r.getOptional<int>();
      op.bytes = r.getOptional<std::int64_t>();
      op.name = r.getOptionalString();
      batch.ops.push_back(std::move(op));
    }
    const auto samples = r.getCount(20);
    for (std::uint32_t k = 0; k < samples && !r.failed(); ++k) {
      trace::MemorySample m;
      m.rank = r.get<std::int32_t>();
      m.t_ns = r.get<std::int64_t>();
      m.bytes = r.get<std::int64_t>();
      batch.memory.push_back(m);
    }
    const auto metrics = r.getCount(14);
    for (std::uint32_t k = 0; k < metrics && !r.failed(); ++k) {
      trace::MetricRecord m;
      m.step = r.get<std::int32_t>();
      m.rank = r.getOptional<int>();
      m.name = r.getOptionalString().value_or("");
      m.value = r.get<double>();
      batch.metrics.push_back(std::move(m));
    }
  }
  const auto lossSteps = r.getCount(8);
  for (std::uint32_t i = 0; i < lossSteps && !r.failed(); ++i) {
    auto& losses = out.losses[r.get<std::int32_t>()];
    const auto n = r.getCount(8);
    for (std::uint32_t k = 0; k < n && !r.failed(); ++k)
      losses.push_back(r.get<double>());
  }
  if (r.failed() || !r.atEnd())
    return Error{"a rank's records arrived malformed (" + std::to_string(bytes.size()) + " bytes)"};
  return out;
}

}  // namespace ps::runtime::mpi
