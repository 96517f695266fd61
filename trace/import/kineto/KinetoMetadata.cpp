#include "trace/import/kineto/KinetoMetadata.h"

#include <simdjson.h>

#include <utility>

#include <limits>

#include "trace/import/kineto/KinetoNumber.h"
#include "trace/import/kineto/KinetoScanner.h"

namespace ps::trace::import {

namespace od = simdjson::ondemand;

namespace {

std::optional<int> toInt(std::optional<std::int64_t> v) {
  if (!v || *v < std::numeric_limits<int>::min() || *v > std::numeric_limits<int>::max())
    return std::nullopt;
  return static_cast<int>(*v);
}

std::optional<std::int64_t> integerOf(od::value& value) {
  return parseInteger(value.raw_json_token());
}

// The value being read: its window (`data`, content offset `offset`) and where in it it starts.
struct MetadataValueAt {
  const char* data;
  std::size_t begin;
  std::uint64_t offset;
};

Error jsonError(simdjson::error_code code, const char* location, const MetadataValueAt& where) {
  const std::size_t at =
      location != nullptr ? static_cast<std::size_t>(location - where.data) : where.begin;
  return KinetoScanner::errorAt(where.offset + at, simdjson::error_message(code));
}

template <typename Doc>
Error docError(simdjson::error_code code, Doc& doc, const MetadataValueAt& where) {
  const char* location = nullptr;
  if (doc.current_location().get(location) != simdjson::SUCCESS) location = nullptr;
  return jsonError(code, location, where);
}

Status readDistributedInfo(od::document& doc, const MetadataValueAt& where, KinetoMetadata& meta) {
  od::object object;
  if (doc.get_object().get(object) != simdjson::SUCCESS) return {};  // not an object: ignore
  for (auto fieldResult : object) {
    od::field field;
    if (auto error = std::move(fieldResult).get(field)) return docError(error, doc, where);
    const auto key = field.key();
    if (key.unsafe_is_equal("rank")) {
      meta.rank = toInt(integerOf(field.value()));
    } else if (key.unsafe_is_equal("world_size")) {
      meta.worldSize = toInt(integerOf(field.value()));
    }
  }
  return {};
}

Status readDeviceProperties(od::document& doc, const MetadataValueAt& where, KinetoMetadata& meta) {
  od::array array;
  if (doc.get_array().get(array) != simdjson::SUCCESS) return {};
  for (auto elementResult : array) {
    od::value element;
    if (auto error = std::move(elementResult).get(element)) return docError(error, doc, where);
    od::object object;
    if (element.get_object().get(object) != simdjson::SUCCESS) continue;
    KinetoDeviceInfo device;
    for (auto fieldResult : object) {
      od::field field;
      if (auto error = std::move(fieldResult).get(field)) return docError(error, doc, where);
      const auto key = field.key();
      if (key.unsafe_is_equal("id")) {
        device.id = integerOf(field.value()).value_or(-1);
      } else if (key.unsafe_is_equal("name")) {
        std::string_view name;
        if (field.value().get_string().get(name) == simdjson::SUCCESS) device.name = name;
      } else if (key.unsafe_is_equal("totalGlobalMem")) {
        device.totalGlobalMem = integerOf(field.value());
      } else if (key.unsafe_is_equal("computeMajor")) {
        device.computeMajor = integerOf(field.value());
      } else if (key.unsafe_is_equal("computeMinor")) {
        device.computeMinor = integerOf(field.value());
      }
    }
    meta.devices.push_back(std::move(device));
  }
  return {};
}

}  // namespace

bool isKinetoMetadataKey(std::string_view key) {
  return key == "distributedInfo" || key == "deviceProperties" || key == "baseTimeNanoseconds" ||
         key == "hostname" || key == "host_name" || key == "hostName";
}

Status readKinetoMetadataValue(std::string_view key, const char* data, std::size_t begin,
                               std::size_t end, std::size_t available, std::uint64_t offset,
                               KinetoMetadata& meta) {
  const MetadataValueAt where{data, begin, offset};
  const std::string_view text(data + begin, end - begin);
  if (key == "baseTimeNanoseconds") {
    meta.baseTimeNs = parseInteger(text);
    return {};
  }
  od::parser parser;
  od::document doc;
  const simdjson::padded_string_view view(data + begin, end - begin, available - begin);
  if (auto error = parser.iterate(view).get(doc)) return jsonError(error, nullptr, where);
  if (key == "distributedInfo") return readDistributedInfo(doc, where, meta);
  if (key == "deviceProperties") return readDeviceProperties(doc, where, meta);
  // hostname and its spellings
  std::string_view host;
  if (doc.get_string().get(host) == simdjson::SUCCESS && !host.empty()) meta.host = host;
  return {};
}

}  // namespace ps::trace::import
