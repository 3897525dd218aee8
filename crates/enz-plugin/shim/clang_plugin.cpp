// libenz_clang.so, the clang half of `clang -fplugin=libenz_plugin.so`
// (which loads it when it finds itself inside clang: linked against
// libclang-cpp, it cannot be loaded into opt or lld):
//
// - the source attributes, each turned into the annotation enzyme.h's
//   ENZYME_* macros write (which enz-rs reads from llvm.global.annotations
//   on every route), and `noinline` on functions, so that the mark still
//   applies when enz-rs runs after clang's inliner:
//     enzyme_inactive                 (function or global)
//     enzyme_inactive_noblock         (function or global: Enzyme lowers
//                                      it as enzyme_inactive, and so do we)
//     enzyme_shadow(d_g)              (global: d_g is its shadow, as
//                                      __enzyme_register_global {&g, &d_g})
//     enzyme_function_like("log1p")   (function)
//     enzyme_nofree                   (function)
//     enzyme("augment", aug_f), enzyme("gradient", rev_f),
//     enzyme("derivative", fwd_f)     (function: custom derivatives)
// - enz-rs's headers on the include path (`#include <enzyme.h>` with no
//   -I);
// - the pass itself: the action adds a pass-builder callback to the
//   compile's code generation options, which registers the passes of
//   libenz_plugin.so (enz_plugin_register, which that library hands over
//   when it loads this one) as -fpass-plugin would; registering twice
//   (both flags given) is harmless, enz_plugin_register ignores the
//   second call for the same PassBuilder.

#include "clang/AST/ASTConsumer.h"
#include "clang/Basic/CodeGenOptions.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendPluginRegistry.h"
#include "clang/Lex/DirectoryLookup.h"
#include "clang/Lex/HeaderSearch.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Sema/Lookup.h"
#include "clang/Sema/ParsedAttr.h"
#include "clang/Sema/Sema.h"
#include "clang/Sema/SemaDiagnostic.h"

#include <string>

using namespace clang;

// libenz_plugin.so's enz_plugin_register, handed over by that library
// when it loads this one (its own symbols are not exported).
static void (*register_passes)(llvm::PassBuilder &) = nullptr;

extern "C" void enz_clang_set_pass_registration(void (*reg)(llvm::PassBuilder &)) {
  register_passes = reg;
}

namespace {

bool is_function_or_variable(const Decl *d) {
  return isa<FunctionDecl>(d) || isa<VarDecl>(d);
}

// Adds annotation `name` with `args` to `d` (and noinline to a function).
ParsedAttrInfo::AttrHandling annotate(Sema &s, Decl *d, const ParsedAttr &attr,
                                      StringRef name,
                                      MutableArrayRef<Expr *> args) {
  if (Attr *a = s.CreateAnnotationAttr(attr, name, args))
    d->addAttr(a);
  else
    return ParsedAttrInfo::AttributeNotApplied;
  if (isa<FunctionDecl>(d) && !d->hasAttr<NoInlineAttr>())
    d->addAttr(NoInlineAttr::CreateImplicit(s.Context));
  return ParsedAttrInfo::AttributeApplied;
}

// enzyme_inactive, enzyme_nofree: no arguments.
struct FlagAttr : ParsedAttrInfo {
  const char *annotation;
  bool functions_only;
  Spelling spellings[3];

  FlagAttr(const char *name, bool functions_only)
      : annotation(name), functions_only(functions_only),
        spellings{{ParsedAttr::AS_GNU, name},
                  {ParsedAttr::AS_C23, name},
                  {ParsedAttr::AS_CXX11, name}} {
    Spellings = spellings;
  }

  bool diagAppertainsToDecl(Sema &s, const ParsedAttr &attr,
                            const Decl *d) const override {
    if (functions_only ? isa<FunctionDecl>(d) : is_function_or_variable(d))
      return true;
    s.Diag(attr.getLoc(), diag::warn_attribute_wrong_decl_type_str)
        << attr << attr.isRegularKeywordAttribute()
        << (functions_only ? "functions" : "functions and global variables");
    return false;
  }

