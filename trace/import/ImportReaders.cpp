#include "trace/import/ImportReaders.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "trace/import/ImportFormats.h"

namespace ps::trace::import {

namespace {

// The reads of one import, shared by its worker threads. Files are taken in order; each file's
// result lands in its own slot, so the traces come out in file order whatever finished first.
class ParallelRead {
 public:
  ParallelRead(const ImportFormat& format, const std::vector<std::string>& files,
               std::vector<std::uintmax_t> sizes, const ReadControl& control)
      : format_(format),
        files_(files),
        sizes_(std::move(sizes)),
        control_(control),
        results_(files.size()),
        stops_(std::make_unique<std::atomic<bool>[]>(files.size())),
        fractions_(files.size(), 0.0) {
    for (const auto size : sizes_)
      total_ += size;
  }

  // Reads files until none is left; run by every worker, the calling thread included.
  void work() {
    for (;;) {
      const std::size_t i = next_.fetch_add(1);
      if (i >= files_.size()) return;
      try {
        results_[i] = readOne(i);
      } catch (...) {  // handed to the caller's thread, which rethrows it (as a serial read)
        results_[i] = Error{files_[i] + ": read failed"};
        std::lock_guard lock(mutex_);
        if (!exception_ || i < exceptionFile_) {
          exception_ = std::current_exception();
          exceptionFile_ = i;
        }
      }
      if (!*results_[i]) stopAfter(i);
    }
  }

  // After every worker has finished: the traces in file order, or the first file's error (a
  // serial read would have stopped there).
  Result<std::vector<RawRankTrace>> collect() {
    std::vector<RawRankTrace> out;
    for (std::size_t i = 0; i < files_.size(); ++i) {
      if (exception_ && exceptionFile_ == i) std::rethrow_exception(exception_);
      auto& traces = *results_[i];
      if (!traces) return std::move(traces).takeError();
      for (auto& t : *traces)
        out.push_back(std::move(t));
      results_[i].reset();
    }
    return out;
  }

 private:
  Result<std::vector<RawRankTrace>> readOne(std::size_t i) {
    if (control_.cancelled() || stops_[i].load()) return Error{files_[i] + ": import cancelled"};
    ReadControl part;
    part.cancel = control_.cancel;
    part.stop = &stops_[i];
    if (control_.progress) part.progress = [this, i](double fraction) { report(i, fraction); };
    auto traces = format_.read(files_[i], part);
    if (traces) report(i, 1.0);
    return traces;
  }

  // A failed file ends the reads of the files after it: only the first failure is reported.
  void stopAfter(std::size_t failed) {
    for (std::size_t j = failed + 1; j < files_.size(); ++j)
      stops_[j].store(true);
  }

  // Progress over all files, each file its share by size; never backwards, one call at a time.
  void report(std::size_t i, double fraction) {
    std::lock_guard lock(mutex_);
    fractions_[i] = std::max(fractions_[i], fraction);
    double done = 0;
    for (std::size_t j = 0; j < files_.size(); ++j) {
      const double share = total_ > 0 ? static_cast<double>(sizes_[j]) / static_cast<double>(total_)
                                      : 1.0 / static_cast<double>(files_.size());
      done += share * fractions_[j];
    }
    done = std::min(done, 1.0);
    if (done <= reported_ && reported_ > 0) return;
    reported_ = done;
    control_.report(done);
  }

  const ImportFormat& format_;
  const std::vector<std::string>& files_;
  const std::vector<std::uintmax_t> sizes_;
  std::uintmax_t total_ = 0;
  const ReadControl& control_;
  std::vector<std::optional<Result<std::vector<RawRankTrace>>>> results_;
  std::unique_ptr<std::atomic<bool>[]> stops_;  // per file: a file before it has failed
  std::atomic<std::size_t> next_{0};
  std::mutex mutex_;  // guards the progress and the exception
  std::vector<double> fractions_;
  double reported_ = 0;
  std::exception_ptr exception_;
  std::size_t exceptionFile_ = 0;
};

}  // namespace

std::string traceFormats() {
  std::string out;
  for (const auto& f : importFormats()) {
    if (f.kind != ImportKind::Profiles) continue;
    if (!out.empty()) out += ", ";
    out += f.name;
  }
  return out;
}

unsigned readThreads(unsigned requested, std::size_t files) {
  unsigned threads = requested;
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  return static_cast<unsigned>(std::max<std::size_t>(1, std::min<std::size_t>(threads, files)));
}

Result<std::vector<RawRankTrace>> readTraceFiles(std::string_view format,
                                                 const std::vector<std::string>& files,
                                                 const ReadControl& control, unsigned threads) {
  const ImportFormat* entry = findImportFormat(format);
  if (entry == nullptr)
    return Error{"unknown trace format \"" + std::string(format) + "\" (valid: " + traceFormats() +
                 ")"};
  if (entry->kind != ImportKind::Profiles || entry->read == nullptr)
    return Error{std::string(format) + " is a schedule to simulate, not a profile to read"};
  std::vector<std::uintmax_t> sizes;
  for (const auto& f : files) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(f, ec);
    if (ec) return Error{f + ": cannot read: " + ec.message()};
    sizes.push_back(size);
  }
  ParallelRead read(*entry, files, std::move(sizes), control);
  std::vector<std::thread> workers;
  const unsigned count = readThreads(threads, files.size());
  for (unsigned t = 1; t < count; ++t)
    workers.emplace_back([&read] { read.work(); });
  read.work();
  for (auto& w : workers)
    w.join();
  return read.collect();
}

}  // namespace ps::trace::import
