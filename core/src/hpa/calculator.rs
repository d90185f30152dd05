//! The replica calculator (H-82..H-98, H-139..H-148): from one metric's values and the
//! pods, the replica count that metric proposes. One function per upstream method; the
//! float64 arithmetic is upstream's, operation for operation.

use crate::model::LabelSelector;
use crate::time::{Duration, Time};

use super::model::{HpaPod, MetricResponse};
use super::pods::{self, Groups, PodFacts, PodNames, Sample, Samples, Startup};

/// H-67: how far from 1 a usage ratio may be and still mean "no change".
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Tolerances {
    /// The tolerance above 1: a ratio up to `1 + scale_up` scales nothing up.
    #[serde(rename = "ScaleUp")]
    pub scale_up: f64,
    /// The tolerance below 1: a ratio down to `1 - scale_down` scales nothing down.
    #[serde(rename = "ScaleDown")]
    pub scale_down: f64,
}

impl Tolerances {
    /// H-144: `(1 - down) <= ratio <= (1 + up)` in float64 (NaN is never within).
    pub(crate) fn is_within(&self, ratio: f64) -> bool {
        (1.0 - self.scale_down) <= ratio && ratio <= (1.0 + self.scale_up)
    }
}

/// What one calculator call proposes (H-88): the count, and for utilization targets the
/// integer utilization and the raw average; for the others the usage.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Proposal {
    /// The replica count proposed.
    pub replicas: i32,
    /// For a utilization target: the pods' average utilization, in percent of their
    /// requests.
    pub utilization: i32,
    /// The usage the count came from, in milli-units: the raw average for a utilization
    /// target.
    pub usage: i64,
    /// The time of the metric's samples, as the metrics API gave it.
    pub timestamp: Option<Time>,
    /// The usage ratio the count started from (explain's trace; no rule reads it).
    pub(crate) ratio: f64,
    /// The second pass of H-85..H-87, when there was one (explain's trace).
    pub(crate) rebalance: Option<Rebalance>,
}

/// The second pass of the count (H-85..H-87, H-91), as it ran: what the pods without a
/// sample and the unready pods were assumed to use, and the ratio that gave.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Rebalance {
    /// `Some(true)`: the missing pods were filled with their full value (100 % of the
    /// request, or the target if above; a plain metric's target); `Some(false)`: with 0;
    /// `None`: left out (the first ratio was exactly 1).
    pub(crate) missing_full: Option<bool>,
    /// The unready pods were counted at 0 (a scale-up with unready pods).
    pub(crate) unready_zero: bool,
    pub(crate) new_ratio: f64,
}

/// A calculator call that failed: upstream's error text, and what upstream returns
/// beside it (the usage already read when only the ready-pod count failed, H-94; the
/// first pass's utilization when the rebalance failed, H-86).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Failed {
    /// The error text, as upstream's.
    pub message: String,
    /// What upstream returns beside the error.
    pub partial: Proposal,
}

impl From<String> for Failed {
    fn from(message: String) -> Self {
        Failed {
            message,
            partial: Proposal::default(),
        }
    }
}

/// What every calculator call reads besides its metric: the pods of the target's
/// selector in the HPA's namespace (from the cache), the clock and periods, the gates.
#[derive(Clone, Copy, Debug)]
pub struct Context<'a> {
    /// The listed pods, deduplicated by name ([`PodNames::dedupe`]).
    pub pods: &'a [&'a HpaPod],
    /// Their name index.
    pub names: &'a PodNames,
    /// What grouping reads of each, by position ([`PodFacts::of`]).
    pub facts: &'a [PodFacts],
    /// The requests read while listing, by position ([`pods::Requested`]).
    pub requested: &'a [pods::Requested],
    /// The CPU start-up periods (H-77).
    pub startup: StartupPeriods,
    /// The controller clock.
    pub now: Time,
    /// The tolerances that mean "no change" (H-67).
    pub tolerances: Tolerances,
    /// The `PodLevelResources` gate (H-81).
    pub pod_level_resources: bool,
}

/// H-01: the CPU initialization period and the initial readiness delay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StartupPeriods {
    /// `--horizontal-pod-autoscaler-cpu-initialization-period`: this soon after a pod's
    /// start, its CPU sample counts only if the pod is ready and the sample's window began
    /// after the readiness change (H-77).
    pub cpu_initialization: Duration,
    /// `--horizontal-pod-autoscaler-initial-readiness-delay`: later, a pod not ready counts
    /// as unready only when its readiness last changed within this delay of its start
    /// (H-77).
    pub readiness_delay: Duration,
}

