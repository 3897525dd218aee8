//! How a parameter of the differentiated function reaches it at the LLVM
//! level, and so how the derivative passes it to the entry point: floats
//! and integers by value, references and raw pointers as one pointer,
//! slices as pointer and length.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::{FnArg, Ident, Pat, Type};

/// The shape of a parameter's type.
#[derive(Clone)]
pub(crate) enum Shape {
    /// `f32` / `f64`.
    Float(Type),
    /// Integers, `bool`, `char`.
    Int(Type),
    /// `&T` / `&mut T` (not a slice).
    Ref { elem: Type },
    /// `&[T]` / `&mut [T]`.
    Slice { elem: Type },
    /// `*const T` / `*mut T`.
    Raw { elem: Type },
    /// `&self` / `&mut self`.
    SelfRef { mutable: bool },
}

/// One parameter: its name, type and shape.
pub(crate) struct Param {
    pub(crate) name: Ident,
    pub(crate) ty: TokenStream,
    pub(crate) shape: Shape,
}

pub(crate) fn scalar_name(t: &Type) -> Option<String> {
    if let Type::Path(p) = t {
        if p.qself.is_none() && p.path.segments.len() == 1 {
            return Some(p.path.segments[0].ident.to_string());
        }
    }
    None
}

/// The parameter `arg`, or why #[autodiff_*] cannot pass it.
pub(crate) fn param(arg: &FnArg) -> Result<Param, syn::Error> {
    match arg {
        FnArg::Receiver(r) => {
            if r.reference.is_none() {
                return Err(syn::Error::new_spanned(
                    r,
                    "enz: #[autodiff_*] takes `self` by reference (`&self` or `&mut self`)",
                ));
            }
            Ok(Param {
                name: format_ident!("self"),
                ty: quote!(#r),
                shape: Shape::SelfRef {
                    mutable: r.mutability.is_some(),
                },
            })
        }
        FnArg::Typed(t) => {
            let Pat::Ident(p) = &*t.pat else {
                return Err(syn::Error::new_spanned(
                    &t.pat,
                    "enz: #[autodiff_*] needs a plain name for each parameter",
                ));
            };
            let ty = &*t.ty;
            let shape = shape(ty).ok_or_else(|| {
                syn::Error::new_spanned(
                    ty,
                    "enz: #[autodiff_*] passes floats, integers, references, slices and raw pointers; pass this parameter by reference",
                )
            })?;
            Ok(Param {
                name: p.ident.clone(),
                ty: quote!(#ty),
                shape,
            })
        }
    }
}

fn shape(ty: &Type) -> Option<Shape> {
    match ty {
        Type::Reference(r) => match &*r.elem {
            Type::Slice(s) => Some(Shape::Slice {
                elem: (*s.elem).clone(),
            }),
            Type::Path(p) if p.path.is_ident("str") => None,
            Type::TraitObject(_) => None,
            e => Some(Shape::Ref { elem: e.clone() }),
        },
        Type::Ptr(p) => match &*p.elem {
            Type::Slice(_) | Type::TraitObject(_) => None,
            e => Some(Shape::Raw { elem: e.clone() }),
        },
        Type::Paren(p) => shape(&p.elem),
        t => match scalar_name(t)?.as_str() {
            "f32" | "f64" => Some(Shape::Float(t.clone())),
            "i8" | "i16" | "i32" | "i64" | "i128" | "isize" | "u8" | "u16" | "u32" | "u64"
            | "u128" | "usize" | "bool" | "char" => Some(Shape::Int(t.clone())),
            _ => None,
        },
    }
}

/// A value passed to the entry point: the expression and its type there.
pub(crate) struct Passed {
    pub(crate) value: TokenStream,
    pub(crate) ty: TokenStream,
}

fn void_ptr(value: TokenStream) -> Passed {
    Passed {
        value: quote!(#value as *const ::core::ffi::c_void),
        ty: quote!(*const ::core::ffi::c_void),
    }
}

impl Param {
    /// The values that carry the parameter named `name` (itself or one of
    /// its shadows, which have the same shape): one, or pointer and length
    /// for a slice.
    pub(crate) fn values(&self, name: &Ident) -> Vec<Passed> {
        match &self.shape {
            Shape::Float(t) | Shape::Int(t) => vec![Passed {
                value: quote!(#name),
                ty: quote!(#t),
            }],
            Shape::Ref { .. } | Shape::SelfRef { .. } => {
                vec![void_ptr(quote!((#name as *const _)))]
            }
            Shape::Raw { .. } => vec![void_ptr(quote!(#name))],
            Shape::Slice { .. } => vec![
                void_ptr(quote!(#name.as_ptr())),
                Passed {
                    value: quote!(#name.len()),
                    ty: quote!(usize),
                },
            ],
        }
    }

    /// The type of its shadow argument: the mutable form in reverse mode
    /// (adjoints are added into it), the same type in forward mode.
    pub(crate) fn shadow_type(&self, reverse: bool) -> TokenStream {
        if !reverse {
            return match &self.shape {
                Shape::SelfRef { mutable: true } => quote!(&mut Self),
                Shape::SelfRef { mutable: false } => quote!(&Self),
                _ => self.ty.clone(),
            };
        }
        match &self.shape {
            Shape::Float(t) | Shape::Int(t) => quote!(#t),
            Shape::Ref { elem, .. } => quote!(&mut #elem),
            Shape::Slice { elem, .. } => quote!(&mut [#elem]),
            Shape::Raw { elem } => quote!(*mut #elem),
            Shape::SelfRef { .. } => quote!(&mut Self),
        }
    }

    /// Whether it is passed by value (a float or an integer).
    pub(crate) fn by_value(&self) -> bool {
        matches!(self.shape, Shape::Float(_) | Shape::Int(_))
    }

    /// The float type, for a float parameter.
    pub(crate) fn float(&self) -> Option<&Type> {
        match &self.shape {
            Shape::Float(t) => Some(t),
            _ => None,
        }
    }

    /// The parameter as declared: `name: Type`, or the receiver.
    pub(crate) fn declaration(&self) -> TokenStream {
        let (n, t) = (&self.name, &self.ty);
        if self.is_self() {
            t.clone()
        } else {
            quote!(#n: #t)
        }
    }

    /// Whether it is the receiver.
    pub(crate) fn is_self(&self) -> bool {
        matches!(self.shape, Shape::SelfRef { .. })
    }
}
