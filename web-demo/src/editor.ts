// The pod editor: a modal <dialog> (focus stays inside, Escape closes) to change a pod's
// phase, readiness, restart count and deletion cost, or to delete it.

import { byId } from "./dom.js";
import type { PodView } from "./views.js";

export interface PodChanges {
  phase: string;
  ready: boolean;
  restarts: number;
  /** null: no annotation. */
  deletionCost: number | null;
}

export interface EditorHandlers {
  apply: (pod: PodView, changes: PodChanges) => void;
  /** Absent: the pod cannot be deleted here. */
  kill?: (pod: PodView) => void;
  closed?: () => void;
}

let current: { pod: PodView; handlers: EditorHandlers; returnTo: string } | null = null;

export function setupEditor(): void {
  const dialog = byId<HTMLDialogElement>("pod-editor");
  const form = byId<HTMLFormElement>("pod-editor-form");
  const error = byId("pod-editor-error");
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    if (!current) return;
    const restarts = Number(byId<HTMLInputElement>("edit-restarts").value);
    const costText = byId<HTMLInputElement>("edit-cost").value.trim();
    const cost = costText === "" ? null : Number(costText);
    if (!Number.isInteger(restarts) || restarts < 0) {
      error.textContent = "Restarts must be a whole number, 0 or more.";
      return;
    }
    if (cost !== null && (!Number.isInteger(cost) || cost < -2147483648 || cost > 2147483647)) {
      error.textContent = "Deletion cost must be a 32-bit whole number (or empty for none).";
      return;
    }
    const { pod, handlers } = current;
    try {
      handlers.apply(pod, {
        phase: byId<HTMLSelectElement>("edit-phase").value,
        ready: byId<HTMLInputElement>("edit-ready").checked,
        restarts,
        deletionCost: cost,
      });
    } catch (err) {
      error.textContent = (err as Error).message;
      return;
    }
    dialog.close();
  });
  byId("edit-cancel").addEventListener("click", () => dialog.close());
  byId("edit-kill").addEventListener("click", () => {
    if (!current?.handlers.kill) return;
    const { pod, handlers } = current;
    try {
      handlers.kill?.(pod);
    } catch (err) {
      error.textContent = (err as Error).message;
      return;
    }
    dialog.close();
  });
  dialog.addEventListener("close", () => {
    const was = current;
    current = null;
    was?.handlers.closed?.();
    if (was) document.querySelector<HTMLElement>(`[data-key="${CSS.escape(was.returnTo)}"]`)?.focus();
  });
}

export function openEditor(pod: PodView, handlers: EditorHandlers): void {
  const dialog = byId<HTMLDialogElement>("pod-editor");
  current = { pod, handlers, returnTo: `pod:${pod.namespace}/${pod.name}` };
  byId("pod-editor-title").textContent = `Edit pod ${pod.name}`;
  byId("pod-editor-error").textContent = "";
  const phase = byId<HTMLSelectElement>("edit-phase");
  // The select's own options are the phases a pod can be given.
  phase.value = [...phase.options].some((o) => o.value === pod.phase) ? pod.phase : "Running";
  byId<HTMLInputElement>("edit-ready").checked = pod.ready;
  byId<HTMLInputElement>("edit-restarts").value = String(pod.restarts);
  byId<HTMLInputElement>("edit-cost").value = pod.deletionCost === 0 ? "" : String(pod.deletionCost);
  byId<HTMLButtonElement>("edit-kill").hidden = !handlers.kill;
  if (!dialog.open) dialog.showModal();
  phase.focus();
}

export function editorOpenFor(): string | null {
  return current ? current.pod.name : null;
}
