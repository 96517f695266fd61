#include "trace/import/GzipInput.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>

#include "trace/ProgressThrottle.h"

namespace ps::trace::import {

InputBuffer InputBuffer::withCapacity(std::size_t capacity) {
  InputBuffer buffer;
  // Uninitialised on purpose: the reader or inflater writes every byte before it is used, and
  // zero-filling a few hundred MB first would touch every page twice.
  buffer.data_.reset(new (std::nothrow) char[capacity + kPadding]);
  if (buffer.data_ == nullptr) return buffer;
  buffer.capacity_ = capacity;
  buffer.setSize(0);
  return buffer;
}

void InputBuffer::setSize(std::size_t size) {
  size_ = std::min(size, capacity_);
  std::memset(data_.get() + size_, 0, kPadding);
}

bool InputBuffer::grow(std::size_t capacity) {
  if (capacity <= capacity_) return true;
  std::unique_ptr<char[]> bigger(new (std::nothrow) char[capacity + kPadding]);
  if (bigger == nullptr) return false;
  if (size_ > 0) std::memcpy(bigger.get(), data_.get(), size_);
  data_ = std::move(bigger);
  capacity_ = capacity;
  setSize(size_);
  return true;
}

bool isGzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

namespace {

// The least one read asks the source for: big enough that per-call costs vanish.
constexpr std::size_t kReadBlock = std::size_t{1} << 20;

Error outOfMemory(const std::string& label, std::size_t bytes) {
  return makeError(label + ": out of memory (needed " + std::to_string(bytes) + " bytes)");
}

Result<GzipLimits> limitsOf(const InputOptions& options) {
  if (options.limits) return *options.limits;
  return GzipLimits::fromEnvironment();
}

}  // namespace

InputStream::InputStream(std::unique_ptr<ByteSource> source, std::string label,
                         const ReadControl& control)
    : source_(std::move(source)), label_(std::move(label)), control_(&control) {}

Status InputStream::fill(std::size_t more) {
  const std::size_t target = buffer_.size() + more;
  while (!finished_ && buffer_.size() < target) {
    if (control_->cancelled()) return makeError(label_ + ": import cancelled");
    if (buffer_.capacity() - buffer_.size() < kReadBlock) {
      const std::size_t wanted =
          std::max(buffer_.size() + std::max(more, kReadBlock), buffer_.capacity() * 3 / 2);
      if (!buffer_.allocated()) {
        buffer_ = InputBuffer::withCapacity(wanted);
        if (!buffer_.allocated()) return outOfMemory(label_, wanted);
      } else if (!buffer_.grow(wanted)) {
        return outOfMemory(label_, wanted);
      }
    }
    auto got = source_->read(buffer_.data() + buffer_.size(), buffer_.capacity() - buffer_.size());
    if (!got) return std::move(got).takeError();
    if (*got == 0) finished_ = true;
    buffer_.setSize(buffer_.size() + *got);
  }
  return {};
}

void InputStream::discard(std::size_t count) {
  count = std::min(count, buffer_.size());
  if (count == 0) return;
  const std::size_t rest = buffer_.size() - count;
  if (rest > 0) std::memmove(buffer_.data(), buffer_.data() + count, rest);
  buffer_.setSize(rest);
  offset_ += count;
}

Status InputStream::checkHead(const InputOptions& options) {
  PS_TRY(fill(kInputHeadBytes));
  // Content shorter than the head is left to the parser, which says more precisely what is wrong.
  if (!options.checkHead || buffer_.size() < kInputHeadBytes) return {};
  return options.checkHead(std::string_view(buffer_.data(), kInputHeadBytes));
}

Result<InputStream> InputStream::openFile(const std::string& path, const ReadControl& control,
                                          const InputOptions& options) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0)
    return makeError(path + ": cannot open: " + std::strerror(errno));
  if (S_ISDIR(info.st_mode)) return makeError(path + ": is a directory, not a trace file");
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return makeError(path + ": cannot open: " + std::strerror(errno));
  const bool regular = S_ISREG(info.st_mode);
  const std::uint64_t size = regular ? static_cast<std::uint64_t>(info.st_size) : 0;
  auto raw = fileSource(file, path, size, control);

  // The magic bytes say gzip or not; a pipe cannot seek back, so they are handed on in front.
  char magic[2] = {0, 0};
  std::size_t got = 0;
  while (got < 2) {
    auto n = raw->read(magic + got, 2 - got);
    if (!n) return std::move(n).takeError();
    if (*n == 0) break;
    got += *n;
  }
  raw = prefixedSource(std::string(magic, got), std::move(raw));
  std::unique_ptr<ByteSource> source;
  if (isGzip(std::string_view(magic, got))) {
    auto limits = limitsOf(options);
    if (!limits) return std::move(limits).takeError();
    source = gunzipSource(std::move(raw), path, size, *limits, control);
  } else {
    source = std::move(raw);
  }
  InputStream stream(std::move(source), path, control);
  PS_TRY(stream.checkHead(options));
  return stream;
}

Result<InputStream> InputStream::openBytes(std::string_view bytes, const std::string& label,
                                           const ReadControl& control,
                                           const InputOptions& options) {
  std::unique_ptr<ByteSource> source = memorySource(bytes);
  if (isGzip(bytes)) {
    auto limits = limitsOf(options);
    if (!limits) return std::move(limits).takeError();
    source = gunzipSource(std::move(source), label, bytes.size(), *limits, control);
  }
  InputStream stream(std::move(source), label, control);
  PS_TRY(stream.checkHead(options));
  return stream;
}

namespace {

// Everything the stream holds, progress reported up to options.progressEnd.
Result<InputBuffer> readAll(Result<InputStream> stream, const ReadControl& control,
                            const InputOptions& options) {
  if (!stream) return std::move(stream).takeError();
  ProgressThrottle throttle;
  while (!stream->finished()) {
    PS_TRY(stream->fill(16 * kReadBlock));
    const double fraction = options.progressEnd * stream->fraction();
    if (options.progressEnd > 0.0 && fraction > 0.0 && throttle.pass(fraction))
      control.report(fraction);
  }
  InputBuffer buffer = stream->takeBuffer();
  if (!buffer.allocated()) buffer = InputBuffer::withCapacity(0);  // an empty file
  return buffer;
}

}  // namespace

Result<InputBuffer> readInputFile(const std::string& path, const ReadControl& control,
                                  const InputOptions& options) {
  return readAll(InputStream::openFile(path, control, options), control, options);
}

Result<InputBuffer> loadInputBytes(std::string_view bytes, const std::string& label,
                                   const ReadControl& control, const InputOptions& options) {
  return readAll(InputStream::openBytes(bytes, label, control, options), control, options);
}

}  // namespace ps::trace::import
