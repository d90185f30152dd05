//! Event correlation (EC-01..EC-09, `replicore::event_correlation`): what
//! kube-controller-manager's recorder writes for the events a controller records, as
//! client-go's `EventCorrelator` decides it. A fake API server applies the decisions the
//! way client-go's `recordToSink` does (PATCH, 404 → POST, then `UpdateState`).

use std::collections::BTreeMap;

use proptest::prelude::*;
use replicore::event_correlation::{
    correlate, Correlation, Event, EventCorrelator, EventSource, EventToRecord, ObjectReference,
    COMBINED_PREFIX, MAX_LRU_CACHE_ENTRIES, SPAM_BURST, SPAM_QPS,
};
use replicore::{Duration, Time};
use serde_json::{json, Value};

const T0: i64 = 1_795_000_000_000_000_000; // 2026-11-18T...Z, in nanoseconds

fn at_ms(ms: i64) -> Time {
    Time::from_unix_nanos(T0 + ms * 1_000_000)
}

fn at_s(s: f64) -> Time {
    Time::from_unix_nanos(T0 + (s * 1e9) as i64)
}

fn rs(name: &str) -> ObjectReference {
    ObjectReference {
        kind: "ReplicaSet".into(),
        namespace: "default".into(),
        name: name.into(),
        uid: format!("uid-{name}"),
        api_version: "apps/v1".into(),
        resource_version: "7".into(),
        field_path: String::new(),
    }
}

fn ev(object: &str, type_: &str, reason: &str, message: &str) -> EventToRecord {
    EventToRecord {
        involved_object: rs(object),
        type_: type_.into(),
        reason: reason.into(),
        message: message.into(),
        source: EventSource {
            component: "replicaset-controller".into(),
            host: String::new(),
        },
    }
}

/// Events as the API server holds them, by namespace/name; applies decisions as
/// client-go's `recordEvent` does and feeds the answer back (`UpdateState`).
#[derive(Default)]
struct Server {
    events: BTreeMap<String, Event>,
    posts: usize,
    patches: usize,
    not_found: usize,
}

impl Server {
    fn apply(&mut self, c: &mut EventCorrelator, d: &Correlation) {
        let written = match d {
            Correlation::Drop(_) => return,
            Correlation::Create(x) => self.post(&x.event),
            Correlation::Patch(p) => {
                self.patches += 1;
                match self.events.get_mut(&format!("{}/{}", p.namespace, p.name)) {
                    Some(e) => {
                        e.count = p.patch.count;
                        e.last_timestamp = p.patch.last_timestamp;
                        if !p.patch.message.is_empty() {
                            e.message = p.patch.message.clone();
                        }
                        e.clone()
                    }
                    None => {
                        self.not_found += 1;
                        self.post(&p.event)
                    }
                }
            }
        };
        c.written(&written);
    }

    fn post(&mut self, e: &Event) -> Event {
        self.posts += 1;
        let k = format!("{}/{}", e.metadata.namespace, e.metadata.name);
        assert!(
            !self.events.contains_key(&k),
            "POST of an existing Event {k}"
        );
        self.events.insert(k, e.clone());
        e.clone()
    }

    /// Sum of `count` over the Events of `reason`, and how many objects.
    fn by_reason(&self, reason: &str) -> (i32, usize) {
        let of: Vec<&Event> = self
            .events
            .values()
            .filter(|e| e.reason == reason)
            .collect();
        (of.iter().map(|e| e.count).sum(), of.len())
    }
}

fn action(d: &Correlation) -> &'static str {
    match d {
        Correlation::Create(_) => "create",
        Correlation::Patch(_) => "patch",
        Correlation::Drop(_) => "drop",
    }
}

fn record(c: &mut EventCorrelator, s: &mut Server, e: &EventToRecord, now: Time) -> Correlation {
    let d = c.correlate(e, now).expect("a valid event");
    s.apply(c, &d);
    d
}

