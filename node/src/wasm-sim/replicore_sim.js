/* @ts-self-types="./replicore_sim.d.ts" */

/**
 * One sync's machine in wasm memory: the input is parsed once, each step replays the
 * sync over the results reported so far. A refused argument changes nothing.
 */
export class DeploymentSyncRun {
    static __wrap(ptr) {
        const obj = Object.create(DeploymentSyncRun.prototype);
        obj.__wbg_ptr = ptr;
        DeploymentSyncRunFinalization.register(obj, obj.__wbg_ptr, obj);
        return obj;
    }
    __destroy_into_raw() {
        const ptr = this.__wbg_ptr;
        this.__wbg_ptr = 0;
        DeploymentSyncRunFinalization.unregister(this);
        return ptr;
    }
    free() {
        const ptr = this.__destroy_into_raw();
        wasm.__wbg_deploymentsyncrun_free(ptr, 0);
    }
    /**
     * `DeploymentSyncRun.fromState(syncJson)`: a machine at a state `state()` gave.
     * @param {JsonInput<DeploymentSync>} sync
     * @returns {DeploymentSyncRun}
     */
    static fromState(sync) {
        const ret = wasm.deploymentsyncrun_fromState(sync);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return DeploymentSyncRun.__wrap(ret[0]);
    }
    /**
     * `new DeploymentSyncRun(inputJson)`.
     * @param {JsonInput<DeploymentSyncInput>} input
     */
    constructor(input) {
        const ret = wasm.deploymentsyncrun_new(input);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        this.__wbg_ptr = ret[0];
        DeploymentSyncRunFinalization.register(this, this.__wbg_ptr, this);
        return this;
    }
    /**
     * `next()`: the next step (a call to make, or done).
     * @returns {Step}
     */
    next() {
        const ret = wasm.deploymentsyncrun_next(this.__wbg_ptr);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return takeFromExternrefTable0(ret[0]);
    }
    /**
     * `report(resultJson)`: the result of the call the last step named.
     * @param {JsonInput<ApiResult>} result
     */
    report(result) {
        const ret = wasm.deploymentsyncrun_report(this.__wbg_ptr, result);
        if (ret[1]) {
            throw takeFromExternrefTable0(ret[0]);
        }
    }
    /**
     * `state()`: the plain state (`{input, results}`), as JSON text.
     * @returns {JsonText<DeploymentSync>}
     */
    state() {
        const ret = wasm.deploymentsyncrun_state(this.__wbg_ptr);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return takeFromExternrefTable0(ret[0]);
    }
}
if (Symbol.dispose) DeploymentSyncRun.prototype[Symbol.dispose] = DeploymentSyncRun.prototype.free;

/**
 * The recorder's correlator in wasm memory: one per event recorder, fed every event in
 * the order recorded.
 */
export class EventCorrelator {
    __destroy_into_raw() {
        const ptr = this.__wbg_ptr;
        this.__wbg_ptr = 0;
        EventCorrelatorFinalization.unregister(this);
        return ptr;
    }
    free() {
        const ptr = this.__destroy_into_raw();
        wasm.__wbg_eventcorrelator_free(ptr, 0);
    }
    /**
     * `correlate(eventJson, nowJson)`: create, patch or drop; a refused event changes
     * nothing.
     * @param {JsonInput<EventToRecord>} event
     * @param {JsonInput<Time>} now
     * @returns {Correlation}
     */
    correlate(event, now) {
        const ret = wasm.eventcorrelator_correlate(this.__wbg_ptr, event, now);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return takeFromExternrefTable0(ret[0]);
    }
    /**
     * `new EventCorrelator(stateJson?)`.
     * @param {JsonInput<EventCorrelatorState> | undefined} state
     */
    constructor(state) {
        const ret = wasm.eventcorrelator_new(state);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        this.__wbg_ptr = ret[0];
        EventCorrelatorFinalization.register(this, this.__wbg_ptr, this);
        return this;
    }
    /**
     * `size()`: entries per cache.
     * @returns {EventCorrelatorSize}
     */
    size() {
        const ret = wasm.eventcorrelator_size(this.__wbg_ptr);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return takeFromExternrefTable0(ret[0]);
    }
    /**
     * `state()`: the state as JSON text.
     * @returns {JsonText<EventCorrelatorState>}
     */
    state() {
        const ret = wasm.eventcorrelator_state(this.__wbg_ptr);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return takeFromExternrefTable0(ret[0]);
    }
    /**
     * `written(eventJson)`: the Event the server returned for a create or patch.
     * @param {JsonInput<RecordedEvent | KubeObject>} event
     */
    written(event) {
        const ret = wasm.eventcorrelator_written(this.__wbg_ptr, event);
        if (ret[1]) {
            throw takeFromExternrefTable0(ret[0]);
        }
    }
}
if (Symbol.dispose) EventCorrelator.prototype[Symbol.dispose] = EventCorrelator.prototype.free;

/**
 * One sync's machine in wasm memory. A refused argument changes nothing.
 */
