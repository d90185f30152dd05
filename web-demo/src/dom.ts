// A tiny DOM toolkit: `h()` builds elements, `mount()` replaces a region's content while
// keeping the keyboard focus on the element with the same `data-key` (so a re-render during
// play does not throw the focus away).

export type Child = Node | string | number | null | undefined | false | Child[];

type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>;

/** `h("button", { class: "x", onclick: f }, "text", child…)`. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Attrs | null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [name, value] of Object.entries(attrs)) {
      if (value === null || value === undefined || value === false) continue;
      if (name.startsWith("on") && typeof value === "function") {
        el.addEventListener(name.slice(2), value);
      } else if (name === "value" && "value" in el) {
        (el as HTMLInputElement).value = String(value);
      } else if (name === "checked" && el instanceof HTMLInputElement) {
        el.checked = Boolean(value);
      } else {
        el.setAttribute(name, value === true ? "" : String(value));
      }
    }
  }
  append(el, children);
  return el;
}

/** An SVG element. */
export function s(tag: string, attrs?: Record<string, string | number | null | undefined>, ...children: Child[]): SVGElement {
  const el = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value !== null && value !== undefined) el.setAttribute(name, String(value));
  }
  append(el, children);
  return el;
}

function append(el: Element, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else if (c instanceof Node) el.appendChild(c);
    else el.appendChild(document.createTextNode(String(c)));
  }
}

/** Replaces the children of `region`, restoring focus to the new element with the focused one's `data-key`. */
export function mount(region: Element, ...children: Child[]): void {
  const active = document.activeElement;
  const key = (active instanceof HTMLElement || active instanceof SVGElement) && region.contains(active) ? active.dataset.key : undefined;
  region.replaceChildren();
  append(region, children);
  if (key !== undefined) {
    const again = region.querySelector<HTMLElement | SVGElement>(`[data-key="${CSS.escape(key)}"]`);
    again?.focus({ preventScroll: true });
  }
}

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`page: element #${id} is missing`);
  return el as T;
}

/** "3.2 s", "4 min 05 s", "2 h 10 min", "3 d 4 h". */
export function duration(ms: number): string {
  if (!Number.isFinite(ms)) return "–";
  const neg = ms < 0;
  let x = Math.abs(ms);
  let out: string;
  if (x < 10_000) out = `${(x / 1000).toFixed(1)} s`;
  else if (x < 60_000) out = `${Math.floor(x / 1000)} s`;
  else if (x < 3_600_000) {
    x = Math.floor(x / 1000);
    out = `${Math.floor(x / 60)} min ${String(x % 60).padStart(2, "0")} s`;
  } else if (x < 86_400_000) {
    x = Math.floor(x / 60_000);
    out = `${Math.floor(x / 60)} h ${String(x % 60).padStart(2, "0")} min`;
  } else {
    x = Math.floor(x / 3_600_000);
    out = `${Math.floor(x / 24)} d ${x % 24} h`;
  }
  return neg ? `-${out}` : out;
}

/** Virtual time as `t = 12.345 s`. */
export function vtime(t: number): string {
  return `${(t / 1000).toFixed(3)} s`;
}
