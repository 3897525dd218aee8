//! Shadows of functions: what a function pointer's shadow points to, so
//! that an indirect call can reach the callee's derivatives without
//! knowing the callee.
//!
//! The shadow of function `f` is a constant table
//!
//! ```text
//! @f.shadow = internal constant [18 x ptr]
//!               [@augmented_f, @reverse_f, @fwddiffe_f,
//!                @fwddiffe2_f, ..., @fwddiffe16_f]
//! ```
//!
//! of `f`'s derivatives on the canonical ABI (`signature::Canonical`:
//! every activity from the type alone), so a caller knowing only the
//! call's function type builds the same signatures: the augmented primal
//! and the reverse sweep, then the forward derivative of each width 1 to
//! [`MAX_TABLE_WIDTH`] (vector forward mode, `enzyme_width`). Entries are
//! filled by direction when first needed (a reverse-mode caller needs the
//! first two, a forward-mode one the third; an entry never asked for stays
//! null). A width above 1 is filled in every table with a forward entry
//! once a call through a pointer in vector forward mode of that width is
//! made ([`Registry::require_table_width`]), and in every such table made
//! afterwards.
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

/// The widest vector forward mode a call through a function pointer may
/// use: the tables hold a forward derivative for each width up to it.
pub(crate) const MAX_TABLE_WIDTH: u32 = 16;

/// An entry of a function's shadow table.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Entry {
    Augmented,
    Reverse,
    /// The forward derivative with this many tangents per value.
    Forward {
        width: u32,
    },
}

impl Entry {
    /// Where the entry is in the table.
    fn index(self) -> usize {
        match self {
            Entry::Augmented => 0,
            Entry::Reverse => 1,
            Entry::Forward { width } => {
                debug_assert!((1..=MAX_TABLE_WIDTH).contains(&width));
                1 + width as usize
            }
        }
    }
}

/// How many entries a shadow table has.
const TABLE_LEN: usize = 2 + MAX_TABLE_WIDTH as usize;

/// The type of a shadow table: `[18 x ptr]`.
pub(crate) fn table_type<'m>(ctx: Context<'m>) -> Ty<'m> {
    Ty::ptr(ctx).array(TABLE_LEN as u64)
}

