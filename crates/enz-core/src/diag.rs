//! Diagnostics: what went wrong, in which function, at which instruction and
//! source line.

use crate::ir::Value;
use std::fmt;

/// An error: about the input program (the user can act on it), or, when
/// `internal`, a bug in enz-rs itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// A bug in enz-rs (the CLI exits 2), not something wrong with the input.
    pub internal: bool,
    /// What is wrong, in one sentence.
    pub message: String,
    /// The function being differentiated or containing the problem.
    pub function: Option<String>,
    /// The offending instruction, as printed in IR.
    pub instruction: Option<String>,
    /// `file:line[:col]` from debug info, when present.
    pub location: Option<String>,
    /// How to resolve it, when we know.
    pub help: Option<Box<str>>,
}

impl Diagnostic {
    /// A diagnostic with only a message.
    pub fn new(message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            internal: false,
            message: message.into(),
            function: None,
            instruction: None,
            location: None,
            help: None,
        }
    }

    /// An internal error (enz-rs's own failure, not the input's); the
    /// message starts with "internal error: ".
    pub fn internal(message: impl std::fmt::Display) -> Diagnostic {
        Diagnostic {
            internal: true,
            ..Diagnostic::new(format!("internal error: {message}"))
        }
    }

    /// Names the function the problem is in.
    pub fn in_function(mut self, name: impl Into<String>) -> Diagnostic {
        self.function = Some(name.into());
        self
    }

    /// Attaches an instruction and its source location.
    pub fn at<'m>(mut self, inst: impl Into<Value<'m>>) -> Diagnostic {
        let inst = inst.into();
        self.instruction = Some(inst.to_ir());
        self.location = inst.debug_location();
        self
    }

    /// Attaches advice on how to resolve it.
    pub fn help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into().into_boxed_str());
        self
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "error: ")?;
        if let Some(loc) = &self.location {
            write!(f, "{loc}: ")?;
        }
        write!(f, "{}", self.message)?;
        if let Some(func) = &self.function {
            write!(f, "\n  in function `{func}`")?;
        }
        if let Some(i) = &self.instruction {
            write!(f, "\n  at instruction: {i}")?;
        }
        if let Some(h) = &self.help {
            write!(f, "\n  help: {h}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostic {}
