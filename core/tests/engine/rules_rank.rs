//! Choosing pods to delete (§10): R-70 (first n), R-71 (co-location rank), R-72
//! (comparator rules 1–9), R-73 (log buckets), R-74 (restarts), R-60 (cost, gate), plus
//! related pods and the scale-down step that uses them (R-55..R-57).
//! Upstream A5 (TestGetReplicaSetsWithSameController), A7 (TestRelatedPodsLookup),
//! A26 (TestGetPodsToDelete), C8 (TestSortingActivePods), C9
//! (TestSortingActivePodsWithRanks); suggested vectors E2, E3; edge cases E-15, E-16.

use crate::common;

use std::collections::HashMap;

use common::*;
use replicore::replicaset::owner;
use replicore::replicaset::rank::{
    colocation_counts, pods_to_delete, rank, upstream_less, RankRule,
};
use replicore::{plan, Config, FeatureGates, Pod};
use serde_json::json;

fn gates() -> FeatureGates {
    FeatureGates::default()
}

fn gates_1_21() -> FeatureGates {
    FeatureGates::for_version(1, 21)
}

/// Names of `rank(candidates)` in deletion order.
fn order(cands: &[Pod], related: &[Pod], g: &FeatureGates) -> Vec<String> {
    let c: Vec<&Pod> = cands.iter().collect();
    let r: Vec<&Pod> = related.iter().collect();
    rank(&c, &r, now(), g)
        .iter()
        .map(|rp| cands[rp.index].name().to_owned())
        .collect()
}

/// The rule recorded between the first and second pod of `rank([a, b])`, and who is first.
fn first_and_rule(a: &P, b: &P, g: &FeatureGates) -> (String, Option<RankRule>) {
    let pods = build_pods(&[a.clone(), b.clone()]);
    let c: Vec<&Pod> = pods.iter().collect();
    let ranked = rank(&c, &c, now(), g);
    (pods[ranked[0].index].name().to_owned(), ranked[0].rule)
}

/// A deterministic permutation of `0..n` from a seed (LCG + Fisher-Yates).
fn permutation(n: usize, seed: u64) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..n).collect();
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    for i in (1..n).rev() {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let j = ((s >> 33) as usize) % (i + 1);
        idx.swap(i, j);
    }
    idx
}

// ---------------------------------------------------------------------------------------
// C9 fixtures: "now" and "then" = now − 1 month

fn then() -> String {
    ago(MONTH)
}

fn c9(name: &str) -> P {
    let base = pod(name).node("node").uid("");
    match name {
        "unscheduled" => pod(name).uid(""),
        "pending" => base,
        "unknown-phase" => base.phase("Unknown"),
        "not-ready" => base.phase("Running"),
        "ready-no-ltt" => base.ready_no_ltt(),
        "ready-now" => base.ready_since(NOW).created(NOW),
        "ready-then" => base.ready_since(&then()).created(&then()),
        "ready-high-restarts" => base.ready_since(NOW).created(NOW).restarts(&[9001]),
        "ready-high-side-restarts" => base
            .ready_since(NOW)
            .created(NOW)
            .restarts(&[9001])
            .sidecar_restarts(9001),
        "ready-now-created-then" => base.ready_since(NOW).created(&then()),
        "low-deletion-cost" => base.ready_since(NOW).created(&then()).cost("10"),
        "high-deletion-cost" => base.ready_since(NOW).created(&then()).cost("100"),
        "unscheduled-5h" => pod(name).uid("").created(&ago(5.0 * HOUR)),
        "unscheduled-8h" => pod(name).uid("").created(&ago(8.0 * HOUR)),
        "ready-2h" => pod(name)
            .uid("")
            .ready_since(&ago(2.0 * HOUR))
            .created(&then()),
        "ready-5h" => pod(name)
            .uid("")
            .ready_since(&ago(5.0 * HOUR))
            .created(&then()),
        "ready-8h" => pod(name)
            .uid("")
            .ready_since(&ago(8.0 * HOUR))
            .created(&then()),
        other => panic!("unknown C9 fixture {other}"),
    }
}

fn less(a: (&str, usize), b: (&str, usize), g: &FeatureGates) -> bool {
    let pa = c9(a.0).build();
    let pb = c9(b.0).build();
    upstream_less((&pa, a.1), (&pb, b.1), now(), g)
}

/// C9 equalities: neither is less than the other (all ranks 1).
#[test]
fn c9_equal_pairs() {
    let g = gates();
    let pairs = [
        ("unscheduled", "unscheduled"),
        ("pending", "pending"),
        ("unknown-phase", "unknown-phase"),
        ("not-ready", "not-ready"),
        ("ready-now-created-then", "ready-now-created-then"),
        ("ready-now", "ready-now"),
        ("ready-then", "ready-then"),
        ("ready-high-restarts", "ready-high-restarts"),
        // Same log2 bucket and equal (empty) UIDs.
        ("unscheduled-5h", "unscheduled-8h"),
        ("ready-5h", "ready-8h"),
    ];
    for (a, b) in pairs {
        assert!(!less((a, 1), (b, 1), &g), "{a} < {b}");
        assert!(!less((b, 1), (a, 1), &g), "{b} < {a}");
    }
}

