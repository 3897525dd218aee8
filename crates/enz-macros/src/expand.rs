//! The expansion: the function itself, and its derivative calling the
//! entry point with one marker before each value (`enzyme_out`,
//! `enzyme_dup`, `enzyme_dupnoneed`, `enzyme_const`), through an `extern
//! "C"` declaration of exactly the types passed (no C varargs, so `f32`
//! stays `f32`). A reverse-mode derivative with an active result
//! differentiates a hidden wrapper, `f(args) * dret`, which also writes
//! the primal result out: that is how the seed scales every adjoint.

use crate::params::{param, scalar_name, Param, Passed};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::punctuated::Punctuated;
use syn::{Expr, Ident, ItemFn, ReturnType, Token, Type};

#[derive(Copy, Clone, PartialEq, Eq)]
pub(crate) enum Mode {
    Reverse,
    Forward,
}

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Activity {
    Const,
    Active,
    ActiveOnly,
    Duplicated,
    DuplicatedOnly,
    Dual,
    DualOnly,
}

fn activity(e: &Expr, mode: Mode) -> Result<Activity, syn::Error> {
    let name = match e {
        Expr::Path(p) if p.path.segments.len() == 1 => p.path.segments[0].ident.to_string(),
        _ => return Err(syn::Error::new_spanned(e, "enz: expected an activity")),
    };
    let a = match name.as_str() {
        "Const" => Activity::Const,
        "Active" => Activity::Active,
        "ActiveOnly" => Activity::ActiveOnly,
        "Duplicated" => Activity::Duplicated,
        "DuplicatedOnly" => Activity::DuplicatedOnly,
        "Dual" => Activity::Dual,
        "DualOnly" => Activity::DualOnly,
        _ => {
            return Err(syn::Error::new_spanned(
                e,
                format!("enz: unknown activity `{name}`"),
            ))
        }
    };
    let fits = match mode {
        Mode::Reverse => !matches!(a, Activity::Dual | Activity::DualOnly),
        Mode::Forward => matches!(a, Activity::Const | Activity::Dual | Activity::DualOnly),
    };
    if !fits {
        let allowed = match mode {
            Mode::Reverse => "Active, ActiveOnly, Duplicated, DuplicatedOnly or Const",
            Mode::Forward => "Dual, DualOnly or Const",
        };
        return Err(syn::Error::new_spanned(
            e,
            format!("enz: `{name}` is not an activity of this mode: use {allowed}"),
        ));
    }
    Ok(a)
}