impl Context<'_> {
    fn startup(&self) -> Startup {
        Startup {
            cpu_initialization: self.startup.cpu_initialization,
            readiness_delay: self.startup.readiness_delay,
            now: self.now,
        }
    }

    fn listed(&self) -> Result<(), String> {
        if self.pods.is_empty() {
            return Err("no pods returned by selector while calculating replica count".into());
        }
        Ok(())
    }
}

/// H-99/H-100: the pod samples of a response attached to the listed pods, later
/// duplicates winning; the first sample's time.
fn samples<'r>(
    ctx: &Context<'_>,
    resp: &'r MetricResponse,
) -> Result<(Samples<'r>, Option<Time>), String> {
    if let Some(e) = &resp.error {
        return Err(e.clone());
    }
    let list = resp.pod_metrics.as_deref().unwrap_or_default();
    let samples = Samples::attach(
        ctx.pods,
        ctx.names,
        list.iter().map(|m| {
            (
                m.pod.as_str(),
                Sample {
                    value: m.value,
                    timestamp: m.timestamp,
                    window: Duration::from_nanos(m.window_millis.saturating_mul(1_000_000)),
                },
            )
        }),
    );
    Ok((samples, resp.timestamp))
}

/// H-79: drops the samples of ignored and unready pods.
fn drop_left_out(samples: &mut Samples<'_>, g: &Groups) {
    for &i in g.ignored.iter().chain(&g.unready) {
        samples.remove(i);
    }
}

/// H-83: (ratio, utilization, raw average) over the samples that have a request (the
/// listed pods').
fn utilization_ratio(
    samples: &Samples<'_>,
    requests: &[i64],
    target: i32,
) -> Result<(f64, i32, i64), String> {
    let (mut usage, mut request, mut n) = (0_i64, 0_i64, 0_i64);
    for (s, r) in samples.listed().iter().zip(requests) {
        if let Some(s) = s {
            usage = usage.wrapping_add(s.value);
            request = request.wrapping_add(*r);
            n += 1;
        }
    }
    if request == 0 {
        return Err("no metrics returned matched known pods".into());
    }
    let utilization = usage.wrapping_mul(100).wrapping_div(request) as i32;
    Ok((
        f64::from(utilization) / f64::from(target),
        utilization,
        usage.wrapping_div(n),
    ))
}

/// H-92: (ratio, integer average) over every sample, unlisted pods' included.
fn usage_ratio(samples: &Samples<'_>, target: i64) -> (f64, i64) {
    let sum = samples.values().fold(0_i64, |acc, v| acc.wrapping_add(v));
    let usage = sum.wrapping_div(samples.len().max(1) as i64);
    (usage as f64 / target as f64, usage)
}

/// Go's `int32(math.Ceil(x))` on amd64: out-of-range values and NaN give the minimum
/// (H-150).
pub(crate) fn ceil_i32(x: f64) -> i32 {
    go_i32(x.ceil())
}

/// Go's `int32(x)` of a float on amd64 (truncation; out of range or NaN → MinInt32).
pub(crate) fn go_i32(x: f64) -> i32 {
    if !(-2_147_483_648.0..2_147_483_648.0).contains(&x) {
        return i32::MIN;
    }
    x as i32
}

/// Go's `int64(x)` of a float on amd64 (truncation; out of range or NaN → MinInt64).
pub(crate) fn go_i64(x: f64) -> i64 {
    if !(-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&x) {
        return i64::MIN;
    }
    x as i64
}

/// How the rebalance of H-85/H-91 fills a pod without a sample on a scale-down.
enum MissingFill<'r> {
    /// Utilization: its request times max(100, target) percent.
    Requests(&'r [i64], i64),
    /// Plain metrics: exactly the target.
    Target(i64),
}

