// libbankbench-inject.so: what CUDA loads into a program that `bankbench attach` started
// (CUDA_INJECTION64_PATH, entry point InitializeInjection). It watches every kernel launch through
// CUPTI's driver-API callbacks, asks bankbench whether a launch that passes the name and NVTX
// filters is to be profiled, profiles it with the range profiler (auto range, kernel replay: CUPTI
// saves and restores the memory the kernel may write between passes, so the program's results are
// its own) and sends the counters back over the socket bankbench named (runner/attach/protocol.hpp).
//
// Launches are counted by symbol in each process (the launch ordinal). Kernels inside CUDA graphs
// are not profiled: graph launches are counted and reported. Nothing here writes to the program's
// standard output; problems go to bankbench, or to standard error when bankbench cannot be reached.
#include <dlfcn.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <cuda.h>
#include <cupti.h>
#include <nvtx3/nvToolsExt.h>
#include <generated_nvtx_meta.h>
#include <nlohmann/json.hpp>

#include "runner/attach/filter.hpp"
#include "runner/attach/protocol.hpp"
#include "runner/common/error.hpp"
#include "runner/inject/l2_flush.hpp"
#include "runner/profile/cupti_context.hpp"
#include "runner/profile/offline.hpp"
#include "runner/profile/session.hpp"

namespace {

using json = nlohmann::json;
using clock_type = std::chrono::steady_clock;

struct launch_shape {
  unsigned grid[3] = {0, 0, 0}, block[3] = {0, 0, 0};
  unsigned smem = 0;
  CUfunction function = nullptr;
  CUstream stream = nullptr;
  unsigned cluster[3] = {0, 0, 0}; ///< 0: no cluster dimension given
};

/// A launch being profiled by this thread, from its API entry to its exit.
struct pending_launch {
  bool active = false;
  std::string symbol;
  std::uint64_t ordinal = 0;
  launch_shape shape;
  int device = 0;
  bb::profile::session* session = nullptr;
  clock_type::time_point started;
  std::unique_lock<std::mutex> hold; ///< on state::profiling
};

struct state {
  bb::attach::settings settings;
  std::unique_ptr<bb::attach::kernel_filter> names;
  std::vector<bb::attach::nvtx_rule> nvtx_rules;
  bb::attach::nvtx_ranges nvtx;

  std::mutex link_mutex; ///< one message, or one question and its answer, at a time
  std::unique_ptr<bb::attach::channel> link;
  std::atomic<bool> forked{false}; ///< a fork of the program: it sends nothing on the parent's socket

  std::mutex counts_mutex;
  std::map<std::string, std::uint64_t> launches; ///< every launch by symbol, selected or not
  std::map<std::string, bool> name_selected;     ///< --kernel-name's verdict by symbol
  std::uint64_t graph_launches = 0;
  std::uint64_t captured = 0; ///< launches recorded into a graph by stream capture, not run then

  std::atomic<bool> more{true};      ///< bankbench may still grant a launch
  std::atomic<bool> disabled{false}; ///< profiling cannot work in this process
  std::mutex profiling;              ///< held from the entry to the exit of a profiled launch
  std::map<CUcontext, std::unique_ptr<bb::profile::session>> sessions;
  std::set<int> devices_sent;

  std::mutex domains_mutex;
  std::map<const void*, std::string> domains; ///< NVTX domain handles by name

