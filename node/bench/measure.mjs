// Repeated runs of one operation: median and spread, never a pass/fail threshold.

/**
 * Runs `f` `warmup` times and for at least `warmupMs` (V8 first runs wasm in its baseline
 * compiler and tiers hot functions up in the background: early runs measure the JIT),
 * then `runs` times (or until `budgetMs` is spent, at least 3).
 */
export function measure(f, { runs = 30, warmup = 2, warmupMs = 300, budgetMs = 4000 } = {}) {
  // A full collection first (with --expose-gc, as `npm run bench` runs): otherwise the
  // garbage of the benchmarks before is collected during this one (planFor/10k measured
  // 6 ms after the 10k plan benchmarks and 3 ms alone).
  globalThis.gc?.();
  const warm = performance.now();
  for (let i = 0; i < warmup || (i < 1000 && performance.now() - warm < warmupMs); i++) f();
  const times = [];
  const start = performance.now();
  while (times.length < runs && (times.length < 3 || performance.now() - start < budgetMs)) {
    const t0 = performance.now();
    f();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
  return { median: at(0.5), p10: at(0.1), p90: at(0.9), min: times[0], max: times[times.length - 1], runs: times.length };
}

const fmt = (ms) => (ms >= 100 ? ms.toFixed(0) : ms >= 1 ? ms.toFixed(2) : `${(ms * 1000).toFixed(1)} µs`.replace(" µs", "µs"));
const ms = (v) => (v >= 1 || v === 0 ? `${fmt(v)} ms` : fmt(v));

/** One line: name, median, spread (p10–p90), runs. */
export function line(name, r) {
  return `${name.padEnd(34)} median ${ms(r.median).padStart(10)}   p10–p90 ${ms(r.p10)} – ${ms(r.p90)}   (${r.runs} runs)`;
}
