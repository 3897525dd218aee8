//! The `malformed` campaign (to be written).

use crate::outcome::Summary;
use crate::CommonArgs;

/// Runs the campaign and returns its tally.
pub fn run(args: &CommonArgs) -> Summary {
    let _ = args;
    Summary::new("malformed")
}