  std::thread warm_up; ///< the profiler's host set-up, started with the program (joined before the first profile)
  double warm_up_ms = 0;
};

state* g = nullptr; // never freed: callbacks may still come while the process exits
thread_local pending_launch t_pending;
thread_local bool t_own_call = false; // inside a CUDA call made here

void say(const char* text) { std::fprintf(stderr, "bankbench-inject[%d]: %s\n", static_cast<int>(getpid()), text); }

bool send(const json& message) {
  if (g == nullptr || g->forked) return false;
  const std::lock_guard lock(g->link_mutex);
  return g->link != nullptr && g->link->send(message);
}

/// Sends a problem that stops profiling in this process; bankbench reports it (exit 3 for
/// `environment`).
void give_up(const std::string& kind, const std::string& message) {
  g->disabled = true;
  if (!send({{"type", "error"}, {"kind", kind}, {"message", message}})) say(message.c_str());
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

std::uint64_t thread_id() { return static_cast<std::uint64_t>(syscall(SYS_gettid)); }

/// bankbench's answer for one launch; false when it cannot be asked.
bool granted(const std::string& symbol, std::uint64_t ordinal) {
  if (g->forked) return false;
  const std::lock_guard lock(g->link_mutex);
  if (g->link == nullptr || !g->link->send({{"type", "ask"}, {"kernel", symbol}, {"ordinal", ordinal}})) return false;
  const auto answer = g->link->receive();
  if (!answer) {
    g->link.reset();
    return false;
  }
  if (!answer->value("more", true)) g->more = false;
  return answer->value("profile", false);
}

std::string uuid_text(const CUuuid& id) {
  const auto* b = reinterpret_cast<const unsigned char*>(id.bytes);
  char buf[64];
  std::snprintf(buf, sizeof buf, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
                b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
  return buf;
}

/// The GPU as `run` stores it (launch/device.cpp), read through the driver.
json describe_device(int ordinal, const std::string& chip) {
  CUdevice dev = 0;
  cuDeviceGet(&dev, ordinal);
  char name[256] = {};
  cuDeviceGetName(name, sizeof name, dev);
  CUuuid uuid{};
  cuDeviceGetUuid(&uuid, dev);
  const auto attribute = [&](CUdevice_attribute a) {
    int v = 0;
    cuDeviceGetAttribute(&v, a, dev);
    return v;
  };
  std::size_t memory = 0;
  cuDeviceTotalMem(&memory, dev);
  int driver = 0;
  cuDriverGetVersion(&driver);
  return {{"type", "device"},
          {"ordinal", ordinal},
          {"uuid", uuid_text(uuid)},
          {"name", name},
          {"chip", chip},
          {"cc_major", attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)},
          {"cc_minor", attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)},
          {"sm_count", attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)},
          {"memory_bytes", memory},
          {"l2_bytes", attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)},
          {"sm_clock_max_mhz", attribute(CU_DEVICE_ATTRIBUTE_CLOCK_RATE) / 1000},
          {"mem_clock_max_mhz", attribute(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE) / 1000},
          {"cuda_driver_version", driver}};
}

/// cuLaunchKernel's and cuLaunchCooperativeKernel's parameters name their fields alike.
template <class Params> launch_shape plain_shape(const Params* p) {
  return {{p->gridDimX, p->gridDimY, p->gridDimZ},
          {p->blockDimX, p->blockDimY, p->blockDimZ},
          p->sharedMemBytes,
          p->f,
          p->hStream};
}

/// The launch's shape from the API's parameters; false for an API that launches no single kernel.
bool shape_of(CUpti_CallbackId id, const void* params, launch_shape& s) {
  switch (id) {
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
    s = plain_shape(static_cast<const cuLaunchKernel_params*>(params));
    return true;
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
    s = plain_shape(static_cast<const cuLaunchCooperativeKernel_params*>(params));
    return true;
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
    const auto* p = static_cast<const cuLaunchKernelEx_params*>(params);
    const CUlaunchConfig* c = p->config;
    if (c == nullptr) return false;
    s = {{c->gridDimX, c->gridDimY, c->gridDimZ},
         {c->blockDimX, c->blockDimY, c->blockDimZ},
         c->sharedMemBytes,
         p->f,
         c->hStream};
    for (unsigned a = 0; a < c->numAttrs; ++a)
      if (c->attrs[a].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
        s.cluster[0] = c->attrs[a].value.clusterDim.x;
        s.cluster[1] = c->attrs[a].value.clusterDim.y;
        s.cluster[2] = c->attrs[a].value.clusterDim.z;
      }
    return true;
  }
  default: return false;
  }
}

bool is_graph_launch(CUpti_CallbackId id) {
  return id == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch || id == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz;
}

bb::profile::session* session_for(CUcontext ctx, int device) {
  auto& s = g->sessions[ctx];
  if (s == nullptr) {
    const auto t0 = clock_type::now();
    if (g->warm_up.joinable()) g->warm_up.join();
    const double waited = std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
    s = bb::profile::session::create(device, ctx, g->settings.metrics);
    s->set_single_pass_user_replay(env("BANKBENCH_ATTACH_REPLAY") == "user");
    const double setup = std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
    if (g->devices_sent.insert(device).second) {
      json d = describe_device(device, s->chip());
      d["setup_ms"] = setup;
      d["warm_up_ms"] = g->warm_up_ms;
      d["warm_up_wait_ms"] = waited;
      d["passes"] = s->passes();
      send(d);
    }
    if (!s->absent().empty()) {
      json absent = s->absent();
      send({{"type", "absent"}, {"device", device}, {"metrics", absent}});
    }
  }
  return s.get();
}

