//! The base traits stay small: a new backend implements the vector interface of `Backend`
//! and nothing else; the Krylov hooks live in `KrylovBackend` (`src/fused/krylov.rs`). A
//! hook added to `backend.rs` fails here.

const BACKEND: &str = include_str!("../src/backend.rs");

/// The body of `pub trait Backend`, from its opening line to the closing brace at column 0.
fn backend_trait() -> &'static str {
    let start = BACKEND
        .find("pub trait Backend")
        .expect("backend.rs defines pub trait Backend");
    let body = &BACKEND[start..];
    let end = body.find("\n}\n").expect("the trait closes at column 0");
    &body[..end]
}

fn methods(body: &str) -> Vec<&str> {
    body.lines()
        .filter_map(|l| l.trim_start().strip_prefix("fn "))
        .map(|rest| rest.split(['<', '(']).next().unwrap_or(rest))
        .collect()
}

#[test]
fn backend_has_no_krylov_hooks() {
    let names = methods(backend_trait());
    let hooks: Vec<_> = names
        .iter()
        .filter(|n| n.starts_with("lanczos_") || n.ends_with("_coeffs") || **n == "dot_into")
        .collect();
    assert!(
        hooks.is_empty(),
        "Krylov hooks on Backend (they belong in KrylovBackend): {hooks:?}"
    );
    assert!(
        !BACKEND.contains("fn lanczos_"),
        "backend.rs defines a fn lanczos_*"
    );
}

#[test]
fn backend_is_the_vector_interface() {
    let names = methods(backend_trait());
    assert!(
        // 19 with `seeded_entries`: seeded start vectors made where the vectors live (a
        // distributed backend must not build the whole vector on every rank).
        names.len() <= 19,
        "Backend has {} methods, the vector interface has 19: {names:?}",
        names.len()
    );
    for required in [
        "zeros", "upload", "download", "copy", "axpby", "dot", "nrm2",
    ] {
        assert!(
            names.contains(&required),
            "Backend lost {required}: {names:?}"
        );
    }
}
