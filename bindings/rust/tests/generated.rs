// SPDX-License-Identifier: BSD-3-Clause
// The generated surface covers the schema: every C entry point of sys_ops.rs
// is called by a safe function or method of ops.rs, and the names follow the rule.
use std::collections::BTreeSet;

const SYS: &str = include_str!(concat!(env!("OUT_DIR"), "/sys_ops.rs"));
const OPS: &str = include_str!(concat!(env!("OUT_DIR"), "/ops.rs"));

fn names_after(text: &str, marker: &str) -> BTreeSet<String> {
    text.match_indices(marker)
        .map(|(i, _)| {
            let rest = &text[i + marker.len()..];
            rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect()
        })
        .collect()
}

#[test]
fn every_entry_point_has_a_safe_binding() {
    let declared = names_after(SYS, "pub fn ");
    let called = names_after(OPS, "sys::");
    assert!(declared.len() > 300, "{} entry points", declared.len());
    let missing: Vec<_> = declared.difference(&called).collect();
    assert!(missing.is_empty(), "no safe binding for {:?}", missing);
    // and every entry point is one the library exports: checked by linking
    // (each generated function calls its entry point).
}

#[test]
fn the_naming_rule() {
    let methods: BTreeSet<String> = names_after(OPS, "\n    pub fn ");
    for n in [
        "add",
        "add_scalar",
        "add_",
        "add_scalar_",
        "sum_dim_intlist",
        "where_self",
        "clone_op",
        "to",
        "to_dtype",
        "transpose",
        "select",
        "pow",
        "pow_tensor_scalar",
    ] {
        assert!(methods.contains(n), "{} is generated", n);
    }
    let functions = names_after(OPS, "\n        pub fn ");
    for n in ["add_out", "zeros", "randn", "cat", "pow_scalar", "sum_intlist_out", "arange_start_step"] {
        assert!(functions.contains(n), "ops::{} is generated", n);
    }
    assert!(!OPS.contains("compile_error!"));
}