void on_launch_enter(CUpti_CallbackId id, const CUpti_CallbackData* cb) {
  launch_shape shape;
  if (!shape_of(id, cb->functionParams, shape)) return;
  std::string symbol = cb->symbolName != nullptr ? cb->symbolName : "";
  if (symbol.empty() && shape.function != nullptr) {
    const char* name = nullptr;
    if (cuFuncGetName(&name, shape.function) == CUDA_SUCCESS && name != nullptr) symbol = name;
  }
  if (symbol.empty()) symbol = "(unnamed kernel)";

  // A launch into a capturing stream is recorded into a graph, not run: not a launch of the kernel,
  // and profiling it (a device synchronisation) would break the capture.
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  t_own_call = true;
  const bool capturing = cuStreamIsCapturing(shape.stream, &capture) == CUDA_SUCCESS &&
                         capture != CU_STREAM_CAPTURE_STATUS_NONE;
  t_own_call = false;
  if (capturing) {
    const std::lock_guard lock(g->counts_mutex);
    ++g->captured;
    return;
  }

  std::uint64_t ordinal = 0;
  bool by_name = false;
  {
    const std::lock_guard lock(g->counts_mutex);
    ordinal = g->launches[symbol]++;
    const auto [it, fresh] = g->name_selected.try_emplace(symbol, false);
    if (fresh) it->second = g->names->matches(bb::attach::base_name(bb::attach::demangle(symbol)));
    by_name = it->second;
  }
  // Another thread's launch must not fall inside a profiled range: wait for it to end.
  std::unique_lock hold(g->profiling);
  if (!by_name || !g->more || g->disabled || !g->nvtx.selected(thread_id(), g->nvtx_rules)) return;
  if (!granted(symbol, ordinal)) return;

  CUdevice device = 0;
  t_own_call = true;
  try {
    if (cuCtxGetDevice(&device) != CUDA_SUCCESS) throw bb::api_error("cannot tell the launching context's device");
    bb::profile::session* s = session_for(cb->context, static_cast<int>(device));
    // What the program launched before runs out first, so the range holds this launch alone.
    bb::profile::synchronize_device("the program's earlier work failed");
    if (g->settings.flush_l2) bb::inject::flush_l2(cb->context); // as `run` and Nsight Compute do
    s->begin_launch();
    t_pending = {true, symbol, ordinal, shape, static_cast<int>(device), s, clock_type::now(), std::move(hold)};
  } catch (const bb::error& e) {
    t_own_call = false;
    if (e.code() == bb::exit_code::environment || e.code() == bb::exit_code::usage)
      give_up(e.code() == bb::exit_code::usage ? "usage" : "environment", e.what());
    else
      send({{"type", "failed"}, {"kernel", symbol}, {"ordinal", ordinal}, {"message", e.what()}});
    return;
  }
  t_own_call = false;
}

json shape_json(const launch_shape& s) {
  json j = {{"grid", {s.grid[0], s.grid[1], s.grid[2]}},
            {"block", {s.block[0], s.block[1], s.block[2]}},
            {"smem", s.smem}};
  if (s.cluster[0] != 0) j["cluster"] = {s.cluster[0], s.cluster[1], s.cluster[2]};
  return j;
}

void on_launch_exit(const CUpti_CallbackData* cb) {
  pending_launch p = std::move(t_pending);
  t_pending = {};
  json message = shape_json(p.shape);
  message["kernel"] = p.symbol;
  message["ordinal"] = p.ordinal;
  message["device"] = p.device;
  const auto result = cb->functionReturnValue != nullptr ? *static_cast<const CUresult*>(cb->functionReturnValue)
                                                         : CUDA_SUCCESS;
  t_own_call = true;
  try {
    if (result != CUDA_SUCCESS) {
      const char* name = "unknown error";
      cuGetErrorName(result, &name);
      p.session->end_launch(); // leaves the profiler ready for the next launch, or throws
      throw bb::api_error(std::string("the launch itself failed: ") + name);
    }
    auto ranges = p.session->end_launch();
    message["type"] = "launch";
    message["ranges"] = ranges.size();
    message["values"] = ranges.empty() ? json::object() : json(ranges.front());
    message["profile_ms"] = std::chrono::duration<double, std::milli>(clock_type::now() - p.started).count();
    message["breakdown"] = p.session->last_breakdown();
  } catch (const bb::error& e) {
    message["type"] = "failed";
    message["message"] = e.what();
  }
  t_own_call = false;
  send(message);
}

const char* nvtx_message(const nvtxEventAttributes_t* a) {
  if (a == nullptr || a->messageType != NVTX_MESSAGE_TYPE_ASCII || a->message.ascii == nullptr) return "";
  return a->message.ascii;
}

