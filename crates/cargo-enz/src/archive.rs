//! Reading the members of a `.rlib` (a GNU `ar` archive): which of them
//! are LLVM bitcode (a crate built with linker-plugin LTO) and which are
//! native objects.

/// One archive member, borrowed from the archive's bytes.
pub(crate) struct Member<'a> {
    pub(crate) name: String,
    pub(crate) data: &'a [u8],
}

/// Whether `bytes` is LLVM bitcode (raw, or in the bitcode wrapper).
pub(crate) fn is_bitcode(bytes: &[u8]) -> bool {
    bytes.starts_with(b"BC\xC0\xDE") || bytes.starts_with(&[0xDE, 0xC0, 0x17, 0x0B])
}

/// The members of the archive `bytes` (symbol tables and the long-name
/// table left out), or `None` when it is not an `ar` archive.
pub(crate) fn members(bytes: &[u8]) -> Option<Vec<Member<'_>>> {
    let mut rest = bytes.strip_prefix(b"!<arch>\n")?;
    let mut long_names: &[u8] = &[];
    let mut out = Vec::new();
    while rest.len() >= 60 {
        let (header, body) = rest.split_at(60);
        if &header[58..60] != b"`\n" {
            return None;
        }
        let size: usize = std::str::from_utf8(&header[48..58])
            .ok()?
            .trim()
            .parse()
            .ok()?;
        if body.len() < size {
            return None;
        }
        let data = &body[..size];
        let raw_name = std::str::from_utf8(&header[..16]).ok()?.trim_end();
        let name = match raw_name {
            "/" | "/SYM64/" => None,
            "//" => {
                long_names = data;
                None
            }
            n if n.starts_with('/') => {
                let at: usize = n[1..].parse().ok()?;
                let tail = long_names.get(at..)?;
                let end = tail.iter().position(|&b| b == b'\n').unwrap_or(tail.len());
                let s = std::str::from_utf8(&tail[..end]).ok()?;
                Some(s.trim_end_matches('/').to_string())
            }
            n => Some(n.trim_end_matches('/').to_string()),
        };
        if let Some(name) = name {
            out.push(Member { name, data });
        }
        let padded = size + (size & 1);
        rest = body.get(padded..).unwrap_or(&[]);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(name: &str, size: usize) -> Vec<u8> {
        let mut h = format!("{name:<16}{:<12}{:<6}{:<6}{:<8}{size:<10}", 0, 0, 0, 644).into_bytes();
        h.extend_from_slice(b"`\n");
        h
    }

    #[test]
    fn reads_short_and_long_names_and_skips_tables() {
        let long = "a-very-long-member-name.rcgu.o/\n";
        let mut a = b"!<arch>\n".to_vec();
        a.extend(header("/", 4));
        a.extend(b"\0\0\0\0");
        a.extend(header("//", long.len()));
        a.extend(long.as_bytes());
        a.extend(header("lib.rmeta/", 3));
        a.extend(b"xyz\n"); // odd size: one byte of padding
        a.extend(header("/0", 4));
        a.extend(b"BC\xC0\xDE");
        let m = members(&a).expect("an archive");
        assert_eq!(m.len(), 2);
        assert_eq!(m[0].name, "lib.rmeta");
        assert_eq!(m[0].data, b"xyz");
        assert_eq!(m[1].name, "a-very-long-member-name.rcgu.o");
        assert!(is_bitcode(m[1].data));
        assert!(members(b"not an archive").is_none());
    }
}