export class HpaSyncRun {
    static __wrap(ptr) {
        const obj = Object.create(HpaSyncRun.prototype);
        obj.__wbg_ptr = ptr;
        HpaSyncRunFinalization.register(obj, obj.__wbg_ptr, obj);
        return obj;
    }
    __destroy_into_raw() {
        const ptr = this.__wbg_ptr;
        this.__wbg_ptr = 0;
        HpaSyncRunFinalization.unregister(this);
        return ptr;
    }
    free() {
        const ptr = this.__destroy_into_raw();
        wasm.__wbg_hpasyncrun_free(ptr, 0);
    }
    /**
     * `HpaSyncRun.fromState(stateJson)`: a machine at a state `state()` gave.
     * @param {JsonInput<HpaSyncState>} state
     * @returns {HpaSyncRun}
     */
    static fromState(state) {
        const ret = wasm.hpasyncrun_fromState(state);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return HpaSyncRun.__wrap(ret[0]);
    }
    /**
     * `new HpaSyncRun(inputJson)`.
     * @param {JsonInput<HpaSyncInput>} input
     */
    constructor(input) {
        const ret = wasm.hpasyncrun_new(input);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        this.__wbg_ptr = ret[0];
        HpaSyncRunFinalization.register(this, this.__wbg_ptr, this);
        return this;
    }
    /**
     * `next()`: the next step (a call to make, or done).
     * @returns {HpaStep}
     */
    next() {
        const ret = wasm.hpasyncrun_next(this.__wbg_ptr);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return takeFromExternrefTable0(ret[0]);
    }
    /**
     * `report(answerJson)`: the answer to the call the last step named.
     * @param {JsonInput<HpaAnswer>} answer
     */
    report(answer) {
        const ret = wasm.hpasyncrun_report(this.__wbg_ptr, answer);
        if (ret[1]) {
            throw takeFromExternrefTable0(ret[0]);
        }
    }
    /**
     * `state()`: the plain state (`{input, answers}`), as JSON text.
     * @returns {JsonText<HpaSyncState>}
     */
    state() {
        const ret = wasm.hpasyncrun_state(this.__wbg_ptr);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return takeFromExternrefTable0(ret[0]);
    }
}
if (Symbol.dispose) HpaSyncRun.prototype[Symbol.dispose] = HpaSyncRun.prototype.free;

/**
 * A simulated cluster running the ReplicaSet controller (and, for a Deployment
 * scenario, the Deployment controller) on the engine.
 */
export class Simulator {
    __destroy_into_raw() {
        const ptr = this.__wbg_ptr;
        this.__wbg_ptr = 0;
        SimulatorFinalization.unregister(this);
        return ptr;
    }
    free() {
        const ptr = this.__destroy_into_raw();
        wasm.__wbg_simulator_free(ptr, 0);
    }
    /**
     * Processes every event up to `now + ms`; returns how many ran.
     * @param {any} ms
     * @returns {number}
     */
    advance(ms) {
        const ret = wasm.simulator_advance(this.__wbg_ptr, ms);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return ret[0];
    }
    /**
     * Applies an edit (JSON text of an `Edit`) now.
     * @param {any} edit
     */
    apply(edit) {
        const ret = wasm.simulator_apply(this.__wbg_ptr, edit);
        if (ret[1]) {
            throw takeFromExternrefTable0(ret[0]);
        }
    }
    /**
     * The Deployment's ReplicaSets as lanes over virtual time (`DeploymentSample[]`;
     * empty unless the scenario has a Deployment).
     * @returns {DeploymentSample[]}
     */
    deploymentHistory() {
        const ret = wasm.simulator_deploymentHistory(this.__wbg_ptr);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return takeFromExternrefTable0(ret[0]);
    }
    /**
     * The timeline samples (`Sample[]`).
     * @returns {Sample[]}
     */
    history() {
        const ret = wasm.simulator_history(this.__wbg_ptr);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return takeFromExternrefTable0(ret[0]);
    }
    /**
     * `new Simulator(scenarioJson)`: the simulation at virtual time 0.
     * @param {any} scenario
     */
    constructor(scenario) {
        const ret = wasm.simulator_new(scenario);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        this.__wbg_ptr = ret[0];
        SimulatorFinalization.register(this, this.__wbg_ptr, this);
        return this;
    }
    /**
     * What a scale of an owner (default the primary owner) to `replicas` would delete
     * now (`ScalePreview`).
     * @param {any} replicas
     * @param {any} feature_gates
     * @param {any} owner
     * @returns {ScalePreview}
     */
    preview(replicas, feature_gates, owner) {
        const ret = wasm.simulator_preview(this.__wbg_ptr, replicas, feature_gates, owner);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return takeFromExternrefTable0(ret[0]);
    }
    /**
     * The engine's scale-down order of an owner's pods (`SimRanking`; default the
     * primary owner), under the current gates with `featureGatesJson` (optional) laid
     * over them.
     * @param {any} feature_gates
     * @param {any} owner
     * @returns {SimRanking}
     */
    ranking(feature_gates, owner) {
        const ret = wasm.simulator_ranking(this.__wbg_ptr, feature_gates, owner);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return takeFromExternrefTable0(ret[0]);
    }
    /**
     * The scenario with every edit applied so far (replays to this run).
     * @returns {Scenario}
     */
    scenario() {
        const ret = wasm.simulator_scenario(this.__wbg_ptr);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return takeFromExternrefTable0(ret[0]);
    }
    /**
     * A snapshot (`SimState`).
     * @returns {SimState}
     */
    state() {
        const ret = wasm.simulator_state(this.__wbg_ptr);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return takeFromExternrefTable0(ret[0]);
    }
    /**
     * Processes the next event; false when nothing is scheduled.
     * @returns {boolean}
     */
    step() {
        const ret = wasm.simulator_step(this.__wbg_ptr);
        return ret !== 0;
    }
    /**
     * Trace entries with `seq >= since` (default 0).
     * @param {any} since
     * @returns {TraceEntry[]}
     */
    trace(since) {
        const ret = wasm.simulator_trace(this.__wbg_ptr, since);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return takeFromExternrefTable0(ret[0]);
    }
}
if (Symbol.dispose) Simulator.prototype[Symbol.dispose] = Simulator.prototype.free;