/// A sync scaling `web` from 0 to 20 (20 SuccessfulCreate), then one from 20 to 5
/// (15 SuccessfulDelete), a few milliseconds apart: kube-controller-manager's recorder
/// writes every create (9 Events, then the 10th and later as one combined Event whose
/// count reaches 11) and the first 5 deletes; the 26th event about the ReplicaSet finds
/// no token and the remaining 10 deletes are dropped.
#[test]
fn scale_down_20_to_5_records_what_kcm_records() {
    let mut c = EventCorrelator::new();
    let mut s = Server::default();
    let mut actions = Vec::new();
    for i in 1..=20 {
        let msg = format!("Created pod: web-{i:02}");
        let d = record(
            &mut c,
            &mut s,
            &ev("web", "Normal", "SuccessfulCreate", &msg),
            at_ms(i),
        );
        actions.push(action(&d));
    }
    assert_eq!(
        actions[..9],
        ["create"; 9],
        "EC-02: the first 9 messages are Events"
    );
    assert_eq!(
        actions[9], "create",
        "EC-02: the 10th is a new combined Event"
    );
    assert_eq!(
        actions[10..],
        ["patch"; 10],
        "EC-03: later ones count on it"
    );
    for i in 1..=15 {
        let msg = format!("Deleted pod: web-{i:02}");
        let d = record(
            &mut c,
            &mut s,
            &ev("web", "Normal", "SuccessfulDelete", &msg),
            at_ms(100 + i),
        );
        actions.push(action(&d));
    }
    assert_eq!(actions[20..25], ["create"; 5]);
    assert_eq!(
        actions[25..],
        ["drop"; 10],
        "EC-05: 25 events pass, the rest are dropped"
    );

    assert_eq!(s.by_reason("SuccessfulCreate"), (20, 10));
    assert_eq!(s.by_reason("SuccessfulDelete"), (5, 5));
    assert_eq!(s.events.len(), 15);
    assert_eq!((s.posts, s.patches, s.not_found), (15, 10, 0));
    let combined: Vec<&Event> = s
        .events
        .values()
        .filter(|e| e.message.starts_with(COMBINED_PREFIX))
        .collect();
    assert_eq!(combined.len(), 1);
    let combined = combined[0];
    assert_eq!(combined.count, 11);
    assert_eq!(
        combined.message,
        "(combined from similar events): Created pod: web-20"
    );
    assert_eq!(
        combined.reporting_component, "",
        "the combined copy has no reporting fields"
    );
    let first = s
        .events
        .values()
        .find(|e| e.message == "Created pod: web-01")
        .expect("the first create is an Event of its own");
    assert_eq!(first.count, 1);
    assert_eq!(first.reporting_component, "replicaset-controller");
    assert_eq!(first.source.component, "replicaset-controller");
    assert_eq!(first.involved_object, rs("web"));
}

/// A hundred identical FailedCreate events in one burst: one Event, created once and
/// patched 24 times (count 25); the other 75 are dropped by the spam filter but counted
/// in the log (EC-04), as is one dropped at 299.9 s, so the next one that gets a token,
/// 5 minutes after the last taken, patches the same Event to count 102.
#[test]
fn hundred_identical_failures_count_on_one_event() {
    let mut c = EventCorrelator::new();
    let mut s = Server::default();
    let e = ev(
        "web",
        "Warning",
        "FailedCreate",
        "Error creating: pods \"web-\" is forbidden: exceeded quota",
    );
    let mut actions = BTreeMap::<&str, usize>::new();
    let mut counts = Vec::new();
    for i in 0..100 {
        let d = record(&mut c, &mut s, &e, at_ms(i));
        *actions.entry(action(&d)).or_default() += 1;
        if let Correlation::Patch(p) = &d {
            counts.push(p.patch.count);
            assert_eq!(p.patch.message, e.message, "the patch carries the message");
        }
    }
    assert_eq!(
        actions,
        BTreeMap::from([("create", 1), ("patch", 24), ("drop", 75)])
    );
    assert_eq!(counts, (2..=25).collect::<Vec<_>>());
    assert_eq!(s.events.len(), 1);
    assert_eq!(s.by_reason("FailedCreate"), (25, 1));

    // 25 tokens were taken at 0..=24 ms; one is back 300 s after the last taken.
    let d = c.correlate(&e, at_s(299.9)).expect("valid");
    assert_eq!(action(&d), "drop");
    let d = record(&mut c, &mut s, &e, at_s(300.024));
    let Correlation::Patch(p) = &d else {
        panic!("expected a patch, got {d:?}")
    };
    assert_eq!(
        p.patch.count, 102,
        "the log counted every occurrence, dropped or not"
    );
    assert_eq!(s.by_reason("FailedCreate"), (102, 1));
    let only = s.events.values().next().expect("one Event");
    assert_eq!(
        only.first_timestamp,
        Time::from_unix_seconds(T0 / 1_000_000_000)
    );
    assert_eq!(
        only.last_timestamp,
        Time::from_unix_seconds(T0 / 1_000_000_000 + 300)
    );
}

