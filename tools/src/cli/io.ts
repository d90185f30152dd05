// Input, output and failures of the CLI: every failure is a `CliError` with an exit
// code, printed as one line `replicore: <message>`.

import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";

/** A failure the CLI reports in one line: exit 2 for usage errors, 1 for the rest. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message);
    this.name = "CliError";
  }
}

/** A usage error (exit 2), pointing at the command's --help. */
export function usageError(message: string, command?: string): CliError {
  const help = command ? `replicore ${command} --help` : "replicore --help";
  return new CliError(`${message} (see '${help}')`, 2);
}

/** What a file (or stdin, for `-`) holds, and the name to report it by. */
export interface Input {
  name: string;
  text: string;
}

function why(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  switch (err?.code) {
    case "ENOENT":
      return "no such file";
    case "EISDIR":
      return "is a directory, not a file";
    case "EACCES":
      return "permission denied";
    default:
      return err instanceof Error ? err.message : String(e);
  }
}

/** Reads `path` (`-` = stdin) as UTF-8 text; `.gz` files are gunzipped. */
export function readInput(path: string): Input {
  if (path === "-") {
    try {
      return { name: "<stdin>", text: withoutBom(readFileSync(0, "utf8")) };
    } catch (e) {
      throw new CliError(`cannot read stdin: ${why(e)}`);
    }
  }
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    throw new CliError(`cannot read ${path}: ${why(e)}`);
  }
  if (path.endsWith(".gz")) {
    try {
      bytes = gunzipSync(bytes);
    } catch (e) {
      throw new CliError(`cannot read ${path}: not gzip data (${why(e)})`);
    }
  }
  return { name: path, text: withoutBom(bytes.toString("utf8")) };
}

function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** `JSON.parse`, failing with where the text stops being JSON (line and column). */
export function parseJson(input: Input): unknown {
  try {
    return JSON.parse(input.text);
  } catch {
    const at = jsonErrorOffset(input.text);
    const { line, column } = lineColumn(input.text, at);
    const what = at >= input.text.length ? "unexpected end of input" : `unexpected ${describeChar(input.text, at)}`;
    throw new CliError(`${input.name}: invalid JSON at line ${line} column ${column}: ${what}`);
  }
}

function describeChar(text: string, at: number): string {
  const c = String.fromCodePoint(text.codePointAt(at) ?? 0);
  return /[\x21-\x7e]/.test(c) ? `'${c}'` : JSON.stringify(c);
}

/** 1-based line and column of the character at `offset`. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, column: offset - start + 1 };
}

/**
 * The offset of the first character that makes `text` invalid JSON (text.length when it
 * ends too early). Only called after `JSON.parse` failed, to say where.
 */
export function jsonErrorOffset(text: string): number {
  let i = 0;
  class Stop {
    constructor(readonly at: number) {}
  }
  const ws = () => {
    while (i < text.length && " \t\n\r".includes(text[i] as string)) i++;
  };
  const expect = (word: string) => {
    for (const c of word) {
      if (text[i] !== c) throw new Stop(i);
      i++;
    }
  };
  const string = () => {
    expect('"');
    for (;;) {
      if (i >= text.length) throw new Stop(i);
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return;
      }
      if (c < 0x20) throw new Stop(i);
      if (c === 0x5c) {
        i++;
        const e = text[i];
        if (e === "u") {
          for (let k = 1; k <= 4; k++) if (!/[0-9a-fA-F]/.test(text[i + k] ?? "")) throw new Stop(i + k);
          i += 5;
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) i++;
        else throw new Stop(i);
      } else i++;
    }
  };
  const number = () => {
    const m = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!m || m[0] === "-" || m[0] === "") throw new Stop(i);
    i += m[0].length;
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === "{") {
      i++;
      ws();
      if (text[i] === "}") {
        i++;
        return;
      }
      for (;;) {
        ws();
        string();
        ws();
        expect(":");
        value();
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === "}") {
          i++;
          return;
        } else throw new Stop(i);
      }
    } else if (c === "[") {
      i++;
      ws();
      if (text[i] === "]") {
        i++;
        return;
      }
      for (;;) {
        value();
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === "]") {
          i++;
          return;
        } else throw new Stop(i);
      }
    } else if (c === '"') string();
    else if (c === "t") expect("true");
    else if (c === "f") expect("false");
    else if (c === "n") expect("null");
    else if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) number();
    else throw new Stop(i);
  };
  try {
    value();
    ws();
    return i < text.length ? i : text.length;
  } catch (e) {
    if (e instanceof Stop) return e.at;
    throw e;
  }
}

/**
 * An engine error about the JSON text of `inputName`: a syntax error as "invalid JSON at
 * line L column C: why" (the engine's message ends with where), any other error with the
 * field path the engine names.
 */
export function describeInputError(inputName: string, e: { path: string; message: string }): string {
  const body = e.message.startsWith(`${e.path}: `) ? e.message.slice(e.path.length + 2) : e.message;
  const at = / at line (\d+) column (\d+)$/.exec(body);
  if (at) return `${inputName}: invalid JSON at line ${at[1]} column ${at[2]}: ${body.slice(0, at.index)}`;
  if (e.path === "." || e.path === "") return `${inputName}: ${body}`;
  return `${inputName}: ${e.message}`;
}

/** Writes to stdout; a closed pipe (`| head`) ends the program quietly. */
export function emit(text: string): void {
  process.stdout.write(text);
}

process.stdout.on("error", (e: NodeJS.ErrnoException) => {
  if (e.code === "EPIPE") process.exit(0);
  process.stderr.write(`replicore: cannot write to stdout: ${e.message}\n`);
  process.exit(1);
});
