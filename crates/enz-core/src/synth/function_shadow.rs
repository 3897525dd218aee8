//! Shadows of functions: what a function pointer's shadow points to, so
//! that an indirect call can reach the callee's derivatives without
//! knowing the callee.
//!
//! The shadow of function `f` is a constant table
//!
//! ```text
//! @f.shadow = internal constant { ptr, ptr, ptr }
//!               { @augmented_f, @reverse_f, @fwddiffe_f }
//! ```
//!
//! of `f`'s derivatives on the canonical ABI (`signature::Canonical`:
//! every activity from the type alone), so a caller knowing only the
//! call's function type builds the same signatures. Entries are filled by
//! direction when first needed (a reverse-mode caller needs the first two,
//! a forward-mode one the third; an entry never asked for stays null).
//! A function without a body (a libm function with a rule, a declaration
//! with a registered derivative) gets its derivatives through a small
//! internal wrapper calling it. The shadow of a global holding function
//! pointers (a dispatch table, a callback set in a global) holds their
//! shadows at the same places, zero elsewhere.

use super::registry::Registry;
use crate::analysis::calls::Direction;
use crate::diag::Diagnostic;
use crate::ir::{add_internal_function, add_internal_global, Builder, Function, Global};
use crate::ir::{Context, Ty, TyKind, Value};
use crate::signature::{Mode, Request};

/// Index of each entry of a function's shadow table.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Entry {
    Augmented = 0,
    Reverse = 1,
    Forward = 2,
}

/// The type of a shadow table: `{ ptr, ptr, ptr }`.
pub(crate) fn table_type<'m>(ctx: Context<'m>) -> Ty<'m> {
    let p = Ty::ptr(ctx);
    Ty::literal_struct(ctx, &[p, p, p])
}

/// Loads entry `e` of the shadow table `table` at the builder's position.
pub(crate) fn load_entry<'m>(b: &Builder<'m>, table: Value<'m>, e: Entry) -> Value<'m> {
    let ctx = b.ctx();
    let i32t = Ty::int(ctx, 32);
    let at = b.gep(
        table_type(ctx),
        table,
        &[b.const_int(i32t, 0), b.const_int(i32t, e as i64)],
    );
    b.load(Ty::ptr(ctx), at)
}

impl<'m> Registry<'m> {
    /// The shadow table of `f`, with the entries `direction` calls filled.
    pub(crate) fn function_shadow(
        &mut self,
        f: Function<'m>,
        direction: Direction,
    ) -> Result<Global<'m>, Diagnostic> {
        let ctx = f.context();
        let table = match self.function_shadows.get(&f) {
            Some(t) => *t,
            None => {
                let ty = table_type(ctx);
                let t = add_internal_global(
                    f.global_parent(),
                    &format!("{}.shadow", f.name()),
                    ty,
                    0,
                    ty.null_constant(),
                    8,
                );
                t.set_global_constant();
                self.function_shadows.insert(f, t);
                t
            }
        };
        let init = table.initializer().expect("a shadow table is defined");
        let mut entries: Vec<Value> = (0..3)
            .map(|k| init.aggregate_element(k).expect("three entries"))
            .collect();
        let filled = |e: Entry| !entries[e as usize].is_undef_or_null();
        let wanted: &[Entry] = match direction {
            Direction::Reverse => &[Entry::Augmented, Entry::Reverse],
            Direction::Forward => &[Entry::Forward],
        };
        if wanted.iter().all(|e| filled(*e)) {
            return Ok(table);
        }
        let target = self.canonical_target(f)?;
        match direction {
            Direction::Reverse => {
                let d = self.split(&Request::canonical(target, Mode::Split))?;
                entries[Entry::Augmented as usize] = d.forward.as_value();
                entries[Entry::Reverse as usize] = d.reverse.as_value();
            }
            Direction::Forward => {
                let d = self.forward(&Request::canonical(target, Mode::Forward { width: 1 }))?;
                entries[Entry::Forward as usize] = d.as_value();
            }
        }
        table.set_initializer(table_type(ctx).const_aggregate(&entries));
        Ok(table)
    }

    /// The function whose canonical derivatives stand for `f`'s: `f`
    /// itself when it has a body or a registered derivative, else an
    /// internal wrapper calling it (made once).
    fn canonical_target(&mut self, f: Function<'m>) -> Result<Function<'m>, Diagnostic> {
        if !f.is_declaration() || self.custom_gradient(f).is_some() {
            return Ok(f);
        }
        if let Some(w) = self.wrappers.get(&f) {
            return Ok(*w);
        }
        let fty = f.function_type();
        if fty.is_vararg() {
            return Err(Diagnostic::new(format!(
                "the variadic function `{}` is called through a pointer with derivatives, which enz-rs cannot differentiate",
                f.name()
            )));
        }
        let w = add_internal_function(f.global_parent(), &format!("{}.wrapper", f.name()), fty);
        let b = Builder::new(f.context());
        b.position_at_end(w.append_block("entry"));
        let r = b.call(fty, f, &w.params());
        if fty.return_type().kind() == TyKind::Void {
            b.ret(None);
        } else {
            b.ret(Some(r.as_value()));
        }
        self.wrappers.insert(f, w);
        Ok(w)
    }

    /// `init` (a global's initializer) with every function in it replaced
    /// by its shadow table and everything else by zero; `None` when it
    /// holds no function.
    pub(crate) fn shadow_initializer(
        &mut self,
        init: Value<'m>,
        direction: Direction,
    ) -> Result<Option<Value<'m>>, Diagnostic> {
        if let Some(f) = init.strip_to_function() {
            return Ok(Some(self.function_shadow(f, direction)?.as_value()));
        }
        let ty = init.ty();
        if !matches!(ty.kind(), TyKind::Array | TyKind::Struct) {
            return Ok(None);
        }
        let mut members = Vec::new();
        let mut any = false;
        for k in 0..ty.len() as u32 {
            let Some(e) = init.aggregate_element(k) else {
                return Ok(None);
            };
            match self.shadow_initializer(e, direction)? {
                Some(s) => {
                    any = true;
                    members.push(s);
                }
                None => members.push(e.ty().null_constant()),
            }
        }
        Ok(any.then(|| ty.const_aggregate(&members)))
    }
}
