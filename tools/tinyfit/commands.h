// The subcommands of `tinyfit`. Each lives in its own cmd_<name>.cc and is one
// row of the table in main.cc: a command adds its options to its CLI11
// subcommand and returns the action main runs once parsing succeeded.
//
// tools/ stays thin: parse, call the layers below, print. An action returns a
// Status; main prints the Diag on one line and exits with its code, so every
// command reports user errors the same way (STYLE.md, error-handling policy).
#pragma once

#include <functional>
#include <string_view>

#include "support/diag.h"

namespace CLI {
class App;
}

namespace tinyfit::tools {

using CommandAction = std::function<Status()>;

struct Command {
  std::string_view name;
  std::string_view summary;  // one line for `tinyfit --help`
  // Declares the options on `app` (the subcommand) and returns the action,
  // which reads the parsed values the options were bound to.
  CommandAction (*setup)(CLI::App& app);
};

CommandAction setup_analyze_command(CLI::App& app);
CommandAction setup_compile_command(CLI::App& app);
CommandAction setup_info_command(CLI::App& app);
CommandAction setup_pareto_command(CLI::App& app);
CommandAction setup_run_command(CLI::App& app);
CommandAction setup_zoo_command(CLI::App& app);

}  // namespace tinyfit::tools
