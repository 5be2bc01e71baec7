#include "runner/profile/sass_lines.hpp"

#include <algorithm>
#include <cstdlib>
#include <mutex>

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti.h>
#include <cupti_pcsampling.h>
#include <cupti_sass_metrics.h>
#include <cupti_target.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "runner/common/error.hpp"
#include "runner/profile/cupti_call.hpp"
#include "runner/profile/cupti_context.hpp"
#include "runner/profile/session.hpp"

namespace bb::profile {

namespace {

// Cubins by CUPTI CRC, kept as their modules load (the callback runs on the loading thread). One
// CRC can stand for several cubins: CUPTI 13.0 gave two NVRTC cubins of one template (tile<0> and
// tile<1>, 17,800 bytes each) the same CRC, so every cubin is kept and a record's is found by the
// function it names (cubin_of).
std::mutex g_cubins_mutex;
std::map<std::uint32_t, std::vector<std::vector<char>>> g_cubins;

// Whether `cubin` holds a symbol named `function`: its name, NUL-terminated, in a string table.
bool holds_symbol(const std::vector<char>& cubin, const std::string& function) {
  if (function.empty()) return false;
  const std::string needle = function + '\0';
  for (auto at = cubin.begin(); (at = std::search(at, cubin.end(), needle.begin(), needle.end())) != cubin.end(); ++at)
    if (at == cubin.begin() || *(at - 1) == '\0') return true;
  return false;
}

void CUPTIAPI on_resource(void*, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void* data) {
  if (domain != CUPTI_CB_DOMAIN_RESOURCE || id != CUPTI_CBID_RESOURCE_MODULE_LOADED || data == nullptr) return;
  const auto* resource = static_cast<const CUpti_ResourceData*>(data);
  const auto* module = static_cast<const CUpti_ModuleResourceData*>(resource->resourceDescriptor);
  if (module == nullptr || module->pCubin == nullptr || module->cubinSize == 0) return;
  CUpti_GetCubinCrcParams p{CUpti_GetCubinCrcParamsSize, 0, nullptr, 0};
  p.cubinSize = module->cubinSize;
  p.cubin = module->pCubin;
  if (cuptiGetCubinCrc(&p) != CUPTI_SUCCESS) return;
  std::vector<char> cubin(module->pCubin, module->pCubin + module->cubinSize);
  const std::lock_guard lock(g_cubins_mutex);
  auto& same_crc = g_cubins[p.cubinCrc];
  if (std::find(same_crc.begin(), same_crc.end(), cubin) == same_crc.end()) same_crc.push_back(std::move(cubin));
}

// The file and line of `pc` in `function` of `cubin`; empty where the cubin has no line info.
std::pair<std::string, int> source_of(const std::vector<char>& cubin, const std::string& function, std::uint32_t pc) {
  CUpti_GetSassToSourceCorrelationParams p{};
  p.size = CUpti_GetSassToSourceCorrelationParamsSize;
  p.cubin = cubin.data();
  p.cubinSize = cubin.size();
  p.functionName = function.c_str();
  p.pcOffset = pc;
  if (cuptiGetSassToSourceCorrelation(&p) != CUPTI_SUCCESS) return {"", 0};
  std::string file = p.fileName != nullptr ? p.fileName : "";
  const std::string dir = p.dirName != nullptr ? p.dirName : "";
  std::free(p.fileName);
  std::free(p.dirName);
  if (!file.empty() && file.front() != '/' && !dir.empty()) file = dir + "/" + file;
  return {file, static_cast<int>(p.lineNumber)};
}

} // namespace

void sass_lines::watch_modules() {
  static CUpti_SubscriberHandle subscriber = nullptr;
  if (subscriber != nullptr) return;
  BB_CUPTI_CALL(cuptiSubscribe(&subscriber, reinterpret_cast<CUpti_CallbackFunc>(on_resource), nullptr));
  BB_CUPTI_CALL(cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_LOADED));
}

const std::vector<char>* sass_lines::cubin_of(std::uint32_t crc, const std::string& function) {
  const std::lock_guard lock(g_cubins_mutex);
  const auto it = g_cubins.find(crc);
  if (it == g_cubins.end()) return nullptr;
  for (const auto& cubin : it->second)
    if (holds_symbol(cubin, function)) return &cubin;
  return it->second.size() == 1 ? &it->second.front() : nullptr; // never another kernel's lines
}

const std::vector<std::string>& sass_lines::metric_names() {
  static const std::vector<std::string> names{
      "smsp__sass_inst_executed_op_shared",
      "smsp__sass_thread_inst_executed_op_shared_pred_on",
      "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared",
      "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal",
      "smsp__sass_inst_executed_op_shared_ld",
      "smsp__sass_inst_executed_op_shared_st",
      "smsp__sass_inst_executed_op_shared_atom",
      "smsp__sass_inst_executed_op_ldsm",
      "smsp__sass_inst_executed_op_shared_stsm",
      "smsp__sass_inst_executed_op_ldgsts",
      "smsp__sass_thread_inst_executed_op_ldgsts_pred_on",
      "smsp__sass_inst_executed_op_shared_gmma",
  };
  return names;
}

