#pragma once
// The tables and columns of an Nsight Systems 2024.6 SQLite export, as the fixture writes them
// (NsysFixture.cpp): the full schema of every table the reader looks at.

#include <string_view>
#include <vector>

#include "tests/trace/import/FixtureTable.h"

namespace ps::trace::import::testing {

// The columns of `table` (empty for a table the fixture does not write).
const std::vector<Column>& nsysFixtureColumns(std::string_view table);

}  // namespace ps::trace::import::testing
