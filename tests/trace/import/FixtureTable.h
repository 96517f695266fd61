#pragma once
// The SQLite side of the Nsight Systems fixture (NsysFixture.cpp): a table of the export created
// with the columns the options keep, rows inserted with a value for every column of the full
// schema (the dropped ones are left out), so that tests can remove a table or column at will.

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tests/trace/import/NsysFixture.h"
#include "trace/Result.h"
#include "trace/store/Sqlite.h"

namespace ps::trace::import::testing {

// A value for one column of an INSERT.
class Cell {
 public:
  Cell(std::nullptr_t) {}                                      // NOLINT: NULL
  Cell(std::int64_t v) : kind_(Kind::Int), int_(v) {}          // NOLINT
  Cell(int v) : kind_(Kind::Int), int_(v) {}                   // NOLINT
  Cell(double v) : kind_(Kind::Real), real_(v) {}              // NOLINT
  Cell(std::string_view v) : kind_(Kind::Text), text_(v) {}    // NOLINT
  Cell(const char* v) : kind_(Kind::Text), text_(v) {}         // NOLINT
  Cell(const std::string& v) : kind_(Kind::Text), text_(v) {}  // NOLINT

  void bindTo(SqliteStatement& stmt, int index) const {
    switch (kind_) {
      case Kind::Null:
        stmt.bindNull(index);
        break;
      case Kind::Int:
        stmt.bind(index, int_);
        break;
      case Kind::Real:
        stmt.bind(index, real_);
        break;
      case Kind::Text:
        stmt.bind(index, text_);
        break;
    }
  }

 private:
  enum class Kind { Null, Int, Real, Text };
  Kind kind_ = Kind::Null;
  std::int64_t int_ = 0;
  double real_ = 0;
  std::string_view text_;
};

struct Column {
  const char* name;
  const char* decl;
};

// One table of the export, created with the columns the options keep; insert() takes a value
// for every column of the full schema and drops the ones left out.
class FixtureTable {
 public:
  FixtureTable(SqliteDb& db, std::string name, std::vector<Column> columns,
               const NsysFixtureOptions& options)
      : db_(db), name_(std::move(name)), columns_(std::move(columns)) {
    const auto& drops = options.dropTables;
    dropped_ = std::find(drops.begin(), drops.end(), name_) != drops.end();
    for (std::size_t i = 0; i < columns_.size(); ++i) {
      const bool drop = std::find(options.dropColumns.begin(), options.dropColumns.end(),
                                  std::make_pair(name_, std::string(columns_[i].name))) !=
                        options.dropColumns.end();
      if (!drop) kept_.push_back(i);
    }
  }

  Status create() {
    if (dropped_) return {};
    std::string sql = "CREATE TABLE " + name_ + " (";
    std::string insert = "INSERT INTO " + name_ + " (";
    std::string params;
    for (std::size_t k = 0; k < kept_.size(); ++k) {
      const Column& c = columns_[kept_[k]];
      const char* sep = k == 0 ? "" : ", ";
      sql += std::string(sep) + "\"" + c.name + "\" " + c.decl;
      insert += std::string(sep) + "\"" + c.name + "\"";
      params += std::string(sep) + "?";
    }
    PS_TRY(db_.exec(sql + ")"));
    if (kept_.empty()) return {};
    auto stmt = db_.prepare(insert + ") VALUES (" + params + ")");
    if (!stmt) return std::move(stmt).takeError();
    insert_ = std::move(*stmt);
    return {};
  }

  Status insert(std::initializer_list<Cell> row) {
    if (dropped_ || kept_.empty()) return {};
    if (row.size() != columns_.size())
      return Error{"fixture: " + name_ + " row has " + std::to_string(row.size()) + " values for " +
                   std::to_string(columns_.size()) + " columns"};
    const Cell* cells = row.begin();
    for (std::size_t k = 0; k < kept_.size(); ++k)
      cells[kept_[k]].bindTo(insert_, static_cast<int>(k) + 1);
    return insert_.run();
  }

 private:
  SqliteDb& db_;
  std::string name_;
  std::vector<Column> columns_;
  std::vector<std::size_t> kept_;
  bool dropped_ = false;
  SqliteStatement insert_;
};

}  // namespace ps::trace::import::testing
