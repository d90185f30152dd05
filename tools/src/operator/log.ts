// Structured logs: one JSON object per line on stdout ({ts, level, msg, ...fields}).

export type Level = "debug" | "info" | "warn" | "error";
const ORDER: Record<Level, number> = { debug: 0, info: 1, warn: 2, error: 3 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  with(fields: Record<string, unknown>): Logger;
}

export function makeLogger(minLevel: Level = "info", base: Record<string, unknown> = {}, out: (line: string) => void = (l) => process.stdout.write(l)): Logger {
  const write = (level: Level, msg: string, fields?: Record<string, unknown>): void => {
    if (ORDER[level] < ORDER[minLevel]) return;
    let line: string;
    try {
      line = JSON.stringify({ ts: new Date().toISOString(), level, msg, ...base, ...fields });
    } catch {
      line = JSON.stringify({ ts: new Date().toISOString(), level, msg, ...base, note: "fields not serializable" });
    }
    out(`${line}\n`);
  };
  return {
    debug: (m, f) => write("debug", m, f),
    info: (m, f) => write("info", m, f),
    warn: (m, f) => write("warn", m, f),
    error: (m, f) => write("error", m, f),
    with: (f) => makeLogger(minLevel, { ...base, ...f }, out),
  };
}