/// C9 inequalities: (lesser, rank) < (greater, rank), and never the other way round.
#[test]
fn c9_ordered_pairs() {
    let g = gates();
    let table = [
        (1, ("unscheduled", 1), ("pending", 2)),
        (2, ("unscheduled", 2), ("pending", 1)),
        (3, ("pending", 1), ("unknown-phase", 2)),
        (4, ("unknown-phase", 1), ("not-ready", 2)),
        (5, ("not-ready", 1), ("ready-no-ltt", 1)),
        (6, ("ready-no-ltt", 1), ("ready-now", 1)),
        (7, ("ready-now", 2), ("ready-no-ltt", 1)),
        (8, ("ready-now", 1), ("ready-then", 1)),
        (9, ("ready-now", 2), ("ready-then", 1)),
        (10, ("ready-high-restarts", 1), ("ready-now", 1)),
        (
            11,
            ("ready-high-side-restarts", 1),
            ("ready-high-restarts", 1),
        ),
        (12, ("ready-now", 2), ("ready-high-restarts", 1)),
        (13, ("ready-now", 1), ("ready-now-created-then", 1)),
        (14, ("ready-now-created-then", 2), ("ready-now", 1)),
        (15, ("low-deletion-cost", 2), ("high-deletion-cost", 1)),
        (17, ("ready-2h", 1), ("ready-5h", 1)),
    ];
    for (n, lesser, greater) in table {
        assert!(less(lesser, greater, &g), "#{n}: {lesser:?} < {greater:?}");
        assert!(
            !less(greater, lesser, &g),
            "#{n}: not {greater:?} < {lesser:?}"
        );
    }
}

/// C9 #16 (PodDeletionCost off): the rank decides, the cost is ignored.
#[test]
fn c9_16_r72_4_cost_ignored_with_the_gate_off() {
    let g = FeatureGates {
        pod_deletion_cost: false,
        ..gates()
    };
    assert!(less(
        ("high-deletion-cost", 2),
        ("low-deletion-cost", 1),
        &g
    ));
    assert!(!less(
        ("low-deletion-cost", 1),
        ("high-deletion-cost", 2),
        &g
    ));
    // With the gate on the cost wins over the rank.
    assert!(!less(
        ("high-deletion-cost", 2),
        ("low-deletion-cost", 1),
        &gates()
    ));
}

/// R-72 over the whole C9 set (unique UIDs): the ranked order never puts a pod after one
/// upstream's comparator says it should precede.
#[test]
fn r72_rank_agrees_with_the_comparator_on_the_c9_set() {
    let names = [
        "unscheduled",
        "pending",
        "unknown-phase",
        "not-ready",
        "ready-no-ltt",
        "ready-now",
        "ready-then",
        "ready-high-restarts",
        "ready-high-side-restarts",
        "ready-now-created-then",
        "low-deletion-cost",
        "high-deletion-cost",
        "unscheduled-5h",
        "unscheduled-8h",
        "ready-2h",
        "ready-5h",
        "ready-8h",
    ];
    let pods = build_pods(&names.iter().map(|n| c9(n).uid(n)).collect::<Vec<_>>());
    let refs: Vec<&Pod> = pods.iter().collect();
    let counts = colocation_counts(refs.iter().copied());
    let r = |p: &Pod| counts.get(p.node_name()).copied().unwrap_or(0);
    let g = gates();
    let ranked = rank(&refs, &refs, now(), &g);
    assert_eq!(ranked.len(), pods.len());
    for i in 0..ranked.len() {
        for j in i + 1..ranked.len() {
            let (a, b) = (&pods[ranked[i].index], &pods[ranked[j].index]);
            assert!(
                !upstream_less((b, r(b)), (a, r(a)), now(), &g),
                "{} is ranked before {} but upstream puts it after",
                a.name(),
                b.name()
            );
        }
    }
    // The unscheduled pod without a creation time goes first; the unscheduled pods created
    // 5 h and 8 h ago follow it (R-72.8: zero first).
    assert_eq!(pods[ranked[0].index].name(), "unscheduled");
    assert_eq!(ranked[0].rule, Some(RankRule::CreationTime));
    assert_eq!(
        ranked.last().and_then(|r| r.rule),
        None,
        "the last pod has no rule"
    );
}

// ---------------------------------------------------------------------------------------
// C8: the generic sorter's order, in every input order

