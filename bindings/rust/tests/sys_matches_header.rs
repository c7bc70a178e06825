//! The `sys` module against the headers: every function of include/fbstorage/*.h is declared
//! with the same number of parameters, and nothing else is; the codes match the library's.
use std::collections::BTreeMap;
use std::ffi::CStr;
use std::path::PathBuf;

use fbstorage::ErrorCode;

fn include_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../include/fbstorage")
}

/// Name → parameter count of every fbs_ function declared in `code` (comments removed):
/// statements are split at ';', and the first "name(" of a statement (after its last brace and
/// without preprocessor lines) that is not a typedef or a Rust type alias is the function.
fn prototypes(code: &str) -> BTreeMap<String, usize> {
    let mut found = BTreeMap::new();
    for statement in code.split(';') {
        let statement: String = statement.lines().filter(|l| !l.trim_start().starts_with('#')).collect::<Vec<_>>().join(" ");
        // What follows the last brace: drops `extern "C" {` and the end of the previous block.
        let statement = statement[statement.rfind(['{', '}']).map_or(0, |i| i + 1)..].trim();
        if statement.starts_with("typedef") || statement.starts_with("pub type") {
            continue;
        }
        let Some(open) = statement.find('(') else { continue };
        let Some(name) = statement[..open].split(|c: char| !(c.is_alphanumeric() || c == '_')).next_back() else { continue };
        if !name.starts_with("fbs_") {
            continue;
        }
        let (mut depth, mut commas, mut close) = (0, 0, open);
        for (i, c) in statement[open..].char_indices() {
            match c {
                '(' => depth += 1,
                ')' => { depth -= 1; if depth == 0 { close = open + i; break; } }
                ',' if depth == 1 => commas += 1,
                _ => {}
            }
        }
        let parameters = statement[open + 1..close].trim().trim_end_matches(',');
        let count = if parameters.is_empty() || parameters == "void" { 0 } else { commas + 1 - usize::from(statement[open + 1..close].trim().ends_with(',')) };
        assert!(found.insert(name.to_owned(), count).is_none(), "{name} declared twice");
    }
    found
}

fn without_comments(text: &str) -> String {
    let mut code = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("/*") {
        code.push_str(&rest[..start]);
        rest = &rest[start + rest[start..].find("*/").unwrap() + 2..];
    }
    code.push_str(rest);
    code.lines().map(|l| l.split("//").next().unwrap()).collect::<Vec<_>>().join("\n")
}

#[test]
fn sys_declares_every_header_function_with_its_arity() {
    let mut header = BTreeMap::new();
    for entry in std::fs::read_dir(include_dir()).unwrap() {
        header.extend(prototypes(&without_comments(&std::fs::read_to_string(entry.unwrap().path()).unwrap())));
    }
    let sys = prototypes(&without_comments(include_str!("../src/sys.rs")));
    assert!(header.len() > 140, "parsed only {} prototypes", header.len());
    assert_eq!(sys, header);
}

#[test]
fn error_codes_match_the_library() {
    let mut index = 0;
    let mut checked = 0;
    loop {
        let mut value = 0i64;
        let name = unsafe { fbstorage::sys::fbs_constant(index, &mut value) };
        if name.is_null() {
            break;
        }
        let name = unsafe { CStr::from_ptr(name) }.to_str().unwrap();
        if name.starts_with("FBS_ERR_") {
            let code = ErrorCode::from_raw(value as i32);
            assert!(!matches!(code, ErrorCode::Other(_)), "{name} = {value} has no variant");
            assert_eq!(code.name(), name);
            checked += 1;
        }
        index += 1;
    }
    assert!(checked >= 16, "only {checked} codes");
    assert_eq!(fbstorage::version(), format!("{}", env!("CARGO_PKG_VERSION")));
}
