//! Time (R-73 buckets, RFC 3339, Go's zero time) and configuration (C-1, §16 feature
//! gates, the LogarithmicScaleDown lock). Moved here from the in-module tests of
//! `time.rs` and `config.rs`, using the public API only.

use crate::common;

use common::*;
use replicore::time::{log2_bucket, TimeError};
use replicore::{Config, Duration, FeatureGates, OwnerKind, Time, DEFAULT_BURST_REPLICAS};

// ---------------------------------------------------------------------------------------
// Time

#[test]
fn parses_rfc3339_with_and_without_fraction() {
    let a = time("2026-11-21T04:41:58.359534415Z");
    let b = time("2026-11-21T04:41:58Z");
    assert_eq!(a.since(b).as_nanos(), 359_534_415);
    assert_eq!(b.to_rfc3339(), "2026-11-21T04:41:58Z");
    assert_eq!(a.to_rfc3339(), "2026-11-21T04:41:58.359534415Z");
    // Any offset; printed back in UTC.
    let c = time("2026-11-21T05:41:58+01:00");
    assert_eq!(b, c);
    assert_eq!(c.to_string(), "2026-11-21T04:41:58Z");
}

#[test]
fn go_zero_time_is_none_and_garbage_is_an_error() {
    assert_eq!(Time::parse("0001-01-01T00:00:00Z"), Ok(None));
    assert_eq!(
        Time::parse("yesterday"),
        Err(TimeError::Syntax("yesterday".into()))
    );
    assert_eq!(
        Time::parse("3000-01-01T00:00:00Z"),
        Err(TimeError::OutOfRange("3000-01-01T00:00:00Z".into()))
    );
}

#[test]
fn unix_conversions_and_arithmetic() {
    let t = Time::from_unix_seconds(1_000);
    assert_eq!(t.unix_nanos(), 1_000_000_000_000);
    assert_eq!(Time::from_unix_nanos(5).unix_nanos(), 5);
    assert_eq!(
        t.plus(Duration::from_seconds(2)).since(t),
        Duration::from_seconds(2)
    );
    assert_eq!(t.since(t.plus(Duration::from_nanos(7))).as_nanos(), -7);
    // Saturating like Go's time.Sub.
    let far = Time::from_unix_nanos(i64::MAX);
    let early = Time::from_unix_nanos(i64::MIN);
    assert_eq!(far.since(early).as_nanos(), i64::MAX);
    assert_eq!(
        Time::from_unix_seconds(0).to_rfc3339(),
        "1970-01-01T00:00:00Z"
    );
}

#[test]
fn durations_print_and_serialize_as_seconds() {
    assert_eq!(Duration::from_seconds(5).to_string(), "5s");
    assert_eq!(Duration::from_nanos(700_000_000).to_string(), "0.700s");
    assert_eq!(Duration::from_seconds(3).as_seconds_f64(), 3.0);
    assert_eq!(
        Duration::from_seconds(3).minus(Duration::from_seconds(5)),
        Duration::from_seconds(-2)
    );
    assert_eq!(
        serde_json::to_string(&Duration::from_nanos(1_500_000_000)).expect("ser"),
        "1.5"
    );
    let d: Duration = serde_json::from_str("0.25").expect("de");
    assert_eq!(d.as_nanos(), 250_000_000);
    assert!(serde_json::from_str::<Duration>("1e12").is_err());
}

/// Durations read back from their JSON: exactly up to 2^50 ns (about 13 days); beyond, to
/// an `f64`'s precision (the fuzzer found a requeue 180 years ahead that read back 512 ns
/// off, which is that precision, not a fault).
#[test]
fn durations_read_back_from_their_json() -> Result<(), serde_json::Error> {
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    for i in 0..20_000u32 {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        // Magnitudes spread over every power of two up to the wire's limit of 9e9 s.
        let bits = 1 + (i % 62);
        let magnitude = (state >> (64 - bits)) as i64 % 9_000_000_000_000_000_000;
        let nanos = if state & 1 == 0 {
            magnitude
        } else {
            -magnitude
        };
        let back: Duration =
            serde_json::from_str(&serde_json::to_string(&Duration::from_nanos(nanos))?)?;
        let off = back.as_nanos().abs_diff(nanos);
        if nanos.unsigned_abs() < 1 << 50 {
            assert_eq!(off, 0, "{nanos} ns is exact below 2^50 ns");
        } else {
            // Two roundings to an f64 of seconds and one of the product back.
            assert!(
                off as f64 <= nanos.unsigned_abs() as f64 * 4.0 * f64::EPSILON,
                "{nanos} ns read back {off} ns off"
            );
        }
    }
    let found = Duration::from_nanos(5_679_965_080_999_999_488);
    let back: Duration = serde_json::from_str(&serde_json::to_string(&found)?)?;
    assert!(back.as_nanos().abs_diff(found.as_nanos()) <= 1024);
    Ok(())
}

