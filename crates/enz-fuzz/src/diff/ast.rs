//! The syntax tree of a generated `diff` program (expressions, statements,
//! atomic blocks, helpers, the checked modes) and the deterministic PRNG
//! that `gen.rs` builds it with; `render.rs` prints it as C and `shrink.rs`
//! removes statements from it.

/// splitmix64: small, deterministic, good enough for program generation.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x5DEE_CE66_D1CE_4E5B)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }
    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Uniform in [lo, hi), rounded to 3 decimals (readable C literals).
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        let v = lo + (hi - lo) * self.unit();
        (v * 1000.0).round() / 1000.0
    }
    pub fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len())]
    }
}

/// Smooth, bounded-argument unary operations (the argument is wrapped so
/// that the function is defined and smooth everywhere).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fun {
    Sin,
    Cos,
    Tanh,
    Atan,
    /// exp(-e*e)
    Gauss,
    /// exp(0.5*tanh(e))
    ExpT,
    /// log(1 + e*e)
    LogP,
    /// sqrt(1 + e*e)
    SqrtP,
    /// log1p(e*e)
    Log1p,
    /// expm1(0.5*sin(e))
    Expm1,
    /// asin(0.5*tanh(e))
    Asin,
    /// sinh(0.5*sin(e))
    Sinh,
    /// cbrt(1 + e*e)
    Cbrt,
    /// erf(e)
    Erf,
    /// tan(0.5*sin(e))
    Tan,
    /// e/(1 + e*e)
    Rat,
}

pub const FUNS: [Fun; 16] = [
    Fun::Sin,
    Fun::Cos,
    Fun::Tanh,
    Fun::Atan,
    Fun::Gauss,
    Fun::ExpT,
    Fun::LogP,
    Fun::SqrtP,
    Fun::Log1p,
    Fun::Expm1,
    Fun::Asin,
    Fun::Sinh,
    Fun::Cbrt,
    Fun::Erf,
    Fun::Tan,
    Fun::Rat,
];

/// An expression; rendered per precision by `render.rs`.
#[derive(Clone, Debug)]
pub enum Expr {
    /// A variable or lvalue text, e.g. `s0`, `x[i]`, `t[1]`, `p.u`.
    Var(String),
    Const(f64),
    /// `+`, `-` or `*`.
    Bin(char, Box<Expr>, Box<Expr>),
    /// a / (1.5 + sin(b)) when `true`, a / (1 + b*b) when `false`.
    Div(Box<Expr>, Box<Expr>, bool),
    Call(Fun, Box<Expr>),
    /// pow(1 + e*e, c)
    Pow(Box<Expr>, f64),
    /// atan2(a, 1 + b*b)
    Atan2(Box<Expr>, Box<Expr>),
    /// hypot(a, 0.5 + b*b)
    Hypot(Box<Expr>, Box<Expr>),
    /// fmax(a, b) (`true`) or fmin(a, b): a kink, noted in the reference.
    MinMax(Box<Expr>, Box<Expr>, bool),
    /// pow(1 + a*a, 0.5*sin(b)): an active exponent.
    PowV(Box<Expr>, Box<Expr>),
    /// A call of a scalar helper `h<k>(a, b)`.
    Helper(usize, Box<Expr>, Box<Expr>),
    /// A call through a function-pointer expression `f(a, b)` (the same
    /// text in both copies: the pointers are set up by the block).
    Apply(Box<Expr>, Box<Expr>, Box<Expr>),
}

/// How many times a `for` loop runs.
#[derive(Clone, Debug)]
pub enum Bound {
    /// A literal count (<= NX when the body indexes `x[i]`).
    Const(usize),
    /// The runtime `n` parameter (== NX).
    N,
    /// `(int)(2 + 1.4*sin(e))`: 0..3 iterations, data-dependent.
    Data(Expr),
}