std::string domain_name(nvtxDomainHandle_t d) {
  const std::lock_guard lock(g->domains_mutex);
  const auto it = g->domains.find(d);
  return it == g->domains.end() ? "" : it->second;
}

void on_nvtx(CUpti_CallbackId id, const CUpti_NvtxData* d) {
  const std::uint64_t tid = thread_id();
  switch (id) {
  case CUPTI_CBID_NVTX_nvtxRangePushA:
    g->nvtx.push(tid, "", static_cast<const nvtxRangePushA_params*>(d->functionParams)->message);
    break;
  case CUPTI_CBID_NVTX_nvtxRangePushEx:
    g->nvtx.push(tid, "", nvtx_message(static_cast<const nvtxRangePushEx_params*>(d->functionParams)->eventAttrib));
    break;
  case CUPTI_CBID_NVTX_nvtxRangePop: g->nvtx.pop(tid, ""); break;
  case CUPTI_CBID_NVTX_nvtxDomainRangePushEx: {
    const auto* p = static_cast<const nvtxDomainRangePushEx_params*>(d->functionParams);
    g->nvtx.push(tid, domain_name(p->domain), nvtx_message(p->core.eventAttrib));
    break;
  }
  case CUPTI_CBID_NVTX_nvtxDomainRangePop:
    g->nvtx.pop(tid, domain_name(static_cast<const nvtxDomainRangePop_params*>(d->functionParams)->domain));
    break;
  case CUPTI_CBID_NVTX_nvtxRangeStartA:
    if (d->functionReturnValue != nullptr)
      g->nvtx.start(*static_cast<const nvtxRangeId_t*>(d->functionReturnValue), "",
                    static_cast<const nvtxRangeStartA_params*>(d->functionParams)->message);
    break;
  case CUPTI_CBID_NVTX_nvtxRangeStartEx:
    if (d->functionReturnValue != nullptr)
      g->nvtx.start(*static_cast<const nvtxRangeId_t*>(d->functionReturnValue), "",
                    nvtx_message(static_cast<const nvtxRangeStartEx_params*>(d->functionParams)->eventAttrib));
    break;
  case CUPTI_CBID_NVTX_nvtxDomainRangeStartEx: {
    const auto* p = static_cast<const nvtxDomainRangeStartEx_params*>(d->functionParams);
    if (d->functionReturnValue != nullptr)
      g->nvtx.start(*static_cast<const nvtxRangeId_t*>(d->functionReturnValue), domain_name(p->domain),
                    nvtx_message(p->core.eventAttrib));
    break;
  }
  case CUPTI_CBID_NVTX_nvtxRangeEnd: g->nvtx.end(static_cast<const nvtxRangeEnd_params*>(d->functionParams)->id); break;
  case CUPTI_CBID_NVTX_nvtxDomainRangeEnd:
    g->nvtx.end(static_cast<const nvtxDomainRangeEnd_params*>(d->functionParams)->core.id);
    break;
  case CUPTI_CBID_NVTX_nvtxDomainCreateA:
    if (d->functionReturnValue != nullptr) {
      const auto* p = static_cast<const nvtxDomainCreateA_params*>(d->functionParams);
      const std::lock_guard lock(g->domains_mutex);
      g->domains[*static_cast<void* const*>(d->functionReturnValue)] = p->name != nullptr ? p->name : "";
    }
    break;
  default: break;
  }
}

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void* data) {
  if (g == nullptr || g->forked || t_own_call) return;
  if (domain == CUPTI_CB_DOMAIN_NVTX) {
    on_nvtx(id, static_cast<const CUpti_NvtxData*>(data));
    return;
  }
  if (domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
  const auto* cb = static_cast<const CUpti_CallbackData*>(data);
  if (is_graph_launch(id)) {
    if (cb->callbackSite == CUPTI_API_ENTER) {
      const std::lock_guard lock(g->counts_mutex);
      ++g->graph_launches;
    }
    return;
  }
  if (cb->callbackSite == CUPTI_API_ENTER) {
    if (!t_pending.active) on_launch_enter(id, cb);
  } else if (t_pending.active) {
    on_launch_exit(cb);
  }
}

void send_summary() {
  if (g == nullptr || g->forked) return;
  json launches = json::object();
  std::uint64_t graphs = 0, captured = 0;
  {
    const std::lock_guard lock(g->counts_mutex);
    for (const auto& [symbol, n] : g->launches) launches[symbol] = n;
    graphs = g->graph_launches;
    captured = g->captured;
  }
  send({{"type", "summary"}, {"launches", launches}, {"graph_launches", graphs}, {"captured", captured}});
}

void forget_link_in_child() {
  // A fork (a DataLoader worker) shares the parent's socket: it must never write to it.
  if (g != nullptr) g->forked = true;
}

/// The rank a launcher gave this process, where one did.
std::string rank_of_process() {
  for (const char* name : {"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID", "LOCAL_RANK"})
    if (const std::string v = env(name); !v.empty()) return v;
  return "";
}

std::unique_ptr<bb::attach::channel> connect_to(const std::string& path) {
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return nullptr;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof addr.sun_path) {
    close(fd);
    return nullptr;
  }
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  if (connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);
    return nullptr;
  }
  return std::make_unique<bb::attach::channel>(fd);
}