/// H-84..H-87 / H-91: the count from a first ratio, with the missing and unready pods'
/// assumptions when there are any. `recompute` gives the ratio of the updated samples.
fn count<'a>(
    current: i32,
    ratio: f64,
    mut samples: Samples<'a>,
    g: &Groups,
    fill: MissingFill<'_>,
    tolerances: Tolerances,
    recompute: impl Fn(&Samples<'a>) -> Result<f64, String>,
) -> Result<(i32, Option<Rebalance>), String> {
    let up_with_unready = !g.unready.is_empty() && ratio > 1.0;
    if !up_with_unready && g.missing.is_empty() {
        if tolerances.is_within(ratio) {
            return Ok((current, None));
        }
        return Ok((ceil_i32(ratio * g.ready as f64), None));
    }
    let zero = Sample {
        value: 0,
        timestamp: None,
        window: Duration::from_nanos(0),
    };
    if ratio < 1.0 {
        for &i in &g.missing {
            let value = match &fill {
                MissingFill::Requests(requests, percent) => requests
                    .get(i)
                    .copied()
                    .unwrap_or(0)
                    .wrapping_mul(*percent)
                    .wrapping_div(100),
                MissingFill::Target(t) => *t,
            };
            samples.set(i, Sample { value, ..zero });
        }
    } else if ratio > 1.0 {
        for &i in &g.missing {
            samples.set(i, zero);
        }
    }
    if up_with_unready {
        for &i in &g.unready {
            samples.set(i, zero);
        }
    }
    let new_ratio = recompute(&samples)?;
    let trace = Some(Rebalance {
        missing_full: (ratio != 1.0 && !g.missing.is_empty()).then_some(ratio < 1.0),
        unready_zero: up_with_unready,
        new_ratio,
    });
    if tolerances.is_within(new_ratio)
        || (ratio < 1.0 && new_ratio > 1.0)
        || (ratio > 1.0 && new_ratio < 1.0)
    {
        return Ok((current, trace));
    }
    let new = ceil_i32(new_ratio * samples.len() as f64);
    if (new_ratio < 1.0 && new > current) || (new_ratio > 1.0 && new < current) {
        return Ok((current, trace));
    }
    Ok((new, trace))
}

/// H-82 `GetResourceReplicas`: a utilization target (percent of request).
pub fn resource_replicas(
    ctx: &Context<'_>,
    current: i32,
    target: i32,
    resource: &str,
    container: &str,
    resp: &MetricResponse,
) -> Result<Proposal, Failed> {
    let (mut samples, timestamp) = samples(ctx, resp)
        .map_err(|e| format!("unable to get metrics for resource {resource}: {e}"))?;
    ctx.listed()?;
    let g = pods::group(ctx.facts, &samples, resource, ctx.startup());
    drop_left_out(&mut samples, &g);
    if samples.is_empty() {
        return Err(String::from(
            "did not receive metrics for targeted pods (pods might be unready)",
        )
        .into());
    }
    let requests = pods::requests(
        ctx.pods,
        ctx.requested,
        container,
        resource,
        ctx.pod_level_resources,
    )?;
    let (ratio, utilization, raw) = utilization_ratio(&samples, &requests, target)?;
    let (replicas, rebalance) = count(
        current,
        ratio,
        samples,
        &g,
        MissingFill::Requests(&requests, i64::from(target.max(100))),
        ctx.tolerances,
        |s| utilization_ratio(s, &requests, target).map(|r| r.0),
    )
    .map_err(|message| Failed {
        message,
        partial: Proposal {
            utilization,
            usage: raw,
            ..Proposal::default()
        },
    })?;
    Ok(Proposal {
        replicas,
        utilization,
        usage: raw,
        timestamp,
        ratio,
        rebalance,
    })
}

/// H-89 `GetRawResourceReplicas`: an average-value target for a resource.
pub fn raw_resource_replicas(
    ctx: &Context<'_>,
    current: i32,
    target: i64,
    resource: &str,
    resp: &MetricResponse,
) -> Result<Proposal, Failed> {
    let fetch = format!("unable to get metrics for resource {resource}");
    plain_proposal(ctx, resp, &fetch, current, target, resource)
}

/// H-90 `GetMetricReplicas`: a Pods metric's average-value target.
pub fn pods_metric_replicas(
    ctx: &Context<'_>,
    current: i32,
    target: i64,
    metric: &str,
    resp: &MetricResponse,
) -> Result<Proposal, Failed> {
    let fetch = format!("unable to get metric {metric}");
    plain_proposal(ctx, resp, &fetch, current, target, "")
}

/// The samples of a plain metric (a fetch error wrapped in `fetch`), then H-91 over them,
/// with the samples' time.
fn plain_proposal(
    ctx: &Context<'_>,
    resp: &MetricResponse,
    fetch: &str,
    current: i32,
    target: i64,
    resource: &str,
) -> Result<Proposal, Failed> {
    let (samples, timestamp) = samples(ctx, resp).map_err(|e| format!("{fetch}: {e}"))?;
    let (replicas, usage, ratio, rebalance) =
        plain_replicas(ctx, samples, current, target, resource)?;
    Ok(Proposal {
        replicas,
        usage,
        timestamp,
        ratio,
        rebalance,
        ..Proposal::default()
    })
}