/// Loads entry `e` of the shadow table `table` at the builder's position.
pub(crate) fn load_entry<'m>(b: &Builder<'m>, table: Value<'m>, e: Entry) -> Value<'m> {
    let ctx = b.ctx();
    let i32t = Ty::int(ctx, 32);
    let at = b.gep(
        table_type(ctx),
        table,
        &[b.const_int(i32t, 0), b.const_int(i32t, e.index() as i64)],
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
        let table = match self.shadows.functions.get(&f) {
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
                self.shadows.functions.insert(f, t);
                t
            }
        };
        let wanted: Vec<Entry> = match direction {
            Direction::Reverse => vec![Entry::Augmented, Entry::Reverse],
            Direction::Forward => std::iter::once(1)
                .chain(self.shadows.table_widths.iter().copied())
                .map(|width| Entry::Forward { width })
                .collect(),
        };
        self.fill_entries(f, table, &wanted)?;
        Ok(table)
    }

    /// Makes every shadow table with a forward entry also hold the forward
    /// derivative of `width` (a call through a function pointer in vector
    /// forward mode of that width is being made), and every table made
    /// later too.
    pub(crate) fn require_table_width(&mut self, width: u32) -> Result<(), Diagnostic> {
        if width == 1 || !self.shadows.table_widths.insert(width) {
            return Ok(());
        }
        // In the order of the tables' names: the derivatives made here are
        // then emitted in the same order in every run.
        let mut tables: Vec<(Function<'m>, Global<'m>)> = self
            .shadows
            .functions
            .iter()
            .map(|(f, t)| (*f, *t))
            .collect();
        tables.sort_by_key(|(_, t)| t.name());
        for (f, table) in tables {
            let init = table.initializer().expect("a shadow table is defined");
            let single = Entry::Forward { width: 1 }.index() as u32;
            let has_forward = init
                .aggregate_element(single)
                .is_some_and(|e| !e.is_undef_or_null());
            if has_forward {
                self.fill_entries(f, table, &[Entry::Forward { width }])?;
            }
        }
        Ok(())
    }

    /// Fills the entries `wanted` of `f`'s shadow table `table` that are
    /// still null.
    fn fill_entries(
        &mut self,
        f: Function<'m>,
        table: Global<'m>,
        wanted: &[Entry],
    ) -> Result<(), Diagnostic> {
        let init = table.initializer().expect("a shadow table is defined");
        let mut entries: Vec<Value> = (0..TABLE_LEN as u32)
            .map(|k| init.aggregate_element(k).expect("a full table"))
            .collect();
        let missing: Vec<Entry> = wanted
            .iter()
            .copied()
            .filter(|e| entries[e.index()].is_undef_or_null())
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        let target = self.canonical_target(f)?;
        for e in missing {
            match e {
                Entry::Augmented | Entry::Reverse => {
                    let d = self.split(&Request::canonical(target, Mode::Split))?;
                    entries[Entry::Augmented.index()] = d.forward.as_value();
                    entries[Entry::Reverse.index()] = d.reverse.as_value();
                }
                Entry::Forward { width } => {
                    let d = self.forward(&Request::canonical(target, Mode::Forward { width }))?;
                    entries[e.index()] = d.as_value();
                }
            }
        }
        table.set_initializer(table_type(f.context()).const_aggregate(&entries));
        Ok(())
    }

    /// The function whose canonical derivatives stand for `f`'s: `f`
    /// itself when it has a body or a registered derivative, else an
    /// internal wrapper calling it (made once).
    fn canonical_target(&mut self, f: Function<'m>) -> Result<Function<'m>, Diagnostic> {
        if !f.is_declaration() || self.custom_gradient(f).is_some() {
            return Ok(f);
        }
        if let Some(w) = self.shadows.wrappers.get(&f) {
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
        self.shadows.wrappers.insert(f, w);
        Ok(w)
    }

    /// `init` (a global's initializer) as its shadow's, for `lane`: every
    /// function in it replaced by its shadow table, every pointer into a
    /// writable global by the same place in that global's shadow (a
    /// descriptor pointing to an array points to the array's shadow),
    /// integers kept, everything else zero; `None` when it holds no
    /// function and no such pointer (the shadow is all zero).
    pub(crate) fn shadow_initializer(
        &mut self,
        init: Value<'m>,
        direction: Direction,
        lane: u32,
    ) -> Result<Option<Value<'m>>, Diagnostic> {
        if let Some(f) = init.strip_to_function() {
            return Ok(Some(self.function_shadow(f, direction)?.as_value()));
        }
        let ty = init.ty();
        if ty.kind() == TyKind::Pointer {
            return self.shadow_of_global_pointer(init, direction, lane);
        }
        if !matches!(ty.kind(), TyKind::Array | TyKind::Struct) {
            return Ok(None);
        }
        let mut members = Vec::new();
        let mut any = false;
        for k in 0..ty.len() as u32 {
            let Some(e) = init.aggregate_element(k) else {
                return Ok(None);
            };
            match self.shadow_initializer(e, direction, lane)? {
                Some(s) => {
                    any = true;
                    members.push(s);
                }
                None if e.ty().is_integer() => members.push(e),
                None => members.push(e.ty().null_constant()),
            }
        }
        Ok(any.then(|| ty.const_aggregate(&members)))
    }

    /// Constant pointer `c` into a writable global (through constant
    /// casts and GEPs), moved to that global's shadow in `lane`; `None`
    /// for other constants, and for a global whose shadow is being made
    /// (a cycle of pointers).
    fn shadow_of_global_pointer(
        &mut self,
        c: Value<'m>,
        direction: Direction,
        lane: u32,
    ) -> Result<Option<Value<'m>>, Diagnostic> {
        if let Some(g) = c.as_global() {
            if g.is_global_constant() || self.shadows.in_progress.contains(&g) {
                return Ok(None);
            }
            return Ok(Some(
                self.shadow_global_in_lane(g, direction, lane)?.as_value(),
            ));
        }
        if !c.is_constant_expr() || c.num_operands() == 0 {
            return Ok(None);
        }
        let Some(base) = self.shadow_of_global_pointer(c.operand(0), direction, lane)? else {
            return Ok(None);
        };
        Ok(c.rebase_constant_expr(base))
    }
}