/// One identical failure every 5 minutes: the bucket refills as fast as it is spent, and
/// all hundred count on one Event.
#[test]
fn hundred_failures_five_minutes_apart_make_count_100() {
    let mut c = EventCorrelator::new();
    let mut s = Server::default();
    let e = ev("web", "Warning", "FailedCreate", "Error creating: quota");
    for i in 0..100 {
        let d = record(&mut c, &mut s, &e, at_s(300.0 * i as f64));
        assert_ne!(action(&d), "drop", "event {i}");
    }
    assert_eq!(s.by_reason("FailedCreate"), (100, 1));
    assert_eq!((s.posts, s.patches), (1, 99));
}

/// EC-02: the 10th distinct message within 10 minutes becomes the combined Event; a
/// group whose last event is more than 600 s old starts afresh (exactly 600 s is not).
#[test]
fn similar_events_aggregate_after_ten_messages() {
    let mut c = EventCorrelator::new();
    let mut s = Server::default();
    let msg = |i: i32| format!("Error creating: failure {i}");
    for i in 1..=9 {
        let d = record(
            &mut c,
            &mut s,
            &ev("a", "Warning", "FailedCreate", &msg(i)),
            at_s(i as f64),
        );
        let Correlation::Create(x) = &d else {
            panic!("{d:?}")
        };
        assert_eq!(x.event.message, msg(i));
    }
    let d = record(
        &mut c,
        &mut s,
        &ev("a", "Warning", "FailedCreate", &msg(10)),
        at_s(10.0),
    );
    let Correlation::Create(x) = &d else {
        panic!("{d:?}")
    };
    assert_eq!(x.event.message, format!("{COMBINED_PREFIX}{}", msg(10)));
    assert_eq!(x.event.count, 1);
    let combined_name = x.event.metadata.name.clone();
    // 600 s after the last: still the same group.
    let d = record(
        &mut c,
        &mut s,
        &ev("a", "Warning", "FailedCreate", &msg(11)),
        at_s(610.0),
    );
    let Correlation::Patch(p) = &d else {
        panic!("{d:?}")
    };
    assert_eq!(p.name, combined_name);
    assert_eq!(p.patch.count, 2);
    assert_eq!(p.patch.message, format!("{COMBINED_PREFIX}{}", msg(11)));
    assert_eq!(
        serde_json::to_value(&p.patch).expect("json"),
        json!({"count": 2, "lastTimestamp": at_s(610.0).to_string(), "message": format!("{COMBINED_PREFIX}{}", msg(11))})
    );
    // More than 600 s after the last: a fresh group, an Event of its own.
    let d = record(
        &mut c,
        &mut s,
        &ev("a", "Warning", "FailedCreate", &msg(12)),
        at_s(1210.5),
    );
    let Correlation::Create(x) = &d else {
        panic!("{d:?}")
    };
    assert_eq!(x.event.message, msg(12));
    // Another reason, type or object is another group.
    let d = record(
        &mut c,
        &mut s,
        &ev("b", "Warning", "FailedCreate", &msg(13)),
        at_s(1211.0),
    );
    assert_eq!(action(&d), "create");
}