fn c8_pods() -> Vec<P> {
    let then = then();
    vec![
        pod("unscheduled"),
        pod("scheduled-but-pending").node("n"),
        pod("unknown-phase").node("n").phase("Unknown"),
        pod("running-but-not-ready").node("n").not_ready(),
        pod("running-no-ltt")
            .node("n")
            .ready_no_ltt()
            .restarts(&[3, 0]),
        pod("running-with-ltt")
            .node("n")
            .ready_since(NOW)
            .restarts(&[3, 0]),
        pod("running-longer")
            .node("n")
            .ready_since(&then)
            .restarts(&[3, 0]),
        pod("lower-restarts")
            .node("n")
            .ready_since(&then)
            .restarts(&[2, 1])
            .created(NOW),
        pod("oldest")
            .node("n")
            .ready_since(&then)
            .restarts(&[2, 1])
            .created(&then),
    ]
}

#[test]
fn c8_sorting_active_pods_in_any_input_order() {
    let expected: Vec<String> = c8_pods().iter().map(P::name).collect();
    for g in [gates(), gates_1_21()] {
        for seed in 0..20 {
            let fixtures = c8_pods();
            let shuffled: Vec<P> = permutation(fixtures.len(), seed)
                .into_iter()
                .map(|i| fixtures[i].clone())
                .collect();
            let pods = build_pods(&shuffled);
            assert_eq!(order(&pods, &[], &g), expected, "seed {seed}");
        }
    }
}

// ---------------------------------------------------------------------------------------
// A26: getPodsToDelete

fn a26(name: &str) -> P {
    match name {
        "U" => pod("U"),
        "S" => pod("S").node("fake-node"),
        "NR" => pod("NR").node("fake-node").not_ready(),
        "R1" => pod("R1").node("fake-node-1").ready_since(NOW),
        "R2" => pod("R2").node("fake-node-2").ready_since(NOW),
        other => panic!("unknown A26 fixture {other}"),
    }
}

fn a26_delete(cands: &[&str], related: Option<&[&str]>, n: usize) -> Vec<String> {
    let c = build_pods(&cands.iter().map(|n| a26(n)).collect::<Vec<_>>());
    let r = match related {
        Some(r) => build_pods(&r.iter().map(|n| a26(n)).collect::<Vec<_>>()),
        None => c.clone(),
    };
    let cr: Vec<&Pod> = c.iter().collect();
    let rr: Vec<&Pod> = r.iter().collect();
    pods_to_delete(&cr, &rr, n, now(), &gates())
        .iter()
        .map(|rp| c[rp.index].name().to_owned())
        .collect()
}

/// One A26 row: candidates, related (None = the candidates), n, expected victims.
type A26Row<'a> = (Vec<&'a str>, Option<Vec<&'a str>>, usize, Vec<&'a str>);

/// A26 rows with n < len: exactly upstream's answer, in order.
#[test]
fn a26_pods_to_delete_table() {
    let table: Vec<A26Row> = vec![
        (vec![], None, 0, vec![]),
        (vec!["R1", "NR"], None, 1, vec!["NR"]),
        (vec!["S", "U"], None, 1, vec!["U"]),
        (vec!["R1", "NR", "NR"], None, 2, vec!["NR", "NR"]),
        // Two active siblings on node-2 ⇒ higher rank ⇒ R2 first.
        (
            vec!["R1", "R2"],
            Some(vec!["R1", "R2", "R2"]),
            1,
            vec!["R2"],
        ),
        (vec!["S", "NR"], None, 1, vec!["S"]),
        (
            vec!["R1", "R2", "NR", "S", "U"],
            None,
            3,
            vec!["U", "S", "NR"],
        ),
    ];
    for (cands, related, n, want) in table {
        let got = a26_delete(&cands, related.as_deref(), n);
        assert_eq!(got, want, "{cands:?} n={n}");
    }
}

/// A26 rows with n == len: upstream returns the candidates unsorted; Replicore
/// ranks them anyway (documented refinement). The set is upstream's; the order is the
/// ranked one.
#[test]
fn a26_r70_n_covering_every_candidate_returns_all_of_them() {
    let all = ["R1", "R1", "R2", "NR", "S", "U"];
    for related in [None, Some(&[][..])] {
        let got = a26_delete(&all, related, 6);
        let mut sorted_got = got.clone();
        sorted_got.sort();
        let mut sorted_all: Vec<String> = all.iter().map(|s| s.to_string()).collect();
        sorted_all.sort();
        assert_eq!(sorted_got, sorted_all, "related {related:?}");
        assert_eq!(&got[..3], ["U", "S", "NR"], "related {related:?}");
    }
    assert_eq!(a26_delete(&["NR", "R1"], None, 2), vec!["NR", "R1"]);
    // Without related pods R1 and R2 tie on everything; with them node-1 has 2 (R1 twice).
    assert_eq!(a26_delete(&all, None, 6)[3..], ["R1", "R1", "R2"]);
}

