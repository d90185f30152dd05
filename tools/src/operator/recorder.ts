// A controller's event recorder, as each of kube-controller-manager's controllers has its
// own broadcaster writing through its own client: events queued (at most 1000, further
// ones dropped, as client-go's broadcaster; counted in replicore_events_dropped_total and
// logged once per interval, not once per event), then, one at a time and in order,
// correlated by the engine (similar events combined, repeats counted on one Event by a
// strategic merge PATCH, the per-object spam filter) and written as it says.

import { ApiException, type CoreV1Event } from "@kubernetes/client-node";
import { EventCorrelator } from "replicore";
import type { Correlation, EventToRecord } from "replicore";
import { apiError, isNotFound, patchOptions, type Clients } from "./kube.js";
import type { Logger } from "./log.js";
import type { Metrics } from "./metrics.js";

/** client-go's broadcaster queue (`maxQueuedEvents`): events beyond it are dropped. */
const MAX_QUEUED_EVENTS = 1000;
/** client-go's `maxTriesPerEvent` and `defaultSleepDuration` (ms) for events it cannot send. */
const EVENT_MAX_TRIES = 12;
const EVENT_RETRY_MS = 10_000;
/** Dropped events are logged at most once per this many ms (with how many since the last line). */
export const DROPPED_EVENTS_LOG_MS = 10_000;

/** The object an event is about (an Event's involvedObject). */
export interface Involved {
  kind: string;
  apiVersion: string;
  namespace: string;
  name: string;
  uid?: string;
  resourceVersion?: string;
}

export class EventRecorder {
  /** The event recorder's correlator (client-go's EventCorrelator): one per process. */
  private readonly correlator = new EventCorrelator();
  /** Events are written one at a time, in the order recorded (client-go's broadcaster). */
  private chain: Promise<void> = Promise.resolve();
  private queued = 0;
  private stopping = false;
  private readonly pending = new Set<Promise<unknown>>();
  private readonly sleepers = new Set<() => void>();
  /** Events dropped since the last "events dropped" line, by reason; the timer of the next line. */
  private dropped = new Map<string, number>();
  private dropTimer: NodeJS.Timeout | undefined;

  /** `name`: the controller (its metrics label); `dropLogMs`: how often drops are logged at most. */
  constructor(
    private readonly clients: Clients,
    private readonly log: Logger,
    private readonly metrics: Metrics,
    private readonly name: string,
    private readonly dropLogMs = DROPPED_EVENTS_LOG_MS,
  ) {}

  /** Queues one event about `obj` from `component` (never throws, never rejects). */
  record(obj: Involved, ev: { type: string; reason: string; message: string }, component: string): void {
    if (this.queued >= MAX_QUEUED_EVENTS) {
      this.drop(ev.reason);
      return;
    }
    const now = new Date();
    const event: EventToRecord = {
      involvedObject: {
        kind: obj.kind,
        namespace: obj.namespace,
        name: obj.name,
        ...(obj.uid ? { uid: obj.uid } : {}),
        apiVersion: obj.apiVersion,
        ...(obj.resourceVersion ? { resourceVersion: obj.resourceVersion } : {}),
      },
      type: ev.type as EventToRecord["type"],
      reason: ev.reason,
      message: ev.message,
      source: { component },
    };
    this.queued++;
    const p = this.chain
      .then(() => this.write(event, now))
      .finally(() => {
        this.queued--;
        this.pending.delete(p);
      });
    this.chain = p;
    this.pending.add(p);
  }

  /**
   * An event not queued: counted at once; logged at once if no drop was logged within the
   * interval, else with the others of the interval when it ends.
   */
  private drop(reason: string): void {
    this.metrics.eventsDropped.inc({ controller: this.name });
    this.dropped.set(reason, (this.dropped.get(reason) ?? 0) + 1);
    if (this.dropTimer !== undefined) return;
    this.logDropped();
    const tick = (): void => {
      // A quiet interval ends the timer: the next drop is logged at once again.
      if (this.dropped.size === 0) this.dropTimer = undefined;
      else {
        this.logDropped();
        this.dropTimer = setTimeout(tick, this.dropLogMs).unref();
      }
    };
    this.dropTimer = setTimeout(tick, this.dropLogMs).unref();
  }

  private logDropped(): void {
    if (this.dropped.size === 0) return;
    const byReason = Object.fromEntries(this.dropped);
    const events = [...this.dropped.values()].reduce((a, b) => a + b, 0);
    this.dropped = new Map();
    this.log.warn("events not recorded: too many queued events", { controller: this.name, events, byReason, queued: this.queued, everyMs: this.dropLogMs });
  }

  /** Waits for the writes in flight; writes still waiting to retry give up (client-go's shutdown). */
  async drain(): Promise<void> {
    this.stopping = true;
    if (this.dropTimer !== undefined) clearTimeout(this.dropTimer);
    this.dropTimer = undefined;
    this.logDropped();
    for (const wake of [...this.sleepers]) wake();
    await Promise.allSettled([...this.pending]);
  }

  /** One event through the engine's correlator and to the API server (never rejects). */
  private async write(event: EventToRecord, now: Date): Promise<void> {
    let d: Correlation;
    try {
      d = this.correlator.correlate(event, now);
    } catch (e) {
      this.metrics.errors.inc({ where: "event" });
      this.log.warn("event not recorded", { reason: event.reason, error: (e as Error).message });
      return;
    }
    if (d.action === "drop") {
      this.log.debug("event dropped by the spam filter", { reason: event.reason, object: event.involvedObject.name });
      return;
    }
    const core = this.clients.core;
    const create = (e: typeof d.event): Promise<CoreV1Event> =>
      // The timestamps are RFC 3339 text already; client-node passes non-Date values through.
      core.createNamespacedEvent({ namespace: e.metadata.namespace, body: e as unknown as CoreV1Event });
    // client-go's recordToSink: an answer from the server (any status) is final; a
    // failure to reach it is tried again, up to 12 tries, 10 s apart (the first wait a
    // random part of that), until the controller stops.
    for (let tries = 1; ; tries++) {
      try {
        let written: CoreV1Event;
        if (d.action === "patch") {
          try {
            written = await core.patchNamespacedEvent({ namespace: d.namespace, name: d.name, body: d.patch }, patchOptions("application/strategic-merge-patch+json"));
          } catch (e) {
            // client-go's recordEvent: a repeat of an Event the server does not have is created.
            if (!isNotFound(e)) throw e;
            written = await create(d.event);
          }
        } else {
          written = await create(d.event);
        }
        this.written(written, event.reason);
        return;
      } catch (e) {
        if (e instanceof ApiException || tries >= EVENT_MAX_TRIES || this.stopping) {
          this.metrics.errors.inc({ where: "event" });
          this.log.warn("event not recorded", { reason: event.reason, tries, error: apiError(e).message });
          return;
        }
        this.log.warn("event write failed; will retry", { reason: event.reason, tries, error: apiError(e).message });
        await this.pause(tries === 1 ? Math.random() * EVENT_RETRY_MS : EVENT_RETRY_MS);
      }
    }
  }

  /** The server's answer back to the correlator (client-go's UpdateState); written is written. */
  private written(written: CoreV1Event, reason: string | undefined): void {
    try {
      this.correlator.written(written);
    } catch (e) {
      this.log.warn("the event correlator cannot read the written Event", { reason, error: (e as Error).message });
    }
  }

  /** Waits `ms`, or less if the recorder stops meanwhile. */
  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        this.sleepers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.sleepers.add(wake);
    });
  }
}