  AttrHandling handleDeclAttribute(Sema &s, Decl *d,
                                   const ParsedAttr &attr) const override {
    return annotate(s, d, attr, annotation, {});
  }
};

// An attribute with `args` arguments that only functions take.
struct FunctionAttr : ParsedAttrInfo {
  Spelling spellings[3];
  FunctionAttr(const char *name, unsigned args)
      : spellings{{ParsedAttr::AS_GNU, name},
                  {ParsedAttr::AS_C23, name},
                  {ParsedAttr::AS_CXX11, name}} {
    NumArgs = args;
    Spellings = spellings;
  }
  bool diagAppertainsToDecl(Sema &s, const ParsedAttr &attr,
                            const Decl *d) const override {
    if (isa<FunctionDecl>(d))
      return true;
    s.Diag(attr.getLoc(), diag::warn_attribute_wrong_decl_type_str)
        << attr << attr.isRegularKeywordAttribute() << "functions";
    return false;
  }
};

// enzyme_function_like("log1p"): one string.
struct FunctionLikeAttr : FunctionAttr {
  FunctionLikeAttr() : FunctionAttr("enzyme_function_like", 1) {}
  AttrHandling handleDeclAttribute(Sema &s, Decl *d,
                                   const ParsedAttr &attr) const override {
    Expr *e = attr.getArgAsExpr(0);
    if (!isa<StringLiteral>(e->IgnoreParenCasts())) {
      s.Diag(attr.getLoc(), diag::err_attribute_argument_type)
          << attr << AANT_ArgumentString;
      return AttributeNotApplied;
    }
    Expr *args[] = {e};
    return annotate(s, d, attr, "enzyme_function_like", args);
  }
};

// enzyme("augment" | "gradient" | "derivative", f): the paper's form of
// the custom derivatives.
struct EnzymeAttr : FunctionAttr {
  EnzymeAttr() : FunctionAttr("enzyme", 2) {}
  AttrHandling handleDeclAttribute(Sema &s, Decl *d,
                                   const ParsedAttr &attr) const override {
    auto *kind = dyn_cast<StringLiteral>(attr.getArgAsExpr(0)->IgnoreParenCasts());
    StringRef k = kind ? kind->getString() : "";
    const char *name = k == "augment"      ? "enzyme_augment"
                       : k == "gradient"   ? "enzyme_gradient"
                       : k == "derivative" ? "enzyme_derivative"
                                           : nullptr;
    if (!name) {
      unsigned id = s.getDiagnostics().getCustomDiagID(
          DiagnosticsEngine::Error,
          "the first argument of 'enzyme' must be \"augment\", \"gradient\" "
          "or \"derivative\"");
      s.Diag(attr.getLoc(), id);
      return AttributeNotApplied;
    }
    Expr *args[] = {attr.getArgAsExpr(1)};
    return annotate(s, d, attr, name, args);
  }
};

struct InactiveAttr : FlagAttr {
  InactiveAttr() : FlagAttr("enzyme_inactive", false) {}
};
// Enzyme's `enzyme_inactive_noblock`: inactive as enzyme_inactive is (the
// function's result and effects carry no derivative); the annotation is
// the same one.
struct InactiveNoblockAttr : FlagAttr {
  InactiveNoblockAttr() : FlagAttr("enzyme_inactive", false) {
    spellings[0] = {ParsedAttr::AS_GNU, "enzyme_inactive_noblock"};
    spellings[1] = {ParsedAttr::AS_C23, "enzyme_inactive_noblock"};
    spellings[2] = {ParsedAttr::AS_CXX11, "enzyme_inactive_noblock"};
  }
};

// enzyme_shadow(d_g) on a global variable g: the global d_g is g's
// shadow (reverse mode accumulates g's adjoint into it, forward mode
// reads g's tangent from it). The annotation's argument is &d_g.
struct ShadowAttr : ParsedAttrInfo {
  Spelling spellings[3] = {{ParsedAttr::AS_GNU, "enzyme_shadow"},
                           {ParsedAttr::AS_C23, "enzyme_shadow"},
                           {ParsedAttr::AS_CXX11, "enzyme_shadow"}};
  ShadowAttr() {
    NumArgs = 1;
    Spellings = spellings;
  }
  bool diagAppertainsToDecl(Sema &s, const ParsedAttr &attr,
                            const Decl *d) const override {
    if (auto *v = dyn_cast<VarDecl>(d); v && v->hasGlobalStorage())
      return true;
    s.Diag(attr.getLoc(), diag::warn_attribute_wrong_decl_type_str)
        << attr << attr.isRegularKeywordAttribute() << "global variables";
    return false;
  }
  AttrHandling handleDeclAttribute(Sema &s, Decl *d,
                                   const ParsedAttr &attr) const override {
    // The argument comes as an expression, or (C++) as a bare identifier,
    // looked up here in the scope of the declaration.
    VarDecl *shadow = nullptr;
    if (attr.isArgIdent(0)) {
      IdentifierLoc *id = attr.getArgAsIdent(0);
      LookupResult r(s, id->getIdentifierInfo(), id->getLoc(),
                     Sema::LookupOrdinaryName);
      if (s.LookupName(r, s.getCurScope()) && r.isSingleResult())
        shadow = dyn_cast<VarDecl>(r.getFoundDecl());
    } else if (auto *ref = dyn_cast<DeclRefExpr>(
                   attr.getArgAsExpr(0)->IgnoreParenImpCasts())) {
      shadow = dyn_cast<VarDecl>(ref->getDecl());
    }
    if (!shadow || !shadow->hasGlobalStorage()) {
      unsigned id = s.getDiagnostics().getCustomDiagID(
          DiagnosticsEngine::Error,
          "the argument of 'enzyme_shadow' must name a global variable");
      s.Diag(attr.getLoc(), id);
      return AttributeNotApplied;
    }
    Expr *ref = s.BuildDeclRefExpr(shadow, shadow->getType(), VK_LValue,
                                   attr.getLoc());
    ExprResult addr = s.CreateBuiltinUnaryOp(attr.getLoc(), UO_AddrOf, ref);
    if (addr.isInvalid())
      return AttributeNotApplied;
    Expr *args[] = {addr.get()};
    return annotate(s, d, attr, "enzyme_shadow", args);
  }
};
struct NofreeAttr : FlagAttr {
  NofreeAttr() : FlagAttr("enzyme_nofree", true) {}
};

ParsedAttrInfoRegistry::Add<InactiveAttr> inactive_attr("enzyme_inactive", "");
ParsedAttrInfoRegistry::Add<InactiveNoblockAttr>
    inactive_noblock_attr("enzyme_inactive_noblock", "");
ParsedAttrInfoRegistry::Add<ShadowAttr> shadow_attr("enzyme_shadow", "");
ParsedAttrInfoRegistry::Add<NofreeAttr> nofree_attr("enzyme_nofree", "");
ParsedAttrInfoRegistry::Add<FunctionLikeAttr> like_attr("enzyme_function_like", "");
ParsedAttrInfoRegistry::Add<EnzymeAttr> enzyme_attr("enzyme", "");

// Puts the headers on the include path.
class EnzAction : public PluginASTAction {
protected:
  // Before the main file is parsed: the search path is added to the
  // preprocessor's header search directly (its options were read already).
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &ci,
                                                 StringRef) override {
    HeaderSearch &hs = ci.getPreprocessor().getHeaderSearchInfo();
    if (auto dir = ci.getFileManager().getOptionalDirectoryRef(ENZ_RS_INCLUDE_DIR))
      hs.AddSearchPath(DirectoryLookup(*dir, SrcMgr::C_System, false), true);
    if (auto reg = register_passes)
      ci.getCodeGenOpts().PassBuilderCallbacks.push_back(
          [reg](llvm::PassBuilder &pb) { reg(pb); });
    return std::make_unique<ASTConsumer>();
  }

  bool ParseArgs(const CompilerInstance &,
                 const std::vector<std::string> &) override {
    return true;
  }

  ActionType getActionType() override { return AddBeforeMainAction; }
};

FrontendPluginRegistry::Add<EnzAction> action("enz-rs",
                                              "enz-rs: automatic differentiation");

} // namespace