bool subscribe() {
  CUpti_SubscriberHandle subscriber = nullptr;
  if (const CUptiResult r = cuptiSubscribe(&subscriber, on_callback, nullptr); r != CUPTI_SUCCESS) {
    const char* text = "unknown CUPTI error";
    cuptiGetResultString(r, &text);
    give_up(r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED ? "environment" : "internal",
            r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
                ? "another profiler already holds CUPTI in the program (Nsight Compute or Nsight Systems attached?); "
                  "run it under bankbench attach alone"
                : std::string("cuptiSubscribe failed: ") + text);
    return false;
  }
  for (const CUpti_CallbackId id :
       {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz})
    cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id);
  if (!g->nvtx_rules.empty()) cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_NVTX);
  return true;
}

/// The profiler's host side (CUPTI's profiler and metric tables for the chip) set up while the
/// program goes on, so the first profiled launch does not pay for it. Joined before any session.
void start_warm_up() {
  g->warm_up = std::thread([] {
    const auto t0 = clock_type::now();
    try {
      t_own_call = true;
      bb::profile::ensure_initialized();
      bb::profile::check_offline(bb::profile::chip_name(0), g->settings.metrics);
    } catch (const std::exception&) {
      // The first profiled launch sets up again and says what is wrong.
    }
    g->warm_up_ms = std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
  });
}

} // namespace

/// NVTX's injection entry point (NVTX_INJECTION64_PATH names this library when --nvtx-include is
/// given): handed on to the CUPTI this library is linked with, which may not be the toolkit's
/// (PyTorch brings its own libcupti), so that NVTX ranges reach the subscriber watching launches.
extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(const void* get_export_table) {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&cuptiSubscribe), &info) == 0 || info.dli_fname == nullptr) return 0;
  void* cupti = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
  if (cupti == nullptr) return 0;
  using entry = int (*)(const void*);
  const auto forward = reinterpret_cast<entry>(dlsym(cupti, "InitializeInjectionNvtx2"));
  return forward != nullptr ? forward(get_export_table) : 0;
}

extern "C" __attribute__((visibility("default"))) int InitializeInjection() {
  if (g != nullptr) return 1;
  const std::string socket_path = env(bb::attach::k_env_socket);
  if (socket_path.empty()) {
    say("CUDA_INJECTION64_PATH names bankbench's library but BANKBENCH_ATTACH_SOCKET is not set: start the program "
        "with `bankbench attach -- PROGRAM`; nothing is profiled");
    return 1;
  }
  auto* s = new state();
  try {
    s->settings = bb::attach::settings::from_json(env(bb::attach::k_env_settings));
    s->names = std::make_unique<bb::attach::kernel_filter>(s->settings.kernel_regex);
    for (const auto& rule : s->settings.nvtx_include) s->nvtx_rules.push_back(bb::attach::nvtx_rule::parse(rule));
  } catch (const bb::error& e) {
    say(e.what());
    delete s;
    return 1;
  }
  s->link = connect_to(socket_path);
  if (s->link == nullptr) {
    say(("cannot reach bankbench at " + socket_path + " (it has exited?); nothing is profiled").c_str());
    delete s;
    return 1;
  }
  g = s;
  const bool followed = !g->settings.application_only || env(bb::attach::k_env_root_pid) == std::to_string(getpid());
  send({{"type", "hello"},
        {"pid", getpid()},
        {"parent", getppid()},
        {"rank", rank_of_process()},
        {"followed", followed}});
  if (!followed) {
    const std::lock_guard lock(g->link_mutex);
    g->link.reset();
    return 1;
  }
  pthread_atfork(nullptr, nullptr, forget_link_in_child);
  if (subscribe()) {
    std::atexit(send_summary);
    start_warm_up();
  }
  return 1;
}
