//! A statement-level shrinker for failing `diff` programs: drops checked
//! modes, statements (anywhere in the tree) and helpers, and replaces
//! compound statements by their bodies, keeping each change for which the
//! failure persists.

use super::gen::{Helper, Program, Stmt};

/// The number of statements in `ss`, nested ones included (preorder).
pub fn count(ss: &[Stmt]) -> usize {
    ss.iter()
        .map(|s| {
            1 + match s {
                Stmt::If { then_, else_, .. } => count(then_) + count(else_),
                Stmt::For { body, .. } | Stmt::While { body, .. } | Stmt::DoWhile { body, .. } => {
                    count(body)
                }
                _ => 0,
            }
        })
        .sum()
}

/// Applies `edit` to the `n`-th statement in preorder: `edit` returns its
/// replacement (empty to delete it). Returns whether statement `n` existed.
fn edit_nth(ss: &mut Vec<Stmt>, n: &mut usize, edit: &dyn Fn(&Stmt) -> Vec<Stmt>) -> bool {
    let mut i = 0;
    while i < ss.len() {
        if *n == 0 {
            let rep = edit(&ss[i]);
            ss.splice(i..i + 1, rep);
            return true;
        }
        *n -= 1;
        let done = match &mut ss[i] {
            Stmt::If { then_, else_, .. } => edit_nth(then_, n, edit) || edit_nth(else_, n, edit),
            Stmt::For { body, .. } | Stmt::While { body, .. } | Stmt::DoWhile { body, .. } => {
                edit_nth(body, n, edit)
            }
            _ => false,
        };
        if done {
            return true;
        }
        i += 1;
    }
    false
}

fn with_edit(p: &Program, n: usize, edit: &dyn Fn(&Stmt) -> Vec<Stmt>) -> Option<Program> {
    let mut q = p.clone();
    let mut k = n;
    if edit_nth(&mut q.body, &mut k, edit) {
        Some(q)
    } else {
        None
    }
}

/// The body of a compound statement (to replace it), `None` for others.
fn unwrap(s: &Stmt) -> Option<Vec<Stmt>> {
    match s {
        Stmt::If { then_, else_, .. } => {
            if then_.is_empty() {
                Some(else_.clone())
            } else {
                Some(then_.clone())
            }
        }
        Stmt::For { body, .. } | Stmt::While { body, .. } | Stmt::DoWhile { body, .. } => {
            Some(body.clone())
        }
        _ => None,
    }
}

/// Mode-removal candidates (each keeps at least one mode).
fn fewer_modes(p: &Program) -> Vec<Program> {
    let m = &p.modes;
    let active = m.rev as usize
        + m.rev_const as usize
        + m.fwd
        + m.vec as usize
        + m.split as usize
        + m.rev_vec as usize;
    let mut v = Vec::new();
    if active <= 1 {
        return v;
    }
    let mut push = |f: &dyn Fn(&mut Program)| {
        let mut q = p.clone();
        f(&mut q);
        v.push(q);
    };
    if m.rev {
        push(&|q| q.modes.rev = false);
    }
    if m.rev_const {
        push(&|q| q.modes.rev_const = false);
    }
    if m.fwd > 0 {
        push(&|q| q.modes.fwd -= 1);
    }
    if m.vec {
        push(&|q| q.modes.vec = false);
    }
    if m.split {
        push(&|q| q.modes.split = false);
    }
    if m.rev_vec {
        push(&|q| q.modes.rev_vec = false);
    }
    if m.markers {
        push(&|q| q.modes.markers = false);
    }
    v
}

/// Shrinks `p` while `fails` holds; `fails(p)` is assumed true. At most
/// `MAX_TRIES` candidates are tried.
pub fn shrink(p: &Program, fails: impl Fn(&Program) -> bool) -> Program {
    const MAX_TRIES: usize = 400;
    let mut cur = p.clone();
    let tries = std::cell::Cell::new(0usize);
    let try_it = |cand: &Program, cur: &mut Program| -> bool {
        if tries.get() >= MAX_TRIES {
            return false;
        }
        tries.set(tries.get() + 1);
        if fails(cand) {
            *cur = cand.clone();
            true
        } else {
            false
        }
    };
    loop {
        let mut progress = false;
        for cand in fewer_modes(&cur) {
            if try_it(&cand, &mut cur) {
                progress = true;
                break;
            }
        }
        // delete statements, last first (later ones depend on earlier ones)
        let mut i = count(&cur.body);
        while i > 0 {
            i -= 1;
            if i >= count(&cur.body) {
                continue;
            }
            if let Some(c) = with_edit(&cur, i, &|_| Vec::new()) {
                if try_it(&c, &mut cur) {
                    progress = true;
                    continue;
                }
            }
            if let Some(c) = with_edit(&cur, i, &|s| unwrap(s).unwrap_or_else(|| vec![s.clone()])) {
                if count(&c.body) < count(&cur.body) && try_it(&c, &mut cur) {
                    progress = true;
                }
            }
        }
        // drop helpers nothing calls any more (the last of each kind, so
        // that the names of the others do not change)
        let mut i = cur.helpers.len();
        while i > 0 {
            i -= 1;
            if i >= cur.helpers.len() {
                continue;
            }
            let is_scalar = matches!(cur.helpers[i], Helper::Scalar { .. });
            let same = |h: &Helper| matches!(h, Helper::Scalar { .. }) == is_scalar;
            if cur.helpers[i + 1..].iter().any(same) {
                continue;
            }
            let k = cur.helpers[..i].iter().filter(|h| same(h)).count();
            let mut q = cur.clone();
            q.helpers.remove(i);
            let text = super::render::render(&q, "");
            let name = if is_scalar {
                format!("h{k}(")
            } else {
                format!("p{k}(")
            };
            if !text.contains(&name) && try_it(&q, &mut cur) {
                progress = true;
            }
        }
        if !progress || tries.get() >= MAX_TRIES {
            break;
        }
    }
    cur
}
