// Every engine call the HorizontalPodAutoscaler controller makes goes through this module:
// one `reconcileAutoscaler` as the engine's step machine (core/src/hpa/machine.rs) driven
// against a host that makes the calls it names, the metrics client's reading of the
// metrics APIs' answers (core/src/hpa/client.rs), and the settings' defaults. The host
// decides none of it; it only performs I/O.

import { hpaDefaultConfig, hpaMetricResponse, hpaMetricSelector, runHpaSync } from "replicore";
import type { HpaAnswer, HpaCall, HpaConfig, HpaMemory, HpaSyncDone, HpaSyncHostInput, MetricQuery, MetricResponse, RegisteredHpa } from "replicore";

export type { HpaAnswer, HpaCall, HpaConfig, HpaMemory, HpaSyncDone, HpaSyncHostInput, MetricQuery, RegisteredHpa };

/** The controller's settings when no flag sets them (kube-controller-manager's defaults). */
export function defaultHpaConfig(): HpaConfig {
  return hpaDefaultConfig();
}

/**
 * One `reconcileAutoscaler(key)`: the engine names each call, `host` makes it and answers;
 * resolves with what the sync amounted to (its events, error, memory, requeue). A host
 * that throws (not the leader any more) abandons the sync: the promise rejects with that.
 */
export function runSync(input: HpaSyncHostInput, host: (call: HpaCall) => Promise<HpaAnswer>): Promise<HpaSyncDone> {
  return runHpaSync(input, host);
}

/** The answer to a `fetchMetric` call from the metrics API's raw answer to its query. */
export function metricResponse(query: MetricQuery, answers: unknown[]): MetricResponse {
  return hpaMetricResponse(query, answers);
}

/** The query's metric selector as URL text ("" for none). */
export function metricSelector(query: MetricQuery): string {
  return hpaMetricSelector(query);
}