/**
 * Owners and pods in wasm memory, indexed by namespace; plans without re-sending pods.
 */
export class Store {
    __destroy_into_raw() {
        const ptr = this.__wbg_ptr;
        this.__wbg_ptr = 0;
        StoreFinalization.unregister(this);
        return ptr;
    }
    free() {
        const ptr = this.__destroy_into_raw();
        wasm.__wbg_store_free(ptr, 0);
    }
    /**
     * `deleteOwner(namespace, name)`: whether it was there.
     * @param {string} namespace
     * @param {string} name
     * @returns {boolean}
     */
    deleteOwner(namespace, name) {
        const ret = wasm.store_deleteOwner(this.__wbg_ptr, namespace, name);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return ret[0] !== 0;
    }
    /**
     * `deletePod(namespace, name)`: whether it was there.
     * @param {string} namespace
     * @param {string} name
     * @returns {boolean}
     */
    deletePod(namespace, name) {
        const ret = wasm.store_deletePod(this.__wbg_ptr, namespace, name);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return ret[0] !== 0;
    }
    /**
     * `new Store(configJson?)`.
     * @param {JsonInput<Config> | undefined} config
     */
    constructor(config) {
        const ret = wasm.store_new(config);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        this.__wbg_ptr = ret[0];
        StoreFinalization.register(this, this.__wbg_ptr, this);
        return this;
    }
    /**
     * `onOwnerEvent(eventJson)`: as `onPodEvent`, for owners.
     * @param {JsonInput<StoreEvent<KubeObject>>} event
     * @returns {EventDecision}
     */
    onOwnerEvent(event) {
        const ret = wasm.store_onOwnerEvent(this.__wbg_ptr, event);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return takeFromExternrefTable0(ret[0]);
    }
    /**
     * `onPodEvent(eventJson)`: what the event asks for, decided against the stored
     * owners and previous pod; then the event is applied to the store.
     * @param {JsonInput<StoreEvent<KubeObject>>} event
     * @returns {EventDecision}
     */
    onPodEvent(event) {
        const ret = wasm.store_onPodEvent(this.__wbg_ptr, event);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return takeFromExternrefTable0(ret[0]);
    }
    /**
     * `planFor(namespace, name, optionsJson)`: the plan for the stored owner, as JSON
     * text.
     * @param {string} namespace
     * @param {string} name
     * @param {JsonInput<StorePlanOptions>} options
     * @returns {JsonText<SyncPlan>}
     */
    planFor(namespace, name, options) {
        const ret = wasm.store_planFor(this.__wbg_ptr, namespace, name, options);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return takeFromExternrefTable0(ret[0]);
    }
    /**
     * `size()`: `{owners, pods}`.
     * @returns {StoreSize}
     */
    size() {
        const ret = wasm.store_size(this.__wbg_ptr);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return takeFromExternrefTable0(ret[0]);
    }
    /**
     * `upsertOwner(ownerJson)`: adds or replaces an owner; a bad one changes nothing.
     * @param {JsonInput<KubeObject>} owner
     */
    upsertOwner(owner) {
        const ret = wasm.store_upsertOwner(this.__wbg_ptr, owner);
        if (ret[1]) {
            throw takeFromExternrefTable0(ret[0]);
        }
    }
    /**
     * `upsertPod(podJson)`: adds or replaces a pod; a bad one changes nothing.
     * @param {JsonInput<KubeObject>} pod
     */
    upsertPod(pod) {
        const ret = wasm.store_upsertPod(this.__wbg_ptr, pod);
        if (ret[1]) {
            throw takeFromExternrefTable0(ret[0]);
        }
    }
}
if (Symbol.dispose) Store.prototype[Symbol.dispose] = Store.prototype.free;

/**
 * `abandonedExpectations(manageJson, resultsJson)`: what to take off the expectations
 * when the host stops a manage step partway, given the results so far.
 * @param {JsonInput<Manage>} manage
 * @param {JsonInput<CallResult[]>} results
 * @returns {ExpectationsChange[]}
 */
export function abandonedExpectations(manage, results) {
    const ret = wasm.abandonedExpectations(manage, results);
    if (ret[2]) {
        throw takeFromExternrefTable0(ret[1]);
    }
    return takeFromExternrefTable0(ret[0]);
}

/**
 * `adoptionAllowed(planJson, liveOwnerJson)`: R-32, `null` when the planned adoptions
 * may go ahead, else why not.
 * @param {JsonInput<SyncPlan>} plan
 * @param {JsonInput<LiveOwner>} live_owner
 * @returns {string | undefined}
 */
export function adoptionAllowed(plan, live_owner) {
    const ret = wasm.adoptionAllowed(plan, live_owner);
    if (ret[3]) {
        throw takeFromExternrefTable0(ret[2]);
    }
    let v1;
    if (ret[0] !== 0) {
        v1 = getStringFromWasm0(ret[0], ret[1]);
        wasm.__wbindgen_free(ret[0], ret[1] * 1, 1);
    }
    return v1;
}

/**
 * `applyExpectations(currentJson, changesJson, nowJson)`: the expectations after the
 * changes (`null` = no record).
 * @param {JsonInput<Expectations>} current
 * @param {JsonInput<ExpectationsChange[]>} changes
 * @param {JsonInput<Time>} now
 * @returns {Expectations}
 */
