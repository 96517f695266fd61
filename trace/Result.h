#pragma once
// Errors are values across layers (DESIGN §7): a Result<T> holds either a value or a one-line
// message meant for a person. GCC 12 has no std::expected, so this is a small one of our own.

#include <string>
#include <utility>
#include <variant>

namespace ps {

// The error side of a Result: a message that names the file/flag/value and the problem.
struct Error {
  std::string message;
};

inline Error makeError(std::string message) {
  return Error{std::move(message)};
}

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value)
      : state_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
  Result(Error error) : state_(std::in_place_index<1>, std::move(error)) {}  // NOLINT

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(state_); }
  const T& value() const& { return std::get<0>(state_); }
  T&& value() && { return std::get<0>(std::move(state_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const std::string& error() const { return std::get<1>(state_).message; }
  Error takeError() && { return std::get<1>(std::move(state_)); }

 private:
  std::variant<T, Error> state_;
};

// Result<void>: success or an error message.
template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error.message)), failed_(true) {}  // NOLINT

  bool ok() const { return !failed_; }
  explicit operator bool() const { return ok(); }
  const std::string& error() const { return error_; }
  Error takeError() && { return Error{std::move(error_)}; }

 private:
  std::string error_;
  bool failed_ = false;
};

using Status = Result<void>;

}  // namespace ps

// Propagates an error out of the calling function: PS_TRY(status_or_result_expression);
#define PS_TRY(expr)                                                      \
  do {                                                                    \
    auto&& ps_try_result_ = (expr);                                       \
    if (!ps_try_result_.ok()) return ::ps::Error{ps_try_result_.error()}; \
  } while (0)
