#include "runner/cluster/sweep.hpp"

#include <charconv>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "runner/common/atomic_file.hpp"
#include "runner/common/error.hpp"
#include "runner/common/path_text.hpp"
#include "runner/store/samples.hpp"

namespace bb::cluster::sweep {

namespace fs = std::filesystem;

namespace {

constexpr int k_format = 1; ///< sweep.json's "format": what this bankbench writes and reads

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string task_script(const spec& s) {
  std::vector<std::string> run{s.bankbench, "--db", "@DB@", "run", "--shard", "@SHARD@"};
  run.insert(run.end(), s.run_args.begin(), s.run_args.end());
  run.insert(run.end(), s.inputs.begin(), s.inputs.end());
  std::string line = shell_line(run);
  auto put = [&](const std::string& key, const std::string& value) { line.replace(line.find(key), key.size(), value); };
  put("@DB@", "\"$db\"");
  put("@SHARD@", fmt::format("\"$i/{}\"", s.tasks));
  return fmt::format(R"sh(#!/bin/bash
# One task of a bankbench sweep (written by `bankbench slurm submit`): shard $SLURM_ARRAY_TASK_ID
# of {tasks}, into its own database. A task run again starts its shard afresh, so the merge never
# holds a configuration twice. Markers: markers/I.started as it starts; as it ends, with the exit
# code: markers/I.done (bankbench exited 0 or 1: every configuration ran), markers/I.stopped (a
# signal stopped it, exit 128 + N: scancel, a time limit) or markers/I.failed (any other code).
# bankbench runs as a child that this shell waits for: a SIGTERM, SIGINT, SIGHUP or SIGQUIT sent
# to this shell alone is passed on, and the marker is written once bankbench has stored its work.
set -u
sweep={folder}
i="${{SLURM_ARRAY_TASK_ID:?task.sh runs as a task of a Slurm job array}}"
db="$sweep/shards/shard-$i.sqlite"
rm -f "$sweep/markers/$i.done" "$sweep/markers/$i.failed" "$sweep/markers/$i.stopped" "$db" "$db-wal" "$db-shm" \
  "$db-journal"
printf 'job %s task %s host %s gpus %s started %s\n' "${{SLURM_ARRAY_JOB_ID:-${{SLURM_JOB_ID:-}}}}" "$i" \
  "$(hostname)" "${{CUDA_VISIBLE_DEVICES:-}}" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" > "$sweep/markers/$i.started"
{run} &
child=$!
pause=1
for sig in TERM INT HUP QUIT; do trap "pause=0.1; kill -$sig $child 2>/dev/null" "$sig"; done
# Polled rather than waited for: a trap that interrupts `wait` can cost the shell the exit code.
# Once a signal came, more often: Slurm's SIGKILL follows its SIGTERM after KillWait seconds.
while kill -0 "$child" 2>/dev/null; do sleep "$pause"; done
wait "$child"
rc=$?
if [ "$rc" -le 1 ]; then marker=done; elif [ "$rc" -gt 128 ]; then marker=stopped; else marker=failed; fi
printf '%s\n' "$rc" > "$sweep/markers/$i.$marker.tmp" && mv "$sweep/markers/$i.$marker.tmp" "$sweep/markers/$i.$marker"
exit "$rc"
)sh",
                     fmt::arg("tasks", s.tasks), fmt::arg("folder", shell_word(s.folder)), fmt::arg("run", line));
}

std::string merge_script(const spec& s) {
  return fmt::format(R"sh(#!/bin/bash
# The merge job of a bankbench sweep (written by `bankbench slurm submit`): after every task of
# the array ended (afterany), merges the finished shards into merged.sqlite and lists the rest.
exec {cmd}
)sh",
                     fmt::arg("cmd", shell_line({s.bankbench, "slurm", "collect", s.folder})));
}

nlohmann::json to_json(const spec& s) {
  return {{"format", k_format},
          {"tasks", s.tasks},
          {"throttle", s.throttle},
          {"inputs", s.inputs},
          {"run_args", s.run_args},
          {"bankbench", s.bankbench},
          {"gres", s.gres},
          {"partition", s.partition},
          {"time_limit", s.time_limit},
          {"sbatch_args", s.sbatch_args},
          {"created_at", store::utc_now_iso8601()},
          {"submissions", nlohmann::json::array()}};
}

/// Reads sweep.json (load() has checked it), lets `change` edit it, and writes it back atomically.
template <class Change> void update(const std::string& folder, Change change) {
  const fs::path p = fs::path(folder) / "sweep.json";
  auto j = nlohmann::json::parse(read_text(p));
  change(j);
  write_file_atomically(p, j.dump(2) + "\n");
}

} // namespace