#[test]
fn times_serialize_as_rfc3339_strings() {
    let t = time("2026-11-21T04:41:58.5Z");
    assert_eq!(
        serde_json::to_string(&t).expect("ser"),
        "\"2026-11-21T04:41:58.500Z\""
    );
    let back: Time = serde_json::from_str("\"2026-11-21T04:41:58.5Z\"").expect("de");
    assert_eq!(back, t);
    assert!(serde_json::from_str::<Time>("\"0001-01-01T00:00:00Z\"").is_err());
}

/// R-73: bucket = -1 when now - t <= 0, else floor(log2(ns)) as Go computes it.
#[test]
fn r73_log2_bucket_matches_go_at_powers_of_two() {
    let now = Time::from_unix_nanos(1 << 40);
    assert_eq!(log2_bucket(now, now), -1);
    assert_eq!(log2_bucket(now, Time::from_unix_nanos((1 << 40) + 5)), -1);
    assert_eq!(log2_bucket(now, Time::from_unix_nanos((1 << 40) - 1)), 0);
    assert_eq!(log2_bucket(now, Time::from_unix_nanos((1 << 40) - 2)), 1);
    assert_eq!(log2_bucket(now, Time::from_unix_nanos((1 << 40) - 3)), 1);
    assert_eq!(log2_bucket(now, Time::from_unix_nanos((1 << 40) - 4)), 2);
    assert_eq!(log2_bucket(now, Time::from_unix_nanos(0)), 40);
    assert_eq!(log2_bucket(now, Time::from_unix_nanos(1)), 39);
}

/// R-73, upstream test C9 #17: 2 h and 5 h ago fall in buckets 42 and 44; 8 h in 44 too.
#[test]
fn r73_hour_buckets_of_upstream_c9() {
    let now = Time::from_unix_seconds(1_000_000_000);
    let h = 3600;
    assert_eq!(
        log2_bucket(now, Time::from_unix_seconds(1_000_000_000 - 2 * h)),
        42
    );
    assert_eq!(
        log2_bucket(now, Time::from_unix_seconds(1_000_000_000 - 5 * h)),
        44
    );
    assert_eq!(
        log2_bucket(now, Time::from_unix_seconds(1_000_000_000 - 8 * h)),
        44
    );
    // A month is bucket 51 (2^51 ns ≈ 26 days, 2^52 ≈ 52 days).
    assert_eq!(
        log2_bucket(now, Time::from_unix_seconds(1_000_000_000 - 30 * 24 * h)),
        51
    );
}

/// R-73: 2^k ns is exactly bucket k and 2^k − 1 ns is bucket k − 1 (Go's Log2 is exact at
/// powers of two); from 2^54 on, 2^k − 1 converts to the float 2^k and is bucket k, as
/// Go's `float64(d)` makes it.
#[test]
fn r73_bucket_boundaries_for_every_exponent() {
    let base = Time::from_unix_nanos(i64::MAX / 2);
    let back = |d: i64| Time::from_unix_nanos(base.unix_nanos() - d);
    for k in 0..62 {
        let d = 1i64 << k;
        assert_eq!(log2_bucket(base, back(d)), k, "2^{k}");
        if (1..=45).contains(&k) {
            assert_eq!(log2_bucket(base, back(d - 1)), k - 1, "2^{k} - 1");
        }
        if k >= 54 {
            assert_eq!(log2_bucket(base, back(d - 1)), k, "2^{k} - 1 rounds up");
        }
    }
}

// ---------------------------------------------------------------------------------------
// Config (C-1, §16)

#[test]
fn c1_defaults_are_v1_36() {
    let c = Config::default();
    assert_eq!(DEFAULT_BURST_REPLICAS, 500);
    assert_eq!(c.burst_replicas, 500);
    assert_eq!(c.owner_kind, OwnerKind::replica_set());
    assert_eq!(c.emulation_version, None);
    assert_eq!(
        c.feature_gates,
        FeatureGates {
            pod_deletion_cost: true,
            logarithmic_scale_down: true,
            deployment_replica_set_terminating_replicas: true,
            stale_controller_consistency_replica_set: true,
        }
    );
    assert_eq!(c.validate(), Ok(()));
}

/// §16: gate defaults by release.
#[test]
fn s16_gate_defaults_by_version() {
    let table = [
        // (minor, cost, log, terminating, stale)
        (21, false, false, false, false),
        (22, true, true, false, false),
        (30, true, true, false, false),
        (34, true, true, false, false),
        (35, true, true, true, false),
        (36, true, true, true, true),
        (37, true, true, true, true),
    ];
    for (minor, cost, log, term, stale) in table {
        let g = FeatureGates::for_version(1, minor);
        assert_eq!(
            (
                g.pod_deletion_cost,
                g.logarithmic_scale_down,
                g.deployment_replica_set_terminating_replicas,
                g.stale_controller_consistency_replica_set
            ),
            (cost, log, term, stale),
            "1.{minor}"
        );
    }
    assert_eq!(
        FeatureGates::for_version(2, 0),
        FeatureGates::for_version(1, 36)
    );
}

