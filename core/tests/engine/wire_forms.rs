//! The tagged values hosts send back (a plan's halt and manage step, a Deployment call's
//! result, a finished sync's requeue) are read as one flat object each, not through
//! serde's buffer for internally tagged enums: these tests pin that the wire stays what
//! the engine writes (tag first) and what a host may write (tag anywhere), and that a
//! variant's missing field is refused at the object's path.

use crate::common;

use replicore::deployment::{ApiResult, ProgressRequeue};
use replicore::input::from_json;
use replicore::{ApiError, CallResult, Duration, Halt, Idle, Manage};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};

/// `value` through JSON text and back, and the JSON it is written as.
fn round_trip<T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug>(value: &T) -> Value {
    let text = serde_json::to_string(value).expect("serializes");
    let back: T = from_json(text.as_bytes()).expect("reads back");
    assert_eq!(&back, value);
    serde_json::from_str(&text).expect("JSON")
}

/// Reads `value` written with the tag as the object's last field, as a `T`.
fn read_tag_last<T: DeserializeOwned>(mut value: Value, tag: &str) -> T {
    let t = value
        .as_object_mut()
        .and_then(|o| o.remove(tag))
        .expect("the tag");
    let rest = serde_json::to_string(&value).expect("serializes");
    let sep = if rest == "{}" { "" } else { "," };
    let text = format!(
        "{}{sep}\"{tag}\":{t}}}",
        rest.strip_suffix('}').expect("an object")
    );
    from_json(text.as_bytes()).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn refusal<T: DeserializeOwned + std::fmt::Debug>(value: Value) -> (String, String) {
    let text = serde_json::to_string(&json!({ "x": value })).expect("serializes");
    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)]
    struct Holder<T> {
        x: T,
    }
    let err = from_json::<Holder<T>>(text.as_bytes()).expect_err("refused");
    (err.path().to_owned(), err.to_string())
}

#[test]
fn halt_reads_flat_in_any_order() {
    for halt in [
        Halt::StaleCache,
        Halt::InvalidSelector {
            message: "bad".into(),
        },
    ] {
        let v = round_trip(&halt);
        assert!(v.get("reason").is_some(), "{v}");
        assert_eq!(read_tag_last::<Halt>(v, "reason"), halt);
    }
    let (path, message) = refusal::<Halt>(json!({"reason": "invalidSelector"}));
    assert_eq!(path, "x");
    assert!(
        message.contains("requires the field `message`"),
        "{message}"
    );
    let (path, message) = refusal::<Halt>(json!({"reason": "tired"}));
    assert!(path.starts_with('x'), "{path}");
    assert!(message.contains("unknown variant `tired`"), "{message}");
}

#[test]
fn manage_reads_flat_in_any_order() {
    let plan = replicore::plan(&common_input(5, 2), &replicore::Config::default()).expect("plans");
    let create = plan.manage.clone();
    assert!(matches!(create, Manage::Create(_)), "{create:?}");
    let plan = replicore::plan(&common_input(1, 3), &replicore::Config::default()).expect("plans");
    let delete = plan.manage.clone();
    assert!(matches!(delete, Manage::Delete(_)), "{delete:?}");
    let nothing = Manage::Nothing {
        why: Idle::ExpectationsPending,
    };
    for manage in [create, delete, nothing] {
        let v = round_trip(&manage);
        assert_eq!(read_tag_last::<Manage>(v, "action"), manage);
    }
    let (path, message) =
        refusal::<Manage>(json!({"action": "create", "count": 1, "batches": [1]}));
    assert_eq!(path, "x");
    assert!(
        message.contains("action \"create\" requires the field `pod`"),
        "{message}"
    );
    let (_, message) =
        refusal::<Manage>(json!({"action": "delete", "expectations": {"op": "delete"}}));
    assert!(
        message.contains("requires the field `victims`"),
        "{message}"
    );
    let (_, message) = refusal::<Manage>(json!({"action": "nothing"}));
    assert!(message.contains("requires the field `why`"), "{message}");
    let (path, _) = refusal::<Manage>(json!([]));
    assert_eq!(path, "x");
}

#[test]
fn api_and_call_results_read_flat_in_any_order() {
    let error = ApiError {
        reason: "Conflict".into(),
        message: "the object has been modified".into(),
        code: Some(409),
        causes: vec!["x".into()],
    };
    for result in [
        ApiResult::ok(),
        ApiResult::Ok {
            object: Some(json!({"metadata": {"name": "web"}})),
        },
        ApiResult::Error(error.clone()),
    ] {
        let v = round_trip(&result);
        assert_eq!(read_tag_last::<ApiResult>(v, "result"), result);
    }
    for result in [
        CallResult::ok(),
        CallResult::created("web-x"),
        CallResult::Error(error),
        CallResult::Skipped,
    ] {
        let v = round_trip(&result);
        assert_eq!(read_tag_last::<CallResult>(v, "result"), result);
    }
    let (path, message) = refusal::<ApiResult>(json!({"result": "skipped"}));
    assert_eq!(path, "x");
    assert!(message.contains("not \"skipped\""), "{message}");
}

#[test]
fn progress_requeue_reads_flat_in_any_order() {
    for requeue in [
        ProgressRequeue::None,
        ProgressRequeue::RateLimited,
        ProgressRequeue::After {
            after: Duration::from_seconds(30),
        },
    ] {
        let v = round_trip(&requeue);
        assert_eq!(read_tag_last::<ProgressRequeue>(v, "kind"), requeue);
    }
    let (path, message) = refusal::<ProgressRequeue>(json!({"kind": "after"}));
    assert_eq!(path, "x");
    assert!(message.contains("requires the field `after`"), "{message}");
}

/// An owner that wants `replicas` with `pods` healthy pods of its own.
fn common_input(replicas: i64, pods: usize) -> replicore::SyncInput {
    let owner = common::rs("web").replicas(replicas);
    let pods: Vec<_> = (0..pods)
        .map(|i| common::healthy(&format!("web-{i}"), &owner))
        .collect();
    common::input(&owner, &pods).build()
}
