#pragma once
// The registry entry of Nsight Systems SQLite exports (NsysReader.h).

#include "trace/import/ImportFormat.h"

namespace ps::trace::import {

const ImportFormat& nsysFormat();

}  // namespace ps::trace::import