std::string shell_line(const std::vector<std::string>& argv) {
  std::string line;
  for (const auto& w : argv) {
    if (!line.empty()) line += ' ';
    line += shell_word(w);
  }
  return line;
}

std::string shard_path(const spec& s, int task) {
  return (fs::path(s.folder) / "shards" / fmt::format("shard-{}.sqlite", task)).string();
}

void create(const spec& s) {
  const fs::path dir(s.folder);
  if (fs::exists(dir / "sweep.json"))
    throw usage_error(fmt::format("{} already holds a sweep; `bankbench slurm status {}` shows it, `resubmit` runs "
                                  "its unfinished tasks; pick a new --sweep folder for a new sweep",
                                  s.folder, s.folder));
  for (const char* sub : {"shards", "markers", "logs"}) fs::create_directories(dir / sub);
  write_file_atomically(dir / "task.sh", task_script(s), file_kind::script);
  write_file_atomically(dir / "merge.sh", merge_script(s), file_kind::script);
  write_file_atomically(dir / "sweep.json", to_json(s).dump(2) + "\n");
}

void remove_unsubmitted(const spec& s, bool created_folder) noexcept {
  const fs::path dir(s.folder);
  std::error_code ec;
  for (const char* file : {"sweep.json", "task.sh", "merge.sh"}) fs::remove(dir / file, ec);
  for (const char* sub : {"shards", "markers", "logs"})
    if (fs::is_empty(dir / sub, ec)) fs::remove(dir / sub, ec);
  if (created_folder && fs::is_empty(dir, ec)) fs::remove(dir, ec);
}

spec load(const std::string& folder) {
  const fs::path dir = fs::absolute(folder);
  const fs::path file = dir / "sweep.json";
  std::error_code ec;
  if (!fs::is_regular_file(file, ec))
    throw usage_error(fmt::format("{}: no sweep.json here; `bankbench slurm submit --sweep {}` makes a sweep folder",
                                  folder, folder));
  const auto text = read_text(file);
  const std::string name = (fs::path(folder) / "sweep.json").string();
  const std::string fix = "it is written by `bankbench slurm submit`: restore it, or submit a new sweep";
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    std::string what = e.what(); // "[json.exception.parse_error.101] parse error at line 1, column 2: ..."
    if (const auto end = what.find("] "); !what.empty() && what[0] == '[' && end != std::string::npos)
      what.erase(0, end + 2);
    throw usage_error(fmt::format("{}: not valid JSON: {}; {}", name, what, fix));
  }
  if (!j.is_object() || !j.contains("tasks"))
    throw usage_error(fmt::format("{}: not a sweep description (no key 'tasks'); {}", name, fix));
  if (const auto format = j.value("format", nlohmann::json(k_format));
      !format.is_number_integer() || format.get<int>() != k_format)
    throw usage_error(fmt::format("{}: format {} (this bankbench reads format {}): written by another bankbench "
                                  "version; use the bankbench that submitted the sweep",
                                  name, format.dump(), k_format));
  // Each key with its type; a wrong one is named with the value found.
  auto get = [&]<typename T>(const char* key, T fallback) -> T {
    if (!j.contains(key)) return fallback;
    try {
      return j.at(key).get<T>();
    } catch (const nlohmann::json::exception&) {
      throw usage_error(fmt::format("{}: key '{}' holds {}, of the wrong type; {}", name, key, j.at(key).dump(), fix));
    }
  };
  spec s;
  s.folder = dir.lexically_normal().string();
  if (!s.folder.empty() && s.folder.back() == '/') s.folder.pop_back();
  s.tasks = get("tasks", 0);
  if (s.tasks < 1 || s.tasks > 100000)
    throw usage_error(fmt::format("{}: key 'tasks' is {}, expected 1 to 100000; {}", name, s.tasks, fix));
  s.throttle = get("throttle", 0);
  s.inputs = get("inputs", std::vector<std::string>{});
  s.run_args = get("run_args", std::vector<std::string>{});
  s.bankbench = get("bankbench", std::string{});
  s.gres = get("gres", std::string{});
  s.partition = get("partition", std::string{});
  s.time_limit = get("time_limit", std::string{});
  s.sbatch_args = get("sbatch_args", std::vector<std::string>{});
  for (const auto& sub : get("submissions", nlohmann::json::array())) {
    if (!sub.is_object() || !sub.contains("array_job") || !sub.at("array_job").is_string())
      throw usage_error(
          fmt::format("{}: a submission without its array job id as a string: {}; {}", name, sub.dump(), fix));
    s.array_jobs.push_back(sub.at("array_job").get<std::string>());
  }
  return s;
}