export function applyExpectations(current, changes, now) {
    const ret = wasm.applyExpectations(current, changes, now);
    if (ret[2]) {
        throw takeFromExternrefTable0(ret[1]);
    }
    return takeFromExternrefTable0(ret[0]);
}

/**
 * `calculateStatus(inputJson, configJson?)`: upstream's calculateStatus over the given
 * active pods (R-80..R-82); `terminatingPods` is a count.
 * @param {JsonInput<StatusInput>} input
 * @param {JsonInput<Config> | undefined} config
 * @returns {ReplicaSetStatus}
 */
export function calculateStatus(input, config) {
    const ret = wasm.calculateStatus(input, config);
    if (ret[2]) {
        throw takeFromExternrefTable0(ret[1]);
    }
    return takeFromExternrefTable0(ret[0]);
}

/**
 * `complete(planJson, outcomeJson)`: what the host's calls mean. The plan carries
 * everything this needs: nothing is planned again and no state is kept here.
 * @param {JsonInput<SyncPlan>} plan
 * @param {JsonInput<SyncOutcome>} outcome
 * @returns {Completion}
 */
export function complete(plan, outcome) {
    const ret = wasm.complete(plan, outcome);
    if (ret[2]) {
        throw takeFromExternrefTable0(ret[1]);
    }
    return takeFromExternrefTable0(ret[0]);
}

/**
 * `completeInput(inputJson, outcomeJson, configJson?)`: `complete` for the plan of an
 * input made elsewhere (plans are deterministic).
 * @param {JsonInput<SyncInput>} input
 * @param {JsonInput<SyncOutcome>} outcome
 * @param {JsonInput<Config> | undefined} config
 * @returns {Completion}
 */
export function completeInput(input, outcome, config) {
    const ret = wasm.completeInput(input, outcome, config);
    if (ret[2]) {
        throw takeFromExternrefTable0(ret[1]);
    }
    return takeFromExternrefTable0(ret[0]);
}

/**
 * `correlateEvent(stateJson|null, eventJson, nowJson)`: `{decision, state}` as JSON text.
 * @param {JsonInput<EventCorrelatorState> | undefined} state
 * @param {JsonInput<EventToRecord>} event
 * @param {JsonInput<Time>} now
 * @returns {JsonText<Correlated>}
 */
export function correlateEvent(state, event, now) {
    const ret = wasm.correlateEvent(state, event, now);
    if (ret[2]) {
        throw takeFromExternrefTable0(ret[1]);
    }
    return takeFromExternrefTable0(ret[0]);
}

/**
 * `deploymentKeysForPodDeleted(podJson, replicaSetsJson, deploymentsJson, podsJson)`:
 * D-114, the Recreate deployment a deleted pod enqueues once none of its ReplicaSets
 * has a pod left (`pods`: the pods the cache still holds).
 * @param {any} pod
 * @param {any} replica_sets
 * @param {any} deployments
 * @param {any} pods
 * @returns {string[]}
 */
export function deploymentKeysForPodDeleted(pod, replica_sets, deployments, pods) {
    const ret = wasm.deploymentKeysForPodDeleted(pod, replica_sets, deployments, pods);
    if (ret[2]) {
        throw takeFromExternrefTable0(ret[1]);
    }
    return takeFromExternrefTable0(ret[0]);
}

/**
 * `deploymentKeysForReplicaSetEvent(eventJson, deploymentsJson)`: D-111..D-113, the
 * deployment keys (`namespace/name`) a ReplicaSet watch event enqueues.
 * @param {any} event
 * @param {any} deployments
 * @returns {string[]}
 */
export function deploymentKeysForReplicaSetEvent(event, deployments) {
    const ret = wasm.deploymentKeysForReplicaSetEvent(event, deployments);
    if (ret[2]) {
        throw takeFromExternrefTable0(ret[1]);
    }
    return takeFromExternrefTable0(ret[0]);
}

/**
 * `deploymentObjectKeys()`: the annotation keys and the label the Deployment controller
 * writes on its objects (for a host that shows or builds such objects: the playground's
 * forecast snapshot), so no host restates them.
 * @returns {{ revisionAnnotation: string; desiredReplicasAnnotation: string; maxReplicasAnnotation: string; podTemplateHashLabel: string }}
 */
export function deploymentObjectKeys() {
    const ret = wasm.deploymentObjectKeys();
    if (ret[2]) {
        throw takeFromExternrefTable0(ret[1]);
    }
    return takeFromExternrefTable0(ret[0]);
}

/**
 * `deploymentQueueAction(doneJson, requeues)`: D-115, what the work queue does with the
 * key after a sync that ended with `done`, given how often the key was requeued.
 * @param {JsonInput<SyncDone>} done
 * @param {number} requeues
 * @returns {QueueAction}
 */
export function deploymentQueueAction(done, requeues) {
    const ret = wasm.deploymentQueueAction(done, requeues);
    if (ret[2]) {
        throw takeFromExternrefTable0(ret[1]);
    }
    return takeFromExternrefTable0(ret[0]);
}

/**
 * `deploymentReadsPods(deploymentJson)`: do the sync and the pod-deletion handler of
 * this deployment read pods? Only a Recreate one's do (D-61, D-114); for any other a
 * host may pass no pods and the decisions are the same.
 * @param {JsonInput<KubeObject>} deployment
 * @returns {boolean}
 */
