// The C++ half of libenz_plugin.so: registers the `enz-rs` module pass
// with LLVM's PassBuilder (an API LLVM offers only in C++) and hands each
// module to the Rust half, `enz_plugin_run` (src/lib.rs), which
// differentiates it in place. Nothing else lives here.
//
//   opt:   -passes=enz-rs or enz-rs<no-inline;no-preopt;explain;O0..O3>
//          (`explain`, or ENZ_RS_EXPLAIN=1 for clang and lld: the plan of
//          each derivative as a remark)
//   clang: -fplugin (or -fpass-plugin): registered functions marked
//          noinline at the start of the pipeline; the pass at the start of
//          the module optimiser (after early simplification, before
//          vectorisation), every -O level, not in LTO pre-link compiles;
//          -fplugin also adds the source attributes and the headers, and
//          registers these passes through clang's pass-builder callbacks
//          (clang_plugin.cpp)
//   lld:   --load-pass-plugin: at the start of the full LTO pipeline

#include "llvm-c/Types.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/OptimizationLevel.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Plugins/PassPlugin.h"

#include <cstdlib>
#include <dlfcn.h>
#include <string>

#include "llvm/Support/raw_ostream.h"

extern "C" {
// Differentiates `m` in place. Returns 0 on success (with the plans in
// `message` when asked to explain them); otherwise 1 and the diagnostics.
// A message is freed with enz_plugin_free_message.
int enz_plugin_run(LLVMModuleRef m, const char *options, char **message);
// Marks registered functions noinline; returns how many.
int enz_plugin_prepare(LLVMModuleRef m);
void enz_plugin_free_message(char *message);
}

namespace {

struct EnzPass : llvm::PassInfoMixin<EnzPass> {
  std::string options;

  explicit EnzPass(std::string o) : options(std::move(o)) {}

  llvm::PreservedAnalyses run(llvm::Module &m, llvm::ModuleAnalysisManager &) {
    char *message = nullptr;
    std::string all = options + from_environment();
    int rc = enz_plugin_run(llvm::wrap(&m), all.c_str(), &message);
    if (rc != 0) {
      // clang reports it as an error and fails the compile; opt exits 1.
      m.getContext().emitError(message ? message : "enz-rs failed");
      enz_plugin_free_message(message);
      return llvm::PreservedAnalyses::all();
    }
    if (message) {
      // Lines starting `enz-rs: warning: ` are warnings (a GPU loop that
      // may trap, a registration that cannot take effect); the rest, the
      // plans (`explain`), a remark, printed by opt and lld, and by clang
      // with -Rremark-backend-plugin.
      static const std::string warning = "enz-rs: warning: ";
      std::string all(message), plans;
      enz_plugin_free_message(message);
      size_t pos = 0;
      while (pos < all.size()) {
        size_t end = all.find('\n', pos);
        if (end == std::string::npos)
          end = all.size();
        std::string line = all.substr(pos, end - pos);
        if (line.compare(0, warning.size(), warning) == 0) {
          std::string what = "enz-rs: " + line.substr(warning.size());
          llvm::Twine text(what);
          m.getContext().diagnose(llvm::DiagnosticInfoGeneric(text, llvm::DS_Warning));
        } else {
          plans += line;
          plans += '\n';
        }
        pos = end + 1;
      }
      if (!plans.empty()) {
        plans.pop_back();
        llvm::Twine text(plans);
        m.getContext().diagnose(llvm::DiagnosticInfoGeneric(text, llvm::DS_Remark));
      }
    }
    return llvm::PreservedAnalyses::none();
  }

  static bool isRequired() { return true; }

