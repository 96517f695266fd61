#include "trace/store/TraceCopy.h"

#include <unistd.h>

#include <filesystem>
#include <system_error>

#include "trace/store/Sqlite.h"
#include "trace/store/TraceStore.h"

namespace ps::trace {
namespace fs = std::filesystem;

namespace {

bool sameFile(const std::string& a, const std::string& b) {
  std::error_code ec;
  return fs::equivalent(a, b, ec) && !ec;
}

bool nonEmpty(const std::string& path) {
  std::error_code ec;
  return fs::exists(path, ec) && fs::file_size(path, ec) > 0 && !ec;
}

// SQL string literal: single quotes doubled.
std::string quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    out += c;
    if (c == '\'') out += '\'';
  }
  return out + "'";
}

// A name in `to`'s folder (so that the rename is atomic) that no other save uses.
std::string temporaryBeside(const std::string& to) {
  const fs::path target(to);
  return (target.parent_path() /
          ("." + target.filename().string() + ".saving-" + std::to_string(::getpid()) + ".sqlite"))
      .string();
}

void removeWithSideFiles(const std::string& path) {
  std::error_code ignored;
  for (const char* suffix : {"", "-journal", "-wal", "-shm"})
    fs::remove(path + suffix, ignored);
}

}  // namespace

Status saveTraceCopy(const std::string& from, const std::string& to) {
  if (sameFile(from, to))
    return Error{to + ": is the trace file being saved; it is saved already (nothing to do)"};
  if (nonEmpty(to + "-wal"))
    return Error{to +
                 ": has a -wal file beside it (open in another program, or its writer was "
                 "stopped); not replaced"};
  auto source = TraceStore::open(from, TraceStore::Mode::ReadOnly);
  if (!source) return std::move(source).takeError();
  if (source->db().immutable())
    return Error{from + ": its -wal cannot be read here, so a copy would miss runs; not saved"};
  const std::string temporary = temporaryBeside(to);
  removeWithSideFiles(temporary);
  if (Status s = source->db().exec("VACUUM INTO " + quoted(temporary)); !s) {
    removeWithSideFiles(temporary);
    return Error{to + ": cannot write the copy: " + s.error()};
  }
  std::error_code ec;
  fs::rename(temporary, to, ec);
  if (ec) {
    removeWithSideFiles(temporary);
    return Error{to + ": cannot replace it with the copy: " + ec.message()};
  }
  // A stale empty -wal or -shm of the replaced file must not be taken for the copy's.
  std::error_code ignored;
  for (const char* suffix : {"-journal", "-wal", "-shm"})
    fs::remove(to + suffix, ignored);
  return {};
}

}  // namespace ps::trace