export function deploymentReadsPods(deployment) {
    const ret = wasm.deploymentReadsPods(deployment);
    if (ret[2]) {
        throw takeFromExternrefTable0(ret[1]);
    }
    return ret[0] !== 0;
}

/**
 * `deploymentSyncNext(syncJson)`: the next step (a call to make, or done).
 * @param {JsonInput<DeploymentSync>} sync
 * @returns {Step}
 */
export function deploymentSyncNext(sync) {
    const ret = wasm.deploymentSyncNext(sync);
    if (ret[2]) {
        throw takeFromExternrefTable0(ret[1]);
    }
    return takeFromExternrefTable0(ret[0]);
}

/**
 * `deploymentSyncReport(syncJson, resultJson)`: the state with the result of the call
 * the last step named, as JSON text.
 * @param {JsonInput<DeploymentSync>} sync
 * @param {JsonInput<ApiResult>} result
 * @returns {JsonText<DeploymentSync>}
 */
export function deploymentSyncReport(sync, result) {
    const ret = wasm.deploymentSyncReport(sync, result);
    if (ret[2]) {
        throw takeFromExternrefTable0(ret[1]);
    }
    return takeFromExternrefTable0(ret[0]);
}

/**
 * `deploymentSyncStart(inputJson)`: the machine's state at its first step, as JSON text.
 * @param {JsonInput<DeploymentSyncInput>} input
 * @returns {JsonText<DeploymentSync>}
 */
export function deploymentSyncStart(input) {
    const ret = wasm.deploymentSyncStart(input);
    if (ret[2]) {
        throw takeFromExternrefTable0(ret[1]);
    }
    return takeFromExternrefTable0(ret[0]);
}

/**
 * `expectationsSatisfied(currentJson, nowJson)`: R-40.
 * @param {JsonInput<Expectations>} current
 * @param {JsonInput<Time>} now
 * @returns {boolean}
 */
export function expectationsSatisfied(current, now) {
    const ret = wasm.expectationsSatisfied(current, now);
    if (ret[2]) {
        throw takeFromExternrefTable0(ret[1]);
    }
    return ret[0] !== 0;
}

/**
 * `hpaSyncNext(stateJson)`: the next step (a call to make, or done).
 * @param {JsonInput<HpaSyncState>} state
 * @returns {HpaStep}
 */
export function hpaSyncNext(state) {
    const ret = wasm.hpaSyncNext(state);
    if (ret[2]) {
        throw takeFromExternrefTable0(ret[1]);
    }
    return takeFromExternrefTable0(ret[0]);
}

/**
 * `hpaSyncReport(stateJson, answerJson)`: the state with the answer to the call the last
 * step named, as JSON text.
 * @param {JsonInput<HpaSyncState>} state
 * @param {JsonInput<HpaAnswer>} answer
 * @returns {JsonText<HpaSyncState>}
 */
export function hpaSyncReport(state, answer) {
    const ret = wasm.hpaSyncReport(state, answer);
    if (ret[2]) {
        throw takeFromExternrefTable0(ret[1]);
    }
    return takeFromExternrefTable0(ret[0]);
}

/**
 * `hpaSyncStart(inputJson)`: the machine's plain state at its first step, as JSON text.
 * @param {JsonInput<HpaSyncInput>} input
 * @returns {JsonText<HpaSyncState>}
 */
export function hpaSyncStart(input) {
    const ret = wasm.hpaSyncStart(input);
    if (ret[2]) {
        throw takeFromExternrefTable0(ret[1]);
    }
    return takeFromExternrefTable0(ret[0]);
}

/**
 * `manageAfterClaims(planJson, claimsJson)`: the manage step once the claims are done.
 * @param {JsonInput<SyncPlan>} plan
 * @param {JsonInput<ClaimOutcome>} claims
 * @returns {Manage}
 */
export function manageAfterClaims(plan, claims) {
    const ret = wasm.manageAfterClaims(plan, claims);
    if (ret[2]) {
        throw takeFromExternrefTable0(ret[1]);
    }
    return takeFromExternrefTable0(ret[0]);
}

/**
 * `nextBatch(createJson, resultsJson)`: the size of the next slow-start batch, or
 * `undefined` when slow start is over.
 * @param {JsonInput<CreatePlan>} create
 * @param {JsonInput<CallResult[]>} results
 * @returns {number | undefined}
 */
export function nextBatch(create, results) {
    const ret = wasm.nextBatch(create, results);
    if (ret[2]) {
        throw takeFromExternrefTable0(ret[1]);
    }
    return ret[0] === Number.MAX_SAFE_INTEGER ? undefined : ret[0];
}

/**
 * `onOwnerEvent(eventJson)`: the owner-event rules.
 * @param {JsonInput<WatchEvent<KubeObject>>} event
 * @returns {EventDecision}
 */
export function onOwnerEvent(event) {
    const ret = wasm.onOwnerEvent(event);
    if (ret[2]) {
        throw takeFromExternrefTable0(ret[1]);
    }
    return takeFromExternrefTable0(ret[0]);
}

/**
 * `onPodEvent(eventJson, ownersJson, configJson?)`: which owner keys to enqueue (now or
 * after a delay) and which expectation observations to make.
 * @param {JsonInput<WatchEvent<KubeObject>>} event
 * @param {JsonInput<KubeObject[]>} owners
 * @param {JsonInput<Config> | undefined} config
 * @returns {EventDecision}
 */
export function onPodEvent(event, owners, config) {
    const ret = wasm.onPodEvent(event, owners, config);
    if (ret[2]) {
        throw takeFromExternrefTable0(ret[1]);
    }
    return takeFromExternrefTable0(ret[0]);
}