#[test]
fn config_for_version_pins_gates_and_emulation_version() {
    let c = Config::for_version(30);
    assert_eq!(c.emulation_version.as_deref(), Some("1.30"));
    assert_eq!(c.feature_gates, FeatureGates::for_version(1, 30));
    assert_eq!(c.burst_replicas, 500);
    assert_eq!(Config::for_version(36), Config::default());
}

/// §16: LogarithmicScaleDown is GA-locked on since 1.31.
#[test]
fn s16_logarithmic_scale_down_is_locked_from_1_31() {
    let mut c = Config::default();
    c.feature_gates.logarithmic_scale_down = false;
    let err = c.validate().expect_err("locked at 1.36");
    assert_eq!(err.path(), "config.featureGates.LogarithmicScaleDown");
    assert_eq!(err.code(), "INVALID_CONFIG");
    assert!(err.to_string().contains("locked to true in 1.36"), "{err}");

    c.emulation_version = Some("1.31".into());
    let err = c.validate().expect_err("locked at 1.31");
    assert!(err.to_string().contains("locked to true in 1.31"), "{err}");

    c.emulation_version = Some("1.30".into());
    assert_eq!(c.validate(), Ok(()));
    c.emulation_version = Some("v1.30".into());
    assert_eq!(c.validate(), Ok(()));

    let old = Config::for_version(21);
    assert!(!old.feature_gates.logarithmic_scale_down);
    assert!(!old.feature_gates.pod_deletion_cost);
    assert_eq!(old.validate(), Ok(()));
}

#[test]
fn c1_zero_burst_is_refused() {
    let c = Config {
        burst_replicas: 0,
        ..Config::default()
    };
    let err = c.validate().expect_err("burst 0");
    assert_eq!(err.path(), "config.burstReplicas");
    assert_eq!(err.to_string(), "config.burstReplicas: must be at least 1");
    let one = Config {
        burst_replicas: 1,
        ..Config::default()
    };
    assert_eq!(one.validate(), Ok(()));
}

#[test]
fn malformed_emulation_version_and_empty_owner_kind_are_refused() {
    for bad in ["130", "one.thirty", "1.x", ""] {
        let c = Config {
            emulation_version: Some(bad.into()),
            ..Config::default()
        };
        let err = c.validate().expect_err(bad);
        assert_eq!(err.path(), "config.emulationVersion", "{bad:?}");
    }
    let c = Config {
        owner_kind: OwnerKind {
            api_version: "apps/v1".into(),
            kind: String::new(),
        },
        ..Config::default()
    };
    assert_eq!(c.validate().expect_err("kind").path(), "config.ownerKind");
}

/// §2: EnableStatusTerminatingReplicas is true for ReplicaSet, false for
/// ReplicationController.
#[test]
fn owner_kinds_and_terminating_replicas() {
    assert!(OwnerKind::replica_set().reports_terminating_replicas());
    assert!(!OwnerKind::replication_controller().reports_terminating_replicas());
    assert_eq!(OwnerKind::replication_controller().api_version, "v1");
    assert_eq!(OwnerKind::replica_set().kind, "ReplicaSet");
}

#[test]
fn config_json_uses_camel_case_and_pascal_case_gates() {
    let c: Config = replicore::input::from_json(
        br#"{"burstReplicas": 7, "featureGates": {"PodDeletionCost": false},
             "emulationVersion": "1.30"}"#,
    )
    .expect("parses");
    assert_eq!(c.burst_replicas, 7);
    assert!(!c.feature_gates.pod_deletion_cost);
    // Unspecified gates keep the 1.36 defaults.
    assert!(c.feature_gates.logarithmic_scale_down);
    assert_eq!(c.owner_kind, OwnerKind::replica_set());
    assert_eq!(c.validate(), Ok(()));
    let v = serde_json::to_value(Config::default()).expect("ser");
    assert_eq!(v["burstReplicas"], 500);
    assert_eq!(
        v["featureGates"]["StaleControllerConsistencyReplicaSet"],
        true
    );
    assert!(v.get("emulationVersion").is_none());
}

#[test]
fn fixture_clock_helpers_agree_with_time() {
    // The helpers in tests/common build the timestamps every other file relies on.
    assert_eq!(now(), time(NOW));
    assert_eq!(time(&ago(2.5)).since(now()), secs(-2.5));
    assert_eq!(time(&at(now(), 1.0)), now().plus(Duration::from_seconds(1)));
}
