//! `conformance DIR`: judges replicore against every vector file in DIR and prints one
//! line per kind and a last line `N passed, M failed`; exits 1 on any failure.

use std::path::PathBuf;
use std::process::ExitCode;

const SHOW_FAILURES: usize = 10;

/// `CONFORMANCE_SHOW=n` shows the first n failures instead.
fn show_failures() -> usize {
    std::env::var("CONFORMANCE_SHOW")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(SHOW_FAILURES)
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let dir = match (args.next(), args.next()) {
        (Some(d), None) if d != "-h" && d != "--help" => PathBuf::from(d),
        _ => {
            eprintln!("usage: conformance DIR   (a directory of <kind>.json[.gz] vector files)");
            return ExitCode::from(2);
        }
    };
    let report = match replicore_tests::run_dir(&dir) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("conformance: {e}");
            return ExitCode::from(2);
        }
    };
    for k in &report.kinds {
        println!(
            "{:<13} {:>5} passed, {} failed",
            k.kind,
            k.passed,
            k.failures.len()
        );
    }
    let failures: Vec<_> = report.kinds.iter().flat_map(|k| &k.failures).collect();
    if !failures.is_empty() {
        println!();
        println!("first failures:");
        for f in failures.iter().take(show_failures()) {
            println!("  {f}");
        }
        if failures.len() > show_failures() {
            println!("  … and {} more", failures.len() - show_failures());
        }
        println!();
    }
    println!("{} passed, {} failed", report.passed(), report.failed());
    if report.failed() > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