pub(crate) fn expand(mode: Mode, attr: TokenStream, item: TokenStream) -> TokenStream {
    match try_expand(mode, attr, item.clone()) {
        Ok(t) => t,
        Err(e) => {
            let e = e.to_compile_error();
            quote!(#e #item)
        }
    }
}

/// One value for the entry point: its marker (if any) and the value.
struct Arg {
    marker: Option<&'static str>,
    passed: Passed,
}

/// Each value of parameter `p` (a slice's pointer and length) after
/// `marker` (`enzyme_out`, `enzyme_const`).
fn push_marked(args: &mut Vec<Arg>, p: &Param, marker: &'static str) {
    for passed in p.values(&p.name) {
        args.push(Arg {
            marker: Some(marker),
            passed,
        });
    }
}

/// Parameter `p` with `marker` (`enzyme_dup`, `enzyme_dupnoneed`), its
/// pointer (or value) followed by the shadows named `shadows` (one per
/// lane), then a slice's length as a constant.
fn push_with_shadows(args: &mut Vec<Arg>, p: &Param, marker: &'static str, shadows: &[Ident]) {
    let mut values = p.values(&p.name).into_iter();
    args.push(Arg {
        marker: Some(marker),
        passed: values.next().expect("a value"),
    });
    for s in shadows {
        args.push(Arg {
            marker: None,
            passed: p.values(s).into_iter().next().expect("a value"),
        });
    }
    for length in values {
        args.push(Arg {
            marker: Some("enzyme_const"),
            passed: length,
        });
    }
}

fn marker(name: &str) -> TokenStream {
    let id = Ident::new(name, Span::call_site());
    quote!((&raw const ::enz::ffi::#id) as *const ::core::ffi::c_int)
}

fn try_expand(mode: Mode, attr: TokenStream, item: TokenStream) -> Result<TokenStream, syn::Error> {
    let func: ItemFn = syn::parse2(item)?;
    let list = syn::parse::Parser::parse2(Punctuated::<Expr, Token![,]>::parse_terminated, attr)?;
    let mut items = list.iter();
    let Some(Expr::Path(name)) = items.next() else {
        return Err(syn::Error::new(
            Span::call_site(),
            "enz: the first argument is the name of the derivative to generate",
        ));
    };
    let Some(df) = name.path.get_ident().cloned() else {
        return Err(syn::Error::new_spanned(
            name,
            "enz: expected a function name",
        ));
    };
    let rest: Vec<&Expr> = items.collect();
    let mut width = 1u32;
    let rest: Vec<&Expr> = match rest.first() {
        Some(Expr::Lit(l)) => {
            width = match &l.lit {
                syn::Lit::Int(i) => i.base10_parse::<u32>()?,
                _ => {
                    return Err(syn::Error::new_spanned(
                        l,
                        "enz: expected a width or an activity",
                    ))
                }
            };
            if !(1..=16).contains(&width) || (width > 1 && mode == Mode::Reverse) {
                return Err(syn::Error::new_spanned(
                    l,
                    "enz: a vector width is 1 to 16, and for #[autodiff_forward] only",
                ));
            }
            rest[1..].to_vec()
        }
        _ => rest,
    };
    let acts: Vec<Activity> = rest
        .iter()
        .map(|e| activity(e, mode))
        .collect::<Result<_, _>>()?;
    let sig = &func.sig;
    let params: Vec<Param> = sig.inputs.iter().map(param).collect::<Result<_, _>>()?;
    let ret_ty: Option<Type> = match &sig.output {
        ReturnType::Default => None,
        ReturnType::Type(_, t) => match &**t {
            Type::Tuple(tt) if tt.elems.is_empty() => None,
            t => Some(t.clone()),
        },
    };
    let want = params.len() + usize::from(ret_ty.is_some());
    if acts.len() != want {
        return Err(syn::Error::new(
            Span::call_site(),
            format!(
                "enz: `{}` takes {} parameter(s){}: expected {want} activities, got {}",
                sig.ident,
                params.len(),
                if ret_ty.is_some() {
                    " and returns a value"
                } else {
                    ""
                },
                acts.len()
            ),
        ));
    }
    let (in_acts, ret_act) = acts.split_at(params.len());
    let ret_act = ret_act.first().copied();
    for (p, a) in params.iter().zip(in_acts) {
        let needs_memory = matches!(a, Activity::Duplicated | Activity::DuplicatedOnly);
        if needs_memory && p.by_value() {
            return Err(syn::Error::new_spanned(
                &p.name,
                "enz: Duplicated needs a reference, slice or raw pointer; a float passed by value is Active",
            ));
        }
        if matches!(a, Activity::Active | Activity::ActiveOnly) && p.float().is_none() {
            return Err(syn::Error::new_spanned(
                &p.name,
                "enz: Active needs a float (f32 or f64); memory is Duplicated",
            ));
        }
    }
    let ret_float = ret_ty
        .as_ref()
        .is_some_and(|t| matches!(scalar_name(t).as_deref(), Some("f32" | "f64")));
    if matches!(
        ret_act,
        Some(Activity::Active | Activity::ActiveOnly | Activity::Dual | Activity::DualOnly)
    ) && !ret_float
    {
        return Err(syn::Error::new_spanned(
            &sig.output,
            "enz: an active result must be f32 or f64",
        ));
    }
    let generated = match mode {
        Mode::Reverse => reverse(&func, &df, &params, in_acts, ret_act, ret_ty.as_ref()),
        Mode::Forward => forward(
            &func,
            &df,
            &params,
            in_acts,
            ret_act,
            ret_ty.as_ref(),
            width,
        ),
    };
    Ok(quote!(#func #generated))
}

/// `name::<T, N>` (or `Self::name::<...>` for a method) as a pointer.
fn function_pointer(func: &ItemFn, name: &Ident) -> TokenStream {
    let generics: Vec<TokenStream> = func
        .sig
        .generics
        .params
        .iter()
        .filter_map(|g| match g {
            syn::GenericParam::Type(t) => {
                let i = &t.ident;
                Some(quote!(#i))
            }
            syn::GenericParam::Const(c) => {
                let i = &c.ident;
                Some(quote!(#i))
            }
            syn::GenericParam::Lifetime(_) => None,
        })
        .collect();
    let path = if func.sig.receiver().is_some() {
        quote!(Self::#name)
    } else {
        quote!(#name)
    };
    let turbofish = if generics.is_empty() {
        quote!()
    } else {
        quote!(::<#(#generics),*>)
    };
    quote!((#path #turbofish as *const ()) as *const ::core::ffi::c_void)
}

/// The call of the entry point `entry` (an extern declaration of exactly
/// these argument types) on function pointer `f`, returning `ret`.
fn entry_call(
    entry: &str,
    df: &Ident,
    f: TokenStream,
    args: &[Arg],
    ret: &TokenStream,
) -> TokenStream {
    let link_name = format!("{entry}_enz_{df}");
    let mut tys = Vec::new();
    let mut vals = Vec::new();
    for a in args {
        if let Some(m) = a.marker {
            tys.push(quote!(*const ::core::ffi::c_int));
            vals.push(marker(m));
        }
        tys.push(a.passed.ty.clone());
        vals.push(a.passed.value.clone());
    }
    let names: Vec<Ident> = (0..tys.len()).map(|k| format_ident!("a{}", k)).collect();
    quote! {
        unsafe extern "C" {
            #[link_name = #link_name]
            fn __enz_entry(f: *const ::core::ffi::c_void #(, #names: #tys)*) -> #ret;
        }
        unsafe { __enz_entry(#f #(, #vals)*) }
    }
}

/// The entry point's result type for a list of values, and how to take
/// value k out of a result `r`.
fn results(tys: &[TokenStream]) -> (TokenStream, TokenStream, Vec<TokenStream>) {
    match tys.len() {
        0 => (quote!(()), quote!(), vec![]),
        1 => (tys[0].clone(), quote!(), vec![quote!(__enz_r)]),
        _ => {
            let decl = quote! {
                #[repr(C)]
                #[derive(Clone, Copy)]
                struct __EnzResult(#(#tys),*);
            };
            let gets = (0..tys.len())
                .map(|k| {
                    let k = syn::Index::from(k);
                    quote!(__enz_r.#k)
                })
                .collect();
            (quote!(__EnzResult), decl, gets)
        }
    }
}

fn tuple_or_single(items: &[TokenStream]) -> TokenStream {
    match items.len() {
        0 => quote!(()),
        1 => items[0].clone(),
        _ => quote!((#(#items),*)),
    }
}

/// The derivative's signature pieces: visibility, `unsafe` if any input
/// is `...Only`, generics, where clause.
fn header(func: &ItemFn, only: bool) -> (TokenStream, TokenStream, TokenStream, TokenStream) {
    let vis = &func.vis;
    let unsafety = if only { quote!(unsafe) } else { quote!() };
    let generics = &func.sig.generics;
    let (impl_generics, _, where_clause) = generics.split_for_impl();
    let _ = impl_generics;
    let params = &generics.params;
    let g = if params.is_empty() {
        quote!()
    } else {
        quote!(<#params>)
    };
    (quote!(#vis), unsafety, g, quote!(#where_clause))
}

fn reverse(
    func: &ItemFn,
    df: &Ident,
    params: &[Param],
    acts: &[Activity],
    ret_act: Option<Activity>,
    ret_ty: Option<&Type>,
) -> TokenStream {
    let only = acts.contains(&Activity::DuplicatedOnly);
    let (vis, unsafety, generics, where_clause) = header(func, only);
    let mut sig_params = Vec::new();
    let mut args = Vec::new();
    let mut adjoint_tys = Vec::new();
    let mut returned = Vec::new();
    for (p, a) in params.iter().zip(acts) {
        let name = &p.name;
        sig_params.push(p.declaration());
        match a {
            Activity::Active | Activity::ActiveOnly => {
                let t = p.float().expect("checked");
                adjoint_tys.push(quote!(#t));
                // rustc's ActiveOnly input: computed, not returned.
                returned.push(*a == Activity::Active);
                push_marked(&mut args, p, "enzyme_out");
            }
            Activity::Duplicated | Activity::DuplicatedOnly => {
                let shadow = format_ident!("d{}_0", name.to_string());
                let sty = p.shadow_type(true);
                sig_params.push(quote!(#shadow: #sty));
                let m = if *a == Activity::Duplicated {
                    "enzyme_dup"
                } else {
                    "enzyme_dupnoneed"
                };
                push_with_shadows(&mut args, p, m, &[shadow]);
            }
            _ => push_marked(&mut args, p, "enzyme_const"),
        }
    }
    let seeded = matches!(ret_act, Some(Activity::Active | Activity::ActiveOnly));
    let mut helper = quote!();
    let f;
    if seeded {
        let r = ret_ty.expect("checked");
        sig_params.push(quote!(dret: #r));
        // The wrapper f(args) * dret, writing f's result to __enz_primal.
        let wrapper = format_ident!("__enz_seeded_{}", df);
        let orig = &func.sig.ident;
        let wparams: Vec<TokenStream> = params.iter().map(Param::declaration).collect();
        let call_args: Vec<&Ident> = params
            .iter()
            .filter(|p| !p.is_self())
            .map(|p| &p.name)
            .collect();
        let call = if func.sig.receiver().is_some() {
            quote!(self.#orig(#(#call_args),*))
        } else {
            let fp = function_path(func);
            quote!(#fp(#(#call_args),*))
        };
        let plain_generics = &func.sig.generics;
        let params_g = &plain_generics.params;
        let g = if params_g.is_empty() {
            quote!()
        } else {
            quote!(<#params_g>)
        };
        helper = quote! {
            #[doc(hidden)]
            #[allow(non_snake_case, clippy::too_many_arguments)]
            #[inline(never)]
            fn #wrapper #g(#(#wparams,)* __enz_dret: #r, __enz_primal: *mut #r) -> #r #where_clause {
                let __enz_value = #call;
                unsafe { *__enz_primal = __enz_value };
                __enz_value * __enz_dret
            }
        };
        f = function_pointer(func, &wrapper);
        args.push(Arg {
            marker: Some("enzyme_const"),
            passed: Passed {
                value: quote!(dret),
                ty: quote!(#r),
            },
        });
        args.push(Arg {
            marker: Some("enzyme_dup"),
            passed: Passed {
                value: quote!((&raw mut __enz_primal) as *const ::core::ffi::c_void),
                ty: quote!(*const ::core::ffi::c_void),
            },
        });
        args.push(Arg {
            marker: None,
            passed: Passed {
                value: quote!((&raw mut __enz_unused_shadow) as *const ::core::ffi::c_void),
                ty: quote!(*const ::core::ffi::c_void),
            },
        });
    } else {
        f = function_pointer(func, &func.sig.ident);
    }
    // What the entry point returns: f's result first with a Const result
    // (enzyme_primal_return), then the adjoints of the active inputs.
    let const_result = ret_ty.is_some() && ret_act == Some(Activity::Const);
    let mut entry_tys = Vec::new();
    if const_result {
        let r = ret_ty.expect("a result");
        entry_tys.push(quote!(#r));
        args.insert(
            0,
            Arg {
                marker: None,
                passed: Passed {
                    value: marker("enzyme_primal_return"),
                    ty: quote!(*const ::core::ffi::c_int),
                },
            },
        );
        args.insert(
            0,
            Arg {
                marker: None,
                passed: Passed {
                    value: marker("enzyme_const_return"),
                    ty: quote!(*const ::core::ffi::c_int),
                },
            },
        );
    }
    entry_tys.extend(adjoint_tys.iter().cloned());
    let (entry_ret, decl, gets) = results(&entry_tys);
    let call = entry_call("__enzyme_autodiff", df, f, &args, &entry_ret);
    let offset = usize::from(const_result);
    let adjoints: Vec<TokenStream> = gets[offset..]
        .iter()
        .zip(&returned)
        .filter(|(_, keep)| **keep)
        .map(|(g, _)| g.clone())
        .collect();
    let (primal, setup) = if seeded {
        let r = ret_ty.expect("a result");
        (
            Some(quote!(__enz_primal)),
            quote! {
                let mut __enz_primal: #r = 0.0;
                let mut __enz_unused_shadow: #r = 0.0;
            },
        )
    } else if const_result {
        (Some(gets[0].clone()), quote!())
    } else {
        (None, quote!())
    };
    let with_primal = primal.is_some() && ret_act != Some(Activity::ActiveOnly);
    let (ret_sig, value) = if with_primal {
        let r = ret_ty.expect("a result");
        let p = primal.expect("a primal");
        if adjoints.is_empty() {
            (quote!(#r), p)
        } else {
            let tys: Vec<TokenStream> = std::iter::once(quote!(#r))
                .chain(
                    adjoint_tys
                        .iter()
                        .zip(&returned)
                        .filter(|(_, k)| **k)
                        .map(|(t, _)| t.clone()),
                )
                .collect();
            (quote!((#(#tys),*)), quote!((#p, #(#adjoints),*)))
        }
    } else {
        let tys: Vec<TokenStream> = adjoint_tys
            .iter()
            .zip(&returned)
            .filter(|(_, k)| **k)
            .map(|(t, _)| t.clone())
            .collect();
        (tuple_or_single(&tys), tuple_or_single(&adjoints))
    };
    let doc = format!(
        "Reverse-mode derivative of [`{}`] (generated by `#[autodiff_reverse]`).",
        func.sig.ident
    );
    quote! {
        #helper
        #[doc = #doc]
        #[allow(non_snake_case, clippy::too_many_arguments, unused_unsafe, unused_variables)]
        #[inline(never)]
        #vis #unsafety fn #df #generics(#(#sig_params),*) -> #ret_sig #where_clause {
            #decl
            #setup
            let __enz_r = { #call };
            #value
        }
    }
}

/// The path of the original function (for a call in the wrapper).
fn function_path(func: &ItemFn) -> TokenStream {
    let name = &func.sig.ident;
    quote!(#name)
}

fn forward(
    func: &ItemFn,
    df: &Ident,
    params: &[Param],
    acts: &[Activity],
    ret_act: Option<Activity>,
    ret_ty: Option<&Type>,
    width: u32,
) -> TokenStream {
    let only = acts.contains(&Activity::DualOnly);
    let (vis, unsafety, generics, where_clause) = header(func, only);
    let mut sig_params = Vec::new();
    let mut args = Vec::new();
    for (p, a) in params.iter().zip(acts) {
        let name = &p.name;
        sig_params.push(p.declaration());
        match a {
            Activity::Dual | Activity::DualOnly => {
                let sty = p.shadow_type(false);
                // One tangent per lane, right after the parameter.
                let shadows: Vec<Ident> = (0..width)
                    .map(|k| format_ident!("b{}_{}", name.to_string(), k))
                    .collect();
                for shadow in &shadows {
                    sig_params.push(quote!(#shadow: #sty));
                }
                let m = if *a == Activity::Dual {
                    "enzyme_dup"
                } else {
                    "enzyme_dupnoneed"
                };
                push_with_shadows(&mut args, p, m, &shadows);
            }
            _ => push_marked(&mut args, p, "enzyme_const"),
        }
    }
    let f = function_pointer(func, &func.sig.ident);
    let ptr_marker = |m: &str| Arg {
        marker: None,
        passed: Passed {
            value: marker(m),
            ty: quote!(*const ::core::ffi::c_int),
        },
    };
    if width > 1 {
        let n = width as i32;
        args.insert(
            0,
            Arg {
                marker: Some("enzyme_width"),
                passed: Passed {
                    value: quote!(#n),
                    ty: quote!(::core::ffi::c_int),
                },
            },
        );
    }
    let (entry_tys, ret_sig, value): (Vec<TokenStream>, TokenStream, TokenStream) =
        match (ret_ty, ret_act) {
            // Vector mode: [f(x), tangents...] or [tangents...], as arrays.
            (Some(r), Some(Activity::Dual | Activity::DualOnly)) if width > 1 => {
                let with_primal = ret_act == Some(Activity::Dual);
                let lanes = width as usize + usize::from(with_primal);
                if with_primal {
                    args.insert(0, ptr_marker("enzyme_primal_return"));
                }
                let tys: Vec<TokenStream> = (0..lanes).map(|_| quote!(#r)).collect();
                let gets: Vec<TokenStream> = (0..lanes)
                    .map(|k| {
                        let k = syn::Index::from(k);
                        quote!(__enz_r.#k)
                    })
                    .collect();
                (tys, quote!([#r; #lanes]), quote!([#(#gets),*]))
            }
            (Some(r), Some(Activity::Dual)) => {
                args.insert(0, ptr_marker("enzyme_primal_return"));
                (
                    vec![quote!(#r), quote!(#r)],
                    quote!((#r, #r)),
                    quote!((__enz_r.0, __enz_r.1)),
                )
            }
            (Some(r), Some(Activity::DualOnly)) => (vec![quote!(#r)], quote!(#r), quote!(__enz_r)),
            (Some(r), _) => {
                args.insert(0, ptr_marker("enzyme_primal_return"));
                args.insert(0, ptr_marker("enzyme_const_return"));
                (vec![quote!(#r)], quote!(#r), quote!(__enz_r))
            }
            (None, _) => (vec![], quote!(()), quote!(())),
        };
    let (entry_ret, decl, _) = results(&entry_tys);
    let call = entry_call("__enzyme_fwddiff", df, f, &args, &entry_ret);
    let doc = format!(
        "Forward-mode derivative of [`{}`] (generated by `#[autodiff_forward]`).",
        func.sig.ident
    );
    quote! {
        #[doc = #doc]
        #[allow(non_snake_case, clippy::too_many_arguments, unused_unsafe, unused_variables)]
        #[inline(never)]
        #vis #unsafety fn #df #generics(#(#sig_params),*) -> #ret_sig #where_clause {
            #decl
            let __enz_r = { #call };
            #value
        }
    }
}