/// One piece of an atomic block: text, or something rendered per precision.
#[derive(Clone, Debug)]
pub enum Piece {
    Text(String),
    /// The scalar type (`double` / `float`).
    Ty,
    /// The 2-lane vector type.
    V2,
    /// A literal constant.
    Lit(f64),
    /// An expression.
    E(Expr),
    /// An assigned value (value-range noted in the reference copy).
    Val(Expr),
    /// A branch quantity `d`, used as `(d) > 0` (margin noted in the reference).
    Cond(Expr),
    /// The name of pointer helper `p<k>` (suffixed in the reference).
    PHelper(usize),
    /// The name of scalar helper `h<k>` (suffixed in the reference).
    SHelper(usize),
    /// `(int)(2 + 1.4*sin(e))`, 0..3 from data (truncation noted in the
    /// reference).
    Itr(Expr),
    /// The struct type.
    St,
    /// The unsigned integer type of the scalar's width (`uint64_t` for
    /// double, `uint32_t` for float): floats moved as integers.
    Bits,
}

/// A statement of the function body.
#[derive(Clone, Debug)]
pub enum Stmt {
    /// `lhs op= rhs;`
    Assign {
        lhs: String,
        op: &'static str,
        rhs: Expr,
    },
    /// `if ((d) > 0) {..} else {..}`
    If {
        d: Expr,
        then_: Vec<Stmt>,
        else_: Vec<Stmt>,
    },
    /// `for (int v = 0; v < bound; v++) {..}`
    For {
        var: String,
        bound: Bound,
        body: Vec<Stmt>,
    },
    /// `for (int v = 0; v < cap && (d) > 0; v++) {..}`
    While {
        var: String,
        cap: usize,
        d: Expr,
        body: Vec<Stmt>,
    },
    /// `int v = 0; do {..} while (++v < cap && (d) > 0);`
    DoWhile {
        var: String,
        cap: usize,
        d: Expr,
        body: Vec<Stmt>,
    },
    /// `if ((d) > 0) break;` (only inside loops)
    Break(Expr),
    /// `if ((d) > 0) return val;`
    Return(Expr, Expr),
    /// An atomic block, shrunk only as a whole.
    Block(Vec<Piece>),
}

/// A helper function.
#[derive(Clone, Debug)]
pub enum Helper {
    /// `T h<k>(T u, T v)`: body pieces producing the return value.
    Scalar { body: Vec<Piece>, noinline: bool },
    /// `void p<k>(T *p, T u)`: updates p[0], p[1].
    Pointer { body: Vec<Piece>, noinline: bool },
}

/// Which derivative modes `main` checks.
#[derive(Clone, Debug, Default)]
pub struct Modes {
    /// `__enzyme_autodiff`, a and b `out`.
    pub rev: bool,
    /// `__enzyme_autodiff` with b `enzyme_const`.
    pub rev_const: bool,
    /// Explicit activity markers in the reverse calls.
    pub markers: bool,
    /// Directions checked with scalar `__enzyme_fwddiff`.
    pub fwd: usize,
    /// `__enzyme_fwddiff` with `enzyme_width, 2`.
    pub vec: bool,
    /// `__enzyme_autodiff` with `enzyme_width, 2`: lane 0 as `rev`, lane 1
    /// with x's shadow seeded with W / FZ_DRET.
    pub rev_vec: bool,
    /// `__enzyme_augmentfwd` + `__enzyme_reverse`.
    pub split: bool,
}

/// A whole generated program: `T fz_f(T *x, T a, T b, int n)` plus `main`.
#[derive(Clone, Debug)]
pub struct Program {
    pub seed: u64,
    pub float: bool,
    /// Length of x.
    pub nx: usize,
    pub helpers: Vec<Helper>,
    /// Initialisers of the locals s0..s3.
    pub init: Vec<Expr>,
    pub body: Vec<Stmt>,
    pub ret: Expr,
    pub modes: Modes,
    /// Candidate points (x..., a, b).
    pub points: Vec<Vec<f64>>,
    /// Output weights of x after the call (the seed of its shadow).
    pub w: Vec<f64>,
    /// Tangent directions (x..., a, b).
    pub dirs: Vec<Vec<f64>>,
    /// The return seed of the split-mode reverse call.
    pub dret: f64,
}
