//! Marks written in the source that survive into IR on every route:
//! `__attribute__((annotate("enzyme_...", args...)))`, what `enzyme.h`'s
//! `ENZYME_*` macros expand to (clang drops attributes it does not know
//! before any IR exists; `annotate` it keeps, in `llvm.global.annotations`):
//!
//! | annotation                             | on        | meaning                          |
//! |----------------------------------------|-----------|----------------------------------|
//! | `enzyme_inactive`                      | function  | no derivative (as `__enzyme_inactivefn`) |
//! | `enzyme_inactive`                      | global    | its memory holds no derivative   |
//! | `enzyme_inactivefn`, `enzyme_inactivenoblockfn` | function | no derivative (Enzyme's clang plugin's spellings of `enzyme_inactive` and `enzyme_inactive_noblock`) |
//! | `enzyme_shadow`, `&d_g`                | global    | `d_g` is its shadow (as `__enzyme_register_global`) |
//! | `enzyme_function_like`, `"log1p"`      | function  | differentiated as libm's `log1p` |
//! | `enzyme_nofree`                        | function  | frees nothing (a hint)           |
//! | `enzyme_gradient`, `aug_f`, `rev_f`    | function  | custom split derivative          |
//! | `enzyme_augment`, `aug_f` and `enzyme_gradient`, `rev_f` | function | the same in two halves (the clang plugin's `enzyme("augment", f)`, `enzyme("gradient", f)`) |
//! | `enzyme_derivative`, `fwd_f`           | function  | custom tangent function          |

use crate::ir::{globals, Function, Global, Value};

/// One `enzyme_*` annotation: what it is on, its name, its arguments.
pub(crate) struct Annotation<'m> {
    pub(crate) on: Value<'m>,
    pub(crate) name: String,
    pub(crate) args: Vec<Value<'m>>,
}

impl<'m> Annotation<'m> {
    /// The annotated function, if it is one.
    pub(crate) fn function(&self) -> Option<Function<'m>> {
        self.on.strip_to_function()
    }

    /// The annotated global variable, if it is one.
    pub(crate) fn global(&self) -> Option<Global<'m>> {
        strip_to_global(self.on)
    }

    /// Argument `k` as a global variable (its address, through casts).
    pub(crate) fn global_arg(&self, k: usize) -> Option<Global<'m>> {
        self.args.get(k).and_then(|a| strip_to_global(*a))
    }

    /// Argument `k` as a function.
    pub(crate) fn function_arg(&self, k: usize) -> Option<Function<'m>> {
        self.args.get(k).and_then(|a| a.strip_to_function())
    }

    /// Argument `k` as a string.
    pub(crate) fn string_arg(&self, k: usize) -> Option<String> {
        self.args.get(k).and_then(|a| a.c_string_pointee())
    }
}

/// The global variable `v` is the address of, through casts and constant
/// expressions.
fn strip_to_global(v: Value<'_>) -> Option<Global<'_>> {
    let mut v = v;
    while !v.is_global_variable() && !v.is_function() && v.num_operands() > 0 {
        v = v.operand(0);
    }
    v.as_global()
}

/// The module's `enzyme_*` annotations, in order.
pub(crate) fn enzyme_annotations<'m>(m: crate::ir::Module<'m>) -> Vec<Annotation<'m>> {
    let Some(table) = globals(m)
        .into_iter()
        .find(|g| g.name() == "llvm.global.annotations")
    else {
        return Vec::new();
    };
    let Some(init) = table.initializer() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for k in 0..init.num_operands() {
        // { annotated, name, file, line, args }
        let entry = init.operand(k);
        if entry.num_operands() < 5 {
            continue;
        }
        let Some(name) = entry.operand(1).c_string_pointee() else {
            continue;
        };
        if !name.starts_with("enzyme_") {
            continue;
        }
        let args = entry
            .operand(4)
            .as_global()
            .and_then(|g| g.initializer())
            .map(|s| (0..s.num_operands()).map(|j| s.operand(j)).collect())
            .unwrap_or_default();
        out.push(Annotation {
            on: entry.operand(0),
            name,
            args,
        });
    }
    out
}