// ---------------------------------------------------------------------------------------
// co-location ranks

#[test]
fn r71_colocation_counts_only_active_related_pods() {
    let related = build_pods(&[
        pod("a").node("n1"),
        pod("b").node("n1").ready_since(NOW),
        pod("c").node("n1").phase("Failed"),
        pod("d").node("n1").deleting(),
        pod("e").node("n2"),
        pod("f"),
        pod("g"),
    ]);
    let counts = colocation_counts(related.iter());
    let want: HashMap<&str, usize> = [("n1", 2), ("n2", 1), ("", 2)].into_iter().collect();
    assert_eq!(counts, want);
}

#[test]
fn r71_candidates_absent_from_related_get_their_nodes_count() {
    let cands = build_pods(&[pod("x").node("n1"), pod("y").node("n9")]);
    let related = build_pods(&[pod("a").node("n1"), pod("b").node("n1")]);
    let c: Vec<&Pod> = cands.iter().collect();
    let r: Vec<&Pod> = related.iter().collect();
    let ranked = rank(&c, &r, now(), &gates());
    assert_eq!(cands[ranked[0].index].name(), "x");
    assert_eq!(ranked[0].facts.colocated, 2);
    assert_eq!(ranked[1].facts.colocated, 0);
    assert_eq!(ranked[0].rule, Some(RankRule::CoLocation));
}

// ---------------------------------------------------------------------------------------
// R-72 rule by rule, with the rule the ranking reports

#[test]
fn r72_each_rule_decides_and_is_reported() {
    let g = gates();
    let ready = |n: &str| {
        pod(n)
            .node("n")
            .ready_since(&ago(HOUR))
            .created(&ago(2.0 * HOUR))
    };
    let table: Vec<(&str, P, P, RankRule)> = vec![
        (
            "R-72.1",
            pod("a").node("n"),
            pod("first"),
            RankRule::Unassigned,
        ),
        (
            "R-72.2 Pending<Unknown",
            pod("a").node("n").phase("Unknown"),
            pod("first").node("n"),
            RankRule::Phase,
        ),
        (
            "R-72.2 Unknown<Running",
            pod("a").node("n").phase("Running"),
            pod("first").node("n").phase("Unknown"),
            RankRule::Phase,
        ),
        (
            "R-72.3",
            ready("a"),
            pod("first").node("n").not_ready(),
            RankRule::Readiness,
        ),
        (
            "R-72.4",
            ready("a").cost("5"),
            ready("first").cost("-5"),
            RankRule::DeletionCost,
        ),
        (
            "R-72.6 more recent",
            ready("a"),
            ready("first").ready_since(&ago(60.0)),
            RankRule::ReadyTime,
        ),
        (
            "R-72.6 zero first",
            ready("a"),
            ready("first").ready_no_ltt(),
            RankRule::ReadyTime,
        ),
        (
            "R-72.6 same bucket ⇒ uid",
            ready("a").uid("b-uid").ready_since(&ago(5.0 * HOUR)),
            ready("first").uid("a-uid").ready_since(&ago(6.0 * HOUR)),
            RankRule::ReadyTimeUid,
        ),
        (
            "R-72.7 restarts",
            ready("a").restarts(&[1]),
            ready("first").restarts(&[2]),
            RankRule::Restarts,
        ),
        (
            "R-72.7 sidecars",
            ready("a").sidecar_restarts(1),
            ready("first").sidecar_restarts(3),
            RankRule::SidecarRestarts,
        ),
        (
            "R-72.8 newer",
            ready("a"),
            ready("first").created(&ago(90.0)),
            RankRule::CreationTime,
        ),
        (
            "R-72.8 zero first",
            ready("a"),
            pod("first").node("n").ready_since(&ago(HOUR)),
            RankRule::CreationTime,
        ),
        (
            "R-72.8 same bucket ⇒ uid",
            ready("a").uid("b-uid").created(&ago(5.0 * HOUR)),
            ready("first").uid("a-uid").created(&ago(6.0 * HOUR)),
            RankRule::CreationTimeUid,
        ),
        (
            "R-72.9 equal ⇒ tie-break by uid",
            ready("z").uid("uid-b"),
            ready("first").uid("uid-a"),
            RankRule::TieBreak,
        ),
    ];
    for (what, other, first, rule) in table {
        let (name, got) = first_and_rule(&other, &first, &g);
        assert_eq!((name.as_str(), got), ("first", Some(rule)), "{what}");
        // Input order does not matter.
        let (name, got) = first_and_rule(&first, &other, &g);
        assert_eq!(
            (name.as_str(), got),
            ("first", Some(rule)),
            "{what}, swapped"
        );
    }
}