/// EC-02/EC-09: once aggregated, the group keeps 9 messages (the smallest forgotten): a
/// message still remembered is not aggregated (it counts on its own Event), a new one is.
#[test]
fn aggregated_group_forgets_one_message() {
    let mut c = EventCorrelator::new();
    let mut s = Server::default();
    for i in 0..10 {
        record(
            &mut c,
            &mut s,
            &ev("a", "Normal", "R", &format!("m{i}")),
            at_s(i as f64),
        );
    }
    // m0 was forgotten; m5 is remembered.
    let d = record(&mut c, &mut s, &ev("a", "Normal", "R", "m5"), at_s(11.0));
    let Correlation::Patch(p) = &d else {
        panic!("{d:?}")
    };
    assert_eq!((p.patch.message.as_str(), p.patch.count), ("m5", 2));
    let d = record(&mut c, &mut s, &ev("a", "Normal", "R", "m0"), at_s(12.0));
    let Correlation::Patch(p) = &d else {
        panic!("{d:?}")
    };
    assert_eq!(p.patch.message, format!("{COMBINED_PREFIX}m0"));
}

/// EC-05/EC-08: the bucket is per source + object + type (not reason), holds 25 and
/// gets a token back every 299.99999 s (float32(1/300) per second).
#[test]
fn spam_bucket_refills_one_token_per_five_minutes() {
    assert_eq!(SPAM_QPS, 0.0033333334140479565);
    let mut c = EventCorrelator::new();
    let mut s = Server::default();
    for i in 0..25 {
        let d = record(
            &mut c,
            &mut s,
            &ev("a", "Normal", &format!("R{i}"), "m"),
            at_s(0.0),
        );
        assert_ne!(action(&d), "drop");
    }
    let n = |c: &mut EventCorrelator, reason: &str, t: Time| {
        action(
            &c.correlate(&ev("a", "Normal", reason, "m"), t)
                .expect("valid"),
        )
    };
    assert_eq!(n(&mut c, "Other", at_s(0.0)), "drop");
    assert_eq!(n(&mut c, "Other", at_s(299.0)), "drop");
    // Another type, another object: their own buckets.
    assert_eq!(
        action(&record(
            &mut c,
            &mut s,
            &ev("a", "Warning", "W", "m"),
            at_s(1.0)
        )),
        "create"
    );
    assert_eq!(
        action(&record(
            &mut c,
            &mut s,
            &ev("b", "Normal", "R0", "m"),
            at_s(1.0)
        )),
        "create"
    );
    // A token takes 1/SPAM_QPS = 299.9999927 s: at 299.999992734 s the deficit still
    // means a wait of 1 ns; at ...735 the wait truncates to 0 ns and Go accepts, leaving
    // the bucket a hair below zero; one more call at the same instant is dropped.
    let exhausted = || {
        let mut c = EventCorrelator::new();
        for i in 0..25 {
            c.correlate(&ev("a", "Normal", &format!("R{i}"), "m"), at_s(0.0))
                .expect("valid");
        }
        c
    };
    let mut early = exhausted();
    assert_eq!(
        n(
            &mut early,
            "Other",
            Time::from_unix_nanos(T0 + 299_999_992_734)
        ),
        "drop"
    );
    let mut edge = exhausted();
    assert_eq!(
        n(
            &mut edge,
            "Other",
            Time::from_unix_nanos(T0 + 299_999_992_735)
        ),
        "create"
    );
    assert_eq!(
        n(
            &mut edge,
            "Other2",
            Time::from_unix_nanos(T0 + 299_999_992_735)
        ),
        "drop"
    );
    // ("Other" was dropped before: its name is in the log, so it is a patch, EC-04.)
    assert_eq!(
        n(&mut c, "Other", Time::from_unix_nanos(T0 + 299_999_993_000)),
        "patch"
    );
    assert_eq!(
        n(
            &mut c,
            "Other2",
            Time::from_unix_nanos(T0 + 299_999_993_000)
        ),
        "drop"
    );
    // A long rest refills to the burst, not beyond.
    let later = at_s(100_000.0);
    let passed = (0..30)
        .filter(|i| n(&mut c, &format!("X{i}"), later) != "drop")
        .count();
    assert_eq!(passed, SPAM_BURST as usize);
    // A clock that goes back counts as no time passed.
    assert_eq!(n(&mut c, "Y", at_s(50.0)), "drop");
}

