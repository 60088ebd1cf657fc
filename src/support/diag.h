// Diagnostics and the two kinds of failure (STYLE.md, "Error-handling policy").
//
// User errors (bad model, bad flag, does not fit) are values: Result<T> carries a
// Diag back to the edge, which prints it on one line and exits with its code.
// Our own bugs are exceptions: TINYFIT_CHECK throws InternalError, which only
// main() catches ("internal error ... (please report)", exit 70).
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include <tl/expected.hpp>

namespace tinyfit {

// Process exit codes (DESIGN.md).
enum class ExitCode : int {
  kOk = 0,
  kBadInput = 1,     // bad model or input file
  kBadCommandLine = 2,
  kDoesNotFit = 3,   // plan exceeds the memory budget
  kInternal = 70,
};

// One user-facing problem. Formats as
//   tinyfit: error: <file>: node '<node>' (<op>): <message>
// where the file and node parts are omitted when empty, and every byte that is
// not printable text is escaped (support/display_text.h): names in it come
// from model files.
struct Diag {
  ExitCode code = ExitCode::kBadInput;
  std::string file;
  std::string node;
  std::string op;
  std::string message;

  // "error" for failures; "note" for a one-line notice of an assumption the
  // compiler made (a symbolic batch dimension taken as 1).
  std::string format(std::string_view severity = "error") const;
};

template <typename T>
using Result = tl::expected<T, Diag>;
using Status = tl::expected<void, Diag>;

// Builds an unexpected Diag in one expression:
//   return fail("tensor 'x' has rank 7, expected at most 6");
inline tl::unexpected<Diag> fail(std::string message, ExitCode code = ExitCode::kBadInput) {
  return tl::unexpected<Diag>(Diag{code, {}, {}, {}, std::move(message)});
}
inline tl::unexpected<Diag> fail_at_node(std::string node, std::string op, std::string message,
                                         ExitCode code = ExitCode::kBadInput) {
  return tl::unexpected<Diag>(Diag{code, {}, std::move(node), std::move(op), std::move(message)});
}

// Thrown by TINYFIT_CHECK: a broken invariant inside the compiler (our bug).
class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

namespace detail {
// Collects the streamed context of a failed check, then throws from its
// destructor (the full expression has been evaluated by then).
class CheckFailure {
 public:
  CheckFailure(const char* file, int line, const char* condition) {
    stream_ << file << ":" << line << ": check failed: " << condition << " ";
  }
  [[noreturn]] ~CheckFailure() noexcept(false) { throw InternalError(stream_.str()); }
  template <typename T>
  CheckFailure& operator<<(const T& value) {
    stream_ << value;
    return *this;
  }

 private:
  std::ostringstream stream_;
};
}  // namespace detail

}  // namespace tinyfit

// Stays on in release builds: the host can afford it.
#define TINYFIT_CHECK(cond) \
  if (cond) {               \
  } else                    \
    ::tinyfit::detail::CheckFailure(__FILE__, __LINE__, #cond)

// Unwraps a Result inside a function that itself returns a Result/Status.
#define TINYFIT_TRY_CONCAT_INNER(a, b) a##b
#define TINYFIT_TRY_CONCAT(a, b) TINYFIT_TRY_CONCAT_INNER(a, b)
#define TINYFIT_ASSIGN_OR_RETURN(lhs, expr)                                         \
  auto TINYFIT_TRY_CONCAT(tinyfit_result_, __LINE__) = (expr);                     \
  if (!TINYFIT_TRY_CONCAT(tinyfit_result_, __LINE__))                              \
    return ::tl::unexpected(std::move(TINYFIT_TRY_CONCAT(tinyfit_result_, __LINE__)).error()); \
  lhs = std::move(*TINYFIT_TRY_CONCAT(tinyfit_result_, __LINE__))
#define TINYFIT_RETURN_IF_ERROR(expr)                                  \
  do {                                                                 \
    auto tinyfit_status_ = (expr);                                     \
    if (!tinyfit_status_) return ::tl::unexpected(std::move(tinyfit_status_).error()); \
  } while (0)