  // What clang and lld, whose pipelines take no parameters, are told
  // through the environment: ENZ_RS_EXPLAIN (anything but empty or "0")
  // adds `explain`, ENZ_RS_CACHE_BUDGET=MB|auto|off `cache-budget=...`,
  // ENZ_RS_MODE_PER_LOOP=auto|reverse `mode-per-loop=...`,
  // ENZ_RS_GPU_THREAD_CACHE=BYTES `gpu-thread-cache=...`.
  static std::string from_environment() {
    std::string extra;
    const char *explain = std::getenv("ENZ_RS_EXPLAIN");
    if (explain && *explain && std::string(explain) != "0")
      extra += ";explain";
    const char *budget = std::getenv("ENZ_RS_CACHE_BUDGET");
    if (budget && *budget)
      extra += std::string(";cache-budget=") + budget;
    const char *mode = std::getenv("ENZ_RS_MODE_PER_LOOP");
    if (mode && *mode)
      extra += std::string(";mode-per-loop=") + mode;
    const char *thread_cache = std::getenv("ENZ_RS_GPU_THREAD_CACHE");
    if (thread_cache && *thread_cache)
      extra += std::string(";gpu-thread-cache=") + thread_cache;
    return extra;
  }
};

// Before clang's inliner: functions with a registered derivative,
// behaviour or inactive mark stay calls until enz-rs runs.
struct EnzPreparePass : llvm::PassInfoMixin<EnzPreparePass> {
  llvm::PreservedAnalyses run(llvm::Module &m, llvm::ModuleAnalysisManager &) {
    return enz_plugin_prepare(llvm::wrap(&m)) > 0
               ? llvm::PreservedAnalyses::none()
               : llvm::PreservedAnalyses::all();
  }
  static bool isRequired() { return true; }
};

std::string level_option(llvm::OptimizationLevel level) {
  if (level == llvm::OptimizationLevel::O0)
    return "O0";
  if (level == llvm::OptimizationLevel::O1)
    return "O1";
  if (level == llvm::OptimizationLevel::O3)
    return "O3";
  return "O2";
}

} // namespace

// Called by LLVM through the plugin info that src/lib.rs's
// llvmGetPassPluginInfo returns (a Rust cdylib exports only Rust symbols).
extern "C" void enz_plugin_register(llvm::PassBuilder &pb) {
  // Called twice for one compile when clang is given both -fplugin (the
  // clang half's callback) and -fpass-plugin: register once.
  static llvm::PassBuilder *registered = nullptr;
  if (registered == &pb)
    return;
  registered = &pb;
  pb.registerPipelineParsingCallback(
      [](llvm::StringRef name, llvm::ModulePassManager &mpm,
         llvm::ArrayRef<llvm::PassBuilder::PipelineElement>) {
        if (name == "enz-rs") {
          mpm.addPass(EnzPass(""));
          return true;
        }
        if (name.consume_front("enz-rs<") && name.consume_back(">")) {
          mpm.addPass(EnzPass(name.str()));
          return true;
        }
        return false;
      });
  pb.registerPipelineStartEPCallback(
      [](llvm::ModulePassManager &mpm, llvm::OptimizationLevel) {
        mpm.addPass(EnzPreparePass());
      });
  pb.registerOptimizerEarlyEPCallback([](llvm::ModulePassManager &mpm,
                                         llvm::OptimizationLevel level,
                                         llvm::ThinOrFullLTOPhase phase) {
    // LTO pre-link compiles leave the differentiation to the link.
    if (phase == llvm::ThinOrFullLTOPhase::ThinLTOPreLink ||
        phase == llvm::ThinOrFullLTOPhase::FullLTOPreLink)
      return;
    // ThinLTO back ends see one module each: said if that is why
    // something cannot be differentiated.
    std::string thin = phase == llvm::ThinOrFullLTOPhase::ThinLTOPostLink
                           ? ";thin-lto"
                           : "";
    mpm.addPass(EnzPass(level_option(level) + thin));
  });
  pb.registerFullLinkTimeOptimizationEarlyEPCallback(
      [](llvm::ModulePassManager &mpm, llvm::OptimizationLevel level) {
        mpm.addPass(EnzPass(level_option(level)));
      });
}

extern "C" uint32_t enz_plugin_api_version() { return LLVM_PLUGIN_API_VERSION; }

// Inside clang (`-fplugin=`), the source attributes and the plugin action
// live in libenz_clang.so, loaded here: it links libclang-cpp, which opt
// and lld cannot load (its command-line options clash with theirs).
namespace {
struct LoadClangHalf {
  LoadClangHalf() {
    if (!dlopen("libclang-cpp.so." ENZ_LLVM_SO_VERSION, RTLD_LAZY | RTLD_NOLOAD))
      return;
    void *half = dlopen(ENZ_CLANG_HALF, RTLD_NOW | RTLD_GLOBAL);
    if (!half) {
      llvm::errs() << "enz-rs: cannot load " << ENZ_CLANG_HALF << ": "
                   << dlerror() << "\n";
      return;
    }
    // With -fplugin alone, the clang half registers the passes through
    // clang's pass-builder callbacks.
    using Setter = void (*)(void (*)(llvm::PassBuilder &));
    if (auto set = reinterpret_cast<Setter>(
            dlsym(half, "enz_clang_set_pass_registration")))
      set(&enz_plugin_register);
  }
} load_clang_half;
} // namespace

// src/lib.rs mirrors the struct: five pointer-sized fields.
static_assert(sizeof(llvm::PassPluginLibraryInfo) == 5 * sizeof(void *),
              "PassPluginLibraryInfo changed: update src/lib.rs");
