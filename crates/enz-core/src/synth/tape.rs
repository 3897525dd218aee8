//! Where the forward sweep leaves values for the reverse sweep.
//!
//! In combined mode the "tape" is a set of stack slots in the gradient's
//! entry block (post-opt promotes them to registers). In split mode it is
//! one heap block, allocated at the augmented primal's entry, returned to
//! the caller, passed to the reverse function and freed at its end; each
//! slot is a byte offset in it. The block's size is known only when
//! synthesis is done, so the allocation is patched by [`Tape::finish`].

use crate::ir::{Builder, Function, Inst, Module, Ty, Value};

/// One value's place on the tape.
#[derive(Copy, Clone, Debug)]
pub(crate) enum Slot<'m> {
    /// A stack slot (combined mode).
    Stack(Value<'m>, Ty<'m>),
    /// A byte offset in the heap tape (split mode).
    Heap(u64, Ty<'m>),
}

/// The tape of one derivative.
pub(crate) enum Tape<'m> {
    Stack {
        /// Positioned at the top of the function's entry block.
        entry: Builder<'m>,
    },
    Heap {
        /// The `malloc` call at the augmented primal's entry.
        alloc: Inst<'m>,
        size: u64,
    },
}

impl<'m> Tape<'m> {
    /// Stack slots in `func`'s entry block.
    pub(crate) fn stack(func: Function<'m>) -> Tape<'m> {
        let entry = Builder::new(func.context());
        let blk = func.entry_block();
        match blk.first_instruction() {
            Some(i) => entry.position_before(i),
            None => entry.position_at_end(blk),
        }
        Tape::Stack { entry }
    }

    /// A heap block allocated at the top of `func`'s entry block.
    pub(crate) fn heap(func: Function<'m>) -> Tape<'m> {
        let b = Builder::new(func.context());
        let blk = func.entry_block();
        match blk.first_instruction() {
            Some(i) => b.position_before(i),
            None => b.position_at_end(blk),
        }
        let size = b.const_int(Ty::int(func.context(), 64), 8);
        let alloc = b.malloc(size);
        alloc.set_name("tape");
        Tape::Heap { alloc, size: 0 }
    }
}

/// The alignment a heap slot or loop-buffer element of type `ty` is
/// known to have: `malloc`/`realloc` give 16 bytes, slots and elements
/// sit at multiples of their size, so the largest power of two dividing
/// the size, at most 16. Loads and stores there must not claim the type's
/// ABI alignment, which is 32 for `<4 x double>` (an AVX `vmovapd` on a
/// 16-byte-aligned address faults).
pub(crate) fn heap_alignment<'m>(ty: Ty<'m>, module: Module<'m>) -> u32 {
    let bytes = ty.alloc_size(module).max(1);
    (1u64 << bytes.trailing_zeros()).min(16) as u32
}

impl<'m> Tape<'m> {
    /// Reserves a slot for a value of type `ty`.
    pub(crate) fn reserve(&mut self, ty: Ty<'m>) -> Slot<'m> {
        match self {
            Tape::Stack { entry } => Slot::Stack(entry.alloca(ty, "cache"), ty),
            Tape::Heap { alloc, size } => {
                let bytes = ty.alloc_size(alloc.module()).max(1);
                let align = bytes.next_power_of_two().min(16);
                let off = size.div_ceil(align) * align;
                *size = off + bytes;
                Slot::Heap(off, ty)
            }
        }
    }

    /// Reserves a slot that starts zeroed when the forward function starts.
    pub(crate) fn reserve_zeroed(&mut self, ty: Ty<'m>) -> Slot<'m> {
        let slot = self.reserve(ty);
        match (&*self, slot) {
            (Tape::Stack { entry }, Slot::Stack(p, ty)) => {
                entry.store(entry.zero(ty), p);
            }
            (Tape::Heap { alloc, .. }, Slot::Heap(off, ty)) => {
                let b = Builder::new(alloc.context());
                b.position_after(*alloc);
                let p = b.byte_gep(alloc.as_value(), off);
                let st = b.store(b.zero(ty), p);
                st.set_alignment(heap_alignment(ty, alloc.module()));
            }
            _ => unreachable!("slot of another tape"),
        }
        slot
    }

    /// The address of `slot` in the forward function.
    pub(crate) fn address(&self, b: &Builder<'m>, slot: Slot<'m>) -> Value<'m> {
        match (self, slot) {
            (_, Slot::Stack(p, _)) => p,
            (Tape::Heap { alloc, .. }, Slot::Heap(off, _)) => b.byte_gep(alloc.as_value(), off),
            (Tape::Stack { .. }, Slot::Heap(..)) => unreachable!("heap slot on a stack tape"),
        }
    }

    /// The address of `slot` in the reverse function (`tape` is its tape
    /// parameter in split mode).
    pub(crate) fn address_rev(
        &self,
        b: &Builder<'m>,
        tape: Value<'m>,
        slot: Slot<'m>,
    ) -> Value<'m> {
        match slot {
            Slot::Stack(p, _) => p,
            Slot::Heap(off, _) => b.byte_gep(tape, off),
        }
    }

    /// The tape pointer in the forward function (split mode).
    pub(crate) fn pointer(&self) -> Value<'m> {
        match self {
            Tape::Heap { alloc, .. } => alloc.as_value(),
            Tape::Stack { .. } => panic!("a stack tape has no pointer"),
        }
    }

    /// Stores `v` to `slot` in the forward sweep.
    pub(crate) fn store(&self, b: &Builder<'m>, slot: Slot<'m>, v: Value<'m>) {
        match (self, slot) {
            (_, Slot::Stack(p, _)) => {
                b.store(v, p);
            }
            (Tape::Heap { alloc, .. }, Slot::Heap(off, ty)) => {
                let p = b.byte_gep(alloc.as_value(), off);
                let st = b.store(v, p);
                st.set_alignment(heap_alignment(ty, alloc.module()));
            }
            (Tape::Stack { .. }, Slot::Heap(..)) => unreachable!("heap slot on a stack tape"),
        }
    }

    /// Loads `slot` in the reverse sweep (`tape` is the reverse function's
    /// tape parameter in split mode).
    pub(crate) fn load(&self, b: &Builder<'m>, tape: Value<'m>, slot: Slot<'m>) -> Value<'m> {
        match slot {
            Slot::Stack(p, ty) => b.load(ty, p),
            Slot::Heap(off, ty) => {
                let p = b.byte_gep(tape, off);
                let v = b.load(ty, p);
                v.set_alignment(heap_alignment(ty, tape.module()));
                v
            }
        }
    }

    /// Bytes of a heap tape (0 for a stack tape).
    pub(crate) fn size(&self) -> u64 {
        match self {
            Tape::Heap { size, .. } => (*size).max(8),
            Tape::Stack { .. } => 0,
        }
    }

    /// Patches the heap tape's size now that every slot is known.
    pub(crate) fn finish(&mut self, _top: &Builder<'m>, _rev_tape: Option<Value<'m>>) {
        if let Tape::Heap { alloc, size } = self {
            let b = Builder::new(alloc.context());
            let n = b.const_int(Ty::int(alloc.context(), 64), (*size).max(8) as i64);
            alloc.set_operand(0, n);
        }
    }
}