/**
 * `plan(inputJson, configJson?)`: what one sync will do, as JSON text. The plan is a
 * value: the calls below take it back (as JSON text) and need nothing else.
 * @param {JsonInput<SyncInput>} input
 * @param {JsonInput<Config> | undefined} config
 * @returns {JsonText<SyncPlan>}
 */
export function plan(input, config) {
    const ret = wasm.plan(input, config);
    if (ret[2]) {
        throw takeFromExternrefTable0(ret[1]);
    }
    return takeFromExternrefTable0(ret[0]);
}

/**
 * `podFields()`: the fields of a pod the engine reads (`replicore::pod_fields`), as a
 * tree: `true` for a value read whole, an object of fields, or a one-item array of the
 * item shape. The package writes only these when it turns pods into JSON.
 * @returns {FieldTree}
 */
export function podFields() {
    const ret = wasm.podFields();
    if (ret[2]) {
        throw takeFromExternrefTable0(ret[1]);
    }
    return takeFromExternrefTable0(ret[0]);
}

/**
 * `podQuotaUsed(podsJson, nowJson)`: how many of the pods a `pods` ResourceQuota charges
 * at `now` (kube-apiserver's `QuotaV1Pod`: not terminal, not terminating past its grace
 * period).
 * @param {JsonInput<KubeObject[]>} pods
 * @param {JsonInput<Time>} now
 * @returns {number}
 */
export function podQuotaUsed(pods, now) {
    const ret = wasm.podQuotaUsed(pods, now);
    if (ret[2]) {
        throw takeFromExternrefTable0(ret[1]);
    }
    return ret[0] >>> 0;
}

/**
 * `rankPods(podsJson, optionsJson)`: the scale-down order, first to go first, each pod
 * with the rule that placed it before the next (as JSON text).
 * @param {JsonInput<KubeObject[]>} pods
 * @param {JsonInput<RankOptions>} options
 * @returns {JsonText<RankedPod[]>}
 */
export function rankPods(pods, options) {
    const ret = wasm.rankPods(pods, options);
    if (ret[2]) {
        throw takeFromExternrefTable0(ret[1]);
    }
    return takeFromExternrefTable0(ret[0]);
}

/**
 * `selectorMatches(selectorJson, labelsJson)`: R-10..R-12. A nil selector matches
 * nothing, `{}` everything; an invalid selector throws (code `INVALID_SELECTOR`).
 * @param {JsonInput<LabelSelector | null>} selector
 * @param {JsonInput<Record<string, string> | null>} labels
 * @returns {boolean}
 */
export function selectorMatches(selector, labels) {
    const ret = wasm.selectorMatches(selector, labels);
    if (ret[2]) {
        throw takeFromExternrefTable0(ret[1]);
    }
    return ret[0] !== 0;
}

/**
 * `slowStart(count, initialBatchSize, failedCallsJson)`: how a slow start of `count`
 * calls goes when the calls at the given 0-based indices fail.
 * @param {number} count_
 * @param {number} initial_batch_size
 * @param {JsonInput<number[]>} failed_calls
 * @returns {SlowStartResult}
 */
export function slowStart(count_, initial_batch_size, failed_calls) {
    const ret = wasm.slowStart(count_, initial_batch_size, failed_calls);
    if (ret[2]) {
        throw takeFromExternrefTable0(ret[1]);
    }
    return takeFromExternrefTable0(ret[0]);
}

/**
 * `upstreamLess(aJson, rankA, bJson, rankB, optionsJson)`: upstream's comparator on two
 * pods with their co-location ranks, for cross-checking (the order is `rankPods`').
 * @param {JsonInput<KubeObject>} a
 * @param {number} rank_a
 * @param {JsonInput<KubeObject>} b
 * @param {number} rank_b
 * @param {JsonInput<RankOptions>} options
 * @returns {boolean}
 */
export function upstreamLess(a, rank_a, b, rank_b, options) {
    const ret = wasm.upstreamLess(a, rank_a, b, rank_b, options);
    if (ret[2]) {
        throw takeFromExternrefTable0(ret[1]);
    }
    return ret[0] !== 0;
}

/**
 * The package version.
 * @returns {string}
 */