void record_submission(const std::string& folder, const std::string& array_job, const std::string& merge_job,
                       const std::string& tasks) {
  update(folder, [&](nlohmann::json& j) {
    j["submissions"].push_back(
        {{"array_job", array_job}, {"merge_job", merge_job}, {"tasks", tasks}, {"at", store::utc_now_iso8601()}});
  });
}

void set_time_limit(const std::string& folder, const std::string& time_limit) {
  update(folder, [&](nlohmann::json& j) { j["time_limit"] = time_limit; });
}

std::vector<task_status> scan(const spec& s) {
  std::vector<task_status> out;
  const fs::path markers = fs::path(s.folder) / "markers";
  for (int i = 0; i < s.tasks; ++i) {
    task_status t;
    t.task = i;
    const auto started = markers / fmt::format("{}.started", i);
    if (fs::exists(started)) {
      t.started = read_text(started);
      while (!t.started.empty() && t.started.back() == '\n') t.started.pop_back();
      if (t.started.rfind("job ", 0) == 0) t.job = t.started.substr(4, t.started.find(' ', 4) - 4);
      t.state = task_state::unfinished;
    }
    for (const auto& [name, state] : {std::pair{"done", task_state::done}, std::pair{"failed", task_state::failed},
                                      std::pair{"stopped", task_state::stopped}}) {
      const auto marker = markers / fmt::format("{}.{}", i, name);
      if (!fs::exists(marker)) continue;
      t.state = state;
      const auto code = read_text(marker);
      int rc = -1;
      std::from_chars(code.data(), code.data() + code.size(), rc);
      t.exit_code = rc;
    }
    out.push_back(t);
  }
  return out;
}

std::string array_ranges(const std::vector<int>& tasks) {
  std::string out;
  for (std::size_t i = 0; i < tasks.size();) {
    std::size_t j = i;
    while (j + 1 < tasks.size() && tasks[j + 1] == tasks[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += j == i ? std::to_string(tasks[i]) : fmt::format("{}-{}", tasks[i], tasks[j]);
    i = j + 1;
  }
  return out;
}

std::vector<int> parse_ranges(const std::string& text, int tasks, const std::string& option) {
  std::set<int> out;
  auto bad = [&](const std::string& why) -> std::vector<int> {
    throw usage_error(
        fmt::format("{} '{}': {}; expected task numbers from 0 to {} such as 2,5-7", option, text, why, tasks - 1));
  };
  std::size_t at = 0;
  while (at <= text.size()) {
    const auto comma = text.find(',', at);
    const std::string part = text.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    const auto dash = part.find('-');
    int lo = -1, hi = -1;
    const std::string a = part.substr(0, dash), b = dash == std::string::npos ? a : part.substr(dash + 1);
    if (std::from_chars(a.data(), a.data() + a.size(), lo).ptr != a.data() + a.size() || a.empty() ||
        std::from_chars(b.data(), b.data() + b.size(), hi).ptr != b.data() + b.size() || b.empty())
      return bad("'" + part + "' is not a task number or range");
    if (lo < 0 || hi >= tasks || lo > hi) return bad("'" + part + "' is outside the sweep's tasks");
    for (int t = lo; t <= hi; ++t) out.insert(t);
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return {out.begin(), out.end()};
}

std::vector<std::string> array_command(const spec& s, const std::vector<int>& tasks) {
  std::string array = fmt::format("--array={}", array_ranges(tasks));
  if (s.throttle > 0) array += fmt::format("%{}", s.throttle);
  std::vector<std::string> argv{"sbatch", "--parsable", "--job-name=bankbench-sweep", array,
                                "--output=" + s.folder + "/logs/task-%A_%a.out"};
  if (!s.gres.empty() && s.gres != "none") argv.push_back("--gres=" + s.gres);
  if (!s.partition.empty()) argv.push_back("--partition=" + s.partition);
  if (!s.time_limit.empty()) argv.push_back("--time=" + s.time_limit);
  argv.insert(argv.end(), s.sbatch_args.begin(), s.sbatch_args.end());
  argv.push_back(s.folder + "/task.sh");
  return argv;
}

std::vector<std::string> merge_command(const spec& s, const std::string& array_job) {
  std::vector<std::string> argv{"sbatch", "--parsable", "--job-name=bankbench-merge",
                                "--dependency=afterany:" + array_job, "--output=" + s.folder + "/logs/merge-%j.out"};
  if (!s.partition.empty()) argv.push_back("--partition=" + s.partition);
  argv.insert(argv.end(), s.sbatch_args.begin(), s.sbatch_args.end());
  argv.push_back(s.folder + "/merge.sh");
  return argv;
}

} // namespace bb::cluster::sweep