/// EC-04: a first occurrence that the filter drops still leaves its name in the log; the
/// next one patches that name, gets 404, and the host posts the Event it carries.
#[test]
fn dropped_first_occurrence_is_created_on_404() {
    let mut c = EventCorrelator::new();
    let mut s = Server::default();
    for i in 0..25 {
        record(
            &mut c,
            &mut s,
            &ev("a", "Normal", "R", &format!("m{}", i % 5)),
            at_s(0.0),
        );
    }
    let d = c
        .correlate(&ev("a", "Normal", "Late", "x"), at_s(1.0))
        .expect("valid");
    assert_eq!(action(&d), "drop");
    let d = record(&mut c, &mut s, &ev("a", "Normal", "Late", "x"), at_s(400.0));
    let Correlation::Patch(p) = &d else {
        panic!("{d:?}")
    };
    assert_eq!(p.patch.count, 2);
    assert_eq!(p.event.count, 2);
    assert_eq!(p.event.metadata.name, p.name);
    assert_eq!(p.event.first_timestamp, at_s(1.0));
    assert_eq!(s.not_found, 1);
    assert_eq!(s.by_reason("Late"), (2, 1));
}

/// EC-01: names, namespace, timestamps, reporting fields; EC-09: unique names on a
/// repeated `now`; a refused type changes nothing.
#[test]
fn event_as_made() {
    let mut c = EventCorrelator::new();
    let now = Time::from_unix_nanos(T0 + 123_456_789);
    let d = c
        .correlate(&ev("web", "Normal", "R", "m1"), now)
        .expect("valid");
    let Correlation::Create(x) = &d else {
        panic!("{d:?}")
    };
    assert_eq!(x.event.metadata.name, format!("web.{:x}", T0 + 123_456_789));
    assert_eq!(x.event.metadata.namespace, "default");
    assert_eq!(
        x.event.first_timestamp,
        Time::from_unix_seconds(T0 / 1_000_000_000)
    );
    let v = serde_json::to_value(&d).expect("json");
    assert_eq!(v["action"], "create");
    assert_eq!(
        v["event"]["lastTimestamp"],
        Time::from_unix_seconds(T0 / 1_000_000_000).to_string()
    );
    assert_eq!(v["event"]["count"], 1);
    assert_eq!(v["event"]["type"], "Normal");
    assert_eq!(v["event"]["reportingComponent"], "replicaset-controller");
    assert_eq!(v["event"]["reportingInstance"], "");
    assert_eq!(
        v["event"]["source"],
        json!({"component": "replicaset-controller"})
    );
    let d2 = c
        .correlate(&ev("web", "Normal", "R", "m2"), now)
        .expect("valid");
    let Correlation::Create(y) = &d2 else {
        panic!("{d2:?}")
    };
    assert_eq!(y.event.metadata.name, format!("web.{:x}", T0 + 123_456_790));

    let mut cluster = ev("node-1", "Warning", "R", "m");
    cluster.involved_object.namespace.clear();
    let d = c.correlate(&cluster, now).expect("valid");
    let Correlation::Create(z) = &d else {
        panic!("{d:?}")
    };
    assert_eq!(z.event.metadata.namespace, "default");
    assert_eq!(z.event.involved_object.namespace, "");

    let long = "a".repeat(250);
    let d = c
        .correlate(&ev(&long, "Normal", "R", "m"), now)
        .expect("valid");
    let Correlation::Create(u) = &d else {
        panic!("{d:?}")
    };
    assert_eq!(
        u.event.metadata.name.len(),
        36,
        "a UUID-shaped name: {}",
        u.event.metadata.name
    );

    let before = serde_json::to_value(&c).expect("json");
    let err = c
        .correlate(&ev("web", "Info", "R", "m"), now)
        .expect_err("refused");
    assert_eq!(err.path(), "event.type");
    assert_eq!(serde_json::to_value(&c).expect("json"), before);
}