/// more active siblings on the node first (co-location beats ready time).
#[test]
fn r72_5_colocation_beats_ready_time() {
    let cands = build_pods(&[
        pod("young-alone").node("n1").ready_since(NOW),
        pod("old-crowded").node("n2").ready_since(&then()),
    ]);
    let related = build_pods(&[pod("s1").node("n2"), pod("s2").node("n2")]);
    assert_eq!(
        order(&cands, &related, &gates()),
        vec!["old-crowded", "young-alone"]
    );
    // Without siblings the more recently ready pod goes first.
    assert_eq!(
        order(&cands, &[], &gates()),
        vec!["young-alone", "old-crowded"]
    );
}

/// R-60 + R-72.4: negative costs go before zero; invalid annotations count as 0.
#[test]
fn r72_4_costs_order_pods() {
    let ready = |n: &str| pod(n).node("n").ready_since(&ago(HOUR));
    let cands = build_pods(&[
        ready("cost-100").cost("100"),
        ready("cost-invalid").cost("+1000"),
        ready("cost-minus").cost("-7"),
        ready("cost-zero"),
    ]);
    let got = order(&cands, &[], &gates());
    assert_eq!(got[0], "cost-minus");
    assert_eq!(got[3], "cost-100");
    // Gate off: cost ignored, all four tie up to the UID tie-break.
    let off = FeatureGates {
        pod_deletion_cost: false,
        ..gates()
    };
    assert_eq!(
        order(&cands, &[], &off),
        vec!["cost-100", "cost-invalid", "cost-minus", "cost-zero"]
    );
}

/// Suggested vector E2: same log2 bucket (5 h and 6 h), UIDs "a" and "b", "b" restarts
/// more ⇒ "a" first anyway: the UID decides, restarts are never consulted.
#[test]
fn e2_log_bucket_tie_is_decided_by_uid_before_restarts() {
    let g = gates();
    let a = pod("pa")
        .node("n")
        .uid("a")
        .ready_since(&ago(5.0 * HOUR))
        .build();
    let b = pod("pb")
        .node("n")
        .uid("b")
        .ready_since(&ago(6.0 * HOUR))
        .restarts(&[50])
        .build();
    assert!(upstream_less((&a, 1), (&b, 1), now(), &g));
    assert!(!upstream_less((&b, 1), (&a, 1), now(), &g));
    // And the same with "a" the older one.
    let a_old = pod("pa")
        .node("n")
        .uid("a")
        .ready_since(&ago(6.0 * HOUR))
        .build();
    let b_new = pod("pb")
        .node("n")
        .uid("b")
        .ready_since(&ago(5.0 * HOUR))
        .restarts(&[50])
        .build();
    assert!(upstream_less((&a_old, 1), (&b_new, 1), now(), &g));
}

/// with LogarithmicScaleDown off (≤ 1.21 emulation): plain "more recent first",
/// no UID tie-break.
#[test]
fn r72_6_without_logarithmic_scale_down_more_recent_first() {
    let cands = build_pods(&[
        pod("six-hours")
            .node("n")
            .uid("a")
            .ready_since(&ago(6.0 * HOUR)),
        pod("five-hours")
            .node("n")
            .uid("b")
            .ready_since(&ago(5.0 * HOUR)),
    ]);
    assert_eq!(
        order(&cands, &[], &gates()),
        vec!["six-hours", "five-hours"]
    );
    assert_eq!(
        order(&cands, &[], &gates_1_21()),
        vec!["five-hours", "six-hours"]
    );
    let c: Vec<&Pod> = cands.iter().collect();
    let ranked = rank(&c, &c, now(), &gates_1_21());
    assert_eq!(ranked[0].rule, Some(RankRule::ReadyTime));
    assert_eq!(
        ranked[0].facts.ready_bucket, None,
        "no buckets without the gate"
    );
    let ranked = rank(&c, &c, now(), &gates());
    assert_eq!(ranked[0].facts.ready_bucket, Some(44));
}

/// Suggested vector E3, E-15, C-9: an empty phase ties with Pending, then readiness
/// decides.
#[test]
fn e3_e15_empty_phase_ties_with_pending() {
    let g = gates();
    let empty_ready = pod("e")
        .node("n")
        .no_phase()
        .conditions(json!([
            {"type": "Ready", "status": "True", "lastTransitionTime": NOW}
        ]))
        .build();
    let pending = pod("p").node("n").build();
    assert!(upstream_less((&pending, 1), (&empty_ready, 1), now(), &g));
    assert!(!upstream_less((&empty_ready, 1), (&pending, 1), now(), &g));
    let empty = pod("e").node("n").no_phase().build();
    assert!(!upstream_less((&empty, 1), (&pending, 1), now(), &g));
    assert!(!upstream_less((&pending, 1), (&empty, 1), now(), &g));
    // Unknown phase strings too.
    let weird = pod("w").node("n").phase("Weird").build();
    assert!(upstream_less(
        (&weird, 1),
        (&pod("u").node("n").phase("Unknown").build(), 1),
        now(),
        &g
    ));
}