/// H-91 `calcPlainMetricReplicas`.
fn plain_replicas(
    ctx: &Context<'_>,
    mut samples: Samples<'_>,
    current: i32,
    target: i64,
    resource: &str,
) -> Result<(i32, i64, f64, Option<Rebalance>), String> {
    ctx.listed()?;
    let g = pods::group(ctx.facts, &samples, resource, ctx.startup());
    drop_left_out(&mut samples, &g);
    if samples.is_empty() {
        return Err("did not receive metrics for targeted pods (pods might be unready)".into());
    }
    let (ratio, usage) = usage_ratio(&samples, target);
    let (replicas, rebalance) = count(
        current,
        ratio,
        samples,
        &g,
        MissingFill::Target(target),
        ctx.tolerances,
        |s| Ok(usage_ratio(s, target).0),
    )?;
    Ok((replicas, usage, ratio, rebalance))
}

/// H-94 `getUsageRatioReplicaCount`: a ratio times the ready pods, or from zero the
/// ratio alone.
fn usage_ratio_count(ctx: &Context<'_>, current: i32, ratio: f64) -> Result<i32, String> {
    if current == 0 {
        return Ok(ceil_i32(ratio));
    }
    if ctx.tolerances.is_within(ratio) {
        return Ok(current);
    }
    ctx.listed()
        .map_err(|e| format!("unable to calculate ready pods: {e}"))?;
    let x = ratio * pods::ready_count(ctx.facts) as f64;
    if x > f64::from(i32::MAX) {
        return Ok(i32::MAX);
    }
    Ok(ceil_i32(x))
}

/// Where an object metric was read, for its error text (H-93).
#[derive(Clone, Copy, Debug)]
pub struct ObjectRef<'a> {
    /// The object's kind.
    pub kind: &'a str,
    /// The object's name.
    pub name: &'a str,
    /// The HPA's namespace.
    pub namespace: &'a str,
}

fn object_value(
    resp: &MetricResponse,
    metric: &str,
    obj: ObjectRef<'_>,
) -> Result<(i64, Option<Time>), String> {
    match &resp.error {
        // Sic: upstream's format arguments are out of order (T-26).
        Some(e) => Err(format!(
            "unable to get metric {metric}: {} on {} {}/{e}",
            obj.kind, obj.namespace, obj.name
        )),
        None => Ok((resp.object_value.unwrap_or(0), resp.timestamp)),
    }
}

/// H-93 `GetObjectMetricReplicas`: an object's value against a value target.
pub fn object_replicas(
    ctx: &Context<'_>,
    current: i32,
    target: i64,
    metric: &str,
    obj: ObjectRef<'_>,
    resp: &MetricResponse,
) -> Result<Proposal, Failed> {
    let (usage, _) = object_value(resp, metric, obj)?;
    let ratio = usage as f64 / target as f64;
    let replicas = usage_ratio_count(ctx, current, ratio).map_err(|e| with_usage(e, usage))?;
    Ok(Proposal {
        replicas,
        usage,
        ratio,
        ..Proposal::default()
    })
}

/// H-96 `GetObjectPerPodMetricReplicas`: an object's value against a per-pod target,
/// divided by the target's status replicas.
pub fn object_per_pod_replicas(
    ctx: &Context<'_>,
    status_replicas: i32,
    target: i64,
    metric: &str,
    obj: ObjectRef<'_>,
    resp: &MetricResponse,
) -> Result<Proposal, Failed> {
    let (usage, timestamp) = object_value(resp, metric, obj)?;
    let mut replicas = status_replicas;
    let ratio = usage as f64 / (target as f64 * f64::from(status_replicas));
    if !ctx.tolerances.is_within(ratio) {
        replicas = ceil_i32(usage as f64 / target as f64);
    }
    Ok(Proposal {
        replicas,
        usage: go_i64((usage as f64 / f64::from(status_replicas)).ceil()),
        timestamp,
        ratio,
        ..Proposal::default()
    })
}

/// H-97/H-98: the metric selector converted first (its error returned as it is), then
/// the values fetched.
fn external_values<'r>(
    resp: &'r MetricResponse,
    namespace: &str,
    metric: &str,
    metric_selector: Option<&LabelSelector>,
) -> Result<&'r [i64], String> {
    super::metrics::metric_selector(metric_selector)?;
    match &resp.error {
        Some(e) => Err(format!(
            "unable to get external metric {namespace}/{metric}/{}: {e}",
            super::metrics::go_selector(metric_selector)
        )),
        None => Ok(resp.external_values.as_deref().unwrap_or_default()),
    }
}