/// The state is a plain value: a JSON round trip gives an equal state that decides the
/// same from then on; the pure function agrees with the method.
#[test]
fn state_round_trips_through_json() {
    let mut c = EventCorrelator::new();
    let mut s = Server::default();
    for i in 0..40 {
        let e = ev(
            &format!("o{}", i % 3),
            "Normal",
            "R",
            &format!("m{}", i % 13),
        );
        record(&mut c, &mut s, &e, at_s(i as f64 * 7.3));
    }
    let text = serde_json::to_string(&c).expect("json");
    let back: EventCorrelator = serde_json::from_str(&text).expect("parses");
    assert_eq!(back, c);
    assert_eq!(serde_json::to_string(&back).expect("json"), text);
    let e = ev("o1", "Normal", "R", "new");
    let (d1, next) = correlate(back, &e, at_s(400.0)).expect("valid");
    let d2 = c.correlate(&e, at_s(400.0)).expect("valid");
    assert_eq!(d1, d2);
    assert_eq!(next, c);
    let v: Value = serde_json::from_str(&text).expect("json");
    assert!(v["spam"][0]["tokens"].is_string());
    assert!(v["aggregates"][0]["messages"].is_array());
}

/// Malformed states are refused by the engine's reader, naming the field.
#[test]
fn state_refuses_what_a_correlator_cannot_hold() {
    let too_many: Vec<Value> = (0..=MAX_LRU_CACHE_ENTRIES)
        .map(|i| json!({"key": format!("k{i}"), "count": 1, "firstTimestamp": "2026-01-01T00:00:00Z", "name": "n"}))
        .collect();
    let err = replicore::input::from_json::<EventCorrelator>(
        serde_json::to_string(&json!({ "observations": too_many }))
            .expect("json")
            .as_bytes(),
    )
    .expect_err("refused");
    assert!(err.to_string().contains("at most 4096"), "{err}");
    let msgs: Vec<String> = (0..10).map(|i| format!("m{i}")).collect();
    let err = replicore::input::from_json::<EventCorrelator>(
        json!({"aggregates": [{"key": "k", "messages": msgs, "lastTimestamp": "2026-01-01T00:00:00Z"}]})
            .to_string()
            .as_bytes(),
    )
    .expect_err("refused");
    assert!(err.to_string().contains("fewer than 10"), "{err}");
    let err = replicore::input::from_json::<EventCorrelator>(
        json!({"spam": [{"key": "k", "tokens": "NaN", "last": "2026-01-01T00:00:00Z"}]})
            .to_string()
            .as_bytes(),
    )
    .expect_err("refused");
    assert!(
        err.to_string().contains("tokens") || err.path().contains("spam"),
        "{err}"
    );
}

/// EC-06: each cache keeps the 4096 most recently used keys; an evicted object gets a
/// fresh bucket and a fresh Event.
#[test]
fn caches_evict_the_least_recently_used() {
    let mut c = EventCorrelator::new();
    let mut s = Server::default();
    for _ in 0..26 {
        record(&mut c, &mut s, &ev("first", "Normal", "R", "m"), at_s(0.0));
    }
    assert_eq!(
        action(
            &c.correlate(&ev("first", "Normal", "R", "m"), at_s(0.0))
                .expect("v")
        ),
        "drop"
    );
    for i in 0..MAX_LRU_CACHE_ENTRIES {
        record(
            &mut c,
            &mut s,
            &ev(&format!("o{i}"), "Normal", "R", "m"),
            at_s(1.0),
        );
    }
    let size = c.size();
    assert_eq!(
        (size.aggregates, size.observations, size.spam),
        (4096, 4096, 4096)
    );
    let d = c
        .correlate(&ev("first", "Normal", "R", "m"), at_s(2.0))
        .expect("v");
    assert_eq!(
        action(&d),
        "create",
        "evicted: a fresh bucket and no logged Event"
    );
}

#[derive(Clone, Debug)]
struct Step {
    object: u16,
    warning: bool,
    reason: u8,
    message: u8,
    advance_ms: u32,
}

