//! The explain command's report (core/src/report.rs): Deployments, ReplicaSets and
//! forecasts from one snapshot, as data and as the one text the CLI and the example print.

use replicore::deployment::forecast::PodGroup;
use replicore::explain::report::{render, report, ForecastRequest, ReportOptions};
use replicore::explain::{explain_json, report_text, ExplainOptions};
use replicore::{Error, Time};

fn snapshot() -> Vec<u8> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/rollout.json");
    std::fs::read(path).unwrap()
}

fn now() -> Time {
    Time::parse("2026-11-23T23:16:12Z").unwrap().unwrap()
}

#[test]
fn a_snapshot_with_a_deployment_reports_it_then_its_replica_sets() {
    let bytes = snapshot();
    let r = report(&bytes, &ReportOptions::explain(ExplainOptions::at(now()))).unwrap();
    let d = r.deployments.as_ref().expect("the Deployment is explained");
    assert_eq!(d.deployments.len(), 1);
    let text = render(&r);
    assert!(
        text.starts_with("Deployment team-a/gateway (revision 4, RollingUpdate, 10 replicas)"),
        "{text}"
    );
    assert!(
        text.contains("create gateway-569ccb8dcc with 3 replicas"),
        "{text}"
    );
    // The ReplicaSet part is the ReplicaSet report itself, but for its header: the
    // Deployment explained above is not one "other object ignored" (the ReplicaSet report
    // alone ignores it).
    let alone = explain_json(&bytes, &ExplainOptions::at(now())).unwrap();
    assert_eq!(alone.ignored, 1, "the snapshot's one Deployment");
    let rs = report_text(&alone);
    let (header, body) = rs.split_once('\n').unwrap();
    assert!(header.ends_with(", 1 other object ignored"), "{header}");
    let header = header.trim_end_matches(", 1 other object ignored");
    assert!(text.contains(&format!("{header}\n{body}")), "{text}");
    assert!(!text.contains("ignored"), "{text}");
    assert_eq!(r.replica_sets.as_ref().unwrap().ignored, 0);
    assert!(r.forecasts.is_empty());
}

#[test]
fn a_forecast_plays_each_deployment_forward() {
    let options = ReportOptions {
        forecast: Some(ForecastRequest {
            startup_seconds: Some(15.0),
            ..ForecastRequest::default()
        }),
        ..ReportOptions::explain(ExplainOptions::at(now()))
    };
    let r = report(&snapshot(), &options).unwrap();
    assert_eq!(r.forecasts.len(), 1);
    let f = &r.forecasts[0];
    assert_eq!(f.peak_pods, 13, "10 replicas, maxSurge 25% → 13");
    // The snapshot's pods are where the forecast starts: 4 of the old ReplicaSet's 10
    // crash-loop, so 6 are available at the start (below maxUnavailable 25%'s 8).
    assert_eq!(f.min_available, 6);
    let crash = f
        .assumptions
        .iter()
        .find(|a| a.group == PodGroup::CrashLooping)
        .expect("the crash-looping group");
    assert_eq!((crash.pods, crash.new, crash.ready), (4, false, false));
    let text = render(&r);
    assert!(
        text.contains("Forecast for deployment team-a/gateway"),
        "{text}"
    );
    assert!(text.contains("Complete after "), "{text}");
    let json = r.to_json_value().unwrap();
    assert!(json["forecasts"][0]["steps"].is_array(), "{json}");
    assert!(json["deployments"]["deployments"].is_array(), "{json}");
}

#[test]
fn replica_sets_alone_report_as_explain_always_did() {
    let list = br#"{"kind":"List","items":[
      {"kind":"ReplicaSet","metadata":{"name":"web","namespace":"shop","uid":"u1"},
       "spec":{"replicas":1,"selector":{"matchLabels":{"app":"web"}},
               "template":{"metadata":{"labels":{"app":"web"}}}}}]}"#;
    let options = ExplainOptions::at(now());
    let r = report(list, &ReportOptions::explain(options.clone())).unwrap();
    assert!(r.deployments.is_none());
    let alone = explain_json(list, &options).unwrap();
    assert_eq!(
        r.to_json_value().unwrap(),
        serde_json::to_value(&alone).unwrap()
    );
    assert_eq!(render(&r), report_text(&alone));
}

