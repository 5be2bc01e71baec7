#pragma once
/// `run --lines`: shared-memory wavefronts, ideal wavefronts and executions per SASS instruction
/// and source line, for the configurations the run selects, once they are stored. CUPTI (13.0)
/// instruments one kernel per process (profile/sass_lines.hpp), so the supervisor forks one
/// collecting process per configuration (supervisor.cpp); its body is collect_lines_of().
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "runner/config/experiment.hpp"
#include "runner/profile/sass_lines.hpp"
#include "runner/session/plan.hpp"
#include "runner/store/lines.hpp"

namespace bb::session {

/// Whether `--lines-for` selects configuration `cfg` of `e`: every one where `patterns` is
/// empty; else where any pattern matches. A pattern with '=' is KEY=VALUE, VALUE a shell glob
/// matched against the parameter KEY; any other is a shell glob matched against
/// "EXPERIMENT/VARIANT" and against "VARIANT".
bool lines_selected(const std::vector<std::string>& patterns, const config::experiment& e,
                    const config::configuration& cfg);

/// Whether the run collects the lines of configuration `cfg` of `e`: --lines / --lines-for on the
/// command line, or the experiment's own `lines:`; never with the model.
bool wants_lines(const run_plan& plan, const config::experiment& e, const config::configuration& cfg);

/// The body of a collecting process: narrows CUDA to the plan's device, sets configuration `seq`
/// of `e` up, launches it once plainly and once instrumented, and stores the instructions that
/// touch shared memory as the lines of configuration `seq` of run `run_id`. What goes wrong with
/// the configuration is stored as the collection's status and note. Returns what it stored.
store::line_collection collect_lines_of(const config::experiment& e, int seq, std::int64_t run_id, run_plan plan);

/// SASS opcodes by function and PC, read from `nvdisasm -c` output.
using opcode_map = std::map<std::pair<std::string, std::uint32_t>, std::string>;
opcode_map parse_disassembly(const std::string& nvdisasm_output);

/// The stored form of what CUPTI gave: the instructions that touch shared memory, each with its
/// kind (from which per-kind count is set) and opcode (from `opcodes`, where it has one), and the
/// collection's status: no_records where CUPTI gave none, no_line_info where no instruction has a
/// source line.
store::line_collection lines_of(const std::vector<profile::sass_record>& records, const opcode_map& opcodes);

} // namespace bb::session
