//! Every configuration in `queries/` plans, and its printed plan is snapshotted; every file in
//! `queries/errors/` fails with the text its first line (`-- fail: <text>`) promises.

use std::fs;
use std::path::{Path, PathBuf};

use fluxgate::cep::explain::explain;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("queries")
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .expect("queries directory")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

fn stem(path: &Path) -> String {
    path.file_stem().expect("file name").to_string_lossy().into_owned()
}

#[test]
fn every_query_plans_and_matches_its_snapshot() {
    let queries = files(&root());
    assert!(queries.len() >= 6, "seed and Cepheus configurations are present");
    for path in queries {
        let text = fs::read_to_string(&path).expect("readable");
        let plan = explain(&text).unwrap_or_else(|e| panic!("{} fails:\n{e}", path.display()));
        insta::assert_snapshot!(format!("plan-{}", stem(&path)), plan);
    }
}

#[test]
fn every_error_file_fails_as_its_first_line_says() {
    let cases = files(&root().join("errors"));
    assert!(cases.len() >= 10, "error corpus is present");
    for path in cases {
        let text = fs::read_to_string(&path).expect("readable");
        let (first, body) = text.split_once('\n').expect("a first line and a body");
        let expected = first
            .strip_prefix("-- fail: ")
            .unwrap_or_else(|| panic!("{}: first line must be `-- fail: <text>`", path.display()));
        let errors = match explain(body) {
            Ok(plan) => panic!("{} should fail but planned:\n{plan}", path.display()),
            Err(errors) => errors,
        };
        assert!(errors.contains(expected.trim()), "{}: expected `{expected}` in:\n{errors}", path.display());
        insta::assert_snapshot!(format!("error-{}", stem(&path)), errors);
    }
}