/// H-97 `GetExternalMetricReplicas`: the sum of an external metric's values against a
/// value target. `where_` is `namespace/name/selector` for the error text.
pub fn external_replicas(
    ctx: &Context<'_>,
    current: i32,
    target: i64,
    namespace: &str,
    metric: &str,
    metric_selector: Option<&LabelSelector>,
    resp: &MetricResponse,
) -> Result<Proposal, Failed> {
    let values = external_values(resp, namespace, metric, metric_selector)?;
    let mut usage: i64 = 0;
    for &v in values {
        if v > 0 && usage > i64::MAX - v {
            usage = i64::MAX;
            break;
        }
        usage = usage.wrapping_add(v);
    }
    let ratio = usage as f64 / target as f64;
    let replicas = usage_ratio_count(ctx, current, ratio).map_err(|e| with_usage(e, usage))?;
    Ok(Proposal {
        replicas,
        usage,
        ratio,
        ..Proposal::default()
    })
}

/// H-94: a failed ready-pod count still returns the usage read.
fn with_usage(message: String, usage: i64) -> Failed {
    Failed {
        message,
        partial: Proposal {
            usage,
            ..Proposal::default()
        },
    }
}

/// H-98 `GetExternalPerPodMetricReplicas`: the sum against a per-pod target, divided by
/// the target's status replicas.
pub fn external_per_pod_replicas(
    ctx: &Context<'_>,
    status_replicas: i32,
    target: i64,
    namespace: &str,
    metric: &str,
    metric_selector: Option<&LabelSelector>,
    resp: &MetricResponse,
) -> Result<Proposal, Failed> {
    let values = external_values(resp, namespace, metric, metric_selector)?;
    let mut usage: i64 = 0;
    for &v in values {
        usage = usage.wrapping_add(v);
        if usage < 0 {
            usage = i64::MAX;
            break;
        }
    }
    let mut replicas = status_replicas;
    let ratio = usage as f64 / (target as f64 * f64::from(status_replicas));
    if !ctx.tolerances.is_within(ratio) {
        let c = (usage as f64 / target as f64).ceil();
        replicas = if c > f64::from(i32::MAX) {
            i32::MAX
        } else {
            go_i32(c)
        };
    }
    let average = if usage as f64 >= i64::MAX as f64 {
        i64::MAX
    } else {
        go_i64((usage as f64 / f64::from(status_replicas)).ceil())
    };
    Ok(Proposal {
        replicas,
        usage: average,
        timestamp: resp.timestamp,
        ratio,
        ..Proposal::default()
    })
}

/// What [`grouping`] returns: the groups, the sample values and the unready pods' whys.
pub(crate) type GroupingTrace = (Groups, Vec<Option<i64>>, Vec<Option<pods::CpuUnready>>);

/// Explain's trace of the grouping (H-76, H-77): the groups, each listed pod's sample
/// value by position, and for each unready pod (in `groups.unready`'s order) why H-77
/// left its CPU sample out. The samples are attached once.
pub(crate) fn grouping(
    ctx: &Context<'_>,
    resp: &MetricResponse,
    resource: &str,
) -> Option<GroupingTrace> {
    let (samples, _) = samples(ctx, resp).ok()?;
    let startup = ctx.startup();
    let g = pods::group(ctx.facts, &samples, resource, startup);
    let values = (0..ctx.pods.len())
        .map(|i| samples.get(i).map(|s| s.value))
        .collect();
    let unready_why = g
        .unready
        .iter()
        .map(|&i| {
            let pod = ctx.facts.get(i)?;
            let sample = samples.get(i)?;
            pods::cpu_unready_why(pod, sample, startup)
        })
        .collect();
    Some((g, values, unready_why))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn h144_tolerance_bounds_are_inclusive() {
        let t = Tolerances {
            scale_up: 0.1,
            scale_down: 0.1,
        };
        assert!(t.is_within(90.0 / 100.0));
        assert!(t.is_within(110.0 / 100.0));
        assert!(!t.is_within(111.0 / 100.0));
        assert!(!t.is_within(f64::NAN));
    }

    #[test]
    fn h150_float_to_int_conversions_are_amd64s() {
        assert_eq!(go_i32(f64::NAN), i32::MIN);
        assert_eq!(go_i32(f64::INFINITY), i32::MIN);
        assert_eq!(go_i32(3e9), i32::MIN);
        assert_eq!(go_i32(-2.9), -2);
        assert_eq!(go_i64(f64::NEG_INFINITY), i64::MIN);
        assert_eq!(ceil_i32(1.000_000_1), 2);
        // H-143: ceil((110 / 100) × 50) is 56.
        assert_eq!(ceil_i32((110.0 / 100.0) * 50.0), 56);
    }
}
