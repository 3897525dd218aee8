//! A small dependency crate: a spring chain's energy, differentiated by
//! the crate that uses it.

/// Energy of springs of stiffness `k` and rest length `rest` between
/// consecutive points of `x`.
pub fn chain_energy(x: &[f64], k: f64, rest: f64) -> f64 {
    x.windows(2)
        .map(|w| {
            let d = (w[1] - w[0]).abs() - rest;
            0.5 * k * d * d
        })
        .sum()
}
