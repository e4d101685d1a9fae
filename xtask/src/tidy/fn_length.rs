//! No function of a library crate longer than [`MAX_LINES`] lines.
//!
//! Reads `crates/*/src/**/*.rs` and `cuda-sys/src/**/*.rs` (tests, benches, examples and
//! xtask are not library code), blanks comments, string and character literals, and measures
//! each `fn` with a body from its `fn` line to its closing brace. Test functions (`#[test]`
//! within the three lines above) are exempt. A long function is reported as `file:line`.

use super::{root, rust_files, source_dirs};
use regex::Regex;

/// The longest a library function may be, in lines from `fn` to its closing brace.
const MAX_LINES: usize = 150;

/// Functions over [`MAX_LINES`] that their owners will split, as (file, function, length
/// today). The test fails when one of them grows past its length, and when one is no longer
/// over the limit (delete its row then), so the list only shrinks.
// TODO(issue 30): split these; then delete the list.
const TOO_LONG_YET: &[(&str, &str, usize)] = &[];

/// A function found in a file: its name, its first line (1-based), its length in lines and
/// whether it is a test.
#[derive(Debug, PartialEq)]
struct Function {
    name: String,
    line: usize,
    lines: usize,
    test: bool,
}

/// `src` with comments, string literals and character literals replaced by spaces, newlines
/// kept, so that braces and line numbers can be read off the result.
fn blank_literals(src: &str) -> String {
    let c: Vec<char> = src.chars().collect();
    let n = c.len();
    let mut out = String::with_capacity(src.len());
    let blank = |out: &mut String, s: &[char]| {
        out.extend(s.iter().map(|&ch| if ch == '\n' { '\n' } else { ' ' }))
    };
    let at = |i: usize, pat: &str| {
        pat.chars()
            .enumerate()
            .all(|(k, p)| c.get(i + k) == Some(&p))
    };
    let mut i = 0;
    while i < n {
        let ident_before = i > 0 && (c[i - 1].is_alphanumeric() || c[i - 1] == '_');
        if at(i, "//") {
            let j = (i..n).find(|&j| c[j] == '\n').unwrap_or(n);
            blank(&mut out, &c[i..j]);
            i = j;
        } else if at(i, "/*") {
            let (mut depth, mut j) = (1, i + 2);
            while j < n && depth > 0 {
                if at(j, "/*") {
                    depth += 1;
                    j += 2;
                } else if at(j, "*/") {
                    depth -= 1;
                    j += 2;
                } else {
                    j += 1;
                }
            }
            blank(&mut out, &c[i..j.min(n)]);
            i = j.min(n);
        } else if !ident_before && raw_string_start(&c[i..]).is_some() {
            let (open, hashes) = raw_string_start(&c[i..]).unwrap();
            let mut j = i + open;
            while j < n && !(c[j] == '"' && (1..=hashes).all(|k| c.get(j + k) == Some(&'#'))) {
                j += 1;
            }
            let end = (j + 1 + hashes).min(n);
            blank(&mut out, &c[i..end]);
            i = end;
        } else if c[i] == '"' {
            let mut j = i + 1;
            while j < n && c[j] != '"' {
                j += if c[j] == '\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(n);
            blank(&mut out, &c[i..end]);
            i = end;
        } else if c[i] == '\'' {
            // A character literal ('x', '\n', '\u{1F}'), not a lifetime ('a).
            let len = if c.get(i + 1) == Some(&'\\') {
                (i + 3..n.min(i + 12))
                    .find(|&j| c[j] == '\'')
                    .map(|j| j + 1 - i)
            } else if c.get(i + 2) == Some(&'\'') {
                Some(3)
            } else {
                None
            };
            match len {
                Some(len) => {
                    blank(&mut out, &c[i..i + len]);
                    i += len;
                }
                None => {
                    out.push('\'');
                    i += 1;
                }
            }
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

/// For `r"`, `r#"`, `br##"` … at the start of `c`: the length of the opening and the number
/// of `#`.
fn raw_string_start(c: &[char]) -> Option<(usize, usize)> {
    let start = if c.first() == Some(&'b') { 1 } else { 0 };
    if c.get(start) != Some(&'r') {
        return None;
    }
    let hashes = c[start + 1..].iter().take_while(|&&ch| ch == '#').count();
    (c.get(start + 1 + hashes) == Some(&'"')).then_some((start + 2 + hashes, hashes))
}

/// Every function with a body in `src`.
fn functions(src: &str) -> Vec<Function> {
    let fn_line = Regex::new(
        r"^\s*(pub(\([^)]*\))?\s+)?(default\s+)?(const\s+)?(async\s+)?(unsafe\s+)?(extern\s+)?fn\s+([A-Za-z_][A-Za-z0-9_]*)",
    )
    .expect("fn pattern");
    let code = blank_literals(src);
    let lines: Vec<&str> = code.split('\n').collect();
    let raw: Vec<&str> = src.split('\n').collect();
    let bytes = code.as_bytes();
    let mut offset = 0;
    let mut found = Vec::new();
    for (li, line) in lines.iter().enumerate() {
        let start = offset;
        offset += line.len() + 1;
        let Some(m) = fn_line.captures(line) else {
            continue;
        };
        // The body opens at the first `{` outside parentheses and brackets; a `;` there
        // first means a declaration without body.
        let mut depth = 0i32;
        let mut open = None;
        for (k, &b) in bytes.iter().enumerate().skip(start) {
            match b {
                b'(' | b'[' => depth += 1,
                b')' | b']' => depth -= 1,
                b';' if depth == 0 => break,
                b'{' if depth == 0 => {
                    open = Some(k);
                    break;
                }
                _ => {}
            }
        }
        let Some(open) = open else {
            continue;
        };
        let mut braces = 0i32;
        let mut close = bytes.len();
        for (k, &b) in bytes.iter().enumerate().skip(open) {
            match b {
                b'{' => braces += 1,
                b'}' => {
                    braces -= 1;
                    if braces == 0 {
                        close = k;
                        break;
                    }
                }
                _ => {}
            }
        }
        let end_line = bytes[..close].iter().filter(|&&b| b == b'\n').count();
        let test = raw[li.saturating_sub(3)..li]
            .iter()
            .any(|l| l.contains("#[test]"));
        found.push(Function {
            name: m[8].to_string(),
            line: li + 1,
            lines: end_line - li + 1,
            test,
        });
    }
    found
}

#[test]
fn library_functions_are_at_most_150_lines() {
    let root = root();
    let mut too_long = Vec::new();
    let mut grown = Vec::new();
    let mut seen = Vec::new();
    for dir in source_dirs(&root) {
        let mut files = Vec::new();
        rust_files(&dir, &mut files);
        for file in files {
            let rel = file.strip_prefix(&root).unwrap_or(&file);
            let rel = rel.to_string_lossy().replace('\\', "/");
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            for f in functions(&text)
                .into_iter()
                .filter(|f| !f.test && f.lines > MAX_LINES)
            {
                let here = format!("{rel}:{}: fn {} is {} lines", f.line, f.name, f.lines);
                match TOO_LONG_YET
                    .iter()
                    .find(|(p, n, _)| *p == rel && *n == f.name)
                {
                    Some(&(_, _, listed)) => {
                        seen.push((rel.clone(), f.name.clone()));
                        if f.lines > listed {
                            grown.push(format!("{here}, listed at {listed}"));
                        }
                    }
                    None => too_long.push(here),
                }
            }
        }
    }
    let short_now: Vec<String> = TOO_LONG_YET
        .iter()
        .filter(|(p, n, _)| !seen.iter().any(|(sp, sn)| sp == p && sn == n))
        .map(|(p, n, _)| format!("{p}: fn {n}"))
        .collect();
    assert!(
        too_long.is_empty(),
        "functions longer than {MAX_LINES} lines (split them):\n{}",
        too_long.join("\n")
    );
    assert!(
        grown.is_empty(),
        "functions of TOO_LONG_YET (xtask/src/tidy/fn_length.rs) grew (split them, or at \
         least do not lengthen them):\n{}",
        grown.join("\n")
    );
    assert!(
        short_now.is_empty(),
        "no longer over {MAX_LINES} lines (or gone): delete them from TOO_LONG_YET \
         (xtask/src/tidy/fn_length.rs):\n{}",
        short_now.join("\n")
    );
}

#[test]
fn functions_are_measured_from_fn_to_closing_brace() {
    let src = r#####"
/// fn not_this() {
pub(crate) fn first(x: [u8; 2]) -> usize {
    let s = "}}}";
    let r = r#"{"#;
    let c = '{';
    let l: &'static str = "";
    /* { */ x.len()
}
fn declared();
#[test]
fn a_test() {
}
impl X {
    pub const unsafe fn second<'a>(&'a self) {}
}
"#####;
    let found = functions(src);
    let summary: Vec<_> = found
        .iter()
        .map(|f| (f.name.as_str(), f.line, f.lines, f.test))
        .collect();
    assert_eq!(
        summary,
        [
            ("first", 3, 7, false),
            ("a_test", 12, 2, true),
            ("second", 15, 1, false)
        ]
    );
    assert_eq!(
        blank_literals("a('\\'', \"x\\\"y\") // z\nb"),
        "a(    ,       )     \nb"
    );
}