export function version() {
    let deferred1_0;
    let deferred1_1;
    try {
        const ret = wasm.version();
        deferred1_0 = ret[0];
        deferred1_1 = ret[1];
        return getStringFromWasm0(ret[0], ret[1]);
    } finally {
        wasm.__wbindgen_free(deferred1_0, deferred1_1, 1);
    }
}
function __wbg_get_imports() {
    const import0 = {
        __proto__: null,
        __wbg___wbindgen_is_null_c22311b1cc228e3a: function(arg0) {
            const ret = arg0 === null;
            return ret;
        },
        __wbg___wbindgen_is_undefined_be5b34249ff1fc15: function(arg0) {
            const ret = arg0 === undefined;
            return ret;
        },
        __wbg___wbindgen_number_get_934b640d0889af78: function(arg0, arg1) {
            const obj = arg1;
            const ret = typeof(obj) === 'number' ? obj : undefined;
            getDataViewMemory0().setFloat64((arg0 >>> 0) + 8 * 1, isLikeNone(ret) ? 0 : ret, true);
            getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 0, !isLikeNone(ret), true);
        },
        __wbg___wbindgen_string_get_7ce8eee7fd327545: function(arg0, arg1) {
            const obj = arg1;
            const ret = typeof(obj) === 'string' ? obj : undefined;
            var ptr1 = isLikeNone(ret) ? 0 : passStringToWasm0(ret, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
            var len1 = WASM_VECTOR_LEN;
            getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 1, len1, true);
            getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 0, ptr1, true);
        },
        __wbg___wbindgen_throw_4c88d8bf264fd984: function(arg0, arg1) {
            throw new Error(getStringFromWasm0(arg0, arg1));
        },
        __wbg___wbindgen_typeof_ee4990276e02f607: function(arg0) {
            const ret = typeof arg0;
            return ret;
        },
        __wbg_instanceof_Uint8Array_d7aeb0dcb3108fea: function(arg0) {
            let result;
            try {
                result = arg0 instanceof Uint8Array;
            } catch (_) {
                result = false;
            }
            const ret = result;
            return ret;
        },
        __wbg_isArray_bcf1376d0d732d08: function(arg0) {
            const ret = Array.isArray(arg0);
            return ret;
        },
        __wbg_length_186163212ffe79c3: function(arg0) {
            const ret = arg0.length;
            return ret;
        },
        __wbg_new_787b9fb330d55d78: function(arg0, arg1) {
            const ret = new Error(getStringFromWasm0(arg0, arg1));
            return ret;
        },
        __wbg_parse_c3f72b5a24f83c01: function() { return handleError(function (arg0, arg1) {
            const ret = JSON.parse(getStringFromWasm0(arg0, arg1));
            return ret;
        }, arguments); },
        __wbg_prototypesetcall_13162965d1fe7aa3: function(arg0, arg1, arg2) {
            Uint8Array.prototype.set.call(getArrayU8FromWasm0(arg0, arg1), arg2);
        },
        __wbg_set_2793479888329cb6: function() { return handleError(function (arg0, arg1, arg2) {
            const ret = Reflect.set(arg0, arg1, arg2);
            return ret;
        }, arguments); },
        __wbindgen_generic_0000000000000001: function(arg0, arg1) {
            // Cast intrinsic for `Ref(String) -> Externref`.
            const ret = getStringFromWasm0(arg0, arg1);
            return ret;
        },
        __wbindgen_init_externref_table: function() {
            const table = wasm.__wbindgen_externrefs;
            table.set(0, undefined);
            table.set(1024, undefined);
            table.set(1025, null);
            table.set(1026, true);
            table.set(1027, false);
        },
    };
    return {
        __proto__: null,
        "./replicore_sim_bg.js": import0,
    };
}

const DeploymentSyncRunFinalization = (typeof FinalizationRegistry === 'undefined')
    ? { register: () => {}, unregister: () => {} }
    : new FinalizationRegistry(ptr => wasm.__wbg_deploymentsyncrun_free(ptr, 1));
const EventCorrelatorFinalization = (typeof FinalizationRegistry === 'undefined')
    ? { register: () => {}, unregister: () => {} }
    : new FinalizationRegistry(ptr => wasm.__wbg_eventcorrelator_free(ptr, 1));
const HpaSyncRunFinalization = (typeof FinalizationRegistry === 'undefined')
    ? { register: () => {}, unregister: () => {} }
    : new FinalizationRegistry(ptr => wasm.__wbg_hpasyncrun_free(ptr, 1));
const SimulatorFinalization = (typeof FinalizationRegistry === 'undefined')
    ? { register: () => {}, unregister: () => {} }
    : new FinalizationRegistry(ptr => wasm.__wbg_simulator_free(ptr, 1));
const StoreFinalization = (typeof FinalizationRegistry === 'undefined')
    ? { register: () => {}, unregister: () => {} }
    : new FinalizationRegistry(ptr => wasm.__wbg_store_free(ptr, 1));

function addToExternrefTable0(obj) {
    const idx = wasm.__externref_table_alloc();
    wasm.__wbindgen_externrefs.set(idx, obj);
    return idx;
}

function getArrayU8FromWasm0(ptr, len) {
    ptr = ptr >>> 0;
    return getUint8ArrayMemory0().subarray(ptr / 1, ptr / 1 + len);
}

let cachedDataViewMemory0 = null;
function getDataViewMemory0() {
    if (cachedDataViewMemory0 === null || cachedDataViewMemory0.buffer.detached === true || (cachedDataViewMemory0.buffer.detached === undefined && cachedDataViewMemory0.buffer !== wasm.memory.buffer)) {
        cachedDataViewMemory0 = new DataView(wasm.memory.buffer);
    }
    return cachedDataViewMemory0;
}

function getStringFromWasm0(ptr, len) {
    ptr = ptr >>> 0;
    return decodeText(getUint8ArrayMemory0().subarray(ptr, ptr + len));
}

let cachedUint8ArrayMemory0 = null;
function getUint8ArrayMemory0() {
    if (cachedUint8ArrayMemory0 === null || cachedUint8ArrayMemory0.byteLength === 0) {
        cachedUint8ArrayMemory0 = new Uint8Array(wasm.memory.buffer);
    }
    return cachedUint8ArrayMemory0;
}

function handleError(f, args) {
    try {
        return f.apply(this, args);
    } catch (e) {
        const idx = addToExternrefTable0(e);
        wasm.__wbindgen_exn_store(idx);
    }
}

function isLikeNone(x) {
    return x === undefined || x === null;
}

