// RFC 3339 instants with nanosecond precision, as the engine reads and writes them
// (a JavaScript Date keeps milliseconds only). Used by the conformance runner's clocks
// and by the report's "ready since" ages.

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

export const NANOS_PER_SECOND = 1_000_000_000n;

/** Nanoseconds since the Unix epoch, or `null` when `text` is not an RFC 3339 instant. */
export function parseNanos(text: string): bigint | null {
  const m = RFC3339.exec(text);
  if (!m) return null;
  const [, y, mo, d, h, mi, s, frac, , sign, oh, om] = m;
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  if (Number.isNaN(ms)) return null;
  let ns = BigInt(ms) * 1_000_000n + BigInt((frac ?? "").padEnd(9, "0") || "0");
  if (sign) {
    const offset = BigInt(Number(oh) * 3600 + Number(om) * 60) * NANOS_PER_SECOND;
    ns = sign === "+" ? ns - offset : ns + offset;
  }
  return ns;
}

/** `2026-11-21T04:40:12Z`, with a fraction (trailing zeros dropped) when there is one. */
export function formatNanos(ns: bigint): string {
  let secs = ns / NANOS_PER_SECOND;
  let frac = ns % NANOS_PER_SECOND;
  if (frac < 0n) {
    frac += NANOS_PER_SECOND;
    secs -= 1n;
  }
  const base = new Date(Number(secs) * 1000).toISOString().slice(0, 19);
  const fraction = frac === 0n ? "" : "." + frac.toString().padStart(9, "0").replace(/0+$/, "");
  return `${base}${fraction}Z`;
}

/** Seconds (possibly fractional) as nanoseconds, rounded toward zero as Rust's `as i64`. */
export function secondsToNanos(seconds: number): bigint {
  return BigInt(Math.trunc(seconds * 1e9));
}

/** The system clock in whole seconds, as the API server writes times. */
export function nowWholeSeconds(): string {
  return formatNanos(BigInt(Math.floor(Date.now() / 1000)) * NANOS_PER_SECOND);
}