std::unique_ptr<sass_lines> sass_lines::begin(int device) {
  std::unique_ptr<sass_lines> s(new sass_lines());
  s->m_device = device;
  ensure_initialized();
  s->m_chip = chip_name(device);
  s->m_ctx = current_context();

  CUpti_SassMetrics_GetNumOfMetrics_Params count{CUpti_SassMetrics_GetNumOfMetrics_Params_STRUCT_SIZE, nullptr};
  count.pChipName = s->m_chip.c_str();
  if (const CUptiResult r = cuptiSassMetricsGetNumOfMetrics(&count); r != CUPTI_SUCCESS || count.numOfMetrics == 0) {
    const char* text = nullptr;
    cuptiGetResultString(r, &text);
    throw environment_error(fmt::format("CUPTI's SASS metrics are not available on {} ({}): per-line data needs "
                                        "CUDA 12.4 or newer and a GPU of compute capability 7.0 or newer",
                                        s->m_chip, text != nullptr ? text : "no metrics"));
  }
  std::vector<CUpti_SassMetrics_Config> configs;
  for (const auto& name : metric_names()) {
    CUpti_SassMetrics_GetProperties_Params p{CUpti_SassMetrics_GetProperties_Params_STRUCT_SIZE, nullptr};
    p.pChipName = s->m_chip.c_str();
    p.pMetricName = name.c_str();
    if (cuptiSassMetricsGetProperties(&p) != CUPTI_SUCCESS) {
      spdlog::debug("lines: {} has no SASS metric {}", s->m_chip, name);
      continue;
    }
    configs.push_back({p.metric.metricId, CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU});
    s->m_names[p.metric.metricId] = name;
  }
  CUpti_SassMetricsSetConfig_Params set{CUpti_SassMetricsSetConfig_Params_STRUCT_SIZE, nullptr};
  set.numOfMetricConfig = configs.size();
  set.pConfigs = configs.data();
  set.deviceIndex = static_cast<std::uint32_t>(device);
  BB_CUPTI_CALL(cuptiSassMetricsSetConfig(&set));
  s->m_configured = true;
  CUpti_SassMetricsEnable_Params enable{CUpti_SassMetricsEnable_Params_STRUCT_SIZE, nullptr};
  enable.ctx = static_cast<CUcontext>(s->m_ctx);
  enable.enableLazyPatching = 1; // without it, CUPTI 13.0 instrumented nothing (H100)
  BB_CUPTI_CALL(cuptiSassMetricsEnable(&enable));
  s->m_enabled = true;
  return s;
}

std::vector<sass_record> sass_lines::end() {
  if (cudaDeviceSynchronize() != cudaSuccess) throw api_error("the instrumented launch failed");
  CUpti_SassMetricsGetDataProperties_Params props{CUpti_SassMetricsGetDataProperties_Params_STRUCT_SIZE, nullptr};
  props.ctx = static_cast<CUcontext>(m_ctx);
  BB_CUPTI_CALL(cuptiSassMetricsGetDataProperties(&props));
  std::vector<sass_record> out;
  if (props.numOfPatchedInstructionRecords > 0 && props.numOfInstances > 0) {
    const std::size_t n = props.numOfPatchedInstructionRecords;
    const std::size_t per_record = props.numOfInstances * m_names.size();
    std::vector<CUpti_SassMetrics_Data> data(n);
    std::vector<CUpti_SassMetrics_InstanceValue> values(n * per_record);
    for (std::size_t i = 0; i < n; ++i) {
      data[i].structSize = sizeof(CUpti_SassMetrics_Data);
      data[i].pInstanceValues = &values[i * per_record];
    }
    CUpti_SassMetricsFlushData_Params flush{CUpti_SassMetricsFlushData_Params_STRUCT_SIZE, nullptr};
    flush.ctx = static_cast<CUcontext>(m_ctx);
    flush.numOfPatchedInstructionRecords = n;
    flush.numOfInstances = props.numOfInstances;
    flush.pMetricsData = data.data();
    BB_CUPTI_CALL(cuptiSassMetricsFlushData(&flush));
    // CUPTI gives one record per instruction and metric: merged here by function and PC.
    std::map<std::pair<std::string, std::uint32_t>, sass_record> merged;
    for (const auto& d : data) {
      sass_record& r = merged[{d.functionName != nullptr ? d.functionName : "", d.pcOffset}];
      r.function = d.functionName != nullptr ? d.functionName : "";
      r.pc = d.pcOffset;
      r.crc = d.cubinCrc;
      r.function_index = d.functionIndex;
      for (std::size_t k = 0; k < per_record; ++k) {
        const auto it = m_names.find(d.pInstanceValues[k].metricId);
        if (it != m_names.end() && d.pInstanceValues[k].value != 0) r.values[it->second] += d.pInstanceValues[k].value;
      }
    }
    for (auto& [key, r] : merged) {
      if (const auto* cubin = cubin_of(r.crc, r.function))
        std::tie(r.file, r.line) = source_of(*cubin, r.function, r.pc);
      out.push_back(std::move(r));
    }
  }
  stop();
  return out;
}

void sass_lines::stop() noexcept {
  if (m_enabled) {
    CUpti_SassMetricsDisable_Params p{CUpti_SassMetricsDisable_Params_STRUCT_SIZE, nullptr};
    p.ctx = static_cast<CUcontext>(m_ctx);
    cuptiSassMetricsDisable(&p);
    m_enabled = false;
  }
  if (m_configured) {
    CUpti_SassMetricsUnsetConfig_Params p{CUpti_SassMetricsUnsetConfig_Params_STRUCT_SIZE, nullptr};
    p.deviceIndex = static_cast<std::uint32_t>(m_device);
    cuptiSassMetricsUnsetConfig(&p);
    m_configured = false;
  }
}

sass_lines::~sass_lines() { stop(); }

} // namespace bb::profile