function passStringToWasm0(arg, malloc, realloc) {
    if (realloc === undefined) {
        const buf = cachedTextEncoder.encode(arg);
        const ptr = malloc(buf.length, 1) >>> 0;
        getUint8ArrayMemory0().subarray(ptr, ptr + buf.length).set(buf);
        WASM_VECTOR_LEN = buf.length;
        return ptr;
    }

    let len = arg.length;
    let ptr = malloc(len, 1) >>> 0;

    const mem = getUint8ArrayMemory0();

    let offset = 0;

    for (; offset < len; offset++) {
        const code = arg.charCodeAt(offset);
        if (code > 0x7F) break;
        mem[ptr + offset] = code;
    }
    if (offset !== len) {
        if (offset !== 0) {
            arg = arg.slice(offset);
        }
        ptr = realloc(ptr, len, len = offset + arg.length * 3, 1) >>> 0;
        const view = getUint8ArrayMemory0().subarray(ptr + offset, ptr + len);
        const ret = cachedTextEncoder.encodeInto(arg, view);

        offset += ret.written;
        ptr = realloc(ptr, len, offset, 1) >>> 0;
    }

    WASM_VECTOR_LEN = offset;
    return ptr;
}

function takeFromExternrefTable0(idx) {
    const value = wasm.__wbindgen_externrefs.get(idx);
    wasm.__externref_table_dealloc(idx);
    return value;
}

let cachedTextDecoder = new TextDecoder('utf-8', { ignoreBOM: true });
cachedTextDecoder.decode();
const MAX_SAFARI_DECODE_BYTES = 2146435072;
let numBytesDecoded = 0;
function decodeText(bytes) {
    numBytesDecoded += bytes.length;
    if (numBytesDecoded >= MAX_SAFARI_DECODE_BYTES) {
        cachedTextDecoder = new TextDecoder('utf-8', { ignoreBOM: true });
        cachedTextDecoder.decode();
        numBytesDecoded = bytes.length;
    }
    return cachedTextDecoder.decode(bytes);
}

const cachedTextEncoder = new TextEncoder();

if (!('encodeInto' in cachedTextEncoder)) {
    cachedTextEncoder.encodeInto = function (arg, view) {
        const buf = cachedTextEncoder.encode(arg);
        view.set(buf);
        return {
            read: arg.length,
            written: buf.length
        };
    };
}

let WASM_VECTOR_LEN = 0;

let wasmModule, wasmInstance, wasm;
function __wbg_finalize_init(instance, module) {
    wasmInstance = instance;
    wasm = instance.exports;
    wasmModule = module;
    cachedDataViewMemory0 = null;
    cachedUint8ArrayMemory0 = null;
    wasm.__wbindgen_start();
    return wasm;
}

async function __wbg_load(module, imports) {
    if (typeof Response === 'function' && module instanceof Response) {
        if (!module.ok) {
            throw new Error(`failed to fetch Wasm: ${module.status} ${module.statusText} fetching '${module.url}'`);
        }

        if (typeof WebAssembly.instantiateStreaming === 'function') {
            try {
                return await WebAssembly.instantiateStreaming(module, imports);
            } catch (e) {
                const validResponse = expectedResponseType(module.type);

                if (validResponse && module.headers.get('Content-Type') !== 'application/wasm') {
                    console.warn("`WebAssembly.instantiateStreaming` failed because your server does not serve Wasm with `application/wasm` MIME type. Falling back to `WebAssembly.instantiate` which is slower. Original error:\n", e);

                } else { throw e; }
            }
        }

        const bytes = await module.arrayBuffer();
        return await WebAssembly.instantiate(bytes, imports);
    } else {
        const instance = await WebAssembly.instantiate(module, imports);

        if (instance instanceof WebAssembly.Instance) {
            return { instance, module };
        } else {
            return instance;
        }
    }

    function expectedResponseType(type) {
        switch (type) {
            case 'basic': case 'cors': case 'default': return true;
        }
        return false;
    }
}

function initSync(module) {
    if (wasm !== undefined) return wasm;


    if (module !== undefined) {
        if (Object.getPrototypeOf(module) === Object.prototype) {
            ({module} = module)
        } else {
            console.warn('using deprecated parameters for `initSync()`; pass a single object instead')
        }
    }

    const imports = __wbg_get_imports();
    if (!(module instanceof WebAssembly.Module)) {
        module = new WebAssembly.Module(module);
    }
    const instance = new WebAssembly.Instance(module, imports);
    return __wbg_finalize_init(instance, module);
}

let __wbg_init_promise;
async function __wbg_init(module_or_path) {
    if (wasm !== undefined) return wasm;
    if (__wbg_init_promise === undefined) {
        __wbg_init_promise = __wbg_init_once(module_or_path);
        __wbg_init_promise.catch(() => { __wbg_init_promise = undefined; });
    }
    return __wbg_init_promise;
}

async function __wbg_init_once(module_or_path) {

    if (module_or_path !== undefined) {
        if (Object.getPrototypeOf(module_or_path) === Object.prototype) {
            ({module_or_path} = module_or_path)
        } else {
            console.warn('using deprecated parameters for the initialization function; pass a single object instead')
        }
    }

    if (module_or_path === undefined) {
        module_or_path = new URL('replicore_sim_small_bg.wasm', import.meta.url);
    }
    const imports = __wbg_get_imports();

    if (typeof module_or_path === 'string' || (typeof Request === 'function' && module_or_path instanceof Request) || (typeof URL === 'function' && module_or_path instanceof URL)) {
        module_or_path = fetch(module_or_path);
    }

    const { instance, module } = await __wbg_load(await module_or_path, imports);

    return __wbg_finalize_init(instance, module);
}

export { initSync, __wbg_init as default };
