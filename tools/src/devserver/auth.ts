// Authentication and authorization as kube-apiserver answers them, small enough for the
// dev server: bearer tokens name users; a user's deny rules make matching requests
// 403 Forbidden with the API server's message (`<resource> "<name>" is forbidden: User
// "<user>" cannot <verb> resource "<resource>" in API group "<group>" in the namespace
// "<ns>"`); an unknown token is 401 Unauthorized. Without configured tokens every request
// is allowed, as before.

import type { RequestAttributes } from "../api-path.js";

/** What a request does, as the API server's authorizer sees it (shared with the operator). */
export type { RequestAttributes };

/**
 * A deny rule: every listed field must match (an omitted field or "*" matches anything).
 * `resources` name the resource, or resource/subresource (`replicasets/status`).
 */
export interface DenyRule {
  verbs?: string[];
  resources?: string[];
  namespaces?: string[];
}

export interface DevServerUser {
  /** The user name the API would report (e.g. system:serviceaccount:ns:name). */
  name: string;
  deny?: DenyRule[];
}

/** Bearer token → user. */
export type TokenTable = Record<string, DevServerUser>;

export type AuthResult = { ok: true; user?: DevServerUser } | { ok: false; status: 401 | 403; message: string; reason: string; details?: object };

const anyOf = (list: string[] | undefined, v: string | undefined): boolean => list === undefined || list.includes("*") || (v !== undefined && list.includes(v));

function denies(rule: DenyRule, a: RequestAttributes): boolean {
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  return anyOf(rule.verbs, a.verb) && anyOf(rule.resources, resource) && anyOf(rule.namespaces, a.namespace);
}

/** Who sends this Authorization header: undefined = no credentials, null = an unknown token. */
export function authenticate(tokens: TokenTable | undefined, header: string | undefined): DevServerUser | null | undefined {
  if (!tokens || header === undefined) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m) return null;
  return tokens[m[1] as string] ?? null;
}

/** kube-apiserver's 403 message for a resource request (`forbiddenMessage` + NewForbidden). */
export function forbiddenMessage(user: string, a: RequestAttributes): string {
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const scope = a.namespace ? `in the namespace "${a.namespace}"` : "at the cluster scope";
  const why = `User "${user}" cannot ${a.verb} resource "${resource}" in API group "${a.group}" ${scope}`;
  const gr = a.group ? `${a.resource}.${a.group}` : a.resource;
  return a.name ? `${gr} "${a.name}" is forbidden: ${why}` : `${gr} is forbidden: ${why}`;
}

/** Authorizes a request: 401 for an unknown token, 403 for a denied one. */
export function authorize(tokens: TokenTable | undefined, header: string | undefined, a: RequestAttributes | undefined): AuthResult {
  const user = authenticate(tokens, header);
  if (user === null) return { ok: false, status: 401, message: "Unauthorized", reason: "Unauthorized" };
  if (user === undefined || a === undefined) return { ok: true };
  if ((user.deny ?? []).some((r) => denies(r, a))) {
    return {
      ok: false,
      status: 403,
      message: forbiddenMessage(user.name, a),
      reason: "Forbidden",
      details: { ...(a.name ? { name: a.name } : {}), group: a.group, kind: a.resource },
    };
  }
  return { ok: true, user };
}

/** `--token TOKEN=USER`: requests with `Authorization: Bearer TOKEN` are USER's. */
export function parseTokenSpec(spec: string): [string, DevServerUser] {
  const eq = spec.indexOf("=");
  if (eq <= 0 || eq === spec.length - 1) throw new Error(`--token ${spec}: expected TOKEN=USER, e.g. t1=system:serviceaccount:replicore-system:replicore-operator`);
  return [spec.slice(0, eq), { name: spec.slice(eq + 1) }];
}

/**
 * `--deny TOKEN=VERBS:RESOURCES[:NAMESPACES]`, each a comma-separated list or `*`, e.g.
 * `t1=get,create,update:leases:default` or `t1=*:pods,replicasets/status`.
 */
export function parseDenySpec(spec: string): [string, DenyRule] {
  const eq = spec.indexOf("=");
  const parts = eq > 0 ? spec.slice(eq + 1).split(":") : [];
  if (eq <= 0 || parts.length < 2 || parts.length > 3 || parts.some((p) => p === "")) {
    throw new Error(`--deny ${spec}: expected TOKEN=VERBS:RESOURCES[:NAMESPACES], e.g. t1=get,create,update:leases:default`);
  }
  const list = (p: string): string[] => p.split(",");
  const rule: DenyRule = { verbs: list(parts[0] as string), resources: list(parts[1] as string) };
  if (parts[2] !== undefined) rule.namespaces = list(parts[2]);
  return [spec.slice(0, eq), rule];
}