/// E-16: a zero ready time and a zero creation timestamp sort first.
#[test]
fn e16_zero_times_sort_first() {
    let g = gates();
    let zero_ready = pod("a").node("n").ready_no_ltt().build();
    let ready_then = pod("b").node("n").ready_since(&then()).build();
    assert!(upstream_less((&zero_ready, 1), (&ready_then, 1), now(), &g));
    assert!(!upstream_less(
        (&ready_then, 1),
        (&zero_ready, 1),
        now(),
        &g
    ));
    let never_created = pod("c").node("n").build();
    let created = pod("d").node("n").created(NOW).build();
    assert!(upstream_less((&never_created, 1), (&created, 1), now(), &g));
    assert!(!upstream_less(
        (&created, 1),
        (&never_created, 1),
        now(),
        &g
    ));
    let g21 = gates_1_21();
    assert!(upstream_less(
        (&zero_ready, 1),
        (&ready_then, 1),
        now(),
        &g21
    ));
    assert!(upstream_less(
        (&never_created, 1),
        (&created, 1),
        now(),
        &g21
    ));
}

/// ready in the future (skew) is bucket −1, "more recent" than anything past.
#[test]
fn r72_6_r73_future_ready_time_is_bucket_minus_one() {
    let cands = build_pods(&[
        pod("past").node("n").ready_since(&ago(1.0)),
        pod("future").node("n").ready_since(&ago(-30.0)),
    ]);
    let c: Vec<&Pod> = cands.iter().collect();
    let ranked = rank(&c, &[], now(), &gates());
    assert_eq!(cands[ranked[0].index].name(), "future");
    assert_eq!(ranked[0].facts.ready_bucket, Some(-1));
    assert_eq!(ranked[1].facts.ready_bucket, Some(29), "1 s ≈ 2^29.9 ns");
}

/// the comparator is intransitive inside one ready bucket (A <uid B <uid C, but C
/// <restarts A); the ranking is a deterministic order independent of the input order.
#[test]
fn r72_intransitive_group_is_ordered_independently_of_input_order() {
    let t1 = ago(5.0 * HOUR);
    let t2 = ago(5.5 * HOUR);
    let fixtures = vec![
        pod("A").node("n").uid("a").ready_since(&t1),
        pod("B").node("n").uid("b").ready_since(&t2),
        pod("C").node("n").uid("c").ready_since(&t1).restarts(&[5]),
    ];
    let built = build_pods(&fixtures);
    let g = gates();
    let l = |x: usize, y: usize| upstream_less((&built[x], 1), (&built[y], 1), now(), &g);
    assert!(l(0, 1) && l(1, 2) && l(2, 0), "the cycle A < B < C < A");
    let mut seen = Vec::new();
    for seed in 0..6 {
        let shuffled: Vec<P> = permutation(3, seed)
            .into_iter()
            .map(|i| fixtures[i].clone())
            .collect();
        seen.push(order(&build_pods(&shuffled), &[], &g));
    }
    assert!(seen.windows(2).all(|w| w[0] == w[1]), "{seen:?}");
    assert_eq!(seen[0], vec!["A", "B", "C"]);
}

#[test]
fn rank_facts_describe_each_pod() {
    let cands = build_pods(&[pod("x")
        .node("n1")
        .ready_since(&ago(5.0 * HOUR))
        .created(&ago(8.0 * HOUR))
        .cost("3")
        .restarts(&[2])
        .sidecar_restarts(4)]);
    let c: Vec<&Pod> = cands.iter().collect();
    let f = &rank(&c, &c, now(), &gates())[0].facts;
    assert_eq!(f.node, "n1");
    assert_eq!(f.phase, "Running");
    assert!(f.ready);
    assert_eq!(f.deletion_cost, 3);
    assert_eq!(f.colocated, 1);
    assert_eq!(f.ready_bucket, Some(44));
    assert_eq!(f.creation_bucket, Some(44));
    assert_eq!((f.restarts, f.sidecar_restarts), (2, 4));
    assert!(!RankRule::CoLocation.describe().is_empty());
}

// ---------------------------------------------------------------------------------------
// related pods. A5, A7

fn sibling(name: &str, controller: &str, sel: &str) -> Rs {
    rs(name)
        .controlled_by(controller)
        .match_labels(json!({"foo": sel}))
}

fn labelled(name: &str, value: &str) -> P {
    pod(name).labels(json!({"foo": value}))
}

