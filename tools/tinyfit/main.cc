// `tinyfit`: the command line. main() owns the two kinds of failure (STYLE.md):
// user errors come back from a command as a Diag and print as one line with
// exit 1, 2 or 3; our own bugs arrive as InternalError (or any other escaped
// exception) and print "internal error ... (please report)" with exit 70.
#include <array>
#include <exception>
#include <iostream>
#include <new>

#include <CLI/CLI.hpp>
#include <google/protobuf/stubs/logging.h>

#include "commands.h"
#include "support/display_text.h"

namespace tinyfit::tools {
namespace {

// The subcommands, in the order `tinyfit --help` lists them. A new command is
// one file (cmd_<name>.cc) plus one row here.
constexpr std::array kCommands = {
    Command{"info", "operators, shapes, MACs and flash size of a model", setup_info_command},
    Command{"analyze", "memory per step, peak, bottleneck and arena of an execution order",
            setup_analyze_command},
    Command{"compile", "the best plan under an SRAM budget, verified by running it, optionally as C",
            setup_compile_command},
    Command{"pareto", "the memory/latency frontier: arena against predicted instructions, per primitive choice",
            setup_pareto_command},
    Command{"run", "execute a model with the reference interpreter", setup_run_command},
    Command{"zoo", "list the built-in models, or write one as ONNX", setup_zoo_command},
};

int exit_with(const Diag& diag) {
  std::cerr << diag.format() << std::endl;
  return static_cast<int>(diag.code);
}

int report_internal_error(const std::string& what) {
  std::cerr << escape_for_display("tinyfit: internal error: " + what + " (please report)") << std::endl;
  return static_cast<int>(ExitCode::kInternal);
}

int run_main(int argc, char** argv) {
  CLI::App app{"tinyfit: fits neural-network inference into microcontroller SRAM", "tinyfit"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "tinyfit 0.1.0");
  app.footer(
      "MODEL is a .onnx or .tflite file, or zoo:NAME (see `tinyfit zoo list`).\n"
      "Exit codes: 0 ok, 1 bad model or input, 2 bad command line, 3 does not fit, "
      "70 internal error.");

  std::vector<std::pair<CLI::App*, CommandAction>> actions;
  for (const Command& command : kCommands) {
    CLI::App* sub = app.add_subcommand(std::string(command.name), std::string(command.summary));
    actions.emplace_back(sub, command.setup(*sub));
  }

  // CLI11 would say "A subcommand is required" for a mistyped command; name it.
  if (argc > 1 && argv[1][0] != '-') {
    const std::string_view word = argv[1];
    std::string known;
    bool found = false;
    for (const Command& command : kCommands) {
      found = found || command.name == word;
      known += (known.empty() ? "" : ", ") + std::string(command.name);
    }
    if (!found) {
      return exit_with(Diag{ExitCode::kBadCommandLine, {}, {}, {},
                            "unknown command '" + std::string(word) + "' (expected one of " +
                                known + "; see tinyfit --help)"});
    }
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version arrive as "errors" with exit code 0: CLI11 prints them.
    if (e.get_exit_code() == 0) return app.exit(e);
    Diag diag;
    diag.code = ExitCode::kBadCommandLine;
    diag.message = e.what();
    diag.message += " (see tinyfit --help)";
    return exit_with(diag);
  }

  for (auto& [sub, action] : actions) {
    if (!sub->parsed()) continue;
    Status status = action();
    return status ? static_cast<int>(ExitCode::kOk) : exit_with(status.error());
  }
  return exit_with(Diag{ExitCode::kBadCommandLine, {}, {}, {}, "no command given"});
}

}  // namespace
}  // namespace tinyfit::tools

int main(int argc, char** argv) {
  // Importers report malformed protobufs as Diags; libprotobuf's own log lines
  // would break the one-line error contract.
  google::protobuf::SetLogHandler(nullptr);
  try {
    return tinyfit::tools::run_main(argc, argv);
  } catch (const tinyfit::InternalError& e) {
    return tinyfit::tools::report_internal_error(e.what());
  } catch (const std::bad_alloc&) {
    std::cerr << "tinyfit: error: out of memory" << std::endl;
    return static_cast<int>(tinyfit::ExitCode::kBadInput);
  } catch (const std::exception& e) {
    return tinyfit::tools::report_internal_error(e.what());
  } catch (...) {
    return tinyfit::tools::report_internal_error("unknown exception");
  }
}