fn step(objects: u16) -> impl Strategy<Value = Step> {
    (
        0..objects,
        any::<bool>(),
        0u8..3,
        0u8..14,
        prop_oneof![Just(0u32), 0u32..2_000, 0u32..700_000],
    )
        .prop_map(|(object, warning, reason, message, advance_ms)| Step {
            object,
            warning,
            reason,
            message,
            advance_ms,
        })
}

fn run(steps: &[Step]) -> (EventCorrelator, Vec<(Step, Time, Correlation)>) {
    let mut c = EventCorrelator::new();
    let mut s = Server::default();
    let mut now = T0;
    let mut out = Vec::new();
    for st in steps {
        now += i64::from(st.advance_ms) * 1_000_000;
        let e = ev(
            &format!("o{}", st.object),
            if st.warning { "Warning" } else { "Normal" },
            &format!("R{}", st.reason),
            &format!("m{}", st.message),
        );
        let t = Time::from_unix_nanos(now);
        let d = record(&mut c, &mut s, &e, t);
        out.push((st.clone(), t, d));
    }
    (c, out)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// The state stays bounded (4096 entries per cache, fewer than 10 messages per group)
    /// whatever is recorded, and survives a JSON round trip.
    #[test]
    fn state_stays_bounded(steps in prop::collection::vec(step(6_000), 1..9_000)) {
        let (c, _) = run(&steps);
        let size = c.size();
        prop_assert!(size.aggregates <= MAX_LRU_CACHE_ENTRIES);
        prop_assert!(size.observations <= MAX_LRU_CACHE_ENTRIES);
        prop_assert!(size.spam <= MAX_LRU_CACHE_ENTRIES);
        let v = serde_json::to_value(&c).expect("json");
        for g in v["aggregates"].as_array().expect("list") {
            prop_assert!(g["messages"].as_array().expect("list").len() < 10);
        }
        let back: EventCorrelator = serde_json::from_value(v).expect("parses");
        prop_assert_eq!(back, c);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// With few objects (no eviction), the writes about one source + object + type never
    /// exceed 25 plus the tokens refilled since the first; patch counts grow on each name.
    #[test]
    fn writes_respect_the_bucket(steps in prop::collection::vec(step(3), 1..400)) {
        let (_, out) = run(&steps);
        let mut first: BTreeMap<(u16, bool), (Time, usize)> = BTreeMap::new();
        let mut counts: BTreeMap<String, i32> = BTreeMap::new();
        for (st, t, d) in &out {
            let entry = first.entry((st.object, st.warning)).or_insert((*t, 0));
            if action(d) != "drop" {
                entry.1 += 1;
                let refilled = go_secs(t.since(entry.0)) * SPAM_QPS;
                prop_assert!(entry.1 as f64 <= 25.0 + refilled + 1e-9, "{} writes, {} refilled", entry.1, refilled);
            }
            if let Correlation::Patch(p) = d {
                let last = counts.insert(p.name.clone(), p.patch.count);
                prop_assert!(last.is_none_or(|l| l < p.patch.count));
            }
            if let Correlation::Create(x) = d {
                counts.insert(x.event.metadata.name.clone(), x.event.count);
            }
        }
    }
}

fn go_secs(d: Duration) -> f64 {
    d.as_nanos() as f64 / 1e9
}

/// A scenario: name, previous events, the new event, the clock's interval (s), and what
/// the new event gives (`None` = skipped, else its count and message).
type Scenario<'a> = (
    &'a str,
    Vec<EventToRecord>,
    &'a EventToRecord,
    i64,
    Option<(i32, &'a str)>,
);

/// client-go's own `TestEventCorrelator` scenarios (events_cache_test.go), replayed: its
/// clock steps by the interval at each of the three readings per event (the test's
/// timestamps, the aggregator, the spam filter), so events are 3 intervals apart; an
/// event that is not skipped is fed back (`UpdateState`).
#[test]
fn upstream_event_correlator_scenarios() {
    let pod = |name: &str, ns: &str| ObjectReference {
        kind: "Pod".into(),
        namespace: ns.into(),
        name: name.into(),
        uid: "C934D34AFB20242".into(),
        api_version: "version".into(),
        resource_version: String::new(),
        field_path: "spec.containers{mycontainer}".into(),
    };
    let make = |reason: &str, message: &str, o: ObjectReference| EventToRecord {
        involved_object: o,
        type_: "Normal".into(),
        reason: reason.into(),
        message: message.into(),
        source: EventSource {
            component: "kubelet".into(),
            host: "kublet.node1".into(),
        },
    };
    let first = make("first", "i am first", pod("my-pod", "my-ns"));
    let duplicate = make("duplicate", "me again", pod("my-pod", "my-ns"));
    let unique = make("unique", "snowflake", pod("my-pod", "my-ns"));
    let mut similar = make("similar", "similar message", pod("my-pod", "my-ns"));
    similar.involved_object.field_path = "spec.containers{container1}".into();
    let mut similar_other_container = similar.clone();
    similar_other_container.involved_object.field_path = "spec.containers{container2}".into();
    let repeat = |n: usize, e: &EventToRecord| vec![e.clone(); n];
    let uniques = |n: usize| -> Vec<EventToRecord> {
        (0..n)
            .map(|i| {
                make(
                    &format!("reason-{i}"),
                    &format!("message-{i}"),
                    pod(&format!("pod-{i}"), &format!("ns-{i}")),
                )
            })
            .collect()
    };
    let similars = |n: usize| -> Vec<EventToRecord> {
        (0..n)
            .map(|i| {
                let mut e = similar.clone();
                e.message = format!("{}-{i}-{}", similar.message, similar.message);
                e
            })
            .collect()
    };
    let combined = format!("{COMBINED_PREFIX}{}", similar.message);
    // (name, previous, new, interval s, expected: None = skipped, Some((count, message)))
    let scenarios: Vec<Scenario> = vec![
        (
            "create-a-single-event",
            vec![],
            &first,
            5,
            Some((1, "i am first")),
        ),
        (
            "the-same-event-should-just-count",
            repeat(1, &duplicate),
            &duplicate,
            5,
            Some((2, "me again")),
        ),
        (
            "the-same-event-should-just-count-even-if-more-than-aggregate",
            repeat(10, &duplicate),
            &duplicate,
            30,
            Some((11, "me again")),
        ),
        (
            "the-same-event-is-spam-if-happens-too-frequently",
            repeat(26, &duplicate),
            &duplicate,
            1,
            None,
        ),
        (
            "create-many-unique-events",
            uniques(30),
            &unique,
            5,
            Some((1, "snowflake")),
        ),
        (
            "similar-events-should-aggregate-event",
            similars(9),
            &similar,
            5,
            Some((1, &combined)),
        ),
        (
            "similar-events-many-times-should-count-the-aggregate",
            similars(10),
            &similar,
            5,
            Some((2, &combined)),
        ),
        (
            "events-from-different-containers-do-not-aggregate",
            repeat(1, &similar_other_container),
            &similar,
            5,
            Some((1, "similar message")),
        ),
        (
            "similar-events-whose-interval-is-greater-than-aggregate-interval-do-not-aggregate",
            similars(9),
            &similar,
            600,
            Some((1, "similar message")),
        ),
    ];
    for (name, previous, new, interval, expected) in scenarios {
        let mut c = EventCorrelator::new();
        let time = |i: usize| Time::from_unix_nanos(T0 + (i as i64) * 3 * interval * 1_000_000_000);
        let feed_back = |c: &mut EventCorrelator, d: &Correlation| match d {
            Correlation::Create(x) => c.written(&x.event),
            Correlation::Patch(p) => c.written(&p.event),
            Correlation::Drop(_) => {}
        };
        for (i, e) in previous.iter().enumerate() {
            let d = c.correlate(e, time(i)).expect("valid");
            feed_back(&mut c, &d);
        }
        let d = c.correlate(new, time(previous.len())).expect("valid");
        let got = match &d {
            Correlation::Create(x) => Some((x.event.count, x.event.message.as_str())),
            Correlation::Patch(p) => Some((p.event.count, p.event.message.as_str())),
            Correlation::Drop(_) => None,
        };
        assert_eq!(got, expected, "scenario {name}");
    }
}