/// The related pods' names, sorted (R-45 defines a set; the engine returns it unordered).
fn related_names(owner: &Rs, cache: &[Rs], pods: &[P]) -> Vec<String> {
    let o = owner.build();
    let others: Vec<_> = cache.iter().map(Rs::build).collect();
    let all = build_pods(pods);
    let mut names: Vec<String> = owner::related_pods(&o, &others, &all)
        .iter()
        .map(|p| p.name().to_owned())
        .collect();
    names.sort();
    names
}

/// A7 (TestRelatedPodsLookup).
#[test]
fn a7_related_pods_lookup() {
    let foo1 = sibling("foo1", "123", "bar");
    let foo2 = sibling("foo2", "123", "baz");
    let bar1 = sibling("bar1", "456", "quux");
    let foo3 = sibling("foo3", "789", "xyzzy").deleting();
    let pod1 = labelled("pod1", "bar");
    let pod2 = labelled("pod2", "bar");
    let pod3 = labelled("pod3", "baz");
    let pod4 = labelled("pod4", "quux");
    assert_eq!(
        related_names(
            &foo3,
            std::slice::from_ref(&foo3),
            &[labelled("pod", "xyzzy")]
        ),
        vec!["pod"]
    );
    assert_eq!(
        related_names(
            &foo1,
            &[foo1.clone(), bar1.clone()],
            &[pod1.clone(), pod2.clone(), pod4.clone()]
        ),
        vec!["pod1", "pod2"]
    );
    assert_eq!(
        related_names(
            &foo1,
            &[foo1.clone(), foo2, bar1],
            &[pod1, pod2, pod3, pod4]
        ),
        vec!["pod1", "pod2", "pod3"]
    );
}

/// A5 (TestGetReplicaSetsWithSameController), seen through the pods each set contributes.
#[test]
fn a5_replica_sets_with_the_same_controller() {
    let rs1 = sibling("rs1", "123", "one");
    let rs2 = sibling("rs2", "123", "two");
    let rs3 = sibling("rs3", "456", "three");
    let rs4 = sibling("rs4", "789", "four").deleting();
    let pods = [
        labelled("p1", "one"),
        labelled("p2", "two"),
        labelled("p3", "three"),
        labelled("p4", "four"),
    ];
    // The pending-deletion rs4 is its own sibling.
    assert_eq!(
        related_names(&rs4, &[rs4.clone(), rs3.clone()], &pods),
        vec!["p4"]
    );
    assert_eq!(
        related_names(&rs1, &[rs1.clone(), rs3.clone()], &pods),
        vec!["p1"]
    );
    assert_eq!(
        related_names(&rs1, &[rs1.clone(), rs2, rs3], &pods),
        vec!["p1", "p2"]
    );
}

#[test]
fn r45_related_pods_edge_cases() {
    let pods = [
        labelled("active", "bar"),
        labelled("failed", "bar").phase("Failed"),
        labelled("deleting", "bar").deleting(),
        labelled("elsewhere", "bar").ns("other"),
        labelled("dup-uid", "baz").uid("uid-active"),
        pod("unlabelled").no_labels(),
    ];
    // No controller owner ⇒ no related pods.
    assert!(related_names(
        &rs("lonely").match_labels(json!({"foo": "bar"})),
        &[],
        &pods
    )
    .is_empty());
    // Inactive pods are included; other namespaces are not; of two pods sharing a UID
    // the first by namespace/name stays.
    let me = sibling("me", "d1", "bar");
    let twin = sibling("twin", "d1", "baz");
    assert_eq!(
        related_names(&me, std::slice::from_ref(&twin), &pods),
        vec!["active", "deleting", "failed"]
    );
    // A sibling in another namespace contributes its namespace's pods.
    let away = sibling("away", "d1", "bar").ns("other");
    assert_eq!(
        related_names(&me, &[away], &pods),
        vec!["active", "deleting", "elsewhere", "failed"]
    );
    // Invalid and nil selectors contribute nothing; an empty one, every pod of its namespace.
    let invalid = rs("invalid")
        .controlled_by("d1")
        .selector(json!({"matchExpressions": [{"key": "foo", "operator": "Gt", "values": ["1"]}]}));
    let nil = rs("nil").controlled_by("d1").no_selector();
    assert_eq!(
        related_names(&me, &[invalid, nil], &pods),
        vec!["active", "deleting", "failed"]
    );
    let everything = rs("all").controlled_by("d1").selector(json!({}));
    assert_eq!(
        related_names(&me, &[everything], &pods),
        vec!["active", "deleting", "failed", "unlabelled"]
    );
}

// ---------------------------------------------------------------------------------------
// R-55..R-58 in a sync: siblings' pods make co-location count