#[test]
fn a_forecast_needs_a_deployment_and_sane_durations() {
    let list = br#"{"kind":"List","items":[
      {"kind":"ReplicaSet","metadata":{"name":"web","namespace":"shop","uid":"u1"},
       "spec":{"replicas":1,"selector":{"matchLabels":{"app":"web"}},
               "template":{"metadata":{"labels":{"app":"web"}}}}}]}"#;
    let forecast = |request: ForecastRequest| ReportOptions {
        forecast: Some(request),
        ..ReportOptions::explain(ExplainOptions::at(now()))
    };
    let e = report(list, &forecast(ForecastRequest::default())).unwrap_err();
    assert!(
        matches!(&e, Error::Missing { path } if path == "items"),
        "{e}"
    );
    for (request, path) in [
        (
            ForecastRequest {
                startup_seconds: Some(-1.0),
                ..Default::default()
            },
            "forecast.startupSeconds",
        ),
        (
            ForecastRequest {
                interval_seconds: Some(0.0),
                ..Default::default()
            },
            "forecast.intervalSeconds",
        ),
        (
            ForecastRequest {
                max_seconds: Some(f64::INFINITY),
                ..Default::default()
            },
            "forecast.maxSeconds",
        ),
    ] {
        let e = report(&snapshot(), &forecast(request)).unwrap_err();
        assert_eq!(e.path(), path, "{e}");
        assert_eq!(e.code(), "MALFORMED");
    }
}

#[test]
fn a_bad_clock_in_the_report_options_is_refused_at_its_path() {
    let e = replicore::input::from_json::<ReportOptions>(br#"{"now":"yesterday"}"#).unwrap_err();
    assert_eq!(e.path(), "now", "{e}");
}

#[test]
fn the_report_options_read_from_json_with_the_forecast_beside_explain() {
    let o: ReportOptions = replicore::input::from_json(
        br#"{"now":"2026-11-23T23:16:12Z","replicas":3,"forecast":{"seed":9,"failure":{"kind":"newTemplateFails"}}}"#,
    )
    .unwrap();
    assert_eq!(o.replicas, Some(3));
    assert_eq!(o.forecast.unwrap().seed, Some(9));
}

/// The example snapshot with a second Deployment `other` that controls one more
/// ReplicaSet, `other-5f6d7c8b9`.
fn two_deployments() -> Vec<u8> {
    let mut list: serde_json::Value = serde_json::from_slice(&snapshot()).unwrap();
    let items = list["items"].as_array_mut().unwrap();
    let mut d = items
        .iter()
        .find(|i| i["kind"] == "Deployment")
        .unwrap()
        .clone();
    d["metadata"]["name"] = "other".into();
    d["metadata"]["uid"] = "other-uid".into();
    let mut rs = items
        .iter()
        .find(|i| i["kind"] == "ReplicaSet")
        .unwrap()
        .clone();
    rs["metadata"]["name"] = "other-5f6d7c8b9".into();
    rs["metadata"]["uid"] = "other-rs-uid".into();
    rs["metadata"]["ownerReferences"][0]["name"] = "other".into();
    rs["metadata"]["ownerReferences"][0]["uid"] = "other-uid".into();
    items.push(d);
    items.push(rs);
    serde_json::to_vec(&list).unwrap()
}

#[test]
fn one_deployment_is_explained_with_the_replica_sets_it_controls() {
    let bytes = two_deployments();
    let all = report(&bytes, &ReportOptions::explain(ExplainOptions::at(now()))).unwrap();
    assert_eq!(all.deployments.as_ref().unwrap().deployments.len(), 2);
    assert_eq!(all.replica_sets.as_ref().unwrap().owners.len(), 5);

    for wanted in ["gateway", "team-a/gateway"] {
        let options = ReportOptions {
            deployment: Some(wanted.into()),
            ..ReportOptions::explain(ExplainOptions::at(now()))
        };
        let one = report(&bytes, &options).unwrap();
        let d = &one.deployments.as_ref().unwrap().deployments;
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].name, "gateway");
        let owners: Vec<&str> = one
            .replica_sets
            .as_ref()
            .unwrap()
            .owners
            .iter()
            .map(|o| o.name.as_str())
            .collect();
        assert_eq!(owners.len(), 4, "{owners:?}");
        assert!(
            owners.iter().all(|n| n.starts_with("gateway-")),
            "{owners:?}"
        );
        // The same text as the snapshot of that Deployment alone.
        let alone = report(
            &snapshot(),
            &ReportOptions::explain(ExplainOptions::at(now())),
        )
        .unwrap();
        assert_eq!(render(&one), render(&alone));
    }

    let missing = ReportOptions {
        deployment: Some("team-b/gateway".into()),
        ..ReportOptions::explain(ExplainOptions::at(now()))
    };
    match report(&bytes, &missing) {
        Err(Error::Config { path, message }) => {
            assert_eq!(path, "deployment");
            assert!(
                message.contains("team-a/gateway, team-a/other"),
                "{message}"
            );
        }
        other => panic!("expected a Config error, got {other:?}"),
    }
}

#[test]
fn one_replica_set_is_explained_without_the_deployments() {
    let options = ReportOptions {
        owner: Some("gateway-68d987cf5".into()),
        ..ReportOptions::explain(ExplainOptions::at(now()))
    };
    let r = report(&snapshot(), &options).unwrap();
    assert!(r.deployments.is_none());
    let owners = &r.replica_sets.as_ref().unwrap().owners;
    assert_eq!(owners.len(), 1);
    assert_eq!(owners[0].name, "gateway-68d987cf5");
}