#[test]
fn r56_r57_scale_down_counts_siblings_pods_per_node() {
    let me = rs("web").controlled_by("deploy").replicas(1);
    let since = ago(HOUR);
    let pods = [
        pod("a").owned_by(&me).node("n1").ready_since(&since),
        pod("b").owned_by(&me).node("n2").ready_since(&since),
    ];
    let config = Config::default();
    // Alone, a and b tie: the UID tie-break picks a.
    let input1 = input(&me, &pods).build();
    let p = plan(&input1, &config).expect("plan");
    assert_eq!(victim_names(&p.manage), vec!["a"]);
    // The victim's rule compares it with the next pod of the full ranking (b).
    assert_eq!(
        delete_plan(&p.manage).victims[0].rule,
        Some(RankRule::TieBreak)
    );
    // An old sibling ReplicaSet of the same Deployment has two pods on n2.
    let old = rs("web-old")
        .controlled_by("deploy")
        .match_labels(json!({"app": "web-old"}));
    let mut with_old = pods.to_vec();
    // The old pods do not match this owner's selector: only the sibling brings them in.
    with_old.push(
        pod("o1")
            .owned_by(&old)
            .labels(json!({"app": "web-old"}))
            .node("n2"),
    );
    with_old.push(
        pod("o2")
            .owned_by(&old)
            .labels(json!({"app": "web-old"}))
            .node("n2"),
    );
    let input2 = input(&me, &with_old)
        .others(std::slice::from_ref(&old))
        .build();
    let p = plan(&input2, &config).expect("plan");
    let d = delete_plan(&p.manage);
    assert_eq!(victim_names(&p.manage), vec!["b"]);
    assert_eq!(
        d.victims[0].facts.colocated, 3,
        "b and the two old pods on n2"
    );
    assert_eq!(d.victims[0].pod_index, 1);
    // A sibling of another Deployment does not count.
    let foreign = old.clone().controlled_by("other-deploy");
    let input3 = input(&me, &with_old).others(&[foreign]).build();
    let p = plan(&input3, &config).expect("plan");
    assert_eq!(victim_names(&p.manage), vec!["a"]);
}

#[test]
fn time_helper_sanity_for_buckets() {
    // The fixtures' "5 h" and "6 h" share bucket 44; "2 h" is 42.
    let b = |s: f64| replicore::time::log2_bucket(now(), time(&ago(s)));
    assert_eq!(
        (b(2.0 * HOUR), b(5.0 * HOUR), b(5.5 * HOUR), b(6.0 * HOUR)),
        (42, 44, 44, 44)
    );
}

/// on generated sets where upstream's comparator is a strict weak order (every
/// exact ready time and creation time distinct, so rules 6 and 8 never fall through to a
/// later rule inside a bucket): the ranking never contradicts the comparator, and it does
/// not depend on the input order.
#[test]
fn r72_generated_transitive_sets_are_sorted_by_the_comparator() {
    let mut s: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = |m: u64| {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (s >> 33) % m
    };
    for g in [gates(), gates_1_21()] {
        for round in 0..40 {
            let n = 2 + next(14) as usize;
            let mut fixtures = Vec::new();
            for i in 0..n {
                let name = format!("p{round}-{i}");
                let mut b = pod(&name).uid(&format!("{:03}", next(1000)));
                match next(4) {
                    0 => {}
                    k => b = b.node(&format!("n{k}")),
                }
                b = match next(4) {
                    0 => b,
                    1 => b.phase("Unknown"),
                    2 => b.not_ready(),
                    _ => b.ready_since(&ago(3600.0 + (i as f64) * 997.0 + next(500) as f64)),
                };
                if next(3) == 0 {
                    b = b.cost(&format!("{}", next(3)));
                }
                if next(3) == 0 {
                    b = b.restarts(&[next(3) as i32]);
                }
                b = b.created(&ago(7200.0 + (i as f64) * 1013.0 + next(500) as f64));
                fixtures.push(b);
            }
            let pods = build_pods(&fixtures);
            let refs: Vec<&Pod> = pods.iter().collect();
            let counts = colocation_counts(refs.iter().copied());
            let r = |p: &Pod| counts.get(p.node_name()).copied().unwrap_or(0);
            let ranked = rank(&refs, &refs, now(), &g);
            for i in 0..ranked.len() {
                for j in i + 1..ranked.len() {
                    let (a, b) = (&pods[ranked[i].index], &pods[ranked[j].index]);
                    assert!(
                        !upstream_less((b, r(b)), (a, r(a)), now(), &g),
                        "round {round}: {} ranked before {}",
                        a.name(),
                        b.name()
                    );
                }
            }
            let expected = order(&pods, &pods, &g);
            let reversed: Vec<P> = fixtures.iter().rev().cloned().collect();
            let rp = build_pods(&reversed);
            assert_eq!(
                order(&rp, &rp, &g),
                expected,
                "round {round}: input order matters"
            );
        }
    }
}
